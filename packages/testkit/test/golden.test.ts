/**
 * Golden wire fixtures: raw JSON texts written by hand in the shapes of the spec's samples (§2, §4, §7 and
 * docs/venue (README.md#exact-ids, trading.md, account.md): a 64-bit `orderId` as a bare JSON number, open-order fields as strings with "0" before any fill,
 * `nextPage`/`totals` null, the transfer's own envelope, the error envelope), and of the rest of the trading surface's samples (docs/venue/trading.md, account.md:
 * the snake_case cancel answer, the batch cancel's lists — with the `errCode` the testkit adds to a failure —, order
 * records of any status, history and fill pages with `totals` 0, balances, symbol rules, products, time, and the
 * transfer status in the transfer's envelope with user ids as bare JSON numbers and a `total` that is not the count),
 * and of the market-data samples of docs/venue/market-data.md (the ticker, all tickers as an array of them, depth with
 * levels as `[price, quantity]` strings and the time as a string, candles as positional arrays newest first, recent
 * trades).
 *
 * (a) The client decodes each fixture text exactly (served through a tiny `HttpClient`; signatures are not checked).
 * (b) The sandbox answers the same operations with texts of the same shape: same keys, the same JSON type per key,
 *     ids above 2^53 as bare integer literals where the fixture has them, decimals as strings.
 * Both directions read the same texts, so a schema mistake shared by the client and the sandbox cannot hide.
 */
import { assert, describe, it } from "@effect/vitest"
import { Order, SpotClient, Venue } from "@spotkit/core"
import type { SpotError } from "@spotkit/core"
import { Clock, Effect, Layer, Option, Redacted, Stream } from "effect"
import { HttpClient, HttpClientResponse } from "effect/http"
import { createHmac } from "node:crypto"
import { readFileSync } from "node:fs"
import { Sandbox, TestExchange } from "../src/index.ts"

type FixtureName =
  | "place-order"
  | "batch-orders"
  | "open-orders"
  | "funding-bills"
  | "transfer"
  | "error"
  | "cancel-order"
  | "cancel-batch"
  | "order-info"
  | "order-history"
  | "fills"
  | "assets"
  | "exchange-info"
  | "products"
  | "server-time"
  | "transfer-status"
  | "ticker"
  | "tickers"
  | "depth"
  | "candles"
  | "recent-trades"

const fixture = (name: FixtureName): string => readFileSync(new URL(`./fixtures/${name}.json`, import.meta.url), "utf8")

const TWO_53 = 2n ** 53n
const DECIMAL = /^-?(?:0|[1-9]\d*)(?:\.\d+)?$/

// ---------------------------------------------------------------------------------------------------------------
// Checks every text must pass, fixture and sandbox alike

/** Every `"orderId": <literal>` of a text: bare integers with more than 15 digits, above 2^53. */
const bareOrderIds = (text: string): Array<string> => {
  const ids = [...text.matchAll(/"orderId"\s*:\s*([^,}\s]+)/g)].map((m) => m[1]!)
  assert.isTrue(ids.length > 0, "the text has order ids")
  for (const id of ids) {
    assert.match(id, /^\d{16,20}$/, `orderId ${id} is a bare integer literal with more than 15 digits`)
    assert.isTrue(BigInt(id) > TWO_53, `orderId ${id} lies above 2^53`)
  }
  return ids
}

type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [key: string]: Json }

const typeOf = (value: unknown): string =>
  value === null ? "null" : Array.isArray(value) ? "array" : typeof value === "number" && Number.isInteger(value)
    ? "integer"
    : typeof value

/** Same keys and the same JSON type per key, recursively; each array element against the fixture's first. */
const assertSameShape = (expected: Json, actual: Json, path = "$"): void => {
  assert.strictEqual(typeOf(actual), typeOf(expected), `${path}: JSON type`)
  if (Array.isArray(expected)) {
    const list = actual as ReadonlyArray<Json>
    assert.isTrue(expected.length > 0 && list.length > 0, `${path}: both arrays have elements to compare`)
    for (const item of expected) assertSameShape(expected[0]!, item, `${path}[fixture]`)
    list.forEach((item, i) => assertSameShape(expected[0]!, item, `${path}[${i}]`))
  } else if (typeof expected === "object" && expected !== null) {
    const record = expected as { readonly [key: string]: Json }
    const object = actual as { readonly [key: string]: Json }
    assert.deepStrictEqual(Object.keys(object).sort(), Object.keys(record).sort(), `${path}: keys`)
    for (const key of Object.keys(record)) assertSameShape(record[key]!, object[key]!, `${path}.${key}`)
  }
}

const standardEnvelope = (parsed: { readonly [key: string]: Json }, code: string) => {
  assert.deepStrictEqual(Object.keys(parsed).sort(), ["code", "data", "msg", "requestTime"])
  assert.strictEqual(parsed.code, code)
  assert.strictEqual(typeOf(parsed.msg), "string")
  assert.strictEqual(typeOf(parsed.requestTime), "integer")
}

const digits = (value: Json, what: string, length?: number) => {
  assert.strictEqual(typeof value, "string", `${what} is a string`)
  assert.match(value as string, length === undefined ? /^\d+$/ : new RegExp(`^\\d{${length}}$`), `${what} digits`)
}

const decimals = (record: { readonly [key: string]: Json }, fields: ReadonlyArray<string>) => {
  for (const field of fields) {
    assert.strictEqual(typeof record[field], "string", `${field} is a decimal string`)
    assert.match(record[field] as string, DECIMAL, `${field}`)
  }
}

const orderDecimals = [
  "price",
  "quantity",
  "latestFillPrice",
  "maxFillPrice",
  "minFillPrice",
  "fillQuantity",
  "fillTotalAmount"
]
const fillFields = ["latestFillPrice", "maxFillPrice", "minFillPrice", "fillQuantity", "fillTotalAmount"]

