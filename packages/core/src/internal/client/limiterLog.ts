// The rate limiter's ledger: one budget's log (what counts in its window: the requests in flight, the answers, the
// waiters' reservations) and the arithmetic of slots over it. Nothing here schedules: the queue (`limiterQueue.ts`:
// a waiter, its wake-ups, the re-plan sweep) and the plan (`rateLimiter.ts`: an acquisition over several logs, its
// grant) use it.
import { Clock, Effect, type Fiber } from "effect"

/** A budget: at most `limit` weight in any window of `windowMillis`. */
export interface Budget {
  readonly limit: number
  readonly windowMillis: number
}

/**
 * A waiter's place in a log: the slot it sleeps until, the weight it charges there, and when it checks its window
 * next (its slot, or later once it woke to a window that a late answer still fills: it keeps its place meanwhile).
 * A sweep moves both earlier when waiters ahead left the queue.
 */
export interface Reservation {
  slot: number
  readonly weight: number
  until: number
  readonly waiter: Queued
}

/** What an acquisition charges: its logs, with the (clamped) weight it charges in each, and whether pauses hold it. */
export interface Charges {
  readonly logs: ReadonlyArray<Log>
  readonly weights: ReadonlyArray<number>
  /** Held only by the pauses that a request exempt from them drew (`Log.exemptPausedUntil`). */
  readonly exempt: boolean
}

/** A waiter as its reservations and a sweep see it (`limiterQueue.ts` `Waiter`). */
export interface Queued {
  /** Its place in the order of every log's queue. */
  readonly seq: number
  readonly plan: Charges
  /** One in each log of its plan, in the plan's order. */
  readonly reservations: ReadonlyArray<Reservation>
  /** Moved earlier by a sweep and not yet woken to read its new time. */
  pending: boolean
  /** The last sweep that saw it. */
  swept: number
  /** When it checks its window next. */
  readonly until: number
  /** A sweep found room for it at `slot`, earlier than it planned. */
  moveTo(slot: number): void
  /** Wakes it to read its time again. */
  wake(): void
}

/**
 * A sweep's place in one log (`Log.cursor`): how many of the log's waiters it re-planned (`passed`, the first of the
 * queue), the slot it stands at and the weight in force there with them counted, where it stands in the answers
 * (`answer`) and in the waiters passed (`expired`: those whose weight left the window), and the latest time one of the
 * waiters passed checks its window next.
 */
export interface Cursor {
  at: number
  used: number
  flying: boolean
  answer: number
  expired: number
  passed: number
  until: number
}

/** A positive, finite number. */
export const isPositive = (n: number): boolean => Number.isFinite(n) && n > 0

/** Whether a budget can be enforced: a positive, finite limit and window. */
export const isValidBudget = (budget: Budget): boolean => isPositive(budget.limit) && isPositive(budget.windowMillis)

// Milliseconds from the clock's nanoseconds. Below 2^53 ns (the live clock's monotonic time: 104 days of uptime; the
// TestClock's) the division is exact for whole milliseconds; beyond, whole milliseconds are converted exactly apart
// (a clock at epoch time counts ~1.8e18 ns), so that times computed from settled requests stay whole on a
// whole-millisecond clock.
export const millisOf = (nanos: bigint): number => {
  const n = Number(nanos)
  return Number.isSafeInteger(n) ? n / 1e6 : Number(nanos / 1_000_000n) + Number(nanos % 1_000_000n) / 1e6
}

/** The fiber's clock's monotonic time, in ms. */
export const nowOf = (fiber: Fiber.Fiber<unknown, unknown>): number =>
  millisOf(fiber.getRef(Clock.Clock).monotonicTimeNanosUnsafe())

/** The clock's monotonic time, in ms. */
export const monotonicMillis: Effect.Effect<number> = Effect.map(Clock.monotonicTimeNanos, millisOf)

/**
 * The log of one budget. What counts in it: the requests granted and not yet answered (in flight: as if answered
 * now), those answered less than one window ago (from their answer), and the waiters' reservations (from their slot).
 * Granting and settling are O(1): a sum for the requests in flight, and the answers in time order (settle times come
 * from a monotonic clock, so appending keeps the order), from which the expired are dropped at the head.
 */
