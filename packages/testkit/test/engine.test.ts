/**
 * The exchange engine by example. Every expected figure is worked out by hand from the rules (price-time priority,
 * fills at the maker's price, fees = floor(what a side receives × rate), funds frozen at the order's own price) on
 * the product BTCUSDT_SPBL: price 2 decimals, quantity 4 decimals, minimum order value 5 USDT, default fees 0.001.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { Engine } from "../src/index.ts"
import { trimmed } from "../src/internal/units.ts"

const T0 = 1_700_000_000_000
const SYMBOL = "BTCUSDT_SPBL"

const makeEngine = (options: Engine.EngineOptions = {}, minOrderValue = "5"): Engine.Engine => {
  const engine = new Engine.Engine({ seed: 7, ...options })
  engine.addProduct({
    symbol: SYMBOL,
    base: "BTC",
    quote: "USDT",
    pricePrecision: 2,
    quantityPrecision: 4,
    minOrderValue
  })
  return engine
}

/** A new user with SPOT deposits. */
const addUser = (engine: Engine.Engine, deposits: Record<string, string> = {}): string => {
  const userId = engine.addUser()
  for (const [coin, amount] of Object.entries(deposits)) engine.deposit(userId, "SPOT", coin, amount, T0)
  return userId
}

const limit = (
  side: "buy" | "sell",
  price: string,
  quantity: string,
  clientOrderId: string,
  force: Engine.OrderRequest["force"] = "normal"
): Engine.OrderRequest => ({ symbol: SYMBOL, side, orderType: "limit", force, price, quantity, clientOrderId })

const market = (
  side: "buy" | "sell",
  quantity: string,
  clientOrderId: string,
  force = "normal"
): Engine.OrderRequest => ({ symbol: SYMBOL, side, orderType: "market", force, price: "0", quantity, clientOrderId })

/** Places an order that must be accepted; answers its orderId. */
const place = (engine: Engine.Engine, userId: string, request: Engine.OrderRequest, now = T0): string => {
  const result = engine.placeOrder(userId, request, now)
  if (!result.ok) assert.fail(`refused ${result.code} ${result.msg}: ${JSON.stringify(request)}`)
  assert.strictEqual(result.clientOrderId, request.clientOrderId)
  return result.orderId
}

const balance = (engine: Engine.Engine, userId: string, coin: string, account: Engine.AccountType = "SPOT") => {
  const found = engine.balances(userId).find((b) => b.coin === coin && b.accountType === account)
  return { available: found?.available ?? "0", frozen: found?.frozen ?? "0" }
}

const orderOf = (engine: Engine.Engine, orderId: string): Engine.OrderView => {
  const order = engine.order(orderId)
  if (order === undefined) assert.fail(`no order ${orderId}`)
  return order
}

const fills = (order: Engine.OrderView) => ({
  status: order.status,
  fillQuantity: order.fillQuantity,
  fillTotalAmount: order.fillTotalAmount,
  latestFillPrice: order.latestFillPrice,
  maxFillPrice: order.maxFillPrice,
  minFillPrice: order.minFillPrice
})

const NO_FILLS = { fillQuantity: "0", fillTotalAmount: "0", latestFillPrice: "0", maxFillPrice: "0", minFillPrice: "0" }

const tradeSummary = (trade: Engine.Trade) => ({
  maker: trade.makerOrderId,
  taker: trade.takerOrderId,
  side: trade.takerSide,
  price: trade.price,
  quantity: trade.quantity,
  amount: trade.amount,
  makerFee: trade.makerFee,
  takerFee: trade.takerFee
})

const openIds = (engine: Engine.Engine, userId: string) =>
  engine.openOrders(userId, SYMBOL, 0, 100).map((o) => o.orderId)

const totalsOf = (engine: Engine.Engine, coin: string) => {
  const found = engine.totals().find((t) => t.coin === coin)
  if (found === undefined) assert.fail(`no totals for ${coin}`)
  return { supply: found.supply, held: found.held, fees: found.fees }
}

/** Everything observable, to show that a refusal changes nothing. */
const snapshot = (engine: Engine.Engine, users: ReadonlyArray<string>): string =>
  JSON.stringify({
    balances: users.map((u) => engine.balances(u)),
    ledger: users.map((u) => engine.ledgerOf(u)),
    orders: engine.orderList(),
    trades: engine.tradeList(),
    depth: engine.depth(SYMBOL),
    totals: engine.totals()
  })

/** Exact units (10^-8) of a decimal string with at most 8 decimals. */
const toUnits = (text: string): bigint => {
  const match = /^(-?)(\d+)(?:\.(\d{1,8}))?$/.exec(text)
  if (match === null) assert.fail(`not an 8-decimal amount: ${text}`)
  const value = BigInt(match[2]! + (match[3] ?? "").padEnd(8, "0"))
  return match[1] === "-" ? -value : value
}

const isBigId = (id: string): boolean => /^\d{19}$/.test(id) && BigInt(id) > 2n ** 53n

