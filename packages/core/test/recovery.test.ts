/**
 * Recovery of lost placements (src/internal/recovery.ts): when an attempt to place an order may have been applied
 * (its answer lost or garbled, or a retry answered "duplicate"), the order is looked up by its clientOrderId (orderInfo,
 * which sees filled and cancelled orders too) before the caller is told anything, so that an order is placed once and
 * reported with its id, or the caller learns that it may exist. A found order counts only if it is the same order,
 * not merely one with the same clientOrderId.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { type Order, type SpotClient } from "../src/index.ts"
import * as InFlight from "../src/internal/client/inFlight.ts"
import {
  addOldOrder,
  allInsufficient,
  BATCH,
  batchItem,
  FakeVenue,
  type Fault,
  ids,
  limitOrder,
  limitOrderAt,
  NOW,
  OLD_ORDER_ID,
  OPEN_ORDERS,
  ORDER_INFO,
  orderIdOf,
  ORDERS,
  reasonOf,
  requestsTo,
  ScriptedVenue,
  SERVER_TIME,
  SYMBOL,
  venueOrderId,
  withClient
} from "./support/FakeVenue.ts"

/** Makes every placed order vanish from the venue at once, while it still answers 43118 for its id. */
const forgetAtOnce = (venue: FakeVenue) => {
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

describe("placeOrder retries without duplicates", () => {
  const assertRecovered = (
    venue: FakeVenue,
    result: Order.PlaceOrderResult,
    clientOrderId: string,
    attempts: number
  ) => {
    assert.strictEqual(result.orderId, venueOrderId(venue, clientOrderId))
    assert.strictEqual(result.clientOrderId, clientOrderId)
    const attemptsSent = requestsTo(venue, ORDERS)
    assert.strictEqual(attemptsSent.length, attempts)
    for (const request of attemptsSent) assert.strictEqual(request.json.clientOrderId, clientOrderId)
  }

  it.effect("recovers the order placed by an attempt whose answer was lost", () => {
    const venue = new FakeVenue().fail({ kind: "dropAfter" }, ORDERS)
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const result = yield* client.placeOrder(limitOrder("lost-1"))
        assertRecovered(venue, result, "lost-1", 2)
        assert.isAtLeast(venue.count(ORDER_INFO), 1)
        assert.strictEqual(venue.count(OPEN_ORDERS), 0, "the open orders are not scanned")
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
        assert.strictEqual(venue.count(ORDER_INFO), 0)
      }))
  })

  it.effect("fails saying the order may exist when a retry is a duplicate of an order the venue cannot find", () => {
    const venue = new FakeVenue().fail({ kind: "dropAfter" }, ORDERS)
    forgetAtOnce(venue)
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
        assert.isAtLeast(venue.count(ORDER_INFO), 1)
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
        assert.strictEqual(venue.count(ORDER_INFO), 0)
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
        assert.isAtLeast(venue.count(ORDER_INFO), 1)
        assert.strictEqual(venue.orders.length, 3)
        for (const [i, outcome] of result.outcomes.entries()) {
          assert.strictEqual(outcome.clientOrderId, clientOrderIds[i])
          assert.strictEqual(orderIdOf(outcome), venueOrderId(venue, clientOrderIds[i]!))
        }
        assert.strictEqual(result.placed, 3)
      }))
  })
})

