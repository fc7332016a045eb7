// Matching: every order ever placed (the order store and its clientOrderId index), one book per product with
// price-time priority, fills at the maker's price with fees, and cancels. The hot path of the engine: numbers in,
// numbers out, no allocation per order beyond its record; refusals are negative results (`REJECT_*`), which
// `requests.ts` turns into the venue's codes.
import { mulDivFloor, pow10, RATE_SCALE } from "../units.ts"
import type { Accounts, User } from "./accounts.ts"
import { SPOT } from "./accounts.ts"
import {
  at,
  type BookSide,
  C_TIME,
  FILL_TOTAL,
  FILLED,
  FLAGS,
  FORCE_FOK,
  FORCE_NORMAL,
  FORCE_POST_ONLY,
  FORCE_SHIFT,
  LATEST_FILL,
  LEVEL,
  type Level,
  MAX_FILL,
  MIN_FILL,
  NEXT,
  NO_ORDER,
  OrderStore,
  PRICE,
  PRODUCT,
  QUANTITY,
  REMAINING,
  setStatus,
  SIDE_SELL,
  STATUS_CANCELLED,
  STATUS_FILLED,
  STATUS_OPEN,
  STATUS_SHIFT,
  TYPE_MARKET,
  U_TIME,
  USER
} from "./book.ts"
import { ClientIds } from "./clientIds.ts"
import { BIZ } from "./ledger.ts"
import { Market } from "./market.ts"
import type { Product, Registry } from "./registry.ts"
import type { Stamps } from "./stamps.ts"
import { TradeLog } from "./trades.ts"

// Refusals of the matching path, as negative results (no allocation on the hot path).
export const REJECT_DUPLICATE = -1
export const REJECT_MIN_VALUE = -2
export const REJECT_BALANCE = -3
export const REJECT_POST_ONLY = -4
export const REJECT_UNKNOWN = -5
export const REJECT_PARAMETER = -6
export const REJECT_NOT_TRADABLE = -7
export const REJECT_MIN_QUANTITY = -8
export const REJECT_MAX_QUANTITY = -9
export const REJECT_MAX_MARKET_BUY = -10

// The bizTypes a fill writes, as plain constants for the hot path.
const BUY_SUCCESS = BIZ.buy_success
const SELL_COMPLETE = BIZ.sell_complete

export interface MatchingOptions {
  /** Fee rates as numerators over 10^RATE_SCALE. */
  readonly makerRate: number
  readonly takerRate: number
  readonly recordTrades: boolean
  readonly shared: boolean
}

/**
 * Hears what matching did, for the push venue: an order placed (the trades it made, from index `tradesFrom` of the
 * trade log on; and, kept or not, the prices of the opposite levels it took from and the resting orders it filled, in
 * the order it met them: arrays matching reuses, to be read during the call only), an order cancelled. Unset (the
 * default), matching pays one check per call.
 */
export interface MatchingListener {
  readonly placed: (
    seq: number,
    tradesFrom: number,
    levels: ReadonlyArray<number>,
    makers: ReadonlyArray<number>
  ) => void
  readonly cancelled: (seq: number) => void
}

export class Matching {
  listener: MatchingListener | undefined = undefined
  readonly orders: OrderStore
  readonly clientIds: ClientIds
  readonly trades: TradeLog
  /** What the public market endpoints answer: fed one call per trade (`fill`). */
  readonly market: Market
  private readonly accounts: Accounts
  private readonly stamps: Stamps
  // The registry's and the accounts' own arrays, read on every fill and cancel.
  private readonly products: ReadonlyArray<Product>
  private readonly users: Array<User>
  private readonly fees: Array<number>
  /** Fee rates as numerators over 10^RATE_SCALE. */
  readonly makerRate: number
  readonly takerRate: number
  private readonly recordTrades: boolean
  // The opposite levels (by price) and the resting orders the order being placed took from, while a listener hears.
  private readonly touchedLevels: Array<number> = []
  private readonly touchedMakers: Array<number> = []

  constructor(registry: Registry, accounts: Accounts, stamps: Stamps, options: MatchingOptions) {
    this.accounts = accounts
    this.stamps = stamps
    this.products = registry.products
    this.users = accounts.users
    this.fees = accounts.fees
    this.makerRate = options.makerRate
    this.takerRate = options.takerRate
    this.recordTrades = options.recordTrades
    this.orders = new OrderStore(options.shared)
    this.clientIds = new ClientIds(this.orders, options.shared)
    this.trades = new TradeLog(options.shared)
    this.market = new Market(stamps, options.shared)
  }

