/**
 * Venue-side rate limits. The expectations come from DESIGN §4 (weights and budgets per key and per address), never
 * from running the code under test.
 */
import { assert, describe, it } from "@effect/vitest"
import { Venue } from "@spotkit/core"
import { Effect } from "effect"
import { TestExchange } from "../src/index.ts"
import { signed, statusOf } from "./support/signed.ts"

const BILLS = Venue.endpoints.fundingBills.path

describe("rate limits", () => {
  it.effect("a bills request refused by the per-IP budget does not use up the key's own budget", () =>
    Effect.gen(function*() {
      // DESIGN §4: weight 5 against 500 per 10 s per key and per IP. alice and bob share one address.
      const exchange = yield* TestExchange.make(TestExchange.demo({ bills: 0 }))
      const { alice, bob } = TestExchange.demoKeys
      const t0 = 1_000_000
      for (let i = 0; i < 100; i++) {
        assert.strictEqual(statusOf(exchange.handleAt(signed(alice, BILLS, "{}", t0), t0)), 200, `alice #${i + 1}`)
      }
      // The address has used its 500 within the window: bob is refused although his key has never been served.
      const t1 = t0 + 5_000
      for (let i = 0; i < 100; i++) {
        assert.strictEqual(statusOf(exchange.handleAt(signed(bob, BILLS, "{}", t1), t1)), 429, `bob #${i + 1}`)
      }
      // alice's weight has left the 10 s window (entries at t0 expire once now - 10 000 >= t0). bob's key was never
      // served, so neither budget is spent: the request must pass. Charging bob's key for the refused requests above
      // (as if they had been served) would keep him throttled until t1 + 10 s.
      const t2 = t0 + 10_001
      assert.strictEqual(statusOf(exchange.handleAt(signed(bob, BILLS, "{}", t2), t2)), 200)
    }))
})

describe("rate limits by endpoint", () => {
  const OPEN_ORDERS = Venue.endpoints.openOrders.path
  const ORDERS = Venue.endpoints.placeOrder.path
  const openOrders = JSON.stringify({ symbol: "BTCUSDT_SPBL" })

  it.effect("each endpoint has its own budget per key: 10 requests per second by default (DESIGN §4)", () =>
    Effect.gen(function*() {
      const exchange = yield* TestExchange.make(TestExchange.demo({ bills: 0 }))
      const { alice } = TestExchange.demoKeys
      const t = 2_000_000
      for (let i = 0; i < 10; i++) {
        assert.strictEqual(statusOf(exchange.handleAt(signed(alice, OPEN_ORDERS, openOrders, t), t)), 200, `#${i + 1}`)
      }
      assert.strictEqual(statusOf(exchange.handleAt(signed(alice, OPEN_ORDERS, openOrders, t), t)), 429)
      // Another endpoint's budget is untouched: an empty order is refused for its fields (400), not for the rate.
      assert.strictEqual(statusOf(exchange.handleAt(signed(alice, ORDERS, "{}", t), t)), 400)
      // A second later the window has room again.
      const later = t + 1_000
      assert.strictEqual(statusOf(exchange.handleAt(signed(alice, OPEN_ORDERS, openOrders, later), later)), 200)
    }))

  it.effect("an option overrides one endpoint's budget and leaves the others as declared", () =>
    Effect.gen(function*() {
      const exchange = yield* TestExchange.make({
        ...TestExchange.demo({ bills: 0 }),
        rateLimits: { openOrders: { limit: 2, windowMillis: 1_000 } }
      })
      const { alice } = TestExchange.demoKeys
      const t = 2_000_000
      const statuses = Array.from(
        { length: 3 },
        () => statusOf(exchange.handleAt(signed(alice, OPEN_ORDERS, openOrders, t), t))
      )
      assert.deepStrictEqual(statuses, [200, 200, 429])
      // Orders of different bodies: an exact replay of one (same key, timestamp and signature) would be refused as such.
      const order = (i: number) => signed(alice, ORDERS, JSON.stringify({ n: i }), t)
      for (let i = 0; i < 10; i++) {
        assert.strictEqual(statusOf(exchange.handleAt(order(i), t)), 400, `order #${i + 1}`)
      }
      assert.strictEqual(statusOf(exchange.handleAt(order(10), t)), 429)
    }))
})
