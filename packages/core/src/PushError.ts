/**
 * The error of the push streams (`SpotPush`), built like `SpotError`: one error naming the stream that failed and a
 * `reason` saying what went wrong. A dropped, stalled or refused connection is no error: the streams reconnect (with
 * backoff, within the venue's connection budget) and close the gap themselves. A stream fails only when it cannot go
 * on as promised: a subscription the venue never acknowledged or refused, a book whose snapshot never comes, a
 * consumer too slow for a stream that must not drop anything, a platform that cannot authenticate, credentials the venue
 * refuses (at the handshake, and at REST asked then), a REST backfill the venue refuses for good.
 *
 * A `PushError` has the `stream` that failed and its `reason`, whose `_tag` names it. Handle one reason as for
 * `SpotError`, with `Effect.catchReason` on the effect that runs the stream (or `Stream.catchReason` on the stream):
 *
 * ```ts
 * import { Console, Effect, Stream } from "effect"
 * import { SpotPush } from "@spotkit/core"
 *
 * const trades = Effect.gen(function*() {
 *   const push = yield* SpotPush.SpotPush
 *   yield* Stream.runForEach(push.watchTrades("BTCUSDT_SPBL"), (trade) => Console.log(trade.price))
 * }).pipe(
 *   // Another reason stays a PushError.
 *   Effect.catchReason(
 *     "PushError",
 *     "SlowConsumerError",
 *     (reason) => Console.error(`fell behind its queue of ${reason.capacity} trades: too slow`)
 *   )
 * )
 * ```
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { printable } from "./SafeText.ts"
import { SpotError, ValidationError } from "./SpotError.ts"

/**
 * The venue did not acknowledge a subscription (`{"event":"subscribed"}`) within the `ackTimeout`.
 *
 * @since 0.1.0
 * @category reasons
 */
export class SubscribeTimeoutError
  extends Schema.Error<SubscribeTimeoutError>("@spotkit/core/PushError/SubscribeTimeoutError")({
    _tag: Schema.tag("SubscribeTimeoutError"),
    channel: Schema.String,
    timeoutMillis: Schema.Number
  })
{
  /** The channel subscribed, e.g. `"trades.BTCUSDT_SPBL"`. */
  declare readonly channel: string
  /** The `ackTimeout` waited, in milliseconds. */
  declare readonly timeoutMillis: number

  override get message(): string {
    return `no acknowledgement of the subscription to ${printable(this.channel)} within ${this.timeoutMillis} ms`
  }
}

/**
 * A depth channel's subscription was acknowledged but no snapshot followed within the `ackTimeout`, `attempts`
 * subscriptions in a row (the channel was subscribed again after each): without a snapshot there is no book to keep.
 *
 * @since 0.1.0
 * @category reasons
 */
export class SnapshotTimeoutError
  extends Schema.Error<SnapshotTimeoutError>("@spotkit/core/PushError/SnapshotTimeoutError")({
    _tag: Schema.tag("SnapshotTimeoutError"),
    channel: Schema.String,
    timeoutMillis: Schema.Number,
    attempts: Schema.Number
  })
{
  /** The depth channel, e.g. `"depth.BTCUSDT_SPBL.15"`. */
  declare readonly channel: string
  /** The `ackTimeout` waited after each acknowledgement, in milliseconds. */
  declare readonly timeoutMillis: number
  /** The subscriptions in a row that had no snapshot. */
  declare readonly attempts: number

  override get message(): string {
    return `no snapshot of ${printable(this.channel)} within ${this.timeoutMillis} ms of the acknowledgement, ` +
      `${this.attempts} subscriptions in a row`
  }
}

/**
 * The venue answered a subscription with an error frame (a channel it does not serve, a refused key, a limit). `code`
 * and `msg` are the venue's, whole but scrubbed of the credentials and of the handshake signatures sent (a venue may
 * echo them); `message` shows them as one printable line (`SafeText.printable`).
 *
 * @since 0.1.0
 * @category reasons
 */
