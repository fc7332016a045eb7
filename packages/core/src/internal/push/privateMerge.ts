// The private session's merge rules, pure: when an order update moves an order forward (`mergeOrder`), what filled
// quantity a first change tells without saying it (`filledWithout`), and when two amounts are one (`sameAmount`). The
// session applies them to its state; these decide, so that each event is delivered once and an order never goes back.
import { Result, Schema } from "effect"
import * as Push from "../../Push.ts"
import * as Decimal from "../model/decimal.ts"
import * as Model from "./model.ts"
import type { DataFrame } from "./subscriptions.ts"

const decodeFill = Schema.decodeUnknownResult(Push.Fill)

/**
 * REST's record of a fill as it was pushed among `frames` (those buffered during a backfill), if it was, by fillId;
 * else the record. A fill the venue pushed meanwhile is delivered as the push (its `role`, `source: "push"`): it was
 * made on an open connection, only held while REST's answer was on its way.
 */
export const pushedFills = (frames: ReadonlyArray<DataFrame>): (fill: Model.Fill) => Model.Fill => {
  const fills = new Map<string, Model.Fill>()
  for (const frame of frames) {
    if (frame._tag !== "TradeEvent" || frame.channel !== "fill") continue
    for (const item of Push.privateItems(frame.channel, frame.data)) {
      const decoded = decodeFill(item)
      const fill = Result.isSuccess(decoded) ? Model.fillFromPush(decoded.success) : undefined
      if (fill !== undefined) fills.set(fill.fillId, fill)
    }
  }
  return (fill) => fills.get(fill.fillId) ?? fill
}

/**
 * The order's state after an update, or `undefined` when the update does not move it forward: a final state sticks,
 * the filled quantity never goes back, and at the same filled quantity a non-final update counts only if it is not
 * older and changes the status. A filled quantity the update does not tell is the one known (none for a new order).
 * A final state always moves a live order on, with the larger of the two quantities: the end of an order is never
 * dropped for a quantity written before its last fill was counted (or not written at all).
 */
export const mergeOrder = (
  old: Model.OrderUpdate | undefined,
  next: Model.OrderChange
): Model.OrderUpdate | undefined => {
  if (old === undefined) return { ...next, filledQuantity: filledWithout(next) ?? "0" }
  if (old.final) return undefined
  const filled = next.filledQuantity === undefined ? 0 : Decimal.compare(next.filledQuantity, old.filledQuantity)
  if (filled < 0 && !next.final) return undefined
  if (filled === 0 && !next.final && (next.updatedTime < old.updatedTime || next.status === old.status)) {
    return undefined
  }
  // Less than known (a final state only): the known quantity and its value.
  const ahead = filled > 0 && next.filledQuantity !== undefined
  return {
    ...next,
    clientOrderId: next.clientOrderId ?? old.clientOrderId,
    symbol: next.symbol === "" ? old.symbol : next.symbol,
    orderType: next.orderType ?? old.orderType,
    price: next.price ?? old.price,
    quantity: next.quantity ?? old.quantity,
    filledQuantity: ahead ? next.filledQuantity : old.filledQuantity,
    filledValue: filled < 0 ? old.filledValue : next.filledValue ?? old.filledValue,
    createdTime: next.createdTime ?? old.createdTime,
    updatedTime: Math.max(next.updatedTime, old.updatedTime)
  }
}

/**
 * The filled quantity of an order first seen in a change that does not tell it, where the change does exactly: none
 * for an open (new) order, the whole size for a filled one whose size is in the base coin (a limit order, a sell; a
 * market buy's size is the quote coin to spend). `undefined`: not told, to be read back by REST.
 */
export const filledWithout = (change: Model.OrderChange): string | undefined => {
  if (change.filledQuantity !== undefined) return change.filledQuantity
  if (change.status === "open") return "0"
  if (change.status === "full_fill" && change.quantity !== undefined) {
    if (change.orderType === "limit" || change.side === "sell") return change.quantity
  }
  return undefined
}

/** Two amounts (or two absent ones) are one, compared as decimals: REST and push may write one amount differently. */
export const sameAmount = (a: string | undefined, b: string | undefined): boolean =>
  a === undefined || b === undefined ? a === b : Decimal.compare(a, b) === 0
