// The price of the undici transport's HTTP client span, paired in one process: the canned server of the peers
// benchmark (`src/peers/serverRaw.ts`) in a process of its own, and in this one four clients of the peers benchmark's
// contestants (`src/peers/contestants.ts`) run in alternation, ROUNDS rounds of N placeOrder and N openOrders each
// (in flight 1): under a tracing backend with and without the HTTP span, and under Effect's native tracer with and
// without it. Each round's CPU time of this process (`process.cpuUsage`: all threads) per request; medians, and the
// median of the paired ratios (with / without, the same round).
//
//   cd bench && node --conditions=@spotkit/source results/transport-26/spans.ts [ROUNDS] [N]
import { spawn } from "node:child_process"
import { fileURLToPath } from "node:url"
import { measurementOnly, spotkit } from "../../src/peers/contestants.ts"

const rounds = Number(process.argv[2] ?? 20)
const n = Number(process.argv[3] ?? 300)
const server = spawn(
  process.execPath,
  ["--conditions=@spotkit/source", fileURLToPath(new URL("../../src/peers/serverRaw.ts", import.meta.url))],
  { stdio: ["ignore", "pipe", "inherit"] }
)
const baseUrl = await new Promise<string>((resolve) => {
  server.stdout.setEncoding("utf8").on("data", (text: string) => {
    const ready = /READY (\S+)/.exec(text)
    if (ready !== null) resolve(ready[1]!)
  })
})

const byKey = new Map([spotkit, ...measurementOnly].map((c) => [c.key, c]))
const keys = ["spotkit-traced", "spotkit-traced-no-http-span", "spotkit", "spotkit-no-http-span"] as const
const runners = new Map<string, Awaited<ReturnType<typeof spotkit.make>>>()
for (const key of keys) runners.set(key, await byKey.get(key)!.make(baseUrl))
const round = async (key: string) => {
  const runner = runners.get(key)!
  const start = process.cpuUsage()
  await runner.run("placeOrder", n, 1)
  await runner.run("openOrders", n, 1)
  const used = process.cpuUsage(start)
  return (used.user + used.system) / (2 * n)
}
for (const key of keys) await round(key) // warm-up
const micros = new Map<string, Array<number>>(keys.map((key) => [key, []]))
for (let r = 0; r < rounds; r++) {
  for (const key of r % 2 === 0 ? keys : [...keys].reverse()) micros.get(key)!.push(await round(key))
}
server.kill()

const median = (values: ReadonlyArray<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  return (sorted[Math.floor((sorted.length - 1) / 2)]! + sorted[Math.ceil((sorted.length - 1) / 2)]!) / 2
}
for (const key of keys) console.log(`${key.padEnd(28)} ${median(micros.get(key)!).toFixed(1)} µs CPU per request`)
const ratio = (a: string, b: string) => median(micros.get(a)!.map((value, i) => value / micros.get(b)![i]!)).toFixed(3)
console.log(`under a backend, with / without the HTTP span: ${ratio("spotkit-traced", "spotkit-traced-no-http-span")}`)
console.log(`native tracer, with / without the HTTP span: ${ratio("spotkit", "spotkit-no-http-span")}`)
console.log(`backend / native tracer, both with it: ${ratio("spotkit-traced", "spotkit")}`)
