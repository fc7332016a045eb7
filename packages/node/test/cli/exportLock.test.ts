/**
 * One export at a time writes FILE.partial (review 61-r4): a second `spotkit bills export --out FILE` while one runs is
 * refused (exit code 2) and leaves the first's files alone, so that the first never renames rows it did not write onto
 * FILE and reports success; a lock left by a process that is gone is taken over, one of another machine named. And
 * `--since 0` is every record, as no `--since`: a resume may give either.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import { Fault, TestExchange } from "@spotkit/testkit"
import { Effect, Fiber, FileSystem } from "effect"
import { spawnSync } from "node:child_process"
import { existsSync, lstatSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { hostname } from "node:os"
import { aliceEnv, runInProcess, sandboxLayer } from "../support/cli.ts"

const BILLS_PATH = "/api/v2/account/fundingBills"

describe("bills export --out FILE: one export at a time", () => {
  const { layer } = sandboxLayer({ seed: 37, bills: 60 })

  it.layer(layer, { excludeTestServices: true, timeout: "60 seconds" })("against the sandbox", (it) => {
    const cli = (args: ReadonlyArray<string>) =>
      Effect.flatMap(aliceEnv, (env) => runInProcess(["bills", "export", ...args], env))

    const setup = Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* fs.makeTempDirectoryScoped({ prefix: "spotkit-lock-" })
      const reference = `${dir}/reference.csv`
      const run = yield* cli(["--out", reference])
      assert.strictEqual(run.exitCode, 0, run.stderr)
      assert.isFalse(existsSync(`${reference}.partial.lock`), "the lock goes with the export")
      return { dir, whole: readFileSync(reference, "utf8") }
    })

    it.effect("a second export to FILE while one runs: refused, exit code 2; the first ends whole", () =>
      Effect.gen(function*() {
        const { dir, whole } = yield* setup
        const exchange = yield* TestExchange.TestExchange
        const out = `${dir}/report.csv`
        yield* exchange.injectFault({ fault: Fault.latency(100), path: BILLS_PATH })
        const first = yield* Effect.forkChild(cli(["--out", out, "--page-size", "10"]))
        for (let i = 0; i < 500 && !existsSync(`${out}.partial`); i++) yield* Effect.sleep(5)
        assert.isTrue(existsSync(`${out}.partial`), "the first export is writing")
        for (const args of [["--out", out], ["--out", out, "--resume"]]) {
          const second = yield* cli([...args, "--page-size", "10"])
          assert.strictEqual(second.exitCode, 2, second.stderr)
          assert.include(second.stderr, `another export is writing ${out}.partial (process ${process.pid} holds`)
        }
        const run = yield* Fiber.join(first)
        yield* exchange.clearFaults
        assert.strictEqual(run.exitCode, 0, run.stderr)
        assert.strictEqual(readFileSync(out, "utf8"), whole)
        assert.isFalse(existsSync(`${out}.partial.lock`))
      }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

    it.effect("a lock of a process that is gone is taken over; one of another machine is named, nothing written", () =>
      Effect.gen(function*() {
        const { dir, whole } = yield* setup
        const out = `${dir}/report.csv`
        const gone = spawnSync(process.execPath, ["-e", ""]).pid
        writeFileSync(`${out}.partial.lock`, JSON.stringify({ pid: gone, host: hostname() }) + "\n")
        const taken = yield* cli(["--out", out])
        assert.strictEqual(taken.exitCode, 0, taken.stderr)
        assert.strictEqual(readFileSync(out, "utf8"), whole)
        assert.isFalse(existsSync(`${out}.partial.lock`))
        const lock = JSON.stringify({ pid: process.pid, host: `not-${hostname()}` }) + "\n"
        writeFileSync(`${out}.partial.lock`, lock)
        writeFileSync(out, "an earlier export\n")
        const refused = yield* cli(["--out", out])
        assert.strictEqual(refused.exitCode, 2, refused.stderr)
        assert.include(refused.stderr, `names no process of this machine`)
        assert.include(refused.stderr, `if none runs, remove ${out}.partial.lock`)
        assert.strictEqual(readFileSync(out, "utf8"), "an earlier export\n")
        assert.strictEqual(readFileSync(`${out}.partial.lock`, "utf8"), lock, "left alone")
        assert.isFalse(existsSync(`${out}.partial`))
        // A lock that cannot be created for another reason is not another export: a directory that is not there is
        // the user's --out, said before anything is asked.
        const nowhere = yield* cli(["--out", `${dir}/missing/report.csv`])
        assert.strictEqual(nowhere.exitCode, 2, nowhere.stderr)
        assert.include(nowhere.stderr, `--out: directory ${dir}/missing does not exist`)
        assert.notInclude(nowhere.stderr, "another export")
      }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

    it.effect("a FIFO, a link or a huge file under the lock's name: named, at once, never read (no hang)", () =>
      Effect.gen(function*() {
        const { dir } = yield* setup
        const out = `${dir}/planted.csv`
        const lockPath = `${out}.partial.lock`
        const plants: ReadonlyArray<readonly [string, () => void]> = [
          ["a FIFO", () => void spawnSync("mkfifo", [lockPath])],
          ["a link to /dev/zero", () => symlinkSync("/dev/zero", lockPath)],
          ["a file of 8 KiB", () => writeFileSync(lockPath, "x".repeat(8192))]
        ]
        for (const [name, plant] of plants) {
          plant()
          assert.isTrue(lstatSync(lockPath, { throwIfNoEntry: false }) !== undefined, name)
          const refused = yield* cli(["--out", out]).pipe(Effect.timeout("10 seconds"))
          assert.strictEqual(refused.exitCode, 2, `${name}: ${refused.stderr}`)
          assert.include(refused.stderr, `if none runs, remove ${lockPath}`, name)
          assert.isFalse(existsSync(out), name)
          rmSync(lockPath)
        }
      }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

    it.effect("--since 0 is every record: an export without --since resumed with --since 0", () =>
      Effect.gen(function*() {
        const { dir, whole } = yield* setup
        const out = `${dir}/since.csv`
        // What an export of every bill leaves when it is stopped halfway: its description and half of its rows.
        writeFileSync(`${out}.partial`, whole.slice(0, whole.indexOf("\n", Math.floor(whole.length / 2)) + 1))
        writeFileSync(`${out}.partial.json`, EVERY_BILL)
        const run = yield* cli(["--out", out, "--resume", "--since", "0"])
        assert.strictEqual(run.exitCode, 0, run.stderr)
        assert.include(run.stderr, "after the ")
        assert.strictEqual(readFileSync(out, "utf8"), whole)
      }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))
  })
})

// The description an export of every bill as CSV writes beside its rows.
const EVERY_BILL = JSON.stringify({ spotkit: 1, command: "bills export", format: "csv", csvRaw: false, filters: {} }) +
  "\n"
