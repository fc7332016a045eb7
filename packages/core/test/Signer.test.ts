/**
 * Request signing (docs/venue/signing.md#signing): `ACCESS-SIGN = base64(HMAC-SHA256(secret, timestamp + "POST" + path + body))`,
 * checked against signatures computed here with node:crypto, independently of the client's WebCrypto signer.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import { HttpClient, type HttpClientRequest } from "effect/http"
import { TestClock } from "effect/testing"
import { createHmac } from "node:crypto"
import { Signer, SpotClient, type SpotError, Venue } from "../src/index.ts"
import { clientOptions, credentials, FakeVenue, isPublicPath, NOW, type Received } from "./support/FakeVenue.ts"

const hmac = (secret: string, text: string) => createHmac("sha256", secret).update(text).digest("base64")

/** The signed text (docs/venue/signing.md#signing) for a received request: the exact path and body that arrived. */
const prehashOf = (timestamp: string | number | undefined, request: Received) =>
  `${timestamp}POST${request.path}${request.body}`

/** The signature of a received request at `timestamp`, computed here with node:crypto. */
const expectedSign = (timestamp: string | number | undefined, request: Received) =>
  hmac(credentials.secretKey, prehashOf(timestamp, request))

/** A time that is not the fake's default, so the timestamp header provably comes from the clock. */
const T = NOW + 4_321
const BASE_URL = clientOptions.baseUrl

type Call = (client: SpotClient.Service) => Effect.Effect<unknown, SpotError.SpotError>

interface Endpoint {
  readonly name: string
  /** Spec §4. */
  readonly path: string
  readonly call: Call
  /** Fields the sent JSON must carry, so the signed body is the real payload. */
  readonly sends: Record<string, unknown>
}

const endpoints: ReadonlyArray<Endpoint> = [
  {
    name: "placeOrder",
    path: "/api/v2/trade/orders",
    call: (client) =>
      client.placeOrder({
        symbol: "BTCUSDT_SPBL",
        side: "buy",
        orderType: "limit",
        price: "23222.5",
        quantity: "0.01",
        clientOrderId: "sig-1"
      }),
    sends: { symbol: "BTCUSDT_SPBL", price: "23222.5", quantity: "0.01", clientOrderId: "sig-1" }
  },
  {
    name: "placeOrders",
    path: "/api/v2/trade/batch-orders",
    call: (client) =>
      client.placeOrders("ETHUSDT_SPBL", [
        { side: "sell", orderType: "limit", price: "2000", quantity: "1", clientOrderId: "sig-b1" },
        { side: "buy", orderType: "market", quantity: "50", clientOrderId: "sig-b2" }
      ]),
    sends: { symbol: "ETHUSDT_SPBL" }
  },
  {
    name: "openOrdersPage",
    path: "/api/v2/trade/open-orders",
    call: (client) => client.openOrdersPage({ symbol: "BTCUSDT_SPBL", limit: 20, pageNo: 1 }),
    sends: { symbol: "BTCUSDT_SPBL", limit: 20, pageNo: 1 }
  },
  {
    name: "fundingBillsPage",
    path: "/api/v2/account/fundingBills",
    call: (client) => client.fundingBillsPage({ coinId: 2, startTime: NOW - 86_400_000, pageIndex: 1, pageSize: 50 }),
    sends: { coinId: 2, startTime: NOW - 86_400_000, pageIndex: 1, pageSize: 50 }
  },
  {
    name: "internalTransfer",
    path: "/api/v2/rebate/affiliate/internalWithdrawal",
    call: (client) =>
      client.internalTransfer({
        toUserId: "18446744073709551615",
        coin: "USDT",
        amount: "12.345678",
        fromAccountType: "SPOT",
        toAccountType: "FUND"
      }),
    sends: { coin: "USDT", amount: "12.345678", fromAccountType: "SPOT", toAccountType: "FUND" }
  }
]

interface Sent {
  readonly method: string
  readonly url: string
}

/**
 * A client over the fake venue whose HttpClient also records each request's method and URL (the fake records path,
 * headers and body). `signer`, when given, replaces the default WebCrypto signer.
 */
const setup = (options: Partial<SpotClient.Options> = {}, signer?: Signer.Service) => {
  const venue = new FakeVenue()
  const sent: Array<Sent> = []
  const http = venue.client.pipe(
    HttpClient.tapRequest((request: HttpClientRequest.HttpClientRequest) =>
      Effect.sync(() => {
        // The calls' own requests: the client's public ones (server time, symbol rules) are not signed.
        if (!isPublicPath(new URL(request.url).pathname)) sent.push({ method: request.method, url: request.url })
      })
    )
  )
  const base = SpotClient.layer({ ...clientOptions, rateLimit: false, retry: false, ...options }).pipe(
    Layer.provide(Layer.succeed(HttpClient.HttpClient, http))
  )
  const layer = signer === undefined ? base : base.pipe(Layer.provide(Signer.layer(signer)))
  return { venue, sent, layer }
}

