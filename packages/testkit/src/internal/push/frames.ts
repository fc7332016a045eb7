// The engine's records as the venue pushes them on its private channels: upper-case enums, the push's own field
// names (`symbolName`, `fillSize`, ...), ids as strings, and the fill's `id` equal to the REST fill's `fillId`.
import { Push } from "@spotkit/core"
import type { FillView, OrderView, SpotBalance } from "../../EngineModel.ts"

const STATUS = { open: "NEW", partial_fill: "PARTIALLY_FILLED", full_fill: "FILLED", cancelled: "CANCELED" } as const

const FORCE = { normal: "GTC", postOnly: "POST_ONLY", fok: "FOK", ioc: "IOC" } as const

const pushStatus = (order: OrderView): string => STATUS[order.status]

export const order = (view: OrderView) => ({
  id: view.orderId,
  symbolName: view.symbol,
  clientOrderId: view.clientOrderId,
  orderSide: view.side.toUpperCase(),
  type: view.orderType.toUpperCase(),
  // A market order takes what it can at once: the venue pushes it as IOC, whatever force it was sent with (ignored).
  timeInForce: view.orderType === "market" ? FORCE.ioc : FORCE[view.force],
  price: view.price,
  size: view.quantity,
  status: pushStatus(view),
  cumFillSize: view.fillQuantity,
  cumFillValue: view.fillTotalAmount,
  latestFillPrice: view.latestFillPrice,
  createdTime: view.cTime,
  updatedTime: view.uTime
})

export const fill = (view: FillView) => ({
  id: view.fillId,
  symbolName: view.symbol,
  baseCoin: view.baseCoin,
  quoteCoin: view.quoteCoin,
  orderId: view.orderId,
  orderSide: view.side.toUpperCase(),
  fillSize: view.fillQuantity,
  fillValue: view.fillTotalAmount,
  fillFee: view.fees,
  direction: view.role.toUpperCase(),
  createdTime: view.cTime,
  updatedTime: view.cTime
})

export const asset = (balance: SpotBalance) => ({
  coinId: balance.coinId,
  coinName: balance.coinName,
  equity: balance.equity,
  available: balance.available,
  frozen: balance.frozen
})

/** A private push: `msgEvent`, the user's push version, the time and the channel's data. */
export const tradeEvent = (channel: string, version: number, time: number, data: unknown): string =>
  Push.frames.tradeEvent(channel, { msgEvent: "OrderUpdate", version, time, data })

/** The key under `msg.data` of each private channel (`orders`' is not documented: the client looks for any array). */
export const dataOf = {
  orders: (items: ReadonlyArray<unknown>) => ({ orderInfo: items }),
  fill: (items: ReadonlyArray<unknown>) => ({ orderFillTransaction: items }),
  account: (items: ReadonlyArray<unknown>) => ({ accountAsset: items })
} as const
