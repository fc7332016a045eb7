/**
 * Cancels (src/internal/cancel.ts): one order by orderId or clientOrderId with a typed outcome (`Cancelled`, or
 * `NotOpen` unknown / final, whether the venue says so with `result: false` or with an error envelope), many orders in
 * chunks of 50 with one outcome per item in input order, every open order of a symbol; a cancel retried after a lost
 * answer reports the caller's own cancel as `Cancelled`.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import type { Cancel, Order } from "../src/index.ts"
import * as Cancels from "../src/internal/client/cancel.ts"
import {
  CANCEL,
  CANCEL_ALL,
  CANCEL_BATCH,
  FakeVenue,
  ids,
  limitOrderAt,
  NOW,
  ORDER_INFO,
  reasonOf,
  requestsTo,
  SYMBOL,
  venueOrderId,
  withClient
} from "./support/FakeVenue.ts"

/** Places one resting order per clientOrderId; answers the venue. */
const withOrders = (clientOrderIds: ReadonlyArray<string>, options = {}) => {
  const venue = new FakeVenue(options)
  clientOrderIds.forEach((clientOrderId, i) =>
    venue.orders.push({
      orderId: 800_000_000_000_000_000n + BigInt(i),
      symbol: SYMBOL,
      clientOrderId,
      side: "buy",
      orderType: "limit",
      price: "100",
      quantity: "1",
      cTime: NOW - 1_000 + i
    })
  )
  return venue
}

const statusOf = (venue: FakeVenue, clientOrderId: string) =>
  venue.orders.find((order) => order.clientOrderId === clientOrderId)?.status ?? "open"