/** Runs the calls at time `T` and answers what was sent. */
const runCalls = (calls: ReadonlyArray<Call>, options?: Partial<SpotClient.Options>, signer?: Signer.Service) => {
  const { layer, sent, venue } = setup(options, signer)
  return Effect.gen(function*() {
    yield* TestClock.setTime(T)
    const client = yield* SpotClient.SpotClient
    for (const call of calls) yield* call(client)
    return { requests: venue.requests, sent }
  }).pipe(Effect.provide(layer))
}

describe("signing", () => {
  it.effect.each(endpoints)(
    "$name: signs timestamp + POST + path + the exact sent body",
    (endpoint) =>
      Effect.gen(function*() {
        const { requests, sent } = yield* runCalls([endpoint.call])
        assert.strictEqual(requests.length, 1)
        const request = requests[0]!
        const headers = request.headers

        assert.strictEqual(sent[0]!.method, "POST")
        assert.strictEqual(sent[0]!.url, BASE_URL + endpoint.path)
        assert.strictEqual(request.path, endpoint.path)
        assert.deepInclude(request.json, endpoint.sends)

        assert.strictEqual(headers["access-timestamp"], String(T))
        assert.strictEqual(headers["access-sign"], expectedSign(T, request))
        assert.strictEqual(headers["access-key"], credentials.apiKey)
        assert.strictEqual(headers["access-passphrase"], credentials.passphrase)
        assert.strictEqual(headers["locale"], "en-US")
        assert.strictEqual(headers["content-type"], "application/json")
      })
  )

  it.effect("sends a custom locale on every endpoint", () =>
    Effect.gen(function*() {
      const { requests } = yield* runCalls(endpoints.map((endpoint) => endpoint.call), { locale: "zh-CN" })
      assert.deepStrictEqual(requests.map((request) => request.path), endpoints.map((endpoint) => endpoint.path))
      for (const request of requests) assert.strictEqual(request.headers["locale"], "zh-CN")
    }))

  it.effect("takes each timestamp from the clock at the time of the request", () => {
    const { layer, venue } = setup()
    return Effect.gen(function*() {
      yield* TestClock.setTime(T)
      const client = yield* SpotClient.SpotClient
      yield* client.openOrdersPage({ symbol: "BTCUSDT_SPBL" })
      yield* TestClock.adjust(1_500)
      yield* client.openOrdersPage({ symbol: "BTCUSDT_SPBL" })
      const [first, second] = venue.requests
      assert.strictEqual(first!.headers["access-timestamp"], String(T))
      assert.strictEqual(second!.headers["access-timestamp"], String(T + 1_500))
      for (const request of venue.requests) {
        assert.strictEqual(request.headers["access-sign"], expectedSign(request.headers["access-timestamp"], request))
      }
    }).pipe(Effect.provide(layer))
  })
})

describe("signing a GET (docs/venue/signing.md#signing)", () => {
  it.effect.each([
    {
      name: "with a query: timestamp + GET + path + ? + the query as sent, no body",
      call: ((client) => client.transferStatus({ coin: "USDT", page: 2 })) as Call,
      path: "/api/v2/rebate/affiliate/getInternalWithdrawalStatus?coin=USDT&page=2"
    },
    {
      name: "without a query: timestamp + GET + path, no ?",
      call: ((client) => client.balances()) as Call,
      path: "/api/v2/account/assets"
    }
  ])("$name", ({ call, path }) =>
    Effect.gen(function*() {
      const { requests, sent } = yield* runCalls([call])
      assert.strictEqual(requests.length, 1)
      const request = requests[0]!
      assert.deepStrictEqual(sent, [{ method: "GET", url: BASE_URL + path }])
      assert.strictEqual(request.path, path)
      assert.strictEqual(request.body, "")
      assert.strictEqual(
        request.headers["access-sign"],
        hmac(credentials.secretKey, `${T}GET${path}`),
        "signed over the path and query exactly as sent"
      )
      assert.strictEqual(request.headers["content-type"], "application/json")
      assert.strictEqual(request.headers["access-passphrase"], credentials.passphrase)
    }))

  it.effect("public GETs (server time, symbol rules) carry no credentials", () => {
    const { layer, venue } = setup()
    return Effect.gen(function*() {
      yield* TestClock.setTime(T)
      const client = yield* SpotClient.SpotClient
      yield* client.serverTime()
      yield* client.symbols()
      assert.deepStrictEqual(venue.publicRequests.map((request) => request.method), ["GET", "GET"])
      for (const request of venue.publicRequests) {
        for (const name of ["access-key", "access-sign", "access-passphrase", "access-timestamp"]) {
          assert.isUndefined(request.headers[name], name)
        }
      }
    }).pipe(Effect.provide(layer))
  })
})

