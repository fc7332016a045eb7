// What the engine does, pushed by the venue: after each order placed or cancelled (matching's listener) and each
// deposit or transfer (the accounts' listener), the orders that changed, the fills made (two per trade: the maker's
// and the taker's, with the REST fills' ids), the spot balances of the users concerned, the public trades and the
// book's changed levels, and after trades the symbol's ticker and its current bar of each candle period subscribed
// (as the market-data endpoints would answer them then) — each built only when someone subscribed to it, and nothing
// at all while nobody subscribed to anything.
import { Push } from "@spotkit/core"
import type { Engine } from "../../Engine.ts"
import type { CandlePeriod } from "../../EngineModel.ts"
import * as Book from "../engine/book.ts"
import { partsOf } from "../engine/parts.ts"
import type { Parts } from "../engine/parts.ts"
import type { Product } from "../engine/registry.ts"
import * as Trades from "../engine/trades.ts"
import { fixed, trimmed } from "../units.ts"
import type { Level } from "./events.ts"
import type { Venue } from "./venue.ts"

// The current total of the level at `price` on a side ("0" when it is gone). Changed levels are at or near the best,
// which is at the end of the side's array.
const levelAt = (side: Book.BookSide, price: number, precision: readonly [number, number]): Level => {
  const levels = side.levels
  for (let i = levels.length - 1; i >= 0; i--) {
    const level = levels[i]!
    if (level.price === price) return [fixed(price, precision[0]), fixed(level.total, precision[1])]
  }
  return [fixed(price, precision[0]), "0"]
}

class Feed {
  private readonly parts: Parts
  private readonly venue: Venue

  constructor(parts: Parts, venue: Venue) {
    this.parts = parts
    this.venue = venue
  }

  placed(seq: number, tradesFrom: number, levels: ReadonlyArray<number>, makers: ReadonlyArray<number>): void {
    if (this.venue.idle()) return
    const { matching, registry } = this.parts
    const store = matching.orders
    const r = store.segment(seq)
    const o = Book.at(seq)
    const product = registry.products[r[o + Book.PRODUCT]!]!
    const buy = (r[o + Book.FLAGS]! & Book.SIDE_SELL) === 0
    const tradesTo = matching.trades.records.size
    // The fills and public trades come from the trade log (none without one, as REST's); the orders, balances and
    // levels that changed from matching itself, which tells them whether or not the log is kept.
    for (let i = tradesFrom; i < tradesTo; i++) {
      const t = matching.trades.records.segment(i)
      const to = Trades.at(i)
      this.fill(2 * i)
      this.fill(2 * i + 1)
      this.trade(product.symbol, t, to, buy, product.pricePrecision, product.quantityPrecision, product.quote.scale)
    }
    if (makers.length > 0) this.market(product)
    for (const maker of new Set(makers)) this.order(maker)
    this.order(seq)
    const users = new Set([r[o + Book.USER]!, ...makers.map((m) => store.user(m))])
    for (const user of users) this.balances(user)
    if (!this.venue.wantsBook(product.symbol)) return
    const precision = [product.pricePrecision, product.quantityPrecision] as const
    const opposite = buy ? product.asks : product.bids
    const changed: Array<Level> = Array.from(new Set(levels), (price) => levelAt(opposite, price, precision))
    const own: Array<Level> = []
    // An order that rests now changed its own side's level.
    if (((r[o + Book.FLAGS]! >> Book.STATUS_SHIFT) & 3) === Book.STATUS_OPEN) {
      own.push(levelAt(buy ? product.bids : product.asks, r[o + Book.PRICE]!, precision))
    }
    if (changed.length === 0 && own.length === 0) return
    this.venue.publish({
      _tag: "Book",
      symbol: product.symbol,
      bids: buy ? own : changed,
      asks: buy ? changed : own
    })
  }