describe("recovery matches the order, not only its clientOrderId", () => {
  it.effect("a reused clientOrderId of an older open order fails with DuplicateOrderError, not the old id", () => {
    const venue = new FakeVenue().fail({ kind: "dropBefore" }, ORDERS)
    addOldOrder(venue, "dup-1")
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(client.placeOrder(limitOrderAt("dup-1", "100", "1")))
        const reason = reasonOf(error, "DuplicateOrderError")
        assert.strictEqual(reason.clientOrderId, "dup-1")
        assert.isTrue(reason.afterRetry)
        assert.isTrue(reason.mayExist)
        assert.strictEqual(venue.orders.length, 1, "only the old order")
        assert.strictEqual(venue.count(ORDERS), 2)
      }))
  })

  // The same side, type, price and quantity, but created before this call could have reached the venue (beyond its
  // timestamp window): an older order of a reused clientOrderId, not the one this call may have placed.
  const addOldSameOrder = (venue: FakeVenue, clientOrderId: string, status: string) =>
    venue.orders.push({
      orderId: OLD_ORDER_ID,
      symbol: SYMBOL,
      clientOrderId,
      side: "buy",
      orderType: "limit",
      price: "100",
      quantity: "1",
      cTime: NOW - 60_000,
      status
    })

  it.effect.each(["full_fill", "cancelled", "open"])(
    "a reused clientOrderId of an older identical %s order is not reported as placed by this call",
    (status) => {
      const venue = new FakeVenue().fail({ kind: "dropBefore" }, ORDERS)
      addOldSameOrder(venue, "same-1", status)
      return withClient(venue, (client) =>
        Effect.gen(function*() {
          const error = yield* Effect.flip(client.placeOrder(limitOrderAt("same-1", "100", "1")))
          const reason = reasonOf(error, "DuplicateOrderError")
          assert.isTrue(reason.afterRetry)
          assert.strictEqual(venue.orders.length, 1, "only the old order")
        }))
    }
  )

  it.effect("a reused clientOrderId of an older identical order is not taken for a batch item", () => {
    const venue = new FakeVenue().fail({ kind: "dropBefore" }, BATCH)
    addOldSameOrder(venue, "same-b", "full_fill")
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const result = yield* client.placeOrders(SYMBOL, [{
          side: "buy",
          orderType: "limit",
          price: "100",
          quantity: "1",
          clientOrderId: "same-b"
        }])
        const outcome = result.outcomes[0]!
        assert.strictEqual(outcome._tag, "Failed")
        assert.strictEqual(result.placed, 0)
        assert.strictEqual(venue.orders.length, 1, "only the old order")
      }))
  })

  it.effect("resolve after placeOrders does not take an older identical order under the clientOrderId either", () => {
    const venue = new FakeVenue().fail({ kind: "dropBefore" }, BATCH)
    addOldSameOrder(venue, "same-r", "full_fill")
    const items = [{ side: "buy", orderType: "limit", price: "100", quantity: "1", clientOrderId: "same-r" }] as const
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const first = yield* client.placeOrders(SYMBOL, items)
        assert.strictEqual(first.outcomes[0]!._tag, "Failed")
        const settled = yield* client.resolve(SYMBOL, items, first)
        assert.strictEqual(settled.outcomes[0]!._tag, "Failed", JSON.stringify(settled.outcomes[0]))
        assert.strictEqual(settled.placed, 0)
      }))
  })

  it.effect("an order this call placed is still recovered when the venue's clock is behind the client's", () => {
    const venue = new FakeVenue({ skewMillis: -20_000 }).fail({ kind: "dropAfter" }, ORDERS)
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const result = yield* client.placeOrder(limitOrderAt("skew-1", "100", "1"))
        assert.strictEqual(result.orderId, venueOrderId(venue, "skew-1"))
      }))
  })

  // The venue's clock an hour ahead of ours and its time not asked (a 429): the offset is only learned from the
  // lookup's own answer, after every attempt was lost. The bound of the call's orders must use what that answer
  // taught, not the estimate from before it, or an old identical order is taken for this call's.
  const HOUR = 3_600_000
  const unconfirmed = () => {
    const venue = new FakeVenue({ skewMillis: HOUR })
    venue.fail({ kind: "http", status: 429, body: "{\"code\":\"429\",\"msg\":\"Too Many Requests\"}" }, SERVER_TIME)
    venue.orders.push({
      orderId: OLD_ORDER_ID,
      symbol: SYMBOL,
      clientOrderId: "skew-old",
      side: "buy",
      orderType: "limit",
      price: "100",
      quantity: "1",
      cTime: NOW + HOUR - 60_000,
      status: "full_fill"
    })
    return venue
  }

  it.effect("an old order is not taken for this call's when the clock offset was unconfirmed before the lookup", () => {
    const venue = unconfirmed()
    for (let i = 0; i < 3; i++) venue.fail({ kind: "dropBefore" }, ORDERS)
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const result = yield* Effect.result(client.placeOrder(limitOrderAt("skew-old", "100", "1")))
        assert.strictEqual(result._tag, "Failure", "the old order reported as placed by this call")
        if (result._tag === "Failure") reasonOf(result.failure, "OutcomeUnknownError")
        assert.strictEqual(venue.orders.length, 1, "only the old order")
      }), { retry: { times: 2, baseDelay: 0 } })
  })

  it.effect("an old order is not taken for a batch item when the clock offset was unconfirmed before the lookup", () => {
    const venue = unconfirmed()
    for (let i = 0; i < 3; i++) venue.fail({ kind: "dropBefore" }, BATCH)
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const result = yield* client.placeOrders(SYMBOL, [
          { side: "buy", orderType: "limit", price: "100", quantity: "1", clientOrderId: "skew-old" }
        ])
        assert.strictEqual(result.outcomes[0]!._tag, "Failed", JSON.stringify(result.outcomes[0]))
        assert.strictEqual(result.placed, 0)
        const outcome = result.outcomes[0]!
        if (outcome._tag === "Failed") assert.isAbove(outcome.notBefore!, NOW + HOUR - 60_000, "notBefore")
      }), { retry: { times: 2, baseDelay: 0 } })
  })

  it.effect("a batch item whose lookup failed too: resolve takes no old order by an offset never confirmed", () => {
    const venue = unconfirmed()
    for (let i = 0; i < 3; i++) venue.fail({ kind: "dropBefore" }, BATCH)
    for (let i = 0; i < 3; i++) venue.fail({ kind: "dropBefore" }, ORDER_INFO)
    const items = [
      { side: "buy", orderType: "limit", price: "100", quantity: "1", clientOrderId: "skew-old" }
    ] as const
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const result = yield* client.placeOrders(SYMBOL, items)
        const outcome = result.outcomes[0]!
        assert.strictEqual(outcome._tag, "Failed", JSON.stringify(outcome))
        // No answer came during the call: no bound on the venue's clock can be given yet.
        if (outcome._tag === "Failed") {
          assert.isTrue(outcome.mayExist)
          assert.isUndefined(outcome.notBefore)
        }
        // The venue answers again: resolve's own lookup teaches its clock, and the old order is not this call's.
        const settled = yield* client.resolve(SYMBOL, items, result)
        const after = settled.outcomes[0]!
        assert.strictEqual(after._tag, "Failed", JSON.stringify(after))
        assert.strictEqual(settled.placed, 0)
        if (after._tag === "Failed") assert.isFalse(after.mayExist, "another order holds the clientOrderId")
        assert.strictEqual(venue.orders.length, 1, "only the old order")
      }), { retry: { times: 2, baseDelay: 0 } })
  })

  it.effect("a batch item this call placed, its lookup failed too: resolve still finds it by sentAt", () => {
    // The venue 20 s ahead (within its window: it takes the first attempt), its time not asked.
    const venue = new FakeVenue({ skewMillis: 20_000 })
    venue.fail({ kind: "http", status: 429, body: "{\"code\":\"429\",\"msg\":\"Too Many Requests\"}" }, SERVER_TIME)
    // Placed by the first attempt, its answer lost; the retries and the lookup never reach the venue.
    venue.fail({ kind: "dropAfter" }, BATCH)
    for (let i = 0; i < 2; i++) venue.fail({ kind: "dropBefore" }, BATCH)
    for (let i = 0; i < 3; i++) venue.fail({ kind: "dropBefore" }, ORDER_INFO)
    const items = [{ side: "buy", orderType: "limit", price: "100", quantity: "1", clientOrderId: "skew-new" }] as const
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const result = yield* client.placeOrders(SYMBOL, items)
        const outcome = result.outcomes[0]!
        assert.isTrue(outcome._tag === "Failed" && outcome.mayExist && outcome.sentAt === NOW, JSON.stringify(outcome))
        const settled = yield* client.resolve(SYMBOL, items, result)
        const placed = settled.outcomes[0]!
        assert.strictEqual(placed._tag, "Placed", JSON.stringify(placed))
        if (placed._tag === "Placed") assert.strictEqual(placed.orderId, venueOrderId(venue, "skew-new"))
      }), { retry: { times: 2, baseDelay: 0 } })
  })

  it.effect.each([
    { sent: { price: "100.0", quantity: "1.50" }, shown: { price: "100", quantity: "1.5" }, same: true },
    { sent: { price: "100", quantity: "2" }, shown: { price: "100.00", quantity: "2.000" }, same: true },
    { sent: { price: "10.50", quantity: "1" }, shown: { price: "10.5", quantity: "1.0" }, same: true },
    { sent: { price: "100", quantity: "1" }, shown: { price: "1000", quantity: "1" }, same: false },
    { sent: { price: "100", quantity: "1.5" }, shown: { price: "100", quantity: "1.05" }, same: false }
  ])(
    "sent $sent.price x $sent.quantity, listed as $shown.price x $shown.quantity: recovered = $same",
    ({ same, sent, shown }) => {
      // The venue applies the order, loses the answer, and lists it with its own formatting of the decimals.
      const venue = new FakeVenue().fail({ kind: "dropAfter" }, ORDERS)
      venue.onHandled = (request) => {
        const index = venue.orders.findIndex((order) => order.clientOrderId === request.json.clientOrderId)
        if (request.path === ORDERS && index !== -1) venue.orders[index] = { ...venue.orders[index]!, ...shown }
      }
      return withClient(venue, (client) =>
        Effect.gen(function*() {
          const result = yield* Effect.result(client.placeOrder(limitOrderAt("fmt-1", sent.price, sent.quantity)))
          if (same) {
            assert.strictEqual(result._tag, "Success")
            if (result._tag === "Success") assert.strictEqual(result.success.orderId, venueOrderId(venue, "fmt-1"))
          } else {
            assert.strictEqual(result._tag, "Failure")
            if (result._tag === "Failure") reasonOf(result.failure, "DuplicateOrderError")
          }
        }))
    }
  )
})

