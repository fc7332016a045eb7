// The ninth pass (issue #26): in a bench:paired run of the second form, of two twins (spotkit and spotkit#2, ccxt and
// ccxt#2), does the one started earlier in its set cost more? Per set and path at one in flight, the CPU over every
// window of the earlier-started twin ÷ the later one's. The start order is the result's `starts` where it recorded
// one (from run i), or else replayed from its seed (run h): the benchmark draws the start order, then every round's
// order, from one generator; the replay checks itself against the recorded round orders.
//
//   node bench/results/ab-26/ninth-pass-starts.mjs bench/results/ab-26/paired-ninth-pass-h.json
import console from "node:console"
import { readFileSync } from "node:fs"
import process from "node:process"

const result = JSON.parse(readFileSync(process.argv[2], "utf8"))
let state = result.method.seed
const random = () => {
  state = (state + 0x6d2b79f5) | 0
  let t = Math.imul(state ^ (state >>> 15), 1 | state)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}
const shuffled = (xs) => {
  const out = [...xs]
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    ;[out[i], out[j]] = [out[j], out[i]]
  }
  return out
}
const processes = result.method.processes
const sum = (xs) => xs.reduce((a, b) => a + b, 0)
const ratios = []
for (const set of result.sets) {
  let starts = set.starts
  if (starts === undefined) {
    starts = shuffled(processes)
    for (const pair of result.method.pairs) {
      for (const order of set.orders[pair]) {
        if (shuffled(processes).join() !== order.join()) throw new Error("the replay does not give the recorded orders")
      }
    }
  }
  for (const pair of ["placeOrder@1", "openOrders@1"]) {
    for (const client of ["spotkit", "ccxt"]) {
      const [earlier, later] = [client, `${client}#2`].sort((x, y) => starts.indexOf(x) - starts.indexOf(y))
      ratios.push(sum(set.windows[pair][earlier]) / sum(set.windows[pair][later]))
    }
  }
}
console.log(
  `the earlier-started twin cost more in ${ratios.filter((r) => r > 1).length} of ${ratios.length} cases; ` +
    `earlier ÷ later, mean ${(sum(ratios) / ratios.length).toFixed(3)}`
)
