/**
 * The CLI's data is the venue's, exactly, whatever the credentials are: a passphrase a person chose may be digits (a
 * PIN, a year), which the venue's amounts, ids and times contain. Data (standard output, exports) is scrubbed as data
 * (`SafeText.Scrubber.scrubData`), in process against a sandbox where alice's passphrase is such a number.
 */
import { assert, describe, it } from "@effect/vitest"
import { Sandbox, TestExchange } from "@spotkit/testkit"
import { Effect, Layer } from "effect"
import { aliceEnv, runInProcess } from "../support/cli.ts"

const sandboxWith = (passphrase: string) => {
  const demo = TestExchange.demo({ seed: 5, bills: 300 })
  const accounts = demo.accounts!.map((account, i) =>
    i === 0 ? { ...account, keys: [{ ...TestExchange.demoKeys.alice, passphrase }] } : account
  )
  const exchange = Layer.effect(TestExchange.TestExchange, TestExchange.make({ ...demo, accounts, rateLimits: false }))
  return Sandbox.layer().pipe(Layer.provideMerge(exchange))
}

describe("data printed exactly under a passphrase of digits", () => {
  for (const passphrase of ["1000", "0000"]) {
    it.layer(sandboxWith(passphrase), { excludeTestServices: true, timeout: "60 seconds" })(
      `passphrase ${passphrase}`,
      (it) => {
        it.effect("balances, a placement and a bills export print the venue's numbers unaltered", () =>
          Effect.gen(function*() {
            const env = yield* aliceEnv
            const exchange = yield* TestExchange.TestExchange
            const userId = exchange.accounts[0]!.userId
            const balances = yield* runInProcess(["balances", "--format", "json"], env)
            assert.strictEqual(balances.exitCode, 0, balances.stderr)
            assert.deepStrictEqual(JSON.parse(balances.stdout), yield* exchange.spotBalances(userId))
            const place = "orders place --symbol BTCUSDT_SPBL --side buy --type limit --price 20000 --quantity 0.001"
            const placed = yield* runInProcess([...place.split(" "), "--format", "json"], env)
            assert.strictEqual(placed.exitCode, 0, placed.stderr)
            const { orderId } = JSON.parse(placed.stdout) as { orderId: string }
            const order = yield* exchange.order(orderId)
            assert.strictEqual(
              order?.clientOrderId,
              (JSON.parse(placed.stdout) as { clientOrderId: string }).clientOrderId
            )
            const bills = yield* runInProcess(["bills", "export", "--format", "ndjson"], env)
            assert.strictEqual(bills.exitCode, 0, bills.stderr)
            assert.notInclude(bills.stdout, "<redacted>")
            type Row = { billId: string; deltaAmount: string; afterAmount: string; cTime: string }
            const rows = bills.stdout.trim().split("\n").map((line) => JSON.parse(line) as Row)
            const key = (row: Row) => `${row.billId} ${row.deltaAmount} ${row.afterAmount} ${row.cTime}`
            const ledger = yield* exchange.ledger(userId, "FUND")
            assert.deepStrictEqual(rows.map(key).sort(), ledger.map(key).sort())
            assert.include(balances.stdout + placed.stdout + bills.stdout, passphrase, "data holds the digits")
          }))
      }
    )
  }
})
