/**
 * Cancels (docs/venue/trading.md#cancel-order, #cancel-many-orders): one order by orderId or clientOrderId, many orders
 * of a symbol, every open order of a symbol; the venue's answers (in its own naming) and the typed outcomes the client
 * makes of them.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import * as Checks from "./internal/model/checks.ts"
import type * as Order from "./Order.ts"
import { ClientOrderId, OrderId, TextFromWire, TradingPair } from "./Primitives.ts"

/**
 * One order of a symbol to cancel, by orderId or clientOrderId (exactly one).
 *
 * @since 0.1.0
 * @category requests
 */
export const CancelOrderRequest = Schema.Struct({ symbol: TradingPair, ...Checks.orderRefFields }).check(
  Checks.exactlyOneRef
)

/**
 * The input of `cancelOrder`: the symbol, and the order by orderId or clientOrderId.
 *
 * @since 0.1.0
 * @category requests
 */
export type CancelOrderInput = { readonly symbol: string } & Order.OrderRef

/**
 * A request of `cancel-batch-orders` as sent: one symbol and at most `Venue.BATCH_LIMIT` orders, by their ids or by
 * their clientOrderIds (the venue takes one kind per request). `SpotClient.cancelOrders` takes any number of
 * `Order.OrderRef`s and sends them in such requests.
 *
 * @since 0.1.0
 * @category requests
 */
export const CancelOrdersRequest = Schema.Struct({
  symbol: TradingPair,
  orderIds: Schema.optional(Schema.Array(OrderId)),
  clientOids: Schema.optional(Schema.Array(ClientOrderId))
})

/**
 * @since 0.1.0
 * @category requests
 */
export type CancelOrdersRequest = typeof CancelOrdersRequest.Type

/**
 * Every open order of a symbol, as `cancelAll` takes it.
 *
 * @since 0.1.0
 * @category requests
 */
export const CancelAllRequest = Schema.Struct({ symbol: TradingPair })

/**
 * The `data` of `cancel-order`, in the venue's snake_case (docs/venue/trading.md#cancel-order).
 *
 * @since 0.1.0
 * @category responses
 */
export const CancelOrderResponse = Schema.Struct({
  order_id: Schema.optional(Schema.NullOr(TextFromWire)),
  client_oid: Schema.optional(Schema.NullOr(Schema.String)),
  symbol: Schema.optional(Schema.NullOr(Schema.String)),
  result: Schema.Boolean,
  err_code: Schema.optional(Schema.NullOr(TextFromWire)),
  err_msg: Schema.optional(Schema.NullOr(Schema.String))
})

/**
 * @since 0.1.0
 * @category responses
 */
export type CancelOrderResponse = typeof CancelOrderResponse.Type

/**
 * The `data` of `cancel-batch-orders` and `cancel-symbol-order` (docs/venue/trading.md#cancel-many-orders).
 *
 * @since 0.1.0
 * @category responses
 */
export const CancelBatchResponse = Schema.Struct({
  successList: Schema.optional(Schema.NullOr(Schema.Array(TextFromWire))),
  failureList: Schema.optional(Schema.NullOr(Schema.Array(Schema.Struct({
    orderId: Schema.optional(Schema.NullOr(TextFromWire)),
    clientOid: Schema.optional(Schema.NullOr(Schema.String)),
    errCode: Schema.optional(Schema.NullOr(TextFromWire)),
    errMsg: Schema.optional(Schema.NullOr(Schema.String))
  }))))
})

/**
 * @since 0.1.0
 * @category responses
 */
export type CancelBatchResponse = typeof CancelBatchResponse.Type

/**
 * What a cancel did to one order; the ids are those the call named, completed by those the venue answered.
 * `Cancelled`: it was open and is cancelled now (`orderId` is absent only when the venue did not say it).
 * `NotOpen`: there was nothing to cancel — `unknown` (no such order) or `final` (already filled or cancelled); an
 * answer, not a failure.
 *
 * @since 0.1.0
 * @category responses
 */
export type CancelOutcome =
  | {
    readonly _tag: "Cancelled"
    readonly orderId?: OrderId | undefined
    readonly clientOrderId?: string | undefined
  }
  | {
    readonly _tag: "NotOpen"
    readonly orderId?: OrderId | undefined
    readonly clientOrderId?: string | undefined
    readonly reason: "unknown" | "final"
    /** The venue's code (`43001`, `43004`, or another it sent) and message. */
    readonly code: string
    readonly message: string
  }

/**
 * The outcome of one item of `cancelOrders`, at its `index` in the input: a `CancelOutcome`, or `Failed` when the
 * item was invalid, its request failed after retries, or the venue refused it for another reason (`code` is the
 * venue's code or the reason's tag). A failed cancel can be sent again: cancelling twice does no harm.
 *
 * @since 0.1.0
 * @category responses
 */
export type CancelOrdersOutcome =
  | (CancelOutcome & { readonly index: number })
  | {
    readonly _tag: "Failed"
    readonly index: number
    readonly orderId?: OrderId | undefined
    readonly clientOrderId?: string | undefined
    readonly code: string
    readonly message: string
  }

/**
 * The result of `cancelOrders` (and `cancelAll`): one outcome per item, in input order, and how many ended each way.
 *
 * @since 0.1.0
 * @category responses
 */
export interface CancelOrdersResult {
  readonly outcomes: ReadonlyArray<CancelOrdersOutcome>
  readonly cancelled: number
  readonly notOpen: number
  readonly failed: number
  /**
   * Whether `outcomes` names every order the call cancelled. Always true for `cancelOrders` (each order named is
   * settled). False for a `cancelAll` sent again after an attempt whose answer was lost: that attempt may have
   * cancelled orders the last answer does not list (`openOrders` says what is still open).
   */
  readonly complete: boolean
}
