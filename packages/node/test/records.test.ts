/**
 * The columns of the records the CLI prints (`internal/records.ts`), written by the one CSV writer
 * (`internal/formats.ts`) exactly as csv-stringify writes them, whatever the fields hold; `cancelAll`'s answer as one
 * outcome per order, classified by the venue's code.
 */
import { assert, describe, it } from "@effect/vitest"
import type { Fill } from "@spotkit/core"
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

  it("cancelAllOutcomes: cancelled first, then final (43004), unknown (43001) and failed (any other code)", () => {
    const result = Records.cancelAllOutcomes({
      cancelled: ["11", "12"] as never,
      notCancelled: [
        { orderId: "13" as never, code: "43004", message: "There is no order to cancel" },
        { orderId: "14" as never, code: "43001", message: "FAILED_ORDER_NOT_FOUND" },
        { clientOrderId: "c-15", code: "40015", message: "system error" }
      ]
    })
    assert.deepStrictEqual(result.outcomes.map(Records.cancelWord), [
      "cancelled",
      "cancelled",
      "final",
      "unknown",
      "failed"
    ])
    assert.deepStrictEqual(result.outcomes.map((outcome) => outcome.index), [0, 1, 2, 3, 4])
    assert.deepStrictEqual([result.cancelled, result.notOpen, result.failed], [2, 2, 1])
    const row = (outcome: (typeof result.outcomes)[number]) => Records.cancelOutcome.cells(outcome).map(String)
    assert.deepStrictEqual(row(result.outcomes[4]!), ["4", "failed", "", "c-15", "40015", "system error"])
    assert.deepStrictEqual(row(result.outcomes[0]!), ["0", "cancelled", "11", "", "", ""])
  })
})
