import { assert, describe, it } from "@effect/vitest"
import { SpotClient } from "@spotkit/core"
import { Effect, Stream } from "effect"
import { TestExchange } from "../src/index.ts"

describe("preset", () => {
  it.layer(TestExchange.layerSpotClient())("in process", (it) => {
    it.effect("places, lists, exports, transfers", () =>
      Effect.gen(function*() {
        const client = yield* SpotClient.SpotClient
        const exchange = yield* TestExchange.TestExchange
        const placed = yield* client.placeOrder({
          symbol: "BTCUSDT_SPBL",
          side: "buy",
          orderType: "limit",
          force: "normal",
          price: "29000",
          quantity: "0.01"
        })
        const open = yield* Stream.runCollect(client.openOrders({ symbol: "BTCUSDT_SPBL" }))
        assert.deepStrictEqual(open.map((o) => o.orderId), [placed.orderId])
        const bills = yield* Stream.runCollect(client.fundingBills({ pageSize: 100 }))
        const alice = exchange.accounts[0]!.userId
        assert.strictEqual(bills.length, exchange.engine.fundingBillCount(alice))
        const bob = exchange.accounts[1]!.userId
        const transfer = yield* client.internalTransfer({
          toUserId: bob,
          coin: "USDT",
          amount: "12.5",
          fromAccountType: "FUND",
          toAccountType: "SPOT"
        })
        assert.match(transfer.id, /^\d{19}$/)
      }))
  })
})
