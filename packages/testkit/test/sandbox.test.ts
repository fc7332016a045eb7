/**
 * The sandbox's cross-origin answers (`Sandbox.layer({ cors })`, `spotkit-sandbox --cors`), seen as a browser sees
 * them: the preflight a signed request needs, and the `Access-Control-Allow-Origin` of the answers. Without the
 * option nothing changes: no CORS header, and an OPTIONS request is the exchange's 405.
 */
import { assert, describe, it } from "@effect/vitest"
import { Venue } from "@spotkit/core"
import { Effect, Layer } from "effect"
import { Sandbox, TestExchange } from "../src/index.ts"

const sandboxWith = (options: Sandbox.Options) =>
  Sandbox.layer(options).pipe(Layer.provideMerge(TestExchange.layer(TestExchange.demo({ bills: 10 }))))

const PAGE = "http://localhost:5173"
const ORDERS = Venue.endpoints.placeOrder.path
const SIGNED = [Venue.headers.key, Venue.headers.sign, Venue.headers.passphrase, Venue.headers.timestamp, "locale"]
  .map((name) => name.toLowerCase())

const preflight = (baseUrl: string, origin: string) =>
  Effect.promise(() =>
    fetch(`${baseUrl}${ORDERS}`, {
      method: "OPTIONS",
      headers: {
        origin,
        "access-control-request-method": "POST",
        "access-control-request-headers": ["content-type", ...SIGNED].join(",")
      }
    })
  )

// An unsigned order: the exchange refuses it (40001), which is enough to see the headers of a real answer.
const post = (baseUrl: string, origin: string) =>
  Effect.promise(() =>
    fetch(`${baseUrl}${ORDERS}`, {
      method: "POST",
      headers: { origin, "content-type": "application/json" },
      body: "{}"
    })
  )

describe("Sandbox", () => {
  it.live("cors: answers the preflight of a signed request and marks every answer for the allowed origin", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* Sandbox.Sandbox
      const exchange = yield* TestExchange.TestExchange
      const before = (yield* exchange.requests).length

      const allowed = yield* preflight(baseUrl, PAGE)
      assert.strictEqual(allowed.status, 204)
      assert.strictEqual(allowed.headers.get("access-control-allow-origin"), PAGE)
      assert.include(allowed.headers.get("access-control-allow-methods") ?? "", "POST")
      const headers = (allowed.headers.get("access-control-allow-headers") ?? "").split(",")
      for (const name of ["content-type", ...SIGNED]) assert.include(headers, name)
      // The preflight never reaches the exchange: it is not a request of the venue's.
      assert.strictEqual((yield* exchange.requests).length, before)

      const answer = yield* post(baseUrl, PAGE)
      assert.strictEqual(answer.status, 400)
      assert.strictEqual(answer.headers.get("access-control-allow-origin"), PAGE)
      assert.include(yield* Effect.promise(() => answer.text()), "40001")

      // Another origin gets no allowance, so its browser blocks the answer.
      const other = yield* preflight(baseUrl, "http://evil.example")
      assert.strictEqual(other.headers.get("access-control-allow-origin"), null)
      const otherAnswer = yield* post(baseUrl, "http://evil.example")
      assert.strictEqual(otherAnswer.headers.get("access-control-allow-origin"), null)
    }).pipe(Effect.provide(sandboxWith({ cors: PAGE }))))

  it.live("cors \"*\": any origin", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* Sandbox.Sandbox
      const answer = yield* preflight(baseUrl, "http://127.0.0.1:1234")
      assert.strictEqual(answer.status, 204)
      assert.strictEqual(answer.headers.get("access-control-allow-origin"), "*")
      assert.strictEqual((yield* post(baseUrl, PAGE)).headers.get("access-control-allow-origin"), "*")
    }).pipe(Effect.provide(sandboxWith({ cors: "*" }))))

  it.live("without cors: no CORS header, and OPTIONS is the exchange's 405", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* Sandbox.Sandbox
      const answer = yield* preflight(baseUrl, PAGE)
      assert.strictEqual(answer.status, 405)
      assert.strictEqual(answer.headers.get("access-control-allow-origin"), null)
      assert.strictEqual((yield* post(baseUrl, PAGE)).headers.get("access-control-allow-origin"), null)
    }).pipe(Effect.provide(sandboxWith({}))))
})
