// What the push streams deliver (the public `PushModel`'s types, named here for the internal modules), and how the
// venue's push records and the REST records become them.
import { Effect } from "effect"
import type * as Account_ from "../../Account.ts"
import type * as Fill_ from "../../Fill.ts"
import * as Order_ from "../../Order.ts"
import type * as Push from "../../Push.ts"
import type * as PushModel from "../../PushModel.ts"
import { printable } from "../../SafeText.ts"
import * as Decimal from "../model/decimal.ts"

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

/** A side in any case (push writes `BUY`, REST `buy`) as the streams' `buy` or `sell`; another word is none. */
export const sideOf = (text: string): PushModel.Side | undefined => {
  const side = text.toLowerCase()
  return side === "buy" || side === "sell" ? side : undefined
}

const role = (direction: string | undefined): "maker" | "taker" | undefined => {
  const d = direction?.toLowerCase()
  return d === "maker" || d === "taker" ? d : undefined
}

// A record whose side is neither `buy` nor `sell` is no element (none is made up): a push is then undecodable (the
// private connection is replaced, and REST reads back what it carried), a REST fill left out with a warning.

export const fillFromPush = (fill: Push.Fill): Fill | undefined => {
  const side = sideOf(fill.orderSide)
  return side === undefined ? undefined : {
    fillId: fill.id,
    orderId: fill.orderId,
    symbol: fill.symbolName,
    side,
    quantity: fill.fillSize,
    value: fill.fillValue,
    fee: fill.fillFee,
    role: role(fill.direction),
    time: fill.createdTime,
    source: "push"
  }
}

export const fillFromRest = (fill: Fill_.FillRecord): Fill | undefined => {
  const side = sideOf(fill.side)
  return side === undefined ? undefined : {
    fillId: fill.fillId,
    orderId: fill.orderId,
    symbol: fill.symbol,
    side,
    quantity: fill.fillQuantity,
    value: fill.fillTotalAmount,
    fee: fill.fees,
    role: undefined,
    time: fill.cTime,
    source: "rest"
  }
}

/** REST's fills as elements; one whose side is neither `buy` nor `sell` left out, with a warning naming it. */
export const fillsFromRest = (fills: Iterable<Fill_.FillRecord>): Effect.Effect<ReadonlyArray<Fill>> =>
  Effect.suspend(() => {
    const out: Array<Fill> = []
    const warnings: Array<Effect.Effect<void>> = []
    for (const record of fills) {
      const fill = fillFromRest(record)
      if (fill !== undefined) out.push(fill)
      else {
        warnings.push(Effect.logWarning(
          `spotkit push: REST fill ${record.fillId} of ${printable(record.symbol, 40)} left out: its side ` +
            `${JSON.stringify(printable(record.side, 40))} is neither buy nor sell`
        ))
      }
    }
    return Effect.as(Effect.all(warnings, { discard: true }), out)
  })

/**
 * An order's state as a source tells it: the filled quantity may be unknown (a push may leave out `cumFillSize`; it is
 * then the one known before, not "0", which would read as a step back).
 */
export interface OrderChange extends Omit<OrderUpdate, "filledQuantity"> {
  readonly filledQuantity: string | undefined
}

export const orderFromPush = (order: Push.Order, time: number | undefined): OrderChange | undefined => {
  const side = sideOf(order.orderSide)
  if (side === undefined) return undefined
  const status = normalStatus(order.status)
  return {
    orderId: order.id,
    clientOrderId: order.clientOrderId ?? undefined,
    symbol: order.symbolName ?? "",
    side,
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

// A push that leaves out `equity` (the codec takes it as optional) has it as REST defines it, `available + frozen`:
// left out, the known equity would be dropped, and the next backfill's balance (REST always has it) would be a change
// though nothing changed.
export const balanceFromPush = (asset: Push.AccountAsset): Balance => ({
  coinId: asset.coinId,
  coinName: asset.coinName,
  available: asset.available,
  frozen: asset.frozen,
  equity: asset.equity ?? Decimal.add(asset.available, asset.frozen),
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
