/**
 * Credentials never leak (src/internal/errors.ts, the `Scrubber`): not into logs, spans, results or rendered errors,
 * not as header values of traced requests, not as a fragment cut by an excerpt, not JSON-escaped (with or without
 * `\/`); and scrubbing touches the texts that end up in messages, never data.
 */
import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Exit, Layer, Logger, Redacted, References, Stream, Tracer } from "effect"
import { HttpClient, HttpClientResponse } from "effect/http"
import { TestClock } from "effect/testing"
import { inspect } from "node:util"
import { SpotClient } from "../src/index.ts"
import {
  BATCH,
  BILLS,
  clientOptions,
  credentials,
  envelope,
  FakeVenue,
  NOW,
  OPEN_ORDERS,
  ORDERS,
  reasonOf,
  ScriptedVenue,
  SYMBOL,
  TRANSFER,
  withClient
} from "./support/FakeVenue.ts"
import { recordingTracer } from "./support/spans.ts"

const { apiKey, passphrase, secretKey } = credentials

const render = (value: unknown) => inspect(value, { depth: 10 })

/** An answer computed from the signature of the request it answers, so it can echo it. */
type Responder = (signature: string) => { readonly status: number; readonly body: string }

/**
 * The fake venue behind an HttpClient that records every ACCESS-SIGN sent and, for scripted requests, answers with a
 * body that echoes the credentials and the signature (a misbehaving proxy or venue).
 */
class EchoingVenue {
  readonly venue = new FakeVenue()
  readonly signatures: Array<string> = []
  private readonly responders: Array<{ readonly path: string; readonly respond: Responder }> = []

  echo(path: string, respond: Responder, times = 1): void {
    for (let i = 0; i < times; i++) this.responders.push({ path, respond })
  }

  get layer(): Layer.Layer<HttpClient.HttpClient> {
    return Layer.succeed(
      HttpClient.HttpClient,
      HttpClient.make((request, url) => {
        // Signed requests only: the client's public ones (server time, symbol rules) carry no signature.
        if (request.headers["access-sign"] !== undefined) this.signatures.push(request.headers["access-sign"])
        const index = this.responders.findIndex((entry) => entry.path === url.pathname)
        if (index === -1) return this.venue.client.execute(request)
        const { body, status } = this.responders.splice(index, 1)[0]!.respond(request.headers["access-sign"] ?? "")
        return Effect.succeed(HttpClientResponse.fromWeb(request, new Response(body, { status })))
      })
    )
  }
}

const leaky = (signature: string) => `key=${apiKey} secret=${secretKey} passphrase=${passphrase} sign=${signature}`

/** Everything observable: log lines, spans, and the renderings of every result and error. */
class Capture {
  readonly logs: Array<string> = []
  readonly outputs: Array<string> = []
  private readonly recorder = recordingTracer()
  readonly spans: Array<Tracer.NativeSpan> = this.recorder.spans

  readonly layer = Layer.mergeAll(
    Logger.layer([
      Logger.make((options) => {
        this.logs.push(Logger.formatJson.log(options), render(options.message), Cause.pretty(options.cause))
      })
    ]),
    Layer.succeed(References.MinimumLogLevel, "All"),
    Layer.succeed(Tracer.Tracer, this.recorder.tracer),
    Layer.succeed(HttpClient.TracerHeaderFilter, () => true)
  )

  record<A, E>(exit: Exit.Exit<A, E>): void {
    if (Exit.isSuccess(exit)) {
      this.outputs.push(render(exit.value))
      return
    }
    this.outputs.push(Cause.pretty(exit.cause))
    for (const reason of exit.cause.reasons) {
      if (!Cause.isFailReason(reason)) continue
      const error = reason.error as Error & { readonly reason?: unknown }
      this.outputs.push(
        String(error),
        error.message,
        JSON.stringify(error),
        render(error),
        error.stack ?? "",
        String(error.reason),
        JSON.stringify(error.reason),
        render(error.reason)
      )
    }
  }

  get spanTexts(): Array<string> {
    return this.spans.map((span) =>
      [
        span.name,
        render(span.attributes),
        render(span.events),
        render(span.links.map((link) => link.attributes)),
        span.status._tag === "Ended" && Exit.isFailure(span.status.exit) ? Cause.pretty(span.status.exit.cause) : ""
      ].join("\n")
    )
  }

