import { assert, describe, it } from "@effect/vitest"
import { SpotClient } from "@spotkit/core"
import { Effect, Layer, Stream } from "effect"
import { FetchHttpClient } from "effect/http"
import { Sandbox, TestExchange } from "../src/index.ts"

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

describe("sandbox", () => {
  const SandboxLayer = Sandbox.layer().pipe(Layer.provideMerge(TestExchange.layer(TestExchange.demo({ bills: 250 }))))
  it.layer(SandboxLayer)("over loopback HTTP", (it) => {
    it.effect("serves the client", () =>
      Effect.gen(function*() {
        const sandbox = yield* Sandbox.Sandbox
        const exchange = yield* TestExchange.TestExchange
        const client = yield* SpotClient.make({
          baseUrl: sandbox.baseUrl,
          credentials: exchange.accounts[0]!.credentials,
          rateLimit: false
        }).pipe(Effect.provide(FetchHttpClient.layer))
        const bills = yield* Stream.runCollect(client.fundingBills({ pageSize: 100 }))
        assert.strictEqual(bills.length, exchange.engine.fundingBillCount(exchange.accounts[0]!.userId))
        const placed = yield* client.placeOrder({
          symbol: "ETHUSDT_SPBL",
          side: "sell",
          orderType: "market",
          force: "normal",
          quantity: "1.5"
        })
        assert.strictEqual(exchange.engine.order(placed.orderId)?.status, "full_fill")
      }))
  })
})
