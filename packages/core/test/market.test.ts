/**
 * Public market data (issue #23): ticker, tickers, order book, candles, recent trades — decoded from the venue's own
 * samples (docs/venue/market-data.md), sorted as the client promises (bids best first, asks best first, candles by
 * open time), tolerant where the venue varies (optional ticker fields, `buyerMaker` as a boolean or a string,
 * trailing zeros kept), refused before sending when the query is bad; and candles of a long range as a stream that
 * never skips or repeats a candle, whatever the venue's bounds and limit do.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Redacted, Stream } from "effect"
import { HttpClient, HttpClientResponse } from "effect/http"
import { TestClock } from "effect/testing"
import * as fc from "fast-check"
import { type Market, SpotClient } from "../src/index.ts"
import { shortestPeriod } from "../src/internal/client/market.ts"

const NOW = 1_795_000_000_000

interface Seen {
  readonly path: string
  readonly query: URLSearchParams
  readonly headers: Readonly<Record<string, string>>
}

/** A client over a venue that answers each GET with `answer(path, query)` as the envelope's data. */
const clientOf = (answer: (path: string, query: URLSearchParams) => unknown) => {
  const seen: Array<Seen> = []
  const http = HttpClient.make((request) =>
    Effect.sync(() => {
      const url = new URL(request.url)
      seen.push({ path: url.pathname, query: url.searchParams, headers: request.headers })
      const data = answer(url.pathname, url.searchParams)
      const body = `{"code":"00000","msg":"success","requestTime":${NOW},"data":${
        typeof data === "string" ? data : JSON.stringify(data)
      }}`
      return HttpClientResponse.fromWeb(request, new Response(body, { status: 200 }))
    })
  )
  const layer = SpotClient.layer({
    baseUrl: "https://venue.test",
    credentials: { apiKey: Redacted.make("k"), secretKey: Redacted.make("s"), passphrase: Redacted.make("p") },
    retry: false
  }).pipe(Layer.provide(Layer.succeed(HttpClient.HttpClient, http)))
  const run = <A, E>(f: (client: SpotClient.Service) => Effect.Effect<A, E>) =>
    Effect.flatMap(SpotClient.SpotClient, f).pipe(Effect.provide(layer))
  return { run, seen }
}

// The venue's samples (docs/venue/market-data.md).
const TICKER = `{"symbol":"BTCUSDT_SPBL","priceChange":"-965.6","priceChangePercent":"-0.011451","trades":105901,` +
  `"size":"78570.57284800","value":"6731333236.9492884000","high":"88495.5","low":"82175.9","open":"84319.6",` +
  `"close":"83354.0","highTime":1743625002550,"lowTime":1743638655112,"startTime":1743576300000,` +
  `"endTime":1743665400000,"lastPrice":"83354.0","openInterest":"0","ts":1750060557824}`
const DEPTH = `{"asks":[["83610.5","0.1"],["83610.0","0.4993000000000000"]],` +
  `"bids":[["83609.1","2"],["83609.9","1.2000"]],"timestamp":"1622102974025"}`
const CANDLES = `[[1743669000000,"83654.0","83778.0","83531.5","83688.7","248.17024800","20755885.859164900"],` +
  `[1743667200000,"83457.9","83719.0","83457.9","83654.0","247.94000200","20730711.264144200"]]`
const TRADES = `[{"symbol":"BTCUSDT_SPBL","tradeId":"778a5376-a0b6-4c8f-ab64-dd6ea40f896e","fillTime":1743668713364,` +
  `"fillPrice":"83609.7","fillQuantity":"0.00011400","tradeValue":"9.531505800","bestMatch":true,"buyerMaker":true},` +
  `{"symbol":"BTCUSDT_SPBL","tradeId":"7","fillTime":"1743668713000","fillPrice":"83609.8","fillQuantity":"0.1",` +
  `"tradeValue":"8360.98","buyerMaker":"false"}]`

