// The feeds in use, each shared by its consumers: the first consumer of a feed creates it and subscribes its channels,
// the last one leaving unsubscribes them; a feed that fails for good is forgotten, so that a new stream starts afresh.
// When the service closes, every consumer's stream ends, interrupted (`close`), wherever its fiber runs.
import { Cause, Effect, Queue } from "effect"
import type { Scope } from "effect"
import type * as PushError from "../../PushError.ts"
import type { Sink } from "./feeds.ts"
import type { Hub } from "./hub.ts"
import type { Overflow } from "./overflow.ts"
import type { Feed } from "./subscriptions.ts"

export interface Shared extends Feed {
  /** How many consumers it has. */
  readonly size: number
}

export interface Use<F extends Shared, A> {
  readonly key: string
  readonly hub: Hub
  readonly channels: ReadonlyArray<string>
  /** Makes the feed; `release` forgets it (for its failure). */
  readonly create: (release: () => Effect.Effect<void>) => F
  /**
   * Adds the consumer; what it returns (if anything) runs then, a private session's backfill of new symbols, or adds it
   * (a candle consumer's history read first); its failure fails that consumer alone.
   */
  readonly join: (feed: F, sink: Sink<A>) => Effect.Effect<void, PushError.PushErrorReason> | void
  readonly leave: (feed: F, sink: Sink<A>) => void
  /** `latest`: the consumer's queue keeps only the latest element (a ticker). */
  readonly latest?: boolean | undefined
}

const joined = (
  result: Effect.Effect<void, PushError.PushErrorReason> | void
): Effect.Effect<void, PushError.PushErrorReason> => Effect.isEffect(result) ? result : Effect.void

export class Registry {
  private readonly feeds = new Map<string, Shared>()
  private readonly capacity: number
  private readonly overflow: Overflow
  // Every consumer's queue, until it leaves: what `close` ends.
  private readonly sinks = new Set<Sink<unknown>>()
  private closed = false

  constructor(capacity: number, overflow: Overflow) {
    this.capacity = capacity
    this.overflow = overflow
  }

  /** A consumer's queue on the feed, for as long as the scope lasts. */
  use<F extends Shared, A>(use: Use<F, A>): Effect.Effect<Sink<A>, PushError.PushErrorReason, Scope.Scope> {
    return Effect.gen({ self: this }, function*() {
      // A stream started on a closed service would wait for ever: it is interrupted, as the running ones were.
      if (this.closed) return yield* Effect.interrupt
      const sink = yield* Queue.make<A, PushError.PushErrorReason | Cause.Done>(
        use.latest === true ? { capacity: 1, strategy: "sliding" } : { capacity: this.capacity }
      )
      this.sinks.add(sink as Sink<unknown>)
      // Leaving, what waited for it (`overflow.ts`) is dropped.
      yield* Effect.addFinalizer(() =>
        Effect.sync(() => {
          this.sinks.delete(sink as Sink<unknown>)
          this.overflow.drop(sink as Sink<unknown>)
        })
      )
      yield* Effect.acquireRelease(
        Effect.suspend(() => this.join(use, sink)),
        (feed) =>
          Effect.suspend(() => {
            use.leave(feed, sink)
            return feed.size === 0 ? this.release(use, feed) : Effect.void
          })
      )
      return sink
    })
  }

  /**
   * The service is closing: every consumer's stream ends, interrupted (nothing more will come to it), and a stream
   * started from now on is interrupted at once. A consumer running outside the service's scope (forked by a
   * `ManagedRuntime`'s caller, say) would otherwise wait for ever on a queue nothing feeds.
   */
  close(): void {
    this.closed = true
    for (const sink of this.sinks) Queue.failCauseUnsafe(sink, Cause.interrupt())
    this.sinks.clear()
    this.overflow.close()
  }

  private join<F extends Shared, A>(use: Use<F, A>, sink: Sink<A>): Effect.Effect<F, PushError.PushErrorReason> {
    const existing = this.feeds.get(use.key) as F | undefined
    if (existing !== undefined) return Effect.as(joined(use.join(existing, sink)), existing)
    const feed: F = use.create(() => Effect.suspend(() => this.release(use, feed)))
    this.feeds.set(use.key, feed)
    const first = joined(use.join(feed, sink))
    const subscribe = Effect.forEach(use.channels, (channel) => use.hub.add(channel, feed), { discard: true })
    return Effect.as(Effect.onError(Effect.andThen(first, subscribe), () => this.release(use, feed)), feed)
  }

  private release<F extends Shared, A>(use: Use<F, A>, feed: F): Effect.Effect<void> {
    return Effect.suspend(() => {
      if (this.feeds.get(use.key) !== feed) return Effect.void
      this.feeds.delete(use.key)
      return Effect.forEach(use.channels, (channel) => use.hub.remove(channel), { discard: true })
    })
  }
}
