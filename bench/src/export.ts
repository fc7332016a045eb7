// The bills export benchmark (issue #5), the real CLI path: the built `spotkit bills export` as a subprocess against
// a sandbox exchange served from this process over loopback HTTP.
//
// 1. Limits off on both sides: N bills (default 1,000,000) to a CSV file, side by side with the raw baseline
//    (`export/baseline.ts`: the same signed requests and keyset paging with node:http + JSON.parse + string
//    concatenation, none of the client's checks), alternating, R runs each. Per run: wall time from spawn to exit
//    (Node's start included), rows/s, peak RSS (the kernel's VmHWM, sampled every 10 ms) and CPU time of the
//    process (all its threads, sampled from /proc). Every file must hold the header and one row per bill, and the
//    CLI's file must be byte for byte the baseline's.
// 2. The venue's default rate limits (its weight model), on in the sandbox and in the client (the CLI's defaults):
//    the export runs for S seconds (default 60) after its first request and is stopped; the sandbox's request log
//    gives the requests it answered in that window and the 429s it sent. The bills budget (500 per 10 s, weight 5)
//    allows 100 requests in any 10 s, so at most 100 × ceil(S / 10) in a window of S seconds that starts with none:
//    the share used is the requests answered divided by that.
//
// Prints a table and writes bench/results/export-<date>.json (export-<date>-quick.json with --quick). Targets are
// printed, never asserted.
//
//   node --conditions=@spotkit/source src/export.ts [--quick] [--export-bills N] [--export-runs N]
//     [--limited-seconds S] [--cli-variants]
//
// --cli-variants adds the CLI's variants to the runs of 1., alternating with the others (their files must be the
// same too): without each V8 flag of its entry (`bin/spotkit.ts`) or all of them, and over node:http (a copy of the
// build whose configuration picks that transport, as the CLI did before issue #26).
import { Venue } from "@spotkit/core"
import { TestExchange } from "@spotkit/testkit"
import { Effect } from "effect"
import { execFileSync, spawn, spawnSync } from "node:child_process"
import { createHash } from "node:crypto"
import { cpSync, createReadStream, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import * as os from "node:os"
import { join } from "node:path"
import { performance } from "node:perf_hooks"
import { fileURLToPath, pathToFileURL } from "node:url"
import { fmt, log, machine as sharedMachine, median, option, quick, writeResult } from "./cli.ts"
import { aliceEnv, type Running, startSandbox } from "./sandbox.ts"

const BILLS = option("export-bills", quick ? 100_000 : 1_000_000)
const RUNS = option("export-runs", quick ? 1 : 3)
const LIMITED_SECONDS = option("limited-seconds", quick ? 10 : 60)
const TARGETS = { rowsPerSecond: 100_000, peakRssMB: 150, share: 0.95, rateLimited: 0 }

const root = fileURLToPath(new URL("../../", import.meta.url))
const cli = join(root, "packages/node/dist/bin/spotkit.js")
const baseline = fileURLToPath(new URL("export/baseline.ts", import.meta.url))

// ---------------------------------------------------------------------------------------------------------------
// The CLI as users run it: built (dist), started by its bin.

log()
log("export: building @spotkit/node (tsc -b) so that the CLI measured is the current source")
const build = spawnSync(
  process.execPath,
  [join(root, "node_modules/typescript/bin/tsc"), "-b", "packages/node/tsconfig.build.json"],
  { cwd: root, stdio: "inherit" }
)
if (build.status !== 0) process.exit(build.status ?? 1)

// ---------------------------------------------------------------------------------------------------------------
// The sandbox, in this process (the measured processes are the CLI and the baseline).

const envFor = (running: Running, rateLimit: boolean): Record<string, string> =>
  aliceEnv(running, rateLimit ? {} : { SPOTKIT_RATE_LIMIT: "off" })

// ---------------------------------------------------------------------------------------------------------------
// A measured subprocess

interface Measured {
  readonly exitCode: number | null
  readonly signal: string | null
  readonly wallMs: number
  readonly peakRssKb: number
  readonly cpuMs: number
  readonly stderr: string
}

// USER_HZ: the unit of utime and stime in /proc/<pid>/stat (100 on Linux).
const TICKS_PER_SECOND = Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim()) || 100

