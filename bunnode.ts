import { SpotClient } from "@spotkit/core"
import { NodeSpotClient } from "@spotkit/node"
import { Effect, Redacted } from "effect"
const program = Effect.gen(function*() {
  const client = yield* SpotClient.SpotClient
  const r = yield* client.placeOrder({
    symbol: "BTCUSDT_SPBL",
    side: "buy",
    orderType: "limit",
    price: "29000",
    quantity: "0.01"
  })
  console.log("placed", r.orderId)
})
program.pipe(Effect.provide(NodeSpotClient.layerConfig()), Effect.runPromiseExit).then((exit) =>
  console.log(String(exit._tag), exit._tag === "Failure" ? JSON.stringify(exit.cause, null, 1).slice(0, 1500) : "")
)
