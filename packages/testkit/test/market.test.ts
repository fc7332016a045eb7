/**
 * The engine's market data (`internal/engine/market.ts` through `Engine`): the book by price level, recent trades, the
 * rolling 24-hour ticker and candles, on hand-made books and trades whose figures are worked out here. The properties
 * against the reference model and the trade log are in `properties.test.ts`; the wire in `handlers.test.ts`.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { Engine } from "../src/index.ts"
import { nextOpen, periodOpen } from "../src/internal/engine/market.ts"

const BTC = "BTCUSDT_SPBL"
const T0 = 1_700_000_000_000 // 2023-11-14T22:13:20Z, a Tuesday
const MINUTE = 60_000
const DAY = 86_400_000

/** An engine with BTCUSDT_SPBL (price 2 decimals, quantity 6), a maker and a taker with plenty of both coins. */
const setup = (options: Engine.EngineOptions = {}) => {
  const engine = new Engine.Engine({ seed: 5, ...options })
  engine.addProduct({ symbol: BTC, base: "BTC", quote: "USDT", pricePrecision: 2, quantityPrecision: 6 })
  const maker = engine.addUser()
  const taker = engine.addUser()
  for (const user of [maker, taker]) {
    engine.deposit(user, "SPOT", "USDT", "10000000", 0)
    engine.deposit(user, "SPOT", "BTC", "1000", 0)
  }
  let n = 0
  const place = (user: string, side: "buy" | "sell", price: string, quantity: string, now: number) => {
    const placed = engine.placeOrder(user, {
      symbol: BTC,
      side,
      orderType: "limit",
      force: "normal",
      price,
      quantity,
      clientOrderId: `o-${n++}`
    }, now)
    if (!placed.ok) assert.fail(`${placed.code} ${placed.msg}`)
    return placed.orderId
  }
  /** A trade of `quantity` at `price` at `now`: the maker rests a sell, the taker buys it. */
  const trade = (price: string, quantity: string, now: number, takerSide: "buy" | "sell" = "buy") => {
    place(maker, takerSide === "buy" ? "sell" : "buy", price, quantity, now)
    place(taker, takerSide, price, quantity, now)
  }
  return { engine, maker, taker, place, trade }
}

describe("the book", () => {
  it("levels aggregated per price, best first on each side, the best 15 by default or 200", () => {
    const { engine, maker, place, taker } = setup()
    place(maker, "sell", "30010", "0.5", T0)
    place(taker, "sell", "30010", "0.25", T0)
    place(maker, "sell", "30005", "0.1", T0)
    place(maker, "buy", "29990", "1", T0)
    place(taker, "buy", "29995.5", "0.000001", T0)
    assert.deepStrictEqual(engine.orderBook(BTC), {
      bids: [["29995.50", "0.000001"], ["29990.00", "1.000000"]],
      asks: [["30005.00", "0.100000"], ["30010.00", "0.750000"]]
    })
    for (let i = 1; i <= 250; i++) place(maker, "buy", String(20000 - i), "0.01", T0)
    const top = engine.orderBook(BTC)
    assert.strictEqual(top.bids.length, 15)
    assert.deepStrictEqual(top.bids.slice(0, 3).map(([price]) => price), ["29995.50", "29990.00", "19999.00"])
    const deep = engine.orderBook(BTC, 200)
    assert.strictEqual(deep.bids.length, 200)
    assert.deepStrictEqual(deep.bids[199], ["19802.00", "0.010000"])
    assert.strictEqual(deep.asks.length, 2)
  })

  it("step N merges levels into prices of 10^N ticks: bids down, asks up, sizes summed", () => {
    const { engine, maker, place } = setup()
    for (const price of ["30000.01", "30000.09", "30000.10", "30000.11"]) place(maker, "sell", price, "1", T0)
    for (const price of ["29999.99", "29999.90", "29999.89"]) place(maker, "buy", price, "2", T0)
    assert.deepStrictEqual(engine.orderBook(BTC, 15, 1), {
      bids: [["29999.90", "4.000000"], ["29999.80", "2.000000"]],
      asks: [["30000.10", "3.000000"], ["30000.20", "1.000000"]]
    })
    assert.deepStrictEqual(engine.orderBook(BTC, 1, 2), {
      bids: [["29999.00", "6.000000"]],
      asks: [["30001.00", "4.000000"]]
    })
  })

  it("a level is gone once its orders filled or were cancelled", () => {
    const { engine, maker, place, taker } = setup()
    const id = place(maker, "sell", "30005", "0.5", T0)
    place(maker, "sell", "30010", "0.5", T0)
    place(taker, "buy", "30005", "0.5", T0 + 1)
    assert.deepStrictEqual(engine.orderBook(BTC).asks, [["30010.00", "0.500000"]])
    assert.isFalse(engine.cancelOrder(maker, { orderId: id }, T0 + 2))
    engine.cancelOrder(maker, { clientOrderId: "o-1" }, T0 + 2)
    assert.deepStrictEqual(engine.orderBook(BTC), { bids: [], asks: [] })
  })

  it("an unknown symbol is an EngineError", () => {
    const { engine } = setup()
    assert.throws(() => engine.orderBook("DOGEUSDT_SPBL"), Engine.EngineError)
    assert.throws(() => engine.ticker("DOGEUSDT_SPBL", T0), Engine.EngineError)
  })
})