  /**
   * Places an order in integer units (price in ticks, quantity in lots or a market buy's quote units): `side` 0 buy /
   * 1 sell, `market` 0 / 1, `force` 0 normal, 1 postOnly, 2 fok, 3 ioc. Answers its sequence number or a `REJECT_*`.
   * Every refusal is decided before anything changes (a refused order leaves the books, balances and ids as they
   * were); keep it so: the batch handler and any operation built of a cancel and a placement rely on it.
   */
  place(
    user: User,
    product: Product,
    side: number,
    market: number,
    force: number,
    price: number,
    quantity: number,
    clientOrderId: string,
    nowInput: number
  ): number {
    // The numeric entry points skip the string checks; keep their numbers inside what the string path could produce.
    if (
      (side !== 0 && side !== 1) || (market !== 0 && market !== 1) || !(force >= 0 && force <= 3) ||
      !Number.isSafeInteger(force) || !Number.isSafeInteger(quantity) || quantity <= 0 ||
      !Number.isSafeInteger(price) || (market === 0 ? price <= 0 : price !== 0)
    ) {
      return REJECT_PARAMETER
    }
    if (!product.enableTrade) return REJECT_NOT_TRADABLE
    if (this.clientIds.get(user.index, clientOrderId) >= 0) return REJECT_DUPLICATE
    const buy = side === 0
    // The product's quantity limits, in lots, for what is counted in lots (not a market buy's quote amount).
    if ((market === 0 || !buy) && (quantity < product.minLots || quantity > product.maxLots)) {
      return quantity < product.minLots ? REJECT_MIN_QUANTITY : REJECT_MAX_QUANTITY
    }
    // A market buy's quote amount against the largest the product publishes (`marketBuyLimitSize`).
    if (market === 1 && buy && quantity > product.maxMarketBuy) return REJECT_MAX_MARKET_BUY
    const opposite = buy ? product.asks : product.bids
    // What the order freezes: a limit buy its full value at its price, a market buy its quote amount, a sell its
    // base quantity. The value check doubles as the minimum-value check.
    let freeze: number
    let value: number
    if (market === 1) {
      if (buy) {
        freeze = quantity * product.marketBuyUnit
        value = freeze
      } else {
        freeze = quantity * product.lot
        const best = product.bids.best()
        value = best === undefined ? product.minValue : best.price * quantity * product.notional
      }
    } else {
      value = price * quantity * product.notional
      freeze = buy ? value : quantity * product.lot
    }
    if (value < product.minValue) return REJECT_MIN_VALUE
    const coin = buy ? product.quote : product.base
    if (!Number.isSafeInteger(freeze) || freeze > this.accounts.available(user, SPOT, coin)) {
      return REJECT_BALANCE
    }
    if (market === 0 && force === FORCE_POST_ONLY) {
      const best = opposite.best()
      // It would take when the best opposite price is at least as good as its own.
      if (best !== undefined && !opposite.better(price, best.price)) {
        return REJECT_POST_ONLY
      }
    }
    const now = this.stamps.tick(nowInput)
    const store = this.orders
    const seq = store.alloc(clientOrderId)
    this.clientIds.addMissed(seq)
    // A fresh record is all zeros: the fill fields start so.
    const record = store.segment(seq)
    const o = at(seq)
    record[o + PRICE] = price
    record[o + QUANTITY] = quantity
    // A market buy counts down what it may still spend, in units of the quote coin.
    record[o + REMAINING] = market === 1 && buy ? freeze : quantity
    record[o + C_TIME] = now
    record[o + U_TIME] = now
    record[o + USER] = user.index
    record[o + PRODUCT] = product.index
    record[o + FLAGS] = (buy ? 0 : SIDE_SELL) | (market === 1 ? TYPE_MARKET : 0) | (force << FORCE_SHIFT)
    this.accounts.freeze(user, coin, freeze)

    // Fill-or-kill: all of it now at acceptable prices, or nothing (the order is accepted and cancelled).
    const tradesFrom = this.trades.records.size
    this.touchedLevels.length = 0
    this.touchedMakers.length = 0
    if (market === 0 && force === FORCE_FOK && !this.canFill(opposite, price, quantity)) {
      this.finish(user, product, seq, now)
    } else {
      this.match(user, product, seq, opposite, now)
      if (record[o + REMAINING]! > 0 && market === 0 && (force === FORCE_NORMAL || force === FORCE_POST_ONLY)) {
        const own = buy ? product.bids : product.asks
        own.append(store, own.levelFor(price), seq)
      } else {
        this.finish(user, product, seq, now)
      }
    }
    if (this.listener !== undefined) this.listener.placed(seq, tradesFrom, this.touchedLevels, this.touchedMakers)
    return seq
  }

