/**
 * Batches of any size (src/internal/batch.ts): sent in chunks of the venue's batch limit, answered with one outcome
 * per item in input order; an invalid item, a refused item or a failed chunk fails only its own items; items an
 * ambiguous attempt may have placed are looked up among the open orders before they are reported.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { type Order } from "../src/index.ts"
import {
  addOldOrder,
  allInsufficient,
  BATCH,
  batchItem,
  FakeVenue,
  ids,
  OLD_ORDER_ID,
  orderIdOf,
  requestsTo,
  ScriptedVenue,
  SYMBOL,
  venueOrderId,
  withClient
} from "./support/FakeVenue.ts"

/** A batch item: a limit buy of 1 at 100. */
const buyItem = (clientOrderId: string): Order.BatchItemInput => ({
  side: "buy",
  orderType: "limit",
  price: "100",
  quantity: "1",
  clientOrderId
})

describe("placeOrders chunking", () => {
  it.effect("sends 120 items as 50, 50 and 20, answering in input order", () => {
    const venue = new FakeVenue()
    const clientOrderIds = ids(120)
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const result = yield* client.placeOrders(SYMBOL, clientOrderIds.map(batchItem))
        const requests = requestsTo(venue, BATCH)
        assert.deepStrictEqual(requests.map((request) => (request.json.orderList as Array<unknown>).length), [
          50,
          50,
          20
        ])
        const sent = requests.flatMap((request) =>
          (request.json.orderList as Array<Record<string, unknown>>).map((item) => item.clientOrderId)
        )
        assert.deepStrictEqual(sent, clientOrderIds)
        for (const request of requests) assert.strictEqual(request.json.symbol, SYMBOL)
        assert.deepStrictEqual(result.outcomes.map((outcome) => outcome.index), clientOrderIds.map((_, i) => i))
        assert.deepStrictEqual(result.outcomes.map((outcome) => outcome.clientOrderId), clientOrderIds)
        for (const outcome of result.outcomes) {
          assert.strictEqual(orderIdOf(outcome), venueOrderId(venue, outcome.clientOrderId))
        }
        assert.strictEqual(orderIdOf(result.outcomes[119]), "602876318261969457")
        assert.strictEqual(result.placed, 120)
        assert.strictEqual(result.failed, 0)
      }))
  })

  const failSecondChunk = (venue: FakeVenue, faults: number) => {
    venue.onHandled = (request) => {
      if (request.path === BATCH && venue.count(BATCH) === 1) {
        for (let i = 0; i < faults; i++) venue.fail({ kind: "venue", code: "40200", msg: "server upgrade" }, BATCH)
      }
    }
  }

  const assertSecondChunkFailed = (venue: FakeVenue, result: Order.BatchResult) => {
    for (const outcome of result.outcomes) {
      if (outcome.index >= 50 && outcome.index < 100) {
        assert.deepInclude(outcome, { _tag: "Failed", code: "40200", mayExist: false })
      } else {
        assert.strictEqual(orderIdOf(outcome), venueOrderId(venue, outcome.clientOrderId), `item ${outcome.index}`)
      }
    }
    assert.strictEqual(result.placed, 70)
    assert.strictEqual(result.failed, 50)
    assert.strictEqual(venue.orders.length, 70)
    assert.isFalse(venue.orders.some((order) => /^c(5\d|[6-9]\d)$/.test(order.clientOrderId)))
  }

  it.effect("fails only the items of a chunk the venue refused (no retries)", () => {
    const venue = new FakeVenue()
    failSecondChunk(venue, 1)
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const result = yield* client.placeOrders(SYMBOL, ids(120).map(batchItem))
        assert.strictEqual(venue.count(BATCH), 3)
        assertSecondChunkFailed(venue, result)
      }), { retry: false })
  })

  it.effect("fails only the items of a chunk whose retries are exhausted", () => {
    const venue = new FakeVenue()
    failSecondChunk(venue, 3)
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const result = yield* client.placeOrders(SYMBOL, ids(120).map(batchItem))
        assert.strictEqual(venue.count(BATCH), 5)
        assertSecondChunkFailed(venue, result)
      }), { retry: { times: 2, baseDelay: 0 } })
  })

  it.effect("maps per-item failures of the venue's failure list to those items only", () => {
    const rejected = new Set(["c3", "c49", "c50", "c117"])
    const venue = new FakeVenue({
      rejectItem: (item) => rejected.has(String(item.clientOrderId)) ? "45110" : undefined
    })
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const result = yield* client.placeOrders(SYMBOL, ids(120).map(batchItem))
        for (const outcome of result.outcomes) {
          if (rejected.has(outcome.clientOrderId)) {
            assert.deepInclude(outcome, { _tag: "Failed", code: "45110", mayExist: false })
          } else {
            assert.strictEqual(orderIdOf(outcome), venueOrderId(venue, outcome.clientOrderId))
          }
        }
        assert.strictEqual(result.placed, 116)
        assert.strictEqual(result.failed, 4)
        assert.strictEqual(venue.count(BATCH), 3)
      }))
  })

  // Items come from files (the CLI passes them as read): an outcome's clientOrderId is a string whatever the item
  // held (before, an object given as the id was echoed as the outcome's clientOrderId, "[object Object]" in a table).
  it.effect("an invalid item's outcome names its clientOrderId only when it is a string", () => {
    const venue = new FakeVenue()
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const items = [
          { ...buyItem("x"), clientOrderId: { a: "1" } },
          { ...buyItem("y"), clientOrderId: 12 },
          null,
          { ...buyItem("bad id"), quantity: "-1" }
        ] as unknown as ReadonlyArray<Order.BatchItemInput>
        const result = yield* client.placeOrders(SYMBOL, items)
        assert.deepStrictEqual(result.outcomes.map((outcome) => outcome.clientOrderId), ["", "", "", "bad id"])
        assert.deepStrictEqual(result.outcomes.map((outcome) => outcome._tag), ["Failed", "Failed", "Failed", "Failed"])
        assert.strictEqual(requestsTo(venue, BATCH).length, 0)
      }))
  })

  it.effect("fails a repeated clientOrderId locally without sending it", () => {
    const venue = new FakeVenue()
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const result = yield* client.placeOrders(SYMBOL, ["a", "b", "a", "c"].map(batchItem))
        const [request] = requestsTo(venue, BATCH)
        assert.deepStrictEqual(
          (request!.json.orderList as Array<Record<string, unknown>>).map((item) => item.clientOrderId),
          ["a", "b", "c"]
        )
        assert.deepStrictEqual(result.outcomes.map((outcome) => outcome._tag), ["Placed", "Placed", "Failed", "Placed"])
        assert.deepInclude(result.outcomes[2], {
          index: 2,
          clientOrderId: "a",
          code: "ValidationError",
          mayExist: false
        })
        assert.strictEqual(orderIdOf(result.outcomes[0]), venueOrderId(venue, "a"))
        assert.strictEqual(result.placed, 3)
        assert.strictEqual(result.failed, 1)
      }))
  })
})

