/**
 * The push service's reporting, below the service: how a connection attempt's exit becomes its outcome (each word of
 * `Telemetry.PushConnectOutcome` but `connected` from the failure that means it), and the counts of messages added
 * to the metric once and then reset, in the registry of the context the reporter was made in.
 */
import { assert, describe, it } from "@effect/vitest"
import { Cause, Context, Effect, Exit, Metric } from "effect"
import * as Socket from "effect/socket/Socket"
import { SpotError, Telemetry } from "../src/index.ts"
import { HeadersUnsupported } from "../src/internal/push/connection.ts"
import * as PushTelemetry from "../src/internal/push/telemetry.ts"

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
})
