/**
 * A bills-export pipeline: every funding bill of a coin streamed to an NDJSON file in constant memory, with the net
 * change per coin summed exactly (`BigDecimal`, never floating point).
 *
 *   SPOTKIT_BASE_URL=... SPOTKIT_API_KEY=... SPOTKIT_SECRET_KEY=... SPOTKIT_PASSPHRASE=... \
 *     node --conditions=@spotkit/source examples/export-bills.ts bills.ndjson [coinId]
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { SpotClient } from "@spotkit/core"
import { NodeSpotClient } from "@spotkit/node"
import { BigDecimal, Console, Effect, FileSystem, Layer, Stream } from "effect"

const file = process.argv[2] ?? "bills.ndjson"
const coinId = process.argv[3] === undefined ? undefined : Number(process.argv[3])

const program = Effect.gen(function*() {
  const client = yield* SpotClient.SpotClient
  const fs = yield* FileSystem.FileSystem
  const net = new Map<string, BigDecimal.BigDecimal>()
  let rows = 0

  yield* client.fundingBills({ coinId }).pipe(
    Stream.tap((bill) =>
      Effect.sync(() => {
        rows++
        const delta = BigDecimal.fromStringUnsafe(bill.deltaAmount)
        net.set(bill.coinName, BigDecimal.sum(net.get(bill.coinName) ?? BigDecimal.make(0n, 0), delta))
      })
    ),
    // Ids and amounts are strings: exact in the file too.
    Stream.map((bill) => JSON.stringify(bill) + "\n"),
    Stream.encodeText,
    Stream.run(fs.sink(file))
  )

  yield* Console.log(`${rows} bills written to ${file}`)
  for (const [coin, total] of [...net].sort(([a], [b]) => a.localeCompare(b))) {
    yield* Console.log(`net ${coin}: ${BigDecimal.format(total)}`)
  }
})

program.pipe(
  Effect.provide(Layer.merge(NodeSpotClient.layerConfig(), NodeServices.layer)),
  NodeRuntime.runMain
)
