/**
 * The push service's reporting, below the service: how a connection attempt's exit becomes its outcome (each word of
 * `Telemetry.PushConnectOutcome` but `connected` from the failure that means it), and the counts of messages added
 * to the metric once and then reset, in the registry of the context the reporter was made in. Over a scripted socket,
 * the attempt's wrapper leaves the loop as it was: an attempt given up is counted `interrupted` and settles its permit
 * once (at once, even when interrupted between the grant and the hand-over), a store's failure and a timeout end as
 * before, the open connections return to none on every ending, and the loop's
 * fibers keep the caller's context while the attempt is a root span whose failure quotes no credential.
 */
import { assert, describe, it } from "@effect/vitest"
import { Cause, Context, Effect, Exit, Metric, Option, Queue } from "effect"
import * as Socket from "effect/socket/Socket"
import { TestClock } from "effect/testing"
import { SpotError, Telemetry } from "../src/index.ts"
import * as RateLimiter from "../src/internal/client/rateLimiter.ts"
import { Connection, HeadersUnsupported, nowFunction } from "../src/internal/push/connection.ts"
import type { Settings } from "../src/internal/push/connection.ts"
import type { Event } from "../src/internal/push/model.ts"
import type { Control, Feed } from "../src/internal/push/subscriptions.ts"
import * as PushTelemetry from "../src/internal/push/telemetry.ts"
import { VenueText } from "../src/internal/push/venueText.ts"
import { recordingTracer } from "./support/spans.ts"

const openFailure = (kind: "Unknown" | "Timeout", cause: unknown) =>
  Exit.fail(new Socket.SocketError({ reason: new Socket.SocketOpenError({ kind, cause }) }))

describe("push telemetry", () => {
  it("an attempt's outcome, from its exit", () => {
    const outcomes = [
      Exit.succeed("pull"),
      // `ws`'s refusal of the upgrade, and the in-process venue's (its error event's data).
      openFailure("Unknown", new Error("Unexpected server response: 401")),
      openFailure("Unknown", { type: "error", data: "Unexpected server response: 429" }),
      openFailure("Timeout", new Error("timeout waiting for \"open\"")),
      openFailure("Unknown", new Error("connect ECONNREFUSED 127.0.0.1:1")),
      openFailure("Unknown", new HeadersUnsupported()),
      Exit.fail(new SpotError.RateLimitStoreError({ store: "redis", description: "unreachable" })),
      Exit.fail(new Socket.SocketError({ reason: new Socket.SocketCloseError({ code: 1006 }) })),
      Exit.failCause(Cause.die(new Error("a defect")))
    ].map(PushTelemetry.outcomeOf)
    assert.deepStrictEqual(outcomes, [
      "connected",
      "refused",
      "refused",
      "timeout",
      "failed",
      "unsupported",
      "store_failed",
      "failed",
      "failed"
    ])
  })

  // A reconnect was counted by endpoint only: on-call could not tell a venue that closes connections from one that
  // stalls, a network that drops them, or the client replacing them itself.
  it("a reconnect's reason, from its exit: the attempt's, the venue's side, or the client's own", () => {
    const closed = (code: number) =>
      Exit.fail(new Socket.SocketError({ reason: new Socket.SocketCloseError({ code }) }))
    const failedAttempts = [
      openFailure("Unknown", new Error("Unexpected server response: 401")),
      openFailure("Timeout", new Error("timeout waiting for \"open\"")),
      openFailure("Unknown", new Error("connect ECONNREFUSED 127.0.0.1:1")),
      Exit.fail(new SpotError.RateLimitStoreError({ store: "redis", description: "unreachable" })),
      Exit.failCause(Cause.die(new Error("a defect")))
    ].map((exit) => PushTelemetry.reconnectReasonOf(exit, false))
    assert.deepStrictEqual(failedAttempts, ["refused", "timeout", "failed", "store_failed", "failed"])
    const ended = [
      closed(1000),
      closed(4001),
      closed(1006),
      Exit.fail(new Socket.SocketError({ reason: new Socket.SocketReadError({ cause: new Error("ECONNRESET") }) })),
      Exit.failCause(Cause.die(new Error("a defect"))),
      ...(["idle", "unacknowledged", "operations", "backfill", "decode"] as const).map((why) =>
        Exit.fail(new PushTelemetry.Replaced(why, "words"))
      )
    ].map((exit) => PushTelemetry.reconnectReasonOf(exit, true))
    assert.deepStrictEqual(ended, [
      "closed",
      "closed",
      "dropped",
      "error",
      "error",
      "idle",
      "unacknowledged",
      "operations",
      "backfill",
      "decode"
    ])
  })

  it.effect("messages: each kind's count added once, in the reporter's registry, and reset", () =>
    Effect.gen(function*() {
      const registry: Metric.MetricRegistry = new Map()
      const reporter = PushTelemetry.make(Context.make(Metric.MetricRegistry, registry))
      const counts = PushTelemetry.KINDS.map(() => 0)
      counts[PushTelemetry.kindOf("depth.BTCUSDT_SPBL.15")]! += 3
      counts[PushTelemetry.kindOf("fill")]! += 1
      reporter.received(counts)
      reporter.received(counts)
      assert.deepStrictEqual(counts, PushTelemetry.KINDS.map(() => 0))
      const value = (channel: string) =>
        Effect.map(
          Metric.value(Metric.withAttributes(Telemetry.pushMessages, { channel })).pipe(
            Effect.provideService(Metric.MetricRegistry, registry)
          ),
          (state) => state.count
        )
      assert.strictEqual(yield* value("depth"), 3)
      assert.strictEqual(yield* value("fill"), 1)
      assert.strictEqual(yield* value("trades"), 0)
      assert.strictEqual(PushTelemetry.kindOf("nonsense.channel"), -1)
    }))

  it.effect("a consumer's lag: a resync of reason lag; a backfill: by stream and outcome; in the reporter's registry", () =>
    Effect.gen(function*() {
      const registry: Metric.MetricRegistry = new Map()
      const reporter = PushTelemetry.make(Context.make(Metric.MetricRegistry, registry))
      reporter.lagged()
      reporter.lagged()
      reporter.backfilled("private", "ok")
      reporter.backfilled("trades", "failed")
      reporter.backfilled("trades", "failed")
      const value = (metric: Metric.Counter<number>, attributes: Record<string, string>) =>
        Effect.map(
          Metric.value(Metric.withAttributes(metric, attributes)).pipe(
            Effect.provideService(Metric.MetricRegistry, registry)
          ),
          (state) => state.count
        )
      assert.strictEqual(yield* value(Telemetry.pushResyncs, { reason: "lag" }), 2)
      assert.strictEqual(yield* value(Telemetry.pushResyncs, { reason: "gap" }), 0)
      assert.strictEqual(yield* value(Telemetry.pushBackfills, { stream: "private", outcome: "ok" }), 1)
      assert.strictEqual(yield* value(Telemetry.pushBackfills, { stream: "trades", outcome: "failed" }), 2)
      assert.strictEqual(yield* value(Telemetry.pushBackfills, { stream: "candles", outcome: "ok" }), 0)
    }))
})