export class Log {
  readonly limit: number
  readonly window: number
  /**
   * The largest weight in force taken as within the limit: the limit, and a billionth of it for the rounding of float
   * sums (0.1 + 1 + 1 + 0.8 + 0.1 is 3.0000000000000004). No sum of weights written in fewer than nine significant
   * digits exceeds a limit by less than that, so the budget itself is never exceeded.
   */
  private readonly ceiling: number
  /** Monotonic time before which nothing is granted (a 429 pauses the budget). */
  pausedUntil = Number.NEGATIVE_INFINITY
  /**
   * The same for a request exempt from pauses (`RateLimitStore.Acquisition.pauseExempt`): only a 429 drawn by such a
   * request holds them, and it holds every request (`pausedUntil` too).
   */
  exemptPausedUntil = Number.NEGATIVE_INFINITY
  /** A waiter left the queue with waiters behind it: a sweep is to re-plan them (`Waiter.leave`). */
  stale = false
  /**
   * The first waiter (`Waiter.seq`) a sweep may move here: the earliest that left behind those still queued, or
   * every one (`-Infinity`) after a grant was revoked. Those ahead of it planned with nothing that has gone.
   */
  staleFrom = Number.POSITIVE_INFINITY
  /** Where the sweep under way stands in this log (`sweep`). */
  cursor: Cursor | undefined = undefined
  // In flight: granted, not answered. The count makes the sum exactly 0 when none is left (weights may be fractions).
  private flying = 0
  private flyingCount = 0
  // Answered: the answers' times (non-decreasing) and weights from `head` on, and their sum.
  private readonly times: Array<number> = []
  private readonly weights: Array<number> = []
  private head = 0
  private answered = 0
  // The waiters, by slot (non-decreasing: a new slot is never before the last one).
  private readonly waiters: Array<Reservation> = []

  constructor(budget: Budget, marginMillis: number) {
    this.limit = budget.limit
    this.ceiling = budget.limit * (1 + 1e-9)
    this.window = budget.windowMillis + Math.max(0, marginMillis)
  }

  /** The weight one request may hold here (a heavier one would never fit). */
  clamp(weight: number): number {
    return Math.min(Math.max(weight, 0), this.limit)
  }

  // Answers a window old by `now` never count again: every later slot is >= now.
  private expire(now: number): void {
    const times = this.times
    const cutoff = now - this.window
    let head = this.head
    if (head >= times.length || times[head]! > cutoff) return
    do {
      this.answered -= this.weights[head]!
      head++
    } while (head < times.length && times[head]! <= cutoff)
    if (head === times.length) {
      times.length = 0
      this.weights.length = 0
      this.answered = 0
      head = 0
    } else if (head > 1024 && head * 2 > times.length) {
      times.splice(0, head)
      this.weights.splice(0, head)
      head = 0
    }
    this.head = head
  }

  /** Monotonic time before which a request (`exempt` from pauses or not) is held by a pause. */
  pausedFor(exempt: boolean): number {
    return exempt ? this.exemptPausedUntil : this.pausedUntil
  }

  /** Pauses the budget until `until`: every request when the 429 was an `exempt` request's, else all but those. */
  pause(until: number, exempt: boolean): void {
    this.pausedUntil = Math.max(this.pausedUntil, until)
    if (exempt) this.exemptPausedUntil = Math.max(this.exemptPausedUntil, until)
  }

  /** Whether `weight` may be granted at `now` at once: nobody waits, no pause holds, and the window has room. */
  free(now: number, weight: number, exempt = false): boolean {
    if (this.waiters.length > 0 || now < this.pausedFor(exempt)) return false
    this.expire(now)
    return this.flying + this.answered + weight <= this.ceiling
  }

  /** Charges `weight` as in flight from now. */
  grant(weight: number): void {
    this.flying += weight
    this.flyingCount++
  }

