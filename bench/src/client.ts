// placeOrder through the full client over the in-process transport (issue #3, "Benchmarks"), side by side with the
// floor of that transport in the same process: what the exchange itself costs for the same signed request, with no
// client around it. Alternating contestants, repeated, medians; prints a table and writes
// bench/results/client-<date>.json. Targets are printed, not asserted.
//
//   node --expose-gc --conditions=@spotkit/source src/client.ts [--quick] [--orders N] [--runs N]
import { Signer, SpotClient, Venue } from "@spotkit/core"
import { TestExchange } from "@spotkit/testkit"
import { Effect } from "effect"
import { spawnSync } from "node:child_process"
import { createHmac } from "node:crypto"
import { performance } from "node:perf_hooks"
import { fileURLToPath } from "node:url"
import { args, median, option, quick, writeResult } from "./cli.ts"

const ORDERS = option("client-orders", quick ? 5_000 : 20_000)
const RUNS = option("client-runs", quick ? 1 : 7)
const WARMUP = quick ? 5_000 : 40_000
const TARGET = 20_000

// Every order rests (a limit buy far below the book), so each contestant does the same engine work per order.
const order = (i: number) =>
  ({
    symbol: "BTCUSDT_SPBL",
    side: "buy",
    orderType: "limit",
    force: "normal",
    price: "100",
    quantity: "0.06",
    clientOrderId: `bench-${i}`
  }) as const

const exchangeOptions: TestExchange.Options = {
  ...TestExchange.demo({ bills: 0 }),
  rateLimits: false,
  recordTrades: false,
  requestLogSize: 0
}

interface Contestant {
  readonly key: string
  readonly label: string
  /** Places `n` orders on a fresh exchange; answers the elapsed milliseconds. */
  readonly run: (n: number) => Promise<number>
}

// The floor: sign with node:crypto, hand the request to the exchange's protocol, parse the answer. No client.
const rawProtocol: Contestant = {
  key: "raw-protocol",
  label: "baseline: signed request straight into TestExchange.handleAt (no client)",
  run: (n) =>
    Effect.runPromise(Effect.gen(function*() {
      const exchange = yield* TestExchange.make(exchangeOptions)
      const key = TestExchange.demoKeys.alice
      const path = Venue.endpoints.placeOrder.path
      const started = performance.now()
      for (let i = 0; i < n; i++) {
        const body = JSON.stringify(order(i))
        const now = Date.now()
        const timestamp = String(now)
        const sign = createHmac("sha256", key.secretKey).update(timestamp + "POST" + path + body).digest("base64")
        const headers: Record<string, string> = {
          "access-key": key.apiKey,
          "access-sign": sign,
          "access-timestamp": timestamp,
          "access-passphrase": key.passphrase,
          "content-type": "application/json",
          locale: "en-US"
        }
        const outcome = exchange.handleAt({
          method: "POST",
          path,
          header: (name) => headers[name],
          body,
          clientAddress: "127.0.0.1"
        }, now)
        if (outcome._tag !== "Respond" || outcome.status !== 200) throw new Error(`refused: ${JSON.stringify(outcome)}`)
        JSON.parse(outcome.body)
      }
      return performance.now() - started
    }))
}

const viaClient = (key: string, label: string, signer: Signer.Service | undefined): Contestant => ({
  key,
  label,
  run: (n) => {
    const layer = TestExchange.layerSpotClient({ exchange: exchangeOptions, signer })
    return Effect.runPromise(
      Effect.gen(function*() {
        const client = yield* SpotClient.SpotClient
        const started = performance.now()
        for (let i = 0; i < n; i++) yield* client.placeOrder(order(i))
        return performance.now() - started
      }).pipe(Effect.provide(layer))
    )
  }
})

const contestants: ReadonlyArray<Contestant> = [
  rawProtocol,
  viaClient(
    "spotclient-in-process",
    "SpotClient.placeOrder over TestExchange.layerSpotClient (node:crypto signer, the preset)",
    undefined
  ),
  viaClient(
    "spotclient-in-process-webcrypto",
    "the same with core's portable default signer (WebCrypto)",
    Signer.webCrypto
  )
]

// Each timed run is a child process that warms up and then times one contestant, so that no contestant shares a
// JIT state (call-site shapes, heap) with another: a user's process runs one client, not three. The runs alternate
// between contestants.
const CHILD = args.indexOf("--child")

const runChild = (key: string): number => {
  const child = spawnSync(
    process.execPath,
    [...process.execArgv, fileURLToPath(import.meta.url), "--child", key, ...args.filter((a) => a !== "--child")],
    { encoding: "utf8" }
  )
  const ms = Number(child.stdout.trim().split("\n").pop())
  if (child.status !== 0 || !Number.isFinite(ms)) throw new Error(`run of ${key} failed: ${child.stderr}`)
  return ms
}

const main = async () => {
  const times = new Map<string, Array<number>>(contestants.map((c) => [c.key, []]))
  for (let r = 0; r < RUNS; r++) {
    for (const c of contestants) times.get(c.key)!.push(runChild(c.key))
  }
  const baseline = median(times.get(rawProtocol.key)!)
  const results = contestants.map((c) => {
    const ms = median(times.get(c.key)!)
    return {
      key: c.key,
      label: c.label,
      runsMs: times.get(c.key)!.map((t) => Math.round(t * 10) / 10),
      medianMs: ms,
      ordersPerSecond: ORDERS / (ms / 1000),
      microsPerOrder: (ms * 1000) / ORDERS,
      costOverBaseline: ms / baseline
    }
  })
  console.log(`\nplaceOrder over the in-process transport: ${ORDERS} orders × ${RUNS} runs, medians`)
  console.log(
    `${"contestant".padEnd(34)} ${"orders/s".padStart(10)} ${"µs/order".padStart(9)} ${"× baseline".padStart(11)}`
  )
  for (const r of results) {
    console.log(
      `${r.key.padEnd(34)} ${Math.round(r.ordersPerSecond).toLocaleString("en-US").padStart(10)} ${
        r.microsPerOrder.toFixed(1).padStart(9)
      } ${r.costOverBaseline.toFixed(2).padStart(11)}`
    )
  }
  const ours = results.find((r) => r.key === "spotclient-in-process")!
  console.log(
    `target ≥ ${TARGET.toLocaleString("en-US")} orders/s: ${ours.ordersPerSecond >= TARGET ? "met" : "not met"}`
  )
  const date = new Date().toISOString()
  writeResult("client", {
    benchmark: "client-in-process",
    date,
    node: process.version,
    orders: ORDERS,
    runs: RUNS,
    method: "each run is a child process that warms up (WARMUP orders) and then places ORDERS resting limit " +
      "orders on a fresh exchange; runs alternate between contestants; medians",
    warmup: WARMUP,
    results,
    target: { ordersPerSecond: TARGET, met: ours.ordersPerSecond >= TARGET }
  })
}

if (CHILD >= 0) {
  const contestant = contestants.find((c) => c.key === args[CHILD + 1])
  if (contestant === undefined) throw new Error(`unknown contestant ${args[CHILD + 1]}`)
  await contestant.run(WARMUP)
  ;(globalThis as { gc?: () => void }).gc?.()
  console.log(await contestant.run(ORDERS))
} else {
  await main()
}
