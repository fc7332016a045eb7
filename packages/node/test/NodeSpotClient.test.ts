/**
 * `NodeSpotClient` against the sandbox on a loopback port (real HTTP through undici, node:crypto signatures): the
 * client from `layer` places an order, streams open orders and reads a bills page; `layerConfig` reads the
 * environment (here a `ConfigProvider` from a record), names a missing variable without printing a secret, and reads
 * `SPOTKIT_RATE_LIMIT`; over every transport, a header that cannot be sent fails the call before sending, typed.
 */
import { assert, describe, it } from "@effect/vitest"
import { SpotClient, type SpotError } from "@spotkit/core"
import { Sandbox, TestExchange } from "@spotkit/testkit"
import { Cause, Config, ConfigProvider, Effect, Exit, Layer, Redacted, Stream } from "effect"
import { HttpClient, HttpClientRequest } from "effect/http"
import { NodeSpotClient, NodeSpotPush } from "../src/index.ts"
import { sandboxLayer } from "./support/cli.ts"
import { hostileVenue } from "./support/hostile.ts"

const { layer: SandboxLayer, signatures } = sandboxLayer({ seed: 5, bills: 230 })

// A resting buy of alice's, under `clientOrderId`.
const limitBuy = (clientOrderId: string) => ({
  symbol: "BTCUSDT_SPBL",
  side: "buy",
  orderType: "limit",
  force: "normal",
  price: "29000",
  quantity: "0.01",
  clientOrderId
} as const)

const clientFromConfig = (env: Record<string, string>) =>
  NodeSpotClient.layerConfig().pipe(Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnvRecord(env))))