  cancelled(seq: number): void {
    if (this.venue.idle()) return
    const { matching, registry } = this.parts
    const r = matching.orders.segment(seq)
    const o = Book.at(seq)
    const product = registry.products[r[o + Book.PRODUCT]!]!
    this.order(seq)
    this.balances(r[o + Book.USER]!)
    if (!this.venue.wantsBook(product.symbol)) return
    const buy = (r[o + Book.FLAGS]! & Book.SIDE_SELL) === 0
    const level = levelAt(buy ? product.bids : product.asks, r[o + Book.PRICE]!, [
      product.pricePrecision,
      product.quantityPrecision
    ])
    this.venue.publish({ _tag: "Book", symbol: product.symbol, bids: buy ? [level] : [], asks: buy ? [] : [level] })
  }

  // The symbol traded: its ticker (the rolling 24 hours) and the current bar of every candle period subscribed.
  private market(product: Product): void {
    const { market } = this.parts.matching
    const now = this.parts.stamps.now
    const { symbol } = product
    if (this.venue.wantsChannel(Push.channels.ticker(symbol))) {
      const { highTime: _high, lowTime: _low, startTime: _start, endTime: _end, ...ticker } = market.ticker(
        product,
        now
      )
      this.venue.publish({ _tag: "Ticker", symbol, fields: { ...ticker, ts: String(now) } })
    }
    for (const [period, interval] of Object.entries(Push.klineIntervals)) {
      if (!this.venue.wantsChannel(Push.channels.kline(symbol, interval))) continue
      const bar = market.candles(product, period as CandlePeriod, { limit: 1 })[0]
      if (bar === undefined) continue
      this.venue.publish({
        _tag: "Kline",
        symbol,
        interval,
        bar: {
          klineTime: bar.openTime,
          open: bar.open,
          high: bar.high,
          low: bar.low,
          close: bar.close,
          size: bar.baseVolume,
          value: bar.quoteVolume
        }
      })
    }
  }

  /** A user's spot balances changed. */
  balances(userIndex: number): void {
    const user = this.parts.accounts.users[userIndex]!
    if (!this.venue.wantsUser(user.userId)) return
    this.venue.publish({
      _tag: "Balance",
      userId: user.userId,
      balances: this.parts.accounts.spotBalances(user),
      time: this.parts.stamps.now
    })
  }

  private order(seq: number): void {
    const user = this.parts.accounts.users[this.parts.matching.orders.user(seq)]!
    if (!this.venue.wantsUser(user.userId)) return
    const order = this.parts.views.order(seq)
    this.venue.publish({ _tag: "Order", userId: user.userId, order, time: Number(order.uTime) })
  }

  private fill(ref: number): void {
    const trade = ref >>> 1
    const t = this.parts.matching.trades.records.segment(trade)
    const seq = t[Trades.at(trade) + ((ref & 1) === 0 ? Trades.MAKER : Trades.TAKER)]!
    const user = this.parts.accounts.users[this.parts.matching.orders.user(seq)]!
    if (!this.venue.wantsUser(user.userId)) return
    const fill = this.parts.history.fill(ref)
    this.venue.publish({ _tag: "Fill", userId: user.userId, fill, time: Number(fill.cTime) })
  }

  private trade(
    symbol: string,
    t: Float64Array,
    to: number,
    takerBuys: boolean,
    pricePrecision: number,
    quantityPrecision: number,
    quoteScale: number
  ): void {
    if (!this.venue.wantsChannel(`trades.${symbol}`)) return
    this.venue.publish({
      _tag: "Trade",
      symbol,
      time: t[to + Trades.TIME]!,
      price: fixed(t[to + Trades.PRICE]!, pricePrecision),
      size: fixed(t[to + Trades.LOTS]!, quantityPrecision),
      value: trimmed(t[to + Trades.VALUE]!, quoteScale),
      buyerMaker: !takerBuys
    })
  }
}

/** Feeds the venue from the engine until the returned function detaches it. */
export const attach = (engine: Engine, venue: Venue): () => void => {
  const parts = partsOf(engine)
  const feed = new Feed(parts, venue)
  parts.matching.listener = {
    placed: (seq, tradesFrom, levels, makers) => feed.placed(seq, tradesFrom, levels, makers),
    cancelled: (seq) => feed.cancelled(seq)
  }
  parts.accounts.listener = (user) => {
    if (!venue.idle()) feed.balances(user.index)
  }
  return () => {
    parts.matching.listener = undefined
    parts.accounts.listener = undefined
  }
}