describe("Signer.webCrypto known-answer vectors", () => {
  // RFC 4231, test case 2 (HMAC-SHA256 hex 5bdcc146…3843), in base64.
  const rfc = {
    secret: "Jefe",
    text: "what do ya want for nothing?",
    base64: "W9zBRr9gdU5qBCQmCJV1x1oAPwidJzmDnexYuWTsOEM="
  }

  // A venue-shaped vector; the expected value was computed once with node:crypto (re-checked below).
  const venueVector = {
    secret: "kv-secret-2f9e",
    timestamp: "1700000000123",
    path: "/api/v2/trade/orders",
    body: "{\"symbol\":\"BTCUSDT_SPBL\",\"side\":\"buy\",\"orderType\":\"limit\",\"force\":\"normal\"," +
      "\"price\":\"23222.5\",\"quantity\":\"1\",\"clientOrderId\":\"kv-1\"}",
    base64: "k2g2lRjZCvqWpgt0yDKofu5D8uJOqEt0qLkSgdDW2UI="
  }

  const webCryptoSign = (secret: string, text: string) =>
    Effect.flatMap(Signer.webCrypto.prepare(Redacted.make(secret)), (sign) => sign(text))

  it.effect("matches RFC 4231 test case 2", () =>
    Effect.gen(function*() {
      assert.strictEqual(
        Buffer.from(rfc.base64, "base64").toString("hex"),
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
      )
      assert.strictEqual(yield* webCryptoSign(rfc.secret, rfc.text), rfc.base64)
    }))

  it.effect("matches a venue-shaped vector through prehash", () =>
    Effect.gen(function*() {
      const { base64, body, path, secret, timestamp } = venueVector
      const prehash = Venue.prehash(timestamp, "post", path, body)
      assert.strictEqual(prehash, timestamp + "POST" + path + body)
      assert.strictEqual(hmac(secret, prehash), base64)
      assert.strictEqual(yield* webCryptoSign(secret, prehash), base64)
    }))
})

describe("Signer is replaceable", () => {
  const marker: Signer.Service = {
    name: "marker",
    prepare: () => Effect.succeed(() => Effect.succeed("MARKER-SIGNATURE"))
  }

  /** A node:crypto signer that records how often it was prepared and every prehash it signed. */
  const recordingSigner = () => {
    const log = { prepared: 0, prehashes: [] as Array<string> }
    const service: Signer.Service = {
      name: "node-hmac-sha256",
      prepare: (secretKey) =>
        Effect.sync(() => {
          log.prepared++
          return (prehash: string) =>
            Effect.sync(() => {
              log.prehashes.push(prehash)
              return hmac(Redacted.value(secretKey), prehash)
            })
        })
    }
    return { log, service }
  }

  it.effect("Layer.provide(Signer.layer(...)) on the client layer is used for every request", () => {
    const { layer, venue } = setup({}, marker)
    return Effect.gen(function*() {
      yield* TestClock.setTime(T)
      const client = yield* SpotClient.SpotClient
      const error = yield* Effect.flip(client.openOrdersPage({ symbol: "BTCUSDT_SPBL" }))
      assert.strictEqual(venue.requests[0]!.headers["access-sign"], "MARKER-SIGNATURE")
      // The fake checks signatures independently, so the marker is refused.
      assert.strictEqual(error.reason._tag, "AuthenticationError")
      assert.strictEqual(error.code, "40009")
    }).pipe(Effect.provide(layer))
  })

  it.effect("a signer provided around the program signs exactly the sent bytes, prepared once per client", () => {
    const { log, service } = recordingSigner()
    return Effect.gen(function*() {
      const { requests } = yield* runCalls(endpoints.map((endpoint) => endpoint.call))
      assert.strictEqual(log.prepared, 1)
      assert.deepStrictEqual(
        log.prehashes,
        requests.map((request) => prehashOf(request.headers["access-timestamp"], request))
      )
      for (const request of requests) {
        assert.strictEqual(request.headers["access-sign"], expectedSign(T, request))
      }
    }).pipe(Effect.provide(Signer.layer(service)))
  })
})
