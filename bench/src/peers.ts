// Client throughput and cost against peer SDKs (issue #5): the same signed POSTs to /api/v2/trade/orders and
// /api/v2/trade/open-orders, at concurrency 1 and 16, from spotkit over the Node layer, a raw baseline (undici +
// node:crypto + JSON.parse), bitget-api and ccxt, against the same server. Every timed run is a fresh server process
// and a fresh client process (no shared JIT state, client CPU measured alone); runs alternate the contestants and
// the servers. Two servers: a minimal canned node:http server (the client's cost shows) and the testkit sandbox
// (signatures checked, orders really placed). Prints tables and writes bench/results/peers-<date>.json. Targets are
// printed, not asserted.
//
// Each client warms up on every pair (10,000 requests) before timing 20,000: a client that runs more code reaches its
// steady state later (V8 optimizes it over the first thousands of calls), and windows of 4,000 after 2,000 measured
// that warm-up more than the cost per request (BENCHMARKS.md, issue #26).
//
//   node --expose-gc --conditions=@spotkit/source src/peers.ts [--quick] [--peers-requests N] [--peers-warmup N]
//     [--peers-runs N] [--peers-servers raw,sandbox]
//     [--peers-contestants raw,spotkit,spotkit-effect-undici,bitget-api,ccxt,floor]  (floor only when named)
import { type ChildProcess, spawn } from "node:child_process"
import * as os from "node:os"
import { fileURLToPath } from "node:url"
import { args, fmt, log, machine, median, option, quick, stop, writeResult } from "./cli.ts"

const REQUESTS = option("peers-requests", quick ? 300 : 20_000)
const WARMUP = option("peers-warmup", quick ? 300 : 10_000)
const RUNS = option("peers-runs", quick ? 1 : 3)
const CONCURRENCY = [1, 16] as const
const PATHS = ["placeOrder", "openOrders"] as const
const TARGETS = { ofRaw: 0.8, ofEachPeer: 3 }
// Issue #26: client CPU per request >= 0.8x the raw baseline's for both paths (limiter and spans on), and >= 1.4x
// ccxt's for placeOrder.
const TARGETS_26 = { cpuOfRaw: 0.8, placeOrderCpuOfCcxt: 1.4 }

// The values of option `name`, some of `defaults` and `more`; `defaults` when it is not given.
const list = (
  name: string,
  defaults: ReadonlyArray<string>,
  more: ReadonlyArray<string> = []
): ReadonlyArray<string> => {
  const all = [...defaults, ...more]
  const at = args.indexOf(`--${name}`)
  if (at < 0) return defaults
  const picked = (args[at + 1] ?? "").split(",").filter((s) => s.length > 0)
  const unknown = picked.filter((s) => !all.includes(s))
  if (picked.length === 0 || unknown.length > 0) throw new Error(`--${name} takes some of ${all.join(",")}`)
  return picked
}
const SERVERS = list("peers-servers", ["raw", "sandbox"])
// `floor` (undici's dispatch alone, about the least a client over undici spends) only when named.
const CONTESTANTS = list("peers-contestants", ["raw", "spotkit", "spotkit-effect-undici", "bitget-api", "ccxt"], [
  "floor"
])
const PEERS = CONTESTANTS.filter((c) => c === "bitget-api" || c === "ccxt")

const serverScripts: Record<string, string> = {
  raw: fileURLToPath(new URL("peers/serverRaw.ts", import.meta.url)),
  sandbox: fileURLToPath(new URL("peers/serverSandbox.ts", import.meta.url))
}
const clientScript = fileURLToPath(new URL("peers/client.ts", import.meta.url))

const labels: Record<string, string> = {
  raw: "raw baseline (undici.request + node:crypto + JSON.parse)",
  spotkit: "spotkit (SpotClient over NodeSpotClient.layer)",
  "spotkit-effect-undici": "spotkit, transport \"effect-undici\" (platform-node's HttpClient)",
  "bitget-api": "bitget-api 3.2.3 (RestClientV2.postPrivate)",
  ccxt: "ccxt 4.5.84 (bitget.request, private spot POST)",
  floor: "floor: undici's dispatch + node:crypto + JSON.parse, no client"
}
const serverLabels: Record<string, string> = {
  raw: "minimal node:http server, canned answers, checks nothing",
  sandbox: "testkit sandbox (TestExchange over node:http), signatures checked, orders placed, rate limits off"
}

