// One process of the shared-budget benchmark (issue #15): a SpotClient from the environment, exactly as the CLI builds
// it (`NodeSpotClient.layerConfig`: SPOTKIT_BASE_URL, the credentials, and SPOTKIT_REDIS_URL when the budget is
// shared), running one workload from `--from` to `--until` (epoch ms, so that every process starts and stops
// together):
//
//   export   the funding bills, 100 per page, one page after another (again from the top when the history ends)
//   trade    a limit buy far below the market, then its cancel, one after another
//
//   node --conditions=@spotkit/source worker.ts --mode export|trade --from MS --until MS
//
// Prints one JSON line: { mode, calls, rows, failures: { [reason]: count } }. Exits 0 when no call failed, 1 otherwise.
import { SpotClient, type SpotError } from "@spotkit/core"
import * as NodeSpotClient from "@spotkit/node/NodeSpotClient"
import { Effect, Stream } from "effect"

const arg = (name: string): string => {
  const at = process.argv.indexOf(`--${name}`)
  if (at < 0 || process.argv[at + 1] === undefined) throw new Error(`--${name} is required`)
  return process.argv[at + 1]!
}
const mode = arg("mode")
const from = Number(arg("from"))
const until = Number(arg("until"))

let calls = 0
let rows = 0
const failures: Record<string, number> = {}
const failed = (error: SpotError.SpotError) =>
  Effect.sync(() => {
    failures[error.reason._tag] = (failures[error.reason._tag] ?? 0) + 1
  })

const exportBills = (client: SpotClient.Service) =>
  Effect.forever(
    client.fundingBills({ pageSize: 100 }).pipe(
      Stream.runForEach(() => Effect.sync(() => void rows++)),
      Effect.catch(failed)
    )
  )

const trade = (client: SpotClient.Service) => {
  let n = 0
  const once = Effect.gen(function*() {
    const placed = yield* client.placeOrder({
      symbol: "BTCUSDT_SPBL",
      side: "buy",
      orderType: "limit",
      force: "normal",
      price: "20000.00",
      quantity: "0.001",
      clientOrderId: `w${process.pid}x${(n++).toString(36)}`
    })
    calls++
    yield* client.cancelOrder({ symbol: "BTCUSDT_SPBL", orderId: placed.orderId })
    calls++
  }).pipe(Effect.catch(failed))
  return Effect.forever(once)
}

const program = Effect.gen(function*() {
  const client = yield* SpotClient.SpotClient
  yield* Effect.sleep(Math.max(0, from - Date.now()))
  const work = mode === "trade" ? trade(client) : exportBills(client)
  yield* Effect.timeoutOption(work, Math.max(0, until - Date.now()))
}).pipe(Effect.provide(NodeSpotClient.layerConfig()))

Effect.runPromise(program).then(
  () => {
    if (mode !== "trade") calls = Math.ceil(rows / 100)
    console.log(JSON.stringify({ mode, calls, rows, failures }))
    process.exit(Object.keys(failures).length === 0 ? 0 : 1)
  },
  (error: unknown) => {
    console.error(`worker: ${String(error)}`)
    process.exit(2)
  }
)
