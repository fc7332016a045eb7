// What the push streams deliver (the public `PushModel`'s types, named here for the internal modules), and how the
// venue's push records and the REST records become them.
import type * as Account_ from "../../Account.ts"
import type * as Fill_ from "../../Fill.ts"
import * as Order_ from "../../Order.ts"
import type * as Push from "../../Push.ts"
import type * as PushModel from "../../PushModel.ts"

export type Level = PushModel.Level
export type OrderBook = PushModel.OrderBook
export type ResyncReason = PushModel.ResyncReason
export type BookEvent = PushModel.BookEvent
export type Source = PushModel.Source
export type Event = PushModel.Event
export type Fill = PushModel.Fill
export type OrderUpdate = PushModel.OrderUpdate
export type Balance = PushModel.Balance

// Push statuses (upper case, the newer interface's words where V2's are not published) in REST's words.
const STATUS: Readonly<Record<string, string>> = {
  NEW: "open",
  OPEN: "open",
  INIT: "open",
  PENDING: "open",
  PARTIALLY_FILLED: "partial_fill",
  PARTIAL_FILL: "partial_fill",
  FILLED: "full_fill",
  FULL_FILL: "full_fill",
  CANCELED: "cancelled",
  CANCELLED: "cancelled",
  REJECTED: "rejected",
  EXPIRED: "expired"
}

/** An order's status in REST's words (`open`, `partial_fill`, `full_fill`, `cancelled`), whatever the source. */
export const normalStatus = (status: string): string => STATUS[status.toUpperCase()] ?? status.toLowerCase()

/** Whether a status (in REST's words) is final: filled, cancelled, rejected or expired. */
export const isFinal = (status: string): boolean =>
  Order_.isFinal(status) || status === "rejected" || status === "expired"

const lower = (text: string): string => text.toLowerCase()

const role = (direction: string | undefined): "maker" | "taker" | undefined => {
  const d = direction?.toLowerCase()
  return d === "maker" || d === "taker" ? d : undefined
}

export const fillFromPush = (fill: Push.Fill): Fill => ({
  fillId: fill.id,
  orderId: fill.orderId,
  symbol: fill.symbolName,
  side: lower(fill.orderSide),
  quantity: fill.fillSize,
  value: fill.fillValue,
  fee: fill.fillFee,
  role: role(fill.direction),
  time: fill.createdTime,
  source: "push"
})

export const fillFromRest = (fill: Fill_.FillRecord): Fill => ({
  fillId: fill.fillId,
  orderId: fill.orderId,
  symbol: fill.symbol,
  side: lower(fill.side),
  quantity: fill.fillQuantity,
  value: fill.fillTotalAmount,
  fee: fill.fees,
  role: undefined,
  time: fill.cTime,
  source: "rest"
})

/**
 * An order's state as a source tells it: the filled quantity may be unknown (a push may leave out `cumFillSize`; it is
 * then the one known before, not "0", which would read as a step back).
 */
export interface OrderChange extends Omit<OrderUpdate, "filledQuantity"> {
  readonly filledQuantity: string | undefined
}

export const orderFromPush = (order: Push.Order, time: number | undefined): OrderChange => {
  const status = normalStatus(order.status)
  return {
    orderId: order.id,
    clientOrderId: order.clientOrderId ?? undefined,
    symbol: order.symbolName ?? "",
    side: lower(order.orderSide),
    orderType: order.type === undefined ? undefined : lower(order.type),
    price: order.price ?? undefined,
    quantity: order.size ?? undefined,
    status,
    final: isFinal(status),
    filledQuantity: order.cumFillSize,
    filledValue: order.cumFillValue,
    createdTime: order.createdTime,
    updatedTime: order.updatedTime ?? time ?? 0,
    source: "push"
  }
}

export const orderFromRest = (order: Order_.OrderRecord): OrderUpdate => {
  const status = normalStatus(order.status)
  return {
    orderId: order.orderId,
    clientOrderId: order.clientOrderId,
    symbol: order.symbol,
    side: order.side,
    orderType: order.orderType,
    price: order.price,
    quantity: order.quantity,
    status,
    final: isFinal(status),
    filledQuantity: order.fillQuantity,
    filledValue: order.fillTotalAmount,
    createdTime: order.cTime,
    updatedTime: order.uTime,
    source: "rest"
  }
}

export const balanceFromPush = (asset: Push.AccountAsset): Balance => ({
  coinId: asset.coinId,
  coinName: asset.coinName,
  available: asset.available,
  frozen: asset.frozen,
  equity: asset.equity,
  source: "push"
})

export const balanceFromRest = (balance: Account_.Balance): Balance => ({
  coinId: String(balance.coinId),
  coinName: balance.coinName,
  available: balance.available,
  frozen: balance.frozen,
  equity: balance.equity,
  source: "rest"
})
