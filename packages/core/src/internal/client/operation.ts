// What every operation of the client is made of, built once per client and shared by the groups of operations
// (orders.ts, account.ts, transfers.ts): one call of an endpoint (encode → retrying(execute → decode)), the error of
// a public operation, its span.
import { Clock, Effect, Random, type Schema } from "effect"
import * as Json from "../../Json.ts"
import * as SpotError from "../../SpotError.ts"
import type * as Venue from "../../Venue.ts"
import type * as Pipeline from "./pipeline.ts"
import type * as Retry from "./retry.ts"
import type * as Rules from "./rules.ts"

/** A decoder of an endpoint's payload. */
export type Decoder<A> = (payload: unknown) => Effect.Effect<A, Schema.SchemaError>

/** The shared parts of a client's operations. */
export interface Context {
  readonly pipeline: Pipeline.Pipeline
  readonly retrying: Retry.Retrying
  /** The symbol-rules cache. */
  readonly rules: Rules.Cache
  /** Whether orders are checked against their symbol's rules before sending. */
  readonly checkRules: boolean
}

// A public operation's span, like `Effect.fn(name)` gives, but without capturing a call-site stack trace on every
// call: that `new Error()` is a large share of an in-process placeOrder (BENCHMARKS.md), on a path that trading
// programs call in tight loops. Errors still carry the operation's name and reason.
export const traced = (name: string) => <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.withSpan(self, name, { captureStackTrace: false })

/** The error of the public operation `SpotClient.<operation>`. */
export const fail = (operation: string) => (reason: SpotError.SpotErrorReason): SpotError.SpotError =>
  new SpotError.SpotError({ operation: `SpotClient.${operation}`, reason })

/** The reason of a failed call, for callers that need no more. */
export const reasonOf = (failure: Retry.Failure): SpotError.SpotErrorReason => failure.reason

/** A record without its undefined fields (the wire omits them). */
export const omitUndefined = (record: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined))

/** A GET's query string, in the given order, without `?`; undefined values are left out. */
export const queryString = (params: Record<string, string | number | undefined>): string => {
  const parts: Array<string> = []
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined) parts.push(`${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`)
  }
  return parts.join("&")
}

/** A JSON body from a record, undefined fields left out. */
export const body = (record: Record<string, unknown>): string => Json.stringify(omitUndefined(record))

/** One attempt at an endpoint: the request through the pipeline, its payload decoded (a refusal quotes the body). */
export const attempt = <A>(
  pipeline: Pipeline.Pipeline,
  endpoint: Venue.Endpoint,
  payload: string,
  decode: Decoder<A>
): Effect.Effect<A, SpotError.SpotErrorReason> =>
  Effect.flatMap(
    pipeline.execute(pipeline.request(endpoint, payload)),
    (response) => Effect.mapError(decode(response.payload), (error) => response.schemaError(error))
  )

/** One call of an endpoint: attempts retried under the client's policy; fails with the last reason. */
export const call = <A>(
  context: Pick<Context, "pipeline" | "retrying">,
  endpoint: Venue.Endpoint,
  payload: string,
  decode: Decoder<A>
): Effect.Effect<A, SpotError.SpotErrorReason> =>
  Effect.mapError(context.retrying(endpoint, attempt(context.pipeline, endpoint, payload, decode)), reasonOf)

/** A fresh clientOrderId: `sk`, the time and 60 random bits in base 36 (22 characters of `[a-z0-9]`). */
export const newClientOrderId: Effect.Effect<string> = Effect.gen(function*() {
  const now = yield* Clock.currentTimeMillis
  const a = yield* Random.nextIntBetween(0, 2 ** 30)
  const b = yield* Random.nextIntBetween(0, 2 ** 30)
  return `sk${Math.floor(now).toString(36)}${a.toString(36).padStart(6, "0")}${b.toString(36).padStart(6, "0")}`
})