export class VenueRefusedError extends Schema.Error<VenueRefusedError>("@spotkit/core/PushError/VenueRefusedError")({
  _tag: Schema.tag("VenueRefusedError"),
  channel: Schema.String,
  code: Schema.optional(Schema.String),
  msg: Schema.optional(Schema.String)
}) {
  /** The channel refused. */
  declare readonly channel: string
  /** The venue's error code, when it gave one. */
  declare readonly code?: string
  /** The venue's error message, when it gave one (scrubbed). */
  declare readonly msg?: string

  override get message(): string {
    const detail = this.msg === undefined ? "" : `: ${printable(this.msg)}`
    return `the venue refused ${printable(this.channel)}${detail}${
      this.code === undefined ? "" : ` (code ${printable(this.code, 40)})`
    }`
  }
}

/**
 * A consumer did not keep up with a stream that must deliver every element (orders, fills, balances, trades,
 * candles): its queue (`capacity` elements, the `bufferSize` option) was full, and an element waited longer than
 * `graceMillis` (the `slowConsumerAfter` option, a second by default) for room in it; or, behind a private backfill
 * larger than its queue, more pushes than the `backfillBuffer` option waited for it (`backlog`). A burst larger than
 * the queue is no failure by itself: what has no room waits, in order, each element its grace at most, and a consumer
 * that keeps up takes it and goes on. A consumer behind gets what its queue held, then this failure; nothing is
 * dropped silently. The book and the ticker never fail so: a lagging book consumer gets a `Resync` and the latest
 * book, a ticker consumer the latest ticker.
 *
 * @since 0.1.0
 * @category reasons
 */
export class SlowConsumerError extends Schema.Error<SlowConsumerError>("@spotkit/core/PushError/SlowConsumerError")({
  _tag: Schema.tag("SlowConsumerError"),
  capacity: Schema.Number,
  graceMillis: Schema.optional(Schema.Number),
  backlog: Schema.optional(Schema.Number)
}) {
  /** The elements the consumer's queue holds: the `bufferSize` option. */
  declare readonly capacity: number
  /** How long the element waited for room, in milliseconds: the `slowConsumerAfter` option. */
  declare readonly graceMillis?: number
  /** The pushes that waited behind a private backfill, more than the `backfillBuffer` option allows. */
  declare readonly backlog?: number

  override get message(): string {
    if (this.backlog !== undefined) {
      return `the consumer fell behind: ${this.backlog} pushes waited behind a backfill for its queue of ` +
        `${this.capacity} (see the bufferSize and backfillBuffer options)`
    }
    const waited = this.graceMillis === undefined ? "its grace" : `${this.graceMillis} ms`
    return `the consumer fell behind: an element waited more than ${waited} for room in its queue of ` +
      `${this.capacity} (see the bufferSize and slowConsumerAfter options)`
  }
}

/**
 * The platform's WebSocket cannot send handshake headers (a browser's cannot), and the private channels are
 * authenticated by them: private push needs a server-side runtime (Node, Bun, Deno). Public channels work in a
 * browser.
 *
 * @since 0.1.0
 * @category reasons
 */
export class HeadersUnsupportedError
  extends Schema.Error<HeadersUnsupportedError>("@spotkit/core/PushError/HeadersUnsupportedError")({
    _tag: Schema.tag("HeadersUnsupportedError")
  })
{
  override get message(): string {
    return "private push authenticates with handshake headers, which this platform's WebSocket (a browser's) cannot " +
      "send: use a server-side runtime for orders, fills and balances"
  }
}

/**
 * No room for another channel: each of the `connections` allowed (`maxConnections`) carries its
 * `channelsPerConnection` channels (`limits.channelsPerConnection`, 100 by default), or has no subscribe operation left
 * in its window (`limits.operations`, the venue's 240 an hour). `limit` says which held: `"channels"` when every
 * connection is full, `"operations"` when one at least had room for a channel but no operation left (a connection
 * frees operations as its window passes).
 *
 * @since 0.1.0
 * @category reasons
 */
export class ConnectionLimitError
  extends Schema.Error<ConnectionLimitError>("@spotkit/core/PushError/ConnectionLimitError")({
    _tag: Schema.tag("ConnectionLimitError"),
    connections: Schema.Number,
    channelsPerConnection: Schema.Number,
    limit: Schema.Literals(["channels", "operations"])
  })
{
  /** The connections allowed (`maxConnections`). */
  declare readonly connections: number
  /** The channels a connection carries at most. */
  declare readonly channelsPerConnection: number
  /** Which limit held: every connection's channels, or the subscribe operations of those with room. */
  declare readonly limit: "channels" | "operations"

  override get message(): string {
    return this.limit === "channels"
      ? `every one of the ${this.connections} connections allowed carries its ${this.channelsPerConnection} channels`
      : `none of the ${this.connections} connections allowed has both a place among its ${this.channelsPerConnection} ` +
        "channels and a subscribe operation left in its window"
  }
}

