import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Exit, Layer } from "effect"
import { TestClock } from "effect/testing"
import { SpotClient } from "../src/index.ts"
import { credentials, FakeVenue, NOW } from "./support/FakeVenue.ts"

const fullEnv = {
  SPOTKIT_BASE_URL: "https://venue.test/",
  SPOTKIT_API_KEY: credentials.apiKey,
  SPOTKIT_SECRET_KEY: credentials.secretKey,
  SPOTKIT_PASSPHRASE: credentials.passphrase
}

const clientFromEnv = (venue: FakeVenue, env: Record<string, string>) =>
  SpotClient.layerConfig().pipe(
    Layer.provide(venue.layer),
    Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnvRecord(env)))
  )

const placeOne = Effect.gen(function*() {
  yield* TestClock.setTime(NOW)
  const client = yield* SpotClient.SpotClient
  return yield* client.placeOrder({ symbol: "BTCUSDT_SPBL", side: "sell", orderType: "market", quantity: "0.5" })
})

describe("SpotClient.layerConfig", () => {
  it.effect("reads SPOTKIT_* variables, defaults the locale and trims the base URL's slash", () => {
    const venue = new FakeVenue()
    return Effect.gen(function*() {
      const placed = yield* placeOne
      assert.strictEqual(venue.orders[0]?.clientOrderId, placed.clientOrderId)
      const sent = venue.requests[0]!
      assert.strictEqual(sent.path, "/api/v2/trade/orders")
      assert.strictEqual(sent.headers["locale"], "en-US")
      assert.strictEqual(sent.headers["access-key"], credentials.apiKey)
    }).pipe(Effect.provide(clientFromEnv(venue, fullEnv)))
  })

  it.effect("sends SPOTKIT_LOCALE when set", () => {
    const venue = new FakeVenue()
    return Effect.gen(function*() {
      yield* placeOne
      assert.strictEqual(venue.requests[0]!.headers["locale"], "zh-CN")
    }).pipe(Effect.provide(clientFromEnv(venue, { ...fullEnv, SPOTKIT_LOCALE: "zh-CN" })))
  })

  for (const baseUrl of ["not a url", "ftp://venue.test", "venue.test", "https://"]) {
    it.effect(`refuses SPOTKIT_BASE_URL=${JSON.stringify(baseUrl)}, naming it, before any request`, () => {
      const venue = new FakeVenue()
      return Effect.gen(function*() {
        const exit = yield* Effect.exit(
          Layer.build(clientFromEnv(venue, { ...fullEnv, SPOTKIT_BASE_URL: baseUrl })).pipe(Effect.scoped)
        )
        assert.isTrue(Exit.isFailure(exit))
        const rendered = String(Exit.isFailure(exit) ? exit.cause : "")
        assert.include(rendered, "SPOTKIT_BASE_URL")
        assert.include(rendered, "http:// or https://")
        assert.strictEqual(venue.requests.length, 0)
      })
    })
  }

  for (const missing of Object.keys(fullEnv)) {
    it.effect(`fails with an error naming ${missing} when it is missing`, () => {
      const env: Record<string, string> = { ...fullEnv }
      delete env[missing]
      return Effect.gen(function*() {
        const exit = yield* Effect.exit(Layer.build(clientFromEnv(new FakeVenue(), env)).pipe(Effect.scoped))
        assert.isTrue(Exit.isFailure(exit))
        const rendered = String(Exit.isFailure(exit) ? exit.cause : "")
        assert.include(rendered, missing)
        for (const secret of [credentials.secretKey, credentials.passphrase]) {
          assert.notInclude(rendered, secret)
        }
      })
    })
  }
})
