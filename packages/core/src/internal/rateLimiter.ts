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
 */
export interface Limiter {
  readonly acquire: (weight: number) => Effect.Effect<void>
}

interface Entry {
  readonly time: number
  weight: number
  released: boolean
}

/** A positive, finite number. */
export const isPositive = (n: number): boolean => Number.isFinite(n) && n > 0

/** Whether a budget can be enforced: a positive, finite limit and window. */
export const isValidBudget = (budget: Budget): boolean => isPositive(budget.limit) && isPositive(budget.windowMillis)

const monotonicMillis = Effect.map(Clock.monotonicTimeNanos, (nanos) => Number(nanos) / 1e6)

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

  return {
    acquire: (weight) =>
      Effect.flatMap(monotonicMillis, (now) => {
        const entry = reserve(now, weight)
        return entry.time > now
          ? Effect.onInterrupt(Effect.sleep(entry.time - now), () => release(entry))
          : Effect.void
      })
  }
}
