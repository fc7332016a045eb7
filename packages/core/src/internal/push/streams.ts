// The streams of `SpotPush`, each a feed of the registry (one per channel, or the private session) on a hub of
// connections, its consumers' queues behind the overflow: built from the service's parts (`Streams`), and typed here
// as `SpotPush.Service` declares them (the service is checked against its interface where it is assembled).
import { Effect, Stream } from "effect"
import type { Scope } from "effect"
import type * as Market from "../../Market.ts"
import * as Push from "../../Push.ts"
import * as PushError from "../../PushError.ts"
import type * as PushModel from "../../PushModel.ts"
import type * as Signer from "../../Signer.ts"
import type { SpotClient } from "../../SpotClient.ts"
import * as SpotError from "../../SpotError.ts"
import { history as candlePages, shortestPeriod } from "../client/market.ts"
import type { Continuity } from "./book.ts"
import { BookFeed, TickerFeed } from "./feeds.ts"
import type { Sink } from "./feeds.ts"
import { credentialsRefusal } from "./handshake.ts"
import type { Hub } from "./hub.ts"
import * as MarketFeeds from "./market.ts"
import type { BookEvent, Event } from "./model.ts"
import type { Overflow } from "./overflow.ts"
import * as Private from "./private.ts"
import { restOf } from "./privateRest.ts"
import type { Registry } from "./registry.ts"
import { checkSymbols, invalid, listedSymbols } from "./symbols.ts"
import type * as PushTelemetry from "./telemetry.ts"

/** The options of a private stream (`SpotPush.PrivateOptions`). */
export interface PrivateOptions {
  readonly symbols?: Iterable<string> | undefined
}

/** What the streams are built from: the service's parts (`SpotPush.make`). */
export interface Streams {
  /** The API key's credentials, for the private channels (`Options.credentials`). */
  readonly credentials: Signer.Credentials | undefined
  /** The options, resolved (`SpotPush.make`). */
  readonly resolved: {
    readonly capacity: number
    readonly ackTimeoutMillis: number
    readonly backfillBuffer: number
  }
  readonly hubs: { readonly public: Hub; readonly private: Hub }
  readonly client: SpotClient["Service"]
  /**
   * The venue's time asked (best effort, until it has answered once) before a session's start is read on the venue's
   * clock: a program that only reads pushes may have no other answer to learn it from. Answers whether it answered.
   */
  readonly synced: Effect.Effect<boolean>
  readonly now: () => number
  readonly emit: (event: Event) => void
  readonly registry: Registry
  /** Where what a consumer's queue has no room for waits (`overflow.ts`). */
  readonly overflow: Overflow
  /** How the venue's depth changes follow each other, learned once for all books (`book.ts`). */
  readonly continuity: Continuity
  /** The service's metrics: what no event says (a book consumer's lag, the backfills' outcomes). */
  readonly telemetry: PushTelemetry.Reporter
}

const stream = <A>(
  name: string,
  sink: Effect.Effect<Sink<A>, PushError.PushErrorReason, Scope.Scope>
): Stream.Stream<A, PushError.PushError> =>
  Stream.unwrap(Effect.map(sink, (queue) => Stream.fromQueue(queue))).pipe(
    Stream.mapError((reason) => new PushError.PushError({ stream: name, reason }))
  )

// A public stream's symbol: a trading pair the venue lists (the client's cached symbol rules). A venue may acknowledge
// a channel of a symbol it does not list and never push on it: the stream would wait forever, silently.
const listedSymbol = (client: SpotClient["Service"]) => (symbol: string) =>
  Effect.flatMap(checkSymbols([symbol]), (symbols) => listedSymbols(client, symbols))

/** `watchBook` and `watchTicker`: a feed per channel of the public connections, shared by its consumers. */
export const publicStreams = ({ client, continuity, emit, hubs, overflow, registry, resolved, telemetry }: Streams) => {
  const listed = listedSymbol(client)
  return {
    watchBook: (
      symbol: string,
      options?: { readonly depth?: Push.DepthLevel | undefined }
    ): Stream.Stream<BookEvent, PushError.PushError> => {
      const depth = options?.depth ?? 15
      const channel = Push.channels.depth(symbol, depth)
      return stream(
        "SpotPush.watchBook",
        Effect.andThen(
          // A depth the venue has, checked when the stream starts (a caller's number or string typed as one would
          // subscribe a channel the venue refuses, or take `"15"` for 15).
          depth === 15 || depth === 200
            ? listed(symbol)
            : Effect.andThen(invalid("depth", `must be 15 or 200, not ${JSON.stringify(depth)}`), listed(symbol)),
          registry.use<BookFeed, BookEvent>({
            key: channel,
            hub: hubs.public,
            channels: [channel],
            create: (release) =>
              new BookFeed(
                symbol,
                depth,
                release,
                emit,
                resolved.ackTimeoutMillis,
                overflow,
                () => telemetry.lagged(),
                continuity
              ),
            join: (feed, sink) => feed.attach(sink),
            leave: (feed, sink) => feed.detach(sink)
          })
        )
      )
    },
    watchTicker: (symbol: string): Stream.Stream<Push.Ticker, PushError.PushError> => {
      const channel = Push.channels.ticker(symbol)
      return stream(
        "SpotPush.watchTicker",
        Effect.andThen(
          listed(symbol),
          registry.use<TickerFeed, Push.Ticker>({
            key: channel,
            hub: hubs.public,
            channels: [channel],
            create: (release) => new TickerFeed(release),
            join: (feed, sink) => feed.attach(sink),
            leave: (feed, sink) => feed.detach(sink),
            latest: true
          })
        )
      )
    }
  }
}