/** Order records (docs/venue/trading.md#order-record) of any status: ids and times as digit strings, decimals as strings. */
const orderRecords = (text: string, records: ReadonlyArray<{ readonly [key: string]: Json }>) => {
  for (const order of records) {
    // Order records carry ids as strings (docs/venue/README.md#exact-ids), exact in the text.
    digits(order.orderId!, "orderId")
    assert.isTrue(BigInt(order.orderId as string) > TWO_53)
    assert.match(text, new RegExp(`"orderId"\\s*:\\s*"${order.orderId}"`), "orderId is a JSON string")
    digits(order.accountId!, "accountId")
    digits(order.cTime!, "cTime", 13)
    digits(order.uTime!, "uTime", 13)
    decimals(order, orderDecimals)
    // Before any fill, every fill field is exactly the string "0".
    if (order.fillQuantity === "0") { for (const field of fillFields) assert.strictEqual(order[field], "0", field) }
  }
}

/** A page of history or fills (docs/venue/trading.md#order-history): `nextPage` a boolean, `totals` an integer (0 in the samples). */
const historyPage = (data: { readonly [key: string]: Json }) => {
  assert.strictEqual(typeof data.nextPage, "boolean")
  assert.strictEqual(typeOf(data.totals), "integer")
}

/** A ticker object (docs/venue/market-data.md#ticker): decimals as strings, counts and times as integers. */
const tickerRules = (ticker: { readonly [key: string]: Json }) => {
  assert.match(ticker.symbol as string, /^[A-Z0-9]+_SPBL$/)
  decimals(ticker, [
    "priceChange",
    "priceChangePercent",
    "size",
    "value",
    "high",
    "low",
    "open",
    "close",
    "lastPrice",
    "openInterest"
  ])
  for (const field of ["trades", "highTime", "lowTime", "startTime", "endTime", "ts"]) {
    assert.strictEqual(typeOf(ticker[field]!), "integer", field)
  }
}

/** The spec's rules for each kind of answer, on the raw text. */
const wireRules: Record<FixtureName, (text: string) => void> = {
  "place-order": (text) => {
    const parsed = JSON.parse(text)
    standardEnvelope(parsed, "00000")
    assert.deepStrictEqual(Object.keys(parsed.data).sort(), ["clientOrderId", "orderId"])
    assert.strictEqual(bareOrderIds(text).length, 1)
  },
  "batch-orders": (text) => {
    const parsed = JSON.parse(text)
    standardEnvelope(parsed, "00000")
    assert.strictEqual(bareOrderIds(text).length, parsed.data.resultList.length)
    for (const failure of parsed.data.failure) digits(failure.errorCode, "errorCode", 5)
  },
  "open-orders": (text) => {
    const parsed = JSON.parse(text)
    standardEnvelope(parsed, "00000")
    assert.strictEqual(parsed.data.nextPage, null)
    assert.strictEqual(parsed.data.totals, null)
    orderRecords(text, parsed.data.orderInfoResultList)
  },
  "funding-bills": (text) => {
    const parsed = JSON.parse(text)
    standardEnvelope(parsed, "00000")
    for (const bill of parsed.data.items) {
      digits(bill.billId, "billId")
      assert.strictEqual(typeOf(bill.coinId), "integer")
      digits(bill.cTime, "cTime", 13)
      decimals(bill, ["deltaAmount", "afterAmount", "fees"])
    }
  },
  transfer: (text) => {
    const parsed = JSON.parse(text)
    // Not the standard envelope: no msg, no data.
    assert.deepStrictEqual(Object.keys(parsed).sort(), ["code", "id", "timestamp"])
    assert.strictEqual(parsed.code, "200")
    digits(parsed.id, "id")
    assert.match(text, /"timestamp"\s*:\s*\d{13}\s*[,}]/, "timestamp is a bare 13-digit integer")
  },
  error: (text) => {
    const parsed = JSON.parse(text)
    standardEnvelope(parsed, parsed.code)
    digits(parsed.code, "code", 5)
    assert.strictEqual(parsed.data, null)
  },
  "cancel-order": (text) => {
    const parsed = JSON.parse(text)
    standardEnvelope(parsed, "00000")
    // snake_case, as the venue answers this operation (docs/venue/trading.md#cancel-order).
    assert.deepStrictEqual(Object.keys(parsed.data).sort(), [
      "client_oid",
      "err_code",
      "err_msg",
      "order_id",
      "result",
      "symbol"
    ])
    digits(parsed.data.order_id, "order_id")
    assert.strictEqual(typeof parsed.data.result, "boolean")
  },
  "cancel-batch": (text) => {
    const parsed = JSON.parse(text)
    standardEnvelope(parsed, "00000")
    for (const id of parsed.data.successList) digits(id, "successList item")
    for (const failure of parsed.data.failureList) {
      digits(failure.orderId, "failure orderId")
      digits(failure.errCode, "errCode", 5)
      assert.strictEqual(typeof failure.errMsg, "string")
    }
  },
  "order-info": (text) => {
    const parsed = JSON.parse(text)
    standardEnvelope(parsed, "00000")
    assert.isTrue(Array.isArray(parsed.data), "data is an array")
    orderRecords(text, parsed.data)
    for (const order of parsed.data) {
      assert.include(["open", "partial_fill", "full_fill", "cancelled"], order.status)
    }
  },
  "order-history": (text) => {
    const parsed = JSON.parse(text)
    standardEnvelope(parsed, "00000")
    historyPage(parsed.data)
    orderRecords(text, parsed.data.orderInfoResultList)
  },
  fills: (text) => {
    const parsed = JSON.parse(text)
    standardEnvelope(parsed, "00000")
    historyPage(parsed.data)
    for (const fill of parsed.data.fillsOrderResultList) {
      digits(fill.orderId, "orderId")
      digits(fill.fillId, "fillId")
      digits(fill.accountId, "accountId")
      digits(fill.cTime, "cTime", 13)
      decimals(fill, ["fillPrice", "fillQuantity", "fillTotalAmount", "fees"])
    }
  },
  assets: (text) => {
    const parsed = JSON.parse(text)
    standardEnvelope(parsed, "00000")
    for (const balance of parsed.data) {
      assert.strictEqual(typeOf(balance.coinId), "integer")
      decimals(balance, ["available", "frozen", "equity"])
    }
  },
  "exchange-info": (text) => {
    const parsed = JSON.parse(text)
    standardEnvelope(parsed, "00000")
    for (const rules of parsed.data) {
      decimals(rules, ["tickSize", "stepSize", "minTradeAmount", "maxTradeAmount", "takerFeeRate", "makerFeeRate"])
      assert.strictEqual(typeof rules.enableTrade, "boolean")
    }
  },
  products: (text) => {
    const parsed = JSON.parse(text)
    standardEnvelope(parsed, "00000")
    for (const symbol of parsed.data) assert.match(symbol, /^[A-Z0-9]+_SPBL$/)
  },
  "server-time": (text) => {
    const parsed = JSON.parse(text)
    standardEnvelope(parsed, "00000")
    assert.match(text, /"data"\s*:\s*\d{13}\s*}/, "the time is a bare 13-digit integer")
  },
  ticker: (text) => {
    const parsed = JSON.parse(text)
    standardEnvelope(parsed, "00000")
    tickerRules(parsed.data)
  },
  tickers: (text) => {
    const parsed = JSON.parse(text)
    standardEnvelope(parsed, "00000")
    assert.isTrue(Array.isArray(parsed.data) && parsed.data.length > 0, "data is a non-empty array")
    for (const ticker of parsed.data) tickerRules(ticker)
  },
  depth: (text) => {
    const parsed = JSON.parse(text)
    standardEnvelope(parsed, "00000")
    // Levels as [price, quantity] pairs of decimal strings; the time as a string of digits; no update id.
    for (const side of ["asks", "bids"]) {
      for (const level of parsed.data[side]) {
        assert.strictEqual(level.length, 2)
        for (const value of level) assert.match(value, DECIMAL)
      }
    }
    digits(parsed.data.timestamp, "timestamp", 13)
    assert.deepStrictEqual(Object.keys(parsed.data).sort(), ["asks", "bids", "timestamp"])
  },
  candles: (text) => {
    const parsed = JSON.parse(text)
    standardEnvelope(parsed, "00000")
    // [openTime, open, high, low, close, baseVolume, quoteVolume], newest first.
    const openTimes: Array<number> = []
    for (const candle of parsed.data) {
      assert.strictEqual(candle.length, 7)
      assert.strictEqual(typeOf(candle[0]), "integer")
      for (const value of candle.slice(1)) assert.match(value, DECIMAL)
      openTimes.push(candle[0])
    }
    assert.deepStrictEqual(openTimes, openTimes.slice().sort((a, b) => b - a), "newest first")
  },
  "recent-trades": (text) => {
    const parsed = JSON.parse(text)
    standardEnvelope(parsed, "00000")
    for (const trade of parsed.data) {
      assert.strictEqual(typeof trade.tradeId, "string")
      assert.strictEqual(typeOf(trade.fillTime), "integer")
      decimals(trade, ["fillPrice", "fillQuantity", "tradeValue"])
      assert.strictEqual(typeof trade.bestMatch, "boolean")
      assert.strictEqual(typeof trade.buyerMaker, "boolean")
    }
  },
  "transfer-status": (text) => {
    const parsed = JSON.parse(text)
    // The transfer's envelope: no msg, no data.
    assert.deepStrictEqual(Object.keys(parsed).sort(), ["code", "list", "timestamp", "total"])
    assert.strictEqual(parsed.code, "200")
    assert.strictEqual(typeOf(parsed.total), "integer")
    const ids = [...text.matchAll(/"(?:from|to)UserId"\s*:\s*([^,}\s]+)/g)].map((m) => m[1]!)
    assert.strictEqual(ids.length, 2 * parsed.list.length)
    for (const id of ids) {
      assert.match(id, /^\d{16,20}$/, `user id ${id} is a bare integer literal`)
      assert.isTrue(BigInt(id) > TWO_53, `user id ${id} lies above 2^53`)
    }
    for (const item of parsed.list) {
      digits(item.withdrawId, "withdrawId")
      decimals(item, ["amount"])
      assert.strictEqual(typeOf(item.createTime), "integer")
    }
  }
}

