// One handler per endpoint, by its name in `Venue.endpoints`: the fields of the body into an engine call, and the
// engine's answer into the `data` of the endpoint's envelope (JSON text; for a transfer, its id), or a refusal.
// Routing, authentication, rate limits and the envelope itself are the router's.
import { Venue } from "@spotkit/core"
import type * as Engine from "../../Engine.ts"
import { type Body, integerField, isObject, longField, orderRequest, stringField } from "./fields.ts"
import { Refusal, refusal } from "./wire.ts"

/** `userId` is the caller's (empty for a public endpoint); `body` its request body (empty for a public endpoint). */
export type Handler = (engine: Engine.Engine, userId: string, body: Body, now: number) => string | Refusal

const quote = JSON.stringify

const placedJson = (placed: Engine.Placed): string =>
  `{"orderId":${placed.orderId},"clientOrderId":${quote(placed.clientOrderId)}}`

const placeOrder: Handler = (engine, userId, body, now) => {
  const request = orderRequest(body, undefined)
  if (request instanceof Refusal) return request
  const placed = engine.placeOrder(userId, request, now)
  return placed.ok ? placedJson(placed) : new Refusal(placed.code, placed.msg)
}

const placeOrders: Handler = (engine, userId, body, now) => {
  const symbol = stringField(body, "symbol", true)
  if (symbol instanceof Refusal) return symbol
  const list = body.orderList
  if (list === undefined || list === null) return refusal("40019", "orderList")
  if (!Array.isArray(list) || list.length === 0 || list.length > Venue.BATCH_LIMIT) return refusal("40020", "orderList")
  const results: Array<string> = []
  const failures: Array<string> = []
  for (const item of list as ReadonlyArray<unknown>) {
    const itemBody = isObject(item) ? item : {}
    const cid = typeof itemBody.clientOrderId === "string" ? itemBody.clientOrderId : ""
    const request = orderRequest(itemBody, symbol!)
    const placed = request instanceof Refusal
      ? { ok: false as const, code: request.code, msg: request.msg }
      : engine.placeOrder(userId, request, now)
    if (placed.ok) {
      results.push(placedJson(placed))
    } else {
      failures.push(`{"clientOrderId":${quote(cid)},"errorCode":${quote(placed.code)},"errorMsg":${quote(placed.msg)}}`)
    }
  }
  return `{"resultList":[${results.join(",")}],"failure":[${failures.join(",")}]}`
}

const openOrders: Handler = (engine, userId, body) => {
  const symbol = stringField(body, "symbol", true)
  if (symbol instanceof Refusal) return symbol
  const limit = integerField(body, "limit", 1, 100)
  if (limit instanceof Refusal) return limit
  const pageNo = integerField(body, "pageNo", 0, 1_000_000_000)
  if (pageNo instanceof Refusal) return pageNo
  if (!engine.hasProduct(symbol!)) return refusal("40102")
  // The venue's open-order record (spec §2.5) has no userId and no force.
  const orders = engine.openOrders(userId, symbol!, pageNo ?? 0, limit ?? 100).map((o) => ({
    accountId: o.accountId,
    symbol: o.symbol,
    orderId: o.orderId,
    clientOrderId: o.clientOrderId,
    price: o.price,
    quantity: o.quantity,
    orderType: o.orderType,
    side: o.side,
    status: o.status,
    latestFillPrice: o.latestFillPrice,
    maxFillPrice: o.maxFillPrice,
    minFillPrice: o.minFillPrice,
    fillQuantity: o.fillQuantity,
    fillTotalAmount: o.fillTotalAmount,
    cTime: o.cTime,
    uTime: o.uTime
  }))
  return `{"orderInfoResultList":${quote(orders)},"nextPage":null,"totals":null}`
}

const fundingBills: Handler = (engine, userId, body) => {
  const coinId = integerField(body, "coinId", 0, 2_147_483_647)
  if (coinId instanceof Refusal) return coinId
  const startTime = integerField(body, "startTime", 0, Number.MAX_SAFE_INTEGER)
  if (startTime instanceof Refusal) return startTime
  const endTime = integerField(body, "endTime", 0, Number.MAX_SAFE_INTEGER)
  if (endTime instanceof Refusal) return endTime
  const pageIndex = integerField(body, "pageIndex", 1, 1_000_000_000)
  if (pageIndex instanceof Refusal) return pageIndex
  const pageSize = integerField(body, "pageSize", 1, 100)
  if (pageSize instanceof Refusal) return pageSize
  return engine.fundingBillsJson(userId, { coinId, startTime, endTime, pageIndex, pageSize })
}

const TRANSFER_FIELDS = ["coin", "amount", "fromAccountType", "toAccountType"] as const

const internalTransfer: Handler = (engine, userId, body, now) => {
  const toUserId = longField(body, "toUserId")
  if (toUserId instanceof Refusal) return toUserId
  const fields: Record<string, string> = {}
  for (const name of TRANSFER_FIELDS) {
    const value = stringField(body, name, true)
    if (value instanceof Refusal) return value
    fields[name] = value!
  }
  const done = engine.transfer(userId, {
    toUserId,
    coin: fields.coin!,
    amount: fields.amount!,
    fromAccountType: fields.fromAccountType!,
    toAccountType: fields.toAccountType!
  }, now)
  return done.ok ? quote(done.id) : new Refusal(done.code, done.msg)
}

const products: Handler = (engine) => quote(engine.productList())

export const handlers: { readonly [Name in Venue.EndpointName]?: Handler } = {
  placeOrder,
  placeOrders,
  openOrders,
  fundingBills,
  internalTransfer,
  products
}