const sample = (pid: number): { readonly hwmKb: number; readonly cpuMs: number } | undefined => {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8")
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    const hwm = Number(/^VmHWM:\s+(\d+) kB$/m.exec(status)?.[1] ?? NaN)
    // Fields after the command (which may hold spaces) in parentheses: utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    const ticks = Number(fields[11]) + Number(fields[12])
    return Number.isFinite(hwm) && Number.isFinite(ticks)
      ? { hwmKb: hwm, cpuMs: (ticks * 1000) / TICKS_PER_SECOND }
      : undefined
  } catch {
    return undefined
  }
}

const measure = (
  args: ReadonlyArray<string>,
  env: Record<string, string>,
  options: { readonly onStart?: (stop: () => void) => void } = {}
): Promise<Measured> =>
  new Promise((resolve, reject) => {
    const started = performance.now()
    const child = spawn(process.execPath, args, { env, stdio: ["ignore", "ignore", "pipe"] })
    let stderr = ""
    child.stderr.setEncoding("utf8").on("data", (text: string) => (stderr += text))
    let peakRssKb = 0
    let cpuMs = 0
    const tick = () => {
      const s = child.pid === undefined ? undefined : sample(child.pid)
      if (s !== undefined) {
        peakRssKb = Math.max(peakRssKb, s.hwmKb)
        cpuMs = Math.max(cpuMs, s.cpuMs)
      }
    }
    const timer = setInterval(tick, 10)
    options.onStart?.(() => child.kill("SIGTERM"))
    child.on("error", reject)
    child.on("exit", (exitCode, signal) => {
      clearInterval(timer)
      resolve({ exitCode, signal, wallMs: performance.now() - started, peakRssKb, cpuMs, stderr })
    })
  })

const fileDigest = (
  path: string
): Promise<{ readonly lines: number; readonly sha256: string; readonly bytes: number }> =>
  new Promise((resolve, reject) => {
    const hash = createHash("sha256")
    let lines = 0
    createReadStream(path)
      .on("data", (chunk) => {
        const buffer = chunk as Buffer
        hash.update(buffer)
        for (let i = buffer.indexOf(10); i !== -1; i = buffer.indexOf(10, i + 1)) lines++
      })
      .on("end", () => resolve({ lines, sha256: hash.digest("hex"), bytes: statSync(path).size }))
      .on("error", reject)
  })

// ---------------------------------------------------------------------------------------------------------------
// Machine

const gitCommit = (() => {
  const result = spawnSync("git", ["rev-parse", "--short", "HEAD"], { cwd: root })
  // Result files of earlier benchmark runs do not change the code measured.
  const dirty = spawnSync("git", ["status", "--porcelain", "--untracked-files=no", "--", ".", ":!bench/results"], {
    cwd: root
  })
  return result.status === 0
    ? result.stdout.toString().trim() + (dirty.stdout.toString().trim() === "" ? "" : " (with uncommitted changes)")
    : "unknown"
})()
const effectVersion = (JSON.parse(
  readFileSync(join(root, "bench/node_modules/effect/package.json"), "utf8")
) as { version: string }).version
const machine = { ...sharedMachine, effect: effectVersion, kernel: os.release(), commit: gitCommit }
const loadAtStart = os.loadavg()
log(
  `machine: ${machine.cpu}, nproc ${machine.nproc}, ${machine.memoryGiB} GiB, node ${machine.node}, effect ${machine.effect}, commit ${machine.commit}`
)
log(`load average at start: ${loadAtStart.map((l) => l.toFixed(2)).join(" ")}`)

const dir = mkdtempSync(join(os.tmpdir(), "spotkit-bench-export-"))
process.on("exit", () => rmSync(dir, { recursive: true, force: true }))

// ---------------------------------------------------------------------------------------------------------------
// 1. Limits off: the CLI against the raw baseline

interface Contestant {
  readonly key: string
  readonly label: string
  readonly args: (out: string) => ReadonlyArray<string>
}

