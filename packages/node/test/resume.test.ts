/**
 * `spotkit bills export --out FILE --resume` (the built CLI, `node dist/bin/spotkit.js`) killed with SIGKILL at
 * random points against the sandbox, then run again with the same flags until it finishes: FILE holds an earlier
 * export all along, and the finished FILE equals an uninterrupted export byte for byte, in CSV and in NDJSON with a
 * time range. The kill times come from a seeded generator (printed on failure). `SPOTKIT_RELIABILITY=full` runs a
 * longer export with more kills (the figures in RELIABILITY.md).
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import { Fault, TestExchange } from "@spotkit/testkit"
import { Effect, Fiber } from "effect"
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll } from "vitest"
import { aliceEnv, decodeAll, linesOf, runBuilt, sandboxLayer, spawn } from "./support/cli.ts"

const FULL = process.env.SPOTKIT_RELIABILITY === "full"
const BILLS = FULL ? 50_000 : 6_000
const PAGE_LATENCY = FULL ? 5 : 20
const KILLS = FULL ? 25 : 5
const BILLS_PATH = "/api/v2/account/fundingBills"

const dir = mkdtempSync(join(tmpdir(), "spotkit-resume-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

// A small seeded generator (mulberry32): the same kill times on every run of a seed.
const random = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

const size = (path: string) => existsSync(path) ? statSync(path).size : 0

describe("bills export --resume after SIGKILL at random points", () => {
  const { layer } = sandboxLayer({ seed: 9, bills: BILLS })

  it.layer(layer, { excludeTestServices: true, timeout: "600 seconds" })("the built CLI against the sandbox", (it) => {
    const scenarios = [
      { name: "csv", seed: 1, args: [] as ReadonlyArray<string> },
      { name: "ndjson, --since", seed: 2, args: ["--format", "ndjson", "--since", "978307200000"] }
    ]
    for (const scenario of scenarios) {
      it.effect(`${scenario.name}: the resumed file equals an uninterrupted export`, () =>
        Effect.gen(function*() {
          const exchange = yield* TestExchange.TestExchange
          const env = yield* aliceEnv
          const reference = join(dir, `reference-${scenario.seed}`)
          const whole = yield* runBuilt(["bills", "export", "--out", reference, ...scenario.args], env)
          assert.strictEqual(whole.exitCode, 0, whole.stderr)
          const expected = readFileSync(reference, "utf8")
          const rows = linesOf(expected).length
          assert.isAtLeast(rows, BILLS)

          const file = join(dir, `resumed-${scenario.seed}`)
          writeFileSync(file, "an earlier export\n")
          // Pages answer a little late, so that an export lasts long enough to be killed in the middle.
          yield* exchange.injectFault({ fault: Fault.latency(PAGE_LATENCY), path: BILLS_PATH })
          const next = random(scenario.seed)
          // Each kill at a random point: mostly once the run has written new rows (a random time after its first new
          // page), sometimes a random time after its start, before any row.
          const points: Array<string> = []
          let kills = 0
          let progressed = 0
          let finished = false
          for (let attempt = 0; attempt < KILLS + 20 && !finished; attempt++) {
            const early = next() < 0.2
            const delay = Math.round(next() * (early ? 600 : 300))
            const before = size(`${file}.partial`)
            const kill = kills < KILLS
            const ended = yield* Effect.scoped(Effect.gen(function*() {
              const handle = yield* spawn(["bills", "export", "--out", file, "--resume", ...scenario.args], env)
              const stderr = yield* Effect.forkScoped(decodeAll(handle.stderr))
              const exitCode = yield* Effect.forkScoped(handle.exitCode)
              if (kill) {
                while (!early && size(`${file}.partial`) <= before && exitCode.pollUnsafe() === undefined) {
                  yield* Effect.sleep(5)
                }
                yield* Effect.sleep(delay)
                if (exitCode.pollUnsafe() === undefined) {
                  yield* handle.kill({ killSignal: "SIGKILL" })
                  // Its end (which the platform reports as a failure: killed by a signal).
                  yield* Effect.ignore(Fiber.join(exitCode))
                  return undefined
                }
              }
              return { code: Number(yield* Fiber.join(exitCode)), stderr: yield* Fiber.join(stderr) }
            }))
            if (ended === undefined) {
              kills++
              points.push(`${early ? "start" : "rows"}+${delay}ms`)
              if (size(`${file}.partial`) > before) progressed++
              assert.strictEqual(readFileSync(file, "utf8"), "an earlier export\n", "FILE changed before the end")
              continue
            }
            assert.strictEqual(ended.code, 0, `${ended.stderr} (kills at ${points.join(", ")})`)
            finished = true
          }
          const delays = points
          yield* exchange.clearFaults
          assert.isTrue(finished, `never finished (kills at ${delays.join(", ")})`)
          // A run may finish before its kill comes: at least most of them were killed.
          assert.isAtLeast(kills, KILLS - 2, `too few kills (at ${delays.join(", ")})`)
          assert.isAtLeast(progressed, 1)
          const resumed = readFileSync(file, "utf8")
          // Row for row, and byte for byte.
          assert.deepStrictEqual(linesOf(resumed).length, rows)
          assert.strictEqual(resumed, expected, `kills at ${delays.join(", ")}`)
          assert.isFalse(existsSync(`${file}.partial`) || existsSync(`${file}.partial.json`))
          // The figures for RELIABILITY.md.
          console.info(
            `resume ${scenario.name}: ${kills} SIGKILLs (${progressed} after new rows), ${rows} lines, equal: true`
          )
        }).pipe(Effect.provide(NodeServices.layer)), FULL ? 3_600_000 : 300_000)
    }
  })
})
