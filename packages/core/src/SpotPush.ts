/**
 * Push streams: what the venue pushes over WebSocket, as lazy `Stream`s: the account's orders, fills and balances once
 * each across reconnects (for the symbols in play), a book never across a gap, trades at least once with the gaps
 * told on `events`.
 *
 * - `watchBook(symbol)`: a consistent order book, rebuilt from the channel's snapshot and versioned changes. A gap in
 *   the versions, an undecodable message or a reconnect is announced as a `Resync` element and the book is rebuilt
 *   from a new snapshot: no book is ever delivered across a gap (a stale change, one the book already holds, is
 *   skipped; one inside the last change applied says that change claimed an end the venue had not reached, a gap). Whether a change starts at the previous one's end or one after it is learned from the venue's first
 *   changes in a row, so a lost change covering one version is a gap too (docs/venue/push.md). A subscription with
 *   no snapshot within `ackTimeout` of its
 *   acknowledgement is subscribed again; three in a row fail the stream (`SnapshotTimeoutError`).
 * - `watchTicker(symbol)`: the latest ticker (a slow consumer gets the latest one).
 * - `watchTrades(symbol)`, `watchCandles(symbol, period)`: the market's trades and candles; after a reconnection the
 *   gap is closed by the market-data REST calls (trades at least once: the venue's pushes carry no trade id, so a
 *   trade frame the venue sends twice is delivered twice).
 * - `watchOrders`, `watchFills`, `watchBalances`: the private channels, gap-free. After every (re)connection the gap
 *   is closed by REST through the `SpotClient` (balances; the open orders, recent orders and fills of the symbols in
 *   play; each order whose outcome is unknown) before pushes resume, and everything is merged: a fill once by its id,
 *   an order only forward (its filled quantity never goes back, a final state sticks), a balance when it changed.
 *
 * A stream's symbol must be one the venue lists (the client's cached symbol rules, when they can be read): another
 * fails the stream with a `ValidationError` before anything is subscribed, as a venue may acknowledge a channel of a
 * symbol it does not list and never push on it.
 *
 * Connections are shared and managed: a channel goes on a connection with room (at most 100 channels, 240
 * subscribe or unsubscribe operations an hour each), connections are dialled again with jittered exponential backoff
 * within the venue's connection-attempt budget (kept in the `RateLimitStore`, so Redis shares it between
 * processes), private handshakes are signed afresh on every connection with the venue's time asked then, pings are
 * answered, and a connection that delivers nothing for `idleTimeout` is replaced. A stream's subscription lives as long
 * as the stream is pulled: nothing stays behind when its consumer stops.
 *
 * What the connections do is measured: `Telemetry`'s push metrics (attempts by outcome, connections open, reconnects by
 * reason, resyncs, backfills by outcome, gaps, messages per channel kind) and a `SpotPush.connect` span per connection
 * attempt.
 *
 * Needs a `SpotClient` (the clock offset, the REST backfill) and a `Socket.WebSocketConstructor` (`@spotkit/node`'s
 * `NodeSpotPush` provides one with read back-pressure). In a browser, public channels work; private ones fail with a
 * `HeadersUnsupportedError`, as a browser cannot send the handshake headers they need. Credentials the venue refuses
 * (a wrong secret, a revoked key) fail the private streams with `CredentialsRefusedError`: after a private handshake
 * that does not open, or a private connection that ends with no subscription acknowledged, a signed REST call (the balances, with the `SpotClient`'s credentials) says whether the venue
 * refuses them; otherwise the refusal is taken as transient and the connection dialled again.
 *
 * @since 0.1.0
 */
import { Clock, Context, Duration, Effect, Layer, Option, PubSub, Redacted, Stream } from "effect"
import type { Scope } from "effect"
import * as Socket from "effect/socket/Socket"
import { hostOf } from "./internal/client/budget.ts"
import { Continuity } from "./internal/push/book.ts"
import { nowFunction } from "./internal/push/connection.ts"
import type { AttemptPermit, Settings } from "./internal/push/connection.ts"
import { credentialsRefused, makeSocket, privateHeaders, serverTimeOnce } from "./internal/push/handshake.ts"
import { Count, Hub } from "./internal/push/hub.ts"
import { makeOverflow } from "./internal/push/overflow.ts"
import { Registry } from "./internal/push/registry.ts"
import * as Streams from "./internal/push/streams.ts"
import * as PushTelemetry from "./internal/push/telemetry.ts"
import { urlName, VenueText } from "./internal/push/venueText.ts"
import type * as Market from "./Market.ts"
import * as Push from "./Push.ts"
import type * as PushError from "./PushError.ts"
import type * as PushModel from "./PushModel.ts"
import * as RateLimitStore from "./RateLimitStore.ts"
import { passphraseOf, printable } from "./SafeText.ts"
import type * as Signer from "./Signer.ts"
import { SpotClient } from "./SpotClient.ts"
import type * as SpotError from "./SpotError.ts"
import * as Venue from "./Venue.ts"

