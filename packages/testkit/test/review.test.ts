/**
 * Regressions found in review. Each test states the behaviour the testkit must have; the expectations come from
 * DESIGN §4 (rate limits), the option's own contract (`maxBodyBytes`), HTTP (status codes are 100..599) and the
 * engine's conservation law (held + fees == supply), never from running the code under test.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { Buffer } from "node:buffer"
import { createHmac } from "node:crypto"
import { Engine, TestExchange } from "../src/index.ts"
import type { Fault } from "../src/index.ts"

const BILLS = "/api/v2/account/fundingBills"
const OPEN_ORDERS = "/api/v2/trade/open-orders"

type Key = { readonly apiKey: string; readonly secretKey: string; readonly passphrase: string }

/** A request signed per DESIGN §3 (HMAC computed here, independently of the testkit's own signer). */
const signed = (key: Key, path: string, body: string, now: number): TestExchange.WireRequest => {
  const headers: Record<string, string> = {
    "access-key": key.apiKey,
    "access-sign": createHmac("sha256", key.secretKey).update(`${now}POST${path}${body}`).digest("base64"),
    "access-timestamp": String(now),
    "access-passphrase": key.passphrase,
    "content-type": "application/json"
  }
  return { method: "POST", path, header: (name) => headers[name], body, clientAddress: "127.0.0.1" }
}

const statusOf = (outcome: TestExchange.Outcome): number | undefined =>
  outcome._tag === "Respond" ? outcome.status : undefined

describe("review: rate limits", () => {
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

describe("review: body size", () => {
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

describe("review: faults", () => {
  // Built as literals so that the test does not depend on whether the constructors validate their arguments.
  const invalid: ReadonlyArray<Fault.Fault> = [
    { _tag: "VenueError", code: "40200", msg: "server upgrade", status: 99 },
    { _tag: "HttpError", status: 1000 }
  ]
  for (const fault of invalid) {
    it.effect(`a ${fault._tag} fault with an HTTP status outside 100..599 never reaches the wire`, () =>
      Effect.gen(function*() {
        // The sandbox passes the status to `response.writeHead`, which throws ERR_HTTP_INVALID_STATUS_CODE from a
        // request event handler: an uncaught exception that takes the whole process down. Either the rule is refused
        // when injected, or the exchange never answers with such a status.
        const exchange = yield* TestExchange.make(TestExchange.demo({ bills: 0 }))
        yield* Effect.exit(exchange.injectFault({ fault, times: 1 }))
        const now = 1_000_000
        const body = JSON.stringify({ symbol: "BTCUSDT_SPBL" })
        const status = statusOf(exchange.handleAt(signed(TestExchange.demoKeys.alice, OPEN_ORDERS, body, now), now))
        if (status !== undefined) {
          assert.isTrue(Number.isInteger(status) && status >= 100 && status <= 599, `status ${status}`)
        }
      }))
  }
})

describe("review: seeding keeps conservation", () => {
  it("a deposit into an unknown account type is refused and changes nothing", () => {
    const engine = new Engine.Engine({ seed: 3 })
    const user = engine.addUser()
    // A lower-case typo, as a JavaScript caller or a JSON seed file could write it.
    assert.throws(() => engine.deposit(user, "spot" as Engine.AccountType, "BTC", "1", 0), Engine.EngineError)
    const btc = engine.totals().find((t) => t.coin === "BTC")
    assert.deepStrictEqual(btc, { coin: "BTC", supply: "0", held: "0", fees: "0" })
    assert.deepStrictEqual(engine.ledgerOf(user), [])
    assert.deepStrictEqual(engine.balances(user), [])
  })

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
