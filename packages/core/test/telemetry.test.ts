/**
 * What the client reports about itself (issue #22): metrics of every request by endpoint and outcome, their latency,
 * retries by reason, 429s; a span event on the operation's span for each retry and 429; and the same as events to
 * the program's `onEvent`. Time is the TestClock's: a retry's delay is advanced, never slept.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Layer, Metric, Redacted, Stream } from "effect"
import { HttpClient, HttpClientResponse } from "effect/http"
import { TestClock } from "effect/testing"
import { createHmac } from "node:crypto"
import { Signer, SpotClient, Telemetry } from "../src/index.ts"
import { BATCH, clientOptions, FakeVenue, NOW, ORDERS, sampleTransfer, SYMBOL, TRANSFER } from "./support/FakeVenue.ts"
import { recordingTracer } from "./support/spans.ts"

const order = {
  symbol: SYMBOL,
  side: "buy" as const,
  orderType: "limit" as const,
  price: "100",
  quantity: "1",
  clientOrderId: "telemetry-1"
}

// A synchronous signer: with WebCrypto's promise in the way, the TestClock could be moved before a retry's sleep is
// registered.
const syncSigner = Signer.layer({
  name: "sync-hmac",
  prepare: (secretKey) =>
    Effect.succeed((text: string) =>
      Effect.sync(() => createHmac("sha256", Redacted.value(secretKey)).update(text).digest("base64"))
    )
})

/** A client over `venue` with nothing but the requests themselves: no limiter, time sync, rules or retries. */
const plainClient = (venue: FakeVenue) =>
  SpotClient.layer({
    ...clientOptions,
    rateLimit: false,
    syncServerTime: false,
    checkSymbolRules: false,
    retry: false
  }).pipe(Layer.provide([venue.layer, syncSigner]))

/** A counter's value for these attributes (0 when the series does not exist). */
const count = (metric: Metric.Counter<number>, attributes: Record<string, string>) =>
  Effect.map(Metric.value(Metric.withAttributes(metric, attributes)), (state) => Number(state.count))

// A client whose user budget is 10 a second, its events into `events`: placeOrder weighs 5 against it, so two orders
// fill it and a third waits for the window.
const limitedClient = (events: Array<Telemetry.Event>) =>
  SpotClient.layer({
    ...clientOptions,
    rateLimit: { uid: { limit: 10, windowMillis: 1_000 }, marginMillis: 0 },
    syncServerTime: false,
    checkSymbolRules: false,
    retry: false,
    onEvent: (event) => Effect.sync(() => events.push(event))
  }).pipe(Layer.provide([new FakeVenue().layer, syncSigner]))

