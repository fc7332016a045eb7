/**
 * The client's HTTP pipeline (src/internal/client/pipeline.ts, its answer stage in answer.ts) as a caller sees it:
 * HTTP, decode and transport failures have their own reasons with short excerpts; unknown extra fields in answers are
 * tolerated; an exchange without an answer ends at the timeout; every request is stamped with the clock corrected by
 * the server's (clock skew: one re-sign after 40008, the offset learned from answers, never from an implausible server
 * time).
 */
import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Fiber, Layer, Redacted } from "effect"
import { HttpClient, HttpClientError } from "effect/http"
import { TestClock } from "effect/testing"
import { SpotClient, Venue } from "../src/index.ts"
import {
  attempt,
  type Call,
  calls,
  clientLayer,
  clientOptions,
  failure,
  FakeVenue,
  httpAnswer,
  NOW,
  OPEN_ORDERS,
  reasonOf,
  sampleTransfer,
  ScriptedVenue,
  SERVER_TIME,
  SYMBOL,
  TRANSFER,
  withClient
} from "./support/FakeVenue.ts"

/** An excerpt is the start of the body, and short however long the body is. */
const assertExcerpt = (body: string, excerpt: string) => {
  assert.isAbove(excerpt.length, 0)
  assert.isAtMost(excerpt.length, 200)
  assert.isTrue(body.startsWith(excerpt), excerpt)
}

const MEGABYTE = 1_000_000

describe("HTTP, decode and transport failures", () => {
  it.effect("HTTP 502 with an HTML body is an HttpStatusError with a short excerpt", () =>
    Effect.gen(function*() {
      const html = `<html><head><title>502 Bad Gateway</title></head><body>${"x".repeat(MEGABYTE)}</body></html>`
      const { error } = yield* failure([httpAnswer(html, 502)], calls.openOrdersPage)
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
      const { error } = yield* failure([httpAnswer("<html>Not Found</html>", 404)], calls.openOrdersPage)
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
      const { error } = yield* failure([httpAnswer(body)], calls.openOrdersPage)
      const reason = reasonOf(error, "DecodeError")
      assert.strictEqual(reason.kind, kind)
      assert.strictEqual(reason.httpStatus, 200)
      assertExcerpt(body, reason.excerpt)
      assert.isAtMost(String(error).length, 1_000)
      // A garbled body is worth a retry; a well-formed answer of the wrong shape is not.
      assert.strictEqual(error.isRetryable, kind === "json")
      assert.isUndefined(error.code)
    }))

  it.effect("HTTP 200 with valid JSON nested deeper than the parser follows is described as such, not as invalid", () =>
    Effect.gen(function*() {
      // A decimal number sends the parse through its reviver, whose recursion overflows long before JSON.parse's.
      const depth = 20_000
      const body = `{"code":"00000","data":${"[".repeat(depth)}1.5${"]".repeat(depth)}}`
      const { error } = yield* failure([httpAnswer(body)], calls.openOrdersPage)
      const reason = reasonOf(error, "DecodeError")
      assert.strictEqual(reason.kind, "json")
      assert.include(reason.description, "is nested too deeply to read")
      assert.isAtMost(String(error).length, 1_000)
    }))

  it.effect("a connection failure is a retryable TransportError", () =>
    Effect.gen(function*() {
      const { error, venue } = yield* failure([{ kind: "dropBefore" }], calls.openOrdersPage)
      reasonOf(error, "TransportError")
      assert.isTrue(error.isRetryable)
      assert.isUndefined(error.code)
      assert.strictEqual(venue.requests.length, 1)
    }))

  // The HTTP client's failure said once: "transport failure: <what> (<request>)", never "TransportError: Transport:".
  const systemError = (message: string, code: string) => Object.assign(new Error(message), { code })
  it.effect.each(
    [
      ["its description", { description: "connection reset by peer" }, "connection reset by peer"],
      [
        "its cause's message, the code not repeated",
        { cause: systemError("connect ECONNREFUSED 127.0.0.1:1", "ECONNREFUSED") },
        "connect ECONNREFUSED 127.0.0.1:1"
      ],
      ["a cause without a message: the code", { cause: systemError("", "ECONNREFUSED") }, "the request failed"]
    ] as const
  )("a transport failure says what failed once: %s", ([, fields, what]) => {
    const failing = HttpClient.make((request) =>
      Effect.fail(
        new HttpClientError.HttpClientError({ reason: new HttpClientError.TransportError({ request, ...fields }) })
      )
    )
    return Effect.gen(function*() {
      const client = yield* SpotClient.SpotClient
      const error = yield* Effect.flip(client.balances())
      const code = "cause" in fields && fields.cause.message === "" ? " (ECONNREFUSED)" : ""
      assert.strictEqual(
        error.message,
        `SpotClient.balances: transport failure: ${what} (GET ${clientOptions.baseUrl}/api/v2/account/assets)${code}`
      )
    }).pipe(Effect.provide(
      SpotClient.layer({ ...clientOptions, rateLimit: false, retry: false, syncServerTime: false }).pipe(
        Layer.provide(Layer.succeed(HttpClient.HttpClient, failing))
      )
    ))
  })
})

