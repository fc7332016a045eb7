/**
 * Venue-side rate limits. The expectations come from DESIGN §4 (weights and budgets per key and per address), never
 * from running the code under test.
 */
import { assert, describe, it } from "@effect/vitest"
import { Venue } from "@spotkit/core"
import { Effect } from "effect"
import { TestExchange } from "../src/index.ts"
import { signed, statusOf } from "./support/signed.ts"

const BILLS = Venue.endpoints.fundingBills.path

describe("rate limits", () => {
  it.effect("a bills request refused by the per-IP budget does not use up the key's own budget", () =>
    Effect.gen(function*() {
      // DESIGN §4: weight 5 against 500 per 10 s per key and per IP. alice and bob share one address.
      const exchange = yield* TestExchange.make(TestExchange.demo({ bills: 0 }))
      const { alice, bob } = TestExchange.demoKeys
      const t0 = 1_000_000
      for (let i = 0; i < 100; i++) {
        assert.strictEqual(statusOf(exchange.handleAt(signed(alice, BILLS, "{}", t0), t0)), 200, `alice #${i + 1}`)
      }
      // The address has used its 500 within the window: bob is refused although his key has never been served.
      const t1 = t0 + 5_000
      for (let i = 0; i < 100; i++) {
        assert.strictEqual(statusOf(exchange.handleAt(signed(bob, BILLS, "{}", t1), t1)), 429, `bob #${i + 1}`)
      }
      // alice's weight has left the 10 s window (entries at t0 expire once now - 10 000 >= t0). bob's key was never
      // served, so neither budget is spent: the request must pass. Charging bob's key for the refused requests above
      // (as if they had been served) would keep him throttled until t1 + 10 s.
      const t2 = t0 + 10_001
      assert.strictEqual(statusOf(exchange.handleAt(signed(bob, BILLS, "{}", t2), t2)), 200)
    }))
})
