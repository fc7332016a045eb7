// Consecutive measured windows of one (path, in flight) pair of one contestant in one process, the client CPU per
// request of each (issue #26: the peers window's fixed cost). Before each window: `gc` a full GC, `gcwarm` a full
// GC and then the warm-up again (as src/peers/client.ts does), `nogc` nothing. With MARK=1 it prints WINDOW, TIMED
// and END lines, so that `--trace-opt --trace-deopt` output can be split by window
// (bench/results/ab-26/count-opt.sh).
//
//   node --expose-gc --conditions=@spotkit/source src/peers/windows.ts <contestant> <baseUrl> <window> <windows> \
//     <warmup> <placeOrder|openOrders> <in flight> [gc|gcwarm|nogc]
import { performance } from "node:perf_hooks"
import { contestants } from "./contestants.ts"
import type { PathKey } from "./shared.ts"

const [key, baseUrl, windowArg, windowsArg, warmupArg, pathArg, concurrencyArg, mode = "nogc"] = process.argv.slice(2)
const contestant = contestants.find((c) => c.key === key)
if (contestant === undefined || baseUrl === undefined) throw new Error("usage: windows.ts <contestant> <baseUrl> ...")
const size = Number(windowArg)
const warmup = Number(warmupArg)
const concurrency = Number(concurrencyArg)
const path: PathKey = pathArg === "openOrders" ? "openOrders" : "placeOrder"
const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined)
const mark = (line: string) => {
  if (process.env["MARK"] !== undefined) process.stdout.write(line + "\n")
}

const runner = await contestant.make(baseUrl)
await runner.run(path, warmup, concurrency)
const figures: Array<string> = []
for (let i = 0; i < Number(windowsArg); i++) {
  mark(`WINDOW ${i}`)
  if (mode === "gc" || mode === "gcwarm") gc()
  if (mode === "gcwarm") await runner.run(path, warmup, concurrency)
  mark(`TIMED ${i}`)
  const cpu0 = process.cpuUsage()
  const t0 = performance.now()
  await runner.run(path, size, concurrency)
  const ms = performance.now() - t0
  const cpu = process.cpuUsage(cpu0)
  mark(`END ${i}`)
  figures.push(`${((cpu.user + cpu.system) / size).toFixed(1)}/${ms.toFixed(0)}ms`)
}
process.stdout.write(
  `${key} ${path}@${concurrency} window ${size} ${mode}: ${figures.join(" ")}\n`,
  () => process.exit(0)
)
