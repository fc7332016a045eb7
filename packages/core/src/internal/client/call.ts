// One generic call of an endpoint, read from its declaration in `Venue.endpoints`: the request validated by the
// declared request schema, written as the venue spells it (`wire`: a JSON body, or a GET's query), sent through the
// pipeline under the retry policy of its idempotency, and its answer decoded by the declared response schema (with the
// declared fast path beside it). Every operation of the client is made of these; nothing restates an endpoint.
import { Context as EffectContext, Effect, Exit, type Fiber, Option, References, Tracer } from "effect"
import { constUndefined } from "effect/Function"
import * as Json from "../../Json.ts"
import * as SpotError from "../../SpotError.ts"
import type * as Venue from "../../Venue.ts"
import type { VenueResponse } from "./answer.ts"
import type * as Pipeline from "./pipeline.ts"
import type * as Retry from "./retry.ts"
import type * as Rules from "./rules.ts"
import * as Validate from "./validate.ts"

/** The shared parts of a client's operations. */
export interface Context {
  readonly pipeline: Pipeline.Pipeline
  readonly retrying: Retry.Retrying
  /** The symbol-rules cache. */
  readonly rules: Rules.Cache
  /** Whether orders are checked against their symbol's rules before sending. */
  readonly checkRules: boolean
  /** A public operation's span (`tracer`). */
  readonly traced: (name: string) => <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}

// ---------------------------------------------------------------------------------------------------------------
// the declaration read

/** The caller's input checked against the endpoint's request schema: the valid request, or a `ValidationError`. */
export const validate = <E extends Venue.Endpoint>(
  endpoint: E,
  input: unknown
): Effect.Effect<Venue.RequestOf<E>, SpotError.ValidationError> => {
  const decoded = endpoint.decodeRequest(input)
  // A valid input (the Schema answers an exit) is answered as it is, without a step to map its errors.
  return succeeded(decoded) ? decoded : Effect.mapError(decoded, (error) => Validate.toValidationError(error))
}

/** Whether an effect is already a success (an exit): what `flatMapNow` and the decoders answer without a step. */
const succeeded = <A, E, R>(effect: Effect.Effect<A, E, R>): effect is Exit.Success<A, never> =>
  Exit.isExit(effect) && Exit.isSuccess(effect as Exit.Exit<unknown, unknown>)

/**
 * `Effect.flatMap` that calls `f` at once when `self` is already a success (an exit), saving the step; for an operation
 * that is already running (inside its `Effect.withFiber`), where calling `f` now is calling it when it runs.
 */
export const flatMapNow = <A, E, R, B, E2, R2>(
  self: Effect.Effect<A, E, R>,
  f: (a: A) => Effect.Effect<B, E2, R2>
): Effect.Effect<B, E | E2, R | R2> => succeeded(self) ? f(self.value) : Effect.flatMap(self, f)

