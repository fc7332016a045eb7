/**
 * The request log keeps the latest records, oldest first, bounded in count and in bytes (issue #17): a record keeps
 * at most 4,096 characters of its body and path.
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

  it.effect("keeps fewer records when they would take more than requestLogBytes; bodies cut at 4,096 characters", () =>
    Effect.gen(function*() {
      // A record of a 4,096-character body and a 10-character path counts 160 + 2 × 4,106 = 8,372 bytes: 3 fit in
      // 30,000, the latest always.
      const exchange = yield* TestExchange.make({ requestLogSize: 100, requestLogBytes: 30_000 })
      const send = (i: number, body: string) =>
        exchange.handleAt({
          method: "POST",
          path: `/unknown/${i}`,
          header: () => undefined,
          body,
          clientAddress: "127.0.0.1"
        }, 1_000 + i)
      for (let i = 0; i < 6; i++) send(i, String(i).repeat(260_000))
      const records = yield* exchange.requests
      assert.deepStrictEqual(records.map((r) => r.path), ["/unknown/3", "/unknown/4", "/unknown/5"])
      assert.deepStrictEqual(records.map((r) => r.body), ["3", "4", "5"].map((digit) => digit.repeat(4096)))
      // Small records: as many as the count allows.
      for (let i = 0; i < 100; i++) send(i, "{}")
      assert.strictEqual((yield* exchange.requests).length, 100)
    }))
})