describe("a batch answer that contradicts itself", () => {
  type Result = { orderId: string; clientOrderId: string }
  /** The batch's answer with its result list changed by `change`. */
  const rewritten = (change: (list: Array<Result>) => Array<Result>) =>
    // (Ids as strings: `JSON.parse` would round 19-digit numbers.)
    new ScriptedVenue({ idsAsStrings: true }).answerNext(BATCH, (original) => {
      const body = JSON.parse(original.body) as { data: { resultList: Array<Result> } }
      body.data.resultList = change(body.data.resultList)
      return { status: original.status, body: JSON.stringify(body) }
    })

  it.effect("one orderId for two orders: neither is reported with it; each is looked up and found under its own", () => {
    const venue = rewritten((list) =>
      list.map((result, i) => i === 1 ? { ...result, orderId: list[0]!.orderId } : result)
    )
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const result = yield* client.placeOrders(SYMBOL, ["c-1", "c-2", "c-3"].map(buyItem))
        assert.deepStrictEqual(
          result.outcomes.map(orderIdOf),
          ["c-1", "c-2", "c-3"].map((id) => venueOrderId(venue, id))
        )
        assert.strictEqual(new Set(result.outcomes.map(orderIdOf)).size, 3)
        assert.strictEqual(result.placed, 3)
      }))
  })

  it.effect("one order named twice with two ids: looked up; not found, it may exist and says why", () => {
    const venue = rewritten((list) => [...list, { ...list[0]!, orderId: "1999999999999999999" }])
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        // The venue forgets the order before the lookup, which so finds nothing.
        venue.onHandled = (request) => {
          if (request.path === BATCH) venue.orders.splice(0, venue.orders.length)
        }
        const result = yield* client.placeOrders(SYMBOL, ["d-1", "d-2"].map(buyItem))
        const [first, second] = result.outcomes
        assert.strictEqual(first?._tag, "Failed")
        if (first?._tag !== "Failed") return
        assert.strictEqual(first.code, "DecodeError")
        assert.isTrue(first.mayExist)
        assert.include(first.message, "garbled answer")
        assert.strictEqual(second?._tag, "Placed", "the other item's answer is consistent")
      }))
  })
})

describe("batch items after an ambiguous attempt", () => {
  it.effect("items the lost attempt placed are Placed with their ids even if the retry calls them 43012", () => {
    const venue = new ScriptedVenue({ rejectItem: (item) => item.clientOrderId === "b-none" ? "43012" : undefined })
      .fail({ kind: "dropAfter" }, BATCH)
      .answerNext(BATCH, allInsufficient)
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const result = yield* client.placeOrders(SYMBOL, ["b-1", "b-none", "b-2"].map(buyItem))
        const [first, none, second] = result.outcomes
        assert.strictEqual(orderIdOf(first), venueOrderId(venue, "b-1"))
        assert.strictEqual(orderIdOf(second), venueOrderId(venue, "b-2"))
        assert.strictEqual(none?._tag, "Failed")
        if (none?._tag !== "Failed") return
        assert.strictEqual(none.code, "43012")
        assert.isTrue(none.mayExist, "not found, but an earlier attempt may have placed it")
        assert.strictEqual(result.placed, 2)
        assert.strictEqual(venue.orders.length, 2)
        assert.strictEqual(venue.count(BATCH), 2)
      }))
  })

  it.effect("an item whose clientOrderId belongs to an older, different order is not reported Placed", () => {
    const venue = new FakeVenue().fail({ kind: "dropBefore" }, BATCH)
    addOldOrder(venue, "dup-b")
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const result = yield* client.placeOrders(SYMBOL, ["dup-b", "fresh-b"].map(buyItem))
        const [dup, fresh] = result.outcomes
        assert.strictEqual(orderIdOf(fresh), venueOrderId(venue, "fresh-b"))
        assert.strictEqual(dup?._tag, "Failed", `not the old order ${OLD_ORDER_ID}`)
        if (dup?._tag !== "Failed") return
        assert.strictEqual(dup.code, "43118")
        assert.isTrue(dup.mayExist)
      }))
  })
})
