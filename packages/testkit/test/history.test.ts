/**
 * Order history and fills (docs/venue/trading.md#order-history, #fills): every order of a user on a symbol with its final status and fills,
 * every fill with its price, quantity, total and fee, newest first, `after` / `before` exclusive, `pageIndex` from 0.
 * Figures worked out by hand from the rules of support/engine.ts (BTCUSDT_SPBL, price 2 decimals, quantity 4, fees
 * 0.001 of what a side receives).
 */
import { assert, describe, it } from "@effect/vitest"
import type { Engine } from "../src/index.ts"
import { addUser, limit, makeEngine, market, place, SYMBOL, T0 } from "./support/engine.ts"

const ETH = "ETHUSDT_SPBL"

describe("Engine.orderHistory", () => {
  it("lists every status, newest first (orderId desc within a millisecond), only the user's on the symbol", () => {
    const engine = makeEngine()
    engine.addProduct({ symbol: ETH, base: "ETH", quote: "USDT", pricePrecision: 2, quantityPrecision: 4 })
    const user = addUser(engine, { USDT: "10000" })
    const other = addUser(engine, { BTC: "10", ETH: "10" })
    const ask = place(engine, other, limit("sell", "100.00", "1", "ask"), T0 + 1)
    const filled = place(engine, user, limit("buy", "100.00", "1", "filled"), T0 + 2)
    const open = place(engine, user, limit("buy", "90.00", "1", "open"), T0 + 2)
    const cancelled = place(engine, user, limit("buy", "80.00", "1", "cancelled"), T0 + 3)
    engine.cancel(user, SYMBOL, { orderId: cancelled }, T0 + 4)
    place(engine, user, { ...limit("buy", "10.00", "1", "eth"), symbol: ETH }, T0 + 5)
    const page = engine.orderHistory(user, SYMBOL)
    assert.deepStrictEqual(page.items.map((o) => [o.orderId, o.status]), [
      [cancelled, "cancelled"],
      [open, "open"],
      [filled, "full_fill"]
    ])
    assert.isFalse(page.nextPage)
    assert.deepStrictEqual(engine.orderHistory(other, SYMBOL).items.map((o) => o.orderId), [ask])
    assert.deepStrictEqual(engine.orderHistory(user, "DOGEUSDT_SPBL"), { items: [], nextPage: false })
    assert.deepStrictEqual(engine.orderHistory("4999000000000000001", SYMBOL), { items: [], nextPage: false })
  })

  it("pages by pageIndex from 0 and pageSize (10 by default) with exclusive time bounds; sees later orders", () => {
    const engine = makeEngine()
    const user = addUser(engine, { USDT: "100000" })
    // 25 orders at T0 + 0 .. T0 + 24.
    const ids = Array.from({ length: 25 }, (_, i) => place(engine, user, limit("buy", "10.00", "1", `o${i}`), T0 + i))
    const newest = ids.slice().reverse()
    const idsOf = (query: Engine.PageQuery) => {
      const page = engine.orderHistory(user, SYMBOL, query)
      return [page.items.map((o) => o.orderId), page.nextPage]
    }
    assert.deepStrictEqual(idsOf({}), [newest.slice(0, 10), true])
    assert.deepStrictEqual(idsOf({ pageIndex: 2 }), [newest.slice(20), false])
    assert.deepStrictEqual(idsOf({ pageIndex: 3 }), [[], false])
    assert.deepStrictEqual(idsOf({ pageSize: 25 }), [newest, false])
    assert.deepStrictEqual(idsOf({ pageSize: 24 }), [newest.slice(0, 24), true])
    // Exclusive: after T0 + 4 and before T0 + 9 are T0 + 5 .. T0 + 8.
    assert.deepStrictEqual(idsOf({ after: T0 + 4, before: T0 + 9 }), [ids.slice(5, 9).reverse(), false])
    assert.deepStrictEqual(idsOf({ after: T0 + 4, before: T0 + 9, pageSize: 3 }), [ids.slice(6, 9).reverse(), true])
    assert.deepStrictEqual(idsOf({ after: T0 + 24 }), [[], false])
    assert.deepStrictEqual(idsOf({ before: T0 }), [[], false])
    // A direct caller's page out of range is empty (the protocol refuses it).
    assert.deepStrictEqual(idsOf({ pageSize: 0 }), [[], false])
    assert.deepStrictEqual(idsOf({ pageIndex: -1 }), [[], false])
    // Orders placed after a query are in the next one.
    const later = place(engine, user, limit("buy", "10.00", "1", "later"), T0 + 30)
    assert.deepStrictEqual(idsOf({ pageSize: 2 }), [[later, newest[0]], true])
  })
})

