import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { type SpotClient } from "../src/index.ts"
import { type Order } from "../src/index.ts"
import {
  BATCH,
  FakeVenue,
  type Fault,
  NOW,
  OPEN_ORDERS,
  orderIdOf,
  ORDERS,
  reasonOf,
  SYMBOL,
  TRANSFER,
  venueOrderId,
  withClient
} from "./support/FakeVenue.ts"

const limitOrder = (clientOrderId?: string): Order.PlaceOrderInput => ({
  symbol: SYMBOL,
  side: "buy",
  orderType: "limit",
  force: "postOnly",
  price: "27123.45",
  quantity: "0.015",
  ...(clientOrderId === undefined ? {} : { clientOrderId })
})

const batchItem = (clientOrderId: string): Order.BatchItemInput => ({
  side: "sell",
  orderType: "limit",
  price: "30000.1",
  quantity: "0.002",
  clientOrderId
})

const ids = (count: number, prefix = "c") => Array.from({ length: count }, (_, i) => `${prefix}${i}`)

const bodiesTo = (venue: FakeVenue, path: string) => venue.requests.filter((request) => request.path === path)

/** Makes every placed order leave the book at once (filled), while the venue still answers 43118 for its id. */
const fillAtOnce = (venue: FakeVenue) => {
  venue.onHandled = (request) => {
    if (request.path !== ORDERS) return
    venue.orders.splice(venue.orders.findIndex((order) => order.clientOrderId === request.json.clientOrderId), 1)
    venue.fail({ kind: "venue", code: "43118", msg: "clientOrderId duplicate" }, ORDERS)
  }
}

// Signing awaits WebCrypto, which resolves on real event-loop turns, not on the TestClock.
const realTick = Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 1)))

/** Lets real time pass (TestClock standing still) until `done` holds, for at most about a second. */
const tickUntil = (done: () => boolean) =>
  Effect.gen(function*() {
    for (let step = 0; step < 1000 && !done(); step++) yield* realTick
  })

/** Moves the TestClock forward in small steps, letting real ticks run between them, until the fiber is done. */
const driveClock = <A, E>(fiber: Fiber.Fiber<A, E>) =>
  Effect.gen(function*() {
    for (let step = 0; step < 100 && fiber.pollUnsafe() === undefined; step++) {
      yield* realTick
      yield* TestClock.adjust("100 millis")
    }
    return yield* Fiber.join(fiber)
  })

describe("placeOrder", () => {
  it.effect("sends exactly the spec §2.1 fields of a limit order", () => {
    const venue = new FakeVenue()
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const result = yield* client.placeOrder(limitOrder("limit-1"))
        assert.strictEqual(result.clientOrderId, "limit-1")
        const [request] = bodiesTo(venue, ORDERS)
        assert.deepStrictEqual(request!.json, {
          symbol: SYMBOL,
          side: "buy",
          orderType: "limit",
          force: "postOnly",
          price: "27123.45",
          quantity: "0.015",
          clientOrderId: "limit-1"
        })
        assert.deepStrictEqual(Object.keys(request!.json).sort(), [
          "clientOrderId",
          "force",
          "orderType",
          "price",
          "quantity",
          "side",
          "symbol"
        ])
      }))
  })

  it.effect("sends a zero price and force normal on a market order", () => {
    const venue = new FakeVenue()
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        yield* client.placeOrder({
          symbol: SYMBOL,
          side: "buy",
          orderType: "market",
          quantity: "25",
          clientOrderId: "m"
        })
        assert.deepStrictEqual(bodiesTo(venue, ORDERS)[0]!.json, {
          symbol: SYMBOL,
          side: "buy",
          orderType: "market",
          force: "normal",
          price: "0",
          quantity: "25",
          clientOrderId: "m"
        })
      }))
  })

  it.effect("generates a distinct clientOrderId when none is given", () => {
    const venue = new FakeVenue()
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const results = yield* Effect.all([client.placeOrder(limitOrder()), client.placeOrder(limitOrder())])
        const sent = bodiesTo(venue, ORDERS).map((request) => request.json.clientOrderId)
        assert.strictEqual(sent.length, 2)
        for (const [i, id] of sent.entries()) {
          assert.isString(id)
          const text = id as string
          assert.isTrue(text.length > 0 && text.length <= 64, text)
          assert.notMatch(text, /\s/)
          assert.strictEqual(results[i]!.clientOrderId, text)
        }
        assert.notStrictEqual(sent[0], sent[1])
      }))
  })

  it.effect("keeps a 64-bit orderId sent as a bare JSON number exact", () => {
    const venue = new FakeVenue()
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const first = yield* client.placeOrder(limitOrder("n1"))
        const second = yield* client.placeOrder(limitOrder("n2"))
        assert.strictEqual(first.orderId, "602876318261969338")
        assert.strictEqual(second.orderId, "602876318261969339")
      }))
  })

  it.effect("keeps an orderId sent as a string exact", () => {
    const venue = new FakeVenue({ idsAsStrings: true })
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const result = yield* client.placeOrder(limitOrder("s1"))
        assert.strictEqual(result.orderId, "602876318261969338")
      }))
  })
})

