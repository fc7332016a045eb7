/**
 * The handlers of the trading surface (docs/venue/trading.md, account.md, market-data.md) over signed raw requests, read as raw text: the shapes
 * and codes of the answers, the venue's names on the wire (`clientOid`, snake_case, `withdrawID`), GET parameters
 * from a query string signed byte for byte, and the engine state each answer reports. The demo exchange
 * (`TestExchange.demo`): alice holds SPOT 1,000,000 USDT, 10 BTC, 100 ETH and FUND 50,000 USDT, 2 BTC; bob rests
 * 0.5 BTC on every 5.00 step from 30,005 up (asks) and 29,995 down (bids) on BTCUSDT_SPBL (price 2 decimals,
 * quantity 6); fees 0.001.
 */
import { assert, describe, it } from "@effect/vitest"
import { Json, Venue } from "@spotkit/core"
import { Effect } from "effect"
import { TestExchange } from "../src/index.ts"
import { handlers } from "../src/internal/protocol/handlers.ts"
import { bodyOf, type Key, signed, signedGet, statusOf, unsigned } from "./support/signed.ts"

const { alice, bob } = TestExchange.demoKeys
const E = Venue.endpoints
const BTC = "BTCUSDT_SPBL"
const NOW = 1_700_000_000_000

/** An answer: its status, its text, and the text parsed losslessly (64-bit numbers as their digits), read loosely. */
type Answer = {
  readonly status: number | undefined
  readonly text: string
  readonly json: ReturnType<typeof JSON.parse>
}

const setup = Effect.gen(function*() {
  const exchange = yield* TestExchange.make({ ...TestExchange.demo({ bills: 0 }), rateLimits: false })
  const answer = (request: TestExchange.WireRequest, now = NOW): Answer => {
    const outcome = exchange.handleAt(request, now)
    const text = bodyOf(outcome)
    return { status: statusOf(outcome), text, json: Json.parse(text) as ReturnType<typeof JSON.parse> }
  }
  // Each request signed a millisecond before the last, as a client signs every request afresh: the venue refuses an
  // exact replay (same key, timestamp and signature) of one that changes state (40409).
  let signedAt = 0
  const post = (path: string, body: unknown, key: Key = alice, now = NOW) =>
    answer(signed(key, path, typeof body === "string" ? body : JSON.stringify(body), now - signedAt++), now)
  const get = (pathAndQuery: string, key: Key = alice, now = NOW) => answer(signedGet(key, pathAndQuery, now), now)
  const place = (clientOrderId: string, price: string, quantity: string, side = "buy", key: Key = alice) => {
    const placed = post(E.placeOrder.path, {
      symbol: BTC,
      side,
      orderType: "limit",
      force: "normal",
      price,
      quantity,
      clientOrderId
    }, key)
    assert.strictEqual(placed.json.code, "00000", placed.text)
    return String(placed.json.data.orderId)
  }
  return {
    exchange,
    aliceId: exchange.accounts[0]!.userId,
    bobId: exchange.accounts[1]!.userId,
    answer,
    post,
    get,
    place
  }
})

/** A refusal in the standard envelope: the code's HTTP status, its message (naming `parameter`), `data` null. */
const refusedWith = (answer: Answer, code: string, parameter?: string) => {
  assert.strictEqual(answer.status, Venue.codes.get(code)!.status, answer.text)
  assert.deepStrictEqual(
    [answer.json.code, answer.json.msg, answer.json.data],
    [code, Venue.message(code, parameter), null],
    answer.text
  )
}

const ok = (answer: Answer) => {
  assert.strictEqual(answer.status, 200, answer.text)
  assert.strictEqual(answer.json.code, "00000", answer.text)
  return answer.json.data
}

describe("handlers", () => {
  it("every declared endpoint has a handler: none answers 40404", () => {
    for (const name of Object.keys(E)) assert.isFunction(handlers[name as Venue.EndpointName], name)
  })
})

