// The channels one push connection carries and their subscriptions: what each channel's feed is told (`Feed`), and
// what it may ask (`Control`); each channel's state (idle, awaiting its acknowledgement, live); the subscribes sent,
// each with its acknowledgement deadline; the unsubscribes awaiting their answers; the resyncs feeds asked for; the
// channels the venue may still count against the cap; and the connection's operations budget spent on all of them.
// The connection's loop (`connection.ts`) hands in each live connection and ends it; the frames read
// (`dispatch.ts`) are routed here.
import { Effect, Exit, Scope } from "effect"
import * as Push from "../../Push.ts"
import * as PushError from "../../PushError.ts"
import type { OperationLog } from "./limits.ts"
import { kindOf } from "./telemetry.ts"
import type { ReplacedReason } from "./telemetry.ts"

/** A data frame of a channel. */
export type DataFrame = Extract<Push.Frame, { readonly _tag: "Payload" | "TradeEvent" }>

/** What a feed may ask of the connection its channel is on. */
export interface Control {
  /**
   * From inside `onFrame` or `onActive`: unsubscribe and subscribe again (a new snapshot) once the frames read are
   * dispatched, or reconnect when the operation budget is spent.
   */
  readonly resync: (channel: string) => void
  /** From a fiber of the feed's own (a deadline): the same, at once. */
  readonly resyncNow: (channel: string) => Effect.Effect<void>
  /**
   * End this connection; the loop reconnects after its backoff. `reason`: the text the `Disconnected` event quotes;
   * `why`: the word the reconnects' metric counts it under.
   */
  readonly reconnect: (reason: string, why: ReplacedReason) => void
}

/** What receives a channel's life: it goes live (acknowledged), stops counting, carries data, or fails for good. */
export interface Feed {
  /**
   * The venue acknowledged the subscription. `scope` is the subscription's: it closes when the subscription stops
   * counting (the connection ends, the channel is resubscribed, removed or failed), interrupting what the feed forked
   * in it (a backfill, a deadline).
   */
  readonly onActive: (channel: string, scope: Scope.Scope, control: Control) => Effect.Effect<void>
  /**
   * The subscription stopped counting: the connection ended (and another follows) or a resync is under way. Not when
   * the connection ends for good (its loop interrupted, the service closing): then only `onActive`'s scope closes.
   */
  readonly onInactive: (channel: string) => Effect.Effect<void>
  /** A data frame of the live channel; runs in the read loop, so it must not block. */
  readonly onFrame: (frame: DataFrame, control: Control) => void
  /**
   * A data frame of the channel while its subscription waits for the acknowledgement (a venue may send the first
   * frames before it, or with it in one batch); it may be the previous subscription's during a resync. Without it such
   * frames are dropped. Runs in the read loop, so it must not block.
   */
  readonly onEarly?: (channel: string, frame: DataFrame) => void
  /** The subscription failed for good and was dropped. */
  readonly onFail: (channel: string, reason: PushError.PushErrorReason) => Effect.Effect<void>
}

/** A channel carried: its feed and its subscription's state. */
export interface Entry {
  readonly feed: Feed
  state: "idle" | "pending" | "active"
  generation: number
  /** Whether the venue ever acknowledged it (a resubscription that goes unanswered means a broken connection). */
  acknowledged: boolean
  /** The scope of the acknowledged subscription, given to the feed's `onActive`. */
  subscription: Scope.Closeable | undefined
  /** The channel's kind, as an index of the counts of messages received (`telemetry.ts` `KINDS`; -1: not counted). */
  readonly kind: number
}

/** One live connection, as its subscriptions see it. */
export interface Live {
  readonly scope: Scope.Scope
  readonly send: (text: string) => Effect.Effect<void>
  readonly ops: OperationLog
  readonly resyncs: Set<string>
  /**
   * Channels dropped by the client that the venue may still count against the channel cap: a first subscription that
   * timed out (the venue may have subscribed it, its acknowledgement late or lost), a channel removed with no
   * operation left to unsubscribe it. Each takes a place (`fits`) until the venue confirms its unsubscription or the
   * connection ends.
   */
  readonly lingering: Set<string>
  /**
   * Unsubscriptions sent whose answer has not come, per channel. The venue answers a connection's requests in order,
   * so the first answer naming a channel with one outstanding is that unsubscription's (an `unsubscribed`, or an error
   * where the venue no longer carried it), never a refusal of the subscription sent after it.
   */
  readonly unsubscribing: Map<string, number>
  readonly control: Control
}

export class Subscriptions {
  readonly channels = new Map<string, Entry>()
  /** The connection as it is now; `undefined` between connections. */
  live: Live | undefined = undefined
  /** Subscriptions the venue acknowledged, ever: a connection that ends with none acknowledged proved no key. */
  acknowledgements = 0
  private readonly ackTimeoutMillis: number
  private readonly now: () => number

  constructor(ackTimeoutMillis: number, now: () => number) {
    this.ackTimeoutMillis = ackTimeoutMillis
    this.now = now
  }

