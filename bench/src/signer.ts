// Request signing alone: @spotkit/node's node:crypto signer against core's WebCrypto default, side by side in one
// process on the same prehash strings (issue #4: "measurably faster than WebCrypto"). Each signs N prehashes of a
// realistic size one after another (as a client signs its requests), median of a few alternating rounds. Writes
// bench/results/signer-<date>.json.
import { Signer, Venue } from "@spotkit/core"
import { NodeSigner } from "@spotkit/node"
import { Effect, Redacted } from "effect"
import { performance } from "node:perf_hooks"
import { median, option, quick, writeResult } from "./cli.ts"

const N = option("signatures", quick ? 5_000 : 50_000)
const ROUNDS = quick ? 1 : 5
const secret = Redacted.make("b3a1d8c2e4f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9")
const body =
  `{"symbol":"BTCUSDT_SPBL","side":"buy","orderType":"limit","force":"normal","price":"30000.5","quantity":"0.01",` +
  `"clientOrderId":"bench-000000"}`
const prehashes = Array.from(
  { length: N },
  (_, i) => Venue.prehash(String(1_700_000_000_000 + i), "POST", "/api/v2/trade/orders", body)
)

const signAll = (service: Signer.Service) =>
  Effect.gen(function*() {
    const sign = yield* service.prepare(secret)
    let last = ""
    for (const prehash of prehashes) last = yield* sign(prehash)
    return last
  })

const measure = async (service: Signer.Service): Promise<number> => {
  const started = performance.now()
  await Effect.runPromise(signAll(service))
  return performance.now() - started
}

// The two must agree before their speed means anything.
const [a, b] = await Promise.all([
  Effect.runPromise(signAll(NodeSigner.nodeCrypto)),
  Effect.runPromise(signAll(Signer.webCrypto))
])
if (a !== b) throw new Error("node:crypto and WebCrypto signatures differ")

const times = { node: [] as Array<number>, web: [] as Array<number> }
await measure(NodeSigner.nodeCrypto) // warm-up
await measure(Signer.webCrypto)
for (let round = 0; round < ROUNDS; round++) {
  times.node.push(await measure(NodeSigner.nodeCrypto))
  times.web.push(await measure(Signer.webCrypto))
}
const perSecond = (ms: number) => Math.round(N / (ms / 1000))
const node = perSecond(median(times.node))
const web = perSecond(median(times.web))
console.log(
  `\nsigning ${N.toLocaleString("en-US")} prehashes one after another, median of ${ROUNDS}: ` +
    `node:crypto ${node.toLocaleString("en-US")}/s (${(1e6 / node).toFixed(2)} µs), ` +
    `WebCrypto ${web.toLocaleString("en-US")}/s (${(1e6 / web).toFixed(2)} µs): ${(node / web).toFixed(1)}×`
)
const date = new Date().toISOString()
writeResult("signer", {
  benchmark: "signer",
  date,
  node: process.version,
  signatures: N,
  rounds: ROUNDS,
  runsMs: times,
  perSecond: { nodeCrypto: node, webCrypto: web },
  ratio: node / web
})
