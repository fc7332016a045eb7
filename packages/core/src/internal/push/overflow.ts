// The consumers' queues beyond their room, for live elements. A read of the socket is handed to the feeds at once
// (the read loop does not yield between its frames, nor a frame between its elements), so a consumer cannot take any
// of it meanwhile: a queue found full says nothing yet of its consumer. What it has no room for waits here, in order,
// every later element for it behind, and a fiber of its own hands them over as the consumer takes; the read loop and
// the other consumers go on meanwhile. A consumer that keeps up takes a burst of any size so. One that leaves an
// element waiting for room longer than `graceMillis` is behind (blocked, or slower than what comes): it is told so by
// its feed's `slow` (a failure with `SlowConsumerError`, a book's lag notice) and what waited for it is dropped, so
// what waits stays bounded by what arrives within the grace. A state whose steps a consumer does not need (a book)
// takes the place of the one waiting last (`Replaces`): what waits for a book consumer stays a few elements, and it
// gets the latest book.
//
// The common path, a queue with room and nothing waiting, costs what an offer costs: `offer` is reached only when a
// queue is full, or elements wait (`idle` is false).
import { Clock, Effect, Queue } from "effect"
import type { Cause, Fiber } from "effect"
import type * as PushError from "../../PushError.ts"
import { millisOf } from "../client/rateLimiter.ts"

/** A consumer's queue: it ends with a reason when the feed fails for good. */
export type Sink<A> = Queue.Queue<A, PushError.PushErrorReason | Cause.Done>

/**
 * How long an element may wait for room in its consumer's queue: longer, and the consumer is behind. A consumer that
 * keeps up takes what its queue held within a few turns of the event loop; the venue and the other consumers do not
 * wait on it meanwhile.
 */
export const SLOW_CONSUMER_MILLIS = 1_000

/** What a feed does with a consumer found behind: fails it (`SlowConsumerError`), or gives it a lag notice. */
export type Slow<A> = (sinks: Set<Sink<A>>, sink: Sink<A>) => void

/**
 * Whether an element stands for the one waiting last, and takes its place rather than wait behind it (a book for the
 * book before it: a state, whose steps a consumer does not need).
 */
export type Replaces<A> = (last: A, next: A) => boolean

interface Waiting {
  readonly sinks: Set<Sink<unknown>>
  readonly slow: Slow<unknown>
  readonly replaces: Replaces<unknown> | undefined
  readonly values: Array<unknown>
  // When each value began to wait (the monotonic clock, ms).
  readonly since: Array<number>
  head: number
  fiber: Fiber.Fiber<void> | undefined
  // Told when nothing waits here for the consumer any more (`whenFree`), however that came.
  readonly freed: Array<() => void>
}

export interface OverflowOptions {
  readonly graceMillis: number
  /** The monotonic clock (ms). */
  readonly now: () => number
  /** Runs a delivery on its own fiber (the service's context: its clock). */
  readonly fork: (effect: Effect.Effect<void>) => Fiber.Fiber<void>
}

export class Overflow {
  private readonly options: OverflowOptions
  private readonly waiting = new Map<Sink<unknown>, Waiting>()

  constructor(options: OverflowOptions) {
    this.options = options
  }

  /** How long an element may wait for room before its consumer is behind (told in its `SlowConsumerError`). */
  get graceMillis(): number {
    return this.options.graceMillis
  }

  /** Whether nothing waits for any consumer: an element with room in its queue may be offered directly. */
  get idle(): boolean {
    return this.waiting.size === 0
  }

  /** Whether elements wait for this consumer (a later one must go behind them). */
  holds<A>(sink: Sink<A>): boolean {
    return this.waiting.has(sink as Sink<unknown>)
  }

  /**
   * Done when nothing waits here for this consumer (at once if nothing does): handed over, dropped, or its consumer
   * found behind. What must reach the consumer after what waits here (a private backfill's records, `privateSinks.ts`)
   * waits for this rather than here, where the grace would apply to it.
   */
  whenFree<A>(sink: Sink<A>): Effect.Effect<void> {
    return Effect.callback<void>((resume) => {
      const waiting = this.waiting.get(sink as Sink<unknown>)
      const freed = () => resume(Effect.void)
      if (waiting === undefined) {
        freed()
        return
      }
      waiting.freed.push(freed)
      return Effect.sync(() => {
        const at = waiting.freed.indexOf(freed)
        if (at >= 0) waiting.freed.splice(at, 1)
      })
    })
  }