describe("cancel-order", () => {
  it.effect("cancels by orderId (client_oid null) or clientOid, releasing the frozen funds; snake_case answer", () =>
    Effect.gen(function*() {
      const { aliceId, exchange, place, post } = yield* setup
      const id = place("c-1", "29000", "0.1")
      place("c-2", "29001", "0.1")
      const frozen = () => exchange.engine.spotBalances(aliceId).find((b) => b.coinName === "USDT")!.frozen
      assert.strictEqual(frozen(), "5800.1")
      const byId = post(E.cancelOrder.path, { symbol: BTC, orderId: id })
      assert.strictEqual(
        byId.text.slice(byId.text.indexOf("\"data\":")),
        `"data":{"order_id":"${id}","client_oid":null,"symbol":"${BTC}","result":true,"err_code":null,"err_msg":null}}`
      )
      assert.strictEqual(frozen(), "2900.1")
      const byCid = ok(post(E.cancelOrder.path, { symbol: BTC, clientOid: "c-2" }))
      assert.deepStrictEqual([byCid.client_oid, byCid.result], ["c-2", true])
      assert.strictEqual(frozen(), "0")
      assert.strictEqual(exchange.engine.order(id)?.status, "cancelled")
    }))

  it.effect("an order not open is an answer: 43004 (final) or 43001 FAILED_ORDER_NOT_FOUND (unknown, not hers)", () =>
    Effect.gen(function*() {
      const { place, post } = yield* setup
      const id = place("f-1", "29000", "0.1")
      ok(post(E.cancelOrder.path, { symbol: BTC, orderId: id }))
      assert.deepStrictEqual(ok(post(E.cancelOrder.path, { symbol: BTC, orderId: id })), {
        order_id: id,
        client_oid: null,
        symbol: BTC,
        result: false,
        err_code: "43004",
        err_msg: "There is no order to cancel"
      })
      const bobs = place("bob-1", "29001", "0.1", "buy", bob)
      for (const body of [{ symbol: BTC, orderId: bobs }, { symbol: BTC, clientOid: "bob-1" }]) {
        const answer = ok(post(E.cancelOrder.path, body))
        assert.deepStrictEqual(
          [answer.order_id, answer.client_oid, answer.result, answer.err_code, answer.err_msg],
          [body.orderId ?? null, body.clientOid ?? null, false, "43001", "FAILED_ORDER_NOT_FOUND"]
        )
      }
      // A JSON number names the order as its digits do.
      const numeric = post(E.cancelOrder.path, `{"symbol":"${BTC}","orderId":1001000000000000999}`)
      assert.deepStrictEqual([ok(numeric).order_id, ok(numeric).err_code], ["1001000000000000999", "43001"])
    }))

  it.effect("refuses: neither or both ids 40913, a clientOid not of the venue's form 40020, no symbol 40019, unknown 40102", () =>
    Effect.gen(function*() {
      const { post } = yield* setup
      refusedWith(post(E.cancelOrder.path, { symbol: BTC }), "40913")
      refusedWith(post(E.cancelOrder.path, { symbol: BTC, orderId: "1", clientOid: "x" }), "40913")
      for (const clientOid of ["a".repeat(41), "has space", "dot.ted", "ünï"]) {
        const refused = post(E.cancelOrder.path, { symbol: BTC, clientOid })
        assert.deepStrictEqual([refused.json.code, refused.json.msg], ["40020", "Parameter clientOid error"], clientOid)
      }
      assert.strictEqual(post(E.cancelOrder.path, { symbol: BTC, orderId: "12a" }).json.code, "40020")
      assert.strictEqual(post(E.cancelOrder.path, { orderId: "1" }).json.code, "40019")
      assert.strictEqual(post(E.cancelOrder.path, { symbol: "DOGEUSDT_SPBL", orderId: "1" }).json.code, "40102")
    }))
})