  /** Whether the opposite side holds `quantity` lots at prices at least as good as `limit`. */
  private canFill(side: BookSide, limit: number, quantity: number): boolean {
    let needed = quantity
    const levels = side.levels
    for (let i = levels.length - 1; i >= 0 && needed > 0; i--) {
      const level = levels[i]!
      if (side.better(limit, level.price)) break
      needed -= level.total
    }
    return needed <= 0
  }

  private match(taker: User, product: Product, seq: number, opposite: BookSide, now: number): void {
    const store = this.orders
    const t = store.segment(seq)
    const to = at(seq)
    const flags = t[to + FLAGS]!
    const buy = (flags & SIDE_SELL) === 0
    const market = (flags & TYPE_MARKET) !== 0
    const limit = t[to + PRICE]!
    const lotCost = product.notional
    let level: Level | undefined
    while (t[to + REMAINING]! > 0 && (level = opposite.best()) !== undefined) {
      const levelPrice = level.price
      if (!market && (buy ? levelPrice > limit : levelPrice < limit)) break
      let maker = level.head
      while (maker !== NO_ORDER && t[to + REMAINING]! > 0) {
        const m = store.segment(maker)
        const mo = at(maker)
        const next = m[mo + NEXT]!
        let lots = m[mo + REMAINING]!
        if (market && buy) {
          // Both are safe integers, so the floor of the double quotient is the exact integer quotient.
          const affordable = Math.floor(t[to + REMAINING]! / (levelPrice * lotCost))
          if (affordable === 0) return
          if (affordable < lots) lots = affordable
        } else if (t[to + REMAINING]! < lots) {
          lots = t[to + REMAINING]!
        }
        this.fill(taker, product, seq, maker, levelPrice, lots, now)
        if (this.listener !== undefined) {
          this.touchedMakers.push(maker)
          if (this.touchedLevels.at(-1) !== levelPrice) this.touchedLevels.push(levelPrice)
        }
        level.total -= lots
        if (m[mo + REMAINING] === 0) {
          opposite.unlink(store, level, maker)
          setStatus(m, mo, STATUS_FILLED)
        }
        maker = next
      }
    }
  }

  private fill(taker: User, product: Product, ts: number, ms: number, price: number, lots: number, now: number): void {
    const store = this.orders
    const accounts = this.accounts
    const t = store.segment(ts)
    const to = at(ts)
    const m = store.segment(ms)
    const mo = at(ms)
    const maker = this.users[m[mo + USER]!]!
    const takerBuys = (t[to + FLAGS]! & SIDE_SELL) === 0
    const value = price * lots * product.notional
    const baseUnits = lots * product.lot
    const buyer = takerBuys ? taker : maker
    const seller = takerBuys ? maker : taker
    const buyerRate = takerBuys ? this.takerRate : this.makerRate
    const sellerRate = takerBuys ? this.makerRate : this.takerRate
    const base = product.base
    const quote = product.quote

    // The buyer's frozen quote: a taker limit buy froze at its own price and gets the difference back.
    const b = takerBuys ? t : m
    const bo = takerBuys ? to : mo
    const buyerMarket = (b[bo + FLAGS]! & TYPE_MARKET) !== 0
    const frozenAtLimit = buyerMarket ? value : b[bo + PRICE]! * lots * product.notional
    accounts.spendFrozen(buyer, quote, value, BUY_SUCCESS, now)
    const released = frozenAtLimit - value
    if (released > 0) accounts.freeze(buyer, quote, -released)
    const buyerFee = mulDivFloor(baseUnits, buyerRate, pow10(RATE_SCALE))
    accounts.post(buyer, SPOT, base, BUY_SUCCESS, baseUnits - buyerFee, buyerFee, now)

    accounts.spendFrozen(seller, base, baseUnits, SELL_COMPLETE, now)
    const sellerFee = mulDivFloor(value, sellerRate, pow10(RATE_SCALE))
    accounts.post(seller, SPOT, quote, SELL_COMPLETE, value - sellerFee, sellerFee, now)
    this.fees[base.index] = this.fees[base.index]! + buyerFee
    this.fees[quote.index] = this.fees[quote.index]! + sellerFee

    recordFill(t, to, price, lots, value, now)
    recordFill(m, mo, price, lots, value, now)
    this.market.record(product, price, lots, value, !takerBuys, now)
    if (this.recordTrades) {
      const makerFee = takerBuys ? sellerFee : buyerFee
      const takerFee = takerBuys ? buyerFee : sellerFee
      this.trades.append(ms, ts, price, lots, value, makerFee, takerFee, now)
    }
  }