// ---------------------------------------------------------------------------------------------------------------
// Child processes

const nodeArgs = (script: string, rest: ReadonlyArray<string>) => [...process.execArgv, script, ...rest]

const startServer = (kind: string): Promise<{ readonly child: ChildProcess; readonly baseUrl: string }> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, nodeArgs(serverScripts[kind]!, []), { stdio: ["ignore", "pipe", "pipe"] })
    let out = ""
    let err = ""
    child.stderr!.on("data", (chunk: Buffer) => (err += chunk.toString()))
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString()
      const ready = /^READY (\S+)$/m.exec(out)
      if (ready !== null) resolve({ child, baseUrl: ready[1]! })
    })
    child.on("exit", (code) => reject(new Error(`the ${kind} server exited (${code}) before it was ready: ${err}`)))
  })

interface Measured {
  readonly path: (typeof PATHS)[number]
  readonly concurrency: number
  readonly requests: number
  readonly ms: number
  readonly requestsPerSecond: number
  readonly clientCpuMicrosPerRequest: number
  readonly serverCpuMicrosPerRequest: number | undefined
  readonly check: { readonly ok: number; readonly distinctOrderIds: number; readonly sampleOrderId?: string }
}

const runClient = (contestant: string, baseUrl: string, serverPid: number): Promise<ReadonlyArray<Measured>> =>
  new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      nodeArgs(clientScript, [
        contestant,
        baseUrl,
        String(serverPid),
        String(REQUESTS),
        String(WARMUP),
        CONCURRENCY.join(",")
      ]),
      { stdio: ["ignore", "pipe", "pipe"] }
    )
    let out = ""
    let err = ""
    child.stdout!.on("data", (chunk: Buffer) => (out += chunk.toString()))
    child.stderr!.on("data", (chunk: Buffer) => (err += chunk.toString()))
    child.on("exit", (code) => {
      if (code !== 0) return reject(new Error(`${contestant} failed (exit ${code}):\n${err}`))
      const line = out.trim().split("\n").pop() ?? ""
      resolve((JSON.parse(line) as { readonly results: ReadonlyArray<Measured> }).results)
    })
  })

// ---------------------------------------------------------------------------------------------------------------
// Runs

const key = (server: string, contestant: string, path: string, concurrency: number) =>
  `${server}/${contestant}/${path}/c${concurrency}`
const measured = new Map<string, Array<Measured>>()
const rotate = <A>(xs: ReadonlyArray<A>, by: number): ReadonlyArray<A> => xs.map((_, i) => xs[(i + by) % xs.length]!)

const loadAtStart = os.loadavg()
const started = new Date()
log()
log(
  `peers: ${CONTESTANTS.join(", ")} against ${SERVERS.join(" and ")} server(s); ${fmt(REQUESTS)} requests per ` +
    `path and concurrency (${CONCURRENCY.join(", ")}) after ${fmt(WARMUP)} untimed; ${RUNS} run(s), alternating`
)
log(`  load average at start: ${loadAtStart.map((l) => l.toFixed(2)).join(" ")}, node ${process.version}`)
for (let run = 0; run < RUNS; run++) {
  for (const contestant of rotate(CONTESTANTS, run)) {
    for (const server of rotate(SERVERS, run)) {
      const { child, baseUrl } = await startServer(server)
      const results = await runClient(contestant, baseUrl, child.pid!).finally(() => stop(child))
      for (const r of results) {
        const k = key(server, contestant, r.path, r.concurrency)
        measured.set(k, [...(measured.get(k) ?? []), r])
      }
      log(
        `  run ${run + 1} ${server.padEnd(7)} ${contestant.padEnd(21)} ` +
          results.map((r) =>
            `${r.path === "placeOrder" ? "place" : "open"}/c${r.concurrency} ${
              fmt(r.requestsPerSecond).padStart(6)
            }/s ${r.clientCpuMicrosPerRequest.toFixed(0).padStart(4)} µs`
          ).join("  ")
      )
    }
  }
}
const loadAtEnd = os.loadavg()

// ---------------------------------------------------------------------------------------------------------------
// Report: medians over runs; ratios are per run, against the raw baseline (or a peer) of the same run and server,
// then the median of those. Both ratios read "higher is better": req/s over the other's req/s, and the other's CPU
// per request over this one's.

