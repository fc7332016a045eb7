/**
 * The exchange engine: products, users, accounts, one order book per symbol with price-time priority, a ledger for
 * every account, internal transfers and synthetic bill histories. Plain, synchronous TypeScript with no Effect in the
 * hot loop; `TestExchange` wraps it in a service and the transports speak the venue protocol over it. `Engine` is a
 * façade over one part per concern (registry, accounts, matching, bills, views, cancels, history, transfers);
 * `EngineUnits` is its numeric entry, and `EngineModel` holds the records it takes and reports.
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
import type {
  AccountType,
  Balance,
  BillPage,
  BillQuery,
  CancelBatch,
  Cancelled,
  Candle,
  CandlePeriod,
  CandleQuery,
  CoinSpec,
  Depth,
  EngineOptions,
  FillQuery,
  FillView,
  HistoryOptions,
  LedgerEntry,
  NotCancelled,
  OrderBook,
  OrderRef,
  OrderRequest,
  OrderView,
  Page,
  PageQuery,
  Placed,
  ProductListing,
  ProductSpec,
  PublicTrade,
  Rejection,
  SpotBalance,
  SymbolRules,
  Ticker,
  Totals,
  Trade,
  TransferPage,
  TransferQuery,
  TransferRequest,
  TransferView,
  VenueOrderStatus
} from "./EngineModel.ts"
import * as Accounts from "./internal/engine/accounts.ts"
import * as Errors from "./internal/engine/errors.ts"
import * as Ledger from "./internal/engine/ledger.ts"
import { attach, Parts } from "./internal/engine/parts.ts"
import * as Registry from "./internal/engine/registry.ts"

/**
 * The account types of docs/venue/account.md#internal-transfer, in the engine's index order.
 *
 * @since 0.1.0
 * @category constants
 */
export const accountTypes: typeof Accounts.accountTypes = Accounts.accountTypes

/**
 * The bill business types of docs/venue/account.md#bill-business-types (core's `Bill.BizType`), in the engine's index
 * order.
 *
 * @since 0.1.0
 * @category constants
 */
export const bizTypes: ReadonlyArray<Bill.BizType> = Ledger.bizTypes

/**
 * The engine's records (`EngineModel`): every type it takes and reports, under the names they had here before.
 *
 * @since 0.1.0
 * @category models
 */
