// The client's request pipeline: one typed record (`Outgoing`, then `Stamped`) carried through named stages, each a
// module-level function of that record and of the client's `Context`:
//
//   limited   waits for the endpoint's rate-limit permit; the request counts while in flight and from its answer on;
//             a 429 pauses the shared budgets
//   stamp     the clock corrected by the server's, signed once (serverClock.ts); before the client's first signed
//             request, the server's time is asked once (best effort)
//   exchange  the HTTP request built from the endpoint's prepared base, sent through the platform's HttpClient (under
//             the caller's `transformClient`; a redirect refused, redirects.ts), its body read (at most
//             `maxResponseBytes`), within `timeout`; transport failures become reasons
//   answer    status and envelope checked, every failure mapped to a reason, texts scrubbed (answer.ts)
//   learn     the server's clock learned back from the answer
//
// What comes out is a `VenueResponse` (the envelope's payload, the server time) or a `SpotErrorReason`. Retries are
// not here: a retry runs the whole pipeline again (retry.ts), so it waits for a permit and is signed afresh.
import {
  Cause,
  Clock,
  Context as EffectContext,
  type Duration,
  Effect,
  Exit,
  type Fiber,
  Option,
  Redacted,
  Schema
} from "effect"
import {
  FetchHttpClient,
  Headers,
  HttpBody,
  HttpClient,
  HttpClientError,
  HttpClientRequest,
  type HttpClientResponse,
  UrlParams
} from "effect/http"
import { BufferedResponse, read as readBody } from "../../BufferedResponse.ts"
import * as Market from "../../Market.ts"
import type * as RateLimitStore from "../../RateLimitStore.ts"
import * as Signer from "../../Signer.ts"
import type * as SpotError from "../../SpotError.ts"
import * as Venue from "../../Venue.ts"
import { answer, type VenueResponse } from "./answer.ts"
import type * as Budget from "./budget.ts"
import * as Errors from "./errors.ts"
import * as RateLimiter from "./rateLimiter.ts"
import * as Redirects from "./redirects.ts"
import { emptySecretRefusal, type Refusals, refusalsOf } from "./refusals.ts"
import { type Estimate, type Moment, ServerClock, type Span } from "./serverClock.ts"
import * as Telemetry from "./telemetry.ts"

export interface Options {
  readonly baseUrl: string
  readonly credentials: Signer.Credentials
  /** Further texts removed from every text quoted, as the credentials are (`SpotClient.Options.secrets`). */
  readonly secrets: ReadonlyArray<string>
  readonly locale: string
  readonly timeout: Duration.Duration
  /** Who bounds an exchange by `timeout`: the pipeline, on the Clock, or the transport itself. */
  readonly timeoutBy: "client" | "transport"
  /** The largest body read; a larger answer fails with a `ResponseTooLargeError`. */
  readonly maxResponseBytes: number
  /** The budgets the client charges; none when limiting is off. */
  readonly limiter: Budget.Limiter | undefined
  /** What the client reports of its requests (metrics, span events, the program's listener). */
  readonly reporter: Telemetry.Reporter
  /** Whether the server's time is asked for before the first signed request. */
  readonly syncTime: boolean
  /** Applied to the platform's client, beneath every stage (`SpotClient.Options.transformClient`). */
  readonly transformClient?: ((client: HttpClient.HttpClient) => HttpClient.HttpClient) | undefined
}

/** A request about to enter the pipeline: its endpoint, and its body (POST) or query string (GET, without `?`). */
export interface Outgoing {
  readonly endpoint: Venue.Endpoint
  readonly payload: string
  /**
   * Called when the request is handed to the transport (after its permit and signature): from then on it may reach
   * the venue. A caller that must know whether any attempt of a call can have been applied (an interrupted transfer)
   * gives it; others leave it out.
   */
  readonly handed?: (() => void) | undefined
}

/** A request stamped for sending: its path as signed, and (signed endpoints) its timestamp and signature. */
export interface Stamped extends Outgoing {
  readonly requestPath: string
  /** `ACCESS-TIMESTAMP`; empty for a public endpoint. */
  readonly timestamp: string
  /** `ACCESS-SIGN`; empty for a public endpoint. */
  readonly signature: string
  /** Local time when stamped (the wall clock's): the timestamp signed is this plus the learned offset. */
  readonly sentAt: number
  /** The monotonic clock's time when stamped (ms): the round trip, and the venue's clock estimated on this clock. */
  readonly sentMono: number
}

