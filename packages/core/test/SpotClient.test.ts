/**
 * The client's operations end to end over the fake venue: what `placeOrder` and `internalTransfer` send and answer,
 * 64-bit ids kept exact both ways, a span for every public operation, and the client configured from the
 * environment (`SpotClient.layerConfig`).
 */
import { assert, describe, it } from "@effect/vitest"
import { Cause, Config, ConfigProvider, Effect, Exit, Layer, Redacted, Schema, Stream, Tracer } from "effect"
import { HttpClient } from "effect/http"
import { TestClock } from "effect/testing"
import { Json, Signer, SpotClient, Venue } from "../src/index.ts"
import {
  ASSETS,
  clientLayer,
  credentials,
  FakeVenue,
  limitOrder,
  NOW,
  ORDERS,
  reasonOf,
  requestsTo,
  sampleTransfer,
  SYMBOL,
  TRANSFER,
  withClient
} from "./support/FakeVenue.ts"
import { recordingTracer } from "./support/spans.ts"

describe("placeOrder", () => {
  it.effect("sends exactly the fields of a limit order (docs/venue/trading.md#place-order)", () => {
    const venue = new FakeVenue()
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const result = yield* client.placeOrder(limitOrder("limit-1"))
        assert.strictEqual(result.clientOrderId, "limit-1")
        const [request] = requestsTo(venue, ORDERS)
        assert.deepStrictEqual(request!.json, {
          symbol: SYMBOL,
          side: "buy",
          orderType: "limit",
          force: "postOnly",
          price: "27123.45",
          quantity: "0.015",
          clientOrderId: "limit-1"
        })
        assert.deepStrictEqual(Object.keys(request!.json).sort(), [
          "clientOrderId",
          "force",
          "orderType",
          "price",
          "quantity",
          "side",
          "symbol"
        ])
      }))
  })

  it.effect("sends a zero price and force normal on a market order", () => {
    const venue = new FakeVenue()
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        yield* client.placeOrder({
          symbol: SYMBOL,
          side: "buy",
          orderType: "market",
          quantity: "25",
          clientOrderId: "m"
        })
        assert.deepStrictEqual(requestsTo(venue, ORDERS)[0]!.json, {
          symbol: SYMBOL,
          side: "buy",
          orderType: "market",
          force: "normal",
          price: "0",
          quantity: "25",
          clientOrderId: "m"
        })
      }))
  })

  it.effect("generates a distinct clientOrderId when none is given", () => {
    const venue = new FakeVenue()
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const results = yield* Effect.all([client.placeOrder(limitOrder()), client.placeOrder(limitOrder())])
        const sent = requestsTo(venue, ORDERS).map((request) => request.json.clientOrderId)
        assert.strictEqual(sent.length, 2)
        for (const [i, id] of sent.entries()) {
          assert.isString(id)
          const text = id as string
          assert.isTrue(text.length > 0 && text.length <= 64, text)
          assert.notMatch(text, /\s/)
          assert.strictEqual(results[i]!.clientOrderId, text)
        }
        assert.notStrictEqual(sent[0], sent[1])
      }))
  })

  it.effect("keeps a 64-bit orderId sent as a bare JSON number exact", () => {
    const venue = new FakeVenue()
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const first = yield* client.placeOrder(limitOrder("n1"))
        const second = yield* client.placeOrder(limitOrder("n2"))
        assert.strictEqual(first.orderId, "602876318261969338")
        assert.strictEqual(second.orderId, "602876318261969339")
      }))
  })

  it.effect("keeps an orderId sent as a string exact", () => {
    const venue = new FakeVenue({ idsAsStrings: true })
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const result = yield* client.placeOrder(limitOrder("s1"))
        assert.strictEqual(result.orderId, "602876318261969338")
      }))
  })
})

