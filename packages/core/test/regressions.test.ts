/**
 * Regression tests for the defects found in review of packages/core/src (commit "core: fixes from review"). Each
 * `describe` names a defect and holds tests that fail against the code before that commit; a few cases guard the other
 * side of a fix and pass on both (equal decimals written differently still recover, a 400 with an unknown code is not
 * retried, `hasNextPage: false` stops, a zero market price is accepted).
 */
import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Exit, Fiber, Layer, Option, Redacted, Schema, Stream } from "effect"
import { HttpClient, HttpClientError, HttpClientResponse } from "effect/http"
import { TestClock } from "effect/testing"
import { inspect } from "node:util"
import { type Bill, type Order, Primitives, SpotClient, SpotError } from "../src/index.ts"
import * as RateLimiter from "../src/internal/rateLimiter.ts"
import {
  BATCH,
  BILLS,
  clientLayer,
  clientOptions,
  envelope,
  type FakeBill,
  FakeVenue,
  NOW,
  OPEN_ORDERS,
  orderIdOf,
  ORDERS,
  reasonOf,
  type Received,
  sampleTransfer,
  SYMBOL,
  TRANSFER,
  venueOrderId,
  withClient
} from "./support/FakeVenue.ts"

// -----------------------------------------------------------------------------------------------------------------
// venues that answer differently from the fake

/** An answer as the venue sends it. */
interface Answer {
  readonly status: number
  readonly body: string
}

type Rewrite = (original: Answer, request: Received) => Answer

/**
 * The fake venue, whose answer to a request can be replaced after the fake has received, checked and applied it:
 * `answerNext(path, rewrite)` replaces the next answer on `path` once.
 */
class ScriptedVenue extends FakeVenue {
  private readonly scripted: Array<{ readonly path: string; readonly rewrite: Rewrite }> = []

  answerNext(path: string, rewrite: Rewrite): this {
    this.scripted.push({ path, rewrite })
    return this
  }

  protected answerFor(path: string, original: Answer, request: Received): Answer {
    const index = this.scripted.findIndex((entry) => entry.path === path)
    return index === -1 ? original : this.scripted.splice(index, 1)[0]!.rewrite(original, request)
  }

  override get client(): HttpClient.HttpClient {
    const inner = super.client
    return HttpClient.make((request, url) =>
      Effect.flatMap(inner.execute(request), (response) =>
        Effect.map(response.text, (text) => {
          const { body, status } = this.answerFor(
            url.pathname,
            { status: response.status, body: text },
            this.requests.at(-1)!
          )
          return HttpClientResponse.fromWeb(request, new Response(body, { status }))
        }))
    )
  }
}

/** A standard envelope of the given code at `NOW`. */
const answer = (status: number, code: string, data: unknown = null): Answer => ({
  status,
  body: envelope(code, code === "00000" ? "success" : "internal error", NOW, JSON.stringify(data))
})

/** HTTP 500 with a venue envelope whose code spotkit does not know. */
const unknownCode500 = answer(500, "50000")

// -----------------------------------------------------------------------------------------------------------------
// orders

const limitOrder = (clientOrderId: string, price = "100", quantity = "1"): Order.PlaceOrderInput => ({
  symbol: SYMBOL,
  side: "buy",
  orderType: "limit",
  price,
  quantity,
  clientOrderId
})

const batchItem = (clientOrderId: string): Order.BatchItemInput => ({
  side: "buy",
  orderType: "limit",
  price: "100",
  quantity: "1",
  clientOrderId
})

const OLD_ORDER_ID = 500_000_000_000_000_001n

/** An old open order (sell 5 @ 99999) that already uses `clientOrderId`. */
const addOldOrder = (venue: FakeVenue, clientOrderId: string) =>
  venue.orders.push({
    orderId: OLD_ORDER_ID,
    symbol: SYMBOL,
    clientOrderId,
    side: "sell",
    orderType: "limit",
    price: "99999",
    quantity: "5",
    cTime: NOW - 60_000
  })

