// Views: the engine's records as the venue reports them (OrderView, BillView, LedgerEntry, Trade, depth), built only
// when asked, and the queries that list them (orders by id, user or clientOrderId, open orders, the ledger, trades).
import type {
  AccountType,
  BillView,
  Depth,
  LedgerEntry,
  OrderView,
  Trade,
  VenueOrderStatus
} from "../../EngineModel.ts"
import { fixed, trimmed } from "../units.ts"
import { accountTypes } from "./accounts.ts"
import * as Book from "./book.ts"
import { EngineError } from "./errors.ts"
import * as Ledger from "./ledger.ts"
import { Kind } from "./stamps.ts"
import type { State } from "./state.ts"
import * as Trades from "./trades.ts"

const SIDES = ["buy", "sell"] as const
const FORCES = ["normal", "postOnly", "fok", "ioc"] as const

// An order's status in the venue's words: the record keeps open, filled or cancelled; an open order that has filled
// in part is `partial_fill`.
const statusOf = (flags: number, filled: number): VenueOrderStatus => {
  const status = (flags >> Book.STATUS_SHIFT) & 3
  return status === Book.STATUS_FILLED
    ? "full_fill"
    : status === Book.STATUS_CANCELLED
    ? "cancelled"
    : filled === 0
    ? "open"
    : "partial_fill"
}

export class Views {
  // The engine's state (state.ts), the floor below.
  private readonly state: State

  constructor(state: State) {
    this.state = state
  }

  /** The order with sequence number `seq`. */
  order(seq: number): OrderView {
    const r = this.state.matching.orders.segment(seq)
    const o = Book.at(seq)
    const product = this.state.registry.products[r[o + Book.PRODUCT]!]!
    const user = this.state.accounts.users[r[o + Book.USER]!]!
    const flags = r[o + Book.FLAGS]!
    const market = (flags & Book.TYPE_MARKET) !== 0
    const buy = (flags & Book.SIDE_SELL) === 0
    const pp = product.pricePrecision
    const fillPrice = (ticks: number) => ticks === 0 ? "0" : fixed(ticks, pp)
    const filled = r[o + Book.FILLED]!
    return {
      accountId: user.accountId,
      userId: user.userId,
      symbol: product.symbol,
      orderId: this.state.stamps.id(Kind.order, seq),
      clientOrderId: this.state.matching.orders.clientOrderId(seq),
      price: market ? "0" : fixed(r[o + Book.PRICE]!, pp),
      quantity: fixed(r[o + Book.QUANTITY]!, market && buy ? product.quotePrecision : product.quantityPrecision),
      orderType: market ? "market" : "limit",
      side: SIDES[buy ? 0 : 1],
      force: FORCES[(flags >> Book.FORCE_SHIFT) & 3]!,
      status: statusOf(flags, filled),
      latestFillPrice: fillPrice(r[o + Book.LATEST_FILL]!),
      maxFillPrice: fillPrice(r[o + Book.MAX_FILL]!),
      minFillPrice: fillPrice(r[o + Book.MIN_FILL]!),
      fillQuantity: filled === 0 ? "0" : fixed(filled, product.quantityPrecision),
      fillTotalAmount: trimmed(r[o + Book.FILL_TOTAL]!, product.quote.scale),
      cTime: String(r[o + Book.C_TIME]),
      uTime: String(r[o + Book.U_TIME])
    }
  }

  /** One order by id, any status. */
  orderById(orderId: string): OrderView | undefined {
    const seq = this.state.stamps.seqOf(Kind.order, orderId)
    return seq >= 0 && seq < this.state.matching.orders.size ? this.order(seq) : undefined
  }

  /** Every order, oldest first, optionally of one user. */
  orderList(userId?: string): ReadonlyArray<OrderView> {
    const orders = this.state.matching.orders
    const out: Array<OrderView> = []
    const user = userId === undefined ? undefined : this.state.accounts.user(userId)
    for (let seq = 0; seq < orders.size; seq++) {
      if (user === undefined || orders.user(seq) === user.index) out.push(this.order(seq))
    }
    return out
  }

  /** The order with this clientOrderId of a user, any status. */
  orderByClientId(userId: string, clientOrderId: string): OrderView | undefined {
    const seq = this.state.matching.clientIds.get(this.state.accounts.user(userId).index, clientOrderId)
    return seq < 0 ? undefined : this.order(seq)
  }

  /** A user's open orders on a symbol, newest first (cTime desc, then orderId desc), one page (`pageNo` from 0). */
  openOrders(userId: string, symbol: string, pageNo: number, limit: number): ReadonlyArray<OrderView> {
    // The venue's order is cTime desc, then orderId desc. An order's cTime is the engine's clock when it was placed,
    // which never goes back, so that order is descending sequence numbers.
    const sorted = this.openSeqs(userId, symbol)
    const out: Array<OrderView> = []
    const first = sorted.length - 1 - pageNo * limit
    for (let i = first; i > first - limit && i >= 0; i--) out.push(this.order(sorted[i]!))
    return out
  }

