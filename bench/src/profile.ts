// One contestant alone over the benchmark workload, for a CPU profile:
//   node --cpu-prof --cpu-prof-dir=/tmp/prof --conditions=@spotkit/source src/profile.ts [key] [orders]
import { engineStrings, engineSubmit, engineUnits, library } from "./contestants.ts"
import { generate } from "./workload.ts"

const key = process.argv[2] ?? "engine-placeUnits"
const orders = Number(process.argv[3] ?? 1_000_000)
const contestant = [engineSubmit(false), engineUnits(false), engineUnits(true), engineStrings(false), library].find((
  c
) => c.key === key)
if (contestant === undefined) throw new Error(`unknown contestant ${key}`)
const workload = generate({ orders })
contestant.prepare(workload)
const started = performance.now()
const refused = contestant.fresh().run(workload)
const ms = performance.now() - started
console.log(
  `${key}: ${orders} orders in ${ms.toFixed(0)} ms (${Math.round(orders / (ms / 1000))} orders/s), refused ${refused}`
)
