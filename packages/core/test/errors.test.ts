/**
 * Every venue code of DESIGN §3 maps to its reason, with the venue's code, msg and server time kept; HTTP, decode
 * and transport failures have their own reasons with short excerpts; unknown extra fields in answers are tolerated.
 */
import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Fiber, Layer } from "effect"
import { HttpClient, HttpClientError } from "effect/http"
import { TestClock } from "effect/testing"
import { SpotClient, SpotError } from "../src/index.ts"
import {
  clientLayer,
  clientOptions,
  FakeVenue,
  type Fault,
  NOW,
  reasonOf,
  sampleTransfer,
  SYMBOL,
  withClient
} from "./support/FakeVenue.ts"

type Call<A = unknown> = (client: SpotClient.Service) => Effect.Effect<A, SpotError.SpotError>

const calls = {
  placeOrder: (client) =>
    client.placeOrder({
      symbol: SYMBOL,
      side: "buy",
      orderType: "limit",
      price: "100",
      quantity: "1",
      clientOrderId: "err-1"
    }),
  openOrdersPage: (client) => client.openOrdersPage({ symbol: SYMBOL }),
  fundingBillsPage: (client) => client.fundingBillsPage({ pageSize: 10 }),
  internalTransfer: (client) => client.internalTransfer(sampleTransfer)
} satisfies Record<string, Call>

/** Runs `call` at `NOW` over a fake venue that first plays `faults`; answers the venue and the call's result. */
const attempt = <A>(
  faults: ReadonlyArray<Fault>,
  call: Call<A>,
  retry: SpotClient.Options["retry"] = false
) => {
  const venue = new FakeVenue()
  for (const fault of faults) venue.fail(fault)
  return Effect.gen(function*() {
    yield* TestClock.setTime(NOW)
    const client = yield* SpotClient.SpotClient
    const result = yield* Effect.result(call(client))
    return { venue, result }
  }).pipe(Effect.provide(clientLayer(venue, { retry })))
}

/** Like `attempt`, for calls that must fail: answers the error. */
const failure = (faults: ReadonlyArray<Fault>, call: Call, retry: SpotClient.Options["retry"] = false) =>
  Effect.map(attempt(faults, call, retry), ({ result, venue }) => {
    assert.strictEqual(result._tag, "Failure", "the call should have failed")
    if (result._tag === "Success") throw new Error("unreachable")
    assert.isTrue(SpotError.isSpotError(result.failure))
    return { error: result.failure, venue }
  })

/** A success answer with arbitrary text, as the venue (or a proxy) might send it. */
const answer = (body: string, status = 200): Fault => ({ kind: "http", status, body })

interface VenueCase {
  readonly code: string
  readonly msg: string
  readonly reason: SpotError.SpotErrorReason["_tag"]
  readonly retryable: boolean
  readonly status?: number
  /** Faults to queue; a 40008 is retried once by the client itself. */
  readonly times?: number
}

const auth = (code: string, msg: string): VenueCase => ({ code, msg, reason: "AuthenticationError", retryable: false })
const invalid = (code: string, msg: string): VenueCase => ({
  code,
  msg,
  reason: "InvalidRequestError",
  retryable: false
})

const venueCases: ReadonlyArray<VenueCase> = [
  auth("40001", "ACCESS_KEY cannot be empty"),
  auth("40002", "ACCESS_SIGN cannot be empty"),
  auth("40003", "ACCESS_TIMESTAMP cannot be empty"),
  auth("40005", "Invalid ACCESS_TIMESTAMP"),
  auth("40006", "Invalid ACCESS_KEY"),
  auth("40007", "Invalid Content_Type, please use \"application/json\""),
  auth("40009", "sign signature error"),
  auth("40011", "ACCESS_PASSPHRASE cannot be empty"),
  auth("40012", "apikey/password is incorrect"),
  { code: "40008", msg: "Request timestamp expired", reason: "TimestampError", retryable: true, times: 2 },
  { code: "40014", msg: "Incorrect permissions", reason: "PermissionError", retryable: false },
  invalid("40017", "Parameter verification failed"),
  invalid("40019", "Parameter price cannot be empty"),
  invalid("40020", "Parameter side error"),
  invalid("40034", "Parameter symbol does not exist"),
  { code: "43012", msg: "Insufficient balance", reason: "InsufficientBalanceError", retryable: false },
  { code: "43118", msg: "clientOrderId duplicate", reason: "DuplicateOrderError", retryable: false },
  { code: "40102", msg: "Symbol does not exist", reason: "UnknownSymbolError", retryable: false },
  { code: "45110", msg: "less than the minimum amount 5 USDT", reason: "InvalidOrderError", retryable: false },
  { code: "40808", msg: "parameter scale error", reason: "InvalidOrderError", retryable: false },
  { code: "429", msg: "Too Many Requests", reason: "RateLimitError", retryable: true, status: 429 },
  { code: "40200", msg: "server upgrade", reason: "MaintenanceError", retryable: true },
  { code: "99999", msg: "something new", reason: "ApiError", retryable: false }
]

