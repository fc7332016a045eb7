/**
 * The CLI's text formats (`internal/formats.ts`): CSV and NDJSON of bills, and tables.
 */
import { assert, describe, it } from "@effect/vitest"
import { Bill } from "@spotkit/core"
import { stringify } from "csv-stringify/sync"
import { Schema } from "effect"
import * as fc from "fast-check"
import * as Formats from "../src/internal/formats.ts"
import { linesOf } from "./support/cli.ts"

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