describe("cancel-batch-orders and cancel-symbol-order", () => {
  it.effect("successList holds order ids; failureList orderId, clientOid when named so, errCode and errMsg", () =>
    Effect.gen(function*() {
      const { place, post } = yield* setup
      const a = place("b-1", "29000", "0.1")
      const b = place("b-2", "29000", "0.1")
      const byIds = ok(post(E.cancelOrders.path, { symbol: BTC, orderIds: [a, "1001000000000000999", a] }))
      assert.deepStrictEqual(byIds, {
        successList: [a],
        failureList: [
          { orderId: "1001000000000000999", errCode: "43001", errMsg: "FAILED_ORDER_NOT_FOUND" },
          { orderId: a, errCode: "43004", errMsg: "There is no order to cancel" }
        ]
      })
      const byCids = ok(post(E.cancelOrders.path, { symbol: BTC, clientOids: ["b-2", "nope"] }))
      assert.deepStrictEqual(byCids, {
        successList: [b],
        failureList: [{ orderId: null, clientOid: "nope", errCode: "43001", errMsg: "FAILED_ORDER_NOT_FOUND" }]
      })
    }))

  it.effect("at most 50 (40912); exactly one of orderIds and clientOids (40913); a bad id refuses the list (40020)", () =>
    Effect.gen(function*() {
      const { post } = yield* setup
      const ids = (n: number) => Array.from({ length: n }, (_, i) => String(1001000000000000000n + BigInt(i)))
      assert.deepStrictEqual(ok(post(E.cancelOrders.path, { symbol: BTC, orderIds: ids(50) })).successList, [])
      refusedWith(post(E.cancelOrders.path, { symbol: BTC, orderIds: ids(51) }), "40912")
      refusedWith(post(E.cancelOrders.path, { symbol: BTC }), "40913")
      refusedWith(post(E.cancelOrders.path, { symbol: BTC, orderIds: ["1"], clientOids: ["x"] }), "40913")
      for (const body of [{ orderIds: [] }, { orderIds: "1" }, { orderIds: ["x"] }, { clientOids: ["a b"] }]) {
        assert.strictEqual(post(E.cancelOrders.path, { symbol: BTC, ...body }).json.code, "40020", JSON.stringify(body))
      }
    }))

  it.effect("cancel-symbol-order cancels every open order of hers on the symbol and nothing of bob's", () =>
    Effect.gen(function*() {
      const { aliceId, bobId, exchange, place, post } = yield* setup
      const ids = [place("s-1", "29000", "0.1"), place("s-2", "28000", "0.2")]
      const bobOpen = exchange.engine.openOrders(bobId, BTC, 0, 100).length
      assert.deepStrictEqual(ok(post(E.cancelAll.path, { symbol: BTC })), { successList: ids, failureList: [] })
      assert.deepStrictEqual(exchange.engine.openOrders(aliceId, BTC, 0, 100), [])
      assert.strictEqual(exchange.engine.openOrders(bobId, BTC, 0, 100).length, bobOpen)
      assert.deepStrictEqual(ok(post(E.cancelAll.path, { symbol: BTC })), { successList: [], failureList: [] })
      assert.strictEqual(post(E.cancelAll.path, {}).json.code, "40019")
    }))
})

