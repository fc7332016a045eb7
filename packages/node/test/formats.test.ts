/**
 * The CLI's text forms (`internal/formats.ts`, over the columns of `internal/records.ts`): the one CSV writer (RFC
 * 4180 quoting as csv-stringify writes it, formula cells neutralised as OWASP recommends unless raw, characters a
 * terminal acts on escaped when it goes to one) and its reader; NDJSON of bills; tables.
 */
import { assert, describe, it } from "@effect/vitest"
import { Bill } from "@spotkit/core"
import { stringify } from "csv-stringify/sync"
import { Schema } from "effect"
import * as fc from "fast-check"
import * as Formats from "../src/internal/formats.ts"
import * as Records from "../src/internal/records.ts"
import { linesOf } from "./support/cli.ts"

const RAW: Formats.CsvMode = { safe: false, terminal: false }

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
    assert.strictEqual(
      Records.csvHeader(Records.bill),
      "billId,coinId,coinName,bizType,deltaAmount,afterAmount,fees,cTime\n"
    )
    assert.strictEqual(
      Records.csv(Records.bill, [plain, awkward], Formats.CSV_FILE),
      "9007199254740993001,2,USDT,deposit,-0.00000001,123456789012345.12345678,0,1714521600000\n" +
        "9007199254740993001,2,\"US,DT\",\"say \"\"hi\"\"\nthen go\",-0.00000001,123456789012345.12345678,0," +
        "1714521600000\n"
    )
    assert.strictEqual(Records.csv(Records.bill, [], Formats.CSV_FILE), "")
  })

  const text = fc.oneof(
    fc.constantFrom("USDT", "deposit", "0", "-1.5", "-.5", "-1e-8", "2001000000001000005", "=1+2", "@SUM(A1)", "-cmd"),
    fc.string({ unit: fc.constantFrom("a", "1", ",", "\"", "\n", "\r", " ", "'", "=", "-", "+", "@", "\t", "é") })
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
  const cellsOf = (b: Bill.Bill) => [
    b.billId,
    b.coinId,
    b.coinName,
    b.bizType,
    b.deltaAmount,
    b.afterAmount,
    b.fees,
    b.cTime
  ]

  it("CSV, raw (--csv-raw): byte for byte what csv-stringify writes, for any text in any field", () => {
    fc.assert(
      fc.property(fc.array(row, { maxLength: 5 }), (rows) => {
        const bills = rows as unknown as ReadonlyArray<Bill.Bill>
        assert.strictEqual(Records.csv(Records.bill, bills, RAW), stringify(bills.map(cellsOf)))
      }),
      { numRuns: 2000 }
    )
  })

  it("CSV, safe: csv-stringify of the cells with a ' before each formula cell; the reader gives the cells back", () => {
    const formula = (cell: string | number) =>
      typeof cell === "string" && /^[=+@\t\r]|^-(?!(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$)/.test(cell)
        ? `'${cell}`
        : cell
    fc.assert(
      fc.property(fc.array(row, { maxLength: 5 }), (rows) => {
        const bills = rows as unknown as ReadonlyArray<Bill.Bill>
        const written = Records.csv(Records.bill, bills, Formats.CSV_FILE)
        const cells = bills.map((b) => cellsOf(b).map(formula))
        assert.strictEqual(written, stringify(cells))
        // Read back record by record, as a resumed export reads its partial file.
        const read: Array<ReadonlyArray<string>> = []
        const reader = new Formats.CsvReader()
        reader.read(written, (fields) => void read.push([...fields]))
        assert.deepStrictEqual(read, cells.map((cell) => cell.map(String)))
        assert.strictEqual(reader.complete, Buffer.byteLength(written))
      }),
      { numRuns: 2000 }
    )
  })

  it("CSV, safe: formulas get a leading ', numbers and plain text do not", () => {
    const cells = ["=HYPERLINK(\"http://x\")", "@SUM(A1)", "+cmd|' /C calc'!A0", "-2+3", "\tx", "\rx", "-0.5", "-1E-8"]
    assert.deepStrictEqual(cells.map((cell) => Formats.csvText(cell, Formats.CSV_FILE)), [
      "'=HYPERLINK(\"http://x\")",
      "'@SUM(A1)",
      "'+cmd|' /C calc'!A0",
      "'-2+3",
      "'\tx",
      "'\rx",
      "-0.5",
      "-1E-8"
    ])
    assert.strictEqual(Formats.csvText("=1", RAW), "=1")
  })

  it("CSV to a terminal: no ESC, OSC, BEL, C1 or bidi control is written, each is an escape; a row stays one line", () => {
    const hostile = "\u001b]8;;http://evil\u0007click\u001b]8;;\u0007\u009b31m\u202eab\ncd"
    const line = Formats.csv([["1", hostile]], { safe: true, terminal: true })
    // Nothing but the row's own line break below a space, and no C1 or bidi control.
    for (const c of line.slice(0, -1)) assert.isFalse(c < " " || (c >= "\u007f" && c <= "\u009f") || c === "\u202e", c)
    assert.strictEqual(linesOf(line).length, 1)
    assert.include(line, "\\u001b]8;;http://evil\\u0007click")
    assert.include(line, "\\u009b31m\\u202eab\\u000acd")
  })

  it("the reader: a record cut short (no line break yet) is not complete", () => {
    const reader = new Formats.CsvReader()
    const read: Array<ReadonlyArray<string>> = []
    reader.read("a,\"b\nc\"\n1,\"2", (fields) => void read.push([...fields]))
    assert.deepStrictEqual(read, [["a", "b\nc"]])
    assert.strictEqual(reader.complete, 8)
  })

  it("NDJSON: one object per line that parses back to the bill", () => {
    const bills = [bill({ coinName: "US,DT", bizType: "line\nbreak" }), bill({ coinName: "BTC", bizType: "deposit" })]
    const lines = linesOf(Formats.ndjson(bills))
    assert.strictEqual(lines.length, 2)
    assert.deepStrictEqual(lines.map((line) => JSON.parse(line)), bills.map((b) => ({ ...b })))
    assert.include(lines[0], "\"billId\":\"9007199254740993001\"")
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

  it("times as ISO-8601 in UTC; the epoch stays in CSV", () => {
    const transfer = {
      withdrawId: "3001",
      status: "SUCCESS",
      coin: "USDT",
      amount: "25",
      fromUserId: "1",
      toUserId: "2",
      createTime: 1714521600123,
      updateTime: null
    } as unknown as Parameters<typeof Records.transfer.cells>[0]
    const [, row] = linesOf(Records.table(Records.transfer, [transfer]))
    assert.match(row!, /\s2024-05-01T00:00:00\.123Z$/)
    assert.strictEqual(
      Records.csv(Records.transfer, [transfer], Formats.CSV_FILE),
      "3001,SUCCESS,USDT,25,1,2,1714521600123,\n"
    )
  })
})
