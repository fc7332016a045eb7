// The feeds in use, each shared by its consumers: the first consumer of a feed creates it and subscribes its channels,
// the last one leaving unsubscribes them; a feed that fails for good is forgotten, so that a new stream starts afresh.
import { Effect, Queue } from "effect"
import type { Cause, Scope } from "effect"
import type * as PushError from "../../PushError.ts"
import type { Sink } from "./feeds.ts"
import type { Hub } from "./hub.ts"
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

  constructor(capacity: number) {
    this.capacity = capacity
  }

  /** A consumer's queue on the feed, for as long as the scope lasts. */
  use<F extends Shared, A>(use: Use<F, A>): Effect.Effect<Sink<A>, PushError.PushErrorReason, Scope.Scope> {
    return Effect.gen({ self: this }, function*() {
      const sink = yield* Queue.make<A, PushError.PushErrorReason | Cause.Done>(
        use.latest === true ? { capacity: 1, strategy: "sliding" } : { capacity: this.capacity }
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
