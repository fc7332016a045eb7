// What each kind of record the CLI prints puts in its columns, for tables and CSV alike (`Shape`): bills and fills
// (the exports), orders, batch and cancel outcomes, market data, balances, symbol rules and transfers. Ids and
// amounts are the exact strings the client decoded; times are millisecond epochs, shown as ISO-8601 in tables
// (`formats.ts`).
import type { Account, Bill, Cancel, Fill, Market, Order, Transfer } from "@spotkit/core"
import * as Formats from "./formats.ts"

/** The columns of a kind of record and its cells; `times`: the columns holding millisecond epochs (or ""). */
export interface Shape<A> {
  readonly columns: ReadonlyArray<string>
  readonly cells: (record: A) => ReadonlyArray<string | number>
  readonly times: ReadonlyArray<number>
}

/** The CSV header row of a shape, with its line break. */
export const csvHeader = <A>(shape: Shape<A>): string => Formats.csv([shape.columns], Formats.CSV_FILE)

/** Records as CSV rows, epochs as they are. */
export const csv = <A>(shape: Shape<A>, records: ReadonlyArray<A>, mode: Formats.CsvMode): string =>
  Formats.csv(records.map(shape.cells), mode)

/** Records as a table for people: times as ISO-8601 in UTC. */
export const table = <A>(shape: Shape<A>, records: ReadonlyArray<A>): string =>
  Formats.table(
    shape.columns,
    records.map((record) =>
      shape.cells(record).map((cell, i) =>
        shape.times.includes(i) && typeof cell === "number" ? Formats.isoTime(cell) : String(cell)
      )
    )
  )

// ---------------------------------------------------------------------------------------------------------------
// exports

export const bill: Shape<Bill.Bill> = {
  columns: ["billId", "coinId", "coinName", "bizType", "deltaAmount", "afterAmount", "fees", "cTime"],
  cells: (b) => [b.billId, b.coinId, b.coinName, b.bizType, b.deltaAmount, b.afterAmount, b.fees, b.cTime],
  times: [7]
}

export const fill: Shape<Fill.FillRecord> = {
  columns: [
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
  ],
  cells: (f) => [
    f.fillId,
    f.orderId,
    f.symbol,
    f.side,
    f.orderType,
    f.fillPrice,
    f.fillQuantity,
    f.fillTotalAmount,
    f.fees,
    f.cTime
  ],
  times: [9]
}

// ---------------------------------------------------------------------------------------------------------------
// orders and outcomes

export const order: Shape<Order.OrderRecord> = {
  columns: ["orderId", "clientOrderId", "side", "type", "price", "quantity", "filled", "status", "cTime"],
  cells: (
    o
  ) => [o.orderId, o.clientOrderId, o.side, o.orderType, o.price, o.quantity, o.fillQuantity, o.status, o.cTime],
  times: [8]
}

export const batchOutcome: Shape<Order.BatchOutcome> = {
  columns: ["index", "outcome", "clientOrderId", "orderId/code", "message"],
  cells: (o) =>
    o._tag === "Placed"
      ? [o.index, "placed", o.clientOrderId, o.orderId, ""]
      : [o.index, o.mayExist ? "unknown" : "failed", o.clientOrderId, o.code, o.message],
  times: []
}

/** What became of one order a cancel named: `final` already filled or cancelled, `unknown` no such order. */
export type CancelWord = "cancelled" | "final" | "unknown" | "failed"

export const cancelWord = (outcome: Cancel.CancelOrdersOutcome): CancelWord =>
  outcome._tag === "Cancelled" ? "cancelled" : outcome._tag === "NotOpen" ? outcome.reason : "failed"

export const cancelOutcome: Shape<Cancel.CancelOrdersOutcome> = {
  columns: ["index", "outcome", "orderId", "clientOrderId", "code", "message"],
  cells: (o) => [
    o.index,
    cancelWord(o),
    o.orderId ?? "",
    o.clientOrderId ?? "",
    o._tag === "Cancelled" ? "" : o.code,
    o._tag === "Cancelled" ? "" : o.message
  ],
  times: []
}

