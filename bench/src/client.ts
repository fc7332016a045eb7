// placeOrder through the full client over the in-process transport (issue #3, "Benchmarks"), side by side with the
// floor of that transport in the same process: what the exchange itself costs for the same signed request, with no
// client around it; beside it (issue #14) the same placement with the symbol-rules check off (the check's cost per
// order), a cancel by orderId and an order lookup by orderId through the client, and the check alone
// (`Market.orderCheck`, prepared once as the client does). Alternating contestants, repeated, medians; prints a table
// and writes bench/results/client-<date>.json. Targets are printed, not asserted.
//
// The check's cost is also measured in pairs in one process (`pairedCheck`), which a busy machine disturbs less.
//
//   node --expose-gc --conditions=@spotkit/source src/client.ts [--quick] [--client-orders N] [--client-runs N]
import { Market, Signer, SpotClient } from "@spotkit/core"
import { NodeSigner } from "@spotkit/node"
import { TestExchange } from "@spotkit/testkit"
import { Context, Effect, Layer } from "effect"
import { spawnSync } from "node:child_process"
import { performance } from "node:perf_hooks"
import { fileURLToPath } from "node:url"
import { args, median, option, quick, writeResult } from "./cli.ts"
import { exchangeOptions, placeAlone, restingOrder } from "./inProcess.ts"

const ORDERS = option("client-orders", quick ? 5_000 : 20_000)
const RUNS = option("client-runs", quick ? 1 : 7)
const WARMUP = quick ? 5_000 : 40_000
const TARGET = 20_000

const order = restingOrder("bench")

interface Contestant {
  readonly key: string
  readonly label: string
  /** Does `n` operations (places `n` orders, or cancels or looks up `n` placed ones); answers the elapsed ms. */
  readonly run: (n: number) => Promise<number>
  /** What one operation is, for the table. */
  readonly unit?: string
}

// The floor: sign with node:crypto, hand the request to the exchange's protocol, parse the answer. No client.
const rawProtocol: Contestant = {
  key: "raw-protocol",
  label: "baseline: signed request straight into TestExchange.handleAt (no client)",
  run: (n) =>
    Effect.runPromise(Effect.gen(function*() {
      const exchange = yield* TestExchange.make(exchangeOptions)
      const started = performance.now()
      for (let i = 0; i < n; i++) placeAlone(exchange, order(i))
      return performance.now() - started
    }))
}

