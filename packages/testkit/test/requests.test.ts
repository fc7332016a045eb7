/**
 * Requests as the venue receives them: each refusal of an order given as wire strings has the venue's code and
 * changes nothing.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import type { Engine } from "../src/index.ts"
import { isClientOrderId } from "../src/internal/engine/requests.ts"
import { addUser, limit, makeEngine, market, orderOf, place, snapshot, T0 } from "./support/engine.ts"

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
    assert.strictEqual(engine.orderByClientId(u, "filled-once")?.status, "full_fill")
    assert.strictEqual(engine.orderByClientId(other, "ask")?.status, "full_fill")
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

describe("Engine: the venue's clientOrderId form", () => {
  it("isClientOrderId answers as ^[A-Za-z0-9_-]{1,40}$ does, on any string", () => {
    const pattern = /^[A-Za-z0-9_-]{1,40}$/
    const alphabet = fc.constantFrom(..."aZ09_-.:/ é\u0000\uD800😀")
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ maxLength: 45 }), fc.string({ unit: alphabet, maxLength: 45 })),
        (id) => isClientOrderId(id) === pattern.test(id)
      ),
      { numRuns: 2000 }
    )
    for (const id of ["", "a", "x".repeat(40), "x".repeat(41), "A-Z_a-z_0-9", "a b", "ä"]) {
      assert.strictEqual(isClientOrderId(id), pattern.test(id), id)
    }
  })

  it("placing refuses any other clientOrderId with 40020, changing nothing", () => {
    const engine = makeEngine()
    const u = addUser(engine, { USDT: "1000" })
    const before = snapshot(engine, [u])
    for (const cid of ["", "x".repeat(41), "a.b", "a b", "ä", "a\u0000"]) {
      const result = engine.placeOrder(u, limit("buy", "100", "0.1", cid), T0)
      assert.deepStrictEqual(result, { ok: false, code: "40020", msg: "Parameter clientOrderId error" }, cid)
    }
    assert.strictEqual(snapshot(engine, [u]), before)
    place(engine, u, limit("buy", "100", "0.1", "x".repeat(40)))
  })
})
