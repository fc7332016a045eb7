// The Redis store's acquisition script before and after the epoch check (2026-11-29): Redis's own time per script
// call (INFO commandstats: evalsha usec_per_call) and the client's wall time per acquisition, the two checkouts'
// stores in one process taking turns on one redis-server. Run from bench/ of the newer checkout:
//   node --conditions=@spotkit/source ../bench/results/redis-epoch/epoch-cost.ts <older checkout> <redis port>
import { Context, Effect, Layer } from "effect"
import { execFileSync } from "node:child_process"
import path from "node:path"
import { pathToFileURL } from "node:url"

const [baseDir, port] = process.argv.slice(2)
const here = path.resolve(import.meta.dirname, "../../..")
const load = async (dir: string) => ({
  node: await import(pathToFileURL(path.join(dir, "packages/node/src/NodeSpotClient.ts")).href),
  core: await import(pathToFileURL(path.join(dir, "packages/core/src/RateLimitStore.ts")).href)
})
const cli = (...args: Array<string>) => execFileSync("redis-cli", ["-p", port!, ...args], { encoding: "utf8" })
const stats = () => {
  const line = cli("INFO", "commandstats").split("\n").find((l) => l.startsWith("cmdstat_evalsha:")) ?? ""
  const calls = Number(/calls=(\d+)/.exec(line)?.[1] ?? 0)
  const usec = Number(/usec=(\d+)/.exec(line)?.[1] ?? 0)
  return { calls, usec }
}
const acquisition = {
  endpoint: undefined,
  shared: [
    { key: "uid:bench", limit: 1e12, windowMillis: 10_025, weight: 5 },
    { key: "ip:default", limit: 1e12, windowMillis: 10_025, weight: 5 }
  ],
  leaseMillis: 15_000
}
const N = 5_000
const round = (modules: Awaited<ReturnType<typeof load>>) =>
  Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const context = yield* Layer.build(modules.node.layerRedisStore({ url: `redis://127.0.0.1:${port}` }))
    const store = Context.get(context, modules.core.RateLimitStore)
    for (let i = 0; i < 200; i++) {
      yield* Effect.flatMap(store.acquire(acquisition), (p: { settle: Effect.Effect<void> }) => p.settle)
    }
    cli("CONFIG", "RESETSTAT")
    const start = performance.now()
    for (let i = 0; i < N; i++) {
      yield* Effect.flatMap(store.acquire(acquisition), (p: { settle: Effect.Effect<void> }) => p.settle)
    }
    const wall = ((performance.now() - start) * 1000) / N
    const { calls, usec } = stats()
    return { wall, perScript: usec / calls }
  })))
const after = await load(here)
const before = await load(path.resolve(baseDir!))
const totals = { before: { wall: 0, script: 0 }, after: { wall: 0, script: 0 } }
for (let r = 0; r < 8; r++) {
  for (
    const [name, modules]
      of (r % 2 === 0 ? [["before", before], ["after", after]] : [["after", after], ["before", before]]) as const
  ) {
    cli("FLUSHALL")
    const result = await round(modules)
    totals[name].wall += result.wall / 8
    totals[name].script += result.perScript / 8
    console.log(
      `round ${r} ${name}: ${result.wall.toFixed(1)} µs per acquisition, Redis ${
        result.perScript.toFixed(2)
      } µs per script call`
    )
  }
}
console.log(
  `mean of 8 rounds: before ${totals.before.wall.toFixed(1)} µs (Redis ${
    totals.before.script.toFixed(2)
  } µs/script), after ${totals.after.wall.toFixed(1)} µs (Redis ${
    totals.after.script.toFixed(2)
  } µs/script); after ÷ before: wall ${(totals.after.wall / totals.before.wall).toFixed(3)}, script ${
    (totals.after.script / totals.before.script).toFixed(3)
  }`
)
