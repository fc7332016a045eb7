/**
 * What the push streams (`SpotPush`) deliver: the element of each stream, field by field, and what `events` tells.
 * `SpotPush` names them too (`SpotPush.Fill` is `PushModel.Fill`).
 *
 * Amounts are exact decimal strings as the venue wrote them (`"0.000952"`, never a JS number), ids are strings of
 * digits, times are the venue's milliseconds. `source` says where an element was learned: `"push"` from the venue's
 * push, `"rest"` from the REST calls that close a gap after a (re)connection; the element is the same either way, but
 * for the fields a REST record does not carry (a fill's `role`, a pushed trade's `tradeId`).
 *
 * @since 0.1.0
 */
import type * as Market from "./Market.ts"
import type * as Push from "./Push.ts"

/**
 * Where an element was learned: `"push"` from the venue's push, `"rest"` from the REST calls that close a gap after a
 * (re)connection (or read the current state when a stream starts).
 *
 * @since 0.1.0
 * @category models
 */
export type Source = "push" | "rest"

/**
 * A side of an order or a fill, in REST's words (the venue pushes `BUY` and `SELL`).
 *
 * @since 0.1.0
 * @category models
 */
export type Side = "buy" | "sell"

/**
 * One price level of a book.
 *
 * @since 0.1.0
 * @category models
 */
export interface Level {
  /** The price, an exact decimal. */
  readonly price: string
  /** The quantity resting at that price (base coin), an exact decimal above zero. */
  readonly size: string
}

/**
 * A consistent order book at one `version`. Immutable: a later change makes a new book.
 *
 * @since 0.1.0
 * @category models
 */
export interface OrderBook {
  /** The trading pair, e.g. `"BTCUSDT_SPBL"`. */
  readonly symbol: string
  /** The channel's depth: at most this many levels per side. */
  readonly depth: Push.DepthLevel
  /** The venue's version of the book (digits, compared as integers of any length). */
  readonly version: string
  /** Bids, the best (highest price) first. */
  readonly bids: ReadonlyArray<Level>
  /** Asks, the best (lowest price) first. */
  readonly asks: ReadonlyArray<Level>
}

/**
 * Why a book is being rebuilt: a `gap` in the versions, a `reconnect`, a message that did not `decode`, a consumer
 * that `lag`ged behind (a book waited longer than `slowConsumerAfter` for room in its full queue; it gets the latest
 * book next), or a `snapshot` that did not follow the subscription's acknowledgement within the `ackTimeout` (only
 * on `events`: the channel is subscribed again; the book's consumers were already told by the `Resync` before, or
 * have had no book yet).
 *
 * @since 0.1.0
 * @category models
 */
export type ResyncReason = "gap" | "reconnect" | "lag" | "decode" | "snapshot"

/**
 * An element of `watchBook`: a consistent `Book`, or a `Resync` notice (the book is being rebuilt; the next `Book` is
 * from a new snapshot, never from across the gap).
 *
 * @since 0.1.0
 * @category models
 */
export type BookEvent =
  | {
    readonly _tag: "Book"
    /** The book after the latest change. */
    readonly book: OrderBook
  }
  | {
    readonly _tag: "Resync"
    /** The trading pair whose book is being rebuilt. */
    readonly symbol: string
    readonly reason: ResyncReason
  }

/**
 * One fill of the account's orders (an element of `watchFills`): delivered once, whether pushed or read back by REST.
 *
 * @since 0.1.0
 * @category models
 */
export interface Fill {
  /** The fill's id: the REST fills' `fillId` (a push's `id`, taken to be the same: the venue's documents do not say). */
  readonly fillId: string
  /** The order that filled. */
  readonly orderId: string
  /** The trading pair, e.g. `"BTCUSDT_SPBL"`. */
  readonly symbol: string
  /** The order's side. */
  readonly side: Side
  /** The quantity filled, in the base coin. */
  readonly quantity: string
  /** The quote amount: `value / quantity` is the price (the venue's fills carry no price of their own on push). */
  readonly value: string
  /** The fee paid. */
  readonly fee: string
  /**
   * `maker` or `taker` when the fill was pushed; absent (`undefined`) on a fill read back by REST
   * (`source: "rest"`): the venue's REST fills do not say.
   */
  readonly role: "maker" | "taker" | undefined
  /** When it was made, the venue's milliseconds. */
  readonly time: number
  readonly source: Source
}

/**
 * An order's state after a change (an element of `watchOrders`): delivered only when it moved forward (its filled
 * quantity never goes back, a final state sticks).
 *
 * @since 0.1.0
 * @category models
 */