describe("5xx with an unknown venue code", () => {
  it("makes ApiError retryable under 5xx and 408 only", () => {
    const apiError = (httpStatus?: number) => new SpotError.ApiError({ code: "50000", msg: "internal", httpStatus })
    assert.isTrue(apiError(500).isRetryable)
    assert.isTrue(apiError(503).isRetryable)
    assert.isTrue(apiError(408).isRetryable)
    assert.isFalse(apiError(400).isRetryable)
    assert.isFalse(apiError(undefined).isRetryable)
  })

  it.effect.each([500, 503])("a read answered %d with an unknown code is retried and then succeeds", (status) => {
    const venue = new FakeVenue().fail({ kind: "http", status, body: answer(status, "50000").body }, OPEN_ORDERS)
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const page = yield* client.openOrdersPage({ symbol: SYMBOL })
        assert.deepStrictEqual(page.orderInfoResultList, [])
        assert.strictEqual(venue.count(OPEN_ORDERS), 2)
      }))
  })

  it.effect("without retries the read fails with a retryable ApiError carrying the status", () => {
    const venue = new FakeVenue().fail({ kind: "http", ...unknownCode500 }, OPEN_ORDERS)
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(client.openOrdersPage({ symbol: SYMBOL }))
        const reason = reasonOf(error, "ApiError")
        assert.strictEqual(reason.code, "50000")
        assert.strictEqual(reason.httpStatus, 500)
        assert.isTrue(error.isRetryable)
        assert.strictEqual(venue.count(OPEN_ORDERS), 1)
      }), { retry: false })
  })

  it.effect("placeOrder: the venue applied the order and answered 500: the order is recovered, placed once", () => {
    const venue = new ScriptedVenue().answerNext(ORDERS, () => unknownCode500)
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const result = yield* client.placeOrder(limitOrder("amb-500"))
        assert.strictEqual(result.clientOrderId, "amb-500")
        assert.strictEqual(result.orderId, venueOrderId(venue, "amb-500"))
        assert.strictEqual(venue.orders.length, 1)
        assert.strictEqual(venue.count(OPEN_ORDERS), 1, "looked up among the open orders")
      }))
  })

  it.effect("internalTransfer: a 500 with an unknown code is not retried and its outcome is unknown", () => {
    const venue = new FakeVenue().fail({ kind: "http", ...unknownCode500 }, TRANSFER)
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(client.internalTransfer(sampleTransfer))
        reasonOf(error, "OutcomeUnknownError")
        assert.strictEqual(venue.count(TRANSFER), 1)
      }))
  })

  it.effect("a 400 with an unknown code stays a non-retryable ApiError, sent once", () => {
    const venue = new FakeVenue().fail({ kind: "venue", code: "49999", msg: "odd", status: 400 }, OPEN_ORDERS)
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(client.openOrdersPage({ symbol: SYMBOL }))
        assert.strictEqual(reasonOf(error, "ApiError").code, "49999")
        assert.isFalse(error.isRetryable)
        assert.strictEqual(venue.count(OPEN_ORDERS), 1)
      }))
  })
})

describe("batch items after an ambiguous attempt", () => {
  /** The retry's answer: every item of the request failed with 43012 (a venue checking balance first). */
  const allInsufficient: Rewrite = (_, request) =>
    answer(200, "00000", {
      resultList: [],
      failure: (request.json.orderList as Array<{ readonly clientOrderId: string }>).map(({ clientOrderId }) => ({
        clientOrderId,
        errorCode: "43012",
        errorMsg: "insufficient balance"
      }))
    })

  it.effect("items the lost attempt placed are Placed with their ids even if the retry calls them 43012", () => {
    const venue = new ScriptedVenue({ rejectItem: (item) => item.clientOrderId === "b-none" ? "43012" : undefined })
      .fail({ kind: "dropAfter" }, BATCH)
      .answerNext(BATCH, allInsufficient)
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const result = yield* client.placeOrders(SYMBOL, ["b-1", "b-none", "b-2"].map(batchItem))
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
        const result = yield* client.placeOrders(SYMBOL, ["dup-b", "fresh-b"].map(batchItem))
        const [dup, fresh] = result.outcomes
        assert.strictEqual(orderIdOf(fresh), venueOrderId(venue, "fresh-b"))
        assert.strictEqual(dup?._tag, "Failed", `not the old order ${OLD_ORDER_ID}`)
        if (dup?._tag !== "Failed") return
        assert.strictEqual(dup.code, "43118")
        assert.isTrue(dup.mayExist)
      }))
  })
})

