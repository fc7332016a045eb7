// Side by side, in one process: the engine-submit contestant of the engine benchmark over several versions of the
// engine's source, to measure what a change to the engine buys. Each version is a copy of packages/testkit/src under
// bench/tmp/<name>/ (gitignored), e.g. the current source and the one before a change:
//
//   cp -r packages/testkit/src bench/tmp/after
//   git stash && cp -r packages/testkit/src bench/tmp/before && git stash pop
//   cd bench && node --expose-gc --conditions=@spotkit/source src/engineAB.ts before after [--orders N] [--rounds N]
//     [--ballast N (N >= 1)] [--library] [--units] [--by-seq] [--trades]
//
// Each round runs every version once on a fresh engine (the first version to run rotates); the first round is
// warm-up. Prints the median main-thread CPU time (the steadier figure on a shared machine) and wall time. Compare
// versions with each other only: the engine benchmark (main.ts) holds every contestant's heap in one process, so
// its absolute times are higher than these. `--ballast N` keeps N million strings alive throughout (a heap like the
// full benchmark's, which every full collection must mark); `--library` runs nodejs-order-book in the rotation too
// and prints each version's ratio to it; `--units` runs placeUnits + cancelOrder instead of submit, `--by-seq`
// cancels by sequence number instead of clientOrderId, `--trades` keeps the trade log (`recordTrades`, the engine's
// default; off otherwise). A version with `EngineUnits.ts` drives the engine through it;
// an older one (before the numeric entry left `Engine`) through the engine's own methods.
import { existsSync } from "node:fs"
import { args, option } from "./cli.ts"
import { engineSubmit, engineUnits, library, type Units, type Version } from "./contestants.ts"
import { generate } from "./workload.ts"

interface UnitsModule {
  readonly make: Version["units"]
}

// The names: every argument that is neither an option nor an option's value (the flags take none).
const FLAGS = new Set(["--library", "--units", "--by-seq", "--trades"])
const VALUED = new Set(["--orders", "--rounds", "--ballast"])
for (const a of process.argv.slice(2)) {
  if (a.startsWith("--") && !FLAGS.has(a) && !VALUED.has(a)) throw new Error(`unknown option ${a}`)
}
const names = process.argv.slice(2).filter((a, i, all) => !a.startsWith("--") && !VALUED.has(all[i - 1] ?? ""))
if (names.length === 0) throw new Error("name at least one directory under bench/tmp/")
const ORDERS = option("orders", 1_000_000)
const ROUNDS = option("rounds", 7)
// `--units`: the engines run placeUnits + cancelOrder (an answer object per order) instead of submit.
const UNITS = args.includes("--units")
// `--by-seq`: cancels by the sequence number submit answered (cancelBySeq) instead of by clientOrderId.
const BY_SEQ = args.includes("--by-seq")
// `--trades`: the engines keep their trade log (`recordTrades`, the default), as the test exchange runs.
const TRADES = args.includes("--trades")

const load = async (name: string): Promise<Version> => {
  const url = (file: string) => new URL(`../tmp/${name}/${file}`, import.meta.url)
  const { Engine } = await import(url("Engine.ts").href) as Pick<Version, "Engine">
  const units = existsSync(url("EngineUnits.ts"))
    ? (await import(url("EngineUnits.ts").href) as UnitsModule).make
    : (engine: object) => engine as Units
  return { Engine, units }
}
const engines = await Promise.all(names.map(load))
const w = generate({ orders: ORDERS })
// A heap like the full benchmark's (its other contestants' data), which every major collection must mark: N million
// strings kept alive for the whole run.
const BALLAST = option("ballast", 0)
const ballast = Array.from({ length: BALLAST * 1_000_000 }, (_, i) => `ballast-${i}`)

// Each version runs the engine benchmark's own contestant (contestants.ts) over its Engine class.
const contestantOf = (version: Version) => UNITS ? engineUnits(TRADES, version) : engineSubmit(TRADES, BY_SEQ, version)
const fresh = (version: Version): () => void => {
  const contestant = contestantOf(version)
  contestant.prepare(w)
  const instance = contestant.fresh()
  return () => instance.run(w)
}

// `--library`: nodejs-order-book takes part in the rotation too, so that each version's ratio to it comes from the
// same process and the same minutes.
const withLibrary = args.includes("--library")
const labels = withLibrary ? [...names, "nodejs-order-book"] : names
const runner = (e: number): () => void => {
  if (e < names.length) return fresh(engines[e]!)
  const instance = library.fresh()
  return () => instance.run(w)
}
const cpu = labels.map((): Array<number> => [])
const wall = labels.map((): Array<number> => [])
for (let round = 0; round < ROUNDS; round++) {
  for (let j = 0; j < labels.length; j++) {
    const e = (round + j) % labels.length
    const run = runner(e)
    globalThis.gc?.()
    const cpu0 = process.threadCpuUsage()
    const t0 = performance.now()
    run()
    const ms = performance.now() - t0
    const used = process.threadCpuUsage(cpu0)
    if (round > 0) {
      cpu[e]!.push((used.user + used.system) / 1000)
      wall[e]!.push(ms)
    }
  }
}
if (ballast.length !== BALLAST * 1_000_000) throw new Error("unreachable")
const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!
const libraryWall = withLibrary ? median(wall[names.length]!) : NaN
const libraryCpu = withLibrary ? median(cpu[names.length]!) : NaN
labels.forEach((name, j) =>
  console.log(
    `${name.padEnd(17)} main-thread CPU median ${median(cpu[j]!).toFixed(0)} ms, wall median ` +
      `${median(wall[j]!).toFixed(0)} ms (CPU of each run: ${cpu[j]!.map((x) => x.toFixed(0)).join(", ")})` +
      (withLibrary
        ? `, ${(libraryWall / median(wall[j]!)).toFixed(1)}x nodejs-order-book (wall), ` +
          `${(libraryCpu / median(cpu[j]!)).toFixed(1)}x (CPU)`
        : "")
  )
)