  /**
   * A request granted here was answered at `answeredAt`: it counts from then on, for one window. The time is rounded
   * up to the millisecond (counted a little longer, never shorter), so that a busy log holds one entry per
   * millisecond.
   */
  settle(weight: number, answeredAt: number): void {
    const now = Math.ceil(answeredAt)
    if (--this.flyingCount <= 0) {
      this.flyingCount = 0
      this.flying = 0
    } else {
      this.flying -= weight
    }
    // A log that only records (the Redis store's mirror) is never asked for room: it forgets here what expired.
    this.expire(answeredAt)
    const times = this.times
    const last = times.length - 1
    if (last >= this.head && times[last]! >= now) {
      // Answers in the same instant share one entry; an answer before the last (clocks of different fibers) goes
      // in its place.
      if (times[last] === now) {
        this.weights[last]! += weight
        this.answered += weight
        return
      }
      let i = last
      while (i > this.head && times[i - 1]! > now) i--
      times.splice(i, 0, now)
      this.weights.splice(i, 0, weight)
    } else {
      times.push(now)
      this.weights.push(weight)
    }
    this.answered += weight
  }

  /** A request granted here was not sent after all: its weight stops counting, with no answer recorded. */
  revoke(weight: number): void {
    if (--this.flyingCount <= 0) {
      this.flyingCount = 0
      this.flying = 0
    } else {
      this.flying -= weight
    }
  }

  /**
   * The earliest slot a new reservation may take: never before the last waiter's slot, nor before any waiter checks
   * its window next (first come, first served).
   */
  start(now: number, exempt = false): number {
    this.expire(now)
    let start = Math.max(now, this.pausedFor(exempt))
    for (const waiter of this.waiters) start = Math.max(start, waiter.until)
    return start
  }

  /**
   * The earliest slot at or after `from` (>= `start`) where `weight` fits: the weight in force only falls as the slot
   * moves on, by the answers (one window after each), the requests in flight (one window after now, the soonest
   * their answers can come; the waiter checks again when it wakes) and the waiters (one window after their slot, or
   * after now for one whose slot has passed: it is not granted yet).
   */
  earliest(from: number, now: number, weight: number): number {
    const { ceiling, times, waiters, weights, window } = this
    let slot = from
    let used = this.flying + this.answered
    let flying = this.flying > 0
    let i = this.head
    let j = 0
    for (const waiter of waiters) used += waiter.weight
    for (;;) {
      while (i < times.length && times[i]! + window <= slot) used -= weights[i++]!
      while (j < waiters.length && Math.max(waiters[j]!.slot, now) + window <= slot) used -= waiters[j++]!.weight
      if (flying && now + window <= slot) {
        used -= this.flying
        flying = false
      }
      if (used + weight <= ceiling) return slot
      let next = Number.POSITIVE_INFINITY
      if (i < times.length) next = times[i]! + window
      if (j < waiters.length) next = Math.min(next, Math.max(waiters[j]!.slot, now) + window)
      if (flying) next = Math.min(next, now + window)
      // Nothing left to expire: only rounding in the sums (fractional weights) can say it is still full.
      if (next === Number.POSITIVE_INFINITY) return slot
      slot = next
    }
  }

  /** Queues `waiter` at `slot` (>= `start`). */
  reserve(slot: number, weight: number, waiter: Queued): Reservation {
    const reservation: Reservation = { slot, weight, until: slot, waiter }
    this.waiters.push(reservation)
    return reservation
  }

  /**
   * A waiter that leaves the queue without being granted (interrupted, or held by a pause) never sends: its weight
   * stops counting, and its place is given up so that newcomers do not queue behind it. Whether waiters were behind
   * it (their slots counted it: a sweep is to re-plan them).
   */
  release(reservation: Reservation): boolean {
    const at = this.waiters.indexOf(reservation)
    if (at === -1) return false
    this.waiters.splice(at, 1)
    return at < this.waiters.length
  }

  /** A waiter that woke and fits is granted: in flight from now (at its slot, as those behind it planned). */
  admit(reservation: Reservation): void {
    const at = this.waiters.indexOf(reservation)
    if (at !== -1) this.waiters.splice(at, 1)
    this.grant(reservation.weight)
  }

  /** The waiters, in their order. */
  get queued(): ReadonlyArray<Reservation> {
    return this.waiters
  }

  /** A sweep's cursor at `now`, before the first waiter. */
  cursorAt(now: number): Cursor {
    this.expire(now)
    const used = this.flying + this.answered
    return { at: now, used, flying: this.flying > 0, answer: this.head, expired: 0, passed: 0, until: now }
  }

