/**
 * The conformance scenarios of public market data (issue #23): the client's `orderBook`, `recentTrades`, `ticker`,
 * `tickers`, `candles` and `candleHistory` against the test exchange, whose figures must be the engine's own.
 * `conformance.test.ts` runs them with the others over both transports; the transcripts hold no time (the sandbox
 * runs on the wall clock). The demo seed is described in `conformance.ts`: bob rests 0.5 BTC every 5.00 from 29,995
 * down and from 30,005 up, 20 levels a side.
 */
import { assert } from "@effect/vitest"
import { type SpotError, Venue } from "@spotkit/core"
import { Effect, Stream } from "effect"
import type { TestExchange } from "../../src/index.ts"
import { BTC, ETH, failureOf, limitOrder, outcome, type Scenario, units } from "./conformance.ts"

/** The paths of the exchange's requests to the market endpoints, without their queries' times. */
const marketRequests = (exchange: TestExchange.Service) =>
  Effect.map(exchange.requests, (records) =>
    records.flatMap((r) => {
      const path = r.path.split("?")[0]!
      const endpoint = Venue.endpointByPath.get(path)
      return endpoint !== undefined && path.startsWith("/api/v2/market/")
        ? [[endpoint.name, r.status ?? null, r.code ?? null] as const]
        : []
    }))

/** A level as the client decodes it, for comparing with the engine's `[price, quantity]`. */
const pair = (level: { readonly price: string; readonly size: string }) => [level.price, level.size] as const

const seeTheMarket: Scenario = {
  name: "market data: a resting order shows in the book at its price and size; a cross shows in the recent trades, " +
    "the ticker's last price and the current candle; the level is gone after the fill",
  run: ({ alice, client, exchange }) =>
    Effect.gen(function*() {
      const engine = exchange.engine
      yield* alice.placeOrder(limitOrder("buy", "29999.5", "0.25", "m-1"))
      const before = yield* alice.orderBook(BTC)
      assert.deepStrictEqual(pair(before.bids[0]!), ["29999.50", "0.250000"])
      assert.deepStrictEqual(pair(before.bids[1]!), ["29995.00", "0.500000"])
      assert.deepStrictEqual(pair(before.asks[0]!), ["30005.00", "0.500000"])
      assert.deepStrictEqual([before.bids.length, before.asks.length], [15, 15])
      assert.deepStrictEqual(before.bids.map(pair), engine.orderBook(BTC).bids)
      assert.deepStrictEqual(before.asks.map(pair), engine.orderBook(BTC).asks)
      assert.deepStrictEqual(yield* alice.recentTrades(BTC), [])

      // bob sells into alice's bid: one trade at her price, the buyer the maker.
      const bob = yield* client({ account: exchange.accounts[1]! })
      yield* bob.placeOrder(limitOrder("sell", "29999.5", "0.25", "m-2"))
      const after = yield* alice.orderBook(BTC)
      assert.deepStrictEqual(pair(after.bids[0]!), ["29995.00", "0.500000"], "the level is gone")
      assert.deepStrictEqual(after.bids.map(pair), engine.orderBook(BTC).bids)

      const [trade, ...older] = yield* alice.recentTrades(BTC)
      const logged = engine.tradeList().at(-1)!
      assert.deepStrictEqual(older, [])
      assert.deepStrictEqual(
        [trade!.tradeId, trade!.time, trade!.price, trade!.size, trade!.value, trade!.buyerMaker, trade!.side],
        [logged.tradeId, logged.time, "29999.50", "0.250000", "7499.87500000", true, "sell"]
      )
      const ticker = yield* alice.ticker(BTC)
      assert.deepStrictEqual(
        [ticker.lastPrice, ticker.open, ticker.high, ticker.low, ticker.size, ticker.value, ticker.trades],
        ["29999.50", "29999.50", "29999.50", "29999.50", "0.250000", "7499.87500000", 1]
      )
      assert.deepStrictEqual([ticker.highTime, ticker.lowTime], [trade!.time, trade!.time])
      const [candle] = (yield* alice.candles(BTC, "1m")).slice(-1)
      assert.deepStrictEqual(
        [candle!.openTime, candle!.open, candle!.close, candle!.baseVolume, candle!.quoteVolume],
        [trade!.time - (trade!.time % 60_000), "29999.50", "29999.50", "0.250000", "7499.87500000"]
      )
      assert.deepStrictEqual(
        (yield* marketRequests(exchange)).map(([name, status]) => [name, status]),
        [
          ["depth", 200],
          ["recentTrades", 200],
          ["depth", 200],
          ["recentTrades", 200],
          ["ticker", 200],
          ["candles", 200]
        ]
      )
      return {
        before: { bids: before.bids.slice(0, 3), asks: before.asks.slice(0, 3) },
        after: after.bids.slice(0, 2),
        trade: { ...trade, time: null },
        ticker: { ...ticker, highTime: null, lowTime: null, startTime: null, endTime: null, ts: null },
        candle: { ...candle, openTime: null }
      }
    })
}