describe("recent trades", () => {
  it("newest first, each with the trade log's id, the maker's side and its value; 100 by default", () => {
    const { engine, trade } = setup()
    trade("30000", "0.5", T0)
    trade("30001.5", "0.2", T0 + 10, "sell")
    const recent = engine.recentTrades(BTC)
    assert.deepStrictEqual(recent, [
      {
        tradeId: engine.tradeList()[1]!.tradeId,
        symbol: BTC,
        time: T0 + 10,
        price: "30001.50",
        size: "0.200000",
        value: "6000.30000000",
        buyerMaker: true
      },
      {
        tradeId: engine.tradeList()[0]!.tradeId,
        symbol: BTC,
        time: T0,
        price: "30000.00",
        size: "0.500000",
        value: "15000.00000000",
        buyerMaker: false
      }
    ])
    assert.deepStrictEqual(engine.recentTrades(BTC, 1), recent.slice(0, 1))
  })

  it("the latest 1,000 are kept: the oldest go first", () => {
    const { engine, trade } = setup({ recordTrades: true })
    for (let i = 0; i < 1_003; i++) trade(String(30000 + i), "0.001", T0 + i)
    const log = engine.tradeList()
    const recent = engine.recentTrades(BTC, 5_000)
    assert.strictEqual(recent.length, 1_000)
    assert.deepStrictEqual(recent.map((t) => t.tradeId), log.slice(-1_000).reverse().map((t) => t.tradeId))
    assert.strictEqual(recent[999]!.price, "30003.00")
    assert.strictEqual(engine.recentTrades(BTC).length, 100)
  })

  it("with the trade log off (recordTrades: false), the market data is still kept", () => {
    const { engine, trade } = setup({ recordTrades: false })
    trade("30000", "0.5", T0)
    assert.deepStrictEqual(engine.tradeList(), [])
    assert.strictEqual(engine.recentTrades(BTC).length, 1)
    assert.strictEqual(engine.ticker(BTC, T0).lastPrice, "30000.00")
  })
})