const CHANNEL = "ticker.BTCUSDT_SPBL"
const SECRET = "the-api-key-0123456789"

// How each dial of the scripted socket goes: open (frames then come from its inbox), never open, or fail.
type Dial = "open" | "never" | Socket.SocketError

const scripted = (dials: Array<Dial>, inboxes: Array<Queue.Queue<string, Socket.SocketError>>): Socket.Socket =>
  Socket.make({
    reader: Effect.suspend(() => {
      const dial = dials.shift() ?? "open"
      if (dial === "never") return Effect.never
      if (dial !== "open") return Effect.fail(dial)
      return Effect.map(Queue.unbounded<string, Socket.SocketError>(), (inbox) => {
        inboxes.push(inbox)
        return {
          pull: Effect.map(Queue.takeAll(inbox), (texts) => texts as unknown as readonly [string, ...Array<string>]),
          upgrade: () => Effect.void
        }
      })
    }),
    writer: Effect.succeed({ write: () => Effect.void, writeAll: () => Effect.void })
  })

const yieldAll = Effect.gen(function*() {
  for (let i = 0; i < 50; i++) yield* Effect.yieldNow
})

const quiet: Feed = {
  onActive: () => Effect.void,
  onInactive: () => Effect.void,
  onFrame: () => undefined,
  onFail: () => Effect.void
}