describe("orderInfo, history, fills", () => {
  it.effect("orderInfo sees open, partly filled, filled and cancelled orders, by orderId or clientOrderId", () =>
    Effect.gen(function*() {
      const { place, post } = yield* setup
      const open = place("i-open", "29000", "0.1")
      // Takes 0.5 at 30,005 and 0.5 at 30,010, rests 0.5.
      const partly = place("i-partly", "30010", "1.5")
      const filled = place("i-filled", "30015", "0.5")
      const cancelled = place("i-cancelled", "29000", "0.2")
      ok(post(E.cancelOrder.path, { symbol: BTC, orderId: cancelled }))
      const statusOf = (body: object) => {
        const records = ok(post(E.order.path, body))
        assert.strictEqual(records.length, 1)
        return records[0].status
      }
      assert.deepStrictEqual(
        [open, partly, filled, cancelled].map((orderId) => statusOf({ orderId })),
        ["open", "partial_fill", "full_fill", "cancelled"]
      )
      assert.deepStrictEqual(
        ["i-open", "i-partly", "i-filled", "i-cancelled"].map((clientOrderId) => statusOf({ clientOrderId })),
        ["open", "partial_fill", "full_fill", "cancelled"]
      )
      const [record] = ok(post(E.order.path, { orderId: partly }))
      assert.deepStrictEqual(Object.keys(record), [
        "accountId",
        "symbol",
        "orderId",
        "clientOrderId",
        "price",
        "quantity",
        "orderType",
        "side",
        "status",
        "latestFillPrice",
        "maxFillPrice",
        "minFillPrice",
        "fillQuantity",
        "fillTotalAmount",
        "cTime",
        "uTime"
      ])
      assert.deepStrictEqual([record.fillQuantity, record.fillTotalAmount], ["1.000000", "30007.5"])
      // An unknown id, and bob's order, answer an empty list.
      assert.deepStrictEqual(ok(post(E.order.path, { orderId: "1001000000000000999" })), [])
      const bobs = place("bob-i", "29000", "0.1", "buy", bob)
      assert.deepStrictEqual(ok(post(E.order.path, { orderId: bobs })), [])
      assert.deepStrictEqual(ok(post(E.order.path, { clientOrderId: "bob-i" })), [])
      refusedWith(post(E.order.path, {}), "40913")
      refusedWith(post(E.order.path, { orderId: open, clientOrderId: "i-open" }), "40913")
    }))

  it.effect("history pages newest first with nextPage and totals 0; fills carry fee and price", () =>
    Effect.gen(function*() {
      const { place, post } = yield* setup
      const ids = ["h-1", "h-2", "h-3"].map((cid) => place(cid, "29000", "0.1"))
      const page = ok(post(E.orderHistory.path, { symbol: BTC, pageSize: 2 }))
      assert.deepStrictEqual(
        [page.orderInfoResultList.map((o: { orderId: string }) => o.orderId), page.nextPage, page.totals],
        [[ids[2], ids[1]], true, 0]
      )
      const last = ok(post(E.orderHistory.path, { symbol: BTC, pageSize: "2", pageIndex: 1 }))
      assert.deepStrictEqual([last.orderInfoResultList.length, last.nextPage], [1, false])
      assert.deepStrictEqual(ok(post(E.orderHistory.path, { symbol: BTC, before: NOW })).orderInfoResultList, [])
      for (const body of [{ pageSize: 0 }, { pageSize: 101 }, { pageIndex: -1 }, { after: "x" }, { before: 1.5 }]) {
        assert.strictEqual(post(E.orderHistory.path, { symbol: BTC, ...body }).json.code, "40020", JSON.stringify(body))
      }

      const taker = place("h-take", "30005", "0.5")
      const fills = ok(post(E.fills.path, { symbol: BTC, orderId: taker }))
      assert.deepStrictEqual([fills.nextPage, fills.totals], [false, 0])
      const [fill] = fills.fillsOrderResultList
      assert.deepStrictEqual({ ...fill, fillId: undefined, accountId: undefined }, {
        accountId: undefined,
        symbol: BTC,
        baseCoin: "BTC",
        quoteCoin: "USDT",
        orderId: taker,
        fillId: undefined,
        orderType: "limit",
        side: "buy",
        fillPrice: "30005.00",
        fillQuantity: "0.500000",
        fillTotalAmount: "15002.5",
        fees: "0.0005",
        cTime: String(NOW)
      })
      assert.match(fill.fillId, /^\d{19}$/)
      assert.deepStrictEqual(ok(post(E.fills.path, { symbol: BTC, orderId: ids[0] })).fillsOrderResultList, [])
      assert.strictEqual(post(E.fills.path, { symbol: BTC, orderId: "x1" }).json.code, "40020")
    }))
})

