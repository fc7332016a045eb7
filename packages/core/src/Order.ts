/**
 * Orders: the place-order request and its result, batch items and results, the order record with its status, one
 * order's lookup, and the order history (docs/venue/trading.md). Cancels are in `Cancel`.
 *
 * @since 0.1.0
 */
import { type Effect, Schema } from "effect"
import * as Checks from "./internal/model/checks.ts"
import * as ClientOrderIds from "./internal/model/clientOrderId.ts"
import type { OrderId } from "./Primitives.ts"
import {
  ClientOrderId,
  Decimal,
  DecimalFromWire,
  IdFromWire,
  isPositive,
  MillisFromWire,
  OrderIdFromWire,
  PageSize,
  PositiveDecimal,
  TextFromWire,
  TradingPair
} from "./Primitives.ts"

/**
 * @since 0.1.0
 * @category literals
 */
export const Side = Schema.Literals(["buy", "sell"])

/**
 * @since 0.1.0
 * @category literals
 */
export type Side = typeof Side.Type

/**
 * @since 0.1.0
 * @category literals
 */
export const OrderType = Schema.Literals(["limit", "market"])

/**
 * @since 0.1.0
 * @category literals
 */
export type OrderType = typeof OrderType.Type

/**
 * Execution type. Ignored by the venue for market orders.
 *
 * @since 0.1.0
 * @category literals
 */
export const Force = Schema.Literals(["normal", "postOnly", "fok", "ioc"])

/**
 * @since 0.1.0
 * @category literals
 */
export type Force = typeof Force.Type

const orderFields = {
  side: Side,
  orderType: OrderType,
  /** Execution type; `normal` when omitted. */
  force: Schema.optional(Force),
  /** Limit price; required (and > 0) for limit orders, ignored by the venue for market orders (sent as "0"). */
  price: Schema.optional(Decimal),
  /** Base coin for limit orders and market sells; quote coin for market buys. */
  quantity: PositiveDecimal,
  /** Chosen by the client; generated when omitted. Retries reuse it so an order is placed at most once. */
  clientOrderId: Schema.optional(ClientOrderId)
}

const limitNeedsPrice = Schema.makeFilter(
  (order: { readonly orderType: OrderType; readonly price?: string | undefined }) =>
    order.orderType !== "limit"
      ? order.price === undefined || !order.price.startsWith("-")
        ? undefined
        : { path: ["price"], issue: "must not be negative" }
      : order.price === undefined
      ? { path: ["price"], issue: "is required for a limit order" }
      : isPositive(order.price)
      ? undefined
      : { path: ["price"], issue: "must be greater than 0 for a limit order" }
)

/**
 * One item of a batch: the fields of a single order without `symbol` (docs/venue/trading.md#batch-orders).
 *
 * @since 0.1.0
 * @category requests
 */
export const BatchItem = Schema.Struct(orderFields).check(limitNeedsPrice)

/**
 * @since 0.1.0
 * @category requests
 */
export type BatchItem = typeof BatchItem.Type

/**
 * A single order (docs/venue/trading.md#place-order).
 *
 * @since 0.1.0
 * @category requests
 */
export const PlaceOrder = Schema.Struct({ symbol: TradingPair, ...orderFields }).check(limitNeedsPrice)

/**
 * @since 0.1.0
 * @category requests
 */
export type PlaceOrder = typeof PlaceOrder.Type

/**
 * The input accepted by `placeOrder`: plain strings, validated before anything is sent.
 *
 * @since 0.1.0
 * @category requests
 */
export type PlaceOrderInput = typeof PlaceOrder.Encoded

/**
 * The input accepted for each batch item.
 *
 * @since 0.1.0
 * @category requests
 */
export type BatchItemInput = typeof BatchItem.Encoded

/**
 * A batch request as sent: one symbol and at most `Venue.BATCH_LIMIT` orders, each with its clientOrderId.
 * `SpotClient.placeOrders` takes any number of items and sends them in such requests.
 *
 * @since 0.1.0
 * @category requests
 */
export const BatchRequest = Schema.Struct({ symbol: TradingPair, orderList: Schema.Array(BatchItem) })

/**
 * @since 0.1.0
 * @category requests
 */
export type BatchRequest = typeof BatchRequest.Type

/**
 * The venue's answer to a placed order (docs/venue/trading.md#place-order). `orderId` is exact even when the venue
 * sends it as a JSON number.
 *
 * @since 0.1.0
 * @category responses
 */
export const PlaceOrderResult = Schema.Struct({
  orderId: OrderIdFromWire,
  clientOrderId: Schema.String
})

/**
 * @since 0.1.0
 * @category responses
 */
export type PlaceOrderResult = typeof PlaceOrderResult.Type

