import { Clock, Effect } from "effect"

/** A budget: at most `limit` weight in any window of `windowMillis`. */
export interface Budget {
  readonly limit: number
  readonly windowMillis: number
}

/**
 * A sliding-window log limiter. Unlike a fixed window or a token bucket it guarantees that no window of the
 * given length (plus `marginMillis`, which absorbs network jitter between our send time and the venue's receive
 * time) ever holds more than `limit` weight, whatever the venue's own window alignment.
 *
 * Each acquisition reserves the earliest slot that fits and then sleeps until it (on `Clock`, so `TestClock`
 * drives it in tests). Reservations are made in one synchronous step, so concurrent fibers queue in order. Time is
 * the clock's monotonic time, so a wall clock stepping back (NTP, a resumed VM) cannot stall the queue. A waiter
 * that is interrupted gives its slot back.
 *
 * The venue counts a request when it receives it, which can be well after the slot was granted (a first request
 * that opens the connection, a pause of the process): the 101st of a burst granted exactly one window after the
 * 1st can then reach the venue less than a window after the 1st did, and be refused with 429. So a permit is
 * settled when the answer arrives: from then on the request counts from that moment, which is never before the
 * venue received it. A waiter whose slot was reserved before an earlier request settled checks its window again
 * when it wakes and waits longer if that request now fills it.
 */
export interface Limiter {
  readonly acquire: (weight: number) => Effect.Effect<Permit>
}

/** A granted acquisition: `settle` once the request's answer (or failure) arrived. */
export interface Permit {
  readonly settle: Effect.Effect<void>
}

interface Entry {
  time: number
  weight: number
  released: boolean
}

/** A positive, finite number. */
export const isPositive = (n: number): boolean => Number.isFinite(n) && n > 0

/** Whether a budget can be enforced: a positive, finite limit and window. */
export const isValidBudget = (budget: Budget): boolean => isPositive(budget.limit) && isPositive(budget.windowMillis)

// Whole milliseconds converted exactly (a clock at epoch time counts ~1.8e18 ns, beyond a double's exact integers), so
// that times computed from settled requests stay whole on a whole-millisecond clock.
const monotonicMillis = Effect.map(
  Clock.monotonicTimeNanos,
  (nanos) => Number(nanos / 1_000_000n) + Number(nanos % 1_000_000n) / 1e6
)

export const make = (budget: Budget, marginMillis: number): Limiter => {
  const window = budget.windowMillis + Math.max(0, marginMillis)
  // Reservation times are non-decreasing, so the log stays sorted by time.
  let log: Array<Entry> = []
  let head = 0
  let total = 0

  const reserve = (now: number, weight: number): Entry => {
    // Entries at or before now - window can never count again: every later slot is >= now.
    while (head < log.length && log[head]!.time <= now - window) {
      total -= log[head]!.weight
      head++
    }
    if (head > 1024 && head * 2 > log.length) {
      log = log.slice(head)
      head = 0
    }
    const w = Math.min(Math.max(weight, 0), budget.limit)
    let slot = log.length > head ? Math.max(now, log[log.length - 1]!.time) : now
    let i = head
    let used = total
    for (;;) {
      while (i < log.length && log[i]!.time <= slot - window) {
        used -= log[i]!.weight
        i++
      }
      if (used + w <= budget.limit || i >= log.length) break
      slot = log[i]!.time + window
    }
    const entry: Entry = { time: slot, weight: w, released: false }
    log.push(entry)
    total += w
    return entry
  }

  // An interrupted waiter never sends: its weight stops counting, and if it was last in line its slot is dropped so
  // that newcomers do not queue behind it.
  const release = (entry: Entry) =>
    Effect.sync(() => {
      if (entry.released) return
      entry.released = true
      if (log.indexOf(entry, head) !== -1) total -= entry.weight
      entry.weight = 0
      while (log.length > head && log[log.length - 1]!.released) log.pop()
    })

  // Bumped whenever a settled request moves later, so that sleeping waiters know to check their window again.
  let version = 0

  // The request behind `entry` was answered at `now`: it counts from then on. The log stays sorted by time.
  const settle = (entry: Entry, now: number) => {
    if (entry.released || now <= entry.time) return
    let i = log.indexOf(entry, head)
    entry.time = now
    version++
    if (i === -1) {
      // Already dropped as expired while in flight (an answer slower than the window): it counts again from now.
      let j = log.length
      while (j > head && log[j - 1]!.time > now) j--
      log.splice(j, 0, entry)
      total += entry.weight
      return
    }
    while (i + 1 < log.length && log[i + 1]!.time < now) {
      log[i] = log[i + 1]!
      i++
    }
    log[i] = entry
  }

  // Weight of the other entries counting in the window that ends at `at`.
  const othersIn = (entry: Entry, at: number): number => {
    let used = 0
    for (let i = head; i < log.length; i++) {
      const other = log[i]!
      if (other !== entry && other.time > at - window && other.time <= at) used += other.weight
    }
    return used
  }

  const permit = (entry: Entry): Permit => ({
    settle: Effect.map(monotonicMillis, (now) => settle(entry, now))
  })

  const acquire = (weight: number): Effect.Effect<Permit> =>
    Effect.flatMap(monotonicMillis, (now) => {
      const entry = reserve(now, weight)
      if (entry.time <= now) return Effect.succeed(permit(entry))
      const reservedAt = version
      return Effect.onInterrupt(Effect.sleep(entry.time - now), () => release(entry)).pipe(
        Effect.flatMap(() =>
          Effect.flatMap(monotonicMillis, (woke) => {
            // An earlier request settled later than its grant while this one slept: if it now fills this window,
            // give the slot back and queue again.
            if (reservedAt === version || othersIn(entry, woke) + entry.weight <= budget.limit) {
              return Effect.succeed(permit(entry))
            }
            return Effect.andThen(release(entry), acquire(weight))
          })
        )
      )
    })

  return { acquire }
}
