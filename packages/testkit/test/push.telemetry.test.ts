/**
 * What the push service reports about itself (`Telemetry`'s push metrics and the `SpotPush.connect` span), against
 * the push venue in process under the `TestClock`: each connection attempt counted by its outcome and spanned, the
 * connections open, the reconnects, the books' resyncs by reason (a consumer's lag included), the streams' REST
 * backfills by outcome, the trades' gaps, the data messages per channel kind — each moving when it should and not
 * otherwise — and no symbol or venue text in any metric attribute. Each test has a registry of its own, given to the
 * service as it is made.
 */
import { assert, describe, it } from "@effect/vitest"
import { SpotClient, Telemetry, Venue } from "@spotkit/core"
import type { Market } from "@spotkit/core"
import { Context, Deferred, Effect, Exit, Layer, Metric, Option, Scope, Stream } from "effect"
import type { Tracer } from "effect"
import { recordingTracer } from "../../core/test/support/spans.ts"
import { Fault, PushVenue, TestExchange } from "../src/index.ts"
import { advance, collect, settle, setup, SpotPush } from "./support/push.ts"

const SYMBOL = "BTCUSDT_SPBL"

const services = Effect.gen(function*() {
  return {
    push: yield* SpotPush.SpotPush,
    venue: yield* PushVenue.PushVenue,
    exchange: yield* TestExchange.TestExchange
  }
})

/** A counter's value for these attributes (0 when the series does not exist). */
const count = (metric: Metric.Counter<number>, attributes: Record<string, string>) =>
  Effect.map(Metric.value(Metric.withAttributes(metric, attributes)), (state) => Number(state.count))

/** The open connections of an endpoint, as the gauge says. */
const open = (endpoint: "public" | "private") =>
  Effect.map(
    Metric.value(Metric.withAttributes(Telemetry.pushConnections, { endpoint })),
    (state) => Number(state.value)
  )

/** Every series of the push metrics: its metric and attributes, and its count (a gauge's value). */
const pushSeries = Effect.map(
  Metric.snapshot,
  (snapshots) =>
    snapshots.filter((s) => s.id.startsWith("spotkit_push_")).map((s) => ({
      id: s.id,
      attributes: s.attributes ?? {},
      value: s.type === "Gauge" ? Number(s.state.value) : s.type === "Counter" ? Number(s.state.count) : NaN
    }))
)

// The words an attribute of a push metric may be: a few fixed ones, never a symbol, a channel's name or venue text.
const ALLOWED: Record<string, ReadonlyArray<string>> = {
  endpoint: ["public", "private"],
  // A connection attempt's (`PushConnectOutcome`), and a backfill's (`ok`, `failed`).
  outcome: ["connected", "refused", "timeout", "failed", "unsupported", "store_failed", "interrupted", "ok"],
  // A book's resync's (`ResyncReason`), and a reconnect's (`PushReconnectReason`).
  reason: [
    "gap",
    "reconnect",
    "decode",
    "snapshot",
    "lag",
    "closed",
    "dropped",
    "error",
    "idle",
    "refused",
    "timeout",
    "failed",
    "store_failed",
    "unacknowledged",
    "operations",
    "backfill"
  ],
  stream: ["private", "trades", "candles"],
  channel: ["depth", "trades", "ticker", "kline", "orders", "fill", "account"]
}

const assertBounded = Effect.gen(function*() {
  const series = yield* pushSeries
  assert.isAbove(series.length, 0)
  for (const { attributes, id } of series) {
    for (const [key, value] of Object.entries(attributes)) {
      assert.include(ALLOWED[key] ?? [], value, `${id} {${key}="${value}"}`)
    }
  }
})

const connectSpans = (spans: ReadonlyArray<Tracer.NativeSpan>) => spans.filter((s) => s.name === "SpotPush.connect")

const exitOf = (span: Tracer.NativeSpan): Exit.Exit<unknown, unknown> | undefined =>
  span.status._tag === "Ended" ? span.status.exit : undefined

const book = (i: number) => ({ _tag: "Book" as const, symbol: SYMBOL, bids: [[`2999${i}.50`, "1"] as const], asks: [] })