  /**
   * An element for a consumer: into its queue if it has room and nothing waits for it, otherwise behind what waits (or
   * in the place of the last one waiting, when it `replaces` it; never of the first, which is being handed over).
   */
  offer<A>(sinks: Set<Sink<A>>, sink: Sink<A>, value: A, slow: Slow<A>, replaces?: Replaces<A>): void {
    const waiting = this.waiting.get(sink as Sink<unknown>)
    if (waiting !== undefined) {
      const last = waiting.values.length - 1
      if (waiting.replaces !== undefined && last > waiting.head && waiting.replaces(waiting.values[last], value)) {
        waiting.values[last] = value
        return
      }
      waiting.values.push(value)
      waiting.since.push(this.options.now())
      return
    }
    if (Queue.offerUnsafe(sink, value)) return
    const started: Waiting = {
      sinks: sinks as Set<Sink<unknown>>,
      slow: slow as Slow<unknown>,
      replaces: replaces as Replaces<unknown> | undefined,
      values: [value],
      since: [this.options.now()],
      head: 0,
      fiber: undefined,
      freed: []
    }
    this.waiting.set(sink as Sink<unknown>, started)
    started.fiber = this.options.fork(this.deliver(sink as Sink<unknown>, started))
  }

  /** What waited for a consumer that left (or failed otherwise) is dropped, its delivery interrupted. */
  drop<A>(sink: Sink<A>): void {
    const waiting = this.waiting.get(sink as Sink<unknown>)
    if (waiting === undefined) return
    waiting.fiber?.interruptUnsafe()
    this.release(sink as Sink<unknown>, waiting)
  }

  /** The service is closing: every delivery ends. */
  close(): void {
    const all = Array.from(this.waiting)
    for (const [, waiting] of all) waiting.fiber?.interruptUnsafe()
    for (const [sink, waiting] of all) this.release(sink, waiting)
  }

  // Nothing waits for the consumer any more: whoever waited for that (`whenFree`) goes on.
  private release(sink: Sink<unknown>, waiting: Waiting): void {
    if (this.waiting.get(sink) === waiting) this.waiting.delete(sink)
    for (const freed of waiting.freed.splice(0)) freed()
  }

  // Hands over what fits, then waits for room for the next, no longer than its grace.
  private deliver(sink: Sink<unknown>, waiting: Waiting): Effect.Effect<void> {
    return Effect.suspend(() => {
      if (this.waiting.get(sink) !== waiting) return Effect.void
      while (waiting.head < waiting.values.length && Queue.offerUnsafe(sink, waiting.values[waiting.head])) {
        waiting.head++
      }
      if (waiting.head === waiting.values.length) {
        this.release(sink, waiting)
        return Effect.void
      }
      if (waiting.head >= 1024) {
        waiting.values.splice(0, waiting.head)
        waiting.since.splice(0, waiting.head)
        waiting.head = 0
      }
      const left = waiting.since[waiting.head]! + this.options.graceMillis - this.options.now()
      if (left <= 0) return Effect.sync(() => this.behind(sink, waiting))
      return Effect.flatMap(
        Effect.timeoutOption(Queue.offer(sink, waiting.values[waiting.head]), left),
        (offered) => {
          if (this.waiting.get(sink) !== waiting) return Effect.void
          if (offered._tag === "None") {
            this.behind(sink, waiting)
            return Effect.void
          }
          // Not offered: the consumer's queue is done (it left, or failed).
          if (!offered.value) {
            this.release(sink, waiting)
            return Effect.void
          }
          waiting.head++
          return this.deliver(sink, waiting)
        }
      )
    })
  }

  // An element waited its grace: the consumer is behind; what waited for it is dropped, its feed tells it.
  private behind(sink: Sink<unknown>, waiting: Waiting): void {
    this.waiting.delete(sink)
    waiting.slow(waiting.sinks, sink)
    this.release(sink, waiting)
  }
}

/**
 * An overflow on the current context: its deliveries run on fibers of it (its clock: a `TestClock` under test), ages
 * on its monotonic clock.
 */
export const makeOverflow = (graceMillis: number = SLOW_CONSUMER_MILLIS): Effect.Effect<Overflow> =>
  Effect.gen(function*() {
    const clock = yield* Clock.clockWith(Effect.succeed)
    const context = yield* Effect.context<never>()
    return new Overflow({
      graceMillis,
      now: () => millisOf(clock.monotonicTimeNanosUnsafe()),
      fork: Effect.runForkWith(context)
    })
  })
