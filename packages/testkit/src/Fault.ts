/**
 * Faults the exchange injects on purpose: for the next N requests to an endpoint, for a share of them, or for all of
 * them until cleared. Each fault says whether the venue applied the request: a client must retry the ones that were
 * not applied and must not duplicate the ones that were.
 *
 * @since 0.1.0
 */

/**
 * What goes wrong.
 *
 * - `HttpError`: an HTTP 5xx with an HTML error page; not applied.
 * - `RateLimited`: HTTP 429 with the venue's `429` envelope; not applied.
 * - `VenueError`: the standard envelope with a venue code (e.g. `40200` maintenance); not applied.
 * - `Drop`: the connection drops before the request is read; not applied.
 * - `Timeout`: no answer ever comes (the client's timeout must fire); not applied.
 * - `Latency`: the normal answer, `millis` later (on the exchange's `Clock`).
 * - `Malformed`: HTTP 200 with a body that is not JSON; not applied.
 * - `Truncated`: applied, and the answer is cut in the middle.
 * - `AppliedLost`: applied, and the connection drops before the answer.
 *
 * @since 0.1.0
 * @category models
 */
export type Fault =
  | { readonly _tag: "HttpError"; readonly status: number }
  | { readonly _tag: "RateLimited" }
  | { readonly _tag: "VenueError"; readonly code: string; readonly msg: string; readonly status: number }
  | { readonly _tag: "Drop" }
  | { readonly _tag: "Timeout" }
  | { readonly _tag: "Latency"; readonly millis: number }
  | { readonly _tag: "Malformed" }
  | { readonly _tag: "Truncated" }
  | { readonly _tag: "AppliedLost" }

/**
 * Whether the venue applies a request that meets this fault.
 *
 * @since 0.1.0
 * @category predicates
 */
export const isApplied = (fault: Fault): boolean =>
  fault._tag === "Latency" || fault._tag === "Truncated" || fault._tag === "AppliedLost"

/**
 * @since 0.1.0
 * @category constructors
 */
export const httpError = (status = 503): Fault => ({ _tag: "HttpError", status })

/**
 * @since 0.1.0
 * @category constructors
 */
export const rateLimited: Fault = { _tag: "RateLimited" }

/**
 * A venue error code in the standard envelope, e.g. `venueError("40200", "server upgrade")`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const venueError = (code: string, msg = "injected venue error", status = 400): Fault => ({
  _tag: "VenueError",
  code,
  msg,
  status
})

/**
 * @since 0.1.0
 * @category constructors
 */
export const drop: Fault = { _tag: "Drop" }

/**
 * @since 0.1.0
 * @category constructors
 */
export const timeout: Fault = { _tag: "Timeout" }

/**
 * @since 0.1.0
 * @category constructors
 */
export const latency = (millis: number): Fault => ({ _tag: "Latency", millis })

/**
 * @since 0.1.0
 * @category constructors
 */
export const malformed: Fault = { _tag: "Malformed" }

/**
 * @since 0.1.0
 * @category constructors
 */
export const truncated: Fault = { _tag: "Truncated" }

/**
 * @since 0.1.0
 * @category constructors
 */
export const appliedLost: Fault = { _tag: "AppliedLost" }

/**
 * Where and how often a fault strikes.
 *
 * @since 0.1.0
 * @category models
 */
export interface Rule {
  readonly fault: Fault
  /**
   * Only requests to this path (e.g. `Venue.endpoints.placeOrder.path`, or a public one such as
   * `Venue.endpoints.ticker.path`): an endpoint's path exactly, without a query string (`injectFault` refuses any
   * other, which no request would have).
   * @default every signed path: without a path, a rule passes over the public market data (ticker, book, candles,
   * trades, symbol rules, server time) and strikes the next requests on the account
   */
  readonly path?: string | undefined
  /** The next `times` matching requests. */
  readonly times?: number | undefined
  /** Each matching request with this probability (0..1), drawn from the exchange's seeded generator. */
  readonly share?: number | undefined
}
