/**
 * Funding bills: pages (order, bounds, filters, page numbers), the JSON page writer against `JSON.stringify`, and the
 * synthetic history generator.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { Engine } from "../src/index.ts"
import { balance, isBigId, makeEngine, T0, toUnits } from "./support/engine.ts"

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
