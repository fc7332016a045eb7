// Push (issue #24), two figures. Writes bench/results/push-<date>.json.
//
// 1. Depth changes decoded and applied per second by `SpotPush.watchBook` (NodeSpotPush: the `ws` package under
//    effect/socket, frames decoded by the Push codecs, versions checked, the top 15 kept, a book per change) against a
//    baseline of the raw `ws` package + `JSON.parse` + a plain `Map` per side applying the same frames (with the same
//    version check). The server (bench/src/pushServer.ts, its own process) replays the same recorded frames of the
//    testkit's venue — an acknowledgement, a snapshot, then `--frames` changes — to each client as fast as the socket
//    takes them. Runs alternate the two clients; each is timed from the connection to the last version applied, wall
//    clock and the client's main-thread CPU (the figure load disturbs least); the ratio is per pair of runs.
// 2. In process, on the real clock: the time from an engine event (alice's market order crossing bob's quote, sent
//    to the exchange) to the `watchFills` element of its fill and to the `watchBook` element of the book it changed —
//    the in-process venue and transport of the testkit, the whole client pipeline (decode, merge, queues, streams).
//
//   pnpm bench (after the engine bench), or alone: node --conditions=@spotkit/source bench/src/push.ts
//   options: --quick (20,000 frames, 2 pairs; 300 events), --frames N, --pairs N, --events N, --only spotkit|baseline
import { SpotPush } from "@spotkit/core"
import { NodeSpotPush } from "@spotkit/node"
import { PushVenue, TestExchange } from "@spotkit/testkit"
import { Context, Deferred, Effect, Fiber, Layer, Scope, Stream } from "effect"
import { spawn } from "node:child_process"
import * as os from "node:os"
import { performance } from "node:perf_hooks"
import { createInterface } from "node:readline"
import WebSocket from "ws"
import { args, fmt, log, machine, median, option, quick, writeResult } from "./cli.ts"

const FRAMES = option("frames", quick ? 20_000 : 100_000)
const PAIRS = option("pairs", quick ? 2 : 5)
const EVENTS = option("events", quick ? 300 : 2_000)
const SYMBOL = "BTCUSDT_SPBL"
const CHANNEL = `depth.${SYMBOL}.15`

const load = () => os.loadavg()[0]!
const loadAtStart = load()

// ---------------------------------------------------------------------------------------------------------------
// 1. Decoded and applied per second

const server = spawn(process.execPath, [
  ...process.execArgv,
  new URL("pushServer.ts", import.meta.url).pathname,
  "--frames",
  String(FRAMES)
], { stdio: ["pipe", "pipe", "inherit"] })
process.on("exit", () => server.kill())
const [port, lastVersion] = await new Promise<[number, string]>((resolve, reject) => {
  server.once("exit", (code) => reject(new Error(`the push bench server exited (${code})`)))
  createInterface({ input: server.stdout! }).once("line", (line) => {
    const [, p, v] = line.split(" ")
    resolve([Number(p), v!])
  })
})
const url = `ws://127.0.0.1:${port}`

interface Run {
  readonly ms: number
  readonly cpuMs: number
  readonly books: number
}

const timed = async (body: () => Promise<number>): Promise<Run> => {
  const cpu = process.threadCpuUsage()
  const started = performance.now()
  const books = await body()
  const ms = performance.now() - started
  const used = process.threadCpuUsage(cpu)
  return { ms, cpuMs: (used.user + used.system) / 1000, books }
}

// The baseline: the frames as they come, parsed, the version checked, the levels applied to one Map per side.
const baseline = () =>
  new Promise<number>((resolve, reject) => {
    const socket = new WebSocket(`${url}/v2/ws/public`, { headers: { "User-Agent": "bench" } })
    const bids = new Map<string, string>()
    const asks = new Map<string, string>()
    let version = -1n
    let applied = 0
    socket.on("open", () => socket.send(JSON.stringify({ event: "subscribe", channel: CHANNEL })))
    socket.on("error", reject)
    socket.on("message", (data) => {
      const frame = JSON.parse(String(data)) as {
        event: string
        data?: Array<
          {
            depthType: string
            startVersion: string
            endVersion: string
            bids: Array<{ price: string; size: string }>
            asks: Array<{ price: string; size: string }>
          }
        >
      }
      if (frame.event !== "payload") return
      for (const item of frame.data!) {
        if (item.depthType === "SNAPSHOT") {
          bids.clear()
          asks.clear()
        } else if (BigInt(item.startVersion) !== version + 1n) {
          reject(new Error(`gap at ${item.startVersion}`))
        }
        for (const { price, size } of item.bids) {
          if (size === "0") bids.delete(price)
          else bids.set(price, size)
        }
        for (const { price, size } of item.asks) {
          if (size === "0") asks.delete(price)
          else asks.set(price, size)
        }
        version = BigInt(item.endVersion)
        applied++
        if (item.endVersion === lastVersion) {
          socket.close()
          resolve(applied)
        }
      }
    })
  })

