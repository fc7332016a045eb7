/**
 * The request log keeps the latest records, oldest first.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { TestExchange } from "../src/index.ts"

describe("request log", () => {
  it.effect("keeps the latest requestLogSize records, oldest first, once it wraps around", () =>
    Effect.gen(function*() {
      const exchange = yield* TestExchange.make({ requestLogSize: 3 })
      for (let i = 0; i < 7; i++) {
        exchange.handleAt({
          method: "POST",
          path: `/unknown/${i}`,
          header: () => undefined,
          body: "",
          clientAddress: "127.0.0.1"
        }, 1_000 + i)
      }
      const records = yield* exchange.requests
      assert.deepStrictEqual(records.map((r) => r.path), ["/unknown/4", "/unknown/5", "/unknown/6"])
      assert.deepStrictEqual(records.map((r) => r.status), [404, 404, 404])
    }))
})
