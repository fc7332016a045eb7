/**
 * The exchange engine: products, users, accounts, one order book per symbol with price-time priority, a ledger for
 * every account, internal transfers and synthetic bill histories. Plain, synchronous TypeScript with no Effect in the
 * hot loop; `TestExchange` wraps it in a service and the transports speak the venue protocol over it. `Engine` is a
 * façade over one part per concern (registry, accounts, matching, bills, views); `EngineUnits` is its numeric entry.
 *
 * Exactness: every amount is an integer number of the smallest unit of its coin (10^-scale), held in a JS number.
 * The engine refuses any deposit that would take a coin's total supply to 2^53 units or more; since trading and
 * transfers only move existing units, every balance, fill and total stays a safe integer and every operation is
 * exact. Ids are 19-digit (64-bit, above 2^53) decimal strings issued from counters, so the same seed and the same
 * calls give the same ids, responses and state.
 *
 * Time is whatever the caller passes (`TestExchange` reads `Clock`); the engine never lets it go backwards, so its
 * ledger stays in time order.
 *
 * @since 0.1.0
 */
import type { Bill } from "@spotkit/core"
import * as Accounts from "./internal/engine/accounts.ts"
import * as Errors from "./internal/engine/errors.ts"
import * as Ledger from "./internal/engine/ledger.ts"
import { attach, Parts } from "./internal/engine/parts.ts"
import * as Registry from "./internal/engine/registry.ts"

/**
 * The account types of spec §2.7, in the engine's index order.
 *
 * @since 0.1.0
 * @category constants
 */
export const accountTypes: typeof Accounts.accountTypes = Accounts.accountTypes

/**
 * @since 0.1.0
 * @category models
 */
export type AccountType = typeof accountTypes[number]

/**
 * The bill business types of spec §2.6 (core's `Bill.BizType`), in the engine's index order.
 *
 * @since 0.1.0
 * @category constants
 */
export const bizTypes: ReadonlyArray<Bill.BizType> = Ledger.bizTypes

/**
 * @since 0.1.0
 * @category models
 */
export type BizType = Bill.BizType

/**
 * A coin: its name, the numeric `coinId` the bills endpoint filters on, and the decimals its balances are kept in.
 *
 * @since 0.1.0
 * @category models
 */
export interface CoinSpec {
  readonly name: string
  readonly coinId: number
  /** @default 8 */
  readonly scale?: number | undefined
}

/**
 * A trading pair as served at `/products`.
 *
 * @since 0.1.0
 * @category models
 */
