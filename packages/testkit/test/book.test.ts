/**
 * The price index of a book side (open addressing with backward-shift deletion) against a `Map`, over random
 * operation sequences.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { PriceIndex } from "../src/internal/engine/book.ts"

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
