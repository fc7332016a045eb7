/**
 * Cancels with their outcomes (docs/venue/trading.md, cancel order and cancel many orders): a cancel releases exactly what its order still holds frozen and
 * leaves the order `cancelled` with its fills; an order that is not open is `43004`, one that is not the user's on
 * the symbol `43001`. Figures worked out by hand from the rules of support/engine.ts (BTCUSDT_SPBL, price 2
 * decimals, quantity 4, fees 0.001).
 */
import { assert, describe, it } from "@effect/vitest"
import { Engine } from "../src/index.ts"
import { addUser, balance, fills, limit, makeEngine, orderOf, place, SYMBOL, T0 } from "./support/engine.ts"

const ETH = "ETHUSDT_SPBL"

const setup = () => {
  const engine = makeEngine()
  engine.addProduct({ symbol: ETH, base: "ETH", quote: "USDT", pricePrecision: 2, quantityPrecision: 4 })
  const buyer = addUser(engine, { USDT: "1000" })
  const seller = addUser(engine, { BTC: "2", ETH: "1" })
  return { engine, buyer, seller }
}

describe("Engine.cancel", () => {
  it("releases what a partly filled buy still holds (its unfilled quantity at its own price); fills stay", () => {
    const { buyer, engine, seller } = setup()
    place(engine, seller, limit("sell", "100.00", "0.5", "ask"))
    const bid = place(engine, buyer, limit("buy", "101.00", "2", "bid"), T0 + 1)
    // Froze 2 × 101 = 202; the fill spent 0.5 × 100 = 50 and gave back 0.5 × (101 - 100) = 0.5.
    assert.deepStrictEqual(balance(engine, buyer, "USDT"), { available: "798.5", frozen: "151.5" })
    const done = engine.cancel(buyer, SYMBOL, { orderId: bid }, T0 + 2)
    assert.deepStrictEqual(done, { ok: true, orderId: bid, clientOrderId: "bid" })
    assert.deepStrictEqual(balance(engine, buyer, "USDT"), { available: "950", frozen: "0" })
    const order = orderOf(engine, bid)
    assert.deepStrictEqual(fills(order), {
      status: "cancelled",
      fillQuantity: "0.5000",
      fillTotalAmount: "50",
      latestFillPrice: "100.00",
      maxFillPrice: "100.00",
      minFillPrice: "100.00"
    })
    assert.strictEqual(order.uTime, String(T0 + 2))
    assert.strictEqual(order.status, "cancelled")
  })

  it("releases what a sell holds (its unfilled base quantity), by clientOrderId", () => {
    const { buyer, engine, seller } = setup()
    place(engine, seller, limit("sell", "100.00", "1.5", "ask"))
    place(engine, buyer, limit("buy", "100.00", "0.25", "bid"), T0 + 1)
    assert.deepStrictEqual(balance(engine, seller, "BTC"), { available: "0.5", frozen: "1.25" })
    const done = engine.cancel(seller, SYMBOL, { clientOrderId: "ask" }, T0 + 2)
    assert.isTrue(done.ok)
    assert.deepStrictEqual(balance(engine, seller, "BTC"), { available: "1.75", frozen: "0" })
  })

  it("43004 for an order already cancelled or filled, with the order's ids; nothing changes", () => {
    const { buyer, engine, seller } = setup()
    const ask = place(engine, seller, limit("sell", "100.00", "0.5", "ask"))
    const bid = place(engine, buyer, limit("buy", "100.00", "0.5", "bid"), T0 + 1)
    assert.strictEqual(orderOf(engine, ask).status, "full_fill")
    for (const [user, orderId, clientOrderId] of [[seller, ask, "ask"], [buyer, bid, "bid"]] as const) {
      const before = engine.balances(user)
      assert.deepStrictEqual(engine.cancel(user, SYMBOL, { orderId }, T0 + 2), {
        ok: false,
        code: "43004",
        msg: "There is no order to cancel",
        orderId,
        clientOrderId
      })
      assert.deepStrictEqual(engine.balances(user), before)
      assert.strictEqual(orderOf(engine, orderId).status, "full_fill")
    }
    const rest = place(engine, buyer, limit("buy", "90.00", "0.5", "rest"), T0 + 3)
    assert.isTrue(engine.cancel(buyer, SYMBOL, { clientOrderId: "rest" }, T0 + 4).ok)
    const again = engine.cancel(buyer, SYMBOL, { clientOrderId: "rest" }, T0 + 5)
    assert.deepStrictEqual(again, {
      ok: false,
      code: "43004",
      msg: "There is no order to cancel",
      orderId: rest,
      clientOrderId: "rest"
    })
    assert.strictEqual(orderOf(engine, rest).uTime, String(T0 + 4), "the second cancel did not touch it")
  })

  it("43001 for no such order of the user on the symbol: unknown ids, another user's, another symbol's", () => {
    const { buyer, engine, seller } = setup()
    const ask = place(engine, seller, limit("sell", "100.00", "0.5", "ask"))
    const eth = place(engine, seller, { ...limit("sell", "50.00", "0.5", "eth"), symbol: ETH })
    const notFound = (orderId: string | undefined, clientOrderId: string | undefined): Engine.NotCancelled => ({
      ok: false,
      code: "43001",
      msg: "FAILED_ORDER_NOT_FOUND",
      orderId,
      clientOrderId
    })
    const snapshot = JSON.stringify([engine.orderList(), engine.balances(seller)])
    // Bob's order, by its id or by its clientOrderId, is not the buyer's.
    assert.deepStrictEqual(engine.cancel(buyer, SYMBOL, { orderId: ask }, T0), notFound(ask, undefined))
    assert.deepStrictEqual(engine.cancel(buyer, SYMBOL, { clientOrderId: "ask" }, T0), notFound(undefined, "ask"))
    // The seller's own ETH order, named on BTCUSDT_SPBL.
    assert.deepStrictEqual(engine.cancel(seller, SYMBOL, { orderId: eth }, T0), notFound(eth, undefined))
    // Ids that are no order: one never issued, one of another kind (a user id), digits of the wrong length.
    const unissued = ask.slice(0, -3) + "999"
    for (const orderId of [unissued, seller, "123", "-1"]) {
      assert.deepStrictEqual(engine.cancel(seller, SYMBOL, { orderId }, T0), notFound(orderId, undefined), orderId)
    }
    assert.deepStrictEqual(engine.cancel(seller, "DOGEUSDT_SPBL", { orderId: ask }, T0), notFound(ask, undefined))
    assert.deepStrictEqual(engine.cancel("4999000000000000001", SYMBOL, { orderId: ask }, T0), notFound(ask, undefined))
    assert.deepStrictEqual(engine.cancel(seller, SYMBOL, {}, T0), notFound(undefined, undefined))
    assert.strictEqual(JSON.stringify([engine.orderList(), engine.balances(seller)]), snapshot, "nothing changed")
    // The orderId wins when both are given.
    assert.deepStrictEqual(engine.cancel(seller, SYMBOL, { orderId: ask, clientOrderId: "nope" }, T0).ok, true)
  })
})