const venueFault = ({ code, msg, status }: VenueCase): Fault =>
  status === undefined ? { kind: "venue", code, msg } : { kind: "venue", code, msg, status }

/** The venue metadata of a reason, failing the test when it has none. */
const venueMeta = (reason: SpotError.SpotErrorReason) => {
  assert.isTrue("code" in reason, `${reason._tag} should carry the venue's code`)
  return reason as Extract<SpotError.SpotErrorReason, { readonly code: string }>
}

/** Checks the reason and the venue's code, msg and server time as the fake sent them. */
const assertVenueReason = (error: SpotError.SpotError, testCase: VenueCase) => {
  const reason = venueMeta(error.reason)
  assert.strictEqual(reason._tag, testCase.reason)
  assert.strictEqual(reason.code, testCase.code)
  assert.strictEqual(reason.msg, testCase.msg)
  assert.strictEqual(reason.requestTime, NOW)
  assert.strictEqual(error.code, testCase.code)
  return reason
}

/** An excerpt is the start of the body, and short however long the body is. */
const assertExcerpt = (body: string, excerpt: string) => {
  assert.isAbove(excerpt.length, 0)
  assert.isAtMost(excerpt.length, 200)
  assert.isTrue(body.startsWith(excerpt), excerpt)
}

describe("venue codes", () => {
  it.effect.each(venueCases)("$code → $reason", (testCase) =>
    Effect.gen(function*() {
      const times = testCase.times ?? 1
      // Retries stay on for non-retryable codes: the client must not repeat them.
      const retry = testCase.retryable ? false : undefined
      const { error, venue } = yield* failure(
        Array.from({ length: times }, () => venueFault(testCase)),
        calls.placeOrder,
        retry
      )
      const reason = assertVenueReason(error, testCase)
      assert.strictEqual(reason.httpStatus, testCase.status ?? 400)
      assert.strictEqual(reason.isRetryable, testCase.retryable)
      assert.strictEqual(error.isRetryable, testCase.retryable)
      assert.strictEqual(error.operation, "SpotClient.placeOrder")
      assert.include(error.message, testCase.code)
      assert.strictEqual(venue.requests.length, times)
    }))

  it.effect("a single 40008 is absorbed by one re-signed retry", () =>
    Effect.gen(function*() {
      const { result, venue } = yield* attempt([{ kind: "venue", code: "40008" }], calls.placeOrder)
      assert.strictEqual(result._tag, "Success")
      assert.strictEqual(venue.requests.length, 2)
    }))

  it.effect("43118 names the clientOrderId and is not an after-retry duplicate", () =>
    Effect.gen(function*() {
      const { error } = yield* failure(
        [{ kind: "venue", code: "43118", msg: "clientOrderId duplicate" }],
        calls.placeOrder
      )
      const reason = reasonOf(error, "DuplicateOrderError")
      assert.strictEqual(reason.clientOrderId, "err-1")
      assert.isFalse(reason.afterRetry)
    }))

  it.effect.each([
    { name: "openOrdersPage", call: calls.openOrdersPage },
    { name: "fundingBillsPage", call: calls.fundingBillsPage },
    { name: "internalTransfer", call: calls.internalTransfer }
  ])("maps codes the same way on $name", ({ call, name }) =>
    Effect.gen(function*() {
      for (const testCase of venueCases.filter((c) => ["40014", "43012", "40200"].includes(c.code))) {
        const { error } = yield* failure([venueFault(testCase)], call)
        assertVenueReason(error, testCase)
        assert.strictEqual(error.operation, `SpotClient.${name}`)
      }
    }))

  it.effect("HTTP 429 with a non-JSON body is a RateLimitError", () =>
    Effect.gen(function*() {
      const { error, venue } = yield* failure([answer("Too Many Requests", 429)], calls.placeOrder)
      const reason = venueMeta(reasonOf(error, "RateLimitError"))
      assert.strictEqual(reason.code, "429")
      assert.isAbove(reason.msg.length, 0)
      assert.strictEqual(reason.httpStatus, 429)
      assert.isUndefined(reason.requestTime)
      assert.isTrue(error.isRetryable)
      assert.strictEqual(error.code, "429")
      assert.strictEqual(venue.requests.length, 1)
    }))

  it.effect("HTTP 429 with an unknown envelope code is still a RateLimitError", () =>
    Effect.gen(function*() {
      const { error } = yield* failure(
        [{ kind: "venue", code: "30001", msg: "slow down", status: 429 }],
        calls.placeOrder
      )
      reasonOf(error, "RateLimitError")
      assert.strictEqual(error.code, "30001")
      assert.isTrue(error.isRetryable)
    }))

  it.effect("an envelope code sent as a JSON number maps like its string", () =>
    Effect.gen(function*() {
      const body = `{"code":40102,"msg":"Symbol does not exist","requestTime":${NOW},"data":null}`
      const { error } = yield* failure([answer(body, 400)], calls.openOrdersPage)
      reasonOf(error, "UnknownSymbolError")
      assert.strictEqual(error.code, "40102")
    }))
})

