// Retries, in one place: which failures are sent again, how long to wait first, and what a caller learns when the
// attempts run out. Every call of the client goes through `retrying`; nothing below it retries.
//
// A failure is sent again when a retry may succeed (`isRetryable`) and sending again cannot apply the request twice:
// either the endpoint is idempotent (a read, or an order deduplicated by its clientOrderId), or the venue provably did
// not apply it (`Venue.mayHaveApplied` is false). A `40008` (timestamp outside the window) is re-signed at once, once
// per attempt: its answer carried the server's clock, so the next signature is in the window.
import { Duration, Effect, Schedule } from "effect"
import type * as SpotError from "../../SpotError.ts"
import * as Venue from "../../Venue.ts"
import * as Telemetry from "./telemetry.ts"

/** Retry policy (`SpotClient.RetryOptions`). */
export interface Options {
  readonly times?: number | undefined
  readonly baseDelay?: Duration.Input | undefined
  readonly maxDelay?: Duration.Input | undefined
}

/** How a call failed: its last reason, and whether any of its attempts may have been applied by the venue. */
export interface Failure {
  readonly reason: SpotError.SpotErrorReason
  readonly mayHaveApplied: boolean
}

/** Whether a failed request is sent again. */
export const isRetried = (endpoint: Venue.Endpoint, reason: SpotError.SpotErrorReason): boolean =>
  reason.isRetryable && (endpoint.idempotency !== "none" || !Venue.mayHaveApplied(reason))

/** A call that succeeded, and whether an earlier attempt of it may have been applied too. */
export interface Succeeded<A> {
  readonly value: A
  readonly mayHaveApplied: boolean
}

/** The retrying of a client: runs an attempt, and again under the policy. */
export interface Retrying {
  /** The call's value, or how it failed. */
  <A>(endpoint: Venue.Endpoint, attempt: Effect.Effect<A, SpotError.SpotErrorReason>): Effect.Effect<A, Failure>
  /** The same, saying on success too whether an attempt that failed may have been applied. */
  readonly tracked: <A>(
    endpoint: Venue.Endpoint,
    attempt: Effect.Effect<A, SpotError.SpotErrorReason>
  ) => Effect.Effect<Succeeded<A>, Failure>
}

/** The retrying of a client; each retry is reported (a metric, a span event, the program's listener). */
export const make = (options: Options | false, reporter: Telemetry.Reporter = Telemetry.none): Retrying => {
  const policy = options === false ? { times: 0 } : options
  const times = policy.times ?? 4
  const maxDelay = Duration.fromInputUnsafe(policy.maxDelay ?? Duration.seconds(5))
  const base = Schedule.exponential(policy.baseDelay ?? Duration.millis(200)).pipe(Schedule.jittered)
  // One schedule per endpoint, built when the endpoint first fails, so that a retry is reported with its endpoint.
  const schedules = new Map<Venue.Endpoint, Schedule.Schedule<Duration.Duration, SpotError.SpotErrorReason>>()
  const scheduleOf = (endpoint: Venue.Endpoint) => {
    let schedule = schedules.get(endpoint)
    if (schedule === undefined) {
      schedule = Schedule.modifyDelay(
        base,
        ({ attempt, duration, input }: Schedule.Metadata<Duration.Duration, SpotError.SpotErrorReason>) => {
          const millis = Math.round(Duration.toMillis(Duration.min(duration, maxDelay)))
          return Effect.as(reporter.retrying(endpoint, attempt, millis, input), Duration.millis(millis))
        }
      )
      schedules.set(endpoint, schedule)
    }
    return schedule
  }

  const tracked = <A>(
    endpoint: Venue.Endpoint,
    attempt: Effect.Effect<A, SpotError.SpotErrorReason>
  ): Effect.Effect<Succeeded<A>, Failure> =>
    Effect.suspend(() => {
      let applied = false
      const retried = (reason: SpotError.SpotErrorReason) => isRetried(endpoint, reason)
      const once = Effect.tapError(attempt, (reason) => {
        applied ||= Venue.mayHaveApplied(reason)
        return retried(reason)
          ? Effect.logDebug(`spotkit: retryable failure ${reason._tag}: ${reason.message}`)
          : Effect.void
      })
      const resigned = Effect.catchIf(once, (reason) => reason._tag === "TimestampError", () => once)
      // The schedule only starts after a first retried failure, so a call that succeeds at once pays for one `catch`,
      // not for a schedule driver. The first failure is replayed into the schedule, so delays and the number of
      // attempts are exactly those of `Effect.retry` over the whole call.
      const withRetries = Effect.catch(resigned, (first) => {
        if (times <= 0 || !retried(first)) return Effect.fail(first)
        let replayed = false
        const again = Effect.suspend(() => {
          if (replayed) return resigned
          replayed = true
          return Effect.fail(first)
        })
        return Effect.retry(again, { schedule: scheduleOf(endpoint), times, while: retried })
      })
      return Effect.mapBoth(withRetries, {
        onFailure: (reason): Failure => ({ reason, mayHaveApplied: applied }),
        onSuccess: (value): Succeeded<A> => ({ value, mayHaveApplied: applied })
      })
    })

  const retrying = <A>(endpoint: Venue.Endpoint, attempt: Effect.Effect<A, SpotError.SpotErrorReason>) =>
    Effect.map(tracked(endpoint, attempt), (done) => done.value)
  return Object.assign(retrying, { tracked })
}
