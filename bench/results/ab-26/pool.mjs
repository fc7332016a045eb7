// The pooling of #26's line runs (bench:paired, placeOrder at one request in flight, two processes per client), shared by
// the records that pool runs (eleventh-pass-pool.mjs, stop42-pool.mjs): per run and pooled, ccxt's CPU per request over
// spotkit's as the ratio of totals (every window of every set) with bench:paired's own bootstrap 95 % interval
// (bench/src/paired/stats.ts: the sets resampled 10,000 times, mulberry32 from seed 26, drawn in the order printed),
// the sets at or above 1.4×, the A/A controls the same way, and the geometric mean of the runs' ratios.
import console from "node:console"
import { readFileSync } from "node:fs"
import { URL } from "node:url"
import { bootstrap95, mulberry32, perRequest } from "../../src/paired/stats.ts"

const f = (x) => x.toFixed(3)

// Per set: each side's CPU per request over its windows (every run here times as many windows of each side in a set,
// so the ratio of these sums is the ratio of the CPU totals).
const sides = (sets, top, bottom) =>
  sets.map((set) => [perRequest([set], "placeOrder@1", top, 20_000), perRequest([set], "placeOrder@1", bottom, 20_000)])
const line = (random, label, perSet, target) => {
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

/** Reads a run's record (a bench:paired JSON file beside this module): its sets. */
export const read = (file) => JSON.parse(readFileSync(new URL(file, import.meta.url), "utf8")).sets

/** Prints each run of `runs` (label → sets) and all of them pooled under `pooledLabel`, then the geometric mean. */
export const pool = (runs, pooledLabel) => {
  const random = mulberry32(26)
  const perRun = []
  for (const [label, sets] of [...Object.entries(runs), [pooledLabel, Object.values(runs).flat()]]) {
    const ratio = line(
      random,
      `${label}: ccxt ÷ spotkit`,
      sides(sets, ["ccxt", "ccxt#2"], ["spotkit", "spotkit#2"]),
      1.4
    )
    if (label !== pooledLabel) perRun.push(ratio)
    line(random, `${label}: spotkit#2 ÷ spotkit`, sides(sets, ["spotkit#2"], ["spotkit"]))
    line(random, `${label}: ccxt#2 ÷ ccxt`, sides(sets, ["ccxt#2"], ["ccxt"]))
  }
  console.log(
    `geometric mean of the ${perRun.length} runs' ratios: ${
      f(Math.exp(perRun.map(Math.log).reduce((a, b) => a + b) / perRun.length))
    }`
  )
}
