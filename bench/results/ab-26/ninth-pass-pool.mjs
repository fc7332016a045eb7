// The ninth pass's pool (issue #26): placeOrder at one request in flight, ccxt's CPU per request ÷ spotkit's, window by
// window, over every bench:paired run of the pass without a forced GC (runs a to e and g; f ran in bench:peers'
// regime). Prints the median of the windows, of the sets' medians, a bootstrap 95 % interval of the latter (10,000
// resamples, seeded), and the A/A control (spotkit#2 ÷ spotkit) where a run had one.
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
let seed = 1
const random = () => {
  seed = (seed * 1103515245 + 12345) % 2147483648
  return seed / 2147483648
}
const windows = []
const sets = []
const control = []
for (const run of ["a", "b", "c", "d", "e", "g"]) {
  const result = JSON.parse(readFileSync(new URL(`paired-ninth-pass-${run}.json`, import.meta.url), "utf8"))
  for (const set of result.windows) {
    const pair = set["placeOrder@1"]
    const ratios = pair.ccxt.map((theirs, i) => theirs / pair.spotkit[i])
    windows.push(...ratios)
    sets.push(median(ratios))
    if (pair["spotkit#2"] !== undefined) control.push(...pair["spotkit#2"].map((x, i) => x / pair.spotkit[i]))
  }
}
const boots = Array.from({ length: 10_000 }, () => median(sets.map(() => sets[Math.floor(random() * sets.length)])))
  .sort((a, b) => a - b)
const f = (x) => x.toFixed(3)
console.log(`windows: ${windows.length}, median ${f(median(windows))}`)
console.log(
  `sets: ${sets.length}, median ${f(median(sets))}, ${sets.filter((s) => s >= 1.4).length} at or above 1.4, ` +
    `bootstrap 95 % ${f(boots[250])} – ${f(boots[9750])}`
)
console.log(`A/A control: ${control.length} windows, median ${f(median(control))}`)
