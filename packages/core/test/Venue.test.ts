/**
 * The venue's facts as the client reads them: every venue code of docs/venue/signing.md#error-codes maps to its reason, with the venue's
 * code, msg and server time kept, whichever operation got it; codes named like `Object.prototype` keys are plain
 * unknown codes; `mayHaveApplied` says which failures may have been applied; `prehash` is the signed text.
 */
import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Exit, Option } from "effect"
import { SpotError, Venue } from "../src/index.ts"
import {
  attempt,
  calls,
  failure,
  FakeVenue,
  type Fault,
  httpAnswer,
  NOW,
  OPEN_ORDERS,
  reasonOf,
  SYMBOL,
  withClient
} from "./support/FakeVenue.ts"

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
      const { error, venue } = yield* failure([httpAnswer("Too Many Requests", 429)], calls.placeOrder)
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
      const { error } = yield* failure([httpAnswer(body, 400)], calls.openOrdersPage)
      reasonOf(error, "UnknownSymbolError")
      assert.strictEqual(error.code, "40102")
    }))

  it.effect("the success code sent as a JSON number, 0 (JSON has no 00000), is a success", () =>
    Effect.gen(function*() {
      // An order's answer: read as placed, not as an ApiError "success (code 0)" that says it was not applied.
      const placed = `{"code":0,"msg":"success","requestTime":${NOW},` +
        `"data":{"orderId":602876318261969338,"clientOrderId":"err-1"}}`
      const { result } = yield* attempt([httpAnswer(placed)], calls.placeOrder)
      assert.strictEqual(result._tag, "Success", result._tag === "Failure" ? result.failure.message : "")
      if (result._tag === "Success") assert.strictEqual(result.success.orderId, "602876318261969338")
      const page = `{"code":0,"msg":"success","requestTime":${NOW},"data":{"orderInfoResultList":[]}}`
      const listed = yield* attempt([httpAnswer(page)], calls.openOrdersPage)
      assert.strictEqual(listed.result._tag, "Success")
      // Any other number is the venue's code, as its string would be.
      const { error } = yield* failure([httpAnswer(`{"code":1,"msg":"odd","data":null}`)], calls.openOrdersPage)
      assert.strictEqual(reasonOf(error, "ApiError").code, "1")
    }))
})

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

