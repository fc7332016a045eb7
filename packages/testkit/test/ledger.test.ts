/**
 * The ledger's packed entries.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Ledger from "../src/internal/engine/ledger.ts"

describe("Ledger", () => {
  it("keeps each entry's user, account, coin and bizType apart in its one packed slot", () => {
    const ledger = new Ledger.Ledger()
    const cases = [[0, 0, 0, 0], [1, 2, 3, 4], [2 ** 29 - 1, 2, 255, 255], [123_456_789, 1, 254, 17]] as const
    for (const [user, account, coin, biz] of cases) {
      ledger.append(user, account, coin, biz, -5, 10, 1, 1_700_000_000_000)
    }
    cases.forEach(([user, account, coin, biz], i) => {
      const who = ledger.records.segment(i)[Ledger.at(i) + Ledger.WHO]!
      const kind = Ledger.kindOf(who)
      assert.deepStrictEqual(
        [Ledger.userOf(who), Ledger.accountOf(kind), Ledger.coinOf(kind), Ledger.bizTypeOf(kind)],
        [user, account, coin, biz]
      )
      assert.strictEqual(ledger.time(i), 1_700_000_000_000)
    })
  })
})