  get texts(): Array<string> {
    return [...this.logs, ...this.spanTexts, ...this.outputs]
  }

  headerValues(name: string): Array<unknown> {
    return this.spans.flatMap((span) => {
      const key = `http.request.header.${name}`
      return span.attributes.has(key) ? [span.attributes.get(key)] : []
    })
  }
}

interface Scenario {
  readonly name: string
  readonly setup?: (echo: EchoingVenue) => void
  readonly run: (client: SpotClient.Service) => Effect.Effect<unknown, unknown>
  /** The reason tag the call must fail with, or "success". */
  readonly expect: string
}

/** Runs the scenarios one after another over one echoing venue, recording everything in a `Capture`. */
const runScenarios = (scenarios: ReadonlyArray<Scenario>, options: Partial<SpotClient.Options> = {}) => {
  const echo = new EchoingVenue()
  const capture = new Capture()
  const settings = { ...clientOptions, rateLimit: false, retry: { times: 1, baseDelay: 0 }, ...options } as const
  const clientLayer = Layer.provide(SpotClient.layer(settings), echo.layer)
  return Effect.gen(function*() {
    yield* TestClock.setTime(NOW)
    const client = yield* SpotClient.SpotClient
    for (const scenario of scenarios) {
      scenario.setup?.(echo)
      const exit = yield* Effect.exit(scenario.run(client))
      capture.record(exit)
      const outcome = Exit.isSuccess(exit)
        ? "success"
        : (Cause.squash(exit.cause) as { readonly reason?: { readonly _tag?: string } }).reason?._tag
      assert.strictEqual(outcome, scenario.expect, scenario.name)
    }
    return { capture, echo }
  }).pipe(Effect.provide(clientLayer), Effect.provide(capture.layer))
}

const limitOrder = (clientOrderId: string) =>
  ({ symbol: SYMBOL, side: "buy", orderType: "limit", price: "100", quantity: "1", clientOrderId }) as const

const transfer = {
  toUserId: "18446744073709551615",
  coin: "USDT",
  amount: "1",
  fromAccountType: "SPOT",
  toAccountType: "FUND"
} as const