describe("GET: assets and transfer status", () => {
  it.effect("assets: signed over the path, every coin she ever held in SPOT with equity = available + frozen", () =>
    Effect.gen(function*() {
      const { get, place } = yield* setup
      place("a-1", "29000", "1")
      assert.deepStrictEqual(ok(get(E.balances.path)), [
        { coinId: 1, coinName: "BTC", available: "10", frozen: "0", equity: "10" },
        { coinId: 2, coinName: "USDT", available: "971000", frozen: "29000", equity: "1000000" },
        { coinId: 3, coinName: "ETH", available: "100", frozen: "0", equity: "100" }
      ])
    }))

  it.effect("the signature covers path + \"?\" + query exactly as sent: any other bytes are 40009", () =>
    Effect.gen(function*() {
      const { answer, bobId, post } = yield* setup
      const sent = post(E.internalTransfer.path, {
        toUserId: bobId,
        coin: "USDT",
        amount: "1",
        fromAccountType: "SPOT",
        toAccountType: "SPOT"
      })
      assert.strictEqual(sent.json.code, "200", sent.text)
      const path = `${E.transferStatus.path}?coin=USDT&pageSize=10`
      assert.strictEqual(answer(signedGet(alice, path, NOW)).json.code, "200")
      const resent = (signedPath: string, sentPath: string) => {
        const request = signedGet(alice, signedPath, NOW)
        return answer({ ...request, path: sentPath }).json.code
      }
      assert.strictEqual(resent(path, `${E.transferStatus.path}?pageSize=10&coin=USDT`), "40009")
      assert.strictEqual(resent(path, `${E.transferStatus.path}?coin=%55SDT&pageSize=10`), "40009")
      assert.strictEqual(resent(E.transferStatus.path, path), "40009")
      // Signed as a POST, sent as a GET.
      const asPost = signed(alice, path, "", NOW)
      assert.strictEqual(answer({ ...asPost, method: "GET" }).json.code, "40009")
      // A GET endpoint refuses POST (405), after nothing is read.
      assert.strictEqual(answer(signed(alice, E.balances.path, "", NOW)).status, 405)
    }))

  it.effect("transfer status: its own envelope, user ids as bare JSON numbers, withdrawId, filters", () =>
    Effect.gen(function*() {
      const { aliceId, bobId, get, post } = yield* setup
      const send = (coin: string, amount: string, fromAccountType: string) =>
        post(
          E.internalTransfer.path,
          `{"toUserId":${bobId},"coin":"${coin}","amount":"${amount}","fromAccountType":"${fromAccountType}","toAccountType":"SPOT"}`
        ).json.id as string
      const t1 = send("USDT", "12.5", "FUND")
      const t2 = send("BTC", "0.25", "SPOT")
      const all = get(E.transferStatus.path)
      assert.strictEqual(all.status, 200)
      assert.deepStrictEqual(Object.keys(JSON.parse(all.text)), ["code", "total", "list", "timestamp"])
      assert.deepStrictEqual([all.json.code, all.json.total, all.json.timestamp], ["200", 2, NOW])
      assert.deepStrictEqual(all.json.list, [
        {
          fromUserId: aliceId,
          toUserId: bobId,
          withdrawId: t2,
          coin: "BTC",
          status: "SUCCESS",
          amount: "0.25",
          createTime: NOW,
          updateTime: NOW
        },
        {
          fromUserId: aliceId,
          toUserId: bobId,
          withdrawId: t1,
          coin: "USDT",
          status: "SUCCESS",
          amount: "12.5",
          createTime: NOW,
          updateTime: NOW
        }
      ])
      // 64-bit user ids as bare integers, exact in the text.
      assert.include(all.text, `"fromUserId":${aliceId},"toUserId":${bobId},`)
      const one = (query: string) =>
        get(`${E.transferStatus.path}?${query}`).json.list.map((t: { withdrawId: string }) => t.withdrawId)
      assert.deepStrictEqual(one(`withdrawID=${t1}`), [t1])
      assert.deepStrictEqual(one("coin=BTC"), [t2])
      assert.deepStrictEqual(one("fromAccountType=FUND"), [t1])
      assert.deepStrictEqual(one(`startTime=${NOW}&endTime=${NOW}`), [t2, t1])
      assert.deepStrictEqual(one(`endTime=${NOW - 1}`), [])
      assert.deepStrictEqual(one("pageSize=1&page=2"), [t1])
      // The receiver's list holds no transfer it did not send.
      assert.deepStrictEqual(get(E.transferStatus.path, bob).json.list, [])
      for (const query of ["pageSize=201", "page=0", "startTime=x", "toAccountType=MARGIN", "coin=USDT&coin=BTC"]) {
        const refused = get(`${E.transferStatus.path}?${query}`)
        assert.deepStrictEqual([refused.status, refused.json.code, refused.json.data], [400, "40020", null], query)
      }
    }))

  // account.md#transfer-status: "only the past month is served" (30 days, on the exchange's clock), whatever the
  // bounds asked; the exchange's own inspection (`transfers`) keeps every one.
  it.effect("transfer status serves the past 30 days only, with or without a startTime", () =>
    Effect.gen(function*() {
      const { bobId, exchange, get, post } = yield* setup
      const sent = post(
        E.internalTransfer.path,
        `{"toUserId":${bobId},"coin":"USDT","amount":"1","fromAccountType":"SPOT","toAccountType":"SPOT"}`
      ).json.id as string
      const DAY = 86_400_000
      const ids = (query: string, now: number) =>
        get(`${E.transferStatus.path}${query}`, alice, now).json.list.map((t: { withdrawId: string }) => t.withdrawId)
      assert.deepStrictEqual(ids("", NOW + 30 * DAY), [sent], "30 days old: served")
      assert.deepStrictEqual(ids("", NOW + 30 * DAY + 1), [], "older than 30 days: not served")
      const later = NOW + 40 * DAY
      assert.deepStrictEqual(ids(`?startTime=${NOW}&endTime=${later}`, later), [], "a startTime 40 days back")
      assert.deepStrictEqual(ids(`?withdrawID=${sent}`, later), [], "by its id")
      assert.strictEqual((yield* exchange.transfers()).length, 1)
    }))
})