const fixtureNames: ReadonlyArray<FixtureName> = [
  "place-order",
  "batch-orders",
  "open-orders",
  "funding-bills",
  "transfer",
  "error",
  "cancel-order",
  "cancel-batch",
  "order-info",
  "order-history",
  "fills",
  "assets",
  "exchange-info",
  "products",
  "server-time",
  "transfer-status",
  "ticker",
  "tickers",
  "depth",
  "candles",
  "recent-trades"
]

describe("golden fixtures", () => {
  for (const name of fixtureNames) {
    it(`${name}.json follows the spec's wire rules`, () => wireRules[name](fixture(name)))
  }

  it("place-order.json holds an id that JSON.parse would round", () => {
    const text = fixture("place-order")
    assert.include(text, "602876318261969338")
    assert.notStrictEqual(String(JSON.parse(text).data.orderId), "602876318261969338")
  })
})

// ---------------------------------------------------------------------------------------------------------------
// (a) The client decodes each fixture exactly

// The client's own public requests (the server-time sync before its first signed request, the symbol rules it loads
// before checking an order) are answered from their fixtures unless a test routes them itself, and are not recorded.
const publicRoutes: Record<string, { readonly name: FixtureName; readonly status?: number }> = {
  [Venue.endpoints.serverTime.path]: { name: "server-time" },
  [Venue.endpoints.exchangeInfo.path]: { name: "exchange-info" }
}

const goldenClient = (routes: Record<string, { readonly name: FixtureName; readonly status?: number }>) => {
  const paths: Array<string> = []
  const http = HttpClient.make((request, url) =>
    Effect.sync(() => {
      if (routes[url.pathname] !== undefined || publicRoutes[url.pathname] === undefined) paths.push(url.pathname)
      const route = routes[url.pathname] ?? publicRoutes[url.pathname]
      if (route === undefined) throw new Error(`no fixture for ${url.pathname}`)
      return HttpClientResponse.fromWeb(
        request,
        new Response(fixture(route.name), {
          status: route.status ?? 200,
          headers: { "content-type": "application/json" }
        })
      )
    })
  )
  return Effect.map(
    SpotClient.make({
      baseUrl: "http://golden.test",
      credentials: {
        apiKey: Redacted.make("golden-key"),
        secretKey: Redacted.make("golden-secret"),
        passphrase: Redacted.make("golden-pass")
      },
      rateLimit: false,
      retry: false
    }).pipe(Effect.provideService(HttpClient.HttpClient, http)),
    (client) => ({ client, paths })
  )
}