describe("Engine: matching", () => {
  it("takes the best price first and, at one price, the oldest order first (asks)", () => {
    const engine = makeEngine()
    const s1 = addUser(engine, { BTC: "1" })
    const s2 = addUser(engine, { BTC: "1" })
    const s3 = addUser(engine, { BTC: "1" })
    const s4 = addUser(engine, { BTC: "1" })
    const b = addUser(engine, { USDT: "1000" })
    const o1 = place(engine, s1, limit("sell", "101", "1", "s1"), T0 + 1)
    const o2 = place(engine, s2, limit("sell", "100", "1", "s2"), T0 + 2)
    const o3 = place(engine, s3, limit("sell", "100", "1", "s3"), T0 + 3)
    const o4 = place(engine, s4, limit("sell", "102", "1", "s4"), T0 + 4)
    assert.deepStrictEqual(engine.depth(SYMBOL), {
      bids: [],
      asks: [["100.00", "2.0000", 2], ["101.00", "1.0000", 1], ["102.00", "1.0000", 1]]
    })

    const taker = place(engine, b, limit("buy", "101", "2.5", "b"), T0 + 10)

    // 1 from s2 and 1 from s3 at 100 (s2 is older), then 0.5 from s1 at 101; s4 at 102 is beyond the limit.
    assert.deepStrictEqual(engine.tradeList().map(tradeSummary), [
      {
        maker: o2,
        taker,
        side: "buy",
        price: "100.00",
        quantity: "1.0000",
        amount: "100",
        makerFee: "0.1",
        takerFee: "0.001"
      },
      {
        maker: o3,
        taker,
        side: "buy",
        price: "100.00",
        quantity: "1.0000",
        amount: "100",
        makerFee: "0.1",
        takerFee: "0.001"
      },
      {
        maker: o1,
        taker,
        side: "buy",
        price: "101.00",
        quantity: "0.5000",
        amount: "50.5",
        makerFee: "0.0505",
        takerFee: "0.0005"
      }
    ])
    assert.deepStrictEqual(fills(orderOf(engine, taker)), {
      status: "filled",
      fillQuantity: "2.5000",
      fillTotalAmount: "250.5",
      latestFillPrice: "101.00",
      maxFillPrice: "101.00",
      minFillPrice: "100.00"
    })
    assert.strictEqual(orderOf(engine, o2).status, "filled")
    assert.strictEqual(orderOf(engine, o3).status, "filled")
    const partly = orderOf(engine, o1)
    assert.deepStrictEqual(fills(partly), {
      status: "open",
      fillQuantity: "0.5000",
      fillTotalAmount: "50.5",
      latestFillPrice: "101.00",
      maxFillPrice: "101.00",
      minFillPrice: "101.00"
    })
    assert.strictEqual(partly.cTime, String(T0 + 1))
    assert.strictEqual(partly.uTime, String(T0 + 10))
    assert.deepStrictEqual(fills(orderOf(engine, o4)), { status: "open", ...NO_FILLS })
    assert.deepStrictEqual(engine.depth(SYMBOL), {
      bids: [],
      asks: [["101.00", "0.5000", 1], ["102.00", "1.0000", 1]]
    })

    // The buyer froze 2.5 × 101 = 252.5, spent 250.5 and got 2 back; received 2.5 BTC less 0.0025 taker fees.
    assert.deepStrictEqual(balance(engine, b, "USDT"), { available: "749.5", frozen: "0" })
    assert.deepStrictEqual(balance(engine, b, "BTC"), { available: "2.4975", frozen: "0" })
    assert.deepStrictEqual(balance(engine, s1, "BTC"), { available: "0", frozen: "0.5" })
    assert.deepStrictEqual(balance(engine, s1, "USDT"), { available: "50.4495", frozen: "0" })
    assert.deepStrictEqual(balance(engine, s2, "BTC"), { available: "0", frozen: "0" })
    assert.deepStrictEqual(balance(engine, s2, "USDT"), { available: "99.9", frozen: "0" })
    assert.deepStrictEqual(balance(engine, s3, "USDT"), { available: "99.9", frozen: "0" })
    assert.deepStrictEqual(totalsOf(engine, "BTC"), { supply: "4", held: "3.9975", fees: "0.0025" })
    assert.deepStrictEqual(totalsOf(engine, "USDT"), { supply: "1000", held: "999.7495", fees: "0.2505" })
  })

  it("takes the highest bid first and, at one price, the oldest (bids)", () => {
    const engine = makeEngine()
    const b1 = addUser(engine, { USDT: "100" })
    const b2 = addUser(engine, { USDT: "100" })
    const b3 = addUser(engine, { USDT: "100" })
    const s = addUser(engine, { BTC: "3" })
    const o1 = place(engine, b1, limit("buy", "99", "1", "b1"), T0 + 1)
    const o2 = place(engine, b2, limit("buy", "99.5", "1", "b2"), T0 + 2)
    const o3 = place(engine, b3, limit("buy", "99.50", "1", "b3"), T0 + 3)
    assert.deepStrictEqual(engine.depth(SYMBOL).bids, [["99.50", "2.0000", 2], ["99.00", "1.0000", 1]])

    const taker = place(engine, s, limit("sell", "99", "2.5", "s"), T0 + 4)

    assert.deepStrictEqual(engine.tradeList().map((t) => [t.makerOrderId, t.price, t.quantity, t.takerSide]), [
      [o2, "99.50", "1.0000", "sell"],
      [o3, "99.50", "1.0000", "sell"],
      [o1, "99.00", "0.5000", "sell"]
    ])
    // 99.5 + 99.5 + 49.5 = 248.5 USDT less the taker fee 0.2485.
    assert.deepStrictEqual(balance(engine, s, "USDT"), { available: "248.2515", frozen: "0" })
    assert.deepStrictEqual(balance(engine, s, "BTC"), { available: "0.5", frozen: "0" })
    assert.deepStrictEqual(fills(orderOf(engine, taker)), {
      status: "filled",
      fillQuantity: "2.5000",
      fillTotalAmount: "248.5",
      latestFillPrice: "99.00",
      maxFillPrice: "99.50",
      minFillPrice: "99.00"
    })
    // b1 keeps 0.5 × 99 = 49.5 frozen; it received 0.5 BTC less the maker fee 0.0005.
    assert.deepStrictEqual(balance(engine, b1, "USDT"), { available: "1", frozen: "49.5" })
    assert.deepStrictEqual(balance(engine, b1, "BTC"), { available: "0.4995", frozen: "0" })
    assert.strictEqual(orderOf(engine, o1).status, "open")
  })

  it("a resting order shows 0 in every fill field, then the fields of spec §2.5 as it is partly filled", () => {
    const engine = makeEngine()
    const b = addUser(engine, { USDT: "1000" })
    const s = addUser(engine, { BTC: "5" })
    const bid = place(engine, b, limit("buy", "100", "1", "bid"), T0 + 1)
    const view = orderOf(engine, bid)
    assert.deepStrictEqual(view, {
      accountId: view.accountId,
      userId: b,
      symbol: SYMBOL,
      orderId: bid,
      clientOrderId: "bid",
      price: "100.00",
      quantity: "1.0000",
      orderType: "limit",
      side: "buy",
      force: "normal",
      status: "open",
      ...NO_FILLS,
      cTime: String(T0 + 1),
      uTime: String(T0 + 1)
    })
    assert.isTrue(isBigId(view.accountId))
    assert.deepStrictEqual(openIds(engine, b), [bid])
    assert.deepStrictEqual(balance(engine, b, "USDT"), { available: "900", frozen: "100" })

    // A sell at 99 crosses and fills at the maker's price, 100.
    place(engine, s, limit("sell", "99", "0.3", "s1"), T0 + 2)
    assert.deepStrictEqual(fills(orderOf(engine, bid)), {
      status: "open",
      fillQuantity: "0.3000",
      fillTotalAmount: "30",
      latestFillPrice: "100.00",
      maxFillPrice: "100.00",
      minFillPrice: "100.00"
    })
    assert.deepStrictEqual(balance(engine, b, "USDT"), { available: "900", frozen: "70" })
    place(engine, s, limit("sell", "100", "0.2", "s2"), T0 + 3)
    assert.strictEqual(orderOf(engine, bid).fillQuantity, "0.5000")
    assert.strictEqual(orderOf(engine, bid).fillTotalAmount, "50")
    assert.strictEqual(orderOf(engine, bid).uTime, String(T0 + 3))
    assert.deepStrictEqual(balance(engine, b, "USDT"), { available: "900", frozen: "50" })
    assert.deepStrictEqual(balance(engine, b, "BTC"), { available: "0.4995", frozen: "0" })
  })

  it("a taker that fills at several prices and rests the rest stays open with its min/max/latest fill prices", () => {
    const engine = makeEngine()
    const s = addUser(engine, { BTC: "2" })
    const b = addUser(engine, { USDT: "1000" })
    place(engine, s, limit("sell", "100", "1", "a1"))
    place(engine, s, limit("sell", "101", "1", "a2"))
    const taker = place(engine, b, limit("buy", "101", "3", "b"))
    assert.deepStrictEqual(fills(orderOf(engine, taker)), {
      status: "open",
      fillQuantity: "2.0000",
      fillTotalAmount: "201",
      latestFillPrice: "101.00",
      maxFillPrice: "101.00",
      minFillPrice: "100.00"
    })
    assert.deepStrictEqual(openIds(engine, b), [taker])
    assert.deepStrictEqual(engine.depth(SYMBOL), { bids: [["101.00", "1.0000", 1]], asks: [] })
    // Froze 303; spent 100 (+1 back) and 101; 1 × 101 stays frozen: 1000 - 201 - 101 = 698 available.
    assert.deepStrictEqual(balance(engine, b, "USDT"), { available: "698", frozen: "101" })
  })
})

describe("Engine: force", () => {
  it("postOnly is refused with 40020 when it would take and rests otherwise", () => {
    const engine = makeEngine()
    const s = addUser(engine, { BTC: "2" })
    const b = addUser(engine, { USDT: "1000" })
    const ask = place(engine, s, limit("sell", "100", "1", "ask"), T0 + 1)
    const users = [s, b]
    for (const price of ["100", "100.01", "150"]) {
      const before = snapshot(engine, users)
      const result = engine.placeOrder(b, limit("buy", price, "1", `p${price}`, "postOnly"), T0 + 2)
      assert.strictEqual(result.ok ? "accepted" : result.code, "40020", `postOnly buy at ${price}`)
      assert.strictEqual(snapshot(engine, users), before)
    }
    const bid = place(engine, b, limit("buy", "99.99", "1", "bid", "postOnly"), T0 + 3)
    assert.strictEqual(orderOf(engine, bid).status, "open")
    assert.strictEqual(orderOf(engine, bid).force, "postOnly")
    assert.deepStrictEqual(balance(engine, b, "USDT"), { available: "900.01", frozen: "99.99" })

    const before = snapshot(engine, users)
    const sellResult = engine.placeOrder(s, limit("sell", "99.99", "0.5", "x", "postOnly"), T0 + 4)
    assert.strictEqual(sellResult.ok ? "accepted" : sellResult.code, "40020")
    assert.strictEqual(snapshot(engine, users), before)
    // At 100 it joins the ask level behind the older order.
    const second = place(engine, s, limit("sell", "100", "0.5", "ask2", "postOnly"), T0 + 5)
    assert.deepStrictEqual(engine.depth(SYMBOL), {
      bids: [["99.99", "1.0000", 1]],
      asks: [["100.00", "1.5000", 2]]
    })
    assert.deepStrictEqual(engine.tradeList(), [])
    const taker = place(engine, b, limit("buy", "100", "1", "take"), T0 + 6)
    assert.deepStrictEqual(engine.tradeList().map((t) => [t.makerOrderId, t.takerOrderId]), [[ask, taker]])
    assert.strictEqual(orderOf(engine, second).status, "open")
  })

  it("fok fills completely or not at all (accepted, then cancelled with no fills and nothing held)", () => {
    const engine = makeEngine()
    const s = addUser(engine, { BTC: "2" })
    const b = addUser(engine, { USDT: "1000" })
    place(engine, s, limit("sell", "100", "1", "a1"))
    place(engine, s, limit("sell", "101", "1", "a2"))
    const book = engine.depth(SYMBOL)

    // 3 wanted, 2 on offer; 2 wanted, only 1 at or below 100.
    for (const [price, quantity, cid] of [["101", "3", "f1"], ["100", "2", "f2"]] as const) {
      const killed = place(engine, b, limit("buy", price, quantity, cid, "fok"))
      assert.deepStrictEqual(fills(orderOf(engine, killed)), { status: "cancelled", ...NO_FILLS })
      assert.deepStrictEqual(engine.tradeList(), [])
      assert.deepStrictEqual(engine.depth(SYMBOL), book)
      assert.deepStrictEqual(balance(engine, b, "USDT"), { available: "1000", frozen: "0" })
      assert.deepStrictEqual(openIds(engine, b), [])
    }

    const filled = place(engine, b, limit("buy", "101", "2", "f3", "fok"))
    assert.deepStrictEqual(fills(orderOf(engine, filled)), {
      status: "filled",
      fillQuantity: "2.0000",
      fillTotalAmount: "201",
      latestFillPrice: "101.00",
      maxFillPrice: "101.00",
      minFillPrice: "100.00"
    })
    assert.strictEqual(engine.tradeList().length, 2)
    assert.deepStrictEqual(engine.depth(SYMBOL), { bids: [], asks: [] })
    assert.deepStrictEqual(balance(engine, b, "USDT"), { available: "799", frozen: "0" })
    assert.deepStrictEqual(balance(engine, b, "BTC"), { available: "1.998", frozen: "0" })
  })

  it("ioc fills what it can and cancels the rest", () => {
    const engine = makeEngine()
    const s = addUser(engine, { BTC: "3" })
    const b = addUser(engine, { USDT: "1000" })
    place(engine, s, limit("sell", "100", "1", "a1"))
    place(engine, s, limit("sell", "102", "1", "a2"))

    const partial = place(engine, b, limit("buy", "101", "3", "i1", "ioc"))
    assert.deepStrictEqual(fills(orderOf(engine, partial)), {
      status: "cancelled",
      fillQuantity: "1.0000",
      fillTotalAmount: "100",
      latestFillPrice: "100.00",
      maxFillPrice: "100.00",
      minFillPrice: "100.00"
    })
    assert.deepStrictEqual(openIds(engine, b), [])
    assert.deepStrictEqual(engine.depth(SYMBOL), { bids: [], asks: [["102.00", "1.0000", 1]] })
    assert.deepStrictEqual(balance(engine, b, "USDT"), { available: "900", frozen: "0" })

    const nothing = place(engine, b, limit("buy", "101", "1", "i2", "ioc"))
    assert.deepStrictEqual(fills(orderOf(engine, nothing)), { status: "cancelled", ...NO_FILLS })

    const whole = place(engine, b, limit("buy", "102", "1", "i3", "ioc"))
    assert.strictEqual(orderOf(engine, whole).status, "filled")
    assert.deepStrictEqual(balance(engine, b, "USDT"), { available: "798", frozen: "0" })
    assert.deepStrictEqual(openIds(engine, b), [])
  })

  it("normal limit orders rest (good till cancelled)", () => {
    const engine = makeEngine()
    const b = addUser(engine, { USDT: "1000" })
    const a = place(engine, b, limit("buy", "90", "1", "n1"), T0 + 1)
    const c = place(engine, b, limit("buy", "95", "1", "n2"), T0 + 2)
    // Newest first.
    assert.deepStrictEqual(openIds(engine, b), [c, a])
    assert.deepStrictEqual(engine.depth(SYMBOL).bids, [["95.00", "1.0000", 1], ["90.00", "1.0000", 1]])
    assert.deepStrictEqual(balance(engine, b, "USDT"), { available: "815", frozen: "185" })
  })
})