describe("public: exchangeInfo, products, time", () => {
  it.effect("exchangeInfo: one symbol, several, or all, from the product configuration; no signature needed", () =>
    Effect.gen(function*() {
      const { answer } = yield* setup
      const info = (query: string) => ok(answer(unsigned("GET", E.exchangeInfo.path + query)))
      const [btc] = info("?symbol=BTCUSDT_SPBL")
      assert.deepStrictEqual(btc, {
        symbol: BTC,
        baseCoin: "BTC",
        quoteCoin: "USDT",
        tickSize: "0.01",
        stepSize: "0.000001",
        minTradeAmount: "0.000001",
        maxTradeAmount: "90071992.547409",
        takerFeeRate: "0.001",
        makerFeeRate: "0.001",
        buyLimitPriceRatio: "0.99",
        sellLimitPriceRatio: "0.99",
        // No largest market buy configured: the most of the quote coin that can exist, at the quote precision.
        marketBuyLimitSize: "90071992.54",
        marketSellLimitSize: "90071992.547409",
        marketFallbackPriceRatio: "0",
        enableTrade: true,
        enableDisplay: true,
        displayDigitMerge: "",
        displayNew: false,
        displayHot: false,
        supportTracing: false,
        supportPlanMarket: false
      })
      assert.deepStrictEqual(info("?symbols=ETHUSDT_SPBL,BTCUSDT_SPBL").map((r: { symbol: string }) => r.symbol), [
        "ETHUSDT_SPBL",
        BTC
      ])
      assert.deepStrictEqual(info("").map((r: { symbol: string }) => r.symbol), [BTC, "ETHUSDT_SPBL"])
      assert.deepStrictEqual(ok(answer(unsigned("POST", E.exchangeInfo.path + "?symbol=ETHUSDT_SPBL"))).length, 1)
      refusedWith(answer(unsigned("GET", E.exchangeInfo.path + "?symbol=DOGEUSDT_SPBL")), "40102")
      refusedWith(answer(unsigned("GET", E.exchangeInfo.path + "?symbols=BTCUSDT_SPBL,DOGEUSDT_SPBL")), "40102")
    }))

  it.effect("products at both paths, and the server time", () =>
    Effect.gen(function*() {
      const { answer } = yield* setup
      assert.deepStrictEqual(ok(answer(unsigned("GET", E.productList.path))), [BTC, "ETHUSDT_SPBL"])
      assert.deepStrictEqual(
        ok(answer(unsigned("GET", E.products.path))).map((
          p: { symbol: string; status: string }
        ) => [p.symbol, p.status]),
        [[BTC, "online"], ["ETHUSDT_SPBL", "online"]]
      )
      const time = answer(unsigned("GET", E.serverTime.path), NOW + 5)
      assert.strictEqual(ok(time), NOW + 5)
      assert.include(time.text, `"data":${NOW + 5}}`)
    }))

  it.effect("a product that does not trade is left out of /api/v2/public/products and refuses orders", () =>
    Effect.gen(function*() {
      const exchange = yield* TestExchange.make({
        ...TestExchange.demo({ bills: 0 }),
        products: [
          ...TestExchange.defaultProducts.slice(0, 1),
          { ...TestExchange.defaultProducts[1]!, enableTrade: false }
        ],
        liquidity: [],
        rateLimits: false
      })
      const data = (request: TestExchange.WireRequest) => JSON.parse(bodyOf(exchange.handleAt(request, NOW)))
      assert.deepStrictEqual(data(unsigned("GET", E.productList.path)).data, [BTC])
      const info = data(unsigned("GET", `${E.exchangeInfo.path}?symbol=ETHUSDT_SPBL`)).data
      assert.strictEqual(info[0].enableTrade, false)
      const refused = data(signed(
        alice,
        E.placeOrder.path,
        JSON.stringify({
          symbol: "ETHUSDT_SPBL",
          side: "buy",
          orderType: "limit",
          force: "normal",
          price: "2000",
          quantity: "1",
          clientOrderId: "halted"
        }),
        NOW
      ))
      assert.deepStrictEqual([refused.code, refused.msg], [
        "40020",
        "Parameter symbol error: the symbol does not trade now"
      ])
    }))
})

