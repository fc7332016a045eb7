// One push connection slot: a WebSocket that is dialled again whenever it drops, carrying up to 100 channels.
//
// Each (re)connection waits for a connection attempt from the shared budget, dials with headers made afresh (a private
// connection signs its timestamp then), subscribes every channel it carries, and reads until the connection ends:
// pings are answered with the key and time they came with, acknowledgements make subscriptions live, data frames go
// to the feed of a live channel (those of a channel awaiting its acknowledgement to the feed's `onEarly`, if it has
// one), and no frame at all for `idleTimeout` ends the connection (the venue may stall with the socket open). Then the
// loop waits a jittered exponential backoff and dials again.
//
// Each message is read on its own: a binary frame is decoded as UTF-8 by itself (never with a decoder shared by the
// connection, where a frame cut inside a character would spoil the next one). A frame that is not UTF-8 JSON is
// dropped; on a private connection with a live channel it may have been an account event, so the connection is
// replaced (its session then reads what it missed from REST), on a public one it is logged (`FRAME_LOG_INTERVAL_MILLIS`).
// Nothing is inflated: the V2 interface shows no compression (only the legacy v1 stream, another protocol, gzips), and
// an inflation would let a small frame become a large message (`maxFrameBytes` bounds what the socket takes); a
// gzip-compressed frame is dropped as unreadable, and the warning says it was compressed. The first `orders` push a
// private connection carries is logged at debug level (scrubbed, cut): where the venue puts the orders in it is not
// documented, and a live check pins it from that line. Subscriptions are sent from the registry inside each
// connection, never queued on the socket's writer across connections.
//
// Each attempt (the wait for the budget, the dial and the handshake) is a `SpotPush.connect` span, a root span of its
// own (a reconnect hours later belongs to no caller's trace), and is counted by its outcome; the data frames read are
// counted per channel kind as plain integers and added to the metric once per batch (`telemetry.ts`).
import { Cause, Clock, Deferred, Duration, Effect, Exit, Fiber, Option, Random, Result, Scope } from "effect"
import * as Socket from "effect/socket/Socket"
import * as Push from "../../Push.ts"
import * as PushError from "../../PushError.ts"
import type * as SpotError from "../../SpotError.ts"
import { collectGrants, millisOf, stopCollecting } from "../client/rateLimiter.ts"
import type { Backoff } from "./limits.ts"
import { backoffDelay, OperationLog } from "./limits.ts"
import type { Event } from "./model.ts"
import { kindOf, KINDS, none, outcomeOf, reconnectReasonOf, Replaced } from "./telemetry.ts"
import type { ReplacedReason, Reporter } from "./telemetry.ts"
import type { VenueText } from "./venueText.ts"

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
  /** The subscription stopped counting: the connection ended or a resync is under way. */
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

/** A connection attempt granted by the shared budget; `settle` once the attempt is over. */
export interface AttemptPermit {
  readonly settle: Effect.Effect<void>
}

export interface Settings {
  readonly endpoint: Push.Endpoint
  readonly idleTimeout: Duration.Input
  readonly ackTimeoutMillis: number
  readonly backoff: Backoff
  readonly operations: { readonly limit: number; readonly windowMillis: number }
  /** Waits for a connection attempt of the shared budget (a store that cannot be reached fails the attempt). */
  readonly attempt: Effect.Effect<AttemptPermit, SpotError.RateLimitStoreError>
  readonly emit: (event: Event) => void
  /** Makes what the venue says safe to quote: credentials and handshake signatures scrubbed, printable. */
  readonly text: VenueText
  /** The service's metrics. @default none */
  readonly telemetry?: Reporter | undefined
  /**
   * Private connections: whether the venue refuses the credentials (a signed REST call), asked after a handshake that
   * did not open, or a connection that ended with no subscription acknowledged, at most once every
   * `CREDENTIALS_CHECK_INTERVAL_MILLIS`; a reason fails every channel for good.
   * @default none (never asked)
   */
  readonly credentialsRefused?: Effect.Effect<PushError.PushErrorReason | undefined> | undefined
}

/**
 * How often the warning about an error frame that names no channel of ours is logged, per connection: the first,
 * then at most one such line a minute (saying how many were not logged), however many the venue sends.
 */
