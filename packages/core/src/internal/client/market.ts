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

/**
 * Candles of a range, ascending by open time, one request per time window. Each window is asked from a millisecond
 * before it, so that a venue whose `startTime` excludes the bound still answers a candle opening on it, to its end:
 * a span of `pageSize × the period's shortest length − 1 ms`, bounds included, which holds at most `pageSize` open
 * times, so the venue answers every candle of the window whether it counts `limit` from the start or from the end.
 * What it answers outside the window is dropped, so each candle of the range is yielded from exactly one window,
 * whether the venue's bounds are inclusive or not, and none is skipped. The requests do not depend on how many
 * candles there are: a sparse range costs as many as a full one.
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
  range: { readonly since: number; readonly until: number; readonly pageSize: number }
): Stream.Stream<Market.Candle, E> => {
  const width = range.pageSize * shortestPeriod[query.period] - 2
  return Stream.paginate(range.since, (start: number) => {
    const end = Math.min(start + width, range.until)
    return Effect.map(
      page({ ...query, startTime: Math.max(0, start - 1), endTime: end, limit: range.pageSize }),
      (candles) => {
        const inWindow = candles.filter((candle) => candle.openTime >= start && candle.openTime < end)
        return [inWindow, end < range.until ? Option.some(end) : Option.none()] as const
      }
    )
  })
}

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
        { since: options.since, until, pageSize }
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
