// Text forms of the CLI's data: CSV (csv-stringify, RFC 4180 quoting) and NDJSON for bills; a table, JSON or NDJSON
// for orders and batch outcomes. Ids and amounts are the exact strings the client decoded (64-bit ids never become
// JS numbers); times are millisecond epochs.
import type { Bill, Order } from "@spotkit/core"
import { stringify } from "csv-stringify/sync"

export const BILL_COLUMNS = [
  "billId",
  "coinId",
  "coinName",
  "bizType",
  "deltaAmount",
  "afterAmount",
  "fees",
  "cTime"
] as const

const billRow = (bill: Bill.Bill): Array<string | number> => [
  bill.billId,
  bill.coinId,
  bill.coinName,
  bill.bizType,
  bill.deltaAmount,
  bill.afterAmount,
  bill.fees,
  bill.cTime
]

export const csvHeader = (): string => stringify([BILL_COLUMNS as unknown as Array<string>])

// A field csv-stringify would quote (its defaults: a comma, a quote, or a line break).
const SPECIAL = /[",\r\n]/

/**
 * Bills as CSV rows, exactly as csv-stringify writes them. A row whose text fields hold no comma, quote or line
 * break (every bill an honest venue sends: decimals and ids are digits) is the fields joined by commas, which is what
 * csv-stringify writes for it; any other row goes through csv-stringify. csv-stringify allocates tuples per field and
 * per check for every row, which made the young-generation collector the export's largest cost (BENCHMARKS.md).
 */
export const billsCsv = (bills: ReadonlyArray<Bill.Bill>): string => {
  let text = ""
  for (let i = 0; i < bills.length; i++) {
    const b = bills[i]!
    if (
      SPECIAL.test(b.billId) || SPECIAL.test(b.coinName) || SPECIAL.test(b.bizType) || SPECIAL.test(b.deltaAmount) ||
      SPECIAL.test(b.afterAmount) || SPECIAL.test(b.fees)
    ) {
      text += stringify([billRow(b)])
    } else {
      text += b.billId + "," + b.coinId + "," + b.coinName + "," + b.bizType + "," + b.deltaAmount + "," +
        b.afterAmount + "," + b.fees + "," + b.cTime + "\n"
    }
  }
  return text
}

// Characters JSON leaves as they are that a terminal acts on: DEL, C1 controls (U+009B is a one-character CSI), bidi
// marks, embeddings, overrides and isolates, line and paragraph separators. JSON output escapes them too (`\u202e`),
// which leaves every value the same for a JSON reader and makes no venue text act on a terminal.
const TERMINAL = /[\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g
const escapeChar = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`

/** JSON text (from `JSON.stringify`, which escapes C0 controls) with the characters above escaped too. */
export const safeJson = (text: string): string => text.replace(TERMINAL, escapeChar)

export const billsNdjson = (bills: ReadonlyArray<Bill.Bill>): string => {
  let text = ""
  for (const bill of bills) text += JSON.stringify(bill) + "\n"
  return safeJson(text)
}

// Control characters (a newline in a clientOrderId from a batch file, say) would break a row of a table in two,
// and bidi controls would reorder it: they are shown as JSON escapes instead. Only tables are for people; CSV carries
// the values as they are, JSON escaped as JSON allows (`safeJson`).
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g
const printable = (cell: string): string => cell.replace(CONTROL, escapeChar)

/** Left-aligned columns separated by two spaces, with a header row; control characters escaped. */
export const table = (header: ReadonlyArray<string>, body: ReadonlyArray<ReadonlyArray<string>>): string => {
  const rows = body.map((row) => row.map(printable))
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => (row[i] ?? "").length)))
  const line = (cells: ReadonlyArray<string>) =>
    cells.map((cell, i) => i === cells.length - 1 ? cell : cell.padEnd(widths[i]!)).join("  ").trimEnd() + "\n"
  return [header, ...rows].map(line).join("")
}

export const openOrderRow = (order: Order.OpenOrder): Array<string> => [
  order.orderId,
  order.clientOrderId,
  order.side,
  order.orderType,
  order.price,
  order.quantity,
  order.fillQuantity,
  order.status,
  String(order.cTime)
]

export const OPEN_ORDER_COLUMNS = [
  "orderId",
  "clientOrderId",
  "side",
  "type",
  "price",
  "quantity",
  "filled",
  "status",
  "cTime"
] as const

export const outcomeRow = (outcome: Order.BatchOutcome): Array<string> =>
  outcome._tag === "Placed"
    ? [String(outcome.index), "placed", outcome.clientOrderId, outcome.orderId, ""]
    : [
      String(outcome.index),
      outcome.mayExist ? "unknown" : "failed",
      outcome.clientOrderId,
      outcome.code,
      outcome.message
    ]

export const OUTCOME_COLUMNS = ["index", "outcome", "clientOrderId", "orderId/code", "message"] as const

export const ndjson = (values: ReadonlyArray<unknown>): string =>
  safeJson(values.map((value) => JSON.stringify(value) + "\n").join(""))
