/**
 * The fake venue's answers to the rest of the trading interface (docs/venue/trading.md, account.md, market-data.md): cancels, one order's state, order
 * history and fills paged by time, balances, transfer status, and the public endpoints (server time, exchangeInfo,
 * products). Kept apart from `FakeVenue.ts`, which routes to them. Times bounds are exclusive unless the venue is made
 * with `inclusiveBounds`; lists are newest first (cTime, then id, descending), pages from 0, default size 10.
 */
import type { FakeOrder, FakeVenue, Received } from "./FakeVenue.ts"

export interface FakeFill {
  readonly fillId: string
  readonly orderId: bigint
  readonly symbol: string
  readonly side: string
  readonly orderType: string
  readonly fillPrice: string
  readonly fillQuantity: string
  readonly fillTotalAmount: string
  readonly fees: string
  readonly cTime: number
}

export interface FakeTransfer {
  readonly withdrawId: string
  readonly fromUserId: string
  readonly toUserId: string
  readonly coin: string
  readonly amount: string
  readonly status: string
  readonly createTime: number
}

export interface FakeBalance {
  readonly coinId: number
  readonly coinName: string
  readonly available: string
  readonly frozen: string
  readonly equity: string
}

/** The rules of a symbol as exchangeInfo answers them: tick 0.01, step 0.0001, quantity 0.0001..100000. */
export const rulesOf = (symbol: string, overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  symbol,
  baseCoin: symbol.replace(/USDT_SPBL$/, ""),
  quoteCoin: "USDT",
  tickSize: "0.01",
  stepSize: "0.0001",
  minTradeAmount: "0.0001",
  maxTradeAmount: "100000",
  takerFeeRate: "0.001",
  makerFeeRate: "0",
  buyLimitPriceRatio: "0.99",
  sellLimitPriceRatio: "0.99",
  marketBuyLimitSize: "99999",
  marketSellLimitSize: "99999",
  marketFallbackPriceRatio: "0",
  enableTrade: true,
  enableDisplay: true,
  displayDigitMerge: "",
  displayNew: false,
  displayHot: false,
  supportTracing: true,
  supportPlanMarket: true,
  ...overrides
})

const FINAL = new Set(["full_fill", "cancelled"])

export const isFinal = (order: FakeOrder): boolean => FINAL.has(order.status ?? "open")

const envelope = (code: string, msg: string, requestTime: number | string, dataJson: string) =>
  `{"code":"${code}","msg":${JSON.stringify(msg)},"requestTime":${JSON.stringify(requestTime)},"data":${dataJson}}`

const ok = (now: number, data: unknown) => ({
  status: 200,
  text: envelope("00000", "success", now, JSON.stringify(data))
})
const refused = (now: number, code: string, msg: string) => ({ status: 400, text: envelope(code, msg, now, "null") })

/** An order as orderInfo and history answer it: every field a string. */
export const recordOf = (order: FakeOrder) => ({
  accountId: "10012",
  symbol: order.symbol,
  orderId: String(order.orderId),
  clientOrderId: order.clientOrderId,
  price: order.price,
  quantity: order.quantity,
  orderType: order.orderType,
  side: order.side,
  status: order.status ?? "open",
  latestFillPrice: "0",
  maxFillPrice: "0",
  minFillPrice: "0",
  fillQuantity: order.fillQuantity ?? "0",
  fillTotalAmount: "0",
  cTime: String(order.cTime),
  uTime: String(order.cTime)
})

/** The answers of the public endpoints (no signature); `undefined` leaves the path to a 404. */
export const publicAnswer = (venue: FakeVenue, path: string, received: Received, now: number) => {
  switch (path) {
    case "/api/v2/public/time":
      return ok(now, now)
    case "/api/v2/public/exchangeInfo": {
      const wanted = received.query.symbol ?? received.query.symbols
      const names = wanted === undefined ? undefined : new Set(wanted.split(","))
      return ok(now, venue.rules.filter((rules) => names === undefined || names.has(String(rules.symbol))))
    }
    default:
      // The products list, with `requestTime` as a string as in one of the venue's samples.
      return { status: 200, text: envelope("00000", "success", String(now), JSON.stringify(["BTCUSDT_SPBL"])) }
  }
}

