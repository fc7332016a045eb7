// The client benchmark's ratios measured in pairs close in time (issue #26): every contestant's process stays alive
// for a whole set, and their timed windows alternate, so that two windows compared ran seconds apart on the same
// machine state. bench:peers times each contestant once per run in a fresh process, minutes apart, so a drift of the
// machine between two contestants lands in their ratio (one run's ratio to ccxt ranged from 1.12x to 1.81x);
// here each window of spotkit is divided by the windows of the others in the same round, and the median is taken
// over many rounds and several sets of fresh processes (a process's JIT decisions are its own, so one set alone
// would measure one draw of them).
//
// Per set: a fresh canned server (bench/src/peers/serverRaw.ts) and a fresh process per contestant
// (bench/src/peers/worker.ts), each warmed up on every pair, one after the other in a shuffled order. Then for every
// (path, in flight) pair, `--paired-rounds` rounds: in each, every contestant times one window of `--paired-window`
// requests, one at a time (the others wait, idle), in an order shuffled afresh for every round from a fixed seed: a
// window's cost can depend on what ran just before it (processes of one client share the node binary's code in the
// caches), and a rotation would keep each contestant behind the same one. Nothing is forced between windows: each
// pays the collections its own allocations cause. Prints the medians and the paired ratios (per set and pooled),
// writes bench/results/paired-<date>.json.
//
//   node --expose-gc --conditions=@spotkit/source src/paired.ts [--quick] [--paired-sets N] [--paired-rounds N]
//     [--paired-window N] [--paired-warmup N] [--paired-contestants spotkit,spotkit#2,ccxt,raw]
//     [--paired-pairs placeOrder@1,openOrders@1,placeOrder@16,openOrders@16] [--paired-gc]
// Contestants: those of bench:peers (floor, bitget-api ... too); a name with "#" and a tag, as the default's spotkit#2,
// is another process of the same client: an A/A control, which reads 1.00x when the benchmark is fair.
import { type ChildProcess, spawn } from "node:child_process"
import * as os from "node:os"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"
import { args, log, machine, median, option, quick, writeResult } from "./cli.ts"

const SETS = option("paired-sets", quick ? 1 : 6)
const ROUNDS = option("paired-rounds", quick ? 2 : 16)
const WINDOW = option("paired-window", quick ? 200 : 2_000)
const WARMUP = option("paired-warmup", quick ? 300 : 10_000)
// `--paired-gc`: every window after a full GC and the pair's warm-up again, as bench:peers times its batches.
const GC = args.includes("--paired-gc")
// Issue #26's targets: client CPU >= 0.8x the raw baseline's, >= 1.4x ccxt's for placeOrder.
const TARGETS = { cpuOfRaw: 0.8, placeOrderCpuOfCcxt: 1.4 }

const listOption = (name: string, fallback: string): ReadonlyArray<string> => {
  const at = args.indexOf(`--${name}`)
  const picked = (at < 0 ? fallback : args[at + 1] ?? "").split(",").filter((s) => s.length > 0)
  if (picked.length === 0) throw new Error(`--${name} takes a comma-separated list`)
  return picked
}
const CONTESTANTS = listOption("paired-contestants", "spotkit,spotkit#2,ccxt,raw")
const PAIRS = listOption("paired-pairs", "placeOrder@1,openOrders@1,placeOrder@16,openOrders@16").map((p) => {
  const [path = "", inFlight = ""] = p.split("@")
  if ((path !== "placeOrder" && path !== "openOrders") || !/^[1-9][0-9]*$/.test(inFlight)) {
    throw new Error(`--paired-pairs: "${p}" is not <placeOrder|openOrders>@<in flight>`)
  }
  return { path, inFlight: Number(inFlight), label: `${path}@${inFlight}` }
})
if (!CONTESTANTS.includes("spotkit")) throw new Error("--paired-contestants must name spotkit")

const script = (name: string) => fileURLToPath(new URL(name, import.meta.url))
const nodeArgs = (file: string, rest: ReadonlyArray<string>) => [...process.execArgv, file, ...rest]

