// Text forms of the trading surface's records for the CLI (beside `formats.ts`, which holds bills, open orders and
// batch outcomes): cancel outcomes, fills as CSV, balances, symbol rules and transfers as table rows. Ids and amounts
// are the exact strings the client decoded; times are millisecond epochs.
import type { Account, Cancel, Fill, Market, Transfer } from "@spotkit/core"
import { stringify } from "csv-stringify/sync"

// A field csv-stringify would quote (its defaults: a comma, a quote, or a line break).
const SPECIAL = /[",\r\n]/

/**
 * Rows as CSV, exactly as csv-stringify writes them: a row with no field to quote is its fields joined by commas (what
 * csv-stringify writes for it, without its allocations per field), any other row goes through csv-stringify.
 */
export const csv = (rows: ReadonlyArray<ReadonlyArray<string | number>>): string => {
  let text = ""
  for (const row of rows) {
    text += row.some((field) => typeof field === "string" && SPECIAL.test(field))
      ? stringify([row as Array<string | number>])
      : row.join(",") + "\n"
  }
  return text
}

// ---------------------------------------------------------------------------------------------------------------
// cancels

/** What became of one order a cancel named: `final` already filled or cancelled, `unknown` no such order. */
export type CancelWord = "cancelled" | "final" | "unknown" | "failed"

export const cancelWord = (outcome: Cancel.CancelOrdersOutcome): CancelWord =>
  outcome._tag === "Cancelled" ? "cancelled" : outcome._tag === "NotOpen" ? outcome.reason : "failed"

export const CANCEL_COLUMNS = ["index", "outcome", "orderId", "clientOrderId", "code", "message"] as const

export const cancelRow = (outcome: Cancel.CancelOrdersOutcome): Array<string> => [
  String(outcome.index),
  cancelWord(outcome),
  outcome.orderId ?? "",
  outcome.clientOrderId ?? "",
  outcome._tag === "Cancelled" ? "" : outcome.code,
  outcome._tag === "Cancelled" ? "" : outcome.message
]

/** Outcomes with their counts, as `cancelOrders` answers them. */
export const summarize = (outcomes: ReadonlyArray<Cancel.CancelOrdersOutcome>): Cancel.CancelOrdersResult => {
  const count = (tag: Cancel.CancelOrdersOutcome["_tag"]) => outcomes.filter((outcome) => outcome._tag === tag).length
  return { outcomes, cancelled: count("Cancelled"), notOpen: count("NotOpen"), failed: count("Failed") }
}

// ---------------------------------------------------------------------------------------------------------------
// fills

export const FILL_COLUMNS = [
  "fillId",
  "orderId",
  "symbol",
  "side",
  "orderType",
  "fillPrice",
  "fillQuantity",
  "fillTotalAmount",
  "fees",
  "cTime"
] as const

export const fillsCsvHeader = (): string => stringify([FILL_COLUMNS as unknown as Array<string>])

export const fillsCsv = (fills: ReadonlyArray<Fill.FillRecord>): string =>
  csv(fills.map((fill) => [
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
  ]))

// ---------------------------------------------------------------------------------------------------------------
// balances, symbols, transfers

export const BALANCE_COLUMNS = ["coin", "coinId", "available", "frozen", "equity"] as const

export const balanceRow = (balance: Account.Balance): Array<string> => [
  balance.coinName,
  String(balance.coinId),
  balance.available,
  balance.frozen,
  balance.equity
]

export const SYMBOL_COLUMNS = [
  "symbol",
  "base",
  "quote",
  "tickSize",
  "stepSize",
  "minQuantity",
  "maxQuantity",
  "makerFee",
  "takerFee",
  "trading"
] as const

export const symbolRow = (rules: Market.SymbolRules): Array<string> => [
  rules.symbol,
  rules.baseCoin,
  rules.quoteCoin,
  rules.tickSize,
  rules.stepSize,
  rules.minTradeAmount,
  rules.maxTradeAmount,
  rules.makerFeeRate,
  rules.takerFeeRate,
  rules.enableTrade ? "yes" : "no"
]

export const TRANSFER_COLUMNS = [
  "id",
  "status",
  "coin",
  "amount",
  "fromUserId",
  "toUserId",
  "createTime",
  "updateTime"
] as const

export const transferRow = (transfer: Transfer.TransferRecord): Array<string> => [
  transfer.withdrawId,
  transfer.status,
  transfer.coin,
  transfer.amount,
  transfer.fromUserId,
  transfer.toUserId,
  String(transfer.createTime),
  transfer.updateTime == null ? "" : String(transfer.updateTime)
]
