/**
 * `NodeSpotPush`: push over the `ws` package against the sandbox's push endpoints (a private stream needs the
 * handshake headers only a server-side WebSocket sends); the connection-attempt budget shared by two clients through
 * a real Redis; and `layerConfig` reading `SPOTKIT_PUSH_URL` and the credentials, naming what is missing or invalid
 * without printing a secret.
 */
import { assert, describe, it } from "@effect/vitest"
import { SpotPush } from "@spotkit/core"
import { PushVenue, Sandbox, TestExchange } from "@spotkit/testkit"
import { Context, Effect, Exit, Layer, Redacted, Stream } from "effect"
import { NodeSpotClient, NodeSpotPush } from "../src/index.ts"
import { alice, pushEnv, pushFromConfig, pushSandbox } from "./support/pushSandbox.ts"
import { redisServer } from "./support/redisServer.ts"

const server = pushSandbox
const env = pushEnv
const fromConfig = pushFromConfig

const credentials = {
  apiKey: Redacted.make(alice.apiKey),
  secretKey: Redacted.make(alice.secretKey),
  passphrase: Redacted.make(alice.passphrase)
}

// alice's push client of a sandbox on a Redis, with a budget of 6 connection attempts a minute and a short backoff,
// for the test's scope.
const budgeted = (sandbox: Sandbox.Service, redisUrl: string) =>
  Effect.map(
    Layer.build(
      NodeSpotPush.layer({
        url: PushVenue.pushUrl(sandbox),
        credentials,
        redis: { url: redisUrl },
        backoff: { initial: "1 millis", max: "5 millis" },
        limits: { connectionAttempts: { limit: 6, windowMillis: 60_000 } }
      }).pipe(Layer.provide(NodeSpotClient.layer({ baseUrl: sandbox.baseUrl, credentials, rateLimit: false })))
    ),
    (context) => Context.get(context, SpotPush.SpotPush)
  )

// The sandbox's push venue dropping every connection as it opens, and a Redis for the test's scope.
const stormed = Effect.gen(function*() {
  const sandbox = yield* Sandbox.Sandbox
  const venue = yield* PushVenue.PushVenue
  const redis = yield* redisServer
  yield* venue.setFaults({ storm: true })
  return { sandbox, venue, redis }
})

// Watches a book in the background, for the test's scope: the client dials as long as it can.
const dialling = (push: SpotPush.Service) => Effect.forkScoped(Stream.runDrain(push.watchBook("BTCUSDT_SPBL")))

// A second demo exchange with its push venue and sandbox on a port of its own.
const otherVenue = () =>
  PushVenue.layerSandbox().pipe(
    Layer.provideMerge(PushVenue.layer()),
    Layer.provideMerge(TestExchange.layer({ ...TestExchange.demo({ bills: 0 }), rateLimits: false }))
  )

describe("NodeSpotPush", () => {
  it.live("layer: the private balances over ws, as the engine has them", () =>
    Effect.gen(function*() {
      const sandbox = yield* Sandbox.Sandbox
      const exchange = yield* TestExchange.TestExchange
      const balances = yield* Effect.gen(function*() {
        const push = yield* SpotPush.SpotPush
        return yield* Stream.runCollect(Stream.take(push.watchBalances(), 3))
      }).pipe(Effect.provide(
        NodeSpotPush.layer({ url: PushVenue.pushUrl(sandbox), credentials }).pipe(
          Layer.provide(NodeSpotClient.layer({ baseUrl: sandbox.baseUrl, credentials, rateLimit: false }))
        )
      ))
      const engine = exchange.engine.spotBalances(exchange.accounts[0]!.userId)
      for (const balance of balances) {
        assert.strictEqual(balance.available, engine.find((b) => b.coinName === balance.coinName)?.available)
      }
      assert.strictEqual(balances.length, 3)
    }).pipe(Effect.provide(server)), { timeout: 20_000 })

  it.live(
    "with redis: two clients (two stores) share one connection-attempt budget through Redis",
    () =>
      Effect.gen(function*() {
        const { redis, sandbox, venue } = yield* stormed
        yield* dialling(yield* budgeted(sandbox, redis.url))
        yield* dialling(yield* budgeted(sandbox, redis.url))
        yield* Effect.sleep(2_000)
        // Each client alone would have made 6 attempts in the minute: together they made 6.
        assert.strictEqual((yield* venue.stats).attempts, 6)
      }).pipe(Effect.provide(server)),
    { timeout: 30_000 }
  )

  // The budget is named by the venue's host, as REST's are: a reconnect storm against one venue (a staging host, a
  // sandbox) spends its own, and a client of another venue on the same Redis connects at once.
  it.live(
    "with redis: a storm against one venue spends its budget only; a client of another venue connects at once",
    () =>
      Effect.gen(function*() {
        const { redis, sandbox, venue } = yield* stormed
        const other = yield* Layer.build(otherVenue())
        yield* dialling(yield* budgeted(sandbox, redis.url))
        yield* Effect.sleep(1_500)
        assert.strictEqual((yield* venue.stats).attempts, 6, "the stormed venue's client spent its budget")
        const healthy = yield* budgeted(Context.get(other, Sandbox.Sandbox), redis.url)
        const book = yield* Stream.runHead(healthy.watchBook("BTCUSDT_SPBL")).pipe(Effect.timeoutOption(8_000))
        assert.strictEqual(book._tag, "Some", "the other venue's client connected, not held by the storm")
        assert.strictEqual((yield* Context.get(other, PushVenue.PushVenue).stats).attempts, 1)
        // Two budgets, one per venue's host, each under the address's name.
        const keys = redis.cli("--scan", "--pattern", "*push:*").split("\n").filter((key) =>
          /:push:[^:]+:\d+:default$/.test(key)
        )
        assert.strictEqual(keys.length, 2, keys.join(", "))
      }).pipe(Effect.provide(server)),
    { timeout: 30_000 }
  )

  it.live("layerConfig: SPOTKIT_PUSH_URL and the credentials", () =>
    Effect.gen(function*() {
      const book = yield* Effect.gen(function*() {
        const push = yield* SpotPush.SpotPush
        return yield* Stream.runCollect(Stream.take(push.watchBook("BTCUSDT_SPBL"), 1))
      }).pipe(Effect.provide(fromConfig(yield* env)))
      assert.strictEqual(book[0]?._tag, "Book")
    }).pipe(Effect.provide(server)), { timeout: 20_000 })

  for (
    const [variable, value, words] of [
      ["SPOTKIT_PUSH_URL", undefined, "SPOTKIT_PUSH_URL is not set"],
      ["SPOTKIT_PUSH_URL", "http://127.0.0.1:1", "ws:// or wss://"],
      ["SPOTKIT_SECRET_KEY", undefined, "SPOTKIT_SECRET_KEY is not set"]
    ] as const
  ) {
    it.effect(`layerConfig: ${variable} ${value === undefined ? "missing" : "invalid"} fails naming it`, () =>
      Effect.gen(function*() {
        const record: Record<string, string> = { ...(yield* env) }
        if (value === undefined) delete record[variable]
        else record[variable] = value
        const exit = yield* Effect.exit(Layer.build(fromConfig(record)))
        assert.isTrue(Exit.isFailure(exit))
        const rendered = Exit.isFailure(exit) ? String(exit.cause) : ""
        assert.include(rendered, words)
        assert.notInclude(rendered, alice.secretKey)
        assert.notInclude(rendered, alice.passphrase)
      }).pipe(Effect.provide(server)))
  }
})