describe("Engine: market orders", () => {
  it("a market sell sells its base quantity down the bids; the rest is cancelled when the bids run out", () => {
    const engine = makeEngine()
    const b1 = addUser(engine, { USDT: "100" })
    const b2 = addUser(engine, { USDT: "100" })
    const s = addUser(engine, { BTC: "3" })
    place(engine, b1, limit("buy", "99", "1", "b1"))
    const bid2 = place(engine, b2, limit("buy", "98", "1", "b2"))

    const sold = place(engine, s, market("sell", "1.5", "m1"))
    const view = orderOf(engine, sold)
    assert.deepStrictEqual(
      { price: view.price, quantity: view.quantity, orderType: view.orderType, ...fills(view) },
      {
        price: "0",
        quantity: "1.5000",
        orderType: "market",
        status: "filled",
        fillQuantity: "1.5000",
        fillTotalAmount: "148",
        latestFillPrice: "98.00",
        maxFillPrice: "99.00",
        minFillPrice: "98.00"
      }
    )
    // 99 + 49 = 148 less the taker fee 0.148.
    assert.deepStrictEqual(balance(engine, s, "USDT"), { available: "147.852", frozen: "0" })
    assert.deepStrictEqual(balance(engine, s, "BTC"), { available: "1.5", frozen: "0" })
    assert.strictEqual(orderOf(engine, bid2).fillQuantity, "0.5000")

    // force is ignored for market orders: a "fok" market sell of 1 against 0.5 still takes the 0.5.
    const rest = place(engine, s, market("sell", "1", "m2", "fok"))
    assert.deepStrictEqual(fills(orderOf(engine, rest)), {
      status: "cancelled",
      fillQuantity: "0.5000",
      fillTotalAmount: "49",
      latestFillPrice: "98.00",
      maxFillPrice: "98.00",
      minFillPrice: "98.00"
    })
    assert.deepStrictEqual(balance(engine, s, "BTC"), { available: "1", frozen: "0" })
    assert.deepStrictEqual(openIds(engine, s), [])
    assert.deepStrictEqual(engine.depth(SYMBOL), { bids: [], asks: [] })
  })

  it("a market buy spends its quote amount, whole lots at each level (DESIGN §3); force is ignored", () => {
    const engine = makeEngine()
    const s1 = addUser(engine, { BTC: "1" })
    const s2 = addUser(engine, { BTC: "1" })
    const b = addUser(engine, { USDT: "200" })
    place(engine, s1, limit("sell", "100", "1", "a1"))
    const ask2 = place(engine, s2, limit("sell", "102", "1", "a2"))

    // "postOnly" would refuse a taking limit order; a market order ignores it.
    const bought = place(engine, b, market("buy", "150", "m", "postOnly"))
    // 1 BTC for 100, then 50 buys floor(50 / 0.0102) = 4901 lots = 0.4901 BTC for 49.9902; 0.0098 is dust.
    const view = orderOf(engine, bought)
    assert.deepStrictEqual(
      { price: view.price, quantity: view.quantity, force: view.force, ...fills(view) },
      {
        price: "0",
        quantity: "150.00",
        force: "postOnly",
        status: "filled",
        fillQuantity: "1.4901",
        fillTotalAmount: "149.9902",
        latestFillPrice: "102.00",
        maxFillPrice: "102.00",
        minFillPrice: "100.00"
      }
    )
    assert.deepStrictEqual(balance(engine, b, "USDT"), { available: "50.0098", frozen: "0" })
    // Taker fees 0.001 + 0.0004901.
    assert.deepStrictEqual(balance(engine, b, "BTC"), { available: "1.4886099", frozen: "0" })
    // Maker fee floor(49.9902 × 0.001) = 0.0499902.
    assert.deepStrictEqual(balance(engine, s2, "USDT"), { available: "49.9402098", frozen: "0" })
    assert.deepStrictEqual(balance(engine, s2, "BTC"), { available: "0", frozen: "0.5099" })
    assert.strictEqual(orderOf(engine, ask2).fillQuantity, "0.4901")
    assert.deepStrictEqual(openIds(engine, b), [])
  })

  it("a market buy in an empty book is cancelled with nothing spent", () => {
    const engine = makeEngine()
    const b = addUser(engine, { USDT: "200" })
    const id = place(engine, b, market("buy", "50", "m", "ioc"))
    assert.deepStrictEqual(fills(orderOf(engine, id)), { status: "cancelled", ...NO_FILLS })
    assert.deepStrictEqual(balance(engine, b, "USDT"), { available: "200", frozen: "0" })
  })

  it("a market buy that empties the book spends what the book held and releases the rest", () => {
    const engine = makeEngine()
    const s = addUser(engine, { BTC: "1" })
    const b = addUser(engine, { USDT: "500" })
    place(engine, s, limit("sell", "100", "1", "a"))
    const id = place(engine, b, market("buy", "300", "m", "normal"))
    const view = orderOf(engine, id)
    assert.strictEqual(view.fillQuantity, "1.0000")
    assert.strictEqual(view.fillTotalAmount, "100")
    assert.notStrictEqual(view.status, "open")
    assert.deepStrictEqual(balance(engine, b, "USDT"), { available: "400", frozen: "0" })
    assert.deepStrictEqual(openIds(engine, b), [])
  })
})

