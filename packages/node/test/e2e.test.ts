/**
 * The built CLI (`node dist/bin/spotkit.js`, see `globalSetup.ts`) as a real subprocess against the sandbox on a
 * loopback port, acting as alice of the seeded demo exchange: exports equal the engine's funding ledger row for row,
 * with every filter; each exit code (0, 1, 2, 130 after SIGINT, 143 after SIGTERM); progress only on request; orders and a transfer move
 * the engine as they say; and no secret or signature in any output of any run.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import { Fault, TestExchange } from "@spotkit/testkit"
import type { Engine } from "@spotkit/testkit"
import { Effect, Fiber } from "effect"
import { spawn as spawnChild } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll } from "vitest"
import {
  aliceEnv,
  builtCli,
  decodeAll,
  linesOf,
  type Run,
  runBuilt,
  sandboxLayer,
  secretsOf,
  spawn
} from "./support/cli.ts"

const BILLS = 3000
const BILLS_PATH = "/api/v2/account/fundingBills"
const HEADER = "billId,coinId,coinName,bizType,deltaAmount,afterAmount,fees,cTime"

const { layer: SandboxLayer, signatures } = sandboxLayer({ seed: 42, bills: BILLS })

const dir = mkdtempSync(join(tmpdir(), "spotkit-e2e-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

// Every run of the file, for the final check that no secret was ever printed; and the secrets to look for (alice's,
// and a wrong one that a test signs with).
const runs: Array<Run> = []
const WRONG_SECRET = "not-alices-secret-5f1c9e"
const secrets = new Set<string>([WRONG_SECRET])

/** Runs the built CLI as alice (with `env` changes), records the run and checks it printed no secret. */
const cli = (args: ReadonlyArray<string>, change: Record<string, string | undefined> = {}) =>
  Effect.gen(function*() {
    const base = yield* aliceEnv
    for (const secret of secretsOf(base)) secrets.add(secret)
    const env: Record<string, string> = {}
    for (const [name, value] of Object.entries({ ...base, ...change })) if (value !== undefined) env[name] = value
    const run = yield* runBuilt(args, env)
    runs.push(run)
    for (const secret of secrets) {
      assert.notInclude(run.stdout + run.stderr, secret, `${args.join(" ")} printed a secret`)
    }
    return run
  })

const oneLine = (run: Run) => {
  const lines = linesOf(run.stderr)
  assert.strictEqual(lines.length, 1, `${run.args.join(" ")}: ${run.stderr}`)
  return lines[0]!
}

// ---------------------------------------------------------------------------------------------------------------
// the engine's view of alice's funding bills

const aliceId = Effect.map(Effect.service(TestExchange.TestExchange), (exchange) => exchange.accounts[0]!.userId)

/** alice's funding ledger, newest first (cTime, then billId, descending: the bills endpoint's order). */
const ledger = Effect.gen(function*() {
  const exchange = yield* TestExchange.TestExchange
  const entries = exchange.engine.ledgerOf(yield* aliceId, "FUND").slice()
  return entries.sort((a, b) => Number(b.cTime) - Number(a.cTime) || (BigInt(b.billId) > BigInt(a.billId) ? 1 : -1))
})

interface Filter {
  readonly coinId?: number
  readonly since?: number
  readonly until?: number
}

const expected = (filter: Filter = {}) =>
  Effect.map(
    ledger,
    (entries) =>
      entries.filter((bill) =>
        (filter.coinId === undefined || bill.coinId === filter.coinId) &&
        (filter.since === undefined || Number(bill.cTime) >= filter.since) &&
        (filter.until === undefined || Number(bill.cTime) < filter.until)
      )
  )

const csvRow = (bill: Engine.BillView) =>
  [bill.billId, bill.coinId, bill.coinName, bill.bizType, bill.deltaAmount, bill.afterAmount, bill.fees, bill.cTime]
    .join(",")

const ndjsonRow = (bill: Engine.BillView) =>
  JSON.stringify({
    billId: bill.billId,
    coinId: bill.coinId,
    coinName: bill.coinName,
    bizType: bill.bizType,
    deltaAmount: bill.deltaAmount,
    afterAmount: bill.afterAmount,
    fees: bill.fees,
    cTime: Number(bill.cTime)
  })

const csvOf = (bills: ReadonlyArray<Engine.BillView>) => [HEADER, ...bills.map(csvRow)].map((l) => l + "\n").join("")
const ndjsonOf = (bills: ReadonlyArray<Engine.BillView>) => bills.map((bill) => ndjsonRow(bill) + "\n").join("")

/** `millis` as ISO-8601 with a +05:30 offset: the same instant, another zone. */
const isoWithOffset = (millis: number) => new Date(millis + 330 * 60_000).toISOString().replace("Z", "+05:30")

// Decimal amounts as exact integers of 1e-8.
const units = (decimal: string) => {
  const [whole = "0", fraction = ""] = decimal.split(".")
  return BigInt(whole + fraction.padEnd(8, "0"))
}

// ---------------------------------------------------------------------------------------------------------------

