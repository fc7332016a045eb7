// The rate limiter's cost when it never waits (issue #26): `SpotClient.placeOrder` over the in-process transport with
// the limiter on, its budgets far beyond anything the run reaches (so that no call ever waits, and what is measured
// is the bookkeeping alone), against the same client with `rateLimit: false`.
//
// - In pairs in one process (the default): two clients, each over its own exchange, place alternate blocks of
//   orders; the median of the blocks' per-order ratios (on / off), which the load of a shared machine weighs on alike.
// - `--child on|off|stage`: one client alone places `--limiter-orders` orders after a warm-up and prints the ms, for
//   instruction counts under cachegrind (`bench/results/limiter/count.sh`: I(N2) - I(N1) over N2 - N1 orders, so
//   that start-up and warm-up cancel out). `stage`: the limiter on over a store that grants everything at once and
//   keeps nothing, the floor of what the pipeline's limit stage costs around a store.
//
//   node --expose-gc --conditions=@spotkit/source src/limiter.ts [--quick] [--limiter-orders N] [--limiter-blocks N]
//   node --expose-gc --conditions=@spotkit/source src/limiter.ts --child on --quick --limiter-orders 2000
//   node --conditions=@spotkit/source src/limiter.ts --limiter-store [--limiter-acquisitions N]   (the store alone)
import { RateLimitStore, SpotClient } from "@spotkit/core"
import { TestExchange } from "@spotkit/testkit"
import { Context, Effect, Layer } from "effect"
import { performance } from "node:perf_hooks"
import { args, log, machine, median, option, quick, writeResult } from "./cli.ts"
import { exchangeOptions, restingOrder } from "./inProcess.ts"

const ORDERS = option("limiter-orders", quick ? 2_000 : 20_000)
const BLOCKS = option("limiter-blocks", quick ? 4 : 40)
const BLOCK = 500
const WARMUP = quick ? 4_000 : 20_000

// A budget no run reaches: every acquisition takes the path of a free budget.
const NEVER = { limit: 1e12, windowMillis: 10_000 }
const options = {
  on: { rateLimit: { uid: NEVER, ip: NEVER, perEndpoint: NEVER } },
  off: { rateLimit: false }
} satisfies Record<string, Partial<SpotClient.Options>>

const order = restingOrder("lim")

// A store that grants everything at once and keeps nothing: what the limiter's stage costs around any store.
const noStore = Layer.succeed(RateLimitStore.RateLimitStore, {
  kind: "none",
  acquire: () => Effect.succeed({ settle: Effect.void }),
  pause: () => Effect.void
})

const clientOf = (client: Partial<SpotClient.Options>, store?: "none") =>
  Effect.map(
    Layer.build(
      store === undefined
        ? TestExchange.layerSpotClient({ exchange: exchangeOptions, client })
        : Layer.provide(TestExchange.layerSpotClient({ exchange: exchangeOptions, client }), noStore)
    ),
    (context) => Context.get(context, SpotClient.SpotClient)
  )

let next = 0
const place = (client: SpotClient.Service, n: number) =>
  Effect.gen(function*() {
    for (let i = 0; i < n; i++) yield* client.placeOrder(order(next++))
  })

/** Microseconds per order of one block of `BLOCK` orders. */
const block = (client: SpotClient.Service) =>
  Effect.gen(function*() {
    const started = performance.now()
    yield* place(client, BLOCK)
    return ((performance.now() - started) * 1000) / BLOCK
  })

const paired = Effect.scoped(Effect.gen(function*() {
  const on = yield* clientOf(options.on)
  const off = yield* clientOf(options.off)
  for (let i = 0; i < WARMUP / BLOCK / 2; i++) {
    yield* block(on)
    yield* block(off)
  }
  ;(globalThis as { gc?: () => void }).gc?.()
  const ons: Array<number> = []
  const offs: Array<number> = []
  const ratios: Array<number> = []
  for (let b = 0; b < BLOCKS; b++) {
    // Which of the two goes first alternates.
    const first = yield* block(b % 2 === 0 ? on : off)
    const second = yield* block(b % 2 === 0 ? off : on)
    const [a, u] = b % 2 === 0 ? [first, second] : [second, first]
    ons.push(a)
    offs.push(u)
    ratios.push(a / u)
  }
  const sorted = [...ratios].sort((x, y) => x - y)
  return {
    blocks: BLOCKS,
    blockOrders: BLOCK,
    onMicros: median(ons),
    offMicros: median(offs),
    ratio: median(ratios),
    ratioQuartiles: [sorted[Math.floor(sorted.length / 4)]!, sorted[Math.floor((3 * sorted.length) / 4)]!]
  }
}))

// The memory store alone: acquire and settle of a placement's three budgets (its endpoint's, the user's, the
// address's), `--limiter-acquisitions` in a row, never waiting; µs per acquisition.
const ACQUISITIONS = option("limiter-acquisitions", quick ? 20_000 : 300_000)
const storeAlone = Effect.gen(function*() {
  const store = yield* RateLimitStore.makeMemory
  const acquisition: RateLimitStore.Acquisition = {
    endpoint: { key: "endpoint:bench:k:placeOrder", limit: NEVER.limit, windowMillis: 1_025, weight: 1 },
    shared: [
      { key: "uid:bench:k", limit: NEVER.limit, windowMillis: 10_025, weight: 2 },
      { key: "ip:bench:default", limit: NEVER.limit, windowMillis: 10_025, weight: 5 }
    ],
    leaseMillis: 15_000
  }
  const once = Effect.flatMap(store.acquire(acquisition), (permit) => permit.settle)
  for (let i = 0; i < 20_000; i++) yield* once
  const started = performance.now()
  for (let i = 0; i < ACQUISITIONS; i++) yield* once
  return ((performance.now() - started) * 1000) / ACQUISITIONS
})

const CHILD = args.indexOf("--child")
if (args.includes("--limiter-store")) {
  const micros = await Effect.runPromise(storeAlone)
  log(`the memory store alone: ${micros.toFixed(2)} µs per acquisition (acquire + settle, ${ACQUISITIONS} in a row)`)
} else if (CHILD >= 0) {
  const which = args[CHILD + 1]
  if (which !== "on" && which !== "off" && which !== "stage") throw new Error("--child takes on, off or stage")
  const ms = await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const client = yield* (which === "stage" ? clientOf(options.on, "none") : clientOf(options[which]))
    yield* place(client, WARMUP)
    ;(globalThis as { gc?: () => void }).gc?.()
    const started = performance.now()
    yield* place(client, ORDERS)
    return performance.now() - started
  })))
  console.log(ms)
} else {
  const load = (await import("node:os")).loadavg()[0]!
  const result = await Effect.runPromise(paired)
  log(
    `the limiter on (budgets never reached) ÷ off, in-process placeOrder, ${result.blocks} pairs of ` +
      `${result.blockOrders} orders in one process (load ${load.toFixed(2)}): ${result.ratio.toFixed(3)}× (quartiles ${
        result.ratioQuartiles.map((r) => r.toFixed(3)).join("–")
      }); on ${result.onMicros.toFixed(1)} µs, off ${result.offMicros.toFixed(1)} µs per order (medians)`
  )
  writeResult("limiter", { benchmark: "limiter-paired", date: new Date().toISOString(), machine, load, ...result })
}