describe("internalTransfer", () => {
  const transfer = {
    toUserId: "18446744073709551615",
    coin: "USDT",
    amount: "12.345678",
    fromAccountType: "SPOT",
    toAccountType: "FUND"
  } as const

  it.effect("sends toUserId as a JSON number with exact digits", () => {
    const venue = new FakeVenue()
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const result = yield* client.internalTransfer(transfer)
        assert.strictEqual(result.id, "9000000000000000001")
        const [request] = requestsTo(venue, TRANSFER)
        assert.include(request!.body, "\"toUserId\":18446744073709551615")
        assert.include(request!.body, "\"amount\":\"12.345678\"")
      }))
  })

  it.effect("does not retry a transfer whose answer was lost: it finds it in the venue's list instead", () => {
    const venue = new FakeVenue().fail({ kind: "dropAfter" }, TRANSFER)
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const result = yield* client.internalTransfer(transfer)
        assert.strictEqual(venue.count(TRANSFER), 1)
        assert.strictEqual(venue.transfers.length, 1)
        assert.strictEqual(result.id, venue.transfers[0]!.withdrawId)
        assert.strictEqual(result.status, "SUCCESS")
      }))
  })

  it.effect("does not retry a transfer whose answer was lost before it applied: the outcome stays unknown", () => {
    const venue = new FakeVenue().fail({ kind: "dropBefore" }, TRANSFER)
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(client.internalTransfer(transfer))
        const reason = reasonOf(error, "OutcomeUnknownError")
        assert.isTrue(reason.mayExist)
        assert.deepStrictEqual(reason.candidates, [])
        assert.strictEqual(venue.count(TRANSFER), 1)
        assert.strictEqual(venue.transfers.length, 0)
      }))
  })

  it.effect("retries a transfer refused with HTTP 429", () => {
    const venue = new FakeVenue().fail({ kind: "http", status: 429, body: "Too Many Requests" }, TRANSFER)
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const result = yield* client.internalTransfer(transfer)
        assert.strictEqual(result.id, "9000000000000000001")
        assert.strictEqual(venue.count(TRANSFER), 2)
      }))
  })

  it.effect("maps a standard-envelope 43012 to InsufficientBalanceError", () => {
    const venue = new FakeVenue().fail({ kind: "venue", code: "43012", msg: "Insufficient balance" }, TRANSFER)
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(client.internalTransfer(transfer))
        const reason = reasonOf(error, "InsufficientBalanceError")
        assert.strictEqual(reason.code, "43012")
        assert.strictEqual(reason.msg, "Insufficient balance")
        assert.strictEqual(reason.requestTime, NOW)
        assert.strictEqual(venue.count(TRANSFER), 1)
      }))
  })
})

describe("ids over the client", () => {
  it.effect.each([{ idsAsStrings: false }, { idsAsStrings: true }])(
    "placeOrder returns the exact id (ids as strings: $idsAsStrings)",
    ({ idsAsStrings }) => {
      const venue = new FakeVenue({ idsAsStrings })
      return Effect.gen(function*() {
        yield* TestClock.setTime(NOW)
        const client = yield* SpotClient.SpotClient
        const placed = yield* client.placeOrder({
          symbol: "BTCUSDT_SPBL",
          side: "buy",
          orderType: "limit",
          price: "1",
          quantity: "1",
          clientOrderId: "json-1"
        })
        assert.strictEqual(placed.orderId, "602876318261969338")
      }).pipe(Effect.provide(clientLayer(venue, { rateLimit: false })))
    }
  )

  it.effect("internalTransfer sends toUserId as a bare JSON number with its exact digits", () => {
    const venue = new FakeVenue()
    return Effect.gen(function*() {
      yield* TestClock.setTime(NOW)
      const client = yield* SpotClient.SpotClient
      for (const toUserId of ["9007199254740993", "18446744073709551615", "7"]) {
        yield* client.internalTransfer({
          toUserId,
          coin: "USDT",
          amount: "1",
          fromAccountType: "SPOT",
          toAccountType: "FUND"
        })
        const body = venue.requests.at(-1)!.body
        assert.include(body, `"toUserId":${toUserId},`)
        assert.strictEqual(String((Json.parse(body) as { readonly toUserId: unknown }).toUserId), toUserId)
      }
    }).pipe(Effect.provide(clientLayer(venue, { rateLimit: false })))
  })
})

// ---------------------------------------------------------------------------------------------------------------
// tracing

