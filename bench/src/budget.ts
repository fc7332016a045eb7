// The shared-budget benchmark (issue #15): many processes on one API key against the sandbox with the venue's rate
// limits on (its default model: 500 per 10 s per user and per address, 10 per second on placing and cancelling), each
// process a SpotClient built from the environment as the CLI builds it (`budget/worker.ts`), half of them exporting
// bills, half placing and cancelling orders, all from the same instant for S seconds (default 60).
// For 1, 3 and 8 processes, with SPOTKIT_REDIS_URL set (one budget shared through a redis-server started here) and
// without (each process its own budget), it reports per run: processes that completed without a failed call, the
// 429s the venue sent, and the share of the user's budget used (the UID weight the venue admitted within the S
// seconds, over 500 per 10 s).
//
// Then two runs of the built CLI as a new user runs it: two `spotkit bills export` one right after the other (the
// second must wait out the window of the first, not fail), without and with Redis; and the cost of one acquisition
// (acquire and settle) through Redis against the in-memory store, in µs, in one process.
//
// Prints tables and writes bench/results/budget-<date>.json. Targets are printed, never asserted; with --quick (CI)
// the runs are 8 s long with 1 and 3 processes, and a run that goes wrong (a process that failed with Redis, a 429
// with Redis) fails the benchmark.
//
//   node --conditions=@spotkit/source src/budget.ts [--quick] [--budget-seconds S]
import { RateLimitStore, Venue } from "@spotkit/core"
import * as NodeSpotClient from "@spotkit/node/NodeSpotClient"
import { TestExchange } from "@spotkit/testkit"
import { Context, Effect, Layer } from "effect"
import { type ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import * as os from "node:os"
import { join } from "node:path"
import { performance } from "node:perf_hooks"
import { fileURLToPath } from "node:url"
import { args, fmt, log, machine, option, quick, writeResult } from "./cli.ts"
import { aliceEnv, type Running, startSandbox } from "./sandbox.ts"

const SECONDS = option("budget-seconds", quick ? 8 : 60)
const fleetsAt = args.indexOf("--budget-fleets")
const FLEETS = fleetsAt >= 0 ? args[fleetsAt + 1]!.split(",").map(Number) : quick ? [1, 3] : [1, 3, 8]
const onlyShared = args.includes("--budget-redis-only")
// Only the fleets (no CLI runs, no acquisition timing): for looking into one fleet.
const fleetsOnly = args.includes("--budget-fleets-only")
const ACQUISITIONS = option("budget-acquisitions", quick ? 2_000 : 20_000)
const TARGETS = { share: 0.95, rateLimited: 0 }

const root = fileURLToPath(new URL("../../", import.meta.url))
const worker = fileURLToPath(new URL("budget/worker.ts", import.meta.url))
const cli = join(root, "packages/node/dist/bin/spotkit.js")
const problems: Array<string> = []

log()
log(
  `budget: processes on one key against the sandbox's default rate limits, ${SECONDS} s per run, ${
    FLEETS.join(", ")
  } processes, with and without Redis`
)

// ---------------------------------------------------------------------------------------------------------------
// redis-server on a free loopback port (Debian's package, provisioned by scripts/redis.mjs when missing)

const freePort = (): Promise<number> =>
  new Promise((resolve) => {
    const server = createServer()
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0))
    })
  })

spawnSync(process.execPath, [new URL("../../scripts/redis.mjs", import.meta.url).pathname], { stdio: "inherit" })
const hasRedis = spawnSync("redis-server", ["--version"]).status === 0
let redis: { readonly url: string; readonly port: number; readonly child: ChildProcess } | undefined
const redisDir = mkdtempSync(join(os.tmpdir(), "spotkit-bench-redis-"))
if (hasRedis) {
  const port = await freePort()
  const child = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--dir", redisDir, "--save", "", "--appendonly", "no"],
    { stdio: ["ignore", "pipe", "ignore"] }
  )
  await new Promise<void>((resolve, reject) => {
    let output = ""
    child.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString()
      if (output.includes("Ready to accept connections")) resolve()
    })
    child.once("exit", (code) => reject(new Error(`redis-server exited ${code}: ${output}`)))
  })
  child.stdout!.resume()
  redis = { url: `redis://127.0.0.1:${port}`, port, child }
  log(`  redis-server ${redis.url}`)
} else {
  log("  redis-server not found (apt-get install redis-server): the runs with Redis are skipped")
}
process.on("exit", () => {
  redis?.child.kill("SIGTERM")
  rmSync(redisDir, { recursive: true, force: true })
})
const flushRedis = () => {
  if (redis !== undefined) execFileSync("redis-cli", ["-p", String(redis.port), "FLUSHALL"])
}

