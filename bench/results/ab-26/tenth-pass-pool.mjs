// The tenth pass's pool (issue #26): placeOrder at one request in flight, ccxt's CPU per request over spotkit's,
// over runs b, c and e of the pass (bench:paired, 24 sets each of fresh processes, one window of 20,000 requests per
// process and set, two processes per client). Per run and pooled: the ratio of totals (every window of every set)
// with a bootstrap 95 % interval (the sets resampled, 10,000 times, mulberry32 from seed 26), the sets at or above
// 1.4×, and the A/A controls (spotkit#2 ÷ spotkit, ccxt#2 ÷ ccxt) the same way.
//
//   node bench/results/ab-26/tenth-pass-pool.mjs
import console from "node:console"
import { readFileSync } from "node:fs"
import { URL } from "node:url"

let state = 26
const random = () => {
  state = (state + 0x6d2b79f5) | 0
  let t = Math.imul(state ^ (state >>> 15), 1 | state)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}
const sum = (xs) => xs.reduce((a, b) => a + b, 0)
const f = (x) => x.toFixed(3)

// Per set: the CPU of each side over its windows.
const sides = (sets, top, bottom) =>
  sets.map((set) => {
    const pair = set.windows["placeOrder@1"]
    return [sum(top.flatMap((p) => pair[p])), sum(bottom.flatMap((p) => pair[p]))]
  })
const line = (label, totals) => {
  const ratio = sum(totals.map((t) => t[0])) / sum(totals.map((t) => t[1]))
  const boots = []
  for (let i = 0; i < 10_000; i++) {
    let top = 0
    let bottom = 0
    for (let k = 0; k < totals.length; k++) {
      const [t, b] = totals[Math.floor(random() * totals.length)]
      top += t
      bottom += b
    }
    boots.push(top / bottom)
  }
  boots.sort((a, b) => a - b)
  const atOrAbove = totals.filter(([t, b]) => t / b >= 1.4).length
  console.log(
    `${label.padEnd(34)} ${f(ratio)}  95 % ${f(boots[250])}–${f(boots[9749])}  ` +
      `(${totals.length} sets, ${atOrAbove} at or above 1.4)`
  )
}

const runs = Object.fromEntries(
  ["b", "c", "e"].map((run) => [
    run,
    JSON.parse(readFileSync(new URL(`paired-tenth-pass-${run}.json`, import.meta.url), "utf8")).sets
  ])
)
for (
  const [label, sets] of [
    ["run b", runs.b],
    ["run c", runs.c],
    ["run e", runs.e],
    ["b and c", [...runs.b, ...runs.c]],
    ["b, c and e", [...runs.b, ...runs.c, ...runs.e]]
  ]
) {
  line(`${label}: ccxt ÷ spotkit`, sides(sets, ["ccxt", "ccxt#2"], ["spotkit", "spotkit#2"]))
  line(`${label}: spotkit#2 ÷ spotkit`, sides(sets, ["spotkit#2"], ["spotkit"]))
  line(`${label}: ccxt#2 ÷ ccxt`, sides(sets, ["ccxt#2"], ["ccxt"]))
}
