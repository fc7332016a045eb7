/**
 * The venue's public market data (docs/venue/market-data.md#symbol-rules): the symbols tradable by API, each symbol's
 * trading rules (`exchangeInfo`), and the server time.
 *
 * @since 0.1.0
 */
import { Result, Schema, SchemaGetter, SchemaIssue } from "effect"
import * as Decimals from "./internal/model/decimal.ts"
import { TradeCount, wellFormedBook, wellFormedCandle, wellFormedTrade } from "./internal/model/marketChecks.ts"
import * as RuleCheck from "./internal/model/symbolRules.ts"
import { Decimal, DecimalFromWire, IdFromWire, isPositive, Millis, MillisFromWire, TradingPair } from "./Primitives.ts"
import { printable } from "./SafeText.ts"
import type * as SpotError from "./SpotError.ts"

/**
 * A symbol's trading rules: price tick, quantity step, smallest and largest order quantity (base coin), fee rates,
 * and whether it trades now. Fields the client does not use are kept when present, tolerated when absent.
 *
 * @since 0.1.0
 * @category responses
 */
export const SymbolRules = Schema.Struct({
  symbol: Schema.String,
  baseCoin: Schema.String,
  quoteCoin: Schema.String,
  tickSize: DecimalFromWire,
  stepSize: DecimalFromWire,
  minTradeAmount: DecimalFromWire,
  maxTradeAmount: DecimalFromWire,
  takerFeeRate: DecimalFromWire,
  makerFeeRate: DecimalFromWire,
  enableTrade: Schema.Boolean,
  buyLimitPriceRatio: Schema.optional(Schema.NullOr(Schema.String)),
  sellLimitPriceRatio: Schema.optional(Schema.NullOr(Schema.String)),
  marketBuyLimitSize: Schema.optional(Schema.NullOr(Schema.String)),
  marketSellLimitSize: Schema.optional(Schema.NullOr(Schema.String)),
  marketFallbackPriceRatio: Schema.optional(Schema.NullOr(Schema.String)),
  enableDisplay: Schema.optional(Schema.NullOr(Schema.Boolean)),
  displayDigitMerge: Schema.optional(Schema.NullOr(Schema.String)),
  displayNew: Schema.optional(Schema.NullOr(Schema.Boolean)),
  displayHot: Schema.optional(Schema.NullOr(Schema.Boolean)),
  supportTracing: Schema.optional(Schema.NullOr(Schema.Boolean)),
  supportPlanMarket: Schema.optional(Schema.NullOr(Schema.Boolean))
})

/**
 * @since 0.1.0
 * @category responses
 */
export type SymbolRules = typeof SymbolRules.Type

/**
 * An entry of `exchangeInfo` that could not be read as a symbol's rules (a missing field, a value out of range such
 * as a tick of `1e-40`, a flag of the wrong type, a symbol listed again with different rules): its place in the list,
 * its `symbol` when it names one, and why.
 * The client leaves such a symbol out, as one the venue does not list, and reports it (`Telemetry.Event`
 * `UnreadableSymbols`, a warning in the log).
 *
 * @since 0.1.0
 * @category responses
 */
export interface UnreadableSymbol {
  /** The entry's place in the venue's list, from 0. */
  readonly index: number
  /** The symbol the entry names, when it names one (as text, at most 40 printable characters). */
  readonly symbol: string | undefined
  /** Why it could not be read: the field and what was expected of it. */
  readonly issue: string
}

/**
 * The symbol rules of an `exchangeInfo` answer: the entries read, and those that could not be (each with why).
 *
 * @since 0.1.0
 * @category responses
 */
export interface SymbolList {
  readonly symbols: ReadonlyArray<SymbolRules>
  readonly unreadable: ReadonlyArray<UnreadableSymbol>
}

const decodeSymbolRules = Schema.decodeUnknownResult(SymbolRules)
const issueFormatter = SchemaIssue.makeFormatterStandardSchemaV1()