const p = {
  placeOrder: Venue.endpoints.placeOrder.path,
  placeOrders: Venue.endpoints.placeOrders.path,
  openOrders: Venue.endpoints.openOrders.path,
  fundingBills: Venue.endpoints.fundingBills.path,
  internalTransfer: Venue.endpoints.internalTransfer.path
}

describe("(a) the client decodes the fixtures exactly", () => {
  it.effect("place order: the 64-bit orderId survives digit for digit", () =>
    Effect.gen(function*() {
      const { client, paths } = yield* goldenClient({ [p.placeOrder]: { name: "place-order" } })
      const placed = yield* client.placeOrder({
        symbol: "BTCUSDT_SPBL",
        side: "buy",
        orderType: "limit",
        force: "normal",
        price: "29000.00",
        quantity: "0.01",
        clientOrderId: "golden-1"
      })
      assert.deepStrictEqual(placed, { orderId: "602876318261969338", clientOrderId: "golden-1" })
      assert.deepStrictEqual(paths, [p.placeOrder])
    }))

  it.effect("batch: resultList and failure map onto the items by clientOrderId", () =>
    Effect.gen(function*() {
      const { client } = yield* goldenClient({ [p.placeOrders]: { name: "batch-orders" } })
      const item = (clientOrderId: string) => ({
        side: "buy" as const,
        orderType: "limit" as const,
        price: "29000",
        quantity: "0.01",
        clientOrderId
      })
      const result = yield* client.placeOrders("BTCUSDT_SPBL", [
        item("golden-b1"),
        item("golden-b2"),
        item("golden-b3")
      ])
      assert.deepStrictEqual<unknown>(result, {
        outcomes: [
          { _tag: "Placed", index: 0, clientOrderId: "golden-b1", orderId: "602876318261969339" },
          { _tag: "Placed", index: 1, clientOrderId: "golden-b2", orderId: "9007199254740993" },
          {
            _tag: "Failed",
            index: 2,
            clientOrderId: "golden-b3",
            code: "43012",
            message: "Insufficient balance",
            mayExist: false
          }
        ],
        placed: 2,
        failed: 1
      })
    }))

  it.effect("open orders: every field, ids and decimals as sent, \"0\" before fills, nextPage/totals null", () =>
    Effect.gen(function*() {
      const { client } = yield* goldenClient({ [p.openOrders]: { name: "open-orders" } })
      const page = yield* client.openOrdersPage({ symbol: "BTCUSDT_SPBL", limit: 10, pageNo: 0 })
      assert.deepStrictEqual<unknown>(page, {
        orderInfoResultList: [
          {
            accountId: "6001000000000000001",
            symbol: "BTCUSDT_SPBL",
            orderId: "602876318261969340",
            clientOrderId: "golden-pf",
            price: "30010.00",
            quantity: "1.500000",
            orderType: "limit",
            side: "buy",
            status: "open",
            latestFillPrice: "30010.00",
            maxFillPrice: "30010.00",
            minFillPrice: "30005.00",
            fillQuantity: "1.000000",
            fillTotalAmount: "30007.5",
            cTime: 1695808940001,
            uTime: 1695808940001
          },
          {
            accountId: "6001000000000000001",
            symbol: "BTCUSDT_SPBL",
            orderId: "602876318261969338",
            clientOrderId: "golden-1",
            price: "29000.00",
            quantity: "0.010000",
            orderType: "limit",
            side: "buy",
            status: "open",
            latestFillPrice: "0",
            maxFillPrice: "0",
            minFillPrice: "0",
            fillQuantity: "0",
            fillTotalAmount: "0",
            cTime: 1695806875837,
            uTime: 1695806875837
          }
        ],
        nextPage: null,
        totals: null
      })
      // Two records on a page of 10: the stream stops after this one page.
      const streamed = yield* Stream.runCollect(client.openOrders({ symbol: "BTCUSDT_SPBL", pageSize: 10 }))
      assert.deepStrictEqual(streamed.map((o) => o.orderId), ["602876318261969340", "602876318261969338"])
    }))

  it.effect("funding bills: a page with total, page, pageSize, hasNextPage and every bill field", () =>
    Effect.gen(function*() {
      const { client } = yield* goldenClient({ [p.fundingBills]: { name: "funding-bills" } })
      const page = yield* client.fundingBillsPage({ pageSize: 2 })
      assert.deepStrictEqual<unknown>(page, {
        total: 3,
        page: 1,
        pageSize: 2,
        hasNextPage: true,
        items: [
          {
            billId: "2001000000000000004",
            coinId: 2,
            coinName: "USDT",
            bizType: "transfer_out",
            deltaAmount: "-12.5",
            afterAmount: "49987.5",
            fees: "0",
            cTime: 1695806875837
          },
          {
            billId: "2001000000000000002",
            coinId: 1,
            coinName: "BTC",
            bizType: "deposit",
            deltaAmount: "2",
            afterAmount: "2",
            fees: "0",
            cTime: 1695806870000
          }
        ]
      })
    }))

  it.effect("transfer: the {code: \"200\", id, timestamp} envelope", () =>
    Effect.gen(function*() {
      const { client } = yield* goldenClient({ [p.internalTransfer]: { name: "transfer" } })
      const done = yield* client.internalTransfer({
        toUserId: "4001000000000000002",
        coin: "USDT",
        amount: "12.5",
        fromAccountType: "FUND",
        toAccountType: "SPOT"
      })
      assert.deepStrictEqual(done, { id: "3001000000000000001", timestamp: 1695806875837 })
    }))

  it.effect("error envelope: HTTP 400 with code 43012 is an InsufficientBalanceError with the venue's fields", () =>
    Effect.gen(function*() {
      const { client, paths } = yield* goldenClient({ [p.placeOrder]: { name: "error", status: 400 } })
      const error: SpotError.SpotError = yield* Effect.flip(client.placeOrder({
        symbol: "BTCUSDT_SPBL",
        side: "buy",
        orderType: "limit",
        price: "29000",
        quantity: "1000",
        clientOrderId: "golden-err"
      }))
      assert.strictEqual(error.reason._tag, "InsufficientBalanceError")
      if (error.reason._tag === "InsufficientBalanceError") {
        assert.deepStrictEqual(
          {
            code: error.reason.code,
            msg: error.reason.msg,
            requestTime: error.reason.requestTime,
            httpStatus: error.reason.httpStatus
          },
          { code: "43012", msg: "Insufficient balance", requestTime: 1695806875837, httpStatus: 400 }
        )
      }
      assert.strictEqual(error.operation, "SpotClient.placeOrder")
      assert.deepStrictEqual(paths, [p.placeOrder], "not retried")
    }))

  it.effect("cancel order: the snake_case answer becomes a Cancelled outcome with the exact orderId", () =>
    Effect.gen(function*() {
      const { client, paths } = yield* goldenClient({ [Venue.endpoints.cancelOrder.path]: { name: "cancel-order" } })
      const outcome = yield* client.cancelOrder({ symbol: "WXTUSDT_SPBL", orderId: "602882076026339770" })
      assert.deepStrictEqual<unknown>(outcome, { _tag: "Cancelled", orderId: "602882076026339770" })
      assert.deepStrictEqual(paths, [Venue.endpoints.cancelOrder.path])
    }))

  it.effect("batch cancel: successList and failureList map onto the ids in input order", () =>
    Effect.gen(function*() {
      const { client } = yield* goldenClient({ [Venue.endpoints.cancelOrders.path]: { name: "cancel-batch" } })
      const result = yield* client.cancelOrders("BTCUSDT_SPBL", [
        { orderId: "602914146790408634" },
        { orderId: "602926152964637114" }
      ])
      assert.deepStrictEqual<unknown>(result, GOLDEN_CANCEL_BATCH)
    }))

  it.effect("order info: an array of one record, with its status as sent", () =>
    Effect.gen(function*() {
      const { client } = yield* goldenClient({ [Venue.endpoints.order.path]: { name: "order-info" } })
      const found = yield* client.order({ clientOrderId: "golden-pf" })
      assert.isTrue(Option.isSome(found))
      const record = Option.getOrThrow(found)
      assert.deepStrictEqual<unknown>(record, { ...GOLDEN_RECORD, status: "partial_fill" })
      assert.isFalse(Order.isFinal(record.status))
    }))

  it.effect("order history: a page of records of any status; totals 0 kept as sent, never trusted", () =>
    Effect.gen(function*() {
      const { client } = yield* goldenClient({ [Venue.endpoints.orderHistory.path]: { name: "order-history" } })
      const page = yield* client.orderHistoryPage({ symbol: "BTCUSDT_SPBL", pageSize: 2 })
      assert.deepStrictEqual(
        page.orderInfoResultList?.map((o) => [o.orderId, o.clientOrderId, o.status, Order.isFinal(o.status)]),
        [["602876318261969341", "golden-x", "cancelled", true], ["602876318261969340", "golden-pf", "full_fill", true]]
      )
      assert.deepStrictEqual<unknown>(page.orderInfoResultList?.[1], {
        ...GOLDEN_RECORD,
        status: "full_fill",
        fillQuantity: "1.500000",
        fillTotalAmount: "45012.5",
        uTime: 1695808940500
      })
    }))

  it.effect("fills: a page of one fill, every field exact", () =>
    Effect.gen(function*() {
      const { client } = yield* goldenClient({ [Venue.endpoints.fills.path]: { name: "fills" } })
      const page = yield* client.fillsPage({ symbol: "BTCUSDT_SPBL" })
      assert.deepStrictEqual<unknown>(page.fillsOrderResultList, [
        {
          accountId: "6001000000000000001",
          symbol: "BTCUSDT_SPBL",
          baseCoin: "BTC",
          quoteCoin: "USDT",
          orderId: "602876318261969340",
          fillId: "602876318261970001",
          orderType: "limit",
          side: "buy",
          fillPrice: "30010.00",
          fillQuantity: "0.500000",
          fillTotalAmount: "15005",
          fees: "0.0005",
          cTime: 1695808940001
        }
      ])
    }))

  it.effect("assets: balances as exact decimals", () =>
    Effect.gen(function*() {
      const { client } = yield* goldenClient({ [Venue.endpoints.balances.path]: { name: "assets" } })
      assert.deepStrictEqual<unknown>(yield* client.balances(), [
        { coinId: 1, coinName: "BTC", available: "0.0040000000000000", frozen: "0", equity: "0.0040000000000000" }
      ])
    }))

  it.effect("exchange info and server time: the rules of the sample, the time as a number", () =>
    Effect.gen(function*() {
      const { client } = yield* goldenClient({})
      const rules = Option.getOrThrow(yield* client.symbol("BTCUSDT_SPBL"))
      assert.deepStrictEqual(
        [rules.tickSize, rules.stepSize, rules.minTradeAmount, rules.maxTradeAmount, rules.enableTrade],
        ["0.1", "0.00000001", "0.00001", "99999", true]
      )
      assert.deepStrictEqual([rules.takerFeeRate, rules.makerFeeRate], ["0.001", "0"])
      assert.isTrue(Option.isNone(yield* client.symbol("ETHUSDT_SPBL")))
      assert.strictEqual(yield* client.serverTime(), 1695808949356)
    }))

  it.effect("transfer status: user ids above 2^53 exact; the list is read, total (2 for 1) is not", () =>
    Effect.gen(function*() {
      const { client } = yield* goldenClient({
        [Venue.endpoints.transferStatus.path]: { name: "transfer-status" }
      })
      assert.deepStrictEqual<unknown>(yield* client.transferStatus({ coin: "USDT" }), [
        {
          fromUserId: "4001000000000000001",
          toUserId: "4001000000000000002",
          withdrawId: "3001000000000000001",
          coin: "USDT",
          status: "SUCCESS",
          amount: "12.5",
          createTime: 1695806875837,
          updateTime: 1695806875837
        }
      ])
    }))
})

