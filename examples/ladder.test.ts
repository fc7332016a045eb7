/**
 * A test of user code (`ladder.ts`) against the testkit: the in-process exchange really matches orders and keeps
 * balances, so the test asserts on the venue's state, and it can make the venue fail on purpose.
 */
import { assert, describe, it } from "@effect/vitest"
import { Fault, TestExchange } from "@spotkit/testkit"
import { Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { placeLadder } from "./ladder.ts"

describe("placeLadder", () => {
  it.effect("rests one bid per level, below the price, and freezes what they cost", () =>
    Effect.gen(function*() {
      const exchange = yield* TestExchange.TestExchange
      const alice = exchange.accounts[0]!.userId
      const result = yield* placeLadder({
        symbol: "BTCUSDT_SPBL",
        below: 29000,
        step: 100,
        levels: 5,
        quantity: "0.01"
      })

      assert.strictEqual(result.placed, 5)
      const open = exchange.engine.orderList(alice).filter((order) => order.status === "open")
      assert.deepStrictEqual(open.map((order) => order.price).sort(), [
        "28500.00",
        "28600.00",
        "28700.00",
        "28800.00",
        "28900.00"
      ])
      // 0.01 BTC at each price: 285 + 286 + 287 + 288 + 289 USDT frozen.
      const usdt = exchange.engine.balances(alice).find((b) => b.accountType === "SPOT" && b.coin === "USDT")!
      assert.strictEqual(usdt.frozen, "1435")
    }).pipe(Effect.provide(TestExchange.layerSpotClient())))

  // The client waits before retrying, on the TestClock: the call runs in a fiber while the test moves the clock.
  it.effect("places every level exactly once when the venue's answer is lost after it applied the batch", () =>
    Effect.gen(function*() {
      const exchange = yield* TestExchange.TestExchange
      const alice = exchange.accounts[0]!.userId
      yield* exchange.injectFault({ fault: Fault.appliedLost, path: "/api/v2/trade/batch-orders", times: 1 })

      const fiber = yield* Effect.forkChild(
        placeLadder({ symbol: "BTCUSDT_SPBL", below: 29000, step: 50, levels: 3, quantity: "0.01" })
      )
      yield* TestClock.adjust("1 second") // past the retry's backoff (200 ms ± 20 %)
      const result = yield* Fiber.join(fiber)

      // The client retried with the same clientOrderIds and found the orders the lost attempt had placed.
      assert.strictEqual(result.placed, 3)
      assert.strictEqual(exchange.engine.orderList(alice).filter((order) => order.status === "open").length, 3)
    }).pipe(Effect.provide(TestExchange.layerSpotClient())))
})