// Why an entry is not a symbol's rules, as one short line: the first issue, with its path.
const issueOf = (error: Schema.SchemaError): string => {
  const first = issueFormatter(error.issue).issues[0]
  if (first === undefined) return printable(error.message)
  const path = (first.path ?? []).map((key) => String(typeof key === "object" ? key.key : key)).join(".")
  return printable(path === "" ? first.message : `${path}: ${first.message}`)
}

// The symbol an entry names, as the venue wrote it, when it names one.
const symbolOf = (entry: unknown): string | undefined => {
  const symbol = typeof entry === "object" && entry !== null
    ? (entry as { readonly symbol?: unknown }).symbol
    : undefined
  return typeof symbol === "string" ? symbol : undefined
}

// Whether two readings of a symbol's rules are the same (their values are texts, flags and nulls).
const sameRules = (a: SymbolRules, b: SymbolRules): boolean => {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)])
  for (const key of keys) {
    if (a[key as keyof SymbolRules] !== b[key as keyof SymbolRules]) return false
  }
  return true
}

/**
 * Reads a list of `exchangeInfo` entries one by one: an entry that is not a symbol's rules is set aside with its
 * reason, and never costs the others (a program placing orders on a good symbol keeps its check). A symbol listed
 * more than once is kept once when its copies agree; when they differ (one of them unreadable too), which is the
 * venue's rule is unknown (checking against the wrong copy would refuse valid orders), so every copy is set aside, as
 * unreadable.
 *
 * @since 0.1.0
 * @category responses
 */
export const readSymbolList = (entries: ReadonlyArray<unknown> | null): SymbolList => {
  const read: Array<{ readonly index: number; readonly rules: SymbolRules }> = []
  const unreadable: Array<UnreadableSymbol> = []
  const bySymbol = new Map<string, Array<SymbolRules>>()
  // How many unreadable entries name each symbol: copies whose rules differ from any readable copy's.
  const unreadableCopies = new Map<string, number>()
  ;(entries ?? []).forEach((entry, index) => {
    const decoded = decodeSymbolRules(entry)
    if (Result.isFailure(decoded)) {
      const symbol = symbolOf(entry)
      if (symbol !== undefined) unreadableCopies.set(symbol, (unreadableCopies.get(symbol) ?? 0) + 1)
      unreadable.push({
        index,
        symbol: symbol === undefined ? undefined : printable(symbol, 40),
        issue: issueOf(decoded.failure)
      })
      return
    }
    read.push({ index, rules: decoded.success })
    const copies = bySymbol.get(decoded.success.symbol)
    if (copies === undefined) bySymbol.set(decoded.success.symbol, [decoded.success])
    else copies.push(decoded.success)
  })
  const symbols: Array<SymbolRules> = []
  for (const { index, rules } of read) {
    const copies = bySymbol.get(rules.symbol)!
    const others = unreadableCopies.get(rules.symbol) ?? 0
    if (others === 0 && copies.every((copy) => sameRules(copy, copies[0]!))) {
      if (copies[0] === rules) symbols.push(rules)
    } else {
      unreadable.push({
        index,
        symbol: printable(rules.symbol, 40),
        issue: `listed ${copies.length + others} times with different rules`
      })
    }
  }
  unreadable.sort((a, b) => a.index - b.index)
  return { symbols, unreadable }
}

/**
 * The `data` of `exchangeInfo`: an array (null read as empty), each entry read on its own (`readSymbolList`): the
 * symbols' rules, and the entries that could not be read. Only an answer that is not an array fails as a whole.
 *
 * @since 0.1.0
 * @category responses
 */
export const ExchangeInfo = Schema.NullOr(Schema.Array(Schema.Unknown)).pipe(
  Schema.decodeTo(
    Schema.toType(Schema.Struct({
      symbols: Schema.Array(Schema.toType(SymbolRules)),
      unreadable: Schema.Array(Schema.Struct({
        index: Schema.Number,
        symbol: Schema.UndefinedOr(Schema.String),
        issue: Schema.String
      }))
    })),
    {
      decode: SchemaGetter.transform(readSymbolList),
      encode: SchemaGetter.transform((list: SymbolList) => list.symbols)
    }
  )
)