// A connection over the scripted socket, reporting to a reporter that keeps the attempts and the open connections
// (the rest goes to `reporter`).
const connectionOf = (attempt: Settings["attempt"], dials: Array<Dial>, reporter = PushTelemetry.none) =>
  Effect.gen(function*() {
    const seen = {
      outcomes: [] as Array<string>,
      open: 0,
      lowest: 0,
      events: [] as Array<Event>,
      reconnects: [] as Array<string>
    }
    const keeping: PushTelemetry.Reporter = {
      ...reporter,
      attempted: (_endpoint, outcome) => void seen.outcomes.push(outcome),
      reconnecting: (endpoint, reason) => {
        seen.reconnects.push(reason)
        reporter.reconnecting(endpoint, reason)
      },
      open: (_endpoint, delta) => {
        seen.open += delta
        seen.lowest = Math.min(seen.lowest, seen.open)
      }
    }
    const inboxes: Array<Queue.Queue<string, Socket.SocketError>> = []
    const connection = new Connection(
      1,
      {
        endpoint: "public",
        idleTimeout: "1 hour",
        ackTimeoutMillis: 5_000,
        backoff: { initialMillis: 500, maxMillis: 500, resetAfterMillis: 60_000 },
        operations: { limit: 240, windowMillis: 3_600_000 },
        attempt,
        emit: (event) => void seen.events.push(event),
        text: new VenueText({ secrets: [SECRET], url: "wss://venue.test" }),
        telemetry: keeping
      },
      scripted(dials, inboxes),
      yield* nowFunction
    )
    return { connection, seen, inboxes }
  })

const permits = () => {
  const counts = { granted: 0, settled: 0 }
  const attempt = Effect.sync(() => {
    counts.granted++
    return { settle: Effect.sync(() => void counts.settled++) }
  })
  return { counts, attempt }
}

const openFailed = (kind: "Unknown" | "Timeout", message: string) =>
  new Socket.SocketError({ reason: new Socket.SocketOpenError({ kind, cause: new Error(message) }) })