describe("the ticker", () => {
  it("the trades from the start of the minute 24 hours before the current one: first, high, low, last, volumes", () => {
    const { engine, trade } = setup()
    const minute = T0 - (T0 % MINUTE) + 30 * DAY
    const now = minute + 45_000 // 45 s into a minute
    const start = minute - DAY
    trade("20000", "1", start - 1) // just before the window
    trade("84319.6", "0.5", start) // its first trade
    trade("88495.5", "0.1", start + 3_600_000)
    trade("88495.5", "0.1", start + 3_700_000) // the same high again: the first one's time counts
    trade("82175.9", "0.2", start + 7_200_000, "sell")
    trade("83354", "0.2", now - 1)
    assert.deepStrictEqual(engine.ticker(BTC, now), {
      symbol: BTC,
      lastPrice: "83354.00",
      open: "84319.60",
      high: "88495.50",
      low: "82175.90",
      close: "83354.00",
      priceChange: "-965.60",
      // -965.6 / 84319.6 = -0.01145166…: six decimals, cut toward zero (the venue's sample).
      priceChangePercent: "-0.011451",
      size: "1.100000",
      value: "92964.88000000",
      trades: 5,
      highTime: start + 3_600_000,
      lowTime: start + 7_200_000,
      startTime: start,
      endTime: now
    })
  })

  it("no trade in the window: the last price whenever it traded, no change, no volume, no high or low time", () => {
    const { engine, trade } = setup()
    const fresh = engine.ticker(BTC, T0)
    assert.deepStrictEqual(
      [fresh.lastPrice, fresh.open, fresh.high, fresh.trades, fresh.highTime, fresh.priceChangePercent],
      ["0.00", "0.00", "0.00", 0, null, "0.000000"]
    )
    trade("30000", "0.5", T0)
    const later = engine.ticker(BTC, T0 + 2 * DAY)
    assert.deepStrictEqual(later, {
      symbol: BTC,
      lastPrice: "30000.00",
      open: "30000.00",
      high: "30000.00",
      low: "30000.00",
      close: "30000.00",
      priceChange: "0.00",
      priceChangePercent: "0.000000",
      size: "0.000000",
      value: "0.00000000",
      trades: 0,
      highTime: null,
      lowTime: null,
      startTime: T0 + 2 * DAY - (T0 % MINUTE) - DAY,
      endTime: T0 + 2 * DAY
    })
  })

  it("never looks back before the latest time the engine has seen, nor starts before 0", () => {
    const { engine, trade } = setup()
    trade("30000", "0.5", 5_000)
    const early = engine.ticker(BTC, 1_000)
    assert.deepStrictEqual([early.startTime, early.endTime, early.trades], [0, 5_000, 1])
    assert.deepStrictEqual(engine.tickers(0).map((t) => t.symbol), [BTC])
  })
})