  /**
   * Why another channel does not fit: its channels (counting those the venue may still carry), or no operation left on
   * a live connection; `undefined` if it fits.
   */
  full(cap: number): "channels" | "operations" | undefined {
    const live = this.live
    if (this.channels.size + (live?.lingering.size ?? 0) >= cap) return "channels"
    return live === undefined || live.ops.remaining(this.now()) >= 1 ? undefined : "operations"
  }

  /** Carries a channel from now on: subscribed at once when connected, else on the next connection. */
  add(channel: string, feed: Feed): Effect.Effect<void> {
    this.channels.set(channel, {
      feed,
      state: "idle",
      generation: 0,
      acknowledged: false,
      subscription: undefined,
      kind: kindOf(channel)
    })
    const live = this.live
    return live === undefined ? Effect.void : this.subscribe(live, channel)
  }

  /**
   * Stops carrying a channel: unsubscribes it when connected (best effort: it is dropped either way), and ends what its
   * feed runs for the subscription, even when the connection goes on for other channels.
   */
  remove(channel: string): Effect.Effect<void> {
    const entry = this.channels.get(channel)
    this.channels.delete(channel)
    if (entry === undefined) return Effect.void
    const ended = this.endSubscription(entry)
    const live = this.live
    if (live === undefined || entry.state === "idle") return ended
    if (live.ops.spend(1, this.now())) return Effect.andThen(this.unsubscribe(live, channel), ended)
    // No operation left: the venue carries it on, and counts it, until one frees (`owe`) or the connection ends.
    live.lingering.add(channel)
    return Effect.andThen(ended, this.owe(live, channel))
  }

  // Unsubscribes a channel removed when no operation was left, once one frees: a fiber of the connection's scope,
  // sleeping on the Clock until the oldest operation leaves the window (and again if others took the freed ones).
  // Left alone if the channel is carried again meanwhile, the venue no longer carries it, or the connection ended.
  private owe(live: Live, channel: string): Effect.Effect<void> {
    const attempt: Effect.Effect<void> = Effect.suspend(() => {
      if (this.live !== live || this.channels.has(channel) || !live.lingering.has(channel)) return Effect.void
      const now = this.now()
      if (live.ops.spend(1, now)) return this.unsubscribe(live, channel)
      return Effect.andThen(Effect.sleep(Math.max(1, live.ops.freeAt(now) - now)), attempt)
    })
    return Effect.asVoid(Effect.forkIn(attempt, live.scope))
  }

  // A first subscription that timed out is dropped by the client, but the venue may have subscribed it: it is
  // unsubscribed (best effort: one operation, if one is left), and counted as the venue's until it confirms.
  private forget(live: Live, channel: string): Effect.Effect<void> {
    return Effect.suspend(() => {
      if (this.live !== live) return Effect.void
      live.lingering.add(channel)
      return live.ops.spend(1, this.now()) ? this.unsubscribe(live, channel) : Effect.void
    })
  }

  // Sends an unsubscription (its operation spent by the caller), awaiting its answer (`Live.unsubscribing`).
  private unsubscribe(live: Live, channel: string): Effect.Effect<void> {
    live.unsubscribing.set(channel, (live.unsubscribing.get(channel) ?? 0) + 1)
    return live.send(Push.unsubscribeMessage(channel))
  }

  /** Whether a frame naming the channel answers an unsubscription sent on this connection (counted off if so). */
  answersUnsubscribe(live: Live, channel: string): boolean {
    const outstanding = live.unsubscribing.get(channel)
    if (outstanding === undefined) return false
    if (outstanding > 1) live.unsubscribing.set(channel, outstanding - 1)
    else live.unsubscribing.delete(channel)
    return true
  }

  /**
   * The venue says it no longer carries the channel on this connection (an `unsubscribed`): the live channel it
   * dropped without being asked (to be subscribed again, `lost`), if it is one.
   */
  unsubscribed(live: Live, channel: string): Entry | undefined {
    const answer = this.answersUnsubscribe(live, channel)
    live.lingering.delete(channel)
    const entry = this.channels.get(channel)
    return answer || entry === undefined || entry.state !== "active" ? undefined : entry
  }

  /** The venue acknowledged a subscription: if it awaited that, it is live, and its feed told so. */
  acknowledge(live: Live, channel: string): Effect.Effect<void> | undefined {
    const entry = this.channels.get(channel)
    if (entry === undefined || entry.state !== "pending") return undefined
    entry.state = "active"
    entry.acknowledged = true
    this.acknowledgements++
    const subscription = Scope.forkUnsafe(live.scope)
    entry.subscription = subscription
    return entry.feed.onActive(channel, subscription, live.control)
  }

  /**
   * The venue said something of a live subscription that the client cannot place (an error frame answering nothing it
   * asked), or that it dropped it (an `unsubscribed` not asked for): the feed is told the subscription stopped
   * counting (a book resyncs), and it is subscribed again — unsubscribed first, unless the venue said it no longer
   * carries it.
   */
  lost(live: Live, channel: string, entry: Entry, unsubscribe: boolean): Effect.Effect<void> {
    entry.state = "idle"
    const told = Effect.andThen(this.endSubscription(entry), entry.feed.onInactive(channel))
    if (!unsubscribe) return Effect.andThen(told, this.subscribe(live, channel))
    if (live.ops.remaining(this.now()) < 2) {
      live.control.reconnect("operation budget spent", "operations")
      return told
    }
    live.ops.spend(1, this.now())
    return Effect.andThen(told, Effect.andThen(this.unsubscribe(live, channel), this.subscribe(live, channel)))
  }