describe("cancelOrder", () => {
  it.effect("cancels by orderId: Cancelled with both ids, sent as the venue names them", () => {
    const venue = withOrders(["c-1"])
    const orderId = venueOrderId(venue, "c-1")
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const outcome = yield* client.cancelOrder({ symbol: SYMBOL, orderId })
        assert.deepStrictEqual<unknown>(outcome, { _tag: "Cancelled", orderId })
        assert.deepStrictEqual(requestsTo(venue, CANCEL)[0]!.json, { symbol: SYMBOL, orderId })
        assert.strictEqual(statusOf(venue, "c-1"), "cancelled")
      }))
  })

  it.effect("cancels by clientOrderId, sent as clientOid; the venue's order_id completes the outcome", () => {
    const venue = withOrders(["c-2"])
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const outcome = yield* client.cancelOrder({ symbol: SYMBOL, clientOrderId: "c-2" })
        assert.deepStrictEqual<unknown>(outcome, {
          _tag: "Cancelled",
          orderId: venueOrderId(venue, "c-2"),
          clientOrderId: "c-2"
        })
        assert.deepStrictEqual(requestsTo(venue, CANCEL)[0]!.json, { symbol: SYMBOL, clientOid: "c-2" })
      }))
  })

  for (const asEnvelope of [false, true]) {
    const how = asEnvelope ? "an error envelope" : "result: false"
    it.effect(`an unknown order is NotOpen(unknown), not a failure (${how})`, () => {
      const venue = withOrders([], { cancelErrorsAsEnvelope: asEnvelope })
      return withClient(venue, (client) =>
        Effect.gen(function*() {
          const outcome = yield* client.cancelOrder({ symbol: SYMBOL, clientOrderId: "nobody" })
          assert.strictEqual(outcome._tag, "NotOpen")
          if (outcome._tag !== "NotOpen") return
          assert.strictEqual(outcome.reason, "unknown")
          assert.strictEqual(outcome.code, "43001")
          assert.strictEqual(outcome.clientOrderId, "nobody")
          assert.strictEqual(venue.count(CANCEL), 1, "not retried")
        }))
    })

    it.effect(`a filled or cancelled order is NotOpen(final) (${how})`, () => {
      const venue = withOrders(["done-1", "done-2"], { cancelErrorsAsEnvelope: asEnvelope })
      venue.orders[0] = { ...venue.orders[0]!, status: "full_fill" }
      venue.orders[1] = { ...venue.orders[1]!, status: "cancelled" }
      return withClient(venue, (client) =>
        Effect.gen(function*() {
          for (const clientOrderId of ["done-1", "done-2"]) {
            const outcome = yield* client.cancelOrder({ symbol: SYMBOL, clientOrderId })
            assert.deepInclude<unknown>(outcome, { _tag: "NotOpen", reason: "final", code: "43004", clientOrderId })
          }
          assert.strictEqual(venue.count(ORDER_INFO), 0, "nothing to settle: no attempt was lost")
        }))
    })
  }

  it.effect("a cancel whose answer was lost is retried; the venue's 'final' is the caller's own cancel", () => {
    const venue = withOrders(["lost-c"]).fail({ kind: "dropAfter" }, CANCEL)
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const outcome = yield* client.cancelOrder({ symbol: SYMBOL, clientOrderId: "lost-c" })
        assert.deepStrictEqual<unknown>(outcome, {
          _tag: "Cancelled",
          orderId: venueOrderId(venue, "lost-c"),
          clientOrderId: "lost-c"
        })
        assert.strictEqual(venue.count(CANCEL), 2)
        assert.strictEqual(venue.count(ORDER_INFO), 1)
      }))
  })

  // A cancel given up in flight (a timeout around it, a strategy stopped) may have gone through: sent again, the
  // venue's "final" was answered NotOpen(final), whether the earlier call cancelled the order or it had filled.
  for (const [status, expected] of [["open", "Cancelled"], ["full_fill", "NotOpen"]] as const) {
    it.effect(`a cancel given up in flight, sent again: 'final' is checked against the order (${status})`, () => {
      const venue = withOrders(["gone-c"]).fail({ kind: "hangAfter" }, CANCEL)
      if (status !== "open") venue.orders[0] = { ...venue.orders[0]!, status }
      return withClient(venue, (client) =>
        Effect.gen(function*() {
          const ref = { symbol: SYMBOL, clientOrderId: "gone-c" }
          const first = yield* Effect.forkChild(client.cancelOrder(ref), { startImmediately: true })
          for (let step = 0; step < 1_000 && venue.count(CANCEL) === 0; step++) yield* Effect.yieldNow
          assert.strictEqual(venue.count(CANCEL), 1, "the first cancel reached the venue")
          yield* Fiber.interrupt(first)
          assert.strictEqual(statusOf(venue, "gone-c"), status === "open" ? "cancelled" : status)
          const outcome = yield* client.cancelOrder(ref)
          assert.strictEqual(outcome._tag, expected)
          if (outcome._tag === "Cancelled") assert.strictEqual(outcome.orderId, venueOrderId(venue, "gone-c"))
          else assert.deepInclude<unknown>(outcome, { reason: "final" })
          assert.strictEqual(venue.count(ORDER_INFO), 1)
          // Settled by that answer: a third cancel's "final" is the venue's word again, not looked up.
          assert.deepInclude<unknown>(yield* client.cancelOrder(ref), { _tag: "NotOpen", reason: "final" })
          assert.strictEqual(venue.count(ORDER_INFO), 1)
        }))
    })
  }

  it.effect("after a lost answer, an order that filled meanwhile stays NotOpen(final)", () => {
    const venue = withOrders(["filled-c"]).fail({ kind: "dropBefore" }, CANCEL)
    venue.orders[0] = { ...venue.orders[0]!, status: "full_fill" }
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const outcome = yield* client.cancelOrder({ symbol: SYMBOL, clientOrderId: "filled-c" })
        assert.deepInclude<unknown>(outcome, { _tag: "NotOpen", reason: "final" })
        assert.strictEqual(venue.count(ORDER_INFO), 1)
      }))
  })

  it.effect("another refusal is a failure with its reason", () => {
    const venue = withOrders(["c-3"]).fail({ kind: "venue", code: "40014", msg: "Incorrect permissions" }, CANCEL)
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(client.cancelOrder({ symbol: SYMBOL, clientOrderId: "c-3" }))
        reasonOf(error, "PermissionError")
        assert.strictEqual(error.operation, "SpotClient.cancelOrder")
      }))
  })

  it.effect.each([
    { name: "both ids", input: { symbol: SYMBOL, orderId: "1", clientOrderId: "a" }, field: "orderId" },
    { name: "no id", input: { symbol: SYMBOL }, field: "orderId" },
    { name: "a bad symbol", input: { symbol: "btc", orderId: "1" }, field: "symbol" },
    { name: "an orderId that is not digits", input: { symbol: SYMBOL, orderId: "12a" }, field: "orderId" },
    {
      name: "a clientOrderId of 41 characters",
      input: { symbol: SYMBOL, clientOrderId: "x".repeat(41) },
      field: "clientOrderId"
    }
  ])("refuses $name before sending", ({ field, input }) => {
    const venue = withOrders([])
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(client.cancelOrder(input as Cancel.CancelOrderInput))
        assert.strictEqual(reasonOf(error, "ValidationError").field, field)
        assert.strictEqual(venue.requests.length, 0)
      }))
  })
})

