/**
 * `PushError`'s reasons as a caller handles them: by tag, with the reason's fields, on the stream or on the effect
 * that runs it (the idiom `PushError`'s module doc shows).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import { PushError } from "../src/index.ts"

const failed = (reason: PushError.PushErrorReason) =>
  Stream.fail(new PushError.PushError({ stream: "SpotPush.watchTrades", reason }))

describe("handling a PushError's reasons", () => {
  it.effect("a reason is handled with Effect.catchReason, its fields typed; another reason with the fallback", () =>
    Effect.gen(function*() {
      const handled = (reason: PushError.PushErrorReason) =>
        Stream.runDrain(failed(reason)).pipe(
          Effect.as("ran"),
          Effect.catchReason(
            "PushError",
            "SlowConsumerError",
            (slow) => Effect.succeed(`slow: ${slow.capacity}`),
            (other) => Effect.succeed(`other: ${other._tag}`)
          )
        )
      assert.strictEqual(yield* handled(new PushError.SlowConsumerError({ capacity: 4 })), "slow: 4")
      assert.strictEqual(
        yield* handled(new PushError.VenueRefusedError({ channel: "trades.X_SPBL", code: "30001" })),
        "other: VenueRefusedError"
      )
    }))

  it("SlowConsumerError says which limit the consumer passed: the grace for room, or the pushes behind a backfill", () => {
    assert.strictEqual(
      new PushError.SlowConsumerError({ capacity: 8, graceMillis: 1_500 }).message,
      "the consumer fell behind: an element waited more than 1500 ms for room in its queue of 8 (see the bufferSize " +
        "and slowConsumerAfter options)"
    )
    assert.strictEqual(
      new PushError.SlowConsumerError({ capacity: 8, backlog: 101 }).message,
      "the consumer fell behind: 101 pushes waited behind a backfill for its queue of 8 (see the bufferSize and " +
        "backfillBuffer options)"
    )
  })

  it.effect("on the stream, Stream.catchReason goes on with another stream", () =>
    Effect.gen(function*() {
      const error = new PushError.PushError({
        stream: "SpotPush.watchBook",
        reason: new PushError.SnapshotTimeoutError({ channel: "depth.X_SPBL.15", timeoutMillis: 5_000, attempts: 3 })
      })
      assert.strictEqual(error.stream, "SpotPush.watchBook")
      assert.strictEqual(error.reason._tag, "SnapshotTimeoutError")
      const recovered = yield* Stream.runCollect(
        Stream.fail(error).pipe(
          Stream.catchReason("PushError", "SnapshotTimeoutError", (reason) => Stream.make(reason.attempts))
        )
      )
      assert.deepStrictEqual(recovered, [3])
    }))
})