describe("market data: the venue's samples", () => {
  it.effect("ticker: a trade count as a string of digits is read; one that is no whole number fails the call", () =>
    Effect.gen(function*() {
      const asText = clientOf(() => TICKER.replace("\"trades\":105901", "\"trades\":\"105901\""))
      yield* asText.run((client) =>
        Effect.map(client.ticker("BTCUSDT_SPBL"), (ticker) => assert.strictEqual(ticker.trades, 105901))
      )
      for (const bad of ["\"many\"", "\"12.5\"", "-1"]) {
        const garbled = clientOf(() => TICKER.replace("\"trades\":105901", `"trades":${bad}`))
        const error = yield* Effect.flip(garbled.run((client) => client.ticker("BTCUSDT_SPBL")))
        assert.strictEqual(error.reason._tag, "DecodeError", bad)
      }
    }))

  it.effect("ticker: every field exact, unsigned", () => {
    const { run, seen } = clientOf(() => TICKER)
    return run((client) =>
      Effect.gen(function*() {
        const ticker = yield* client.ticker("BTCUSDT_SPBL")
        assert.strictEqual(ticker.lastPrice, "83354.0")
        assert.strictEqual(ticker.priceChangePercent, "-0.011451")
        assert.strictEqual(ticker.value, "6731333236.9492884000")
        assert.strictEqual(ticker.trades, 105901)
        assert.strictEqual(ticker.highTime, 1743625002550)
        assert.strictEqual(seen[0]!.path, "/api/v2/market/ticker")
        assert.strictEqual(seen[0]!.query.get("symbol"), "BTCUSDT_SPBL")
        assert.isUndefined(seen[0]!.headers["access-key"])
        assert.isUndefined(seen[0]!.headers["access-sign"])
      })
    )
  })

  it.effect("ticker: only symbol and lastPrice are required", () => {
    const { run } = clientOf(() => `{"symbol":"ETHUSDT_SPBL","lastPrice":"1500.10","markPrice":null,"future":1}`)
    return run((client) =>
      Effect.map(client.ticker("ETHUSDT_SPBL"), (ticker) => {
        assert.deepStrictEqual<unknown>(ticker, { symbol: "ETHUSDT_SPBL", lastPrice: "1500.10", markPrice: null })
      })
    )
  })

  // A gateway that routes the request elsewhere, or a body rewritten on the way: the records say so, and the client
  // reads them rather than answering another market's price as the asked symbol's.
  it.effect("ticker, recent trades: an answer naming another symbol is garbled (a DecodeError naming both)", () =>
    Effect.gen(function*() {
      const eth = (text: string) => text.replaceAll("BTCUSDT_SPBL", "ETHUSDT_SPBL")
      const ticker = yield* Effect.flip(clientOf(() => eth(TICKER)).run((client) => client.ticker("BTCUSDT_SPBL")))
      // The second of two trades only.
      const mixed = TRADES.replace(
        "{\"symbol\":\"BTCUSDT_SPBL\",\"tradeId\":\"7\"",
        "{\"symbol\":\"ETHUSDT_SPBL\",\"tradeId\":\"7\""
      )
      assert.notStrictEqual(mixed, TRADES)
      const trades = yield* Effect.flip(clientOf(() => mixed).run((client) => client.recentTrades("BTCUSDT_SPBL")))
      for (const [error, operation] of [[ticker, "ticker"], [trades, "recentTrades"]] as const) {
        assert.strictEqual(error.operation, `SpotClient.${operation}`)
        assert.strictEqual(error.reason._tag, "DecodeError", operation)
        assert.include(error.message, "the answer names symbol ETHUSDT_SPBL, not the symbol asked BTCUSDT_SPBL")
      }
      // The symbol asked: answered as before.
      const same = yield* clientOf(() => eth(TICKER)).run((client) => client.ticker("ETHUSDT_SPBL"))
      assert.strictEqual(same.symbol, "ETHUSDT_SPBL")
    }))

  it.effect("tickers: every symbol's, an absent list as none", () => {
    const { run } = clientOf(() => `[${TICKER},{"symbol":"ETHUSDT_SPBL","lastPrice":"1500"}]`)
    return run((client) =>
      Effect.map(client.tickers(), (tickers) => {
        assert.deepStrictEqual(tickers.map((ticker) => ticker.symbol), ["BTCUSDT_SPBL", "ETHUSDT_SPBL"])
      })
    )
  })

  it.effect("order book: bids best first, asks best first, by decimal value, sizes as sent", () => {
    const { run, seen } = clientOf(() => DEPTH)
    return run((client) =>
      Effect.gen(function*() {
        const book = yield* client.orderBook("BTCUSDT_SPBL", { limit: 200 })
        assert.deepStrictEqual(book, {
          bids: [{ price: "83609.9", size: "1.2000" }, { price: "83609.1", size: "2" }],
          asks: [{ price: "83610.0", size: "0.4993000000000000" }, { price: "83610.5", size: "0.1" }],
          timestamp: 1622102974025
        } as unknown as Market.OrderBook)
        assert.strictEqual(seen[0]!.query.get("limit"), "200")
      })
    )
  })

  it.effect("order book: numbers stay exact; a zero size is no level; a repeated price one; garbage a DecodeError", () =>
    Effect.gen(function*() {
      const bookOf = (data: string) => clientOf(() => data).run((client) => client.orderBook("BTCUSDT_SPBL"))
      // Numbers are read as their source text (Json.parse), so a level written as numbers is as exact as strings.
      const numbers = yield* bookOf(`{"asks":[[83610.50,0.10000000000000000001]],"bids":[[83609.9,2]]}`)
      assert.deepStrictEqual(numbers.asks, [{ price: "83610.50", size: "0.10000000000000000001" }] as never)
      assert.deepStrictEqual(numbers.bids, [{ price: "83609.9", size: "2" }] as never)
      // A level with nothing resting at it is no level (as in the pushed book).
      const emptied = yield* bookOf(`{"asks":[["2","0"],["1","0.5"]],"bids":[["0.5","0.000"]]}`)
      assert.deepStrictEqual(emptied, { bids: [], asks: [{ price: "1", size: "0.5" }] } as never)
      // A price listed twice on a side is one level, the later listing, as the pushed book reads a snapshot: a venue's
      // quirk costs no book (a program may want only the best bid), and no price is shown twice.
      const repeated = yield* bookOf(
        `{"asks":[["1","1"],["2","3"],["1.0","2"]],"bids":[["0.9","1"],["0.90","0"],["0.8","1"],["0.8","4"]]}`
      )
      assert.deepStrictEqual(repeated, {
        bids: [{ price: "0.8", size: "4" }],
        asks: [{ price: "1.0", size: "2" }, { price: "2", size: "3" }]
      } as never)
      // Before: each of these was answered as a book, a negative size as resting, a negative price sorted as if it
      // were positive.
      for (
        const [garbage, why] of [
          [`{"asks":[["1","-1"]],"bids":[]}`, "a negative size"],
          [`{"asks":[],"bids":[["-5","1"]]}`, "a negative price"],
          [`{"asks":[["0","1"]],"bids":[]}`, "a zero price"]
        ]
      ) {
        const error = yield* Effect.flip(bookOf(garbage!))
        assert.strictEqual(error.reason._tag, "DecodeError", why)
      }
    }))

  it.effect("order book: a depth other than 15 or 200 and a bad symbol are refused before sending", () => {
    const { run, seen } = clientOf(() => DEPTH)
    return run((client) =>
      Effect.gen(function*() {
        const depth = yield* Effect.flip(client.orderBook("BTCUSDT_SPBL", { limit: 50 as Market.BookDepth }))
        assert.strictEqual(depth.reason._tag, "ValidationError")
        const symbol = yield* Effect.flip(client.orderBook("btc"))
        assert.strictEqual(symbol.reason._tag, "ValidationError")
        assert.strictEqual(seen.length, 0)
      })
    )
  })

  it.effect("candles: named fields, ascending by open time whatever order the venue sends", () => {
    const { run, seen } = clientOf(() => CANDLES)
    return run((client) =>
      Effect.gen(function*() {
        const candles = yield* client.candles("BTCUSDT_SPBL", "30m", { limit: 2 })
        assert.deepStrictEqual(candles.map((candle) => candle.openTime), [1743667200000, 1743669000000])
        assert.deepStrictEqual(candles[1], {
          openTime: 1743669000000,
          open: "83654.0",
          high: "83778.0",
          low: "83531.5",
          close: "83688.7",
          baseVolume: "248.17024800",
          quoteVolume: "20755885.859164900"
        } as unknown as Market.Candle)
        assert.deepStrictEqual(Object.fromEntries(seen[0]!.query), {
          symbol: "BTCUSDT_SPBL",
          period: "30m",
          limit: "2"
        })
        const period = yield* Effect.flip(client.candles("BTCUSDT_SPBL", "3m" as Market.CandlePeriod))
        assert.strictEqual(period.reason._tag, "ValidationError")
      })
    )
  })

  it.effect("candles: a range that ends before it starts is refused before sending; an empty one is asked", () => {
    const { run, seen } = clientOf(() => CANDLES)
    return run((client) =>
      Effect.gen(function*() {
        const reversed = yield* Effect.flip(
          client.candles("BTCUSDT_SPBL", "1m", { startTime: 120_000, endTime: 60_000 })
        )
        assert.strictEqual(reversed.reason._tag, "ValidationError")
        assert.include(reversed.message, "endTime")
        assert.strictEqual(seen.length, 0)
        yield* client.candles("BTCUSDT_SPBL", "1m", { startTime: 60_000, endTime: 60_000 })
        assert.strictEqual(seen.length, 1)
      })
    )
  })

  it.effect("recent trades: buyerMaker as a boolean or a string, the taker's side from it", () => {
    const { run } = clientOf(() => TRADES)
    return run((client) =>
      Effect.map(client.recentTrades("BTCUSDT_SPBL", { limit: 2 }), (trades) => {
        assert.deepStrictEqual(
          trades.map(({ buyerMaker, side, time, tradeId }) => ({ tradeId, time, buyerMaker, side })),
          [
            { tradeId: "778a5376-a0b6-4c8f-ab64-dd6ea40f896e", time: 1743668713364, buyerMaker: true, side: "sell" },
            { tradeId: "7", time: 1743668713000, buyerMaker: false, side: "buy" }
          ]
        )
        assert.strictEqual(trades[0]!.size, "0.00011400")
      })
    )
  })

  // Before, trades and candles were taken whatever their sign, where the order book refused such garbage.
  it.effect("recent trades: a price or size at or below zero, a negative value, a DecodeError; a value of 0 kept", () =>
    Effect.gen(function*() {
      const tradesOf = (fields: Record<string, unknown>) =>
        clientOf(() => [{
          symbol: "BTCUSDT_SPBL",
          tradeId: "1",
          fillTime: 1743668713364,
          fillPrice: "83609.7",
          fillQuantity: "0.000001",
          tradeValue: "0.08",
          buyerMaker: true,
          ...fields
        }]).run((client) => client.recentTrades("BTCUSDT_SPBL"))
      // A tiny trade's value may round to zero at the quote coin's precision.
      assert.strictEqual((yield* tradesOf({ tradeValue: "0.00" }))[0]!.value, "0.00")
      for (
        const [fields, why] of [
          [{ fillPrice: "0" }, "a zero price"],
          [{ fillPrice: "-83609.7" }, "a negative price"],
          [{ fillQuantity: "0.0000" }, "a zero size"],
          [{ fillQuantity: "-1" }, "a negative size"],
          [{ tradeValue: "-0.08" }, "a negative value"]
        ] as const
      ) {
        const error = yield* Effect.flip(tradesOf(fields))
        assert.strictEqual(error.reason._tag, "DecodeError", why)
      }
    }))

  it.effect("candles: zero volumes kept (no trades); a price at or below zero, a negative volume, high < low refused", () =>
    Effect.gen(function*() {
      const candlesOf = (candle: ReadonlyArray<unknown>) =>
        clientOf(() => [candle]).run((client) => client.candles("BTCUSDT_SPBL", "1m"))
      const quiet = yield* candlesOf([1743669000000, "83654.0", "83654.0", "83654.0", "83654.0", "0", "0.000"])
      assert.strictEqual(quiet[0]!.baseVolume, "0")
      for (
        const [candle, why] of [
          [[1743669000000, "0", "83778.0", "83531.5", "83688.7", "1", "2"], "a zero open"],
          [[1743669000000, "83654.0", "83778.0", "-1", "83688.7", "1", "2"], "a negative low"],
          [[1743669000000, "83654.0", "83778.0", "83531.5", "0.0", "1", "2"], "a zero close"],
          [[1743669000000, "83654.0", "83778.0", "83531.5", "83688.7", "-1", "2"], "a negative base volume"],
          [[1743669000000, "83654.0", "83778.0", "83531.5", "83688.7", "1", "-2"], "a negative quote volume"],
          [[1743669000000, "83654.0", "83531.5", "83778.0", "83688.7", "1", "2"], "a high below the low"]
        ] as const
      ) {
        const error = yield* Effect.flip(candlesOf(candle))
        assert.strictEqual(error.reason._tag, "DecodeError", why)
      }
    }))

  // Before, the last in the venue's order was kept: a stale copy of the forming bar sent after the fresh one won.
  it.effect("candles: of two with one open time, the greater base volume is kept, whatever their order", () =>
    Effect.gen(function*() {
      const fresh = [1743669000000, "100", "110", "90", "105", "12.5", "1300"]
      const stale = [1743669000000, "100", "104", "95", "101", "3", "300"]
      const same = [1743669000000, "100", "110", "90", "106", "12.50", "1301"]
      const candlesOf = (list: ReadonlyArray<unknown>) =>
        clientOf(() => list).run((client) => client.candles("BTCUSDT_SPBL", "1m"))
      for (const list of [[fresh, stale], [stale, fresh]]) {
        const candles = yield* candlesOf(list)
        assert.strictEqual(candles.length, 1)
        assert.strictEqual(candles[0]!.baseVolume, "12.5")
      }
      // Equal volumes: the later in the venue's order.
      assert.strictEqual((yield* candlesOf([fresh, same]))[0]!.close, "106")
      assert.strictEqual((yield* candlesOf([same, fresh]))[0]!.close, "105")
    }))
})