describe("telemetry", () => {
  it.effect("requests by endpoint and outcome, their latency, a retry and a 429: metrics, span events, events", () =>
    Effect.gen(function*() {
      const venue = new FakeVenue()
      venue.fail({ kind: "http", status: 429, body: "slow down" }, ORDERS)
      venue.fail({ kind: "http", status: 502, body: "bad gateway" }, ORDERS)
      const events: Array<Telemetry.Event> = []
      const { spans, tracer } = recordingTracer()
      const layer = SpotClient.layer({
        ...clientOptions,
        rateLimit: false,
        syncServerTime: false,
        checkSymbolRules: false,
        retry: { baseDelay: "100 millis" },
        onEvent: (event) => Effect.sync(() => events.push(event))
      }).pipe(Layer.provide([venue.layer, syncSigner]))
      yield* TestClock.setTime(NOW)
      const fiber = yield* SpotClient.SpotClient.pipe(
        Effect.flatMap((client) => client.placeOrder(order)),
        Effect.provide(layer),
        Effect.withTracer(tracer),
        Effect.forkChild
      )
      // Each retry sleeps on the TestClock: moved on until the call is done.
      for (let step = 0; step < 20 && fiber.pollUnsafe() === undefined; step++) yield* TestClock.adjust("1 second")
      const placed = yield* Fiber.join(fiber)
      assert.strictEqual(placed.clientOrderId, "telemetry-1")

      assert.strictEqual(yield* count(Telemetry.requests, { endpoint: "placeOrder", outcome: "ok" }), 1)
      assert.strictEqual(yield* count(Telemetry.requests, { endpoint: "placeOrder", outcome: "HttpStatusError" }), 1)
      assert.strictEqual(yield* count(Telemetry.requests, { endpoint: "placeOrder", outcome: "RateLimitError" }), 1)
      assert.strictEqual(yield* count(Telemetry.rateLimited, { endpoint: "placeOrder" }), 1)
      assert.strictEqual(yield* count(Telemetry.retries, { endpoint: "placeOrder", reason: "RateLimitError" }), 1)
      assert.strictEqual(yield* count(Telemetry.retries, { endpoint: "placeOrder", reason: "HttpStatusError" }), 1)
      const latency = yield* Metric.value(Metric.withAttributes(Telemetry.requestDuration, { endpoint: "placeOrder" }))
      assert.strictEqual(latency.count, 3)
      // The client's series are the public histogram's: the same boundaries.
      assert.deepStrictEqual(
        latency.buckets.map(([boundary]) => boundary),
        [...Telemetry.requestDurationBoundaries]
      )

      assert.deepStrictEqual(
        events.map((event) =>
          event._tag === "Retrying" ? `${event._tag} ${event.attempt} ${event.reason._tag}` : event._tag
        ),
        ["RateLimited", "Retrying 1 RateLimitError", "Retrying 2 HttpStatusError"]
      )
      const span = spans.find((span) => span.name === "SpotClient.placeOrder")
      assert.isDefined(span)
      assert.deepStrictEqual(span!.events.map(([name]) => name), [
        "spotkit.rate_limited",
        "spotkit.retry",
        "spotkit.retry"
      ])
      assert.strictEqual(span!.events[1]![2]["reason"], "RateLimitError")
    }))

  it.effect("an ambiguous placement, batch item or transfer looked up: a span event saying how it ended", () =>
    Effect.gen(function*() {
      const venue = new FakeVenue()
      // Applied, the answer lost; then not applied, the connection lost (it may have been).
      venue.fail({ kind: "dropAfter" }, ORDERS)
      venue.fail({ kind: "dropBefore" }, ORDERS)
      venue.fail({ kind: "dropAfter" }, BATCH)
      venue.fail({ kind: "dropAfter" }, TRANSFER)
      const { spans, tracer } = recordingTracer()
      yield* TestClock.setTime(NOW)
      yield* Effect.gen(function*() {
        const client = yield* SpotClient.SpotClient
        yield* client.placeOrder(order)
        yield* Effect.flip(client.placeOrder({ ...order, clientOrderId: "telemetry-2" }))
        yield* client.placeOrders(SYMBOL, [{ ...order, clientOrderId: "telemetry-3" }])
        yield* client.internalTransfer(sampleTransfer)
        // Nothing ambiguous: no event.
        yield* client.placeOrder({ ...order, clientOrderId: "telemetry-4" })
      }).pipe(Effect.provide(plainClient(venue)), Effect.withTracer(tracer))
      const recovered = (name: string) =>
        spans.filter((span) => span.name === name).map((span) =>
          span.events.filter(([event]) => event === "spotkit.recovered").map(([, , attributes]) =>
            attributes["outcome"]
          )
        )
      assert.deepStrictEqual(recovered("SpotClient.placeOrder"), [["found"], ["not_found"], []])
      assert.deepStrictEqual(recovered("SpotClient.placeOrders"), [["found"]])
      assert.deepStrictEqual(recovered("SpotClient.internalTransfer"), [["found"]])
    }))

  it.effect("a wait for a budget: an event naming the budget, the wait's metric and span event; the budgets' use", () =>
    Effect.gen(function*() {
      const events: Array<Telemetry.Event> = []
      const layer = limitedClient(events)
      yield* TestClock.setTime(NOW)
      const uidBefore = yield* count(Telemetry.budgetWeight, { budget: "uid" })
      const ipBefore = yield* count(Telemetry.budgetWeight, { budget: "ip" })
      const waitedBefore = yield* count(Telemetry.rateLimitWait, { budget: "uid" })
      const fiber = yield* SpotClient.SpotClient.pipe(
        Effect.flatMap((client) =>
          Effect.forEach(["w-1", "w-2", "w-3"], (clientOrderId) => client.placeOrder({ ...order, clientOrderId }))
        ),
        Effect.provide(layer),
        Effect.forkChild
      )
      // The clock stands still until the third order waits for the window (its event comes before the wait), so that
      // the window cannot have passed before it is asked; then a second more lets it go.
      for (let step = 0; step < 10_000 && events.length === 0 && fiber.pollUnsafe() === undefined; step++) {
        yield* Effect.yieldNow
      }
      yield* TestClock.adjust("1 second")
      assert.strictEqual((yield* Fiber.join(fiber)).length, 3)
      assert.deepStrictEqual(events.map((event) => event._tag === "Waiting" ? event.budget : event._tag), ["uid"])
      const wait = events[0]!
      assert.isTrue(
        wait._tag === "Waiting" && wait.endpoint === "placeOrder" && wait.millis > 0 && wait.millis <= 1_000
      )
      assert.isAbove((yield* count(Telemetry.rateLimitWait, { budget: "uid" })) - waitedBefore, 0)
      assert.strictEqual((yield* count(Telemetry.budgetWeight, { budget: "uid" })) - uidBefore, 15)
      assert.strictEqual((yield* count(Telemetry.budgetWeight, { budget: "ip" })) - ipBefore, 6)
    }))

  // The wait metric counted each wait as it began, for as long as it was told to last: a wait cut short by its call's
  // timeout counted whole (r67-ops F2), so a process that abandons waits reported more time waited than it ran.
  it.effect("the wait metric counts the time a wait really lasted: a wait cut short counts what it took", () =>
    Effect.gen(function*() {
      const events: Array<Telemetry.Event> = []
      const layer = limitedClient(events)
      yield* TestClock.setTime(NOW)
      const waited = count(Telemetry.rateLimitWait, { budget: "uid" })
      yield* Effect.gen(function*() {
        const client = yield* SpotClient.SpotClient
        const place = (clientOrderId: string) => client.placeOrder({ ...order, clientOrderId })
        // Two orders of weight 5 fill the user's 10 a second; a third is told to wait the window, 1,000 ms.
        yield* place("m-1")
        yield* place("m-2")
        const before = yield* waited
        const third = yield* Effect.forkChild(place("m-3"), { startImmediately: true })
        for (let step = 0; step < 10_000 && events.length === 0; step++) yield* Effect.yieldNow
        assert.deepStrictEqual(events.map((event) => event._tag === "Waiting" ? event.millis : event._tag), [1_000])
        // Given up 300 ms into it: 300 ms waited, not the 1,000 told.
        yield* TestClock.adjust(300)
        yield* Fiber.interrupt(third)
        assert.strictEqual((yield* waited) - before, 300)
        // A wait that runs its course counts all of it: the fourth goes when the window has passed.
        const fourth = yield* Effect.forkChild(place("m-4"), { startImmediately: true })
        for (let step = 0; step < 10_000 && events.length === 1; step++) yield* Effect.yieldNow
        assert.deepStrictEqual(events.map((event) => event._tag === "Waiting" ? event.millis : event._tag), [
          1_000,
          700
        ])
        yield* TestClock.adjust(700)
        yield* Fiber.join(fourth)
        assert.strictEqual((yield* waited) - before, 1_000)
      }).pipe(Effect.provide(layer))
    }))

  it.effect("the program's own metric attributes (Metric.CurrentMetricAttributes) join the client's", () =>
    Effect.gen(function*() {
      const layer = plainClient(new FakeVenue())
      yield* TestClock.setTime(NOW)
      const service = { service: "telemetry-test" }
      yield* SpotClient.SpotClient.pipe(
        Effect.flatMap((client) => client.placeOrder({ ...order, clientOrderId: "attributes-1" })),
        Effect.provide(layer),
        Effect.provideService(Metric.CurrentMetricAttributes, service)
      )
      assert.strictEqual(
        yield* count(Telemetry.requests, { endpoint: "placeOrder", outcome: "ok", service: "telemetry-test" }),
        1
      )
      assert.strictEqual(yield* count(Telemetry.budgetWeight, { budget: "uid", service: "telemetry-test" }), 5)
      const latency = yield* Metric.value(
        Metric.withAttributes(Telemetry.requestDuration, { endpoint: "placeOrder", service: "telemetry-test" })
      )
      assert.strictEqual(latency.count, 1)
    }))

  it.effect("each call's metrics go to the registry and attributes of its own context, one client across several", () =>
    Effect.gen(function*() {
      const client = yield* SpotClient.SpotClient.pipe(Effect.provide(plainClient(new FakeVenue())))
      yield* TestClock.setTime(NOW)
      const first: Metric.MetricRegistry = new Map()
      const second: Metric.MetricRegistry = new Map()
      let placed = 0
      const place = (registry: Metric.MetricRegistry, attributes: Record<string, string>) =>
        client.placeOrder({ ...order, clientOrderId: `registries-${placed++}` }).pipe(
          Effect.provideService(Metric.MetricRegistry, registry),
          Effect.provideService(Metric.CurrentMetricAttributes, attributes)
        )
      const countIn = (registry: Metric.MetricRegistry, attributes: Record<string, string>) =>
        count(Telemetry.requests, { endpoint: "placeOrder", outcome: "ok", ...attributes }).pipe(
          Effect.provideService(Metric.MetricRegistry, registry)
        )
      const a = { desk: "a" }
      const b = { desk: "b" }
      // The registry changes from one call to the next, then the attributes, then both come back.
      yield* place(first, a)
      yield* place(second, a)
      yield* place(second, b)
      yield* place(first, a)
      assert.strictEqual(yield* countIn(first, a), 2)
      assert.strictEqual(yield* countIn(first, b), 0)
      assert.strictEqual(yield* countIn(second, a), 1)
      assert.strictEqual(yield* countIn(second, b), 1)
      assert.strictEqual(
        yield* count(Telemetry.budgetWeight, { budget: "uid", ...b }).pipe(
          Effect.provideService(Metric.MetricRegistry, second)
        ),
        5
      )
    }))
})

