// The ten-line example of packages/testkit/README.md, verbatim, so that it keeps compiling and passing.
/* eslint-disable @effect/dprint -- kept verbatim as in the README */
import { assert, it } from "@effect/vitest"
import { SpotClient } from "@spotkit/core"
import { Effect } from "effect"
import { TestExchange } from "../src/index.ts"

it.layer(TestExchange.layerSpotClient())("my strategy", (it) =>
  it.effect("buys below the market", () =>
    Effect.gen(function*() {
      const client = yield* SpotClient.SpotClient // signed in as alice of TestExchange.demo()
      const exchange = yield* TestExchange.TestExchange
      const { orderId } = yield* client.placeOrder({ symbol: "BTCUSDT_SPBL", side: "buy", orderType: "limit", price: "29000", quantity: "0.01" })
      assert.strictEqual(exchange.engine.order(orderId)?.status, "open")
    })))