/**
 * The `data` of a batch answer: accepted items, and (docs/venue/trading.md#batch-orders) the failed ones, which may be
 * absent.
 *
 * @since 0.1.0
 * @category responses
 */
export const BatchResponse = Schema.Struct({
  resultList: Schema.optional(Schema.NullOr(Schema.Array(PlaceOrderResult))),
  failure: Schema.optional(Schema.NullOr(Schema.Array(Schema.Struct({
    clientOrderId: Schema.String,
    errorCode: Schema.optional(Schema.NullOr(TextFromWire)),
    errorMsg: Schema.optional(Schema.NullOr(Schema.String))
  }))))
})

/**
 * @since 0.1.0
 * @category responses
 */
export type BatchResponse = typeof BatchResponse.Type

/**
 * The outcome of one batch item, in input order.
 *
 * `Placed`: the venue accepted it. `Failed`: it was not placed — rejected by validation, by the venue (`code` is the
 * venue's), or its chunk failed as a whole. When `mayExist` is true the outcome is unknown (the request may have
 * been applied): look the order up by `clientOrderId` before placing it again.
 *
 * @since 0.1.0
 * @category responses
 */
export type BatchOutcome =
  | {
    readonly _tag: "Placed"
    readonly index: number
    readonly clientOrderId: string
    readonly orderId: OrderId
  }
  | {
    readonly _tag: "Failed"
    readonly index: number
    readonly clientOrderId: string
    readonly code: string
    readonly message: string
    readonly mayExist: boolean
    /**
     * When `mayExist`: the earliest creation time (`cTime`, the venue's clock, ms) an order this call placed can
     * have. `resolve` takes no older order under the clientOrderId for it (a clientOrderId may be reused from an
     * older order). Given only when an answer during the call confirmed the client's estimate of the venue's clock;
     * otherwise `sentAt` is. When both are absent, every order found counts.
     */
    readonly notBefore?: number | undefined
    /**
     * With `notBefore`, when the machine's clock stepped (or the machine was suspended) during the call: an identical
     * order created from `notBefore` up to (not including) this time (the venue's clock, ms) may be this call's or an
     * older one under a reused clientOrderId, and `resolve` leaves such an order unknown. Absent, it is `notBefore`.
     */
    readonly unsureUntil?: number | undefined
    /**
     * When `mayExist` and no answer during the call confirmed the client's estimate of the venue's clock (its time
     * not asked or not answered, every answer lost, the lookup failed too): when the call started, on the client's
     * own clock (ms). `resolve` puts it on the venue's clock by the estimate its own lookup's answer confirms, and
     * bounds the orders it takes for the call's by it as by `notBefore`.
     */
    readonly sentAt?: number | undefined
  }

/**
 * The result of `placeOrders`: one outcome per input item, in input order.
 *
 * @since 0.1.0
 * @category responses
 */
export interface BatchResult {
  readonly outcomes: ReadonlyArray<BatchOutcome>
  readonly placed: number
  readonly failed: number
}

/**
 * An open (unfilled or partly filled, not cancelled) order (docs/venue/trading.md#order-record). Fill fields are `"0"`
 * before any fill.
 *
 * @since 0.1.0
 * @category responses
 */
export const OpenOrder = Schema.Struct({
  accountId: IdFromWire,
  symbol: Schema.String,
  orderId: OrderIdFromWire,
  clientOrderId: Schema.String,
  price: DecimalFromWire,
  quantity: DecimalFromWire,
  orderType: OrderType,
  side: Side,
  status: Schema.String,
  latestFillPrice: DecimalFromWire,
  maxFillPrice: DecimalFromWire,
  minFillPrice: DecimalFromWire,
  fillQuantity: DecimalFromWire,
  fillTotalAmount: DecimalFromWire,
  cTime: MillisFromWire,
  uTime: MillisFromWire
})

/**
 * @since 0.1.0
 * @category responses
 */
export type OpenOrder = typeof OpenOrder.Type

/**
 * One page of open orders. `nextPage` and `totals` are null in the venue's sample; any value is tolerated.
 *
 * @since 0.1.0
 * @category responses
 */
export const OpenOrdersPage = Schema.Struct({
  orderInfoResultList: Schema.NullOr(Schema.Array(OpenOrder)),
  nextPage: Schema.optional(Schema.Unknown),
  totals: Schema.optional(Schema.Unknown)
})

/**
 * @since 0.1.0
 * @category responses
 */
export type OpenOrdersPage = typeof OpenOrdersPage.Type

/**
 * Query for one page of open orders (docs/venue/trading.md#open-orders).
 *
 * @since 0.1.0
 * @category requests
 */
export const OpenOrdersQuery = Schema.Struct({
  symbol: TradingPair,
  limit: Schema.optional(PageSize),
  pageNo: Schema.optional(Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)))
})