describe("a closed HTTP client (its layer released under a call)", () => {
  const destroyed = () =>
    Object.assign(new Error("The client is destroyed"), { code: "UND_ERR_DESTROYED", name: "ClientDestroyedError" })

  it.effect("fails at once, not retried, saying so; a placement's lookup is not retried either", () => {
    let sent = 0
    const closed = HttpClient.make((request) =>
      Effect.suspend(() => {
        sent++
        return Effect.fail(
          new HttpClientError.HttpClientError({
            reason: new HttpClientError.TransportError({ request, cause: destroyed() })
          })
        )
      })
    )
    return Effect.gen(function*() {
      const client = yield* SpotClient.SpotClient
      const read = yield* Effect.flip(client.balances())
      const reason = reasonOf(read, "TransportError")
      assert.isTrue(reason.closed)
      assert.isFalse(read.isRetryable)
      assert.include(read.message, "the HTTP client was closed (its layer released): not retried")
      assert.strictEqual(sent, 1, "one attempt, no retry")
      sent = 0
      const placed = yield* Effect.flip(client.placeOrder({
        symbol: SYMBOL,
        side: "buy",
        orderType: "limit",
        price: "100",
        quantity: "1",
        clientOrderId: "closed-1"
      }))
      // The order may have reached the venue before the pool went: it may exist, and its lookup failed at once.
      reasonOf(placed, "OutcomeUnknownError")
      assert.include(placed.message, "could not be looked up")
      assert.strictEqual(sent, 2, "the placement and one lookup, neither retried")
    }).pipe(Effect.provide(
      SpotClient.layer({ ...clientOptions, rateLimit: false, syncServerTime: false, checkSymbolRules: false }).pipe(
        Layer.provide(Layer.succeed(HttpClient.HttpClient, closed))
      )
    ))
  })
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
  Effect.map(attempt([httpAnswer(body)], call), ({ result }) => {
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

describe("timeouts", () => {
  // Counts the requests it was handed, and never answers them.
  let received = 0
  const silent = HttpClient.make(() =>
    Effect.suspend(() => {
      received++
      return Effect.never
    })
  )
  // No time sync: the one exchange timed here is the call's own.
  const silentClient = (options: Partial<SpotClient.Options>) =>
    SpotClient.layer({ ...clientOptions, rateLimit: false, syncServerTime: false, ...options }).pipe(
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
          retry: false,
          syncServerTime: false
        })
          .pipe(Layer.provide(Layer.succeed(HttpClient.HttpClient, bounding)))
      )
    )
  })
})

// ---------------------------------------------------------------------------------------------------------------
// clock skew and the clock offset

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
    // Retries off: the one re-sync is the transport's own, not the generic retry. No time sync before the first
    // request: the offset is learned from the 40008 (the fallback when the server's time cannot be asked).
    const { run, venue } = skewedVenue(skew, { retry: false, syncServerTime: false })
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
    const { run, venue } = skewedVenue(120_000, { retry: false, syncServerTime: false })
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
    const { run, venue } = skewedVenue(10_000, { syncServerTime: false })
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