describe("telemetry: interrupted requests", () => {
  // Found in review: a request interrupted while in flight (the caller's `Effect.timeout`, a race lost, Ctrl-C) was
  // neither counted nor timed, so a venue that answered too slowly for its callers showed no requests and a latency
  // made of the fast answers alone.
  it.effect("a request interrupted in flight is counted (outcome interrupted) and timed; one never sent is not", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(NOW)
      let sent = 0
      const hanging = HttpClient.make(() =>
        Effect.andThen(
          Effect.sync(() => {
            sent++
          }),
          Effect.never
        )
      )
      const client = yield* SpotClient.SpotClient.pipe(
        Effect.provide(
          SpotClient.layer({
            ...clientOptions,
            // One order a second: the second waits for its permit, and is interrupted there.
            rateLimit: { perEndpoint: { limit: 1, windowMillis: 1_000 }, marginMillis: 0 },
            syncServerTime: false,
            checkSymbolRules: false,
            retry: false
          }).pipe(Layer.provide([Layer.succeed(HttpClient.HttpClient, hanging), syncSigner]))
        )
      )
      const attributes = { endpoint: "placeOrder", outcome: "interrupted" }
      const before = yield* count(Telemetry.requests, attributes)
      const timedBefore = (yield* Metric.value(
        Metric.withAttributes(Telemetry.requestDuration, { endpoint: "placeOrder" })
      )).count
      const first = yield* Effect.forkChild(client.placeOrder({ ...order, clientOrderId: "interrupted-1" }))
      const second = yield* Effect.forkChild(client.placeOrder({ ...order, clientOrderId: "interrupted-2" }))
      for (let step = 0; step < 100 && sent === 0; step++) yield* Effect.yieldNow
      yield* TestClock.adjust("250 millis")
      yield* Fiber.interrupt(first)
      yield* Fiber.interrupt(second)
      assert.strictEqual(sent, 1)
      assert.strictEqual((yield* count(Telemetry.requests, attributes)) - before, 1)
      const timed = yield* Metric.value(Metric.withAttributes(Telemetry.requestDuration, { endpoint: "placeOrder" }))
      assert.strictEqual(timed.count - timedBefore, 1)
    }))

  // Without a rate limiter the exchange has an exit hook of its own (with one, the limiter's counts it).
  it.effect("without a rate limiter too: a request interrupted in flight is counted once, an answered one not", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(NOW)
      let sent = 0
      // The first request hangs; the others are answered.
      const hanging = HttpClient.make((request) =>
        Effect.suspend(() =>
          ++sent === 1 ? Effect.never : Effect.succeed(HttpClientResponse.fromWeb(request, new Response("{}")))
        )
      )
      const client = yield* SpotClient.SpotClient.pipe(
        Effect.provide(
          SpotClient.layer({
            ...clientOptions,
            rateLimit: false,
            syncServerTime: false,
            checkSymbolRules: false,
            retry: false
          }).pipe(Layer.provide([Layer.succeed(HttpClient.HttpClient, hanging), syncSigner]))
        )
      )
      const attributes = { endpoint: "placeOrder", outcome: "interrupted" }
      const before = yield* count(Telemetry.requests, attributes)
      const first = yield* Effect.forkChild(client.placeOrder({ ...order, clientOrderId: "interrupted-3" }))
      for (let step = 0; step < 100 && sent === 0; step++) yield* Effect.yieldNow
      yield* TestClock.adjust("250 millis")
      yield* Fiber.interrupt(first)
      assert.strictEqual(sent, 1)
      assert.strictEqual((yield* count(Telemetry.requests, attributes)) - before, 1)
      // An exchange answered (here by a body the client cannot read) is not counted as interrupted.
      const timeBefore = yield* count(Telemetry.requests, { endpoint: "serverTime", outcome: "interrupted" })
      yield* Effect.exit(client.serverTime())
      assert.strictEqual(sent, 2)
      assert.strictEqual((yield* count(Telemetry.requests, attributes)) - before, 1)
      assert.strictEqual(
        (yield* count(Telemetry.requests, { endpoint: "serverTime", outcome: "interrupted" })) - timeBefore,
        0
      )
    }))
})