/**
 * The `data` of `/api/v2/public/products`: the symbols tradable by API.
 *
 * @since 0.1.0
 * @category responses
 */
export const ProductList = Schema.NullOr(Schema.Array(Schema.String))

/**
 * The `data` of `/api/v2/public/time`: the server's time (ms).
 *
 * @since 0.1.0
 * @category responses
 */
export const ServerTime = MillisFromWire

/**
 * The check the client runs before placing an order, for a caller who wants it beforehand (to round a price to the
 * tick, say): prepared once from a symbol's rules, it answers why an order breaks them — a `SymbolRuleError` naming
 * the rule and the nearest valid values — or `undefined`. Limit orders are checked on price and quantity, market
 * sells on quantity; a market buy's quantity is in the quote coin and is not checked.
 *
 * @since 0.1.0
 * @category checks
 */
export const orderCheck = (
  rules: SymbolRules
): (order: {
  readonly side: "buy" | "sell"
  readonly orderType: "limit" | "market"
  readonly price?: string | undefined
  readonly quantity: string
}) => SpotError.SymbolRuleError | undefined => RuleCheck.check(rules)

// ---------------------------------------------------------------------------------------------------------------
// Public market data (docs/venue/market-data.md): ticker, order book, candles, recent trades

const optionalDecimal = Schema.optional(Schema.NullOr(DecimalFromWire))
const optionalMillis = Schema.optional(Schema.NullOr(MillisFromWire))

/**
 * A symbol's 24-hour statistics (docs/venue/market-data.md#ticker): `symbol` and `lastPrice` always, every other
 * field when the venue sends it. `priceChangePercent` is a fraction (`-0.011451` is −1.1451 %). `ts` is the venue's
 * time of the figures, never compared with the envelope's time.
 *
 * @since 0.1.0
 * @category market data
 */
export const Ticker = Schema.Struct({
  symbol: Schema.String,
  lastPrice: DecimalFromWire,
  priceChange: optionalDecimal,
  priceChangePercent: optionalDecimal,
  /** Number of trades in the 24 hours. */
  trades: Schema.optional(Schema.NullOr(TradeCount)),
  /** Base-coin volume of the 24 hours. */
  size: optionalDecimal,
  /** Quote-coin volume of the 24 hours. */
  value: optionalDecimal,
  high: optionalDecimal,
  low: optionalDecimal,
  open: optionalDecimal,
  close: optionalDecimal,
  highTime: optionalMillis,
  lowTime: optionalMillis,
  startTime: optionalMillis,
  endTime: optionalMillis,
  openInterest: optionalDecimal,
  markPrice: optionalDecimal,
  indexPrice: optionalDecimal,
  ts: optionalMillis
})

/**
 * @since 0.1.0
 * @category market data
 */
export type Ticker = typeof Ticker.Type

/**
 * Every symbol's ticker.
 *
 * @since 0.1.0
 * @category market data
 */
export const Tickers = Schema.NullOr(Schema.Array(Ticker)).pipe(
  Schema.decodeTo(Schema.Array(Schema.toType(Ticker)), {
    decode: SchemaGetter.transform((list: ReadonlyArray<Ticker> | null) => list ?? []),
    encode: SchemaGetter.transform((list: ReadonlyArray<Ticker>) => list)
  })
)

/**
 * One price level of an order book: its price, and the size resting there (base coin), both exact as the venue
 * writes them (trailing zeros kept).
 *
 * @since 0.1.0
 * @category market data
 */
export const Level = Schema.Struct({ price: Decimal, size: Decimal })

/**
 * @since 0.1.0
 * @category market data
 */
export type Level = typeof Level.Type