const scenarios: ReadonlyArray<Scenario> = [
  { name: "place", expect: "success", run: (client) => client.placeOrder(limitOrder("ok-1")) },
  {
    name: "batch",
    expect: "success",
    run: (client) =>
      client.placeOrders(SYMBOL, [
        { side: "sell", orderType: "market", quantity: "2", clientOrderId: "ok-2" },
        { side: "sell", orderType: "limit", quantity: "2", clientOrderId: "bad-item" }
      ])
  },
  { name: "open orders", expect: "success", run: (client) => Stream.runCollect(client.openOrders({ symbol: SYMBOL })) },
  {
    name: "bills",
    expect: "success",
    setup: (echo) => echo.venue.addBills(5, NOW - 1_000),
    run: (client) => Stream.runCollect(client.fundingBills({ pageSize: 2 }))
  },
  { name: "transfer", expect: "success", run: (client) => client.internalTransfer(transfer) },
  {
    name: "limit order without price",
    expect: "ValidationError",
    run: (client) => client.placeOrder({ symbol: SYMBOL, side: "buy", orderType: "limit", quantity: "1" })
  },
  {
    name: "malformed symbol",
    expect: "ValidationError",
    run: (client) => client.openOrdersPage({ symbol: "btc-usdt" })
  },
  {
    name: "7 decimals",
    expect: "ValidationError",
    run: (client) => client.internalTransfer({ ...transfer, amount: "0.1234567" })
  },
  {
    name: "5xx echoing the credentials, twice",
    expect: "OutcomeUnknownError",
    setup: (echo) => echo.echo(ORDERS, (signature) => ({ status: 502, body: leaky(signature) }), 2),
    run: (client) => client.placeOrder(limitOrder("echo-5xx"))
  },
  {
    name: "4xx page echoing the credentials",
    expect: "HttpStatusError",
    setup: (echo) => echo.echo(OPEN_ORDERS, (signature) => ({ status: 403, body: `<html>${leaky(signature)}</html>` })),
    run: (client) => client.openOrdersPage({ symbol: SYMBOL })
  },
  {
    name: "venue error whose msg echoes the passphrase",
    expect: "AuthenticationError",
    setup: (echo) =>
      echo.echo(BILLS, (signature) => ({ status: 400, body: envelope("40012", leaky(signature), NOW, "null") })),
    run: (client) => client.fundingBillsPage({})
  },
  {
    name: "batch refused with an echoing msg",
    expect: "success",
    setup: (echo) =>
      echo.echo(BATCH, (signature) => ({ status: 400, body: envelope("40200", leaky(signature), NOW, "null") }), 2),
    run: (client) => client.placeOrders(SYMBOL, [{ side: "buy", orderType: "market", quantity: "5" }])
  },
  {
    name: "batch item failure echoing the secret",
    expect: "success",
    setup: (echo) =>
      echo.echo(BATCH, (signature) => ({
        status: 200,
        body: envelope(
          "00000",
          "success",
          NOW,
          JSON.stringify({
            resultList: [],
            failure: [{ clientOrderId: "item-echo", errorCode: "45110", errorMsg: leaky(signature) }]
          })
        )
      })),
    run: (client) =>
      client.placeOrders(SYMBOL, [{ side: "buy", orderType: "market", quantity: "5", clientOrderId: "item-echo" }])
  },
  {
    name: "lost before and after",
    expect: "success",
    setup: (echo) => echo.venue.fail({ kind: "dropBefore" }, ORDERS).fail({ kind: "dropAfter" }, ORDERS),
    run: (client) => client.placeOrder(limitOrder("dropped"))
  },
  {
    // The transfer went through; its id is recovered from the venue's transfer list, not by sending it again.
    name: "transfer answer lost",
    expect: "success",
    setup: (echo) => echo.venue.fail({ kind: "dropAfter" }, TRANSFER),
    run: (client) => client.internalTransfer(transfer)
  },
  {
    name: "transfer refused with a 500 that echoes the credentials: not applied, not found",
    expect: "OutcomeUnknownError",
    setup: (echo) => echo.echo(TRANSFER, (signature) => ({ status: 500, body: leaky(signature) })),
    run: (client) => client.internalTransfer({ ...transfer, amount: "2" })
  },
  {
    name: "garbled body containing the secret",
    expect: "DecodeError",
    setup: (echo) =>
      echo.echo(OPEN_ORDERS, (signature) => ({ status: 200, body: `{"code":"00000","msg":"${leaky(signature)}` }), 2),
    run: (client) => client.openOrdersPage({ symbol: SYMBOL })
  },
  {
    name: "well-formed envelope whose data echoes the secret in a field of the wrong shape",
    expect: "DecodeError",
    setup: (echo) =>
      echo.echo(OPEN_ORDERS, (signature) => ({
        status: 200,
        body: envelope("00000", "success", NOW, JSON.stringify({ orderInfoResultList: leaky(signature) }))
      })),
    run: (client) => client.openOrdersPage({ symbol: SYMBOL })
  },
  {
    name: "429 echoing the credentials, then success",
    expect: "success",
    setup: (echo) => echo.echo(TRANSFER, (signature) => ({ status: 429, body: leaky(signature) })),
    run: (client) => client.internalTransfer(transfer)
  },
  {
    name: "clock skew re-sync",
    expect: "success",
    setup: (echo) => {
      echo.venue.skewMillis = 120_000
    },
    run: (client) => client.placeOrder(limitOrder("skewed"))
  }
]

/** Asserts that no text contains any needle, listing every leaking text (shortened) on failure. */
const assertAbsent = (texts: ReadonlyArray<string>, needles: ReadonlyArray<string>, what: string) => {
  const leaks = texts.filter((text) => needles.some((needle) => text.includes(needle)))
  assert.deepStrictEqual(
    leaks.map((text) => text.slice(0, 300)),
    [],
    `${what} leaked into ${leaks.length} of ${texts.length} texts`
  )
}

