// One handler per endpoint, by its name in `Venue.endpoints`: the fields of the request (the JSON body of a POST, the
// query string of a GET) into an engine call, and the engine's answer into the `data` of the endpoint's envelope
// (JSON text; for the transfer envelope, the fields it holds besides `code` and `timestamp`), or a refusal. Routing,
// authentication, rate limits and the envelope itself are the router's.
import { Market, Venue } from "@spotkit/core"
import * as Engine from "../../Engine.ts"
import {
  type Body,
  clientIdField,
  idListField,
  integerField,
  integerFields,
  isObject,
  longField,
  optionalLongField,
  orderRequest,
  stringField
} from "./fields.ts"
import { Refusal, refusal } from "./wire.ts"

/**
 * `userId` is the caller's (empty for a public endpoint); `body` the request's fields (a public endpoint's and a GET's
 * from its query string).
 */
export type Handler = (engine: Engine.Engine, userId: string, body: Body, now: number) => string | Refusal

const quote = JSON.stringify

const nullable = (value: string | undefined): string => value === undefined ? "null" : quote(value)

/**
 * The venue's order record (docs/venue/trading.md#order-record, every status): no userId, no force, the status in the
 * venue's words.
 */
const orderRecord = (o: Engine.OrderView) => ({
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
})

/** The venue's fill record (docs/venue/trading.md#fills). */
const fillRecord = (f: Engine.FillView) => ({
  accountId: f.accountId,
  symbol: f.symbol,
  baseCoin: f.baseCoin,
  quoteCoin: f.quoteCoin,
  orderId: f.orderId,
  fillId: f.fillId,
  orderType: f.orderType,
  side: f.side,
  fillPrice: f.fillPrice,
  fillQuantity: f.fillQuantity,
  fillTotalAmount: f.fillTotalAmount,
  fees: f.fees,
  cTime: f.cTime
})

/** A required `symbol` the exchange lists: 40019 without one, 40102 for one it does not. */
const knownSymbol = (engine: Engine.Engine, body: Body): string | Refusal => {
  const symbol = stringField(body, "symbol", true)
  if (symbol instanceof Refusal) return symbol
  return engine.hasProduct(symbol!) ? symbol! : refusal("40102")
}

/** One order, by `orderId` or by its client id (named `cidName` on the wire): exactly one, else 40913. */
const orderRef = (body: Body, cidName: string): Engine.OrderRef | Refusal => {
  const orderId = optionalLongField(body, "orderId")
  if (orderId instanceof Refusal) return orderId
  const clientOrderId = clientIdField(body, cidName)
  if (clientOrderId instanceof Refusal) return clientOrderId
  if ((orderId === undefined) === (clientOrderId === undefined)) return refusal("40913")
  return orderId !== undefined ? { orderId } : { clientOrderId }
}

/** The time bounds and page of a history or fills query (docs/venue/trading.md#order-history). */
const pageQuery = (body: Body): Engine.PageQuery | Refusal => {
  return integerFields(body, {
    after: [0, Number.MAX_SAFE_INTEGER],
    before: [0, Number.MAX_SAFE_INTEGER],
    pageIndex: [0, 1_000_000_000],
    pageSize: [1, 100]
  })
}

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
  const orders = engine.openOrders(userId, symbol!, pageNo ?? 0, limit ?? 100).map(orderRecord)
  return `{"orderInfoResultList":${quote(orders)},"nextPage":null,"totals":null}`
}

const fundingBills: Handler = (engine, userId, body) => {
  const query = integerFields(body, {
    coinId: [0, 2_147_483_647],
    startTime: [0, Number.MAX_SAFE_INTEGER],
    endTime: [0, Number.MAX_SAFE_INTEGER],
    pageIndex: [1, 1_000_000_000],
    pageSize: [1, 100]
  })
  return query instanceof Refusal ? query : engine.fundingBillsJson(userId, query)
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
  return done.ok ? `{"id":${quote(done.id)}}` : new Refusal(done.code, done.msg)
}

// docs/venue/trading.md#cancel-order: the venue names the client id `clientOid` here and answers in snake_case; an
// order that is not open is an answer (`result: false` with 43001 or 43004), not an error.
const cancelOrder: Handler = (engine, userId, body, now) => {
  const symbol = knownSymbol(engine, body)
  if (symbol instanceof Refusal) return symbol
  const ref = orderRef(body, "clientOid")
  if (ref instanceof Refusal) return ref
  const done = engine.cancel(userId, symbol, ref, now)
  return `{"order_id":${nullable(done.orderId)},"client_oid":${nullable(ref.clientOrderId)},"symbol":${
    quote(symbol)
  },"result":${done.ok},"err_code":${done.ok ? "null" : quote(done.code)},"err_msg":${
    done.ok ? "null" : quote(done.msg)
  }}`
}