/** What the stages of one client share: its options, the platform's client, the signer, its clock. */
interface Context {
  readonly options: Options
  /** The platform's client, or the caller's hooks over the client that refuses redirects (redirects.ts). */
  readonly client: HttpClient.HttpClient
  /** Whether `client` is the platform's own, whose redirects the exchange refuses itself (`refused`). */
  readonly refusesHere: boolean
  /** A redirect refused (redirects.ts). */
  readonly refused: (
    response: HttpClientResponse.HttpClientResponse
  ) => Effect.Effect<never, HttpClientError.HttpClientError>
  /** The fetch options of a request, given those in context (redirects.ts). */
  readonly initFor: (current: RequestInit | undefined) => RequestInit
  readonly sign: (text: string) => Effect.Effect<string>
  readonly scrubber: Errors.Scrubber
  readonly redactedNames: ReadonlyArray<string | RegExp>
  /** The parts of each endpoint's request that never change, by endpoint name. */
  readonly bases: ReadonlyMap<string, Base>
  /** Why a public (`public`) or signed (`signed`) request cannot be sent: an option no header can carry. */
  readonly refusals: Refusals
  readonly clock: ServerClock
  /** Asks the server's time once before the first signed request (replaced by a no-op once done). */
  sync: Effect.Effect<void>
}

// The parts of a request that never change, built once per endpoint: its URL and its fixed headers (names in lower
// case, as `Headers` keeps them); each send adds its body, signature and timestamp.
interface Base {
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
}

const basesOf = (options: Options): ReadonlyMap<string, Base> => {
  const bases = new Map<string, Base>()
  for (const endpoint of Object.values(Venue.endpoints) as ReadonlyArray<Venue.Endpoint>) {
    const headers: Record<string, string> = {
      [Venue.headers.locale.toLowerCase()]: options.locale,
      "content-type": "application/json"
    }
    if (endpoint.permission !== undefined) {
      headers[Venue.headers.key.toLowerCase()] = Redacted.value(options.credentials.apiKey)
      headers[Venue.headers.passphrase.toLowerCase()] = Redacted.value(options.credentials.passphrase)
    }
    bases.set(endpoint.name, { url: options.baseUrl + endpoint.path, headers })
  }
  return bases
}

// The signing of a client whose secret key is refused: never called (its signed requests fail before the stamp).
const unsigned: Signer.Sign = () => Effect.succeed("")

// ---------------------------------------------------------------------------------------------------------------
// stamp

const requestPathOf = (outgoing: Outgoing): string =>
  outgoing.endpoint.method === "GET" && outgoing.payload !== ""
    ? `${outgoing.endpoint.path}?${outgoing.payload}`
    : outgoing.endpoint.path

/**
 * The request stamped at local time `sentAt` (monotonic: `sentMono`): a public one as it is, a signed one with the
 * server's time and its one signature. The stamped request itself when the signer answers at once (an exit, as
 * node:crypto's does), otherwise an effect of it (WebCrypto's).
 */
export const stampAt = (
  context: Context,
  outgoing: Outgoing,
  sentAt: number,
  sentMono: number
): Stamped | Effect.Effect<Stamped> => {
  const requestPath = requestPathOf(outgoing)
  const endpoint = outgoing.endpoint
  if (endpoint.permission === undefined) {
    return { ...outgoing, requestPath, timestamp: "", signature: "", sentAt, sentMono }
  }
  const body = endpoint.method === "GET" ? "" : outgoing.payload
  const timestamp = String(context.clock.stamp(endpoint, requestPath, body, sentAt))
  const signed = context.sign(Venue.prehash(timestamp, endpoint.method, requestPath, body))
  const stamped = (signature: string): Stamped => ({ ...outgoing, requestPath, timestamp, signature, sentAt, sentMono })
  // An exit of the signer's effect: its value is the signature.
  const exit = Exit.isExit(signed) ? signed as Exit.Exit<string> : undefined
  return exit !== undefined && Exit.isSuccess(exit) ? stamped(exit.value) : Effect.map(signed, stamped)
}

// ---------------------------------------------------------------------------------------------------------------
// exchange

