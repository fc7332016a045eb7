// The private session's consumers' queues beyond their room: a backfill's (or a joiner's replay's) records are many at
// once, and a consumer that keeps up cannot take any while they are merged. While the session `hold`s, what a queue
// has no room for waits in that consumer's backlog, delivered by a fiber as room comes (`deliver`); outside, a live
// element a queue has no room for waits in the service's overflow (`overflow.ts`: a read of the socket is handed over
// at once too), and a consumer that leaves one waiting longer than its grace fails with `SlowConsumerError` rather
// than miss it. A backlog begun while live elements still wait in the overflow for that consumer is delivered after
// them (`Overflow.whenFree`): they keep their grace, the backfill's records have none. The session owns which
// consumers there are (the sets of sinks); this, what waits for each and its delivery.
import { Cause, Effect, Queue } from "effect"
import type { Fiber } from "effect"
import * as PushError from "../../PushError.ts"
import type { Sink } from "./feeds.ts"
import type { Overflow } from "./overflow.ts"

// What a consumer's queue had no room for during a backfill (or a joiner's replay), and every element for it after
// them, in order; `live`: not of a backfill (counts against the consumer while it waits).
interface Backlog {
  readonly sinks: Set<Sink<unknown>>
  readonly values: Array<{ readonly value: unknown; readonly live: boolean }>
  head: number
  live: number
  fiber: Fiber.Fiber<void> | undefined
}

export interface Limits {
  /** Elements a consumer may fall behind before its stream fails (told in its `SlowConsumerError`). */
  readonly capacity: number
  /** Live elements a consumer with a backlog may have queued behind it before it counts as not keeping up. */
  readonly bufferLimit: number
  /** Where a live element a consumer's queue has no room for waits (`overflow.ts`). */
  readonly overflow: Overflow
}

export class Backlogs {
  private readonly limits: Limits
  // While `holding`, what a queue has no room for waits in its backlog. Live elements of a consumer with a backlog
  // queue behind it; more than the backfill buffer's limit of them is a consumer that does not keep up (the live rule,
  // with the same room as the session's buffer of pushes).
  private holding = false
  private readonly backlogs = new Map<Sink<unknown>, Backlog>()

  constructor(limits: Limits) {
    this.limits = limits
  }

  // A backfill's elements wait for room in the consumer's backlog, live ones in the overflow (which fails a consumer
  // that leaves one waiting too long); either keeps the later ones behind it.
  offer<A>(sinks: Set<Sink<A>>, sink: Sink<A>, value: A): void {
    const { overflow } = this.limits
    const backlog = this.backlogs.get(sink as Sink<unknown>)
    if (backlog === undefined && !overflow.idle && overflow.holds(sink)) {
      // Live pushes still wait in the overflow (a burst the consumer was taking when the connection dropped): a
      // backfill's records go behind them, but in a backlog, whose delivery starts once the overflow handed those
      // over. In the overflow, each would have the grace to be taken, and a consumer that keeps up could fail.
      if (this.holding) return this.start(sinks, sink, value)
      return overflow.offer(sinks, sink, value, this.slow)
    }
    if (backlog !== undefined) {
      backlog.values.push({ value, live: !this.holding })
      if (!this.holding && ++backlog.live > this.limits.bufferLimit) {
        this.fail(
          sinks,
          sink,
          new PushError.SlowConsumerError({ capacity: this.limits.capacity, backlog: backlog.live })
        )
      }
      return
    }
    if (Queue.offerUnsafe(sink, value)) return
    if (this.holding) return this.start(sinks, sink, value)
    overflow.offer(sinks, sink, value, this.slow)
  }

  // A backlog, of a backfill's element the consumer's queue has no room for (or that must wait behind the overflow).
  private start<A>(sinks: Set<Sink<A>>, sink: Sink<A>, value: A): void {
    this.backlogs.set(sink as Sink<unknown>, {
      sinks: sinks as Set<Sink<unknown>>,
      values: [{ value, live: false }],
      head: 0,
      live: 0,
      fiber: undefined
    })
  }

  // A live element waited its grace for room (the overflow's rule).
  private readonly slow = <A>(sinks: Set<Sink<A>>, sink: Sink<A>): void =>
    this.fail(
      sinks,
      sink,
      new PushError.SlowConsumerError({
        capacity: this.limits.capacity,
        graceMillis: this.limits.overflow.graceMillis
      })
    )

  private fail<A>(sinks: Set<Sink<A>>, sink: Sink<A>, reason: PushError.SlowConsumerError): void {
    sinks.delete(sink)
    this.drop(sink as Sink<unknown>)
    Queue.failCauseUnsafe(sink, Cause.fail(reason))
  }

  /** Merges a burst: what a queue has no room for meanwhile waits in its backlog. */
  hold(merge: () => void): void {
    this.holding = true
    merge()
    this.holding = false
  }

  /** What waited for a consumer (one that left, or failed) is dropped, its delivery interrupted. */
  drop(sink: Sink<unknown>): void {
    this.limits.overflow.drop(sink)
    const backlog = this.backlogs.get(sink)
    if (backlog === undefined) return
    this.backlogs.delete(sink)
    backlog.fiber?.interruptUnsafe()
  }

  // A fiber per backlog, until it is delivered. Detached from the connection: its elements are merged already, so no
  // later backfill would deliver them again; it ends when delivered, or when its consumer leaves or fails. It starts
  // once the live elements that were waiting in the overflow for the consumer before the backlog began are handed
  // over (or dropped, the consumer failed), so that the consumer gets everything in order.
  deliver(): Effect.Effect<void> {
    return Effect.suspend(() =>
      Effect.forEach(
        Array.from(this.backlogs).filter(([, backlog]) => backlog.fiber === undefined),
        ([sink, backlog]) =>
          Effect.map(
            Effect.forkDetach(Effect.andThen(this.limits.overflow.whenFree(sink), this.deliverTo(sink, backlog))),
            (fiber) => {
              backlog.fiber = fiber
            }
          ),
        { discard: true }
      )
    )
  }

  private deliverTo(sink: Sink<unknown>, backlog: Backlog): Effect.Effect<void> {
    return Effect.suspend(() => {
      if (this.backlogs.get(sink) !== backlog) return Effect.void
      // What fits at once, then wait for room for the next.
      while (backlog.head < backlog.values.length && Queue.offerUnsafe(sink, backlog.values[backlog.head]!.value)) {
        this.delivered(backlog)
      }
      if (backlog.head === backlog.values.length) {
        this.backlogs.delete(sink)
        return Effect.void
      }
      if (backlog.head >= 1024) {
        backlog.values.splice(0, backlog.head)
        backlog.head = 0
      }
      return Effect.flatMap(Queue.offer(sink, backlog.values[backlog.head]!.value), (offered) => {
        if (this.backlogs.get(sink) !== backlog) return Effect.void
        // Not offered: the consumer's queue is done (it left, or failed).
        if (!offered) {
          this.backlogs.delete(sink)
          return Effect.void
        }
        this.delivered(backlog)
        return this.deliverTo(sink, backlog)
      })
    })
  }

  private delivered(backlog: Backlog): void {
    if (backlog.values[backlog.head]!.live) backlog.live--
    backlog.head++
  }
}