export interface ProductSpec {
  /** `<BASE><QUOTE>_SPBL`, e.g. `"BTCUSDT_SPBL"`. */
  readonly symbol: string
  readonly base: string
  readonly quote: string
  /** Decimals of a price. */
  readonly pricePrecision: number
  /** Decimals of a quantity in the base coin. */
  readonly quantityPrecision: number
  /** Decimals of a market buy's quantity, which is an amount of the quote coin. @default pricePrecision */
  readonly quotePrecision?: number | undefined
  /** Smallest order value in the quote coin (price × quantity; a market buy's quantity). @default "0" */
  readonly minOrderValue?: string | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface EngineOptions {
  /** Seeds the id prefixes and the synthetic histories. @default 1 */
  readonly seed?: number | undefined
  /** @default BTC (coinId 1), USDT (2), ETH (3), all with 8 decimals */
  readonly coins?: ReadonlyArray<CoinSpec> | undefined
  /** Fee on what a maker receives, at most 6 decimals. @default "0.001" */
  readonly makerFeeRate?: string | undefined
  /** Fee on what a taker receives, at most 6 decimals. @default "0.001" */
  readonly takerFeeRate?: string | undefined
  /** Keep a record of every trade (`trades()`). @default true */
  readonly recordTrades?: boolean | undefined
  /**
   * Keep orders, ledger entries, trades and the clientOrderId table in `SharedArrayBuffer`s where the platform has
   * them. V8 does not count those as external memory, so a growing engine calls for no full garbage collections
   * (which could free none of it, and each of which marks the whole program's heap: twice the throughput with a few
   * million live strings around). Set `false` in a program that creates and drops many large engines: a dropped
   * engine's shared memory is freed only at the next full collection, which its size no longer brings on.
   * @default true
   */
  readonly sharedMemory?: boolean | undefined
}

/**
 * An order request as the venue receives it (spec §2.1), already parsed from JSON.
 *
 * @since 0.1.0
 * @category models
 */
export interface OrderRequest {
  readonly symbol: string
  readonly side: string
  readonly orderType: string
  readonly force: string
  readonly price?: string | undefined
  readonly quantity: string
  readonly clientOrderId: string
}

/**
 * A refusal with the venue's code and message (DESIGN §3).
 *
 * @since 0.1.0
 * @category models
 */
export interface Rejection {
  readonly ok: false
  readonly code: string
  readonly msg: string
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Placed {
  readonly ok: true
  readonly orderId: string
  readonly clientOrderId: string
}

/**
 * An order as the venue reports it (spec §2.5), for any status.
 *
 * @since 0.1.0
 * @category models
 */
export interface OrderView {
  readonly accountId: string
  readonly userId: string
  readonly symbol: string
  readonly orderId: string
  readonly clientOrderId: string
  readonly price: string
  readonly quantity: string
  readonly orderType: "limit" | "market"
  readonly side: "buy" | "sell"
  readonly force: "normal" | "postOnly" | "fok" | "ioc"
  readonly status: "open" | "filled" | "cancelled"
  readonly latestFillPrice: string
  readonly maxFillPrice: string
  readonly minFillPrice: string
  readonly fillQuantity: string
  readonly fillTotalAmount: string
  readonly cTime: string
  readonly uTime: string
}

/**
 * One match between a resting (maker) and an incoming (taker) order.
 *
 * @since 0.1.0
 * @category models
 */
export interface Trade {
  readonly tradeId: string
  readonly symbol: string
  readonly price: string
  readonly quantity: string
  readonly amount: string
  readonly takerSide: "buy" | "sell"
  readonly makerOrderId: string
  readonly takerOrderId: string
  readonly makerFee: string
  readonly takerFee: string
  readonly time: number
}

/**
 * A funding bill (spec §2.6).
 *
 * @since 0.1.0
 * @category models
 */
export interface BillView {
  readonly billId: string
  readonly coinId: number
  readonly coinName: string
  readonly bizType: BizType
  readonly deltaAmount: string
  readonly afterAmount: string
  readonly fees: string
  readonly cTime: string
}

/**
 * A ledger entry of any account.
 *
 * @since 0.1.0
 * @category models
 */
export interface LedgerEntry extends BillView {
  readonly userId: string
  readonly accountType: AccountType
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Balance {
  readonly accountType: AccountType
  readonly coin: string
  readonly available: string
  readonly frozen: string
}

/**
 * Filters of the bills endpoint (spec §4.4); bounds are exclusive.
 *
 * @since 0.1.0
 * @category models
 */
export interface BillQuery {
  readonly coinId?: number | undefined
  readonly startTime?: number | undefined
  readonly endTime?: number | undefined
  /** From 1. @default 1 */
  readonly pageIndex?: number | undefined
  /** 1..100. @default 10 */
  readonly pageSize?: number | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface BillPage {
  readonly total: number
  readonly page: number
  readonly pageSize: number
  readonly hasNextPage: boolean
  readonly items: ReadonlyArray<BillView>
}

/**
 * An internal transfer request (spec §2.7); `toUserId` as exact digits.
 *
 * @since 0.1.0
 * @category models
 */
export interface TransferRequest {
  readonly toUserId: string
  readonly coin: string
  readonly amount: string
  readonly fromAccountType: string
  readonly toAccountType: string
}

/**
 * Parameters of a synthetic funding-bill history.
 *
 * @since 0.1.0
 * @category models
 */
export interface HistoryOptions {
  readonly count: number
  /** Time of the first bill (ms); not before the account's last bill. */
  readonly from: number
  /** Time of the last bill (ms). Several bills share a millisecond when `count` exceeds the span. */
  readonly to: number
  /** Coins to spread the bills over. @default every coin */
  readonly coins?: ReadonlyArray<string> | undefined
  /** @default the engine's seed */
  readonly seed?: number | undefined
}

/**
 * A product as served at `/products`.
 *
 * @since 0.2.0
 * @category models
 */
export interface ProductListing {
  readonly symbol: string
  readonly baseCoin: string
  readonly quoteCoin: string
  readonly pricePrecision: string
  readonly quantityPrecision: string
  readonly quotePrecision: string
  readonly minTradeUSDT: string
  readonly status: "online"
}

/**
 * An order book: price levels best first, each with its price, total quantity and number of orders.
 *
 * @since 0.2.0
 * @category models
 */
export interface Depth {
  readonly bids: ReadonlyArray<readonly [price: string, quantity: string, orders: number]>
  readonly asks: ReadonlyArray<readonly [price: string, quantity: string, orders: number]>
}

/**
 * One coin's totals: everything that entered from outside (deposits and synthetic flows), everything held in
 * accounts (available + frozen, all users), and the fees collected. Conservation: `held + fees === supply`.
 *
 * @since 0.2.0
 * @category models
 */
export interface Totals {
  readonly coin: string
  readonly supply: string
  readonly held: string
  readonly fees: string
}

/**
 * A programming error in seeding (unknown user or coin, bad product, supply overflow).
 *
 * @since 0.1.0
 * @category errors
 */
export const EngineError: typeof Errors.EngineError = Errors.EngineError

/**
 * @since 0.1.0
 * @category errors
 */
export type EngineError = Errors.EngineError

/**
 * Default coins: BTC (coinId 1), USDT (2), ETH (3).
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultCoins: ReadonlyArray<CoinSpec> = Registry.defaultCoins

/**
 * The exchange engine.
 *
 * @since 0.1.0
 * @category engine
 */
export class Engine {
  readonly seed: number
  private readonly parts: Parts