describe("the server-time sync before the first signed request", () => {
  const infoOf = (venue: FakeVenue) => venue.publicRequests.filter((request) => request.pathname === SERVER_TIME)

  it.effect.each([
    { name: "ahead by 2 minutes", skew: 120_000 },
    { name: "behind by 45 s", skew: -45_000 }
  ])("stamps even the first request with the server's clock when it is $name: no 40008", ({ skew }) => {
    const { run, venue } = skewedVenue(skew, { retry: false })
    return run(
      Effect.gen(function*() {
        const client = yield* SpotClient.SpotClient
        yield* client.placeOrder(order)
        assert.strictEqual(venue.requests.length, 1)
        assertNear(timestampOf(venue, 0), NOW + skew, "first timestamp (server clock)")
        assert.strictEqual(infoOf(venue).length, 1)
        assertNear(yield* client.clockOffset, skew, "clockOffset")
      })
    )
  })

  it.effect("asks once, for concurrent first requests and for every later one", () => {
    const { run, venue } = skewedVenue(60_000)
    return run(
      Effect.gen(function*() {
        const client = yield* SpotClient.SpotClient
        yield* Effect.all(
          Array.from({ length: 4 }, () => client.openOrdersPage({ symbol: SYMBOL })),
          { concurrency: "unbounded" }
        )
        yield* client.fundingBillsPage({})
        assert.strictEqual(infoOf(venue).length, 1)
        assert.strictEqual(venue.requests.length, 5)
        for (let i = 0; i < 5; i++) assertNear(timestampOf(venue, i), NOW + 60_000, `timestamp ${i}`)
      })
    )
  })

  it.effect("is best effort: when the time cannot be asked, the 40008 re-sign still corrects the clock", () => {
    const { run, venue } = skewedVenue(120_000, { retry: false })
    venue.fail({ kind: "http", status: 503, body: "<html>unavailable</html>" }, SERVER_TIME)
    return run(
      Effect.gen(function*() {
        const client = yield* SpotClient.SpotClient
        yield* client.openOrdersPage({ symbol: SYMBOL })
        assert.strictEqual(venue.requests.length, 2, "one 40008, one re-signed request")
        yield* client.openOrdersPage({ symbol: SYMBOL })
        assert.strictEqual(infoOf(venue).length, 1, "not asked again")
        assert.strictEqual(venue.requests.length, 3)
      })
    )
  })

  it.effect("the wait for a permit is not taken for the round trip", () => {
    // A 429 pauses the address's budget for a window; the retry waits for its permit, then is answered at once.
    const { run, venue } = skewedVenue(0, { rateLimit: {}, retry: { baseDelay: 0 } })
    venue.fail({ kind: "http", status: 429, body: "{\"code\":\"429\",\"msg\":\"Too Many Requests\"}" }, SERVER_TIME)
    return run(
      Effect.gen(function*() {
        const client = yield* SpotClient.SpotClient
        const fiber = yield* Effect.forkChild(client.serverTime())
        for (let i = 0; i < 100 && fiber.pollUnsafe() === undefined; i++) yield* TestClock.adjust("1 second")
        assert.isAtLeast(yield* Fiber.join(fiber), NOW + 5_000, "answered after the pause")
        assert.strictEqual(infoOf(venue).length, 2)
        assertNear(yield* client.clockOffset, 0, "clockOffset")
      })
    )
  })

  it.effect("syncServerTime: false never asks", () => {
    const { run, venue } = skewedVenue(0, { syncServerTime: false })
    return run(
      Effect.gen(function*() {
        const client = yield* SpotClient.SpotClient
        yield* client.openOrdersPage({ symbol: SYMBOL })
        assert.strictEqual(venue.publicRequests.length, 0)
      })
    )
  })

  it.effect("public requests alone do not ask", () => {
    const { run, venue } = skewedVenue(0)
    return run(
      Effect.gen(function*() {
        const client = yield* SpotClient.SpotClient
        yield* client.symbols()
        assert.strictEqual(infoOf(venue).length, 0)
      })
    )
  })
})

