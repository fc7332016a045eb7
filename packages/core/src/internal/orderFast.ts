// The hand-written fast paths of the order schemas (Order.ts): the plain forms of the hot inputs and answers, decoded
// to exactly the Schema's value, or `undefined` to leave the input to the Schema. Order.ts exports them under their
// public names; they are property-tested against their Schemas in both directions (test/Order.test.ts).
import type * as Order from "../Order.ts"
import type { OrderId } from "../Primitives.ts"
import * as Fast from "./fast.ts"
import { CLIENT_ORDER_ID, TRADING_PAIR } from "./patterns.ts"

export const placeOrderResult = (input: unknown): Order.PlaceOrderResult | undefined =>
  Fast.isRecord(input) && Fast.u64(input.orderId) && typeof input.clientOrderId === "string"
    ? { orderId: input.orderId as OrderId, clientOrderId: input.clientOrderId }
    : undefined

const openOrder = (input: unknown): Order.OpenOrder | undefined => {
  if (!Fast.isRecord(input)) return undefined
  const {
    accountId,
    clientOrderId,
    fillQuantity,
    fillTotalAmount,
    latestFillPrice,
    maxFillPrice,
    minFillPrice,
    orderId,
    orderType,
    price,
    quantity,
    side,
    status,
    symbol
  } = input
  const cTime = Fast.millis(input.cTime)
  const uTime = Fast.millis(input.uTime)
  if (
    typeof accountId !== "string" || typeof symbol !== "string" || !Fast.u64(orderId) ||
    typeof clientOrderId !== "string" || !Fast.decimal(price) || !Fast.decimal(quantity) ||
    (orderType !== "limit" && orderType !== "market") || (side !== "buy" && side !== "sell") ||
    typeof status !== "string" || !Fast.decimal(latestFillPrice) || !Fast.decimal(maxFillPrice) ||
    !Fast.decimal(minFillPrice) || !Fast.decimal(fillQuantity) || !Fast.decimal(fillTotalAmount) ||
    cTime === undefined || uTime === undefined
  ) {
    return undefined
  }
  return {
    accountId,
    symbol,
    orderId,
    clientOrderId,
    price,
    quantity,
    orderType,
    side,
    status,
    latestFillPrice,
    maxFillPrice,
    minFillPrice,
    fillQuantity,
    fillTotalAmount,
    cTime,
    uTime
  } as Order.OpenOrder
}

export const openOrdersPage = (input: unknown): Order.OpenOrdersPage | undefined => {
  if (!Fast.isRecord(input) || !("orderInfoResultList" in input)) return undefined
  const list = input.orderInfoResultList
  let orders: Array<Order.OpenOrder> | null = null
  if (list !== null) {
    if (!Array.isArray(list)) return undefined
    orders = new Array(list.length)
    for (let i = 0; i < list.length; i++) {
      const order = openOrder(list[i])
      if (order === undefined) return undefined
      orders[i] = order
    }
  }
  const out: { -readonly [K in keyof Order.OpenOrdersPage]: Order.OpenOrdersPage[K] } = { orderInfoResultList: orders }
  if ("nextPage" in input) {
    if (input.nextPage === undefined) return undefined
    out.nextPage = input.nextPage
  }
  if ("totals" in input) {
    if (input.totals === undefined) return undefined
    out.totals = input.totals
  }
  return out
}

export const placeOrder = (input: unknown): Order.PlaceOrder | undefined => {
  if (!Fast.isRecord(input)) return undefined
  const { clientOrderId, force, orderType, price, quantity, side, symbol } = input
  if (
    typeof symbol !== "string" || !TRADING_PAIR.test(symbol) || (side !== "buy" && side !== "sell") ||
    (orderType !== "limit" && orderType !== "market") || !Fast.decimal(quantity) || !Fast.isPositive(quantity) ||
    !Fast.optional(input, "force", (f) => f === "normal" || f === "postOnly" || f === "fok" || f === "ioc") ||
    !Fast.optional(input, "price", Fast.decimal) ||
    !Fast.optional(input, "clientOrderId", (id) => typeof id === "string" && CLIENT_ORDER_ID.test(id))
  ) {
    return undefined
  }
  // The limit-price rule (`limitNeedsPrice`): a limit order needs a price above 0; no order may have a negative one.
  const priced = price as string | undefined
  if (orderType === "limit" ? priced === undefined || !Fast.isPositive(priced) : priced?.startsWith("-") === true) {
    return undefined
  }
  const out: Record<string, unknown> = { symbol, side, orderType }
  if ("force" in input) out.force = force
  if ("price" in input) out.price = price
  out.quantity = quantity
  if ("clientOrderId" in input) out.clientOrderId = clientOrderId
  return out as Order.PlaceOrder
}

const pageSize = (value: unknown) => Number.isSafeInteger(value) && (value as number) >= 1 && (value as number) <= 100

export const openOrdersQuery = (input: unknown): typeof Order.OpenOrdersQuery.Type | undefined => {
  if (
    !Fast.isRecord(input) || typeof input.symbol !== "string" || !TRADING_PAIR.test(input.symbol) ||
    !Fast.optional(input, "limit", pageSize) ||
    !Fast.optional(input, "pageNo", (n) => Number.isSafeInteger(n) && (n as number) >= 0)
  ) {
    return undefined
  }
  const out: Record<string, unknown> = { symbol: input.symbol }
  if ("limit" in input) out.limit = input.limit
  if ("pageNo" in input) out.pageNo = input.pageNo
  return out as typeof Order.OpenOrdersQuery.Type
}