// A child process that prints lines; `next()` answers its next line.
interface Lines {
  readonly child: ChildProcess
  readonly next: () => Promise<string>
}
const start = (file: string, rest: ReadonlyArray<string>): Lines => {
  const child = spawn(process.execPath, nodeArgs(file, rest), { stdio: ["pipe", "pipe", "pipe"] })
  let err = ""
  child.stderr!.on("data", (chunk: Buffer) => (err += chunk.toString()))
  const waiting: Array<{ resolve: (line: string) => void; reject: (e: Error) => void }> = []
  const ready: Array<string> = []
  createInterface({ input: child.stdout! }).on("line", (line) => {
    const w = waiting.shift()
    if (w === undefined) ready.push(line)
    else w.resolve(line)
  })
  child.on("exit", (code) => {
    for (const w of waiting.splice(0)) w.reject(new Error(`${rest[0] ?? file} exited (${code}): ${err}`))
  })
  return {
    child,
    next: () =>
      ready.length > 0
        ? Promise.resolve(ready.shift()!)
        : new Promise((resolve, reject) => waiting.push({ resolve, reject }))
  }
}
const stop = (child: ChildProcess): Promise<void> =>
  new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    child.once("exit", () => resolve())
    child.kill("SIGTERM")
  })

// A seeded generator (mulberry32), so that every run shuffles its rounds the same way.
let seed = 26
const random = () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}
// Fisher-Yates.
const shuffled = <A>(xs: ReadonlyArray<A>): Array<A> => {
  const out = [...xs]
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    ;[out[i], out[j]] = [out[j]!, out[i]!]
  }
  return out
}

// windows[pair][contestant] = CPU µs per request of each window, in round order; sets kept apart.
type Windows = Record<string, Record<string, Array<number>>>
const sets: Array<Windows> = []

const loadAtStart = os.loadavg()
const started = new Date()
log()
log(
  `paired: ${CONTESTANTS.join(", ")} against the canned server; ${SETS} set(s) of fresh processes, ${ROUNDS} ` +
    `rounds of one ${WINDOW}-request window each per pair (${PAIRS.map((p) => p.label).join(", ")}), ` +
    `after ${WARMUP} untimed per pair`
)
log(`  load average at start: ${loadAtStart.map((l) => l.toFixed(2)).join(" ")}, node ${process.version}`)
for (let set = 0; set < SETS; set++) {
  const server = start(script("peers/serverRaw.ts"), [])
  const baseUrl = (/^READY (\S+)$/.exec(await server.next()) ?? [])[1]
  if (baseUrl === undefined) throw new Error("the canned server did not say READY")
  const workers = new Map<string, Lines>()
  const windows: Windows = {}
  try {
    // Started and warmed up one after the other, in an order of their own for every set.
    for (const c of shuffled(CONTESTANTS)) {
      const w = start(script("peers/worker.ts"), [
        c,
        baseUrl,
        String(WARMUP),
        PAIRS.map((p) => p.label).join(","),
        GC ? "gc" : "nogc"
      ])
      workers.set(c, w)
      if ((await w.next()) !== "READY") throw new Error(`${c} did not say READY`)
    }
    for (const pair of PAIRS) {
      const byContestant: Record<string, Array<number>> = Object.fromEntries(CONTESTANTS.map((c) => [c, []]))
      for (let round = 0; round < ROUNDS; round++) {
        for (const c of shuffled(CONTESTANTS)) {
          const w = workers.get(c)!
          w.child.stdin!.write(`${pair.path} ${pair.inFlight} ${WINDOW}\n`)
          const { cpuMicros } = JSON.parse(await w.next()) as { readonly cpuMicros: number }
          byContestant[c]!.push(cpuMicros / WINDOW)
        }
      }
      windows[pair.label] = byContestant
      log(
        `  set ${set + 1} ${pair.label.padEnd(14)} ` +
          CONTESTANTS.map((c) => `${c} ${median(byContestant[c]!).toFixed(1)} µs`).join("  ")
      )
    }
  } finally {
    for (const w of workers.values()) w.child.stdin!.end()
    await Promise.all([...workers.values()].map((w) => stop(w.child)))
    await stop(server.child)
  }
  sets.push(windows)
}
const loadAtEnd = os.loadavg()

// The ratio of each spotkit window to the other contestant's window of the same round (their CPU ÷ spotkit's:
// higher is better).
const ratiosOf = (windows: Windows, pair: string, other: string): Array<number> =>
  windows[pair]![other]!.map((theirs, round) => theirs / windows[pair]!["spotkit"]![round]!)