describe("secrets", () => {
  it.effect("never appear in logs, spans, results or rendered errors", () =>
    Effect.gen(function*() {
      const { capture, echo } = yield* runScenarios(scenarios)
      assert.isNotEmpty(capture.logs)
      assert.isNotEmpty(capture.spans)
      assert.isNotEmpty(capture.outputs)
      assert.isTrue(capture.logs.some((line) => line.includes("retryable failure")), "debug logs are recorded")
      assert.isTrue(capture.outputs.some((text) => text.includes("<redacted>")), "an echo was scrubbed")
      assert.isAtLeast(echo.signatures.length, scenarios.length)

      const texts = capture.texts
      assertAbsent(texts, [secretKey], "the secret key")
      assertAbsent(texts, [passphrase], "the passphrase")
      assertAbsent(texts, [apiKey], "the api key")
      assertAbsent(texts, [...new Set(echo.signatures)], "a signature")
    }))

  it.effect("are recorded only as <redacted> when spans capture request headers", () =>
    Effect.gen(function*() {
      const { capture } = yield* runScenarios(scenarios.slice(0, 5))
      for (const name of ["access-sign", "access-passphrase", "access-key"]) {
        const values = capture.headerValues(name)
        assert.isNotEmpty(values, name)
        for (const value of values) assert.strictEqual(value, "<redacted>", name)
      }
      const timestamps = capture.headerValues("access-timestamp")
      assert.isNotEmpty(timestamps)
      assert.strictEqual(timestamps[0], String(NOW))
    }))

  it.effect("leave no fragment when an excerpt cuts one or the JSON parser quotes one", () =>
    Effect.gen(function*() {
      // Secrets repeated at a period of their own length plus one: whatever the excerpt's length, one of the two
      // offsets cuts a secret after at least 10 of its characters.
      const repeated = (offset: number) => (signature: string) => ({
        status: 502,
        body: "x".repeat(offset) + [secretKey, passphrase, signature, apiKey].map((s) => `${s}|`.repeat(12)).join("")
      })
      const pageWith = (name: string, setup: (echo: EchoingVenue) => void, expect: string): Scenario => ({
        name,
        expect,
        setup,
        run: (client) => client.openOrdersPage({ symbol: SYMBOL })
      })
      const { capture, echo } = yield* runScenarios([
        pageWith("cut at offset 0", (echo) => echo.echo(OPEN_ORDERS, repeated(0)), "HttpStatusError"),
        pageWith("cut at offset 14", (echo) => echo.echo(OPEN_ORDERS, repeated(14)), "HttpStatusError"),
        pageWith(
          "garbled body starting with the secret",
          (echo) => echo.echo(OPEN_ORDERS, () => ({ status: 200, body: `${secretKey} ${passphrase}` })),
          "DecodeError"
        )
      ], { retry: false })
      const prefixes = [secretKey, passphrase, apiKey, ...echo.signatures].map((secret) => secret.slice(0, 10))
      assertAbsent([...capture.logs, ...capture.outputs], prefixes, "a secret's first 10 characters")
    }))

  it("render as <redacted> in the options", () => {
    const { credentials: redacted } = clientOptions
    for (const value of [redacted.apiKey, redacted.secretKey, redacted.passphrase]) {
      assert.strictEqual(String(value), "<redacted>")
    }
    assertAbsent(
      [JSON.stringify(clientOptions), render(clientOptions), String(clientOptions.credentials.secretKey)],
      [secretKey, passphrase, apiKey],
      "a credential"
    )
  })
})

describe("scrubbing touches messages, never data", () => {
  it.effect("a short passphrase that is also part of a price leaves the price exact", () => {
    const short = { apiKey: "key-0001", secretKey: "secret-0001", passphrase: "1234" }
    const venue = new FakeVenue({ credentials: short })
    return Effect.gen(function*() {
      yield* TestClock.setTime(NOW)
      const client = yield* SpotClient.SpotClient
      yield* client.placeOrder({
        symbol: SYMBOL,
        side: "sell",
        orderType: "limit",
        price: "12345.6",
        quantity: "0.1234",
        clientOrderId: "short-1"
      })
      const [order] = yield* Stream.runCollect(client.openOrders({ symbol: SYMBOL }))
      assert.strictEqual(order?.price, "12345.6")
      assert.strictEqual(order?.quantity, "0.1234")
    }).pipe(Effect.provide(
      SpotClient.layer({
        ...clientOptions,
        rateLimit: false,
        credentials: {
          apiKey: Redacted.make(short.apiKey),
          secretKey: Redacted.make(short.secretKey),
          passphrase: Redacted.make(short.passphrase)
        }
      }).pipe(Layer.provide(venue.layer))
    ))
  })
})

