// The rate limiter's queue: an acquisition that waits for its slot (`Waiter`), how it is woken, and the sweep that
// re-plans the waiters behind one that gave up its place. The plan that queues a waiter is in `rateLimiter.ts`.
import { Clock, Deferred, Effect, type Fiber } from "effect"
import { type Charges, type Log, millisOf, type Queued, type Reservation } from "./limiterLog.ts"

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
export class Waiter implements Queued {
  readonly seq = sequence++
  readonly plan: Charges
  readonly reservations: ReadonlyArray<Reservation>
  pending = false
  /** The last sweep that saw it. */
  swept = 0
  private signal: Deferred.Deferred<void> | undefined = undefined
  // Where its wake-ups are scheduled: its fiber's dispatcher.
  private readonly dispatcher: Fiber.Fiber<unknown, unknown>["currentDispatcher"]

  constructor(plan: Charges, slot: number, fiber: Fiber.Fiber<unknown, unknown>) {
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
export const replanSoon = (logs: ReadonlyArray<Log>, fiber: Fiber.Fiber<unknown, unknown>, from: number): void => {
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
  let waiters: Array<Queued> = []
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
  const first: Array<Queued> = []
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
