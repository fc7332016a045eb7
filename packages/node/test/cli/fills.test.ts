/**
 * `spotkit fills export` (`internal/cli/fills.ts`, over the export machinery it shares with `bills export`), in process
 * against a sandbox on a loopback port: CSV and NDJSON equal alice's fills in the engine row for row, newest first,
 * with exact decimals and ids; one order's fills; --since inclusive and --until exclusive; --out and --progress; bad
 * flags leave an earlier export in --out alone with exit code 2; a venue refusal is exit code 1.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import { TestExchange } from "@spotkit/testkit"
import type { Engine } from "@spotkit/testkit"
import { Effect, FileSystem } from "effect"
import { aliceEnv, linesOf, runInProcess, sandboxLayer } from "../support/cli.ts"

const SYMBOL = "BTCUSDT_SPBL"
const HEADER = "fillId,orderId,symbol,side,orderType,fillPrice,fillQuantity,fillTotalAmount,fees,cTime"

describe("fills export", () => {
  const { layer } = sandboxLayer({ seed: 29, bills: 0 })

  it.layer(layer, { excludeTestServices: true })("against the sandbox", (it) => {
    const exportWith = (args: ReadonlyArray<string>, change: Record<string, string> = {}) =>
      Effect.flatMap(
        aliceEnv,
        (env) => runInProcess(["fills", "export", "--symbol", SYMBOL, ...args], { ...env, ...change })
      )

    const fillRequests = Effect.map(
      Effect.flatMap(Effect.service(TestExchange.TestExchange), (exchange) => exchange.requests),
      (requests) => requests.filter((request) => request.path === "/api/v2/trade/fills").length
    )

    // Orders of alice that fill against bob's book, placed once: market buys and sells, and limit orders that cross.
    let traded = false
    const trade = Effect.gen(function*() {
      const exchange = yield* TestExchange.TestExchange
      const alice = exchange.accounts[0]!.userId
      if (!traded) {
        traded = true
        for (let i = 0; i < 24; i++) {
          const placed = yield* exchange.placeOrder(alice, {
            symbol: SYMBOL,
            side: i % 2 === 0 ? "buy" : "sell",
            orderType: i % 3 === 0 ? "limit" : "market",
            force: "normal",
            price: i % 3 === 0 ? (i % 2 === 0 ? "30100" : "29900") : undefined,
            quantity: i % 3 === 0 ? "0.7" : i % 2 === 0 ? "2000" : "0.3",
            clientOrderId: `fills-${i}`
          })
          assert.isTrue(placed.ok)
          // Fills a few milliseconds apart, so that time bounds fall between them.
          yield* Effect.sleep("3 millis")
        }
      }
      // The engine's fills of alice on the symbol, newest first (cTime, then fillId, descending: the venue's order).
      const fills = (yield* exchange.fills(alice)).filter((fill) => fill.symbol === SYMBOL).slice()
      return fills.sort((a, b) => Number(b.cTime) - Number(a.cTime) || (BigInt(b.fillId) > BigInt(a.fillId) ? 1 : -1))
    })

    const csvRow = (fill: Engine.FillView) =>
      [
        fill.fillId,
        fill.orderId,
        fill.symbol,
        fill.side,
        fill.orderType,
        fill.fillPrice,
        fill.fillQuantity,
        fill.fillTotalAmount,
        fill.fees,
        fill.cTime
      ].join(",")
    const csvOf = (fills: ReadonlyArray<Engine.FillView>) => [HEADER, ...fills.map(csvRow)].join("\n") + "\n"

    it.effect("CSV and NDJSON equal alice's fills row for row, newest first, across pages", () =>
      Effect.gen(function*() {
        const fills = yield* trade
        // Orders that walk the book fill against several of bob's levels: more fills than orders.
        assert.isAbove(fills.length, 24)
        const csv = yield* exportWith(["--page-size", "7"])
        assert.strictEqual(csv.exitCode, 0, csv.stderr)
        // No progress unless asked for (stderr is no terminal here): only the summary.
        assert.match(csv.stderr, /^spotkit: exported [\d,]+ rows, \d+ pages, [\d,]+ rows\/s, [\d.]+ s\n$/)
        assert.strictEqual(csv.stdout, csvOf(fills))
        const ndjson = yield* exportWith(["--format", "ndjson"])
        assert.strictEqual(ndjson.exitCode, 0, ndjson.stderr)
        const records = linesOf(ndjson.stdout).map((line) => JSON.parse(line))
        assert.deepStrictEqual(
          records.map((r) => [r.fillId, r.orderId, r.fillPrice, r.fillQuantity, r.fillTotalAmount, r.fees, r.cTime]),
          fills.map((
            f
          ) => [f.fillId, f.orderId, f.fillPrice, f.fillQuantity, f.fillTotalAmount, f.fees, Number(f.cTime)])
        )
        // Ids stay strings of all their digits.
        for (const record of records) assert.match(record.fillId, /^\d{19}$/)
      }))

    it.effect("--order-id: one order's fills; --since (inclusive) and --until (exclusive) at the times of real fills", () =>
      Effect.gen(function*() {
        const fills = yield* trade
        const orderId = fills.find((fill) => fills.filter((f) => f.orderId === fill.orderId).length > 1)!.orderId
        const one = yield* exportWith(["--order-id", orderId])
        assert.strictEqual(one.exitCode, 0, one.stderr)
        assert.strictEqual(one.stdout, csvOf(fills.filter((fill) => fill.orderId === orderId)))

        const times = [...new Set(fills.map((fill) => Number(fill.cTime)))].sort((a, b) => a - b)
        const since = times[Math.floor(times.length / 4)]!
        const until = times[Math.floor((times.length * 3) / 4)]!
        const ranged = yield* exportWith(["--since", String(since), "--until", new Date(until).toISOString()])
        assert.strictEqual(ranged.exitCode, 0, ranged.stderr)
        const subset = fills.filter((fill) => Number(fill.cTime) >= since && Number(fill.cTime) < until)
        assert.isAbove(subset.length, 0)
        assert.isBelow(subset.length, fills.length)
        assert.strictEqual(ranged.stdout, csvOf(subset))
      }))

    it.effect("--out and --progress: the file holds the export, stderr the summary naming it", () =>
      Effect.gen(function*() {
        const fills = yield* trade
        const fs = yield* FileSystem.FileSystem
        const dir = yield* fs.makeTempDirectoryScoped({ prefix: "spotkit-fills-" })
        const path = `${dir}/fills.csv`
        const pages = yield* fillRequests
        const run = yield* exportWith(["--out", path, "--progress", "--page-size", "10"])
        assert.strictEqual(run.exitCode, 0, run.stderr)
        assert.strictEqual(run.stdout, "")
        assert.strictEqual(yield* fs.readFileString(path), csvOf(fills))
        const lines = linesOf(run.stderr)
        assert.match(
          lines.at(-1)!,
          new RegExp(
            `^spotkit: exported ${fills.length} rows, ${
              (yield* fillRequests) - pages
            } pages, [\\d,]+ rows/s, [\\d.]+ s to ${path}$`
          )
        )
      }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

    const badFlags: ReadonlyArray<readonly [string, ReadonlyArray<string>, string]> = [
      ["--until before --since", ["--since", "2024-06-01", "--until", "2024-05-01"], "--until"],
      ["--page-size 0", ["--page-size", "0"], "--page-size"],
      ["--since not a time", ["--since", "last week"], "--since"],
      ["--order-id not an id", ["--order-id", "12ab"], "orderId"]
    ]
    for (const [name, args, flag] of badFlags) {
      it.effect(`${name}: exit code 2 naming ${flag}; the --out file is untouched; nothing sent`, () =>
        Effect.gen(function*() {
          const fs = yield* FileSystem.FileSystem
          const dir = yield* fs.makeTempDirectoryScoped({ prefix: "spotkit-fills-keep-" })
          const path = `${dir}/fills.csv`
          yield* fs.writeFileString(path, "an earlier export\n")
          const before = yield* fillRequests
          const run = yield* exportWith([...args, "--out", path])
          assert.strictEqual(run.exitCode, 2, run.stderr)
          assert.strictEqual(linesOf(run.stderr).length, 1, run.stderr)
          assert.include(run.stderr, flag)
          // A flag the client refuses is found before the file is opened too.
          assert.strictEqual(yield* fs.readFileString(path), "an earlier export\n")
          const onStdout = yield* exportWith(args)
          assert.strictEqual(onStdout.exitCode, 2)
          assert.strictEqual(onStdout.stdout, "")
          assert.strictEqual(yield* fillRequests, before)
        }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))
    }

    it.effect("the venue refuses: exit code 1, one line with its code, no data", () =>
      Effect.gen(function*() {
        const run = yield* exportWith([], { SPOTKIT_SECRET_KEY: "not-alices-secret" })
        assert.strictEqual(run.exitCode, 1)
        assert.strictEqual(run.stdout, "")
        assert.strictEqual(linesOf(run.stderr).length, 1, run.stderr)
        assert.include(run.stderr, "(code 40009)")
      }))
  })
})

describe("fills export from a venue that answers about another order than the one asked", () => {
  // A gateway that routes the request elsewhere, or a body rewritten on the way: the fills name another order.
  let asked = ""
  const otherOrder = (path: string, body: string) =>
    asked !== "" && path.startsWith("/api/v2/trade/fills")
      ? body.replaceAll(`"orderId":"${asked}"`, `"orderId":"1001000000000000001"`)
      : body
  const { layer } = sandboxLayer({ seed: 73, bills: 0, rewrite: otherOrder })

  it.layer(layer, { excludeTestServices: true, timeout: "60 seconds" })("against the sandbox", (it) => {
    it.effect("--order-id writes no fill of another order: one line naming both orders, exit code 1", () =>
      Effect.gen(function*() {
        const exchange = yield* TestExchange.TestExchange
        const env = yield* aliceEnv
        const placed = yield* exchange.placeOrder(exchange.accounts[0]!.userId, {
          symbol: SYMBOL,
          side: "buy",
          orderType: "market",
          force: "normal",
          quantity: "100",
          clientOrderId: "other-order"
        })
        assert.isTrue(placed.ok)
        const orderId = (placed as { readonly orderId: string }).orderId
        const args = ["fills", "export", "--symbol", SYMBOL, "--order-id", orderId]
        const clean = yield* runInProcess(args, env)
        assert.strictEqual(clean.exitCode, 0, clean.stderr)
        assert.isAbove(linesOf(clean.stdout).length, 1, "the order filled")
        asked = orderId
        const run = yield* runInProcess(args, env)
        asked = ""
        assert.strictEqual(run.exitCode, 1, run.stdout)
        assert.deepStrictEqual(linesOf(run.stdout).slice(1), [])
        assert.strictEqual(linesOf(run.stderr).length, 1, run.stderr)
        assert.include(run.stderr, `the answer names order 1001000000000000001, not the order asked ${orderId}`)
      }))
  })
})