/** Newest first: time, then id, descending. */
const newestFirst = <A>(items: ReadonlyArray<A>, time: (a: A) => number, id: (a: A) => bigint) =>
  [...items].sort((a, b) => time(b) - time(a) || (id(b) > id(a) ? 1 : id(b) < id(a) ? -1 : 0))

const inBounds = (venue: FakeVenue, time: number, json: Record<string, unknown>) => {
  const inclusive = venue.options.inclusiveBounds === true
  const after = json.after === undefined ? undefined : Number(json.after)
  const before = json.before === undefined ? undefined : Number(json.before)
  return (after === undefined || (inclusive ? time >= after : time > after)) &&
    (before === undefined || (inclusive ? time <= before : time < before))
}

const page = <A>(json: Record<string, unknown>, items: ReadonlyArray<A>) => {
  const size = Number(json.pageSize ?? 10)
  const index = Number(json.pageIndex ?? 0)
  return { list: items.slice(index * size, index * size + size), nextPage: (index + 1) * size < items.length }
}

const NOT_FOUND = "FAILED_ORDER_NOT_FOUND"
const FINAL_MSG = "FAILED_ORDER_ALREADY_FINAL"

/** The answers of the signed endpoints beyond placing, listing open orders, bills and transfers; `undefined` leaves the path to a 404. */
export const signedAnswer = (venue: FakeVenue, path: string, received: Received, now: number) => {
  const json = received.json
  const findOrder = (by: { readonly orderId?: unknown; readonly clientOid?: unknown }, symbol?: unknown) =>
    venue.orders.findIndex((order) =>
      (symbol === undefined || order.symbol === symbol) &&
      (by.orderId !== undefined ? String(order.orderId) === String(by.orderId) : order.clientOrderId === by.clientOid)
    )
  // Cancels one order: "ok", or why not.
  const cancel = (index: number): "ok" | "43001" | "43004" => {
    if (index === -1) return "43001"
    const order = venue.orders[index]!
    if (isFinal(order)) return "43004"
    venue.orders[index] = { ...order, status: "cancelled" }
    return "ok"
  }
  switch (path) {
    case "/api/v2/trade/cancel-order": {
      const index = findOrder({ orderId: json.orderId, clientOid: json.clientOid }, json.symbol)
      const result = cancel(index)
      if (result !== "ok" && venue.options.cancelErrorsAsEnvelope) {
        return refused(now, result, result === "43001" ? "The order does not exist" : "There is no order to cancel")
      }
      const order = index === -1 ? undefined : venue.orders[index]!
      return ok(now, {
        order_id: order === undefined ? (json.orderId ?? null) : String(order.orderId),
        client_oid: json.clientOid ?? null,
        symbol: json.symbol,
        result: result === "ok",
        err_code: result === "ok" ? null : result,
        err_msg: result === "ok" ? null : result === "43001" ? NOT_FOUND : FINAL_MSG
      })
    }
    case "/api/v2/trade/cancel-batch-orders": {
      const orderIds = json.orderIds as Array<string> | undefined
      const clientOids = json.clientOids as Array<string> | undefined
      const ids = orderIds ?? clientOids ?? []
      if (ids.length > 50) return refused(now, "40912", "Batch cancel cannot exceed 50")
      const successList: Array<string> = []
      const failureList: Array<Record<string, unknown>> = []
      for (const id of ids) {
        const index = findOrder(orderIds !== undefined ? { orderId: id } : { clientOid: id }, json.symbol)
        const result = cancel(index)
        if (result === "ok") successList.push(String(venue.orders[index]!.orderId))
        else {
          failureList.push({
            orderId: orderIds !== undefined ? id : index === -1 ? "" : String(venue.orders[index]!.orderId),
            ...(clientOids !== undefined ? { clientOid: id } : {}),
            errMsg: result === "43001" ? NOT_FOUND : FINAL_MSG
          })
        }
      }
      return ok(now, { successList, failureList })
    }
    case "/api/v2/trade/cancel-symbol-order": {
      const successList: Array<string> = []
      venue.orders.forEach((order, index) => {
        if (order.symbol === json.symbol && cancel(index) === "ok") successList.push(String(order.orderId))
      })
      return ok(now, { successList, failureList: [] })
    }
    case "/api/v2/trade/orderInfo": {
      const matching = venue.orders.filter((order) =>
        json.orderId !== undefined ? String(order.orderId) === json.orderId : order.clientOrderId === json.clientOrderId
      )
      return ok(now, matching.map(recordOf))
    }
    case "/api/v2/trade/history": {
      const orders = newestFirst(
        venue.orders.filter((order) => order.symbol === json.symbol && inBounds(venue, order.cTime, json)),
        (order) => order.cTime,
        (order) => order.orderId
      )
      const { list, nextPage } = page(json, orders)
      return ok(now, { orderInfoResultList: list.map(recordOf), nextPage, totals: 0 })
    }
    case "/api/v2/trade/fills": {
      // From the text: the orderId is a bare JSON number, which JSON.parse would round.
      const orderId = /"orderId":(\d+)/.exec(received.body)?.[1]
      const fills = newestFirst(
        venue.fills.filter((fill) =>
          fill.symbol === json.symbol &&
          (orderId === undefined || String(fill.orderId) === orderId) &&
          inBounds(venue, fill.cTime, json)
        ),
        (fill) => fill.cTime,
        (fill) => BigInt(fill.fillId)
      )
      const { list, nextPage } = page(json, fills)
      return ok(now, {
        fillsOrderResultList: list.map((fill) => ({
          accountId: "10012",
          symbol: fill.symbol,
          baseCoin: "BTC",
          quoteCoin: "USDT",
          orderId: String(fill.orderId),
          fillId: fill.fillId,
          orderType: fill.orderType,
          side: fill.side,
          fillPrice: fill.fillPrice,
          fillQuantity: fill.fillQuantity,
          fillTotalAmount: fill.fillTotalAmount,
          fees: fill.fees,
          cTime: String(fill.cTime)
        })),
        nextPage,
        totals: 0
      })
    }
    case "/api/v2/account/assets":
      return ok(now, venue.balances)
    case "/api/v2/rebate/affiliate/getInternalWithdrawalStatus": {
      const q = received.query
      const size = Number(q.pageSize ?? 100)
      const index = venue.options.ignoresTransferPage === true ? 1 : Number(q.page ?? 1)
      const matching = venue.transfers.filter((transfer) =>
        (q.withdrawID === undefined || transfer.withdrawId === q.withdrawID) &&
        (q.coin === undefined || transfer.coin === q.coin) &&
        (q.startTime === undefined || transfer.createTime >= Number(q.startTime)) &&
        (q.endTime === undefined || transfer.createTime <= Number(q.endTime))
      )
      const served = Math.min(size, venue.options.transfersServed ?? size)
      const list = matching.slice((index - 1) * size, (index - 1) * size + served).map((transfer) =>
        // User ids are JSON numbers, written from their digits.
        `{"fromUserId":${transfer.fromUserId},"toUserId":${transfer.toUserId},"withdrawId":"${transfer.withdrawId}",` +
        `"coin":"${transfer.coin}","status":"${transfer.status}","amount":"${transfer.amount}",` +
        `"createTime":${transfer.createTime},"updateTime":${transfer.createTime}}`
      )
      return {
        status: 200,
        text: `{"total":${matching.length},"code":"200","list":[${list.join(",")}],"timestamp":${now}}`
      }
    }
    default:
      return undefined
  }
}
