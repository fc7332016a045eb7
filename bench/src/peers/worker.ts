// One contestant of the paired client benchmark (bench/src/paired.ts), kept alive for the whole run: it warms up on
// every (path, in flight) pair it is given, prints READY, then times one window per line it reads on stdin
// ("<path> <in flight> <requests>") and answers each with one JSON line: the window's wall time and this process's CPU
// time over it (`process.cpuUsage()`: every thread). By default nothing is forced between windows (no GC, no second
// warm-up): each window pays the collections its own allocations cause, as a long-lived program does. With `gc`,
// each window follows a full GC and the pair's warm-up again, as bench:peers times its batches
// (bench/src/peers/client.ts). A window whose answers are not all right ends the process with an error.
//
//   node --expose-gc --conditions=@spotkit/source src/peers/worker.ts <contestant> <baseUrl> <warmup> \
//     <path@inFlight,...> [gc]
import { performance } from "node:perf_hooks"
import { createInterface } from "node:readline"
import { contestants, measurementOnly } from "./contestants.ts"
import type { PathKey } from "./shared.ts"

const [key, baseUrl, warmupArg, pairsArg, mode] = process.argv.slice(2)
const gc = (globalThis as { gc?: () => void }).gc
// "spotkit#2" is another process of "spotkit": a control that should read 1.00x against it.
const contestant = [...contestants, ...measurementOnly].find((c) => c.key === key?.split("#")[0])
if (contestant === undefined || baseUrl === undefined || pairsArg === undefined) {
  throw new Error("usage: worker.ts <contestant> <baseUrl> <warmup> <path@inFlight,...>")
}
const pathOf = (s: string): PathKey => s === "openOrders" ? "openOrders" : "placeOrder"

const runner = await contestant.make(baseUrl)
for (const pair of pairsArg.split(",")) {
  const [path = "", inFlight = "1"] = pair.split("@")
  await runner.run(pathOf(path), Number(warmupArg), Number(inFlight))
}
process.stdout.write("READY\n")

for await (const line of createInterface({ input: process.stdin })) {
  const [path = "", inFlight = "1", requests = "0"] = line.trim().split(" ")
  const n = Number(requests)
  if (mode === "gc") {
    if (gc === undefined) throw new Error("worker.ts gc needs node --expose-gc")
    gc()
    await runner.run(pathOf(path), Number(warmupArg), Number(inFlight))
  }
  const cpu0 = process.cpuUsage()
  const t0 = performance.now()
  const check = await runner.run(pathOf(path), n, Number(inFlight))
  const ms = performance.now() - t0
  const cpu = process.cpuUsage(cpu0)
  if (check.ok !== n) throw new Error(`${key} ${path}: ${check.ok} of ${n} answers were right`)
  process.stdout.write(JSON.stringify({ ms, cpuMicros: cpu.user + cpu.system }) + "\n")
}
process.exit(0)
