// The rate limiter's queue when waiters give up (the re-plan sweep): the CPU a process spends when many calls waiting
// on one budget are interrupted, against the limiter of another checkout (`--baseline <dir>`: a `git worktree` of
// the commit before, installed), in the same process, in alternate rounds.
//
// - mass: N waiters queued on a 3-per-second budget (one log, or three, as a client's endpoint, UID and IP budgets),
//   then every `k`-th interrupted at once (a scope closing, a batch of timeouts): CPU from the interruption until the
//   queue is quiet (re-planned, and every waiter moved asleep again).
// - fifo: waiters queued 4 a millisecond, each giving up 300 ms after it queued: they give up in queue order, from its
//   head, one by one (a timeout storm: at each, every waiter behind may go sooner). CPU of the whole run.
//
// What the sweep buys is not measured here but by the tests (packages/core/test/rateLimiter.test.ts): the survivors
// go at the budget's rate (20 waiters on 3 a second, half interrupted: the last at 4 s, not 7 s).
//
//   node --conditions=@spotkit/source src/limiterQueue.ts [--quick] [--baseline <dir>] [--queue-rounds N]
import type * as Effect from "effect"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import type * as RateLimiter from "../../packages/core/src/internal/client/rateLimiter.ts"
import { args, log, machine, median, option, quick, writeResult } from "./cli.ts"

type EffectModule = typeof Effect
type LimiterModule = typeof RateLimiter

interface Checkout {
  readonly name: string
  readonly effect: EffectModule
  readonly limiter: LimiterModule
}

const ROUNDS = option("queue-rounds", quick ? 2 : 7)

const load = async (name: string, dir: string): Promise<Checkout> => ({
  name,
  effect: (await import(
    pathToFileURL(path.join(dir, "packages/core/node_modules/effect/dist/index.js")).href
  )) as EffectModule,
  limiter: (await import(
    pathToFileURL(path.join(dir, "packages/core/src/internal/client/rateLimiter.ts")).href
  )) as LimiterModule
})

const cpuMillis = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since)
  return (used.user + used.system) / 1000
}

// Waiters on a 3-per-second budget (`logs` logs, each charged), the first three granted at once.
const budgetOf = ({ effect: { Effect }, limiter }: Checkout, logs: number) => {
  const charged = Array.from({ length: logs }, () => new limiter.Log({ limit: 3, windowMillis: 1000 }, 0))
  const acquire = limiter.acquireAll(charged.map((log) => ({ log, weight: 1 })))
  return { acquire, fill: Effect.repeat(acquire, { times: 2 }) }
}

const mass = (checkout: Checkout, n: number, every: number, logs: number): Promise<number> => {
  const { Effect, Fiber } = checkout.effect
  const { acquire, fill } = budgetOf(checkout, logs)
  return Effect.runPromise(Effect.gen(function*() {
    yield* fill
    const fibers = yield* Effect.forEach(
      Array.from({ length: n }),
      () => Effect.forkChild(acquire, { startImmediately: true })
    )
    yield* Effect.sleep(20)
    const since = process.cpuUsage()
    yield* Fiber.interruptAll(fibers.filter((_, i) => i % every === 0))
    yield* Effect.sleep(1)
    const cpu = cpuMillis(since)
    yield* Fiber.interruptAll(fibers)
    return cpu
  }))
}

const fifo = (checkout: Checkout, n: number): Promise<number> => {
  const { Effect, Fiber } = checkout.effect
  const { acquire, fill } = budgetOf(checkout, 1)
  return Effect.runPromise(Effect.gen(function*() {
    yield* fill
    const since = process.cpuUsage()
    const fibers: Array<Effect.Fiber.Fiber<unknown>> = []
    for (let i = 0; i < n; i++) {
      fibers.push(yield* Effect.forkChild(Effect.timeoutOption(acquire, 300), { startImmediately: true }))
      if (i % 4 === 3) yield* Effect.sleep(1)
    }
    yield* Fiber.joinAll(fibers)
    return cpuMillis(since)
  }))
}

const scenarios: ReadonlyArray<{ readonly name: string; readonly run: (checkout: Checkout) => Promise<number> }> = [
  { name: "mass 1,000 waiters, all interrupted, 1 log", run: (c) => mass(c, 1000, 1, 1) },
  { name: "mass 1,000 waiters, every 2nd interrupted, 3 logs", run: (c) => mass(c, 1000, 2, 3) },
  { name: "mass 5,000 waiters, all interrupted, 1 log", run: (c) => mass(c, 5000, 1, 1) },
  { name: "mass 5,000 waiters, every 2nd interrupted, 1 log", run: (c) => mass(c, 5000, 2, 1) },
  { name: "mass 5,000 waiters, every 2nd interrupted, 3 logs", run: (c) => mass(c, 5000, 2, 3) },
  { name: "fifo 2,000 waiters giving up in queue order", run: (c) => fifo(c, 2000) }
]

const main = async () => {
  const at = args.indexOf("--baseline")
  const baselineDir = at < 0 ? undefined : args[at + 1]
  if (at >= 0 && (baselineDir === undefined || baselineDir.startsWith("--"))) {
    throw new Error("--baseline takes a directory")
  }
  const checkouts = [await load("this checkout", path.resolve(import.meta.dirname, "../.."))]
  if (baselineDir !== undefined) {
    checkouts.push(await load("baseline", path.resolve(process.env["INIT_CWD"] ?? process.cwd(), baselineDir)))
  }
  // A warm-up round of each, not counted.
  for (const scenario of scenarios) for (const checkout of checkouts) await scenario.run(checkout)
  const results = []
  log(`rate limiter queue, CPU ms (median of ${ROUNDS} rounds, alternate)`)
  for (const scenario of scenarios) {
    const samples = checkouts.map(() => [] as Array<number>)
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < checkouts.length; i++) {
        const k = round % 2 === 0 ? i : checkouts.length - 1 - i
        samples[k]!.push(await scenario.run(checkouts[k]!))
      }
    }
    const medians = samples.map(median)
    const ratio = medians.length > 1 ? medians[0]! / medians[1]! : undefined
    log(
      `  ${scenario.name}: ${checkouts.map((c, i) => `${c.name} ${medians[i]!.toFixed(1)}`).join(", ")}${
        ratio === undefined ? "" : ` (this ÷ baseline ${ratio.toFixed(2)}×)`
      }`
    )
    results.push({ scenario: scenario.name, samples, medians, ratio })
  }
  const file = writeResult("limiter-queue", { date: new Date().toISOString(), machine, baselineDir, results })
  log(`written ${file.pathname}`)
}

await main()
