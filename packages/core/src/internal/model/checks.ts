// Fields and checks that several request schemas share (Order, Cancel, Fill): an order named by exactly one of its
// ids, and exclusive time bounds `after` < `before`.
import { Schema } from "effect"
import { ClientOrderId, Millis, OrderId } from "../../Primitives.ts"

/** An order named by the venue's id or the client's. */
export const orderRefFields = {
  /** The venue's id of the order. */
  orderId: Schema.optional(OrderId),
  /** The client's id of the order. */
  clientOrderId: Schema.optional(ClientOrderId)
}

/** Exactly one of `orderId` and `clientOrderId`. */
export const exactlyOneRef = Schema.makeFilter(
  (ref: { readonly orderId?: string | undefined; readonly clientOrderId?: string | undefined }) =>
    (ref.orderId === undefined) === (ref.clientOrderId === undefined)
      ? { path: ["orderId"], issue: "name the order by exactly one of orderId and clientOrderId" }
      : undefined
)

/** Records created after `after` and before `before` (ms, both exclusive). */
export const timeBoundFields = { after: Schema.optional(Millis), before: Schema.optional(Millis) }

/** `before` after `after`, when both are given. */
export const timeBounds = Schema.makeFilter(
  (q: { readonly after?: number | undefined; readonly before?: number | undefined }) =>
    q.after !== undefined && q.before !== undefined && q.before <= q.after
      ? { path: ["before"], issue: "must be after `after`" }
      : undefined
)
