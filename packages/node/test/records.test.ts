/**
 * The columns of the records the CLI prints (`internal/records.ts`), written by the one CSV writer
 * (`internal/formats.ts`) exactly as csv-stringify writes them, whatever the fields hold; a cancel's outcome per
 * order as a row.
 */
import { assert, describe, it } from "@effect/vitest"
import type { Cancel, Fill } from "@spotkit/core"
import { stringify } from "csv-stringify/sync"
import * as Formats from "../src/internal/formats.ts"
import * as Records from "../src/internal/records.ts"

describe("Records", () => {
  it("csv: rows with and without fields to quote, exactly as csv-stringify writes them", () => {
    const rows: ReadonlyArray<ReadonlyArray<string | number>> = [
      ["1", "plain", 1700000000000, "0.5"],
      ["2", "a,comma", 1, "x"],
      ["3", "a \"quote\"", 2, "line\nbreak"],
      ["4", "carriage\rreturn", 3, ""],
      ["5", "", 0, "-0.00000001"]
    ]
    const raw = { safe: false, terminal: false }
    assert.strictEqual(Formats.csv(rows, raw), stringify(rows as Array<Array<string | number>>))
    // No cell of these is a formula: the safe mode writes the same.
    assert.strictEqual(Formats.csv(rows, Formats.CSV_FILE), stringify(rows as Array<Array<string | number>>))
    assert.strictEqual(Formats.csv([], raw), "")
  })

  it("fillsCsv: the header's columns in order, an empty price kept empty", () => {
    const fill = {
      accountId: "6000000000000000001",
      symbol: "BTCUSDT_SPBL",
      baseCoin: "BTC",
      quoteCoin: "USDT",
      orderId: "1000000000000000001",
      fillId: "7000000000000000001",
      orderType: "",
      side: "buy",
      fillPrice: "",
      fillQuantity: "0.010000",
      fillTotalAmount: "300.05",
      fees: "0.00001",
      cTime: 1700000000123
    } as unknown as Fill.FillRecord
    assert.strictEqual(
      Records.csvHeader(Records.fill),
      "fillId,orderId,symbol,side,orderType,fillPrice,fillQuantity,fillTotalAmount,fees,cTime\n"
    )
    assert.strictEqual(
      Records.csv(Records.fill, [fill], Formats.CSV_FILE),
      "7000000000000000001,1000000000000000001,BTCUSDT_SPBL,buy,,,0.010000,300.05,0.00001,1700000000123\n"
    )
  })

  it("cancelRow: one row per outcome, the venue's code and message where it refused", () => {
    const failed: Cancel.CancelOrdersOutcome = {
      _tag: "Failed",
      index: 4,
      clientOrderId: "c-15",
      code: "40015",
      message: "system error"
    }
    const cancelled: Cancel.CancelOrdersOutcome = { _tag: "Cancelled", index: 0, orderId: "11" as never }
    assert.deepStrictEqual([failed, cancelled].map(Records.cancelWord), ["failed", "cancelled"])
    const row = (outcome: Cancel.CancelOrdersOutcome) => Records.cancelOutcome.cells(outcome).map(String)
    assert.deepStrictEqual(row(failed), ["4", "failed", "", "c-15", "40015", "system error"])
    assert.deepStrictEqual(row(cancelled), ["0", "cancelled", "11", "", "", ""])
  })
})