describe("telemetry: span attributes", () => {
  // What a caller typed for a symbol goes onto the operation's span only once it is valid: a megabyte of text, a line
  // break or a terminal escape never becomes an attribute that a tracing backend stores and shows.
  const hostile = `${"X".repeat(100_000)}\n\u001b[31mFAKE`
  const calls: ReadonlyArray<
    readonly [string, (client: SpotClient.Service, symbol: string) => Effect.Effect<unknown, unknown>]
  > = [
    ["SpotClient.openOrdersPage", (client, symbol) => client.openOrdersPage({ symbol })],
    ["SpotClient.orderHistoryPage", (client, symbol) => client.orderHistoryPage({ symbol })],
    ["SpotClient.fillsPage", (client, symbol) => client.fillsPage({ symbol })],
    ["SpotClient.openOrders", (client, symbol) => Stream.runDrain(client.openOrders({ symbol }))],
    ["SpotClient.orderHistory", (client, symbol) => Stream.runDrain(client.orderHistory({ symbol }))],
    ["SpotClient.fills", (client, symbol) => Stream.runDrain(client.fills({ symbol }))],
    [
      "SpotClient.candleHistory",
      (client, symbol) => Stream.runDrain(client.candleHistory(symbol, "1h", { since: NOW - 3_600_000, until: NOW }))
    ]
  ]

  it.effect("an invalid symbol is refused before it becomes an attribute of the operation's span", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(NOW)
      const { spans, tracer } = recordingTracer()
      const client = yield* SpotClient.SpotClient.pipe(Effect.provide(plainClient(new FakeVenue())))
      for (const [name, call] of calls) {
        const exit = yield* Effect.exit(call(client, hostile).pipe(Effect.withTracer(tracer)))
        assert.isTrue(exit._tag === "Failure", name)
        const span = spans.find((span) => span.name === name)
        assert.isDefined(span, name)
        for (const [key, value] of span!.attributes) {
          assert.isFalse(typeof value === "string" && value.includes("XXXX"), `${name}: attribute ${key}`)
        }
      }
    }))

  it.effect("a valid symbol is an attribute of the operation's span", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(NOW)
      const { spans, tracer } = recordingTracer()
      const client = yield* SpotClient.SpotClient.pipe(Effect.provide(plainClient(new FakeVenue())))
      for (const [name, call] of calls) {
        // Whatever the fake venue answers (it serves no candles): the span was made, with its symbol.
        yield* Effect.exit(call(client, SYMBOL).pipe(Effect.withTracer(tracer)))
        const span = spans.find((span) => span.name === name)
        assert.strictEqual(span?.attributes.get("symbol"), SYMBOL, name)
      }
    }))
})
