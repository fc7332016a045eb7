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
 * drives it in tests). Reservations are made in one synchronous step, so concurrent fibers queue in order.
 */
export interface Limiter {
  readonly acquire: (weight: number) => Effect.Effect<void>
}

export const make = (budget: Budget, marginMillis: number): Limiter => {
  const window = budget.windowMillis + marginMillis
  // Reservation times are non-decreasing, so both arrays stay sorted by time.
  let times: Array<number> = []
  let weights: Array<number> = []
  let head = 0
  let total = 0

  const reserve = (now: number, weight: number): number => {
    // Entries at or before now - window can never count again: every later slot is >= now.
    while (head < times.length && times[head]! <= now - window) {
      total -= weights[head]!
      head++
    }
    if (head > 1024 && head * 2 > times.length) {
      times = times.slice(head)
      weights = weights.slice(head)
      head = 0
    }
    const w = Math.min(weight, budget.limit)
    let slot = times.length > head ? Math.max(now, times[times.length - 1]!) : now
    let i = head
    let used = total
    for (;;) {
      while (i < times.length && times[i]! <= slot - window) {
        used -= weights[i]!
        i++
      }
      if (used + w <= budget.limit || i >= times.length) break
      slot = times[i]! + window
    }
    times.push(slot)
    weights.push(w)
    total += w
    return slot
  }

  return {
    acquire: (weight) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const slot = reserve(now, weight)
        return slot > now ? Effect.sleep(slot - now) : Effect.void
      })
  }
}