describe("Engine: refusals", () => {
  const setup = () => {
    const engine = makeEngine()
    const u = addUser(engine, { USDT: "1000", BTC: "1" })
    const other = addUser(engine, { BTC: "1" })
    place(engine, other, limit("sell", "100", "0.5", "ask"))
    place(engine, u, limit("buy", "90", "1", "dup"))
    return { engine, u, users: [u, other] }
  }

  const cases: ReadonlyArray<readonly [name: string, code: string, request: Engine.OrderRequest]> = [
    ["price with more decimals than the product's", "40808", limit("buy", "100.001", "0.1", "r1")],
    ["quantity with more decimals than the product's", "40808", limit("buy", "100", "0.00001", "r2")],
    ["market buy amount with more decimals than the quote precision", "40808", market("buy", "10.001", "r3")],
    ["limit order below the minimum value (0.01 × 100 = 1 < 5)", "45110", limit("buy", "100", "0.01", "r4")],
    ["market buy below the minimum value", "45110", market("buy", "4.99", "r5")],
    ["market sell below the minimum value at the best bid (0.05 × 90 = 4.5)", "45110", market("sell", "0.05", "r6")],
    ["unknown symbol", "40102", { ...limit("buy", "100", "0.1", "r7"), symbol: "DOGEUSDT_SPBL" }],
    ["bad side", "40020", { ...limit("buy", "100", "0.1", "r8"), side: "long" }],
    ["bad orderType", "40020", { ...limit("buy", "100", "0.1", "r9"), orderType: "stop" }],
    ["bad force", "40020", limit("buy", "100", "0.1", "r10", "gtc")],
    ["limit without a price", "40019", { ...limit("buy", "100", "0.1", "r11"), price: undefined }],
    ["limit with an empty price", "40019", limit("buy", "", "0.1", "r12")],
    ["duplicate clientOrderId of an open order", "43118", limit("buy", "80", "0.1", "dup")],
    ["buy above the available quote (910 after 90 frozen)", "43012", limit("buy", "100", "9.11", "r13")],
    ["sell above the available base", "43012", limit("sell", "200", "1.0001", "r14")],
    ["market buy above the available quote", "43012", market("buy", "910.01", "r15")],
    ["market sell above the available base", "43012", market("sell", "1.0001", "r16")]
  ]

  for (const [name, code, request] of cases) {
    it(`${code}: ${name}, changing nothing`, () => {
      const { engine, u, users } = setup()
      const before = snapshot(engine, users)
      const result = engine.placeOrder(u, request, T0 + 5)
      assert.strictEqual(result.ok ? "accepted" : result.code, code)
      assert.strictEqual(snapshot(engine, users), before)
    })
  }

  it("a trailing zero beyond the precision is not precision", () => {
    const { engine, u } = setup()
    const id = place(engine, u, limit("buy", "80.000", "0.10000", "z"))
    assert.strictEqual(orderOf(engine, id).price, "80.00")
    assert.strictEqual(orderOf(engine, id).quantity, "0.1000")
  })

  it("43118 also after the first order with the id filled or was cancelled; a refused order's id stays free", () => {
    const { engine, u, users } = setup()
    const other = users[1]!
    // u's taker "filled-once" fills the other user's maker "ask" completely.
    place(engine, u, limit("buy", "100", "0.5", "filled-once"))
    assert.strictEqual(engine.orderByClientId(u, "filled-once")?.status, "filled")
    assert.strictEqual(engine.orderByClientId(other, "ask")?.status, "filled")
    assert.isTrue(engine.cancelOrder(u, { clientOrderId: "dup" }, T0 + 1))
    for (const [userId, cid, side] of [[u, "filled-once", "buy"], [u, "dup", "buy"], [other, "ask", "sell"]] as const) {
      const before = snapshot(engine, users)
      const result = engine.placeOrder(userId, limit(side, side === "buy" ? "50" : "150", "0.2", cid), T0 + 2)
      assert.strictEqual(result.ok ? "accepted" : result.code, "43118", cid)
      assert.strictEqual(snapshot(engine, users), before)
    }
    const refused = engine.placeOrder(u, limit("buy", "100", "100", "free"), T0 + 3)
    assert.strictEqual(refused.ok ? "accepted" : refused.code, "43012")
    place(engine, u, limit("buy", "50", "0.2", "free"), T0 + 4)
    // The same clientOrderId is another user's to use.
    engine.deposit(other, "SPOT", "USDT", "100", T0 + 5)
    place(engine, other, limit("buy", "50", "0.2", "free"), T0 + 5)
  })
})

describe("Engine: frozen funds and cancelOrder", () => {
  it("freezes on rest, releases on fill and on cancel (by orderId or clientOrderId), only the owner's", () => {
    const engine = makeEngine()
    const b = addUser(engine, { USDT: "1000" })
    const s = addUser(engine, { BTC: "2" })
    const bid = place(engine, b, limit("buy", "100", "1", "bid"), T0 + 1)
    const ask = place(engine, s, limit("sell", "110", "0.5", "ask"), T0 + 2)
    assert.deepStrictEqual(balance(engine, b, "USDT"), { available: "900", frozen: "100" })
    assert.deepStrictEqual(balance(engine, s, "BTC"), { available: "1.5", frozen: "0.5" })

    place(engine, s, limit("sell", "100", "0.4", "hit"), T0 + 3)
    assert.deepStrictEqual(balance(engine, b, "USDT"), { available: "900", frozen: "60" })
    assert.deepStrictEqual(balance(engine, b, "BTC"), { available: "0.3996", frozen: "0" })
    assert.deepStrictEqual(balance(engine, s, "BTC"), { available: "1.1", frozen: "0.5" })

    // Not the owner: nothing happens.
    assert.isFalse(engine.cancelOrder(s, { orderId: bid }, T0 + 4))
    assert.isFalse(engine.cancelOrder(s, { clientOrderId: "bid" }, T0 + 4))
    assert.strictEqual(orderOf(engine, bid).status, "open")

    assert.isTrue(engine.cancelOrder(b, { orderId: bid }, T0 + 5))
    const cancelled = orderOf(engine, bid)
    assert.strictEqual(cancelled.status, "cancelled")
    assert.strictEqual(cancelled.fillQuantity, "0.4000")
    assert.strictEqual(cancelled.uTime, String(T0 + 5))
    assert.deepStrictEqual(balance(engine, b, "USDT"), { available: "960", frozen: "0" })
    assert.deepStrictEqual(openIds(engine, b), [])
    assert.isFalse(engine.cancelOrder(b, { orderId: bid }, T0 + 6))

    assert.isTrue(engine.cancelOrder(s, { clientOrderId: "ask" }, T0 + 7))
    assert.strictEqual(orderOf(engine, ask).status, "cancelled")
    assert.deepStrictEqual(balance(engine, s, "BTC"), { available: "1.6", frozen: "0" })
    assert.deepStrictEqual(engine.depth(SYMBOL), { bids: [], asks: [] })

    // Unknown ids.
    assert.isFalse(engine.cancelOrder(b, { orderId: "1007000000000999999" }, T0 + 8))
    assert.isFalse(engine.cancelOrder(b, { clientOrderId: "nope" }, T0 + 8))
    // A filled order cannot be cancelled.
    const filled = engine.orderByClientId(s, "hit")
    assert.strictEqual(filled?.status, "filled")
    assert.isFalse(engine.cancelOrder(s, { orderId: filled!.orderId }, T0 + 9))
  })
})

