// The client benchmark's ratios measured in pairs close in time (issue #26): every contestant's process stays alive
// for a whole set, and their timed windows alternate, so that the windows compared ran seconds apart on the same
// machine state. bench:peers times each contestant once per run in a fresh process, minutes apart, so a drift of the
// machine between two contestants lands in their ratio (one run's ratio to ccxt ranged from 1.12x to 1.81x).
//
// Per set: a fresh canned server (bench/src/peers/serverRaw.ts) and a fresh process per contestant
// (bench/src/peers/worker.ts), each warmed up on every pair, one after the other in a shuffled order, then one
// untimed window each per pair, in a shuffled order (the process started first has sat idle the longest). Then for
// every (path, in flight) pair, `--paired-rounds` rounds: in each, every process times one window of `--paired-window`
// requests, one at a time (the others wait, idle). A window's cost can depend on its place in the round (the last one
// timed read about 1.2 % dearer) and on what ran just before it (processes of one client share the node binary's code
// in the caches), so the orders are drawn to spread both alike over every process: by default in blocks of rounds,
// counted over the sets, that follow a Williams design under a shuffled naming (paired/stats.ts `schedule`: in each
// whole block every process holds every place, and follows every other, equally often); `--paired-orders mirrored`
// (the eleventh pass's runs a and b) and `shuffled` (every round shuffled afresh, as before) are kept to repeat older
// runs. A rotation would keep each process behind the same one. The seed is `--paired-seed` or the start time, and
// the result file records it with every round's order. Nothing is forced between windows: each pays the collections
// its own allocations cause (`--paired-gc`: a full GC and the warm-up again before each, bench:peers' way).
//
// A client may run as two processes ("spotkit#2" is a second process of spotkit): by default spotkit and ccxt both
// do, so that a client's figure is not one process's draw of JIT decisions (two identical processes differ by 20 %
// and more over a whole set), each has a twin to follow in the order, and each pair of twins is an A/A control:
// their ratio should read 1.00x. The statistics, per (path, in flight) pair:
// - a client's CPU per request: its processes' CPU over every window ÷ the requests (a mean, so the windows that
//   caught a major GC count in full), per set and over every set;
// - the ratio to spotkit: the other client's CPU per request over spotkit's, per set and over every set (the line the
//   targets read) with a bootstrap 95 % interval (the sets resampled; a percentile bootstrap of few sets is too
//   narrow, so it is printed from 8 sets on; a line within a few percent of a target needs many sets to be told apart
//   from it: `--paired-sets 24 --paired-rounds 1 --paired-window 20000 --paired-pairs placeOrder@1`, about 25
//   minutes), and, as a cross-check, the median of the per-round ratios;
// - the CPU each process used between its windows (what a window left for later, the reading of the next line), per
//   timed request: the windows do not count it, so it is printed to show that it is small.
// Prints the tables and writes bench/results/paired-<date>.json.
//
// A change to the client is measured against the code before it with `--paired-baseline <dir>`: `<dir>` is another
// checkout of this repository, installed (a `git worktree` of the commit before, with `pnpm install`; a relative
// path is read from where the command was typed), and a process named "<contestant>@base" (e.g. "spotkit@base",
// "spotkit@base#2") runs that checkout's worker, with its contestants (bench/src/peers: the requests, the client's
// options), so a change there is part of what is measured. It is a client of its own in the tables, so that its
// ratio to spotkit reads how much the change saves (above 1.00x: the change is cheaper). The run records both
// commits and the files of packages/ and bench/src that differ from them.
//
//   node --expose-gc --conditions=@spotkit/source src/paired.ts [--quick] [--paired-sets N] [--paired-rounds N]
//     [--paired-window N] [--paired-warmup N] [--paired-seed N] [--paired-gc]
//     [--paired-orders balanced|mirrored|shuffled]
//     [--paired-contestants spotkit,spotkit#2,ccxt,ccxt#2,raw]
//     [--paired-pairs placeOrder@1,openOrders@1,placeOrder@16,openOrders@16] [--paired-baseline <dir>]
// Contestants: those of bench:peers (floor, bitget-api ... too), each once or with "#<tag>" for more processes.
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { existsSync } from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"
import { args, log, machine, median, option, quick, stop, writeResult } from "./cli.ts"
import {
  baseOf,
  blockLength,
  bootstrap95,
  clientOf,
  mulberry32,
  type Orders,
  pairsOf,
  perRequest as perRequestOf,
  placeCounts,
  processesOf,
  schedule,
  shuffled
} from "./paired/stats.ts"