describe("public: market data", () => {
  const MINUTE_OPEN = NOW - (NOW % 60_000)

  it.effect("depth: bob's levels best first, 15 a side by default or 200, merged by type; the time as a string", () =>
    Effect.gen(function*() {
      const { answer, place } = yield* setup
      place("d-1", "29999.5", "0.25")
      const book = answer(unsigned("GET", `${E.depth.path}?symbol=${BTC}`))
      const data = ok(book)
      assert.deepStrictEqual([data.bids.length, data.asks.length], [15, 15])
      assert.deepStrictEqual(data.bids.slice(0, 3), [["29999.50", "0.250000"], ["29995.00", "0.500000"], [
        "29990.00",
        "0.500000"
      ]])
      assert.deepStrictEqual(data.asks.slice(0, 2), [["30005.00", "0.500000"], ["30010.00", "0.500000"]])
      assert.deepStrictEqual(data.asks[14], ["30075.00", "0.500000"])
      assert.include(book.text, `,"timestamp":"${NOW}"}}`)
      const deep = ok(answer(unsigned("GET", `${E.depth.path}?symbol=${BTC}&limit=200`)))
      assert.deepStrictEqual([deep.bids.length, deep.asks.length], [21, 20])
      // step3: prices of 10.00; bids merge down, asks up.
      const merged = ok(answer(unsigned("GET", `${E.depth.path}?symbol=${BTC}&limit=15&type=step3`)))
      assert.deepStrictEqual(merged.bids.slice(0, 2), [["29990.00", "1.250000"], ["29980.00", "1.000000"]])
      assert.deepStrictEqual(merged.asks.slice(0, 2), [["30010.00", "1.000000"], ["30020.00", "1.000000"]])
      assert.deepStrictEqual(ok(answer(unsigned("POST", `${E.depth.path}?symbol=ETHUSDT_SPBL&type=step0`))).bids[0], [
        "1999.50",
        "5.0000"
      ])
    }))

  it.effect("a cross: the level is gone, the trade is the newest recent trade, the ticker's last price, the candle", () =>
    Effect.gen(function*() {
      const { answer, exchange, place } = yield* setup
      place("x-1", "30010", "0.75")
      const get = (path: string) => ok(answer(unsigned("GET", path)))
      assert.deepStrictEqual(get(`${E.depth.path}?symbol=${BTC}`).asks.slice(0, 2), [["30010.00", "0.250000"], [
        "30015.00",
        "0.500000"
      ]])
      const [id1, id2] = exchange.engine.tradeList().map((t) => t.tradeId)
      const trades = answer(unsigned("GET", `${E.recentTrades.path}?symbol=${BTC}`))
      assert.strictEqual(
        trades.text.slice(trades.text.indexOf(`"data":`)),
        `"data":[{"symbol":"${BTC}","tradeId":"${id2}","fillTime":${NOW},"fillPrice":"30010.00",` +
          `"fillQuantity":"0.250000","tradeValue":"7502.50000000","bestMatch":true,"buyerMaker":false},` +
          `{"symbol":"${BTC}","tradeId":"${id1}","fillTime":${NOW},"fillPrice":"30005.00",` +
          `"fillQuantity":"0.500000","tradeValue":"15002.50000000","bestMatch":true,"buyerMaker":false}]}`
      )
      assert.strictEqual(get(`${E.recentTrades.path}?symbol=${BTC}&limit=1`).length, 1)
      const ticker = answer(unsigned("GET", `${E.ticker.path}?symbol=${BTC}`), NOW + 1)
      assert.strictEqual(
        ticker.text.slice(ticker.text.indexOf(`"data":`)),
        `"data":{"symbol":"${BTC}","priceChange":"5.00","priceChangePercent":"0.000166","trades":2,` +
          `"size":"0.750000","value":"22505.00000000","high":"30010.00","low":"30005.00","open":"30005.00",` +
          `"close":"30010.00","highTime":${NOW},"lowTime":${NOW},"startTime":${MINUTE_OPEN - 86_400_000},` +
          `"endTime":${NOW + 1},"lastPrice":"30010.00","openInterest":"0","ts":${NOW + 1}}}`
      )
      const tickers = get(E.tickers.path)
      assert.deepStrictEqual(tickers.map((t: { symbol: string; lastPrice: string }) => [t.symbol, t.lastPrice]), [
        [BTC, "30010.00"],
        ["ETHUSDT_SPBL", "0.00"]
      ])
      const candles = answer(unsigned("GET", `${E.candles.path}?symbol=${BTC}&period=1m`))
      assert.strictEqual(
        candles.text.slice(candles.text.indexOf(`"data":`)),
        `"data":[[${MINUTE_OPEN},"30005.00","30010.00","30005.00","30010.00","0.750000","22505.00000000"]]}`
      )
      assert.deepStrictEqual(get(`${E.candles.path}?symbol=${BTC}&period=1M&startTime=0&limit=5`).length, 1)
      assert.deepStrictEqual(get(`${E.candles.path}?symbol=${BTC}&period=1m&endTime=${MINUTE_OPEN}`), [])
      assert.deepStrictEqual(get(`${E.candles.path}?symbol=ETHUSDT_SPBL&period=1d`), [])
    }))

  it.effect("bad queries: the venue's envelope with HTTP 400 — missing (40019) or unknown (40102) symbol, bad fields", () =>
    Effect.gen(function*() {
      const { answer } = yield* setup
      const at = (path: string) => answer(unsigned("GET", path))
      for (const path of [E.ticker.path, E.depth.path, E.candles.path, E.recentTrades.path]) {
        refusedWith(at(path), "40019", "symbol")
        refusedWith(at(`${path}?symbol=`), "40019", "symbol")
        refusedWith(at(`${path}?symbol=DOGEUSDT_SPBL&period=1m`), "40102")
      }
      for (const limit of ["16", "0", "abc", "15.0", "1000"]) {
        refusedWith(at(`${E.depth.path}?symbol=${BTC}&limit=${limit}`), "40020", "limit")
      }
      refusedWith(at(`${E.depth.path}?symbol=${BTC}&type=step6`), "40020", "type")
      refusedWith(at(`${E.candles.path}?symbol=${BTC}`), "40019", "period")
      for (const period of ["3m", "1D", "1W", "1y", "60"]) {
        refusedWith(at(`${E.candles.path}?symbol=${BTC}&period=${period}`), "40020", "period")
      }
      for (const [field, value] of [["limit", "0"], ["limit", "1001"], ["startTime", "x"], ["endTime", "-1"]]) {
        refusedWith(at(`${E.candles.path}?symbol=${BTC}&period=1m&${field}=${value}`), "40020", field)
      }
      for (const limit of ["0", "1001", "ten"]) {
        refusedWith(at(`${E.recentTrades.path}?symbol=${BTC}&limit=${limit}`), "40020", "limit")
      }
      refusedWith(at(`${E.depth.path}?symbol=${BTC}&symbol=${BTC}`), "40020", "symbol")
    }))
})

describe("place order: the venue's clientOrderId form", () => {
  it.effect("1 to 40 of A-Z a-z 0-9 _ -; anything else 40020", () =>
    Effect.gen(function*() {
      const { post } = yield* setup
      const order = (clientOrderId: string) =>
        post(E.placeOrder.path, {
          symbol: BTC,
          side: "buy",
          orderType: "limit",
          force: "normal",
          price: "29000",
          quantity: "0.001",
          clientOrderId
        }).json
      assert.strictEqual(order("A-z_0-9".padEnd(40, "x")).code, "00000")
      for (const cid of ["x".repeat(41), "a.b", "a b", "a:b", "ä", "a/b"]) {
        assert.deepStrictEqual([order(cid).code, order(cid).msg], ["40020", "Parameter clientOrderId error"], cid)
      }
    }))
})