const LevelFromWire = Schema.Tuple([DecimalFromWire, DecimalFromWire]).pipe(
  Schema.decodeTo(Schema.toType(Level), {
    decode: SchemaGetter.transform(([price, size]: readonly [Decimal, Decimal]): Level => ({ price, size })),
    encode: SchemaGetter.transform((level: Level) => [level.price, level.size] as const)
  })
)

const byPrice = (direction: 1 | -1) => (a: Level, b: Level) => direction * Decimals.compare(a.price, b.price)

// A side best first, read as the pushed book reads a snapshot (internal/push/book.ts): a price listed again (whatever
// its trailing zeros) replaces the earlier listing, and a level nothing rests at (a size of zero) is left out. A
// repeated price is a venue's quirk, not a reason to refuse the whole book (a program may want only its best level).
const side = (levels: ReadonlyArray<Level> | null, direction: 1 | -1): Array<Level> => {
  // The sort is stable: the listings of one price stay in the venue's order, the last one the level.
  const sorted = [...(levels ?? [])].sort(byPrice(direction))
  const out: Array<Level> = []
  for (let i = 0; i < sorted.length; i++) {
    const level = sorted[i]!
    const next = sorted[i + 1]
    if (next !== undefined && Decimals.compare(level.price, next.price) === 0) continue
    if (isPositive(level.size)) out.push(level)
  }
  return out
}

/**
 * An order book (docs/venue/market-data.md#depth): bids best (highest) first, asks best (lowest) first, whatever
 * order the venue sends them in; `timestamp` the venue's time of the snapshot. A level of size zero is left out, and
 * a price listed twice on a side is the later listing (as the pushed book reads a snapshot); a price at or below zero
 * or a negative size fails the decoding. A crossed book is kept as the venue sent it. REST depth carries no update id:
 * it cannot be stitched to pushed changes (the push stream keeps its own book).
 *
 * @since 0.1.0
 * @category market data
 */
export const OrderBook = Schema.Struct({
  asks: Schema.NullOr(Schema.Array(LevelFromWire)),
  bids: Schema.NullOr(Schema.Array(LevelFromWire)),
  timestamp: optionalMillis
}).check(wellFormedBook).pipe(
  Schema.decodeTo(
    Schema.toType(
      Schema.Struct({ bids: Schema.Array(Level), asks: Schema.Array(Level), timestamp: Schema.optional(Schema.Number) })
    ),
    {
      decode: SchemaGetter.transform((book) => ({
        bids: side(book.bids, -1),
        asks: side(book.asks, 1),
        ...(book.timestamp == null ? {} : { timestamp: book.timestamp })
      })),
      encode: SchemaGetter.transform((book) => book)
    }
  )
)

/**
 * @since 0.1.0
 * @category market data
 */
export type OrderBook = typeof OrderBook.Type

/**
 * The depths the venue serves a book at.
 *
 * @since 0.1.0
 * @category market data
 */
export const BookDepth = Schema.Literals([15, 200])

/**
 * @since 0.1.0
 * @category market data
 */
export type BookDepth = typeof BookDepth.Type

/**
 * A candle period (docs/venue/market-data.md#candles).
 *
 * @since 0.1.0
 * @category market data
 */
export const CandlePeriod = Schema.Literals([
  "1m",
  "5m",
  "15m",
  "30m",
  "1h",
  "2h",
  "4h",
  "6h",
  "8h",
  "12h",
  "1d",
  "1w",
  "1M"
])

/**
 * @since 0.1.0
 * @category market data
 */
export type CandlePeriod = typeof CandlePeriod.Type

/**
 * One candle, its fields named: the period's open time (ms), open, high, low, close, and the volumes in the base and
 * the quote coin, all exact.
 *
 * @since 0.1.0
 * @category market data
 */
export const Candle = Schema.Struct({
  openTime: Millis,
  open: Decimal,
  high: Decimal,
  low: Decimal,
  close: Decimal,
  baseVolume: Decimal,
  quoteVolume: Decimal
})

/**
 * @since 0.1.0
 * @category market data
 */
export type Candle = typeof Candle.Type