describe("Engine: fees", () => {
  // maker 0.0002, taker 0.0015; 0.0003 BTC at 123.45 = 0.037035 USDT.
  const setup = () => {
    const engine = makeEngine({ makerFeeRate: "0.0002", takerFeeRate: "0.0015" }, "0")
    const b = addUser(engine, { USDT: "1" })
    const s = addUser(engine, { BTC: "1" })
    return { engine, b, s }
  }

  it("a taking buyer pays the taker rate on the base it receives, the resting seller the maker rate on the quote", () => {
    const { b, engine, s } = setup()
    place(engine, s, limit("sell", "123.45", "0.0003", "m"))
    place(engine, b, limit("buy", "123.45", "0.0003", "t"))
    const [trade] = engine.tradeList()
    // Taker: floor(0.0003 × 0.0015) = 0.00000045 BTC; maker: floor(0.037035 × 0.0002 = 0.000007407) = 0.0000074.
    assert.deepStrictEqual(
      { amount: trade?.amount, makerFee: trade?.makerFee, takerFee: trade?.takerFee },
      { amount: "0.037035", makerFee: "0.0000074", takerFee: "0.00000045" }
    )
    assert.deepStrictEqual(balance(engine, b, "BTC"), { available: "0.00029955", frozen: "0" })
    assert.deepStrictEqual(balance(engine, b, "USDT"), { available: "0.962965", frozen: "0" })
    assert.deepStrictEqual(balance(engine, s, "USDT"), { available: "0.0370276", frozen: "0" })
    assert.deepStrictEqual(balance(engine, s, "BTC"), { available: "0.9997", frozen: "0" })
    assert.deepStrictEqual(totalsOf(engine, "BTC"), { supply: "1", held: "0.99999955", fees: "0.00000045" })
    assert.deepStrictEqual(totalsOf(engine, "USDT"), { supply: "1", held: "0.9999926", fees: "0.0000074" })

    // The spot ledger entries of the trade, with the fee on the credited side.
    const entries = (userId: string) =>
      engine.ledgerOf(userId, "SPOT").filter((e) => e.bizType !== "deposit").map((e) => ({
        coin: e.coinName,
        bizType: e.bizType,
        deltaAmount: e.deltaAmount,
        afterAmount: e.afterAmount,
        fees: e.fees
      }))
    const byCoin = (a: { coin: string }, z: { coin: string }) => a.coin.localeCompare(z.coin)
    assert.deepStrictEqual(entries(b).sort(byCoin), [
      { coin: "BTC", bizType: "buy_success", deltaAmount: "0.00029955", afterAmount: "0.00029955", fees: "0.00000045" },
      { coin: "USDT", bizType: "buy_success", deltaAmount: "-0.037035", afterAmount: "0.962965", fees: "0" }
    ])
    assert.deepStrictEqual(entries(s).sort(byCoin), [
      { coin: "BTC", bizType: "sell_complete", deltaAmount: "-0.0003", afterAmount: "0.9997", fees: "0" },
      { coin: "USDT", bizType: "sell_complete", deltaAmount: "0.0370276", afterAmount: "0.0370276", fees: "0.0000074" }
    ])
  })

  it("a taking seller pays the taker rate on the quote, the resting buyer the maker rate on the base", () => {
    const { b, engine, s } = setup()
    place(engine, b, limit("buy", "123.45", "0.0003", "m"))
    place(engine, s, limit("sell", "123.45", "0.0003", "t"))
    const [trade] = engine.tradeList()
    // Taker: floor(0.037035 × 0.0015 = 0.0000555525) = 0.00005555 USDT; maker: 0.0003 × 0.0002 = 0.00000006 BTC.
    assert.deepStrictEqual(
      { side: trade?.takerSide, makerFee: trade?.makerFee, takerFee: trade?.takerFee },
      { side: "sell", makerFee: "0.00000006", takerFee: "0.00005555" }
    )
    assert.deepStrictEqual(balance(engine, s, "USDT"), { available: "0.03697945", frozen: "0" })
    assert.deepStrictEqual(balance(engine, b, "BTC"), { available: "0.00029994", frozen: "0" })
  })

  it("zero rates take no fee", () => {
    const engine = makeEngine({ makerFeeRate: "0", takerFeeRate: "0" })
    const b = addUser(engine, { USDT: "100" })
    const s = addUser(engine, { BTC: "1" })
    place(engine, s, limit("sell", "100", "0.5", "m"))
    place(engine, b, limit("buy", "100", "0.5", "t"))
    assert.deepStrictEqual(balance(engine, b, "BTC"), { available: "0.5", frozen: "0" })
    assert.deepStrictEqual(balance(engine, s, "USDT"), { available: "50", frozen: "0" })
    assert.deepStrictEqual(totalsOf(engine, "USDT"), { supply: "100", held: "100", fees: "0" })
  })
})

describe("Engine: transfers", () => {
  const setup = () => {
    const engine = makeEngine()
    const a = engine.addUser()
    const b = engine.addUser()
    engine.deposit(a, "SPOT", "USDT", "100", T0)
    engine.deposit(a, "FUND", "BTC", "2", T0)
    return { engine, a, b }
  }
  const request = (
    toUserId: string,
    coin: string,
    amount: string,
    fromAccountType: Engine.AccountType,
    toAccountType: Engine.AccountType
  ): Engine.TransferRequest => ({ toUserId, coin, amount, fromAccountType, toAccountType })
  const last = (engine: Engine.Engine, userId: string, account: Engine.AccountType) => {
    const entry = engine.ledgerOf(userId, account).at(-1)
    return entry === undefined ? undefined : [entry.coinName, entry.bizType, entry.deltaAmount, entry.afterAmount]
  }
  const transfer = (engine: Engine.Engine, from: string, req: Engine.TransferRequest, now: number) => {
    const result = engine.transfer(from, req, now)
    if (!result.ok) assert.fail(`refused ${result.code} ${result.msg}`)
    assert.isTrue(isBigId(result.id))
    return result.id
  }

  it("moves coins between users and writes internal_withdraw / internal_deposit", () => {
    const { a, b, engine } = setup()
    transfer(engine, a, request(b, "USDT", "30", "SPOT", "SPOT"), T0 + 1)
    assert.deepStrictEqual(balance(engine, a, "USDT"), { available: "70", frozen: "0" })
    assert.deepStrictEqual(balance(engine, b, "USDT"), { available: "30", frozen: "0" })
    assert.deepStrictEqual(last(engine, a, "SPOT"), ["USDT", "internal_withdraw", "-30", "70"])
    assert.deepStrictEqual(last(engine, b, "SPOT"), ["USDT", "internal_deposit", "30", "30"])
    // All that is left.
    transfer(engine, a, request(b, "USDT", "70", "SPOT", "SPOT"), T0 + 1)
    assert.deepStrictEqual(balance(engine, a, "USDT"), { available: "0", frozen: "0" })
    assert.deepStrictEqual(last(engine, a, "SPOT"), ["USDT", "internal_withdraw", "-70", "0"])
    assert.deepStrictEqual(balance(engine, b, "USDT"), { available: "100", frozen: "0" })

    transfer(engine, a, request(b, "BTC", "0.25", "FUND", "FUND"), T0 + 2)
    assert.deepStrictEqual(last(engine, a, "FUND"), ["BTC", "internal_withdraw", "-0.25", "1.75"])
    assert.deepStrictEqual(last(engine, b, "FUND"), ["BTC", "internal_deposit", "0.25", "0.25"])
    assert.deepStrictEqual(totalsOf(engine, "USDT"), { supply: "100", held: "100", fees: "0" })
    assert.deepStrictEqual(totalsOf(engine, "BTC"), { supply: "2", held: "2", fees: "0" })
  })

  it("writes transfer_out / transfer_in on the FUND side when exactly one side is FUND", () => {
    const { a, b, engine } = setup()
    const t1 = transfer(engine, a, request(b, "BTC", "0.5", "FUND", "SPOT"), T0 + 1)
    assert.deepStrictEqual(last(engine, a, "FUND"), ["BTC", "transfer_out", "-0.5", "1.5"])
    assert.deepStrictEqual(last(engine, b, "SPOT"), ["BTC", "internal_deposit", "0.5", "0.5"])
    const t2 = transfer(engine, a, request(a, "USDT", "10", "SPOT", "FUND"), T0 + 2)
    assert.deepStrictEqual(last(engine, a, "SPOT"), ["USDT", "internal_withdraw", "-10", "90"])
    assert.deepStrictEqual(last(engine, a, "FUND"), ["USDT", "transfer_in", "10", "10"])
    assert.notStrictEqual(t1, t2)
    // The FUND side's entries are funding bills.
    assert.deepStrictEqual(
      engine.fundingBills(a).items.map((bill) => [bill.bizType, bill.coinName, bill.deltaAmount, bill.afterAmount]),
      [["transfer_in", "USDT", "10", "10"], ["transfer_out", "BTC", "-0.5", "1.5"], ["deposit", "BTC", "2", "2"]]
    )
    // Between two non-funding accounts of one user.
    transfer(engine, a, request(a, "USDT", "0.000001", "SPOT", "SPOT_V2"), T0 + 3)
    assert.deepStrictEqual(last(engine, a, "SPOT"), ["USDT", "internal_withdraw", "-0.000001", "89.999999"])
    assert.deepStrictEqual(last(engine, a, "SPOT_V2"), ["USDT", "internal_deposit", "0.000001", "0.000001"])
  })

  const refusals: ReadonlyArray<readonly [string, string, (b: string) => Engine.TransferRequest]> = [
    ["unknown toUserId", "40034", () => request("1234567890123456789", "USDT", "1", "SPOT", "SPOT")],
    ["more than available", "43012", (b) => request(b, "USDT", "100.000001", "SPOT", "SPOT")],
    ["more than available in that account", "43012", (b) => request(b, "BTC", "1", "SPOT", "SPOT")],
    ["more than 6 decimals", "40808", (b) => request(b, "USDT", "0.0000001", "SPOT", "SPOT")]
  ]
  for (const [name, code, make] of refusals) {
    it(`${code}: ${name}, changing nothing`, () => {
      const { a, b, engine } = setup()
      const before = snapshot(engine, [a, b])
      const result = engine.transfer(a, make(b), T0 + 1)
      assert.strictEqual(result.ok ? "accepted" : result.code, code)
      assert.strictEqual(snapshot(engine, [a, b]), before)
    })
  }
})