const SIGN = Venue.headers.sign.toLowerCase()
const TIMESTAMP = Venue.headers.timestamp.toLowerCase()
// The prototype every `Headers` object has (its redaction, equality and inspection).
const HEADERS_PROTO: object = Object.getPrototypeOf(Headers.empty)

// The request built at once from its parts (one headers object, one request), as `bodyText` and `setHeaders` would
// build it step by step: a POST's JSON body with its content type and length, a GET's query in its URL, and the
// signature and timestamp of a signed request.
const httpRequestOf = (context: Context, stamped: Stamped): HttpClientRequest.HttpClientRequest => {
  const base = context.bases.get(stamped.endpoint.name)!
  const get = stamped.endpoint.method === "GET"
  const body = get ? HttpBody.empty : HttpBody.text(stamped.payload, "application/json")
  // Written straight into a `Headers` object (what `Headers.fromInput` makes), the names already in lower case.
  const headers = Object.create(HEADERS_PROTO) as Record<string, string>
  for (const name in base.headers) headers[name] = base.headers[name]!
  if (body._tag === "Uint8Array") headers["content-length"] = String(body.contentLength)
  if (stamped.signature !== "") {
    headers[SIGN] = stamped.signature
    headers[TIMESTAMP] = stamped.timestamp
  }
  return HttpClientRequest.makeWith(
    stamped.endpoint.method,
    get && stamped.payload !== "" ? `${base.url}?${stamped.payload}` : base.url,
    UrlParams.empty,
    Option.none(),
    headers as unknown as Headers.Headers,
    body
  )
}

const timedOut = (request: HttpClientRequest.HttpClientRequest) =>
  new HttpClientError.HttpClientError({
    reason: new HttpClientError.TransportError({ request, cause: new Cause.TimeoutError() })
  })

// The HTTP exchange and its answer: the answer read whole (at most `maxResponseBytes`, read as it arrives: a venue
// that sends an endless or huge body costs that much memory and no more) within `timeout` — on the Clock, or by the
// transport itself (`timeoutBy: "transport"`) — then checked (`answer`). An answer the transport hands over already
// read is checked in the same step. Fails with the transport's error as it is, which `reasonOf` maps (errors.ts reads
// both timeouts as "no answer within …").
const exchanged = (
  context: Context,
  fiber: Fiber.Fiber<unknown, unknown>,
  stamped: Stamped
): Effect.Effect<VenueResponse, SpotError.SpotErrorReason | HttpClientError.HttpClientError> => {
  const request = httpRequestOf(context, stamped)
  const { maxResponseBytes: max, timeout, timeoutBy } = context.options
  const read = Effect.flatMap(
    context.client.execute(request),
    (response): Effect.Effect<VenueResponse, SpotError.SpotErrorReason | HttpClientError.HttpClientError> => {
      if (context.refusesHere && Redirects.isRedirect(response.status)) return context.refused(response)
      if (response instanceof BufferedResponse && !response.isLargerThan(max)) {
        return answer(context, stamped, response)
      }
      return Effect.flatMap(readBody(response, max), (whole) => answer(context, stamped, whole))
    }
  )
  const bounded = timeoutBy === "transport"
    ? read
    : Effect.timeoutOrElse(read, { duration: timeout, orElse: () => Effect.fail(timedOut(request)) })
  // The credential headers redacted and fetch told not to follow redirects (redirects.ts): already so in the context
  // of a public operation (its span put them there, `enter`), otherwise in one change of the context.
  return entered(context, fiber.context)
    ? bounded
    : Effect.updateContext(bounded, (services) => enter(context, services))
}

// The context of a call with what its exchanges need: the credential headers among the redacted names, and fetch's
// init with redirects refused (redirects.ts).
const enter = (context: Context, services: EffectContext.Context<never>): EffectContext.Context<never> =>
  EffectContext.add(
    EffectContext.add(services, Headers.CurrentRedactedNames, context.redactedNames),
    FetchHttpClient.RequestInit,
    context.initFor(EffectContext.getOrUndefined(services, FetchHttpClient.RequestInit))
  )

const entered = (context: Context, services: EffectContext.Context<never>): boolean => {
  if (EffectContext.get(services, Headers.CurrentRedactedNames) !== context.redactedNames) return false
  const init = EffectContext.getOrUndefined(services, FetchHttpClient.RequestInit)
  return init !== undefined && context.initFor(init) === init
}