const medianOf = (xs: ReadonlyArray<number>) => median(xs)
const pairedRatio = (
  mine: ReadonlyArray<Measured>,
  theirs: ReadonlyArray<Measured> | undefined,
  pick: (m: Measured, t: Measured) => number
): number | undefined =>
  theirs === undefined ? undefined : medianOf(mine.map((m, i) => pick(m, theirs[i] ?? theirs[0]!)))
const throughputRatio = (m: Measured, t: Measured) => m.requestsPerSecond / t.requestsPerSecond
const cpuRatio = (m: Measured, t: Measured) => t.clientCpuMicrosPerRequest / m.clientCpuMicrosPerRequest

const rows = SERVERS.flatMap((server) =>
  CONCURRENCY.flatMap((concurrency) =>
    PATHS.flatMap((path) =>
      CONTESTANTS.map((contestant) => {
        const runs = measured.get(key(server, contestant, path, concurrency))!
        const raw = measured.get(key(server, "raw", path, concurrency))
        const serverCpu = runs.map((r) => r.serverCpuMicrosPerRequest).filter((x): x is number => x !== undefined)
        return {
          server,
          contestant,
          path,
          concurrency,
          requestsPerSecond: medianOf(runs.map((r) => r.requestsPerSecond)),
          clientCpuMicrosPerRequest: medianOf(runs.map((r) => r.clientCpuMicrosPerRequest)),
          serverCpuMicrosPerRequest: serverCpu.length === 0 ? undefined : medianOf(serverCpu),
          throughputOfRaw: pairedRatio(runs, raw, throughputRatio),
          cpuOfRaw: pairedRatio(runs, raw, cpuRatio),
          distinctOrderIds: runs[0]!.check.distinctOrderIds,
          sampleOrderId: runs[0]!.check.sampleOrderId,
          runs: runs.map((r) => ({
            requestsPerSecond: Math.round(r.requestsPerSecond),
            clientCpuMicrosPerRequest: Math.round(r.clientCpuMicrosPerRequest * 10) / 10,
            serverCpuMicrosPerRequest: r.serverCpuMicrosPerRequest === undefined
              ? undefined
              : Math.round(r.serverCpuMicrosPerRequest * 10) / 10
          }))
        }
      })
    )
  )
)

const ratio = (x: number | undefined) => x === undefined ? "–" : `${x.toFixed(2)}×`
for (const server of SERVERS) {
  log()
  log(`server: ${serverLabels[server]}; medians of ${RUNS} run(s) of ${fmt(REQUESTS)} requests`)
  log(
    "| path | in flight | contestant | req/s | × raw | client CPU µs/req | × raw (CPU) | server CPU µs/req |"
  )
  log("| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: |")
  for (const row of rows.filter((r) => r.server === server)) {
    log(
      `| ${row.path} | ${row.concurrency} | ${labels[row.contestant]} | ${fmt(row.requestsPerSecond)} | ` +
        `${ratio(row.throughputOfRaw)} | ${row.clientCpuMicrosPerRequest.toFixed(1)} | ${ratio(row.cpuOfRaw)} | ` +
        `${row.serverCpuMicrosPerRequest === undefined ? "–" : row.serverCpuMicrosPerRequest.toFixed(0)} |`
    )
  }
}

// Whether each client hands the caller the exact 64-bit orderId: on the sandbox every placed order has its own id,
// so a client that rounds them through a JS number sees far fewer distinct ids than orders.
if (SERVERS.includes("sandbox")) {
  log()
  log(`orderIds on the sandbox (${fmt(REQUESTS)} orders placed per timed batch, each with its own 19-digit id):`)
  for (const contestant of CONTESTANTS) {
    const row = rows.find((r) =>
      r.server === "sandbox" && r.contestant === contestant && r.path === "placeOrder" && r.concurrency === 1
    )!
    log(
      `  ${contestant.padEnd(21)} ${fmt(row.distinctOrderIds)} distinct ids, e.g. ${row.sampleOrderId}` +
        (row.distinctOrderIds === REQUESTS ? " (exact)" : " (rounded through a JS number)")
    )
  }
}

