import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import { HttpClient, HttpClientResponse } from "effect/http"
import { SpotClient } from "../src/index.ts"

const fake = HttpClient.make((request) =>
  Effect.succeed(HttpClientResponse.fromWeb(
    request,
    new Response(
      `{"code":"00000","msg":"success","requestTime":1700000000000,"data":{"orderId":602876318261969338,"clientOrderId":"a1"}}`,
      { status: 200 }
    )
  ))
)

const layer = SpotClient.layer({
  baseUrl: "https://venue.test",
  credentials: { apiKey: Redacted.make("k"), secretKey: Redacted.make("s"), passphrase: Redacted.make("p") }
}).pipe(Layer.provide(Layer.succeed(HttpClient.HttpClient, fake)))

describe("smoke", () => {
  it.effect("places", () =>
    Effect.gen(function*() {
      const client = yield* SpotClient.SpotClient
      const r = yield* client.placeOrder({
        symbol: "BTCUSDT_SPBL",
        side: "buy",
        orderType: "limit",
        price: "1",
        quantity: "1",
        clientOrderId: "a1"
      })
      assert.strictEqual(r.orderId, "602876318261969338")
      const e = yield* Effect.flip(
        client.placeOrder({ symbol: "BTCUSDT_SPBL", side: "buy", orderType: "limit", quantity: "1" })
      )
      console.log(String(e), e.reason)
    }).pipe(Effect.provide(layer)))
})
