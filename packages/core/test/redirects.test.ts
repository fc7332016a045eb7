/**
 * Redirects are never followed (src/internal/redirects.ts): over an in-process `HttpClient` that answers a redirect
 * carrying a valid answer of the venue, every redirect status fails the call with a `RedirectError` naming the status
 * and the target's origin, for signed GETs and POSTs and public GETs alike, without a retry; a 303 (or a 300 or 304,
 * which a request asking for neither has no reason to get) leaves an order's outcome unknown. Over `FetchHttpClient`,
 * every request goes out with `redirect: "manual"`, whatever `RequestInit` the caller gives, and the rest of that
 * `RequestInit` is kept.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { FetchHttpClient, HttpClient } from "effect/http"
import { TestClock } from "effect/testing"
import { BufferedResponse, SpotClient, type SpotError, Venue } from "../src/index.ts"
import { clientOptions, credentials, FakeVenue, NOW, reasonOf, SYMBOL } from "./support/FakeVenue.ts"

const TARGET = "https://elsewhere.example:8443"

// The fake venue's own answer to each request, under `status` and a Location on another origin: what a client that
// followed the redirect would have taken for the venue's answer.
const redirecting = (venue: FakeVenue, status: number, location = `${TARGET}/landing?from=venue`) => {
  let sent = 0
  const client = HttpClient.make((request) =>
    Effect.flatMap(venue.client.execute(request), (response) =>
      Effect.map(response.text, (body) => {
        sent++
        return new BufferedResponse.BufferedResponse({ request, status, headers: { location }, body })
      }))
  )
  return { layer: Layer.succeed(HttpClient.HttpClient, client), sent: () => sent }
}

const options: Partial<SpotClient.Options> = {
  rateLimit: false,
  retry: { baseDelay: 0 },
  syncServerTime: false,
  checkSymbolRules: false
}

const run = <A, E>(layer: Layer.Layer<HttpClient.HttpClient>, f: (client: SpotClient.Service) => Effect.Effect<A, E>) =>
  Effect.gen(function*() {
    yield* TestClock.setTime(NOW)
    return yield* f(yield* SpotClient.SpotClient)
  }).pipe(Effect.provide(SpotClient.layer({ ...clientOptions, ...options }).pipe(Layer.provide(layer))))

const order = { symbol: SYMBOL, side: "buy", orderType: "limit", price: "100", quantity: "1" } as const

describe("redirects", () => {
  it.effect("control: the same answers under 200 are the venue's answers", () =>
    Effect.gen(function*() {
      const venue = new FakeVenue()
      const { layer } = redirecting(venue, 200)
      const page = yield* run(layer, (client) => client.fundingBillsPage({ pageSize: 10 }))
      assert.isArray(page.items)
      const placed = yield* run(layer, (client) => client.placeOrder({ ...order, clientOrderId: "ok-1" }))
      assert.strictEqual(placed.clientOrderId, "ok-1")
    }))

  // 301, 302, 307 and 308 send the request elsewhere; a 303 says the server acted on it; a 300 or a 304, answering a
  // request that asked for neither, may follow an action as well.
  for (const status of [300, 301, 302, 303, 304, 307, 308]) {
    it.effect(`HTTP ${status}: signed reads, an order and a public GET fail with a RedirectError, unretried`, () =>
      Effect.gen(function*() {
        const venue = new FakeVenue()
        const { layer, sent } = redirecting(venue, status)
        const calls: ReadonlyArray<(client: SpotClient.Service) => Effect.Effect<unknown, SpotError.SpotError>> = [
          (client) => client.fundingBillsPage({ pageSize: 10 }),
          (client) => client.serverTime(),
          (client) => client.transferStatus({})
        ]
        for (const call of calls) {
          const before = sent()
          const error = yield* Effect.flip(run(layer, call))
          const reason = reasonOf(error, "RedirectError")
          assert.strictEqual(reason.httpStatus, status)
          assert.strictEqual(reason.target, TARGET)
          assert.isFalse(error.isRetryable)
          assert.include(error.message, `HTTP ${status} to ${TARGET}`)
          assert.notInclude(error.message, "landing")
          assert.strictEqual(sent() - before, 1)
        }
        const placing = yield* Effect.flip(
          run(layer, (client) => client.placeOrder({ ...order, clientOrderId: "r-1" }))
        )
        if (![301, 302, 307, 308].includes(status)) {
          // The server may have acted on the request ("see other" says it did), so the order is looked up (and that
          // lookup is redirected too): its outcome is unknown.
          const reason = reasonOf(placing, "OutcomeUnknownError")
          assert.include(reason.message, `HTTP ${status}`)
          assert.strictEqual(reason.clientOrderId, "r-1")
        } else {
          assert.strictEqual(reasonOf(placing, "RedirectError").httpStatus, status)
          assert.isFalse(Venue.mayHaveApplied(placing.reason))
        }
        for (const secret of Object.values(credentials)) assert.notInclude(String(placing), secret)
      }))
  }

  it.effect("a browser's opaque redirect (status 0) is a RedirectError that may have been applied", () =>
    Effect.gen(function*() {
      const { layer } = redirecting(new FakeVenue(), 0, "")
      const error = yield* Effect.flip(run(layer, (client) => client.fundingBillsPage({ pageSize: 10 })))
      const reason = reasonOf(error, "RedirectError")
      assert.strictEqual(reason.httpStatus, 0)
      assert.isUndefined(reason.target)
      assert.include(error.message, "opaque redirect")
      assert.isTrue(Venue.mayHaveApplied(reason))
    }))

  it.effect("a Location that echoes a credential is named without it; a relative one by the venue's origin", () =>
    Effect.gen(function*() {
      const echoed = redirecting(new FakeVenue(), 302, `https://${credentials.apiKey}.evil.example/`)
      const error = yield* Effect.flip(run(echoed.layer, (client) => client.fundingBillsPage({ pageSize: 10 })))
      assert.notInclude(String(error), credentials.apiKey)
      assert.include(error.message, ".evil.example")
      const relative = redirecting(new FakeVenue(), 301, "/v3/bills")
      const moved = yield* Effect.flip(run(relative.layer, (client) => client.fundingBillsPage({ pageSize: 10 })))
      assert.strictEqual(reasonOf(moved, "RedirectError").target, clientOptions.baseUrl)
      const none = redirecting(new FakeVenue(), 302, "")
      const bare = yield* Effect.flip(run(none.layer, (client) => client.fundingBillsPage({ pageSize: 10 })))
      assert.isUndefined(reasonOf(bare, "RedirectError").target)
    }))

  it.effect("over FetchHttpClient: redirect \"manual\" on every request, the rest of RequestInit kept", () =>
    Effect.gen(function*() {
      const inits: Array<RequestInit | undefined> = []
      const fetch: typeof globalThis.fetch = (_input, init) => {
        inits.push(init)
        return Promise.resolve(new Response("", { status: 307, headers: { location: `${TARGET}/x` } }))
      }
      const client = SpotClient.layer({ ...clientOptions, ...options }).pipe(
        Layer.provide(FetchHttpClient.layer),
        // Given where the client is built, and by the caller (below): both kept, the caller's over the other.
        Layer.provide(Layer.succeed(FetchHttpClient.RequestInit, { keepalive: true, cache: "default" }))
      )
      const error = yield* Effect.flip(
        Effect.flatMap(Effect.service(SpotClient.SpotClient), (spot) => spot.fundingBillsPage({ pageSize: 10 })).pipe(
          Effect.provide(client),
          Effect.provideService(FetchHttpClient.RequestInit, { redirect: "follow", cache: "no-store" }),
          Effect.provideService(FetchHttpClient.Fetch, fetch)
        )
      )
      assert.strictEqual(reasonOf(error, "RedirectError").httpStatus, 307)
      assert.strictEqual(inits.length, 1)
      assert.strictEqual(inits[0]?.redirect, "manual")
      assert.strictEqual(inits[0]?.cache, "no-store")
      assert.strictEqual(inits[0]?.keepalive, true)
      assert.strictEqual(inits[0]?.method, Venue.endpoints.fundingBills.method)
    }))

  it.effect("a transformClient that follows redirects cannot: it sees the redirect as a failure", () =>
    Effect.gen(function*() {
      const { layer, sent } = redirecting(new FakeVenue(), 302)
      const error = yield* Effect.flip(
        Effect.flatMap(Effect.service(SpotClient.SpotClient), (spot) => spot.fundingBillsPage({ pageSize: 10 })).pipe(
          Effect.provide(
            SpotClient.layer({
              ...clientOptions,
              ...options,
              transformClient: HttpClient.followRedirects(5)
            }).pipe(Layer.provide(layer))
          )
        )
      )
      assert.strictEqual(reasonOf(error, "RedirectError").httpStatus, 302)
      assert.strictEqual(sent(), 1)
    }))
})