const MEGABYTE = 1_000_000

describe("HTTP, decode and transport failures", () => {
  it.effect("HTTP 502 with an HTML body is an HttpStatusError with a short excerpt", () =>
    Effect.gen(function*() {
      const html = `<html><head><title>502 Bad Gateway</title></head><body>${"x".repeat(MEGABYTE)}</body></html>`
      const { error } = yield* failure([answer(html, 502)], calls.openOrdersPage)
      const reason = reasonOf(error, "HttpStatusError")
      assert.strictEqual(reason.httpStatus, 502)
      assertExcerpt(html, reason.excerpt)
      assert.isTrue(reason.excerpt.startsWith("<html><head><title>502 Bad Gateway"))
      assert.isAtMost(String(error).length, 1_000)
      assert.isTrue(error.isRetryable)
      assert.isUndefined(error.code)
    }))

  it.effect("HTTP 404 with an HTML body is an HttpStatusError that is not retryable", () =>
    Effect.gen(function*() {
      const { error } = yield* failure([answer("<html>Not Found</html>", 404)], calls.openOrdersPage)
      reasonOf(error, "HttpStatusError")
      assert.isFalse(error.isRetryable)
    }))

  it.effect.each(
    [
      {
        name: "a truncated body",
        body: "{\"code\":\"00000\",\"msg\":\"success\",\"data\":{\"orderInfoResultList\":[",
        kind: "json"
      },
      { name: "a 1 MB garbled body", body: `{"code":"00000","data":"${"z".repeat(MEGABYTE)}`, kind: "json" },
      {
        name: "an open order without orderId",
        body: `{"code":"00000","msg":"success","requestTime":${NOW},` +
          `"data":{"orderInfoResultList":[{"symbol":"${SYMBOL}"}]}}`,
        kind: "schema"
      },
      { name: "a bare array", body: "[1,2,3]", kind: "schema" },
      { name: "an envelope without code", body: `{"msg":"success","requestTime":${NOW},"data":null}`, kind: "schema" }
    ] as const
  )("HTTP 200 with $name is a DecodeError of kind $kind", ({ body, kind }) =>
    Effect.gen(function*() {
      const { error } = yield* failure([answer(body)], calls.openOrdersPage)
      const reason = reasonOf(error, "DecodeError")
      assert.strictEqual(reason.kind, kind)
      assert.strictEqual(reason.httpStatus, 200)
      assertExcerpt(body, reason.excerpt)
      assert.isAtMost(String(error).length, 1_000)
      // A garbled body is worth a retry; a well-formed answer of the wrong shape is not.
      assert.strictEqual(error.isRetryable, kind === "json")
      assert.isUndefined(error.code)
    }))

  it.effect("a connection failure is a retryable TransportError", () =>
    Effect.gen(function*() {
      const { error, venue } = yield* failure([{ kind: "dropBefore" }], calls.openOrdersPage)
      reasonOf(error, "TransportError")
      assert.isTrue(error.isRetryable)
      assert.isUndefined(error.code)
      assert.strictEqual(venue.requests.length, 1)
    }))
})

