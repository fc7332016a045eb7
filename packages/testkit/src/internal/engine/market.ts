// Market data: what the public endpoints answer (the book by price level, recent trades, the rolling 24-hour ticker,
// candles of every period), and the little state that feeds them. Matching calls `record` once per trade, which
// writes the trade into its product's ring of latest trades and adds it to the candle of its minute: a few writes,
// no allocation (but a new minute's record). The rest is built when asked: the book from the book's own levels, the
// ticker and every longer candle from the minute candles (every period's boundary is a minute's). Numbers are the
// engine's integer units (prices in ticks, quantities in lots, values in units of the quote coin); volumes are kept
// in two parts, so that a sum stays exact past 2^53 units.
import type { Candle, CandlePeriod, CandleQuery, OrderBook, PublicTrade, Ticker } from "../../EngineModel.ts"
import { fixed } from "../units.ts"
import type { BookSide } from "./book.ts"
import type { Product } from "./registry.ts"
import { Segments } from "./segments.ts"
import { Kind, type Stamps } from "./stamps.ts"

/** The most recent trades a product keeps: the most the recent-trades endpoint answers. */
export const RECENT_TRADES = 1000

// A trade in a product's ring: six slots.
export const T_SEQ = 0
export const T_TIME = 1
export const T_PRICE = 2
export const T_LOTS = 3
export const T_VALUE = 4
export const T_BUYER_MAKER = 5
const T_STRIDE = 6

// A minute's candle: twelve slots; each volume is two (the units below 2^52, then the multiples of 2^52).
export const C_OPEN_TIME = 0
export const C_OPEN = 1
export const C_HIGH = 2
export const C_LOW = 3
export const C_CLOSE = 4
export const C_HIGH_TIME = 5
export const C_LOW_TIME = 6
export const C_TRADES = 7
export const C_BASE = 8
export const C_QUOTE = 10
const C_STRIDE = 12
const C_SEGMENT_BITS = 10
const C_MASK = (1 << C_SEGMENT_BITS) - 1

const TWO_52 = 2 ** 52

/** Adds `v` (a non-negative safe integer) to the two-part sum at `c[i]`, `c[i + 1]`, exactly. */
const addTo = (c: Float64Array, i: number, v: number): void => {
  if (v >= TWO_52) {
    const high = Math.floor(v / TWO_52)
    c[i + 1] = c[i + 1]! + high
    v -= high * TWO_52
  }
  const low = c[i]! + v
  if (low >= TWO_52) {
    c[i] = low - TWO_52
    c[i + 1] = c[i + 1]! + 1
  } else {
    c[i] = low
  }
}

/** A two-part sum as exact digits at `scale` decimals. */
const fixedSum = (low: number, high: number, scale: number): string =>
  high === 0 ? fixed(low, scale) : fixedBig(BigInt(high) * BigInt(TWO_52) + BigInt(low), scale)

const fixedBig = (units: bigint, scale: number): string => {
  const negative = units < 0n
  const digits = (negative ? -units : units).toString().padStart(scale + 1, "0")
  const point = digits.length - scale
  return (negative ? "-" : "") + digits.slice(0, point) + (scale === 0 ? "" : "." + digits.slice(point))
}

// ---------------------------------------------------------------------------------------------------------------
// Periods: every boundary is a minute's; days, weeks and months in UTC

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR
const WEEK = 7 * DAY
// 1970-01-05T00:00Z, the first Monday: weeks open on Mondays.
const MONDAY = 4 * DAY

const LENGTH: { readonly [P in Exclude<CandlePeriod, "1w" | "1M">]: number } = {
  "1m": MINUTE,
  "5m": 5 * MINUTE,
  "15m": 15 * MINUTE,
  "30m": 30 * MINUTE,
  "1h": HOUR,
  "2h": 2 * HOUR,
  "4h": 4 * HOUR,
  "6h": 6 * HOUR,
  "8h": 8 * HOUR,
  "12h": 12 * HOUR,
  "1d": DAY
}

// Days since the epoch <-> the proleptic Gregorian calendar (H. Hinnant's algorithms), in integers: no Date.
const civil = (days: number): { readonly year: number; readonly month: number } => {
  const z = days + 719_468
  const era = Math.floor(z / 146_097)
  const doe = z - era * 146_097
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365)
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100))
  const mp = Math.floor((5 * doy + 2) / 153)
  const month = mp < 10 ? mp + 3 : mp - 9
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month }
}

