/**
 * The CLI's parts, in process: times (`--since`/`--until`), CSV and NDJSON of bills, and the items file of
 * `orders batch` (JSON array or NDJSON, numbers as their exact source text, bad files refused with exit code 2 before
 * anything is sent), the last against a sandbox on a loopback port.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import { Bill } from "@spotkit/core"
import { TestExchange } from "@spotkit/testkit"
import { stringify } from "csv-stringify/sync"
import { Effect, FileSystem, Schema } from "effect"
import * as fc from "fast-check"
import { tmpdir } from "node:os"
import * as Formats from "../src/internal/formats.ts"
import * as Progress from "../src/internal/progress.ts"
import { parseTime } from "../src/internal/time.ts"
import { aliceEnv, linesOf, runInProcess, sandboxLayer } from "./support/cli.ts"

const MAY_1 = 1_714_521_600_000 // 2024-05-01T00:00:00Z

describe("parseTime", () => {
  const accepted: ReadonlyArray<readonly [string, number]> = [
    ["0", 0],
    ["1714521600000", MAY_1],
    [" 1714521600123 ", MAY_1 + 123],
    ["2024-05-01", MAY_1],
    ["2024-02-29", MAY_1 - 62 * 86_400_000],
    ["2024-05-01T00:00:00Z", MAY_1],
    ["2024-05-01t00:00:00z", MAY_1],
    ["2024-05-01T00:00Z", MAY_1],
    ["2024-05-01 00:00:00Z", MAY_1],
    ["2024-05-01T00:00:00.250Z", MAY_1 + 250],
    ["2024-05-01T02:30:00+02:30", MAY_1],
    ["2024-05-01T02:30:00+0230", MAY_1],
    ["2024-04-30T19:00:00-05:00", MAY_1]
  ]
  for (const [input, millis] of accepted) {
    it(`${JSON.stringify(input)} is ${millis}`, () => {
      assert.deepStrictEqual(parseTime(input), { millis })
    })
  }

  const refused: ReadonlyArray<readonly [string, string]> = [
    ["2024-05-01T00:00:00", "has no time zone"],
    ["2024-05-01T00:00", "has no time zone"],
    ["2024-05-01 12:00:00.5", "has no time zone"],
    ["garbage", "neither a millisecond epoch nor an ISO-8601 date"],
    ["", "neither a millisecond epoch nor an ISO-8601 date"],
    ["-5", "neither a millisecond epoch nor an ISO-8601 date"],
    ["1e12", "neither a millisecond epoch nor an ISO-8601 date"],
    ["2024/05/01", "neither a millisecond epoch nor an ISO-8601 date"],
    ["99999999999999999999", "too large"],
    ["2024-13-01", "not a valid date"],
    ["2024-05-01T25:00:00Z", "not a valid date"],
    // Days past the month's end, which the date parser would roll over into the next month.
    ["2024-02-30", "not a valid date"],
    ["2023-02-29", "not a valid date"],
    ["2024-04-31T00:00:00Z", "not a valid date"],
    ["2024-05-00", "not a valid date"]
  ]
  for (const [input, message] of refused) {
    it(`${JSON.stringify(input)} is refused: ${message}`, () => {
      const parsed = parseTime(input)
      assert.isTrue("error" in parsed, JSON.stringify(parsed))
      if ("error" in parsed) {
        assert.include(parsed.error, message)
        assert.isTrue(parsed.error.startsWith(input), parsed.error)
      }
    })
  }
})

describe("bill formats", () => {
  const bill = (fields: { readonly coinName: string; readonly bizType: string }): Bill.Bill =>
    Schema.decodeSync(Bill.Bill)({
      billId: "9007199254740993001",
      coinId: 2,
      deltaAmount: "-0.00000001",
      afterAmount: "123456789012345.12345678",
      fees: "0",
      cTime: "1714521600000",
      ...fields
    })

  it("CSV: the header, then RFC 4180 quoting of a comma, a quote and a newline; ids and decimals exact", () => {
    const plain = bill({ coinName: "USDT", bizType: "deposit" })
    const awkward = bill({ coinName: "US,DT", bizType: "say \"hi\"\nthen go" })
    assert.strictEqual(Formats.csvHeader(), "billId,coinId,coinName,bizType,deltaAmount,afterAmount,fees,cTime\n")
    assert.strictEqual(
      Formats.billsCsv([plain, awkward]),
      "9007199254740993001,2,USDT,deposit,-0.00000001,123456789012345.12345678,0,1714521600000\n" +
        "9007199254740993001,2,\"US,DT\",\"say \"\"hi\"\"\nthen go\",-0.00000001,123456789012345.12345678,0," +
        "1714521600000\n"
    )
    assert.strictEqual(Formats.billsCsv([]), "")
  })

  it("CSV: byte for byte what csv-stringify writes, for any text in any field", () => {
    // The writer joins plain rows itself and hands the others to csv-stringify: both must agree on every row.
    const text = fc.oneof(
      fc.constantFrom("USDT", "deposit", "0", "-1.5", "2001000000001000005"),
      fc.string({ unit: fc.constantFrom("a", "1", ",", "\"", "\n", "\r", " ", "'", "=", "-", "\t", "é") })
    )
    const row = fc.record({
      billId: text,
      coinId: fc.integer(),
      coinName: text,
      bizType: text,
      deltaAmount: text,
      afterAmount: text,
      fees: text,
      cTime: fc.nat()
    })
    fc.assert(
      fc.property(fc.array(row, { maxLength: 5 }), (rows) => {
        const bills = rows as unknown as ReadonlyArray<Bill.Bill>
        const reference = stringify(bills.map((b) => [
          b.billId,
          b.coinId,
          b.coinName,
          b.bizType,
          b.deltaAmount,
          b.afterAmount,
          b.fees,
          b.cTime
        ]))
        assert.strictEqual(Formats.billsCsv(bills), reference)
      }),
      { numRuns: 2000 }
    )
  })

  it("NDJSON: one object per line that parses back to the bill", () => {
    const bills = [bill({ coinName: "US,DT", bizType: "line\nbreak" }), bill({ coinName: "BTC", bizType: "deposit" })]
    const lines = linesOf(Formats.billsNdjson(bills))
    assert.strictEqual(lines.length, 2)
    assert.deepStrictEqual(lines.map((line) => JSON.parse(line)), bills.map((b) => ({ ...b })))
    assert.include(lines[0], "\"billId\":\"9007199254740993001\"")
  })
})

describe("orders batch --file", () => {
  const { layer } = sandboxLayer({ seed: 11, bills: 0 })

  it.layer(layer, { excludeTestServices: true })("items from a file, against the sandbox", (it) => {
    const withFile = <A, E, R>(
      content: string,
      use: (path: string) => Effect.Effect<A, E, R>
    ) =>
      Effect.gen(function*() {
        const fs = yield* FileSystem.FileSystem
        const dir = yield* fs.makeTempDirectoryScoped({ prefix: "spotkit-batch-" })
        const path = `${dir}/items`
        yield* fs.writeFileString(path, content)
        return yield* use(path)
      }).pipe(Effect.provide(NodeServices.layer))

    const batch = (path: string) =>
      Effect.flatMap(
        aliceEnv,
        (env) => runInProcess(["orders", "batch", "--symbol", "BTCUSDT_SPBL", "--file", path, "--format", "json"], env)
      )

    const sentBatches = Effect.map(
      Effect.flatMap(Effect.service(TestExchange.TestExchange), (exchange) => exchange.requests),
      (requests) => requests.filter((request) => request.path === "/api/v2/trade/batch-orders")
    )

    it.effect("a JSON array: numbers are sent as their exact source text", () =>
      withFile(
        `[
          {"side":"buy","orderType":"limit","force":"normal","price":29000.10,"quantity":0.0100,"clientOrderId":"arr-1"},
          {"side":"buy","orderType":"limit","force":"normal","price":"28000","quantity":"0.01","clientOrderId":"arr-2"}
        ]`,
        (path) =>
          Effect.gen(function*() {
            const before = (yield* sentBatches).length
            const run = yield* batch(path)
            assert.strictEqual(run.exitCode, 0, run.stderr)
            const result = JSON.parse(run.stdout)
            assert.strictEqual(result.placed, 2)
            assert.deepStrictEqual(result.outcomes.map((o: { clientOrderId: string }) => o.clientOrderId), [
              "arr-1",
              "arr-2"
            ])
            const sent = (yield* sentBatches).slice(before)
            assert.strictEqual(sent.length, 1)
            // 29000.10 would be "29000.1" and 0.0100 "0.01" after a trip through a JS number.
            assert.include(sent[0]!.body, "\"price\":\"29000.10\"")
            assert.include(sent[0]!.body, "\"quantity\":\"0.0100\"")
            const exchange = yield* TestExchange.TestExchange
            const order = exchange.engine.orderByClientId(exchange.accounts[0]!.userId, "arr-1")
            assert.strictEqual(order?.status, "open")
            assert.strictEqual(run.stderr, "spotkit: placed 2 of 2, 0 failed\n")
          })
      ))

    it.effect("NDJSON with blank lines and CRLF: one item per non-blank line", () =>
      withFile(
        [
          "",
          "{\"side\":\"buy\",\"orderType\":\"limit\",\"price\":\"27000\",\"quantity\":\"0.01\",\"clientOrderId\":\"nd-1\"}",
          "",
          "   ",
          "{\"side\":\"buy\",\"orderType\":\"limit\",\"price\":27001.5,\"quantity\":0.01,\"clientOrderId\":\"nd-2\"}\r",
          "{\"side\":\"sell\",\"orderType\":\"market\",\"quantity\":0.001,\"clientOrderId\":\"nd-3\"}",
          "",
          ""
        ].join("\n"),
        (path) =>
          Effect.gen(function*() {
            const run = yield* batch(path)
            assert.strictEqual(run.exitCode, 0, run.stderr)
            const result = JSON.parse(run.stdout)
            assert.deepStrictEqual(
              result.outcomes.map((o: { _tag: string; clientOrderId: string }) => `${o._tag} ${o.clientOrderId}`),
              ["Placed nd-1", "Placed nd-2", "Placed nd-3"]
            )
            const exchange = yield* TestExchange.TestExchange
            const alice = exchange.accounts[0]!.userId
            assert.strictEqual(exchange.engine.orderByClientId(alice, "nd-2")?.price, "27001.50")
            assert.strictEqual(exchange.engine.orderByClientId(alice, "nd-3")?.status, "filled")
          })
      ))

    const refused: ReadonlyArray<readonly [string, string, string]> = [
      ["a JSON array cut short", "[{\"side\":\"buy\"", "not valid JSON"],
      ["a bad NDJSON line", "{\"side\":\"buy\"}\n\n{side: buy}\n", "line 3 is not valid JSON"],
      ["an empty file", "\n  \n", "no items"],
      ["an empty array", "[]", "no items"]
    ]
    for (const [name, content, message] of refused) {
      it.effect(`${name}: exit code 2, one line on stderr, nothing sent`, () =>
        withFile(content, (path) =>
          Effect.gen(function*() {
            const before = (yield* sentBatches).length
            const run = yield* batch(path)
            assert.strictEqual(run.exitCode, 2)
            assert.strictEqual(run.stdout, "")
            const lines = linesOf(run.stderr)
            assert.strictEqual(lines.length, 1, run.stderr)
            assert.include(lines[0], `--file ${path}: ${message}`)
            assert.strictEqual((yield* sentBatches).length, before)
          })))
    }

    it.effect("a file that cannot be read: exit code 2 naming it and saying why", () =>
      Effect.gen(function*() {
        const missing = yield* batch("/nonexistent/spotkit-items.json")
        assert.strictEqual(missing.exitCode, 2)
        assert.include(missing.stderr, "--file: cannot read /nonexistent/spotkit-items.json: no such file")
        const directory = yield* batch(tmpdir())
        assert.strictEqual(directory.exitCode, 2)
        assert.include(directory.stderr, `--file: cannot read ${tmpdir()}: not a readable file (a directory?)`)
      }))
  })
})

describe("tables", () => {
  it("escapes control characters so that a value cannot split a row", () => {
    const text = Formats.table(["index", "clientOrderId"], [["0", "a\nb"], ["1", "tab\there"]])
    assert.deepStrictEqual(text.split("\n"), [
      "index  clientOrderId",
      "0      a\\u000ab",
      "1      tab\\u0009here",
      ""
    ])
  })
})

describe("progress figures", () => {
  it("thousands separators, the rate and the elapsed time", () => {
    assert.strictEqual(
      Progress.describe(1_234_567, 12_346, 2_000),
      "1,234,567 rows, 12,346 pages, 617,284 rows/s, 2.0 s"
    )
    assert.strictEqual(Progress.describe(999, 10, 0), "999 rows, 10 pages, 0 rows/s, 0.0 s")
    assert.strictEqual(Progress.describe(0, 0, 61_000), "0 rows, 0 pages, 0 rows/s, 1 min 01 s")
  })
})
