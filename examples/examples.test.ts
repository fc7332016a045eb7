/**
 * The runnable examples as a user runs them: each a real `node` process configured from the environment, against
 * the sandbox on a real loopback port. The assertions read the exchange's state, not only the printed lines.
 */
import { assert, describe, it } from "@effect/vitest"
import { Sandbox, TestExchange } from "@spotkit/testkit"
import { BigDecimal, Effect, Layer } from "effect"
import { mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { runExample } from "./test/support.ts"

const sandbox = Sandbox.layer().pipe(
  Layer.provideMerge(TestExchange.layer({ ...TestExchange.demo({ seed: 3, bills: 2_000 }), rateLimits: false }))
)

/** Every funding bill of a user and coin, newest first, straight from the engine. */
const allBills = (exchange: TestExchange.Service, userId: string, coinId: number) => {
  const bills = []
  for (let pageIndex = 1;; pageIndex++) {
    const page = exchange.engine.fundingBills(userId, { coinId, pageIndex, pageSize: 100 })
    bills.push(...page.items)
    if (page.items.length < 100) return bills
  }
}

describe("examples", () => {
  it.live("place-and-stream.ts places six orders and streams them back", () =>
    Effect.gen(function*() {
      const exchange = yield* TestExchange.TestExchange
      const alice = exchange.accounts[0]!.userId
      const run = yield* runExample("place-and-stream.ts", ["BTCUSDT_SPBL"])
      assert.strictEqual(run.code, 0, run.stderr)
      const open = exchange.engine.orderList(alice).filter((order) => order.status === "open")
      assert.strictEqual(open.length, 6)
      assert.include(run.stdout, "ladder: 5 placed, 0 failed")
      assert.include(run.stdout, "6 open orders on BTCUSDT_SPBL")
      for (const order of open) assert.include(run.stdout, `open ${order.orderId} buy`)
    }).pipe(Effect.provide(sandbox)))

  it.live("watch-and-cancel.ts watches a crossing bid to full_fill, cancels its resting bids, prints balances", () =>
    Effect.gen(function*() {
      const exchange = yield* TestExchange.TestExchange
      const alice = exchange.accounts[0]!.userId
      const run = yield* runExample("watch-and-cancel.ts", ["BTCUSDT_SPBL", "30100"])
      assert.strictEqual(run.code, 0, run.stderr)
      const mine = exchange.engine.orderList(alice).filter((order) => order.clientOrderId.startsWith("wac-"))
      assert.strictEqual(mine.length, 4)
      const watched = mine.find((order) => order.clientOrderId.endsWith("-watch"))!
      assert.strictEqual(watched.status, "full_fill")
      assert.deepStrictEqual(mine.filter((order) => order !== watched).map((order) => order.status), [
        "cancelled",
        "cancelled",
        "cancelled"
      ])
      assert.include(run.stdout, "balances before:")
      assert.include(run.stdout, `watched order ${watched.orderId}: full_fill, filled 0.010000`)
      assert.include(run.stdout, "cancelled 3, 0 no longer open, 0 failed")
      const usdt = exchange.engine.spotBalances(alice).find((balance) => balance.coinName === "USDT")!
      assert.include(run.stdout, `balances after:\n  BTC: `)
      assert.include(run.stdout, `  USDT: available ${usdt.available}, frozen ${usdt.frozen}, equity ${usdt.equity}`)
    }).pipe(Effect.provide(sandbox)))

  it.live("export-bills.ts writes every USDT funding bill and sums them exactly", () =>
    Effect.gen(function*() {
      const exchange = yield* TestExchange.TestExchange
      const alice = exchange.accounts[0]!.userId
      const file = join(mkdtempSync(join(tmpdir(), "spotkit-example-")), "bills.ndjson")
      const run = yield* runExample("export-bills.ts", [file, "2"])
      assert.strictEqual(run.code, 0, run.stderr)
      const expected = allBills(exchange, alice, 2)
      const written = readFileSync(file, "utf8").trim().split("\n").map((line) =>
        JSON.parse(line) as { billId: string }
      )
      assert.deepStrictEqual(written.map((bill) => bill.billId), expected.map((bill) => bill.billId))
      assert.include(run.stdout, `${expected.length} bills written`)
      // The sum of the deltas is the newest balance minus the balance before the oldest bill.
      const newest = expected[0]!
      const oldest = expected[expected.length - 1]!
      const net = BigDecimal.subtract(
        BigDecimal.fromStringUnsafe(newest.afterAmount),
        BigDecimal.subtract(
          BigDecimal.fromStringUnsafe(oldest.afterAmount),
          BigDecimal.fromStringUnsafe(oldest.deltaAmount)
        )
      )
      assert.include(run.stdout, `net USDT: ${BigDecimal.format(net)}\n`)
    }).pipe(Effect.provide(sandbox)))
})