// A failure of the exchange as a reason: a transport's failure becomes one (errors.ts), the answer's are reasons.
const reasonOf = (
  context: Context,
  stamped: Stamped,
  error: SpotError.SpotErrorReason | HttpClientError.HttpClientError
): SpotError.SpotErrorReason =>
  error._tag === "HttpClientError"
    ? Errors.transportError(error, context.options.timeout, (text) => context.scrubber.scrub(text, stamped.signature))
    : error

// ---------------------------------------------------------------------------------------------------------------
// the stages together

// The wall clock's time on `fiber`, in ms.
const wallOf = (fiber: Fiber.Fiber<unknown, unknown>): number => fiber.getRef(Clock.Clock).currentTimeMillisUnsafe()

// After a failure: the clock learned from a refusal's time, the request counted by its reason, a 429 reported.
const failed = (
  context: Context,
  stamped: Stamped,
  reason: SpotError.SpotErrorReason
): Effect.Effect<never, SpotError.SpotErrorReason> =>
  Effect.withFiber((fiber) => {
    const now = RateLimiter.nowOf(fiber)
    if (stamped.signature !== "" && "requestTime" in reason) {
      context.clock.learn(reason.requestTime, stamped.sentMono, wallOf(fiber), now)
    }
    const { reporter } = context.options
    reporter.answered(fiber.context, stamped.endpoint, reason._tag, now - stamped.sentMono)
    const limited = Telemetry.tooManyRequests(reason)
    if (limited === undefined) return Effect.fail(reason)
    // A 429 reported, and the budgets it came from paused for every call (`Budget.Limiter.failed`, which fails with
    // the reason to fail with instead when the venue asks for a wait beyond the cap).
    const reported = reporter.rateLimited(stamped.endpoint, limited.retryAfterMillis)
    const { limiter } = context.options
    return Effect.andThen(
      limiter === undefined ? reported : Effect.andThen(reported, limiter.failed(stamped.endpoint, reason)),
      Effect.fail(reason)
    )
  })

// An exchange interrupted (the caller's timeout, a race lost, the program stopped) is counted and timed too, with the
// outcome `interrupted`: it was sent, and may have been applied; left out, a venue too slow for its callers would show
// no requests, and a latency of the fast answers alone. Its weights count too, as the budgets' store counts it.
const interrupted = (context: Context, fiber: Fiber.Fiber<unknown, unknown>, stamped: Stamped) =>
(
  exit: Exit.Exit<unknown, unknown>
): undefined => {
  if (Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause)) {
    const now = RateLimiter.nowOf(fiber)
    context.options.reporter.answered(fiber.context, stamped.endpoint, "interrupted", now - stamped.sentMono)
  }
  return undefined
}

/**
 * The exchange of a request under the rate limiter, while it is in flight: set when the exchange starts and cleared
 * when it is answered, so that the limiter's exit hook, which every such request passes anyway, counts it when it is
 * interrupted (`limited`). A request without a limiter has an exit hook of its own for that (two runtime steps).
 */
interface InFlight {
  readonly context: Context
  stamped: Stamped | undefined
}

// The stamped request sent and answered, on `fiber` (the fiber running the call, whose context is the call's again
// once the exchange is over): after an answer, the server's clock learned from its time (signed requests) and the
// request counted, in the step that answers; an exchange interrupted is counted when it ends (`interrupted`: by the
// limiter's exit hook through `flight`, or by a hook of its own).
const sentOn = (
  context: Context,
  fiber: Fiber.Fiber<unknown, unknown>,
  stamped: Stamped,
  flight: InFlight | undefined
): Effect.Effect<VenueResponse, SpotError.SpotErrorReason> => {
  const exchange = exchanged(context, fiber, stamped)
  if (flight !== undefined) flight.stamped = stamped
  if (stamped.handed !== undefined) stamped.handed()
  return Effect.matchEffect(
    flight === undefined ? Effect.onExitPrimitive(exchange, interrupted(context, fiber, stamped)) : exchange,
    {
      onSuccess: (response) => {
        if (flight !== undefined) flight.stamped = undefined
        const now = RateLimiter.nowOf(fiber)
        if (stamped.signature !== "") context.clock.learn(response.serverTime, stamped.sentMono, wallOf(fiber), now)
        context.options.reporter.answered(fiber.context, stamped.endpoint, "ok", now - stamped.sentMono)
        return Effect.succeed(response)
      },
      onFailure: (error) => {
        if (flight !== undefined) flight.stamped = undefined
        return failed(context, stamped, reasonOf(context, stamped, error))
      }
    }
  )
}