// Found in review: the client sent a locale, an API key or a passphrase that no header can carry; Node's client threw
// (a defect), undici refused it (a retryable TransportError, and a placed order ended as "may have been applied").
describe("options that no header can carry", () => {
  const secret = "SECRET-4f2a"
  const credentialsWith = (field: "apiKey" | "passphrase", value: string): SpotClient.Options["credentials"] => ({
    ...clientOptions.credentials,
    [field]: Redacted.make(value)
  })

  it.effect.each(
    [
      { field: "locale", options: { locale: "en-US\r\nX-Evil: 1" }, description: "has a line break (CR or LF)" },
      {
        field: "credentials.apiKey",
        options: { credentials: credentialsWith("apiKey", `${secret}\r\nX-Evil: 1`) },
        description: "has a line break (CR or LF)"
      },
      {
        field: "credentials.passphrase",
        options: { credentials: credentialsWith("passphrase", `${secret}-p\u00e4ss`) },
        description: "other than printable ASCII"
      },
      {
        field: "credentials.passphrase",
        options: { credentials: credentialsWith("passphrase", `${secret} `) },
        description: "starts or ends with a space"
      }
    ] as const
  )("$field: every call that would send it fails with a ValidationError, nothing sent", ({
    field,
    options,
    description
  }) => {
    const venue = new FakeVenue()
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const refused: ReadonlyArray<Call> = [calls.placeOrder, calls.fundingBillsPage, calls.internalTransfer]
        for (const call of refused) {
          const error = yield* Effect.flip(call(client))
          const reason = reasonOf(error, "ValidationError")
          assert.strictEqual(reason.field, field)
          assert.include(reason.description, description)
          assert.isFalse(error.isRetryable)
          for (const text of [error.message, String(error), JSON.stringify(error)]) assert.notInclude(text, secret)
        }
        assert.strictEqual(venue.requests.length, 0, "no signed request reached the venue")
        // The client's own ask of the server's time is public: it carries the locale, not the credentials.
        assert.strictEqual(venue.publicRequests.length, field === "locale" ? 0 : 1)
      }), { ...options, retry: { times: 2, baseDelay: 0 } })
  })

  it.effect("a bad locale fails public calls too; a bad API key leaves them alone (they do not carry it)", () => {
    const venue = new FakeVenue()
    return Effect.gen(function*() {
      const refused = yield* withClient(venue, (client) => Effect.flip(client.serverTime()), { locale: "en\nUS" })
      assert.strictEqual(reasonOf(refused, "ValidationError").field, "locale")
      assert.strictEqual(venue.publicRequests.length, 0)
      const time = yield* withClient(
        venue,
        (client) => client.serverTime(),
        { credentials: credentialsWith("apiKey", "key\r\n") }
      )
      assert.isNumber(time)
      assert.strictEqual(venue.publicRequests.length, 1)
    })
  })

  // Found in review (telemetry and key material): an empty secret key (`SPOTKIT_SECRET_KEY=` read by `layerConfig`)
  // made WebCrypto's importKey throw when the client was built, a defect ("Zero-length key is not supported") in
  // place of the one error type.
  // A key of whitespace only (a variable set to " ") was accepted: every request signed with it, for the venue to
  // refuse as an authentication error.
  it.effect("a secret key empty or of spaces: signed calls fail with a ValidationError, nothing sent; public calls go", () =>
    Effect.forEach(
      [["", "is empty"], [" ", "is only whitespace"], ["  \t\n", "is only whitespace"]] as const,
      ([secretKey, description]) => {
        const venue = new FakeVenue()
        return withClient(venue, (client) =>
          Effect.gen(function*() {
            const refused: ReadonlyArray<Call> = [calls.placeOrder, calls.fundingBillsPage, calls.internalTransfer]
            for (const call of refused) {
              const error = yield* Effect.flip(call(client))
              const reason = reasonOf(error, "ValidationError")
              assert.strictEqual(reason.field, "credentials.secretKey")
              assert.strictEqual(reason.description, description)
            }
            assert.strictEqual(venue.requests.length, 0, "no signed request reached the venue")
            assert.isNumber(yield* client.serverTime())
          }), { credentials: { ...clientOptions.credentials, secretKey: Redacted.make(secretKey) } })
      },
      { discard: true }
    ))

  it("Venue.headerValueProblem: printable ASCII without a space at either end, the problem said without the value", () => {
    assert.isUndefined(Venue.headerValueProblem("en-US"))
    assert.isUndefined(Venue.headerValueProblem("a key with inner spaces"))
    assert.isUndefined(Venue.headerValueProblem(""))
    assert.strictEqual(
      Venue.headerValueProblem("key\r\n"),
      "ends with a carriage return (a file with Windows line endings?)"
    )
    assert.strictEqual(Venue.headerValueProblem("a\nb"), "has a line break (CR or LF)")
    assert.strictEqual(Venue.headerValueProblem("a\u0000b"), "has a control character")
    assert.strictEqual(Venue.headerValueProblem("a\u0085b"), "has a control character")
    assert.include(Venue.headerValueProblem("p\u00e4ss") ?? "", "other than printable ASCII")
    assert.include(Venue.headerValueProblem("\u4e2d") ?? "", "other than printable ASCII")
    assert.strictEqual(Venue.headerValueProblem(" key"), "starts or ends with a space")
  })
})