/**
 * A candle as the venue writes it, `[openTime, open, high, low, close, baseVolume, quoteVolume]` (any further
 * elements ignored), as a `Candle`. A price at or below zero, a negative volume, or a high below the low fails the
 * decoding (volumes of zero are a period without trades).
 *
 * @since 0.1.0
 * @category market data
 */
export const CandleFromWire = Schema.TupleWithRest(
  Schema.Tuple([
    MillisFromWire,
    DecimalFromWire,
    DecimalFromWire,
    DecimalFromWire,
    DecimalFromWire,
    DecimalFromWire,
    DecimalFromWire
  ]),
  [Schema.Unknown]
).pipe(
  Schema.decodeTo(Schema.toType(Candle).check(wellFormedCandle), {
    decode: SchemaGetter.transform(([openTime, open, high, low, close, baseVolume, quoteVolume]): Candle => ({
      openTime,
      open,
      high,
      low,
      close,
      baseVolume,
      quoteVolume
    })),
    encode: SchemaGetter.transform((c: Candle) =>
      [c.openTime, c.open, c.high, c.low, c.close, c.baseVolume, c.quoteVolume] as const
    )
  })
)

/**
 * Candles in ascending open time, whatever order the venue sends them in. Of two candles with one open time, the one
 * with the greater base volume is kept (the later state of a period still forming: its volume only grows), the later
 * in the venue's order when the volumes are equal; so a candle the venue repeats is kept once.
 *
 * @since 0.1.0
 * @category market data
 */
export const Candles = Schema.NullOr(Schema.Array(CandleFromWire)).pipe(
  Schema.decodeTo(Schema.toType(Schema.Array(Candle)), {
    decode: SchemaGetter.transform((list: ReadonlyArray<Candle> | null) => {
      const byTime = new Map<number, Candle>()
      for (const candle of list ?? []) {
        const kept = byTime.get(candle.openTime)
        if (kept === undefined || Decimals.compare(candle.baseVolume, kept.baseVolume) >= 0) {
          byTime.set(candle.openTime, candle)
        }
      }
      return [...byTime.values()].sort((a, b) => a.openTime - b.openTime)
    }),
    encode: SchemaGetter.transform((list: ReadonlyArray<Candle>) => list)
  })
)

/**
 * A trade on the venue's market (anyone's): its id, time, price, size (base coin), value (quote coin), whether the
 * buyer was the maker, and the taker's side that follows from it.
 *
 * @since 0.1.0
 * @category market data
 */
export const Trade = Schema.Struct({
  symbol: Schema.String,
  tradeId: Schema.String,
  time: Millis,
  price: Decimal,
  size: Decimal,
  value: Decimal,
  buyerMaker: Schema.Boolean,
  /** The taker's side: `sell` when the buyer was the maker. */
  side: Schema.Literals(["buy", "sell"])
})

/**
 * @since 0.1.0
 * @category market data
 */
export type Trade = typeof Trade.Type

/**
 * A boolean the venue may write as `true`/`false` or as the strings `"true"`/`"false"`.
 *
 * @since 0.1.0
 * @category market data
 */
export const BooleanFromWire = Schema.Union([
  Schema.Boolean,
  Schema.Literals(["true", "false"]).pipe(Schema.decodeTo(Schema.Boolean, {
    decode: SchemaGetter.transform((text: "true" | "false") => text === "true"),
    encode: SchemaGetter.transform((flag: boolean) => flag ? "true" as const : "false" as const)
  }))
])

/**
 * A recent trade as the venue writes it (docs/venue/market-data.md#recent-trades), as a `Trade`. A price or a size
 * at or below zero, or a negative value, fails the decoding.
 *
 * @since 0.1.0
 * @category market data
 */
