/**
 * The client's symbol rules (exchangeInfo) on the order path, against the test exchange with exchangeInfo not
 * answering (`Fault.timeout`: each attempt waits for the client's timeout, and the load is retried). The rules are an
 * optional, public, weight-10 request: an order never waits for their full retried load. Expired rules keep serving
 * while one reload runs in the background; a cold cache waits a few seconds at most, then the order goes unchecked;
 * the venue's refusal for a rule waits as briefly for the reload that may name the rule. Times are virtual (TestClock).
 */
import { assert, describe, it } from "@effect/vitest"
import { type Order, SpotClient, Venue } from "@spotkit/core"
import { Clock, Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { Fault, TestExchange } from "../src/index.ts"

const SYMBOL = "BTCUSDT_SPBL"
const EXCHANGE_INFO = Venue.endpoints.exchangeInfo.path
const valid: Order.PlaceOrderInput = {
  symbol: SYMBOL,
  side: "buy",
  orderType: "limit",
  price: "29000",
  quantity: "0.01"
}
// 2.9 USDT: below the product's minimum value (5 USDT), which the symbol rules do not carry; the venue answers 45110.
const belowMinimumValue: Order.PlaceOrderInput = { ...valid, quantity: "0.0001" }

// What the client sees as a bound: a few seconds, never the load's retries (10 s timeout × 4 attempts with backoff).
const SHORT = 5_000

/** Runs `effect` in a fiber while virtual time goes on in steps of 100 ms; answers its exit and how long it took. */
const timed = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.gen(function*() {
    const t0 = yield* Clock.currentTimeMillis
    const fiber = yield* Effect.forkChild(Effect.exit(effect))
    let steps = 0
    while (fiber.pollUnsafe() === undefined && steps < 6_000) {
      yield* TestClock.adjust("100 millis")
      steps++
    }
    const exit = yield* Fiber.join(fiber)
    return { exit, t0, took: (yield* Clock.currentTimeMillis) - t0 }
  })

/** When (virtual ms after `t0`) the exchange received the first placement since `t0`. */
const sentAfter = (t0: number) =>
  Effect.gen(function*() {
    const exchange = yield* TestExchange.TestExchange
    const sent = (yield* exchange.requests).find((request) =>
      request.path.startsWith(Venue.endpoints.placeOrder.path) && request.time >= t0
    )
    return sent === undefined ? Infinity : sent.time - t0
  })

const hang = Effect.flatMap(
  TestExchange.TestExchange,
  (exchange) => exchange.injectFault({ fault: Fault.timeout, path: EXCHANGE_INFO })
)

describe("symbol rules that do not answer never hold an order back", () => {
  it.layer(TestExchange.layerSpotClient())(
    "expired rules",
    (it) =>
      it.effect("serve while one reload runs in the background: the order is sent at once, and checked", () =>
        Effect.gen(function*() {
          const client = yield* SpotClient.SpotClient
          yield* client.symbols()
          yield* TestClock.adjust("61 minutes")
          yield* hang
          const { exit, t0, took } = yield* timed(client.placeOrder(valid))
          assert.strictEqual(exit._tag, "Success")
          assert.isBelow(yield* sentAfter(t0), SHORT, "sent without waiting for the reload")
          assert.isBelow(took, SHORT)
          // Still checked against the expired rules meanwhile: an order off the tick is refused, unsent.
          const off = yield* timed(client.placeOrder({ ...valid, price: "29000.001" }))
          assert.isTrue(off.exit._tag === "Failure" && String(off.exit.cause).includes("tickSize"))
          assert.isBelow(off.took, SHORT)
        }))
  )

  it.layer(TestExchange.layerSpotClient())(
    "a cold cache",
    (it) =>
      it.effect("waits a few seconds at most, then sends unchecked; a long outage never stalls orders again", () =>
        Effect.gen(function*() {
          const client = yield* SpotClient.SpotClient
          const exchange = yield* TestExchange.TestExchange
          yield* hang
          const first = yield* timed(client.placeOrder(valid))
          assert.strictEqual(first.exit._tag, "Success")
          assert.isBelow(yield* sentAfter(first.t0), SHORT)
          // One order every 10 s for 5 minutes: none waits for a load (retried every minute after one failed).
          const waits: Array<number> = []
          for (let i = 0; i < 30; i++) {
            const { took } = yield* timed(client.placeOrder(valid))
            waits.push(took)
            yield* TestClock.adjust(Math.max(0, 10_000 - took))
          }
          assert.isBelow(Math.max(...waits), 1_000, waits.join(" "))
          assert.isAbove((yield* exchange.requests).filter((r) => r.path.startsWith(EXCHANGE_INFO)).length, 1)
        }))
  )

  it.layer(TestExchange.layerSpotClient())(
    "a refusal for a rule",
    (it) =>
      it.effect("reaches the caller within a few seconds, a single order's and a batch's", () =>
        Effect.gen(function*() {
          const client = yield* SpotClient.SpotClient
          yield* client.symbols()
          yield* TestClock.adjust("10 minutes")
          yield* hang
          const single = yield* timed(client.placeOrder(belowMinimumValue))
          assert.isTrue(single.exit._tag === "Failure" && String(single.exit.cause).includes("45110"))
          assert.isBelow(single.took, SHORT)
          yield* TestClock.adjust("10 minutes")
          const batch = yield* timed(client.placeOrders(SYMBOL, [
            { side: "buy", orderType: "limit", price: "29000", quantity: "0.01" },
            { side: "buy", orderType: "limit", price: "29000", quantity: "0.0001" }
          ]))
          assert.isTrue(batch.exit._tag === "Success")
          if (batch.exit._tag === "Success") {
            assert.deepStrictEqual(batch.exit.value.outcomes.map((outcome) => outcome._tag), ["Placed", "Failed"])
          }
          assert.isBelow(batch.took, SHORT)
        }))
  )
})
