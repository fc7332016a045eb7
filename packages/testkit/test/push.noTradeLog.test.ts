/**
 * The push venue over an exchange that keeps no trade log (`recordTrades: false`): there are no fills to push (REST
 * has none either), but what a trade changes — the book's levels, the resting orders it filled and their owners'
 * balances — is still pushed, equal to the engine's.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { TestExchange } from "../src/index.ts"
import { collect, engineBook, lastBook, settle, setup, SpotPush } from "./support/push.ts"

const SYMBOL = "BTCUSDT_SPBL"

describe("PushVenue without a trade log", () => {
  it.effect("a taker's trades are pushed as the book, the makers' orders and balances the engine has", () =>
    Effect.gen(function*() {
      const exchange = yield* TestExchange.TestExchange
      const push = yield* SpotPush.SpotPush
      const [alice, bob] = exchange.accounts
      const book = yield* collect(push.watchBook(SYMBOL))
      const orders = yield* collect(push.watchOrders({ symbols: [SYMBOL] }))
      const balances = yield* collect(push.watchBalances())
      yield* settle
      // Alice (the push session's user) rests an ask below bob's best (30,005); bob's market buy takes it and more.
      const ask = yield* exchange.placeOrder(alice!.userId, {
        symbol: SYMBOL,
        side: "sell",
        orderType: "limit",
        force: "normal",
        price: "30001",
        quantity: "0.01",
        clientOrderId: "ask"
      })
      assert.isTrue(ask.ok)
      yield* settle
      yield* exchange.placeOrder(bob!.userId, {
        symbol: SYMBOL,
        side: "buy",
        orderType: "market",
        force: "normal",
        quantity: "40000",
        clientOrderId: "take"
      })
      yield* settle
      assert.strictEqual(exchange.engine.tradeList().length, 0)
      const last = lastBook(book.items)!
      assert.deepStrictEqual({ bids: last.bids, asks: last.asks }, engineBook(exchange.engine, SYMBOL, 15))
      const filled = orders.items.filter((o) => ask.ok && o.orderId === ask.orderId).at(-1)
      assert.deepStrictEqual([filled?.status, filled?.filledQuantity], ["full_fill", "0.010000"])
      const usdt = balances.items.filter((b) => b.coinName === "USDT").at(-1)
      const engineUsdt = exchange.engine.spotBalances(alice!.userId).find((b) => b.coinName === "USDT")
      assert.strictEqual(usdt?.available, engineUsdt?.available)
    }).pipe(
      Effect.provide(
        setup({ exchange: { ...TestExchange.demo({ bills: 0 }), rateLimits: false, recordTrades: false } })
      )
    ))
})