/** Runs the test with a registry of its own, the service made in it, and a tracer that keeps the spans. */
const within = <A, E>(
  test: (
    spans: ReadonlyArray<Tracer.NativeSpan>
  ) => Effect.Effect<A, E, SpotPush.SpotPush | PushVenue.PushVenue | TestExchange.TestExchange | Scope.Scope>,
  layer: Layer.Layer<SpotPush.SpotPush | PushVenue.PushVenue | TestExchange.TestExchange, unknown> = setup()
) => {
  const { spans, tracer } = recordingTracer()
  return test(spans).pipe(
    Effect.provide(layer),
    Effect.withTracer(tracer),
    Effect.provideService(Metric.MetricRegistry, new Map())
  )
}

describe("SpotPush telemetry", () => {
  it.effect("a connection: its attempt counted and spanned, open in the gauge; data messages per channel kind", () =>
    within((spans) =>
      Effect.gen(function*() {
        const { push, venue } = yield* services
        // Started inside a caller's span: the connection's spans are roots all the same (a reconnect hours later is
        // no part of that caller's trace).
        const books = yield* collect(push.watchBook(SYMBOL)).pipe(Effect.withSpan("caller"))
        yield* settle
        for (let i = 0; i < 3; i++) {
          yield* venue.publish(book(i))
          yield* settle
        }
        // One data frame per book: the snapshot, then a change each.
        const delivered = books.items.filter((e) => e._tag === "Book").length
        assert.strictEqual(delivered, 4)
        assert.strictEqual(yield* count(Telemetry.pushMessages, { channel: "depth" }), delivered)
        assert.strictEqual(
          yield* count(Telemetry.pushConnectionAttempts, { endpoint: "public", outcome: "connected" }),
          1
        )
        assert.strictEqual(yield* open("public"), 1)
        // Pings and their answers are no messages; a healthy connection neither reconnects nor resyncs.
        yield* advance(120_000, 5_000)
        assert.strictEqual(yield* count(Telemetry.pushMessages, { channel: "depth" }), delivered)
        assert.deepStrictEqual(
          (yield* pushSeries).filter((s) => s.value !== 0).map((s) => [s.id, s.attributes]),
          [
            ["spotkit_push_connection_attempts_total", { endpoint: "public", outcome: "connected" }],
            ["spotkit_push_connections", { endpoint: "public" }],
            ["spotkit_push_messages_total", { channel: "depth" }]
          ]
        )
        const [span, ...others] = connectSpans(spans)
        assert.strictEqual(others.length, 0)
        assert.isDefined(span)
        assert.deepStrictEqual(Object.fromEntries(span!.attributes), {
          endpoint: "public",
          connection: 1,
          outcome: "connected"
        })
        assert.isTrue(Option.isNone(span!.parent))
        assert.isTrue(Exit.isSuccess(exitOf(span!)!))
        // The stream stops: its connection closes, and is no longer counted open.
        yield* books.stop
        yield* settle
        assert.strictEqual(yield* open("public"), 0)
        yield* assertBounded
      })
    ))

  it.effect("drops and gaps: each reconnect and attempt counted, the books' resyncs by reason, the gauge back at 1", () =>
    within((spans) =>
      Effect.gen(function*() {
        const { push, venue } = yield* services
        const events = yield* collect(push.events)
        yield* collect(push.watchBook(SYMBOL))
        yield* settle
        yield* venue.dropAll
        yield* advance(5_000)
        yield* venue.dropAll
        yield* advance(5_000)
        const disconnects = events.items.filter((e) => e._tag === "Disconnected").length
        assert.strictEqual(disconnects, 2)
        assert.strictEqual(yield* count(Telemetry.pushReconnects, { endpoint: "public", reason: "dropped" }), 2)
        assert.strictEqual(
          yield* count(Telemetry.pushConnectionAttempts, { endpoint: "public", outcome: "connected" }),
          3
        )
        assert.strictEqual((yield* venue.stats).opened, 3)
        assert.strictEqual(yield* open("public"), 1)
        assert.strictEqual(yield* count(Telemetry.pushResyncs, { reason: "reconnect" }), 2)
        assert.strictEqual(yield* count(Telemetry.pushResyncs, { reason: "gap" }), 0)
        assert.deepStrictEqual(connectSpans(spans).map((s) => s.attributes.get("connection")), [1, 1, 1])
        // A change lost: the book is rebuilt (a gap), on the same connection.
        yield* venue.setFaults({ gap: 2 })
        for (let i = 0; i < 3; i++) {
          yield* venue.publish(book(i))
          yield* settle
        }
        yield* venue.setFaults({})
        yield* advance(5_000)
        const gaps = events.items.filter((e) => e._tag === "Resync" && e.reason === "gap").length
        assert.isAtLeast(gaps, 1)
        assert.strictEqual(yield* count(Telemetry.pushResyncs, { reason: "gap" }), gaps)
        assert.strictEqual(yield* count(Telemetry.pushResyncs, { reason: "reconnect" }), 2)
        assert.strictEqual(yield* count(Telemetry.pushReconnects, { endpoint: "public", reason: "dropped" }), 2)
        yield* assertBounded
      })
    ))

  // A reconnect was counted by endpoint only: nothing told a venue that closes connections from one that goes silent,
  // or a network that drops them.
  it.effect("the service closing with live books: no resync announced or counted (nothing reconnects)", () =>
    Effect.gen(function*() {
      // The service's own scope, closed while its streams run: a program's end, a SIGTERM.
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(setup(), scope)
      const push = Context.get(context, SpotPush.SpotPush)
      const events = yield* collect(push.events)
      const books = yield* collect(push.watchBook(SYMBOL))
      const other = yield* collect(push.watchBook("ETHUSDT_SPBL"))
      yield* settle
      assert.isTrue(books.items.some((e) => e._tag === "Book"))
      assert.isTrue(other.items.some((e) => e._tag === "Book"))
      // A consumer that stops by itself: its book is unsubscribed, nothing is rebuilt.
      yield* other.stop
      yield* settle
      yield* Scope.close(scope, Exit.void)
      yield* settle
      assert.deepStrictEqual(events.items.filter((e) => e._tag === "Resync"), [])
      assert.deepStrictEqual(books.items.filter((e) => e._tag === "Resync"), [])
      for (const reason of ["gap", "reconnect", "decode", "snapshot", "lag"]) {
        assert.strictEqual(yield* count(Telemetry.pushResyncs, { reason }), 0, reason)
      }
      // The connection was closed, not lost: no reconnect counted either, and none open.
      assert.deepStrictEqual(events.items.filter((e) => e._tag === "Disconnected"), [])
      assert.strictEqual(yield* open("public"), 0)
    }).pipe(Effect.provideService(Metric.MetricRegistry, new Map())))

  it.effect("the service closing ends the streams consumed outside its scope, interrupted; one started after at once", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(setup(), scope)
      const push = Context.get(context, SpotPush.SpotPush)
      // Consumers forked in the test's scope, not the service's (as a ManagedRuntime's caller's would be).
      const events = yield* collect(push.events)
      const book = yield* collect(push.watchBook(SYMBOL))
      const ticker = yield* collect(push.watchTicker(SYMBOL))
      const fills = yield* collect(push.watchFills({ symbols: [SYMBOL] }))
      yield* settle
      assert.isTrue(book.items.some((e) => e._tag === "Book"))
      yield* Scope.close(scope, Exit.void)
      yield* settle
      // `events` ends (its PubSub shut down); the element streams end interrupted: nothing more will come to them.
      assert.isDefined(events.fiber.pollUnsafe(), "events still running")
      for (const [name, consumer] of [["book", book], ["ticker", ticker], ["fills", fills]] as const) {
        const exit = consumer.fiber.pollUnsafe()
        assert.isTrue(exit !== undefined && Exit.hasInterrupts(exit), `${name}: ${String(exit)}`)
      }
      const late = yield* Effect.exit(Stream.runCollect(push.watchBook(SYMBOL)).pipe(Effect.timeoutOption("1 second")))
      assert.isTrue(Exit.hasInterrupts(late), String(late))
    }).pipe(Effect.provideService(Metric.MetricRegistry, new Map())))

  it.effect("each reconnect counted by why: closed by the venue, silent, dropped; one stopped in its backoff too", () =>
    within(() =>
      Effect.gen(function*() {
        const { push, venue } = yield* services
        const events = yield* collect(push.events)
        const books = yield* collect(push.watchBook(SYMBOL))
        yield* settle
        const reconnects = (reason: string) => count(Telemetry.pushReconnects, { endpoint: "public", reason })
        // A close frame after the next data frame.
        yield* venue.setFaults({ close: 1 })
        yield* venue.publish(book(1))
        yield* settle
        yield* venue.setFaults({})
        assert.strictEqual(yield* reconnects("closed"), 1)
        yield* advance(5_000)
        // Silent with the socket open, for the idle timeout.
        yield* venue.setFaults({ stall: 1 })
        yield* venue.publish(book(2))
        yield* settle
        yield* venue.setFaults({})
        yield* advance(10_000)
        assert.strictEqual(yield* reconnects("idle"), 1)
        yield* advance(5_000)
        const opened = (yield* venue.stats).opened
        assert.strictEqual(opened, 3)
        // Dropped without a close frame, and its stream stopped during the backoff: counted, as the connection was
        // lost, and not dialled again.
        yield* venue.dropAll
        yield* settle
        yield* books.stop
        yield* advance(10_000)
        assert.strictEqual(yield* reconnects("dropped"), 1)
        assert.strictEqual((yield* venue.stats).opened, opened)
        assert.strictEqual(events.items.filter((e) => e._tag === "Disconnected").length, 3)
        for (const reason of ["error", "refused", "timeout", "failed", "unacknowledged", "operations", "backfill"]) {
          assert.strictEqual(yield* reconnects(reason), 0, reason)
        }
        yield* assertBounded
      }), setup({ push: { idleTimeout: "8 seconds", backoff: { initial: "2 seconds", max: "2 seconds" } } })))

  it.effect("refused handshakes: private attempts counted refused, each a failed span quoting no signature", () =>
    within((spans) =>
      Effect.gen(function*() {
        const { exchange, push, venue } = yield* services
        const events = yield* collect(push.events)
        yield* venue.setFaults({ refuseAuth: true })
        yield* collect(push.watchBalances())
        yield* advance(10_000)
        const stats = yield* venue.stats
        assert.isAtLeast(stats.refused, 2)
        assert.strictEqual(
          yield* count(Telemetry.pushConnectionAttempts, { endpoint: "private", outcome: "refused" }),
          stats.refused
        )
        assert.strictEqual(
          yield* count(Telemetry.pushConnectionAttempts, { endpoint: "private", outcome: "connected" }),
          0
        )
        assert.strictEqual(
          yield* count(Telemetry.pushReconnects, { endpoint: "private", reason: "refused" }),
          stats.refused
        )
        assert.strictEqual(yield* open("private"), 0)
        const refused = connectSpans(spans)
        assert.strictEqual(refused.length, stats.refused)
        for (const span of refused) {
          assert.strictEqual(span.attributes.get("endpoint"), "private")
          assert.strictEqual(span.attributes.get("outcome"), "refused")
          const exit = exitOf(span)
          assert.isTrue(exit !== undefined && Exit.isFailure(exit))
        }
        // The span's failure is the scrubbed line `Disconnected` quotes, not the socket's error.
        const failure = Option.getOrUndefined(Exit.findErrorOption(exitOf(refused[0]!)!))
        const first = events.items.find((e) => e._tag === "Disconnected")
        assert.strictEqual(typeof failure, "string")
        assert.strictEqual(failure, first?._tag === "Disconnected" ? first.reason : undefined)
        // Accepted again: connected, open, and the streams' resyncs none (the private session has no book).
        yield* venue.setFaults({})
        yield* advance(60_000, 5_000)
        assert.strictEqual(
          yield* count(Telemetry.pushConnectionAttempts, { endpoint: "private", outcome: "connected" }),
          1
        )
        assert.strictEqual(yield* open("private"), 1)
        // The connection's backfill (the session's gap closed by REST): counted as its `Resynced` says it.
        const resynced = events.items.filter((e) => e._tag === "Resynced").length
        assert.strictEqual(resynced, 1)
        assert.strictEqual(yield* count(Telemetry.pushBackfills, { stream: "private", outcome: "ok" }), resynced)
        assert.strictEqual(yield* count(Telemetry.pushBackfills, { stream: "private", outcome: "failed" }), 0)
        // An order of the account: pushed on its private channels, counted by their kind.
        const placed = yield* exchange.placeOrder(exchange.accounts[0]!.userId, {
          symbol: SYMBOL,
          side: "buy",
          orderType: "limit",
          force: "normal",
          price: "29000.00",
          quantity: "0.01",
          clientOrderId: "telemetry-1"
        })
        assert.isTrue(placed.ok)
        yield* settle
        assert.isAbove(yield* count(Telemetry.pushMessages, { channel: "orders" }), 0)
        assert.isAbove(yield* count(Telemetry.pushMessages, { channel: "account" }), 0)
        assert.strictEqual(yield* count(Telemetry.pushMessages, { channel: "depth" }), 0)
        yield* assertBounded
      })
    ))
})

