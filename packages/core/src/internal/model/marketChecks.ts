// What a trade, a candle or a book's side must be to be one, on REST and on push alike (Market.ts, Push.ts): a book's
// level has a price above zero and a size not below zero (zero: nothing rests there, or on push the level is gone); a
// trade has a price and a size above zero and a value not
// below zero (a tiny trade's value may round to zero at the quote coin's precision); a candle has prices above zero,
// volumes not below zero (a period without trades has none), and a high not below its low. Anything else is garbage
// no venue sends, refused as undecodable rather than shown as market data.
import { Schema } from "effect"
import { isPositive as positive } from "../../Primitives.ts"
import * as Decimal from "./decimal.ts"

const negative = (value: string): boolean => value.startsWith("-")

/** Why a trade is not one, or undefined. */
export const tradeProblem = (
  trade: { readonly price: string; readonly size: string; readonly value?: string | undefined }
): { readonly path: ReadonlyArray<string>; readonly issue: string } | undefined =>
  !positive(trade.price)
    ? { path: ["price"], issue: `a trade at a price of ${trade.price}` }
    : !positive(trade.size)
    ? { path: ["size"], issue: `a trade of a size of ${trade.size}` }
    : trade.value !== undefined && negative(trade.value)
    ? { path: ["value"], issue: `a trade of a value of ${trade.value}` }
    : undefined

/** The fields of a candle the check reads. */
export interface CandleValues {
  readonly open: string
  readonly high: string
  readonly low: string
  readonly close: string
  readonly baseVolume: string
  readonly quoteVolume?: string | undefined
}

/** Why a candle is not one, or undefined. */
export const candleProblem = (
  candle: CandleValues
): { readonly path: ReadonlyArray<string>; readonly issue: string } | undefined => {
  for (const field of ["open", "high", "low", "close"] as const) {
    if (!positive(candle[field])) return { path: [field], issue: `a candle with a ${field} of ${candle[field]}` }
  }
  if (negative(candle.baseVolume)) return { path: ["baseVolume"], issue: `a volume of ${candle.baseVolume}` }
  if (candle.quoteVolume !== undefined && negative(candle.quoteVolume)) {
    return { path: ["quoteVolume"], issue: `a volume of ${candle.quoteVolume}` }
  }
  return Decimal.compare(candle.high, candle.low) < 0
    ? { path: ["high"], issue: `a candle whose high ${candle.high} is below its low ${candle.low}` }
    : undefined
}

/** Why a side of a book (or of a depth push) is not one, or undefined. */
export const sideProblem = (
  levels: ReadonlyArray<{ readonly price: string; readonly size: string }> | null
): string | undefined => {
  for (const { price, size } of levels ?? []) {
    if (!positive(price)) return `a price of ${price}`
    if (negative(size)) return `a negative size at ${price}`
  }
  return undefined
}

/** The book check (both sides) as a schema filter. */
export const wellFormedBook = Schema.makeFilter((book: {
  readonly asks: ReadonlyArray<{ readonly price: string; readonly size: string }> | null
  readonly bids: ReadonlyArray<{ readonly price: string; readonly size: string }> | null
}) => {
  const asks = sideProblem(book.asks)
  if (asks !== undefined) return { path: ["asks"], issue: asks }
  const bids = sideProblem(book.bids)
  return bids === undefined ? undefined : { path: ["bids"], issue: bids }
})

/** The trade check as a schema filter. */
export const wellFormedTrade = Schema.makeFilter(tradeProblem)

/** The candle check as a schema filter. */
export const wellFormedCandle = Schema.makeFilter(candleProblem)

/**
 * A ticker's count of trades (REST's and pushed): a whole number not below zero, from a JSON number or a string of
 * digits. A string that is no such number ("many", "12.5") is refused, not read as `NaN` or a fraction.
 */
export const TradeCount = Schema.Union([
  Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)),
  Schema.NumberFromString.check(Schema.isInt(), Schema.isGreaterThanOrEqualTo(0))
])