describe("a passphrase shorter than a secret searched for everywhere", () => {
  it.effect("is scrubbed where the venue's answer labels it, and leaves the rest of the text exact", () => {
    const short = "ab1"
    const said = `apikey or passphrase is incorrect (ACCESS-PASSPHRASE: ${short}); order ${short}`
    const { capture, echo } = { capture: new Capture(), echo: new EchoingVenue() }
    echo.echo(BILLS, () => ({ status: 400, body: envelope("40012", said, NOW, "null") }))
    return Effect.gen(function*() {
      yield* TestClock.setTime(NOW)
      const client = yield* SpotClient.SpotClient
      const error = yield* Effect.flip(client.fundingBillsPage({}))
      capture.record(Exit.fail(error))
      const reason = reasonOf(error, "AuthenticationError")
      assert.strictEqual(reason.msg, "apikey or passphrase is incorrect (ACCESS-PASSPHRASE: <redacted>); order ab1")
      assertAbsent(capture.texts, [`PASSPHRASE: ${short}`], "the short passphrase")
    }).pipe(Effect.provide(Layer.mergeAll(
      Layer.provide(
        SpotClient.layer({
          ...clientOptions,
          rateLimit: false,
          credentials: { ...clientOptions.credentials, passphrase: Redacted.make(short) }
        }),
        echo.layer
      ),
      capture.layer
    )))
  })
})

describe("escaped secrets are scrubbed from excerpts", () => {
  /** Credentials with "/" (and, in the secret key, a quote and a backslash), which JSON writers escape. */
  const slashed = {
    apiKey: "key/with/slash-7f3a",
    secretKey: "sec/ret\"quote\\back/c0ffee",
    passphrase: "pass/phrase-a5e2"
  } as const
  const options: Partial<SpotClient.Options> = {
    retry: false,
    credentials: {
      apiKey: Redacted.make(slashed.apiKey),
      secretKey: Redacted.make(slashed.secretKey),
      passphrase: Redacted.make(slashed.passphrase)
    }
  }
  const jsonEscaped = (text: string) => JSON.stringify(text).slice(1, -1)
  const slashEscaped = (text: string) => jsonEscaped(text).replaceAll("/", "\\/")
  const escapes = { "JSON-escaped": jsonEscaped, "JSON-escaped with \\/": slashEscaped }

  it.effect.each(
    [
      { status: 502, escape: "JSON-escaped with \\/", tag: "HttpStatusError" },
      { status: 502, escape: "JSON-escaped", tag: "HttpStatusError" },
      { status: 200, escape: "JSON-escaped with \\/", tag: "DecodeError" }
    ] as const
  )("HTTP $status echoing the credentials $escape", ({ escape, status, tag }) => {
    let signature = ""
    const venue = new ScriptedVenue({ credentials: slashed }).answerNext(OPEN_ORDERS, (original, request) => {
      assert.strictEqual(original.status, 200, "the venue accepts the slashed credentials")
      signature = request.headers["access-sign"] ?? ""
      const e = escapes[escape]
      return {
        status,
        body: `{"key":"${e(slashed.apiKey)}","secret":"${e(slashed.secretKey)}","pass":"${e(slashed.passphrase)}",` +
          `"sign":"${e(signature)}"}`
      }
    })
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(client.openOrdersPage({ symbol: SYMBOL }))
        const reason = reasonOf(error, tag)
        assert.include(reason.excerpt, "<redacted>")
        const rendered = [reason.excerpt, error.message, inspect(error, { depth: 10 })]
        for (const secret of [slashed.apiKey, slashed.secretKey, slashed.passphrase, signature]) {
          for (const form of [secret, jsonEscaped(secret), slashEscaped(secret)]) {
            for (const text of rendered) assert.notInclude(text, form)
          }
        }
      }), options)
  })
})
