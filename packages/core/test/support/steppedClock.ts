/**
 * The TestClock with a wall clock that can be stepped: `step(millis)` moves the wall time by `millis` and leaves the
 * monotonic time where it is (NTP stepping a drifted clock, a user setting the time, a suspended machine whose
 * monotonic clock stood still).
 */
import type { Duration } from "effect"
import { Effect } from "effect"
import { TestClock } from "effect/testing"

/** A clock whose wall time `step` moves away from the TestClock's, and the TestClock's monotonic time. */
export const steppedClock: Effect.Effect<{
  readonly clock: TestClock.TestClock
  readonly step: (millis: number) => void
}> = Effect.map(TestClock.testClockWith(Effect.succeed), (test) => {
  let stepped = 0
  const wall = () => test.currentTimeMillisUnsafe() + stepped
  const nanos = () => test.currentTimeNanosUnsafe() + BigInt(stepped) * 1_000_000n
  const clock: TestClock.TestClock = {
    currentTimeMillisUnsafe: wall,
    currentTimeNanosUnsafe: nanos,
    monotonicTimeNanosUnsafe: () => test.monotonicTimeNanosUnsafe(),
    currentTimeMillis: Effect.sync(wall),
    currentTimeNanos: Effect.sync(nanos),
    monotonicTimeNanos: test.monotonicTimeNanos,
    sleep: (duration: Duration.Duration) => test.sleep(duration),
    adjust: (duration: Duration.Input) => test.adjust(duration),
    setTime: (timestamp: number) => test.setTime(timestamp),
    withLive: (effect) => test.withLive(effect)
  }
  return { clock, step: (millis: number) => void (stepped += millis) }
})