// A public stream asks REST one thing, whether the venue lists the symbol (`watchBook` checks it before it subscribes):
// the test exchange answers it in process, from a client built once, so that a run times the push connection. (A REST
// client on a port where nothing listens, as before, spent some 3 s of every run retrying that question.)
const restScope = await Effect.runPromise(Scope.make())
const rest = await Effect.runPromise(
  Layer.buildWithScope(
    TestExchange.layerSpotClient({ exchange: { ...TestExchange.demo({ bills: 0 }), rateLimits: false } }),
    restScope
  )
)
const spotkitLayer = NodeSpotPush.layer({ url }).pipe(Layer.provide(Layer.succeedContext(rest)))
const spotkit = () =>
  Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const push = Context.get(yield* Layer.build(spotkitLayer), SpotPush.SpotPush)
    let books = 0
    yield* Stream.runDrain(
      push.watchBook(SYMBOL).pipe(
        Stream.tap((event) => Effect.sync(() => event._tag === "Book" ? books++ : undefined)),
        Stream.takeUntil((event) => event._tag === "Book" && event.book.version === lastVersion)
      )
    )
    return books
  })))

// `--only spotkit|baseline`: one pass of one client and nothing else, for counting its instructions under cachegrind
// (bench/results/push-24/instructions.sh: the difference of two frame counts cancels start-up and compilation).
const only = args.includes("--only") ? args[args.indexOf("--only") + 1] : undefined
if (only !== undefined) {
  if (only !== "spotkit" && only !== "baseline") throw new Error("--only takes spotkit or baseline")
  const applied = only === "spotkit" ? await spotkit() : await baseline()
  log(`push --only ${only}: ${fmt(FRAMES)} changes, ${fmt(applied)} books`)
  process.exit(0)
}

log()
log(
  `push: ${fmt(FRAMES)} depth changes (depth 15, recorded from the testkit's venue), replayed by a server in its own ` +
    `process; ${PAIRS} pair(s) of runs, alternating; load average at start ${loadAtStart.toFixed(2)}`
)
// Warm-up (untimed): each client once over the whole stream.
await spotkit()
await baseline()
const pairs: Array<{ readonly spotkit: Run; readonly baseline: Run }> = []
for (let pair = 0; pair < PAIRS; pair++) {
  const first = pair % 2 === 0
  const a = first ? await timed(spotkit) : await timed(baseline)
  const b = first ? await timed(baseline) : await timed(spotkit)
  const result = first ? { spotkit: a, baseline: b } : { spotkit: b, baseline: a }
  pairs.push(result)
  log(
    `  pair ${pair + 1}: spotkit ${fmt(result.spotkit.ms)} ms (CPU ${fmt(result.spotkit.cpuMs)} ms, ` +
      `${fmt(result.spotkit.books)} books), baseline ${fmt(result.baseline.ms)} ms (CPU ${
        fmt(result.baseline.cpuMs)
      } ms)`
  )
}
server.kill()
const perSecond = (ms: number) => FRAMES / (ms / 1000)
const throughput = {
  frames: FRAMES,
  pairs: PAIRS,
  spotkitPerSecond: Math.round(median(pairs.map((p) => perSecond(p.spotkit.ms)))),
  baselinePerSecond: Math.round(median(pairs.map((p) => perSecond(p.baseline.ms)))),
  spotkitCpuPerSecond: Math.round(median(pairs.map((p) => perSecond(p.spotkit.cpuMs)))),
  baselineCpuPerSecond: Math.round(median(pairs.map((p) => perSecond(p.baseline.cpuMs)))),
  // spotkit's time over the baseline's, per pair, then the median.
  wallRatio: Number(median(pairs.map((p) => p.spotkit.ms / p.baseline.ms)).toFixed(2)),
  cpuRatio: Number(median(pairs.map((p) => p.spotkit.cpuMs / p.baseline.cpuMs)).toFixed(2)),
  runs: pairs
}
log(
  `  median: spotkit ${fmt(throughput.spotkitPerSecond)} changes/s (${fmt(throughput.spotkitCpuPerSecond)} per CPU ` +
    `second), baseline ${fmt(throughput.baselinePerSecond)}/s (${fmt(throughput.baselineCpuPerSecond)} per CPU ` +
    `second); spotkit takes ${throughput.wallRatio}× the baseline's time (${throughput.cpuRatio}× its CPU)`
)