// Records every span the client opens.
const recording = () => {
  const { spans, tracer } = recordingTracer()
  return { spans, layer: Layer.succeed(Tracer.Tracer, tracer) }
}

describe("tracing", () => {
  it.effect("every public operation opens a span named after it, with the HTTP exchange inside", () => {
    const { layer, spans } = recording()
    const venue = new FakeVenue()
    return Effect.gen(function*() {
      yield* withClient(venue, (client) =>
        Effect.gen(function*() {
          yield* client.placeOrder({
            symbol: SYMBOL,
            side: "buy",
            orderType: "limit",
            price: "100",
            quantity: "0.5",
            clientOrderId: "trace-1"
          })
          yield* client.placeOrders(SYMBOL, [{ side: "sell", orderType: "limit", price: "200", quantity: "1" }])
          yield* client.openOrdersPage({ symbol: SYMBOL })
          yield* client.fundingBillsPage({})
          yield* client.internalTransfer(sampleTransfer)
          yield* Stream.runDrain(client.openOrders({ symbol: SYMBOL }))
        }))
      const names = spans.map((span) => span.name)
      for (
        const name of [
          "SpotClient.placeOrder",
          "SpotClient.placeOrders",
          "SpotClient.openOrdersPage",
          "SpotClient.fundingBillsPage",
          "SpotClient.internalTransfer",
          "SpotClient.openOrders"
        ]
      ) {
        assert.include(names, name)
      }
      const place = spans.find((span) => span.name === "SpotClient.placeOrder")!
      assert.strictEqual(place.attributes.get("symbol"), SYMBOL)
      assert.strictEqual(place.attributes.get("side"), "buy")
      assert.strictEqual(place.attributes.get("clientOrderId"), "trace-1")
      assert.strictEqual(place.status._tag, "Ended")
      // The HTTP client's span of the request is a child of the operation's span.
      const children = spans.filter((span) => span.parent._tag === "Some" && span.parent.value === place)
      assert.isAbove(children.length, 0)
    }).pipe(Effect.provide(layer))
  })

  it.effect("without a tracing backend an operation's span records nothing, and keeps the caller's trace", () => {
    const venue = new FakeVenue()
    // The span current during the order's exchange, seen from the caller's hook beneath the pipeline.
    const inside: Array<Tracer.AnySpan> = []
    const transformClient = (client: HttpClient.HttpClient) =>
      HttpClient.tapRequest(client, (request) =>
        request.url.endsWith(Venue.endpoints.placeOrder.path)
          ? Effect.orDie(Effect.map(Effect.currentParentSpan, (span) => void inside.push(span)))
          : Effect.void)
    return Effect.gen(function*() {
      const caller = yield* withClient(venue, (client) =>
        Effect.andThen(
          client.placeOrder({
            symbol: SYMBOL,
            side: "buy",
            orderType: "limit",
            price: "100",
            quantity: "0.5",
            clientOrderId: "native-1"
          }),
          Effect.currentSpan
        ), { transformClient, syncServerTime: false }).pipe(Effect.withSpan("caller"))
      // The default tracer is Effect's native one, which exports nothing.
      assert.strictEqual(yield* Effect.map(Effect.tracer, (tracer) => tracer === Tracer.nativeTracer), true)
      assert.strictEqual(inside.length, 1)
      const span = inside[0]!
      assert(span._tag === "Span")
      assert.strictEqual(span.name, "SpotClient.placeOrder")
      // The operation's span is a child of the caller's, in its trace, sampled as it is: trace context propagates.
      assert.notStrictEqual(span, caller)
      assert.strictEqual(span.parent._tag === "Some" && span.parent.value, caller)
      assert.strictEqual(span.traceId, caller.traceId)
      assert.notStrictEqual(span.spanId, caller.spanId)
      assert.strictEqual(span.sampled, caller.sampled)
      // It recorded nothing (the order's annotations are dropped) and was never timed; the caller's span did not
      // receive them either.
      assert.strictEqual(span.attributes.size, 0)
      assert.strictEqual(span.status.startTime, 0n)
      assert.isFalse(caller.attributes.has("symbol"))
      assert.isFalse(caller.attributes.has("clientOrderId"))
    })
  })
})