export type * from "./EngineModel.ts"

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
 * An order's status in the venue's words (docs/venue/trading.md#order-status): `open`, `partial_fill`, `full_fill` or
 * `cancelled`. `OrderView.status` is already that word; this answers it, for programs written when the engine's own
 * status read `filled`.
 *
 * @deprecated read `order.status`
 * @since 0.1.0
 * @category views
 */
export const venueStatus = (order: Pick<OrderView, "status">): VenueOrderStatus => order.status

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
   * The trading rules of the products (docs/venue/market-data.md#symbol-rules): tick and step from their precisions,
   * their quantity limits and minimum value, the engine's fee rates, whether they trade. Every product in the order
   * added, or the named ones in the order named (unknown symbols left out).
   *
   * @since 0.1.0
   */
  symbolRules(symbols?: ReadonlyArray<string>): ReadonlyArray<SymbolRules> {
    const { matching, registry } = this.parts
    const products = symbols === undefined
      ? registry.products
      : symbols.flatMap((symbol) => registry.product(symbol) ?? [])
    return registry.symbolRules(products, matching.makerRate, matching.takerRate)
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
   * Places an order from its wire fields (docs/venue/trading.md#place-order) with the venue's checks and codes:
   * parameters (40019/40020), symbol (40102), precision (40808), minimum value (45110), duplicate clientOrderId
   * (43118), balance (43012). Orders trade against the user's `SPOT` account.
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
   * Cancels one order of the user on a symbol, named by orderId (when given) or clientOrderId, and releases its
   * frozen funds; or says why not: `43001` no such order of the user on the symbol, `43004` already filled or
   * cancelled (docs/venue/trading.md#cancel-order).
   *
   * @since 0.1.0
   */
  cancel(userId: string, symbol: string, ref: OrderRef, now: number): Cancelled | NotCancelled {
    return this.parts.cancels.cancel(userId, symbol, ref, now)
  }

  /**
   * Cancels orders of the user on a symbol, each as `cancel` does, in the order named
   * (docs/venue/trading.md#cancel-many-orders).
   *
   * @since 0.1.0
   */
  cancelOrders(userId: string, symbol: string, refs: ReadonlyArray<OrderRef>, now: number): CancelBatch {
    return this.parts.cancels.cancelMany(userId, symbol, refs, now)
  }

  /**
   * Cancels every open order of the user on a symbol, oldest first (docs/venue/trading.md#cancel-many-orders).
   *
   * @since 0.1.0
   */
  cancelAll(userId: string, symbol: string, now: number): CancelBatch {
    return this.parts.cancels.cancelAll(userId, symbol, now)
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
   * One page of a user's orders on a symbol, every status (docs/venue/trading.md#order-history): newest first (cTime
   * desc, then orderId desc), exclusive `after` / `before`, `pageIndex` from 0, `pageSize` 10 by default.
   *
   * @since 0.1.0
   */
  orderHistory(userId: string, symbol: string, query: PageQuery = {}): Page<OrderView> {
    return this.parts.history.orderPage(userId, symbol, query)
  }

  /**
   * One page of a user's fills on a symbol, optionally of one order (docs/venue/trading.md#fills), paged as
   * `orderHistory` (newest first, then fillId desc). Fills come from the trade log: none when `recordTrades` is off.
   *
   * @since 0.1.0
   */
  fills(userId: string, symbol: string, query: FillQuery = {}): Page<FillView> {
    return this.parts.history.fillPage(userId, symbol, query)
  }

  /**
   * Every fill, oldest first (of one trade, the maker's before the taker's), optionally of one user.
   *
   * @since 0.1.0
   */
  fillList(userId?: string): ReadonlyArray<FillView> {
    return this.parts.history.fillList(userId === undefined ? undefined : this.parts.accounts.user(userId).index)
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
   * The order book of a symbol as the depth endpoint answers it (docs/venue/market-data.md#depth): the best `limit`
   * price levels a side, each with the quantity resting there. `step` (0..5) merges levels into prices of 10^step
   * ticks, bids down and asks up to their step.
   *
   * @since 0.1.0
   */
  orderBook(symbol: string, limit = 15, step = 0): OrderBook {
    return this.parts.matching.market.book(this.product(symbol), limit, step)
  }

  /**
   * The latest trades of a symbol, newest first: `limit` at most, and at most the 1,000 the engine keeps a symbol
   * (docs/venue/market-data.md#recent-trades).
   *
   * @since 0.1.0
   */
  recentTrades(symbol: string, limit = 100): ReadonlyArray<PublicTrade> {
    return this.parts.matching.market.recent(this.product(symbol), limit)
  }

  /**
   * A symbol's rolling 24-hour statistics at `now` (docs/venue/market-data.md#ticker), never before the latest time
   * the engine has seen.
   *
   * @since 0.1.0
   */
  ticker(symbol: string, now: number): Ticker {
    return this.parts.matching.market.ticker(this.product(symbol), Math.max(now, this.parts.stamps.now))
  }

  /**
   * Every product's ticker at `now`, in the order the products were added.
   *
   * @since 0.1.0
   */
  tickers(now: number): ReadonlyArray<Ticker> {
    const at = Math.max(now, this.parts.stamps.now)
    return this.parts.registry.products.map((product) => this.parts.matching.market.ticker(product, at))
  }

  /**
   * A symbol's candles of a period from its trades (docs/venue/market-data.md#candles), newest first: those opening
   * from `startTime` (inclusive) and before `endTime` (exclusive), the oldest `limit` (100 by default) with a
   * `startTime`, else the newest. Only periods with a trade have a candle.
   *
   * @since 0.1.0
   */
  candles(symbol: string, period: CandlePeriod, query: CandleQuery = {}): ReadonlyArray<Candle> {
    return this.parts.matching.market.candles(this.product(symbol), period, query)
  }

  private product(symbol: string) {
    const product = this.parts.registry.product(symbol)
    if (product === undefined) throw new Errors.EngineError(`unknown symbol ${symbol}`)
    return product
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
   * A user's spot account as the venue lists it (docs/venue/account.md#balances): every coin the user ever held there,
   * zeros included, with `equity` = `available` + `frozen`.
   *
   * @since 0.1.0
   */
  spotBalances(userId: string): ReadonlyArray<SpotBalance> {
    return this.parts.accounts.spotBalances(this.parts.accounts.user(userId))
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
   * One page of a user's funding bills (docs/venue/account.md#funding-bills): newest first (cTime desc, then billId
   * desc), exclusive time bounds, `pageIndex` from 1.
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
   * An internal transfer (docs/venue/account.md#internal-transfer): moves `amount` from the sender's `fromAccountType`
   * account to the receiver's `toAccountType` account. The sender's entry is `internal_withdraw` and the receiver's
   * `internal_deposit`; where only one side is a funding account, that side's entry is `transfer_out` (funds leave it)
   * or `transfer_in`.
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

  /**
   * Every internal transfer, oldest first, optionally of one user (sent or received).
   *
   * @since 0.1.0
   */
  transferList(userId?: string): ReadonlyArray<TransferView> {
    return this.parts.transfers.list(userId === undefined ? undefined : this.parts.accounts.user(userId).index)
  }

  /**
   * The transfers a user sent that match the filters (docs/venue/account.md#transfer-status), newest first, one page
   * (`page` from 1, `pageSize` 100 by default), and how many match in all. Time bounds are inclusive.
   *
   * @since 0.1.0
   */
  transferStatus(userId: string, query: TransferQuery = {}): TransferPage {
    return this.parts.transfers.page(this.parts.accounts.user(userId).index, query)
  }
}