const firstDay = (year: number, month: number): number => {
  const y = month <= 2 ? year - 1 : year
  const era = Math.floor(y / 400)
  const yoe = y - era * 400
  const doy = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5)
  return era * 146_097 + yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy - 719_468
}

const mod = (a: number, b: number): number => ((a % b) + b) % b

/**
 * The open time of the period holding `t` (ms, not negative). The week of the epoch, which began on a Monday before
 * it, opens at 0: an open time is never negative (only a clock started at 0 sees that week).
 */
export const periodOpen = (period: CandlePeriod, t: number): number => {
  switch (period) {
    case "1w":
      return Math.max(0, t - mod(t - MONDAY, WEEK))
    case "1M": {
      const { month, year } = civil(Math.floor(t / DAY))
      return firstDay(year, month) * DAY
    }
    default:
      return t - (t % LENGTH[period])
  }
}

/** The open time of the period after the one holding `t`. */
export const nextOpen = (period: CandlePeriod, t: number): number => {
  switch (period) {
    case "1w":
      return t - mod(t - MONDAY, WEEK) + WEEK
    case "1M": {
      const { month, year } = civil(Math.floor(t / DAY))
      return (month === 12 ? firstDay(year + 1, 1) : firstDay(year, month + 1)) * DAY
    }
    default:
      return t - (t % LENGTH[period]) + LENGTH[period]
  }
}

/** The first open time of the period at or after `t`. */
const openAtOrAfter = (period: CandlePeriod, t: number): number => periodOpen(period, t) === t ? t : nextOpen(period, t)

// ---------------------------------------------------------------------------------------------------------------
// One product's market

const NO_CANDLE: Float64Array = new Float64Array(C_STRIDE)

class ProductMarket {
  readonly product: Product
  /** The latest trades, oldest overwritten first; the next one goes at `next`. */
  readonly ring = new Float64Array(RECENT_TRADES * T_STRIDE)
  next = 0
  /** Trades of the product so far. */
  count = 0
  /** Every minute in which the product traded, oldest first. */
  readonly minutes: Segments
  /** The latest minute's candle (its segment and offset) and when that minute ends. */
  candle: Float64Array = NO_CANDLE
  at = 0
  end = -1

  constructor(product: Product, shared: boolean) {
    this.product = product
    this.minutes = new Segments(C_SEGMENT_BITS, C_STRIDE, shared)
  }

  openMinute(time: number, price: number): void {
    const i = this.minutes.alloc()
    const c = this.minutes.segment(i)
    const o = (i & C_MASK) * C_STRIDE
    const open = time - (time % MINUTE)
    c[o + C_OPEN_TIME] = open
    c[o + C_OPEN] = price
    c[o + C_HIGH] = price
    c[o + C_LOW] = price
    c[o + C_HIGH_TIME] = time
    c[o + C_LOW_TIME] = time
    this.candle = c
    this.at = o
    this.end = open + MINUTE
  }

  /** Minute `i`'s candle: its segment; `(i & C_MASK) * C_STRIDE` is its offset there. */
  minute(i: number): Float64Array {
    return this.minutes.segment(i)
  }

  /** The first minute whose open time is at or after `t`. */
  firstFrom(t: number): number {
    let lo = 0
    let hi = this.minutes.size
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (this.minute(mid)[(mid & C_MASK) * C_STRIDE + C_OPEN_TIME]! < t) lo = mid + 1
      else hi = mid
    }
    return lo
  }
}

const offsetOf = (i: number): number => (i & C_MASK) * C_STRIDE

