/**
 * A test of user code (`quote-inside.ts`) against the testkit: the in-process exchange's book is its engine's real
 * resting orders, so the quote is checked against the book that results, and a later cross against the trades and
 * the candle, on the TestClock.
 */
import { assert, describe, it } from "@effect/vitest"
import { SpotClient } from "@spotkit/core"
import { TestExchange } from "@spotkit/testkit"
import { Clock, Effect, Option } from "effect"
import { TestClock } from "effect/testing"
import { insidePrice, quoteInside } from "./quote-inside.ts"

const BTC = "BTCUSDT_SPBL"

describe("quoteInside", () => {
  it("insidePrice: one tick inside the spread, exactly; the best price itself when the spread is one tick", () => {
    assert.strictEqual(insidePrice("buy", "29995.00", "30005.00", "0.01"), "29995.01")
    assert.strictEqual(insidePrice("sell", "29995.00", "30005.00", "0.01"), "30004.99")
    assert.strictEqual(insidePrice("buy", "0.1", "0.3", "0.1"), "0.2")
    assert.strictEqual(insidePrice("buy", "29999.99", "30000.00", "0.01"), "29999.99")
    assert.strictEqual(insidePrice("sell", "29999.99", "30000.00", "0.01"), "30000")
  })

  it.effect("a bid one tick above the best bid, resting, now the best bid; an ask one tick below the best ask", () =>
    Effect.gen(function*() {
      const exchange = yield* TestExchange.TestExchange
      const alice = exchange.accounts[0]!.userId
      const rules = yield* (yield* SpotClient.SpotClient).symbol(BTC)
      assert.strictEqual(Option.getOrThrow(rules).tickSize, "0.01")

      const bid = yield* quoteInside({ symbol: BTC, side: "buy", quantity: "0.01", clientOrderId: "q-bid" })
      assert.deepStrictEqual([bid.book.bids[0]!.price, bid.book.asks[0]!.price], ["29995.00", "30005.00"])
      assert.strictEqual(bid.price, "29995.01")
      const ask = yield* quoteInside({ symbol: BTC, side: "sell", quantity: "0.01", clientOrderId: "q-ask" })
      assert.strictEqual(ask.price, "30004.99")

      // The venue's book now has both quotes at the top, resting as postOnly orders.
      const book = exchange.engine.orderBook(BTC)
      assert.deepStrictEqual([book.bids[0], book.asks[0]], [["29995.01", "0.010000"], ["30004.99", "0.010000"]])
      const mine = exchange.engine.orderByClientId(alice, "q-bid")!
      assert.deepStrictEqual([mine.status, mine.price, mine.orderId], ["open", "29995.01", bid.placed.orderId])
    }).pipe(Effect.provide(TestExchange.layerSpotClient())))

  it.effect("a one-tick spread: the quote joins the best price instead of crossing", () =>
    Effect.gen(function*() {
      const exchange = yield* TestExchange.TestExchange
      const bob = exchange.accounts[1]!.userId
      const now = yield* Clock.currentTimeMillis
      exchange.engine.placeOrder(bob, {
        symbol: BTC,
        side: "buy",
        orderType: "limit",
        force: "normal",
        price: "30004.99",
        quantity: "0.1",
        clientOrderId: "narrow"
      }, now)
      const quote = yield* quoteInside({ symbol: BTC, side: "buy", quantity: "0.01" })
      assert.strictEqual(quote.price, "30004.99")
      assert.deepStrictEqual(exchange.engine.orderBook(BTC).bids[0], ["30004.99", "0.110000"])
      assert.deepStrictEqual(exchange.engine.recentTrades(BTC), [], "nothing taken")
    }).pipe(Effect.provide(TestExchange.layerSpotClient())))

  it.effect("the quote is the first to fill: a later sell trades at its price, in the candle of its minute", () =>
    Effect.gen(function*() {
      const exchange = yield* TestExchange.TestExchange
      const bob = exchange.accounts[1]!.userId
      const quote = yield* quoteInside({ symbol: BTC, side: "buy", quantity: "0.01" })
      // Two minutes later on the TestClock, bob sells 0.01 at the market: it meets the best bid, the quote.
      yield* TestClock.adjust("2 minutes")
      const now = yield* Clock.currentTimeMillis
      exchange.engine.placeOrder(bob, {
        symbol: BTC,
        side: "sell",
        orderType: "market",
        force: "normal",
        quantity: "0.01",
        clientOrderId: "taker"
      }, now)
      const client = yield* SpotClient.SpotClient
      const [trade] = yield* client.recentTrades(BTC, { limit: 1 })
      assert.deepStrictEqual([trade!.price, trade!.size, trade!.time, trade!.side], [
        quote.price,
        "0.010000",
        now,
        "sell"
      ])
      const [candle] = yield* client.candles(BTC, "1m", { limit: 1 })
      assert.deepStrictEqual([candle!.openTime, candle!.close], [now - (now % 60_000), quote.price])
      assert.deepStrictEqual(exchange.engine.orderBook(BTC).bids[0], ["29995.00", "0.500000"], "the quote is gone")
    }).pipe(Effect.provide(TestExchange.layerSpotClient())))
})
