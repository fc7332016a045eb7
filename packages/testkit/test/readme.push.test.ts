// The push example of packages/testkit/README.md, verbatim, so that it keeps compiling and passing.
/* eslint-disable @effect/dprint -- kept verbatim as in the README */
import { assert, it } from "@effect/vitest"
import { SpotClient, SpotPush } from "@spotkit/core"
import { Effect, Fiber, Layer, Option, Stream } from "effect"
import { PushVenue, TestExchange } from "../src/index.ts"

// alice's REST client, the push venue fed by the exchange's engine, and alice's push session over it, in process.
const layer = PushVenue.layerSpotPush().pipe(
  Layer.provideMerge(PushVenue.layer()),
  Layer.provideMerge(TestExchange.layerSpotClient())
)

it.effect("hears the fill of its market order", () =>
  Effect.gen(function*() {
    const client = yield* SpotClient.SpotClient
    const push = yield* SpotPush.SpotPush
    const first = yield* Effect.forkChild(
      Stream.runHead(push.watchFills({ symbols: ["BTCUSDT_SPBL"] })),
      { startImmediately: true } // run now: the fills count from the stream's start
    )
    const { orderId } = yield* client.placeOrder({ symbol: "BTCUSDT_SPBL", side: "buy", orderType: "market", quantity: "100" })
    const fill = Option.getOrThrow(yield* Fiber.join(first))
    assert.strictEqual(fill.orderId, orderId)
  }).pipe(Effect.provide(layer)))