// ---------------------------------------------------------------------------------------------------------------
// configuration from the environment

const fullEnv = {
  SPOTKIT_BASE_URL: "https://venue.test/",
  SPOTKIT_API_KEY: credentials.apiKey,
  SPOTKIT_SECRET_KEY: credentials.secretKey,
  SPOTKIT_PASSPHRASE: credentials.passphrase
}

const clientFromEnv = (venue: FakeVenue, env: Record<string, string>) =>
  SpotClient.layerConfig().pipe(
    Layer.provide(venue.layer),
    Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnvRecord(env)))
  )

const placeOne = Effect.gen(function*() {
  yield* TestClock.setTime(NOW)
  const client = yield* SpotClient.SpotClient
  return yield* client.placeOrder({ symbol: "BTCUSDT_SPBL", side: "sell", orderType: "market", quantity: "0.5" })
})

describe("Signer.noCredentials", () => {
  it.effect("a public-only client: public calls answer, a signed one fails before anything is sent", () => {
    const venue = new FakeVenue()
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const time = yield* client.serverTime()
        assert.isAbove(time, 0)
        const error = yield* Effect.flip(client.balances())
        assert.match(reasonOf(error, "ValidationError").field, /^credentials\./)
        assert.deepStrictEqual(requestsTo(venue, ASSETS), [])
      }), { credentials: Signer.noCredentials })
  })
})