describe("SpotPush telemetry: what no event says", () => {
  // A consumer's lag was counted nowhere: the venue's side is fine, but the program reads a book too slowly to keep up.
  it.effect("a book consumer behind its full queue: a resync of reason lag, per notice; no event, the venue's side clean", () =>
    within(() =>
      Effect.gen(function*() {
        const { push, venue } = yield* services
        const events = yield* collect(push.events)
        const gate = yield* Deferred.make<void>()
        const seen: Array<SpotPush.BookEvent> = []
        yield* Effect.forkScoped(Stream.runForEach(push.watchBook(SYMBOL), (event) =>
          Effect.andThen(
            Effect.sync(() => seen.push(event)),
            seen.length === 1 ? Deferred.await(gate) : Effect.void
          )))
        yield* settle
        assert.strictEqual(yield* count(Telemetry.pushResyncs, { reason: "lag" }), 0)
        for (let i = 0; i < 12; i++) {
          yield* venue.publish(book(i))
          yield* settle
        }
        // Past the grace a consumer has to take what waits for it: still blocked, it is behind.
        yield* advance(2_000)
        yield* Deferred.succeed(gate, undefined)
        yield* settle
        // A notice may be drained by a later one, before the consumer reads it: at least those it read were counted.
        const notices = seen.filter((e) => e._tag === "Resync" && e.reason === "lag").length
        assert.isAtLeast(notices, 1)
        assert.isAtLeast(yield* count(Telemetry.pushResyncs, { reason: "lag" }), notices)
        assert.strictEqual(events.items.filter((e) => e._tag === "Resync").length, 0)
        for (const reason of ["gap", "reconnect", "decode", "snapshot"]) {
          assert.strictEqual(yield* count(Telemetry.pushResyncs, { reason }), 0, reason)
        }
        yield* assertBounded
      }), setup({ push: { bufferSize: 4 } })))

  // Private backfills were counted nowhere (`Resynced` only said the ones that succeeded, on `events`).
  it.effect("a private backfill that fails for a while: each counted failed, then ok once; its reconnects counted", () =>
    within(() =>
      Effect.gen(function*() {
        const { exchange, push } = yield* services
        const events = yield* collect(push.events)
        yield* exchange.injectFault({ fault: Fault.httpError(503), path: Venue.endpoints.balances.path, times: 2 })
        yield* collect(push.watchBalances())
        yield* advance(10_000)
        const failures = events.items.filter((e) => e._tag === "Disconnected" && e.reason.includes("backfill")).length
        assert.strictEqual(failures, 2)
        assert.strictEqual(yield* count(Telemetry.pushBackfills, { stream: "private", outcome: "failed" }), failures)
        assert.strictEqual(events.items.filter((e) => e._tag === "Resynced").length, 1)
        assert.strictEqual(yield* count(Telemetry.pushBackfills, { stream: "private", outcome: "ok" }), 1)
        assert.strictEqual(
          yield* count(Telemetry.pushReconnects, { endpoint: "private", reason: "backfill" }),
          failures
        )
        yield* assertBounded
      }), setup({ client: { retry: false } })))

  // An attempt given up as its stream stopped (here while it waits for the connection-attempt budget, spent by the
  // first connection, after a drop) was counted nowhere.
  it.effect("a stream stopped while its reconnect waits for the attempt budget: counted interrupted, its span so", () =>
    within((spans) =>
      Effect.gen(function*() {
        const { push, venue } = yield* services
        const events = yield* collect(push.events)
        const ticker = yield* collect(push.watchTicker(SYMBOL))
        yield* settle
        yield* venue.dropAll
        yield* advance(5_000)
        assert.strictEqual(events.items.filter((e) => e._tag === "Disconnected").length, 1)
        yield* ticker.stop
        yield* settle
        assert.strictEqual(
          yield* count(Telemetry.pushConnectionAttempts, { endpoint: "public", outcome: "connected" }),
          1
        )
        assert.strictEqual(
          yield* count(Telemetry.pushConnectionAttempts, { endpoint: "public", outcome: "interrupted" }),
          1
        )
        assert.deepStrictEqual(connectSpans(spans).map((span) => span.attributes.get("outcome")), [
          "connected",
          "interrupted"
        ])
        assert.strictEqual((yield* venue.stats).opened, 1)
        assert.strictEqual(yield* open("public"), 0)
        yield* assertBounded
      }), setup({ push: { limits: { connectionAttempts: { limit: 1, windowMillis: 600_000 } } } })))
})