it.layer(SandboxLayer, { excludeTestServices: true })("NodeSpotClient over loopback HTTP", (it) => {
  const aliceOptions = Effect.gen(function*() {
    const exchange = yield* TestExchange.TestExchange
    const sandbox = yield* Sandbox.Sandbox
    return { baseUrl: sandbox.baseUrl, credentials: exchange.accounts[0]!.credentials, rateLimit: false as const }
  })

  const env = Effect.map(aliceOptions, (options) => ({
    SPOTKIT_BASE_URL: options.baseUrl,
    SPOTKIT_API_KEY: Redacted.value(options.credentials.apiKey),
    SPOTKIT_SECRET_KEY: Redacted.value(options.credentials.secretKey),
    SPOTKIT_PASSPHRASE: Redacted.value(options.credentials.passphrase)
  } as Record<string, string>))

  for (const transport of ["undici", "effect-undici", "node:http"] as const) {
    it.effect(`layer over ${transport}: places an order, streams it among the open orders, reads a page of bills`, () =>
      Effect.gen(function*() {
        const exchange = yield* TestExchange.TestExchange
        const alice = exchange.accounts[0]!.userId
        const options = yield* aliceOptions
        const before = signatures.length
        yield* Effect.gen(function*() {
          const client = yield* SpotClient.SpotClient
          // The venue's form: letters, digits, "_" and "-" only ("node:http" has a colon).
          const placed = yield* client.placeOrder(limitBuy(`node-client-${transport.replace(":", "-")}`))
          assert.strictEqual(
            exchange.engine.order(placed.orderId)?.clientOrderId,
            `node-client-${transport.replace(":", "-")}`
          )
          const open = yield* Stream.runCollect(client.openOrders({ symbol: "BTCUSDT_SPBL" }))
          // Newest first: this test's order leads whatever earlier tests left open.
          assert.strictEqual(open[0]?.orderId, placed.orderId)

          const page = yield* client.fundingBillsPage({ pageSize: 50 })
          const expected = exchange.engine.fundingBills(alice, { pageSize: 50 })
          assert.strictEqual(page.total, expected.total)
          assert.strictEqual(page.items?.length, 50)
          assert.deepStrictEqual(
            page.items?.map((bill) => [bill.billId, bill.deltaAmount, bill.afterAmount, String(bill.cTime)]),
            expected.items.map((bill) => [bill.billId, bill.deltaAmount, bill.afterAmount, bill.cTime])
          )
        }).pipe(Effect.provide(NodeSpotClient.layer({ ...options, transport })))
        // Three signed requests crossed the socket, each signed by node:crypto as the venue checks it.
        assert.strictEqual(signatures.length - before, 3)
      }))
  }

  // `timeoutBy: "transport"` leaves the timeout to the HTTP client; only the default undici transport ends an exchange
  // at it. Asked of another, every exchange would be unbounded (an answer trickled a byte at a time holds the call for
  // ever): the layer refuses it, naming why; the default transport takes it, and places an order.
  it.effect("timeoutBy transport: refused where the transport does not bound an exchange, taken by undici", () =>
    Effect.gen(function*() {
      const options = yield* aliceOptions
      const refusals = [
        [{ transport: "node:http" }, "the \"node:http\" transport does not end an exchange at the timeout"],
        [{ transport: "effect-undici" }, "the \"effect-undici\" transport does not end an exchange at the timeout"],
        [{ timeout: "30 days" }, "with a timeout longer than one timer holds"]
      ] as const
      for (const [variant, why] of refusals) {
        const exit = yield* Effect.exit(
          Layer.build(NodeSpotClient.layer({ ...options, ...variant, timeoutBy: "transport" }))
        )
        assert.isTrue(Exit.isFailure(exit), JSON.stringify(variant))
        const error = Exit.isFailure(exit) ? Cause.squash(exit.cause) as SpotError.SpotError : undefined
        assert.strictEqual(error?.reason._tag, "ValidationError")
        assert.strictEqual(error?.reason._tag === "ValidationError" ? error.reason.field : undefined, "timeoutBy")
        assert.include(error?.message, why)
      }
      // The same transports with the timeout left to the client: built, and they work (the loop above places orders).
      for (const transport of ["node:http", "effect-undici"] as const) {
        assert.isTrue(Exit.isSuccess(yield* Effect.exit(Layer.build(NodeSpotClient.layer({ ...options, transport })))))
      }
      const placed = yield* Effect.flatMap(
        Effect.service(SpotClient.SpotClient),
        (client) => client.placeOrder(limitBuy("node-client-timeout-by-transport"))
      ).pipe(Effect.provide(NodeSpotClient.layer({ ...options, timeoutBy: "transport" })))
      assert.isString(placed.orderId)
    }).pipe(Effect.scoped))

  it.effect("layerConfig: reads SPOTKIT_* from the ConfigProvider", () =>
    Effect.gen(function*() {
      const exchange = yield* TestExchange.TestExchange
      const orders = yield* Effect.gen(function*() {
        const client = yield* SpotClient.SpotClient
        return yield* Stream.runCollect(client.openOrders({ symbol: "BTCUSDT_SPBL" }))
      }).pipe(Effect.provide(clientFromConfig({ ...(yield* env), SPOTKIT_RATE_LIMIT: "off" })))
      const open = exchange.engine.orderList(exchange.accounts[0]!.userId).filter((order) => order.status === "open")
      assert.deepStrictEqual(orders.map((order) => order.orderId).sort(), open.map((order) => order.orderId).sort())
      assert.isAbove(orders.length, 0)
    }))

  for (const missing of ["SPOTKIT_BASE_URL", "SPOTKIT_API_KEY", "SPOTKIT_SECRET_KEY", "SPOTKIT_PASSPHRASE"]) {
    it.effect(`layerConfig: a missing ${missing} fails naming it, with no secret in the error`, () =>
      Effect.gen(function*() {
        const full = yield* env
        const partial = { ...full }
        delete partial[missing]
        const exit = yield* Effect.exit(Layer.build(clientFromConfig(partial)))
        assert.isTrue(Exit.isFailure(exit))
        const rendered = Exit.isFailure(exit) ? String(exit.cause) : ""
        assert.include(rendered, missing)
        for (const secret of [full.SPOTKIT_SECRET_KEY!, full.SPOTKIT_PASSPHRASE!]) {
          assert.notInclude(rendered, secret)
        }
      }))
  }

  it.effect("layerConfig: SPOTKIT_RATE_LIMIT other than on or off fails naming it", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(Layer.build(clientFromConfig({ ...(yield* env), SPOTKIT_RATE_LIMIT: "bad" })))
      assert.isTrue(Exit.isFailure(exit))
      assert.include(Exit.isFailure(exit) ? String(exit.cause) : "", "SPOTKIT_RATE_LIMIT")
    }))
})