// ---------------------------------------------------------------------------------------------------------------
// Models: the elements, defined (with their fields) in the public `PushModel`, which the internal modules use too.

/**
 * One price level of a book: `PushModel.Level`.
 *
 * @since 0.1.0
 * @category models
 */
export type Level = PushModel.Level

/**
 * A consistent order book at one `version`: `PushModel.OrderBook`.
 *
 * @since 0.1.0
 * @category models
 */
export type OrderBook = PushModel.OrderBook

/**
 * Why a book is being rebuilt: `PushModel.ResyncReason`.
 *
 * @since 0.1.0
 * @category models
 */
export type ResyncReason = PushModel.ResyncReason

/**
 * An element of `watchBook`, a `Book` or a `Resync` notice: `PushModel.BookEvent`.
 *
 * @since 0.1.0
 * @category models
 */
export type BookEvent = PushModel.BookEvent

/**
 * An element of `watchFills`, one fill of the account's orders: `PushModel.Fill`.
 *
 * @since 0.1.0
 * @category models
 */
export type Fill = PushModel.Fill

/**
 * An element of `watchOrders`, an order's state after a change: `PushModel.OrderUpdate`.
 *
 * @since 0.1.0
 * @category models
 */
export type OrderUpdate = PushModel.OrderUpdate

/**
 * An element of `watchBalances`, one coin of the spot account after a change: `PushModel.Balance`.
 *
 * @since 0.1.0
 * @category models
 */
export type Balance = PushModel.Balance

/**
 * An element of `watchTrades`, a trade of the market: `PushModel.PublicTrade`.
 *
 * @since 0.1.0
 * @category models
 */
export type PublicTrade = PushModel.PublicTrade

/**
 * An element of `watchTicker`, a symbol's ticker as the venue pushed it: `Push.Ticker` (the REST ticker's field names).
 *
 * @since 0.1.0
 * @category models
 */
export type Ticker = Push.Ticker

/**
 * An element of `watchCandles`, a candle after a change: `PushModel.CandleUpdate`.
 *
 * @since 0.1.0
 * @category models
 */
export type CandleUpdate = PushModel.CandleUpdate

/**
 * An element of `events`, what happens to the connections: `PushModel.Event`.
 *
 * @since 0.1.0
 * @category models
 */
export type Event = PushModel.Event

// ---------------------------------------------------------------------------------------------------------------
// Options

/**
 * @since 0.1.0
 * @category options
 */