it.layer(SandboxLayer, { excludeTestServices: true, timeout: "60 seconds" })(
  "spotkit (built) against the sandbox",
  (it) => {
    describe("bills export", () => {
      it.effect("CSV and NDJSON, to --out and to stdout, equal alice's funding ledger row for row", () =>
        Effect.gen(function*() {
          const all = yield* expected()
          // The demo's history plus its two FUND deposits.
          assert.strictEqual(all.length, BILLS + 2)
          const csvFile = join(dir, "all.csv")
          const ndjsonFile = join(dir, "all.ndjson")
          const [toCsvFile, toNdjsonFile, csvStdout, ndjsonStdout] = yield* Effect.all([
            cli(["bills", "export", "--out", csvFile]),
            cli(["bills", "export", "--format", "ndjson", "--out", ndjsonFile]),
            cli(["bills", "export"]),
            cli(["bills", "export", "--format", "ndjson"])
          ], { concurrency: 2 })
          for (const run of [toCsvFile, toNdjsonFile, csvStdout, ndjsonStdout]) {
            assert.strictEqual(run.exitCode, 0, run.stderr)
            // No progress unless asked for (stderr is a pipe here): the summary line alone.
            assert.match(
              run.stderr,
              new RegExp(
                `^spotkit: exported ${new Intl.NumberFormat("en-US").format(all.length)} rows, \\d+ pages, ` +
                  `[\\d,]+ rows/s, [\\d.]+ s( to ${dir}/all\\.(csv|ndjson))?\n$`
              )
            )
          }
          // Renamed from FILE.partial once whole: no partial file is left.
          assert.isFalse(existsSync(`${csvFile}.partial`) || existsSync(`${csvFile}.partial.json`))
          assert.strictEqual(toCsvFile.stdout, "")
          assert.strictEqual(toNdjsonFile.stdout, "")
          assert.strictEqual(readFileSync(csvFile, "utf8"), csvOf(all))
          assert.strictEqual(readFileSync(ndjsonFile, "utf8"), ndjsonOf(all))
          // stdout without --out is exactly the data.
          assert.strictEqual(csvStdout.stdout, csvOf(all))
          assert.strictEqual(ndjsonStdout.stdout, ndjsonOf(all))
        }))

      it.effect("--coin-id, --since (inclusive) and --until (exclusive), as epochs and ISO-8601, give exact subsets", () =>
        Effect.gen(function*() {
          const all = yield* expected()
          const times = [...new Set(all.map((bill) => Number(bill.cTime)))].sort((a, b) => a - b)
          // Bounds that are the times of real bills, so inclusive and exclusive differ.
          const since = times[Math.floor(times.length * 0.3)]!
          const until = times[Math.floor(times.length * 0.7)]!
          const coinId = all.find((bill) => bill.coinName === "USDT")!.coinId
          const cases: ReadonlyArray<{ readonly args: ReadonlyArray<string>; readonly filter: Filter }> = [
            { args: ["--coin-id", String(coinId)], filter: { coinId } },
            { args: ["--since", String(since)], filter: { since } },
            { args: ["--until", String(until)], filter: { until } },
            { args: ["--since", String(since), "--until", String(until)], filter: { since, until } },
            {
              args: [
                "--since",
                new Date(since).toISOString(),
                "--until",
                isoWithOffset(until),
                "--coin-id",
                String(coinId)
              ],
              filter: { since, until, coinId }
            },
            { args: ["--since", String(since), "--until", String(since + 1)], filter: { since, until: since + 1 } }
          ]
          const results = yield* Effect.forEach(
            cases,
            ({ args }) => cli(["bills", "export", "--format", "ndjson", ...args]),
            { concurrency: 2 }
          )
          for (let i = 0; i < cases.length; i++) {
            const { args, filter } = cases[i]!
            const run = results[i]!
            const subset = yield* expected(filter)
            assert.strictEqual(run.exitCode, 0, `${args.join(" ")}: ${run.stderr}`)
            assert.isAbove(subset.length, 0, args.join(" "))
            assert.isBelow(subset.length, all.length, args.join(" "))
            assert.strictEqual(run.stdout, ndjsonOf(subset), args.join(" "))
          }
          // The bill at exactly --since is in; one at exactly --until is out.
          assert.isTrue(linesOf(results[1]!.stdout).some((line) => JSON.parse(line).cTime === since))
          assert.isFalse(linesOf(results[2]!.stdout).some((line) => JSON.parse(line).cTime === until))
        }))

      it.effect("--progress writes progress and a summary on stderr (pages: the requests made); the data stays exact", () =>
        Effect.gen(function*() {
          const exchange = yield* TestExchange.TestExchange
          const file = join(dir, "progress.csv")
          const all = yield* expected()
          const rows = new Intl.NumberFormat("en-US").format(all.length)
          for (const args of [["--out", file, "--page-size", "50"], []]) {
            yield* exchange.clearRequests
            const run = yield* cli(["bills", "export", "--progress", ...args])
            assert.strictEqual(run.exitCode, 0)
            assert.strictEqual(args.length === 0 ? run.stdout : readFileSync(file, "utf8"), csvOf(all))
            if (args.length > 0) assert.strictEqual(run.stdout, "")
            const requests = (yield* exchange.requests).filter((request) => request.path === BILLS_PATH)
            // One request of a single bill asks the venue for the total (the progress line's ETA); the rest are pages.
            const totals = requests.filter((request) => /"pageSize":1[,}]/.test(request.body))
            assert.strictEqual(totals.length, 1)
            const pages = requests.length - totals.length
            const lines = linesOf(run.stderr)
            assert.isAbove(lines.length, 0)
            // Plain lines (no carriage returns or escapes: stderr is no terminal), the summary last.
            for (const line of lines) assert.match(line, /^spotkit: [\d,]+ rows( of [\d,]+)?, |^spotkit: exported /)
            assert.notInclude(run.stderr, "\r")
            assert.match(
              lines.at(-1)!,
              new RegExp(
                `^spotkit: exported ${rows} rows, ${pages} pages, [\\d,]+ rows/s, [\\d.]+ s${
                  args.length > 0 ? ` to ${file}` : ""
                }$`
              )
            )
          }
        }))

      for (const [signal, code] of [["SIGINT", 130], ["SIGTERM", 143]] as const) {
        it.effect(`${signal} during a slow export: exit code ${code}; FILE as it was, the rows so far in FILE.partial`, () =>
          Effect.gen(function*() {
            const exchange = yield* TestExchange.TestExchange
            const file = join(dir, `interrupted-${signal}.csv`)
            const partial = `${file}.partial`
            writeFileSync(file, "an earlier export\n")
            const all = yield* expected()
            // Each page answers 150 ms late: the whole export would take about 4.5 s.
            yield* exchange.injectFault({ fault: Fault.latency(150), path: BILLS_PATH })
            const env = yield* aliceEnv
            const run = yield* Effect.scoped(Effect.gen(function*() {
              const handle = yield* spawn(["bills", "export", "--out", file], env)
              const stdout = yield* Effect.forkScoped(decodeAll(handle.stdout))
              const stderr = yield* Effect.forkScoped(decodeAll(handle.stderr))
              // Wait for the header and three pages on disk, then press Ctrl-C.
              const written = () => {
                try {
                  return linesOf(readFileSync(partial, "utf8")).length
                } catch {
                  return 0
                }
              }
              while (written() < 301) yield* Effect.sleep("25 millis")
              yield* handle.kill({ killSignal: signal })
              const exitCode = Number(yield* handle.exitCode)
              return {
                args: ["bills", "export", "--out", file],
                exitCode,
                stdout: yield* Fiber.join(stdout),
                stderr: yield* Fiber.join(stderr)
              }
            })).pipe(
              Effect.timeout("30 seconds"),
              Effect.provide(NodeServices.layer),
              Effect.ensuring(exchange.clearFaults)
            )
            runs.push(run)
            assert.strictEqual(run.exitCode, code, run.stderr)
            assert.strictEqual(readFileSync(file, "utf8"), "an earlier export\n", "the earlier export is untouched")
            const text = readFileSync(partial, "utf8")
            assert.isTrue(text.endsWith("\n"), "the file ends inside a row")
            const lines = linesOf(text)
            assert.strictEqual(lines[0], HEADER)
            for (const line of lines) assert.strictEqual(line.split(",").length, 8, line)
            const rows = lines.slice(1)
            assert.isAtLeast(rows.length, 300)
            // Stopped before the end: it was still running.
            assert.isBelow(rows.length, all.length)
            assert.deepStrictEqual(rows, all.slice(0, rows.length).map(csvRow))
            const count = new Intl.NumberFormat("en-US").format(rows.length)
            assert.include(
              run.stderr,
              `spotkit: interrupted after ${count} rows; the ${count} rows are in ${partial} (--resume continues it); ` +
                `${file} is untouched`
            )
            // --resume finishes it: the file is the whole export, and the partial files are gone.
            const resumed = yield* cli(["bills", "export", "--out", file, "--resume"])
            assert.strictEqual(resumed.exitCode, 0, resumed.stderr)
            assert.strictEqual(readFileSync(file, "utf8"), csvOf(all))
            assert.isFalse(existsSync(partial) || existsSync(`${partial}.json`))
            assert.include(resumed.stderr, `to ${file}, after the ${count} rows of an earlier run`)
          }))
      }

      it.effect("interrupted before the first page: nothing written, and the message says so (never \"0 rows to FILE\")", () =>
        Effect.gen(function*() {
          const exchange = yield* TestExchange.TestExchange
          const file = join(dir, "never-opened.csv")
          yield* exchange.injectFault({ fault: Fault.latency(20_000), path: BILLS_PATH })
          const env = yield* aliceEnv
          yield* exchange.clearRequests
          const run = yield* Effect.scoped(Effect.gen(function*() {
            const handle = yield* spawn(["bills", "export", "--out", file], env)
            const stderr = yield* Effect.forkScoped(decodeAll(handle.stderr))
            // The first page is held back by the venue: wait until it was asked for, then press Ctrl-C.
            while ((yield* exchange.requests).every((request) => request.path !== BILLS_PATH)) {
              yield* Effect.sleep("25 millis")
            }
            yield* handle.kill({ killSignal: "SIGINT" })
            const exitCode = Number(yield* handle.exitCode)
            return { args: ["bills", "export"], exitCode, stdout: "", stderr: yield* Fiber.join(stderr) }
          })).pipe(
            Effect.timeout("30 seconds"),
            Effect.provide(NodeServices.layer),
            Effect.ensuring(exchange.clearFaults)
          )
          runs.push(run)
          assert.strictEqual(run.exitCode, 130, run.stderr)
          assert.strictEqual(oneLine(run), `spotkit: interrupted before any row was written; ${file} was not written`)
          assert.isFalse(existsSync(file) || existsSync(`${file}.partial`))
        }))
    })

    describe("bills export on a disk that fills up", () => {
      it.effect("the message counts the rows FILE.partial holds whole, and --resume finishes it", () =>
        Effect.gen(function*() {
          const file = join(dir, "full-disk.csv")
          const partial = `${file}.partial`
          const all = yield* expected()
          const env = yield* aliceEnv
          // A file size limit of 64 KiB (with SIGXFSZ ignored, a write past it fails with EFBIG) stands in for a disk
          // that fills up: the export (some 300 KB) fails part of the way, a row cut at the limit.
          const run = yield* Effect.callback<Run>((resume) => {
            const args = ["bills", "export", "--out", file]
            const child = spawnChild(
              "bash",
              ["-c", `trap '' XFSZ; ulimit -f 64; exec "$0" "$@"`, process.execPath, builtCli, ...args],
              { env: { PATH: process.env.PATH ?? "", ...env }, stdio: ["ignore", "pipe", "pipe"] }
            )
            let stdout = ""
            let stderr = ""
            child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk))
            child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
            child.on("close", (code) => resume(Effect.succeed({ args, exitCode: code ?? -1, stdout, stderr })))
            return Effect.sync(() => child.kill())
          })
          runs.push(run)
          assert.strictEqual(run.exitCode, 1, run.stderr)
          assert.include(run.stderr, "EFBIG")
          const text = readFileSync(partial, "utf8")
          // The whole rows (a last line without its line break was cut by the limit), below the header.
          const whole = linesOf(text.slice(0, text.lastIndexOf("\n") + 1)).slice(1)
          assert.isAbove(whole.length, 0)
          assert.isBelow(whole.length, all.length)
          assert.deepStrictEqual(whole, all.slice(0, whole.length).map(csvRow))
          const count = new Intl.NumberFormat("en-US").format(whole.length)
          assert.include(
            run.stderr,
            `spotkit: the export failed after ${count} rows; the ${count} rows are in ${partial} (--resume continues ` +
              `it); ${file} was not written`
          )
          const resumed = yield* cli(["bills", "export", "--out", file, "--resume"])
          assert.strictEqual(resumed.exitCode, 0, resumed.stderr)
          assert.include(resumed.stderr, `to ${file}, after the ${count} rows of an earlier run`)
          assert.strictEqual(readFileSync(file, "utf8"), csvOf(all))
        }))
    })

    describe("exit codes", () => {
      it.effect("0: --help of every command, and --version", () =>
        Effect.gen(function*() {
          const cases = [
            ["--help"],
            ["bills", "export", "--help"],
            ["orders", "open", "--help"],
            ["orders", "place", "--help"],
            ["orders", "batch", "--help"],
            ["transfer", "--help"],
            ["orders", "cancel", "--help"],
            ["orders", "get", "--help"],
            ["orders", "history", "--help"],
            ["fills", "export", "--help"],
            ["balances", "--help"],
            ["symbols", "--help"],
            ["transfer", "status", "--help"]
          ]
          const results = yield* Effect.forEach(cases, (args) => cli(args, { SPOTKIT_BASE_URL: undefined }), {
            concurrency: 2
          })
          for (const run of results) {
            assert.strictEqual(run.exitCode, 0, `${run.args.join(" ")}: ${run.stderr}`)
            assert.include(run.stdout, "USAGE")
            assert.strictEqual(run.stderr, "")
          }
          assert.include(results[1]!.stdout, "--since")
          // Each new command says what its exit codes mean.
          assert.include(results[6]!.stdout, "Exit code 0 when every order is cancelled or final")
          assert.include(results[7]!.stdout, "Exit code 1 when the venue knows no such order")
          assert.include(results[9]!.stdout, "--order-id")
          assert.include(results[12]!.stdout, "exit code 1 when none")
          const version = yield* cli(["--version"])
          assert.strictEqual(version.exitCode, 0)
          assert.match(version.stdout, /\d+\.\d+\.\d+/)
          // effect/cli's --wizard is not offered: without a terminal it printed its prompts on stdout and exited 0.
          assert.notInclude(results[0]!.stdout, "--wizard")
          for (const args of [["--wizard"], ["balances", "--wizard"]]) {
            const wizard = yield* cli(args)
            assert.strictEqual(wizard.exitCode, 2, wizard.stderr)
            assert.strictEqual(wizard.stdout, "")
            assert.include(wizard.stderr, "--wizard")
          }
        }))

      it.effect("1: the venue refuses (43012, 40009) or cannot be reached; one line, the venue's code", () =>
        Effect.gen(function*() {
          const exchange = yield* TestExchange.TestExchange
          const bob = exchange.accounts[1]!.userId
          const [insufficient, wrongSecret, unreachable] = yield* Effect.all([
            cli([
              "transfer",
              "--to-user",
              bob,
              "--coin",
              "USDT",
              "--amount",
              "99999999",
              "--from-account",
              "FUND",
              "--to-account",
              "SPOT"
            ]),
            cli(["orders", "open", "--symbol", "BTCUSDT_SPBL"], { SPOTKIT_SECRET_KEY: WRONG_SECRET }),
            // A port nothing listens on (the client retries the transport error, then gives up).
            cli(["orders", "open", "--symbol", "BTCUSDT_SPBL"], { SPOTKIT_BASE_URL: "http://127.0.0.1:9" })
          ], { concurrency: 3 })
          for (const run of [insufficient, wrongSecret, unreachable]) {
            assert.strictEqual(run.exitCode, 1, `${run.args.join(" ")}: ${run.stderr}`)
            assert.strictEqual(run.stdout, "")
            assert.notInclude(run.stderr, "    at ")
          }
          assert.include(oneLine(insufficient), "(code 43012)")
          assert.include(oneLine(wrongSecret), "(code 40009)")
          assert.include(oneLine(unreachable), "127.0.0.1:9")
        }))

      it.effect("2: bad usage, bad values, a missing variable, client-side validation, a bad --file; nothing sent", () =>
        Effect.gen(function*() {
          const exchange = yield* TestExchange.TestExchange
          const invalidFile = join(dir, "invalid.json")
          writeFileSync(invalidFile, "[{\"side\":\"buy\",")
          const place = ["orders", "place", "--symbol", "BTCUSDT_SPBL", "--side", "buy", "--type", "limit"]
          const cases: ReadonlyArray<{
            readonly args: ReadonlyArray<string>
            readonly env?: Record<string, string | undefined>
            readonly mentions: string
          }> = [
            { args: ["bills", "export", "--bogus"], mentions: "--bogus" },
            { args: ["bills", "frobnicate"], mentions: "frobnicate" },
            { args: ["bills", "export", "--format", "xml"], mentions: "--format" },
            { args: ["bills", "export", "--coin-id", "two"], mentions: "--coin-id" },
            { args: ["bills", "export", "--since", "yesterday"], mentions: "--since" },
            { args: ["bills", "export", "--until", "2024-05-01T00:00:00"], mentions: "no time zone" },
            { args: ["bills", "export"], env: { SPOTKIT_API_KEY: undefined }, mentions: "SPOTKIT_API_KEY" },
            { args: ["bills", "export"], env: { SPOTKIT_PASSPHRASE: undefined }, mentions: "SPOTKIT_PASSPHRASE" },
            { args: ["bills", "export"], env: { SPOTKIT_RATE_LIMIT: "sometimes" }, mentions: "SPOTKIT_RATE_LIMIT" },
            { args: [...place, "--price", "29,000", "--quantity", "0.01"], mentions: "price" },
            { args: [...place, "--price", "29000"], mentions: "--quantity" },
            {
              args: ["orders", "batch", "--symbol", "BTCUSDT_SPBL", "--file", join(dir, "absent.json")],
              mentions: "absent.json"
            },
            {
              args: ["orders", "batch", "--symbol", "BTCUSDT_SPBL", "--file", invalidFile],
              mentions: "not valid JSON"
            },
            { args: ["orders", "cancel", "--symbol", "BTCUSDT_SPBL"], mentions: "--all" },
            { args: ["orders", "cancel", "--symbol", "BTCUSDT_SPBL", "--order-id", "x1"], mentions: "orderId" },
            { args: ["orders", "get"], mentions: "--client-order-id" },
            { args: ["orders", "history", "--symbol", "BTCUSDT_SPBL", "--since", "soon"], mentions: "--since" },
            { args: ["fills", "export", "--symbol", "BTCUSDT_SPBL", "--page-size", "500"], mentions: "--page-size" },
            { args: ["fills", "export", "--symbol", "btc"], mentions: "symbol" },
            { args: ["balances", "--format", "xml"], mentions: "--format" },
            { args: ["symbols", "--bogus"], mentions: "--bogus" },
            { args: ["transfer", "status", "--coin", "DOGE"], mentions: "--coin" }
          ]
          yield* exchange.clearRequests
          const results = yield* Effect.forEach(cases, ({ args, env }) => cli(args, env), { concurrency: 2 })
          results.forEach((run, i) => {
            const name = cases[i]!.args.join(" ")
            assert.strictEqual(run.exitCode, 2, `${name}: ${run.stderr}`)
            assert.strictEqual(run.stdout, "", name)
            assert.include(oneLine(run), cases[i]!.mentions, name)
            assert.match(run.stderr, /^spotkit: /, name)
          })
          // Usage errors are caught before anything reaches the venue.
          assert.deepStrictEqual(yield* exchange.requests, [])
        }))
    })

    describe("exit code 2 for everything caught before sending", () => {
      it.effect("bare spotkit: its usage on stderr, exit code 2; nothing on stdout", () =>
        Effect.gen(function*() {
          const run = yield* cli([])
          assert.strictEqual(run.exitCode, 2, run.stderr)
          assert.strictEqual(run.stdout, "")
          assert.include(run.stderr, "USAGE")
          for (const command of ["bills", "orders", "balances", "symbols", "transfer"]) {
            assert.include(run.stderr, command)
          }
        }))

      it.effect("an order that breaks the tick size: refused by the client's rule check, exit code 2, never sent", () =>
        Effect.gen(function*() {
          const exchange = yield* TestExchange.TestExchange
          yield* exchange.clearRequests
          const run = yield* cli([
            "orders",
            "place",
            "--symbol",
            "BTCUSDT_SPBL",
            "--side",
            "buy",
            "--type",
            "limit",
            "--price",
            "29000.005",
            "--quantity",
            "0.01"
          ])
          assert.strictEqual(run.exitCode, 2, run.stderr)
          assert.strictEqual(run.stdout, "")
          assert.include(oneLine(run), "29000.00")
          // The rules were read (exchangeInfo); no order reached the venue.
          const paths = (yield* exchange.requests).map((request) => request.path)
          assert.isTrue(paths.some((path) => path.includes("exchangeInfo")), paths.join(" "))
          assert.isFalse(paths.some((path) => path.includes("/trade/")), paths.join(" "))
        }))

      it.effect("configuration: every missing variable named at once; each bad value named with what is wrong", () =>
        Effect.gen(function*() {
          const exchange = yield* TestExchange.TestExchange
          yield* exchange.clearRequests
          const none = {
            SPOTKIT_BASE_URL: undefined,
            SPOTKIT_API_KEY: undefined,
            SPOTKIT_SECRET_KEY: undefined,
            SPOTKIT_PASSPHRASE: undefined
          }
          const cases: ReadonlyArray<{
            readonly env: Record<string, string | undefined>
            readonly says: ReadonlyArray<string>
          }> = [
            {
              env: none,
              says: [
                "SPOTKIT_BASE_URL, SPOTKIT_API_KEY, SPOTKIT_SECRET_KEY and SPOTKIT_PASSPHRASE are not set",
                "see spotkit --help"
              ]
            },
            {
              env: { SPOTKIT_API_KEY: undefined, SPOTKIT_PASSPHRASE: undefined },
              says: ["SPOTKIT_API_KEY and SPOTKIT_PASSPHRASE are not set"]
            },
            { env: { SPOTKIT_API_KEY: "key\r\nX-Injected: 1" }, says: ["SPOTKIT_API_KEY has a line break (CR or LF)"] },
            { env: { SPOTKIT_PASSPHRASE: "pass\n" }, says: ["SPOTKIT_PASSPHRASE has a line break"] },
            { env: { SPOTKIT_SECRET_KEY: "secret\r" }, says: ["SPOTKIT_SECRET_KEY ends with a carriage return"] },
            { env: { SPOTKIT_BASE_URL: "http://[::1" }, says: ["SPOTKIT_BASE_URL is not a URL"] },
            { env: { SPOTKIT_BASE_URL: "ftp://example.com" }, says: ["SPOTKIT_BASE_URL must start with http:// or"] },
            { env: { SPOTKIT_REDIS_URL: "redis://[bad" }, says: ["SPOTKIT_REDIS_URL is not a URL"] },
            {
              env: { SPOTKIT_REDIS_URL: "http://127.0.0.1:6379" },
              says: ["SPOTKIT_REDIS_URL must start with redis://"]
            },
            { env: { SPOTKIT_LOCALE: "en\nUS" }, says: ["SPOTKIT_LOCALE is not a locale"] },
            { env: { SPOTKIT_MAX_RESPONSE_BYTES: "-5" }, says: ["SPOTKIT_MAX_RESPONSE_BYTES must be a positive"] },
            { env: { SPOTKIT_RATE_LIMIT: "sometimes" }, says: ["SPOTKIT_RATE_LIMIT must be on or off"] },
            {
              env: { SPOTKIT_API_KEY: undefined, SPOTKIT_BASE_URL: "localhost:8080", SPOTKIT_SECRET_KEY: "a\u0007b" },
              says: [
                "SPOTKIT_API_KEY is not set",
                "SPOTKIT_BASE_URL must start with http:// or https://",
                "SPOTKIT_SECRET_KEY has a control character"
              ]
            }
          ]
          const results = yield* Effect.forEach(
            cases,
            ({ env }) => cli(["orders", "open", "--symbol", "BTCUSDT_SPBL"], env),
            { concurrency: 2 }
          )
          results.forEach((run, i) => {
            const name = JSON.stringify(cases[i]!.env)
            assert.strictEqual(run.exitCode, 2, `${name}: ${run.stderr}`)
            assert.strictEqual(run.stdout, "", name)
            const line = oneLine(run)
            assert.notInclude(line, "unexpected failure", name)
            for (const said of cases[i]!.says) assert.include(line, said, name)
          })
          // No secret value is ever quoted.
          assert.notInclude(results.map((run) => run.stderr).join(""), "X-Injected")
          assert.deepStrictEqual(yield* exchange.requests, [])
        }))
    })

    describe("public data", () => {
      it.effect("symbols with only SPOTKIT_BASE_URL set: the rules, as a table, CSV and JSON", () =>
        Effect.gen(function*() {
          const keyless = { SPOTKIT_API_KEY: undefined, SPOTKIT_SECRET_KEY: undefined, SPOTKIT_PASSPHRASE: undefined }
          const [table, csv, json] = yield* Effect.all([
            cli(["symbols"], keyless),
            cli(["symbols", "--format", "csv"], keyless),
            cli(["symbols", "--symbol", "BTCUSDT_SPBL", "--format", "json"], keyless)
          ], { concurrency: 2 })
          for (const run of [table, csv, json]) assert.strictEqual(run.exitCode, 0, run.stderr)
          assert.match(linesOf(table.stdout)[0]!, /^symbol\s+base\s+quote\s+tickSize/)
          assert.strictEqual(
            linesOf(csv.stdout)[0],
            "symbol,base,quote,tickSize,stepSize,minQuantity,maxQuantity,makerFee,takerFee,trading"
          )
          assert.isTrue(linesOf(csv.stdout).some((line) => line.startsWith("BTCUSDT_SPBL,BTC,USDT,")))
          assert.strictEqual(JSON.parse(json.stdout).symbol, "BTCUSDT_SPBL")
          // A private command still needs the key.
          const balances = yield* cli(["balances"], keyless)
          assert.strictEqual(balances.exitCode, 2)
          assert.include(oneLine(balances), "SPOTKIT_API_KEY, SPOTKIT_SECRET_KEY and SPOTKIT_PASSPHRASE are not set")
        }))
    })

    describe("orders and transfers", () => {
      it.effect("orders place: a limit order rests and is listed by orders open as a table, JSON and NDJSON", () =>
        Effect.gen(function*() {
          const exchange = yield* TestExchange.TestExchange
          const alice = yield* aliceId
          const placed = yield* cli([
            "orders",
            "place",
            "--symbol",
            "BTCUSDT_SPBL",
            "--side",
            "buy",
            "--type",
            "limit",
            "--price",
            "29000.5",
            "--quantity",
            "0.01",
            "--client-order-id",
            "e2e-limit-1"
          ])
          assert.strictEqual(placed.exitCode, 0, placed.stderr)
          const match = /^placed (\d+) clientOrderId e2e-limit-1\n$/.exec(placed.stdout)
          assert.isNotNull(match, placed.stdout)
          const orderId = match![1]!
          const order = exchange.engine.order(orderId)
          assert.strictEqual(order?.status, "open")
          assert.strictEqual(order?.userId, alice)

          const open = exchange.engine.orderList(alice).filter((o) =>
            o.symbol === "BTCUSDT_SPBL" && o.status === "open"
          )
          const list = (format: string) => cli(["orders", "open", "--symbol", "BTCUSDT_SPBL", "--format", format])
          const [table, json, ndjson] = yield* Effect.all([list("table"), list("json"), list("ndjson")], {
            concurrency: 2
          })
          for (const run of [table, json, ndjson]) assert.strictEqual(run.exitCode, 0, run.stderr)
          const tableLines = linesOf(table.stdout)
          assert.match(
            tableLines[0]!,
            /^orderId\s+clientOrderId\s+side\s+type\s+price\s+quantity\s+filled\s+status\s+cTime$/
          )
          assert.strictEqual(tableLines.length, open.length + 1)
          assert.isTrue(tableLines.some((line) => line.startsWith(orderId) && line.includes("e2e-limit-1")))
          const fromJson: Array<{ orderId: string; clientOrderId: string; price: string }> = JSON.parse(json.stdout)
          const fromNdjson = linesOf(ndjson.stdout).map((line) => JSON.parse(line))
          assert.deepStrictEqual(fromJson.map((o) => o.orderId).sort(), open.map((o) => o.orderId).sort())
          assert.deepStrictEqual(fromNdjson, fromJson)
          assert.strictEqual(fromJson.find((o) => o.orderId === orderId)?.clientOrderId, "e2e-limit-1")
        }))

      it.effect("orders place: a market order fills", () =>
        Effect.gen(function*() {
          const exchange = yield* TestExchange.TestExchange
          const run = yield* cli([
            "orders",
            "place",
            "--symbol",
            "ETHUSDT_SPBL",
            "--side",
            "sell",
            "--type",
            "market",
            "--quantity",
            "1.5",
            "--format",
            "json"
          ])
          assert.strictEqual(run.exitCode, 0, run.stderr)
          const placed: { orderId: string } = JSON.parse(run.stdout)
          const order = exchange.engine.order(placed.orderId)
          assert.strictEqual(order?.status, "full_fill")
          assert.strictEqual(units(order!.fillQuantity), units("1.5"))
        }))

      it.effect("orders batch: 120 items with 4 invalid ones; an outcome per item, the engine holds the 116 placed", () =>
        Effect.gen(function*() {
          const exchange = yield* TestExchange.TestExchange
          const alice = yield* aliceId
          const invalid = new Map<number, Record<string, unknown>>([
            [7, { price: "abc" }],
            [48, { quantity: "-1" }],
            [50, { side: "hold" }],
            [111, { price: "20000.123" }]
          ])
          const items = Array.from({ length: 120 }, (_, i) => ({
            side: "buy",
            orderType: "limit",
            force: "normal",
            price: String(20000 + i),
            quantity: "0.001",
            clientOrderId: `e2e-batch-${i}`,
            ...invalid.get(i)
          }))
          const file = join(dir, "batch.ndjson")
          writeFileSync(file, items.map((item) => JSON.stringify(item)).join("\n") + "\n")
          const run = yield* cli(["orders", "batch", "--symbol", "BTCUSDT_SPBL", "--file", file, "--format", "ndjson"])
          assert.strictEqual(run.exitCode, 1, run.stderr)
          const outcomes: Array<{ _tag: string; index: number; clientOrderId: string; orderId?: string }> = linesOf(
            run.stdout
          ).map((line) => JSON.parse(line))
          assert.deepStrictEqual(outcomes.map((o) => o.index), items.map((_, i) => i))
          const failed = outcomes.filter((o) => o._tag !== "Placed").map((o) => o.index)
          assert.deepStrictEqual(failed, [...invalid.keys()])
          assert.strictEqual(oneLine(run), "spotkit: placed 116 of 120, 4 failed")
          const held = exchange.engine.orderList(alice).filter((o) => o.clientOrderId.startsWith("e2e-batch-"))
          assert.deepStrictEqual(
            held.map((o) => o.orderId).sort(),
            outcomes.filter((o) => o._tag === "Placed").map((o) => o.orderId!).sort()
          )
          assert.isTrue(held.every((o) => o.status === "open"))
        }))

      it.effect("orders batch into a reader that went away: the summary still on stderr, exit 1 on failures", () =>
        Effect.gen(function*() {
          const env = yield* aliceEnv
          const batch = (name: string, items: ReadonlyArray<Record<string, string>>) => {
            const file = join(dir, name)
            writeFileSync(file, items.map((item) => JSON.stringify(item)).join("\n"))
            return file
          }
          const item = (i: number, side = "buy") => ({
            side,
            orderType: "limit",
            force: "normal",
            price: String(21000 + i),
            quantity: "0.001",
            clientOrderId: `e2e-epipe-${i}`
          })
          // The read end of the CLI's stdout is closed at once, before the CLI writes: its write meets EPIPE.
          const piped = (file: string) =>
            Effect.callback<{ readonly code: number; readonly stderr: string }>((resume) => {
              const child = spawnChild(
                process.execPath,
                [builtCli, "orders", "batch", "--symbol", "BTCUSDT_SPBL", "--file", file],
                { env: { PATH: process.env.PATH ?? "", ...env }, stdio: ["ignore", "pipe", "pipe"] }
              )
              child.stdout.destroy()
              let stderr = ""
              child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
              child.on("close", (code) => resume(Effect.succeed({ code: code ?? -1, stderr })))
              return Effect.sync(() => child.kill())
            })
          const withFailure = yield* piped(batch("epipe-fail.ndjson", [item(0), item(1, "hold")]))
          assert.strictEqual(withFailure.code, 1, withFailure.stderr)
          assert.include(withFailure.stderr, "spotkit: placed 1 of 2, 1 failed")
          const allPlaced = yield* piped(batch("epipe-ok.ndjson", [item(2), item(3)]))
          assert.strictEqual(allPlaced.code, 0, allPlaced.stderr)
          assert.include(allPlaced.stderr, "spotkit: placed 2 of 2, 0 failed")
        }))

      it.effect("orders get, cancel, get again and balances: the order's final state and the funds it held", () =>
        Effect.gen(function*() {
          const exchange = yield* TestExchange.TestExchange
          const alice = yield* aliceId
          const frozen = () => exchange.engine.spotBalances(alice).find((b) => b.coinName === "USDT")!.frozen
          const balances = () =>
            Effect.map(cli(["balances", "--format", "json"]), (run) => {
              assert.strictEqual(run.exitCode, 0, run.stderr)
              return (JSON.parse(run.stdout) as Array<{ coinName: string; frozen: string }>).find((b) =>
                b.coinName === "USDT"
              )!.frozen
            })
          const before = yield* balances()
          assert.strictEqual(before, frozen())
          const place = ["orders", "place", "--symbol", "BTCUSDT_SPBL", "--side", "buy", "--type", "limit"]
          const placed = yield* cli([...place, "--price", "28000", "--quantity", "0.02", "--client-order-id", "e2e-gc"])
          assert.strictEqual(placed.exitCode, 0, placed.stderr)
          const held = yield* balances()
          assert.notStrictEqual(held, before)
          assert.strictEqual(held, frozen())
          const get = () => cli(["orders", "get", "--client-order-id", "e2e-gc", "--format", "json"])
          const open = yield* get()
          assert.strictEqual(open.exitCode, 0, open.stderr)
          assert.strictEqual(JSON.parse(open.stdout).status, "open")
          const cancelled = yield* cli(["orders", "cancel", "--symbol", "BTCUSDT_SPBL", "--client-order-id", "e2e-gc"])
          assert.strictEqual(cancelled.exitCode, 0, cancelled.stderr)
          assert.match(linesOf(cancelled.stdout)[1]!, /^0\s+cancelled\s+\d{19}\s+e2e-gc$/)
          assert.strictEqual(oneLine(cancelled), "spotkit: cancelled 1 of 1, 0 already final, 0 unknown, 0 failed")
          const final = yield* get()
          assert.strictEqual(JSON.parse(final.stdout).status, "cancelled")
          assert.strictEqual(yield* balances(), before)
          const missing = yield* cli(["orders", "get", "--client-order-id", "e2e-never"])
          assert.strictEqual(missing.exitCode, 1)
          assert.strictEqual(missing.stdout, "")
          assert.strictEqual(oneLine(missing), "spotkit: no order with clientOrderId e2e-never")
        }))

      it.effect("transfer: USDT from alice's spot account to bob's funding account; the balances move", () =>
        Effect.gen(function*() {
          const exchange = yield* TestExchange.TestExchange
          const alice = yield* aliceId
          const bob = exchange.accounts[1]!.userId
          const available = (userId: string, accountType: string) =>
            units(
              exchange.engine.balances(userId).find((b) => b.accountType === accountType && b.coin === "USDT")
                ?.available ?? "0"
            )
          const before = { alice: available(alice, "SPOT"), bob: available(bob, "FUND") }
          const run = yield* cli([
            "transfer",
            "--to-user",
            bob,
            "--coin",
            "USDT",
            "--amount",
            "25.125",
            "--from-account",
            "SPOT",
            "--to-account",
            "FUND"
          ])
          assert.strictEqual(run.exitCode, 0, run.stderr)
          assert.match(run.stdout, /^transferred \d+\n$/)
          assert.strictEqual(available(alice, "SPOT"), before.alice - units("25.125"))
          assert.strictEqual(available(bob, "FUND"), before.bob + units("25.125"))
        }))
    })

    it.effect("no secret key, passphrase or request signature appears in any output of any run", () =>
      Effect.sync(() => {
        assert.isAtLeast(runs.length, 40)
        // Signatures of every signed request that reached the sandbox (from every run above).
        assert.isAtLeast(signatures.length, 100)
        const outputs = runs.flatMap((run) => [run.stdout, run.stderr]).join("\n")
        for (const secret of secrets) assert.notInclude(outputs, secret)
        assert.isAtLeast(secrets.size, 3)
        const leaked = signatures.filter((signature) => outputs.includes(signature))
        assert.deepStrictEqual(leaked, [])
      }))
  }
)
