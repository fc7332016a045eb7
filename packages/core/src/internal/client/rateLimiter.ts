import { Clock, Deferred, Effect, Effectable, type Fiber } from "effect"

/** A budget: at most `limit` weight in any window of `windowMillis`. */
export interface Budget {
  readonly limit: number
  readonly windowMillis: number
}

/**
 * A sliding-window limiter. Unlike a fixed window or a token bucket it guarantees that no window of the given length
 * (plus `marginMillis`, which absorbs network jitter between our send time and the venue's receive time) ever holds
 * more than `limit` weight, whatever the venue's own window alignment.
 *
 * An acquisition that finds room is granted at once. One that does not reserves the earliest slot that fits and then
 * sleeps until it (on `Clock`, so `TestClock` drives it in tests). Reservations are made in one synchronous step, so
 * concurrent fibers queue in order, and nobody is granted ahead of a waiter. Time is the clock's monotonic time, so a
 * wall clock stepping back (NTP, a resumed VM) cannot stall the queue. A waiter that is interrupted gives its slot
 * back, to the waiters behind it too: one re-plan sweep (`sweep`), run once the scheduler's current batch of work is
 * done, computes the slots of every waiter of the budgets concerned in one ordered pass, counting only the waiters
 * ahead of each, and those whose slot moved earlier sleep until the new one (each woken once, by the waiter ahead of
 * it). A queue thinned by calls given up (a timeout storm, a scope closing) so goes at the budget's rate, and one
 * interrupted all at once is re-planned once, not once per waiter behind each.
 *
 * The venue counts a request when it receives it, which can be well after the slot was granted (a first request
 * that opens the connection, a pause of the process): the 101st of a burst granted exactly one window after the
 * 1st can then reach the venue less than a window after the 1st did, and be refused with 429. So a permit is
 * settled when the answer arrives: from then on the request counts from that moment, which is never before the
 * venue received it; until then it counts as if it arrived now, so it never leaves the window while in flight. A
 * waiter checks its window again when it wakes, and waits longer if a request that settled late, or is still in
 * flight, now fills it: it keeps its place meanwhile, waiting only until the window may have room, and nobody behind
 * it is granted first. Every permit must be settled (the transport does so when the exchange ends, however it
 * ends); an unsettled one keeps its weight.
 *
 * One acquisition may charge several logs at once (the venue's UID and IP budgets): it gets the earliest slot where
 * every one of them has room, queueing in order in each. A log can be paused (after a 429): nothing is granted
 * against it before the pause ends, and a request held by a pause waits it out before it queues anywhere, so that it
 * holds up nobody in its other logs.
 */
export interface Limiter {
  readonly acquire: (weight: number) => Effect.Effect<Permit>
}

/** A granted acquisition: `settle` once the request's answer (or failure) arrived. */
export interface Permit {
  readonly settle: Effect.Effect<void>
}

/** A permit that can also be settled without an Effect, at a given monotonic time (ms). */
export interface Settleable extends Permit {
  settleAt(now: number): void
}

/**
 * A permit that can also be taken back: `revoke` when the request was not sent after all (a shared store that was to
 * grant it too did not): its weight leaves every log it charged as if it had never been granted, with no answer
 * recorded. Once, and not after `settle` (nor `settle` after it).
 */
export interface Revocable extends Settleable {
  readonly revoke: Effect.Effect<void>
}

/**
 * The grants made on a fiber while a caller that settles them (the pipeline's limit stage, the push connection's dial)
 * waits for its permit, by fiber. A store records a grant here in the same step that makes it (the Redis store: that
 * reads Redis's grant), so that the caller settles it, through its `settle`, however its fiber ends afterwards: even
 * when it is interrupted after the grant and before the permit reaches it (the run loop may yield between the two
 * steps, and an interruption then skips the step that would have handed the permit over).
 */
const collected = new WeakMap<Fiber.Fiber<unknown, unknown>, Array<Permit>>()

/** Collects the grants made on `fiber` from now on into the returned list, until `stopCollecting`. */
export const collectGrants = (fiber: Fiber.Fiber<unknown, unknown>): Array<Permit> => {
  const grants: Array<Permit> = []
  collected.set(fiber, grants)
  return grants
}

/** Stops collecting into `grants` (a nested collection that ended its own way leaves none behind). */
export const stopCollecting = (fiber: Fiber.Fiber<unknown, unknown>, grants: Array<Permit>): void => {
  if (collected.get(fiber) === grants) collected.delete(fiber)
}

