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
 *
 * One acquisition may charge several logs at once (the venue's UID and IP budgets): it gets the earliest slot where
 * every one of them has room, queueing in order in each. A log can be paused (after a 429): nothing is granted
 * against it before the pause ends.
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
export const monotonicMillis = Effect.map(
  Clock.monotonicTimeNanos,
  (nanos) => Number(nanos / 1_000_000n) + Number(nanos % 1_000_000n) / 1e6
)

/** The log of one budget: its entries sorted by time, the weight they hold, and the end of a pause. */
export class Log {
  readonly limit: number
  readonly window: number
  /** Monotonic time before which nothing is granted (a 429 pauses the budget). */
  pausedUntil = Number.NEGATIVE_INFINITY
  // Reservation times are non-decreasing, so the log stays sorted by time.
  private log: Array<Entry> = []
  private head = 0
  private total = 0

  constructor(budget: Budget, marginMillis: number) {
    this.limit = budget.limit
    this.window = budget.windowMillis + Math.max(0, marginMillis)
  }

  // When an entry stops counting, as far as is known at `now`: one window after it was answered, and never while in
  // flight (an answer now is the soonest it can come).
  private expiresAt(entry: Entry, now: number): number {
    return (entry.settled ? entry.time : Math.max(entry.time, now)) + this.window
  }

  /** The weight one request may hold here (a heavier one would never fit). */
  clamp(weight: number): number {
    return Math.min(Math.max(weight, 0), this.limit)
  }

  /** The earliest slot a new reservation may take: never before the last one (first come, first served). */
  start(now: number): number {
    // Entries that expired by now can never count again: every later slot is >= now. One still in flight at the head
    // keeps the ones behind it too (counted a little longer: never fewer than the venue counts).
    const log = this.log
    while (this.head < log.length && this.expiresAt(log[this.head]!, now) <= now) {
      this.total -= log[this.head]!.weight
      this.head++
    }
    if (this.head > 1024 && this.head * 2 > log.length) {
      this.log = log.slice(this.head)
      this.head = 0
    }
    const last = this.log.length > this.head ? this.log[this.log.length - 1]!.time : now
    return Math.max(now, last, this.pausedUntil)
  }

  /** The earliest slot at or after `from` (>= `start`) where `weight` fits. */
  earliest(from: number, now: number, weight: number): number {
    const log = this.log
    let slot = from
    let i = this.head
    let used = this.total
    for (;;) {
      while (i < log.length && this.expiresAt(log[i]!, now) <= slot) {
        used -= log[i]!.weight
        i++
      }
      if (used + weight <= this.limit || i >= log.length) return slot
      // For an entry in flight this assumes its answer comes now; the waiter checks again when it wakes.
      slot = this.expiresAt(log[i]!, now)
    }
  }

  push(slot: number, weight: number): Entry {
    const entry: Entry = { time: slot, weight, released: false, settled: false }
    this.log.push(entry)
    this.total += weight
    return entry
  }

  // An interrupted waiter never sends: its weight stops counting, and if it was last in line its slot is dropped so
  // that newcomers do not queue behind it.
  release(entry: Entry): void {
    if (entry.released) return
    entry.released = true
    entry.settled = true
    if (this.log.indexOf(entry, this.head) !== -1) this.total -= entry.weight
    entry.weight = 0
    while (this.log.length > this.head && this.log[this.log.length - 1]!.released) this.log.pop()
  }

  // The request behind `entry` was answered at `now`: it counts from then on. The log stays sorted by time. (An
  // unsettled entry never expires, so it is still in the log.)
  settle(entry: Entry, now: number): void {
    if (entry.settled) return
    entry.settled = true
    if (now <= entry.time) return
    const log = this.log
    let i = log.indexOf(entry, this.head)
    entry.time = now
    while (i + 1 < log.length && log[i + 1]!.time < now) {
      log[i] = log[i + 1]!
      i++
    }
    log[i] = entry
  }

  /**
   * Whether `entry` still fits at `at` (now), counting the others in the window that ends there: those answered
   * within it, and those granted and still in flight; and whether no pause holds it back.
   */
  fits(entry: Entry, at: number): boolean {
    if (at < this.pausedUntil) return false
    let used = 0
    for (let i = this.head; i < this.log.length; i++) {
      const other = this.log[i]!
      if (other !== entry && other.time <= at && (!other.settled || other.time > at - this.window)) used += other.weight
    }
    return used + entry.weight <= this.limit
  }

  /** Forgets every entry and pause. */
  clear(): void {
    this.log = []
    this.head = 0
    this.total = 0
    this.pausedUntil = Number.NEGATIVE_INFINITY
  }
}

/** One log an acquisition charges, with the weight it charges there. */
export interface Charge {
  readonly log: Log
  readonly weight: number
}

const settleAll = (logs: ReadonlyArray<Log>, entries: ReadonlyArray<Entry>) =>
  Effect.map(monotonicMillis, (now) => {
    for (let i = 0; i < logs.length; i++) logs[i]!.settle(entries[i]!, now)
  })

/**
 * Acquires the weights of `charges` together: the earliest slot at which every log has room, taken in each of them
 * in one synchronous step. In each log the new slot is never before the last one, so every log stays first come,
 * first served; and since a log's room only grows as the slot moves on, raising the slot until every log agrees
 * ends at the earliest common one.
 */
export const acquireAll = (charges: ReadonlyArray<Charge>): Effect.Effect<Permit> =>
  Effect.flatMap(monotonicMillis, (now) => {
    const logs = charges.map((charge) => charge.log)
    const weights = charges.map((charge) => charge.log.clamp(charge.weight))
    let slot = now
    for (const log of logs) slot = Math.max(slot, log.start(now))
    for (let moved = true; moved;) {
      moved = false
      for (let i = 0; i < logs.length; i++) {
        const next = logs[i]!.earliest(slot, now, weights[i]!)
        if (next > slot) {
          slot = next
          moved = true
        }
      }
    }
    const entries = logs.map((log, i) => log.push(slot, weights[i]!))
    const permit: Permit = { settle: settleAll(logs, entries) }
    if (slot <= now) return Effect.succeed(permit)
    const release = Effect.sync(() => logs.forEach((log, i) => log.release(entries[i]!)))
    return Effect.onInterrupt(Effect.sleep(slot - now), () => release).pipe(
      Effect.flatMap(() =>
        Effect.flatMap(monotonicMillis, (woke) => {
          // An earlier request settled later than assumed, or is still in flight, or a 429 paused a budget: if any
          // log is full now, give the slot back and queue again.
          if (logs.every((log, i) => log.fits(entries[i]!, woke))) return Effect.succeed(permit)
          return Effect.andThen(release, acquireAll(charges))
        })
      )
    )
  })

/** A limiter over one budget. */
export const make = (budget: Budget, marginMillis: number): Limiter => {
  const log = new Log(budget, marginMillis)
  return { acquire: (weight) => acquireAll([{ log, weight }]) }
}