// The CLI's variants (--cli-variants): entries like its own (`bin/spotkit.ts`: V8 flags set, then the command
// imported) without one of its flags or without any, and a copy of the build over node:http.
const variants = (): ReadonlyArray<Contestant> => {
  const main = pathToFileURL(join(root, "packages/node/dist/internal/main.js")).href
  const entry = (name: string, flags: ReadonlyArray<string>) => {
    const file = join(dir, `${name}.mjs`)
    writeFileSync(
      file,
      `import { setFlagsFromString } from "node:v8"\n${
        flags.map((flag) => `setFlagsFromString(${JSON.stringify(flag)})\n`).join("")
      }void import(${JSON.stringify(main)})\n`
    )
    return file
  }
  const nodeHttp = join(root, "packages/node/dist-node-http")
  rmSync(nodeHttp, { recursive: true, force: true })
  cpSync(join(root, "packages/node/dist"), nodeHttp, { recursive: true })
  process.on("exit", () => rmSync(nodeHttp, { recursive: true, force: true }))
  const shared = join(nodeHttp, "internal/cli/shared.js")
  const text = readFileSync(shared, "utf8")
  // The transport set right after the environment's options, whatever else the CLI passes after them.
  const patched = text.replace(
    "NodeSpotClient.layer({ ...options, ",
    "NodeSpotClient.layer({ ...options, transport: \"node:http\", "
  )
  if (patched === text) throw new Error("cannot make the node:http variant: shared.js changed")
  writeFileSync(shared, patched)
  const command = (out: string) => ["bills", "export", "--out", out]
  const semiSpace = "--semi-space-growth-factor=1"
  const noMaglev = "--no-maglev"
  const oldGrowth = "--heap-growing-percent=30"
  return [
    {
      key: "cli-node-http",
      label: "the CLI over node:http, its entry's flags (before #26)",
      args: (out) => [join(nodeHttp, "bin/spotkit.js"), ...command(out)]
    },
    {
      key: "cli-maglev-on",
      label: `the CLI without ${noMaglev} (Maglev on)`,
      args: (out) => [entry("maglev-on", [semiSpace, oldGrowth]), ...command(out)]
    },
    {
      key: "cli-young-grows",
      label: `the CLI without ${semiSpace} (V8's young generation growing)`,
      args: (out) => [entry("young-grows", [noMaglev, oldGrowth]), ...command(out)]
    },
    {
      key: "cli-old-grows",
      label: `the CLI without ${oldGrowth} (V8's old generation growing)`,
      args: (out) => [entry("old-grows", [semiSpace, noMaglev]), ...command(out)]
    },
    {
      key: "cli-no-flags",
      label: "the CLI without any of its flags",
      args: (out) => [entry("no-flags", []), ...command(out)]
    }
  ]
}

const contestants: ReadonlyArray<Contestant> = [
  {
    key: "spotkit-cli",
    label: "spotkit bills export (the built CLI: SpotClient over undici, limits off)",
    args: (out) => [cli, "bills", "export", "--out", out]
  },
  {
    key: "raw-baseline",
    label: "raw baseline: node:http + JSON.parse + string CSV, same requests and paging",
    args: (out) => [baseline, "--out", out]
  },
  ...(process.argv.includes("--cli-variants") ? variants() : [])
]

log()
log(`export, limits off: ${fmt(BILLS)} bills (+2 demo deposits), ${RUNS} run(s) per contestant, alternating`)
const t = performance.now()
const unlimited = await startSandbox({
  ...TestExchange.demo({ seed: 1, bills: BILLS }),
  rateLimits: false,
  requestLogSize: 0
})
log(`  sandbox ${unlimited.baseUrl}: seeded in ${fmt(performance.now() - t)} ms`)
const expectedRows = unlimited.exchange.engine.fundingBillCount(unlimited.exchange.accounts[0]!.userId)

interface Run {
  readonly run: number
  readonly wallMs: number
  readonly cpuMs: number
  readonly peakRssMB: number
  readonly rows: number
  readonly rowsPerSecond: number
  readonly sha256: string
}
const runs = new Map<Contestant["key"], Array<Run>>(contestants.map((c) => [c.key, []]))
const problems: Array<string> = []
for (let run = 0; run < RUNS; run++) {
  for (let j = 0; j < contestants.length; j++) {
    const contestant = contestants[(run + j) % contestants.length]!
    const out = join(dir, `${contestant.key}-${run}.csv`)
    const measured = await measure(contestant.args(out), envFor(unlimited, false))
    const digest = measured.exitCode === 0 ? await fileDigest(out) : { lines: 0, sha256: "", bytes: 0 }
    rmSync(out, { force: true })
    const rows = digest.lines - 1
    if (measured.exitCode !== 0) {
      problems.push(`${contestant.key} run ${run + 1} exited ${measured.exitCode}: ${measured.stderr.trim()}`)
    }
    if (rows !== expectedRows) problems.push(`${contestant.key} run ${run + 1}: ${rows} rows, expected ${expectedRows}`)
    const result: Run = {
      run: run + 1,
      wallMs: Math.round(measured.wallMs),
      cpuMs: Math.round(measured.cpuMs),
      peakRssMB: Math.round((measured.peakRssKb / 1024) * 10) / 10,
      rows,
      rowsPerSecond: Math.round(rows / (measured.wallMs / 1000)),
      sha256: digest.sha256
    }
    runs.get(contestant.key)!.push(result)
    log(
      `  run ${run + 1} ${contestant.key.padEnd(14)} ${fmt(result.wallMs).padStart(7)} ms  ${
        fmt(result.rowsPerSecond).padStart(9)
      } rows/s  peak RSS ${fmt(result.peakRssMB, 1).padStart(6)} MB  CPU ${fmt(result.cpuMs).padStart(6)} ms`
    )
  }
}
await unlimited.close()
const digests = new Set([...runs.values()].flat().map((r) => r.sha256))
const identical = digests.size === 1 && !digests.has("")
if (!identical) problems.push("the files differ between runs or contestants")