export interface OrderUpdate {
  readonly orderId: string
  /** The client order id it was placed with, if any. */
  readonly clientOrderId: string | undefined
  /** The trading pair, e.g. `"BTCUSDT_SPBL"`. */
  readonly symbol: string
  readonly side: Side
  /** `limit` or `market` (lower case, as REST says), when the source says. */
  readonly orderType: string | undefined
  /** The limit price; absent for a market order or when the source does not say. */
  readonly price: string | undefined
  /** The quantity ordered, when the source says. */
  readonly quantity: string | undefined
  /**
   * In REST's words whatever the source: `open`, `partial_fill`, `full_fill`, `cancelled`, or `rejected`, `expired`
   * (another status the venue may push is passed on lower case).
   */
  readonly status: string
  /** Whether it can no longer change: filled, cancelled, rejected or expired. */
  readonly final: boolean
  /** The quantity filled so far, in the base coin. */
  readonly filledQuantity: string
  /** The quote amount filled so far, when the source says. */
  readonly filledValue: string | undefined
  /** When it was created, the venue's milliseconds, when the source says. */
  readonly createdTime: number | undefined
  /** When it last changed, the venue's milliseconds. */
  readonly updatedTime: number
  readonly source: Source
}

/**
 * One coin of the spot account after a change (an element of `watchBalances`): delivered when it changed.
 *
 * @since 0.1.0
 * @category models
 */
export interface Balance {
  /** The venue's id of the coin (digits). */
  readonly coinId: string
  /** The coin, e.g. `"USDT"`. */
  readonly coinName: string
  /** What can be used. */
  readonly available: string
  /** What is held, not available (by open orders, for one). */
  readonly frozen: string
  /** `available + frozen`: as REST and the push say it, or added up when a push leaves it out. */
  readonly equity: string | undefined
  readonly source: Source
}

/**
 * A trade of the market (an element of `watchTrades`).
 *
 * @since 0.1.0
 * @category models
 */
export interface PublicTrade {
  /** The trading pair, e.g. `"BTCUSDT_SPBL"`. */
  readonly symbol: string
  /** The venue's trade id: set on a trade read back by REST, absent on a pushed one (the venue's pushes carry none). */
  readonly tradeId: string | undefined
  /** When it was made, the venue's milliseconds. */
  readonly time: number
  readonly price: string
  /** The quantity traded, in the base coin. */
  readonly size: string
  /** The quote amount, when the source says. */
  readonly value: string | undefined
  /** Whether the buyer was the maker (the resting order). */
  readonly buyerMaker: boolean
  /** The taker's side: `sell` when the buyer was the maker. */
  readonly side: Side
  readonly source: Source
}

/**
 * A candle after a change (an element of `watchCandles`): the bar with this `openTime` as it now stands. Nothing
 * marks a bar final: a change of a bar may still come after the next one opened (while it is among the newest three).
 *
 * @since 0.1.0
 * @category models
 */
export interface CandleUpdate {
  /** The trading pair, e.g. `"BTCUSDT_SPBL"`. */
  readonly symbol: string
  /** The candle period, as asked (`"1m"`, `"1h"`, ...). */
  readonly period: Market.CandlePeriod
  /** When the bar opens, the venue's milliseconds. */
  readonly openTime: number
  readonly open: string
  readonly high: string
  readonly low: string
  readonly close: string
  /** The quantity traded in the bar, in the base coin. */
  readonly baseVolume: string
  /** The quote amount traded in the bar. */
  readonly quoteVolume: string
  readonly source: Source
}

/**
 * What happens to the connections (the elements of `events`, for monitoring):
 *
 * - `Connected`, `Disconnected`: a connection of an `endpoint` opened, or ended (`reason`, scrubbed of credentials)
 *   and is dialled again in `retryInMillis`. `connection` numbers the service's connections. `opened` is false when
 *   the attempt to open it failed (the endpoint unreachable, the upgrade or the handshake refused): it never opened.
 * - `Resync`: a book `channel` is being rebuilt (`reason`).
 * - `Resynced`: the private session read back by REST what it may have missed (`orders` and `fills`: how many
 *   records REST answered) and goes on with the pushes.
 * - `Gap`: of a trades `channel`, the trades from `from` (the latest delivered, or the stream's start) to `to` (the
 *   oldest REST answered), both milliseconds included, the venue's ms, may be missing, as more trades may have been
 *   made while the channel was down (or while REST answered) than one REST answer holds (`backfillLimit`). One answer
 *   cannot tell exactly `backfillLimit` trades from more, so a gap that held exactly that many is told too. The stream
 *   goes on from `to`. Of a candles `channel`: the bars opened from `from` (the latest delivered, whose final state
 *   was not read either) to `to`, both included, were not read back after a reconnection, the outage being longer
 *   than one backfill reads (half of `bufferSize` bars).
 *
 * @since 0.1.0
 * @category models
 */
export type Event =
  | {
    readonly _tag: "Connected"
    readonly endpoint: Push.Endpoint
    readonly connection: number
  }
  | {
    readonly _tag: "Disconnected"
    readonly endpoint: Push.Endpoint
    readonly connection: number
    readonly opened: boolean
    readonly reason: string
    readonly retryInMillis: number
  }
  | {
    readonly _tag: "Resync"
    readonly channel: string
    readonly reason: ResyncReason
  }
  | {
    readonly _tag: "Resynced"
    readonly endpoint: "private"
    readonly orders: number
    readonly fills: number
  }
  | {
    readonly _tag: "Gap"
    readonly channel: string
    readonly from: number
    readonly to: number
  }
