/**
 * The 1M-bill export memory run (issue #4: "a 1M-bill export in a dedicated run stays under 150 MB peak RSS"), not
 * part of the test suite: `pnpm export:memory` from the repository root (a root script: the published package holds no
 * `test/`).
 *
 * Starts the sandbox in this process with a demo exchange whose alice has 1,000,000 funding bills (venue rate limits
 * off), runs the built CLI (`node dist/bin/spotkit.js bills export --out FILE`) as a subprocess, samples the child's
 * `/proc/<pid>/status` (VmHWM, the kernel's peak resident set, and VmRSS) every 50 ms until it exits, checks that the
 * file has a header and one row per bill, and prints one JSON line (also written to
 * `bench/results/export-memory-<date>.json`). Exits 1 when the export fails, the row count is off, or the peak is
 * at or above the target.
 *
 * Options: `--bills N` (default 1000000), `--target-mb N` (default 150).
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Sandbox, TestExchange } from "@spotkit/testkit"
import { Clock, Effect, Fiber, Layer, Schedule, Stream } from "effect"
import { ChildProcess } from "effect/process"
import { createReadStream, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const option = (name: string, fallback: number): number => {
  const at = process.argv.indexOf(name)
  const value = at < 0 ? fallback : Number(process.argv[at + 1])
  if (!Number.isSafeInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer`)
  return value
}

const BILLS = option("--bills", 1_000_000)
const TARGET_MB = option("--target-mb", 150)
const SEED = 1
const cli = fileURLToPath(new URL("../dist/bin/spotkit.js", import.meta.url))
const results = fileURLToPath(new URL("../../../bench/results/", import.meta.url))

/** VmHWM and VmRSS of a process in kB, or undefined once it is gone (or a zombie without memory). */
const memoryOf = (pid: number): { readonly hwm: number; readonly rss: number } | undefined => {
  let status: string
  try {
    status = readFileSync(`/proc/${pid}/status`, "utf8")
  } catch {
    return undefined
  }
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, "m").exec(status)?.[1] ?? NaN)
  const hwm = kb("VmHWM")
  const rss = kb("VmRSS")
  return Number.isFinite(hwm) && Number.isFinite(rss) ? { hwm, rss } : undefined
}

/** Lines of a file (newline characters), counted as it streams. */
const countLines = (path: string) =>
  Effect.promise(() =>
    new Promise<number>((resolve, reject) => {
      let lines = 0
      createReadStream(path)
        .on("data", (chunk) => {
          const buffer = chunk as Buffer
          for (let i = buffer.indexOf(10); i !== -1; i = buffer.indexOf(10, i + 1)) lines++
        })
        .on("end", () => resolve(lines))
        .on("error", reject)
    })
  )

const mb = (kb: number) => Math.round((kb / 1024) * 10) / 10

const program = Effect.gen(function*() {
  const exchange = yield* TestExchange.TestExchange
  const sandbox = yield* Sandbox.Sandbox
  const alice = exchange.accounts[0]!
  const expectedRows = exchange.engine.fundingBillCount(alice.userId)
  const dir = mkdtempSync(join(tmpdir(), "spotkit-export-memory-"))
  yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(dir, { recursive: true, force: true })))
  const out = join(dir, "bills.csv")

  const started = yield* Clock.currentTimeMillis
  const handle = yield* ChildProcess.make(process.execPath, [cli, "bills", "export", "--out", out], {
    env: {
      PATH: process.env.PATH ?? "",
      SPOTKIT_BASE_URL: sandbox.baseUrl,
      SPOTKIT_API_KEY: alice.credentials.apiKey,
      SPOTKIT_SECRET_KEY: alice.credentials.secretKey,
      SPOTKIT_PASSPHRASE: alice.credentials.passphrase,
      SPOTKIT_RATE_LIMIT: "off"
    },
    extendEnv: false
  })
  const stderr = yield* Effect.forkScoped(Stream.mkString(Stream.decodeText(handle.stderr)))
  const samples: Array<{ readonly hwm: number; readonly rss: number }> = []
  const sampler = yield* Effect.forkScoped(
    Effect.sync(() => {
      const sample = memoryOf(handle.pid)
      if (sample !== undefined) samples.push(sample)
    }).pipe(Effect.repeat(Schedule.spaced("50 millis")))
  )
  const exitCode = Number(yield* handle.exitCode)
  const seconds = ((yield* Clock.currentTimeMillis) - started) / 1000
  yield* Fiber.interrupt(sampler)
  const errors = yield* Fiber.join(stderr)

  const lines = exitCode === 0 ? yield* countLines(out) : 0
  const peakKb = Math.max(0, ...samples.map((sample) => sample.hwm))
  const result = {
    benchmark: "export-memory",
    date: new Date().toISOString(),
    node: process.version,
    bills: expectedRows,
    rows: lines - 1,
    exitCode,
    peakRssMB: mb(peakKb),
    maxSampledRssMB: mb(Math.max(0, ...samples.map((sample) => sample.rss))),
    samples: samples.length,
    seconds: Math.round(seconds * 100) / 100,
    rowsPerSecond: Math.round((lines - 1) / seconds),
    targetMB: TARGET_MB
  }
  const line = JSON.stringify(result)
  console.log(line)
  mkdirSync(results, { recursive: true })
  writeFileSync(join(results, `export-memory-${result.date.slice(0, 10)}.json`), JSON.stringify(result, null, 2) + "\n")

  const problems = [
    exitCode === 0 ? undefined : `the export exited ${exitCode}: ${errors.trim()}`,
    lines === expectedRows + 1 ? undefined : `${lines} lines in the file, expected ${expectedRows} rows and a header`,
    samples.length > 0 ? undefined : "no memory sample of the child",
    peakKb / 1024 < TARGET_MB ? undefined : `peak RSS ${mb(peakKb)} MB is not under ${TARGET_MB} MB`
  ].filter((problem) => problem !== undefined)
  for (const problem of problems) console.error(`export:memory: ${problem}`)
  if (problems.length > 0) process.exitCode = 1
})

const SandboxLayer = Sandbox.layer().pipe(
  Layer.provideMerge(TestExchange.layer({ ...TestExchange.demo({ seed: SEED, bills: BILLS }), rateLimits: false }))
)

program.pipe(
  Effect.scoped,
  Effect.provide(Layer.merge(SandboxLayer, NodeServices.layer)),
  NodeRuntime.runMain
)
