/**
 * The request timeout as a contract between the client and an `HttpClient` that can enforce it itself.
 *
 * By default the client bounds every HTTP exchange with `Effect.timeoutOrElse`, which works over any `HttpClient`
 * but races two extra fibers and a timer against each request: over loopback about a sixth of the client's CPU per
 * request. An `HttpClient` marked with `enforcing` promises to end every request of a fiber whose `Timeout` is set
 * within that many milliseconds, failing it with an `HttpClientError` whose reason is a `TransportError` caused by
 * `TimeoutError` (and aborting it). For such a client the client sets `Timeout` instead of racing; the failure reads
 * the same ("no answer within …"). `@spotkit/node`'s default HTTP client is marked; a client derived from a marked
 * one (`HttpClient.mapRequest`, ...) is a new client and is not.
 *
 * @since 0.1.0
 */
import { Context, Data } from "effect"
import type { HttpClient } from "effect/http"

/**
 * The longest `Timeout` the client hands to an enforcing `HttpClient`: what one `setTimeout` can wait (2^31 - 1 ms,
 * about 24.8 days; a longer one fires at once). A longer request timeout is raced against the clock instead.
 *
 * @since 0.1.0
 * @category constants
 */
export const maxMillis = 2 ** 31 - 1

/**
 * Milliseconds allowed for each request of the current fiber, set by the client around its exchanges with an
 * enforcing `HttpClient`; `undefined` (the default) means no bound. Never more than `maxMillis`.
 *
 * @since 0.1.0
 * @category references
 */
export const Timeout: Context.Reference<number | undefined> = Context.Reference<number | undefined>(
  "@spotkit/core/HttpTimeout/Timeout",
  { defaultValue: () => undefined }
)

/**
 * The cause of the `TransportError` an enforcing `HttpClient` fails with when `Timeout` elapses.
 *
 * @since 0.1.0
 * @category errors
 */
export class TimeoutError extends Data.TaggedError("HttpTimeoutError")<{ readonly millis: number }> {
  override get message(): string {
    return `no answer within ${this.millis} ms`
  }
}

const EnforcingTypeId = "~@spotkit/core/HttpTimeout/Enforcing"

/**
 * Marks an `HttpClient` as enforcing `Timeout` (see the module docs for the promise it makes). Answers the same
 * client.
 *
 * @since 0.1.0
 * @category enforcing
 */
export const enforcing = <C extends HttpClient.HttpClient>(client: C): C =>
  Object.assign(client, { [EnforcingTypeId]: true })

/**
 * Whether an `HttpClient` was marked with `enforcing`.
 *
 * @since 0.1.0
 * @category enforcing
 */
export const isEnforcing = (client: HttpClient.HttpClient): boolean =>
  (client as unknown as Record<string, unknown>)[EnforcingTypeId] === true
