// Recovery of orders whose placement may have been applied although the call failed (its answer was lost or garbled,
// or the server failed after acting on it): the order is looked up by its clientOrderId (`order`, which sees filled
// and cancelled orders too) before the caller is told anything, so that a caller who places it again does not place
// it twice, and an order that filled at once (market, IOC, FOK) is reported with its id.
import { Effect } from "effect"
import type * as Order from "../../Order.ts"
import type { OrderId } from "../../Primitives.ts"
import * as SpotError from "../../SpotError.ts"
import * as Decimal from "../model/decimal.ts"
import type * as Retry from "./retry.ts"

/**
 * The orders of a symbol with these clientOrderIds, as the client looks them up (retried): each id found maps to its
 * record. Fails when the lookup could not be done.
 */
export type Lookup = (
  symbol: string,
  clientOrderIds: ReadonlyArray<string>
) => Effect.Effect<ReadonlyMap<string, Order.OrderRecord>, SpotError.SpotErrorReason>

/**
 * Whether a record is the order an item would have placed on `symbol`: same symbol, side and type, and for a limit
 * order the same price and quantity (whatever their formatting). A clientOrderId reused from an older order must not
 * be taken for it.
 */
export const isSameOrder = (record: Order.OrderRecord, symbol: string, item: Order.BatchItem): boolean =>
  record.symbol === symbol &&
  record.side === item.side &&
  record.orderType === item.orderType &&
  (item.orderType !== "limit" ||
    (item.price !== undefined && Decimal.equal(record.price, item.price) &&
      Decimal.equal(record.quantity, item.quantity)))

/** What looking an order up by its clientOrderId found. */
export type Found =
  | { readonly _tag: "Same"; readonly orderId: OrderId }
  | { readonly _tag: "Other"; readonly orderId: OrderId }
  | { readonly _tag: "None" }

/** What was found under a clientOrderId, for the order `item` would have placed on `symbol`. */
const judge = (record: Order.OrderRecord | undefined, symbol: string, item: Order.BatchItem): Found =>
  record === undefined
    ? { _tag: "None" }
    : { _tag: isSameOrder(record, symbol, item) ? "Same" : "Other", orderId: record.orderId }

/** Looks up the order `item` would have placed on `symbol` under `clientOrderId`. */
export const find = (
  lookup: Lookup,
  symbol: string,
  clientOrderId: string,
  item: Order.BatchItem
): Effect.Effect<Found, SpotError.SpotErrorReason> =>
  Effect.map(lookup(symbol, [clientOrderId]), (found) => judge(found.get(clientOrderId), symbol, item))

/**
 * Looks up, by clientOrderId, the orders an ambiguous attempt may have placed; answers those found that are the
 * same order. A lookup that fails finds none.
 */
export const findMany = (
  lookup: Lookup,
  symbol: string,
  wanted: ReadonlyMap<string, Order.BatchItem>
): Effect.Effect<Map<string, OrderId>> =>
  lookup(symbol, [...wanted.keys()]).pipe(
    Effect.map((found) => {
      const out = new Map<string, OrderId>()
      for (const [clientOrderId, item] of wanted) {
        const judged = judge(found.get(clientOrderId), symbol, item)
        if (judged._tag === "Same") out.set(clientOrderId, judged.orderId)
      }
      return out
    }),
    Effect.orElseSucceed(() => new Map<string, OrderId>())
  )

/**
 * What a failed placement answers: its reason when no attempt may have been applied; otherwise the order if it is
 * found, or why it may exist (a duplicate after a retry, or an outcome the lookup does not settle).
 */
export const placement = (
  lookup: Lookup,
  order: Order.PlaceOrder,
  clientOrderId: string,
  failure: Retry.Failure
): Effect.Effect<Order.PlaceOrderResult, SpotError.SpotErrorReason> => {
  const reason = failure.reason
  if (!failure.mayHaveApplied) return Effect.fail(reason)
  return find(lookup, order.symbol, clientOrderId, order).pipe(
    Effect.matchEffect({
      onFailure: (lookupReason) =>
        Effect.fail(
          new SpotError.OutcomeUnknownError({
            description: `${reason.message}; the order could not be looked up (${lookupReason.message})`,
            clientOrderId
          })
        ),
      onSuccess: (found) => {
        if (found._tag === "Same") {
          return Effect.succeed<Order.PlaceOrderResult>({ orderId: found.orderId, clientOrderId })
        }
        return Effect.fail(
          reason._tag === "DuplicateOrderError"
            ? new SpotError.DuplicateOrderError({
              code: reason.code,
              msg: reason.msg,
              requestTime: reason.requestTime,
              httpStatus: reason.httpStatus,
              clientOrderId,
              afterRetry: true
            })
            : new SpotError.OutcomeUnknownError({
              description: found._tag === "Other"
                ? `${reason.message}; the venue knows another order (${found.orderId}) with this clientOrderId`
                : `${reason.message}; the venue does not know the order (yet)`,
              clientOrderId
            })
        )
      }
    })
  )
}