/** `successList` (order ids) and `failureList` of a cancel of many; `clientOid` in failures named by client ids. */
const batchJson = (batch: Engine.CancelBatch, byClientId: boolean): string => {
  const failures = batch.failed.map((f) =>
    `{"orderId":${nullable(f.orderId)},${byClientId ? `"clientOid":${nullable(f.clientOrderId)},` : ""}"errCode":${
      quote(f.code)
    },"errMsg":${quote(f.msg)}}`
  )
  return `{"successList":${quote(batch.cancelled.map((c) => c.orderId))},"failureList":[${failures.join(",")}]}`
}

// docs/venue/trading.md#cancel-many-orders: `orderIds` or `clientOids` (exactly one), at most 50 (40912).
const cancelOrders: Handler = (engine, userId, body, now) => {
  const symbol = knownSymbol(engine, body)
  if (symbol instanceof Refusal) return symbol
  const orderIds = idListField(body, "orderIds", "orderId")
  if (orderIds instanceof Refusal) return orderIds
  const clientOids = idListField(body, "clientOids", "clientOrderId")
  if (clientOids instanceof Refusal) return clientOids
  if ((orderIds === undefined) === (clientOids === undefined)) return refusal("40913")
  const refs: ReadonlyArray<Engine.OrderRef> = orderIds !== undefined
    ? orderIds.map((orderId) => ({ orderId }))
    : clientOids!.map((clientOrderId) => ({ clientOrderId }))
  if (refs.length > Venue.BATCH_LIMIT) return refusal("40912")
  return batchJson(engine.cancelOrders(userId, symbol, refs, now), orderIds === undefined)
}

const cancelAll: Handler = (engine, userId, body, now) => {
  const symbol = knownSymbol(engine, body)
  if (symbol instanceof Refusal) return symbol
  return batchJson(engine.cancelAll(userId, symbol, now), false)
}

// docs/venue/trading.md#order-info: no symbol; the client id is `clientOrderId` here. An unknown order (or another
// user's) is `[]`.
const order: Handler = (engine, userId, body) => {
  const ref = orderRef(body, "clientOrderId")
  if (ref instanceof Refusal) return ref
  const found = ref.orderId !== undefined
    ? engine.order(ref.orderId)
    : engine.orderByClientId(userId, ref.clientOrderId!)
  return found === undefined || found.userId !== userId ? "[]" : quote([orderRecord(found)])
}

// docs/venue/trading.md#order-history. `totals` is 0, as in the venue's samples: never rely on it.
const orderHistory: Handler = (engine, userId, body) => {
  const symbol = knownSymbol(engine, body)
  if (symbol instanceof Refusal) return symbol
  const query = pageQuery(body)
  if (query instanceof Refusal) return query
  const page = engine.orderHistory(userId, symbol, query)
  return `{"orderInfoResultList":${quote(page.items.map(orderRecord))},"nextPage":${page.nextPage},"totals":0}`
}

const fills: Handler = (engine, userId, body) => {
  const symbol = knownSymbol(engine, body)
  if (symbol instanceof Refusal) return symbol
  const orderId = optionalLongField(body, "orderId")
  if (orderId instanceof Refusal) return orderId
  const query = pageQuery(body)
  if (query instanceof Refusal) return query
  const page = engine.fills(userId, symbol, { ...query, orderId })
  return `{"fillsOrderResultList":${quote(page.items.map(fillRecord))},"nextPage":${page.nextPage},"totals":0}`
}

// docs/venue/account.md#balances: the spot account, every coin the user ever held there.
const balances: Handler = (engine, userId) => quote(engine.spotBalances(userId))

const accountTypeField = (body: Body, name: string): Engine.AccountType | undefined | Refusal => {
  const value = stringField(body, name, false)
  if (value === undefined || value instanceof Refusal) return value
  return (Engine.accountTypes as ReadonlyArray<string>).includes(value)
    ? value as Engine.AccountType
    : refusal("40020", name)
}

// How far back transfer status serves: "only the past month" (account.md#transfer-status), taken as 30 days.
const TRANSFER_STATUS_MILLIS = 30 * 86_400_000