describe("(a) the client decodes the market-data fixtures exactly", () => {
  const m = {
    ticker: Venue.endpoints.ticker.path,
    tickers: Venue.endpoints.tickers.path,
    depth: Venue.endpoints.depth.path,
    candles: Venue.endpoints.candles.path,
    recentTrades: Venue.endpoints.recentTrades.path
  }

  it.effect("ticker and tickers: every field, decimals as sent", () =>
    Effect.gen(function*() {
      const { client, paths } = yield* goldenClient({
        [m.ticker]: { name: "ticker" },
        [m.tickers]: { name: "tickers" }
      })
      const ticker = yield* client.ticker("BTCUSDT_SPBL")
      assert.deepStrictEqual<unknown>(ticker, {
        symbol: "BTCUSDT_SPBL",
        lastPrice: "83354.0",
        priceChange: "-965.6",
        priceChangePercent: "-0.011451",
        trades: 105901,
        size: "78570.57284800",
        value: "6731333236.9492884000",
        high: "88495.5",
        low: "82175.9",
        open: "84319.6",
        close: "83354.0",
        highTime: 1743625002550,
        lowTime: 1743638655112,
        startTime: 1743576300000,
        endTime: 1743665400000,
        openInterest: "0",
        ts: 1750060557824
      })
      const all = yield* client.tickers()
      assert.deepStrictEqual(all.map((t) => [t.symbol, t.lastPrice, t.value]), [
        ["BTCUSDT_SPBL", "83354.0", "6731333236.9492884000"],
        ["ETHUSDT_SPBL", "2012.50", "1003.125"]
      ])
      assert.deepStrictEqual(paths, [m.ticker, m.tickers])
    }))

  it.effect("depth: bids highest first, asks lowest first, sizes with their trailing zeros", () =>
    Effect.gen(function*() {
      const { client } = yield* goldenClient({ [m.depth]: { name: "depth" } })
      assert.deepStrictEqual<unknown>(yield* client.orderBook("BTCUSDT_SPBL"), {
        bids: [{ price: "83609.9", size: "1.2000" }, { price: "83609.1", size: "2" }],
        asks: [{ price: "83610.0", size: "0.4993000000000000" }, { price: "83610.5", size: "0.1" }],
        timestamp: 1622102974025
      })
    }))

  it.effect("candles: named fields, ascending by open time (the venue sends them newest first)", () =>
    Effect.gen(function*() {
      const { client } = yield* goldenClient({ [m.candles]: { name: "candles" } })
      assert.deepStrictEqual<unknown>(yield* client.candles("BTCUSDT_SPBL", "30m"), [
        {
          openTime: 1743667200000,
          open: "83457.9",
          high: "83719.0",
          low: "83457.9",
          close: "83654.0",
          baseVolume: "247.94000200",
          quoteVolume: "20730711.264144200"
        },
        {
          openTime: 1743669000000,
          open: "83654.0",
          high: "83778.0",
          low: "83531.5",
          close: "83688.7",
          baseVolume: "248.17024800",
          quoteVolume: "20755885.859164900"
        }
      ])
    }))

  it.effect("recent trades: the trade's fields under the client's names, the taker's side from buyerMaker", () =>
    Effect.gen(function*() {
      const { client } = yield* goldenClient({ [m.recentTrades]: { name: "recent-trades" } })
      assert.deepStrictEqual<unknown>(yield* client.recentTrades("BTCUSDT_SPBL"), [{
        symbol: "BTCUSDT_SPBL",
        tradeId: "778a5376-a0b6-4c8f-ab64-dd6ea40f896e",
        time: 1743668713364,
        price: "83609.7",
        size: "0.00011400",
        value: "9.531505800",
        buyerMaker: true,
        side: "sell"
      }])
    }))
})

