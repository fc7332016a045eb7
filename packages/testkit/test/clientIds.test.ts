/**
 * The clientOrderId index against a `Map` of every id placed, across many growths of its table.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { at, OrderStore, USER } from "../src/internal/engine/book.ts"
import { ClientIds } from "../src/internal/engine/clientIds.ts"

const runs = Number(process.env.SPOTKIT_PROPERTY_RUNS ?? 200)

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