describe("Engine.fills", () => {
  const setup = () => {
    const engine = makeEngine()
    const maker = addUser(engine, { BTC: "2" })
    const taker = addUser(engine, { USDT: "1000" })
    const ask1 = place(engine, maker, limit("sell", "100.00", "0.5", "ask1"), T0 + 1)
    const ask2 = place(engine, maker, limit("sell", "101.00", "1", "ask2"), T0 + 2)
    // Takes 0.5 at 100.00 and 0.25 at 101.00.
    const bid = place(engine, taker, limit("buy", "101.00", "0.75", "bid"), T0 + 3)
    return { engine, maker, taker, ask1, ask2, bid }
  }

  it("each side of a trade is a fill of its owner: price, quantity, total, its fee in the coin it received", () => {
    const { ask1, ask2, bid, engine, maker, taker } = setup()
    const takerFills = engine.fills(taker, SYMBOL)
    assert.isFalse(takerFills.nextPage)
    assert.deepStrictEqual(
      takerFills.items.map((f) => [f.orderId, f.role, f.side, f.fillPrice, f.fillQuantity, f.fillTotalAmount, f.fees]),
      [
        // 0.25 × 101 = 25.25 USDT; the buyer receives 0.25 BTC and pays 0.00025 of it.
        [bid, "taker", "buy", "101.00", "0.2500", "25.25", "0.00025"],
        [bid, "taker", "buy", "100.00", "0.5000", "50", "0.0005"]
      ]
    )
    assert.deepStrictEqual(
      engine.fills(maker, SYMBOL).items.map((f) => [f.orderId, f.role, f.side, f.fillPrice, f.fees, f.feeCoin]),
      [
        // The seller receives 25.25 USDT and pays 0.02525 of it; 0.05 of 50.
        [ask2, "maker", "sell", "101.00", "0.02525", "USDT"],
        [ask1, "maker", "sell", "100.00", "0.05", "USDT"]
      ]
    )
    const [first] = engine.fills(taker, SYMBOL).items
    assert.deepStrictEqual(
      {
        symbol: first!.symbol,
        baseCoin: first!.baseCoin,
        quoteCoin: first!.quoteCoin,
        orderType: first!.orderType,
        feeCoin: first!.feeCoin,
        cTime: first!.cTime,
        userId: first!.userId
      },
      {
        symbol: SYMBOL,
        baseCoin: "BTC",
        quoteCoin: "USDT",
        orderType: "limit",
        feeCoin: "BTC",
        cTime: String(T0 + 3),
        userId: taker
      }
    )
    // The fills of one order add up to its fill fields.
    const order = engine.order(bid)!
    assert.deepStrictEqual([order.fillQuantity, order.fillTotalAmount], ["0.7500", "75.25"])
  })

  it("fill ids are unique, one per side, also when a user trades with itself; trades and fills agree", () => {
    const { engine, maker } = setup()
    engine.deposit(maker, "SPOT", "USDT", "1000", T0 + 4)
    // The maker buys from its own remaining ask (0.75 at 101.00): both sides are its fills.
    const self = place(engine, maker, market("buy", "50.50", "self"), T0 + 5)
    const fills = engine.fillList()
    const ids = fills.map((f) => f.fillId)
    assert.strictEqual(new Set(ids).size, ids.length)
    assert.strictEqual(fills.length, 2 * engine.tradeList().length)
    for (const id of ids) assert.match(id, /^7\d{18}$/)
    const own = engine.fills(maker, SYMBOL, { orderId: self }).items
    assert.deepStrictEqual(own.map((f) => [f.role, f.side, f.fillQuantity, f.fillTotalAmount]), [
      ["taker", "buy", "0.5000", "50.5"]
    ])
    const selfTrade = engine.fillList(maker).filter((f) => f.tradeId === own[0]!.tradeId)
    assert.deepStrictEqual(selfTrade.map((f) => f.role), ["maker", "taker"])
    assert.notStrictEqual(selfTrade[0]!.fillId, selfTrade[1]!.fillId)
    // Every trade's fees, side by side with its fills'.
    for (const trade of engine.tradeList()) {
      const sides = fills.filter((f) => f.tradeId === trade.tradeId)
      assert.deepStrictEqual(sides.map((f) => [f.orderId, f.fees]), [
        [trade.makerOrderId, trade.makerFee],
        [trade.takerOrderId, trade.takerFee]
      ])
    }
  })

  it("of one order, paged and bounded by time like the history; none without the trade log", () => {
    const { ask1, ask2, engine, maker, taker } = setup()
    assert.deepStrictEqual(engine.fills(maker, SYMBOL, { orderId: ask1 }).items.map((f) => f.orderId), [ask1])
    assert.deepStrictEqual(engine.fills(taker, SYMBOL, { orderId: ask1 }).items, [], "not the taker's order")
    assert.deepStrictEqual(engine.fills(maker, SYMBOL, { orderId: "1" }).items, [])
    const page0 = engine.fills(maker, SYMBOL, { pageSize: 1 })
    const page1 = engine.fills(maker, SYMBOL, { pageSize: 1, pageIndex: 1 })
    assert.deepStrictEqual([page0.items.map((f) => f.orderId), page0.nextPage], [[ask2], true])
    assert.deepStrictEqual([page1.items.map((f) => f.orderId), page1.nextPage], [[ask1], false])
    const filtered = engine.fills(maker, SYMBOL, { orderId: ask2, pageSize: 1 })
    assert.deepStrictEqual([filtered.items.map((f) => f.orderId), filtered.nextPage], [[ask2], false])
    assert.deepStrictEqual(engine.fills(maker, SYMBOL, { after: T0 + 3 }).items, [])
    assert.strictEqual(engine.fills(maker, SYMBOL, { after: T0 + 2, before: T0 + 4 }).items.length, 2)

    const quiet = makeEngine({ recordTrades: false })
    const seller = addUser(quiet, { BTC: "1" })
    const buyer = addUser(quiet, { USDT: "1000" })
    place(quiet, seller, limit("sell", "100.00", "0.5", "a"))
    place(quiet, buyer, limit("buy", "100.00", "0.5", "b"))
    assert.deepStrictEqual(quiet.fills(buyer, SYMBOL), { items: [], nextPage: false })
    assert.strictEqual(quiet.orderHistory(buyer, SYMBOL).items[0]!.fillQuantity, "0.5000")
  })
})