/** order-info.json's record (its status aside), as the client decodes it. */
const GOLDEN_RECORD = {
  accountId: "6001000000000000001",
  symbol: "BTCUSDT_SPBL",
  orderId: "602876318261969340",
  clientOrderId: "golden-pf",
  price: "30010.00",
  quantity: "1.500000",
  orderType: "limit",
  side: "buy",
  latestFillPrice: "30010.00",
  maxFillPrice: "30010.00",
  minFillPrice: "30005.00",
  fillQuantity: "1.000000",
  fillTotalAmount: "30007.5",
  cTime: 1695808940001,
  uTime: 1695808940001
}

/** cancel-batch.json for the ids [not found, cancelled], in input order. */
const GOLDEN_CANCEL_BATCH = {
  outcomes: [
    {
      _tag: "NotOpen",
      index: 0,
      orderId: "602914146790408634",
      reason: "unknown",
      code: "43001",
      message: "FAILED_ORDER_NOT_FOUND"
    },
    { _tag: "Cancelled", index: 1, orderId: "602926152964637114" }
  ],
  cancelled: 1,
  notOpen: 1,
  failed: 0,
  complete: true
}

// ---------------------------------------------------------------------------------------------------------------
// (b) The sandbox answers in the same shapes

const alice = TestExchange.demoKeys.alice

/**
 * Signs a request per docs/venue/signing.md#signing with node:crypto and sends it (a GET's `path` with its query, no body); answers the
 * status and the raw text.
 */
const send = (baseUrl: string, path: string, body: string, method: "GET" | "POST" = "POST") =>
  Effect.flatMap(Clock.currentTimeMillis, (now) => {
    const timestamp = String(now)
    const sign = createHmac("sha256", alice.secretKey).update(timestamp + method + path + body).digest("base64")
    return Effect.promise(async () => {
      const response = await fetch(baseUrl + path, {
        method,
        headers: {
          "ACCESS-KEY": alice.apiKey,
          "ACCESS-SIGN": sign,
          "ACCESS-PASSPHRASE": alice.passphrase,
          "ACCESS-TIMESTAMP": timestamp,
          locale: "en-US",
          "Content-Type": "application/json"
        },
        ...(method === "GET" ? {} : { body })
      })
      return { status: response.status, text: await response.text() }
    })
  })

/** A public GET, unsigned. */
const sendPublic = (baseUrl: string, path: string) =>
  Effect.promise(async () => {
    const response = await fetch(baseUrl + path)
    return { status: response.status, text: await response.text() }
  })

const compare = (name: FixtureName, text: string) => {
  wireRules[name](text)
  assertSameShape(JSON.parse(fixture(name)), JSON.parse(text))
}

