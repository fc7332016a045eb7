/**
 * The test exchange's records: what the engine takes (coins, products, options, order and transfer requests, queries)
 * and what it reports (orders, trades, fills, bills, balances, symbol rules, transfers, pages). `Engine` re-exports
 * every one of them, so `Engine.OrderView` and `EngineModel.OrderView` are the same type.
 *
 * @since 0.1.0
 */
import type { Bill, Market } from "@spotkit/core"

/**
 * The account types of a user: `SPOT` (trading), `SPOT_V2` and `FUND` (funding, where the bills are).
 *
 * @since 0.1.0
 * @category models
 */
export type AccountType = "SPOT" | "SPOT_V2" | "FUND"

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
 * A trading pair: its coins, precisions and limits, as served at `/products` and by `exchangeInfo`.
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
  /**
   * Smallest quantity of a limit order or a market sell, in the base coin (`45110` below it), a multiple of the step
   * (10^-quantityPrecision). `exchangeInfo` serves it as `minTradeAmount`. @default one step
   */
  readonly minQuantity?: string | undefined
  /**
   * Largest quantity of a limit order or a market sell, in the base coin (`40020` above it). `exchangeInfo` serves
   * it as `maxTradeAmount`. @default none: served as the most of the base coin that can exist (its supply cap)
   */
  readonly maxQuantity?: string | undefined
  /**
   * Largest quote amount of a market buy (whose quantity is counted in the quote coin), a multiple of
   * 10^-quotePrecision (`40020` above it). `exchangeInfo` serves it as `marketBuyLimitSize`, and `maxQuantity` as
   * `marketSellLimitSize`. @default none: served as the most of the quote coin that can exist (its supply cap)
   */
  readonly maxMarketBuyValue?: string | undefined
  /** Whether the symbol trades: orders on a symbol that does not are refused (`40020`), cancels still work. @default true */
  readonly enableTrade?: boolean | undefined
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
   * (which could free none of it, and each of which marks the whole program's heap: a large gain with a few million
   * live strings around, BENCHMARKS.md). Set `false` in a program that creates and drops many large engines: a dropped
   * engine's shared memory is freed only at the next full collection, which its size no longer brings on.
   * @default true
   */
  readonly sharedMemory?: boolean | undefined
}