describe("orders that filled at once are recovered with their id", () => {
  /** Makes every placed order final at once (filled in full, or an IOC remainder cancelled with its fills). */
  const finalAtOnce = (venue: FakeVenue, status: string) => {
    venue.onHandled = (request) => {
      const index = venue.orders.findIndex((order) => order.clientOrderId === request.json.clientOrderId)
      if (request.path === ORDERS && index !== -1) venue.orders[index] = { ...venue.orders[index]!, status }
    }
  }

  it.effect.each(
    [
      { name: "a market buy that filled", status: "full_fill", force: undefined, orderType: "market" },
      {
        name: "an IOC limit order partly filled, its rest cancelled",
        status: "cancelled",
        force: "ioc",
        orderType: "limit"
      },
      { name: "a FOK limit order that filled", status: "full_fill", force: "fok", orderType: "limit" }
    ] as const
  )("$name, whose answer was lost, returns its orderId", ({ force, orderType, status }) => {
    const venue = new FakeVenue().fail({ kind: "dropAfter" }, ORDERS)
    finalAtOnce(venue, status)
    const order: Order.PlaceOrderInput = orderType === "market"
      ? { symbol: SYMBOL, side: "buy", orderType, quantity: "25", clientOrderId: "at-once" }
      : { ...limitOrderAt("at-once"), force }
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const result = yield* client.placeOrder(order)
        assert.deepStrictEqual(result, { orderId: venueOrderId(venue, "at-once"), clientOrderId: "at-once" })
        assert.strictEqual(venue.count(ORDERS), 2, "the retry answered 43118; the lookup found the order")
        assert.strictEqual(venue.count(OPEN_ORDERS), 0)
      }))
  })

  it.effect("without retries, a lost answer is settled by the lookup alone", () => {
    const venue = new FakeVenue().fail({ kind: "dropAfter" }, ORDERS)
    finalAtOnce(venue, "full_fill")
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const result = yield* client.placeOrder({
          symbol: SYMBOL,
          side: "sell",
          orderType: "market",
          quantity: "0.5",
          clientOrderId: "once"
        })
        assert.strictEqual(result.orderId, venueOrderId(venue, "once"))
        assert.strictEqual(venue.count(ORDERS), 1)
        assert.strictEqual(venue.count(ORDER_INFO), 1)
      }), { retry: false })
  })

  it.effect("an order of another symbol under the same clientOrderId is not taken for it", () => {
    const venue = new FakeVenue().fail({ kind: "dropBefore" }, ORDERS)
    venue.orders.push({
      orderId: OLD_ORDER_ID,
      symbol: "ETHUSDT_SPBL",
      clientOrderId: "sym-1",
      side: "buy",
      orderType: "limit",
      price: "100",
      quantity: "1",
      cTime: NOW - 60_000
    })
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(client.placeOrder(limitOrderAt("sym-1", "100", "1")))
        const reason = reasonOf(error, "DuplicateOrderError")
        assert.isTrue(reason.afterRetry)
      }))
  })
})