export interface Options {
  /**
   * The push base URL, e.g. `"wss://ws-spot.weex.com"`; the endpoints' paths (`Push.paths`) are appended. A URL that
   * already ends in one of them (`wss://ws-spot.weex.com/v2/ws/public`) is taken for its base.
   */
  readonly url: string
  /**
   * The API key's credentials, for the private channels: the same account as the `SpotClient`'s, through which the
   * session reads back what it missed (another account's fills would be taken for this one's).
   */
  readonly credentials?: Signer.Credentials | undefined
  /** Sent as `User-Agent` on every connection. @default "spotkit" */
  readonly userAgent?: string | undefined
  /**
   * Further secrets that no event, log line or error of the streams shows: removed from every text of the network
   * they quote (a close reason, a transport's message), in every form the credentials are (`SafeText.Scrubber`). For
   * what the connections carry besides the credentials, e.g. a proxy's password; `NodeSpotPush.layer` adds its
   * proxy's itself. @default none
   */
  readonly secrets?: ReadonlyArray<string | Redacted.Redacted<string>> | undefined
  /** A connection that delivers no frame at all (data or ping) this long is replaced. @default 60 seconds */
  readonly idleTimeout?: Duration.Input | undefined
  /**
   * How long a subscription waits for its acknowledgement, and a depth subscription then for its snapshot (else it is
   * subscribed again). @default 5 seconds
   */
  readonly ackTimeout?: Duration.Input | undefined
  /** How long a connection may take to open. @default 10 seconds */
  readonly openTimeout?: Duration.Input | undefined
  /** Reconnect backoff: exponential from `initial` to `max`, full jitter, reset after `resetAfter` of a healthy connection. */
  readonly backoff?:
    | {
      /** @default 500 millis */
      readonly initial?: Duration.Input | undefined
      /** @default 30 seconds */
      readonly max?: Duration.Input | undefined
      /** @default 60 seconds */
      readonly resetAfter?: Duration.Input | undefined
    }
    | undefined
  /**
   * Each consumer's queue, in elements. What one read of the socket holds is handed to the consumers at once, before a
   * consumer can take any of it, so a full queue is no failure by itself: what has no room waits behind it, in order,
   * and is handed over as the consumer takes, while the connection and the other consumers go on. A consumer that
   * keeps up so gets a burst of any size whole (a book consumer: what its queue held, then the latest book, the ones
   * between skipped as each element is a whole book). One that leaves an element waiting longer than
   * `slowConsumerAfter` for room is behind: a book consumer gets a `Resync` ("lag") and the latest book; a consumer of
   * orders, fills, balances, trades or candles fails with `SlowConsumerError`, after what its queue held (nothing is
   * dropped silently). A private backfill's records (or a joining stream's open orders and balances) beyond it wait
   * for room with no such limit, and the pushes for that consumer after them wait behind: more than `backfillBuffer`
   * of those fail it.
   * @default 4096
   */
  readonly bufferSize?: number | undefined
  /**
   * How long an element may wait for room in a consumer's queue (see `bufferSize`) before the consumer is behind.
   * Longer lets a consumer pause longer (a slow write, a collection pause), with what comes meanwhile held in memory;
   * zero makes a consumer behind as soon as its queue is full. A finite duration: an infinite one (which would hold
   * what a blocked consumer never takes, without bound) or a negative one is a defect (a `RangeError`) when the
   * service is made.
   * @default 1 second
   */
  readonly slowConsumerAfter?: Duration.Input | undefined
  /**
   * Pushes buffered while a backfill runs (the private session's, a trade or candle stream's after a reconnection);
   * beyond, the backfill runs again: the private session's connection is replaced, a trade or candle channel alone is
   * subscribed again. A positive integer: anything else is a defect (a `RangeError`) when the service is made.
   * @default 100000
   */
  readonly backfillBuffer?: number | undefined
  /**
   * Connections at most, public and private together (the venue's limit is per address; connections of other services
   * or programs on the address are not seen, so leave them room). A channel beyond fails its stream with
   * `ConnectionLimitError`. @default 100 (the venue's limit per address)
   */
  readonly maxConnections?: number | undefined
  /** The venue's limits, if they differ from `Push.limits`. */
  readonly limits?:
    | {
      readonly connectionAttempts?: { readonly limit: number; readonly windowMillis: number } | undefined
      readonly operations?: { readonly limit: number; readonly windowMillis: number } | undefined
      readonly channelsPerConnection?: number | undefined
    }
    | undefined
  /**
   * The name of the address's connection-attempt budget in a shared `RateLimitStore`: processes that reach the venue
   * from one address share it (the budget's key also names the push URL's host, so that clients of two venues on one
   * store keep apart). @default "default"
   */
  readonly address?: string | undefined
  /** Bytes a connection buffers before it stops reading (where the WebSocket can pause). @default 65536 */
  readonly highWaterMark?: number | undefined
}

/**
 * Options of the private streams.
 *
 * @since 0.1.0
 * @category options
 */