describe("recovery matches the order, not only its clientOrderId", () => {
  it.effect("a reused clientOrderId of an older open order fails with DuplicateOrderError, not the old id", () => {
    const venue = new FakeVenue().fail({ kind: "dropBefore" }, ORDERS)
    addOldOrder(venue, "dup-1")
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(client.placeOrder(limitOrder("dup-1", "100", "1")))
        const reason = reasonOf(error, "DuplicateOrderError")
        assert.strictEqual(reason.clientOrderId, "dup-1")
        assert.isTrue(reason.afterRetry)
        assert.isTrue(reason.mayExist)
        assert.strictEqual(venue.orders.length, 1, "only the old order")
        assert.strictEqual(venue.count(ORDERS), 2)
      }))
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
          const result = yield* Effect.result(client.placeOrder(limitOrder("fmt-1", sent.price, sent.quantity)))
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

// -----------------------------------------------------------------------------------------------------------------
// rate limiter

const tenPerSecond = () => RateLimiter.make({ limit: 10, windowMillis: 1000 }, 0)

/** Starts `count` acquisitions of weight 1, each running at once up to its sleep; `granted()` counts the done. */
// Each acquisition is answered at once (its permit settled when granted).
const acquireMany = (limiter: RateLimiter.Limiter, count: number) =>
  Effect.gen(function*() {
    let granted = 0
    const fibers = yield* Effect.forEach(
      Array.from({ length: count }),
      () =>
        Effect.forkChild(
          Effect.tap(limiter.acquire(1), (permit) => Effect.andThen(permit.settle, Effect.sync(() => granted++))),
          { startImmediately: true }
        )
    )
    return { fibers, granted: () => granted }
  })

describe("rate limiter", () => {
  it.effect("a wall clock stepping back an hour does not stall the queue (monotonic time)", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(NOW)
      const limiter = tenPerSecond()
      assert.strictEqual((yield* acquireMany(limiter, 10)).granted(), 10)
      yield* TestClock.setTime(NOW - 3_600_000)
      const next = yield* acquireMany(limiter, 1)
      yield* TestClock.adjust(999)
      assert.strictEqual(next.granted(), 0, "the budget still holds")
      yield* TestClock.adjust(1)
      assert.strictEqual(next.granted(), 1, "granted one window after the first ten, not an hour later")
    }))

  it.effect("interrupted waiters give their weight back: ten new acquisitions fit in the next window", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(NOW)
      const limiter = tenPerSecond()
      yield* acquireMany(limiter, 10)
      const waiting = yield* acquireMany(limiter, 10)
      yield* Fiber.interruptAll(waiting.fibers)
      const fresh = yield* acquireMany(limiter, 10)
      yield* TestClock.adjust(999)
      assert.strictEqual(fresh.granted(), 0)
      yield* TestClock.adjust(1)
      assert.strictEqual(fresh.granted(), 10, "the interrupted ones no longer count in that window")
      assert.strictEqual(waiting.granted(), 0)
    }))

  it.effect("a new acquisition does not queue behind many interrupted waiters", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(NOW)
      const limiter = tenPerSecond()
      yield* acquireMany(limiter, 10)
      // 50 waiters reserve the slots of the next five windows, then give up.
      const waiting = yield* acquireMany(limiter, 50)
      yield* Fiber.interruptAll(waiting.fibers)
      const next = yield* acquireMany(limiter, 1)
      yield* TestClock.adjust(1000)
      assert.strictEqual(next.granted(), 1, "granted when the first window has passed, not after five")
    }))

  it.effect.each([
    { option: "placeOrder", rateLimit: { placeOrder: { limit: 0, windowMillis: 1000 } } },
    { option: "openOrders", rateLimit: { openOrders: { limit: 10, windowMillis: Number.NaN } } },
    { option: "fundingBills", rateLimit: { fundingBills: { limit: Number.POSITIVE_INFINITY, windowMillis: 1 } } },
    { option: "internalTransfer", rateLimit: { internalTransfer: { limit: 1, windowMillis: -5 } } },
    { option: "fundingBillsWeight", rateLimit: { fundingBillsWeight: 0 } }
  ])("an invalid rateLimit.$option makes building the client die with a RangeError", ({ option, rateLimit }) => {
    const venue = new FakeVenue()
    return Effect.gen(function*() {
      const exit = yield* Effect.exit(
        Effect.gen(function*() {
          return yield* SpotClient.SpotClient
        }).pipe(Effect.provide(clientLayer(venue, { rateLimit })))
      )
      assert.isTrue(Exit.isFailure(exit), "the client was built")
      if (Exit.isSuccess(exit)) return
      assert.isFalse(Cause.hasFails(exit.cause), "a defect, not a failure")
      const defect = Cause.findDefect(exit.cause)
      assert.strictEqual(defect._tag, "Success", Cause.pretty(exit.cause))
      if (defect._tag !== "Success") return
      assert.instanceOf(defect.success, RangeError)
      assert.include((defect.success as RangeError).message, `rateLimit.${option}`)
      assert.strictEqual(venue.requests.length, 0)
    })
  })
})