// Node's config readers go through core's `readConfig`: every problem named in one error, not one per run.
describe("layerConfig: every problem at once", () => {
  it.effect("NodeSpotClient.layerConfig names every missing or invalid variable, in order, and no secret", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(Layer.build(clientFromConfig({
        SPOTKIT_BASE_URL: "http://127.0.0.1:1",
        SPOTKIT_SECRET_KEY: "node-secret-0d9f",
        SPOTKIT_RATE_LIMIT: "sometimes"
      })))
      const error = Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined
      assert.instanceOf(error, SpotClient.ConfigurationError)
      assert.strictEqual(
        (error as SpotClient.ConfigurationError).message,
        "SPOTKIT_API_KEY is not set; SPOTKIT_PASSPHRASE is not set; " +
          "SPOTKIT_RATE_LIMIT is invalid (Expected \"on\" | \"off\")"
      )
      assert.notInclude(String(Exit.isFailure(exit) ? exit.cause : ""), "node-secret-0d9f")
    }))

  it.effect("the proxy variables: each one that is no proxy named with the others, and no password", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(SpotClient.readConfig(NodeSpotClient.defaultConfig)).pipe(
        Effect.provideService(
          ConfigProvider.ConfigProvider,
          ConfigProvider.fromEnvRecord({
            SPOTKIT_BASE_URL: "http://127.0.0.1:1",
            SPOTKIT_SECRET_KEY: "node-secret-0d9f",
            SPOTKIT_PASSPHRASE: "pass",
            HTTPS_PROXY: "yes",
            http_proxy: "ftp://user:hunter22@proxy",
            HTTP_PROXY: "http://127.0.0.1:3128"
          })
        )
      )
      assert.strictEqual(
        error.message,
        "SPOTKIT_API_KEY is not set; " +
          "HTTPS_PROXY is invalid (has neither a scheme nor a port; expected http://proxy.internal:3128 or host:port); " +
          "http_proxy is invalid (must start with http:// or https://)"
      )
      assert.deepStrictEqual(error.problems.map((problem) => problem.variable), [
        "SPOTKIT_API_KEY",
        "HTTPS_PROXY",
        "http_proxy"
      ])
      assert.notInclude(String(error) + JSON.stringify(error.problems), "hunter22")
    }))

  it.effect("NodeSpotPush's defaultConfig: SPOTKIT_PUSH_URL and the credentials together", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(SpotClient.readConfig(NodeSpotPush.defaultConfig)).pipe(
        Effect.provideService(
          ConfigProvider.ConfigProvider,
          ConfigProvider.fromEnvRecord({ SPOTKIT_PUSH_URL: "https://venue.test", SPOTKIT_API_KEY: "k" })
        )
      )
      assert.strictEqual(
        error.message,
        "SPOTKIT_PUSH_URL is invalid (must be a ws:// or wss:// URL); SPOTKIT_SECRET_KEY is not set; " +
          "SPOTKIT_PASSPHRASE is not set"
      )
    }))
})