describe("placeOrders chunking", () => {
  it.effect("sends 120 items as 50, 50 and 20, answering in input order", () => {
    const venue = new FakeVenue()
    const clientOrderIds = ids(120)
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const result = yield* client.placeOrders(SYMBOL, clientOrderIds.map(batchItem))
        const requests = bodiesTo(venue, BATCH)
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

  it.effect("fails a repeated clientOrderId locally without sending it", () => {
    const venue = new FakeVenue()
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const result = yield* client.placeOrders(SYMBOL, ["a", "b", "a", "c"].map(batchItem))
        const [request] = bodiesTo(venue, BATCH)
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

describe("placeOrder retries without duplicates", () => {
  const assertRecovered = (
    venue: FakeVenue,
    result: Order.PlaceOrderResult,
    clientOrderId: string,
    attempts: number
  ) => {
    assert.strictEqual(result.orderId, venueOrderId(venue, clientOrderId))
    assert.strictEqual(result.clientOrderId, clientOrderId)
    const attemptsSent = bodiesTo(venue, ORDERS)
    assert.strictEqual(attemptsSent.length, attempts)
    for (const request of attemptsSent) assert.strictEqual(request.json.clientOrderId, clientOrderId)
  }

  it.effect("recovers the order placed by an attempt whose answer was lost", () => {
    const venue = new FakeVenue().fail({ kind: "dropAfter" }, ORDERS)
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const result = yield* client.placeOrder(limitOrder("lost-1"))
        assertRecovered(venue, result, "lost-1", 2)
        assert.isAtLeast(venue.count(OPEN_ORDERS), 1)
      }))
  })

  it.effect("waits for the backoff on the TestClock before retrying", () => {
    const venue = new FakeVenue().fail({ kind: "dropAfter" }, ORDERS)
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const fiber = yield* Effect.forkChild(client.placeOrder(limitOrder("lost-2")))
        yield* tickUntil(() => venue.count(ORDERS) > 0)
        for (let i = 0; i < 20; i++) yield* realTick
        assert.strictEqual(venue.count(ORDERS), 1, "no retry before the backoff elapsed")
        const exit = yield* Effect.exit(driveClock(fiber))
        // The jittered delay is a fraction of a millisecond; the header must still be whole milliseconds.
        const timestamps = venue.requests.map((request) => request.headers["access-timestamp"])
        assert.isTrue(timestamps.every((timestamp) => /^\d{13}$/.test(timestamp ?? "")), timestamps.join(", "))
        assert.isTrue(Exit.isSuccess(exit), String(exit))
        if (Exit.isSuccess(exit)) assertRecovered(venue, exit.value, "lost-2", 2)
      }), { retry: {} })
  })

  it.effect.each(
    [
      {
        name: "several lost attempts in a row",
        faults: [{ kind: "dropAfter" }, { kind: "dropBefore" }],
        attempts: 3,
        retry: {}
      },
      {
        name: "every answer lost",
        faults: [{ kind: "dropAfter" }, { kind: "dropAfter" }, { kind: "dropAfter" }],
        attempts: 3,
        retry: { times: 2, baseDelay: 0 }
      },
      {
        name: "an applied attempt answered with a truncated body",
        faults: [{ kind: "garbleAfter", body: "{\"code\":\"00000\",\"msg\":\"succ" }],
        attempts: 2,
        retry: {}
      }
    ] satisfies ReadonlyArray<{
      name: string
      faults: ReadonlyArray<Fault>
      attempts: number
      retry: SpotClient.RetryOptions
    }>
  )("recovers the one order after $name", ({ attempts, faults, name, retry }) => {
    const venue = new FakeVenue()
    for (const fault of faults) venue.fail(fault, ORDERS)
    const clientOrderId = `lost-${name.length}`
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const result = yield* client.placeOrder(limitOrder(clientOrderId))
        assertRecovered(venue, result, clientOrderId, attempts)
      }), { retry: { baseDelay: 0, ...retry } })
  })

  it.effect("places once after a request that never reached the venue, without a lookup", () => {
    const venue = new FakeVenue().fail({ kind: "dropBefore" }, ORDERS)
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const result = yield* client.placeOrder(limitOrder("before-1"))
        assertRecovered(venue, result, "before-1", 2)
        assert.strictEqual(venue.count(OPEN_ORDERS), 0)
      }))
  })

  it.effect("fails saying the order may exist when a retry is a duplicate of an order no longer open", () => {
    const venue = new FakeVenue().fail({ kind: "dropAfter" }, ORDERS)
    fillAtOnce(venue)
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(client.placeOrder(limitOrder("filled-1")))
        const reason = reasonOf(error, "DuplicateOrderError")
        assert.isTrue(reason.afterRetry)
        assert.isTrue(reason.mayExist)
        assert.strictEqual(reason.code, "43118")
        assert.strictEqual(reason.clientOrderId, "filled-1")
        assert.match(error.message, /may have placed the order/)
        assert.include(error.message, "filled-1")
        assert.isAtLeast(venue.count(OPEN_ORDERS), 1)
        assert.strictEqual(venue.count(ORDERS), 2)
      }))
  })

  it.effect("fails with OutcomeUnknownError when retries run out after ambiguous failures", () => {
    const venue = new FakeVenue()
    for (let i = 0; i < 3; i++) venue.fail({ kind: "dropBefore" }, ORDERS)
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(client.placeOrder(limitOrder("unknown-1")))
        const reason = reasonOf(error, "OutcomeUnknownError")
        assert.isTrue(reason.mayExist)
        assert.strictEqual(reason.clientOrderId, "unknown-1")
        assert.strictEqual(venue.count(ORDERS), 3)
        assert.strictEqual(venue.orders.length, 0)
      }), { retry: { times: 2, baseDelay: 0 } })
  })

  it.effect("reports a reused clientOrderId as a duplicate without a lookup", () => {
    const venue = new FakeVenue()
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        yield* client.placeOrder(limitOrder("reused"))
        const error = yield* Effect.flip(client.placeOrder(limitOrder("reused")))
        const reason = reasonOf(error, "DuplicateOrderError")
        assert.isFalse(reason.afterRetry)
        assert.strictEqual(reason.clientOrderId, "reused")
        assert.strictEqual(venue.count(ORDERS), 2)
        assert.strictEqual(venue.count(OPEN_ORDERS), 0)
        assert.strictEqual(venue.orders.length, 1)
      }))
  })

  it.effect("recovers every item of a batch whose answer was lost", () => {
    const venue = new FakeVenue().fail({ kind: "dropAfter" }, BATCH)
    const clientOrderIds = ids(3, "lost-batch-")
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const result = yield* client.placeOrders(SYMBOL, clientOrderIds.map(batchItem))
        assert.strictEqual(venue.count(BATCH), 2)
        assert.isAtLeast(venue.count(OPEN_ORDERS), 1)
        assert.strictEqual(venue.orders.length, 3)
        for (const [i, outcome] of result.outcomes.entries()) {
          assert.strictEqual(outcome.clientOrderId, clientOrderIds[i])
          assert.strictEqual(orderIdOf(outcome), venueOrderId(venue, clientOrderIds[i]!))
        }
        assert.strictEqual(result.placed, 3)
      }))
  })
})

