/**
 * An Effect program that places orders and streams the open orders back.
 *
 *   SPOTKIT_BASE_URL=... SPOTKIT_API_KEY=... SPOTKIT_SECRET_KEY=... SPOTKIT_PASSPHRASE=... \
 *     node --conditions=@spotkit/source examples/place-and-stream.ts BTCUSDT_SPBL
 *
 * (In a project that installs the packages from npm, drop `--conditions=@spotkit/source`.) Try it against the
 * sandbox: `pnpm -s sandbox > sandbox.env & sleep 2; . ./sandbox.env` (`-s` keeps pnpm's banner out of the file).
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { SpotClient } from "@spotkit/core"
import { NodeSpotClient } from "@spotkit/node"
import { Console, Effect, Stream } from "effect"

const symbol = process.argv[2] ?? "BTCUSDT_SPBL"

const program = Effect.gen(function*() {
  const client = yield* SpotClient.SpotClient

  // One order: the client generates a clientOrderId, so a retry after a lost answer never places it twice.
  const one = yield* client.placeOrder({
    symbol,
    side: "buy",
    orderType: "limit",
    force: "normal",
    price: "25000",
    quantity: "0.001"
  })
  yield* Console.log(`placed ${one.orderId} (${one.clientOrderId})`)

  // A ladder of five bids in one call: 50 per request, one outcome per item, a bad item fails alone.
  const ladder = yield* client.placeOrders(
    symbol,
    [0, 1, 2, 3, 4].map((i) => ({
      side: "buy" as const,
      orderType: "limit" as const,
      force: "postOnly" as const,
      price: String(24000 - i * 100),
      quantity: "0.001"
    }))
  )
  yield* Console.log(`ladder: ${ladder.placed} placed, ${ladder.failed} failed`)

  // The open orders, newest first, fetched page by page only as the stream is pulled.
  const open = yield* client.openOrders({ symbol }).pipe(
    Stream.tap((order) => Console.log(`open ${order.orderId} ${order.side} ${order.quantity} @ ${order.price}`)),
    Stream.runCount
  )
  yield* Console.log(`${open} open orders on ${symbol}`)
})

program.pipe(Effect.provide(NodeSpotClient.layerConfig()), NodeRuntime.runMain)