  // The subscription stopped counting: what the feed forked in its scope is interrupted (not the fiber closing it).
  private endSubscription(entry: Entry): Effect.Effect<void> {
    const scope = entry.subscription
    entry.subscription = undefined
    return scope === undefined ? Effect.void : Scope.close(scope, Exit.void)
  }

  /** Subscribes a channel carried, with its acknowledgement's deadline (an operation spent; none left: reconnect). */
  subscribe(live: Live, channel: string): Effect.Effect<void> {
    return Effect.suspend(() => {
      const entry = this.channels.get(channel)
      // The connection may have ended since this was asked for (a resync's unsubscription yields).
      if (entry === undefined || this.live !== live) return Effect.void
      if (!live.ops.spend(1, this.now())) {
        live.control.reconnect("operation budget spent", "operations")
        return Effect.void
      }
      entry.state = "pending"
      const generation = ++entry.generation
      const timer = Effect.andThen(
        Effect.sleep(this.ackTimeoutMillis),
        Effect.suspend(() => {
          if (this.channels.get(channel) !== entry || entry.generation !== generation || entry.state !== "pending") {
            return Effect.void
          }
          const timeoutMillis = this.ackTimeoutMillis
          // A first subscription the venue does not answer fails; a resubscription (after a reconnect or for a
          // resync) that goes unanswered means the connection is broken: replace it.
          if (!entry.acknowledged) {
            return Effect.andThen(
              this.fail(channel, new PushError.SubscribeTimeoutError({ channel, timeoutMillis })),
              this.forget(live, channel)
            )
          }
          live.control.reconnect(`no acknowledgement of ${channel} within ${timeoutMillis} ms`, "unacknowledged")
          return Effect.void
        })
      )
      return Effect.andThen(live.send(Push.subscribeMessage(channel)), Effect.forkIn(timer, live.scope))
    })
  }

  /** A channel's subscription failed for good: dropped, its feed told. */
  fail(channel: string, reason: PushError.PushErrorReason): Effect.Effect<void> {
    const entry = this.channels.get(channel)
    if (entry === undefined) return Effect.void
    this.channels.delete(channel)
    return Effect.andThen(this.endSubscription(entry), entry.feed.onFail(channel, reason))
  }

  /**
   * The resyncs feeds asked for while reading the last batch: unsubscribe and subscribe again (two operations), or a
   * fresh connection when this one has not two left. Nothing once the connection has ended: an entry then belongs to
   * the next connection.
   */
  resyncs(live: Live): Effect.Effect<void> {
    return Effect.suspend(() => {
      const channels = Array.from(live.resyncs)
      live.resyncs.clear()
      if (this.live !== live) return Effect.void
      const effects: Array<Effect.Effect<void>> = []
      for (const channel of channels) {
        const entry = this.channels.get(channel)
        if (entry === undefined) continue
        if (live.ops.remaining(this.now()) < 2) {
          live.control.reconnect("operation budget spent", "operations")
          break
        }
        live.ops.spend(1, this.now())
        entry.state = "idle"
        const ended = this.endSubscription(entry)
        effects.push(
          Effect.andThen(
            ended,
            Effect.andThen(this.unsubscribe(live, channel), this.subscribe(live, channel))
          )
        )
      }
      return Effect.all(effects, { discard: true })
    })
  }

  /**
   * A resync asked from a fiber of a feed's own (`Control.resyncNow`): at once. A deadline fiber may ask it after its
   * connection ended: then it does nothing (its channels are subscribed afresh on the next connection).
   */
  resyncNow(live: Live, channel: string): Effect.Effect<void> {
    return Effect.suspend(() => {
      if (this.live !== live) return Effect.void
      live.resyncs.add(channel)
      return this.resyncs(live)
    })
  }

  /**
   * The connection ended: every channel stops counting until it is acknowledged on the next one. When it ends for good
   * (`closing`: its loop interrupted) what the feeds forked for their subscriptions ends, but the feeds are not told:
   * no next connection follows, so a book announcing a rebuild (a `Resync` of reason `reconnect`, counted) would say
   * what does not happen.
   */
  down(live: Live, closing: boolean): Effect.Effect<void> {
    return Effect.suspend(() => {
      if (this.live === live) this.live = undefined
      const effects: Array<Effect.Effect<void>> = []
      for (const [channel, entry] of this.channels) {
        if (entry.state === "idle") continue
        entry.state = "idle"
        const ended = this.endSubscription(entry)
        effects.push(closing ? ended : Effect.andThen(ended, entry.feed.onInactive(channel)))
      }
      return Effect.all(effects, { discard: true })
    })
  }
}