describe("cancelOrders", () => {
  it.effect("120 orderIds go as 50, 50 and 20; one outcome per item in input order", () => {
    const clientOrderIds = ids(120, "m")
    const venue = withOrders(clientOrderIds)
    const orderIds = clientOrderIds.map((id) => venueOrderId(venue, id))
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const result = yield* client.cancelOrders(SYMBOL, orderIds.map((orderId) => ({ orderId })))
        const requests = requestsTo(venue, CANCEL_BATCH)
        assert.deepStrictEqual(requests.map((request) => (request.json.orderIds as Array<string>).length), [50, 50, 20])
        assert.deepStrictEqual(requests.flatMap((request) => request.json.orderIds as Array<string>), orderIds)
        assert.deepStrictEqual(result.outcomes.map((outcome) => outcome.index), orderIds.map((_, i) => i))
        assert.deepStrictEqual(result.outcomes.map((outcome) => outcome._tag), orderIds.map(() => "Cancelled"))
        assert.deepStrictEqual<unknown>(result.outcomes.map((outcome) => outcome.orderId), orderIds)
        assert.deepInclude(result, { cancelled: 120, notOpen: 0, failed: 0 })
      }))
  })

  it.effect("mixed ids, unknown, final, invalid and repeated items: each answered in its place", () => {
    const venue = withOrders(["k-0", "k-1", "k-2", "k-3"])
    venue.orders[3] = { ...venue.orders[3]!, status: "full_fill" }
    const refs: ReadonlyArray<Order.OrderRef> = [
      { clientOrderId: "k-0" },
      { orderId: venueOrderId(venue, "k-1") },
      { clientOrderId: "nobody" },
      { orderId: "999" },
      { clientOrderId: "k-3" },
      { clientOrderId: "bad id" },
      { orderId: venueOrderId(venue, "k-1") },
      { clientOrderId: "k-2" }
    ]
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const result = yield* client.cancelOrders(SYMBOL, refs)
        const brief = result.outcomes.map((outcome) =>
          outcome._tag === "NotOpen" ? `NotOpen:${outcome.reason}` : outcome._tag
        )
        assert.deepStrictEqual(brief, [
          "Cancelled",
          "Cancelled",
          "NotOpen:unknown",
          "NotOpen:unknown",
          "NotOpen:final",
          "Failed",
          "Cancelled",
          "Cancelled"
        ])
        assert.deepStrictEqual(result.outcomes.map((outcome) => outcome.index), refs.map((_, i) => i))
        assert.deepInclude(result.outcomes[5], { code: "ValidationError", clientOrderId: "bad id" })
        assert.deepInclude(result.outcomes[0], { clientOrderId: "k-0" })
        assert.deepInclude(result, { cancelled: 4, notOpen: 3, failed: 1 })
        // One request per kind of id, each order once.
        const requests = requestsTo(venue, CANCEL_BATCH)
        assert.deepStrictEqual(requests.map((request) => request.json.orderIds ?? request.json.clientOids), [
          [venueOrderId(venue, "k-1"), "999"],
          ["k-0", "nobody", "k-3", "k-2"]
        ])
        for (const id of ["k-0", "k-1", "k-2"]) assert.strictEqual(statusOf(venue, id), "cancelled")
      }))
  })

  it.effect("a chunk that fails after retries fails its own items only", () => {
    const clientOrderIds = ids(60, "f")
    const venue = withOrders(clientOrderIds)
    venue.onHandled = (request) => {
      if (request.path === CANCEL_BATCH && venue.count(CANCEL_BATCH) === 1) {
        venue.fail({ kind: "venue", code: "40014", msg: "Incorrect permissions" }, CANCEL_BATCH)
      }
    }
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const result = yield* client.cancelOrders(SYMBOL, clientOrderIds.map((clientOrderId) => ({ clientOrderId })))
        assert.deepInclude(result, { cancelled: 50, notOpen: 0, failed: 10 })
        for (const outcome of result.outcomes.slice(50)) {
          assert.deepInclude<unknown>(outcome, { _tag: "Failed", code: "40014" })
        }
      }))
  })

  it.effect("a chunk whose answer was lost: the retry's 'final' answers are settled by the orders' status", () => {
    const venue = withOrders(["s-0", "s-1"]).fail({ kind: "dropAfter" }, CANCEL_BATCH)
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const result = yield* client.cancelOrders(SYMBOL, [{ clientOrderId: "s-0" }, { clientOrderId: "s-1" }])
        assert.deepInclude(result, { cancelled: 2, notOpen: 0, failed: 0 })
        assert.deepStrictEqual<unknown>(result.outcomes.map((outcome) => outcome.orderId), [
          venueOrderId(venue, "s-0"),
          venueOrderId(venue, "s-1")
        ])
        assert.strictEqual(venue.count(CANCEL_BATCH), 2)
      }))
  })

  it.effect("a chunk given up in flight, sent again: its 'final' answers are settled by the orders' status", () => {
    const venue = withOrders(["g-0", "g-1"]).fail({ kind: "hangAfter" }, CANCEL_BATCH)
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const refs = [{ clientOrderId: "g-0" }, { clientOrderId: "g-1" }]
        const first = yield* Effect.forkChild(client.cancelOrders(SYMBOL, refs), { startImmediately: true })
        for (let step = 0; step < 1_000 && venue.count(CANCEL_BATCH) === 0; step++) yield* Effect.yieldNow
        yield* Fiber.interrupt(first)
        const result = yield* client.cancelOrders(SYMBOL, refs)
        assert.deepInclude(result, { cancelled: 2, notOpen: 0, failed: 0 })
        assert.strictEqual(venue.count(CANCEL_BATCH), 2)
      }))
  })

  it.effect("an empty list sends nothing", () => {
    const venue = withOrders([])
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const result = yield* client.cancelOrders(SYMBOL, [])
        assert.deepStrictEqual(result, { outcomes: [], cancelled: 0, notOpen: 0, failed: 0, complete: true })
        assert.strictEqual(venue.requests.length, 0)
      }))
  })
})