/** Outcomes with their counts, as `cancelOrders` answers them. */
export const summarize = (outcomes: ReadonlyArray<Cancel.CancelOrdersOutcome>): Cancel.CancelOrdersResult => {
  const count = (tag: Cancel.CancelOrdersOutcome["_tag"]) => outcomes.filter((outcome) => outcome._tag === tag).length
  return { outcomes, cancelled: count("Cancelled"), notOpen: count("NotOpen"), failed: count("Failed"), complete: true }
}

// ---------------------------------------------------------------------------------------------------------------
// market data

// A plain decimal: what `percent` can shift exactly.
const PLAIN = /^[-+]?\d+(?:\.\d+)?$/

/** A fraction as a percentage, exactly (`-0.011451` is `-1.1451`): the decimal point moved two places. */
export const percent = (fraction: string): string => {
  if (!PLAIN.test(fraction)) return fraction
  const negative = fraction.startsWith("-")
  const [whole = "", decimals = ""] = fraction.replace(/^[-+]/, "").split(".")
  const padded = decimals.padEnd(2, "0")
  const units = (whole + padded.slice(0, 2)).replace(/^0+(?=\d)/, "")
  const rest = padded.slice(2)
  return (negative && /[1-9]/.test(units + rest) ? "-" : "") + units + (rest === "" ? "" : "." + rest)
}

export const ticker: Shape<Market.Ticker> = {
  columns: [
    "symbol",
    "lastPrice",
    "open",
    "high",
    "low",
    "change",
    "change%",
    "baseVolume",
    "quoteVolume",
    "trades",
    "time"
  ],
  cells: (t) => [
    t.symbol,
    t.lastPrice,
    t.open ?? "",
    t.high ?? "",
    t.low ?? "",
    t.priceChange ?? "",
    t.priceChangePercent == null ? "" : percent(t.priceChangePercent),
    t.size ?? "",
    t.value ?? "",
    t.trades == null ? "" : String(t.trades),
    t.ts ?? t.endTime ?? ""
  ],
  times: [10]
}

/** One level of a book, with its side. */
export interface BookLevel {
  readonly side: "ask" | "bid"
  readonly price: string
  readonly size: string
}

/** A book's levels as one column, as a trader reads it: the asks from the highest down, then the bids best first. */
export const bookLevels = (book: Market.OrderBook): ReadonlyArray<BookLevel> => [
  ...book.asks.toReversed().map((level) => ({ side: "ask" as const, price: level.price, size: level.size })),
  ...book.bids.map((level) => ({ side: "bid" as const, price: level.price, size: level.size }))
]

export const bookLevel: Shape<BookLevel> = {
  columns: ["side", "price", "size"],
  cells: (l) => [l.side, l.price, l.size],
  times: []
}

export const candle: Shape<Market.Candle> = {
  columns: ["openTime", "open", "high", "low", "close", "baseVolume", "quoteVolume"],
  cells: (c) => [c.openTime, c.open, c.high, c.low, c.close, c.baseVolume, c.quoteVolume],
  times: [0]
}

export const trade: Shape<Market.Trade> = {
  columns: ["tradeId", "time", "takerSide", "price", "size", "value"],
  cells: (t) => [t.tradeId, t.time, t.side, t.price, t.size, t.value],
  times: [1]
}

// ---------------------------------------------------------------------------------------------------------------
// balances, symbols, transfers

export const balance: Shape<Account.Balance> = {
  columns: ["coin", "coinId", "available", "frozen", "equity"],
  cells: (b) => [b.coinName, b.coinId, b.available, b.frozen, b.equity],
  times: []
}

export const symbol: Shape<Market.SymbolRules> = {
  columns: [
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
  ],
  cells: (r) => [
    r.symbol,
    r.baseCoin,
    r.quoteCoin,
    r.tickSize,
    r.stepSize,
    r.minTradeAmount,
    r.maxTradeAmount,
    r.makerFeeRate,
    r.takerFeeRate,
    r.enableTrade ? "yes" : "no"
  ],
  times: []
}

export const transfer: Shape<Transfer.TransferRecord> = {
  columns: ["id", "status", "coin", "amount", "fromUserId", "toUserId", "createTime", "updateTime"],
  cells: (t) => [
    t.withdrawId,
    t.status,
    t.coin,
    t.amount,
    t.fromUserId,
    t.toUserId,
    t.createTime,
    t.updateTime ?? ""
  ],
  times: [6, 7]
}
