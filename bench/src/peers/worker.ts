// One process of one contestant of the paired client benchmark (bench/src/paired.ts), kept alive for a whole set: it
// warms up on every (path, in flight) pair it is given, prints READY, then times one window per line it reads on stdin
// ("<path> <in flight> <requests>") and answers each with one JSON line: the window's wall time, this process's CPU
// time over it (`process.cpuUsage()`: every thread), and the CPU it used since the end of its last window (or of the
// warm-up): what a window's work left for later (a collection, a compilation) and the reading of the line, which the
// benchmark reports apart. An empty line ends the process, after a last JSON line: the CPU it used since its last
// window. By default nothing is forced between windows: each window pays the collections its own allocations cause,
// as a long-lived program does. With `gc`, each window follows a full GC and the pair's warm-up again, as bench:peers
// times its batches (bench/src/peers/client.ts). A window whose answers are not all right, or a line that is not a
// window, ends the process with an error.
//
//   node --expose-gc --conditions=@spotkit/source src/peers/worker.ts <contestant>[#tag] <baseUrl> <warmup> \
//     <path@inFlight,...> [gc|nogc]
import { performance } from "node:perf_hooks"
import { createInterface } from "node:readline"
import { contestants, measurementOnly } from "./contestants.ts"
import type { PathKey } from "./shared.ts"

const usage = "usage: worker.ts <contestant>[#tag] <baseUrl> <warmup> <path@inFlight,...> [gc|nogc]"
const [key = "", baseUrl, warmupArg = "", pairsArg = "", mode = "nogc"] = process.argv.slice(2)
// "spotkit#2" is another process of "spotkit".
const contestant = [...contestants, ...measurementOnly].find((c) => c.key === key.split("#")[0])
const warmup = Number(warmupArg)
if (contestant === undefined || baseUrl === undefined || !Number.isSafeInteger(warmup) || warmup < 0) {
  throw new Error(usage)
}
if (mode !== "gc" && mode !== "nogc") throw new Error(usage)
const gc = (globalThis as { gc?: () => void }).gc
if (mode === "gc" && gc === undefined) throw new Error("worker.ts gc needs node --expose-gc")

// "<path>@<in flight>" or "<path> <in flight> <requests>": the path, and the positive integers.
const parse = (parts: ReadonlyArray<string>, count: number): { path: PathKey; numbers: Array<number> } => {
  const [path, ...rest] = parts
  const numbers = rest.map(Number)
  if (
    (path !== "placeOrder" && path !== "openOrders") || numbers.length !== count ||
    !numbers.every((n) => Number.isSafeInteger(n) && n > 0)
  ) throw new Error(`worker.ts ${key}: not a pair or a window: "${parts.join(" ")}"`)
  return { path, numbers }
}

const runner = await contestant.make(baseUrl)
for (const pair of pairsArg.split(",")) {
  const { numbers: [inFlight], path } = parse(pair.split("@"), 1)
  await runner.run(path, warmup, inFlight!)
}
const cpuNow = () => {
  const { system, user } = process.cpuUsage()
  return user + system
}
let lastEnd = cpuNow()
process.stdout.write("READY\n")

let ended = false
for await (const line of createInterface({ input: process.stdin })) {
  if (line.trim() === "") {
    ended = true
    process.stdout.write(JSON.stringify({ afterMicros: cpuNow() - lastEnd }) + "\n", () => process.exit(0))
    break
  }
  const { numbers: [inFlight, n], path } = parse(line.trim().split(" "), 2)
  if (mode === "gc") {
    gc!()
    await runner.run(path, warmup, inFlight!)
  }
  const cpu0 = cpuNow()
  const t0 = performance.now()
  const check = await runner.run(path, n!, inFlight!)
  const ms = performance.now() - t0
  const cpu1 = cpuNow()
  if (check.ok !== n) throw new Error(`${key} ${path}: ${check.ok} of ${n} answers were right`)
  // With `gc`, the forced GC and the warm-up again are not the window's spill: they count in neither.
  process.stdout.write(
    JSON.stringify({ ms, cpuMicros: cpu1 - cpu0, beforeMicros: mode === "gc" ? 0 : cpu0 - lastEnd }) + "\n"
  )
  lastEnd = cpu1
}
// stdin closed without the empty line: the benchmark went away.
if (!ended) process.exit(1)