// -----------------------------------------------------------------------------------------------------------------
// bills stream against deviating venues

interface Deviation {
  /** `startTime` and `endTime` count as inclusive. */
  readonly inclusiveBounds?: boolean
  /** Serves at most this many bills per page, whatever was asked. */
  readonly maxPageSize?: number
  /** The answer's `pageSize`: the size served (default) or null. */
  readonly pageSizeField?: "served" | "null"
  readonly oldestFirst?: boolean
  /** Always serves the first page. */
  readonly ignoresPageIndex?: boolean
  /** The answer's `hasNextPage`; by default whether bills follow the requested page. */
  readonly hasNextPage?: boolean | null | undefined
}

/** Past this many bills requests the venue answers empty pages, so that a looping client ends the test. */
const GUARD = 50

/** The fake venue, whose bills pages bend the rules as `deviation` says. */
class DeviantBillsVenue extends ScriptedVenue {
  readonly deviation: Deviation
  constructor(deviation: Deviation) {
    super()
    this.deviation = deviation
  }

  protected override answerFor(path: string, original: Answer, request: Received): Answer {
    if (path !== BILLS || original.status !== 200) return super.answerFor(path, original, request)
    const { json } = request
    const d = this.deviation
    const asked = Number(json.pageSize ?? 10)
    const size = Math.min(asked, d.maxPageSize ?? asked)
    const requestedIndex = Number(json.pageIndex ?? 1)
    const pageIndex = d.ignoresPageIndex ? 1 : requestedIndex
    const after = (t: number, bound: unknown) =>
      bound === undefined || (d.inclusiveBounds ? t >= Number(bound) : t > Number(bound))
    const before = (t: number, bound: unknown) =>
      bound === undefined || (d.inclusiveBounds ? t <= Number(bound) : t < Number(bound))
    const matching = newestFirst(
      this.bills.filter((bill) => after(bill.cTime, json.startTime) && before(bill.cTime, json.endTime))
    )
    if (d.oldestFirst) matching.reverse()
    const items = this.count(BILLS) > GUARD ? [] : matching.slice((pageIndex - 1) * size, pageIndex * size)
    return answer(200, "00000", {
      total: matching.length,
      page: requestedIndex,
      pageSize: d.pageSizeField === "null" ? null : size,
      hasNextPage: d.hasNextPage === undefined ? requestedIndex * size < matching.length : d.hasNextPage,
      items: items.map((bill) => ({ ...bill, cTime: String(bill.cTime) }))
    })
  }
}

/** Bills newest first (cTime, then billId, both descending), as DESIGN §4 orders them. */
const newestFirst = (bills: ReadonlyArray<FakeBill>) =>
  [...bills].sort((a, b) => b.cTime - a.cTime || (BigInt(b.billId) > BigInt(a.billId) ? 1 : -1))