// ---------------------------------------------------------------------------------------------------------------
// The sandbox in this process, with the venue's default limits

const sandboxOptions = (bills: number): TestExchange.Options => ({
  ...TestExchange.demo({ seed: 1, bills }),
  requestLogSize: 200_000
})

const envFor = (running: Running, shared: boolean): Record<string, string> =>
  aliceEnv(running, shared && redis !== undefined ? { SPOTKIT_REDIS_URL: redis.url } : {})

interface Exited {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
  readonly endedAt: number
}

const run = (args: ReadonlyArray<string>, env: Record<string, string>): Promise<Exited> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env, stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (text: string) => (stdout += text))
    child.stderr.setEncoding("utf8").on("data", (text: string) => (stderr += text))
    child.on("error", reject)
    child.on("exit", (code) => resolve({ code, stdout, stderr, endedAt: Date.now() }))
  })

// The UID weight of each endpoint, by path, as the venue counts it.
const uidWeight = new Map(
  Object.values(Venue.endpoints).map((e) => [e.path, e.weight.uid ?? 0] as const)
)
const pathOf = (path: string) => path.split("?")[0]!

/**
 * What the venue admitted in the S seconds from its first admitted request (the processes run a little longer), the
 * weight of each 10 s window of them, and the 429s it sent.
 */
const venueFigures = async (running: Running, from: number) => {
  const records = await Effect.runPromise(running.exchange.requests)
  const first = records.find((r) => r.status === 200)?.time ?? from
  const until = first + SECONDS * 1000
  const admitted = records.filter((r) => r.status === 200 && r.time >= first && r.time < until)
  const weightOf = (r: { readonly path: string }) => uidWeight.get(pathOf(r.path)) ?? 0
  const weight = admitted.reduce((sum, r) => sum + weightOf(r), 0)
  const windowMillis = Venue.budgets.uid.windowMillis
  const allowed = Venue.budgets.uid.limit * Math.ceil((until - first) / windowMillis)
  const windows = Array.from(
    { length: Math.ceil(SECONDS * 1000 / windowMillis) },
    (_, i) =>
      admitted.filter((r) => r.time >= first + i * windowMillis && r.time < first + (i + 1) * windowMillis)
        .reduce((sum, r) => sum + weightOf(r), 0)
  )
  return {
    firstAdmittedAfterStartMs: first - from,
    requests: admitted.length,
    weight,
    allowed,
    share: weight / allowed,
    windows,
    rateLimited429: records.filter((r) => r.status === 429).length,
    byEndpoint: Object.fromEntries(
      [...new Set(admitted.map((r) => pathOf(r.path)))].map((p) => [
        [...Object.values(Venue.endpoints)].find((e) => e.path === p)?.name ?? p,
        admitted.filter((r) => pathOf(r.path) === p).length
      ])
    )
  }
}

// ---------------------------------------------------------------------------------------------------------------
// 1. Fleets of processes for S seconds

interface FleetRun {
  readonly processes: number
  readonly redis: boolean
  readonly modes: ReadonlyArray<string>
  readonly completed: number
  readonly failedCalls: Record<string, number>
  readonly rows: number
  readonly calls: number
  /** Calls of each process (requests: pages or orders), in the order of `modes`. */
  readonly perProcess: ReadonlyArray<number>
  readonly venue: Awaited<ReturnType<typeof venueFigures>>
}
const fleets: Array<FleetRun> = []