describe("Engine.cancelOrders and cancelAll", () => {
  it("cancels each named order in turn: the second naming of one order is 43004, an unknown one 43001", () => {
    const { buyer, engine } = setup()
    const a = place(engine, buyer, limit("buy", "90.00", "1", "a"))
    const b = place(engine, buyer, limit("buy", "91.00", "1", "b"))
    const batch = engine.cancelOrders(buyer, SYMBOL, [{ orderId: b }, { clientOrderId: "zz" }, { orderId: a }, {
      clientOrderId: "b"
    }], T0 + 1)
    assert.deepStrictEqual(batch.cancelled, [
      { ok: true, orderId: b, clientOrderId: "b" },
      { ok: true, orderId: a, clientOrderId: "a" }
    ])
    assert.deepStrictEqual(batch.failed.map((f) => [f.code, f.orderId, f.clientOrderId]), [
      ["43001", undefined, "zz"],
      ["43004", b, "b"]
    ])
    assert.deepStrictEqual(balance(engine, buyer, "USDT"), { available: "1000", frozen: "0" })
  })

  it("cancelAll cancels the user's open orders on the symbol, oldest first, and nothing else", () => {
    const { buyer, engine, seller } = setup()
    const bids = ["90.00", "92.00", "91.00"].map((price, i) =>
      place(engine, buyer, limit("buy", price, "1", `b${i}`), T0 + i)
    )
    const theirs = place(engine, seller, limit("sell", "120.00", "1", "s"))
    const eth = place(engine, seller, { ...limit("sell", "60.00", "0.5", "e"), symbol: ETH })
    const all = engine.cancelAll(buyer, SYMBOL, T0 + 10)
    assert.deepStrictEqual(all.cancelled.map((c) => c.orderId), bids)
    assert.deepStrictEqual(all.failed, [])
    assert.deepStrictEqual(balance(engine, buyer, "USDT"), { available: "1000", frozen: "0" })
    assert.strictEqual(orderOf(engine, theirs).status, "open")
    assert.strictEqual(orderOf(engine, eth).status, "open")
    assert.deepStrictEqual(engine.cancelAll(buyer, SYMBOL, T0 + 11), { cancelled: [], failed: [] })
    assert.deepStrictEqual(engine.cancelAll(seller, "DOGEUSDT_SPBL", T0 + 11), { cancelled: [], failed: [] })
    assert.deepStrictEqual(engine.cancelAll(seller, ETH, T0 + 12).cancelled.map((c) => c.orderId), [eth])
  })
})

describe("OrderView.status", () => {
  it("in the venue's words: open without a fill, partial_fill resting partly filled, full_fill, cancelled (an IOC remainder too)", () => {
    const { buyer, engine, seller } = setup()
    place(engine, seller, limit("sell", "100.00", "0.5", "ask"))
    const resting = place(engine, buyer, limit("buy", "90.00", "0.5", "rest"))
    const partly = place(engine, buyer, limit("buy", "100.00", "0.75", "partly"))
    place(engine, seller, limit("sell", "100.00", "0.5", "ask2"))
    const ioc = place(engine, buyer, limit("buy", "100.00", "1", "ioc", "ioc"))
    const statuses = [resting, partly, ioc].map((id) => orderOf(engine, id).status)
    assert.deepStrictEqual(statuses, ["open", "full_fill", "cancelled"])
    // The deprecated Engine.venueStatus answers the same word.
    assert.deepStrictEqual([resting, partly, ioc].map((id) => Engine.venueStatus(orderOf(engine, id))), statuses)
    // The ioc took 0.25 (what was left after `partly` took its last 0.25) and was cancelled with that fill.
    assert.strictEqual(orderOf(engine, ioc).fillQuantity, "0.2500")
    const half = place(engine, buyer, limit("buy", "101.00", "1", "half"))
    place(engine, seller, limit("sell", "101.00", "0.5", "ask3"))
    assert.strictEqual(orderOf(engine, half).status, "partial_fill")
    // Every list and lookup of the engine reads the same word.
    assert.strictEqual(engine.orderByClientId(buyer, "half")?.status, "partial_fill")
    assert.strictEqual(engine.orderList(buyer).find((o) => o.orderId === half)?.status, "partial_fill")
    assert.strictEqual(engine.orderHistory(buyer, SYMBOL).items.find((o) => o.orderId === half)?.status, "partial_fill")
  })
})
