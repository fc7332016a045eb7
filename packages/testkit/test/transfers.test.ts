/**
 * Transfer records (docs/venue/account.md#transfer-status): every accepted internal transfer is recorded with its id, users, coin, amount,
 * accounts and time, `SUCCESS`; a refused one leaves none. The status list is the sender's, newest first, filtered,
 * with inclusive time bounds and pages from 1.
 */
import { assert, describe, it } from "@effect/vitest"
import type { Engine } from "../src/index.ts"
import { makeEngine, T0 } from "./support/engine.ts"

const setup = () => {
  const engine = makeEngine()
  const a = engine.addUser()
  const b = engine.addUser()
  engine.deposit(a, "SPOT", "USDT", "1000", T0)
  engine.deposit(a, "FUND", "BTC", "2", T0)
  engine.deposit(b, "SPOT", "USDT", "1000", T0)
  const send = (
    from: string,
    to: string,
    coin: string,
    amount: string,
    fromAccountType: Engine.AccountType,
    toAccountType: Engine.AccountType,
    now: number
  ) => {
    const done = engine.transfer(from, { toUserId: to, coin, amount, fromAccountType, toAccountType }, now)
    return done.ok ? done.id : done.code
  }
  const t1 = send(a, b, "USDT", "10", "SPOT", "SPOT", T0 + 1)
  const t2 = send(a, b, "BTC", "0.5", "FUND", "SPOT", T0 + 2)
  const t3 = send(a, a, "USDT", "1.000001", "SPOT", "FUND", T0 + 2)
  const t4 = send(b, a, "USDT", "5", "SPOT", "SPOT", T0 + 3)
  const refused = send(a, b, "USDT", "100000", "SPOT", "SPOT", T0 + 4)
  return { engine, a, b, t1, t2, t3, t4, refused }
}

describe("Engine.transferList", () => {
  it("records every accepted transfer, oldest first: id, users, coin, amount, accounts, time, SUCCESS", () => {
    const { a, b, engine, refused, t1, t2, t3, t4 } = setup()
    assert.strictEqual(refused, "43012")
    const list = engine.transferList()
    assert.deepStrictEqual(list.map((t) => t.id), [t1, t2, t3, t4])
    assert.deepStrictEqual(list[1], {
      id: t2,
      fromUserId: a,
      toUserId: b,
      coin: "BTC",
      amount: "0.5",
      fromAccountType: "FUND",
      toAccountType: "SPOT",
      status: "SUCCESS",
      createTime: T0 + 2,
      updateTime: T0 + 2
    })
    assert.deepStrictEqual(list[2]!.amount, "1.000001")
    // A user's: sent or received.
    assert.deepStrictEqual(engine.transferList(b).map((t) => t.id), [t1, t2, t4])
  })

  it("an amount beyond what the engine's integer units hold exactly (BTC, 2^53 units of 1e-8) is refused as more than the balance", () => {
    const { a, b, engine } = setup()
    const before = engine.transferList().length
    const done = engine.transfer(
      a,
      { toUserId: b, coin: "BTC", amount: "9000000000.000001", fromAccountType: "FUND", toAccountType: "SPOT" },
      T0 + 5
    )
    assert.deepStrictEqual(done.ok ? done.id : done.code, "43012")
    assert.strictEqual(engine.transferList().length, before)
  })
})

describe("Engine.transferStatus", () => {
  it("the sender's transfers, newest first, with how many match", () => {
    const { a, b, engine, t1, t2, t3, t4 } = setup()
    assert.deepStrictEqual(engine.transferStatus(a), {
      total: 3,
      items: [t3, t2, t1].map((id) => engine.transferList().find((t) => t.id === id)!)
    })
    assert.deepStrictEqual(engine.transferStatus(b).items.map((t) => t.id), [t4])
  })

  it("filters by id, coin, accounts and inclusive time bounds; pages from 1", () => {
    const { a, engine, t1, t2, t3 } = setup()
    const ids = (query: Engine.TransferQuery) => {
      const page = engine.transferStatus(a, query)
      return [page.total, page.items.map((t) => t.id)]
    }
    assert.deepStrictEqual(ids({ withdrawId: t2 }), [1, [t2]])
    assert.deepStrictEqual(ids({ withdrawId: "3007000000000000099" }), [0, []])
    assert.deepStrictEqual(ids({ coin: "USDT" }), [2, [t3, t1]])
    assert.deepStrictEqual(ids({ coin: "DOGE" }), [0, []])
    assert.deepStrictEqual(ids({ fromAccountType: "FUND" }), [1, [t2]])
    assert.deepStrictEqual(ids({ toAccountType: "SPOT" }), [2, [t2, t1]])
    // Inclusive: the transfers at exactly T0 + 2 are in both.
    assert.deepStrictEqual(ids({ startTime: T0 + 2 }), [2, [t3, t2]])
    assert.deepStrictEqual(ids({ endTime: T0 + 2 }), [3, [t3, t2, t1]])
    assert.deepStrictEqual(ids({ startTime: T0 + 2, endTime: T0 + 2 }), [2, [t3, t2]])
    assert.deepStrictEqual(ids({ pageSize: 2 }), [3, [t3, t2]])
    assert.deepStrictEqual(ids({ pageSize: 2, page: 2 }), [3, [t1]])
    assert.deepStrictEqual(ids({ pageSize: 2, page: 3 }), [3, []])
    // A direct caller's page out of range is empty (the protocol refuses it).
    assert.deepStrictEqual(ids({ page: 0 }), [0, []])
  })
})