/**
 * @since 0.1.0
 * @category requests
 */
export type OpenOrdersQuery = typeof OpenOrdersQuery.Encoded

// ---------------------------------------------------------------------------------------------------------------
// Order state, cancels and history (docs/venue/trading.md)

/**
 * The order statuses the venue family is known to use: `open` (resting, no fill: the V2 samples), Bitget v1's
 * `init`, `new`, `partial_fill`, `full_fill`, `cancelled`.
 *
 * @since 0.1.0
 * @category literals
 */
export const KnownOrderStatus = Schema.Literals(["init", "new", "open", "partial_fill", "full_fill", "cancelled"])

/**
 * An order's status as the venue sends it: one of `KnownOrderStatus`, or any other string kept as it came.
 *
 * @since 0.1.0
 * @category literals
 */
export const OrderStatus = Schema.Union([KnownOrderStatus, Schema.String])

/**
 * An open union: the known statuses, and any other string (`string & {}` keeps the known ones in completions).
 *
 * @since 0.1.0
 * @category literals
 */
export type OrderStatus = typeof KnownOrderStatus.Type | (string & {})

const FINAL_STATUSES: ReadonlySet<string> = new Set(["full_fill", "cancelled", "filled", "canceled"])

/**
 * Whether an order in this status can no longer change: filled in full or cancelled (an IOC or FOK remainder is
 * cancelled with its fills). `filled` and `canceled`, spellings other venues use, count as final too.
 *
 * @since 0.1.0
 * @category predicates
 */
export const isFinal = (status: OrderStatus): boolean => FINAL_STATUSES.has(status)

/**
 * Names one order: by the venue's id or by the client's, never both.
 *
 * @since 0.1.0
 * @category requests
 */
export type OrderRef =
  | { readonly orderId: string; readonly clientOrderId?: undefined }
  | { readonly clientOrderId: string; readonly orderId?: undefined }

/**
 * One order, by orderId or clientOrderId (exactly one), as `order` takes it.
 *
 * @since 0.1.0
 * @category requests
 */
export const OrderInfoRequest = Schema.Struct(Checks.orderRefFields).check(Checks.exactlyOneRef)

/**
 * One order's record (docs/venue/trading.md#order-record; any status), as `order`, `orderHistory` and `openOrders`
 * answer it. `status` is an `OrderStatus`; `isFinal(record.status)` says whether it can still change.
 *
 * @since 0.1.0
 * @category responses
 */
export const OrderRecord = OpenOrder

/**
 * @since 0.1.0
 * @category responses
 */
export type OrderRecord = OpenOrder

/**
 * The `data` of `orderInfo`: an array of order records (empty for an unknown id).
 *
 * @since 0.1.0
 * @category responses
 */
export const OrderInfoResponse = Schema.NullOr(Schema.Array(OpenOrder))

/**
 * Filters of the order-history stream: a symbol, exclusive time bounds, and the size of each request (1..100,
 * default 100).
 *
 * @since 0.1.0
 * @category requests
 */
export const OrderHistoryFilter = Schema.Struct({
  symbol: TradingPair,
  ...Checks.timeBoundFields,
  pageSize: Schema.optional(PageSize)
}).check(Checks.timeBounds)

/**
 * @since 0.1.0
 * @category requests
 */
export type OrderHistoryFilter = typeof OrderHistoryFilter.Encoded

/**
 * Query of one page of order history (docs/venue/trading.md#order-history): `after`/`before` exclusive (ms),
 * `pageIndex` from 0, `pageSize` 1..100 (venue default 10).
 *
 * @since 0.1.0
 * @category requests
 */
export const OrderHistoryQuery = Schema.Struct({
  symbol: TradingPair,
  ...Checks.timeBoundFields,
  pageIndex: Schema.optional(Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))),
  pageSize: Schema.optional(PageSize)
}).check(Checks.timeBounds)

/**
 * @since 0.1.0
 * @category requests
 */
export type OrderHistoryQuery = typeof OrderHistoryQuery.Encoded

/**
 * One page of order history, newest first. `nextPage` and `totals` are never trusted (`totals` is 0 in the samples).
 *
 * @since 0.1.0
 * @category responses
 */
export const OrderHistoryPage = OpenOrdersPage

/**
 * @since 0.1.0
 * @category responses
 */
export type OrderHistoryPage = OpenOrdersPage

/**
 * A fresh clientOrderId, as the client makes one for an order given none (`sk`, the time and 60 random bits in base
 * 36: 22 characters of `[a-z0-9]`), from the Clock and Random in context: for a program that must name an order before
 * the venue answers (to look it up if the answer is lost).
 *
 * @since 0.1.0
 * @category constructors
 */
export const newClientOrderId: Effect.Effect<string> = ClientOrderIds.newClientOrderId
