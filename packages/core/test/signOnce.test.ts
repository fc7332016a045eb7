/**
 * Every send is signed exactly once (issue #26): one HMAC per request sent, for every signed operation, counted by a
 * signer that records each text it signs. Identical reads in the same millisecond share a timestamp (a replayed read
 * changes nothing); identical writes in the same millisecond take successive timestamps instead of a loop that waits
 * for the clock, and distinct writes share it.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import { TestClock } from "effect/testing"
import { createHmac } from "node:crypto"
import { Signer, SpotClient, type SpotError, Venue } from "../src/index.ts"
import { ServerClock } from "../src/internal/client/serverClock.ts"
import {
  clientOptions,
  FakeVenue,
  isPublicPath,
  NOW,
  type Received,
  sampleTransfer,
  SYMBOL
} from "./support/FakeVenue.ts"

const countingSigner = () => {
  const signed: Array<string> = []
  const service: Signer.Service = {
    name: "counting",
    prepare: (secretKey) =>
      Effect.succeed((prehash: string) =>
        Effect.sync(() => {
          signed.push(prehash)
          return createHmac("sha256", Redacted.value(secretKey)).update(prehash).digest("base64")
        })
      )
  }
  return { signed, service }
}

const run = <A>(f: (client: SpotClient.Service) => Effect.Effect<A, SpotError.SpotError>) => {
  const venue = new FakeVenue()
  const { service, signed } = countingSigner()
  const layer = SpotClient.layer({ ...clientOptions, rateLimit: false, retry: false }).pipe(
    Layer.provide([venue.layer, Signer.layer(service)])
  )
  return Effect.gen(function*() {
    yield* TestClock.setTime(NOW)
    const value = yield* f(yield* SpotClient.SpotClient)
    const sent: ReadonlyArray<Received> = venue.requests.filter((request) => !isPublicPath(request.pathname))
    return { value, signed, sent }
  }).pipe(Effect.provide(layer))
}

const order = (clientOrderId: string) => ({
  symbol: SYMBOL,
  side: "buy" as const,
  orderType: "limit" as const,
  price: "100",
  quantity: "1",
  clientOrderId
})

const operations: ReadonlyArray<readonly [string, (client: SpotClient.Service) => Effect.Effect<unknown, unknown>]> = [
  ["placeOrder", (client) => client.placeOrder(order("once-1"))],
  ["placeOrders", (client) => client.placeOrders(SYMBOL, [order("once-2"), order("once-3")])],
  ["openOrdersPage", (client) => client.openOrdersPage({ symbol: SYMBOL })],
  ["order", (client) => client.order({ clientOrderId: "once-1" })],
  ["cancelOrder", (client) => client.cancelOrder({ symbol: SYMBOL, clientOrderId: "once-1" })],
  ["cancelOrders", (client) => client.cancelOrders(SYMBOL, [{ clientOrderId: "once-2" }])],
  ["cancelAll", (client) => client.cancelAll(SYMBOL)],
  ["orderHistoryPage", (client) => client.orderHistoryPage({ symbol: SYMBOL })],
  ["fillsPage", (client) => client.fillsPage({ symbol: SYMBOL })],
  ["balances", (client) => client.balances()],
  ["fundingBillsPage", (client) => client.fundingBillsPage({})],
  ["internalTransfer", (client) => client.internalTransfer(sampleTransfer)],
  ["transferStatus", (client) => client.transferStatus({ page: 1 })]
]

describe("one signature per send", () => {
  it.effect.each(operations)("%s: one HMAC per signed request sent", ([, call]) =>
    Effect.gen(function*() {
      const { sent, signed } = yield* run((client) => Effect.asVoid(Effect.result(call(client))))
      assert.isAbove(sent.length, 0)
      assert.strictEqual(signed.length, sent.length)
      assert.deepStrictEqual(
        signed,
        sent.map((request) => `${request.headers["access-timestamp"]}${request.method}${request.path}${request.body}`)
      )
    }))

  it.effect("16 identical reads in flight in one millisecond: 16 requests, 16 HMACs, one timestamp", () =>
    Effect.gen(function*() {
      const { sent, signed } = yield* run((client) =>
        Effect.forEach(
          Array.from({ length: 16 }, () => client.openOrdersPage({ symbol: SYMBOL })),
          (call) => call,
          { concurrency: 16 }
        )
      )
      assert.strictEqual(sent.length, 16)
      assert.strictEqual(signed.length, 16)
      assert.deepStrictEqual(
        new Set(sent.map((request) => request.headers["access-timestamp"])),
        new Set([String(NOW)])
      )
    }))

  it.effect("identical writes in one millisecond: successive timestamps, each signed once; distinct writes share it", () =>
    Effect.gen(function*() {
      const { sent, signed } = yield* run((client) =>
        Effect.gen(function*() {
          yield* client.internalTransfer(sampleTransfer)
          yield* client.internalTransfer(sampleTransfer)
          yield* client.internalTransfer({ ...sampleTransfer, amount: "2" })
          yield* client.internalTransfer(sampleTransfer)
        })
      )
      assert.strictEqual(signed.length, 4)
      assert.deepStrictEqual(sent.map((request) => Number(request.headers["access-timestamp"]) - NOW), [0, 1, 1, 2])
      assert.strictEqual(new Set(sent.map((request) => request.headers["access-sign"])).size, 4)
    }))

  it("more writes in a millisecond than are compared one by one: a repeat of any of them takes the next millisecond", () => {
    const write = Venue.endpoints.internalTransfer
    // 5 writes are compared one by one; 40 go into sets past the 16th.
    for (const [count, repeated] of [[5, 0], [5, 4], [40, 0], [40, 15], [40, 16], [40, 17], [40, 39]] as const) {
      const bodies = Array.from({ length: count }, (_, i) => `{"amount":"${i}"}`)
      const clock = new ServerClock()
      // Distinct writes share the millisecond.
      assert.deepStrictEqual(new Set(bodies.map((body) => clock.stamp(write, "/a", body, NOW))), new Set([NOW]))
      // The same body on another path is another write: it shares it too.
      assert.strictEqual(clock.stamp(write, "/b", bodies[repeated]!, NOW), NOW)
      // A repeat takes the next millisecond, and a repeat there the one after.
      assert.strictEqual(
        clock.stamp(write, "/a", bodies[repeated]!, NOW),
        NOW + 1,
        `write ${repeated} of ${count} repeated`
      )
      assert.strictEqual(clock.stamp(write, "/a", bodies[repeated === 0 ? 1 : 0]!, NOW), NOW + 1)
      assert.strictEqual(clock.stamp(write, "/a", bodies[repeated]!, NOW), NOW + 2)
      assert.strictEqual(clock.stamp(write, "/a", bodies[repeated]!, NOW), NOW + 3)
    }
  })
})