  /** Ends an order that does not rest: releases what it still has frozen; filled if nothing is left. */
  private finish(user: User, product: Product, seq: number, now: number): void {
    const r = this.orders.segment(seq)
    const o = at(seq)
    const flags = r[o + FLAGS]!
    const buy = (flags & SIDE_SELL) === 0
    const market = (flags & TYPE_MARKET) !== 0
    const remaining = r[o + REMAINING]!
    const release = buy
      ? (market ? remaining : remaining * r[o + PRICE]! * product.notional)
      : remaining * product.lot
    if (release > 0) this.accounts.freeze(user, buy ? product.quote : product.base, -release)
    // A market buy is done when what is left cannot buy one more lot.
    const done = remaining === 0 || (market && buy && r[o + FILLED]! > 0 && this.dust(product, remaining))
    setStatus(r, o, done ? STATUS_FILLED : STATUS_CANCELLED)
    r[o + U_TIME] = now
  }

  private dust(product: Product, remainingQuote: number): boolean {
    const best = product.asks.best()
    // With no asks left the rest was not spent for want of liquidity: that is a cancelled remainder, not dust.
    return best !== undefined && remainingQuote < best.price * product.notional
  }

  /**
   * Cancels an open order of the user (by index) and releases its frozen funds; false for an order that is not the
   * user's or not open, and for a `seq` that is no order (negative, or not yet issued).
   */
  cancel(userIndex: number, seq: number, now: number): boolean {
    const user = this.users[userIndex]
    const store = this.orders
    if (user === undefined || seq < 0 || seq >= store.size) return false
    const r = store.segment(seq)
    const o = at(seq)
    const flags = r[o + FLAGS]!
    if (r[o + USER] !== user.index || ((flags >> STATUS_SHIFT) & 3) !== STATUS_OPEN) return false
    const product = this.products[r[o + PRODUCT]!]!
    const buy = (flags & SIDE_SELL) === 0
    const side = buy ? product.bids : product.asks
    // An open order rests (market, FOK and IOC orders are never open after their call), in the level it recorded.
    const level = side.byId[r[o + LEVEL]!]
    if (level === undefined || level.count === 0 || level.price !== r[o + PRICE]) return false
    side.unlink(store, level, seq)
    const remaining = r[o + REMAINING]!
    const price = r[o + PRICE]!
    this.accounts.freeze(
      user,
      buy ? product.quote : product.base,
      -(buy ? remaining * price * product.notional : remaining * product.lot)
    )
    setStatus(r, o, STATUS_CANCELLED)
    r[o + U_TIME] = this.stamps.tick(now)
    if (this.listener !== undefined) this.listener.cancelled(seq)
    return true
  }
}

/** Adds a fill to an order's fill fields (docs/venue/trading.md#order-record). */
const recordFill = (r: Float64Array, o: number, price: number, lots: number, value: number, now: number): void => {
  const marketBuy = (r[o + FLAGS]! & (TYPE_MARKET | SIDE_SELL)) === TYPE_MARKET
  r[o + REMAINING] = r[o + REMAINING]! - (marketBuy ? value : lots)
  r[o + FILLED] = r[o + FILLED]! + lots
  r[o + FILL_TOTAL] = r[o + FILL_TOTAL]! + value
  r[o + LATEST_FILL] = price
  if (r[o + MAX_FILL]! < price) r[o + MAX_FILL] = price
  if (r[o + MIN_FILL] === 0 || r[o + MIN_FILL]! > price) r[o + MIN_FILL] = price
  r[o + U_TIME] = now
}
