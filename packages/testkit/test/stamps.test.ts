/**
 * Ids and determinism: every id is a 19-digit string above 2^53, distinct, and the same seed and calls give the same
 * ids and state.
 */
import { assert, describe, it } from "@effect/vitest"
import { addUser, isBigId, limit, makeEngine, market, place, T0 } from "./support/engine.ts"

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
})
