// The line on stop 41's client (issue #26): placeOrder at one request in flight, ccxt's CPU per request over spotkit's,
// over stop 41's run (`paired-stop41-line.json`, commit c3d31f5) and stop 42's four runs a-d (`paired-stop42-line-*.json`,
// commit 064864d; the request path of the two commits is the same: between them only the push telemetry's metric series
// and doc comments changed): 120 sets in all, each of fresh processes, one window of 20,000 requests per process and
// set, two processes per client, balanced orders. Per run and pooled: the ratio of totals (every window of every set)
// with bench:paired's own bootstrap 95 % interval (bench/src/paired/stats.ts: the sets resampled 10,000 times,
// mulberry32 from seed 26), the sets at or above 1.4×, the A/A controls the same way, and the geometric mean of the
// runs' ratios (each run weighed alike, however fast the machine ran).
//
//   node bench/results/ab-26/stop42-pool.mjs      (Node >= 23.6: it imports the TypeScript module as it is)
import console from "node:console"
import { readFileSync } from "node:fs"
import { URL } from "node:url"
import { bootstrap95, mulberry32, perRequest } from "../../src/paired/stats.ts"

const random = mulberry32(26)
const f = (x) => x.toFixed(3)

// Per set: each side's CPU per request over its windows (every run here times as many windows of each side in a set,
// so the ratio of these sums is the ratio of the CPU totals).
const sides = (sets, top, bottom) =>
  sets.map((set) => [perRequest([set], "placeOrder@1", top, 20_000), perRequest([set], "placeOrder@1", bottom, 20_000)])
const line = (label, perSet, target) => {
  const tops = perSet.map((t) => t[0])
  const bottoms = perSet.map((t) => t[1])
  const ratio = tops.reduce((a, b) => a + b) / bottoms.reduce((a, b) => a + b)
  const [low, high] = bootstrap95(tops, bottoms, random)
  const atOrAbove = target === undefined
    ? ""
    : `, ${perSet.filter(([t, b]) => t / b >= target).length} at or above ${target}`
  console.log(`${label.padEnd(34)} ${f(ratio)}  95 % ${f(low)}–${f(high)}  (${perSet.length} sets${atOrAbove})`)
  return ratio
}

const read = (file) => JSON.parse(readFileSync(new URL(file, import.meta.url), "utf8")).sets
const runs = {
  "stop 41": read("paired-stop41-line.json"),
  "stop 42 a": read("paired-stop42-line-a.json"),
  "stop 42 b": read("paired-stop42-line-b.json"),
  "stop 42 c": read("paired-stop42-line-c.json"),
  "stop 42 d": read("paired-stop42-line-d.json")
}
const perRun = []
for (const [label, sets] of [...Object.entries(runs), ["all five", Object.values(runs).flat()]]) {
  const ratio = line(`${label}: ccxt ÷ spotkit`, sides(sets, ["ccxt", "ccxt#2"], ["spotkit", "spotkit#2"]), 1.4)
  if (label !== "all five") perRun.push(ratio)
  line(`${label}: spotkit#2 ÷ spotkit`, sides(sets, ["spotkit#2"], ["spotkit"]))
  line(`${label}: ccxt#2 ÷ ccxt`, sides(sets, ["ccxt#2"], ["ccxt"]))
}
console.log(
  `geometric mean of the five runs' ratios: ${
    f(Math.exp(perRun.map(Math.log).reduce((a, b) => a + b) / perRun.length))
  }`
)
