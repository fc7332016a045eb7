/**
 * The engine's internal structures against plain references, over random operation sequences: the price index of a
 * book side (open addressing with backward-shift deletion) against a `Map`, and the clientOrderId index against a
 * `Map` of every id placed, across many growths of its tables.
 */
import { assert, describe, it, vi } from "@effect/vitest"
import * as fc from "fast-check"
import { at, OrderStore, PriceIndex, USER } from "../src/internal/book.ts"
import { ClientIds } from "../src/internal/clientIds.ts"
import * as Ledger from "../src/internal/ledger.ts"
import { Segments } from "../src/internal/segments.ts"

const runs = Number(process.env.SPOTKIT_PROPERTY_RUNS ?? 200)

describe("PriceIndex", () => {
  it("finds the rest of a run of one home slot after its first entry is removed", () => {
    const index = new PriceIndex()
    const [a, b, c] = [5, 5 + 2 ** 32, 5 + 2 * 2 ** 32]
    index.set(a, 0)
    index.set(b, 1)
    index.set(c, 2)
    index.remove(a)
    assert.deepStrictEqual([index.get(a), index.get(b), index.get(c)], [-1, 1, 2])
  })

  it("answers as a Map would after any sequence of adds and removes", () => {
    // Prices that differ by multiples of 2^32 share a home slot (the hash reads the low 32 bits), so long runs of
    // probes form, wrap around the table and get shifted back on removal.
    const price = fc.tuple(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 0, max: 12 })).map(([low, high]) =>
      low + high * 2 ** 32
    )
    const op = fc.tuple(fc.boolean(), price)
    fc.assert(
      fc.property(fc.array(op, { minLength: 50, maxLength: 1000 }), (ops) => {
        const index = new PriceIndex()
        const reference = new Map<number, number>()
        let next = 0
        for (const [add, p] of ops) {
          if (add && !reference.has(p)) {
            index.set(p, next)
            reference.set(p, next++)
          } else if (!add && reference.has(p)) {
            index.remove(p)
            reference.delete(p)
          }
          assert.strictEqual(index.get(p), reference.get(p) ?? -1)
        }
        for (let low = 1; low <= 40; low++) {
          for (let high = 0; high <= 12; high++) {
            const p = low + high * 2 ** 32
            assert.strictEqual(index.get(p), reference.get(p) ?? -1)
          }
        }
      }),
      { numRuns: runs }
    )
  })
})

describe("ClientIds", () => {
  it("finds every id placed, per user, and no other, through many growths", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 31 - 1 }), fc.integer({ min: 1_000, max: 120_000 }), (seed, n) => {
        const store = new OrderStore()
        const ids = new ClientIds(store)
        const reference = new Map<string, number>()
        let x = seed
        const random = () => (x = (Math.imul(x, 48271) >>> 0) % 2147483647) / 2147483647
        for (let i = 0; i < n; i++) {
          const user = random() < 0.5 ? 0 : 1
          // Repeats are likely among short ids and certain across users.
          const id = random() < 0.3 ? `s${Math.floor(random() * 500)}` : `id-${seed}-${i}`
          const key = `${user}/${id}`
          const found = ids.get(user, id)
          assert.strictEqual(found, reference.get(key) ?? -1, key)
          if (found < 0) {
            const seq = store.alloc(id)
            store.segment(seq)[at(seq) + USER] = user
            ids.addMissed(seq)
            reference.set(key, seq)
          }
        }
        for (const [key, seq] of reference) {
          const slash = key.indexOf("/")
          assert.strictEqual(ids.get(Number(key.slice(0, slash)), key.slice(slash + 1)), seq, key)
        }
        assert.strictEqual(ids.get(0, "never-placed"), -1)
      }),
      { numRuns: Math.max(5, Math.floor(runs / 20)) }
    )
  }, 120_000)
})

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
      const fallback = await import("../src/internal/segments.ts")
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

describe("Ledger", () => {
  it("keeps each entry's user, account, coin and bizType apart in its one packed slot", () => {
    const ledger = new Ledger.Ledger()
    const cases = [[0, 0, 0, 0], [1, 2, 3, 4], [2 ** 29 - 1, 2, 255, 255], [123_456_789, 1, 254, 17]] as const
    for (const [user, account, coin, biz] of cases) {
      ledger.append(user, account, coin, biz, -5, 10, 1, 1_700_000_000_000)
    }
    cases.forEach(([user, account, coin, biz], i) => {
      const who = ledger.segment(i)[Ledger.at(i) + Ledger.WHO]!
      const kind = Ledger.kindOf(who)
      assert.deepStrictEqual(
        [Ledger.userOf(who), Ledger.accountOf(kind), Ledger.coinOf(kind), Ledger.bizTypeOf(kind)],
        [user, account, coin, biz]
      )
      assert.strictEqual(ledger.time(i), 1_700_000_000_000)
    })
  })
})
