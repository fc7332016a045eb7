/**
 * request-hooks.ts as a user runs it (a `node` process against the sandbox): its hook logs every HTTP exchange the
 * client makes, in order, each request with its status, the credential headers redacted and no secret anywhere in
 * what it prints; the order is placed as without the hook.
 */
import { assert, describe, it } from "@effect/vitest"
import { Venue } from "@spotkit/core"
import { Sandbox, TestExchange } from "@spotkit/testkit"
import { Effect, Layer, Redacted } from "effect"
import { runExample } from "./test/support.ts"

const sandbox = Sandbox.layer().pipe(
  Layer.provideMerge(TestExchange.layer({ ...TestExchange.demo({ seed: 7, bills: 50 }), rateLimits: false }))
)

describe("request-hooks.ts", () => {
  it.live("logs each exchange with its status, credential headers redacted, no secret", () =>
    Effect.gen(function*() {
      const exchange = yield* TestExchange.TestExchange
      const alice = exchange.accounts[0]!
      const run = yield* runExample("request-hooks.ts", ["BTCUSDT_SPBL"])
      assert.strictEqual(run.code, 0, run.stderr)
      const placed = exchange.engine.orderList(alice.userId).find((order) => order.clientOrderId === "hooks-example-1")
      assert.isDefined(placed)
      assert.strictEqual(run.stdout, `placed ${placed!.orderId}; 5 bills on the first page\n`)

      const lines = run.stderr.trim().split("\n")
      const requests = lines.filter((line) => line.startsWith("-> ")).map((line) => line.split(" ").slice(1, 3))
      // The client's own public GETs (the symbol rules for the order's check, the server time before the first
      // signed request), then the order and the bills page.
      assert.deepStrictEqual(requests, [
        ["GET", Venue.endpoints.exchangeInfo.path],
        ["GET", Venue.endpoints.serverTime.path],
        ["POST", Venue.endpoints.placeOrder.path],
        ["POST", Venue.endpoints.fundingBills.path]
      ])
      const answers = lines.filter((line) => line.startsWith("<- "))
      assert.strictEqual(answers.length, 4)
      for (const [index, answer] of answers.entries()) {
        assert.match(answer, new RegExp(`^<- 200 ${requests[index]![0]} ${requests[index]![1]} in \\d+(\\.\\d+)? ms$`))
      }
      const signed = lines.find((line) => line.startsWith(`-> POST ${Venue.endpoints.placeOrder.path}`))!
      const headers = JSON.parse(signed.slice(signed.indexOf("{"))) as Record<string, string>
      assert.strictEqual(headers["access-key"], "<redacted>")
      assert.strictEqual(headers["access-passphrase"], "<redacted>")
      assert.strictEqual(headers["access-sign"], "<redacted>")
      assert.match(headers["access-timestamp"]!, /^\d{13}$/)
      for (const secret of [alice.credentials.apiKey, alice.credentials.secretKey, alice.credentials.passphrase]) {
        assert.notInclude(run.stderr + run.stdout, Redacted.value(secret))
      }
    }).pipe(Effect.provide(sandbox)))
})