export interface PrivateOptions {
  /**
   * The symbols whose open orders and fills the backfill asks for after a reconnect (REST needs a symbol); symbols
   * seen in pushes are added (a trading pair's form only; one REST then refuses for good, such as a delisted pair, is
   * no longer read, with a warning logged, and its pushes are still delivered). A stream that joins a running private
   * session with a symbol whose open orders were not read on its connection has them read then (the session's other
   * pushes are not held meanwhile). A symbol new to the session (none of its events seen yet) also has its orders
   * created and fills made since the session's start read then, for every stream: the outages the session caught up
   * before it joined were read back without it. A symbol the venue
   * does not list (the client's symbol rules) fails that stream with a `ValidationError` before it joins; while the
   * rules cannot be read, it joins unchecked, and REST's refusal of it fails that stream alone (with a
   * `BackfillError`), not the session the other private streams share.
   */
  readonly symbols?: Iterable<string> | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /** A consistent book of a symbol (`depth` 15 or 200 levels, default 15). */
  readonly watchBook: (
    symbol: string,
    options?: { readonly depth?: Push.DepthLevel | undefined }
  ) => Stream.Stream<BookEvent, PushError.PushError>
  /**
   * The ticker of a symbol each time the venue pushes one (on a change; nothing before the first: ask
   * `SpotClient.ticker` for the current one). A slow consumer gets the latest.
   */
  readonly watchTicker: (symbol: string) => Stream.Stream<Ticker, PushError.PushError>
  /**
   * The market's trades of a symbol from now on. After each subscription (the first too: it may be acknowledged long
   * after the stream started, the venue unreachable a while) the recent trades from REST (`backfillLimit`, an
   * integer from 1 to 1000, default 100; another fails the stream with a `ValidationError` when it starts; the largest
   * of the stream's consumers is asked) close the gap, merged with what was delivered: pushes carry no trade id, so
   * trades identical in time, price, size and side within a few seconds count as one, and a disconnection longer than
   * `backfillLimit` trades can miss some (at least once, not exactly once): when REST's answer is full and does not
   * reach back before the latest trade delivered, a `Gap` on `events` names the span. A frame the venue sends twice is
   * delivered twice: nothing tells it from two trades alike in every field (a taker filled by two makers of one size at
   * one price in one millisecond), and dropping it could lose a trade. A consumer that falls behind (see `bufferSize`)
   * fails with `SlowConsumerError`.
   */
  readonly watchTrades: (
    symbol: string,
    options?: { readonly backfillLimit?: number | undefined }
  ) => Stream.Stream<PublicTrade, PushError.PushError>
  /**
   * The candles of a symbol and period as they change: first the latest `history` bars (an integer from 1 to 1000,
   * default 1, the current one; another fails the stream with a `ValidationError` when it starts) from REST (a
   * consumer joining a stream already running gets its own: the bars before those the stream keeps read for it), then
   * every change; after a reconnection the bars since the latest delivered up to now from REST, read page by page, at
   * most half of `bufferSize` of them (the newest: a longer outage's older bars are named by a `Gap` on `events`). A
   * bar is delivered when it changed. Nothing marks a bar final, and its final state may come after the next bar's
   * first push: a change of any of the newest three bars is delivered; a push of an older bar is late, and is not. A
   * copy of a bar with less base volume than the one delivered (REST answering an older state after a reconnection) is
   * not delivered: a bar only gains volume. A consumer that falls behind (see `bufferSize`) fails with
   * `SlowConsumerError`.
   */
  readonly watchCandles: (
    symbol: string,
    period: Market.CandlePeriod,
    options?: { readonly history?: number | undefined }
  ) => Stream.Stream<CandleUpdate, PushError.PushError>
  /** Every change of the account's orders from now on, once each; the open orders first. */
  readonly watchOrders: (options?: PrivateOptions) => Stream.Stream<OrderUpdate, PushError.PushError>
  /**
   * Every fill of the account's orders from the private session's start on, once each: from when the first private
   * stream of the session was first run (not when it was built: fork it with `{ startImmediately: true }`, or start
   * it, before placing the orders whose fills it must hear).
   */
  readonly watchFills: (options?: PrivateOptions) => Stream.Stream<Fill, PushError.PushError>
  /** Every change of the spot account's balances, the current ones first. */
  readonly watchBalances: (options?: PrivateOptions) => Stream.Stream<Balance, PushError.PushError>
  /** What happens to the connections, for monitoring (the latest 1024 kept for a slow consumer). */
  readonly events: Stream.Stream<Event>
}

/**
 * @since 0.1.0
 * @category services
 */
export class SpotPush extends Context.Service<SpotPush, Service>()("@spotkit/core/SpotPush") {}

// ---------------------------------------------------------------------------------------------------------------
// Construction

const millis = (input: Duration.Input | undefined, fallback: Duration.Input): number =>
  Duration.toMillis(Duration.fromInputUnsafe(input ?? fallback))

interface Resolved {
  readonly base: string
  readonly userAgent: string
  readonly idleTimeoutMillis: number
  readonly ackTimeoutMillis: number
  readonly openTimeoutMillis: number
  readonly capacity: number
  readonly backfillBuffer: number
  readonly settings: (endpoint: Push.Endpoint) => Settings
  readonly maxConnections: number
  readonly channelsPerConnection: number
}