// ---------------------------------------------------------------------------------------------------------------
// tolerance of unknown extra fields

/** An open-order record; `orderIdJson` is the id as JSON text (a number or a quoted string). */
const openOrderJson = (orderIdJson: string, clientOrderId: string, extra: string) =>
  `{"accountId":10012,"symbol":"${SYMBOL}","orderId":${orderIdJson},"clientOrderId":"${clientOrderId}",` +
  `"price":"23222.5",` +
  `"quantity":"0.01","orderType":"limit","side":"buy","status":"open","latestFillPrice":"0","maxFillPrice":"0",` +
  `"minFillPrice":"0","fillQuantity":"0","fillTotalAmount":"0","cTime":"${NOW}","uTime":${NOW}${extra}}`

const succeed = <A>(body: string, call: Call<A>) =>
  Effect.map(attempt([answer(body)], call), ({ result }) => {
    assert.strictEqual(result._tag, "Success", result._tag === "Failure" ? result.failure.message : "")
    if (result._tag === "Failure") throw new Error("unreachable")
    return result.success
  })

describe("unknown extra fields", () => {
  it.effect("an open-orders page with extra fields per order and in the envelope, nextPage/totals as numbers", () =>
    Effect.gen(function*() {
      const orders = [
        openOrderJson("602876318261969338", "c-1", ",\"source\":\"api\",\"nested\":{\"a\":[1,2]}"),
        openOrderJson("\"602876318261969339\"", "c-2", ",\"stpMode\":null")
      ]
      const body = `{"code":"00000","msg":"success","requestTime":${NOW},"traceId":"abc","extra":{"x":1},` +
        `"data":{"orderInfoResultList":[${orders.join(",")}],"nextPage":2,"totals":17,"cursor":"zz"}}`
      const page = yield* succeed(body, calls.openOrdersPage)
      const list = page.orderInfoResultList ?? []
      assert.deepStrictEqual(list.map((order) => order.orderId), ["602876318261969338", "602876318261969339"])
      assert.strictEqual(list[0]!.accountId, "10012")
      assert.strictEqual(list[0]!.price, "23222.5")
      assert.strictEqual(list[1]!.cTime, NOW)
      assert.strictEqual(page.nextPage, 2)
      assert.strictEqual(page.totals, 17)
    }))

  it.effect("a place-order answer with extra fields keeps the exact id", () =>
    Effect.gen(function*() {
      const body = `{"code":"00000","msg":"success","requestTime":${NOW},"unexpected":true,` +
        `"data":{"orderId":602876318261969338,"clientOrderId":"err-1","status":"new"}}`
      const placed = yield* succeed(body, calls.placeOrder)
      assert.strictEqual(placed.orderId, "602876318261969338")
      assert.strictEqual(placed.clientOrderId, "err-1")
    }))

  it.effect("a bills page with extra fields decodes", () =>
    Effect.gen(function*() {
      const bill = `{"billId":"7000000000000000001","coinId":2,"coinName":"USDT","bizType":"deposit",` +
        `"deltaAmount":"1.5","afterAmount":"10.5","fees":"0","cTime":"${NOW}","chain":"TRC20"}`
      const body = `{"code":"00000","msg":"success","requestTime":${NOW},"data":{"total":1,"page":1,"pageSize":10,` +
        `"hasNextPage":false,"items":[${bill}],"extra":[]}}`
      const page = yield* succeed(body, calls.fundingBillsPage)
      assert.deepStrictEqual(page.items?.map((item) => item.billId), ["7000000000000000001"])
      assert.strictEqual(page.items?.[0]?.deltaAmount, "1.5")
    }))

  it.effect("a transfer answer with extra fields decodes", () =>
    Effect.gen(function*() {
      const body = `{"code":"200","id":"9000000000000000007","timestamp":${NOW},"msg":"ok","fee":"0"}`
      const transfer = yield* succeed(body, calls.internalTransfer)
      assert.deepStrictEqual(transfer, { id: "9000000000000000007", timestamp: NOW })
    }))
})