const quartiles = (xs: ReadonlyArray<number>) => {
  const s = [...xs].sort((a, b) => a - b)
  return { q1: s[Math.floor((s.length - 1) / 4)]!, median: median(s), q3: s[Math.ceil(((s.length - 1) * 3) / 4)]! }
}
const others = CONTESTANTS.filter((c) => c !== "spotkit")
const rows = PAIRS.flatMap((pair) =>
  others.map((other) => {
    const perSet = sets.map((w) => median(ratiosOf(w, pair.label, other)))
    const pooled = quartiles(sets.flatMap((w) => ratiosOf(w, pair.label, other)))
    return { pair: pair.label, path: pair.path, inFlight: pair.inFlight, other, perSet, pooled }
  })
)
const cpuRows = PAIRS.flatMap((pair) =>
  CONTESTANTS.map((c) => ({
    pair: pair.label,
    contestant: c,
    clientCpuMicrosPerRequest: median(sets.flatMap((w) => w[pair.label]![c]!)),
    perSet: sets.map((w) => median(w[pair.label]![c]!))
  }))
)

log()
log(`client CPU µs per request: median of every window (${SETS} × ${ROUNDS} per contestant and pair)`)
log("| pair | contestant | CPU µs/req | per set |")
log("| --- | --- | ---: | --- |")
for (const r of cpuRows) {
  log(
    `| ${r.pair} | ${r.contestant} | ${r.clientCpuMicrosPerRequest.toFixed(1)} | ` +
      `${r.perSet.map((x) => x.toFixed(1)).join(", ")} |`
  )
}
log()
log("their CPU ÷ spotkit's, window by window in the same round (higher is better for spotkit)")
log("| pair | against | median (pooled) | q1 – q3 | median per set |")
log("| --- | --- | ---: | --- | --- |")
for (const r of rows) {
  log(
    `| ${r.pair} | ${r.other} | ${r.pooled.median.toFixed(2)}× | ${r.pooled.q1.toFixed(2)} – ` +
      `${r.pooled.q3.toFixed(2)} | ${r.perSet.map((x) => x.toFixed(2)).join(", ")} |`
  )
}
const judged = rows.flatMap((r) => {
  const bound = r.other === "raw" ? TARGETS.cpuOfRaw : r.other === "ccxt" && r.path === "placeOrder"
    ? TARGETS.placeOrderCpuOfCcxt
    : undefined
  if (bound === undefined) return []
  const setsMet = r.perSet.filter((x) => x >= bound).length
  return [{ pair: r.pair, of: r.other, ratio: r.pooled.median, bound, met: r.pooled.median >= bound, setsMet }]
})
if (judged.length > 0) {
  log()
  log(
    `targets (issue #26): client CPU >= ${TARGETS.cpuOfRaw}× the raw baseline's, >= ${TARGETS.placeOrderCpuOfCcxt}× ` +
      "ccxt's for placeOrder (pooled medians)"
  )
  for (const j of judged) {
    log(
      `  ${j.pair.padEnd(14)} CPU of ${j.of.padEnd(4)} ${j.ratio.toFixed(2)}× ${j.met ? "met" : "MISSED"} ` +
        `(${j.setsMet} of ${SETS} set medians at or above ${j.bound}×)`
    )
  }
}
log()
log(`load average at end: ${loadAtEnd.map((l) => l.toFixed(2)).join(" ")}`)

const file = writeResult("paired", {
  benchmark: "paired",
  date: started.toISOString(),
  machine: { ...machine, loadAverageAtStart: loadAtStart, loadAverageAtEnd: loadAtEnd },
  method: {
    sets: SETS,
    rounds: ROUNDS,
    window: WINDOW,
    warmup: WARMUP,
    gcBeforeEachWindow: GC,
    contestants: CONTESTANTS,
    pairs: PAIRS.map((p) => p.label),
    timing: "per set: a fresh canned server and a fresh process per contestant, each warmed up on every pair; " +
      "then per pair, rounds in which every contestant times one window, one at a time, in an order shuffled " +
      "for every round (mulberry32, seed 26)",
    clientCpuMicrosPerRequest: "process.cpuUsage() of the contestant's process over the window / requests",
    ratios: "per round: the other's CPU per request ÷ spotkit's; median over every round of every set"
  },
  cpu: cpuRows,
  ratios: rows,
  windows: sets,
  targets: { ...TARGETS, judged }
})
log(`wrote ${fileURLToPath(file)}`)
