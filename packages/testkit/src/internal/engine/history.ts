// Order history and fills (docs/venue/trading.md#order-history): a user's orders and fills on one product, newest first
// (time desc, then id desc), paged by time with exclusive bounds and `pageIndex` from 0. Their indexes (by user and
// product, in time order) are built from the order store and the trade log only when a page is asked for, taking in
// what was added since the last time: placing and matching pay nothing for them, and a fill is written out only when
// shown.
import type { FillQuery, FillView, OrderView, Page, PageQuery } from "../../EngineModel.ts"
import { fixed, trimmed } from "../units.ts"
import * as Book from "./book.ts"
import { Kind } from "./stamps.ts"
import type { State } from "./state.ts"
import * as Trades from "./trades.ts"
import type { Views } from "./views.ts"

/** A growable list of integers, in the order pushed. */
class IntList {
  size = 0
  items = new Int32Array(8)

  push(value: number): void {
    if (this.size === this.items.length) {
      const items = new Int32Array(this.items.length * 2)
      items.set(this.items)
      this.items = items
    }
    this.items[this.size++] = value
  }
}

const EMPTY = new IntList()

// A fill is named by a reference: 2 × the trade's index, + 0 for the maker's side or + 1 for the taker's. References
// grow with trades, whose times never go back; the fill's id is its reference + 1 (of kind `fill`).
const MAKER = 0
const TAKER = 1

/** The list at [user][product] of an index, created when first written. */
const listAt = (index: Array<Array<IntList>>, user: number, product: number): IntList => {
  const byProduct = index[user] ?? (index[user] = [])
  return byProduct[product] ?? (byProduct[product] = new IntList())
}

export class History {
  // The engine's state (state.ts), the floor below.
  private readonly state: State
  private readonly views: Views
  /** By user index, then product index: sequence numbers of orders, ascending (so by cTime). */
  private readonly orders: Array<Array<IntList>> = []
  /** By user index, then product index: fill references, ascending (so by time). */
  private readonly fills: Array<Array<IntList>> = []
  private ordersSeen = 0
  private tradesSeen = 0

  constructor(state: State, views: Views) {
    this.state = state
    this.views = views
  }

  /** One page of a user's orders on a symbol, any status; empty for an unknown user or symbol. */
  orderPage(userId: string, symbol: string, query: PageQuery): Page<OrderView> {
    this.takeInOrders()
    const store = this.state.matching.orders
    const list = this.listOf(this.orders, userId, symbol)
    const time = (seq: number) => store.segment(seq)[Book.at(seq) + Book.C_TIME]!
    return this.page(list, time, query, undefined, (seq) => this.views.order(seq))
  }

  /** One page of a user's fills on a symbol, optionally of one order; empty for an unknown user or symbol. */
  fillPage(userId: string, symbol: string, query: FillQuery): Page<FillView> {
    this.takeInFills()
    const log = this.state.matching.trades.records
    const list = this.listOf(this.fills, userId, symbol)
    const time = (ref: number) => {
      const trade = ref >>> 1
      return log.segment(trade)[Trades.at(trade) + Trades.TIME]!
    }
    // Not an order id of this engine: -1, which no fill's order is.
    const seq = query.orderId === undefined ? undefined : this.state.stamps.seqOf(Kind.order, query.orderId)
    const only = seq === undefined ? undefined : (ref: number) => this.orderOfFill(ref) === seq
    return this.page(list, time, query, only, (ref) => this.fill(ref))
  }

  private listOf(index: Array<Array<IntList>>, userId: string, symbol: string): IntList {
    const user = this.state.accounts.find(userId)
    const product = this.state.registry.product(symbol)
    return user === undefined || product === undefined ? EMPTY : index[user.index]?.[product.index] ?? EMPTY
  }

  /** Every fill, oldest first (the maker's before the taker's of one trade), optionally of one user (by index). */
  fillList(userIndex?: number): ReadonlyArray<FillView> {
    const store = this.state.matching.orders
    const out: Array<FillView> = []
    for (let ref = 0; ref < 2 * this.state.matching.trades.records.size; ref++) {
      if (userIndex === undefined || store.user(this.orderOfFill(ref)) === userIndex) out.push(this.fill(ref))
    }
    return out
  }

