import { assert, describe, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import { TestClock } from "effect/testing"
import { SpotClient } from "../src/index.ts"
import { clientLayer, FakeVenue, NOW } from "./support/FakeVenue.ts"

describe("smoke", () => {
  it.effect("places, lists and pages over the fake venue", () => {
    const venue = new FakeVenue()
    venue.addBills(250, NOW - 60_000)
    return Effect.gen(function*() {
      yield* TestClock.setTime(NOW)
      const client = yield* SpotClient.SpotClient
      const placed = yield* client.placeOrder({
        symbol: "BTCUSDT_SPBL",
        side: "buy",
        orderType: "limit",
        price: "1",
        quantity: "1",
        clientOrderId: "a1"
      })
      assert.strictEqual(placed.orderId, "602876318261969338")
      const open = yield* Stream.runCollect(client.openOrders({ symbol: "BTCUSDT_SPBL" }))
      assert.strictEqual(open.length, 1)
      const bills = yield* Stream.runCollect(client.fundingBills({ pageSize: 100 }))
      assert.strictEqual(bills.length, 250)
      const transfer = yield* client.internalTransfer({
        toUserId: "18446744073709551615",
        coin: "USDT",
        amount: "1.5",
        fromAccountType: "SPOT",
        toAccountType: "FUND"
      })
      assert.strictEqual(transfer.id, "9000000000000000001")
      assert.include(venue.requests.at(-1)!.body, "\"toUserId\":18446744073709551615")
    }).pipe(Effect.provide(clientLayer(venue, { rateLimit: false })))
  })
})