// What `encodeURIComponent` leaves as it is but RFC 3986 reserves. A URL parser may escape some of them in a query
// (WHATWG's escapes `'`), and a GET is signed over its query as sent: escaped here, before signing, the query the
// transport sends is the query signed.
const SUB_DELIMS = /[!'()*]/
const SUB_DELIMS_ALL = /[!'()*]/g
const hex = (char: string) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`

/** One key or value of a query, percent-encoded as RFC 3986 reads it (every character but `A-Z a-z 0-9 - _ . ~`). */
const queryComponent = (text: string): string => {
  const encoded = encodeURIComponent(text)
  return SUB_DELIMS.test(encoded) ? encoded.replace(SUB_DELIMS_ALL, hex) : encoded
}

/** A GET's query string, in the wire's order, without `?`; undefined values are left out. */
const queryString = (params: Readonly<Record<string, unknown>>): string => {
  const parts: Array<string> = []
  for (const key in params) {
    const value = params[key]
    if (value !== undefined) parts.push(`${queryComponent(key)}=${queryComponent(String(value))}`)
  }
  return parts.join("&")
}

/** A valid request as the venue spells it: a POST's JSON body (undefined fields left out), or a GET's query. */
export const encode = <E extends Venue.Endpoint>(endpoint: E, request: Venue.RequestOf<E>): string => {
  const wire = endpoint.wire(request)
  return endpoint.method === "GET" ? queryString(wire) : Json.stringify(wire)
}

/** An answer's payload decoded by the endpoint's response schema; a payload of another shape quotes the body. */
export const decode = <E extends Venue.Endpoint>(
  endpoint: E,
  response: VenueResponse
): Effect.Effect<Venue.ResponseOf<E>, SpotError.DecodeError> => {
  const decoded = endpoint.decodeResponse(response.payload)
  // A payload the endpoint's fast path read is answered as it is (an exit), without a step to map its errors.
  return succeeded(decoded) ? decoded : Effect.mapError(decoded, (error) => response.schemaError(error))
}

// ---------------------------------------------------------------------------------------------------------------
// sending

/**
 * One attempt at an endpoint with a valid request: sent through the pipeline, its answer decoded; `handed`, when given,
 * called as the request is handed to the transport (`Pipeline.Outgoing.handed`).
 */
export const attempt = <E extends Venue.Endpoint>(
  pipeline: Pipeline.Pipeline,
  endpoint: E,
  request: Venue.RequestOf<E>,
  handed?: () => void
): Effect.Effect<Venue.ResponseOf<E>, SpotError.SpotErrorReason> =>
  Effect.flatMap(
    pipeline.execute({ endpoint, payload: encode(endpoint, request), handed }),
    (response) => {
      const decoded = decode(endpoint, response)
      // An answer that contradicts the request (records of another symbol) is garbled, not the answer asked for.
      return endpoint.contradiction === undefined ? decoded : flatMapNow(decoded, (answer) => {
        const problem = endpoint.contradiction?.(request, answer)
        return problem === undefined ? Effect.succeed(answer) : Effect.fail(response.schemaError(problem))
      })
    }
  )

/** A call of an endpoint with a valid request: attempts retried under the client's policy, failing with how. */
export const sendTracked = <E extends Venue.Endpoint>(
  context: Pick<Context, "pipeline" | "retrying">,
  endpoint: E,
  request: Venue.RequestOf<E>
): Effect.Effect<Retry.Succeeded<Venue.ResponseOf<E>>, Retry.Failure> =>
  context.retrying.tracked(endpoint, attempt(context.pipeline, endpoint, request))

/** A call of an endpoint with a valid request: attempts retried under the client's policy; fails with the last reason. */
export const send = <E extends Venue.Endpoint>(
  context: Pick<Context, "pipeline" | "retrying">,
  endpoint: E,
  request: Venue.RequestOf<E>
): Effect.Effect<Venue.ResponseOf<E>, SpotError.SpotErrorReason> =>
  context.retrying.reasons(endpoint, attempt(context.pipeline, endpoint, request))

/** A call of an endpoint with the caller's input: validated, then sent. */
export const call = <E extends Venue.Endpoint>(
  context: Pick<Context, "pipeline" | "retrying">,
  endpoint: E,
  input: unknown
): Effect.Effect<Venue.ResponseOf<E>, SpotError.SpotErrorReason> =>
  Effect.flatMap(validate(endpoint, input), (request) => send(context, endpoint, request))

// ---------------------------------------------------------------------------------------------------------------
// public operations

// Where no tracing backend is installed (Effect's native tracer, which exports nothing), an operation's span records
// nothing: it is not timed or ended, and its attributes and events are dropped (its annotations go nowhere, not into a
// span of the caller's). Its trace context is a native span's (the caller's trace id, an id of its own, the caller's
// sampling), so that the spans made inside it, the trace-context headers of the transports that send them and the
// trace ids of exported logs stay as they were. What that saves is measured in BENCHMARKS.md, "The client's cost at
// one request in flight (issue #26), fifth pass".
class Unrecorded extends Tracer.NativeSpan {
  override attribute(): void {}
  override event(): void {}
  override addLinks(): void {}
}

// Never added to: `addLinks` does nothing.
const noLinks: Array<Tracer.SpanLink> = []

const unrecorded = (name: string, services: EffectContext.Context<never>): Unrecorded => {
  const parent = EffectContext.getOrUndefined(services, Tracer.ParentSpan)
  return new Unrecorded({
    name,
    parent: Option.fromUndefinedOr(parent),
    annotations: EffectContext.empty(),
    links: noLinks,
    startTime: 0n,
    kind: "internal",
    sampled: parent?.sampled !== false
  })
}

// A public operation's span, like `Effect.fn(name)` gives, but without capturing a call-site stack trace on every
// call: that `new Error()` is a noticeable part of an in-process placeOrder (BENCHMARKS.md), on a path that trading
// programs call in tight loops. Errors still carry the operation's name and reason. The span becomes the parent span
// and the operation's stack frame (which names it in a failure's cause) in one change of the context, where
// `Effect.withSpan` makes two, together with what `enter` adds (the pipeline's references for its exchanges, which
// then need no change of their own). Without a tracing backend (and with trace propagation on), the span is
// `Unrecorded`.
export const tracer =
  (enter: (services: EffectContext.Context<never>) => EffectContext.Context<never>) =>
  (name: string) =>
  <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => {
    const within = (span: Tracer.Span | undefined) =>
      Effect.updateContext(self, (services: EffectContext.Context<R>) =>
        EffectContext.add(
          EffectContext.add(
            enter(services as EffectContext.Context<never>),
            Tracer.ParentSpan,
            span ?? unrecorded(name, services as EffectContext.Context<never>)
          ),
          References.CurrentStackFrame,
          { name, stack: constUndefined, parent: EffectContext.get(services, References.CurrentStackFrame) }
        ) as EffectContext.Context<R>)
    return Effect.withFiber((fiber) =>
      fiber.getRef(Tracer.Tracer) === Tracer.nativeTracer && !fiber.getRef(Tracer.DisablePropagation)
        ? within(undefined)
        : Effect.useSpan(name, within)
    )
  }

/**
 * The span of the operation running on `fiber` when it records (a tracing backend's, not ended), to annotate as
 * `Effect.annotateCurrentSpan` does but without a step; undefined otherwise, so that a caller builds no attributes for
 * a span that would drop them.
 */
export const recording = (fiber: Fiber.Fiber<unknown, unknown>): Tracer.Span | undefined => {
  const span = EffectContext.getOrUndefined(fiber.context, Tracer.ParentSpan)
  return span instanceof Unrecorded || span?._tag !== "Span" || span.status._tag === "Ended" ? undefined : span
}

/** The error of the public operation `SpotClient.<operation>`. */
export const fail = (operation: string) => (reason: SpotError.SpotErrorReason): SpotError.SpotError =>
  new SpotError.SpotError({ operation: `SpotClient.${operation}`, reason })

export { clientOrderIdOf, newClientOrderId } from "../model/clientOrderId.ts"