describe("an answer about another order", () => {
  it.effect("an applied order answered with another clientOrderId is recovered by its own, not taken from the answer", () => {
    const venue = new FakeVenue().fail({
      kind: "garbleAfter",
      body: `{"code":"00000","msg":"success","requestTime":${NOW},` +
        `"data":{"orderId":602876318261969999,"clientOrderId":"someone-else"}}`
    }, ORDERS)
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const result = yield* client.placeOrder(limitOrderAt("mine-1"))
        assert.deepStrictEqual(result, { orderId: venueOrderId(venue, "mine-1"), clientOrderId: "mine-1" })
        assert.strictEqual(venue.orders.length, 1, "placed once")
      }))
  })
})

describe("a venue that does not serve orderInfo", () => {
  it.effect("a lost answer is OutcomeUnknownError naming the clientOrderId; open orders are not scanned", () => {
    const venue = new FakeVenue({ notServed: [ORDER_INFO] }).fail({ kind: "dropAfter" }, ORDERS)
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(client.placeOrder(limitOrderAt("ns-1")))
        const reason = reasonOf(error, "OutcomeUnknownError")
        assert.strictEqual(reason.clientOrderId, "ns-1")
        assert.include(reason.description, "could not be looked up")
        assert.strictEqual(venue.orders.filter((order) => order.clientOrderId === "ns-1").length, 1, "placed once")
        assert.strictEqual(venue.count(ORDERS), 2, "the retry answered 43118")
        assert.strictEqual(venue.count(ORDER_INFO), 1)
        assert.strictEqual(venue.count(OPEN_ORDERS), 0)
      }))
  })
})