const idsOf = (bills: ReadonlyArray<FakeBill | Bill.Bill>) => bills.map((bill) => bill.billId)

const streamBills = (venue: FakeVenue, query: Bill.BillQuery = {}) =>
  withClient(venue, (client) => Stream.runCollect(client.fundingBills(query)))

describe("bills stream against a venue that bends the rules", () => {
  it.effect("inclusive startTime and endTime: every bill inside the exclusive bounds once, none outside", () => {
    const venue = new DeviantBillsVenue({ inclusiveBounds: true })
    venue.addBills(35, NOW - 1000)
    const startTime = NOW - 1000 - 30
    return Effect.gen(function*() {
      const bills = yield* streamBills(venue, { pageSize: 10, startTime })
      assert.deepStrictEqual(idsOf(bills), idsOf(newestFirst(venue.bills.filter((bill) => bill.cTime > startTime))))
    })
  })

  it.effect("a venue capping pages at 20 (hasNextPage null) while 100 were asked: no bill skipped", () => {
    const venue = new DeviantBillsVenue({ maxPageSize: 20, hasNextPage: null })
    venue.addBills(55, NOW - 1000, 2)
    return Effect.gen(function*() {
      const bills = yield* streamBills(venue)
      assert.deepStrictEqual(idsOf(bills), idsOf(newestFirst(venue.bills)))
      assert.strictEqual(venue.requests[0]!.json.pageSize, 100)
      assert.isAtMost(venue.count(BILLS), 4)
    })
  })

  it.effect("a venue sorting oldest first makes the stream fail, saying the bills are not newest first", () => {
    const venue = new DeviantBillsVenue({ oldestFirst: true })
    venue.addBills(25, NOW - 1000)
    return Effect.gen(function*() {
      const error = yield* Effect.flip(streamBills(venue, { pageSize: 10 }))
      assert.include(reasonOf(error, "DecodeError").description, "not newest first")
      assert.strictEqual(venue.count(BILLS), 1)
    })
  })

  it.effect.each([
    { cluster: 100, hasNextPage: undefined, name: "from the requested pageIndex" },
    { cluster: 30, hasNextPage: true, name: "always true" },
    { cluster: 30, hasNextPage: null, name: "null" },
    { cluster: 30, hasNextPage: undefined, name: "from the requested pageIndex" }
  ])(
    "a venue ignoring pageIndex with $cluster bills in one millisecond (hasNextPage $name) fails quickly",
    ({ cluster, hasNextPage }) => {
      const venue = new DeviantBillsVenue({ ignoresPageIndex: true, hasNextPage })
      venue.addBills(cluster, NOW - 1000, cluster)
      return Effect.gen(function*() {
        const result = yield* Effect.result(streamBills(venue, { pageSize: 10 }))
        assert.strictEqual(result._tag, "Failure", "the stream must not end as if all bills were read")
        if (result._tag === "Failure") reasonOf(result.failure, "DecodeError")
        assert.isBelow(venue.count(BILLS), 20)
      })
    }
  )

  it.effect("hasNextPage true on a short page keeps paging", () => {
    const venue = new DeviantBillsVenue({ maxPageSize: 7, pageSizeField: "null" })
    venue.addBills(30, NOW - 1000)
    return Effect.gen(function*() {
      const bills = yield* streamBills(venue, { pageSize: 10 })
      assert.deepStrictEqual(idsOf(bills), idsOf(newestFirst(venue.bills)))
    })
  })

  it.effect("hasNextPage false on a full page stops", () => {
    const venue = new DeviantBillsVenue({ hasNextPage: false })
    venue.addBills(30, NOW - 1000)
    return Effect.gen(function*() {
      const bills = yield* streamBills(venue, { pageSize: 10 })
      assert.deepStrictEqual(idsOf(bills), idsOf(newestFirst(venue.bills).slice(0, 10)))
      assert.strictEqual(venue.count(BILLS), 1)
    })
  })
})

// -----------------------------------------------------------------------------------------------------------------
// clock offset