describe("candles", () => {
  it("a minute's candle: first, highest, lowest and last price, volumes and trades; longer periods summed", () => {
    const { engine, trade } = setup()
    const minute = T0 - (T0 % MINUTE)
    trade("30000", "0.5", minute + 1)
    trade("30100", "0.1", minute + 2)
    trade("29900", "0.2", minute + 3, "sell")
    trade("30050", "0.2", minute + 59_999)
    trade("31000", "1", minute + MINUTE)
    const [next, first] = engine.candles(BTC, "1m")
    assert.deepStrictEqual(first, {
      openTime: minute,
      open: "30000.00",
      high: "30100.00",
      low: "29900.00",
      close: "30050.00",
      baseVolume: "1.000000",
      quoteVolume: "30000.00000000",
      trades: 4
    })
    assert.deepStrictEqual([next!.openTime, next!.open, next!.trades], [minute + MINUTE, "31000.00", 1])
    assert.deepStrictEqual(engine.candles(BTC, "1h"), [{
      openTime: T0 - (T0 % 3_600_000),
      open: "30000.00",
      high: "31000.00",
      low: "29900.00",
      close: "31000.00",
      baseVolume: "2.000000",
      quoteVolume: "61000.00000000",
      trades: 5
    }])
    // 2023-11-13T00:00Z, the Monday of the week; 2023-11-01T00:00Z, the month.
    assert.strictEqual(engine.candles(BTC, "1w")[0]!.openTime, Date.UTC(2023, 10, 13))
    assert.strictEqual(engine.candles(BTC, "1M")[0]!.openTime, Date.UTC(2023, 10, 1))
    assert.strictEqual(engine.candles(BTC, "1d")[0]!.openTime, Date.UTC(2023, 10, 14))
  })

  it("open times from startTime (inclusive) before endTime (exclusive); the oldest limit with startTime, else the newest; newest first", () => {
    const { engine, trade } = setup()
    const base = T0 - (T0 % 3_600_000)
    // A trade in each of 150 minutes, every other minute.
    for (let i = 0; i < 150; i++) trade(String(30000 + i), "0.01", base + 2 * i * MINUTE + 7)
    const opens = (query: Engine.CandleQuery) =>
      engine.candles(BTC, "1m", query).map((c) => (c.openTime - base) / MINUTE)
    assert.deepStrictEqual(opens({}).length, 100)
    assert.deepStrictEqual(opens({}).slice(0, 2), [298, 296])
    assert.deepStrictEqual(opens({}).at(-1), 100)
    assert.deepStrictEqual(opens({ limit: 3 }), [298, 296, 294])
    assert.deepStrictEqual(opens({ startTime: base + 10 * MINUTE, limit: 3 }), [14, 12, 10])
    // A startTime inside a minute starts at the next period's open.
    assert.deepStrictEqual(opens({ startTime: base + 10 * MINUTE + 1, limit: 2 }), [14, 12])
    assert.deepStrictEqual(opens({ startTime: base + 10 * MINUTE, endTime: base + 14 * MINUTE }), [12, 10])
    assert.deepStrictEqual(opens({ startTime: base + 10 * MINUTE, endTime: base + 14 * MINUTE + 1 }), [14, 12, 10])
    assert.deepStrictEqual(opens({ endTime: base + 5 * MINUTE }), [4, 2, 0])
    assert.deepStrictEqual(opens({ startTime: base + 5 * MINUTE, endTime: base + 5 * MINUTE }), [])
    assert.deepStrictEqual(opens({ startTime: base + 300 * MINUTE }), [])
    // Periods without a trade have no candle; a longer period's candle holds its minutes'.
    const fiveMinutes = engine.candles(BTC, "5m", { startTime: base, limit: 2 })
    assert.deepStrictEqual(fiveMinutes.map((c) => [(c.openTime - base) / MINUTE, c.trades, c.open, c.close]), [
      [5, 2, "30003.00", "30004.00"],
      [0, 3, "30000.00", "30002.00"]
    ])
  })

  it("volumes stay exact past 2^53 units", () => {
    // A quote coin of 18 decimals: 0.004 of it is 4×10^15 units, and three such trades sum past 2^53 (≈ 9.007×10^15).
    const engine = new Engine.Engine({
      coins: [{ name: "AAA", coinId: 1, scale: 8 }, { name: "ZZZ", coinId: 2, scale: 18 }],
      makerFeeRate: "0",
      takerFeeRate: "0"
    })
    engine.addProduct({ symbol: "AAAZZZ_SPBL", base: "AAA", quote: "ZZZ", pricePrecision: 2, quantityPrecision: 2 })
    const [a, b] = [engine.addUser(), engine.addUser()]
    engine.deposit(a, "SPOT", "ZZZ", "0.008", 0)
    engine.deposit(b, "SPOT", "AAA", "1", 0)
    const order = (user: string, side: "buy" | "sell", id: string) =>
      engine.placeOrder(user, {
        symbol: "AAAZZZ_SPBL",
        side,
        orderType: "limit",
        force: "normal",
        price: "0.01",
        quantity: "0.4",
        clientOrderId: id
      }, T0)
    // a buys from b, sells back, buys again: three trades of 0.004 ZZZ.
    for (const [i, [buyer, seller]] of [[a, b], [b, a], [a, b]].entries()) {
      assert.isTrue(order(seller!, "sell", `s${i}`).ok)
      assert.isTrue(order(buyer!, "buy", `b${i}`).ok)
    }
    const [candle] = engine.candles("AAAZZZ_SPBL", "1m")
    assert.deepStrictEqual([candle!.quoteVolume, candle!.baseVolume, candle!.trades], [
      "0.012000000000000000",
      "1.20",
      3
    ])
    assert.strictEqual(engine.ticker("AAAZZZ_SPBL", T0).value, "0.012000000000000000")
  })

  it("period boundaries: fixed lengths from the epoch, weeks from Monday 00:00 UTC, calendar months, as Date says", () => {
    const lengths: Record<string, number> = { "1m": MINUTE, "15m": 15 * MINUTE, "8h": 8 * 3_600_000, "1d": DAY }
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 8_000_000_000_000 }), (t) => {
        const date = new Date(t)
        const month = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1)
        assert.strictEqual(periodOpen("1M", t), month)
        assert.strictEqual(nextOpen("1M", t), Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1))
        const day = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate())
        const monday = day - ((date.getUTCDay() + 6) % 7) * DAY
        assert.strictEqual(periodOpen("1w", t), Math.max(0, monday))
        assert.strictEqual(nextOpen("1w", t), monday + 7 * DAY)
        for (const [period, length] of Object.entries(lengths)) {
          assert.strictEqual(periodOpen(period as Engine.CandlePeriod, t), t - (t % length))
        }
      }),
      { numRuns: 2_000 }
    )
    // 2024 is a leap year: February has 29 days.
    assert.strictEqual(nextOpen("1M", Date.UTC(2024, 1, 10)), Date.UTC(2024, 2, 1))
    // The week of the epoch began on Monday 1969-12-29: its candle opens at 0, the next on Monday 1970-01-05.
    assert.deepStrictEqual([periodOpen("1w", 0), nextOpen("1w", 0)], [0, 4 * DAY])
  })
})