describe("one clientOrderId in two calls at once", () => {
  // Two calls of one client placing under one clientOrderId: the venue takes one order, and the other call's lost
  // answer, looked up, would find that order created during its own call and report it placed too.
  it.effect("the second call is refused before sending; only the first places, and reports, the order", () => {
    const venue = new FakeVenue().fail({ kind: "dropAfter" }, ORDERS).fail({ kind: "dropAfter" }, ORDERS)
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const [first, second] = yield* Effect.all(
          [client.placeOrder(limitOrder("twice")), client.placeOrder(limitOrder("twice"))],
          { concurrency: "unbounded", mode: "result" }
        )
        assert.strictEqual(first._tag, "Success", String(first))
        if (first._tag === "Success") assert.strictEqual(first.success.orderId, venueOrderId(venue, "twice"))
        assert.strictEqual(second._tag, "Failure", "the second call is not reported placed")
        if (second._tag === "Failure") {
          const reason = reasonOf(second.failure, "ValidationError")
          assert.strictEqual(reason.field, "clientOrderId")
          assert.include(reason.description, "twice")
          assert.include(second.failure.message, "in flight")
        }
        assert.strictEqual(venue.orders.length, 1)
        // The first call's attempt and retry (both answers lost) and its second retry (43118, then the lookup).
        assert.strictEqual(venue.count(ORDERS), 3, "nothing of the second call was sent")
      }))
  })

  it.effect("the clientOrderId is free again once the call ended, however it ended", () => {
    const venue = new FakeVenue()
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        // Ended by a refusal: the next call with the id reaches the venue.
        venue.fail({ kind: "venue", code: "43012", msg: "Insufficient balance" }, ORDERS)
        reasonOf(yield* Effect.flip(client.placeOrder(limitOrder("again"))), "InsufficientBalanceError")
        // Ended by an interruption while it waited to retry (the backoff on the TestClock, which stands still).
        venue.fail({ kind: "dropBefore" }, ORDERS)
        const waiting = yield* Effect.forkChild(client.placeOrder(limitOrder("again")))
        yield* tickUntil(() => venue.count(ORDERS) === 2)
        for (let i = 0; i < 20; i++) yield* realTick
        assert.isUndefined(waiting.pollUnsafe(), "the call waits for its retry")
        yield* Fiber.interrupt(waiting)
        const placed = yield* client.placeOrder(limitOrder("again"))
        assert.strictEqual(placed.orderId, venueOrderId(venue, "again"))
        // Ended by success: the venue itself refuses the id now, as a duplicate.
        reasonOf(yield* Effect.flip(client.placeOrder(limitOrder("again"))), "DuplicateOrderError")
        assert.strictEqual(venue.count(ORDERS), 4)
      }), { retry: {} })
  })

  it.effect("a batch item whose clientOrderId a placeOrder holds fails alone; the batch's ids are freed when it ends", () => {
    const venue = new FakeVenue().fail({ kind: "dropBefore" }, ORDERS)
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const single = yield* Effect.forkChild(client.placeOrder(limitOrder("shared")))
        yield* tickUntil(() => venue.count(ORDERS) === 1)
        const batch = yield* client.placeOrders(SYMBOL, [batchItem("shared"), batchItem("own")])
        const [shared, own] = batch.outcomes
        assert.strictEqual(shared?._tag, "Failed")
        if (shared?._tag === "Failed") {
          assert.strictEqual(shared.code, "ValidationError")
          assert.isFalse(shared.mayExist)
          assert.include(shared.message, "in flight")
        }
        assert.strictEqual(own?._tag, "Placed")
        const sent = requestsTo(venue, BATCH)[0]?.json.orderList as ReadonlyArray<{ clientOrderId: string }>
        assert.deepStrictEqual(sent.map((item) => item.clientOrderId), ["own"])
        const placed = yield* driveClock(single)
        assert.strictEqual(placed.orderId, venueOrderId(venue, "shared"))
        // The batch ended: its ids are free (the venue's own refusal answers, not the client's).
        const again = yield* client.placeOrders(SYMBOL, [batchItem("own")])
        assert.strictEqual(again.outcomes[0]?._tag === "Failed" && again.outcomes[0].code, "43118")
      }), { retry: {} })
  })
})