describe("internalTransfer", () => {
  const transfer = {
    toUserId: "18446744073709551615",
    coin: "USDT",
    amount: "12.345678",
    fromAccountType: "SPOT",
    toAccountType: "FUND"
  } as const

  it.effect("sends toUserId as a JSON number with exact digits", () => {
    const venue = new FakeVenue()
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const result = yield* client.internalTransfer(transfer)
        assert.strictEqual(result.id, "9000000000000000001")
        const [request] = bodiesTo(venue, TRANSFER)
        assert.include(request!.body, "\"toUserId\":18446744073709551615")
        assert.include(request!.body, "\"amount\":\"12.345678\"")
      }))
  })

  it.effect("does not retry a transfer whose answer was lost", () => {
    const venue = new FakeVenue().fail({ kind: "dropAfter" }, TRANSFER)
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(client.internalTransfer(transfer))
        const reason = reasonOf(error, "OutcomeUnknownError")
        assert.isTrue(reason.mayExist)
        assert.strictEqual(venue.count(TRANSFER), 1)
      }))
  })

  it.effect("retries a transfer refused with HTTP 429", () => {
    const venue = new FakeVenue().fail({ kind: "http", status: 429, body: "Too Many Requests" }, TRANSFER)
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const result = yield* client.internalTransfer(transfer)
        assert.strictEqual(result.id, "9000000000000000001")
        assert.strictEqual(venue.count(TRANSFER), 2)
      }))
  })

  it.effect("maps a standard-envelope 43012 to InsufficientBalanceError", () => {
    const venue = new FakeVenue().fail({ kind: "venue", code: "43012", msg: "Insufficient balance" }, TRANSFER)
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(client.internalTransfer(transfer))
        const reason = reasonOf(error, "InsufficientBalanceError")
        assert.strictEqual(reason.code, "43012")
        assert.strictEqual(reason.msg, "Insufficient balance")
        assert.strictEqual(reason.requestTime, NOW)
        assert.strictEqual(venue.count(TRANSFER), 1)
      }))
  })
})