describe("SpotClient.layerConfig", () => {
  it.effect("reads SPOTKIT_* variables, defaults the locale and trims the base URL's slash", () => {
    const venue = new FakeVenue()
    return Effect.gen(function*() {
      const placed = yield* placeOne
      assert.strictEqual(venue.orders[0]?.clientOrderId, placed.clientOrderId)
      const sent = venue.requests[0]!
      assert.strictEqual(sent.path, "/api/v2/trade/orders")
      assert.strictEqual(sent.headers["locale"], "en-US")
      assert.strictEqual(sent.headers["access-key"], credentials.apiKey)
    }).pipe(Effect.provide(clientFromEnv(venue, fullEnv)))
  })

  it.effect("sends SPOTKIT_LOCALE when set", () => {
    const venue = new FakeVenue()
    return Effect.gen(function*() {
      yield* placeOne
      assert.strictEqual(venue.requests[0]!.headers["locale"], "zh-CN")
    }).pipe(Effect.provide(clientFromEnv(venue, { ...fullEnv, SPOTKIT_LOCALE: "zh-CN" })))
  })

  for (const baseUrl of ["not a url", "ftp://venue.test", "venue.test", "https://"]) {
    it.effect(`refuses SPOTKIT_BASE_URL=${JSON.stringify(baseUrl)}, naming it, before any request`, () => {
      const venue = new FakeVenue()
      return Effect.gen(function*() {
        const exit = yield* Effect.exit(
          Layer.build(clientFromEnv(venue, { ...fullEnv, SPOTKIT_BASE_URL: baseUrl })).pipe(Effect.scoped)
        )
        assert.isTrue(Exit.isFailure(exit))
        const rendered = String(Exit.isFailure(exit) ? exit.cause : "")
        assert.include(rendered, "SPOTKIT_BASE_URL")
        assert.include(rendered, "http:// or https://")
        assert.strictEqual(venue.requests.length, 0)
        const error = Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined
        assert.instanceOf(error, SpotClient.ConfigurationError)
        assert.strictEqual((error as SpotClient.ConfigurationError).problem, "invalid")
        assert.match(
          (error as SpotClient.ConfigurationError).message,
          /^SPOTKIT_BASE_URL is invalid \(.*http:\/\/ or https:\/\//
        )
      })
    })
  }

  it.effect("refuses a SPOTKIT_BASE_URL ending in /api/v2, naming the URL to give, before any request", () => {
    const venue = new FakeVenue()
    return Effect.gen(function*() {
      const exit = yield* Effect.exit(
        Layer.build(clientFromEnv(venue, { ...fullEnv, SPOTKIT_BASE_URL: "https://venue.test/api/v2/" })).pipe(
          Effect.scoped
        )
      )
      const error = Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined
      assert.instanceOf(error, SpotClient.ConfigurationError)
      assert.strictEqual(
        (error as SpotClient.ConfigurationError).message,
        "SPOTKIT_BASE_URL is invalid (ends in /api/v2, which every endpoint's path starts with; leave it out " +
          "(https://venue.test))"
      )
      assert.strictEqual(venue.requests.length, 0)
    })
  })

  it.effect.each(["https://venue.test/api/v2", "venue.test", "https://key:secret-in-url@venue.test"])(
    "make refuses the baseUrl %s with a RangeError, quoting none of it, before any request",
    (baseUrl) => {
      const venue = new FakeVenue()
      return Effect.gen(function*() {
        const exit = yield* Effect.exit(Layer.build(clientLayer(venue, { baseUrl })).pipe(Effect.scoped))
        assert.isTrue(Exit.isFailure(exit), "the client was built")
        if (Exit.isSuccess(exit)) return
        const defect = Cause.findDefect(exit.cause)
        assert.strictEqual(defect._tag, "Success", Cause.pretty(exit.cause))
        if (defect._tag !== "Success") return
        assert.instanceOf(defect.success, RangeError)
        const message = (defect.success as RangeError).message
        assert.match(message, /^baseUrl (ends in \/api\/v2|is not a URL|has a user name or password)/)
        assert.notInclude(message, "secret-in-url")
        assert.strictEqual(venue.requests.length, 0)
      })
    }
  )

  for (const missing of Object.keys(fullEnv)) {
    it.effect(`fails with an error naming ${missing} when it is missing`, () => {
      const env: Record<string, string> = { ...fullEnv }
      delete env[missing]
      return Effect.gen(function*() {
        const exit = yield* Effect.exit(Layer.build(clientFromEnv(new FakeVenue(), env)).pipe(Effect.scoped))
        assert.isTrue(Exit.isFailure(exit))
        const rendered = String(Exit.isFailure(exit) ? exit.cause : "")
        assert.include(rendered, missing)
        // Said in words: the variable is not set (not "SchemaError(Expected string at [...])").
        const error = Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined
        assert.instanceOf(error, SpotClient.ConfigurationError)
        assert.strictEqual((error as SpotClient.ConfigurationError).message, `${missing} is not set`)
        assert.notInclude(rendered, "SchemaError")
        for (const secret of [credentials.secretKey, credentials.passphrase]) {
          assert.notInclude(rendered, secret)
        }
      })
    })
  }
})

// Every variable read, every problem named in one error: not one per run.
describe("SpotClient.readConfig", () => {
  const read = <A>(config: Config.Wrap<A>, env: Record<string, string>) =>
    Effect.flip(SpotClient.readConfig(config)).pipe(
      Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromEnvRecord(env))
    )

  it.effect("all four variables missing: the layer's one error names the four, in the order they are read", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(Layer.build(clientFromEnv(new FakeVenue(), {})).pipe(Effect.scoped))
      const error = Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined
      assert.instanceOf(error, SpotClient.ConfigurationError)
      const failure = error as SpotClient.ConfigurationError
      assert.strictEqual(
        failure.message,
        "SPOTKIT_BASE_URL is not set; SPOTKIT_API_KEY is not set; SPOTKIT_SECRET_KEY is not set; " +
          "SPOTKIT_PASSPHRASE is not set"
      )
      assert.deepStrictEqual(failure.problems.map(({ problem, variable }) => [variable, problem]), [
        ["SPOTKIT_BASE_URL", "missing"],
        ["SPOTKIT_API_KEY", "missing"],
        ["SPOTKIT_SECRET_KEY", "missing"],
        ["SPOTKIT_PASSPHRASE", "missing"]
      ])
      // `variable` and `problem` keep naming the first; it is still a Config.ConfigError.
      assert.strictEqual(failure.variable, "SPOTKIT_BASE_URL")
      assert.strictEqual(failure.problem, "missing")
      assert.instanceOf(failure, Config.ConfigError)
    }))

  it.effect("one invalid and one missing: both named, each with its kind", () =>
    Effect.gen(function*() {
      const env: Record<string, string> = { ...fullEnv, SPOTKIT_BASE_URL: "ftp://venue.test" }
      delete env.SPOTKIT_PASSPHRASE
      const error = yield* read(SpotClient.defaultConfig, env)
      assert.strictEqual(
        error.message,
        "SPOTKIT_BASE_URL is invalid (must start with http:// or https://); SPOTKIT_PASSPHRASE is not set"
      )
      assert.deepStrictEqual(error.problems, [
        { variable: "SPOTKIT_BASE_URL", problem: "invalid", detail: "must start with http:// or https://" },
        { variable: "SPOTKIT_PASSPHRASE", problem: "missing", detail: "Expected string" }
      ])
      assert.strictEqual(error.variable, "SPOTKIT_BASE_URL")
      assert.strictEqual(error.problem, "invalid")
    }))

  const nested = {
    server: { host: Config.String("HOST"), limits: { port: Config.Port("PORT"), name: Config.String("NAME") } },
    debug: Config.Boolean("DEBUG").pipe(Config.withDefault(false))
  }

  it.effect("nested keys: every leaf read, depth first; the value keeps the wrap's shape", () =>
    Effect.gen(function*() {
      const error = yield* read(nested, { PORT: "70000" })
      assert.deepStrictEqual(error.problems.map(({ problem, variable }) => [variable, problem]), [
        ["HOST", "missing"],
        ["PORT", "invalid"],
        ["NAME", "missing"]
      ])
      assert.match(error.message, /^HOST is not set; PORT is invalid \(.+\); NAME is not set$/)
      const value = yield* SpotClient.readConfig(nested).pipe(
        Effect.provideService(
          ConfigProvider.ConfigProvider,
          ConfigProvider.fromUnknown({ HOST: "venue.test", PORT: "8443", NAME: "spot" })
        )
      )
      assert.deepStrictEqual(value, {
        server: { host: "venue.test", limits: { port: 8443, name: "spot" } },
        debug: false
      })
    }))

  it.effect("a single Config, not a struct: its value, or its one problem", () =>
    Effect.gen(function*() {
      const locale = Config.String("SPOTKIT_LOCALE")
      const value = yield* SpotClient.readConfig(locale).pipe(
        Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromEnvRecord({ SPOTKIT_LOCALE: "zh-CN" }))
      )
      assert.strictEqual(value, "zh-CN")
      const error = yield* read(locale, {})
      assert.strictEqual(error.message, "SPOTKIT_LOCALE is not set")
      assert.strictEqual(error.problems.length, 1)
    }))

  it.effect("a secret's value never appears, even when it is the invalid one", () =>
    Effect.gen(function*() {
      const secret = "hunter2-not-long-enough"
      const config = {
        ...SpotClient.defaultConfig,
        credentials: {
          apiKey: Config.Redacted("SPOTKIT_API_KEY"),
          secretKey: Config.schema(Schema.Redacted(Schema.String.check(Schema.isMinLength(64))), "SPOTKIT_SECRET_KEY"),
          passphrase: Config.Redacted("SPOTKIT_PASSPHRASE")
        }
      }
      const env: Record<string, string> = { ...fullEnv, SPOTKIT_SECRET_KEY: secret }
      delete env.SPOTKIT_API_KEY
      const error = yield* read(config, env)
      assert.deepStrictEqual(error.problems.map(({ problem, variable }) => [variable, problem]), [
        ["SPOTKIT_API_KEY", "missing"],
        ["SPOTKIT_SECRET_KEY", "invalid"]
      ])
      for (const shown of [error.message, String(error), JSON.stringify(error.problems), String(error.cause)]) {
        assert.notInclude(shown, secret)
        assert.notInclude(shown, credentials.passphrase)
      }
      // Read in full, the secrets stay Redacted.
      const options = yield* SpotClient.readConfig(config).pipe(
        Effect.provideService(
          ConfigProvider.ConfigProvider,
          ConfigProvider.fromEnvRecord({ ...fullEnv, SPOTKIT_SECRET_KEY: secret.repeat(4) })
        )
      )
      assert.isTrue(Redacted.isRedacted(options.credentials.secretKey))
      assert.strictEqual(Redacted.value(options.credentials.secretKey), secret.repeat(4))
    }))
})
