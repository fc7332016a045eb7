// How `spotkit watch` prints each stream: a row per event under a header (times as ISO-8601 in UTC), one NDJSON object
// per event, or the book as a table (redrawn in place on a terminal).
import type { Market, Push, SpotPush } from "@spotkit/core"
import * as Formats from "../formats.ts"
import * as Records from "../records.ts"

/** How a watch prints: rows under a header (the book: tables), or one NDJSON object per event. */
export type Format = "table" | "ndjson"

/** How a stream's elements are printed: the text of one on stdout (undefined: nothing), and whether it counts. */
export interface Renderer<A> {
  /** What goes first (a table's header), if anything. */
  readonly start: string
  readonly render: (value: A) => string | undefined
  /**
   * The line on stderr for an element that is not printed but tells of a resync only the stream's consumer hears (a
   * book consumer that fell behind); it is counted as a resync. Undefined: none.
   */
  readonly resync?: ((value: A) => string | undefined) | undefined
}

/** A column of a row-per-event table: its title, the width it is padded to, and its cell. */
type Column<A> = readonly [title: string, width: number, cell: (value: A) => string]

const pad = (cells: ReadonlyArray<string>, widths: ReadonlyArray<number>): string =>
  cells.map((cell, i) => i === cells.length - 1 ? cell : cell.padEnd(widths[i]!)).join("  ").trimEnd() + "\n"

// Rows as events come: no table can be measured ahead, so each column has a width, and a longer cell pushes the rest.
const rows = <A>(columns: ReadonlyArray<Column<A>>): Renderer<A> => {
  const widths = columns.map(([title, width]) => Math.max(title.length, width))
  return {
    start: pad(columns.map(([title]) => title), widths),
    render: (value) => pad(columns.map(([, , cell]) => Formats.printable(cell(value))), widths)
  }
}

const ndjson = <A>(view: (value: A) => unknown = (value) => value): Renderer<A> => ({
  start: "",
  render: (value) => Formats.ndjson([view(value)])
})

const time = (millis: number | undefined): string => millis === undefined ? "" : Formats.isoTime(millis)
const text = (value: string | undefined): string => value ?? ""
const ISO = 24

const fillColumns: ReadonlyArray<Column<SpotPush.Fill>> = [
  ["time", ISO, (f) => time(f.time)],
  ["fillId", 19, (f) => f.fillId],
  ["orderId", 19, (f) => f.orderId],
  ["symbol", 12, (f) => f.symbol],
  ["side", 4, (f) => f.side],
  ["quantity", 10, (f) => f.quantity],
  ["value", 12, (f) => f.value],
  ["fee", 10, (f) => f.fee],
  ["role", 5, (f) => text(f.role)],
  ["source", 6, (f) => f.source]
]

const orderColumns: ReadonlyArray<Column<SpotPush.OrderUpdate>> = [
  ["updated", ISO, (o) => time(o.updatedTime)],
  ["orderId", 19, (o) => o.orderId],
  ["clientOrderId", 13, (o) => text(o.clientOrderId)],
  ["symbol", 12, (o) => o.symbol],
  ["side", 4, (o) => o.side],
  ["type", 6, (o) => text(o.orderType)],
  ["price", 10, (o) => text(o.price)],
  ["quantity", 10, (o) => text(o.quantity)],
  ["filled", 10, (o) => o.filledQuantity],
  ["status", 12, (o) => o.status],
  ["source", 6, (o) => o.source]
]

const balanceColumns: ReadonlyArray<Column<SpotPush.Balance>> = [
  ["coin", 6, (b) => b.coinName],
  ["coinId", 6, (b) => b.coinId],
  ["available", 16, (b) => b.available],
  ["frozen", 16, (b) => b.frozen],
  ["equity", 16, (b) => text(b.equity)],
  ["source", 6, (b) => b.source]
]

const tradeColumns: ReadonlyArray<Column<SpotPush.PublicTrade>> = [
  ["time", ISO, (t) => time(t.time)],
  ["symbol", 12, (t) => t.symbol],
  ["side", 4, (t) => t.side],
  ["price", 10, (t) => t.price],
  ["size", 10, (t) => t.size],
  ["tradeId", 19, (t) => text(t.tradeId)],
  ["source", 6, (t) => t.source]
]

/**
 * A ticker as `watch ticker` prints it: pushed, or the current one from REST (`market/ticker`) printed first, before
 * the venue pushes one (it pushes on a change only).
 */