export const TradeFromWire = Schema.Struct({
  symbol: Schema.String,
  tradeId: IdFromWire,
  fillTime: MillisFromWire,
  fillPrice: DecimalFromWire,
  fillQuantity: DecimalFromWire,
  tradeValue: DecimalFromWire,
  buyerMaker: BooleanFromWire
}).pipe(
  Schema.decodeTo(Schema.toType(Trade).check(wellFormedTrade), {
    decode: SchemaGetter.transform((wire): Trade => ({
      symbol: wire.symbol,
      tradeId: wire.tradeId,
      time: wire.fillTime,
      price: wire.fillPrice,
      size: wire.fillQuantity,
      value: wire.tradeValue,
      buyerMaker: wire.buyerMaker,
      side: wire.buyerMaker ? "sell" : "buy"
    })),
    encode: SchemaGetter.transform((trade: Trade) => ({
      symbol: trade.symbol,
      tradeId: trade.tradeId,
      fillTime: trade.time,
      fillPrice: trade.price,
      fillQuantity: trade.size,
      tradeValue: trade.value,
      buyerMaker: trade.buyerMaker
    }))
  })
)

/**
 * Recent trades, newest first (as the venue sends them).
 *
 * @since 0.1.0
 * @category market data
 */
export const Trades = Schema.NullOr(Schema.Array(TradeFromWire)).pipe(
  Schema.decodeTo(Schema.toType(Schema.Array(Trade)), {
    decode: SchemaGetter.transform((list: ReadonlyArray<Trade> | null) => list ?? []),
    encode: SchemaGetter.transform((list: ReadonlyArray<Trade>) => list)
  })
)

/**
 * A depth query: the symbol and how many levels a side (15 or 200).
 *
 * @since 0.1.0
 * @category market data
 */
export const DepthQuery = Schema.Struct({ symbol: TradingPair, limit: Schema.optional(BookDepth) })

/**
 * A candles query: the symbol, the period, how many, and optionally the open times from (`startTime`, inclusive) and
 * before (`endTime`, exclusive) which to answer, in ms; an `endTime` before `startTime` is refused.
 *
 * @since 0.1.0
 * @category market data
 */
export const CandlesQuery = Schema.Struct({
  symbol: TradingPair,
  period: CandlePeriod,
  limit: Schema.optional(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 1000 }))),
  startTime: Schema.optional(Millis),
  endTime: Schema.optional(Millis)
}).check(Schema.makeFilter((q) =>
  q.startTime !== undefined && q.endTime !== undefined && q.endTime < q.startTime
    ? { path: ["endTime"], issue: "must not be before startTime" }
    : undefined
))

/**
 * A recent-trades query: the symbol and how many (1..1000, default 100).
 *
 * @since 0.1.0
 * @category market data
 */
export const TradesQuery = Schema.Struct({
  symbol: TradingPair,
  limit: Schema.optional(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 1000 })))
})

/**
 * Options of `SpotClient.orderBook`.
 *
 * @since 0.1.0
 * @category options
 */
export interface OrderBookOptions {
  /** Levels a side: 15 or 200. @default 15 */
  readonly limit?: BookDepth | undefined
}

/**
 * Options of `SpotClient.candles`.
 *
 * @since 0.1.0
 * @category options
 */
export interface CandlesOptions {
  /** Candles at most. The venue's default when absent. */
  readonly limit?: number | undefined
  /** The earliest open time answered (ms, inclusive). */
  readonly startTime?: number | undefined
  /** Open times before this (ms, exclusive). */
  readonly endTime?: number | undefined
}

/**
 * Options of `SpotClient.candleHistory`.
 *
 * @since 0.1.0
 * @category options
 */
export interface CandleHistoryOptions {
  /** The earliest open time (ms, inclusive). */
  readonly since: number
  /** Open times before this (ms, exclusive); without it, a `since` after now answers no candles. @default now */
  readonly until?: number | undefined
  /** Candles per request, 1..1000. @default 1000 */
  readonly pageSize?: number | undefined
}

/**
 * Options of `SpotClient.recentTrades`.
 *
 * @since 0.1.0
 * @category options
 */
export interface RecentTradesOptions {
  /** Trades at most, 1..1000. @default the venue's, 100 */
  readonly limit?: number | undefined
}