const viaClient = (
  key: string,
  label: string,
  signer: Signer.Service | undefined,
  client: Partial<SpotClient.Options> = {}
): Contestant => ({
  key,
  label,
  run: (n) => {
    const layer = TestExchange.layerSpotClient({ exchange: exchangeOptions, signer, client })
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

// An operation on orders already placed: `n` resting orders are placed untimed, then the operation is timed on each.
const onPlaced = (
  key: string,
  label: string,
  unit: string,
  operation: (client: SpotClient.Service, orderId: string) => Effect.Effect<unknown, unknown>
): Contestant => ({
  key,
  label,
  unit,
  run: (n) =>
    Effect.runPromise(
      Effect.gen(function*() {
        const client = yield* SpotClient.SpotClient
        const ids: Array<string> = new Array(n)
        for (let i = 0; i < n; i++) ids[i] = (yield* client.placeOrder(order(i))).orderId
        const started = performance.now()
        for (let i = 0; i < n; i++) yield* operation(client, ids[i]!)
        return performance.now() - started
      }).pipe(
        Effect.provide(TestExchange.layerSpotClient({ exchange: exchangeOptions, signer: NodeSigner.nodeCrypto }))
      )
    )
})

// The check alone, as the client runs it for each order once the rules are loaded (prepared once per symbol).
const checkAlone: Contestant = {
  key: "symbol-rules-check",
  label: "Market.orderCheck alone: the tick/step/min/max check of one order, prepared once from the rules",
  unit: "check",
  run: (n) =>
    Effect.runPromise(
      Effect.gen(function*() {
        const client = yield* SpotClient.SpotClient
        const rules = (yield* client.symbols()).find((r) => r.symbol === "BTCUSDT_SPBL")!
        const check = Market.orderCheck(rules)
        // Prices and quantities vary as a strategy's do, all valid: the check runs to its end.
        const orders = Array.from({ length: 1024 }, (_, i) => ({
          side: "buy" as const,
          orderType: "limit" as const,
          price: `${27000 + i}.${i % 10}`,
          quantity: `0.0${(i % 9) + 1}`
        }))
        let broken = 0
        const started = performance.now()
        for (let i = 0; i < n; i++) if (check(orders[i & 1023]!) !== undefined) broken++
        const elapsed = performance.now() - started
        if (broken > 0) throw new Error(`${broken} orders broke the rules`)
        return elapsed
      }).pipe(
        Effect.provide(TestExchange.layerSpotClient({ exchange: exchangeOptions, signer: NodeSigner.nodeCrypto }))
      )
    )
}

const contestants: ReadonlyArray<Contestant> = [
  rawProtocol,
  viaClient(
    "spotclient-in-process",
    "SpotClient.placeOrder over TestExchange.layerSpotClient (node:crypto signer; rules checked)",
    NodeSigner.nodeCrypto
  ),
  viaClient(
    "spotclient-in-process-unchecked",
    "the same with checkSymbolRules: false (the difference is the check's cost per order)",
    NodeSigner.nodeCrypto,
    { checkSymbolRules: false }
  ),
  viaClient(
    "spotclient-in-process-webcrypto",
    "the same with core's portable default signer (WebCrypto)",
    Signer.webCrypto
  ),
  onPlaced(
    "cancel-in-process",
    "SpotClient.cancelOrder by orderId of a resting order, in-process preset",
    "cancel",
    (client, orderId) => client.cancelOrder({ symbol: "BTCUSDT_SPBL", orderId })
  ),
  onPlaced(
    "order-lookup-in-process",
    "SpotClient.order by orderId of a resting order, in-process preset",
    "lookup",
    (client, orderId) => client.order({ orderId })
  ),
  checkAlone
]

// The check is timed on many more orders than the client's operations: it takes well under a microsecond.
const CHECKS = 50
const operationsOf = (c: Contestant) => c === checkAlone ? ORDERS * CHECKS : ORDERS

// The check's cost per order measured in pairs: one process places alternate blocks of orders through two clients,
// the check on and off, each over its own exchange, so that the load of a shared machine weighs on both alike; the
// median of the blocks' per-order differences. Separate processes (the table above) leave a difference of a few µs in
// the noise of a busy machine.
const PAIR_BLOCK = 500

interface Paired {
  readonly blocks: number
  readonly blockOrders: number
  readonly checkedMicros: number
  readonly uncheckedMicros: number
  readonly differenceMicros: number
}

const pairedCheck = (orders: number): Promise<Paired> =>
  Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const build = (client: Partial<SpotClient.Options>) =>
      Effect.map(
        Layer.build(TestExchange.layerSpotClient({ exchange: exchangeOptions, client, signer: NodeSigner.nodeCrypto })),
        (context) => Context.get(context, SpotClient.SpotClient)
      )
    const checked = yield* build({})
    const unchecked = yield* build({ checkSymbolRules: false })
    let next = 0
    // Microseconds per order of one block.
    const block = (client: SpotClient.Service) =>
      Effect.gen(function*() {
        const started = performance.now()
        for (let i = 0; i < PAIR_BLOCK; i++) yield* client.placeOrder(order(next++))
        return ((performance.now() - started) * 1000) / PAIR_BLOCK
      })
    for (let i = 0; i < WARMUP / PAIR_BLOCK / 2; i++) {
      yield* block(checked)
      yield* block(unchecked)
    }
    ;(globalThis as { gc?: () => void }).gc?.()
    const on: Array<number> = []
    const off: Array<number> = []
    const differences: Array<number> = []
    const blocks = Math.max(1, Math.round(orders / PAIR_BLOCK))
    for (let b = 0; b < blocks; b++) {
      // Which of the two goes first alternates.
      const first = yield* block(b % 2 === 0 ? checked : unchecked)
      const second = yield* block(b % 2 === 0 ? unchecked : checked)
      const [a, u] = b % 2 === 0 ? [first, second] : [second, first]
      on.push(a)
      off.push(u)
      differences.push(a - u)
    }
    return {
      blocks,
      blockOrders: PAIR_BLOCK,
      checkedMicros: median(on),
      uncheckedMicros: median(off),
      differenceMicros: median(differences)
    }
  })))