export const ERROR_LOG_INTERVAL_MILLIS = 60_000

/**
 * How often the warning about a frame that could not be read (not UTF-8, not JSON) and was dropped is logged, per
 * connection: the first, then at most one such line a minute (saying how many were not logged).
 */
export const FRAME_LOG_INTERVAL_MILLIS = 60_000

// A non-streaming decode: every call starts afresh, so nothing of one message is carried into the next; `fatal`,
// so a frame that is not UTF-8 (cut inside a character) is refused rather than read with U+FFFD in its place.
const utf8 = new TextDecoder("utf-8", { fatal: true })

/** A message as text, each decoded on its own; `undefined` for bytes that are not UTF-8. */
export const textOf = (message: string | Uint8Array): string | undefined => {
  if (typeof message === "string") return message
  // Only bytes that are not UTF-8 are refused so: what is neither text nor bytes (a socket's defect) throws, and the
  // read loop ends the connection with it described.
  if (!(message instanceof Uint8Array)) return utf8.decode(message)
  const decoded = Result.try(() => utf8.decode(message))
  return Result.isSuccess(decoded) ? decoded.success : undefined
}

/**
 * How often REST is asked whether the venue refuses the credentials while private handshakes keep failing: after the
 * first that fails, then at most once a minute (one signed call; the backoff dials up to twice a minute).
 */
export const CREDENTIALS_CHECK_INTERVAL_MILLIS = 60_000

/** Marks an open failure that no reconnect can mend: the platform cannot send the handshake headers. */
export class HeadersUnsupported {
  readonly _tag = "HeadersUnsupported"
}

const isHeadersUnsupported = (error: unknown): boolean =>
  Socket.isSocketError(error) && error.reason._tag === "SocketOpenError" &&
  error.reason.cause instanceof HeadersUnsupported

interface Entry {
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

interface Live {
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
  readonly end: Deferred.Deferred<never, Replaced>
  readonly control: Control
  /** Whether it counts among the connections open (until it is down). */
  open: boolean
}

// What an error says of itself: an `Error`'s or an `ErrorEvent`'s message (a WebSocket's error events carry one).
const messageOf = (u: unknown): string | undefined =>
  typeof u === "object" && u !== null && "message" in u && typeof u.message === "string" && u.message !== ""
    ? u.message
    : undefined

const defectOf = (defect: unknown): string => {
  if (defect instanceof Error) return `${defect.name}: ${defect.message}`
  const message = messageOf(defect)
  return message ?? (typeof defect === "string" ? defect : `a value of type ${typeof defect}`)
}

const describeError = (error: unknown): string => {
  if (!Socket.isSocketError(error)) return typeof error === "string" ? error : defectOf(error)
  const reason = error.reason
  const cause = "cause" in reason ? messageOf(reason.cause) : undefined
  return `${reason._tag}: ${reason.message}${cause === undefined || cause === reason.message ? "" : ` (${cause})`}`
}

/**
 * Why a connection ended, as a text that may quote the venue (a close reason, a socket error's message): the
 * caller scrubs it. A defect is described too (its name and message), never as `undefined`.
 */
export const describe = (cause: Cause.Cause<unknown>): string => {
  const error = Cause.findErrorOption(cause)
  if (Option.isSome(error)) return describeError(error.value)
  const defect = Cause.findDefect(cause)
  if (Result.isSuccess(defect)) return `a defect: ${defectOf(defect.success)}`
  return Cause.hasInterrupts(cause) ? "interrupted" : "ended"
}

export class Connection {
  readonly id: number
  readonly channels = new Map<string, Entry>()
  private live: Live | undefined = undefined
  private fiber: Fiber.Fiber<void> | undefined = undefined
  private running = false
  private readonly settings: Settings
  private readonly socket: Socket.Socket
  private readonly now: () => number
  // The venue's error frames that name no channel of ours: when one was last logged, and how many since were not.
  private errorLoggedAt: number | undefined = undefined
  private errorsUnlogged = 0
  // The same for frames that could not be read and were dropped.
  private unreadableLoggedAt: number | undefined = undefined
  private unreadableUnlogged = 0
  // When REST was last asked whether the credentials are refused (`Settings.credentialsRefused`).
  private credentialsCheckedAt: number | undefined = undefined
  // Subscriptions the venue acknowledged, ever: a connection that ends with none acknowledged proved no key.
  private acknowledgements = 0
  // Whether the first `orders` push was logged (once for the connection's life, across its reconnections).
  private ordersLogged = false
  private readonly telemetry: Reporter
  // Data frames read per channel kind since the metric was last updated (at the end of each batch).
  private readonly received: Array<number> = KINDS.map(() => 0)
  stopping = false

