// Recovery of orders whose placement may have been applied although the call failed (its answer was lost or garbled,
// or the server failed after acting on it): the order is looked up by its clientOrderId (`order`, which sees filled
// and cancelled orders too) before the caller is told anything, so that a caller who places it again does not place
// it twice, and an order that filled at once (market, IOC, FOK) is reported with its id. An order found under the
// clientOrderId counts only when it is the same order and was created during the call: a clientOrderId reused from an
// older order (filled, cancelled or open) answers 43118 to the retry, and that order must not be taken for this one.
import { Effect } from "effect"
import type * as Order from "../../Order.ts"
import type { OrderId } from "../../Primitives.ts"
import * as SpotError from "../../SpotError.ts"
import * as Venue from "../../Venue.ts"
import * as Decimal from "../model/decimal.ts"
import type * as Retry from "./retry.ts"
import type { Span } from "./serverClock.ts"
import * as Telemetry from "./telemetry.ts"

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

/**
 * How far (ms) before a call's start, on the venue's clock as the client estimates it, the venue may stamp an order
 * the call placed: it accepts a request only within its timestamp window of its own clock.
 */
export const MARGIN_MILLIS = Venue.TIMESTAMP_WINDOW_MILLIS + 1_000

/**
 * The earliest creation time (`cTime`, the venue's clock) of an order placed by a call that started at `startMillis`
 * on the client's clock, whose estimate of the venue's clock is `offsetMillis` ahead of its own.
 */
export const earliest = (startMillis: number, offsetMillis: number): number =>
  startMillis + offsetMillis - MARGIN_MILLIS

/**
 * The creation times (`cTime`, the venue's clock) of the orders a call placed: at `early` or later for sure, and at
 * `late` or later unless the machine's clock stepped forward or the machine was suspended during the call (then
 * somewhere from `early` on: `ServerClock.venueSpan`). Without such a step the two are equal.
 */
export interface Since {
  readonly early: number
  readonly late: number
}

/** The bounds of the orders of a call whose start lies in `span` on the venue's clock (`ServerClock.venueSpan`). */
export const sinceOf = (span: Span): Since => ({ early: span.early - MARGIN_MILLIS, late: span.late - MARGIN_MILLIS })

/**
 * What looking an order up by its clientOrderId found: this call's order, another order (or one created before the
 * call), none, or the same order created where a step of the machine's clock leaves it unknown whether it is this
 * call's or an older one (`Unsure`).
 */
export type Found =
  | { readonly _tag: "Same"; readonly orderId: OrderId }
  | { readonly _tag: "Other"; readonly orderId: OrderId }
  | { readonly _tag: "Unsure"; readonly orderId: OrderId }
  | { readonly _tag: "None" }

/**
 * What was found under a clientOrderId, for the order `item` would have placed on `symbol` in a call whose orders
 * were created at `since` or later (undefined when not known).
 */
const judge = (
  record: Order.OrderRecord | undefined,
  symbol: string,
  item: Order.BatchItem,
  since: Since | undefined
): Found => {
  if (record === undefined) return { _tag: "None" }
  const { orderId } = record
  if (!isSameOrder(record, symbol, item)) return { _tag: "Other", orderId }
  if (since === undefined || record.cTime >= since.late) return { _tag: "Same", orderId }
  return { _tag: record.cTime >= since.early ? "Unsure" : "Other", orderId }
}

const outcomes = { Same: "found", None: "not_found", Other: "other", Unsure: "unsure" } as const

/** Reports (a span event) how the lookup of an ambiguous order ended. */
const reported = (found: Found): Effect.Effect<Found> => Effect.as(Telemetry.recovered(outcomes[found._tag]), found)

/**
 * Looks up the order `item` would have placed on `symbol` under `clientOrderId`, created at `since` (read once the
 * lookup answered: `placement`; undefined: whenever) or later.
 */
export const find = (
  lookup: Lookup,
  symbol: string,
  clientOrderId: string,
  item: Order.BatchItem,
  since: Effect.Effect<Since | undefined>
): Effect.Effect<Found, SpotError.SpotErrorReason> =>
  Effect.flatMap(
    lookup(symbol, [clientOrderId]),
    (found) => Effect.flatMap(since, (since) => reported(judge(found.get(clientOrderId), symbol, item, since)))
  )

/**
 * Looks up, by clientOrderId, the orders an ambiguous attempt may have placed; answers those found that are the
 * same order, created at `since` (read once the lookup answered: `placement`) or later. A lookup that fails answers
 * undefined: nothing found, and no answer to have confirmed the clock offset.
 */
export const findMany = (
  lookup: Lookup,
  symbol: string,
  wanted: ReadonlyMap<string, Order.BatchItem>,
  since: Effect.Effect<Since>
): Effect.Effect<Map<string, OrderId> | undefined> =>
  lookup(symbol, [...wanted.keys()]).pipe(
    Effect.flatMap((found) => Effect.map(since, (since) => ({ found, since }))),
    Effect.flatMap(({ found, since }) => {
      const out = new Map<string, OrderId>()
      const judgedAll: Array<Found> = []
      for (const [clientOrderId, item] of wanted) {
        const judged = judge(found.get(clientOrderId), symbol, item, since)
        judgedAll.push(judged)
        if (judged._tag === "Same") out.set(clientOrderId, judged.orderId)
      }
      return Effect.as(Effect.forEach(judgedAll, reported, { discard: true }), out)
    }),
    Effect.orElseSucceed(() => undefined)
  )

/**
 * What a failed placement answers: its reason when no attempt may have been applied; otherwise the order if it is
 * found (created at `since` or later), or why it may exist (a duplicate after a retry, or an outcome the lookup does
 * not settle).
 *
 * `since` is read once the lookup answered: the call's attempts may all have been lost, leaving the clock offset an
 * estimate the venue never confirmed (its time not asked, or answered wrong), and a bound taken with it may lie far
 * before the call, where an older order of a reused clientOrderId would pass for this call's. The lookup's answer
 * carried the venue's time, which the offset has learned by then.
 */
export const placement = (
  lookup: Lookup,
  order: Order.PlaceOrder,
  clientOrderId: string,
  failure: Retry.Failure,
  since: Effect.Effect<Since>
): Effect.Effect<Order.PlaceOrderResult, SpotError.SpotErrorReason> => {
  const reason = failure.reason
  if (!failure.mayHaveApplied) return Effect.fail(reason)
  const { symbol } = order
  return lookup(symbol, [clientOrderId]).pipe(
    Effect.flatMap((found) =>
      Effect.flatMap(since, (since) => reported(judge(found.get(clientOrderId), symbol, order, since)))
    ),
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
                : found._tag === "Unsure"
                ? `${reason.message}; the venue knows an identical order (${found.orderId}) with this clientOrderId,` +
                  " created about when the call started; the machine's clock stepped (or it was suspended) during" +
                  " the call, so whether it is this call's or an older one cannot be told"
                : `${reason.message}; the venue does not know the order (yet)`,
              clientOrderId
            })
        )
      }
    })
  )
}