// SPOTKIT_RATE_LIMIT: on (the default) keeps core's client-side limits (`rateLimit` undefined: docs/venue/limits.md's
// defaults), off turns them off (`false`), so a burst reaches a venue that enforces its limits at once.
describe("SPOTKIT_RATE_LIMIT", () => {
  // The required variables, and `env`.
  const provider = (env: Record<string, string>) =>
    ConfigProvider.fromEnvRecord({
      SPOTKIT_BASE_URL: "http://127.0.0.1:1",
      SPOTKIT_API_KEY: "k",
      SPOTKIT_SECRET_KEY: "s",
      SPOTKIT_PASSPHRASE: "p",
      ...env
    })
  const optionsOf = (env: Record<string, string>) => Config.unwrap(NodeSpotClient.defaultConfig).parse(provider(env))
  // The one problem `readConfig` reports.
  const problemOf = (env: Record<string, string>) =>
    Effect.flip(SpotClient.readConfig(NodeSpotClient.defaultConfig)).pipe(
      Effect.provideService(ConfigProvider.ConfigProvider, provider(env))
    )
  const rateLimitOf = (env: Record<string, string>) => Effect.map(optionsOf(env), (options) => options.rateLimit)

  it.effect("on and unset keep the client's limits; off turns them off; anything else fails naming it", () =>
    Effect.gen(function*() {
      assert.isUndefined(yield* rateLimitOf({ SPOTKIT_RATE_LIMIT: "on" }))
      assert.isUndefined(yield* rateLimitOf({}))
      assert.strictEqual(yield* rateLimitOf({ SPOTKIT_RATE_LIMIT: "off" }), false)
      const bad = yield* Effect.exit(rateLimitOf({ SPOTKIT_RATE_LIMIT: "On" }))
      assert.isTrue(Exit.isFailure(bad))
      assert.include(Exit.isFailure(bad) ? String(bad.cause) : "", "SPOTKIT_RATE_LIMIT")
    }))

  it.effect("SPOTKIT_RATE_LIMIT_PAUSE_EXEMPT names the endpoints that go through a 429's pause", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(
        yield* rateLimitOf({ SPOTKIT_RATE_LIMIT_PAUSE_EXEMPT: " cancelOrder, cancelAll ,," }),
        { pauseExempt: ["cancelOrder", "cancelAll"] }
      )
      assert.isUndefined(yield* rateLimitOf({ SPOTKIT_RATE_LIMIT_PAUSE_EXEMPT: " " }))
      assert.strictEqual(
        yield* rateLimitOf({ SPOTKIT_RATE_LIMIT: "off", SPOTKIT_RATE_LIMIT_PAUSE_EXEMPT: "cancelOrder" }),
        false,
        "off wins"
      )
      const error = yield* problemOf({ SPOTKIT_RATE_LIMIT_PAUSE_EXEMPT: "cancelOrder,cancel,toString" })
      assert.deepStrictEqual(error.problems.map((problem) => problem.variable), ["SPOTKIT_RATE_LIMIT_PAUSE_EXEMPT"])
      assert.include(error.message, "SPOTKIT_RATE_LIMIT_PAUSE_EXEMPT is invalid (names no endpoint: cancel, toString")
      assert.include(error.message, "cancelOrders")
    }))

  it.effect("SPOTKIT_RATE_LIMIT_ADDRESS names the address's budget, SPOTKIT_REDIS_PREFIX the store's keys", () =>
    Effect.gen(function*() {
      const url = "redis://127.0.0.1:6379"
      assert.deepStrictEqual(yield* rateLimitOf({ SPOTKIT_RATE_LIMIT_ADDRESS: "host-b.eu:1" }), {
        address: "host-b.eu:1"
      })
      assert.deepStrictEqual(
        yield* rateLimitOf({ SPOTKIT_RATE_LIMIT_ADDRESS: "nat_2", SPOTKIT_RATE_LIMIT_PAUSE_EXEMPT: "cancelOrder" }),
        { address: "nat_2", pauseExempt: ["cancelOrder"] }
      )
      assert.strictEqual(yield* rateLimitOf({ SPOTKIT_RATE_LIMIT: "off", SPOTKIT_RATE_LIMIT_ADDRESS: "b" }), false)
      const redis = yield* Effect.map(
        optionsOf({ SPOTKIT_REDIS_URL: url, SPOTKIT_REDIS_PREFIX: "desk-a:{budget}:" }),
        (options) => options.redis
      )
      assert.strictEqual(redis?.prefix, "desk-a:{budget}:")
      // The push connections' budget of the address is named alike.
      const push = yield* Config.unwrap(NodeSpotPush.defaultConfig).parse(
        provider({ SPOTKIT_PUSH_URL: "ws://127.0.0.1:1", SPOTKIT_RATE_LIMIT_ADDRESS: "host-b" })
      )
      assert.strictEqual(push.address, "host-b")
      for (
        const [variable, value, said] of [
          ["SPOTKIT_RATE_LIMIT_ADDRESS", "host b", "must be 1 to 64 letters, digits, dots, colons, dashes"],
          ["SPOTKIT_RATE_LIMIT_ADDRESS", "x".repeat(65), "must be 1 to 64 letters"],
          ["SPOTKIT_REDIS_PREFIX", "desk a:", "must be 1 to 100 printable characters, without spaces"]
        ] as const
      ) {
        const error = yield* problemOf({ SPOTKIT_REDIS_URL: url, [variable]: value })
        assert.deepStrictEqual(error.problems.map((problem) => problem.variable), [variable])
        assert.include(error.message, `${variable} is invalid (${said}`)
      }
    }))

  it.effect("SPOTKIT_REDIS_ON_UNAVAILABLE and SPOTKIT_REDIS_TIMEOUT_MS set the Redis store's policy and timeout", () =>
    Effect.gen(function*() {
      const redisOf = (env: Record<string, string>) => Effect.map(optionsOf(env), (options) => options.redis)
      const url = "redis://127.0.0.1:6379"
      const set = yield* redisOf({
        SPOTKIT_REDIS_URL: url,
        SPOTKIT_REDIS_ON_UNAVAILABLE: "fail",
        SPOTKIT_REDIS_TIMEOUT_MS: "750"
      })
      assert.isTrue(set !== undefined && Redacted.isRedacted(set.url) && Redacted.value(set.url) === url)
      assert.strictEqual(set?.onUnavailable, "fail")
      assert.strictEqual(set?.timeout, 750)
      const plain = yield* redisOf({ SPOTKIT_REDIS_URL: url })
      assert.isUndefined(plain?.onUnavailable)
      assert.isUndefined(plain?.timeout)
      assert.isUndefined(yield* redisOf({ SPOTKIT_REDIS_ON_UNAVAILABLE: "memory" }), "no Redis without a URL")
      // Written wrong, each is named, with the URL set or not (a fleet's setting is not silently dropped).
      const policy = yield* problemOf({ SPOTKIT_REDIS_ON_UNAVAILABLE: "crash" })
      assert.deepStrictEqual(policy.problems.map((problem) => problem.variable), ["SPOTKIT_REDIS_ON_UNAVAILABLE"])
      assert.include(policy.message, "SPOTKIT_REDIS_ON_UNAVAILABLE is invalid (must be memory or fail)")
      const timeout = yield* problemOf({ SPOTKIT_REDIS_URL: url, SPOTKIT_REDIS_TIMEOUT_MS: "2 seconds" })
      assert.deepStrictEqual(timeout.problems.map((problem) => problem.variable), ["SPOTKIT_REDIS_TIMEOUT_MS"])
      assert.include(timeout.message, "SPOTKIT_REDIS_TIMEOUT_MS is invalid (must be a whole number of milliseconds")
    }))

  const LimitedSandbox = Sandbox.layer().pipe(
    Layer.provideMerge(TestExchange.layer(TestExchange.demo({ seed: 9, bills: 0 })))
  )
  const BURST = 14

  const burst = (setting: string | undefined) =>
    Effect.gen(function*() {
      const exchange = yield* TestExchange.TestExchange
      const sandbox = yield* Sandbox.Sandbox
      const { apiKey, passphrase, secretKey } = exchange.accounts[0]!.credentials
      const env: Record<string, string> = {
        SPOTKIT_BASE_URL: sandbox.baseUrl,
        SPOTKIT_API_KEY: Redacted.value(apiKey),
        SPOTKIT_SECRET_KEY: Redacted.value(secretKey),
        SPOTKIT_PASSPHRASE: Redacted.value(passphrase),
        ...(setting === undefined ? {} : { SPOTKIT_RATE_LIMIT: setting })
      }
      yield* exchange.clearRequests
      yield* exchange.resetRateLimits
      yield* Effect.gen(function*() {
        const client = yield* SpotClient.SpotClient
        yield* Effect.forEach(
          Array.from({ length: BURST }, (_, i) => i),
          (i) =>
            // A rate-limited order may be refused for good once the client's retries run out: count the answers.
            Effect.exit(client.placeOrder({
              symbol: "ETHUSDT_SPBL",
              side: "buy",
              orderType: "limit",
              force: "normal",
              price: "1900",
              quantity: "0.01",
              clientOrderId: `burst-${setting ?? "unset"}-${i}`
            })),
          { concurrency: "unbounded" }
        )
      }).pipe(Effect.provide(clientFromConfig(env)))
      const requests = yield* exchange.requests
      return requests.filter((request) => request.path === "/api/v2/trade/orders").map((request) => request.status)
    })

  it.layer(LimitedSandbox, { excludeTestServices: true })("against a venue that enforces its limits", (it) => {
    it.effect("off: the venue refuses part of the burst with HTTP 429", () =>
      Effect.gen(function*() {
        const statuses = yield* burst("off")
        assert.isTrue(statuses.includes(429), `statuses: ${statuses.join(",")}`)
      }))
  })
})