describe("a batch outcome that may exist, its clientOrderId placed again before resolve", () => {
  // The batch's answer is lost and its retry calls every item 43012: "b-none" was not placed (the venue refused it,
  // for the batch only), but may exist.
  const lostBatch = () => {
    let batchDone = false
    const venue = new ScriptedVenue({
      rejectItem: (item) => !batchDone && item.clientOrderId === "b-none" ? "43012" : undefined
    })
      .fail({ kind: "dropAfter" }, BATCH)
      .answerNext(BATCH, allInsufficient)
    venue.onHandled = (request) => {
      if (request.path === BATCH && venue.count(BATCH) === 2) batchDone = true
    }
    return venue
  }
  // The batch's items; `limitOrderAt(id)` is the same order, placed alone.
  const items = ["b-1", "b-none", "b-2"].map((clientOrderId): Order.BatchItemInput => ({
    side: "buy",
    orderType: "limit",
    price: "100",
    quantity: "1",
    clientOrderId
  }))
  const placeBatch = (client: SpotClient.Service) =>
    Effect.gen(function*() {
      const result = yield* client.placeOrders(SYMBOL, items)
      const unsure = result.outcomes[1]
      assert.isTrue(unsure?._tag === "Failed" && unsure.mayExist, "b-none may exist")
      return result
    })
  const assertNotTheBatchs = (settled: Order.BatchResult, laterOrderId: string) => {
    const outcome = settled.outcomes[1]
    assert.strictEqual(outcome?._tag, "Failed", "the later call's order is not reported as the batch's too")
    if (outcome?._tag !== "Failed") return
    assert.isFalse(outcome.mayExist)
    assert.include(outcome.message, `(${laterOrderId}) was placed by a later call of this client`)
    assert.strictEqual(settled.placed, 2)
  }

  it.effect("placed again by placeOrder: resolve reports the batch's item not placed, not the later order", () => {
    const venue = lostBatch()
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const result = yield* placeBatch(client)
        const again = yield* client.placeOrder(limitOrderAt("b-none"))
        assert.strictEqual(again.orderId, venueOrderId(venue, "b-none"))
        assertNotTheBatchs(yield* client.resolve(SYMBOL, items, result), again.orderId)
      }))
  })

  it.effect("placed again by another batch: the same", () => {
    const venue = lostBatch()
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const result = yield* placeBatch(client)
        const again = yield* client.placeOrders(SYMBOL, [items[1]!])
        const placed = again.outcomes[0]
        assert.strictEqual(placed?._tag, "Placed")
        if (placed?._tag !== "Placed") return
        assertNotTheBatchs(yield* client.resolve(SYMBOL, items, result), placed.orderId)
      }))
  })

  it.effect("being placed again while resolve runs: left as it was, and settled once the placement ended", () => {
    const venue = lostBatch()
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        // With backoff on the TestClock, which is moved until the batch's retry has gone.
        const result = yield* driveClock(yield* Effect.forkChild(placeBatch(client)))
        // The placement's first attempt never reaches the venue; it waits for its retry (the TestClock stands still).
        venue.fail({ kind: "dropBefore" }, ORDERS)
        const placing = yield* Effect.forkChild(client.placeOrder(limitOrderAt("b-none")))
        yield* tickUntil(() => venue.count(ORDERS) === 1)
        const lookups = venue.count(ORDER_INFO)
        const meanwhile = yield* client.resolve(SYMBOL, items, result)
        assert.strictEqual(meanwhile.outcomes[1], result.outcomes[1], "not settled while the placement runs")
        assert.strictEqual(venue.count(ORDER_INFO), lookups, "b-none not looked up meanwhile")
        const again = yield* driveClock(placing)
        assertNotTheBatchs(yield* client.resolve(SYMBOL, items, result), again.orderId)
      }), { retry: {} })
  })

  it.effect("placed again, resolved twice: the second resolve answers as the first", () => {
    const venue = lostBatch()
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const result = yield* placeBatch(client)
        const again = yield* client.placeOrder(limitOrderAt("b-none"))
        assertNotTheBatchs(yield* client.resolve(SYMBOL, items, result), again.orderId)
        assertNotTheBatchs(yield* client.resolve(SYMBOL, items, result), again.orderId)
      }))
  })

  it.effect("resolved, then placed again, then resolved again: the later order is not taken for the batch's", () => {
    const venue = lostBatch()
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const result = yield* placeBatch(client)
        const first = (yield* client.resolve(SYMBOL, items, result)).outcomes[1]
        assert.isTrue(first?._tag === "Failed" && !first.mayExist, "not placed")
        const again = yield* client.placeOrder(limitOrderAt("b-none"))
        assertNotTheBatchs(yield* client.resolve(SYMBOL, items, result), again.orderId)
      }))
  })

  it.effect("not placed again: resolve finds no order and says so; the id is then free to place", () => {
    const venue = lostBatch()
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const result = yield* placeBatch(client)
        const settled = yield* client.resolve(SYMBOL, items, result)
        const outcome = settled.outcomes[1]
        assert.isTrue(outcome?._tag === "Failed" && !outcome.mayExist)
        assert.include(
          outcome?._tag === "Failed" ? outcome.message : "",
          "the venue has no order with this clientOrderId"
        )
        const placed = yield* client.placeOrder(limitOrderAt("b-none"))
        assert.strictEqual(placed.orderId, venueOrderId(venue, "b-none"))
      }))
  })
})

describe("Unsettled", () => {
  it("remembers at most its cap of ids, forgetting the oldest; a later order is recorded only under an id it holds", () => {
    const unsettled = new InFlight.Unsettled(2)
    assert.isTrue(unsettled.empty)
    unsettled.placed("a", "1")
    assert.isTrue(unsettled.empty, "no id unsettled: nothing recorded")
    unsettled.add("a")
    unsettled.add("b")
    unsettled.placed("a", "11")
    unsettled.add("a")
    assert.strictEqual(unsettled.laterOrder("a"), "11", "an id added again keeps the later order recorded")
    unsettled.add("c")
    unsettled.placed("a", "12")
    assert.isUndefined(unsettled.laterOrder("a"), "the oldest forgotten past the cap")
    unsettled.placed("c", "13")
    assert.strictEqual(unsettled.laterOrder("c"), "13")
    assert.isFalse(unsettled.empty)
  })
})
