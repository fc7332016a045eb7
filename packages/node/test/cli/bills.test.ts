/**
 * `spotkit bills export` (`internal/cli/bills.ts`) where it can go wrong, in process against the sandbox: a file
 * whose last buffered writes fail (a full disk) must not end with exit code 0; a bad flag must leave an earlier export
 * in `--out` alone and print no data; `--since 0` includes every bill; one page of read-ahead, no more; a 429 is
 * announced once.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import { Fault, TestExchange } from "@spotkit/testkit"
import { Deferred, Effect, Fiber, FileSystem } from "effect"
import { existsSync } from "node:fs"
import type * as Output from "../../src/internal/output.ts"
import { aliceEnv, linesOf, runInProcess, sandboxLayer } from "../support/cli.ts"

const HEADER = "billId,coinId,coinName,bizType,deltaAmount,afterAmount,fees,cTime\n"
const FAR_FUTURE = "4102444800000" // 2100-01-01: no bill is that new
const hasDevFull = existsSync("/dev/full")

describe("bills export, in process, against the sandbox", () => {
  const { layer } = sandboxLayer({ seed: 5, bills: 40, retryAfterSeconds: 1 })

  it.layer(layer, { excludeTestServices: true })("edge cases", (it) => {
    const exportWith = (args: ReadonlyArray<string>) =>
      Effect.flatMap(aliceEnv, (env) => runInProcess(["bills", "export", ...args], env))

    const billRequests = Effect.map(
      Effect.flatMap(Effect.service(TestExchange.TestExchange), (exchange) => exchange.requests),
      (requests) => requests.filter((request) => request.path === "/api/v2/account/fundingBills")
    )

    it.effect.skipIf(!hasDevFull)(
      "--out on a full disk: exit code 1 and one line, never \"exported\"",
      () =>
        Effect.gen(function*() {
          // No bill matches: the header is the only write, still in the stream's buffer when the export ends.
          const run = yield* exportWith(["--since", FAR_FUTURE, "--out", "/dev/full", "--progress"])
          assert.strictEqual(run.exitCode, 1, run.stderr)
          assert.strictEqual(run.stdout, "")
          const lines = linesOf(run.stderr)
          assert.strictEqual(lines.length, 1, run.stderr)
          assert.include(lines[0], "ENOSPC")
        })
    )

    it.effect.skipIf(!hasDevFull)(
      "--out on a full disk after rows were handed to it: says \"up to\" those rows, not that they are complete",
      () =>
        Effect.gen(function*() {
          const run = yield* exportWith(["--out", "/dev/full", "--page-size", "10"])
          assert.strictEqual(run.exitCode, 1, run.stderr)
          assert.strictEqual(run.stdout, "")
          assert.include(run.stderr, "ENOSPC")
          assert.notInclude(run.stderr, "every row written is complete")
          assert.match(
            run.stderr,
            /the export failed after up to [\d,]+ rows to \/dev\/full; the last may be incomplete/
          )
        })
    )

    it.effect("reads one page ahead: the next page is requested while a page is written, and no more", () =>
      Effect.gen(function*() {
        const env = yield* aliceEnv
        const gate = yield* Deferred.make<void>()
        const written: Array<string> = []
        // Write 1 is the header, write 2 the first page: that one waits until the gate opens.
        const stdout: Output.Channel = {
          isTTY: false,
          write: (text) =>
            Effect.suspend(() => {
              written.push(text)
              return written.length === 2 ? Deferred.await(gate) : Effect.void
            })
        }
        const before = (yield* billRequests).length
        const run = yield* Effect.forkChild(
          runInProcess(["bills", "export", "--page-size", "5"], env, { stdout })
        )
        const requested = () => Effect.map(billRequests, (requests) => requests.length - before)
        for (let i = 0; i < 400 && (written.length < 2 || (yield* requested()) < 2); i++) yield* Effect.sleep(5)
        assert.strictEqual(written.length, 2, "the first page is being written")
        assert.isAtLeast(yield* requested(), 2, "the second page was requested during the first page's write")
        yield* Effect.sleep(100)
        // One page waits in the buffer and at most one more request is in flight: the read-ahead is bounded.
        assert.isAtMost(yield* requested(), 3)
        yield* Deferred.succeed(gate, undefined)
        const result = yield* Fiber.join(run)
        assert.strictEqual(result.exitCode, 0, result.stderr)
        assert.strictEqual(linesOf(written.join("")).length, 42 + 1, "every bill once, and the header")
      }))

    const badFlags: ReadonlyArray<readonly [string, ReadonlyArray<string>, string]> = [
      ["--until before --since", ["--since", "2024-06-01", "--until", "2024-05-01"], "--until"],
      ["--since a year mistyped", ["--since", "0224-05-01"], "--since: 0224-05-01 is before 2001"],
      ["--page-size 0", ["--page-size", "0"], "--page-size"],
      ["--page-size 101", ["--page-size", "101"], "--page-size"],
      ["--coin-id -1", ["--coin-id", "-1"], "--coin-id"]
    ]
    for (const [name, args, flag] of badFlags) {
      it.effect(`${name}: exit code 2 naming ${flag}; the --out file is untouched; no data, nothing sent`, () =>
        Effect.gen(function*() {
          const fs = yield* FileSystem.FileSystem
          const dir = yield* fs.makeTempDirectoryScoped({ prefix: "spotkit-keep-" })
          const path = `${dir}/bills.csv`
          yield* fs.writeFileString(path, "an earlier export\n")
          const before = (yield* billRequests).length
          const run = yield* exportWith([...args, "--out", path])
          assert.strictEqual(run.exitCode, 2, run.stderr)
          assert.strictEqual(linesOf(run.stderr).length, 1, run.stderr)
          assert.include(run.stderr, flag)
          assert.strictEqual(yield* fs.readFileString(path), "an earlier export\n")
          const onStdout = yield* exportWith(args)
          assert.strictEqual(onStdout.exitCode, 2)
          assert.strictEqual(onStdout.stdout, "")
          assert.strictEqual((yield* billRequests).length, before)
        }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))
    }

    it.effect("a file name holding a terminal's escape sequences: exported, and named as one printable line", () =>
      Effect.gen(function*() {
        const fs = yield* FileSystem.FileSystem
        const dir = yield* fs.makeTempDirectoryScoped({ prefix: "spotkit-name-" })
        const path = `${dir}/b\u001b]0;pwned\u0007\u001b[2J\u009b31m.csv`
        const run = yield* exportWith(["--out", path])
        assert.strictEqual(run.exitCode, 0, run.stderr)
        assert.isTrue(yield* fs.exists(path))
        // eslint-disable-next-line no-control-regex
        assert.notMatch(run.stderr, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/, JSON.stringify(run.stderr))
        assert.include(run.stderr, "b\\u001b]0;pwned\\u0007", JSON.stringify(run.stderr))
      }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

    it.effect("429s: the first announced once on stderr without --progress, with the venue's Retry-After; the export goes on", () =>
      Effect.gen(function*() {
        const exchange = yield* TestExchange.TestExchange
        const all = yield* exportWith([])
        yield* exchange.injectFault({ fault: Fault.rateLimited, path: "/api/v2/account/fundingBills", times: 2 })
        const run = yield* exportWith(["--page-size", "10"]).pipe(Effect.ensuring(exchange.clearFaults))
        assert.strictEqual(run.exitCode, 0, run.stderr)
        assert.strictEqual(run.stdout, all.stdout)
        const lines = linesOf(run.stderr)
        assert.deepStrictEqual(lines.slice(0, -1), [
          "spotkit: the venue answered 429 (too many requests); every request waits 1 s, as it asked (Retry-After), " +
          "before it is sent again"
        ])
        assert.match(lines.at(-1)!, /^spotkit: exported 42 rows, /)
      }))

    it.effect("an export the venue has nothing for: its one request counted as a page (\"0 rows, 1 page\")", () =>
      Effect.gen(function*() {
        const before = (yield* billRequests).length
        const run = yield* exportWith(["--since", FAR_FUTURE])
        assert.strictEqual(run.exitCode, 0, run.stderr)
        assert.strictEqual(run.stdout, HEADER)
        assert.strictEqual((yield* billRequests).length - before, 1)
        assert.match(run.stderr, /^spotkit: exported 0 rows, 1 page, 0 rows\/s, [\d.]+ s\n$/)
      }))

    it.effect("--resume with a description of another export but no FILE.partial: nothing to continue, starts afresh", () =>
      Effect.gen(function*() {
        // What a kill leaves between removing an earlier export's rows and writing the new description.
        const fs = yield* FileSystem.FileSystem
        const dir = yield* fs.makeTempDirectoryScoped({ prefix: "spotkit-stale-" })
        const path = `${dir}/bills.csv`
        const other = { spotkit: 1, command: "bills export", format: "csv", csvRaw: false, filters: { coinId: 2 } }
        yield* fs.writeFileString(`${path}.partial.json`, JSON.stringify(other) + "\n")
        const all = yield* exportWith([])
        const run = yield* exportWith(["--out", path, "--resume"])
        assert.strictEqual(run.exitCode, 0, run.stderr)
        assert.strictEqual(yield* fs.readFileString(path), all.stdout)
        assert.isFalse(yield* fs.exists(`${path}.partial.json`))
      }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

    // `-` is stdout, as for other Unix tools (before, it was a file named "-" in the working directory, replaced by each
    // export); `./-` still names that file.
    it.effect("--out - writes to stdout, as no --out does; no file named - is written; --resume needs a FILE", () =>
      Effect.gen(function*() {
        const fs = yield* FileSystem.FileSystem
        const stray = `${process.cwd()}/-`
        assert.isFalse(yield* fs.exists(stray), "a file named - before the test")
        const all = yield* exportWith([])
        const dash = yield* exportWith(["--out", "-"]).pipe(
          Effect.ensuring(Effect.ignore(fs.remove(stray)))
        )
        assert.strictEqual(dash.exitCode, 0, dash.stderr)
        assert.strictEqual(dash.stdout, all.stdout)
        assert.match(dash.stderr, /^spotkit: exported [\d,]+ rows, [\d,]+ pages?, [\d,]+ rows\/s, [\d.]+ s\n$/)
        const resume = yield* exportWith(["--out", "-", "--resume"])
        assert.strictEqual(resume.exitCode, 2, resume.stderr)
        assert.strictEqual(resume.stdout, "")
        assert.isFalse(yield* fs.exists(stray))
      }).pipe(Effect.provide(NodeServices.layer)))

    it.effect("--since 0 asks for every bill (no exclusive startTime of 0); --since 0 --until 0 is empty", () =>
      Effect.gen(function*() {
        const all = yield* exportWith([])
        const before = (yield* billRequests).length
        const since0 = yield* exportWith(["--since", "0"])
        assert.strictEqual(since0.exitCode, 0, since0.stderr)
        assert.strictEqual(since0.stdout, all.stdout)
        for (const request of (yield* billRequests).slice(before)) assert.notInclude(request.body, "startTime")
        const empty = yield* exportWith(["--since", "0", "--until", "0"])
        assert.strictEqual(empty.exitCode, 0, empty.stderr)
        assert.strictEqual(empty.stdout, HEADER)
      }))
  })
})

describe("bills export from a venue that answers about another coin than the one asked", () => {
  // A gateway that routes the request elsewhere, or a body rewritten on the way: the bills say BTC (coin 1).
  let rewriting = false
  const otherCoin = (path: string, body: string) =>
    rewriting && path.startsWith("/api/v2/account/fundingBills")
      ? body.replaceAll(`"coinId":2,"coinName":"USDT"`, `"coinId":1,"coinName":"BTC"`)
      : body
  const { layer } = sandboxLayer({ seed: 73, bills: 40, rewrite: otherCoin })

  it.layer(layer, { excludeTestServices: true, timeout: "60 seconds" })("against the sandbox", (it) => {
    it.effect("--coin-id 2 writes no bill of coin 1: one line naming both coins, exit code 1", () =>
      Effect.gen(function*() {
        const env = yield* aliceEnv
        const clean = yield* runInProcess(["bills", "export", "--coin-id", "2"], env)
        assert.strictEqual(clean.exitCode, 0, clean.stderr)
        assert.isAbove(linesOf(clean.stdout).length, 1, "the sandbox has USDT bills")
        rewriting = true
        const run = yield* runInProcess(["bills", "export", "--coin-id", "2"], env)
        rewriting = false
        assert.strictEqual(run.exitCode, 1, run.stdout)
        assert.deepStrictEqual(linesOf(run.stdout).slice(1), [])
        assert.strictEqual(linesOf(run.stderr).length, 1, run.stderr)
        assert.include(run.stderr, "the answer names coin 1, not the coin asked 2")
      }))
  })
})