const SETS = option("paired-sets", quick ? 1 : 6)
// 10 rounds: with the default 5 processes, each set is one whole block of balanced orders.
const ROUNDS = option("paired-rounds", quick ? 2 : 10)
const WINDOW = option("paired-window", quick ? 200 : 2_000)
const WARMUP = option("paired-warmup", quick ? 300 : 10_000)
const started = new Date()
const SEED = option("paired-seed", started.getTime() % 1_000_000_000 || 1)
const GC = args.includes("--paired-gc")
// Issue #26's targets: client CPU >= 0.8x the raw baseline's, >= 1.4x ccxt's for placeOrder.
const TARGETS = { cpuOfRaw: 0.8, placeOrderCpuOfCcxt: 1.4 }

const listOption = (name: string, fallback: string): ReadonlyArray<string> => {
  const at = args.indexOf(`--${name}`)
  return (at < 0 ? fallback : args[at + 1] ?? "").split(",").filter((s) => s.length > 0)
}
const PROCESSES = processesOf(listOption("paired-contestants", "spotkit,spotkit#2,ccxt,ccxt#2,raw"))
// The baseline's checkout, resolved from where the command was typed (pnpm runs the script in bench/).
const BASELINE = (() => {
  const at = args.indexOf("--paired-baseline")
  const named = PROCESSES.some((p) => baseOf(p) !== undefined)
  if (at < 0) {
    if (named) throw new Error("a process \"<contestant>@base\" needs --paired-baseline <dir>")
    return undefined
  }
  const dir = args[at + 1]
  if (dir === undefined || dir === "" || dir.startsWith("--")) throw new Error("--paired-baseline takes a directory")
  if (!named) throw new Error("--paired-baseline: no process \"<contestant>@base\" in --paired-contestants")
  const resolved = path.resolve(process.env["INIT_CWD"] ?? process.cwd(), dir)
  if (!existsSync(path.join(resolved, "bench/src/peers/worker.ts"))) {
    throw new Error(`--paired-baseline: ${resolved} is not a checkout of this repository with bench:paired's worker`)
  }
  return resolved
})()
const CLIENTS = [...new Set(PROCESSES.map(clientOf))]
const PAIRS = pairsOf(listOption("paired-pairs", "placeOrder@1,openOrders@1,placeOrder@16,openOrders@16"))
// How the rounds are ordered (paired/stats.ts `schedule`): "balanced" by default.
const ORDERS = ((): Orders => {
  const at = args.indexOf("--paired-orders")
  const named = at < 0 ? "balanced" : args[at + 1]
  if (named !== "balanced" && named !== "mirrored" && named !== "shuffled") {
    throw new Error("--paired-orders takes balanced, mirrored or shuffled")
  }
  return named
})()

const script = (name: string) => fileURLToPath(new URL(name, import.meta.url))

// A child process that prints lines; `next()` answers its next line, or fails once the process has ended.
interface Lines {
  readonly child: ChildProcess
  readonly next: () => Promise<string>
  readonly send: (line: string) => void
}
const start = (name: string, file: string, rest: ReadonlyArray<string>): Lines => {
  const child = spawn(process.execPath, [...process.execArgv, file, ...rest], { stdio: ["pipe", "pipe", "pipe"] })
  let err = ""
  child.stderr!.on("data", (chunk: Buffer) => (err += chunk.toString()))
  // A write to a process that has died fails on its own; `next()` says why.
  child.stdin!.on("error", () => undefined)
  const waiting: Array<{ resolve: (line: string) => void; reject: (e: Error) => void }> = []
  const ready: Array<string> = []
  let closed: Error | undefined
  createInterface({ input: child.stdout! }).on("line", (line) => {
    const w = waiting.shift()
    if (w === undefined) ready.push(line)
    else w.resolve(line)
  })
  // "close": after the process has exited and its output (stderr too) has been read.
  child.on("close", (code, signal) => {
    closed = new Error(`${name} ended (${code ?? signal}): ${err.trim().slice(-2_000)}`)
    for (const w of waiting.splice(0)) w.reject(closed)
  })
  return {
    child,
    send: (line) => void child.stdin!.write(line + "\n"),
    next: () =>
      ready.length > 0
        ? Promise.resolve(ready.shift()!)
        : closed !== undefined
        ? Promise.reject(closed)
        : new Promise((resolve, reject) => waiting.push({ resolve, reject }))
  }
}

