/**
 * Segmented storage: records keep their slots while the first segment doubles and later ones are added, in the kind
 * of memory asked for; and the engine's stores built on it (orders, ledger, trades, clientOrderIds) stay exact across
 * every doubling and into their second segments.
 */
import { assert, describe, it, vi } from "@effect/vitest"
import type { Engine } from "../src/index.ts"
import { partsOf } from "../src/internal/engine/parts.ts"
import { Segments } from "../src/internal/engine/segments.ts"
import { addUser, balance, limit, makeEngine, place, T0, toUnits } from "./support/engine.ts"

describe("Segments", () => {
  it("keeps every record's slots while the first segment doubles and later ones are added", () => {
    // Segments of 2^9 records of 3 slots: the first starts at 256 records and doubles once to 512 (copying), then
    // each growth adds a segment of 512.
    const bits = 9
    const store = new Segments(bits, 3)
    const records = 5 * 512 + 7
    for (let i = 0; i < records; i++) {
      assert.strictEqual(store.alloc(), i)
      if (i === 0) assert.strictEqual(store.segments[0]!.length, 256 * 3, "the first segment starts at 256 records")
      const r = store.segments[i >>> bits]!
      const o = (i & 511) * 3
      assert.deepStrictEqual([r[o], r[o + 1], r[o + 2]], [0, 0, 0], `record ${i} starts zeroed`)
      r[o] = i
      r[o + 1] = -i
      r[o + 2] = i * 2 ** 40
    }
    assert.strictEqual(store.segments.length, 6)
    assert.deepStrictEqual(store.segments.map((s) => s.length), [1536, 1536, 1536, 1536, 1536, 1536])
    for (let i = 0; i < records; i++) {
      const r = store.segments[i >>> bits]!
      const o = (i & 511) * 3
      assert.deepStrictEqual([r[o], r[o + 1], r[o + 2]], [i, -i, i * 2 ** 40], `record ${i}`)
    }
  })

  it("allocates SharedArrayBuffers (which V8 does not count as external memory) where the platform has them", () => {
    const store = new Segments(4, 2)
    store.alloc()
    assert.instanceOf(store.segments[0]!.buffer, SharedArrayBuffer)
  })

  it("allocates ordinary ArrayBuffers when told not to share (EngineOptions.sharedMemory: false)", () => {
    const store = new Segments(4, 2, false)
    for (let i = 0; i < 40; i++) store.alloc()
    assert.isTrue(store.segments.every((s) => s.buffer instanceof ArrayBuffer))
  })

  it("falls back to ordinary ArrayBuffers where SharedArrayBuffer is missing (a browser page without isolation)", async () => {
    vi.stubGlobal("SharedArrayBuffer", undefined)
    vi.resetModules()
    try {
      const fallback = await import("../src/internal/engine/segments.ts")
      const store = new fallback.Segments(4, 2)
      for (let i = 0; i < 40; i++) store.segments[store.alloc() >>> 4]![(i & 15) * 2] = i
      assert.isTrue(store.segments.every((s) => s.buffer instanceof ArrayBuffer))
      assert.strictEqual(store.segments[2]![7 * 2], 39)
    } finally {
      vi.unstubAllGlobals()
      vi.resetModules()
    }
  })
})

/** The buffers behind an engine's stores (private fields, read for this test only), by store. */
const buffersOf = (engine: Engine.Engine): Array<readonly [string, ArrayBufferLike]> => {
  const { accounts, matching } = partsOf(engine)
  const field = (from: unknown, name: string): unknown => Reflect.get(from as object, name)
  const segments = (name: string, store: unknown) =>
    (field(field(store, "records"), "segments") as Array<Float64Array>).map((s) => [name, s.buffer] as const)
  return [
    ...segments("orders", matching.orders),
    ...segments("ledger", accounts.ledger),
    ...segments("tradeLog", matching.trades),
    ["clientIds", (field(matching.clientIds, "slots") as Int32Array).buffer]
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
            ["full_fill", toUnits("0.1"), price, value],
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
    },
    // About 2 s alone; on a loaded machine (tests in parallel) it passed the default 5 s.
    60_000
  )
})
