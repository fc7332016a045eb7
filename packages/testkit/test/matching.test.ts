/**
 * Matching by example: price-time priority, fills at the maker's price, the forces (postOnly, fok, ioc), market
 * orders, frozen funds released by fills and cancels, and fees. Every expected figure is worked out by hand from the
 * rules on the product of `support/engine.ts`.
 */
import { assert, describe, it } from "@effect/vitest"
import {
  addUser,
  balance,
  fills,
  isBigId,
  limit,
  makeEngine,
  market,
  NO_FILLS,
  openIds,
  orderOf,
  place,
  snapshot,
  SYMBOL,
  T0,
  totalsOf,
  tradeSummary
} from "./support/engine.ts"

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
      status: "full_fill",
      fillQuantity: "2.5000",
      fillTotalAmount: "250.5",
      latestFillPrice: "101.00",
      maxFillPrice: "101.00",
      minFillPrice: "100.00"
    })
    assert.strictEqual(orderOf(engine, o2).status, "full_fill")
    assert.strictEqual(orderOf(engine, o3).status, "full_fill")
    const partly = orderOf(engine, o1)
    assert.deepStrictEqual(fills(partly), {
      status: "partial_fill",
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
      status: "full_fill",
      fillQuantity: "2.5000",
      fillTotalAmount: "248.5",
      latestFillPrice: "99.00",
      maxFillPrice: "99.50",
      minFillPrice: "99.00"
    })
    // b1 keeps 0.5 × 99 = 49.5 frozen; it received 0.5 BTC less the maker fee 0.0005.
    assert.deepStrictEqual(balance(engine, b1, "USDT"), { available: "1", frozen: "49.5" })
    assert.deepStrictEqual(balance(engine, b1, "BTC"), { available: "0.4995", frozen: "0" })
    assert.strictEqual(orderOf(engine, o1).status, "partial_fill")
  })

  it("a resting order shows 0 in every fill field, then the fields of docs/venue/trading.md#order-record as it is partly filled", () => {
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
      status: "partial_fill",
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

  it("a taker that fills at several prices and rests the rest stays open (partial_fill) with its min/max/latest fill prices", () => {
    const engine = makeEngine()
    const s = addUser(engine, { BTC: "2" })
    const b = addUser(engine, { USDT: "1000" })
    place(engine, s, limit("sell", "100", "1", "a1"))
    place(engine, s, limit("sell", "101", "1", "a2"))
    const taker = place(engine, b, limit("buy", "101", "3", "b"))
    assert.deepStrictEqual(fills(orderOf(engine, taker)), {
      status: "partial_fill",
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
      status: "full_fill",
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
    assert.strictEqual(orderOf(engine, whole).status, "full_fill")
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
        status: "full_fill",
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

  it("a market buy spends its quote amount, whole lots at each level (docs/venue/trading.md#market-orders); force is ignored", () => {
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
        status: "full_fill",
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
    assert.strictEqual(orderOf(engine, bid).status, "partial_fill")

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
    assert.strictEqual(filled?.status, "full_fill")
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