describe("Engine: funding bills", () => {
  const setup = () => {
    const engine = makeEngine()
    const a = engine.addUser()
    const deposits: ReadonlyArray<readonly [number, string, string]> = [
      [1000, "BTC", "1"],
      [2000, "USDT", "10"],
      [3000, "BTC", "2"],
      [3000, "USDT", "20"],
      [4000, "BTC", "3"],
      [5000, "USDT", "30"]
    ]
    for (const [t, coin, amount] of deposits) engine.deposit(a, "FUND", coin, amount, T0 + t)
    engine.deposit(a, "SPOT", "USDT", "7", T0 + 5000)
    return { engine, a }
  }
  const summary = (page: Engine.BillPage) => ({
    total: page.total,
    page: page.page,
    pageSize: page.pageSize,
    hasNextPage: page.hasNextPage,
    items: page.items.map((b) => [b.coinName, b.deltaAmount, b.afterAmount, Number(b.cTime) - T0])
  })

  it("pages newest first (billId desc within a millisecond), only the FUND account's entries", () => {
    const { a, engine } = setup()
    const page = engine.fundingBills(a)
    assert.deepStrictEqual(summary(page), {
      total: 6,
      page: 1,
      pageSize: 10,
      hasNextPage: false,
      items: [
        ["USDT", "30", "60", 5000],
        ["BTC", "3", "6", 4000],
        ["USDT", "20", "30", 3000],
        ["BTC", "2", "3", 3000],
        ["USDT", "10", "10", 2000],
        ["BTC", "1", "1", 1000]
      ]
    })
    const first = page.items[1]!
    assert.deepStrictEqual(
      { ...first, billId: isBigId(first.billId) },
      {
        billId: true,
        coinId: 1,
        coinName: "BTC",
        bizType: "deposit",
        deltaAmount: "3",
        afterAmount: "6",
        fees: "0",
        cTime: String(T0 + 4000)
      }
    )
    const ids = page.items.map((b) => BigInt(b.billId))
    for (let i = 1; i < ids.length; i++) assert.isTrue(ids[i - 1]! > ids[i]!, "billIds descend")
    assert.strictEqual(engine.fundingBillCount(a), 6)
  })

  it("startTime and endTime are exclusive; coinId filters", () => {
    const { a, engine } = setup()
    assert.deepStrictEqual(summary(engine.fundingBills(a, { startTime: T0 + 2000, endTime: T0 + 5000 })).items, [
      ["BTC", "3", "6", 4000],
      ["USDT", "20", "30", 3000],
      ["BTC", "2", "3", 3000]
    ])
    assert.strictEqual(engine.fundingBills(a, { startTime: T0 + 2000, endTime: T0 + 5000 }).total, 3)
    assert.deepStrictEqual(summary(engine.fundingBills(a, { coinId: 1 })).items, [
      ["BTC", "3", "6", 4000],
      ["BTC", "2", "3", 3000],
      ["BTC", "1", "1", 1000]
    ])
    const filtered = engine.fundingBills(a, { coinId: 2, startTime: T0 + 2000 })
    assert.deepStrictEqual(summary(filtered).items, [["USDT", "30", "60", 5000], ["USDT", "20", "30", 3000]])
    assert.strictEqual(filtered.total, 2)
    assert.strictEqual(engine.fundingBills(a, { startTime: T0 + 5000 }).total, 0)
    assert.strictEqual(engine.fundingBills(a, { endTime: T0 + 1000 }).total, 0)
    assert.strictEqual(engine.fundingBills(a, { coinId: 3 }).total, 0)
    assert.strictEqual(engine.fundingBills(a, { coinId: 999 }).total, 0)
    assert.strictEqual(engine.fundingBills("1999999999999999999").total, 0)
  })

  it("pageIndex / pageSize / total / hasNextPage", () => {
    const { a, engine } = setup()
    const pages = [1, 2, 3, 4].map((pageIndex) => summary(engine.fundingBills(a, { pageIndex, pageSize: 2 })))
    assert.deepStrictEqual(pages, [
      {
        total: 6,
        page: 1,
        pageSize: 2,
        hasNextPage: true,
        items: [["USDT", "30", "60", 5000], ["BTC", "3", "6", 4000]]
      },
      {
        total: 6,
        page: 2,
        pageSize: 2,
        hasNextPage: true,
        items: [["USDT", "20", "30", 3000], ["BTC", "2", "3", 3000]]
      },
      {
        total: 6,
        page: 3,
        pageSize: 2,
        hasNextPage: false,
        items: [["USDT", "10", "10", 2000], ["BTC", "1", "1", 1000]]
      },
      { total: 6, page: 4, pageSize: 2, hasNextPage: false, items: [] }
    ])
    const window = engine.fundingBills(a, { startTime: T0 + 1000, endTime: T0 + 5000, pageIndex: 2, pageSize: 3 })
    assert.deepStrictEqual(summary(window), {
      total: 4,
      page: 2,
      pageSize: 3,
      hasNextPage: false,
      items: [["USDT", "10", "10", 2000]]
    })
  })
  it("an out-of-range pageIndex or pageSize never yields another user's bills, bills out of bounds, or a next page after an empty one", () => {
    const engine = makeEngine()
    const b = engine.addUser()
    const a = engine.addUser()
    // The other user's bill is the ledger's first entry; then a's bills.
    engine.deposit(b, "FUND", "ETH", "9", T0)
    for (const t of [1000, 2000, 3000, 4000, 5000, 6000]) engine.deposit(a, "FUND", "USDT", "1", T0 + t)
    const own = new Set(engine.ledgerOf(a, "FUND").map((bill) => bill.billId))
    const queries: ReadonlyArray<Engine.BillQuery> = [
      { pageIndex: 0, pageSize: 2 },
      { pageIndex: -1, pageSize: 2 },
      { pageSize: 0 },
      { startTime: T0 + 2000, endTime: T0 + 4000, pageIndex: 0 }
    ]
    for (const query of queries) {
      let page: Engine.BillPage
      try {
        page = engine.fundingBills(a, query)
      } catch (error) {
        // Refusing the query is fine too.
        assert.instanceOf(error, Engine.EngineError, JSON.stringify(query))
        continue
      }
      for (const bill of page.items) {
        assert.isTrue(own.has(bill.billId), `${JSON.stringify(query)}: a bill of another user ${JSON.stringify(bill)}`)
        const t = Number(bill.cTime)
        assert.isTrue(
          (query.startTime === undefined || t > query.startTime) && (query.endTime === undefined || t < query.endTime),
          `${JSON.stringify(query)}: out of bounds ${bill.cTime}`
        )
      }
      assert.strictEqual(new Set(page.items.map((bill) => bill.billId)).size, page.items.length, "no repeats")
      assert.isFalse(page.items.length === 0 && page.hasNextPage, `${JSON.stringify(query)}: an empty page with a next`)
    }
  })
})

describe("units: trimmed", () => {
  it("is the exact decimal without trailing zeros, for any safe integer and scale", () => {
    // Reference: the digits with the point placed by string operations, then trailing zeros cut.
    const reference = (units: number, scale: number) => {
      if (units === 0) return "0"
      const digits = String(Math.abs(units)).padStart(scale + 1, "0")
      const whole = digits.slice(0, digits.length - scale)
      const fraction = digits.slice(digits.length - scale).replace(/0+$/, "")
      return (units < 0 ? "-" : "") + whole + (fraction === "" ? "" : "." + fraction)
    }
    const units = fc.oneof(
      fc.maxSafeInteger(),
      fc.integer({ min: -1_000_000, max: 1_000_000 }),
      fc.tuple(fc.integer({ min: -99_999, max: 99_999 }), fc.integer({ min: 0, max: 10 })).map(([n, zeros]) =>
        n * 10 ** zeros
      )
    )
    fc.assert(
      fc.property(units, fc.integer({ min: 0, max: 18 }), (n, scale) => {
        assert.strictEqual(trimmed(n, scale), reference(n, scale), `${n} at scale ${scale}`)
      }),
      { numRuns: 3000 }
    )
  })
})

describe("Engine: fundingBillsJson", () => {
  it("is exactly JSON.stringify of fundingBills for any query, also with names that need escaping", () => {
    const engine = new Engine.Engine({
      seed: 3,
      coins: [
        { name: "BTC", coinId: 1, scale: 8 },
        { name: "US\"D\\T", coinId: 2, scale: 2 },
        { name: "ZERO", coinId: 7, scale: 0 }
      ]
    })
    const a = engine.addUser()
    const b = engine.addUser()
    engine.generateBills(a, { count: 3000, from: T0, to: T0 + 1000, seed: 5 })
    engine.generateBills(b, { count: 50, from: T0, to: T0 + 1000, seed: 6 })
    const time = fc.option(fc.integer({ min: T0 - 10, max: T0 + 1010 }), { nil: undefined })
    const query = fc.record({
      coinId: fc.option(fc.constantFrom(1, 2, 7, 9), { nil: undefined }),
      startTime: time,
      endTime: time,
      // Direct callers may pass anything numeric (the protocol refuses such pages before): NaN and infinities too.
      pageIndex: fc.option(fc.oneof(fc.integer({ min: -1, max: 40 }), fc.constantFrom(NaN, Infinity, 1.5)), {
        nil: undefined
      }),
      pageSize: fc.option(fc.oneof(fc.integer({ min: 0, max: 100 }), fc.constantFrom(NaN, -Infinity)), {
        nil: undefined
      })
    })
    fc.assert(
      fc.property(fc.constantFrom(a, b, "1999999999999999999"), query, (user, q) => {
        assert.strictEqual(engine.fundingBillsJson(user, q), JSON.stringify(engine.fundingBills(user, q)))
      }),
      { numRuns: 500 }
    )
  })
})

