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
  /** The same, failing with the last reason alone. */
  readonly reasons: <A>(
    endpoint: Venue.Endpoint,
    attempt: Effect.Effect<A, SpotError.SpotErrorReason>
  ) => Effect.Effect<A, SpotError.SpotErrorReason>
  /**
   * What follows an attempt that failed with `first`: the retries under the policy (`retrying` is an attempt caught
   * by this), for a caller that handles the first failure in a `catch` of its own.
   */
  readonly after: <A>(
    endpoint: Venue.Endpoint,
    attempt: Effect.Effect<A, SpotError.SpotErrorReason>,
    first: SpotError.SpotErrorReason
  ) => Effect.Effect<Succeeded<A>, Failure>
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

  // Everything after an attempt failed with `first`: its re-sign (a 40008), the retries under the policy, and whether
  // any failed attempt may have been applied. A call whose first attempt succeeds never gets here: on that path the
  // retrying is one `catch` (trading programs place in tight loops).
  const recover = <A>(
    endpoint: Venue.Endpoint,
    attempt: Effect.Effect<A, SpotError.SpotErrorReason>,
    first: SpotError.SpotErrorReason
  ): Effect.Effect<Succeeded<A>, Failure> => {
    let applied = false
    const retried = (reason: SpotError.SpotErrorReason) => isRetried(endpoint, reason)
    const noted = (reason: SpotError.SpotErrorReason) => {
      applied ||= Venue.mayHaveApplied(reason)
      return retried(reason)
        ? Effect.logDebug(`spotkit: retryable failure ${reason._tag}: ${reason.message}`)
        : Effect.void
    }
    const once = Effect.tapError(attempt, noted)
    const isTimestamp = (reason: SpotError.SpotErrorReason) => reason._tag === "TimestampError"
    const resigned = Effect.catchIf(once, isTimestamp, () => once)
    // The first failure, as `resigned` would have ended with it: noted, and re-signed once if it was a 40008.
    const started = Effect.andThen(noted(first), isTimestamp(first) ? once : Effect.fail(first))
    // The schedule only starts after a first retried failure, which is replayed into it, so delays and the number of
    // attempts are exactly those of `Effect.retry` over the whole call.
    const withRetries = Effect.catch(started, (failed) => {
      if (times <= 0 || !retried(failed)) return Effect.fail(failed)
      let replayed = false
      const again = Effect.suspend(() => {
        if (replayed) return resigned
        replayed = true
        return Effect.fail(failed)
      })
      return Effect.retry(again, { schedule: scheduleOf(endpoint), times, while: retried })
    })
    return Effect.mapBoth(withRetries, {
      onFailure: (reason): Failure => ({ reason, mayHaveApplied: applied }),
      onSuccess: (value): Succeeded<A> => ({ value, mayHaveApplied: applied })
    })
  }

  const tracked = <A>(
    endpoint: Venue.Endpoint,
    attempt: Effect.Effect<A, SpotError.SpotErrorReason>
  ): Effect.Effect<Succeeded<A>, Failure> =>
    Effect.catch(
      Effect.map(attempt, (value): Succeeded<A> => ({ value, mayHaveApplied: false })),
      (first) => recover(endpoint, attempt, first)
    )

  const retrying = <A>(endpoint: Venue.Endpoint, attempt: Effect.Effect<A, SpotError.SpotErrorReason>) =>
    Effect.catch(attempt, (first) => Effect.map(recover(endpoint, attempt, first), (done) => done.value))

  const reasons = <A>(endpoint: Venue.Endpoint, attempt: Effect.Effect<A, SpotError.SpotErrorReason>) =>
    Effect.catch(attempt, (first) =>
      Effect.mapBoth(recover(endpoint, attempt, first), {
        onFailure: (failure) => failure.reason,
        onSuccess: (done) => done.value
      }))
  return Object.assign(retrying, { tracked, reasons, after: recover })
}
