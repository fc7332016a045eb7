// How long the engine takes to write a synthetic funding-bill history (issue #3: "1M bills in seconds"), median of
// a few runs, each on a fresh engine. Writes bench/results/bills-<date>.json.
import { Engine } from "@spotkit/testkit/Engine"
import { performance } from "node:perf_hooks"
import { median, option, quick, writeResult } from "./cli.ts"

const COUNT = option("bills", quick ? 100_000 : 1_000_000)
const RUNS = quick ? 1 : 3
const T0 = 1_700_000_000_000

const times: Array<number> = []
let written = 0
for (let r = 0; r < RUNS; r++) {
  const engine = new Engine({ seed: 7 })
  const user = engine.addUser()
  ;(globalThis as { gc?: () => void }).gc?.()
  const started = performance.now()
  engine.generateBills(user, { count: COUNT, from: T0, to: T0 + 365 * 86_400_000 })
  times.push(performance.now() - started)
  written = engine.fundingBillCount(user)
}
const ms = median(times)
console.log(
  `\nsynthetic funding bills: ${COUNT.toLocaleString("en-US")} bills over every bizType, median of ${RUNS}: ` +
    `${Math.round(ms)} ms (${Math.round(COUNT / (ms / 1000)).toLocaleString("en-US")} bills/s)`
)
const date = new Date().toISOString()
writeResult("bills", {
  benchmark: "synthetic-bills",
  date,
  node: process.version,
  count: COUNT,
  written,
  runsMs: times.map((t) => Math.round(t)),
  medianMs: ms
})