export interface TickerRow {
  readonly ticker: Push.Ticker | Market.Ticker
  readonly source: "push" | "rest"
}

const tickerColumns: ReadonlyArray<Column<TickerRow>> = [
  ["time", ISO, ({ ticker }) => time(ticker.ts ?? undefined)],
  ["symbol", 12, ({ ticker }) => ticker.symbol],
  ["last", 10, ({ ticker }) => ticker.lastPrice],
  ["open", 10, ({ ticker }) => text(ticker.open ?? undefined)],
  ["high", 10, ({ ticker }) => text(ticker.high ?? undefined)],
  ["low", 10, ({ ticker }) => text(ticker.low ?? undefined)],
  // The venue's field is a fraction (`-0.011451`): a percentage under this title, as `market ticker` prints it.
  ["change%", 8, ({ ticker }) => ticker.priceChangePercent == null ? "" : Records.percent(ticker.priceChangePercent)],
  ["volume", 12, ({ ticker }) => text(ticker.size ?? undefined)],
  ["source", 6, ({ source }) => source]
]

const candleColumns: ReadonlyArray<Column<SpotPush.CandleUpdate>> = [
  ["openTime", ISO, (c) => time(c.openTime)],
  ["symbol", 12, (c) => c.symbol],
  ["period", 6, (c) => c.period],
  ["open", 10, (c) => c.open],
  ["high", 10, (c) => c.high],
  ["low", 10, (c) => c.low],
  ["close", 10, (c) => c.close],
  ["baseVolume", 12, (c) => c.baseVolume],
  ["quoteVolume", 12, (c) => c.quoteVolume],
  ["source", 6, (c) => c.source]
]

// On a terminal the book is drawn from the top left over the last one (cursor home, clear to the end of the screen).
const REDRAW = "\u001b[H\u001b[J"

/** One book as a table: the best levels first, bids on the left, asks on the right. */
export const bookTable = (book: SpotPush.OrderBook): string => {
  const body: Array<Array<string>> = []
  for (let i = 0; i < Math.max(book.bids.length, book.asks.length); i++) {
    const bid = book.bids[i]
    const ask = book.asks[i]
    body.push([bid?.size ?? "", bid?.price ?? "", ask?.price ?? "", ask?.size ?? ""])
  }
  return `${Formats.printable(book.symbol)}  depth ${book.depth}  version ${book.version}\n` +
    Formats.table(["bidSize", "bid", "ask", "askSize"], body)
}

const bookView = (book: SpotPush.OrderBook) => ({
  symbol: book.symbol,
  depth: book.depth,
  version: book.version,
  bids: book.bids,
  asks: book.asks
})

/**
 * How `watch book` prints. Only books reach stdout; a resync is a line on stderr: from `SpotPush.events` (`notice`),
 * except a lag's, which only the book's consumer hears (the printing fell behind its queue: the books between
 * were skipped, the latest one comes next).
 */
export const bookRenderer = (format: Format, terminal: boolean): Renderer<SpotPush.BookEvent> => {
  let first = true
  return {
    start: "",
    resync: (event) =>
      event._tag === "Resync" && event.reason === "lag"
        ? `${event.symbol}: the printing fell behind the book; books were skipped, the latest one follows`
        : undefined,
    render: (event) => {
      if (event._tag !== "Book") return undefined
      if (format === "ndjson") return Formats.ndjson([bookView(event.book)])
      const table = bookTable(event.book)
      const separator = terminal ? REDRAW : first ? "" : "\n"
      first = false
      return separator + table
    }
  }
}

const byRows = <A>(columns: ReadonlyArray<Column<A>>, view?: (value: A) => unknown) => (format: Format): Renderer<A> =>
  format === "ndjson" ? ndjson(view) : rows(columns)

/** How each row-per-event watch prints. */
export const renderers = {
  fills: byRows(fillColumns),
  orders: byRows(orderColumns),
  balances: byRows(balanceColumns),
  trades: byRows(tradeColumns),
  // The ticker's own fields and where it came from; a field REST answered null is left out, as a push leaves it out.
  ticker: byRows(tickerColumns, ({ source, ticker }) => ({
    ...Object.fromEntries(Object.entries(ticker).filter(([, value]) => value !== null)),
    source
  })),
  candles: byRows(candleColumns)
}