describe("(b) the sandbox answers in the shapes of the fixtures", () => {
  it.live("every operation, read as raw text", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* Sandbox.Sandbox
      const exchange = yield* TestExchange.TestExchange
      const aliceId = exchange.accounts[0]!.userId
      const bobId = exchange.accounts[1]!.userId
      const order = (clientOrderId: string, price: string, quantity: string) =>
        `{"symbol":"BTCUSDT_SPBL","side":"buy","orderType":"limit","force":"normal","price":"${price}",` +
        `"quantity":"${quantity}","clientOrderId":"${clientOrderId}"}`

      const placed = yield* send(baseUrl, p.placeOrder, order("golden-1", "29000.00", "0.01"))
      assert.strictEqual(placed.status, 200)
      compare("place-order", placed.text)
      const [literal] = bareOrderIds(placed.text)
      assert.strictEqual(literal, exchange.engine.orderByClientId(aliceId, "golden-1")?.orderId)

      // Takes 0.5 at 30,005 and 0.5 at 30,010 from bob's asks and rests the other 0.5: a partly filled open order.
      const partial = yield* send(baseUrl, p.placeOrder, order("golden-pf", "30010.00", "1.5"))
      compare("place-order", partial.text)

      const batch = yield* send(
        baseUrl,
        p.placeOrders,
        `{"symbol":"BTCUSDT_SPBL","orderList":[` +
          `{"side":"buy","orderType":"limit","force":"normal","price":"29001","quantity":"0.01","clientOrderId":"golden-b1"},` +
          `{"side":"buy","orderType":"limit","force":"normal","price":"29002","quantity":"0.01","clientOrderId":"golden-b2"},` +
          `{"side":"buy","orderType":"limit","force":"normal","price":"29003","quantity":"100","clientOrderId":"golden-b3"}]}`
      )
      assert.strictEqual(batch.status, 200)
      compare("batch-orders", batch.text)
      assert.deepStrictEqual(
        bareOrderIds(batch.text),
        ["golden-b1", "golden-b2"].map((cid) => exchange.engine.orderByClientId(aliceId, cid)?.orderId)
      )
      assert.deepStrictEqual(JSON.parse(batch.text).data.failure.map((f: { errorCode: string }) => f.errorCode), [
        "43012"
      ])

      const open = yield* send(baseUrl, p.openOrders, `{"symbol":"BTCUSDT_SPBL","limit":10,"pageNo":0}`)
      assert.strictEqual(open.status, 200)
      compare("open-orders", open.text)
      const records = JSON.parse(open.text).data.orderInfoResultList as ReadonlyArray<Record<string, string>>
      const byCid = new Map(records.map((r) => [r.clientOrderId, r]))
      // The unfilled order: every fill field is the string "0". The partly filled one shows its fills.
      for (const field of fillFields) assert.strictEqual(byCid.get("golden-1")?.[field], "0", field)
      const pf = byCid.get("golden-pf")!
      assert.deepStrictEqual(
        [pf.fillQuantity, pf.fillTotalAmount, pf.latestFillPrice, pf.maxFillPrice, pf.minFillPrice].map((d) =>
          d!.replace(/(\.\d*?)0+$/, "$1").replace(/\.$/, "")
        ),
        ["1", "30007.5", "30010", "30010", "30005"]
      )

      const transfer = yield* send(
        baseUrl,
        p.internalTransfer,
        `{"toUserId":${bobId},"coin":"USDT","amount":"12.5","fromAccountType":"FUND","toAccountType":"SPOT"}`
      )
      assert.strictEqual(transfer.status, 200)
      compare("transfer", transfer.text)

      // Alice's funding bills: the transfer and her two deposits; a page of 2 has a next page.
      const bills = yield* send(baseUrl, p.fundingBills, `{"pageSize":2}`)
      assert.strictEqual(bills.status, 200)
      compare("funding-bills", bills.text)
      const billPage = JSON.parse(bills.text).data
      assert.deepStrictEqual([billPage.total, billPage.page, billPage.pageSize, billPage.hasNextPage], [3, 1, 2, true])
      assert.deepStrictEqual(
        billPage.items.map((b: Record<string, string>) => [b.bizType, b.deltaAmount, b.afterAmount]),
        [["transfer_out", "-12.5", "49987.5"], ["deposit", "2", "2"]]
      )

      const refused = yield* send(baseUrl, p.placeOrder, order("golden-err", "29000", "1000"))
      assert.strictEqual(refused.status, 400)
      compare("error", refused.text)
      assert.strictEqual(JSON.parse(refused.text).code, "43012")
    }).pipe(
      Effect.provide(
        Sandbox.layer().pipe(
          Layer.provideMerge(TestExchange.layer({ ...TestExchange.demo({ bills: 0 }), rateLimits: false }))
        )
      )
    ))
})

const q = {
  cancelOrder: Venue.endpoints.cancelOrder.path,
  cancelOrders: Venue.endpoints.cancelOrders.path,
  order: Venue.endpoints.order.path,
  orderHistory: Venue.endpoints.orderHistory.path,
  fills: Venue.endpoints.fills.path,
  balances: Venue.endpoints.balances.path,
  exchangeInfo: Venue.endpoints.exchangeInfo.path,
  productList: Venue.endpoints.productList.path,
  serverTime: Venue.endpoints.serverTime.path,
  transferStatus: Venue.endpoints.transferStatus.path
}