  /** The sequence numbers of a user's open orders on a symbol, ascending (oldest first); none for an unknown one. */
  openSeqs(userId: string, symbol: string): Float64Array {
    const user = this.state.accounts.find(userId)
    const product = this.state.registry.product(symbol)
    const seqs: Array<number> = []
    if (user === undefined || product === undefined) return new Float64Array(0)
    const store = this.state.matching.orders
    for (const side of [product.bids, product.asks]) {
      for (const level of side.levels) {
        for (let seq = level.head; seq !== Book.NO_ORDER; seq = store.segment(seq)[Book.at(seq) + Book.NEXT]!) {
          if (store.user(seq) === user.index) seqs.push(seq)
        }
      }
    }
    // A numeric sort, no comparator.
    return Float64Array.from(seqs).sort()
  }

  /** The order book of a symbol: price levels best first, with the total quantity and number of orders at each. */
  depth(symbol: string): Depth {
    const product = this.state.registry.product(symbol)
    if (product === undefined) throw new EngineError(`unknown symbol ${symbol}`)
    const levels = (side: Book.BookSide) =>
      side.levels.slice().reverse().map((l) =>
        [fixed(l.price, product.pricePrecision), fixed(l.total, product.quantityPrecision), l.count] as const
      )
    return { bids: levels(product.bids), asks: levels(product.asks) }
  }

  /** Every trade, oldest first. */
  trades(): ReadonlyArray<Trade> {
    const log = this.state.matching.trades.records
    const store = this.state.matching.orders
    const out: Array<Trade> = []
    for (let i = 0; i < log.size; i++) {
      const r = log.segment(i)
      const o = Trades.at(i)
      const maker = r[o + Trades.MAKER]!
      const taker = r[o + Trades.TAKER]!
      const product = this.state.registry.products[store.segment(taker)[Book.at(taker) + Book.PRODUCT]!]!
      const takerBuys = (store.flags(taker) & Book.SIDE_SELL) === 0
      // Each side pays its fee in the coin it receives: the buyer in base, the seller in quote.
      const makerScale = takerBuys ? product.quote.scale : product.base.scale
      const takerScale = takerBuys ? product.base.scale : product.quote.scale
      out.push({
        tradeId: this.state.stamps.id(Kind.trade, i + 1),
        symbol: product.symbol,
        price: fixed(r[o + Trades.PRICE]!, product.pricePrecision),
        quantity: fixed(r[o + Trades.LOTS]!, product.quantityPrecision),
        amount: trimmed(r[o + Trades.VALUE]!, product.quote.scale),
        takerSide: takerBuys ? "buy" : "sell",
        makerOrderId: this.state.stamps.id(Kind.order, maker),
        takerOrderId: this.state.stamps.id(Kind.order, taker),
        makerFee: trimmed(r[o + Trades.MAKER_FEE]!, makerScale),
        takerFee: trimmed(r[o + Trades.TAKER_FEE]!, takerScale),
        time: r[o + Trades.TIME]!
      })
    }
    return out
  }

  /** The ledger entry at `entry` as a funding bill. */
  bill(entry: number): BillView {
    const r = this.state.accounts.ledger.records.segment(entry)
    const o = Ledger.at(entry)
    const kind = Ledger.kindOf(r[o + Ledger.WHO]!)
    const coin = this.state.registry.coins[Ledger.coinOf(kind)]!
    return {
      billId: this.state.stamps.id(Kind.bill, entry + 1),
      coinId: coin.coinId,
      coinName: coin.name,
      bizType: Ledger.bizTypes[Ledger.bizTypeOf(kind)]!,
      deltaAmount: trimmed(r[o + Ledger.DELTA]!, coin.scale),
      afterAmount: trimmed(r[o + Ledger.AFTER]!, coin.scale),
      fees: trimmed(r[o + Ledger.FEE]!, coin.scale),
      cTime: String(r[o + Ledger.TIME])
    }
  }

  /** Every ledger entry of a user (optionally of one account), oldest first. */
  ledgerOf(userId: string, accountType?: AccountType): ReadonlyArray<LedgerEntry> {
    const user = this.state.accounts.user(userId)
    const account = accountType === undefined ? -1 : accountTypes.indexOf(accountType)
    if (accountType !== undefined && account < 0) throw new EngineError(`unknown account type ${accountType}`)
    const out: Array<LedgerEntry> = []
    const ledger = this.state.accounts.ledger.records
    for (let i = 0; i < ledger.size; i++) {
      const r = ledger.segment(i)
      const o = Ledger.at(i)
      const who = r[o + Ledger.WHO]!
      const entryAccount = Ledger.accountOf(Ledger.kindOf(who))
      if (Ledger.userOf(who) === user.index && (account < 0 || entryAccount === account)) {
        out.push({ ...this.bill(i), userId: user.userId, accountType: accountTypes[entryAccount]! })
      }
    }
    return out
  }
}