/** The request stamped, sent and answered; the server's clock learned back, the request reported. */
const sent = (
  context: Context,
  outgoing: Outgoing,
  flight: InFlight | undefined
): Effect.Effect<VenueResponse, SpotError.SpotErrorReason> =>
  Effect.withFiber((fiber) => {
    const clock = fiber.getRef(Clock.Clock)
    const stamped = stampAt(
      context,
      outgoing,
      clock.currentTimeMillisUnsafe(),
      RateLimiter.millisOf(clock.monotonicTimeNanosUnsafe())
    )
    return Effect.isEffect(stamped)
      ? Effect.flatMap(stamped, (signed) => sentOn(context, fiber, signed, flight))
      : sentOn(context, fiber, stamped, flight)
  })

/**
 * The exchange with a permit, settled however it ends: an unsettled permit keeps counting against the budget (until
 * its lease ends, in a shared store; for good, in memory). The settling is in place before the permit is asked for,
 * so that once the store has granted it, whatever ends the call (its answer, a failure, an interruption) settles it,
 * with no uninterruptible region; waiting for the permit stays interruptible. (A 429 pauses the budgets when it is
 * answered: `failed`.)
 *
 * A store that can grant at once (the memory store, `grantNow`) does so in the step that follows the settling's, and
 * the permit is settled without an Effect: an acquisition that does not wait costs no step of its own. One that waits
 * goes through the store's `acquire`; the memory store records each grant on the fiber in the step that makes it
 * (`RateLimiter.granted`), as the Redis store does its own, so that a call interrupted between that step and the one
 * that hands the permit over still settles what was granted, in Redis too.
 */
export const limited = <A>(
  limiter: Budget.Limiter | undefined,
  endpoint: Venue.Endpoint,
  run: Effect.Effect<A, SpotError.SpotErrorReason>,
  flight?: InFlight
): Effect.Effect<A, SpotError.SpotErrorReason> => {
  if (limiter === undefined) return run
  const grantNow = limiter.grantNow
  return Effect.withFiber((fiber) => {
    let permit: RateLimitStore.Permit | undefined
    let granted: RateLimiter.Settleable | undefined
    let grants: Array<RateLimitStore.Permit> | undefined
    return Effect.onExitPrimitive(
      Effect.suspend(() => {
        granted = grantNow?.(endpoint, RateLimiter.nowOf(fiber))
        if (granted !== undefined) return run
        const collecting = RateLimiter.collectGrants(fiber)
        grants = collecting
        return Effect.flatMap(limiter.acquire(endpoint), (acquired) => {
          RateLimiter.stopCollecting(fiber, collecting)
          grants = undefined
          permit = acquired
          return run
        })
      }),
      (exit) => {
        // An exchange cut off in flight is counted (`InFlight`).
        if (flight?.stamped !== undefined) interrupted(flight.context, fiber, flight.stamped)(exit)
        if (granted !== undefined) {
          granted.settleAt(RateLimiter.nowOf(fiber))
          return undefined
        }
        if (permit !== undefined) return permit.settle
        if (grants !== undefined) {
          // Ended while acquiring: whatever was granted on the way (after the wait, before the hand-over) is settled,
          // through `settle`, which for the Redis store settles its entry in Redis too.
          RateLimiter.stopCollecting(fiber, grants)
          if (grants.length > 0) return Effect.forEach(grants, (grant) => grant.settle, { discard: true })
        }
        return undefined
      }
    )
  })
}

/** One send of a request through every stage. */
export const execute = (
  context: Context,
  outgoing: Outgoing
): Effect.Effect<VenueResponse, SpotError.SpotErrorReason> => {
  const refusal = outgoing.endpoint.permission === undefined ? context.refusals.public : context.refusals.signed
  if (refusal !== undefined) return Effect.fail(refusal)
  const limiter = context.options.limiter
  const flight: InFlight | undefined = limiter === undefined ? undefined : { context, stamped: undefined }
  const run = sent(context, outgoing, flight)
  // Once the server's time was asked (or never is), a signed request has nothing to wait for. An attempt built before
  // that still waits for the ask through `context.sync`, then a no-op.
  const waits = outgoing.endpoint.permission !== undefined && context.sync !== Effect.void
  return limited(
    limiter,
    outgoing.endpoint,
    waits ? Effect.andThen(Effect.suspend(() => context.sync), run) : run,
    flight
  )
}