describe("push telemetry: the connection loop", () => {
  // Such an attempt was counted nowhere: the streams that stopped it hid a slow or stuck dial.
  it.effect("an attempt given up while it waits for its permit, or while the socket opens: interrupted, settled once", () =>
    Effect.gen(function*() {
      const waiting = yield* connectionOf(Effect.never, [])
      yield* waiting.connection.add(CHANNEL, quiet)
      yield* waiting.connection.start(yield* Effect.scope)
      yield* yieldAll
      yield* waiting.connection.stop()
      assert.deepStrictEqual(waiting.seen.outcomes, ["interrupted"])
      assert.deepStrictEqual(waiting.seen.events, [])

      const { attempt, counts } = permits()
      const dialling = yield* connectionOf(attempt, ["never"])
      yield* dialling.connection.add(CHANNEL, quiet)
      yield* dialling.connection.start(yield* Effect.scope)
      yield* yieldAll
      assert.deepStrictEqual(counts, { granted: 1, settled: 0 })
      yield* dialling.connection.stop()
      assert.deepStrictEqual(counts, { granted: 1, settled: 1 })
      assert.deepStrictEqual(dialling.seen.outcomes, ["interrupted"])
      assert.deepStrictEqual(dialling.seen.events, [])
      assert.strictEqual(dialling.seen.open, 0)
    }).pipe(Effect.scoped))

  // An interruption between the store's grant and the step that hands the permit over (the run loop may yield there,
  // and an interruption then skips that step) left the permit to its lease: its settling was put in place only once it
  // was handed over. Played by a store that records its grant on the fiber, as the memory and Redis stores do, and the
  // fiber interrupted in the step that grants. The grant's `settle` must run, not `settleAt`: a shared store's entry
  // (the Redis store's) only `settle` reaches (an Effect: a call to Redis).
  it.effect("an attempt interrupted between its permit's grant and the hand-over: the grant's settle runs at once", () =>
    Effect.gen(function*() {
      const counts = { granted: 0, settled: 0, settledAt: 0 }
      const attempt = Effect.withFiber((fiber) => {
        counts.granted++
        const permit = RateLimiter.granted(fiber, {
          settle: Effect.sync(() => void counts.settled++),
          settleAt: () => void counts.settledAt++
        })
        fiber.interruptUnsafe()
        return Effect.succeed(permit)
      })
      const { connection, seen } = yield* connectionOf(attempt, ["open"])
      yield* connection.add(CHANNEL, quiet)
      yield* connection.start(yield* Effect.scope)
      yield* yieldAll
      assert.deepStrictEqual(counts, { granted: 1, settled: 1, settledAt: 0 })
      yield* connection.stop()
      assert.deepStrictEqual(counts, { granted: 1, settled: 1, settledAt: 0 })
      assert.deepStrictEqual(seen.outcomes, ["interrupted"])
      assert.deepStrictEqual(seen.events, [])
      assert.strictEqual(seen.open, 0)
    }).pipe(Effect.scoped))

  it.effect("a store that fails, a timeout, a drop: each ends as before, the open connections back to none each time", () =>
    Effect.gen(function*() {
      const { attempt: granted, counts } = permits()
      let calls = 0
      const attempt = Effect.suspend(() =>
        calls++ === 0
          ? Effect.fail(new SpotError.RateLimitStoreError({ store: "redis", description: "unreachable" }))
          : granted
      )
      const { connection, inboxes, seen } = yield* connectionOf(attempt, [openFailed("Timeout", "no open"), "open"])
      yield* connection.add(CHANNEL, quiet)
      yield* connection.start(yield* Effect.scope)
      yield* yieldAll
      yield* TestClock.adjust(1_000)
      yield* yieldAll
      yield* TestClock.adjust(1_000)
      yield* yieldAll
      assert.deepStrictEqual(seen.outcomes, ["store_failed", "timeout", "connected"])
      assert.deepStrictEqual(counts, { granted: 2, settled: 2 })
      assert.strictEqual(seen.open, 1)
      const reasons = seen.events.flatMap((e) => e._tag === "Disconnected" ? [e.reason] : [])
      assert.strictEqual(reasons.length, 2)
      assert.include(reasons[0], "rate-limit store redis: unreachable")
      assert.include(reasons[1], "SocketOpenError")
      // The venue drops the connection: down, and dialled again after the backoff.
      yield* Queue.fail(inboxes[0]!, new Socket.SocketError({ reason: new Socket.SocketCloseError({ code: 1006 }) }))
      yield* yieldAll
      assert.strictEqual(seen.open, 0)
      assert.strictEqual(seen.events.filter((e) => e._tag === "Disconnected").length, 3)
      yield* TestClock.adjust(1_000)
      yield* yieldAll
      assert.deepStrictEqual(seen.outcomes, ["store_failed", "timeout", "connected", "connected"])
      assert.strictEqual(seen.open, 1)
      // Its last stream stops: closed, no more open, never below none.
      yield* connection.stop()
      assert.strictEqual(seen.open, 0)
      assert.strictEqual(seen.lowest, 0)
      assert.deepStrictEqual(counts, { granted: 3, settled: 3 })
    }).pipe(Effect.scoped))

  it.effect("each reconnect counted once with its reason, as it ends: one whose streams stop in its backoff too", () =>
    Effect.gen(function*() {
      const registry: Metric.MetricRegistry = new Map()
      const reporter = PushTelemetry.make(Context.make(Metric.MetricRegistry, registry))
      const { attempt } = permits()
      const controls: Array<Control> = []
      const feed: Feed = {
        ...quiet,
        onActive: (_channel, _scope, control) => Effect.sync(() => void controls.push(control))
      }
      const { connection, inboxes, seen } = yield* connectionOf(
        attempt,
        [openFailed("Timeout", "no open"), "open", "open", "open", "open", "open", "open"],
        reporter
      )
      const ended = (reason: Socket.SocketError["reason"]) =>
        Effect.andThen(Queue.fail(inboxes.at(-1)!, new Socket.SocketError({ reason })), yieldAll)
      const backoff = Effect.andThen(TestClock.adjust(500), yieldAll)
      // Dialled again after the backoff, and the channel acknowledged.
      const acknowledged = Effect.andThen(
        backoff,
        Effect.andThen(
          Effect.suspend(() => Queue.offer(inboxes.at(-1)!, JSON.stringify({ event: "subscribed", channel: CHANNEL }))),
          yieldAll
        )
      )
      yield* connection.add(CHANNEL, feed)
      yield* connection.start(yield* Effect.scope)
      yield* yieldAll
      yield* acknowledged
      yield* ended(new Socket.SocketCloseError({ code: 1000, closeReason: "bye" }))
      yield* acknowledged
      yield* ended(new Socket.SocketCloseError({ code: 1006 }))
      yield* acknowledged
      yield* ended(new Socket.SocketReadError({ cause: new Error("ECONNRESET") }))
      yield* acknowledged
      // Silent for the idle timeout (an hour here).
      yield* TestClock.adjust(3_600_000)
      yield* yieldAll
      // The resubscription goes unanswered for the acknowledgement's timeout.
      yield* backoff
      yield* TestClock.adjust(5_000)
      yield* yieldAll
      yield* acknowledged
      controls.at(-1)!.reconnect("backfill: the venue answered 503", "backfill")
      yield* yieldAll
      const reasons = ["timeout", "closed", "dropped", "error", "idle", "unacknowledged", "backfill"]
      // Counted as the connection ended, each with its Disconnected, before the backoff.
      assert.deepStrictEqual(seen.reconnects, reasons)
      assert.strictEqual(seen.events.filter((e) => e._tag === "Disconnected").length, reasons.length)
      // Its stream stops during the backoff: the lost connection stays counted, and is not dialled again.
      yield* connection.stop()
      yield* backoff
      assert.deepStrictEqual(seen.reconnects, reasons)
      assert.deepStrictEqual(seen.outcomes, ["timeout", ...Array.from({ length: 6 }, () => "connected")])
      const count = (reason: string) =>
        Effect.map(
          Metric.value(Metric.withAttributes(Telemetry.pushReconnects, { endpoint: "public", reason })).pipe(
            Effect.provideService(Metric.MetricRegistry, registry)
          ),
          (state) => state.count
        )
      for (const reason of reasons) assert.strictEqual(yield* count(reason), 1, reason)
      assert.strictEqual(yield* count("refused"), 0)
    }).pipe(Effect.scoped))

  it.effect("messages of a batch cut short (the connection stopped while a feed's effect runs) are counted all the same", () =>
    Effect.gen(function*() {
      const registry: Metric.MetricRegistry = new Map()
      const reporter = PushTelemetry.make(Context.make(Metric.MetricRegistry, registry))
      const { attempt } = permits()
      const { connection, inboxes } = yield* connectionOf(attempt, ["open"], reporter)
      yield* connection.add(CHANNEL, { ...quiet, onActive: () => Effect.never })
      yield* connection.start(yield* Effect.scope)
      yield* yieldAll
      // Two frames, then the acknowledgement whose feed effect does not return before the connection stops.
      const payload = JSON.stringify({ event: "payload", channel: CHANNEL, data: [{}] })
      yield* Queue.offerAll(inboxes[0]!, [payload, payload, JSON.stringify({ event: "subscribed", channel: CHANNEL })])
      yield* yieldAll
      yield* connection.stop()
      const state = yield* Metric.value(Metric.withAttributes(Telemetry.pushMessages, { channel: "ticker" })).pipe(
        Effect.provideService(Metric.MetricRegistry, registry)
      )
      assert.strictEqual(state.count, 2)
    }).pipe(Effect.scoped))

  it.effect("the loop keeps the caller's context; the attempt is a root span whose failure quotes no credential", () => {
    const { spans, tracer } = recordingTracer()
    return Effect.gen(function*() {
      const { attempt } = permits()
      const { connection, inboxes } = yield* connectionOf(attempt, [
        openFailed("Unknown", `refused for key ${SECRET}`),
        "open"
      ])
      const parents: Array<string> = []
      const feed: Feed = {
        ...quiet,
        onActive: () => Effect.orDie(Effect.map(Effect.currentParentSpan, (span) => void parents.push(span.spanId)))
      }
      const caller = yield* Effect.gen(function*() {
        yield* connection.add(CHANNEL, feed)
        yield* connection.start(yield* Effect.scope)
        return yield* Effect.currentSpan
      }).pipe(Effect.withSpan("caller"))
      yield* yieldAll
      yield* TestClock.adjust(1_000)
      yield* yieldAll
      yield* Queue.offer(inboxes[0]!, JSON.stringify({ event: "subscribed", channel: CHANNEL }))
      yield* yieldAll
      // What the connection runs once connected is the caller's, as before the attempt was a span.
      assert.deepStrictEqual(parents, [caller.spanId])
      const attempts = spans.filter((span) => span.name === "SpotPush.connect")
      assert.strictEqual(attempts.length, 2)
      for (const span of attempts) assert.isTrue(Option.isNone(span.parent))
      const [failed, connected] = attempts
      assert.strictEqual(failed!.attributes.get("outcome"), "failed")
      assert.strictEqual(connected!.attributes.get("outcome"), "connected")
      const exit = failed!.status._tag === "Ended" ? failed!.status.exit : undefined
      const failure = exit === undefined ? undefined : Option.getOrUndefined(Exit.findErrorOption(exit))
      assert.strictEqual(typeof failure, "string")
      assert.notInclude(String(failure), SECRET)
      assert.include(String(failure), "refused for key")
      yield* connection.stop()
    }).pipe(Effect.withTracer(tracer), Effect.scoped)
  })
})
