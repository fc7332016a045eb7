// The client's HTTP pipeline: one HttpClient, built once per client from the platform's, by stages that each do one
// thing. A request passes them outermost first:
//
//   limit    waits for the endpoint's rate-limit permit; the request counts while in flight and from its answer on;
//            a 429 pauses the shared budgets
//   sign     stamps the request with the clock corrected by the server's, signs it (never twice the same signature),
//            learns the server's clock back; before the client's first signed request, asks the server's time once
//            (best effort)
//   answer   checks status and envelope, maps every failure to a reason, scrubs what it quotes
//   timeout  bounds the exchange on the Clock (unless the transport bounds it itself: `timeoutBy: "transport"`)
//   read     reads the body into memory, at most `maxResponseBytes` of it (BufferedResponse.read)
//   the caller's `transformClient`, then redirects refused (redirects.ts), over the platform's HttpClient
//
// What comes out is a `VenueResponse` (the envelope's payload, the server time) or a `SpotErrorReason`. Retries are
// not here: a retry runs the whole pipeline again (retry.ts), so it waits for a permit and is signed afresh.
import { Cause, Clock, type Duration, Effect, identity, Redacted, Result, Schema } from "effect"
import { Headers, HttpClient, HttpClientError, HttpClientRequest, type HttpClientResponse } from "effect/http"
import { BufferedResponse, read as readBody } from "../BufferedResponse.ts"
import * as Envelope from "../Envelope.ts"
import * as Json from "../Json.ts"
import * as Market from "../Market.ts"
import * as Signer from "../Signer.ts"
import type * as SpotError from "../SpotError.ts"
import * as Venue from "../Venue.ts"
import * as Budget from "./budget.ts"
import * as Errors from "./errors.ts"
import * as Redirects from "./redirects.ts"

export interface Options {
  readonly baseUrl: string
  readonly credentials: Signer.Credentials
  readonly locale: string
  readonly timeout: Duration.Duration
  /** Who bounds an exchange by `timeout`: the pipeline, on the Clock, or the transport itself. */
  readonly timeoutBy: "client" | "transport"
  /** The largest body read; a larger answer fails with a `ResponseTooLargeError`. */
  readonly maxResponseBytes: number
  /** The budgets the client charges; none when limiting is off. */
  readonly limiter: Budget.Limiter | undefined
  /** Whether the server's time is asked for before the first signed request. */
  readonly syncTime: boolean
  /** Applied to the platform's client, beneath every stage (`SpotClient.Options.transformClient`). */
  readonly transformClient?: ((client: HttpClient.HttpClient) => HttpClient.HttpClient) | undefined
}

/**
 * A venue's answer that passed the envelope check: the payload (the standard envelope's `data`, or the whole
 * transfer envelope) and the server time it carried.
 */
export class VenueResponse extends BufferedResponse {
  readonly payload: unknown
  readonly serverTime: number | undefined
  private readonly scrubber: Errors.Scrubber
  private readonly signature: string

  constructor(
    response: HttpClientResponse.HttpClientResponse,
    text: string,
    payload: unknown,
    serverTime: number | undefined,
    scrubber: Errors.Scrubber,
    signature: string
  ) {
    super({ request: response.request, url: response.url, status: response.status, headers: {}, body: text })
    this.payload = payload
    this.serverTime = serverTime
    this.scrubber = scrubber
    this.signature = signature
  }

  /** A text of the answer made safe for a message. */
  scrub(text: string): string {
    return this.scrubber.scrub(text, this.signature)
  }

  /** A payload of the wrong shape, as a reason quoting the body's start. */
  schemaError(error: Schema.SchemaError): SpotError.DecodeError {
    return Errors.schemaError(
      error,
      (text, length) => this.scrubber.excerpt(text, length, this.signature),
      this.bodyText,
      this.status
    )
  }
}

type Next<E> = (request: HttpClientRequest.HttpClientRequest) => Effect.Effect<HttpClientResponse.HttpClientResponse, E>