  /** The fill with this reference, as its order's owner sees it. */
  fill(ref: number): FillView {
    const trade = ref >>> 1
    const role = ref & 1
    const r = this.state.matching.trades.records.segment(trade)
    const o = Trades.at(trade)
    const seq = r[o + (role === MAKER ? Trades.MAKER : Trades.TAKER)]!
    const store = this.state.matching.orders
    const record = store.segment(seq)
    const ro = Book.at(seq)
    const product = this.state.registry.products[record[ro + Book.PRODUCT]!]!
    const user = this.state.accounts.users[record[ro + Book.USER]!]!
    const flags = record[ro + Book.FLAGS]!
    const buy = (flags & Book.SIDE_SELL) === 0
    // Each side pays its fee in the coin it receives: the buyer in the base coin, the seller in the quote coin.
    const feeCoin = buy ? product.base : product.quote
    const stamps = this.state.stamps
    return {
      fillId: stamps.id(Kind.fill, ref + 1),
      tradeId: stamps.id(Kind.trade, trade + 1),
      orderId: stamps.id(Kind.order, seq),
      userId: user.userId,
      accountId: user.accountId,
      symbol: product.symbol,
      baseCoin: product.base.name,
      quoteCoin: product.quote.name,
      orderType: (flags & Book.TYPE_MARKET) === 0 ? "limit" : "market",
      side: buy ? "buy" : "sell",
      role: role === MAKER ? "maker" : "taker",
      fillPrice: fixed(r[o + Trades.PRICE]!, product.pricePrecision),
      fillQuantity: fixed(r[o + Trades.LOTS]!, product.quantityPrecision),
      fillTotalAmount: trimmed(r[o + Trades.VALUE]!, product.quote.scale),
      fees: trimmed(r[o + (role === MAKER ? Trades.MAKER_FEE : Trades.TAKER_FEE)]!, feeCoin.scale),
      feeCoin: feeCoin.name,
      cTime: String(r[o + Trades.TIME])
    }
  }

  /** The sequence number of the order a fill belongs to. */
  private orderOfFill(ref: number): number {
    const trade = ref >>> 1
    return this.state.matching.trades.records.segment(trade)[
      Trades.at(trade) + ((ref & 1) === MAKER ? Trades.MAKER : Trades.TAKER)
    ]!
  }

  /**
   * The page of `query` over a list in time order: the entries later than `after` and earlier than `before`, newest
   * first, `pageSize` of them from `pageIndex × pageSize` on; with `only`, just the entries it accepts.
   */
  private page<A>(
    list: IntList,
    time: (entry: number) => number,
    query: PageQuery,
    only: ((entry: number) => boolean) | undefined,
    view: (entry: number) => A
  ): Page<A> {
    const pageIndex = query.pageIndex ?? 0
    const pageSize = query.pageSize ?? 10
    // The protocol refuses such pages (40020); a direct caller gets an empty page rather than reads out of range.
    if (!Number.isSafeInteger(pageIndex) || pageIndex < 0 || !Number.isSafeInteger(pageSize) || pageSize < 1) {
      return { items: [], nextPage: false }
    }
    const lo = query.after === undefined ? 0 : bound(list, time, query.after, false)
    const hi = query.before === undefined ? list.size : bound(list, time, query.before, true)
    const items: Array<A> = []
    let skip = pageIndex * pageSize
    if (only === undefined) {
      const first = hi - 1 - skip
      for (let i = first; i > first - pageSize && i >= lo; i--) items.push(view(list.items[i]!))
      return { items, nextPage: first - pageSize >= lo }
    }
    for (let i = hi - 1; i >= lo; i--) {
      const entry = list.items[i]!
      if (!only(entry)) continue
      if (skip > 0) skip--
      else if (items.length === pageSize) return { items, nextPage: true }
      else items.push(view(entry))
    }
    return { items, nextPage: false }
  }

  private takeInOrders(): void {
    const store = this.state.matching.orders
    for (let seq = this.ordersSeen; seq < store.size; seq++) {
      const r = store.segment(seq)
      const o = Book.at(seq)
      listAt(this.orders, r[o + Book.USER]!, r[o + Book.PRODUCT]!).push(seq)
    }
    this.ordersSeen = store.size
  }

  private takeInFills(): void {
    const log = this.state.matching.trades.records
    const store = this.state.matching.orders
    for (let trade = this.tradesSeen; trade < log.size; trade++) {
      const r = log.segment(trade)
      const o = Trades.at(trade)
      const maker = r[o + Trades.MAKER]!
      const taker = r[o + Trades.TAKER]!
      const product = store.segment(taker)[Book.at(taker) + Book.PRODUCT]!
      listAt(this.fills, store.user(maker), product).push(2 * trade + MAKER)
      listAt(this.fills, store.user(taker), product).push(2 * trade + TAKER)
    }
    this.tradesSeen = log.size
  }
}

/** First position whose entry's time is greater than `t` (or >= when `inclusive`). */
const bound = (list: IntList, time: (entry: number) => number, t: number, inclusive: boolean): number => {
  let lo = 0
  let hi = list.size
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    const at = time(list.items[mid]!)
    if (inclusive ? at >= t : at > t) hi = mid
    else lo = mid + 1
  }
  return lo
}
