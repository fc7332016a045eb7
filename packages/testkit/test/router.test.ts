/**
 * The router's checks before a request reaches its handler. The expectations come from the options' own contracts
 * (`maxBodyBytes` counts bytes as a socket does), never from running the code under test.
 */
import { assert, describe, it } from "@effect/vitest"
import { Venue } from "@spotkit/core"
import { Effect } from "effect"
import { Buffer } from "node:buffer"
import { TestExchange } from "../src/index.ts"
import { signed, statusOf } from "./support/signed.ts"

const OPEN_ORDERS = Venue.endpoints.openOrders.path

describe("router: body size", () => {
  it.effect("maxBodyBytes counts UTF-8 bytes (as the sandbox does), not UTF-16 code units", () =>
    Effect.gen(function*() {
      const exchange = yield* TestExchange.make({ ...TestExchange.demo({ bills: 0 }), maxBodyBytes: 100 })
      // 60 × "é": 73 UTF-16 code units, 133 UTF-8 bytes. The sandbox stops buffering past 100 bytes and answers
      // 413; the in-process transport must answer the same for the same body.
      const body = JSON.stringify({ symbol: "é".repeat(60) })
      assert.isTrue(body.length <= 100)
      assert.isTrue(Buffer.byteLength(body, "utf8") > 100)
      const now = 1_000_000
      const outcome = exchange.handleAt(signed(TestExchange.demoKeys.alice, OPEN_ORDERS, body, now), now)
      assert.strictEqual(statusOf(outcome), 413)
    }))
})
