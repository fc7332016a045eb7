// The hand-written fast paths of the order schemas (Order.ts): the plain forms of the hot answers, decoded
// to exactly the Schema's value, or `undefined` to leave the input to the Schema. Order.ts exports them under their
// public names; they are property-tested against their Schemas in both directions (test/Order.test.ts).
import type * as Order from "../../Order.ts"
import type { OrderId } from "../../Primitives.ts"
import * as Fast from "./fast.ts"
import { CLIENT_ORDER_ID, TRADING_PAIR } from "./patterns.ts"

const isForce = (value: unknown): boolean =>
  value === "normal" || value === "postOnly" || value === "fok" || value === "ioc"

const isClientOrderId = (value: unknown): boolean => typeof value === "string" && CLIENT_ORDER_ID.test(value)

/**
 * A caller's order as `Order.PlaceOrder` decodes it, when it is plain (a plain object, every field of its type,
 * optional ones absent or set, a limit order's price above 0): the same fields, unknown ones left out. Anything
 * else is left to the Schema, which also words the errors.
 */
export const placeOrder = (input: unknown): Order.PlaceOrder | undefined => {
  if (!Fast.isPlainObject(input)) return undefined
  const { clientOrderId, force, orderType, price, quantity, side, symbol } = input
  if (
    typeof symbol !== "string" || !TRADING_PAIR.test(symbol) || (side !== "buy" && side !== "sell") ||
    (orderType !== "limit" && orderType !== "market") || !Fast.decimal(quantity) || !Fast.isPositive(quantity) ||
    !Fast.optional(input, "force", isForce) || !Fast.optional(input, "price", Fast.decimal) ||
    !Fast.optional(input, "clientOrderId", isClientOrderId)
  ) return undefined
  // The rule of `limitNeedsPrice` (Order.ts): a limit order's price above 0, a market order's not negative.
  const priced = orderType === "limit"
    ? typeof price === "string" && Fast.isPositive(price)
    : price === undefined || !(price as string).startsWith("-")
  if (!priced) return undefined
  type Field<K extends keyof Order.PlaceOrder> = Order.PlaceOrder[K]
  const order: { -readonly [K in keyof Order.PlaceOrder]: Order.PlaceOrder[K] } = {
    symbol: symbol as Field<"symbol">,
    side,
    orderType,
    quantity: quantity as Field<"quantity">
  }
  if ("force" in input) order.force = force as Field<"force">
  if ("price" in input) order.price = price as Field<"price">
  if ("clientOrderId" in input) order.clientOrderId = clientOrderId as Field<"clientOrderId">
  return order
}

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
    typeof accountId !== "string" || accountId === "" || typeof symbol !== "string" || !Fast.u64(orderId) ||
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
// (The caller's place-order input and open-orders query had fast paths too; by instructions per in-process order,
// and once per stream, they saved less than a second definition of the input costs: BENCHMARKS.md, #13.)
