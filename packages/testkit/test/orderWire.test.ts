/**
 * What the client sends for an order, as the test exchange receives it: a market order carries price "0" whatever
 * price it was given (docs/venue/trading.md#place-order), alone and in a batch; a limit order its price as written.
 */
import { assert, it } from "@effect/vitest"
import { SpotClient } from "@spotkit/core"
import { Effect } from "effect"
import { TestExchange } from "../src/index.ts"

const SYMBOL = "BTCUSDT_SPBL"

it.layer(TestExchange.layerSpotClient())(
  "an order on the wire",
  (it) =>
    it.effect("a market order is sent with price \"0\", the price it was given left out; a limit order's as written", () =>
      Effect.gen(function*() {
        const client = yield* SpotClient.SpotClient
        const exchange = yield* TestExchange.TestExchange
        yield* client.symbols()
        yield* exchange.clearRequests
        yield* client.placeOrder({
          symbol: SYMBOL,
          side: "sell",
          orderType: "market",
          price: "30000.123",
          quantity: "0.01"
        })
        yield* client.placeOrders(SYMBOL, [
          { side: "buy", orderType: "market", price: "0.000000001", quantity: "10" },
          { side: "buy", orderType: "limit", price: "29000.50", quantity: "0.01" }
        ])
        const bodies = (yield* exchange.requests).filter((request) => request.path.includes("/trade/"))
          .map((request) =>
            JSON.parse(request.body) as { price?: string; orderList?: ReadonlyArray<{ price: string }> }
          )
        assert.strictEqual(bodies.length, 2)
        assert.strictEqual(bodies[0]!.price, "0")
        assert.deepStrictEqual(bodies[1]!.orderList!.map((item) => item.price), ["0", "29000.50"])
      }))
)
