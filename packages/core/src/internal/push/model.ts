// What the push streams deliver (re-exported by SpotPush with their documentation), and how the venue's push records
// and the REST records become them.
import type * as Account_ from "../../Account.ts"
import type * as Fill_ from "../../Fill.ts"
import * as Order_ from "../../Order.ts"
import type * as Push from "../../Push.ts"
import type { Level, Snapshot } from "./book.ts"

export type { Level }

export type OrderBook = Snapshot

export type ResyncReason = "gap" | "reconnect" | "lag" | "decode" | "snapshot"

export type BookEvent =
  | { readonly _tag: "Book"; readonly book: OrderBook }
  | { readonly _tag: "Resync"; readonly symbol: string; readonly reason: ResyncReason }

export type Source = "push" | "rest"

export type Event =
  | { readonly _tag: "Connected"; readonly endpoint: Push.Endpoint; readonly connection: number }
  | {
    readonly _tag: "Disconnected"
    readonly endpoint: Push.Endpoint
    readonly connection: number
    readonly reason: string
    readonly retryInMillis: number
  }
  | { readonly _tag: "Resync"; readonly channel: string; readonly reason: ResyncReason }
  | { readonly _tag: "Resynced"; readonly endpoint: "private"; readonly orders: number; readonly fills: number }
  | { readonly _tag: "Gap"; readonly channel: string; readonly from: number; readonly to: number }

export interface Fill {
  readonly fillId: string
  readonly orderId: string
  readonly symbol: string
  readonly side: string
  readonly quantity: string
  readonly value: string
  readonly fee: string
  readonly role: "maker" | "taker" | undefined
  readonly time: number
  readonly source: Source
}

export interface OrderUpdate {
  readonly orderId: string
  readonly clientOrderId: string | undefined
  readonly symbol: string
  readonly side: string
  readonly orderType: string | undefined
  readonly price: string | undefined
  readonly quantity: string | undefined
  readonly status: string
  readonly final: boolean
  readonly filledQuantity: string
  readonly filledValue: string | undefined
  readonly createdTime: number | undefined
  readonly updatedTime: number
  readonly source: Source
}

export interface Balance {
  readonly coinId: string
  readonly coinName: string
  readonly available: string
  readonly frozen: string
  readonly equity: string | undefined
  readonly source: Source
}

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