describe("an implausible server time does not move the clock offset", () => {
  const SECONDS = Math.floor(NOW / 1000)

  it.effect.each([
    { field: "requestTime", path: OPEN_ORDERS },
    { field: "timestamp", path: TRANSFER }
  ])("a $field in seconds on $path leaves the next ACCESS-TIMESTAMP at ms near NOW", ({ field, path }) => {
    const venue = new ScriptedVenue().answerNext(path, (original) => ({
      ...original,
      body: original.body.replace(new RegExp(`"${field}":\\d+`), `"${field}":${SECONDS}`)
    }))
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        if (path === TRANSFER) {
          yield* client.internalTransfer(sampleTransfer)
        } else {
          yield* client.openOrdersPage({ symbol: SYMBOL })
        }
        assert.isBelow(Math.abs(yield* client.clockOffset), 1000)
        yield* client.openOrdersPage({ symbol: SYMBOL })
        const timestamp = venue.requests.at(-1)!.headers["access-timestamp"] ?? ""
        assert.match(timestamp, /^\d{13}$/)
        assert.isBelow(Math.abs(Number(timestamp) - NOW), 1000)
        assert.strictEqual(venue.requests.length, 2, "no 40008 round trip")
      }))
  })
})

// -----------------------------------------------------------------------------------------------------------------
// secrets

describe("escaped secrets are scrubbed from excerpts", () => {
  /** Credentials with "/" (and, in the secret key, a quote and a backslash), which JSON writers escape. */
  const slashed = {
    apiKey: "key/with/slash-7f3a",
    secretKey: "sec/ret\"quote\\back/c0ffee",
    passphrase: "pass/phrase-a5e2"
  } as const
  const options: Partial<SpotClient.Options> = {
    retry: false,
    credentials: {
      apiKey: Redacted.make(slashed.apiKey),
      secretKey: Redacted.make(slashed.secretKey),
      passphrase: Redacted.make(slashed.passphrase)
    }
  }
  const jsonEscaped = (text: string) => JSON.stringify(text).slice(1, -1)
  const slashEscaped = (text: string) => jsonEscaped(text).replaceAll("/", "\\/")
  const escapes = { "JSON-escaped": jsonEscaped, "JSON-escaped with \\/": slashEscaped }

  it.effect.each(
    [
      { status: 502, escape: "JSON-escaped with \\/", tag: "HttpStatusError" },
      { status: 502, escape: "JSON-escaped", tag: "HttpStatusError" },
      { status: 200, escape: "JSON-escaped with \\/", tag: "DecodeError" }
    ] as const
  )("HTTP $status echoing the credentials $escape", ({ escape, status, tag }) => {
    let signature = ""
    const venue = new ScriptedVenue({ credentials: slashed }).answerNext(OPEN_ORDERS, (original, request) => {
      assert.strictEqual(original.status, 200, "the venue accepts the slashed credentials")
      signature = request.headers["access-sign"] ?? ""
      const e = escapes[escape]
      return {
        status,
        body: `{"key":"${e(slashed.apiKey)}","secret":"${e(slashed.secretKey)}","pass":"${e(slashed.passphrase)}",` +
          `"sign":"${e(signature)}"}`
      }
    })
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(client.openOrdersPage({ symbol: SYMBOL }))
        const reason = reasonOf(error, tag)
        assert.include(reason.excerpt, "<redacted>")
        const rendered = [reason.excerpt, error.message, inspect(error, { depth: 10 })]
        for (const secret of [slashed.apiKey, slashed.secretKey, slashed.passphrase, signature]) {
          for (const form of [secret, jsonEscaped(secret), slashEscaped(secret)]) {
            for (const text of rendered) assert.notInclude(text, form)
          }
        }
      }), options)
  })
})

// -----------------------------------------------------------------------------------------------------------------
// venue codes named like Object.prototype keys

