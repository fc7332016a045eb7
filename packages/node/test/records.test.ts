/**
 * The text forms of the trading surface's records (`internal/records.ts`): CSV exactly as csv-stringify writes it,
 * whatever the fields hold; `cancelAll`'s answer as one outcome per order, classified by the venue's code.
 */
import { assert, describe, it } from "@effect/vitest"
import type { Cancel, Fill } from "@spotkit/core"
import { stringify } from "csv-stringify/sync"
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
    assert.strictEqual(Records.csv(rows), stringify(rows as Array<Array<string | number>>))
    assert.strictEqual(Records.csv([]), "")
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
      Records.fillsCsvHeader(),
      "fillId,orderId,symbol,side,orderType,fillPrice,fillQuantity,fillTotalAmount,fees,cTime\n"
    )
    assert.strictEqual(
      Records.fillsCsv([fill]),
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
    assert.deepStrictEqual(Records.cancelRow(failed), ["4", "failed", "", "c-15", "40015", "system error"])
    assert.deepStrictEqual(Records.cancelRow(cancelled), ["0", "cancelled", "11", "", "", ""])
  })
})