// The shuffles' generator, seeded so that a run can be repeated; the bootstrap goes on drawing from it.
const random = mulberry32(SEED)

// One set's measurements: per pair, per process, the CPU µs of each window in round order; the order of each round;
// per process, the CPU µs used outside its windows after the warm-up; the order the processes were started in, and
// per pair the order of the untimed windows.
interface SetResult {
  readonly windows: Record<string, Record<string, Array<number>>>
  readonly orders: Record<string, Array<ReadonlyArray<string>>>
  readonly between: Record<string, number>
  readonly starts: Array<string>
  readonly untimed: Record<string, ReadonlyArray<string>>
}
const sets: Array<SetResult> = []
// Per pair, the orders of its rounds over every set.
const orderOf = new Map(PAIRS.map((pair) => [pair.label, schedule(ORDERS, PROCESSES, random)]))

// The commit measured ("-dirty": with changes not committed, docs and results included), here or in the baseline's
// checkout, and the files of the code measured (packages/, bench/src/) that differ from it.
const git = (dir: string, command: ReadonlyArray<string>): string | undefined => {
  try {
    return execFileSync("git", ["-C", dir, ...command], { encoding: "utf8" }).trim()
  } catch {
    return undefined
  }
}
const commitOf = (dir: string) => git(dir, ["describe", "--always", "--dirty"]) ?? "unknown"
const codeChangesOf = (dir: string) =>
  (git(dir, ["status", "--porcelain", "--", ":/packages", ":/bench/src"]) ?? "").split("\n").filter((l) => l !== "")