// The venue's REST side of trades, played by the client's `recentTrades` answering what the test published (the test
// exchange does not serve it).
const trades: Array<Market.Trade> = []
let sequence = 0

const trade = (time: number, price: string) =>
  Effect.gen(function*() {
    const venue = yield* PushVenue.PushVenue
    trades.push(
      {
        symbol: SYMBOL,
        tradeId: `t-${++sequence}`,
        time,
        price,
        size: "0.1",
        value: "1",
        buyerMaker: false
      } as Market.Trade
    )
    yield* venue.publish({ _tag: "Trade", symbol: SYMBOL, time, price, size: "0.1", value: "1", buyerMaker: false })
  })

const withTrades = () => {
  const base = setup()
  const client = Layer.effect(
    SpotClient.SpotClient,
    Effect.map(SpotClient.SpotClient, (client): SpotClient.Service => ({
      ...client,
      recentTrades: (_symbol, options) => Effect.sync(() => trades.slice(-(options?.limit ?? 100)).reverse())
    }))
  )
  return PushVenue.layerSpotPush().pipe(Layer.provide(client.pipe(Layer.provide(base))), Layer.provideMerge(base))
}

describe("SpotPush telemetry: trades", () => {
  it.effect("a gap of a trades channel is counted by the channel's kind, never its symbol; none when REST reaches back", () =>
    within(() =>
      Effect.gen(function*() {
        const { push, venue } = yield* services
        const events = yield* collect(push.events)
        yield* collect(push.watchTrades(SYMBOL, { backfillLimit: 3 }))
        yield* settle
        yield* trade(1_000, "30000.5")
        yield* settle
        const outage = (count: number, from: number) =>
          Effect.gen(function*() {
            yield* venue.setFaults({ storm: true })
            yield* venue.dropAll
            yield* settle
            for (let i = 1; i <= count; i++) yield* trade(from + i, `3100${i}.5`)
            yield* venue.setFaults({})
            yield* advance(40_000)
          })
        // Two trades missed: REST's three reach back to the one delivered.
        yield* outage(2, 1_000)
        assert.strictEqual(yield* count(Telemetry.pushGaps, { channel: "trades" }), 0)
        // Five: REST's latest three do not.
        yield* outage(5, 2_000)
        assert.strictEqual(events.items.filter((e) => e._tag === "Gap").length, 1)
        assert.strictEqual(yield* count(Telemetry.pushGaps, { channel: "trades" }), 1)
        assert.isAbove(yield* count(Telemetry.pushMessages, { channel: "trades" }), 0)
        // A REST backfill after each subscription, the first too (the trades between the stream's start and it).
        assert.strictEqual(yield* count(Telemetry.pushBackfills, { stream: "trades", outcome: "ok" }), 3)
        yield* assertBounded
      }), withTrades()))
})