/** A grant made on `fiber`, recorded for its collector if it has one. */
export const granted = <A extends Permit>(fiber: Fiber.Fiber<unknown, unknown>, grant: A): A => {
  collected.get(fiber)?.push(grant)
  return grant
}

/**
 * The stores that can grant at once without an Effect (the memory store), by their service: for one of the store's
 * `RateLimitStore.Acquisition`s, a function of the monotonic time (ms) that grants it when every budget has room,
 * nobody waits and no pause holds, and otherwise answers `undefined` (the store's `acquire` then queues as usual).
 * What a caller saves is the Effect steps of an acquisition that never waits (BENCHMARKS.md, "The limiter's
 * uncontended path"). (The acquisition's type is not named here: RateLimitStore.ts imports this module.)
 */
export const grantsAtOnce = new WeakMap<object, (acquisition: object) => (now: number) => Settleable | undefined>()

/**
 * A waiter's place in a log: the slot it sleeps until, the weight it charges there, and when it checks its window
 * next (its slot, or later once it woke to a window that a late answer still fills: it keeps its place meanwhile).
 * A sweep moves both earlier when waiters ahead left the queue.
 */
export interface Reservation {
  slot: number
  readonly weight: number
  until: number
  readonly waiter: Waiter
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
  reserve(slot: number, weight: number, waiter: Waiter): Reservation {
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

/** One log an acquisition charges, with the weight it charges there. */
export interface Charge {
  readonly log: Log
  readonly weight: number
}

/**
 * Told once before each wait: which of the plan's logs holds the acquisition (its index; `undefined`: a pause), and
 * for how long it will wait.
 */
export type OnWait = (log: number | undefined, millis: number) => Effect.Effect<void>

/**
 * What one acquisition charges, prepared once: its logs and (clamped) weights. `acquire` is one Effect for every
 * acquisition of the plan; when every log has room it grants at once, and allocates nothing but the permit.
 */
export class Plan {
  readonly logs: ReadonlyArray<Log>
  readonly weights: ReadonlyArray<number>
  readonly onWait: OnWait | undefined
  /** Held only by the pauses that a request exempt from them drew (`Log.exemptPausedUntil`). */
  readonly exempt: boolean
  readonly acquire: Effect.Effect<Revocable>

  constructor(charges: ReadonlyArray<Charge>, onWait?: OnWait, exempt = false) {
    this.logs = charges.map((charge) => charge.log)
    this.weights = charges.map((charge) => charge.log.clamp(charge.weight))
    this.onWait = onWait
    this.exempt = exempt
    this.acquire = Effect.withFiber((fiber) => {
      const now = nowOf(fiber)
      return this.free(now) ? Effect.succeed(granted(fiber, this.grant())) : queue(this, now, fiber)
    })
  }

  /** Grants at once when every log has room at `now`, nobody waits and no pause holds; otherwise `undefined`. */
  grantNow(now: number): Revocable | undefined {
    return this.free(now) ? this.grant() : undefined
  }

  /** Whether every log has room at `now`, with nobody waiting and no pause. */
  free(now: number): boolean {
    const { exempt, logs, weights } = this
    for (let i = 0; i < logs.length; i++) if (!logs[i]!.free(now, weights[i]!, exempt)) return false
    return true
  }

  /** Charges every log as in flight from now (whether or not it has room: a grant made elsewhere). */
  grant(): Revocable {
    const { logs, weights } = this
    for (let i = 0; i < logs.length; i++) logs[i]!.grant(weights[i]!)
    return new Grant(this)
  }
}

// A permit is its own `settle`: an Effect that settles the plan's logs at the fiber's monotonic time, once.
const settleProto = Effectable.Prototype<Effect.Effect<void>>({
  label: "RateLimiter.settle",
  evaluate(fiber) {
    ;(this as unknown as Grant).settleAt(nowOf(fiber))
    return Effect.void
  }
})

const EffectBase: new() => Effect.Effect<void> = (() => {
  const Base = function() {}
  Base.prototype = settleProto
  return Base as unknown as new() => Effect.Effect<void>
})()

class Grant extends EffectBase implements Revocable {
  private readonly plan: Plan
  private settled = false
  constructor(plan: Plan) {
    super()
    this.plan = plan
  }
  get settle(): Effect.Effect<void> {
    return this
  }
  get revoke(): Effect.Effect<void> {
    return Effect.withFiber((fiber) => {
      if (this.revokeNow()) replanSoon(this.plan.logs, fiber, Number.NEGATIVE_INFINITY)
      return Effect.void
    })
  }
  settleAt(now: number): void {
    if (this.settled) return
    this.settled = true
    const { logs, weights } = this.plan
    for (let i = 0; i < logs.length; i++) logs[i]!.settle(weights[i]!, now)
  }
  // Not on the path of a request that is sent: only a shared store's grant that was not made takes its own back.
  // Whether it did (its weight left the logs: the waiters queued behind it may go sooner).
  private revokeNow(): boolean {
    if (this.settled) return false
    this.settled = true
    const { logs, weights } = this.plan
    for (let i = 0; i < logs.length; i++) logs[i]!.revoke(weights[i]!)
    return true
  }
}

// Orders the waiters of every log: a waiter's reservations are made in one synchronous step, so each log's queue is in
// this order too.
let sequence = 0
// Numbers the sweeps, to mark the waiters one has seen.
let sweeps = 0

/**
 * A queued acquisition: its reservations (one in each log of its plan, in the plan's order, sharing one slot and one
 * time to check) and the signal by which it is woken to sleep until an earlier time.
 *
 * A waiter that a sweep moved earlier is `pending` until it is woken to read its new time. Only the first of the
 * queue is woken by the sweep; every other is woken by the waiter ahead of it, when that one wakes at its own time
 * (`relay`), which is never after the new one (a waiter's time is never before those ahead of it). So a queue
 * re-planned by many sweeps in a row (a timeout storm from its head) costs each waiter one wake-up, not one a sweep.
 */
export class Waiter {
  readonly seq = sequence++
  readonly plan: Plan
  readonly reservations: ReadonlyArray<Reservation>
  pending = false
  /** The last sweep that saw it. */
  swept = 0
  private signal: Deferred.Deferred<void> | undefined = undefined
  // Where its wake-ups are scheduled: its fiber's dispatcher.
  private readonly dispatcher: Fiber.Fiber<unknown, unknown>["currentDispatcher"]

  constructor(plan: Plan, slot: number, fiber: Fiber.Fiber<unknown, unknown>) {
    this.plan = plan
    this.dispatcher = fiber.currentDispatcher
    this.reservations = plan.logs.map((log, i) => log.reserve(slot, plan.weights[i]!, this))
  }

  /** When it checks its window next. */
  get until(): number {
    return this.reservations[0]!.until
  }

  /** Checks its window next at `until` (later than now: a late answer still fills it), keeping its place. */
  checkAt(until: number): void {
    for (const reservation of this.reservations) reservation.until = until
  }

  /** A sweep found room for it at `slot`, earlier than it planned: it is to sleep until then. */
  moveTo(slot: number): void {
    for (const reservation of this.reservations) {
      reservation.slot = Math.min(reservation.slot, slot)
      reservation.until = slot
    }
    this.pending = true
  }

  /**
   * Wakes it (asleep, or as soon as it sleeps) to read its time again: in a task of its own, never on the waker's
   * stack. A fiber awaiting a signal resumes at once when the signal is given, so a wake-up given inline would run the
   * waiter's check inside the waker's, before the waker has made its own (a waiter ahead not yet checked then looks
   * checked), and a chain of relays would nest one run loop per waiter until the stack overflows.
   */
  wake(): void {
    this.pending = false
    this.dispatcher.scheduleTask(() => {
      // The signal of the nap under way (or none: it reads its time as it naps).
      if (this.signal !== undefined) Deferred.doneUnsafe(this.signal, Effect.void)
    }, 0)
  }

  /** Awake at its time: the waiters right behind it that a sweep moved are woken in turn. */
  relay(): void {
    this.pending = false
    this.plan.logs.forEach((log, i) => {
      const queued = log.queued
      const at = queued.indexOf(this.reservations[i]!)
      const next = at === -1 ? undefined : queued[at + 1]
      if (next !== undefined && next.waiter.pending) next.waiter.wake()
    })
  }

  /** Sleeps from `now` until its time to check, or until a sweep moved that time (it reads it again on waking). */
  nap(now: number): Effect.Effect<void> {
    const millis = this.until - now
    if (millis <= 0) return Effect.void
    // A signal already given was for a time read just now.
    if (this.signal === undefined || Deferred.isDoneUnsafe(this.signal)) this.signal = Deferred.makeUnsafe<void>()
    return Effect.raceFirst(Effect.sleep(millis), Deferred.await(this.signal))
  }

  /** Granted: it leaves every queue at its slot, as those behind it planned, and is in flight from now. */
  admit(): void {
    this.plan.logs.forEach((log, i) => log.admit(this.reservations[i]!))
  }

  /** Leaves every queue without a grant; the waiters that were behind it are re-planned by a sweep. */
  leave(fiber: Fiber.Fiber<unknown, unknown>): void {
    replanSoon(this.plan.logs.filter((log, i) => log.release(this.reservations[i]!)), fiber, this.seq)
  }
}

/**
 * Weight left `logs` (a waiter gave up its place, a grant was revoked): the waiters queued in them from `from` on
 * (`Waiter.seq`) are re-planned by one sweep, once the scheduler's current batch is done, so that waiters interrupted
 * together are re-planned once.
 */
const replanSoon = (logs: ReadonlyArray<Log>, fiber: Fiber.Fiber<unknown, unknown>, from: number): void => {
  const stale: Array<Log> = []
  for (const log of logs) {
    if (log.queued.length === 0) continue
    log.staleFrom = Math.min(log.staleFrom, from)
    if (!log.stale) {
      log.stale = true
      stale.push(log)
    }
  }
  if (stale.length === 0) return
  const clock = fiber.getRef(Clock.Clock)
  fiber.currentDispatcher.scheduleTask(() => sweep(stale, millisOf(clock.monotonicTimeNanosUnsafe())), 0)
}

/**
 * Re-plans the waiters of the stale logs among `logs`, and of every log their waiters charge too (moving one earlier
 * frees room in each of its logs), at `now`: in one pass in their order, each at the earliest slot where every log
 * of its plan has room with the waiters ahead of it counted, never before a waiter ahead of it checks its window
 * (first come, first served), nor before a pause ends. A waiter whose slot so moved earlier than it planned is to
 * sleep until the new one (`Waiter.pending`: the first of a queue is woken now, the others by the waiter ahead); none
 * is moved later (those behind it counted it where it is). The time is only a plan: `fits` decides each grant when its
 * waiter wakes.
 */
export const sweep = (logs: ReadonlyArray<Log>, now: number): void => {
  const component: Array<Log> = []
  // The first waiter that may move: those ahead of every one that left only count for those behind.
  let from = Number.POSITIVE_INFINITY
  const join = (log: Log) => {
    if (log.stale) from = Math.min(from, log.staleFrom)
    log.stale = false
    log.staleFrom = Number.POSITIVE_INFINITY
    log.cursor = log.cursorAt(now)
    component.push(log)
  }
  for (const log of logs) if (log.stale) join(log)
  const pass = ++sweeps
  let waiters: Array<Waiter> = []
  for (let k = 0; k < component.length; k++) {
    for (const { waiter } of component[k]!.queued) {
      if (waiter.swept === pass) continue
      waiter.swept = pass
      waiters.push(waiter)
      for (const log of waiter.plan.logs) if (log.cursor === undefined) join(log)
    }
  }
  // In their order: a log's queue is in order already, and one that holds them all (the address's budget, which
  // every request charges) orders them all.
  const all = component.find((log) => log.queued.length === waiters.length)
  if (all !== undefined) waiters = all.queued.map((reservation) => reservation.waiter)
  else waiters.sort((a, b) => a.seq - b.seq)
  // The heads of queues moved, woken once the pass is done (each in a task of its own: `Waiter.wake`).
  const first: Array<Waiter> = []
  for (const waiter of waiters) {
    const { exempt, logs, weights } = waiter.plan
    if (waiter.seq < from) {
      for (let i = 0; i < logs.length; i++) logs[i]!.pass(waiter.reservations[i]!)
      continue
    }
    let slot = now
    for (const log of logs) slot = Math.max(slot, log.pausedFor(exempt), log.cursor!.until)
    for (let moved = true; moved;) {
      moved = false
      for (let i = 0; i < logs.length; i++) {
        const next = logs[i]!.advance(slot, now, weights[i]!)
        if (next > slot) {
          slot = next
          moved = true
        }
      }
    }
    if (slot < waiter.until) waiter.moveTo(slot)
    // The first of a queue has nobody ahead to wake it.
    if (waiter.pending && logs.some((log) => log.cursor!.passed === 0)) first.push(waiter)
    for (let i = 0; i < logs.length; i++) logs[i]!.pass(waiter.reservations[i]!)
  }
  for (const log of component) log.cursor = undefined
  for (const waiter of first) waiter.wake()
}

// The slot where every log of the plan has room, and which log decided it. In each log the
// slot is never before the last waiter's, so every log stays first come, first served; and since a log's room only
// grows as the slot moves on, raising the slot until every log agrees ends at the earliest common one.
const slotOf = (plan: Plan, now: number): { readonly slot: number; readonly by: number } => {
  const { logs, weights } = plan
  let slot = now
  let by = 0
  for (let i = 0; i < logs.length; i++) {
    const start = logs[i]!.start(now, plan.exempt)
    if (start > slot) {
      slot = start
      by = i
    }
  }
  for (let moved = true; moved;) {
    moved = false
    for (let i = 0; i < logs.length; i++) {
      const next = logs[i]!.earliest(slot, now, weights[i]!)
      if (next > slot) {
        slot = next
        by = i
        moved = true
      }
    }
  }
  return { slot, by }
}

// The slow path: reserve the common slot in every log, sleep until it, and check again on waking. A pause (after a
// 429) is waited out first without reserving anything: a request held by one budget's pause must not hold the other
// budgets it charges (another API key's requests charge the same address).
const queue = (plan: Plan, now: number, fiber: Fiber.Fiber<unknown, unknown>): Effect.Effect<Revocable> => {
  const { exempt } = plan
  let pausedUntil = now
  for (const log of plan.logs) pausedUntil = Math.max(pausedUntil, log.pausedFor(exempt))
  if (pausedUntil > now) {
    const told = plan.onWait === undefined ? Effect.void : plan.onWait(undefined, pausedUntil - now)
    return Effect.andThen(Effect.andThen(told, Effect.sleep(pausedUntil - now)), plan.acquire)
  }
  const { slot, by } = slotOf(plan, now)
  if (slot <= now) return Effect.succeed(granted(fiber, plan.grant()))
  const { logs } = plan
  const waiter = new Waiter(plan, slot, fiber)
  const { reservations } = waiter
  const told = plan.onWait === undefined ? Effect.void : plan.onWait(by, slot - now)
  // Sleeps until its time to check; woken earlier by a sweep that moved it, it sleeps until the new time. The wait is
  // not told again: it only got shorter.
  const sleep = (at: number): Effect.Effect<Revocable> =>
    Effect.andThen(
      waiter.nap(at),
      Effect.withFiber((fiber) => {
        const woke = nowOf(fiber)
        return woke >= waiter.until ? woken : sleep(woke)
      })
    )
  // On waking: granted if every log has room and nobody ahead still waits. A 429 that paused a budget meanwhile
  // gives the place back and waits the pause out, as a new acquisition would. Otherwise an earlier request settled
  // later than assumed, or is still in flight, or a waiter ahead waits for one: the waiter keeps its place in every
  // log (nobody behind it is granted first) and sleeps until it may fit, then checks again.
  const woken: Effect.Effect<Revocable> = Effect.withFiber((fiber) => {
    const woke = nowOf(fiber)
    waiter.relay()
    if (logs.some((log) => woke < log.pausedFor(exempt))) {
      waiter.leave(fiber)
      return queue(plan, woke, fiber)
    }
    if (logs.every((log, i) => log.fits(reservations[i]!, woke, exempt))) {
      waiter.admit()
      return Effect.succeed<Revocable>(granted(fiber, new Grant(plan)))
    }
    let until = woke
    let holder = 0
    for (let i = 0; i < logs.length; i++) {
      const next = logs[i]!.retry(reservations[i]!, woke)
      if (next > until) {
        until = next
        holder = i
      }
    }
    // (Never reached while `retry` keeps its word: without a later time to check, the place is given back.)
    if (until <= woke) {
      waiter.leave(fiber)
      return queue(plan, woke, fiber)
    }
    waiter.checkAt(until)
    const again = plan.onWait === undefined ? Effect.void : plan.onWait(holder, until - woke)
    return Effect.andThen(again, sleep(woke))
  })
  // However the wait ends but by being granted (interrupted, or the listener died), the place is given back.
  return Effect.onError(
    Effect.andThen(told, sleep(now)),
    () =>
      Effect.withFiber((fiber) => {
        waiter.leave(fiber)
        return Effect.void
      })
  )
}

/** Acquires the weights of `charges` together: at once when every log has room, else at the earliest common slot. */
export const acquireAll = (charges: ReadonlyArray<Charge>): Effect.Effect<Permit> => new Plan(charges).acquire

/** A limiter over one budget. */
export const make = (budget: Budget, marginMillis: number): Limiter => {
  const log = new Log(budget, marginMillis)
  return { acquire: (weight) => new Plan([{ log, weight }]).acquire }
}