const summary = contestants.map((c) => {
  const rs = runs.get(c.key)!
  const wallMs = median(rs.map((r) => r.wallMs))
  return {
    key: c.key,
    label: c.label,
    medianWallMs: wallMs,
    medianRowsPerSecond: Math.round(expectedRows / (wallMs / 1000)),
    medianPeakRssMB: median(rs.map((r) => r.peakRssMB)),
    maxPeakRssMB: Math.max(...rs.map((r) => r.peakRssMB)),
    medianCpuMs: median(rs.map((r) => r.cpuMs)),
    rowsPerCpuSecond: Math.round(expectedRows / (median(rs.map((r) => r.cpuMs)) / 1000)),
    rowsPerSecondRange: [Math.min(...rs.map((r) => r.rowsPerSecond)), Math.max(...rs.map((r) => r.rowsPerSecond))],
    runs: rs
  }
})
const ours = summary.find((s) => s.key === "spotkit-cli")!
const raw = summary.find((s) => s.key === "raw-baseline")!

// ---------------------------------------------------------------------------------------------------------------
// 2. The venue's default rate limits, on both sides

log()
log(`export under the default rate limits (sandbox and client): ${LIMITED_SECONDS} s after the first request`)
const limited = await startSandbox({
  ...TestExchange.demo({ seed: 1, bills: Math.max(20_000, LIMITED_SECONDS * 1_500) }),
  requestLogSize: 100_000
})
const limitedOut = join(dir, "limited.csv")
let firstRequestAt = 0
const limitedRun = await measure([cli, "bills", "export", "--out", limitedOut], envFor(limited, true), {
  onStart: (stop) => {
    // Stops the CLI the given seconds (and a little) after the sandbox received its first request.
    const poll = setInterval(() => {
      Effect.runPromise(limited.exchange.requests).then((records) => {
        if (records.length === 0) return
        clearInterval(poll)
        firstRequestAt = performance.now()
        setTimeout(stop, LIMITED_SECONDS * 1000 + 500)
      }, () => undefined)
    }, 20)
  }
})
const records = (await Effect.runPromise(limited.exchange.requests)).filter((r) =>
  r.path.startsWith("/api/v2/account/fundingBills")
)
await limited.close()
rmSync(limitedOut, { force: true })
// The venue's weight model, the sandbox's default: bills weigh 5 against 500 per 10 s (per user and per address).
const rateLimits = { fundingBills: Venue.budgets.uid, fundingBillsWeight: Venue.endpoints.fundingBills.weight.ip }
const perWindow = rateLimits.fundingBills.limit / rateLimits.fundingBillsWeight
const windowMillis = rateLimits.fundingBills.windowMillis
const start = records[0]?.time ?? 0
const inWindow = records.filter((r) => r.time < start + LIMITED_SECONDS * 1000)
const answered = inWindow.filter((r) => r.status === 200).length
const rejected = records.filter((r) => r.status === 429).length
const allowed = perWindow * Math.ceil((LIMITED_SECONDS * 1000) / windowMillis)
const share = answered / allowed
// When each 10 s window's requests went out: the start of each burst after the first, relative to the first request.
const bursts: Array<number> = []
for (let i = perWindow; i < inWindow.length; i += perWindow) bursts.push(inWindow[i]!.time - start)
const limitedResult = {
  seconds: LIMITED_SECONDS,
  budget: `${rateLimits.fundingBills.limit} per ${windowMillis} ms, weight ${rateLimits.fundingBillsWeight}`,
  requestsPerWindow: perWindow,
  allowed,
  answered,
  share,
  rateLimited429: rejected,
  otherStatuses: inWindow.filter((r) => r.status !== 200 && r.status !== 429).length,
  burstStartsMs: bursts,
  exitCode: limitedRun.exitCode,
  signal: limitedRun.signal,
  stoppedAfterFirstRequestMs: Math.round(performance.now() - firstRequestAt)
}
log(
  `  answered ${answered} of ${allowed} allowed in ${LIMITED_SECONDS} s (${(share * 100).toFixed(1)} %), ` +
    `429 answers: ${rejected}; ` +
    (bursts.length === 0
      ? "no later window began"
      : `later windows began at ${bursts.map((b) => `${fmt(b / 1000, 3)} s`).join(", ")}`)
)
if (limitedRun.exitCode !== 143 && limitedRun.signal !== "SIGTERM") {
  problems.push(`the rate-limited export ended with ${limitedRun.exitCode} before it was stopped: ${limitedRun.stderr}`)
}