describe("venue codes that are Object.prototype keys", () => {
  it.effect.each(["toString", "constructor", "__proto__", "hasOwnProperty", "valueOf"])(
    "code %s is an ApiError",
    (code) => {
      const venue = new FakeVenue().fail({ kind: "venue", code, msg: "odd", status: 400 }, OPEN_ORDERS)
      return withClient(venue, (client) =>
        Effect.gen(function*() {
          const exit = yield* Effect.exit(client.openOrdersPage({ symbol: SYMBOL }))
          assert.isTrue(Exit.isFailure(exit) && !Cause.hasDies(exit.cause), "a failure, not a defect")
          if (Exit.isSuccess(exit)) return
          const error = Cause.findErrorOption(exit.cause)
          assert.isTrue(Option.isSome(error))
          if (Option.isNone(error)) return
          const reason = reasonOf(error.value, "ApiError")
          assert.strictEqual(reason.code, code)
          assert.strictEqual(reason.msg, "odd")
        }), { retry: false })
    }
  )
})

// -----------------------------------------------------------------------------------------------------------------
// tolerance of the wire

describe("tolerance of newer bizTypes and exponent decimals", () => {
  const exponents = [
    { wire: "0E-8", plain: "0.00000000" },
    { wire: "1.5e3", plain: "1500" },
    { wire: "-2.50e-2", plain: "-0.0250" },
    { wire: "1E+2", plain: "100" },
    { wire: "12.345e1", plain: "123.45" },
    { wire: "5e-1", plain: "0.5" }
  ]
  const decodeDecimal = Schema.decodeUnknownOption(Primitives.DecimalFromWire)

  it.each(exponents)("fromExponent($wire) = $plain", ({ plain, wire }) => {
    assert.strictEqual(Primitives.fromExponent(wire), plain)
  })

  it.each(exponents)("DecimalFromWire decodes $wire as $plain", ({ plain, wire }) => {
    assert.deepStrictEqual(decodeDecimal(wire), Option.some(plain as Primitives.Decimal))
  })

  it("leaves plain decimals alone and rejects a huge or malformed exponent", () => {
    assert.deepStrictEqual(decodeDecimal("0.25"), Option.some("0.25" as Primitives.Decimal))
    assert.isUndefined(Primitives.fromExponent("0.25"))
    for (const bad of ["1e99999", "1.5e", "e5", "1e2.5", "+1e2"]) {
      assert.isUndefined(Primitives.fromExponent(bad), bad)
      assert.isTrue(Option.isNone(decodeDecimal(bad)), bad)
    }
  })

  /** Adds one bill with the given fields to a fake venue. */
  const venueWithBill = (fields: Partial<FakeBill>) => {
    const venue = new FakeVenue()
    venue.addBills(1, NOW - 1000)
    venue.bills[0] = { ...venue.bills[0]!, ...fields }
    return venue
  }

  it.effect("a bill with an unknown bizType streams with that bizType", () => {
    const venue = venueWithBill({ bizType: "margin_interest" })
    return Effect.map(streamBills(venue), (bills) => {
      assert.deepStrictEqual(bills.map((bill) => bill.bizType), ["margin_interest"])
    })
  })

  it.effect("a bill with exponent-form amounts streams with exact plain decimals", () => {
    const venue = venueWithBill({ deltaAmount: "1.5e3", afterAmount: "-2.50e-2", fees: "0E-8" })
    return Effect.map(streamBills(venue), (bills) => {
      assert.deepStrictEqual(
        bills.map(({ afterAmount, deltaAmount, fees }) => ({ deltaAmount, afterAmount, fees })),
        [{ deltaAmount: "1500", afterAmount: "-0.0250", fees: "0.00000000" }]
      )
    })
  })
})

// -----------------------------------------------------------------------------------------------------------------
// transfer answers and market prices

describe("transfer success answers", () => {
  const transfer = (client: SpotClient.Service) => client.internalTransfer(sampleTransfer)

  it.effect.each([
    { name: "a standard 00000 envelope", body: envelope("00000", "success", NOW, `{"id":"123"}`) },
    { name: "a standard envelope with a numeric id", body: envelope("00000", "success", NOW, `{"id":123}`) },
    { name: "the transfer envelope without timestamp", body: `{"code":"200","id":"123"}` }
  ])("$name gives the id and no timestamp", ({ body }) => {
    const venue = new ScriptedVenue().answerNext(TRANSFER, () => ({ status: 200, body }))
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const result = yield* transfer(client)
        assert.strictEqual(result.id, "123")
        assert.isUndefined(result.timestamp)
        assert.strictEqual(venue.count(TRANSFER), 1)
      }))
  })
})

