/**
 * The operations on orders (src/internal/orders.ts) beyond placing: one order's state by orderId or clientOrderId
 * (`order`, which sees filled and cancelled orders and answers `None` for an unknown id), and `resolve`, which settles
 * the `mayExist` outcomes of a batch by looking each order up.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { Order } from "../src/index.ts"
import {
  BATCH,
  batchItem,
  FakeVenue,
  ids,
  NOW,
  ORDER_INFO,
  orderIdOf,
  reasonOf,
  requestsTo,
  SYMBOL,
  venueOrderId,
  withClient
} from "./support/FakeVenue.ts"

describe("order", () => {
  it.effect("finds an order by orderId and by clientOrderId, exact ids and camelCase fields", () => {
    const venue = new FakeVenue()
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const placed = yield* client.placeOrder({
          symbol: SYMBOL,
          side: "sell",
          orderType: "limit",
          price: "30000.1",
          quantity: "0.002",
          clientOrderId: "find-1"
        })
        const byId = yield* client.order({ orderId: placed.orderId })
        const byClientId = yield* client.order({ clientOrderId: "find-1" })
        assert.isTrue(Option.isSome(byId))
        assert.deepStrictEqual(byId, byClientId)
        const record = Option.getOrThrow(byId)
        assert.strictEqual(record.orderId, "602876318261969338")
        assert.strictEqual(record.clientOrderId, "find-1")
        assert.deepInclude<unknown>(record, {
          symbol: SYMBOL,
          side: "sell",
          price: "30000.1",
          quantity: "0.002",
          status: "open"
        })
        assert.isFalse(Order.isFinal(record.status))
        assert.deepStrictEqual(requestsTo(venue, ORDER_INFO).map((request) => request.json), [
          { orderId: "602876318261969338" },
          { clientOrderId: "find-1" }
        ])
      }))
  })

  it.effect("sees filled and cancelled orders, which open orders do not list", () => {
    const venue = new FakeVenue()
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        yield* client.placeOrder({
          symbol: SYMBOL,
          side: "buy",
          orderType: "market",
          quantity: "25",
          clientOrderId: "mk"
        })
        yield* client.placeOrder({ ...batchItem("gone"), symbol: SYMBOL })
        venue.orders[0] = { ...venue.orders[0]!, status: "full_fill", fillQuantity: "0.0009" }
        venue.orders[1] = { ...venue.orders[1]!, status: "cancelled" }
        const filled = Option.getOrThrow(yield* client.order({ clientOrderId: "mk" }))
        const cancelled = Option.getOrThrow(yield* client.order({ clientOrderId: "gone" }))
        assert.deepInclude<unknown>(filled, { status: "full_fill", fillQuantity: "0.0009", orderType: "market" })
        assert.isTrue(Order.isFinal(filled.status))
        assert.isTrue(Order.isFinal(cancelled.status))
        assert.strictEqual((yield* client.openOrdersPage({ symbol: SYMBOL })).orderInfoResultList?.length, 0)
      }))
  })

  it.effect("an unknown id is None, not an error", () => {
    const venue = new FakeVenue()
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        assert.isTrue(Option.isNone(yield* client.order({ clientOrderId: "never-placed" })))
        assert.isTrue(Option.isNone(yield* client.order({ orderId: "123" })))
      }))
  })

  it.effect("keeps a status it does not know as it came, and says which are final", () => {
    const venue = new FakeVenue()
    venue.orders.push({
      orderId: 1n,
      symbol: SYMBOL,
      clientOrderId: "odd",
      side: "buy",
      orderType: "limit",
      price: "1",
      quantity: "1",
      cTime: NOW,
      status: "pending_review"
    })
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const record = Option.getOrThrow(yield* client.order({ clientOrderId: "odd" }))
        assert.strictEqual(record.status, "pending_review")
        assert.isFalse(Order.isFinal(record.status))
        for (const status of ["full_fill", "cancelled", "filled", "canceled"]) assert.isTrue(Order.isFinal(status))
        for (const status of ["init", "new", "open", "partial_fill"]) assert.isFalse(Order.isFinal(status))
      }))
  })

  it.effect.each([
    { name: "both ids", ref: { orderId: "1", clientOrderId: "a" } },
    { name: "neither id", ref: {} },
    { name: "a clientOrderId with a space", ref: { clientOrderId: "a b" } }
  ])("refuses $name before sending", ({ ref }) => {
    const venue = new FakeVenue()
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(client.order(ref as Order.OrderRef))
        reasonOf(error, "ValidationError")
        assert.strictEqual(error.operation, "SpotClient.order")
        assert.strictEqual(venue.requests.length, 0)
      }))
  })
})

describe("resolve", () => {
  it.effect("settles mayExist outcomes: Placed when the order exists, not placed when the venue has none", () => {
    // Every attempt of the batch fails with the order applied but the answer lost, and retries are off: the lookup
    // during the call fails too (the venue is unreachable for it), so the outcomes say mayExist.
    const venue = new FakeVenue().fail({ kind: "dropAfter" }, BATCH).fail({ kind: "dropBefore" }, ORDER_INFO)
      .fail({ kind: "dropBefore" }, ORDER_INFO).fail({ kind: "dropBefore" }, ORDER_INFO)
    const items = ids(3, "r-").map(batchItem)
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const result = yield* client.placeOrders(SYMBOL, items)
        assert.deepStrictEqual(result.outcomes.map((outcome) => outcome._tag === "Failed" && outcome.mayExist), [
          true,
          true,
          true
        ])
        // The venue is reachable again; one of the orders never reached it after all.
        venue.faults.length = 0
        venue.orders.splice(venue.orders.findIndex((order) => order.clientOrderId === "r-1"), 1)
        const resolved = yield* client.resolve(SYMBOL, items, result)
        assert.strictEqual(orderIdOf(resolved.outcomes[0]), venueOrderId(venue, "r-0"))
        assert.deepInclude(resolved.outcomes[1], { _tag: "Failed", mayExist: false, clientOrderId: "r-1" })
        assert.strictEqual(orderIdOf(resolved.outcomes[2]), venueOrderId(venue, "r-2"))
        assert.deepInclude(resolved, { placed: 2, failed: 1 })
      }), { retry: false })
  })

  it.effect("an order found under the clientOrderId but different is not taken for the item", () => {
    const venue = new FakeVenue()
    const item = batchItem("taken")
    venue.orders.push({
      orderId: 5n,
      symbol: SYMBOL,
      clientOrderId: "taken",
      side: "buy",
      orderType: "limit",
      price: "1",
      quantity: "9",
      cTime: NOW - 60_000
    })
    const result: Order.BatchResult = {
      outcomes: [{
        _tag: "Failed",
        index: 0,
        clientOrderId: "taken",
        code: "TransportError",
        message: "lost",
        mayExist: true
      }],
      placed: 0,
      failed: 1
    }
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const resolved = yield* client.resolve(SYMBOL, [item], result)
        assert.deepInclude(resolved.outcomes[0], { _tag: "Failed", mayExist: false })
        assert.include((resolved.outcomes[0] as { message: string }).message, "another order (5)")
      }))
  })

  it.effect("leaves settled outcomes alone and sends nothing for them", () => {
    const venue = new FakeVenue()
    const items = ids(2, "ok-").map(batchItem)
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const result = yield* client.placeOrders(SYMBOL, items)
        const resolved = yield* client.resolve(SYMBOL, items, result)
        assert.deepStrictEqual(resolved, result)
        assert.strictEqual(venue.count(ORDER_INFO), 0)
      }))
  })
})