// ---------------------------------------------------------------------------------------------------------------
// Report

log()
log(
  "| contestant | median rows/s | rows/s, all runs | median wall ms | median peak RSS MB | median CPU ms | rows per CPU s |"
)
log("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
for (const s of summary) {
  log(
    `| ${s.label} | ${fmt(s.medianRowsPerSecond)} | ${s.runs.map((r) => fmt(r.rowsPerSecond)).join(", ")} | ${
      fmt(s.medianWallMs)
    } | ${fmt(s.medianPeakRssMB, 1)} | ${fmt(s.medianCpuMs)} | ${fmt(s.rowsPerCpuSecond)} |`
  )
}
const ratios = {
  wallTimeVsBaseline: ours.medianWallMs / raw.medianWallMs,
  cpuTimeVsBaseline: ours.medianCpuMs / raw.medianCpuMs,
  peakRssVsBaseline: ours.medianPeakRssMB / raw.medianPeakRssMB
}
log()
log(
  `ratios, CLI / baseline: wall time ${ratios.wallTimeVsBaseline.toFixed(2)}, CPU time ${
    ratios.cpuTimeVsBaseline.toFixed(2)
  }, peak RSS ${ratios.peakRssVsBaseline.toFixed(2)}; files identical: ${identical ? "yes" : "NO"} (${
    fmt(expectedRows)
  } rows each)`
)
const check = (ok: boolean) => ok ? "met" : "MISSED"
const met = {
  rowsPerSecond: ours.medianRowsPerSecond >= TARGETS.rowsPerSecond,
  peakRss: ours.maxPeakRssMB <= TARGETS.peakRssMB,
  share: share >= TARGETS.share,
  rateLimited: rejected === TARGETS.rateLimited
}
log()
log("targets (issue #5):")
log(`  >= ${fmt(TARGETS.rowsPerSecond)} rows/s: ${fmt(ours.medianRowsPerSecond)} (${check(met.rowsPerSecond)})`)
log(`  <= ${TARGETS.peakRssMB} MB peak RSS: ${fmt(ours.maxPeakRssMB, 1)} at most (${check(met.peakRss)})`)
log(`  >= ${TARGETS.share * 100} % of the allowed request rate: ${(share * 100).toFixed(1)} % (${check(met.share)})`)
log(`  ${TARGETS.rateLimited} answers 429: ${rejected} (${check(met.rateLimited)})`)
for (const problem of problems) log(`PROBLEM: ${problem}`)
const loadAtEnd = os.loadavg()
log(`load average at end: ${loadAtEnd.map((l) => l.toFixed(2)).join(" ")}`)

const date = new Date().toISOString()
const file = writeResult("export", {
  benchmark: "export",
  date,
  machine: { ...machine, loadAverageAtStart: loadAtStart, loadAverageAtEnd: loadAtEnd },
  method: {
    bills: expectedRows,
    runs: RUNS,
    wall: "spawn to exit of the process, Node's start included",
    peakRss: "VmHWM of /proc/<pid>/status, sampled every 10 ms",
    cpu: "utime + stime of /proc/<pid>/stat (all threads), sampled every 10 ms",
    limited: "requests the sandbox answered with 200 in the first S seconds after the first request, over " +
      "100 × ceil(S / 10) (the most a sliding window of 100 requests per 10 s admits in S seconds)"
  },
  unlimited: { summary, ratios, identicalFiles: identical, digest: [...digests][0] },
  limited: limitedResult,
  targets: { ...TARGETS, met },
  problems
})
log(`wrote ${fileURLToPath(file)}`)
if (problems.length > 0) process.exitCode = 1