describe("Engine: generateBills", () => {
  const FROM = T0
  const TO = T0 + 30 * 86_400_000
  const COUNT = 20_000

  const history = (seed: number, historySeed?: number) => {
    const engine = makeEngine({ seed })
    const a = engine.addUser()
    engine.generateBills(a, { count: COUNT, from: FROM, to: TO, seed: historySeed })
    return { engine, a }
  }

  it("writes `count` bills from `from` to `to` over every bizType, with a consistent afterAmount chain", () => {
    const { a, engine } = history(3)
    assert.strictEqual(engine.fundingBillCount(a), COUNT)
    const newest = engine.fundingBills(a, { pageSize: 1 })
    assert.strictEqual(newest.total, COUNT)
    assert.strictEqual(newest.items[0]?.cTime, String(TO))
    assert.strictEqual(engine.fundingBills(a, { pageSize: 1, pageIndex: COUNT }).items[0]?.cTime, String(FROM))

    const bills = engine.ledgerOf(a, "FUND")
    assert.strictEqual(bills.length, COUNT)
    assert.deepStrictEqual(new Set(bills.map((b) => b.bizType)), new Set(Engine.bizTypes))
    const after = new Map<string, bigint>()
    let previousTime = FROM
    for (const bill of bills) {
      const time = Number(bill.cTime)
      assert.isTrue(time >= previousTime && time <= TO, `time ${bill.cTime} in order and in range`)
      previousTime = time
      const expected = (after.get(bill.coinName) ?? 0n) + toUnits(bill.deltaAmount)
      assert.strictEqual(toUnits(bill.afterAmount), expected, `afterAmount of ${bill.billId}`)
      assert.isTrue(expected >= 0n, "no negative funding balance")
      after.set(bill.coinName, expected)
    }
    // The chain ends at the balances.
    for (const [coin, total] of after) {
      assert.strictEqual(toUnits(balance(engine, a, coin, "FUND").available), total, coin)
    }
    for (const t of engine.totals()) assert.strictEqual(toUnits(t.held) + toUnits(t.fees), toUnits(t.supply), t.coin)
  })

  it("the same seed gives the same bills; another seed other bills", () => {
    const strip = (bills: ReadonlyArray<Engine.LedgerEntry>) => bills.map(({ billId: _, userId: __, ...rest }) => rest)
    const one = history(5)
    const two = history(5)
    assert.strictEqual(JSON.stringify(one.engine.ledgerOf(one.a)), JSON.stringify(two.engine.ledgerOf(two.a)))
    assert.strictEqual(
      JSON.stringify(one.engine.fundingBills(one.a, { pageSize: 100, pageIndex: 7 })),
      JSON.stringify(two.engine.fundingBills(two.a, { pageSize: 100, pageIndex: 7 }))
    )
    const other = history(6)
    assert.notDeepEqual(strip(other.engine.ledgerOf(other.a)), strip(one.engine.ledgerOf(one.a)))
    const otherHistorySeed = history(5, 99)
    assert.notDeepEqual(strip(otherHistorySeed.engine.ledgerOf(otherHistorySeed.a)), strip(one.engine.ledgerOf(one.a)))
  })

  it("live activity after a history is dated no earlier than its last bill", () => {
    const { a, engine } = history(3)
    engine.deposit(a, "FUND", "USDT", "1", FROM + 5)
    const newest = engine.fundingBills(a, { pageSize: 1 }).items[0]!
    assert.deepStrictEqual([newest.bizType, newest.deltaAmount, newest.cTime], ["deposit", "1", String(TO)])
  })

  it("the last bill is at `to` even when span × count exceeds 2^53 (ten years, 30K bills)", () => {
    const engine = makeEngine()
    const a = engine.addUser()
    const to = FROM + 315_360_000_003
    engine.generateBills(a, { count: 30_000, from: FROM, to })
    const page = engine.fundingBills(a, { pageSize: 1 })
    assert.strictEqual(page.items[0]?.cTime, String(to))
    assert.strictEqual(engine.fundingBills(a, { pageSize: 1, pageIndex: 30_000 }).items[0]?.cTime, String(FROM))
  })
})

describe("Engine: ids and determinism", () => {
  /** A fixed script of calls: orders of every kind, a cancel, transfers, deposits and a short history. */
  const script = (seed: number) => {
    const engine = makeEngine({ seed })
    const a = addUser(engine, { USDT: "1000", BTC: "2" })
    const b = addUser(engine, { USDT: "1000", BTC: "2" })
    const placed = [
      place(engine, a, limit("sell", "100", "0.5", "a1"), T0 + 1),
      place(engine, a, limit("sell", "101", "0.5", "a2"), T0 + 2),
      place(engine, b, limit("buy", "100.5", "0.7", "b1"), T0 + 3),
      place(engine, b, limit("buy", "99", "0.3", "b2", "postOnly"), T0 + 4),
      place(engine, a, market("sell", "0.1", "a3"), T0 + 5),
      place(engine, b, market("buy", "20", "b3"), T0 + 6),
      place(engine, b, limit("buy", "101", "1", "b4", "fok"), T0 + 7),
      place(engine, b, limit("buy", "101", "1", "b5", "ioc"), T0 + 8)
    ]
    engine.cancelOrder(b, { clientOrderId: "b2" }, T0 + 9)
    const transfers = [
      engine.transfer(
        a,
        { toUserId: b, coin: "USDT", amount: "12.5", fromAccountType: "SPOT", toAccountType: "FUND" },
        T0 + 10
      ),
      engine.transfer(
        b,
        { toUserId: a, coin: "USDT", amount: "2.5", fromAccountType: "FUND", toAccountType: "SPOT" },
        T0 + 11
      )
    ]
    engine.generateBills(a, { count: 50, from: T0 + 20, to: T0 + 30 })
    return { engine, users: [a, b], placed, transfers }
  }
  const state = ({ engine, users }: ReturnType<typeof script>) =>
    JSON.stringify({
      orders: engine.orderList(),
      ledger: users.map((u) => engine.ledgerOf(u)),
      balances: users.map((u) => engine.balances(u)),
      trades: engine.tradeList(),
      totals: engine.totals(),
      bills: users.map((u) => engine.fundingBills(u, { pageSize: 100 }))
    })

  it("ids are 19-digit strings above 2^53, all distinct", () => {
    const run = script(42)
    const { engine } = run
    const transferIds = run.transfers.map((t) => t.ok ? t.id : assert.fail("transfer refused"))
    const ids = [
      ...run.users,
      ...run.users.map((u) => engine.orderList(u)[0]!.accountId),
      ...engine.orderList().map((o) => o.orderId),
      ...engine.tradeList().map((t) => t.tradeId),
      ...run.users.flatMap((u) => engine.ledgerOf(u).map((e) => e.billId)),
      ...transferIds
    ]
    assert.isAbove(engine.tradeList().length, 2)
    for (const id of ids) assert.isTrue(isBigId(id), id)
    assert.strictEqual(new Set(ids).size, ids.length)
    assert.deepStrictEqual(run.placed, engine.orderList().map((o) => o.orderId))
    // Each id finds its order exactly (no rounding through a number).
    for (const id of run.placed) assert.strictEqual(engine.order(id)?.orderId, id)
  })

  it("two engines with the same seed and calls give identical ids and state; another seed other ids", () => {
    const one = script(42)
    const two = script(42)
    assert.deepStrictEqual(one.placed, two.placed)
    assert.deepStrictEqual(one.users, two.users)
    assert.strictEqual(state(one), state(two))
    const other = script(43)
    assert.notDeepEqual(other.placed, one.placed)
  })

  it("placeUnits (the numeric fast path) matches the same orders given as wire strings", () => {
    const make = () => {
      const engine = makeEngine()
      const a = addUser(engine, { USDT: "1000", BTC: "2" })
      const b = addUser(engine, { USDT: "1000", BTC: "2" })
      return { engine, a, b }
    }
    const wire = make()
    place(wire.engine, wire.a, limit("sell", "100.25", "0.5", "x1"), T0 + 1)
    place(wire.engine, wire.b, limit("buy", "101", "0.75", "x2", "ioc"), T0 + 2)
    place(wire.engine, wire.b, market("buy", "30.5", "x3"), T0 + 3)
    const fast = make()
    const ok = (r: Engine.Placed | Engine.Rejection) => assert.isTrue(r.ok)
    ok(fast.engine.placeUnits(fast.a, SYMBOL, 1, 0, 0, 10025, 5000, "x1", T0 + 1))
    ok(fast.engine.placeUnits(fast.b, SYMBOL, 0, 0, 3, 10100, 7500, "x2", T0 + 2))
    ok(fast.engine.placeUnits(fast.b, SYMBOL, 0, 1, 0, 0, 3050, "x3", T0 + 3))
    assert.strictEqual(JSON.stringify(fast.engine.orderList()), JSON.stringify(wire.engine.orderList()))
    assert.strictEqual(
      JSON.stringify([fast.engine.balances(fast.a), fast.engine.balances(fast.b)]),
      JSON.stringify([wire.engine.balances(wire.a), wire.engine.balances(wire.b)])
    )
  })
})