for (const processes of FLEETS) {
  for (const shared of redis === undefined ? [false] : onlyShared ? [true] : [false, true]) {
    flushRedis()
    const running = await startSandbox(sandboxOptions(200_000))
    // Every process starts at `from` (after Node has started them all) and stops at `until`, a little more than S
    // seconds later: the S seconds measured begin with the venue's first answer.
    const from = Date.now() + 4_000 + 1_000 * processes
    const until = from + SECONDS * 1000 + 3_000
    const modes = Array.from({ length: processes }, (_, i) => i % 2 === 0 ? "export" : "trade")
    const exits = await Promise.all(
      modes.map((mode) =>
        run(
          ["--conditions=@spotkit/source", worker, "--mode", mode, "--from", String(from), "--until", String(until)],
          envFor(running, shared)
        )
      )
    )
    const venue = await venueFigures(running, from)
    await running.close()
    const reports = exits.map((e) => {
      try {
        return JSON.parse(e.stdout.trim().split("\n").at(-1) ?? "") as {
          calls: number
          rows: number
          failures: Record<string, number>
        }
      } catch {
        return { calls: 0, rows: 0, failures: { [`exit ${e.code}: ${e.stderr.trim().slice(0, 200)}`]: 1 } }
      }
    })
    const failedCalls: Record<string, number> = {}
    for (const r of reports) {
      for (const [tag, count] of Object.entries(r.failures)) failedCalls[tag] = (failedCalls[tag] ?? 0) + count
    }
    const result: FleetRun = {
      processes,
      redis: shared,
      modes,
      completed: exits.filter((e) => e.code === 0).length,
      failedCalls,
      rows: reports.reduce((sum, r) => sum + r.rows, 0),
      calls: reports.reduce((sum, r) => sum + r.calls, 0),
      perProcess: reports.map((r) => r.calls),
      venue
    }
    fleets.push(result)
    log(
      `  ${processes} process(es), ${shared ? "Redis   " : "no Redis"}: completed ${result.completed}/${processes}, ` +
        `429 answers ${venue.rateLimited429}, budget used ${(venue.share * 100).toFixed(1)} % ` +
        `(${fmt(venue.weight)} of ${fmt(venue.allowed)}), failed calls ${JSON.stringify(failedCalls)}, ` +
        `admitted ${JSON.stringify(venue.byEndpoint)}, by window ${venue.windows.join(" ")}, first answer ` +
        `${fmt(venue.firstAdmittedAfterStartMs)} ms after the start`
    )
    if (shared && (result.completed !== processes || venue.rateLimited429 !== 0)) {
      problems.push(`${processes} processes with Redis: ${result.completed} completed, ${venue.rateLimited429} 429s`)
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// 2. The built CLI: an export right after another one

log()
log("export right after export: two `spotkit bills export` of 9,000 bills, the second started as the first ends")
const build = fleetsOnly ? undefined : spawnSync(
  process.execPath,
  [join(root, "node_modules/typescript/bin/tsc"), "-b", "packages/node/tsconfig.build.json"],
  { cwd: root, stdio: "inherit" }
)
if (build !== undefined && build.status !== 0) process.exit(build.status ?? 1)
const outDir = mkdtempSync(join(os.tmpdir(), "spotkit-bench-budget-"))
process.on("exit", () => rmSync(outDir, { recursive: true, force: true }))
const backToBack: Array<Record<string, unknown>> = []
for (const shared of fleetsOnly ? [] : redis === undefined ? [false] : [false, true]) {
  flushRedis()
  // 9,000 bills (and alice's two deposits) are 91 pages of weight 5: 455 of the 500 in the window.
  const running = await startSandbox(sandboxOptions(9_000))
  const env = envFor(running, shared)
  const started = performance.now()
  const first = await run([cli, "bills", "export", "--out", join(outDir, "first.csv")], env)
  const second = await run([cli, "bills", "export", "--out", join(outDir, "second.csv")], env)
  const wallMs = performance.now() - started
  const records = await Effect.runPromise(running.exchange.requests)
  await running.close()
  const entry = {
    redis: shared,
    firstExit: first.code,
    secondExit: second.code,
    secondStderr: second.stderr.trim(),
    rateLimited429: records.filter((r) => r.status === 429).length,
    wallMs: Math.round(wallMs),
    secondMs: Math.round(second.endedAt - first.endedAt)
  }
  backToBack.push(entry)
  log(
    `  ${shared ? "Redis   " : "no Redis"}: exit codes ${first.code} and ${second.code}, 429 answers ` +
      `${entry.rateLimited429}, the second took ${fmt(entry.secondMs / 1000, 1)} s`
  )
  if (first.code !== 0 || second.code !== 0) problems.push(`export after export (Redis ${shared}) failed`)
}

// ---------------------------------------------------------------------------------------------------------------
// 3. The cost of one acquisition: Redis against memory

log()
log(`one acquisition (acquire + settle of a bills request's budgets), ${fmt(ACQUISITIONS)} in a row, no waiting`)
const acquisition: RateLimitStore.Acquisition = {
  endpoint: undefined,
  shared: [
    { key: "uid:bench", limit: 1e12, windowMillis: 10_025, weight: 5 },
    { key: "ip:default", limit: 1e12, windowMillis: 10_025, weight: 5 }
  ],
  leaseMillis: 15_000
}
const timeStore = (store: RateLimitStore.Service) =>
  Effect.runPromise(Effect.gen(function*() {
    for (let i = 0; i < 200; i++) yield* Effect.flatMap(store.acquire(acquisition), (p) => p.settle)
    const start = performance.now()
    for (let i = 0; i < ACQUISITIONS; i++) yield* Effect.flatMap(store.acquire(acquisition), (p) => p.settle)
    return ((performance.now() - start) * 1000) / ACQUISITIONS
  }))
const memoryMicros = fleetsOnly ? 0 : await timeStore(await Effect.runPromise(RateLimitStore.makeMemory))
let redisMicros: number | undefined
if (redis !== undefined && !fleetsOnly) {
  flushRedis()
  // A short window keeps the sorted sets small, as a venue's 10 s window would at the venue's rate.
  redisMicros = await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const context = yield* Layer.build(NodeSpotClient.layerRedisStore({ url: redis!.url }))
    return yield* Effect.promise(() => timeStore(Context.get(context, RateLimitStore.RateLimitStore)))
  })))
}
log(
  `  memory ${fmt(memoryMicros, 2)} µs, Redis ${redisMicros === undefined ? "skipped" : `${fmt(redisMicros, 1)} µs`}` +
    " per acquisition"
)

