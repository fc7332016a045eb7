// The ninth pass's pool (issue #26): placeOrder at one request in flight, ccxt's CPU per request against spotkit's,
// over the bench:paired runs of the pass in the benchmark's first form (runs a to e and g; f ran in bench:peers'
// regime, a forced GC before each window). Three statistics, per run and pooled:
// - the median of the per-window ratios (what the first form printed);
// - the ratio of totals: ccxt's CPU over every window ÷ spotkit's (a mean; the windows that caught a GC count in full);
// - the same against both spotkit processes where a run had the control (spotkit#2) too.
// And over the sets: the median of the sets' ratios of totals, with a bootstrap 95 % interval (10,000 resamples,
// mulberry32, seed 26), and the A/A control (spotkit#2 ÷ spotkit, ratio of totals).
//
//   node bench/results/ab-26/ninth-pass-pool.mjs
import console from "node:console"
import { readFileSync } from "node:fs"
import { URL } from "node:url"

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  const mid = s.length >> 1
  return s.length % 2 === 1 ? s[mid] : (s[mid - 1] + s[mid]) / 2
}
let state = 26
const random = () => {
  state = (state + 0x6d2b79f5) | 0
  let t = Math.imul(state ^ (state >>> 15), 1 | state)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}
const sum = (xs) => xs.reduce((a, b) => a + b, 0)
const f = (x) => x.toFixed(3)

const all = { windows: [], ccxt: 0, spotkit: 0, both: [0, 0], control: [0, 0] }
const setRatios = []
for (const run of ["a", "b", "c", "d", "e", "g"]) {
  const result = JSON.parse(readFileSync(new URL(`paired-ninth-pass-${run}.json`, import.meta.url), "utf8"))
  const mine = { windows: [], ccxt: 0, spotkit: 0, both: [0, 0] }
  for (const set of result.windows) {
    const pair = set["placeOrder@1"]
    mine.windows.push(...pair.ccxt.map((theirs, i) => theirs / pair.spotkit[i]))
    mine.ccxt += sum(pair.ccxt)
    mine.spotkit += sum(pair.spotkit)
    setRatios.push(sum(pair.ccxt) / sum(pair.spotkit))
    if (pair["spotkit#2"] !== undefined) {
      mine.both[0] += sum(pair.ccxt)
      mine.both[1] += (sum(pair.spotkit) + sum(pair["spotkit#2"])) / 2
      all.control[0] += sum(pair["spotkit#2"])
      all.control[1] += sum(pair.spotkit)
    }
  }
  all.windows.push(...mine.windows)
  all.ccxt += mine.ccxt
  all.spotkit += mine.spotkit
  all.both[0] += mine.both[0]
  all.both[1] += mine.both[1]
  console.log(
    `run ${run}: median of windows ${f(median(mine.windows))}, ratio of totals ${f(mine.ccxt / mine.spotkit)}` +
      (mine.both[1] > 0 ? `, against both spotkit processes ${f(mine.both[0] / mine.both[1])}` : "")
  )
}
console.log(
  `pooled: ${all.windows.length} windows, median ${f(median(all.windows))}; ratio of totals ` +
    `${f(all.ccxt / all.spotkit)}; against both spotkit processes (runs d, e, g) ${f(all.both[0] / all.both[1])}`
)
const boots = Array.from(
  { length: 10_000 },
  () => median(setRatios.map(() => setRatios[Math.floor(random() * setRatios.length)]))
)
  .sort((a, b) => a - b)
console.log(
  `sets: ${setRatios.length}, median of their ratios of totals ${f(median(setRatios))}, ` +
    `${setRatios.filter((s) => s >= 1.4).length} at or above 1.4, bootstrap 95 % ${f(boots[250])} – ${f(boots[9750])}`
)
console.log(`A/A control (runs d, e, g): spotkit#2 ÷ spotkit, ratio of totals ${f(all.control[0] / all.control[1])}`)

// The second form (runs h and i): each client as two processes, the line the ratio of totals over both. Over their 12
// sets: the pooled ratio, the sets' ratios, and a bootstrap 95 % interval of the pooled ratio (sets resampled).
const second = []
for (const run of ["h", "i"]) {
  const result = JSON.parse(readFileSync(new URL(`paired-ninth-pass-${run}.json`, import.meta.url), "utf8"))
  for (const set of result.sets) {
    const pair = set.windows["placeOrder@1"]
    second.push({ ccxt: sum(pair.ccxt) + sum(pair["ccxt#2"]), spotkit: sum(pair.spotkit) + sum(pair["spotkit#2"]) })
  }
}
const pooledOf = (sets) => sum(sets.map((s) => s.ccxt)) / sum(sets.map((s) => s.spotkit))
const secondBoots = Array.from(
  { length: 10_000 },
  () => pooledOf(second.map(() => second[Math.floor(random() * second.length)]))
)
  .sort((a, b) => a - b)
console.log(
  `second form (h, i): ${second.length} sets, ratio of totals ${f(pooledOf(second))}, sets ` +
    `${second.map((s) => (s.ccxt / s.spotkit).toFixed(2)).join(" ")}; ` +
    `${second.filter((s) => s.ccxt / s.spotkit >= 1.4).length} at or above 1.4; bootstrap 95 % ` +
    `${f(secondBoots[250])} – ${f(secondBoots[9750])}`
)