describe("market order prices", () => {
  const market = (price: string): Order.PlaceOrderInput => ({
    symbol: SYMBOL,
    side: "buy",
    orderType: "market",
    price,
    quantity: "25",
    clientOrderId: `m${price}`
  })

  it.effect("a negative price on a market order fails validation on price, sending nothing", () => {
    const venue = new FakeVenue()
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(client.placeOrder(market("-1")))
        assert.strictEqual(reasonOf(error, "ValidationError").field, "price")
        const batch = yield* client.placeOrders(SYMBOL, [market("-1")].map(({ symbol: _, ...item }) => item))
        const [outcome] = batch.outcomes
        assert.strictEqual(outcome?._tag, "Failed")
        if (outcome?._tag === "Failed") assert.include(outcome.message, "items[0].price")
        assert.strictEqual(venue.requests.length, 0)
      }))
  })

  it.effect("a zero price on a market order is accepted and sent", () => {
    const venue = new FakeVenue()
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const result = yield* client.placeOrder(market("0"))
        assert.strictEqual(result.orderId, venueOrderId(venue, "m0"))
        assert.strictEqual(venue.requests[0]!.json.price, "0")
      }))
  })
})

// -----------------------------------------------------------------------------------------------------------------
// A connection that could not be made (review of the CLI: a refused connection was reported as "may have been
// applied", a transfer was not retried, and an order was looked up among the open orders for nothing).

/** The venue behind a connection that is refused `times` times (ECONNREFUSED, as undici reports it) first. */
const refusedFirst = (venue: FakeVenue, times: number): HttpClient.HttpClient => {
  let left = times
  return HttpClient.make((request) => {
    if (left-- <= 0) return venue.client.execute(request)
    const cause = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), { code: "ECONNREFUSED" })
    return Effect.fail(
      new HttpClientError.HttpClientError({ reason: new HttpClientError.TransportError({ request, cause }) })
    )
  })
}

const overRefused = <A, E>(venue: FakeVenue, times: number, f: (client: SpotClient.Service) => Effect.Effect<A, E>) =>
  Effect.gen(function*() {
    yield* TestClock.setTime(NOW)
    return yield* f(yield* SpotClient.SpotClient)
  }).pipe(
    Effect.provide(
      SpotClient.layer({ ...clientOptions, rateLimit: false, retry: { baseDelay: 0 } }).pipe(
        Layer.provide(Layer.succeed(HttpClient.HttpClient, refusedFirst(venue, times)))
      )
    )
  )

describe("regressions: a connection that could not be made", () => {
  it.effect("a transfer is retried after refused connections, and applied once", () => {
    const venue = new FakeVenue()
    return overRefused(venue, 2, (client) =>
      Effect.gen(function*() {
        const result = yield* client.internalTransfer(sampleTransfer)
        assert.isString(result.id)
        assert.strictEqual(venue.count(TRANSFER), 1)
      }))
  })

  it.effect("a transfer that never connects fails with a TransportError that says it was not sent", () => {
    const venue = new FakeVenue()
    return overRefused(venue, 100, (client) =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(client.internalTransfer(sampleTransfer))
        const reason = reasonOf(error, "TransportError")
        assert.isTrue(reason.notSent)
        assert.include(error.message, "ECONNREFUSED")
        assert.strictEqual(venue.count(TRANSFER), 0)
      }))
  })

  it.effect("an order that never connects is not looked up and not reported as possibly placed", () => {
    const venue = new FakeVenue()
    return overRefused(venue, 100, (client) =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(client.placeOrder(limitOrder("refused-1")))
        assert.isTrue(reasonOf(error, "TransportError").notSent)
        assert.strictEqual(venue.requests.length, 0, "no open-orders look-up either")
      }))
  })

  it.effect("a connection reset after sending stays ambiguous: the transfer's outcome is unknown", () => {
    const venue = new FakeVenue().fail({ kind: "dropBefore" }, TRANSFER)
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(client.internalTransfer(sampleTransfer))
        reasonOf(error, "OutcomeUnknownError")
      }))
  })
})