// docs/venue/account.md#transfer-status: the caller's transfers of the past 30 days, in the transfer's envelope
// (`{total, code: "200", list, timestamp}`), user ids as JSON numbers. The venue spells the id parameter `withdrawID`.
// An earlier `startTime` is clipped to the 30 days rather than refused: the venue's answer to one is not known.
const transferStatus: Handler = (engine, userId, body, now) => {
  const withdrawId = stringField(body, "withdrawID", false)
  if (withdrawId instanceof Refusal) return withdrawId
  const coin = stringField(body, "coin", false)
  if (coin instanceof Refusal) return coin
  const startTime = integerField(body, "startTime", 0, Number.MAX_SAFE_INTEGER)
  if (startTime instanceof Refusal) return startTime
  const endTime = integerField(body, "endTime", 0, Number.MAX_SAFE_INTEGER)
  if (endTime instanceof Refusal) return endTime
  const fromAccountType = accountTypeField(body, "fromAccountType")
  if (fromAccountType instanceof Refusal) return fromAccountType
  const toAccountType = accountTypeField(body, "toAccountType")
  if (toAccountType instanceof Refusal) return toAccountType
  const page = integerField(body, "page", 1, 1_000_000_000)
  if (page instanceof Refusal) return page
  const pageSize = integerField(body, "pageSize", 1, 200)
  if (pageSize instanceof Refusal) return pageSize
  const oldest = now - TRANSFER_STATUS_MILLIS
  const found = engine.transferStatus(userId, {
    withdrawId,
    coin,
    startTime: startTime === undefined || startTime < oldest ? oldest : startTime,
    endTime,
    fromAccountType,
    toAccountType,
    page,
    pageSize
  })
  // User ids are digits: written as bare JSON numbers, exact.
  const list = found.items.map((t) =>
    `{"fromUserId":${t.fromUserId},"toUserId":${t.toUserId},"withdrawId":${quote(t.id)},"coin":${
      quote(t.coin)
    },"status":${quote(t.status)},"amount":${
      quote(t.amount)
    },"createTime":${t.createTime},"updateTime":${t.updateTime}}`
  )
  return `{"total":${found.total},"list":[${list.join(",")}]}`
}

// docs/venue/market-data.md#symbol-rules: the rules of one symbol (`symbol`), of several (`symbols`, comma-separated)
// or of all; every named symbol must exist (40102). The fields the engine does not model carry the values of the
// venue's sample (price-limit ratios, not enforced) or say the testkit has no such feature.
const exchangeInfo: Handler = (engine, _userId, body) => {
  const symbol = stringField(body, "symbol", false)
  if (symbol instanceof Refusal) return symbol
  const symbols = stringField(body, "symbols", false)
  if (symbols instanceof Refusal) return symbols
  const named = symbol !== undefined ? [symbol] : symbols?.split(",")
  if (named !== undefined && !named.every((name) => engine.hasProduct(name))) return refusal("40102")
  return quote(
    engine.symbolRules(named).map((r) => ({
      symbol: r.symbol,
      baseCoin: r.baseCoin,
      quoteCoin: r.quoteCoin,
      tickSize: r.tickSize,
      stepSize: r.stepSize,
      minTradeAmount: r.minTradeAmount,
      maxTradeAmount: r.maxTradeAmount,
      takerFeeRate: r.takerFeeRate,
      makerFeeRate: r.makerFeeRate,
      buyLimitPriceRatio: "0.99",
      sellLimitPriceRatio: "0.99",
      marketBuyLimitSize: r.marketBuyLimitSize,
      marketSellLimitSize: r.maxTradeAmount,
      marketFallbackPriceRatio: "0",
      enableTrade: r.enableTrade,
      enableDisplay: true,
      displayDigitMerge: "",
      displayNew: false,
      displayHot: false,
      supportTracing: false,
      supportPlanMarket: false
    }))
  )
}

// The symbols tradable by API (docs/venue/market-data.md#products), as the venue's own path answers; `/products` (the
// first operation list's path) answers each product's listing.
const productList: Handler = (engine) =>
  quote(engine.productList().flatMap((p) => p.status === "online" ? [p.symbol] : []))

const serverTime: Handler = (_engine, _userId, _body, now) => String(now)

const products: Handler = (engine) => quote(engine.productList())

// ---------------------------------------------------------------------------------------------------------------
// Market data (docs/venue/market-data.md): public, from the engine's book and trades