const everyOperation: Scenario = {
  name: "market data: 200 levels, every ticker, candles over a range as a stream, and what is refused " +
    "(before sending, or by the venue: 40102)",
  run: ({ alice, client, exchange }) =>
    Effect.gen(function*() {
      const bob = yield* client({ account: exchange.accounts[1]! })
      // Three trades on ETH: alice takes bob's two best asks, then sells back into his best bid.
      yield* alice.placeOrder(limitOrder("buy", "2001", "7", "e-1", "normal", ETH))
      yield* alice.placeOrder(limitOrder("sell", "1999.5", "1", "e-2", "normal", ETH))
      const deep = yield* alice.orderBook(BTC, { limit: 200 })
      assert.deepStrictEqual([deep.bids.length, deep.asks.length], [20, 20])
      assert.deepStrictEqual(pair(deep.bids[19]!), ["29900.00", "0.500000"])
      const eth = yield* alice.orderBook(ETH)
      assert.deepStrictEqual([pair(eth.bids[0]!), pair(eth.asks[0]!)], [["1999.50", "4.0000"], ["2001.00", "3.0000"]])

      const tickers = yield* alice.tickers()
      assert.deepStrictEqual(tickers.map((t) => [t.symbol, t.lastPrice, t.trades, t.size]), [
        [BTC, "0.00", 0, "0.000000"],
        [ETH, "1999.50", 3, "8.0000"]
      ])
      const ethTicker = tickers[1]!
      assert.deepStrictEqual(
        [ethTicker.open, ethTicker.high, ethTicker.low, ethTicker.priceChange, ethTicker.priceChangePercent],
        ["2000.50", "2001.00", "1999.50", "-1.00", "-0.000499"]
      )

      const trades = yield* bob.recentTrades(ETH, { limit: 2 })
      assert.deepStrictEqual(trades.map((t) => [t.price, t.size, t.side]), [["1999.50", "1.0000", "sell"], [
        "2001.00",
        "2.0000",
        "buy"
      ]])
      const now = exchange.engine.now
      const history = yield* Stream.runCollect(
        alice.candleHistory(ETH, "1m", { since: now - 3_600_000, until: now + 60_000, pageSize: 7 })
      )
      const engineCandles = exchange.engine.candles(ETH, "1m", { startTime: 0 })
      assert.deepStrictEqual(
        history.map((c) => [c.openTime, c.open, c.close, c.baseVolume]),
        engineCandles.map((c) => [
          c.openTime,
          c.open,
          c.close,
          c.baseVolume
        ]).reverse()
      )
      // The three trades, in one minute's candle or (had the clock turned a minute between them) two.
      const volume = history.reduce((sum, c) => sum + units(c.baseVolume), 0n)
      assert.deepStrictEqual([history.length > 0, volume, history.at(-1)!.close], [true, units("8"), "1999.50"])

      const refused = yield* Effect.forEach(
        [
          alice.orderBook(BTC, { limit: 16 as 15 }),
          alice.ticker("DOGEUSDT_SPBL"),
          alice.candles(BTC, "3m" as "1m"),
          alice.recentTrades(BTC, { limit: 1001 })
        ],
        (call: Effect.Effect<unknown, SpotError.SpotError>) => Effect.map(outcome(call), failureOf)
      )
      assert.deepStrictEqual(refused.map((f) => [f.error, f.code ?? null]), [
        ["ValidationError", null],
        ["UnknownSymbolError", "40102"],
        ["ValidationError", null],
        ["ValidationError", null]
      ])
      const requests = yield* marketRequests(exchange)
      assert.deepStrictEqual(requests.at(-1), ["ticker", 400, "40102"])
      return {
        deep: { bids: deep.bids.length, asks: deep.asks.length },
        tickers: tickers.map((t) => ({
          ...t,
          highTime: null,
          lowTime: null,
          startTime: null,
          endTime: null,
          ts: null
        })),
        trades: trades.map((t) => ({ ...t, time: null })),
        history: { volume: String(volume), close: history.at(-1)!.close },
        refused,
        requests
      }
    })
}

/** Every scenario of public market data. */
export const marketScenarios: ReadonlyArray<Scenario> = [seeTheMarket, everyOperation]
