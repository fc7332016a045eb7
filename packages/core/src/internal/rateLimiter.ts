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
 * venue received it; until then it counts as if it arrived now, so it never leaves the window while in flight. A
 * waiter checks its window again when it wakes, and waits longer if a request that settled late, or is still in
 * flight, now fills it. Every permit must be settled (the transport does so when the exchange ends, however it
 * ends); an unsettled one keeps its weight.
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
  /** Answered (or given back): it counts from `time` for one window. Until then it counts as in flight. */
  settled: boolean
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

  // When an entry stops counting, as far as is known at `now`: one window after it was answered, and never while in
  // flight (an answer now is the soonest it can come).
  const expiresAt = (entry: Entry, now: number) => (entry.settled ? entry.time : Math.max(entry.time, now)) + window

  const reserve = (now: number, weight: number): Entry => {
    // Entries that expired by now can never count again: every later slot is >= now. One still in flight at the head
    // keeps the ones behind it too (counted a little longer: never fewer than the venue counts).
    while (head < log.length && expiresAt(log[head]!, now) <= now) {
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
      while (i < log.length && expiresAt(log[i]!, now) <= slot) {
        used -= log[i]!.weight
        i++
      }
      if (used + w <= budget.limit || i >= log.length) break
      // For an entry in flight this assumes its answer comes now; the waiter checks again when it wakes.
      slot = expiresAt(log[i]!, now)
    }
    const entry: Entry = { time: slot, weight: w, released: false, settled: false }
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
      entry.settled = true
      if (log.indexOf(entry, head) !== -1) total -= entry.weight
      entry.weight = 0
      while (log.length > head && log[log.length - 1]!.released) log.pop()
    })

  // The request behind `entry` was answered at `now`: it counts from then on. The log stays sorted by time. (An
  // unsettled entry never expires, so it is still in the log.)
  const settle = (entry: Entry, now: number) => {
    if (entry.settled) return
    entry.settled = true
    if (now <= entry.time) return
    let i = log.indexOf(entry, head)
    entry.time = now
    while (i + 1 < log.length && log[i + 1]!.time < now) {
      log[i] = log[i + 1]!
      i++
    }
    log[i] = entry
  }

  // Weight of the other entries counting in the window that ends at `at` (now): those answered within it, and
  // those granted and still in flight.
  const othersIn = (entry: Entry, at: number): number => {
    let used = 0
    for (let i = head; i < log.length; i++) {
      const other = log[i]!
      if (other !== entry && other.time <= at && (!other.settled || other.time > at - window)) used += other.weight
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
      return Effect.onInterrupt(Effect.sleep(entry.time - now), () => release(entry)).pipe(
        Effect.flatMap(() =>
          Effect.flatMap(monotonicMillis, (woke) => {
            // An earlier request settled later than assumed, or is still in flight: if it fills this window, give
            // the slot back and queue again.
            if (othersIn(entry, woke) + entry.weight <= budget.limit) return Effect.succeed(permit(entry))
            return Effect.andThen(release(entry), acquire(weight))
          })
        )
      )
    })

  return { acquire }
}
