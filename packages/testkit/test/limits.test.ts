/**
 * Venue-side rate limits. The expectations come from docs/venue/limits.md (weights against budgets per user, per address
 * and per endpoint), never from running the code under test.
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
      // Spec-extended §8: weight 5 against 500 per 10 s per user and per IP. alice and bob share one address.
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
  const BATCH = Venue.endpoints.placeOrders.path
  const openOrders = JSON.stringify({ symbol: "BTCUSDT_SPBL" })
  const limitOrder = {
    symbol: "BTCUSDT_SPBL",
    side: "buy",
    orderType: "limit",
    force: "normal",
    price: "20000",
    quantity: "0.001"
  }

  it.effect("placing has its own budget per user: 10 requests per second (docs/venue/limits.md)", () =>
    Effect.gen(function*() {
      const exchange = yield* TestExchange.make(TestExchange.demo({ bills: 0 }))
      const { alice } = TestExchange.demoKeys
      const t = 2_000_000
      // An order without its fields is refused for them (400) after it was counted: 10 weigh 50 of the user's 500.
      // Of different bodies: an exact replay of one (same key, timestamp and signature) would be refused as such.
      const order = (i: number) => signed(alice, ORDERS, JSON.stringify({ n: i }), t)
      for (let i = 0; i < 10; i++) {
        assert.strictEqual(statusOf(exchange.handleAt(order(i), t)), 400, `#${i + 1}`)
      }
      assert.strictEqual(statusOf(exchange.handleAt(order(10), t)), 429)
      // Another endpoint's budget is untouched: an empty batch is refused for its fields (400), not for the rate.
      assert.strictEqual(statusOf(exchange.handleAt(signed(alice, BATCH, "{}", t), t)), 400)
      // A second later the window has room again.
      const later = t + 1_000
      assert.strictEqual(statusOf(exchange.handleAt(signed(alice, ORDERS, "{}", later), later)), 400)
    }))

  it.effect("a request refused with 429 was not processed: the same signed bytes sent again in the window are processed", () =>
    Effect.gen(function*() {
      const exchange = yield* TestExchange.make(TestExchange.demo({ bills: 0 }))
      const { alice } = TestExchange.demoKeys
      const t = 2_500_000
      const order = (i: number) => signed(alice, ORDERS, JSON.stringify({ ...limitOrder, clientOrderId: `r-${i}` }), t)
      for (let i = 0; i < 10; i++) assert.strictEqual(statusOf(exchange.handleAt(order(i), t)), 200, `#${i + 1}`)
      const refused = order(10)
      assert.strictEqual(statusOf(exchange.handleAt(refused, t)), 429)
      // A second later, within the signature's 30 s: placed (not 40409, a duplicate of what was never placed).
      const placed = exchange.handleAt(refused, t + 1_000)
      assert.strictEqual(statusOf(placed), 200)
      assert.isDefined(exchange.engine.orderByClientId(exchange.accounts[0]!.userId, "r-10"))
      // Admitted, it is spent: the same bytes again are a replay.
      assert.strictEqual(statusOf(exchange.handleAt(refused, t + 1_000)), 409)
    }))

  it.effect("open orders weigh 3 against the user's 500 per 10 s: the 167th in a window is refused", () =>
    Effect.gen(function*() {
      const exchange = yield* TestExchange.make(TestExchange.demo({ bills: 0 }))
      const { alice } = TestExchange.demoKeys
      const t = 2_000_000
      for (let i = 0; i < 166; i++) {
        assert.strictEqual(statusOf(exchange.handleAt(signed(alice, OPEN_ORDERS, openOrders, t), t)), 200, `#${i + 1}`)
      }
      assert.strictEqual(statusOf(exchange.handleAt(signed(alice, OPEN_ORDERS, openOrders, t), t)), 429)
      const later = t + 10_000
      assert.strictEqual(statusOf(exchange.handleAt(signed(alice, OPEN_ORDERS, openOrders, later), later)), 200)
    }))

  it.effect("an option overrides one endpoint's weight and leaves the others as declared", () =>
    Effect.gen(function*() {
      const exchange = yield* TestExchange.make({
        ...TestExchange.demo({ bills: 0 }),
        rateLimits: { weights: { openOrders: { uid: 200 } } }
      })
      const { alice } = TestExchange.demoKeys
      const t = 2_000_000
      const statuses = Array.from(
        { length: 3 },
        () => statusOf(exchange.handleAt(signed(alice, OPEN_ORDERS, openOrders, t), t))
      )
      assert.deepStrictEqual(statuses, [200, 200, 429])
      // Orders of different bodies: an exact replay of one (same key, timestamp and signature) would be refused as
      // such.
      const order = (i: number) => signed(alice, ORDERS, JSON.stringify({ n: i }), t)
      for (let i = 0; i < 10; i++) {
        assert.strictEqual(statusOf(exchange.handleAt(order(i), t)), 400, `order #${i + 1}`)
      }
      assert.strictEqual(statusOf(exchange.handleAt(order(10), t)), 429)
    }))

  it.effect("a 429 carries Retry-After only when configured; public endpoints weigh against the address", () =>
    Effect.gen(function*() {
      const plain = yield* TestExchange.make(TestExchange.demo({ bills: 0 }))
      const configured = yield* TestExchange.make({
        ...TestExchange.demo({ bills: 0 }),
        rateLimits: { ip: { limit: 2, windowMillis: 10_000 }, retryAfterSeconds: 7 }
      })
      const { alice } = TestExchange.demoKeys
      const t = 3_000_000
      // Orders of different bodies: an exact replay of one would be refused as such (40409), not for the rate.
      const order = (i: number) => signed(alice, ORDERS, JSON.stringify({ n: i }), t)
      for (let i = 0; i < 10; i++) plain.handleAt(order(i), t)
      const refused = plain.handleAt(order(10), t)
      assert.strictEqual(statusOf(refused), 429)
      assert.isTrue(refused._tag === "Respond" && refused.headers === undefined, "no Retry-After by default")
      // The public products list weighs 1 against the address: two fit in 2, the third is refused, with Retry-After: 7.
      const info = { method: "GET", path: Venue.endpoints.products.path, header: () => undefined, body: "" }
      const answers = Array.from({ length: 3 }, () => configured.handleAt({ ...info, clientAddress: "10.0.0.1" }, t))
      assert.deepStrictEqual(answers.map(statusOf), [200, 200, 429])
      const last = answers[2]!
      assert.deepStrictEqual(last._tag === "Respond" ? last.headers : undefined, { "retry-after": "7" })
      // Another address has its own budget.
      assert.strictEqual(statusOf(configured.handleAt({ ...info, clientAddress: "10.0.0.2" }, t)), 200)
    }))

  // limits.md#budgets: "10 requests per second per key" on placing, batching, cancelling and transfers; the user's
  // budget (500 per 10 s) stays one for all the user's keys.
  it.effect("the per-endpoint limit is counted per API key: two keys of one user get 10 cancels a second each", () =>
    Effect.gen(function*() {
      const one = { apiKey: "key-one", secretKey: "secret-one", passphrase: "pass-one" }
      const two = { apiKey: "key-two", secretKey: "secret-two", passphrase: "pass-two" }
      const exchange = yield* TestExchange.make({
        accounts: [{ keys: [one, two], balances: [{ accountType: "SPOT", coin: "USDT", amount: "1000" }] }]
      })
      const t = 4_000_000
      const cancel = (key: typeof one, i: number) =>
        statusOf(exchange.handleAt(
          signed(
            key,
            Venue.endpoints.cancelOrder.path,
            JSON.stringify({ symbol: "BTCUSDT_SPBL", orderId: `${100 + i}` }),
            t
          ),
          t
        ))
      const answered = Array.from({ length: 10 }, (_, i) => [cancel(one, i), cancel(two, i)]).flat()
      assert.deepStrictEqual(answered, Array.from({ length: 20 }, () => 200))
      // The 11th of a key within the second is over its own budget.
      assert.strictEqual(cancel(one, 10), 429)
    }))
})