describe("the code table, mayHaveApplied and prehash", () => {
  const prototypeKeys = ["toString", "constructor", "__proto__", "hasOwnProperty", "valueOf"]

  it("reasonOf gives every code of the table its reason, keeping the venue's code, msg, time and status", () => {
    for (const [code, entry] of Venue.codes) {
      const reason = Venue.reasonOf({ code, msg: entry.msg, requestTime: NOW, httpStatus: entry.status })
      assert.isTrue(reason instanceof entry.reason, `${code}: ${reason._tag}`)
      assert.deepInclude(reason, { code, msg: entry.msg, requestTime: NOW, httpStatus: entry.status }, code)
    }
    const duplicate = Venue.reasonOf({ code: "43118", msg: "clientOrderId duplicate", clientOrderId: "d-1" })
    assert.deepInclude(duplicate, { _tag: "DuplicateOrderError", clientOrderId: "d-1", afterRetry: false })
  })

  it("reasonOf: an unknown code (Object.prototype keys too) is an ApiError, a RateLimitError under 429", () => {
    for (const code of ["99999", ...prototypeKeys]) {
      assert.strictEqual(Venue.reasonOf({ code, msg: "odd", httpStatus: 400 })._tag, "ApiError", code)
      assert.strictEqual(Venue.reasonOf({ code, msg: "odd", httpStatus: 429 })._tag, "RateLimitError", code)
      assert.strictEqual(Venue.message(code), code, code)
    }
  })

  it("message fills in the parameter", () => {
    assert.strictEqual(Venue.message("40020", "side"), "Parameter side error")
    assert.strictEqual(Venue.message("40009"), "sign signature error")
    // Without a parameter the placeholder goes with its space.
    assert.strictEqual(Venue.message("40034"), "Parameter does not exist")
    assert.strictEqual(Venue.message("45110"), "less than the minimum amount")
  })

  it("mayHaveApplied: lost or garbled answers and server failures may have been applied; refusals were not", () => {
    const applied: ReadonlyArray<SpotError.SpotErrorReason> = [
      new SpotError.TransportError({ description: "connection reset" }),
      new SpotError.TransportError({ description: "timeout", notSent: false }),
      new SpotError.DecodeError({ kind: "json", description: "truncated", excerpt: "{" }),
      new SpotError.DecodeError({ kind: "schema", description: "wrong shape", excerpt: "{}" }),
      new SpotError.HttpStatusError({ httpStatus: 502, excerpt: "<html>" }),
      new SpotError.HttpStatusError({ httpStatus: 408, excerpt: "" }),
      // An informational status taken for the answer (node:http hands over a 101) says nothing of the request.
      new SpotError.HttpStatusError({ httpStatus: 101, excerpt: "" }),
      // A 303 says the server acted; a 300 or 304 to a request that asked for neither, or an opaque redirect, may.
      ...[0, 300, 303, 304].map((httpStatus) => new SpotError.RedirectError({ httpStatus })),
      new SpotError.ApiError({ code: "50000", msg: "internal", httpStatus: 500 }),
      // The venue's own "request timed out" and "system error": it may have acted before failing.
      Venue.reasonOf({ code: "40010", msg: "Request timed out", httpStatus: 400 }),
      Venue.reasonOf({ code: "40015", msg: "System error", httpStatus: 400 })
    ]
    const refused: ReadonlyArray<SpotError.SpotErrorReason> = [
      new SpotError.TransportError({ description: "connect ECONNREFUSED", notSent: true }),
      new SpotError.HttpStatusError({ httpStatus: 404, excerpt: "<html>" }),
      // Sent elsewhere, not handled.
      ...[301, 302, 307, 308].map((httpStatus) => new SpotError.RedirectError({ httpStatus })),
      new SpotError.ApiError({ code: "49999", msg: "odd", httpStatus: 400 }),
      new SpotError.ApiError({ code: "49999", msg: "odd" }),
      ...[...Venue.codes].filter(([, entry]) => entry.reason !== SpotError.ServerError).map(([code, entry]) =>
        Venue.reasonOf({ code, msg: entry.msg, httpStatus: entry.status })
      ),
      new SpotError.ValidationError({ field: "price", description: "is required" })
    ]
    for (const reason of applied) assert.isTrue(Venue.mayHaveApplied(reason), reason.message)
    for (const reason of refused) assert.isFalse(Venue.mayHaveApplied(reason), reason.message)
  })

  it("prehash is timestamp + upper-case method + request path (with its query) + body", () => {
    assert.strictEqual(
      Venue.prehash("1700000000123", "get", "/products?symbol=BTCUSDT_SPBL", ""),
      "1700000000123GET/products?symbol=BTCUSDT_SPBL"
    )
    assert.strictEqual(
      Venue.prehash("1700000000123", "POST", "/api/v2/trade/orders", "{\"a\":1}"),
      "1700000000123POST/api/v2/trade/orders{\"a\":1}"
    )
  })
})

describe("Venue.baseUrlProblem", () => {
  it.each([
    ["https://api.example.com", undefined],
    ["https://api.example.com/", undefined],
    ["http://127.0.0.1:8080", undefined],
    // A gateway's prefix is a path like any other; only the endpoints' own start is doubled.
    ["https://gw.example.com/venue", undefined],
    ["https://gw.example.com/apis", undefined],
    [
      "https://api.example.com/api/v2",
      "ends in /api/v2, which every endpoint's path starts with; leave it out (https://api.example.com)"
    ],
    [
      "https://api.example.com/api/v2/",
      "ends in /api/v2, which every endpoint's path starts with; leave it out (https://api.example.com)"
    ],
    [
      "https://api.example.com/api",
      "ends in /api, which every endpoint's path starts with; leave it out (https://api.example.com)"
    ],
    [
      "https://gw.example.com/venue/api/v2",
      "ends in /api/v2, which every endpoint's path starts with; leave it out (https://gw.example.com/venue)"
    ],
    ["ftp://api.example.com", "must start with http:// or https://"],
    ["api.example.com", "is not a URL; expected an http:// or https:// URL such as https://api.example.com"],
    [
      "https://api.example.com /x",
      "has a space or a control character; expected an http:// or https:// URL such as https://api.example.com"
    ],
    ["https://user:hunter22@api.example.com", "has a user name or password in it"],
    ["https://api.example.com?x=1", "has a query or a fragment (?, #)"]
  ])("%s: %s", (url, problem) => {
    assert.strictEqual(Venue.baseUrlProblem(url), problem)
  })
})