/**
 * The REST backfill that closes the gap after a (re)connection failed for a reason a retry cannot mend
 * (credentials, permissions, a limit refused); transient failures do not end a stream: the private session reconnects
 * and backfills again, a trade or candle channel asks REST again after a backoff (its connection goes on).
 *
 * @since 0.1.0
 * @category reasons
 */
export class BackfillError extends Schema.Error<BackfillError>("@spotkit/core/PushError/BackfillError")({
  _tag: Schema.tag("BackfillError"),
  error: SpotError
}) {
  /** What REST failed with. */
  declare readonly error: SpotError

  override get message(): string {
    return `backfill by REST failed: ${this.error.message}`
  }
}

/**
 * The venue refused the private connection's handshake (or took it, then ended the connection before acknowledging any
 * subscription: a close 4001, an error frame), and a signed REST call made then (the balances) was refused for the
 * credentials too: `error` is an `AuthenticationError` (a wrong key, secret or passphrase; a revoked or expired
 * key) or a `PermissionError`. Reconnecting cannot mend it, so the private streams fail rather than wait for good. The
 * REST call is signed with the `SpotClient`'s credentials: when the push is given other credentials than its client,
 * a refusal of those alone is not detected (the streams go on reconnecting). A handshake refused while REST accepts
 * the key (a clock out of the venue's window, a venue restarting) is transient: the streams go on reconnecting, and
 * REST is asked again at most once a minute.
 *
 * @since 0.1.0
 * @category reasons
 */
export class CredentialsRefusedError
  extends Schema.Error<CredentialsRefusedError>("@spotkit/core/PushError/CredentialsRefusedError")({
    _tag: Schema.tag("CredentialsRefusedError"),
    error: SpotError
  })
{
  /** The REST call's refusal: its reason an `AuthenticationError` or a `PermissionError`. */
  declare readonly error: SpotError

  override get message(): string {
    return `the venue refused the private handshake, and REST refused the credentials: ${this.error.message}`
  }
}

/**
 * Every reason a `PushError` can carry: those above, and `SpotError.ValidationError` for a stream asked for with bad
 * input (a symbol that is no trading pair, private channels without credentials).
 *
 * @since 0.1.0
 * @category models
 */
export type PushErrorReason =
  | ValidationError
  | SubscribeTimeoutError
  | SnapshotTimeoutError
  | VenueRefusedError
  | SlowConsumerError
  | HeadersUnsupportedError
  | ConnectionLimitError
  | BackfillError
  | CredentialsRefusedError

/**
 * Schema of every reason.
 *
 * @since 0.1.0
 * @category schemas
 */
export const PushErrorReason = Schema.Union([
  ValidationError,
  SubscribeTimeoutError,
  SnapshotTimeoutError,
  VenueRefusedError,
  SlowConsumerError,
  HeadersUnsupportedError,
  ConnectionLimitError,
  BackfillError,
  CredentialsRefusedError
])

// The reason the schema's constructor set: read through a function, as TypeScript takes the `declare`d field below (there
// for its documentation) for one not yet initialized when `cause` is.
const reasonOf = (error: { readonly reason: PushErrorReason }): PushErrorReason => error.reason

/**
 * The error of a push stream.
 *
 * @since 0.1.0
 * @category errors
 */
export class PushError extends Schema.Error<PushError>("@spotkit/core/PushError")({
  _tag: Schema.tag("PushError"),
  /** The stream, e.g. `"SpotPush.watchFills"`. */
  stream: Schema.String,
  reason: PushErrorReason
}) {
  /** The stream that failed, e.g. `"SpotPush.watchFills"`. */
  declare readonly stream: string
  /** What went wrong: one of `PushErrorReason`, told apart by its `_tag`. */
  declare readonly reason: PushErrorReason

  /** The `reason` again, as the standard `Error.cause`. */
  override readonly cause = reasonOf(this)

  override get message(): string {
    return `${this.stream}: ${this.reason.message}`
  }
}

/**
 * Whether a value is a `PushError`.
 *
 * @since 0.1.0
 * @category guards
 */
export const isPushError = (u: unknown): u is PushError => u instanceof PushError