  constructor(id: number, settings: Settings, socket: Socket.Socket, now: () => number) {
    this.id = id
    this.settings = settings
    this.socket = socket
    this.now = now
    this.telemetry = settings.telemetry ?? none
  }

  /**
   * Whether another channel fits: under the channel cap (counting the channels the venue may still carry), and with an
   * operation left on a live connection.
   */
  fits(cap: number): boolean {
    return this.full(cap) === undefined
  }

  /** Why another channel does not fit: its channels (or it is stopping), or no operation left; `undefined` if it fits. */
  full(cap: number): "channels" | "operations" | undefined {
    const live = this.live
    if (this.stopping || this.channels.size + (live?.lingering.size ?? 0) >= cap) return "channels"
    return live === undefined || live.ops.remaining(this.now()) >= 1 ? undefined : "operations"
  }

  /** Starts the reconnecting loop in `scope` unless it runs (it ends when no channel is left). */
  start(scope: Scope.Scope): Effect.Effect<void> {
    if (this.running || this.stopping) return Effect.void
    this.running = true
    const run = Effect.ensuring(this.run(), Effect.sync(() => (this.running = false)))
    return Effect.map(Effect.forkIn(run, scope), (fiber) => {
      if (this.running) this.fiber = fiber
    })
  }

  /** Ends the loop and the connection. */
  stop(): Effect.Effect<void> {
    this.stopping = true
    const fiber = this.fiber
    this.fiber = undefined
    return fiber === undefined ? Effect.void : Fiber.interrupt(fiber)
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
    // Not unsubscribed: the venue carries it on, and counts it, for this connection's life.
    live.lingering.add(channel)
    return ended
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

  // Whether a frame naming the channel answers an unsubscription sent on this connection (counted off if so).
  private answersUnsubscribe(live: Live, channel: string): boolean {
    const outstanding = live.unsubscribing.get(channel)
    if (outstanding === undefined) return false
    if (outstanding > 1) live.unsubscribing.set(channel, outstanding - 1)
    else live.unsubscribing.delete(channel)
    return true
  }

  // The venue said something of a live subscription that the client cannot place (an error frame answering nothing it
  // asked), or that it dropped it (an `unsubscribed` not asked for): the feed is told the subscription stopped counting (a book resyncs), and it is
  // subscribed again — unsubscribed first, unless the venue said it no longer carries it.
  private lost(live: Live, channel: string, entry: Entry, unsubscribe: boolean): Effect.Effect<void> {
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

  private subscribe(live: Live, channel: string): Effect.Effect<void> {
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
        Effect.sleep(this.settings.ackTimeoutMillis),
        Effect.suspend(() => {
          if (this.channels.get(channel) !== entry || entry.generation !== generation || entry.state !== "pending") {
            return Effect.void
          }
          const timeoutMillis = this.settings.ackTimeoutMillis
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

  private fail(channel: string, reason: PushError.PushErrorReason): Effect.Effect<void> {
    const entry = this.channels.get(channel)
    if (entry === undefined) return Effect.void
    this.channels.delete(channel)
    return Effect.andThen(this.endSubscription(entry), entry.feed.onFail(channel, reason))
  }

  // One frame: what it asks to run, if anything (a pong, a feed going live or failing).
  private dispatch(live: Live, message: string | Uint8Array): Effect.Effect<void> | undefined {
    const raw = textOf(message)
    const frame = raw === undefined ? undefined : Push.decodeFrame(raw)
    if (raw === undefined || frame === undefined) return this.unreadable(live, message)
    switch (frame._tag) {
      case "Ping":
        return live.send(Push.pongMessage(frame))
      case "Ack": {
        if (frame.event === "unsubscribed") {
          const answer = this.answersUnsubscribe(live, frame.channel)
          live.lingering.delete(frame.channel)
          const entry = this.channels.get(frame.channel)
          // Not asked for, of a live channel: the venue dropped the subscription (its frames stop, a book would stay as
          // it was while other channels keep the connection from going idle). It is lost: subscribed again.
          if (answer || entry === undefined || entry.state !== "active") return undefined
          return Effect.andThen(
            Effect.logWarning(
              `spotkit push: connection ${this.id}: the venue unsubscribed ${frame.channel}, subscribing it again`
            ),
            this.lost(live, frame.channel, entry, false)
          )
        }
        const entry = this.channels.get(frame.channel)
        if (entry === undefined || entry.state !== "pending") return undefined
        entry.state = "active"
        entry.acknowledged = true
        this.acknowledgements++
        const subscription = Scope.forkUnsafe(live.scope)
        entry.subscription = subscription
        return entry.feed.onActive(frame.channel, subscription, live.control)
      }
      case "Error": {
        const channel = frame.channel
        if (channel === undefined) return this.errorFrame(frame.code, frame.msg)
        // The answer to an unsubscription (the venue may no longer have carried the channel): nothing failed. (The
        // channel is quoted as the client wrote it.)
        if (this.answersUnsubscribe(live, channel)) {
          return this.errorFrame(frame.code, frame.msg, `${channel}, answering its unsubscription`)
        }
        const entry = this.channels.get(channel)
        if (entry === undefined) return this.errorFrame(frame.code, frame.msg)
        // Only a subscription awaiting its answer is refused by it, for good.
        if (entry.state === "pending") {
          const { text } = this.settings
          return this.fail(
            channel,
            new PushError.VenueRefusedError({
              channel,
              code: frame.code === undefined ? undefined : text.scrub(frame.code),
              msg: frame.msg === undefined ? undefined : text.scrub(frame.msg)
            })
          )
        }
        // An error about a live channel that answers nothing the client asked: whether the venue still carries it is
        // in doubt, so it is subscribed afresh (a refusal of that subscription then fails it).
        const logged = this.errorFrame(
          frame.code,
          frame.msg,
          entry.state === "active" ? `the live ${channel}, subscribed again` : channel
        )
        if (entry.state !== "active") return logged
        const lost = this.lost(live, channel, entry, true)
        return logged === undefined ? lost : Effect.andThen(logged, lost)
      }
      case "Payload":
      case "TradeEvent": {
        const entry = this.channels.get(frame.channel)
        if (entry === undefined) return undefined
        if (entry.kind >= 0) this.received[entry.kind]!++
        if (entry.state === "active") entry.feed.onFrame(frame, live.control)
        else if (entry.state === "pending") entry.feed.onEarly?.(frame.channel, frame)
        if (this.ordersLogged || frame.channel !== Push.channels.orders || this.settings.endpoint !== "private") {
          return undefined
        }
        this.ordersLogged = true
        return Effect.logDebug(
          `spotkit push: connection ${this.id}: the first orders push: ${this.settings.text.line(raw, 4_000)}`
        )
      }
      case "Other":
        return undefined
    }
  }

  // A frame that is not UTF-8 JSON. On a private connection whose channels are live it may have been an order, fill
  // or balance push: the connection is replaced, so that the session reads what it missed from REST, as for a push
  // that does not decode. Before any channel is live nothing is lost (the backfill that follows the acknowledgement
  // reads it from REST), and a venue that greets each connection with such a frame is not dialled for ever. Otherwise
  // it is dropped and logged (never quoted: only its kind and size): a public feed sees what is missing (a book's
  // versions), and a ticker's next push stands for the lost one.
  private unreadable(live: Live, message: string | Uint8Array): Effect.Effect<void> | undefined {
    const what = typeof message === "string"
      ? `a text frame of ${message.length} characters that is not JSON`
      : message[0] === 0x1f && message[1] === 0x8b
      ? `a gzip-compressed binary frame of ${message.byteLength} bytes, not inflated`
      : `a binary frame of ${message.byteLength} bytes that is not UTF-8 JSON`
    if (this.settings.endpoint === "private") {
      for (const entry of this.channels.values()) {
        if (entry.state === "active") {
          live.control.reconnect(`a frame that could not be read (${what})`, "decode")
          return undefined
        }
      }
    }
    const now = this.now()
    if (this.unreadableLoggedAt !== undefined && now - this.unreadableLoggedAt < FRAME_LOG_INTERVAL_MILLIS) {
      this.unreadableUnlogged++
      return undefined
    }
    const unlogged = this.unreadableUnlogged
    this.unreadableLoggedAt = now
    this.unreadableUnlogged = 0
    return Effect.logWarning(
      `spotkit push: connection ${this.id}: dropped a frame that could not be read (${what})${
        unlogged === 0 ? "" : ` (and ${unlogged} more since the last one logged)`
      }`
    )
  }

  // An error frame that fails no subscription (it names no channel of ours, or answers an unsubscription, or names a
  // live channel; `about` says which of ours and what was done): a warning with its code and message (scrubbed,
  // printable; never the frame itself), the first one and then at most one every `ERROR_LOG_INTERVAL_MILLIS`.
  private errorFrame(
    code: string | undefined,
    msg: string | undefined,
    about?: string
  ): Effect.Effect<void> | undefined {
    const now = this.now()
    if (this.errorLoggedAt !== undefined && now - this.errorLoggedAt < ERROR_LOG_INTERVAL_MILLIS) {
      this.errorsUnlogged++
      return undefined
    }
    const unlogged = this.errorsUnlogged
    this.errorLoggedAt = now
    this.errorsUnlogged = 0
    const { text } = this.settings
    return Effect.logWarning(
      `spotkit push: connection ${this.id}: the venue sent an error${
        about === undefined ? "" : ` about ${about}`
      } (code ${code === undefined ? "none" : text.line(code, 40)}): ${
        msg === undefined ? "no message" : text.line(msg)
      }${unlogged === 0 ? "" : ` (and ${unlogged} more since the last one logged)`}`
    )
  }

  // The resyncs feeds asked for while reading the last batch: unsubscribe and subscribe again (two operations), or a
  // fresh connection when this one has not two left. Nothing once the connection has ended: an entry then belongs to
  // the next connection.
  private resyncs(live: Live): Effect.Effect<void> {
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

  private connectOnce(onConnected: () => void): Effect.Effect<never, unknown> {
    return Effect.scoped(Effect.gen({ self: this }, function*() {
      const pull = yield* this.attempt(this.dial())
      const writer = yield* this.socket.writer
      const scope = yield* Effect.scope
      const end = yield* Deferred.make<never, Replaced>()
      const live: Live = {
        scope,
        send: (text) => Effect.ignore(writer.write(text)),
        ops: new OperationLog(this.settings.operations.limit, this.settings.operations.windowMillis),
        resyncs: new Set(),
        lingering: new Set(),
        unsubscribing: new Map(),
        end,
        open: false,
        control: {
          resync: (channel) => live.resyncs.add(channel),
          // A deadline fiber may call it after this connection ended: then it does nothing (its channels are
          // subscribed afresh on the next connection).
          resyncNow: (channel) =>
            Effect.suspend(() => {
              if (this.live !== live) return Effect.void
              live.resyncs.add(channel)
              return this.resyncs(live)
            }),
          reconnect: (reason, why) => Deferred.doneUnsafe(end, Exit.fail(new Replaced(why, reason)))
        }
      }
      this.live = live
      yield* Scope.addFinalizer(scope, this.down(live))
      live.open = true
      this.telemetry.open(this.settings.endpoint, 1)
      onConnected()
      this.settings.emit({ _tag: "Connected", endpoint: this.settings.endpoint, connection: this.id })
      for (const channel of Array.from(this.channels.keys())) yield* this.subscribe(live, channel)
      return yield* Effect.raceFirst(this.read(live, pull), Deferred.await(end))
    }))
  }

  // Reads until the connection fails, or stays silent for `idleTimeout`.
  private read(
    live: Live,
    pull: Effect.Effect<ReadonlyArray<string | Uint8Array>, Socket.SocketError>
  ): Effect.Effect<never, unknown> {
    const idle = () =>
      Effect.fail(
        new Replaced("idle", `no frame for ${Duration.format(Duration.fromInputUnsafe(this.settings.idleTimeout))}`)
      )
    return Effect.forever(
      Effect.gen({ self: this }, function*() {
        const batch = yield* Effect.timeoutOrElse(pull, { duration: this.settings.idleTimeout, orElse: idle })
        for (const message of batch) {
          const effect = this.dispatch(live, message)
          if (effect !== undefined) yield* effect
        }
        this.telemetry.received(this.received)
        if (live.resyncs.size > 0) yield* this.resyncs(live)
      }),
      { disableYield: true }
    )
  }

  // The connection ended: every channel stops counting until it is acknowledged on the next one.
  private down(live: Live): Effect.Effect<void> {
    return Effect.suspend(() => {
      if (this.live === live) this.live = undefined
      if (live.open) {
        live.open = false
        this.telemetry.open(this.settings.endpoint, -1)
      }
      // The frames of a batch cut short (the connection ended while a frame's effect ran) are counted now: the loop
      // may never read another batch (its last stream stopped).
      this.telemetry.received(this.received)
      const effects: Array<Effect.Effect<void>> = []
      for (const [channel, entry] of this.channels) {
        if (entry.state === "idle") continue
        entry.state = "idle"
        effects.push(Effect.andThen(this.endSubscription(entry), entry.feed.onInactive(channel)))
      }
      return Effect.all(effects, { discard: true })
    })
  }

  // The wait for the budget's permit, then the dial and the handshake, with the permit settled however they end. The
  // settling is in place before the permit is asked for (as the client's limit stage does it, `pipeline.ts` `limited`):
  // once the store granted it, an interruption (the streams stopped) settles it at once rather than leaving it to its
  // lease, even between the grant and the step that would have handed it over (the run loop may yield there, and an
  // interruption then skips that step): the stores record their grants on the fiber (`RateLimiter.granted`), and what
  // they granted so is settled through its `settle`, which for the Redis store settles its entry in Redis too. The
  // wait stays interruptible.
  // The messages are read as they came (text or bytes), to be decoded one by one (`textOf`).
  private dial(): Effect.Effect<
    Effect.Effect<ReadonlyArray<string | Uint8Array>, Socket.SocketError>,
    unknown,
    Scope.Scope
  > {
    return Effect.withFiber((fiber) => {
      const grants = collectGrants(fiber)
      let permit: AttemptPermit | undefined
      return Effect.onExit(
        Effect.flatMap(this.settings.attempt, (granted) => {
          stopCollecting(fiber, grants)
          permit = granted
          return Effect.map(this.socket.reader, (reader) => reader.pull)
        }),
        () =>
          Effect.suspend(() => {
            stopCollecting(fiber, grants)
            if (permit !== undefined) return permit.settle
            return Effect.forEach(grants, (grant) => grant.settle, { discard: true })
          })
      )
    })
  }

  // One attempt: the wait for the budget's permit, the dial and the handshake, as the span `SpotPush.connect` with its
  // `outcome`, counted. The span ends failed with the reason as the `Disconnected` event quotes it (scrubbed), never
  // with the error itself, which may quote the venue; the caller gets the attempt's own exit. An attempt interrupted
  // before it ended otherwise (its streams stopped) is counted `interrupted`, its span too.
  private attempt<A, R>(dial: Effect.Effect<A, unknown, R>): Effect.Effect<A, unknown, R> {
    const { endpoint, text } = this.settings
    let result: Exit.Exit<A, unknown> | undefined
    const counted = Effect.flatMap(Effect.exit(dial), (exit) => {
      result = exit
      const outcome = outcomeOf(exit)
      this.telemetry.attempted(endpoint, outcome)
      return Effect.andThen(
        Effect.annotateCurrentSpan("outcome", outcome),
        Exit.isSuccess(exit) ? Effect.void : Effect.fail(text.line(describe(exit.cause), 400))
      )
    })
    const spanned = Effect.withSpan(
      Effect.onInterrupt(counted, () =>
        Effect.suspend(() => {
          // Counted already when the interruption came after the attempt's end.
          if (result !== undefined) return Effect.void
          this.telemetry.attempted(endpoint, "interrupted")
          return Effect.annotateCurrentSpan("outcome", "interrupted")
        })),
      "SpotPush.connect",
      { root: true, attributes: { endpoint, connection: this.id } }
    )
    return Effect.flatMap(Effect.exit(spanned), () => result ?? Effect.interrupt)
  }

  // After a private handshake that did not open: whether the venue refuses the credentials, asked of REST at most once
  // every `CREDENTIALS_CHECK_INTERVAL_MILLIS`. A refusal with a status ("refused") may be the key's; so may a failure
  // with none ("failed"): Node's global WebSocket and the browsers' do not say the status. A timeout or a budget store
  // that cannot be reached is no answer of the venue's.
  private credentialsRefused(exit: Exit.Exit<unknown, unknown>): Effect.Effect<PushError.PushErrorReason | undefined> {
    const check = this.settings.credentialsRefused
    if (check === undefined) return Effect.succeed(undefined)
    const outcome = outcomeOf(exit)
    if (outcome !== "refused" && outcome !== "failed") return Effect.succeed(undefined)
    const now = this.now()
    if (
      this.credentialsCheckedAt !== undefined && now - this.credentialsCheckedAt < CREDENTIALS_CHECK_INTERVAL_MILLIS
    ) {
      return Effect.succeed(undefined)
    }
    this.credentialsCheckedAt = now
    return check
  }

  private run(): Effect.Effect<void> {
    return Effect.gen({ self: this }, function*() {
      let attempt = 0
      while (this.channels.size > 0) {
        let connectedAt: number | undefined
        const acknowledgements = this.acknowledgements
        const exit = yield* Effect.exit(this.connectOnce(() => {
          connectedAt = this.now()
        }))
        const cause = Exit.isFailure(exit) ? Option.getOrUndefined(Cause.findErrorOption(exit.cause)) : undefined
        const reason = this.settings.text.line(Exit.isFailure(exit) ? describe(exit.cause) : "ended", 400)
        if (isHeadersUnsupported(cause)) {
          for (const channel of Array.from(this.channels.keys())) {
            yield* this.fail(channel, new PushError.HeadersUnsupportedError({}))
          }
          return
        }
        // A venue may take the upgrade and refuse the key on the open socket (a close 4001, an error frame): a
        // connection that opened but had no subscription acknowledged is asked about as a handshake that did not open.
        const refused = connectedAt === undefined || this.acknowledgements === acknowledgements
          ? yield* this.credentialsRefused(exit)
          : undefined
        if (refused !== undefined) {
          for (const channel of Array.from(this.channels.keys())) yield* this.fail(channel, refused)
          return
        }
        if (connectedAt !== undefined && this.now() - connectedAt >= this.settings.backoff.resetAfterMillis) {
          attempt = 0
        }
        const delay = backoffDelay(this.settings.backoff, attempt++, yield* Random.next)
        // Counted now, before the backoff: the connection is lost whether or not it is dialled again (its streams may
        // all stop meanwhile); the dial itself is counted as an attempt.
        this.telemetry.reconnecting(this.settings.endpoint, reconnectReasonOf(exit, connectedAt !== undefined))
        this.settings.emit({
          _tag: "Disconnected",
          endpoint: this.settings.endpoint,
          connection: this.id,
          reason,
          retryInMillis: delay
        })
        yield* Effect.logDebug(`spotkit push: connection ${this.id} ended (${reason}), again in ${delay} ms`)
        yield* Effect.sleep(delay)
      }
    })
  }
}

/**
 * The monotonic clock as a plain function (ms), for the synchronous bookkeeping of limits: the operations' window, the
 * interval of error-frame warnings, how long a connection stayed up. They are durations, which a step of the wall clock
 * (NTP, a user setting the time) must not stretch or cut.
 */
export const nowFunction: Effect.Effect<() => number> = Clock.clockWith((clock) =>
  Effect.succeed(() => millisOf(clock.monotonicTimeNanosUnsafe()))
)