  /**
   * For a sweep: the earliest slot at or after `from` where the next waiter's `weight` fits, counting the waiters
   * ahead of it that the cursor passed, at their slots. As `earliest`, but from where the cursor stands, and moving it
   * on: a sweep asks for slots that only grow, so its pass over a log is linear. (A `from` before the cursor answers
   * from the cursor: a slot later than it could be, never earlier; `fits` decides the grant when the waiter wakes.)
   */
  advance(from: number, now: number, weight: number): number {
    const { ceiling, times, waiters, weights, window } = this
    const cursor = this.cursor!
    const passed = cursor.passed
    let { answer: i, expired: j, flying, used } = cursor
    let slot = Math.max(from, cursor.at)
    for (;;) {
      while (i < times.length && times[i]! + window <= slot) used -= weights[i++]!
      while (j < passed && Math.max(waiters[j]!.slot, now) + window <= slot) used -= waiters[j++]!.weight
      if (flying && now + window <= slot) {
        used -= this.flying
        flying = false
      }
      if (used + weight <= ceiling) break
      let next = Number.POSITIVE_INFINITY
      if (i < times.length) next = times[i]! + window
      if (j < passed) next = Math.min(next, Math.max(waiters[j]!.slot, now) + window)
      if (flying) next = Math.min(next, now + window)
      // Nothing left to expire: only rounding in the sums (fractional weights) can say it is still full.
      if (next === Number.POSITIVE_INFINITY) break
      slot = next
    }
    cursor.at = slot
    cursor.answer = i
    cursor.expired = j
    cursor.flying = flying
    cursor.used = used
    return slot
  }

  /** For a sweep: the cursor's next waiter was re-planned; it counts for those behind it. */
  pass(reservation: Reservation): void {
    const cursor = this.cursor!
    cursor.passed++
    cursor.used += reservation.weight
    cursor.until = Math.max(cursor.until, reservation.until)
  }

  /**
   * Whether the waiter may be granted at `at` (now): no pause holds it back, no waiter ahead of it still sleeps (first
   * come, first served), and it fits in the window that ends there with the others: those answered within it, those
   * in flight, and the waiters ahead of it (granted in this instant before it, or still held). The waiters behind it
   * do not count: each counts it when its own turn comes (granted, it is in flight).
   */
  fits(reservation: Reservation, at: number, exempt = false): boolean {
    if (at < this.pausedFor(exempt)) return false
    this.expire(at)
    let used = this.flying + this.answered
    for (const other of this.waiters) {
      if (other === reservation) break
      if (other.until > at) return false
      used += other.weight
    }
    return used + reservation.weight <= this.ceiling
  }

  /**
   * When a waiter that woke at `at` (now) and does not fit should check again, keeping its place: the earliest time
   * it may fit, as its window empties: the answers leave it one window after each, the requests in flight and the
   * waiters ahead of it (granted at the soonest now) one window after now, or after the time such a waiter checks
   * again; and never before a waiter ahead of it checks again. Later than `at` whenever `fits` said no at `at` (for
   * a reason other than a pause); an estimate, checked again by `fits` on waking.
   */
  retry(reservation: Reservation, at: number): number {
    this.expire(at)
    const { ceiling, times, weights, window } = this
    const room = ceiling - reservation.weight
    let used = this.flying + this.answered
    let after = at
    // The weights that leave at one window after now or later, by time: those in flight, and the waiters ahead.
    const later: Array<Pick<Reservation, "until" | "weight">> = [{ weight: this.flying, until: at }]
    for (const other of this.waiters) {
      if (other === reservation) break
      used += other.weight
      after = Math.max(after, other.until)
      later.push(other)
    }
    if (used <= room) return after
    later.sort((a, b) => Math.max(a.until, at) - Math.max(b.until, at))
    let i = this.head
    let k = 0
    for (;;) {
      const answer = i < times.length ? times[i]! + window : Number.POSITIVE_INFINITY
      const other = k < later.length ? Math.max(later[k]!.until, at) + window : Number.POSITIVE_INFINITY
      const next = Math.min(answer, other)
      // Nothing left to leave: only rounding in the sums (fractional weights) can say it is still full.
      if (next === Number.POSITIVE_INFINITY) return Math.max(after, at)
      while (i < times.length && times[i]! + window <= next) used -= weights[i++]!
      while (k < later.length && Math.max(later[k]!.until, at) + window <= next) used -= later[k++]!.weight
      if (used <= room) return Math.max(after, next)
    }
  }
}
