/**
 * The numeric entry to the engine: orders placed in units match the same orders given as wire strings, order ids
 * from sequence numbers, and cancels by sequence number as by orderId.
 */
import { assert, describe, it } from "@effect/vitest"
import { Engine, EngineUnits } from "../src/index.ts"
import { addUser, limit, makeEngine, market, place, SYMBOL, T0 } from "./support/engine.ts"

describe("EngineUnits", () => {
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
    const units = EngineUnits.make(fast.engine)
    ok(units.placeUnits(fast.a, SYMBOL, 1, 0, 0, 10025, 5000, "x1", T0 + 1))
    ok(units.placeUnits(fast.b, SYMBOL, 0, 0, 3, 10100, 7500, "x2", T0 + 2))
    ok(units.placeUnits(fast.b, SYMBOL, 0, 1, 0, 0, 3050, "x3", T0 + 3))
    assert.strictEqual(JSON.stringify(fast.engine.orderList()), JSON.stringify(wire.engine.orderList()))
    assert.strictEqual(
      JSON.stringify([fast.engine.balances(fast.a), fast.engine.balances(fast.b)]),
      JSON.stringify([wire.engine.balances(wire.a), wire.engine.balances(wire.b)])
    )
  })
})

describe("ids", () => {
  it("writes every sequence number zero-padded to 15 digits behind the kind and the seed's prefix", () => {
    const units = EngineUnits.make(makeEngine()) // seed 7
    const seqs = [0]
    for (let digits = 1; digits <= 15; digits++) seqs.push(10 ** (digits - 1), 10 ** digits - 1)
    for (const seq of seqs) {
      const id = units.orderIdOf(seq)
      assert.strictEqual(id, `1007${String(seq).padStart(15, "0")}`, `seq ${seq}`)
      assert.strictEqual(id.length, 19)
    }
  })

  it("refuses what cannot be an order's sequence number", () => {
    const units = EngineUnits.make(makeEngine())
    for (const seq of [-1, 1.5, Number.NaN, 10 ** 15, Number.POSITIVE_INFINITY]) {
      assert.throws(() => units.orderIdOf(seq), Engine.EngineError)
    }
  })
})

describe("cancelBySeq", () => {
  it("cancels as cancelOrder by orderId does, and refuses what cancelOrder refuses", () => {
    // Twin engines given the same calls, one cancelling by sequence number, the other by orderId.
    const run = (bySeq: boolean) => {
      const engine = makeEngine()
      const alice = addUser(engine, { USDT: "1000", BTC: "1" })
      const bob = addUser(engine, { USDT: "1000" })
      const units = EngineUnits.make(engine)
      const a = units.userIndex(alice)
      const b = units.userIndex(bob)
      const product = units.productIndex(SYMBOL)
      // A resting buy of Alice, a resting sell of Alice, and an IOC of Bob that never rests.
      const buy = units.submit(a, product, 0, 0, 0, 10_000, 1_000, "a1", T0)
      const sell = units.submit(a, product, 1, 0, 0, 20_000, 1_000, "a2", T0)
      const ioc = units.submit(b, product, 0, 0, 3, 10_000, 1_000, "b1", T0)
      const cancel = (user: number, userId: string, seq: number) =>
        bySeq
          ? units.cancelBySeq(user, seq, T0 + 1)
          : engine.cancelOrder(userId, { orderId: units.orderIdOf(seq) }, T0 + 1)
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
    const units = EngineUnits.make(engine)
    const a = units.userIndex(alice)
    const seq = units.submit(a, units.productIndex(SYMBOL), 0, 0, 0, 10_000, 1_000, "a1", T0)
    assert.strictEqual(seq, 0)
    for (const bad of [-1, 0.5, 1, Number.NaN, 2 ** 53]) assert.isFalse(units.cancelBySeq(a, bad, T0), String(bad))
    assert.isFalse(units.cancelBySeq(a + 5, seq, T0), "unknown user")
    assert.deepStrictEqual(engine.orderList(alice).map((o) => o.status), ["open"])
  })
})

describe("EngineUnits.make", () => {
  it("refuses what is not an Engine", () => {
    assert.throws(() => EngineUnits.make({} as Engine.Engine), Engine.EngineError)
  })
})