const commit = commitOf(".")
const codeChanges = codeChangesOf(".")
const baselineCommit = BASELINE === undefined ? undefined : commitOf(BASELINE)
const baselineCodeChanges = BASELINE === undefined ? [] : codeChangesOf(BASELINE)
const loadAtStart = os.loadavg()
log()
log(
  `paired: ${PROCESSES.join(", ")} against the canned server; ${SETS} set(s) of fresh processes, ${ROUNDS} ` +
    `rounds of one ${WINDOW}-request window each per pair (${PAIRS.map((p) => p.label).join(", ")}), ` +
    `after ${WARMUP} untimed per pair; ${ORDERS} orders, seed ${SEED}${
      GC ? "; a full GC and the warm-up before each window" : ""
    }`
)
log(
  `  commit ${commit}${
    baselineCommit === undefined ? "" : ` (baseline ${BASELINE}: ${baselineCommit})`
  }, load average at start: ${loadAtStart.map((l) => l.toFixed(2)).join(" ")}, node ${process.version}`
)
for (const [where, changes] of [["here", codeChanges], ["in the baseline", baselineCodeChanges]] as const) {
  if (changes.length > 0) log(`  not committed ${where}: ${changes.join(", ")}`)
}
const BLOCK = blockLength(PROCESSES.length)
if (ORDERS === "balanced" && (SETS * ROUNDS) % BLOCK !== 0) {
  log(
    `  note: ${SETS * ROUNDS} rounds per pair are not whole blocks of ${BLOCK} (${PROCESSES.length} processes): the ` +
      `last ${(SETS * ROUNDS) % BLOCK} are balanced only on average`
  )
}
for (let set = 0; set < SETS; set++) {
  const workers = new Map<string, Lines>()
  let server: Lines | undefined
  const result: SetResult = {
    windows: {},
    orders: {},
    between: Object.fromEntries(PROCESSES.map((p) => [p, 0])),
    starts: [],
    untimed: {}
  }
  try {
    server = start("the canned server", script("peers/serverRaw.ts"), [])
    const baseUrl = (/^READY (\S+)$/.exec(await server.next()) ?? [])[1]
    if (baseUrl === undefined) throw new Error("the canned server did not say READY")
    // Started and warmed up one after the other, in an order of their own for every set.
    const starts = shuffled(PROCESSES, random)
    result.starts.push(...starts)
    for (const p of starts) {
      const base = baseOf(p)
      const worker = base === undefined
        ? script("peers/worker.ts")
        : path.join(BASELINE!, "bench/src/peers/worker.ts")
      const w = start(p, worker, [
        base ?? p,
        baseUrl,
        String(WARMUP),
        PAIRS.map((pair) => pair.label).join(","),
        GC ? "gc" : "nogc"
      ])
      workers.set(p, w)
      if ((await w.next()) !== "READY") throw new Error(`${p} did not say READY`)
    }
    // One untimed window per pair and process, in a shuffled order, before the timed rounds: the process started
    // first has sat idle the longest (an A/A control read 0.93-0.96x where the first of two twins had started before
    // the second in most sets), and this brings every process back to running before any window is timed.
    for (const pair of PAIRS) {
      const untimed = shuffled(PROCESSES, random)
      result.untimed[pair.label] = untimed
      for (const p of untimed) {
        const w = workers.get(p)!
        w.send(`${pair.path} ${pair.inFlight} ${WINDOW}`)
        const answer = JSON.parse(await w.next()) as { readonly beforeMicros: number }
        result.between[p]! += answer.beforeMicros
      }
    }
    for (const pair of PAIRS) {
      const byProcess: Record<string, Array<number>> = Object.fromEntries(PROCESSES.map((p) => [p, []]))
      const orders: Array<ReadonlyArray<string>> = []
      for (let round = 0; round < ROUNDS; round++) {
        const order = orderOf.get(pair.label)!()
        orders.push(order)
        for (const p of order) {
          const w = workers.get(p)!
          w.send(`${pair.path} ${pair.inFlight} ${WINDOW}`)
          const answer = JSON.parse(await w.next()) as { readonly cpuMicros: number; readonly beforeMicros: number }
          byProcess[p]!.push(answer.cpuMicros)
          result.between[p]! += answer.beforeMicros
        }
      }
      result.windows[pair.label] = byProcess
      result.orders[pair.label] = orders
      log(
        `  set ${set + 1} ${pair.label.padEnd(14)} ` +
          CLIENTS.map((c) => `${c} ${perRequest([result], pair.label, c).toFixed(1)} µs`).join("  ")
      )
    }
    for (const [p, w] of workers) {
      w.send("")
      result.between[p]! += (JSON.parse(await w.next()) as { readonly afterMicros: number }).afterMicros
    }
  } finally {
    for (const w of workers.values()) w.child.stdin!.end()
    await Promise.all([...workers.values()].map((w) => stop(w.child)))
    if (server !== undefined) await stop(server.child)
  }
  sets.push(result)
}
const loadAtEnd = os.loadavg()

// ---------------------------------------------------------------------------------------------------------------
// Statistics

// A client's (or one process's) CPU µs per request over the windows of `pair` in `of`: a mean over its processes.
function perRequest(of: ReadonlyArray<SetResult>, pair: string, client: string, proc?: string): number {
  const picked = PROCESSES.filter((p) => proc === undefined ? clientOf(p) === client : p === proc)
  return perRequestOf(of, pair, picked, WINDOW)
}
// Per round, the other client's mean CPU per request over spotkit's (the cross-check).
const roundRatios = (s: SetResult, pair: string, other: string): Array<number> => {
  const mean = (client: string, round: number) => {
    const picked = PROCESSES.filter((p) => clientOf(p) === client)
    return picked.reduce((sum, p) => sum + s.windows[pair]![p]![round]!, 0) / picked.length
  }
  return Array.from({ length: ROUNDS }, (_, round) => mean(other, round) / mean("spotkit", round))
}
// A bootstrap 95 % interval of a ratio over every window (stats.ts `bootstrap95`): `top` and `bottom` give one set's
// total of each side (its mean CPU per request: every set times the same number of windows of a process).
const RESAMPLES = 10_000
const interval = (top: (s: SetResult) => number, bottom: (s: SetResult) => number): readonly [number, number] =>
  bootstrap95(sets.map(top), sets.map(bottom), random, RESAMPLES)