/** The private streams: one session (`private.ts`) of the private connection, shared by all of them. */
export const privateStreams = (
  { client, credentials, emit, hubs, now, overflow, registry, resolved, synced, telemetry }: Streams
) => {
  const rest = restOf(client)
  const session = <A>(
    name: string,
    privateOptions: PrivateOptions | undefined,
    join: (session: Private.PrivateSession, sink: Sink<A>) => void,
    sinks: (session: Private.PrivateSession) => Set<Sink<A>>
  ): Stream.Stream<A, PushError.PushError> =>
    stream(
      name,
      Effect.gen(function*() {
        // The stream's start, as it is first pulled: the session's fills count from it (on the venue's clock). Taken
        // before the checks below ask REST anything, so that an order placed while they run is not before it.
        const startedAt = now()
        if (credentials === undefined) {
          return yield* invalid("credentials", "the private channels need the API key's credentials")
        }
        const refusal = credentialsRefusal(credentials)
        if (refusal !== undefined) return yield* refusal
        const symbols = yield* checkSymbols(privateOptions?.symbols ?? [])
        yield* listedSymbols(client, symbols)
        yield* synced
        const offset = yield* client.clockOffset
        return yield* registry.use<Private.PrivateSession, A>({
          key: "private",
          hub: hubs.private,
          channels: Private.CHANNELS,
          create: (release) =>
            new Private.PrivateSession({
              rest,
              since: Math.round(startedAt + offset),
              symbols,
              capacity: resolved.capacity,
              overflow,
              bufferLimit: resolved.backfillBuffer,
              overlapMillis: 5_000,
              retentionMillis: 600_000,
              now,
              clockOffset: client.clockOffset,
              emit,
              onFailed: release(),
              onBackfilled: (outcome) => telemetry.backfilled("private", outcome)
            }),
          join: (session, sink) => {
            join(session, sink)
            return session.addSymbols(symbols, sink)
          },
          leave: (session, sink) => {
            sinks(session).delete(sink)
            session.detach(sink)
          }
        })
      })
    )
  return {
    watchOrders: (privateOptions?: PrivateOptions): Stream.Stream<PushModel.OrderUpdate, PushError.PushError> =>
      session("SpotPush.watchOrders", privateOptions, (s, sink) => s.attachOrders(sink), (s) => s.orderSinks),
    watchFills: (privateOptions?: PrivateOptions): Stream.Stream<PushModel.Fill, PushError.PushError> =>
      session("SpotPush.watchFills", privateOptions, (s, sink) => s.fillSinks.add(sink), (s) => s.fillSinks),
    watchBalances: (privateOptions?: PrivateOptions): Stream.Stream<PushModel.Balance, PushError.PushError> =>
      session("SpotPush.watchBalances", privateOptions, (s, sink) => s.attachBalances(sink), (s) => s.balanceSinks)
  }
}

// A count one REST answer gives (`limit`: an integer from 1 to 1000), checked when the stream starts.
const restLimit = (field: string, value: number): Effect.Effect<void, SpotError.ValidationError> =>
  Number.isInteger(value) && value >= 1 && value <= 1000
    ? Effect.void
    : invalid(field, `must be an integer from 1 to 1000, not ${String(value)}`)

// A candle period the venue has (`Market.CandlePeriod`), checked when the stream starts: a caller's string typed as one
// (a period read from configuration) would subscribe a channel named `...undefined`, which the venue refuses only after
// it cost the connection two of its operations.
const knownPeriod = (period: string): Effect.Effect<void, SpotError.ValidationError> =>
  Object.hasOwn(Push.klineIntervals, period)
    ? Effect.void
    : invalid("period", `must be one of ${Object.keys(Push.klineIntervals).join(", ")}`)

// The bars one candles backfill reads back at most: half a consumer's buffer (the bars go to it at once, with the
// pushes kept meanwhile after them), and at most ten pages.
const maxBackfillBars = (capacity: number): number => Math.max(1, Math.min(10_000, Math.floor(capacity / 2)))