// ---------------------------------------------------------------------------------------------------------------
// 2. From an engine event to the stream element, in process

const percentile = (xs: ReadonlyArray<number>, p: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor(p * s.length))]!
}

const latency = Effect.gen(function*() {
  const exchange = yield* TestExchange.TestExchange
  const push = yield* SpotPush.SpotPush
  const [alice, bob] = exchange.accounts.map((a) => a.userId)
  let fillSeen: Deferred.Deferred<number> | undefined
  let bookSeen: Deferred.Deferred<number> | undefined
  const fills = yield* Effect.forkChild(
    Stream.runForEach(
      push.watchFills({ symbols: [SYMBOL] }),
      () => Effect.suspend(() => fillSeen === undefined ? Effect.void : Deferred.succeed(fillSeen, performance.now()))
    )
  )
  const books = yield* Effect.forkChild(
    Stream.runForEach(
      push.watchBook(SYMBOL),
      (event) =>
        Effect.suspend(() =>
          bookSeen === undefined || event._tag !== "Book" ? Effect.void : Deferred.succeed(bookSeen, performance.now())
        )
    )
  )
  const quiet = Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, 2)))
  yield* Effect.sleep(200)
  const toFill: Array<number> = []
  const toBook: Array<number> = []
  for (let i = 0; i < EVENTS + 50; i++) {
    // Untimed: bob quotes the level alice will take, and everything it caused is delivered.
    yield* exchange.placeOrder(bob!, {
      symbol: SYMBOL,
      side: "sell",
      orderType: "limit",
      force: "normal",
      price: "30005.00",
      quantity: "0.010",
      clientOrderId: `q-${i}`
    })
    yield* quiet
    fillSeen = yield* Deferred.make<number>()
    bookSeen = yield* Deferred.make<number>()
    const started = performance.now()
    yield* exchange.placeOrder(alice!, {
      symbol: SYMBOL,
      side: "buy",
      orderType: "market",
      force: "normal",
      quantity: "150",
      clientOrderId: `t-${i}`
    })
    const fillAt = yield* Deferred.await(fillSeen)
    const bookAt = yield* Deferred.await(bookSeen)
    fillSeen = undefined
    bookSeen = undefined
    // The first 50 warm up.
    if (i >= 50) {
      toFill.push(fillAt - started)
      toBook.push(bookAt - started)
    }
    yield* quiet
  }
  yield* Fiber.interrupt(fills)
  yield* Fiber.interrupt(books)
  const micros = (ms: number) => Math.round(ms * 1000)
  return {
    events: EVENTS,
    fillMedianMicros: micros(median(toFill)),
    fillP99Micros: micros(percentile(toFill, 0.99)),
    bookMedianMicros: micros(median(toBook)),
    bookP99Micros: micros(percentile(toBook, 0.99))
  }
})

const inProcess = TestExchange.layerSpotClient({
  exchange: { ...TestExchange.demo({ bills: 0 }), rateLimits: false }
})
const latencies = await Effect.runPromise(Effect.scoped(latency.pipe(
  Effect.provide(
    PushVenue.layerSpotPush().pipe(Layer.provideMerge(PushVenue.layer().pipe(Layer.provideMerge(inProcess))))
  )
)))
log(
  `  in process, ${fmt(EVENTS)} market orders each crossing one quote: to the watchFills element median ` +
    `${fmt(latencies.fillMedianMicros)} µs, p99 ${fmt(latencies.fillP99Micros)} µs; to the watchBook element median ` +
    `${fmt(latencies.bookMedianMicros)} µs, p99 ${fmt(latencies.bookP99Micros)} µs (real clock)`
)

const file = writeResult("push", {
  benchmark: "push",
  date: new Date().toISOString(),
  machine,
  loadAverage: { start: loadAtStart, end: load() },
  throughput,
  latency: latencies
})
log(`  written to ${file.pathname}`)