  constructor(options: EngineOptions = {}) {
    this.parts = new Parts(options)
    this.seed = this.parts.stamps.seed
    attach(this, this.parts)
  }

  /**
   * The latest time the engine has seen (ms).
   *
   * @since 0.1.0
   */
  get now(): number {
    return this.parts.stamps.now
  }

  /**
   * Adds a trading pair.
   *
   * @since 0.1.0
   */
  addProduct(spec: ProductSpec): void {
    this.parts.registry.addProduct(spec)
  }

  /**
   * The products as served at `/products`.
   *
   * @since 0.1.0
   */
  productList(): ReadonlyArray<ProductListing> {
    return this.parts.registry.productList()
  }

  /**
   * Whether a symbol is listed.
   *
   * @since 0.1.0
   */
  hasProduct(symbol: string): boolean {
    return this.parts.registry.product(symbol) !== undefined
  }

  /**
   * Adds a user and answers its 64-bit id.
   *
   * @since 0.1.0
   */
  addUser(userId?: string): string {
    return this.parts.accounts.addUser(userId)
  }

  /**
   * Credits an account from outside the exchange (an on-chain deposit): the only way coins enter.
   *
   * @since 0.1.0
   */
  deposit(userId: string, accountType: AccountType, coin: string, amount: string, now: number): void {
    this.parts.accounts.deposit(userId, accountType, coin, amount, now)
  }

  /**
   * Writes a synthetic funding-bill history for a user over every bizType: amounts move the funding balance (as
   * flows from outside the exchange) and each bill's `afterAmount` chains on the previous one. Deterministic for a
   * seed; a million bills take well under a second.
   *
   * @since 0.1.0
   */
  generateBills(userId: string, options: HistoryOptions): void {
    this.parts.bills.generate(userId, options)
  }

  /**
   * Places an order from its wire fields (spec §2.1) with the venue's checks and codes: parameters (40019/40020),
   * symbol (40102), precision (40808), minimum value (45110), duplicate clientOrderId (43118), balance (43012).
   * Orders trade against the user's `SPOT` account.
   *
   * @since 0.1.0
   */
  placeOrder(userId: string, request: OrderRequest, now: number): Placed | Rejection {
    return this.parts.requests.placeOrder(userId, request, now)
  }

