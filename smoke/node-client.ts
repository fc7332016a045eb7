/**
 * `NodeSpotClient` (the Node package's ready client, configured from the environment) under a runtime that is not
 * Node: under Bun its undici transports give way to Bun's `fetch`. Places one order and prints its id as one JSON
 * line; exits 1 with the failure otherwise.
 */
import { SpotClient } from "@spotkit/core"
import { NodeSpotClient } from "@spotkit/node"
import { Cause, Effect, Exit } from "effect"

const runtime = process.argv[2] ?? "node"

const program = Effect.gen(function*() {
  const client = yield* SpotClient.SpotClient
  const placed = yield* client.placeOrder({
    symbol: "BTCUSDT_SPBL",
    side: "buy",
    orderType: "limit",
    price: "29000",
    quantity: "0.01"
  })
  return { runtime, client: "NodeSpotClient", orderId: placed.orderId }
})

void Effect.runPromiseExit(program.pipe(Effect.provide(NodeSpotClient.layerConfig()))).then((exit) => {
  if (Exit.isSuccess(exit)) {
    process.stdout.write(JSON.stringify(exit.value) + "\n")
    process.exit(0)
  }
  process.stderr.write(`NodeSpotClient (${runtime}) failed: ${Cause.pretty(exit.cause)}\n`)
  process.exit(1)
})
