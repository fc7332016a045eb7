import { Effect, Effectable, type Fiber } from "effect"
import { type Budget, type Charges, Log, nowOf } from "./limiterLog.ts"
import { replanSoon, Waiter } from "./limiterQueue.ts"

export { type Budget, isPositive, isValidBudget, Log, millisOf, monotonicMillis, nowOf } from "./limiterLog.ts"

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
 * it is granted first. One exception, kept: in the instant a waiter is due, before its fiber has checked, a request
 * that fits in a budget with the waiter's weight counted may be granted there (a newcomer, or a waiter behind whose
 * check runs first); if the waiter then finds another of its budgets still full, that request went first, though it
 * took nothing the waiter was planned to use (review r69-sw F2: holding it back needs a mark per waiter checked, and
 * a naive yield spins under `TestClock`). Every permit must be settled (the transport does so when the exchange ends,
 * however it ends); an unsettled one keeps its weight.
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
export class Plan implements Charges {
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