  /**
   * Cancels an open order of the user (by orderId or clientOrderId) and releases its frozen funds.
   *
   * @since 0.1.0
   */
  cancelOrder(
    userId: string,
    id: { readonly orderId?: string; readonly clientOrderId?: string },
    now: number
  ): boolean {
    return this.parts.requests.cancelOrder(userId, id, now)
  }

  /**
   * A user's open orders on a symbol, newest first (cTime desc, then orderId desc), one page (`pageNo` from 0).
   *
   * @since 0.1.0
   */
  openOrders(userId: string, symbol: string, pageNo: number, limit: number): ReadonlyArray<OrderView> {
    return this.parts.views.openOrders(userId, symbol, pageNo, limit)
  }

  /**
   * One order by id, any status.
   *
   * @since 0.1.0
   */
  order(orderId: string): OrderView | undefined {
    return this.parts.views.orderById(orderId)
  }

  /**
   * Every order, oldest first, optionally of one user.
   *
   * @since 0.1.0
   */
  orderList(userId?: string): ReadonlyArray<OrderView> {
    return this.parts.views.orderList(userId)
  }

  /**
   * The order with this clientOrderId of a user, any status.
   *
   * @since 0.1.0
   */
  orderByClientId(userId: string, clientOrderId: string): OrderView | undefined {
    return this.parts.views.orderByClientId(userId, clientOrderId)
  }

  /**
   * The order book of a symbol: price levels best first, with the total quantity and number of orders at each.
   *
   * @since 0.1.0
   */
  depth(symbol: string): Depth {
    return this.parts.views.depth(symbol)
  }

  /**
   * Every trade, oldest first (empty when `recordTrades` is off).
   *
   * @since 0.1.0
   */
  tradeList(): ReadonlyArray<Trade> {
    return this.parts.views.trades()
  }

  /**
   * A user's balances: every account and coin with a non-zero amount.
   *
   * @since 0.1.0
   */
  balances(userId: string): ReadonlyArray<Balance> {
    return this.parts.accounts.balances(userId)
  }

  /**
   * Per coin: supply, what is held, the fees collected (`Totals`). Conservation: `held + fees === supply`.
   *
   * @since 0.1.0
   */
  totals(): ReadonlyArray<Totals> {
    return this.parts.accounts.totals()
  }

  /**
   * One page of a user's funding bills (spec §4.4): newest first (cTime desc, then billId desc), exclusive time
   * bounds, `pageIndex` from 1.
   *
   * @since 0.1.0
   */
  fundingBills(userId: string, query: BillQuery = {}): BillPage {
    return this.parts.bills.page(userId, query)
  }

  /**
   * The JSON text of `fundingBills(userId, query)`, exactly what `JSON.stringify` gives for it, written without
   * building the bills as objects first (the sandbox serves large exports as such pages).
   *
   * @since 0.1.0
   */
  fundingBillsJson(userId: string, query: BillQuery = {}): string {
    return this.parts.bills.pageJson(userId, query)
  }

  /**
   * Every ledger entry of a user (optionally of one account), oldest first.
   *
   * @since 0.1.0
   */
  ledgerOf(userId: string, accountType?: AccountType): ReadonlyArray<LedgerEntry> {
    return this.parts.views.ledgerOf(userId, accountType)
  }

  /**
   * Number of funding bills of a user.
   *
   * @since 0.1.0
   */
  fundingBillCount(userId: string): number {
    return this.parts.bills.count(userId)
  }

  /**
   * An internal transfer (spec §2.7): moves `amount` from the sender's `fromAccountType` account to the receiver's
   * `toAccountType` account. The sender's entry is `internal_withdraw` and the receiver's `internal_deposit`; where
   * only one side is a funding account, that side's entry is `transfer_out` (funds leave it) or `transfer_in`.
   *
   * @since 0.1.0
   */
  transfer(
    userId: string,
    request: TransferRequest,
    now: number
  ): { readonly ok: true; readonly id: string } | Rejection {
    return this.parts.requests.transfer(userId, request, now)
  }
}