/** The candle of minutes `from` (inclusive) to `to` (exclusive), all in one period opening at `openTime`. */
const aggregate = (market: ProductMarket, openTime: number, from: number, to: number): Candle => {
  const p = market.product
  let high = -1
  let low = Infinity
  let trades = 0
  const sums = new Float64Array(4)
  for (let i = from; i < to; i++) {
    const c = market.minute(i)
    const o = offsetOf(i)
    if (c[o + C_HIGH]! > high) high = c[o + C_HIGH]!
    if (c[o + C_LOW]! < low) low = c[o + C_LOW]!
    trades += c[o + C_TRADES]!
    addTo(sums, 0, c[o + C_BASE]!)
    sums[1] = sums[1]! + c[o + C_BASE + 1]!
    addTo(sums, 2, c[o + C_QUOTE]!)
    sums[3] = sums[3]! + c[o + C_QUOTE + 1]!
  }
  const first = market.minute(from)[offsetOf(from) + C_OPEN]!
  const last = market.minute(to - 1)[offsetOf(to - 1) + C_CLOSE]!
  return {
    openTime,
    open: fixed(first, p.pricePrecision),
    high: fixed(high, p.pricePrecision),
    low: fixed(low, p.pricePrecision),
    close: fixed(last, p.pricePrecision),
    baseVolume: fixedSum(sums[0]!, sums[1]!, p.quantityPrecision),
    quoteVolume: fixedSum(sums[2]!, sums[3]!, p.quote.scale),
    trades
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The engine's market data

export class Market {
  /** Every trade of the engine so far: the next trade's sequence number (its id is `Kind.trade` and seq + 1). */
  trades = 0
  private readonly stamps: Stamps
  private readonly shared: boolean
  private readonly byProduct: Array<ProductMarket | undefined> = []

  constructor(stamps: Stamps, shared: boolean) {
    this.stamps = stamps
    this.shared = shared
  }

  private of(product: Product): ProductMarket {
    let market = this.byProduct[product.index]
    if (market === undefined) {
      market = new ProductMarket(product, this.shared)
      this.byProduct[product.index] = market
    }
    return market
  }

  /**
   * Records a trade of `lots` at `price` (ticks) worth `value` (quote units) at `time`, which never goes back; the
   * buyer was the maker when `buyerMaker`. On every fill's path.
   */
  record(product: Product, price: number, lots: number, value: number, buyerMaker: boolean, time: number): void {
    const market = this.byProduct[product.index] ?? this.of(product)
    const ring = market.ring
    const r = market.next
    ring[r + T_SEQ] = this.trades++
    ring[r + T_TIME] = time
    ring[r + T_PRICE] = price
    ring[r + T_LOTS] = lots
    ring[r + T_VALUE] = value
    ring[r + T_BUYER_MAKER] = buyerMaker ? 1 : 0
    market.next = r + T_STRIDE === ring.length ? 0 : r + T_STRIDE
    market.count++
    if (time >= market.end) market.openMinute(time, price)
    const c = market.candle
    const o = market.at
    if (price > c[o + C_HIGH]!) {
      c[o + C_HIGH] = price
      c[o + C_HIGH_TIME] = time
    } else if (price < c[o + C_LOW]!) {
      c[o + C_LOW] = price
      c[o + C_LOW_TIME] = time
    }
    c[o + C_CLOSE] = price
    c[o + C_TRADES] = c[o + C_TRADES]! + 1
    addTo(c, o + C_BASE, lots)
    addTo(c, o + C_QUOTE, value)
  }

  /**
   * The book's best `limit` levels a side. `step` merges levels into prices of 10^step ticks: bids down to their
   * step, asks up to theirs, so a merged level is never better than the orders in it.
   */
  book(product: Product, limit: number, step = 0): OrderBook {
    const size = 10 ** step
    const side = (book: BookSide) => {
      const out: Array<readonly [string, string]> = []
      const levels = book.levels
      let price = -1
      let total = 0
      for (let i = levels.length - 1; i >= 0; i--) {
        const level = levels[i]!
        const merged = step === 0
          ? level.price
          : book.isBid
          ? level.price - (level.price % size)
          : level.price + (size - (level.price % size)) % size
        if (merged !== price) {
          if (price >= 0) out.push([fixed(price, product.pricePrecision), fixed(total, product.quantityPrecision)])
          if (out.length === limit) return out
          price = merged
          total = 0
        }
        total += level.total
      }
      if (price >= 0) out.push([fixed(price, product.pricePrecision), fixed(total, product.quantityPrecision)])
      return out
    }
    return { bids: side(product.bids), asks: side(product.asks) }
  }

  /** The latest `limit` trades of a product, newest first (at most `RECENT_TRADES`). */
  recent(product: Product, limit: number): ReadonlyArray<PublicTrade> {
    const market = this.byProduct[product.index]
    if (market === undefined) return []
    const ring = market.ring
    const n = Math.min(limit, market.count, RECENT_TRADES)
    const out: Array<PublicTrade> = []
    for (let k = 1, r = market.next; k <= n; k++) {
      r = (r === 0 ? ring.length : r) - T_STRIDE
      out.push({
        tradeId: this.stamps.id(Kind.trade, ring[r + T_SEQ]! + 1),
        symbol: product.symbol,
        time: ring[r + T_TIME]!,
        price: fixed(ring[r + T_PRICE]!, product.pricePrecision),
        size: fixed(ring[r + T_LOTS]!, product.quantityPrecision),
        value: fixed(ring[r + T_VALUE]!, product.quote.scale),
        buyerMaker: ring[r + T_BUYER_MAKER] === 1
      })
    }
    return out
  }

  /** The product's rolling 24-hour statistics at `now` (`Ticker`), from its minute candles. */
  ticker(product: Product, now: number): Ticker {
    const pp = product.pricePrecision
    const start = Math.max(0, now - (now % MINUTE) - DAY)
    const market = this.byProduct[product.index]
    const size = market?.minutes.size ?? 0
    const last = size === 0 ? 0 : market!.minute(size - 1)[offsetOf(size - 1) + C_CLOSE]!
    let open = last
    let high = -1
    let low = Infinity
    let highTime: number | null = null
    let lowTime: number | null = null
    let trades = 0
    const sums = new Float64Array(4)
    for (let i = size - 1; i >= 0; i--) {
      const c = market!.minute(i)
      const o = offsetOf(i)
      if (c[o + C_OPEN_TIME]! < start) break
      open = c[o + C_OPEN]!
      // Scanning back, an equal extreme is an earlier one.
      if (c[o + C_HIGH]! >= high) {
        high = c[o + C_HIGH]!
        highTime = c[o + C_HIGH_TIME]!
      }
      if (c[o + C_LOW]! <= low) {
        low = c[o + C_LOW]!
        lowTime = c[o + C_LOW_TIME]!
      }
      trades += c[o + C_TRADES]!
      addTo(sums, 0, c[o + C_BASE]!)
      sums[1] = sums[1]! + c[o + C_BASE + 1]!
      addTo(sums, 2, c[o + C_QUOTE]!)
      sums[3] = sums[3]! + c[o + C_QUOTE + 1]!
    }
    if (trades === 0) {
      high = last
      low = last
    }
    const change = last - open
    return {
      symbol: product.symbol,
      lastPrice: fixed(last, pp),
      open: fixed(open, pp),
      high: fixed(high, pp),
      low: fixed(low, pp),
      close: fixed(last, pp),
      priceChange: fixed(change, pp),
      // Six decimals cut toward zero, as the venue's sample (-965.6 / 84319.6 = -0.0114516… is "-0.011451").
      priceChangePercent: fixedBig(open === 0 ? 0n : BigInt(change) * 1_000_000n / BigInt(open), 6),
      size: fixedSum(sums[0]!, sums[1]!, product.quantityPrecision),
      value: fixedSum(sums[2]!, sums[3]!, product.quote.scale),
      trades,
      highTime,
      lowTime,
      startTime: start,
      endTime: now
    }
  }

  /**
   * The product's candles of a period (`CandleQuery`: open times from `startTime`, inclusive, before `endTime`,
   * exclusive; the oldest `limit` with `startTime`, else the newest), newest first, as the venue sends them.
   */
  candles(product: Product, period: CandlePeriod, query: CandleQuery = {}): ReadonlyArray<Candle> {
    const market = this.byProduct[product.index]
    const limit = query.limit ?? 100
    if (market === undefined || limit <= 0) return []
    // The minutes of the periods opening in [startTime, endTime): from the first at or after the first period's
    // open, to the first at or after the open of the first period at or after endTime.
    const from = query.startTime === undefined ? 0 : market.firstFrom(openAtOrAfter(period, query.startTime))
    const to = query.endTime === undefined
      ? market.minutes.size
      : market.firstFrom(openAtOrAfter(period, query.endTime))
    const openOf = (i: number) => periodOpen(period, market.minute(i)[offsetOf(i) + C_OPEN_TIME]!)
    const out: Array<Candle> = []
    if (query.startTime !== undefined) {
      for (let i = from; i < to && out.length < limit;) {
        const open = openOf(i)
        let j = i + 1
        while (j < to && openOf(j) === open) j++
        out.push(aggregate(market, open, i, j))
        i = j
      }
      return out.reverse()
    }
    for (let j = to; j > from && out.length < limit;) {
      const open = openOf(j - 1)
      let i = j - 1
      while (i > from && openOf(i - 1) === open) i--
      out.push(aggregate(market, open, i, j))
      j = i
    }
    return out
  }
}
