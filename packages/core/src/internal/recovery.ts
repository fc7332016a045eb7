// Recovery of orders whose placement may have been applied although the call failed (its answer was lost or garbled,
// or the server failed after acting on it): the order is looked up before the caller is told anything, so that a
// caller who places it again does not place it twice.
import { Effect, Stream } from "effect"
import type * as Order from "../Order.ts"
import type { OrderId, TradingPair } from "../Primitives.ts"
import * as SpotError from "../SpotError.ts"
import type * as Retry from "./retry.ts"

/** The open orders of a symbol, as the client streams them. */
export type OpenOrders = (symbol: TradingPair) => Stream.Stream<Order.OpenOrder, SpotError.SpotErrorReason>

// Exact decimal equality regardless of formatting ("1.50" = "1.5", "2.0" = "2").
const sameDecimal = (a: string, b: string) => {
  const normal = (value: string) => value.includes(".") ? value.replace(/0+$/, "").replace(/\.$/, "") : value
  return normal(a) === normal(b)
}

const isSameOrder = (open: Order.OpenOrder, item: Order.BatchItem) =>
  open.side === item.side &&
  open.orderType === item.orderType &&
  (item.orderType !== "limit" ||
    (item.price !== undefined && sameDecimal(open.price, item.price) && sameDecimal(open.quantity, item.quantity)))

/**
 * Looks up, among the open orders, the orders an ambiguous attempt may have placed, by clientOrderId. An open order
 * counts only if it is the same order (side, type, and for limit orders price and quantity): a clientOrderId reused
 * from an older order must not be mistaken for this one.
 */
export const findOpenOrders = (
  openOrders: OpenOrders,
  symbol: TradingPair,
  wanted: ReadonlyMap<string, Order.BatchItem>
): Effect.Effect<Map<string, OrderId>, SpotError.SpotErrorReason> =>
  openOrders(symbol).pipe(
    Stream.filter((open) => {
      const item = wanted.get(open.clientOrderId)
      return item !== undefined && isSameOrder(open, item)
    }),
    Stream.runFold(() => new Map<string, OrderId>(), (found, order) => found.set(order.clientOrderId, order.orderId))
  )

/**
 * What a failed placement answers: its reason when no attempt may have been applied; otherwise the order if it is
 * found, or why it may exist (a duplicate after a retry, or an outcome the open orders do not settle).
 */
export const placement = (
  openOrders: OpenOrders,
  order: Order.PlaceOrder,
  clientOrderId: string,
  failure: Retry.Failure
): Effect.Effect<Order.PlaceOrderResult, SpotError.SpotErrorReason> => {
  const reason = failure.reason
  if (!failure.mayHaveApplied) return Effect.fail(reason)
  return findOpenOrders(openOrders, order.symbol, new Map([[clientOrderId, order]])).pipe(
    Effect.matchEffect({
      onFailure: () =>
        Effect.fail(
          new SpotError.OutcomeUnknownError({
            description: `${reason.message}; the order could not be looked up among the open orders`,
            clientOrderId
          })
        ),
      onSuccess: (found) => {
        const orderId = found.get(clientOrderId)
        if (orderId !== undefined) return Effect.succeed<Order.PlaceOrderResult>({ orderId, clientOrderId })
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
              description: `${reason.message}; the order is not among the open orders`,
              clientOrderId
            })
        )
      }
    })
  )
}