const others = CLIENTS.filter((c) => c !== "spotkit")
const rows = PAIRS.flatMap((pair) =>
  others.map((other) => ({
    pair: pair.label,
    path: pair.path,
    other,
    ratio: perRequest(sets, pair.label, other) / perRequest(sets, pair.label, "spotkit"),
    interval95: interval(
      (s) => perRequest([s], pair.label, other),
      (s) => perRequest([s], pair.label, "spotkit")
    ),
    perSet: sets.map((s) => perRequest([s], pair.label, other) / perRequest([s], pair.label, "spotkit")),
    medianOfRounds: median(sets.flatMap((s) => roundRatios(s, pair.label, other)))
  }))
)
const cpuRows = PAIRS.flatMap((pair) =>
  PROCESSES.map((p) => ({
    pair: pair.label,
    process: p,
    clientCpuMicrosPerRequest: perRequest(sets, pair.label, clientOf(p), p),
    perSet: sets.map((s) => perRequest([s], pair.label, clientOf(p), p))
  }))
)
// The A/A controls: for each client with more than one process, each other process's CPU over its first one's.
const controls = PAIRS.flatMap((pair) =>
  CLIENTS.flatMap((c) => {
    const [first, ...rest] = PROCESSES.filter((p) => clientOf(p) === c)
    return rest.map((p) => ({
      pair: pair.label,
      control: `${p} ÷ ${first}`,
      ratio: perRequest(sets, pair.label, c, p) / perRequest(sets, pair.label, c, first),
      interval95: interval((s) => perRequest([s], pair.label, c, p), (s) => perRequest([s], pair.label, c, first)),
      perSet: sets.map((s) => perRequest([s], pair.label, c, p) / perRequest([s], pair.label, c, first))
    }))
  })
)
const timedRequests = PAIRS.length * ROUNDS * WINDOW
const betweenRows = PROCESSES.map((p) => ({
  process: p,
  microsPerTimedRequest: median(sets.map((s) => s.between[p]! / timedRequests))
}))

const x = (r: number) => `${r.toFixed(3)}×`
log()
log(`client CPU µs per request over every window (${SETS} × ${ROUNDS} of ${WINDOW} per process and pair)`)
log("| pair | process | CPU µs/req | per set |")
log("| --- | --- | ---: | --- |")
for (const r of cpuRows) {
  log(
    `| ${r.pair} | ${r.process} | ${r.clientCpuMicrosPerRequest.toFixed(1)} | ${
      r.perSet.map((v) => v.toFixed(1)).join(", ")
    } |`
  )
}
log()
// A percentile bootstrap of fewer sets than this is too narrow to print (it understates the spread of few samples).
const FEWEST_SETS = 8
const within = ([low, high]: readonly [number, number]) =>
  SETS < FEWEST_SETS ? `(${FEWEST_SETS}+ sets)` : `${low.toFixed(3)}–${high.toFixed(3)}`
