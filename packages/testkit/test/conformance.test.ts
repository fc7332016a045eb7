/**
 * The conformance suite: every scenario of `support/conformance.ts`, `support/surfaceScenarios.ts` and
 * `support/marketScenarios.ts` runs the core `SpotClient` over the in-process transport and over the sandbox (real
 * loopback HTTP), each time on a freshly seeded exchange, and must pass identically: each run asserts the scenario's
 * expectations, and the two transcripts must be deep-equal.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import type { Transport } from "./support/conformance.ts"
import { runScenario, scenarios, transports } from "./support/conformance.ts"
import { marketScenarios } from "./support/marketScenarios.ts"
import { surfaceScenarios } from "./support/surfaceScenarios.ts"

describe("conformance", () => {
  for (const scenario of [...scenarios, ...surfaceScenarios, ...marketScenarios]) {
    describe(scenario.name, () => {
      const transcripts = new Map<Transport, unknown>()
      for (const transport of transports) {
        it.live(transport, () =>
          runScenario(transport, scenario).pipe(
            Effect.tap((transcript) => Effect.sync(() => transcripts.set(transport, transcript)))
          ))
      }
      it("passes identically over both transports", () => {
        assert.strictEqual(transcripts.size, transports.length, "every transport ran the scenario to the end")
        // JSON round trip: what matters is the data, not object identity or key order.
        const [first, ...rest] = transports.map((t) => JSON.parse(JSON.stringify(transcripts.get(t))))
        for (const other of rest) assert.deepStrictEqual(other, first)
      })
    })
  }
})
