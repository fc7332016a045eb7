/**
 * The exchange as a service: seeding through it keeps the engine's conservation law (held + fees == supply).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import type { Engine } from "../src/index.ts"
import { TestExchange } from "../src/index.ts"

describe("TestExchange: seeding keeps conservation", () => {
  it.effect("TestExchange.deposit into an unknown account type fails with EngineError", () =>
    Effect.gen(function*() {
      const exchange = yield* TestExchange.make(TestExchange.demo({ bills: 0 }))
      const alice = exchange.accounts[0]!.userId
      const before = yield* exchange.totals
      const exit = yield* Effect.exit(exchange.deposit(alice, "WALLET" as Engine.AccountType, "USDT", "5"))
      assert.isTrue(Exit.isFailure(exit))
      assert.deepStrictEqual(yield* exchange.totals, before)
    }))
})
