/**
 * Views and queries: open orders page newest first.
 */
import { assert, describe, it } from "@effect/vitest"
import { addUser, limit, makeEngine, place, SYMBOL, T0 } from "./support/engine.ts"

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