const decodeServerTime = Schema.decodeUnknownEffect(Market.ServerTime)

/**
 * Asks the server's time (ms); the clock offset moves by it like by any answer's time: from the round trip alone, not
 * the wait for a permit before it (a paused budget would put the estimate off by half the pause).
 */
const serverTimeOf = (context: Context): Effect.Effect<number, SpotError.SpotErrorReason> => {
  const outgoing: Outgoing = { endpoint: Venue.endpoints.serverTime, payload: "" }
  return Effect.flatMap(execute(context, outgoing), (response) =>
    decodeServerTime(response.payload).pipe(
      Effect.mapError((error) => response.schemaError(error)),
      Effect.tap((time) =>
        Effect.withFiber((fiber) =>
          Effect.succeed(context.clock.learn(time, response.sentMono, wallOf(fiber), RateLimiter.nowOf(fiber)))
        )
      )
    ))
}

/** The pipeline of one client. */
export const make = Effect.fnUntraced(function*(options: Options) {
  const signer = yield* Signer.Signer
  const platform = yield* HttpClient.HttpClient
  const scrubber = Errors.Scrubber.of(options.credentials, options.secrets)
  const refusing = yield* Redirects.refuse(platform, scrubber)
  // The caller's hooks over the platform's client, which never follows a redirect (redirects.ts). Without hooks, the
  // platform's client is called here and its answer checked as the refusing client would, in one step with the read.
  const transformed = options.transformClient === undefined ? undefined : options.transformClient(refusing.http)
  const context: Context = {
    options,
    client: transformed ?? platform,
    refusesHere: transformed === undefined,
    refused: refusing.refused,
    initFor: refusing.initFor,
    sign: emptySecretRefusal(options.credentials) === undefined
      ? yield* signer.prepare(options.credentials.secretKey)
      : unsigned,
    scrubber,
    redactedNames: yield* Effect.map(
      Effect.service(Headers.CurrentRedactedNames),
      (names) => [...names, ...Venue.credentialHeaders]
    ),
    bases: basesOf(options),
    refusals: refusalsOf(options),
    clock: new ServerClock(),
    sync: Effect.void
  }
  // The first signed request waits for one ask of the server's time, so that even it is stamped with the server's
  // clock; concurrent first requests share that ask. It is best effort: a failure leaves the offset to be learned
  // from answers (and a 40008 re-signs), and it is not asked again.
  if (options.syncTime) {
    context.sync = yield* Effect.cached(
      serverTimeOf(context).pipe(
        Effect.catch((reason) => Effect.logDebug(`spotkit: server time unavailable (${reason.message})`)),
        Effect.andThen(Effect.sync(() => {
          context.sync = Effect.void
        }))
      )
    )
  }
  return {
    /** Sends a request through the pipeline. */
    execute: (outgoing: Outgoing) => execute(context, outgoing),
    /**
     * A call's context with what its exchanges need (the credential headers redacted, redirects refused), put there
     * once per public operation by its span (call.ts `tracer`).
     */
    enter: (services: EffectContext.Context<never>) => enter(context, services),
    /** Asks the server's time (ms), and learns the clock offset from it. */
    serverTime: serverTimeOf(context),
    /** Current estimate of server time minus local time, in ms. */
    clockOffset: Effect.sync(() => context.clock.offset),
    /** The estimate, and how many answers have taught it so far (`ServerClock.learned`). */
    clockEstimate: Effect.sync((): Estimate => ({ offset: context.clock.offset, learned: context.clock.learned })),
    /**
     * Where a local moment lies on the venue's clock by the current estimates (`ServerClock.venueSpan`): a step of the
     * wall clock since the moment does not move it.
     */
    venueSpan: (at: Moment): Effect.Effect<Span> => Effect.sync(() => context.clock.venueSpan(at))
  }
})

/** The pipeline of one client. */
export type Pipeline = Effect.Success<ReturnType<typeof make>>
