// One timed run of one contestant of the client benchmark (bench/src/peers.ts), in its own process: warms up on
// every (path, concurrency) pair, then times each pair once, each window after a full GC and, after it, the pair's
// warm-up again: a full GC discards optimized code that embeds objects which died (V8's "embedded weak objects
// cleared"), so without the second warm-up each window would pay for re-optimizing the client's code, a fixed cost
// per window that grows with the amount of code a client runs. Wall time gives req/s; this process's CPU time
// (`process.cpuUsage()`: every thread, libuv's pool and GC helpers included) gives the client's CPU per request; the
// server's CPU time over the same interval is read from /proc. Prints one JSON line.
//
//   node --expose-gc --conditions=@spotkit/source src/peers/client.ts <contestant> <baseUrl> <serverPid> \
//     <requests> <warmup> <concurrency,...>
import { readFileSync } from "node:fs"
import { performance } from "node:perf_hooks"
import { contestants, measurementOnly } from "./contestants.ts"
import type { PathKey } from "./shared.ts"

const [key, baseUrl, serverPid, requestsArg, warmupArg, concurrencyArg] = process.argv.slice(2)
const contestant = [...contestants, ...measurementOnly].find((c) => c.key === key)
if (contestant === undefined || baseUrl === undefined) throw new Error(`usage: client.ts <contestant> <baseUrl> ...`)
const requests = Number(requestsArg)
const warmup = Number(warmupArg)
const concurrencies = (concurrencyArg ?? "1,16").split(",").map(Number)
const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined)

// utime + stime of a process, in µs (Linux; undefined elsewhere).
const ticksPerSecond = 100
const cpuOf = (pid: string | undefined): number | undefined => {
  if (pid === undefined) return undefined
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    return ((Number(fields[11]) + Number(fields[12])) / ticksPerSecond) * 1e6
  } catch {
    return undefined
  }
}

const runner = await contestant.make(baseUrl)
const pairs: Array<{ path: PathKey; concurrency: number }> = []
for (const concurrency of concurrencies) {
  for (const path of ["placeOrder", "openOrders"] as const) pairs.push({ path, concurrency })
}
for (const { concurrency, path } of pairs) await runner.run(path, warmup, concurrency)

const results = []
for (const { concurrency, path } of pairs) {
  gc()
  await runner.run(path, warmup, concurrency)
  const server0 = cpuOf(serverPid)
  const cpu0 = process.cpuUsage()
  const t0 = performance.now()
  const check = await runner.run(path, requests, concurrency)
  const ms = performance.now() - t0
  const cpu = process.cpuUsage(cpu0)
  const server1 = cpuOf(serverPid)
  if (check.ok !== requests) throw new Error(`${key} ${path}: ${check.ok} of ${requests} answers were right`)
  results.push({
    path,
    concurrency,
    requests,
    ms,
    requestsPerSecond: requests / (ms / 1000),
    clientCpuMicrosPerRequest: (cpu.user + cpu.system) / requests,
    serverCpuMicrosPerRequest: server0 === undefined || server1 === undefined
      ? undefined
      : (server1 - server0) / requests,
    check
  })
}
process.stdout.write(JSON.stringify({ contestant: key, results }) + "\n", () => process.exit(0))
