// The client's operations on public market data: a symbol's ticker, every ticker, the order book, candles (one
// request, and a long range as a stream paged by time windows) and recent trades. Unsigned; each is validate → send →
// decode by the endpoint's declaration (call.ts), as a traced public operation failing with `SpotError`.
import { Clock, Effect, Option, Stream } from "effect"
import type * as Market from "../../Market.ts"
import * as SpotError from "../../SpotError.ts"
import * as Venue from "../../Venue.ts"
import { type Context, fail, send, validate } from "./call.ts"

const { candles: candlesEndpoint, depth, recentTrades: tradesEndpoint, ticker: tickerEndpoint, tickers: all } =
  Venue.endpoints

const MINUTE = 60_000
const DAY = 1_440 * MINUTE

/** The shortest length of a period (ms): months are at least 28 days. */
export const shortestPeriod: Readonly<Record<Market.CandlePeriod, number>> = {
  "1m": MINUTE,
  "5m": 5 * MINUTE,
  "15m": 15 * MINUTE,
  "30m": 30 * MINUTE,
  "1h": 60 * MINUTE,
  "2h": 120 * MINUTE,
  "4h": 240 * MINUTE,
  "6h": 360 * MINUTE,
  "8h": 480 * MINUTE,
  "12h": 720 * MINUTE,
  "1d": DAY,
  "1w": 7 * DAY,
  "1M": 28 * DAY
}

/** Answers about another request one request may get in a row before the stream fails. */
const ASKS = 3

/**
 * Candles of a range, ascending by open time, one request per time window. Each window is asked from a millisecond
 * before it, so that a venue whose `startTime` excludes the bound still answers a candle opening on it, to its end:
 * a span of `pageSize × the period's shortest length − 1 ms`, bounds included, which holds at most `pageSize` open
 * times, so the venue answers every candle of the window whether it counts `limit` from the start or from the end.
 * What it answers outside the window is dropped, so each candle of the range is yielded from exactly one window,
 * whether the venue's bounds are inclusive or not, and none is skipped.
 *
 * An answer that cannot be about the window asked — a candle newer than its end, or candles none of which is in it —
 * is another request's (a replayed answer) or the venue's bounds are not honoured: the request is asked again, and
 * after `ASKS` such answers in a row the stream fails with a `DecodeError`. An answer shorter than the `limit` asked
 * yet as long as the longest so far may be cut by a venue's cap on `limit`: the parts of the window on either side
 * of its candles that could hold an open time are asked too, the same way. The requests otherwise do not depend on
 * how many candles there are: a sparse range costs as many as a full one.
 */
export const history = <E, Symbol extends string = typeof Market.CandlesQuery.Type["symbol"]>(
  page: (
    query: {
      readonly symbol: Symbol
      readonly period: Market.CandlePeriod
      readonly startTime: number
      readonly endTime: number
      readonly limit: number
    }
  ) => Effect.Effect<ReadonlyArray<Market.Candle>, E>,
  query: { readonly symbol: Symbol; readonly period: Market.CandlePeriod },
  range: { readonly since: number; readonly until: number; readonly pageSize: number },
  /** The failure of a stream whose answers were about other requests, as the caller reports it. */
  garbled: (error: SpotError.DecodeError) => E
): Stream.Stream<Market.Candle, E> =>
  Stream.suspend(() => {
    const shortest = shortestPeriod[query.period]
    const width = range.pageSize * shortest - 2
    // The most candles one answer has held in this stream: a venue serving at most that many shows it by answering
    // that many again where more were asked.
    let longest = 0
    // The candles of [from, to), ascending; `asked` answers about another request so far.
    const candlesOf = (
      from: number,
      to: number,
      asked: number
    ): Effect.Effect<ReadonlyArray<Market.Candle>, E> =>
      Effect.flatMap(
        page({ ...query, startTime: Math.max(0, from - 1), endTime: to, limit: range.pageSize }),
        (candles) => {
          if (candles.length === 0) return Effect.succeed(candles)
          // Sorted by open time when decoded.
          const first = candles[0]!.openTime
          const last = candles[candles.length - 1]!.openTime
          if (last > to || !candles.some((candle) => candle.openTime >= from - 1)) {
            if (asked + 1 < ASKS) return candlesOf(from, to, asked + 1)
            return Effect.fail(garbled(
              new SpotError.DecodeError({
                kind: "schema",
                description: `candles opening ${from - 1} to ${to} were asked and ${ASKS} answers in a row held ` +
                  `others (the last ${first} to ${last}): the venue does not honour startTime/endTime, or answers ` +
                  `another request`,
                excerpt: ""
              })
            ))
          }
          const inWindow = candles.filter((candle) => candle.openTime >= from && candle.openTime < to)
          longest = Math.max(longest, candles.length)
          if (candles.length >= range.pageSize || candles.length < longest) return Effect.succeed(inWindow)
          // Perhaps cut short. A part already spanned by the answer (a candle at or before `from − 1`, at or after
          // `to`) is whole; one narrower than a period holds no open time; each part asked is narrower than
          // [from, to), so this ends.
          const before = first >= from && first - shortest >= from && first < to
          const after = last < to && last + shortest < to && last >= from
          return Effect.map(
            Effect.all([
              before ? candlesOf(from, first, 0) : Effect.succeed([]),
              after ? candlesOf(last + 1, to, 0) : Effect.succeed([])
            ]),
            ([older, newer]) => [...older, ...inWindow, ...newer]
          )
        }
      )
    return Stream.paginate(range.since, (start: number) => {
      const end = Math.min(start + width, range.until)
      return Effect.map(
        candlesOf(start, end, 0),
        (candles) => [candles, end < range.until ? Option.some(end) : Option.none()] as const
      )
    })
  })

