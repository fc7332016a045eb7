/**
 * `spotkit bills export` against a hostile venue (its bills carry spreadsheet formulas, terminal escapes, quotes,
 * commas and line breaks in their text), in process against the sandbox: CSV cells a spreadsheet would run are
 * neutralised unless `--csv-raw`; nothing a terminal acts on reaches one, in CSV or NDJSON; a venue that fails
 * mid-export leaves the earlier file alone and its rows in FILE.partial, which `--resume` finishes into exactly the
 * uninterrupted export, also through quoted line breaks; a partial file of another export is refused.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import { Fault, TestExchange } from "@spotkit/testkit"
import { Effect, Fiber, FileSystem } from "effect"
import { aliceEnv, capture, linesOf, runInProcess, sandboxLayer } from "../support/cli.ts"

const BILLS_PATH = "/api/v2/account/fundingBills"
const FORMULA = "=HYPERLINK(\"http://evil.example\",\"x\")"
const ESCAPE = "\u001b]8;;http://evil.example\u0007\"a,b\"\nnext "

// USDT bills are named by a formula, BTC bills by another; every bizType starts with an OSC 8 link, quotes, a comma
// and a line break.
const rewrite = (path: string, body: string) =>
  path !== BILLS_PATH ? body : body
    .replaceAll("\"coinName\":\"USDT\"", `"coinName":${JSON.stringify(FORMULA)}`)
    .replaceAll("\"coinName\":\"BTC\"", "\"coinName\":\"@SUM(1+1)\"")
    .replaceAll("\"bizType\":\"", `"bizType":${JSON.stringify(ESCAPE).slice(0, -1)}`)

// eslint-disable-next-line no-control-regex
const TERMINAL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/

describe("bills export from a hostile venue, in process", () => {
  const { layer } = sandboxLayer({ seed: 77, bills: 400, rewrite })

  it.layer(layer, { excludeTestServices: true, timeout: "60 seconds" })("against the sandbox", (it) => {
    const cli = (args: ReadonlyArray<string>, stdout?: ReturnType<typeof capture>) =>
      Effect.flatMap(aliceEnv, (env) => runInProcess(["bills", "export", ...args], env, { stdout: stdout?.channel }))

    it.effect("CSV: formula cells get a leading '; --csv-raw keeps them; quotes and line breaks stay RFC 4180", () =>
      Effect.gen(function*() {
        const safe = yield* cli(["--page-size", "50"])
        assert.strictEqual(safe.exitCode, 0, safe.stderr)
        assert.include(safe.stdout, `,"'${FORMULA.replaceAll("\"", "\"\"")}",`)
        assert.include(safe.stdout, ",'@SUM(1+1),")
        assert.notMatch(safe.stdout, /,=|,@/)
        const raw = yield* cli(["--page-size", "50", "--csv-raw"])
        assert.strictEqual(raw.exitCode, 0, raw.stderr)
        assert.include(raw.stdout, `,"${FORMULA.replaceAll("\"", "\"\"")}",`)
        assert.include(raw.stdout, ",@SUM(1+1),")
        // The same rows otherwise: raw is safe without the added quotes.
        assert.strictEqual(safe.stdout.replaceAll("'=", "=").replaceAll("'@", "@"), raw.stdout)
      }))

    it.effect("to a terminal: no control character from the venue, in CSV or NDJSON; one line per row", () =>
      Effect.gen(function*() {
        for (const format of ["csv", "ndjson"]) {
          const tty = capture(true)
          const run = yield* cli(["--format", format], tty)
          assert.strictEqual(run.exitCode, 0, run.stderr)
          const text = tty.chunks.join("")
          for (const line of linesOf(text)) assert.notMatch(line, TERMINAL, format)
          assert.include(text, "\\u001b]8;;http://evil.example\\u0007", format)
          // 400 bills and two deposits, one line each (and the CSV header).
          assert.strictEqual(linesOf(text).length, 402 + (format === "csv" ? 1 : 0), format)
        }
      }))

    it.effect("the venue fails after some pages: the earlier file as it was, the rows in FILE.partial; --resume", () =>
      Effect.gen(function*() {
        const fs = yield* FileSystem.FileSystem
        const exchange = yield* TestExchange.TestExchange
        const dir = yield* fs.makeTempDirectoryScoped({ prefix: "spotkit-hostile-" })
        const path = `${dir}/bills.csv`
        const reference = yield* cli(["--page-size", "20", "--out", `${dir}/reference.csv`])
        assert.strictEqual(reference.exitCode, 0, reference.stderr)
        const whole = yield* fs.readFileString(`${dir}/reference.csv`)
        yield* fs.writeFileString(path, "an earlier export\n")
        // Slow pages; once a few are on disk, the venue starts refusing (a permission error is not retried).
        yield* exchange.injectFault({ fault: Fault.latency(40), path: BILLS_PATH })
        const running = yield* Effect.forkChild(cli(["--page-size", "20", "--out", path]))
        const written = () =>
          Effect.map(Effect.orElseSucceed(fs.readFileString(`${path}.partial`), () => ""), (t) => t.length)
        // A few pages of 20 rows on disk.
        for (let i = 0; i < 400 && (yield* written()) < 10_000; i++) yield* Effect.sleep(10)
        yield* exchange.clearFaults
        yield* exchange.injectFault({ fault: Fault.venueError("40014", "Incorrect permissions"), path: BILLS_PATH })
        const failed = yield* Fiber.join(running)
        yield* exchange.clearFaults
        assert.strictEqual(failed.exitCode, 1, failed.stderr)
        assert.strictEqual(yield* fs.readFileString(path), "an earlier export\n")
        const partial = yield* fs.readFileString(`${path}.partial`)
        assert.isTrue(whole.startsWith(partial), "the partial file is a prefix of the export")
        assert.isBelow(partial.length, whole.length)
        const lines = linesOf(failed.stderr)
        assert.strictEqual(lines.length, 2, failed.stderr)
        assert.match(
          lines[0]!,
          new RegExp(
            `^spotkit: the export failed after [\\d,]+ rows; the [\\d,]+ rows are in ${
              path.replaceAll(".", "\\.")
            }\\.partial \\(--resume continues it\\); ${path.replaceAll(".", "\\.")} is untouched$`
          )
        )
        assert.include(lines[1], "40014")

        // Another export's flags: refused, nothing touched.
        const other = yield* cli(["--page-size", "20", "--out", path, "--resume", "--coin-id", "2"])
        assert.strictEqual(other.exitCode, 2, other.stderr)
        assert.include(other.stderr, "holds another export")
        assert.strictEqual(yield* fs.readFileString(`${path}.partial`), partial)

        // The same flags with --resume: exactly the uninterrupted export, through quoted line breaks.
        const resumed = yield* cli(["--page-size", "20", "--out", path, "--resume"])
        assert.strictEqual(resumed.exitCode, 0, resumed.stderr)
        assert.strictEqual(yield* fs.readFileString(path), whole)
        assert.isFalse(yield* fs.exists(`${path}.partial`))
        assert.isFalse(yield* fs.exists(`${path}.partial.json`))
      }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

    it.effect("--resume after a cut in the middle of a row (a kill mid-write): the cut row is dropped and written again", () =>
      Effect.gen(function*() {
        const fs = yield* FileSystem.FileSystem
        const dir = yield* fs.makeTempDirectoryScoped({ prefix: "spotkit-cut-" })
        const path = `${dir}/bills.ndjson`
        for (const format of ["csv", "ndjson"]) {
          const done = yield* cli(["--format", format, "--out", path])
          assert.strictEqual(done.exitCode, 0, done.stderr)
          const whole = yield* fs.readFileString(path)
          // What a kill would leave: the description, and the rows up to the middle of one (inside a quoted cell).
          const cut = whole.slice(0, Math.floor(whole.length / 3))
          // Nothing to resume: it starts afresh.
          const again = yield* cli(["--format", format, "--out", path, "--resume", "--page-size", "30"])
          assert.strictEqual(again.exitCode, 0, again.stderr)
          assert.strictEqual(yield* fs.readFileString(path), whole, format)
          yield* fs.writeFileString(`${path}.partial`, cut)
          yield* fs.writeFileString(
            `${path}.partial.json`,
            JSON.stringify({
              spotkit: 1,
              command: "bills export",
              format,
              csvRaw: false,
              filters: { since: undefined, until: undefined }
            }) + "\n"
          )
          const resumed = yield* cli(["--format", format, "--out", path, "--resume", "--page-size", "30"])
          assert.strictEqual(resumed.exitCode, 0, resumed.stderr)
          assert.strictEqual(yield* fs.readFileString(path), whole, format)
        }
      }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))
  })
})