const resolve = (
  options: Options,
  attempt: Effect.Effect<AttemptPermit, SpotError.RateLimitStoreError>,
  emit: (event: Event) => void,
  text: VenueText,
  telemetry: PushTelemetry.Reporter
): Resolved => {
  const idleTimeoutMillis = millis(options.idleTimeout, Duration.seconds(60))
  const ackTimeoutMillis = millis(options.ackTimeout, Duration.seconds(5))
  const backoff = {
    initialMillis: millis(options.backoff?.initial, Duration.millis(500)),
    maxMillis: millis(options.backoff?.max, Duration.seconds(30)),
    resetAfterMillis: millis(options.backoff?.resetAfter, Duration.seconds(60))
  }
  const operations = options.limits?.operations ?? Push.limits.operations
  return {
    // A URL given with an endpoint's path (as the venue's documents list the endpoints) is the base it ends in: the
    // path appended again was a 404 for ever.
    base: options.url.replace(/\/+$/, "").replace(/\/v2\/ws\/(?:public|private)$/, ""),
    userAgent: options.userAgent ?? "spotkit",
    idleTimeoutMillis,
    ackTimeoutMillis,
    openTimeoutMillis: millis(options.openTimeout, Duration.seconds(10)),
    capacity: Math.max(2, options.bufferSize ?? 4096),
    backfillBuffer: options.backfillBuffer ?? 100_000,
    maxConnections: options.maxConnections ?? Push.limits.connections,
    channelsPerConnection: options.limits?.channelsPerConnection ?? Push.limits.channelsPerConnection,
    settings: (endpoint) => ({
      endpoint,
      idleTimeout: Duration.millis(idleTimeoutMillis),
      ackTimeoutMillis,
      backoff,
      operations,
      attempt,
      emit,
      text,
      telemetry
    })
  }
}