/** The buffers behind an engine's stores (private fields, read for this test only), by store. */
const buffersOf = (engine: Engine.Engine): Array<readonly [string, ArrayBufferLike]> => {
  const field = (from: unknown, name: string): unknown => Reflect.get(from as object, name)
  const segments = (store: string) =>
    (field(field(field(engine, store), "records"), "segments") as Array<Float64Array>).map((s) =>
      [store, s.buffer] as const
    )
  return [
    ...segments("orders"),
    ...segments("ledger"),
    ...segments("tradeLog"),
    ["clientIds", (field(field(engine, "clientIds"), "slots") as Int32Array).buffer]
  ]
}

describe("storage", () => {
  it.each([true, false])(
    "keeps every order, trade and ledger entry exact while the first segments double and after (sharedMemory %s)",
    (sharedMemory) => {
      // The first segment of each store starts at 256 records and doubles up to a full one (2^14 records for orders
      // and trades, 2^16 for the ledger), then whole segments are added: 32,800 orders, 16,400 trades and 65,602
      // ledger entries cross every doubling and reach each store's second segment.
      const engine = makeEngine({ sharedMemory })
      const seller = addUser(engine, { BTC: "2000" })
      const buyer = addUser(engine, { USDT: "200000" })
      const pairs = 16_400
      const ids: Array<readonly [string, string]> = []
      for (let i = 0; i < pairs; i++) {
        const price = `${100 + (i % 7)}.25`
        const sell = place(engine, seller, limit("sell", price, "0.1", `s${i}`), T0 + i)
        const buy = place(engine, buyer, limit("buy", price, "0.1", `b${i}`), T0 + i)
        ids.push([sell, buy])
      }
      const trades = engine.tradeList()
      assert.strictEqual(trades.length, pairs)
      trades.forEach((trade, i) => {
        const price = toUnits(`${100 + (i % 7)}.25`)
        const value = price / 10n
        assert.deepStrictEqual(
          [trade.makerOrderId, trade.takerOrderId, trade.takerSide, toUnits(trade.price), toUnits(trade.quantity)],
          [ids[i]![0], ids[i]![1], "buy", price, toUnits("0.1")],
          `trade ${i}`
        )
        assert.deepStrictEqual([toUnits(trade.amount), toUnits(trade.makerFee), toUnits(trade.takerFee)], [
          value,
          value / 1000n,
          toUnits("0.0001")
        ], `trade ${i} amounts`)
        assert.strictEqual(trade.time, T0 + i)
        for (const orderId of ids[i]!) {
          const order = engine.order(orderId)!
          assert.deepStrictEqual(
            [order.status, toUnits(order.fillQuantity), toUnits(order.latestFillPrice), toUnits(order.fillTotalAmount)],
            ["filled", toUnits("0.1"), price, value],
            `order ${orderId}`
          )
        }
      })
      // Each account's afterAmount chain, from zero, ends at its balance.
      for (const user of [seller, buyer]) {
        const after = new Map<string, bigint>()
        for (const entry of engine.ledgerOf(user)) {
          const key = `${entry.accountType}/${entry.coinName}`
          const total = (after.get(key) ?? 0n) + toUnits(entry.deltaAmount)
          assert.strictEqual(toUnits(entry.afterAmount), total, `${user} ${key} ${entry.billId}`)
          after.set(key, total)
        }
        for (const coin of ["BTC", "USDT"]) {
          const { available, frozen } = balance(engine, user, coin)
          assert.strictEqual(toUnits(available) + toUnits(frozen), after.get(`SPOT/${coin}`) ?? 0n, `${user} ${coin}`)
        }
      }
      assert.strictEqual(engine.ledgerOf(seller).length + engine.ledgerOf(buyer).length, 2 + 4 * pairs)
      // Each store's memory is of the kind asked for.
      for (const [store, buffer] of buffersOf(engine)) {
        assert.strictEqual(buffer instanceof SharedArrayBuffer, sharedMemory, store)
      }
    }
  )
})

describe("ids", () => {
  it("writes every sequence number zero-padded to 15 digits behind the kind and the seed's prefix", () => {
    const engine = makeEngine() // seed 7
    const seqs = [0]
    for (let digits = 1; digits <= 15; digits++) seqs.push(10 ** (digits - 1), 10 ** digits - 1)
    for (const seq of seqs) {
      const id = engine.orderIdOf(seq)
      assert.strictEqual(id, `1007${String(seq).padStart(15, "0")}`, `seq ${seq}`)
      assert.strictEqual(id.length, 19)
    }
  })

  it("refuses what cannot be an order's sequence number", () => {
    const engine = makeEngine()
    for (const seq of [-1, 1.5, Number.NaN, 10 ** 15, Number.POSITIVE_INFINITY]) {
      assert.throws(() => engine.orderIdOf(seq), Engine.EngineError)
    }
  })
})

describe("open orders", () => {
  it("pages newest first, orderId desc within a millisecond, even when a caller's clock goes back", () => {
    const engine = makeEngine()
    const user = addUser(engine, { USDT: "100000" })
    // Times 5, 5, 5, then 3 and 4 (earlier than the engine has seen: it keeps its clock), then 9; a filled or
    // cancelled order is not listed.
    const times = [5, 5, 5, 3, 4, 9]
    const ids = times.map((t, i) => place(engine, user, limit("buy", `${100 + i}`, "0.1", `o${i}`), T0 + t))
    assert.isTrue(engine.cancelOrder(user, { orderId: ids[2]! }, T0 + 10))
    const expected = [ids[5], ids[4], ids[3], ids[1], ids[0]]
    const pages = [0, 1, 2].map((pageNo) => engine.openOrders(user, SYMBOL, pageNo, 2).map((o) => o.orderId))
    assert.deepStrictEqual(pages, [expected.slice(0, 2), expected.slice(2, 4), expected.slice(4)])
    assert.deepStrictEqual(engine.openOrders(user, SYMBOL, 3, 2), [])
    const views = engine.openOrders(user, SYMBOL, 0, 10)
    assert.deepStrictEqual(views.map((o) => o.cTime), [9, 5, 5, 5, 5].map((t) => String(T0 + t)))
  })
})

describe("cancelBySeq", () => {
  it("cancels as cancelOrder by orderId does, and refuses what cancelOrder refuses", () => {
    // Twin engines given the same calls, one cancelling by sequence number, the other by orderId.
    const run = (bySeq: boolean) => {
      const engine = makeEngine()
      const alice = addUser(engine, { USDT: "1000", BTC: "1" })
      const bob = addUser(engine, { USDT: "1000" })
      const a = engine.userIndex(alice)
      const b = engine.userIndex(bob)
      const product = engine.productIndex(SYMBOL)
      // A resting buy of Alice, a resting sell of Alice, and an IOC of Bob that never rests.
      const buy = engine.submit(a, product, 0, 0, 0, 10_000, 1_000, "a1", T0)
      const sell = engine.submit(a, product, 1, 0, 0, 20_000, 1_000, "a2", T0)
      const ioc = engine.submit(b, product, 0, 0, 3, 10_000, 1_000, "b1", T0)
      const cancel = (user: number, userId: string, seq: number) =>
        bySeq
          ? engine.cancelBySeq(user, seq, T0 + 1)
          : engine.cancelOrder(userId, { orderId: engine.orderIdOf(seq) }, T0 + 1)
      const answers = [
        cancel(b, bob, buy), // not Bob's
        cancel(b, bob, ioc), // Bob's, but not open
        cancel(a, alice, buy), // cancelled
        cancel(a, alice, buy) // not open any more
      ]
      return { answers, views: engine.orderList(alice), balances: engine.balances(alice), sell }
    }
    const bySeq = run(true)
    assert.deepStrictEqual(bySeq.answers, [false, false, true, false])
    assert.deepStrictEqual(bySeq, run(false))
    assert.deepStrictEqual(bySeq.views.map((o) => o.status), ["cancelled", "open"])
  })

  it("refuses what is not a sequence number without touching any order", () => {
    const engine = makeEngine()
    const alice = addUser(engine, { USDT: "1000" })
    const a = engine.userIndex(alice)
    const seq = engine.submit(a, engine.productIndex(SYMBOL), 0, 0, 0, 10_000, 1_000, "a1", T0)
    assert.strictEqual(seq, 0)
    for (const bad of [-1, 0.5, 1, Number.NaN, 2 ** 53]) assert.isFalse(engine.cancelBySeq(a, bad, T0), String(bad))
    assert.isFalse(engine.cancelBySeq(a + 5, seq, T0), "unknown user")
    assert.deepStrictEqual(engine.orderList(alice).map((o) => o.status), ["open"])
  })
})