/** `watchTrades` and `watchCandles`: a feed per channel whose gaps after a reconnection REST closes (`market.ts`). */
export const marketStreams = (
  { client, emit, hubs, now, overflow, registry, resolved, synced, telemetry }: Streams
) => ({
  watchTrades: (
    symbol: string,
    options?: { readonly backfillLimit?: number | undefined }
  ): Stream.Stream<MarketFeeds.PublicTrade, PushError.PushError> => {
    const channel = Push.channels.trades(symbol)
    const limit = options?.backfillLimit ?? 100
    return stream(
      "SpotPush.watchTrades",
      Effect.gen(function*() {
        // Checked now: REST would refuse it only at the first subscription's backfill, after the stream started.
        yield* restLimit("backfillLimit", limit)
        yield* listedSymbol(client)(symbol)
        const answered = yield* synced
        const startedAt = now()
        const offset = yield* client.clockOffset
        // The start on the venue's clock, by the offset of the venue's answer; when the venue did not answer, by the
        // offset once it has (asked again when a backfill first needs the start): a machine's clock off by a minute
        // would miss, or deliver again, a minute of trades.
        const onVenueClock = (offset: number) => Math.round(startedAt + offset)
        const start = answered
          ? Effect.succeed(onVenueClock(offset))
          : Effect.andThen(synced, Effect.map(client.clockOffset, onVenueClock))
        return yield* registry.use<MarketFeeds.TradeFeed, MarketFeeds.PublicTrade>({
          key: channel,
          hub: hubs.public,
          channels: [channel],
          create: (release) => {
            const feed: MarketFeeds.TradeFeed = new MarketFeeds.TradeFeed({
              symbol,
              capacity: resolved.capacity,
              overflow,
              start,
              overlapMillis: 5_000,
              now,
              clockOffset: client.clockOffset,
              limit,
              onGap: (from, to) => emit({ _tag: "Gap", channel, from, to }),
              // The largest `backfillLimit` of the consumers, whoever created the stream.
              backfill: () => client.recentTrades(symbol, { limit: feed.limit }),
              onFailed: release,
              bufferLimit: resolved.backfillBuffer,
              onBackfilled: (outcome) => telemetry.backfilled("trades", outcome)
            })
            return feed
          },
          join: (feed, sink) => {
            feed.raiseLimit(limit)
            feed.attach(sink)
          },
          leave: (feed, sink) => feed.detach(sink)
        })
      })
    )
  },
  watchCandles: (
    symbol: string,
    period: Market.CandlePeriod,
    options?: { readonly history?: number | undefined }
  ): Stream.Stream<MarketFeeds.CandleUpdate, PushError.PushError> => {
    const channel = Push.channels.kline(symbol, Push.klineIntervals[period])
    const history = options?.history ?? 1
    // After a reconnection: every bar from the latest delivered (its final state) up to now on the venue's clock, paged
    // (one answer holds 100 by default, whether from the start or the end is the venue's). Bounded: every bar read back
    // goes to each consumer at once, so at most half a consumer's buffer of them (the rest for the pushes kept
    // meanwhile); older bars are not read back, and a `Gap` says which.
    const length = shortestPeriod[period]
    const readBack = (latest: number) =>
      Effect.gen(function*() {
        const offset = yield* client.clockOffset
        // A period past now: a bar opening as REST is asked is read too (the offset is an estimate).
        const until = Math.round(now() + offset) + length
        const from = Math.max(latest, until - maxBackfillBars(resolved.capacity) * length)
        // Windows that hold every bar whatever the venue's bounds and limits do (`candleHistory`'s): one request each,
        // more where the venue serves fewer bars than asked.
        const pages = candlePages(
          (query) => client.candles(symbol, period, query),
          { symbol, period },
          { since: from, until, pageSize: 1000 },
          // Failed as the call whose answers they were.
          (reason) => new SpotError.SpotError({ operation: "SpotClient.candles", reason })
        )
        const bars = yield* Stream.runCollect(pages)
        if (from > latest) emit({ _tag: "Gap", channel, from: latest, to: from - 1 })
        return bars
      })
    return stream(
      "SpotPush.watchCandles",
      Effect.andThen(
        Effect.andThen(
          Effect.andThen(knownPeriod(period), restLimit("history", history)),
          listedSymbol(client)(symbol)
        ),
        registry.use<MarketFeeds.CandleFeed, MarketFeeds.CandleUpdate>({
          key: channel,
          hub: hubs.public,
          channels: [channel],
          create: (release) =>
            new MarketFeeds.CandleFeed({
              symbol,
              period,
              capacity: resolved.capacity,
              overflow,
              backfill: (latest) =>
                latest === undefined ? client.candles(symbol, period, { limit: history }) : readBack(latest),
              onFailed: release,
              bufferLimit: resolved.backfillBuffer,
              onBackfilled: (outcome) => telemetry.backfilled("candles", outcome),
              now,
              clockOffset: client.clockOffset
            }),
          // A consumer joining a running stream and asking more than its current bar: its bars read for it, then it
          // joins (the stream's creator has its own from the first backfill).
          join: (feed, sink) =>
            history <= 1 || !feed.started ? feed.attach(sink) : Effect.map(
              Effect.mapError(
                client.candles(symbol, period, { limit: history }),
                (error) => new PushError.BackfillError({ error })
              ),
              (answered) => feed.attachWith(sink, history, answered)
            ),
          leave: (feed, sink) => feed.detach(sink)
        })
      )
    )
  }
})