/** The venue's ticker object (docs/venue/market-data.md#ticker), its fields in the order of the venue's sample. */
const tickerRecord = (t: Engine.Ticker, now: number) => ({
  symbol: t.symbol,
  priceChange: t.priceChange,
  priceChangePercent: t.priceChangePercent,
  trades: t.trades,
  size: t.size,
  value: t.value,
  high: t.high,
  low: t.low,
  open: t.open,
  close: t.close,
  highTime: t.highTime,
  lowTime: t.lowTime,
  startTime: t.startTime,
  endTime: t.endTime,
  lastPrice: t.lastPrice,
  openInterest: "0",
  ts: now
})

const ticker: Handler = (engine, _userId, body, now) => {
  const symbol = knownSymbol(engine, body)
  return symbol instanceof Refusal ? symbol : quote(tickerRecord(engine.ticker(symbol, now), Math.max(now, engine.now)))
}

const tickers: Handler = (engine, _userId, _body, now) => {
  const at = Math.max(now, engine.now)
  return quote(engine.tickers(now).map((t) => tickerRecord(t, at)))
}

const DEPTH_TYPES = ["step0", "step1", "step2", "step3", "step4", "step5"]

// `limit` 15 (the default) or 200, `type` step0 (no merging, the default) to step5.
const depth: Handler = (engine, _userId, body, now) => {
  const symbol = knownSymbol(engine, body)
  if (symbol instanceof Refusal) return symbol
  const limit = stringField(body, "limit", false)
  if (limit instanceof Refusal) return limit
  if (limit !== undefined && limit !== "15" && limit !== "200") return refusal("40020", "limit")
  const type = stringField(body, "type", false)
  if (type instanceof Refusal) return type
  const step = type === undefined ? 0 : DEPTH_TYPES.indexOf(type)
  if (step < 0) return refusal("40020", "type")
  const book = engine.orderBook(symbol, limit === "200" ? 200 : 15, step)
  return `{"asks":${quote(book.asks)},"bids":${quote(book.bids)},"timestamp":${
    quote(String(Math.max(now, engine.now)))
  }}`
}

const isPeriod = (text: string): text is Engine.CandlePeriod =>
  (Market.CandlePeriod.literals as ReadonlyArray<string>).includes(text)

// `[openTime, open, high, low, close, baseVolume, quoteVolume]`, newest first, as the venue's sample.
const candles: Handler = (engine, _userId, body) => {
  const symbol = knownSymbol(engine, body)
  if (symbol instanceof Refusal) return symbol
  const period = stringField(body, "period", true)
  if (period instanceof Refusal) return period
  if (!isPeriod(period!)) return refusal("40020", "period")
  const query = integerFields(body, {
    limit: [1, 1000],
    startTime: [0, Number.MAX_SAFE_INTEGER],
    endTime: [0, Number.MAX_SAFE_INTEGER]
  })
  if (query instanceof Refusal) return query
  const list = engine.candles(symbol, period, query).map((c) =>
    `[${c.openTime},${quote(c.open)},${quote(c.high)},${quote(c.low)},${quote(c.close)},${quote(c.baseVolume)},${
      quote(c.quoteVolume)
    }]`
  )
  return `[${list.join(",")}]`
}

// docs/venue/market-data.md#recent-trades: `limit` 1..1000, 100 by default, newest first.
const recentTrades: Handler = (engine, _userId, body) => {
  const symbol = knownSymbol(engine, body)
  if (symbol instanceof Refusal) return symbol
  const limit = integerField(body, "limit", 1, 1000)
  if (limit instanceof Refusal) return limit
  const list = engine.recentTrades(symbol, limit ?? 100).map((t) =>
    `{"symbol":${quote(t.symbol)},"tradeId":${quote(t.tradeId)},"fillTime":${t.time},"fillPrice":${
      quote(t.price)
    },"fillQuantity":${quote(t.size)},"tradeValue":${quote(t.value)},"bestMatch":true,"buyerMaker":${t.buyerMaker}}`
  )
  return `[${list.join(",")}]`
}

export const handlers: { readonly [Name in Venue.EndpointName]?: Handler } = {
  placeOrder,
  placeOrders,
  openOrders,
  fundingBills,
  internalTransfer,
  cancelOrder,
  cancelOrders,
  cancelAll,
  order,
  orderHistory,
  fills,
  balances,
  transferStatus,
  exchangeInfo,
  productList,
  serverTime,
  ticker,
  tickers,
  depth,
  candles,
  recentTrades,
  products
}