const PAIRED = "paired-check"

// Each timed run is a child process that warms up and then times one contestant, so that no contestant shares a
// JIT state (call-site shapes, heap) with another: a user's process runs one client, not three. The runs alternate
// between contestants.
const CHILD = args.indexOf("--child")

const childOutput = (key: string): string => {
  const child = spawnSync(
    process.execPath,
    [...process.execArgv, fileURLToPath(import.meta.url), "--child", key, ...args.filter((a) => a !== "--child")],
    { encoding: "utf8" }
  )
  if (child.status !== 0) throw new Error(`run of ${key} failed: ${child.stderr}`)
  return child.stdout.trim().split("\n").pop() ?? ""
}

const runChild = (key: string): number => {
  const ms = Number(childOutput(key))
  if (!Number.isFinite(ms)) throw new Error(`run of ${key} answered no time`)
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
    const count = operationsOf(c)
    return {
      key: c.key,
      label: c.label,
      unit: c.unit ?? "order",
      operations: count,
      runsMs: times.get(c.key)!.map((t) => Math.round(t * 10) / 10),
      medianMs: ms,
      // Operations per second (orders placed, cancels, lookups or checks, as `unit` says).
      ordersPerSecond: count / (ms / 1000),
      microsPerOrder: (ms * 1000) / count,
      costOverBaseline: (ms / count) / (baseline / ORDERS)
    }
  })
  console.log(`\nthe client over the in-process transport: ${ORDERS} operations × ${RUNS} runs, medians`)
  console.log(
    `${"contestant".padEnd(34)} ${"ops/s".padStart(12)} ${"µs/op".padStart(9)} ${"× baseline".padStart(11)}`
  )
  for (const r of results) {
    console.log(
      `${r.key.padEnd(34)} ${Math.round(r.ordersPerSecond).toLocaleString("en-US").padStart(12)} ${
        r.microsPerOrder.toFixed(r.microsPerOrder < 1 ? 3 : 1).padStart(9)
      } ${r.costOverBaseline.toFixed(2).padStart(11)}`
    )
  }
  const checked = results.find((r) => r.key === "spotclient-in-process")!
  const unchecked = results.find((r) => r.key === "spotclient-in-process-unchecked")!
  console.log(
    `the rules check: ${(checked.microsPerOrder - unchecked.microsPerOrder).toFixed(2)} µs per order between ` +
      `placements checked and unchecked; ${results.find((r) => r.key === checkAlone.key)!.microsPerOrder.toFixed(3)} ` +
      `µs for the check alone`
  )
  const paired = JSON.parse(childOutput(PAIRED)) as Paired
  console.log(
    `the rules check in pairs (${paired.blocks} blocks of ${paired.blockOrders} orders each way, one process): ` +
      `${paired.differenceMicros.toFixed(2)} µs per order (checked ${paired.checkedMicros.toFixed(1)} µs, unchecked ` +
      `${paired.uncheckedMicros.toFixed(1)} µs, medians)`
  )
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
    method: "each run is a child process that warms up (WARMUP operations) and then times ORDERS operations on a " +
      "fresh exchange (placements of resting limit orders; or cancels or lookups by orderId of that many resting " +
      "orders placed untimed first; or CHECKS × ORDERS checks of the rules alone); runs alternate between " +
      "contestants; medians",
    warmup: WARMUP,
    results,
    pairedCheck: paired,
    target: { ordersPerSecond: TARGET, met: ours.ordersPerSecond >= TARGET }
  })
}

if (CHILD >= 0 && args[CHILD + 1] === PAIRED) {
  console.log(JSON.stringify(await pairedCheck(ORDERS)))
} else if (CHILD >= 0) {
  const contestant = contestants.find((c) => c.key === args[CHILD + 1])
  if (contestant === undefined) throw new Error(`unknown contestant ${args[CHILD + 1]}`)
  const scale = contestant === checkAlone ? CHECKS : 1
  await contestant.run(WARMUP * scale)
  ;(globalThis as { gc?: () => void }).gc?.()
  console.log(await contestant.run(ORDERS * scale))
} else {
  await main()
}
