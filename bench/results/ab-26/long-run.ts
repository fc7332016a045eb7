// #26, third pass (ab-long.sh): one contestant in one process, warmed up by 20,000 requests, then N timed; prints
// its client CPU µs per request. Copied into a tree's bench/src to run: node --conditions=@spotkit/source
// src/long-run.ts <raw|spotkit|limited> <baseUrl> <N> <inflight> <placeOrder|openOrders>
import { SpotClient } from "@spotkit/core"
import { NodeSpotClient } from "@spotkit/node"
import { Effect, ManagedRuntime, Redacted } from "effect"
import { contestants } from "./peers/contestants.ts"
import { credentials, openOrdersBody, orderBody } from "./peers/shared.ts"
const [key, baseUrl, nArg, cArg, path] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  "placeOrder" | "openOrders"
]
const n = Number(nArg), conc = Number(cArg)
let run: (k: number) => Promise<unknown>
if (key === "raw") {
  const r = await contestants.find((x) => x.key === "raw")!.make(baseUrl)
  run = (k) => r.run(path, k, conc)
} else {
  const far = { limit: 1e12, windowMillis: 10000 }
  const runtime = ManagedRuntime.make(
    NodeSpotClient.layer({
      baseUrl,
      credentials: {
        apiKey: Redacted.make(credentials.apiKey),
        secretKey: Redacted.make(credentials.secretKey),
        passphrase: Redacted.make(credentials.passphrase)
      },
      rateLimit: key === "limited" ? { uid: far, ip: far, perEndpoint: far } : false,
      transport: "undici"
    })
  )
  const client = await runtime.runPromise(Effect.service(SpotClient.SpotClient))
  let id = 0
  const pre = `p${process.pid}-`
  const one = path === "placeOrder"
    ? Effect.suspend(() => client.placeOrder(orderBody(pre + id++)))
    : client.openOrdersPage(openOrdersBody)
  run = (k) =>
    runtime.runPromise(Effect.forEach(Array.from({ length: k }), () => one, { concurrency: conc, discard: true }))
}
await run(20000)
const c0 = process.cpuUsage()
await run(n)
const cu = process.cpuUsage(c0)
console.log(key.padEnd(8), path, conc, ((cu.user + cu.system) / n).toFixed(1))
process.exit(0)