describe("cancelAll", () => {
  it.effect("cancels every open order of the symbol and answers their ids", () => {
    const venue = withOrders(["a-0", "a-1", "a-2"])
    venue.orders[2] = { ...venue.orders[2]!, status: "full_fill" }
    venue.orders.push({ ...limitOrderAtFake("other-sym"), symbol: "ETHUSDT_SPBL" })
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const result = yield* client.cancelAll(SYMBOL)
        assert.deepStrictEqual<unknown>(result, {
          outcomes: [
            { _tag: "Cancelled", index: 0, orderId: venueOrderId(venue, "a-0") },
            { _tag: "Cancelled", index: 1, orderId: venueOrderId(venue, "a-1") }
          ],
          cancelled: 2,
          notOpen: 0,
          failed: 0,
          complete: true
        })
        assert.deepStrictEqual(requestsTo(venue, CANCEL_ALL)[0]!.json, { symbol: SYMBOL })
        assert.strictEqual(statusOf(venue, "other-sym"), "open")
      }))
  })

  it.effect("sent again after a lost answer: the retry lists nothing the first attempt cancelled, and says so", () => {
    const venue = withOrders(["b-0", "b-1"]).fail({ kind: "dropAfter" }, CANCEL_ALL)
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const result = yield* client.cancelAll(SYMBOL)
        assert.strictEqual(venue.count(CANCEL_ALL), 2)
        assert.strictEqual(statusOf(venue, "b-0"), "cancelled")
        assert.strictEqual(statusOf(venue, "b-1"), "cancelled")
        assert.deepInclude(result, { cancelled: 0, complete: false })
      }))
  })
})

describe("cancelAll's answer", () => {
  it("answers the outcomes cancelOrders answers: cancelled first, then final (43004), unknown (43001), failed", () => {
    const result = Cancels.all({
      successList: ["11", "12"],
      failureList: [
        { orderId: "13", errCode: "43004", errMsg: "There is no order to cancel" },
        { orderId: "14", errCode: "43001", errMsg: "FAILED_ORDER_NOT_FOUND" },
        { clientOid: "c-15", errCode: "40015", errMsg: "system error" },
        // Only a message, as the venue's batch samples show: read by the code table's rules for messages.
        { orderId: "16", errMsg: "FAILED_ORDER_NOT_FOUND" }
      ]
    })
    assert.deepStrictEqual(
      result.outcomes.map((outcome) => outcome._tag === "NotOpen" ? outcome.reason : outcome._tag),
      ["Cancelled", "Cancelled", "final", "unknown", "Failed", "unknown"]
    )
    assert.deepStrictEqual(result.outcomes.map((outcome) => outcome.index), [0, 1, 2, 3, 4, 5])
    assert.deepStrictEqual([result.cancelled, result.notOpen, result.failed], [2, 3, 1])
    assert.deepStrictEqual<unknown>(result.outcomes[4], {
      _tag: "Failed",
      index: 4,
      clientOrderId: "c-15",
      code: "40015",
      message: "system error"
    })
    assert.deepStrictEqual<unknown>(result.outcomes[5], {
      _tag: "NotOpen",
      index: 5,
      orderId: "16",
      reason: "unknown",
      code: "43001",
      message: "FAILED_ORDER_NOT_FOUND"
    })
  })
})

/** A resting order record for the fake, from `limitOrderAt`'s shape. */
const limitOrderAtFake = (clientOrderId: string) => {
  const input = limitOrderAt(clientOrderId)
  return {
    orderId: 900_000_000_000_000_001n,
    symbol: input.symbol,
    clientOrderId,
    side: input.side,
    orderType: input.orderType,
    price: input.price!,
    quantity: input.quantity,
    cTime: NOW - 5_000
  }
}