log(
  "their CPU per request ÷ spotkit's (higher is better for spotkit): over every window, with a bootstrap 95 % " +
    "interval (sets resampled); per set; median of rounds"
)
log("| pair | against | over every window | 95 % | per set | median of rounds |")
log("| --- | --- | ---: | ---: | --- | ---: |")
// A ratio's cells in the tables: over every window, its interval, per set.
const ratioCells = (
  r: { readonly ratio: number; readonly interval95: readonly [number, number]; perSet: Array<number> }
) => `${x(r.ratio)} | ${within(r.interval95)} | ${r.perSet.map((v) => v.toFixed(2)).join(", ")}`
for (const r of rows) log(`| ${r.pair} | ${r.other} | ${ratioCells(r)} | ${x(r.medianOfRounds)} |`)
if (controls.length > 0) {
  log()
  log("A/A controls: a second process of the same client over its first (1.00× when the benchmark is fair)")
  log("| pair | control | over every window | 95 % | per set |")
  log("| --- | --- | ---: | ---: | --- |")
  for (const r of controls) log(`| ${r.pair} | ${r.control} | ${ratioCells(r)} |`)
}
log()
log(
  "CPU between windows, per timed request (median of sets; not in the figures above): " +
    betweenRows.map((b) => `${b.process} ${b.microsPerTimedRequest.toFixed(2)} µs`).join(", ")
)
// Per client, how often its windows were timed at each place of their round (the last reads about 1.2 % dearer), its
// processes together: under balanced orders every process holds every place equally often in each whole block.
for (const pair of PAIRS) {
  const counts = placeCounts(sets.flatMap((s) => s.orders[pair.label]!))
  const byClient = CLIENTS.map((c) => {
    const procs = PROCESSES.filter((p) => clientOf(p) === c)
    const places = PROCESSES.map((_, place) => procs.reduce((sum, p) => sum + (counts[p]?.[place] ?? 0), 0))
    return `${c} ${places.join("/")}`
  })
  log(`timed at each place (first to last), ${pair.label}: ${byClient.join(", ")}`)
}
const judged = rows.flatMap((r) => {
  const bound = r.other === "raw"
    ? TARGETS.cpuOfRaw
    : r.other === "ccxt" && r.path === "placeOrder"
    ? TARGETS.placeOrderCpuOfCcxt
    : undefined
  if (bound === undefined) return []
  const setsMet = r.perSet.filter((v) => v >= bound).length
  return [{
    pair: r.pair,
    of: r.other,
    ratio: r.ratio,
    interval95: r.interval95,
    bound,
    met: r.ratio >= bound,
    setsMet
  }]
})
if (judged.length > 0) {
  log()
  log(
    `targets (issue #26): client CPU >= ${TARGETS.cpuOfRaw}× the raw baseline's, >= ${TARGETS.placeOrderCpuOfCcxt}× ` +
      "ccxt's for placeOrder (over every window)"
  )
  for (const j of judged) {
    log(
      `  ${j.pair.padEnd(14)} CPU of ${j.of.padEnd(4)} ${x(j.ratio)} ${j.met ? "met" : "MISSED"} ` +
        `(95 % ${within(j.interval95)}; ${j.setsMet} of ${SETS} sets at or above ${j.bound}×)`
    )
  }
}
log()
log(`load average at end: ${loadAtEnd.map((l) => l.toFixed(2)).join(" ")}`)

const file = writeResult("paired", {
  benchmark: "paired",
  date: started.toISOString(),
  commit,
  codeChanges,
  baseline: BASELINE === undefined
    ? undefined
    : { dir: BASELINE, commit: baselineCommit, codeChanges: baselineCodeChanges },
  machine: { ...machine, loadAverageAtStart: loadAtStart, loadAverageAtEnd: loadAtEnd },
  method: {
    sets: SETS,
    rounds: ROUNDS,
    window: WINDOW,
    warmup: WARMUP,
    seed: SEED,
    gcBeforeEachWindow: GC,
    orders: ORDERS,
    processes: PROCESSES,
    pairs: PAIRS.map((p) => p.label),
    timing: "per set: a fresh canned server and a fresh process per contestant, each warmed up on every pair, in a " +
      "shuffled order, then one untimed window each per pair in a shuffled order; then per pair, rounds in " +
      "which every process times one window, one at a time, in the order `orders` names (counted over the sets): " +
      "\"balanced\", blocks of rounds following a Williams design, its rows and the processes' naming shuffled per " +
      "block; \"mirrored\", a shuffle then its reverse; \"shuffled\", a shuffle every round (mulberry32 " +
      "from the seed; the start, untimed and timed orders are in `sets`); a process \"<contestant>@base\" runs the " +
      "worker and contestants of the checkout in `baseline`",
    clientCpuMicrosPerRequest: "process.cpuUsage() of the process over each window, summed over a client's " +
      "processes and windows, / the requests",
    ratios: "the other client's CPU per request ÷ spotkit's, over every window of every set (and per set); the " +
      "median of the per-round ratios of the clients' means as a cross-check",
    interval95: `a percentile bootstrap: the sets drawn with replacement ${RESAMPLES} times (the generator going on ` +
      "from the shuffles'), the ratio of the drawn sets' totals; the 2.5th and 97.5th percentiles (printed from " +
      `${FEWEST_SETS} sets on)`,
    between: "process.cpuUsage() outside the windows after the warm-up (spill-over and line reading), per timed request"
  },
  cpu: cpuRows,
  ratios: rows,
  controls,
  between: betweenRows,
  sets,
  targets: { ...TARGETS, judged }
})
log(`wrote ${fileURLToPath(file)}`)