// ---------------------------------------------------------------------------------------------------------------
// Report

log()
log("| processes | budget | completed | 429 answers | budget used (UID weight admitted / allowed) | failed calls |")
log("| ---: | --- | ---: | ---: | ---: | --- |")
for (const f of fleets) {
  log(
    `| ${f.processes} | ${
      f.redis ? "shared (Redis)" : "per process"
    } | ${f.completed}/${f.processes} | ${f.venue.rateLimited429} | ${(f.venue.share * 100).toFixed(1)} % (${
      fmt(f.venue.weight)
    } / ${fmt(f.venue.allowed)}) | ${
      Object.keys(f.failedCalls).length === 0 ? "none" : JSON.stringify(f.failedCalls)
    } |`
  )
}
const shared = fleets.filter((f) => f.redis)
log()
log("targets (issue #15), with Redis:")
for (const f of shared) {
  log(
    `  ${f.processes} processes: every one completes ${f.completed === f.processes ? "met" : "MISSED"}, ` +
      `no 429 ${f.venue.rateLimited429 === TARGETS.rateLimited ? "met" : "MISSED"}, >= 95 % of the budget ${
        f.venue.share >= TARGETS.share ? "met" : "MISSED"
      } (${(f.venue.share * 100).toFixed(1)} %)`
  )
}
for (const problem of problems) log(`PROBLEM: ${problem}`)

const date = new Date().toISOString()
const file = writeResult("budget", {
  benchmark: "budget",
  date,
  machine: { ...machine, loadAverageAtEnd: os.loadavg() },
  method: {
    seconds: SECONDS,
    workloads: "processes alternate: export (bills, 100 per page), trade (a limit buy, then its cancel)",
    budgets: Venue.budgets,
    share: "UID weight the venue admitted in the S seconds from its first answer / (500 × ceil(S / 10 s))",
    redis: redis?.url ?? "none"
  },
  fleets,
  exportAfterExport: backToBack,
  acquisitionMicros: { memory: memoryMicros, redis: redisMicros, acquisitions: ACQUISITIONS }
})
log()
log(`wrote ${file.pathname}`)
process.exit(quick && problems.length > 0 ? 1 : 0)