describe("(b) the sandbox answers the trading surface in the shapes of the fixtures", () => {
  it.live("every operation of the rest of the trading surface, read as raw text", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* Sandbox.Sandbox
      const exchange = yield* TestExchange.TestExchange
      const aliceId = exchange.accounts[0]!.userId
      const bobId = exchange.accounts[1]!.userId
      const order = (clientOrderId: string, price: string, quantity: string) =>
        `{"symbol":"BTCUSDT_SPBL","side":"buy","orderType":"limit","force":"normal","price":"${price}",` +
        `"quantity":"${quantity}","clientOrderId":"${clientOrderId}"}`
      const idOf = (cid: string) => exchange.engine.orderByClientId(aliceId, cid)!.orderId
      const ok = (answer: { readonly status: number; readonly text: string }, name: FixtureName) => {
        assert.strictEqual(answer.status, 200, answer.text)
        compare(name, answer.text)
        return JSON.parse(answer.text)
      }
      for (
        const [cid, price, quantity] of [["golden-1", "29000.00", "0.01"], ["golden-x", "29001.00", "0.01"], [
          "golden-pf",
          "30010.00",
          "1.5"
        ]] as const
      ) {
        assert.strictEqual((yield* send(baseUrl, p.placeOrder, order(cid, price, quantity))).status, 200)
      }

      const cancelled = ok(
        yield* send(baseUrl, q.cancelOrder, `{"symbol":"BTCUSDT_SPBL","orderId":"${idOf("golden-x")}"}`),
        "cancel-order"
      )
      assert.deepStrictEqual([cancelled.data.result, cancelled.data.client_oid], [true, null])
      const batch = ok(
        yield* send(
          baseUrl,
          q.cancelOrders,
          `{"symbol":"BTCUSDT_SPBL","orderIds":["${idOf("golden-1")}","${idOf("golden-x")}"]}`
        ),
        "cancel-batch"
      )
      assert.deepStrictEqual(batch.data.successList, [idOf("golden-1")])
      assert.deepStrictEqual(batch.data.failureList[0].errCode, "43004")

      const info = ok(yield* send(baseUrl, q.order, `{"clientOrderId":"golden-pf"}`), "order-info")
      assert.strictEqual(info.data[0].status, "partial_fill")
      const history = ok(
        yield* send(baseUrl, q.orderHistory, `{"symbol":"BTCUSDT_SPBL","pageSize":2}`),
        "order-history"
      )
      assert.deepStrictEqual(
        [
          history.data.orderInfoResultList.map((o: { clientOrderId: string }) => o.clientOrderId),
          history.data.nextPage
        ],
        [["golden-pf", "golden-x"], true]
      )
      const fills = ok(yield* send(baseUrl, q.fills, `{"symbol":"BTCUSDT_SPBL"}`), "fills")
      assert.strictEqual(fills.data.fillsOrderResultList.length, 2)

      ok(yield* send(baseUrl, q.balances, "", "GET"), "assets")
      ok(yield* sendPublic(baseUrl, `${q.exchangeInfo}?symbol=BTCUSDT_SPBL`), "exchange-info")
      ok(yield* sendPublic(baseUrl, q.productList), "products")
      ok(yield* sendPublic(baseUrl, q.serverTime), "server-time")

      const transfer = yield* send(
        baseUrl,
        p.internalTransfer,
        `{"toUserId":${bobId},"coin":"USDT","amount":"12.5","fromAccountType":"FUND","toAccountType":"SPOT"}`
      )
      compare("transfer", transfer.text)
      const status = ok(yield* send(baseUrl, `${q.transferStatus}?coin=USDT&pageSize=10`, "", "GET"), "transfer-status")
      assert.deepStrictEqual(
        [status.total, status.list[0].withdrawId, status.list[0].amount],
        [1, JSON.parse(transfer.text).id, "12.5"]
      )
    }).pipe(
      Effect.provide(
        Sandbox.layer().pipe(
          Layer.provideMerge(TestExchange.layer({ ...TestExchange.demo({ bills: 0 }), rateLimits: false }))
        )
      )
    ))
})

describe("(b) the sandbox answers market data in the shapes of the fixtures", () => {
  it.live("ticker, tickers, depth, candles and recent trades after a trade on each symbol, read as raw text", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* Sandbox.Sandbox
      const order = (symbol: string, clientOrderId: string, price: string, quantity: string) =>
        `{"symbol":"${symbol}","side":"buy","orderType":"limit","force":"normal","price":"${price}",` +
        `"quantity":"${quantity}","clientOrderId":"${clientOrderId}"}`
      // Crosses bob's best ask on each symbol (and rests the rest of the ETH order).
      assert.strictEqual(
        (yield* send(baseUrl, p.placeOrder, order("BTCUSDT_SPBL", "gm-1", "30005", "0.1"))).status,
        200
      )
      assert.strictEqual((yield* send(baseUrl, p.placeOrder, order("ETHUSDT_SPBL", "gm-2", "2000.5", "6"))).status, 200)
      const ok = (answer: { readonly status: number; readonly text: string }, name: FixtureName) => {
        assert.strictEqual(answer.status, 200, answer.text)
        // A candle is a tuple, not a list of one type: its shape is the wire rules' (seven elements, typed each).
        if (name === "candles") wireRules[name](answer.text)
        else compare(name, answer.text)
        return JSON.parse(answer.text).data
      }
      const ticker = ok(yield* sendPublic(baseUrl, `${Venue.endpoints.ticker.path}?symbol=BTCUSDT_SPBL`), "ticker")
      assert.deepStrictEqual([ticker.lastPrice, ticker.trades, ticker.size], ["30005.00", 1, "0.100000"])
      const tickers = ok(yield* sendPublic(baseUrl, Venue.endpoints.tickers.path), "tickers")
      assert.deepStrictEqual(tickers.map((t: { lastPrice: string }) => t.lastPrice), ["30005.00", "2000.50"])
      const depth = ok(yield* sendPublic(baseUrl, `${Venue.endpoints.depth.path}?symbol=ETHUSDT_SPBL`), "depth")
      assert.deepStrictEqual([depth.bids[0], depth.asks[0]], [["2000.50", "1.0000"], ["2001.00", "5.0000"]])
      const candles = ok(
        yield* sendPublic(baseUrl, `${Venue.endpoints.candles.path}?symbol=BTCUSDT_SPBL&period=1m`),
        "candles"
      )
      assert.deepStrictEqual(candles[0].slice(1), [
        "30005.00",
        "30005.00",
        "30005.00",
        "30005.00",
        "0.100000",
        "3000.50000000"
      ])
      const trades = ok(
        yield* sendPublic(baseUrl, `${Venue.endpoints.recentTrades.path}?symbol=ETHUSDT_SPBL&limit=5`),
        "recent-trades"
      )
      assert.deepStrictEqual(trades.map((t: { fillQuantity: string }) => t.fillQuantity), ["5.0000"])
    }).pipe(
      Effect.provide(
        Sandbox.layer().pipe(
          Layer.provideMerge(TestExchange.layer({ ...TestExchange.demo({ bills: 0 }), rateLimits: false }))
        )
      )
    ))
})
