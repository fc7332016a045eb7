/**
 * The push connection's rate-limited warnings (a venue's error frames, frames that cannot be read): the first logged,
 * then at most one per interval, each saying how many were not logged since the one before it.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Logger } from "effect"
import { RateLimitedWarning } from "../src/internal/push/rateLimitedLog.ts"

const warningsInto = (warnings: Array<string>) =>
  Logger.layer([
    Logger.make((options) => {
      if (options.logLevel === "Warn") warnings.push(String(options.message))
    })
  ])

describe("RateLimitedWarning", () => {
  it.effect("the first, then one per interval counting those left out; a line built only when logged", () => {
    const warnings: Array<string> = []
    return Effect.gen(function*() {
      const warning = new RateLimitedWarning(60_000)
      let built = 0
      const at = (now: number, text: string) =>
        warning.warn(now, () => {
          built++
          return text
        })
      yield* at(1_000, "first") ?? Effect.void
      for (const now of [1_001, 30_000, 60_999]) assert.isUndefined(at(now, "left out"))
      assert.strictEqual(built, 1)
      // An interval after the last one logged (not after the last one left out): logged, with the count.
      yield* at(61_000, "second") ?? Effect.void
      assert.isUndefined(at(61_001, "left out"))
      // The count starts again at each line logged; a line with none left out since says nothing of them.
      yield* at(121_000, "third") ?? Effect.void
      yield* at(200_000, "fourth") ?? Effect.void
      assert.strictEqual(built, 4)
      assert.deepStrictEqual(warnings, [
        "first",
        "second (and 3 more since the last one logged)",
        "third (and 1 more since the last one logged)",
        "fourth"
      ])
    }).pipe(Effect.provide(warningsInto(warnings)))
  })

  it.effect("two warnings keep their own intervals: one logged does not hold the other back", () => {
    const warnings: Array<string> = []
    return Effect.gen(function*() {
      const errors = new RateLimitedWarning(60_000)
      const unreadable = new RateLimitedWarning(60_000)
      yield* errors.warn(0, () => "an error") ?? Effect.void
      yield* unreadable.warn(10, () => "unreadable") ?? Effect.void
      assert.isUndefined(errors.warn(20, () => "an error"))
      assert.deepStrictEqual(warnings, ["an error", "unreadable"])
    }).pipe(Effect.provide(warningsInto(warnings)))
  })
})