// Found in review: a locale with a line break was a defect over node:http ("Invalid character in header content"), a
// retryable TransportError over undici, and a placed order then ended as "may have been applied" though nothing was
// sent. The client now refuses such an option itself; a header added by `transformClient` that the transport refuses
// is a TransportError that says it was not sent, over every transport.
describe("headers no transport can send", () => {
  const order = {
    symbol: "BTCUSDT_SPBL",
    side: "buy",
    orderType: "limit",
    force: "normal",
    price: "1",
    quantity: "1",
    clientOrderId: "header-1"
  } as const
  const credentials = {
    apiKey: Redacted.make(TestExchange.demoKeys.alice.apiKey),
    secretKey: Redacted.make(TestExchange.demoKeys.alice.secretKey),
    passphrase: Redacted.make(TestExchange.demoKeys.alice.passphrase)
  }

  const placeOver = (baseUrl: string, options: Partial<NodeSpotClient.Options>) =>
    Effect.exit(
      Effect.flatMap(Effect.service(SpotClient.SpotClient), (client) => client.placeOrder(order)).pipe(
        Effect.provide(NodeSpotClient.layer({
          baseUrl,
          credentials,
          rateLimit: false,
          retry: { times: 1, baseDelay: "1 millis" },
          syncServerTime: false,
          checkSymbolRules: false,
          ...options
        }))
      )
    )

  const failureOf = (exit: Exit.Exit<unknown, SpotError.SpotError>): SpotError.SpotError => {
    assert.isTrue(Exit.isFailure(exit) && !Cause.hasDies(exit.cause), `a failure, not a defect: ${String(exit)}`)
    return Cause.squash((exit as Exit.Failure<unknown, SpotError.SpotError>).cause) as SpotError.SpotError
  }

  for (const transport of ["undici", "effect-undici", "node:http"] as const) {
    it.live(`${transport}: a locale with a line break is a ValidationError; nothing is sent`, () =>
      Effect.scoped(Effect.gen(function*() {
        const venue = yield* hostileVenue((_request, _body, response) => response.end("{}"))
        const error = failureOf(yield* placeOver(venue.baseUrl, { transport, locale: "en-US\r\nX-Evil: 1" }))
        assert.strictEqual(error.reason._tag, "ValidationError", error.message)
        assert.include(error.message, "invalid locale: has a line break")
        assert.deepStrictEqual(venue.paths, [])
      })))

    for (const [what, name, value] of [["value", "x-extra", "a\r\nb"], ["name", "bad name", "x"]] as const) {
      it.live(`${transport}: a hook's header with a bad ${what} is a TransportError, not sent, not a possible order`, () =>
        Effect.scoped(Effect.gen(function*() {
          const venue = yield* hostileVenue((_request, _body, response) => response.end("{}"))
          const error = failureOf(
            yield* placeOver(venue.baseUrl, {
              transport,
              transformClient: HttpClient.mapRequest(HttpClientRequest.setHeader(name, value))
            })
          )
          assert.strictEqual(error.reason._tag, "TransportError", error.message)
          assert.isTrue((error.reason as SpotError.TransportError).notSent, error.message)
          assert.deepStrictEqual(venue.paths, [])
        })))
    }
  }
})