/**
 * An order request as the venue receives it (docs/venue/trading.md#place-order), already parsed from JSON.
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
 * A refusal with the venue's code and message (docs/venue/signing.md#error-codes).
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
 * An order as the venue reports it (docs/venue/trading.md#order-record), for any status.
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
  /**
   * In the venue's words, as the client reads it: `open` while it rests with no fill, `partial_fill` while it rests
   * partly filled, then `full_fill` or `cancelled` for good (an IOC or FOK remainder is `cancelled` with its fills).
   */
  readonly status: VenueOrderStatus
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
 * A funding bill (docs/venue/account.md#funding-bills).
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
 * Filters of the bills endpoint (docs/venue/account.md#funding-bills); bounds are exclusive.
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
 * An internal transfer request (docs/venue/account.md#internal-transfer); `toUserId` as exact digits.
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
 * @since 0.1.0
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
  /** `offline` when the product does not trade (`ProductSpec.enableTrade`). */
  readonly status: "online" | "offline"
}

/**
 * An order book: price levels best first, each with its price, total quantity and number of orders.
 *
 * @since 0.1.0
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
 * @since 0.1.0
 * @category models
 */
export interface Totals {
  readonly coin: string
  readonly supply: string
  readonly held: string
  readonly fees: string
}

/**
 * The venue's order statuses (docs/venue/trading.md#order-status): `open` (resting, no fill), `partial_fill` (resting,
 * partly filled), `full_fill` and `cancelled` (final; an IOC or FOK remainder is `cancelled` with its fills).
 *
 * @since 0.1.0
 * @category models
 */
export type VenueOrderStatus = "open" | "partial_fill" | "full_fill" | "cancelled"

/**
 * Names one order of a user: by the venue's id or by the user's clientOrderId (the orderId when both are given).
 *
 * @since 0.1.0
 * @category models
 */
export interface OrderRef {
  readonly orderId?: string | undefined
  readonly clientOrderId?: string | undefined
}

/**
 * An order a cancel cancelled: it was open, its frozen funds are released.
 *
 * @since 0.1.0
 * @category models
 */
export interface Cancelled {
  readonly ok: true
  readonly orderId: string
  readonly clientOrderId: string
}

/**
 * An order a cancel could not cancel, with the venue's code: `43001` no such order of the user on the symbol,
 * `43004` it is already filled or cancelled. The ids are the order's when it exists, else as the cancel named them.
 *
 * @since 0.1.0
 * @category models
 */
export interface NotCancelled {
  readonly ok: false
  readonly code: "43001" | "43004"
  readonly msg: string
  readonly orderId: string | undefined
  readonly clientOrderId: string | undefined
}

/**
 * What a cancel of many orders did: the orders cancelled and those it could not cancel, each in the order named.
 *
 * @since 0.1.0
 * @category models
 */
export interface CancelBatch {
  readonly cancelled: ReadonlyArray<Cancelled>
  readonly failed: ReadonlyArray<NotCancelled>
}

/**
 * One page of a time-ordered list, newest first (docs/venue/trading.md#order-history): bounds exclusive (ms),
 * `pageIndex` from 0.
 *
 * @since 0.1.0
 * @category models
 */
export interface PageQuery {
  /** Only records later than this (ms). */
  readonly after?: number | undefined
  /** Only records earlier than this (ms). */
  readonly before?: number | undefined
  /** From 0. @default 0 */
  readonly pageIndex?: number | undefined
  /** 1..100. @default 10 */
  readonly pageSize?: number | undefined
}

/**
 * A page of fills, optionally of one order.
 *
 * @since 0.1.0
 * @category models
 */
export interface FillQuery extends PageQuery {
  readonly orderId?: string | undefined
}

/**
 * One page of records, newest first; `nextPage` says whether older ones follow.
 *
 * @since 0.1.0
 * @category models
 */
export interface Page<A> {
  readonly items: ReadonlyArray<A>
  readonly nextPage: boolean
}

/**
 * One side of a trade as the order's owner sees it (docs/venue/trading.md#fills): each trade is two fills, the maker's
 * and the taker's, each with its own id. The fee is the one this side paid, in the coin it received (a buyer pays in
 * the base coin, a seller in the quote coin).
 *
 * @since 0.1.0
 * @category models
 */
export interface FillView {
  readonly fillId: string
  readonly tradeId: string
  readonly orderId: string
  readonly userId: string
  readonly accountId: string
  readonly symbol: string
  readonly baseCoin: string
  readonly quoteCoin: string
  readonly orderType: "limit" | "market"
  readonly side: "buy" | "sell"
  readonly role: "maker" | "taker"
  /** The trade's price (the maker's), at the product's price precision. */
  readonly fillPrice: string
  /** Base coin, at the product's quantity precision. */
  readonly fillQuantity: string
  /** Quote coin: price × quantity. */
  readonly fillTotalAmount: string
  readonly fees: string
  readonly feeCoin: string
  readonly cTime: string
}

/**
 * One coin of a user's spot account (docs/venue/account.md#balances): what is free, what open orders hold, and their
 * sum.
 *
 * @since 0.1.0
 * @category models
 */
export interface SpotBalance {
  readonly coinId: number
  readonly coinName: string
  readonly available: string
  readonly frozen: string
  /** available + frozen */
  readonly equity: string
}

/**
 * A symbol's trading rules (docs/venue/market-data.md#symbol-rules), from its product's configuration and the engine's
 * fee rates.
 *
 * @since 0.1.0
 * @category models
 */
export interface SymbolRules {
  readonly symbol: string
  readonly baseCoin: string
  readonly quoteCoin: string
  /** 10^-pricePrecision */
  readonly tickSize: string
  /** 10^-quantityPrecision */
  readonly stepSize: string
  readonly minTradeAmount: string
  readonly maxTradeAmount: string
  /** The largest market buy, in the quote coin; a market sell's largest is `maxTradeAmount`. */
  readonly marketBuyLimitSize: string
  readonly minOrderValue: string
  readonly makerFeeRate: string
  readonly takerFeeRate: string
  readonly enableTrade: boolean
}

/**
 * An internal transfer as the engine recorded it. Every transfer the engine accepts completes at once: `SUCCESS`.
 *
 * @since 0.1.0
 * @category models
 */
export interface TransferView {
  /** The id the transfer answered (the venue's `withdrawId`). */
  readonly id: string
  readonly fromUserId: string
  readonly toUserId: string
  readonly coin: string
  readonly amount: string
  readonly fromAccountType: AccountType
  readonly toAccountType: AccountType
  readonly status: "SUCCESS"
  readonly createTime: number
  readonly updateTime: number
}

/**
 * Filters of the transfer status list (docs/venue/account.md#transfer-status). Time bounds are inclusive: a client
 * looking for a transfer whose answer it lost must find it at the very millisecond it sent.
 *
 * @since 0.1.0
 * @category models
 */
export interface TransferQuery {
  readonly withdrawId?: string | undefined
  readonly coin?: string | undefined
  /** From this time on (ms, inclusive). */
  readonly startTime?: number | undefined
  /** Up to this time (ms, inclusive). */
  readonly endTime?: number | undefined
  readonly fromAccountType?: AccountType | undefined
  readonly toAccountType?: AccountType | undefined
  /** From 1. @default 1 */
  readonly page?: number | undefined
  /** 1..200. @default 100 */
  readonly pageSize?: number | undefined
}

/**
 * One page of a user's transfers, newest first, and how many match the filters in all.
 *
 * @since 0.1.0
 * @category models
 */
export interface TransferPage {
  readonly total: number
  readonly items: ReadonlyArray<TransferView>
}

// ---------------------------------------------------------------------------------------------------------------
// Market data (docs/venue/market-data.md): what the public endpoints answer, from the engine's book and trades

/**
 * An order book as the depth endpoint answers it: price levels best first (bids highest first, asks lowest first),
 * each its price (at the product's price precision) and the quantity resting there (at its quantity precision).
 *
 * @since 0.1.0
 * @category market data
 */
export interface OrderBook {
  readonly bids: ReadonlyArray<readonly [price: string, quantity: string]>
  readonly asks: ReadonlyArray<readonly [price: string, quantity: string]>
}

/**
 * One trade as the public see it (docs/venue/market-data.md#recent-trades): no order or user, the maker's side as
 * `buyerMaker` (the taker sold when it is true). The id is the trade's in `Engine.tradeList` too.
 *
 * @since 0.1.0
 * @category market data
 */
export interface PublicTrade {
  readonly tradeId: string
  readonly symbol: string
  readonly time: number
  /** At the product's price precision. */
  readonly price: string
  /** Base coin, at the product's quantity precision. */
  readonly size: string
  /** Quote coin: price × size, at the quote coin's scale. */
  readonly value: string
  readonly buyerMaker: boolean
}

/**
 * A symbol's rolling 24-hour statistics (docs/venue/market-data.md#ticker), over the trades from `startTime` (the
 * start of the minute 24 hours before the current one) to `endTime` (now). `priceChangePercent` is a fraction
 * (`-0.011451` is −1.1451 %), cut to six decimals toward zero. Without a trade in the window, `open`, `high`, `low`
 * and `close` are the last price, the volumes and the change zero, `highTime` and `lowTime` null; `lastPrice` is the
 * latest trade's price whenever it was, zero when the symbol never traded.
 *
 * @since 0.1.0
 * @category market data
 */
export interface Ticker {
  readonly symbol: string
  readonly lastPrice: string
  readonly open: string
  readonly high: string
  readonly low: string
  readonly close: string
  readonly priceChange: string
  readonly priceChangePercent: string
  /** Base-coin volume of the window. */
  readonly size: string
  /** Quote-coin volume of the window. */
  readonly value: string
  /** Trades in the window. */
  readonly trades: number
  /** When the window's highest and lowest prices traded first (ms), null without a trade. */
  readonly highTime: number | null
  readonly lowTime: number | null
  readonly startTime: number
  readonly endTime: number
}

/**
 * A candle period (core's `Market.CandlePeriod`): `1m` … `12h`, `1d` (UTC days), `1w` (weeks from Monday 00:00 UTC)
 * and `1M` (calendar months in UTC).
 *
 * @since 0.1.0
 * @category market data
 */
export type CandlePeriod = Market.CandlePeriod

/**
 * Which candles to answer (docs/venue/market-data.md#candles): those opening from `startTime` (inclusive) and before
 * `endTime` (exclusive); with `startTime`, the oldest `limit` of them, else the newest `limit`.
 *
 * @since 0.1.0
 * @category market data
 */
export interface CandleQuery {
  /** @default 100 */
  readonly limit?: number | undefined
  readonly startTime?: number | undefined
  readonly endTime?: number | undefined
}

/**
 * One candle: a period in which the symbol traded (periods without a trade have none), its open time (ms), the first,
 * highest, lowest and last price, the base and quote volumes, and how many trades.
 *
 * @since 0.1.0
 * @category market data
 */
export interface Candle {
  readonly openTime: number
  readonly open: string
  readonly high: string
  readonly low: string
  readonly close: string
  readonly baseVolume: string
  readonly quoteVolume: string
  readonly trades: number
}
