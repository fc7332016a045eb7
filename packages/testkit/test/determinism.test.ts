import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { createHmac } from "node:crypto"
import { TestExchange } from "../src/index.ts"

const T0 = 1_763_800_000_000
const key = TestExchange.demoKeys.alice

// A signed request as a client would send it (independent of the core client's signer).
const signed = (path: string, body: object, now: number): TestExchange.WireRequest => {
  const text = JSON.stringify(body)
  const timestamp = String(now)
  const headers: Record<string, string> = {
    "access-key": key.apiKey,
    "access-sign": createHmac("sha256", key.secretKey).update(timestamp + "POST" + path + text).digest("base64"),
    "access-timestamp": timestamp,
    "access-passphrase": key.passphrase,
    "content-type": "application/json",
    locale: "en-US"
  }
  return { method: "POST", path, header: (name) => headers[name], body: text, clientAddress: "127.0.0.1" }
}

const script = (bob: string): ReadonlyArray<readonly [string, object]> => [
  ["/api/v2/trade/orders", {
    symbol: "BTCUSDT_SPBL",
    side: "buy",
    orderType: "limit",
    force: "normal",
    price: "30010",
    quantity: "0.7",
    clientOrderId: "a1"
  }],
  ["/api/v2/trade/orders", {
    symbol: "BTCUSDT_SPBL",
    side: "sell",
    orderType: "market",
    force: "normal",
    price: "0",
    quantity: "0.3",
    clientOrderId: "a2"
  }],
  ["/api/v2/trade/orders", {
    symbol: "ETHUSDT_SPBL",
    side: "buy",
    orderType: "market",
    force: "normal",
    price: "0",
    quantity: "2500",
    clientOrderId: "a3"
  }],
  ["/api/v2/trade/batch-orders", {
    symbol: "ETHUSDT_SPBL",
    orderList: [
      { side: "buy", orderType: "limit", force: "ioc", price: "2001.5", quantity: "7", clientOrderId: "b1" },
      { side: "sell", orderType: "limit", force: "postOnly", price: "1999", quantity: "1", clientOrderId: "b2" },
      { side: "buy", orderType: "limit", force: "fok", price: "2003", quantity: "100", clientOrderId: "b3" },
      { side: "buy", orderType: "limit", force: "normal", price: "1990.25", quantity: "1.5", clientOrderId: "b4" }
    ]
  }],
  ["/api/v2/trade/open-orders", { symbol: "BTCUSDT_SPBL", limit: 10, pageNo: 0 }],
  ["/api/v2/rebate/affiliate/internalWithdrawal", {
    toUserId: bob,
    coin: "USDT",
    amount: "25.5",
    fromAccountType: "FUND",
    toAccountType: "SPOT"
  }],
  ["/api/v2/account/fundingBills", { pageSize: 20 }]
]

// Runs the script against a fresh exchange and answers every response body and the whole final state as text.
const run = (seed: number) =>
  Effect.gen(function*() {
    const exchange = yield* TestExchange.make(TestExchange.demo({ seed, bills: 300 }))
    const bob = exchange.accounts[1]!.userId
    const answers = script(bob).map(([path, body], i) => {
      const outcome = exchange.handleAt(signed(path, body, T0 + i), T0 + i)
      return outcome._tag === "Respond" ? `${outcome.status} ${outcome.body}` : outcome._tag
    })
    const engine = exchange.engine
    const state = JSON.stringify({
      orders: engine.orderList(),
      trades: engine.tradeList(),
      ledger: exchange.accounts.map((a) => engine.ledgerOf(a.userId)),
      balances: exchange.accounts.map((a) => engine.balances(a.userId)),
      totals: engine.totals()
    })
    return { answers, state }
  })

describe("determinism", () => {
  it.effect("the same seed and calls give byte-identical responses and state", () =>
    Effect.gen(function*() {
      const first = yield* run(42)
      const second = yield* run(42)
      assert.deepStrictEqual(second.answers, first.answers)
      assert.strictEqual(second.state, first.state)
      // The script really exercised the engine: every call answered 200 and trades happened.
      for (const answer of first.answers) assert.match(answer, /^200 /)
      assert.include(first.state, "\"takerSide\"")
    }))

  it.effect("another seed gives other ids", () =>
    Effect.gen(function*() {
      const a = yield* run(42)
      const b = yield* run(43)
      const orderIds = (answers: ReadonlyArray<string>) => answers[0]!.match(/"orderId":(\d+)/)![1]!
      assert.notStrictEqual(orderIds(a.answers), orderIds(b.answers))
      assert.isTrue(BigInt(orderIds(a.answers)) > 2n ** 53n)
    }))
})