describe("timeouts and handling reasons", () => {
  // Counts the requests it was handed, and never answers them.
  let received = 0
  const silent = HttpClient.make(() =>
    Effect.suspend(() => {
      received++
      return Effect.never
    })
  )
  const silentClient = (options: Partial<SpotClient.Options>) =>
    SpotClient.layer({ ...clientOptions, rateLimit: false, ...options }).pipe(
      Layer.provide(Layer.succeed(HttpClient.HttpClient, silent))
    )

  it.effect("a venue that never answers fails with a retryable TransportError after the timeout", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(NOW)
      const client = yield* SpotClient.SpotClient
      received = 0
      const fiber = yield* Effect.forkChild(Effect.flip(client.openOrdersPage({ symbol: SYMBOL })))
      // Let the request reach the HTTP client (signing with WebCrypto takes real time, longer on a loaded machine),
      // then its timer register, before moving the clock.
      while (received === 0) yield* Effect.promise(() => new Promise((resolve) => setImmediate(resolve)))
      for (let i = 0; i < 20; i++) yield* Effect.yieldNow
      yield* TestClock.adjust("2999 millis")
      assert.isUndefined(fiber.pollUnsafe())
      yield* TestClock.adjust("1 millis")
      const error = yield* Fiber.join(fiber)
      assert.strictEqual(error.reason._tag, "TransportError")
      assert.include(error.message, "no answer within 3s")
      assert.isTrue(error.isRetryable)
    }).pipe(Effect.provide(silentClient({ timeout: "3 seconds", retry: false }))))

  // With `timeoutBy: "transport"` the HttpClient bounds the exchange itself: the client does not race it, and reads
  // the transport's failure (a TransportError caused by a TimeoutError) as no answer within the timeout.
  it.effect("timeoutBy transport: a transport's TimeoutError reads as no answer, retryable; the client never races", () => {
    let calls = 0
    const bounding = HttpClient.make((request) => {
      calls++
      return calls === 1
        ? Effect.fail(
          new HttpClientError.HttpClientError({
            reason: new HttpClientError.TransportError({ request, cause: new Cause.TimeoutError() })
          })
        )
        : Effect.never
    })
    return Effect.gen(function*() {
      const client = yield* SpotClient.SpotClient
      const error = yield* Effect.flip(client.openOrdersPage({ symbol: SYMBOL }))
      assert.strictEqual(error.reason._tag, "TransportError")
      assert.include(error.message, "no answer within 3s")
      assert.isTrue(error.isRetryable)
      // A transport that never answers is not cut short by the client's clock.
      const fiber = yield* Effect.forkChild(client.openOrdersPage({ symbol: SYMBOL }))
      while (calls < 2) yield* Effect.yieldNow
      yield* TestClock.adjust("1 hour")
      assert.isUndefined(fiber.pollUnsafe())
      yield* Fiber.interrupt(fiber)
      assert.strictEqual(calls, 2)
    }).pipe(
      Effect.provide(
        SpotClient.layer({
          ...clientOptions,
          rateLimit: false,
          timeout: "3 seconds",
          timeoutBy: "transport",
          retry: false
        })
          .pipe(Layer.provide(Layer.succeed(HttpClient.HttpClient, bounding)))
      )
    )
  })

  it.effect("reasons can be handled with Effect.catchReason", () => {
    const venue = new FakeVenue().fail({ kind: "venue", code: "43012", msg: "Insufficient balance" })
    return withClient(
      venue,
      (client) =>
        client.placeOrder({ symbol: SYMBOL, side: "buy", orderType: "market", quantity: "10" }).pipe(
          Effect.map(() => "placed"),
          Effect.catchReason(
            "SpotError",
            "InsufficientBalanceError",
            (reason) => Effect.succeed(`short: ${reason.code}`),
            (reason) => Effect.succeed(`other: ${reason._tag}`)
          ),
          Effect.map((outcome) => assert.strictEqual(outcome, "short: 43012"))
        )
    )
  })
})