// One stage around an HttpClient: `f` gets each request and the inner client's `execute`, to call (or not) with the
// same or another request.
const stage = <E, E2>(
  inner: HttpClient.HttpClient.With<E>,
  f: (request: HttpClientRequest.HttpClientRequest, next: Next<E>) => Effect.Effect<
    HttpClientResponse.HttpClientResponse,
    E2
  >
): HttpClient.HttpClient.With<E2> =>
  HttpClient.makeWith(
    (effect) => Effect.flatMap(effect, (request) => f(request, inner.execute)),
    Effect.succeed as HttpClient.HttpClient.Preprocess<never, never>
  )

const decodeStandard = Envelope.decodeStandard
const decodeServerTime = Schema.decodeUnknownEffect(Market.ServerTime)

const bodyOf = (request: HttpClientRequest.HttpClientRequest): string =>
  request.body._tag === "Uint8Array" ? request.body.text ?? new TextDecoder().decode(request.body.body) : ""

const signHeader = Venue.headers.sign.toLowerCase()

// How many signatures a client remembers to never send one twice (a few milliseconds of requests at any rate).
const RECENT_SIGNATURES = 4096

/** The pipeline of one client. */
export const make = Effect.fnUntraced(function*(options: Options) {
  const http = (options.transformClient ?? identity)(
    yield* Redirects.refuse(yield* HttpClient.HttpClient, options.credentials)
  )
  const signer = yield* Signer.Signer
  const sign = yield* signer.prepare(options.credentials.secretKey)
  const scrubber = Errors.Scrubber.of(options.credentials)
  const redactedNames = yield* Effect.map(
    Effect.service(Headers.CurrentRedactedNames),
    (names) => [...names, ...Venue.credentialHeaders]
  )

  // The endpoint of a request, by its URL without the query.
  const byUrl = new Map<string, Venue.Endpoint>()
  for (const endpoint of Object.values(Venue.endpoints)) byUrl.set(options.baseUrl + endpoint.path, endpoint)
  const endpointOf = (request: HttpClientRequest.HttpClientRequest): Venue.Endpoint | undefined => {
    const query = request.url.indexOf("?")
    return byUrl.get(query < 0 ? request.url : request.url.slice(0, query))
  }

  // The parts of a request that never change, built once per endpoint; each call adds its body, signature and
  // timestamp.
  const bases = new Map<string, HttpClientRequest.HttpClientRequest>()
  for (const endpoint of Object.values(Venue.endpoints)) {
    const headers: Record<string, string> = {
      [Venue.headers.locale]: options.locale,
      "Content-Type": "application/json"
    }
    if (endpoint.permission !== undefined) {
      headers[Venue.headers.key] = Redacted.value(options.credentials.apiKey)
      headers[Venue.headers.passphrase] = Redacted.value(options.credentials.passphrase)
    }
    bases.set(
      endpoint.name,
      HttpClientRequest.make(endpoint.method)(options.baseUrl + endpoint.path).pipe(
        HttpClientRequest.setHeaders(headers)
      )
    )
  }

  // --- read: the answer in memory, at most `maxResponseBytes` of its body, read as it arrives: a venue that sends an
  // endless or huge body costs that much memory and no more (a transport that buffers stops at the limit itself).
  const read = stage(
    http,
    (request, next) => Effect.flatMap(next(request), (response) => readBody(response, options.maxResponseBytes))
  )

  // --- timeout: the exchange (answer read whole) within `timeout`, or a TransportError caused by a TimeoutError, as
  // a transport that bounds it itself fails (errors.ts reads both as "no answer within …").
  const bounded: HttpClient.HttpClient = options.timeoutBy === "transport" ?
    read :
    stage(read, (request, next) =>
      Effect.timeoutOrElse(next(request), {
        duration: options.timeout,
        orElse: () =>
          Effect.fail(
            new HttpClientError.HttpClientError({
              reason: new HttpClientError.TransportError({ request, cause: new Cause.TimeoutError() })
            })
          )
      }))

  // --- answer
  const answered = stage(bounded, (request, next) => {
    const signature = request.headers[signHeader] ?? ""
    const scrub = (text: string) => scrubber.scrub(text, signature)
    const excerptOf = (text: string, length: number) => scrubber.excerpt(text, length, signature)
    return next(request).pipe(
      Effect.provideService(Headers.CurrentRedactedNames, redactedNames),
      Effect.mapError((error) => Errors.transportError(error, options.timeout, scrub)),
      // The read stage made every answer a BufferedResponse.
      Effect.flatMap((response) =>
        interpret(request, response, (response as BufferedResponse).bodyText, signature, excerptOf, scrub)
      )
    )
  })

  const interpret = (
    request: HttpClientRequest.HttpClientRequest,
    response: HttpClientResponse.HttpClientResponse,
    text: string,
    signature: string,
    excerptOf: (text: string, length: number) => string,
    scrub: (text: string) => string
  ): Effect.Effect<VenueResponse, SpotError.SpotErrorReason> => {
    const status = response.status
    const excerpt = (text: string) => excerptOf(text, Errors.EXCERPT)
    const result = Result.try(() => Json.parse(text))
    if (Result.isFailure(result)) {
      // The parser's own message quotes the body; say only what and where.
      return Effect.fail(
        Errors.withoutEnvelope(status, "json", `the body (${text.length} characters) is not valid JSON`, excerpt(text))
      )
    }
    const parsed = result.success
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed) || !("code" in parsed)) {
      return Effect.fail(
        Errors.withoutEnvelope(status, "schema", "expected an envelope object with a code", excerpt(text))
      )
    }
    const endpoint = endpointOf(request)
    if (endpoint?.envelope === "transfer" && String(parsed.code) === Venue.TRANSFER_SUCCESS) {
      const field = (parsed as { readonly timestamp?: unknown }).timestamp
      const serverTime = typeof field === "number" ? field : Number(field)
      return Effect.succeed(new VenueResponse(response, text, parsed, serverTime, scrubber, signature))
    }
    return decodeStandard(parsed).pipe(
      Effect.mapError((error) => Errors.schemaError(error, excerptOf, text, status)),
      Effect.flatMap((envelope) =>
        envelope.code === Venue.SUCCESS
          ? Effect.succeed(
            new VenueResponse(response, text, envelope.data, envelope.requestTime ?? undefined, scrubber, signature)
          )
          : Budget.withRetryAfter(
            Venue.reasonOf({
              code: scrub(envelope.code),
              msg: scrub(envelope.msg ?? ""),
              requestTime: envelope.requestTime ?? undefined,
              httpStatus: status
            }),
            response.headers
          )
      )
    )
  }

  // --- sign: server time minus local time, learned from every answer that carries a plausible server time.
  let offset = 0
  // Only a plausible millisecond epoch (years 2001..2286) moves the offset: one answer with seconds, or garbage,
  // must not make every later request fail its timestamp check.
  const learn = (serverTime: number | undefined, sentAt: number) =>
    Effect.map(Clock.currentTimeMillis, (receivedAt) => {
      if (serverTime !== undefined && serverTime >= 1e12 && serverTime < 1e13) {
        offset = Math.round(serverTime - (sentAt + receivedAt) / 2)
      }
    })

  // Signatures sent lately. The venue may refuse an exact replay (same key, timestamp and signature) of a request, so
  // two equal requests within one millisecond (a retry without delay, two equal transfers) must not be signed alike:
  // the second is stamped a millisecond later.
  const recent = new Set<string>()
  const sent: Array<string> = []
  let oldest = 0
  const remember = (signature: string) => {
    if (sent.length < RECENT_SIGNATURES) sent.push(signature)
    else {
      recent.delete(sent[oldest]!)
      sent[oldest] = signature
      oldest = (oldest + 1) % RECENT_SIGNATURES
    }
    recent.add(signature)
  }
  const signOnce = (
    millis: number,
    method: string,
    requestPath: string,
    body: string
  ): Effect.Effect<readonly [timestamp: string, signature: string]> => {
    const timestamp = String(millis)
    return Effect.flatMap(sign(Venue.prehash(timestamp, method, requestPath, body)), (signature) => {
      if (recent.has(signature)) return signOnce(millis + 1, method, requestPath, body)
      remember(signature)
      return Effect.succeed([timestamp, signature] as const)
    })
  }

  // The first signed request waits for one ask of the server's time (`sync`, below), so that even it is stamped with
  // the server's clock; concurrent first requests share that ask. It is best effort: a failure leaves the offset to
  // be learned from answers (and a 40008 re-signs), and it is not asked again.
  let synced = !options.syncTime
  let sync: Effect.Effect<void> = Effect.void

  const signed = stage(answered, (request, next) => {
    const endpoint = endpointOf(request)
    if (endpoint?.permission === undefined) return next(request)
    const send = Effect.flatMap(Clock.currentTimeMillis, (sentAt) => {
      const requestPath = request.url.slice(options.baseUrl.length)
      return Effect.flatMap(
        // TestClock (and jittered sleeps) can yield fractional millis; the venue wants an integer.
        signOnce(Math.round(sentAt + offset), request.method, requestPath, bodyOf(request)),
        ([timestamp, sig]) =>
          next(HttpClientRequest.setHeaders(request, {
            [Venue.headers.sign]: sig,
            [Venue.headers.timestamp]: timestamp
          })).pipe(
            Effect.tap((response) => learn((response as VenueResponse).serverTime, sentAt)),
            Effect.tapError((reason) => learn("requestTime" in reason ? reason.requestTime : undefined, sentAt))
          )
      )
    })
    return synced ? send : Effect.andThen(sync, send)
  })

  // --- limit: runs the exchange with a permit and settles it however the exchange ends: an unsettled permit keeps
  // counting against the budget (RateLimiter.Limiter). Waiting stays interruptible; from the grant to the finalizer
  // being in place, nothing can interrupt. A 429 pauses the budgets for every call (Budget.Limiter.failed).
  const limiter = options.limiter
  const limited = limiter === undefined ? signed : stage(signed, (request, next) => {
    const endpoint = endpointOf(request)
    if (endpoint === undefined) return next(request)
    return Effect.uninterruptibleMask((restore) =>
      Effect.flatMap(
        restore(limiter.acquire(endpoint)),
        (permit) => Effect.ensuring(restore(next(request)), permit.settle)
      )
    ).pipe(Effect.tapError((reason) => limiter.failed(endpoint, reason)))
  })

  const client = limited as HttpClient.HttpClient.With<SpotError.SpotErrorReason>
  const execute = (request: HttpClientRequest.HttpClientRequest) =>
    client.execute(request) as Effect.Effect<VenueResponse, SpotError.SpotErrorReason>

  // One ask of the server's time, which moves the offset like any answer's time does.
  const timeRequest = bases.get(Venue.endpoints.serverTime.name)!
  const serverTime = Effect.flatMap(Clock.currentTimeMillis, (sentAt) =>
    execute(timeRequest).pipe(
      Effect.flatMap((response) =>
        Effect.mapError(decodeServerTime(response.payload), (error) => response.schemaError(error))
      ),
      Effect.tap((time) => learn(time, sentAt))
    ))
  sync = yield* Effect.cached(
    serverTime.pipe(
      Effect.catch((reason) => Effect.logDebug(`spotkit: server time unavailable (${reason.message})`)),
      Effect.andThen(Effect.sync(() => {
        synced = true
      }))
    )
  )

  return {
    client,
    /**
     * A request to an endpoint: for a POST, `payload` is its body (JSON text); for a GET, its query string (without
     * `?`; empty for none), which is sent in the URL as is and signed as sent (spec-extended §0).
     */
    request: (endpoint: Venue.Endpoint, payload: string): HttpClientRequest.HttpClientRequest => {
      const base = bases.get(endpoint.name)!
      return endpoint.method === "GET"
        ? payload === "" ? base : HttpClientRequest.setUrl(base, `${base.url}?${payload}`)
        : HttpClientRequest.bodyText(base, payload, "application/json")
    },
    /** Sends a request through the pipeline. */
    execute,
    /** Asks the server's time (ms), and learns the clock offset from it. */
    serverTime,
    /** Current estimate of server time minus local time, in ms. */
    clockOffset: Effect.sync(() => offset)
  }
})

/** The pipeline of one client. */
export type Pipeline = Effect.Success<ReturnType<typeof make>>