/**
 * Builds the push service; needs a `SpotClient`, a `Socket.WebSocketConstructor` and a `Scope` (the connections
 * close with it). Uses the `RateLimitStore` in context for the connection-attempt budget, or one of its own.
 *
 * What the venue says (an error frame's `code` and `msg`, a close reason, a socket error) is scrubbed of the
 * credentials, of the handshake signatures sent and of the URL's user information and query before it reaches a
 * `PushError`, an `Event` or a log line, and is quoted as a printable line (`SafeText`). A URL that is not `ws://` or
 * `wss://` is a defect (a `RangeError` naming it without user information, query or fragment), as is a `userAgent` no
 * header can carry (`Venue.headerValueProblem`) or a `backfillBuffer` that is not a positive integer; an API key or
 * passphrase no header can carry fails each private stream with a `ValidationError`, before any connection is made.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: (
  options: Options
) => Effect.Effect<Service, never, SpotClient | Socket.WebSocketConstructor | Scope.Scope> = Effect.fnUntraced(
  function*(
    options: Options
  ) {
    if (!/^wss?:\/\/[^\s/?#]+/.test(options.url)) {
      return yield* Effect.die(
        new RangeError(`url must be a ws:// or wss:// URL, not ${JSON.stringify(printable(urlName(options.url), 200))}`)
      )
    }
    const userAgentProblem = Venue.headerValueProblem(options.userAgent ?? "spotkit")
    if (userAgentProblem !== undefined) return yield* Effect.die(new RangeError(`userAgent ${userAgentProblem}`))
    // A buffer of none (or of a part of a push) would overflow at every push: the backfill would start over for good.
    const backfillBuffer = options.backfillBuffer
    if (backfillBuffer !== undefined && !(Number.isSafeInteger(backfillBuffer) && backfillBuffer >= 1)) {
      return yield* Effect.die(
        new RangeError(`backfillBuffer must be a positive integer, not ${String(backfillBuffer)}`)
      )
    }
    // Effect reads NaN as zero: a NaN given is a mistake, refused as one.
    const slowConsumerAfter = Duration.fromInput(options.slowConsumerAfter ?? Duration.seconds(1)).pipe(
      Option.filter((duration) => Duration.isFinite(duration) && !Number.isNaN(options.slowConsumerAfter)),
      Option.map(Duration.toMillis),
      Option.filter((millis) => millis >= 0)
    )
    if (Option.isNone(slowConsumerAfter)) {
      return yield* Effect.die(
        new RangeError(
          `slowConsumerAfter must be a finite duration of zero or more, not ${String(options.slowConsumerAfter)}`
        )
      )
    }
    const text = new VenueText({
      url: options.url,
      secrets: [
        ...(options.credentials === undefined ? [] : [
          Redacted.value(options.credentials.apiKey),
          Redacted.value(options.credentials.secretKey)
        ]),
        ...(options.secrets ?? []).map((secret) => Redacted.isRedacted(secret) ? Redacted.value(secret) : secret)
      ],
      labelled: options.credentials === undefined ? [] : passphraseOf(options.credentials)
    })
    const scope = yield* Effect.scope
    const client = yield* SpotClient
    const construct = yield* Socket.WebSocketConstructor
    // Durations (the connections' limits) on the monotonic clock; the start of a stream on the venue's clock by the wall
    // clock and the offset, as the venue's time is learned.
    const elapsed = yield* nowFunction
    const now = yield* Clock.clockWith((clock) => Effect.succeed(() => clock.currentTimeMillisUnsafe()))
    const events = yield* PubSub.sliding<Event>(1024)
    // The metrics of the context the service is made in (its layer's): the events come from synchronous code.
    const telemetry = yield* PushTelemetry.current
    const emit = (event: Event): void => {
      telemetry.event(event)
      PubSub.publishUnsafe(events, event)
    }
    const found = yield* Effect.serviceOption(RateLimitStore.RateLimitStore)
    const store = found._tag === "Some" ? found.value : yield* RateLimitStore.makeMemory
    const budget = options.limits?.connectionAttempts ?? Push.limits.connectionAttempts
    const openTimeoutMillis = millis(options.openTimeout, Duration.seconds(10))
    const attempt = store.acquire({
      endpoint: undefined,
      // Named by the venue's host, as REST's budgets are: clients of two venues on one store never hold each other up.
      shared: [{ key: `push:${hostOf(options.url)}:${options.address ?? "default"}`, ...budget, weight: 1 }],
      leaseMillis: openTimeoutMillis + 5_000
    })
    const resolved = resolve(options, attempt, emit, text, telemetry)
    let ids = 0
    // A private handshake that does not open (or a connection ended before any acknowledgement) may be the venue
    // refusing the key: REST, signed, says whether it is.
    const refused = options.credentials === undefined ? undefined : credentialsRefused(client)
    // One count for both endpoints: the venue's limit is on the connections of an address, public and private alike.
    const count = new Count()
    const hubOf = (endpoint: Push.Endpoint, headers: Effect.Effect<Record<string, string>>) =>
      new Hub({
        settings: { ...resolved.settings(endpoint), credentialsRefused: endpoint === "private" ? refused : undefined },
        socket: Effect.suspend(() =>
          makeSocket(construct, resolved.base + Push.paths[endpoint], endpoint, headers, {
            openTimeoutMillis,
            highWaterMark: options.highWaterMark
          })
        ),
        scope,
        now: elapsed,
        maxConnections: resolved.maxConnections,
        count,
        channelsPerConnection: resolved.channelsPerConnection,
        nextId: () => ++ids
      })
    const userAgent = { [Push.headers.userAgent]: resolved.userAgent }
    const hubs = {
      public: hubOf("public", Effect.succeed(userAgent)),
      private: hubOf(
        "private",
        options.credentials === undefined
          ? Effect.succeed(userAgent)
          : yield* privateHeaders(options.credentials, resolved.userAgent, text)
      )
    }
    const synced = serverTimeOnce(client)
    // What a consumer's queue has no room for waits, delivered on fibers of the service's context (its clock).
    const overflow = yield* makeOverflow(slowConsumerAfter.value)
    const continuity = new Continuity()
    const registry = new Registry(resolved.capacity, overflow)
    // Closing, the service ends its consumers' streams and `events`, interrupted: a stream consumed outside the
    // service's scope would otherwise wait for ever once its connections are gone.
    yield* Effect.addFinalizer(() => Effect.andThen(Effect.sync(() => registry.close()), PubSub.shutdown(events)))
    const context: Streams.Streams = {
      credentials: options.credentials,
      resolved,
      hubs,
      client,
      synced,
      now,
      emit,
      registry,
      overflow,
      continuity,
      telemetry
    }
    return SpotPush.of({
      ...Streams.publicStreams(context),
      ...Streams.marketStreams(context),
      ...Streams.privateStreams(context),
      events: Stream.fromPubSub(events)
    })
  }
)

/**
 * The push service as a layer; needs a `SpotClient` and a `Socket.WebSocketConstructor`. Its connections close with
 * the layer, and its streams end then, wherever they are consumed: each element stream interrupted (nothing more will
 * come to it; one started on the closed service too), `events` ended.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: Options
): Layer.Layer<SpotPush, never, SpotClient | Socket.WebSocketConstructor> => Layer.effect(SpotPush, make(options))
