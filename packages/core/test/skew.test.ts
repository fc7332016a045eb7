import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import { SpotClient } from "../src/index.ts"
import { clientLayer, FakeVenue, NOW, SYMBOL } from "./support/FakeVenue.ts"

const TOLERANCE_MILLIS = 5

/**
 * A fake venue whose clock is `skewMillis` ahead of ours (negative: behind), and `run`, which gives `body` a client
 * over it (no rate limiting) with our clock, a TestClock, at NOW.
 */
const skewedVenue = (skewMillis: number, options: Partial<SpotClient.Options> = {}) => {
  const venue = new FakeVenue({ skewMillis })
  const layer = clientLayer(venue, { rateLimit: false, ...options })
  const run = <A, E>(body: Effect.Effect<A, E, SpotClient.SpotClient>) =>
    Effect.provide(Effect.andThen(TestClock.setTime(NOW), body), layer)
  return { venue, run }
}

const timestampOf = (venue: FakeVenue, index: number) => Number(venue.requests[index]!.headers["access-timestamp"])

const assertNear = (actual: number, expected: number, what: string) =>
  assert.isAtMost(Math.abs(actual - expected), TOLERANCE_MILLIS, `${what}: ${actual} vs ${expected}`)

const order = {
  symbol: SYMBOL,
  side: "buy",
  orderType: "limit",
  price: "100",
  quantity: "1",
  clientOrderId: "skewed-1"
} as const

describe("clock skew", () => {
  it.effect.each([
    { name: "ahead by 2 minutes", skew: 120_000 },
    { name: "behind by 45 s", skew: -45_000 }
  ])("re-syncs once after 40008 when the server clock is $name", ({ skew }) => {
    // Retries off: the one re-sync is the transport's own, not the generic retry.
    const { run, venue } = skewedVenue(skew, { retry: false })
    return run(
      Effect.gen(function*() {
        const client = yield* SpotClient.SpotClient
        const placed = yield* client.placeOrder(order)
        assert.strictEqual(venue.requests.length, 2)
        assertNear(timestampOf(venue, 0), NOW, "first timestamp (local clock)")
        assertNear(timestampOf(venue, 1), NOW + skew, "second timestamp (server clock)")
        assert.strictEqual(venue.orders.length, 1)
        assert.strictEqual(placed.orderId, String(venue.orders[0]!.orderId))

        yield* TestClock.adjust("3 seconds")
        yield* client.openOrdersPage({ symbol: SYMBOL })
        assert.strictEqual(venue.requests.length, 3)
        assertNear(timestampOf(venue, 2), NOW + 3_000 + skew, "later timestamp")
        yield* client.fundingBillsPage({})
        assert.strictEqual(venue.requests.length, 4)
        assertNear(yield* client.clockOffset, skew, "clockOffset")
      })
    )
  })

  it.effect("re-syncs a transfer once after 40008", () => {
    const { run, venue } = skewedVenue(120_000, { retry: false })
    return run(
      Effect.gen(function*() {
        const client = yield* SpotClient.SpotClient
        yield* client.internalTransfer({
          toUserId: "1234567",
          coin: "BTC",
          amount: "0.5",
          fromAccountType: "SPOT",
          toAccountType: "SPOT"
        })
        assert.strictEqual(venue.requests.length, 2)
        assertNear(timestampOf(venue, 1), NOW + 120_000, "second timestamp")
      })
    )
  })

  it.effect("learns a skew inside the window from a successful envelope", () => {
    const { run, venue } = skewedVenue(10_000)
    return run(
      Effect.gen(function*() {
        const client = yield* SpotClient.SpotClient
        assert.strictEqual(yield* client.clockOffset, 0)
        yield* client.openOrdersPage({ symbol: SYMBOL })
        assert.strictEqual(venue.requests.length, 1)
        assertNear(timestampOf(venue, 0), NOW, "first timestamp")
        assertNear(yield* client.clockOffset, 10_000, "clockOffset")
        yield* client.openOrdersPage({ symbol: SYMBOL })
        assert.strictEqual(venue.requests.length, 2)
        assertNear(timestampOf(venue, 1), NOW + 10_000, "corrected timestamp")
      })
    )
  })

  it.effect("fails with TimestampError after one re-sync when the venue keeps answering 40008", () => {
    const { run, venue } = skewedVenue(0, { retry: false })
    venue.fail({ kind: "venue", code: "40008", msg: "Request timestamp expired" })
    venue.fail({ kind: "venue", code: "40008", msg: "Request timestamp expired" })
    return run(
      Effect.gen(function*() {
        const client = yield* SpotClient.SpotClient
        const error = yield* Effect.flip(client.placeOrder(order))
        assert.strictEqual(error.reason._tag, "TimestampError")
        assert.strictEqual(error.code, "40008")
        assert.strictEqual(venue.requests.length, 2)
        assert.strictEqual(venue.orders.length, 0)
      })
    )
  })
})
