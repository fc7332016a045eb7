/**
 * The exchange as a service: seeding through it keeps the engine's conservation law (held + fees == supply).
 */
import { assert, describe, it } from "@effect/vitest"
import { SpotClient, Venue } from "@spotkit/core"
import { Effect, Exit, Fiber } from "effect"
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

describe("TestExchange.addAccount: a refused account changes nothing", () => {
  const carol = { apiKey: "carol-key", secretKey: "carol-secret", passphrase: "carol-pass" }
  const usdt = (amount: string) => ({ accountType: "SPOT", coin: "USDT", amount }) as const
  const refused: ReadonlyArray<readonly [string, TestExchange.AccountSpec]> = [
    ["a key another account has", { keys: [TestExchange.demoKeys.alice], balances: [usdt("100")] }],
    ["the same key twice", { keys: [carol, carol], balances: [usdt("100")] }],
    ["an id the exchange has", { userId: "4001000000000000001", keys: [carol] }],
    ["an unknown coin after a good one", { keys: [carol], balances: [usdt("100"), { ...usdt("1"), coin: "DOGE" }] }],
    ["an unknown account type", { keys: [carol], balances: [{ ...usdt("1"), accountType: "WALLET" as never }] }],
    ["an amount of too many decimals", { keys: [carol], balances: [usdt("100"), usdt("0.0000000000001")] }],
    ["deposits past the supply cap together", { keys: [carol], balances: [usdt("5000000000"), usdt("5000000000")] }],
    ["a bill count that is no integer", { keys: [carol], bills: { count: 1.5 }, balances: [usdt("100")] }],
    ["a negative bill span", { keys: [carol], bills: { count: 10, spanMillis: -1 }, balances: [usdt("100")] }]
  ]
  for (const [what, spec] of refused) {
    it.effect(`${what}: no user, key, bill or balance is left, and the next account takes the next id`, () =>
      Effect.gen(function*() {
        const exchange = yield* TestExchange.make(TestExchange.demo({ bills: 0 }))
        const totals = yield* exchange.totals
        const error = yield* Effect.flip(exchange.addAccount(spec))
        assert.strictEqual(error.name, "EngineError")
        assert.deepStrictEqual(yield* exchange.totals, totals)
        // alice is ...001 and bob ...002: carol, with the key the refused spec named, is ...003.
        const next = yield* exchange.addAccount({ keys: [carol] })
        assert.strictEqual(next.userId, "4001000000000000003")
        assert.deepStrictEqual(yield* exchange.ledger(next.userId), [])
      }))
  }
})

describe("TestExchange.layerSpotClient: acts as any demo user", () => {
  const order = { symbol: "BTCUSDT_SPBL", side: "buy", orderType: "limit", price: "100", quantity: "0.1" } as const

  for (const [user, index] of [[undefined, 0], ["alice", 0], ["bob", 1], [1, 1]] as const) {
    it.effect(`user ${user ?? "(default)"}: the client's orders are the account's at index ${index}`, () =>
      Effect.gen(function*() {
        const client = yield* SpotClient.SpotClient
        const exchange = yield* TestExchange.TestExchange
        const { orderId } = yield* client.placeOrder(order)
        assert.strictEqual(exchange.engine.order(orderId)?.userId, exchange.accounts[index]!.userId)
        const usdt = (yield* client.balances()).find((balance) => balance.coinName === "USDT")
        const expected = (yield* exchange.spotBalances(exchange.accounts[index]!.userId)).find((b) =>
          b.coinName === "USDT"
        )
        assert.deepStrictEqual(usdt?.available, expected?.available)
      }).pipe(Effect.provide(TestExchange.layerSpotClient({ user }))))
  }

  it.effect("a user the exchange does not hold fails the layer with EngineError", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(
        Effect.provide(Effect.service(SpotClient.SpotClient), TestExchange.layerSpotClient({ user: 2 }))
      )
      assert.isTrue(Exit.isFailure(exit))
      const withoutBob = TestExchange.layerSpotClient({
        exchange: { accounts: [{ keys: [TestExchange.demoKeys.alice] }] },
        user: "bob"
      })
      const named = yield* Effect.flip(Effect.provide(Effect.service(SpotClient.SpotClient), withoutBob))
      assert.include(named.message, "bob")
    }))
})

describe("TestExchange.layerSpotClient: rate limits", () => {
  // Eleven placements in one (frozen) millisecond: the venue's model answers the eleventh 429 (10 a second per key on
  // placing), and the client, its own limiter off, would wait its backoff on a clock that never moves.
  const placeEleven = Effect.gen(function*() {
    const client = yield* SpotClient.SpotClient
    for (let i = 0; i < 11; i++) {
      yield* client.placeOrder({
        symbol: "BTCUSDT_SPBL",
        side: "buy",
        orderType: "limit",
        price: String(29000 - i),
        quantity: "0.01"
      })
    }
  })
  // Runs the placements in a fiber (a 429 leaves it waiting rather than hanging the test) and answers the statuses
  // of the placements.
  const statuses = Effect.gen(function*() {
    const exchange = yield* TestExchange.TestExchange
    const fiber = yield* Effect.forkChild(placeEleven, { startImmediately: true })
    for (let i = 0; i < 200; i++) yield* Effect.yieldNow
    yield* Fiber.interrupt(fiber)
    return (yield* exchange.requests)
      .filter((record) => record.path === Venue.endpoints.placeOrder.path)
      .map((record) => record.status)
  })

  it.effect("exchange options that leave rateLimits out (another seed) keep the venue's limits off", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* statuses, Array.from({ length: 11 }, () => 200))
    }).pipe(Effect.provide(TestExchange.layerSpotClient({ exchange: TestExchange.demo({ seed: 2 }) }))))

  it.effect("rateLimits: {} turns the venue's weight model on", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* statuses, [...Array.from({ length: 10 }, () => 200), 429])
    }).pipe(Effect.provide(TestExchange.layerSpotClient({ exchange: { ...TestExchange.demo(), rateLimits: {} } }))))
})

describe("TestExchange: two clients of one key", () => {
  // Under the TestClock both clients sign at the same millisecond, so the same cancel from each is the same signed
  // bytes. No venue source shows a refusal of a repeated signature, and a repeated cancel moves nothing: both are
  // answered as cancels (docs/venue/signing.md#error-codes, 40409).
  it.effect("the same cancels from two clients of one key in one millisecond are both answered", () =>
    Effect.gen(function*() {
      const exchange = yield* TestExchange.TestExchange
      const mine = yield* SpotClient.SpotClient
      const other = yield* SpotClient.make({
        baseUrl: "http://exchange.test",
        credentials: exchange.accounts[0]!.credentials,
        rateLimit: false
      }).pipe(Effect.provide(TestExchange.layerHttpClient))
      const placed = yield* mine.placeOrder({
        symbol: "BTCUSDT_SPBL",
        side: "buy",
        orderType: "limit",
        force: "normal",
        price: "20000",
        quantity: "0.01"
      })
      for (const client of [mine, other]) {
        yield* client.cancelOrder({ symbol: "BTCUSDT_SPBL", orderId: placed.orderId })
        yield* client.cancelAll("BTCUSDT_SPBL")
      }
      const answered = (yield* exchange.requests)
        .filter((record) => record.path.includes("cancel"))
        .map((record) => `${record.status} ${record.code}`)
      assert.deepStrictEqual(answered, ["200 00000", "200 00000", "200 00000", "200 00000"])
    }).pipe(Effect.provide(TestExchange.layerSpotClient())))
})