// Targets (issue #5): spotkit >= 0.8x the raw baseline and >= 3x each peer, in req/s and in client CPU per request.
const targets = SERVERS.flatMap((server) =>
  CONCURRENCY.flatMap((concurrency) =>
    PATHS.map((path) => {
      const mine = measured.get(key(server, "spotkit", path, concurrency))
      if (mine === undefined) return undefined
      const raw = measured.get(key(server, "raw", path, concurrency))
      const peers = Object.fromEntries(PEERS.map((peer) => {
        const theirs = measured.get(key(server, peer, path, concurrency))
        return [peer, {
          throughput: pairedRatio(mine, theirs, throughputRatio),
          cpu: pairedRatio(mine, theirs, cpuRatio)
        }]
      }))
      return {
        server,
        path,
        concurrency,
        ofRaw: { throughput: pairedRatio(mine, raw, throughputRatio), cpu: pairedRatio(mine, raw, cpuRatio) },
        ofPeers: peers
      }
    }).filter((t) => t !== undefined)
  )
)
if (targets.length > 0) {
  log()
  log(`targets (issue #5): spotkit >= ${TARGETS.ofRaw}× the raw baseline and >= ${TARGETS.ofEachPeer}× each peer`)
  const judge = (x: number | undefined, bound: number) =>
    x === undefined ? "–" : `${x.toFixed(2)}× ${x >= bound ? "met" : "MISSED"}`
  for (const t of targets) {
    log(
      `  ${t.server.padEnd(7)} ${t.path.padEnd(10)} c${String(t.concurrency).padEnd(2)} of raw: req/s ` +
        `${judge(t.ofRaw.throughput, TARGETS.ofRaw)}, CPU ${judge(t.ofRaw.cpu, TARGETS.ofRaw)}` +
        Object.entries(t.ofPeers).map(([peer, r]) =>
          `; of ${peer}: req/s ${judge(r.throughput, TARGETS.ofEachPeer)}, CPU ${judge(r.cpu, TARGETS.ofEachPeer)}`
        ).join("")
    )
  }
}
if (targets.length > 0) {
  log()
  log(
    `targets (issue #26): spotkit's client CPU >= ${TARGETS_26.cpuOfRaw}× the raw baseline's, and >= ` +
      `${TARGETS_26.placeOrderCpuOfCcxt}× ccxt's for placeOrder`
  )
  const judge = (x: number | undefined, bound: number) =>
    x === undefined ? "–" : `${x.toFixed(2)}× ${x >= bound ? "met" : "MISSED"}`
  for (const t of targets) {
    const ccxt = t.ofPeers["ccxt"]
    log(
      `  ${t.server.padEnd(7)} ${t.path.padEnd(10)} c${String(t.concurrency).padEnd(2)} CPU of raw ` +
        judge(t.ofRaw.cpu, TARGETS_26.cpuOfRaw) +
        (t.path === "placeOrder" && ccxt !== undefined
          ? `; CPU of ccxt ${judge(ccxt.cpu, TARGETS_26.placeOrderCpuOfCcxt)}`
          : "")
    )
  }
}
log()
log(`load average at end: ${loadAtEnd.map((l) => l.toFixed(2)).join(" ")}`)

const date = started.toISOString()
const file = writeResult("peers", {
  benchmark: "peers",
  date,
  machine: { ...machine, loadAverageAtStart: loadAtStart, loadAverageAtEnd: loadAtEnd },
  method: {
    requests: REQUESTS,
    warmup: WARMUP,
    runs: RUNS,
    concurrency: CONCURRENCY,
    servers: Object.fromEntries(SERVERS.map((s) => [s, serverLabels[s]])),
    contestants: Object.fromEntries(CONTESTANTS.map((c) => [c, labels[c]])),
    timing: "each run: a fresh server process and a fresh client process per contestant and server; the " +
      "client warms up every (path, concurrency) pair, then times each once; contestants and servers alternate, " +
      "rotating who goes first",
    requestsPerSecond: "requests / wall time of the batch",
    clientCpuMicrosPerRequest: "process.cpuUsage() of the client process over the batch (all its threads) / " +
      "requests",
    serverCpuMicrosPerRequest: "utime + stime of the server process from /proc over the batch / requests " +
      "(10 ms ticks)",
    ratios: "per run against the raw baseline (or a peer) of the same run and server, then the median; " +
      "higher is better: req/s ÷ theirs, and their CPU per request ÷ ours"
  },
  results: rows,
  targets: { ...TARGETS, issue26: TARGETS_26, measured: targets }
})
log(`wrote ${fileURLToPath(file)}`)