describe("candleHistory", () => {
  const PERIODS = ["1m", "15m", "1h", "1d", "1w", "1M"] as const

  /**
   * How a venue may read a candles query: which end `limit` counts from, whether its bounds include, and the most
   * candles it serves in one answer whatever `limit` asks (an undocumented cap).
   */
  const semantics = fc.record({
    fromEnd: fc.boolean(),
    startInclusive: fc.boolean(),
    endInclusive: fc.boolean(),
    newestFirst: fc.boolean(),
    cap: fc.option(fc.integer({ min: 2, max: 30 }), { nil: undefined })
  })

  it.effect(
    "every candle of [since, until) once, ascending, whatever the venue's semantics and cap on limit (property)",
    () =>
      Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(
            fc.constantFrom(...PERIODS),
            // Sparse candles, or one in every period (where a cap on `limit` cuts windows short).
            fc.oneof(
              fc.array(fc.integer({ min: 0, max: 400 }), { maxLength: 120 }),
              fc.constant(Array.from({ length: 401 }, (_, slot) => slot))
            ),
            fc.integer({ min: 1, max: 40 }),
            fc.integer({ min: 0, max: 300 }),
            fc.integer({ min: 1, max: 200 }),
            semantics,
            fc.boolean(),
            async (period, slots, pageSize, from, span, how, atSince) => {
              const step = shortestPeriod[period]
              const base = 1_700_000_000_000
              // Sparse candles on the period's grid (months as 28 days: only their spacing matters here), often one
              // opening right at the range's start, the bound a venue may exclude.
              const grid = atSince ? [...slots, from] : slots
              const times = [...new Set(grid)].sort((a, b) => a - b).map((slot) => base + slot * step)
              const since = base + from * step - (from % 3 === 0 ? 7 : 0)
              const until = since + span * step + (span % 2 === 0 ? 3 : 0)
              const { run } = clientOf((_path, query) => {
                const start = Number(query.get("startTime"))
                const end = Number(query.get("endTime"))
                const limit = Math.min(Number(query.get("limit")), how.cap ?? Infinity)
                const inRange = times.filter((t) =>
                  (how.startInclusive ? t >= start : t > start) && (how.endInclusive ? t <= end : t < end)
                )
                const picked = how.fromEnd ? inRange.slice(-limit) : inRange.slice(0, limit)
                const list = how.newestFirst ? picked.slice().reverse() : picked
                return list.map((t) => [t, "1", "2", "0.5", "1.5", "10", "15"])
              })
              const got = await Effect.runPromise(
                run((client) =>
                  Stream.runCollect(client.candleHistory("BTCUSDT_SPBL", period, { since, until, pageSize }))
                )
              )
              const expected = times.filter((t) => t >= since && t < until)
              console.log("DBG", how.cap, pageSize, expected.length, got.length)
              assert.deepStrictEqual(got.map((candle) => candle.openTime), expected)
            }
          ),
          { numRuns: 150 }
        )
      ),
    { timeout: 60_000 }
  )

  it.effect("a venue whose startTime excludes the bound still answers the candle opening on it", () => {
    const since = 1_700_000_000_000
    const times = [since, since + 60_000, since + 120_000]
    const { run } = clientOf((_path, query) =>
      times.filter((t) => t > Number(query.get("startTime")) && t < Number(query.get("endTime")))
        .map((t) => [t, "1", "1", "1", "1", "1", "1"])
    )
    return run((client) =>
      Effect.map(
        Stream.runCollect(client.candleHistory("BTCUSDT_SPBL", "1m", { since, until: since + 180_000, pageSize: 2 })),
        (candles) => assert.deepStrictEqual(candles.map((candle) => candle.openTime), times)
      )
    )
  })

  it.effect("the windows' requests do not depend on how many candles there are", () => {
    const { run, seen } = clientOf(() => "[]")
    const since = 1_700_000_000_000
    return run((client) =>
      Effect.gen(function*() {
        const candles = yield* Stream.runCollect(
          client.candleHistory("BTCUSDT_SPBL", "1m", { since, until: since + 3_000 * 60_000, pageSize: 1000 })
        )
        assert.strictEqual(candles.length, 0)
        assert.strictEqual(seen.length, 4) // 3,000 minutes in windows of 1,000 minutes less 2 ms
        assert.strictEqual(Number(seen[0]!.query.get("startTime")), since - 1)
        assert.strictEqual(Number(seen[0]!.query.get("endTime")) - since, 1_000 * 60_000 - 2)
        assert.strictEqual(Number(seen[3]!.query.get("endTime")), since + 3_000 * 60_000)
      })
    )
  })

  const candleRows = (times: ReadonlyArray<number>) => times.map((t) => [t, "1", "2", "0.5", "1.5", "10", "15"])

  it.effect("a window answered with the window before's candles (a replayed answer) is asked again: none missing", () => {
    const base = 1_700_000_040_000 - (1_700_000_040_000 % 60_000)
    const times = Array.from({ length: 30 }, (_, i) => base + i * 60_000)
    let previous: ReadonlyArray<number> = []
    const { run, seen } = clientOf((_path, query) => {
      const start = Number(query.get("startTime"))
      const end = Number(query.get("endTime"))
      const owed = times.filter((t) => t >= start && t < end).slice(0, Number(query.get("limit")))
      // The third request is answered with the second's answer again (a cache or a load balancer replaying).
      const answer = seen.length === 3 ? previous : owed
      previous = owed
      return candleRows(answer)
    })
    return run((client) =>
      Effect.gen(function*() {
        const candles = yield* Stream.runCollect(
          client.candleHistory("BTCUSDT_SPBL", "1m", { since: base, until: base + 30 * 60_000, pageSize: 5 })
        )
        assert.deepStrictEqual(candles.map((candle) => candle.openTime), times)
        // Seven windows (30 minutes in windows of 5 minutes less 2 ms), the third asked twice.
        assert.strictEqual(seen.length, 8)
        assert.strictEqual(seen[3]!.query.get("startTime"), seen[2]!.query.get("startTime"))
      })
    )
  })

  it.effect("a host that ignores startTime/endTime (answering the newest candles) fails the stream, not an empty one", () => {
    const base = 1_700_000_040_000
    const times = Array.from({ length: 300 }, (_, i) => base + i * 60_000)
    const { run, seen } = clientOf((_path, query) => candleRows(times.slice(-Number(query.get("limit")))))
    return run((client) =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(Stream.runCollect(
          client.candleHistory("BTCUSDT_SPBL", "1m", { since: base, until: base + 30 * 60_000, pageSize: 5 })
        ))
        assert.strictEqual(error.reason._tag, "DecodeError")
        assert.include(error.message, "SpotClient.candleHistory: cannot decode the answer (schema)")
        assert.include(error.message, "startTime/endTime")
        // The first window asked three times, then the stream fails.
        assert.strictEqual(seen.length, 3)
      })
    )
  })

  it.effect("a host that ignores the bounds and answers the oldest candles fails the stream too", () => {
    const base = 1_700_000_040_000
    const times = Array.from({ length: 300 }, (_, i) => base + i * 60_000)
    const { run } = clientOf((_path, query) => candleRows(times.slice(0, Number(query.get("limit")))))
    const since = base + 100 * 60_000
    return run((client) =>
      Effect.map(
        Effect.flip(Stream.runCollect(
          client.candleHistory("BTCUSDT_SPBL", "1m", { since, until: since + 30 * 60_000, pageSize: 5 })
        )),
        (error) => assert.strictEqual(error.reason._tag, "DecodeError")
      )
    )
  })

  it.effect("a venue capping limit below the one asked: the rest of each window is asked, every candle once", () =>
    Effect.forEach([false, true], (fromEnd) => {
      const base = 1_700_000_040_000
      const times = Array.from({ length: 1500 }, (_, i) => base + i * 60_000)
      const { run, seen } = clientOf((_path, query) => {
        const start = Number(query.get("startTime"))
        const end = Number(query.get("endTime"))
        const limit = Math.min(200, Number(query.get("limit")))
        const inRange = times.filter((t) => t >= start && t < end)
        return candleRows((fromEnd ? inRange.slice(-limit) : inRange.slice(0, limit)).reverse())
      })
      return run((client) =>
        Effect.gen(function*() {
          const candles = yield* Stream.runCollect(
            client.candleHistory("BTCUSDT_SPBL", "1m", { since: base, until: base + 1500 * 60_000 })
          )
          assert.deepStrictEqual(candles.map((candle) => candle.openTime), times, `fromEnd ${fromEnd}`)
          // 1,500 candles 200 an answer: 8 answers, and at most one more a window that finds nothing.
          assert.isAtMost(seen.length, 10)
        })
      )
    }))

  it.effect("a since still to come without until: no bars and no request; an until before since is refused", () => {
    const { run, seen } = clientOf(() => "[]")
    return run((client) =>
      Effect.gen(function*() {
        yield* TestClock.setTime(1_700_000_000_000)
        const since = 1_700_000_000_000 + 86_400_000
        assert.strictEqual((yield* Stream.runCollect(client.candleHistory("BTCUSDT_SPBL", "1m", { since }))).length, 0)
        assert.strictEqual(seen.length, 0)
        const error = yield* Effect.flip(
          Stream.runCollect(client.candleHistory("BTCUSDT_SPBL", "1m", { since, until: since - 1 }))
        )
        assert.strictEqual(
          error.message,
          "SpotClient.candleHistory: invalid until: must be a time (ms) at or after `since`"
        )
      })
    )
  })
})