const invalid = (field: string, description: string) => new SpotError.ValidationError({ field, description })

/** The market-data operations of one client. */
export const make = (context: Context) => {
  const ticker = Effect.fnUntraced(
    function*(symbol: string) {
      const request = yield* validate(tickerEndpoint, { symbol })
      yield* Effect.annotateCurrentSpan({ symbol: request.symbol })
      return yield* send(context, tickerEndpoint, request)
    },
    Effect.mapError(fail("ticker")),
    context.traced("SpotClient.ticker")
  )

  const tickers = Effect.fnUntraced(
    function*() {
      return yield* send(context, all, {})
    },
    Effect.mapError(fail("tickers")),
    context.traced("SpotClient.tickers")
  )

  const orderBook = Effect.fnUntraced(
    function*(symbol: string, options: Market.OrderBookOptions = {}) {
      const request = yield* validate(depth, { symbol, limit: options.limit })
      yield* Effect.annotateCurrentSpan({ symbol: request.symbol, limit: request.limit ?? 15 })
      return yield* send(context, depth, request)
    },
    Effect.mapError(fail("orderBook")),
    context.traced("SpotClient.orderBook")
  )

  const candles = Effect.fnUntraced(
    function*(symbol: string, period: Market.CandlePeriod, options: Market.CandlesOptions = {}) {
      const request = yield* validate(candlesEndpoint, { symbol, period, ...options })
      yield* Effect.annotateCurrentSpan({ symbol: request.symbol, period: request.period })
      return yield* send(context, candlesEndpoint, request)
    },
    Effect.mapError(fail("candles")),
    context.traced("SpotClient.candles")
  )

  const candleHistory = (symbol: string, period: Market.CandlePeriod, options: Market.CandleHistoryOptions) =>
    Stream.unwrap(Effect.gen(function*() {
      const pageSize = options.pageSize ?? 1000
      const first = yield* validate(candlesEndpoint, { symbol, period, limit: pageSize, startTime: options.since })
      yield* Effect.annotateCurrentSpan({ symbol: first.symbol, period: first.period })
      // Without `until`, up to now: a `since` still to come has no bars yet (an empty history, as other histories
      // answer), not an `until` the caller never gave before it.
      if (options.until === undefined && options.since > (yield* Clock.currentTimeMillis)) return Stream.empty
      const until = options.until ?? (yield* Clock.currentTimeMillis)
      if (!Number.isSafeInteger(until) || until < options.since) {
        return yield* invalid("until", "must be a time (ms) at or after `since`")
      }
      return history(
        (query) => send(context, candlesEndpoint, query),
        { symbol: first.symbol, period: first.period },
        { since: options.since, until, pageSize },
        (error) => error
      )
    })).pipe(
      Stream.mapError(fail("candleHistory")),
      Stream.withSpan("SpotClient.candleHistory")
    )

  const recentTrades = Effect.fnUntraced(
    function*(symbol: string, options: Market.RecentTradesOptions = {}) {
      const request = yield* validate(tradesEndpoint, { symbol, limit: options.limit })
      yield* Effect.annotateCurrentSpan({ symbol: request.symbol })
      return yield* send(context, tradesEndpoint, request)
    },
    Effect.mapError(fail("recentTrades")),
    context.traced("SpotClient.recentTrades")
  )

  return { ticker, tickers, orderBook, candles, candleHistory, recentTrades }
}
