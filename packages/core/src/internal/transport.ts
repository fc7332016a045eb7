import type { Schema } from "effect"
import { Clock, Duration, Effect, identity, Redacted } from "effect"
import { Headers, HttpClient, type HttpClientError, HttpClientRequest } from "effect/http"
import * as Envelope from "../Envelope.ts"
import * as HttpTimeout from "../HttpTimeout.ts"
import * as Json from "../Json.ts"
import * as Signer from "../Signer.ts"
import * as SpotError from "../SpotError.ts"
import * as Fast from "./fast.ts"
import type * as RateLimiter from "./rateLimiter.ts"

// System error codes raised before a request could leave the machine: no connection was made, so the venue cannot
// have seen it. Anything later (a reset, a timeout after connecting) leaves the outcome unknown.
const NOT_SENT_CODES: ReadonlySet<string> = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_CONNECT_TIMEOUT"
])

/** The first system error code (`ECONNREFUSED`, ...) along an error's `cause` chain. */
const systemCode = (error: unknown): string | undefined => {
  let current: unknown = error
  for (let depth = 0; depth < 6 && typeof current === "object" && current !== null; depth++) {
    if ("code" in current && typeof current.code === "string" && /^[A-Z][A-Z0-9_]+$/.test(current.code)) {
      return current.code
    }
    current = "cause" in current ? current.cause : undefined
  }
  return undefined
}

const transportError = (error: HttpClientError.HttpClientError, scrub: (text: string) => string) => {
  const code = systemCode(error.reason.cause)
  return new SpotError.TransportError({
    description: scrub(`${error.reason._tag}: ${error.message}${code === undefined ? "" : ` (${code})`}`),
    notSent: code !== undefined && NOT_SENT_CODES.has(code)
  })
}

/**
 * Runs `use` with a permit of the endpoint's limiter, if it has one, and settles the permit however `use` ends:
 * an unsettled permit keeps counting against the budget (RateLimiter.Limiter). Waiting for the permit stays
 * interruptible; from the grant to the finalizer being in place, nothing can interrupt.
 */
const permitted = <A, E>(
  endpoint: Endpoint,
  use: (permit: RateLimiter.Permit | undefined) => Effect.Effect<A, E>
): Effect.Effect<A, E> => {
  const limiter = endpoint.limiter
  if (limiter === undefined) return use(undefined)
  return Effect.uninterruptibleMask((restore) =>
    Effect.flatMap(
      restore(limiter.acquire(endpoint.weight)),
      (permit) => Effect.ensuring(restore(use(permit)), permit.settle)
    )
  )
}

/** One endpoint: its path, which limiter it counts against, and its weight there. */
export interface Endpoint {
  readonly path: string
  readonly limiter: RateLimiter.Limiter | undefined
  readonly weight: number
  readonly envelope: "standard" | "transfer"
}

export interface TransportOptions {
  readonly baseUrl: string
  readonly credentials: Signer.Credentials
  readonly locale: string
  readonly timeout: Duration.Duration
}

export interface Transport {
  /**
   * Sends one signed request and answers the envelope's `data` (or the transfer envelope), decoded with `decode`.
   * Learns the server clock from every envelope; answers a 40008 by re-signing once with the corrected clock.
   */
  readonly call: <A>(
    endpoint: Endpoint,
    body: string,
    decode: (data: unknown, scrub: (text: string) => string) => Effect.Effect<A, Schema.SchemaError>,
    context?: { readonly clientOrderId?: string | undefined }
  ) => Effect.Effect<A, SpotError.SpotErrorReason>
  /** Current estimate of server time minus local time, in ms. */
  readonly clockOffset: Effect.Effect<number>
}

const EXCERPT = 160
const secretHeaders = ["access-key", "access-sign", "access-passphrase"]

export const make = Effect.fnUntraced(function*(options: TransportOptions) {
  const http = yield* HttpClient.HttpClient
  const signer = yield* Signer.Signer
  const sign = yield* signer.prepare(options.credentials.secretKey)
  const apiKey = Redacted.value(options.credentials.apiKey)
  const passphrase = Redacted.value(options.credentials.passphrase)
  const secrets = [apiKey, passphrase, Redacted.value(options.credentials.secretKey)].filter((s) => s.length >= 4)
  const redactedNames = yield* Effect.map(
    Effect.service(Headers.CurrentRedactedNames),
    (names) => [...names, ...secretHeaders]
  )

  // Server time minus local time, updated from every envelope that carries a plausible server time.
  let offset = 0

  // Texts from the network end up in error messages: never let a credential through, even if echoed, raw or
  // JSON-escaped.
  const forms = (secret: string) => {
    const escaped = JSON.stringify(secret).slice(1, -1)
    // Some servers also escape "/" (base64 signatures contain it).
    return [...new Set([secret, escaped, escaped.replaceAll("/", "\\/")])]
  }
  const secretForms = secrets.flatMap(forms)
  const scrub = (text: string, signature: string): string => {
    let out = text
    for (const secret of [...secretForms, ...forms(signature)]) {
      if (secret.length > 0 && out.includes(secret)) out = out.split(secret).join("<redacted>")
    }
    return out
  }

  // Only a plausible millisecond epoch (years 2001..2286) moves the offset: one answer with seconds, or garbage,
  // must not make every later request fail its timestamp check.
  const learn = (serverTime: number | null | undefined, sentAt: number, receivedAt: number) => {
    if (typeof serverTime === "number" && serverTime >= 1e12 && serverTime < 1e13) {
      offset = Math.round(serverTime - (sentAt + receivedAt) / 2)
    }
  }

  const decodeStandard = Fast.decoder(Envelope.Standard, Fast.standard)

  // The request timeout: an HttpClient that enforces it itself (HttpTimeout.ts) is told the bound, when one timer can
  // hold it; any other, or a longer bound, is raced against the clock (whose sleeps have no such limit).
  const timeoutMillis = Duration.toMillis(options.timeout)
  const noAnswer = () =>
    new SpotError.TransportError({ description: `no answer within ${Duration.format(options.timeout)}` })
  const bounded: <A>(
    exchange: Effect.Effect<A, HttpClientError.HttpClientError>
  ) => Effect.Effect<A, HttpClientError.HttpClientError | SpotError.TransportError> =
    HttpTimeout.isEnforcing(http) && timeoutMillis <= HttpTimeout.maxMillis
      ? Effect.provideService(HttpTimeout.Timeout, timeoutMillis)
      : Effect.timeoutOrElse({ duration: options.timeout, orElse: () => Effect.fail(noAnswer()) })

  // The parts of a request that never change, built once per path; each call adds its signature and timestamp.
  const baseRequests = new Map<string, HttpClientRequest.HttpClientRequest>()
  const baseRequest = (path: string): HttpClientRequest.HttpClientRequest => {
    let request = baseRequests.get(path)
    if (request === undefined) {
      request = HttpClientRequest.post(options.baseUrl + path).pipe(
        HttpClientRequest.setHeaders({
          [Signer.headerNames.key]: apiKey,
          [Signer.headerNames.passphrase]: passphrase,
          [Signer.headerNames.locale]: options.locale,
          "Content-Type": "application/json"
        })
      )
      baseRequests.set(path, request)
    }
    return request
  }

  const once = <A>(
    endpoint: Endpoint,
    body: string,
    decode: (data: unknown, scrub: (text: string) => string) => Effect.Effect<A, Schema.SchemaError>,
    clientOrderId: string | undefined
  ): Effect.Effect<A, SpotError.SpotErrorReason> =>
    permitted(endpoint, (permit) =>
      Effect.gen(function*() {
        const sentAt = yield* Clock.currentTimeMillis
        // TestClock (and jittered sleeps) can yield fractional millis; the venue wants an integer.
        const timestamp = String(Math.round(sentAt + offset))
        const signature = yield* sign(Signer.prehash(timestamp, "POST", endpoint.path, body))
        const request = HttpClientRequest.bodyText(
          HttpClientRequest.setHeaders(baseRequest(endpoint.path), {
            [Signer.headerNames.sign]: signature,
            [Signer.headerNames.timestamp]: timestamp
          }),
          body,
          "application/json"
        )
        const exchange = Effect.flatMap(
          http.execute(request),
          (response) => Effect.map(response.text, (text) => ({ status: response.status, text }))
        )
        const { status, text } = yield* exchange.pipe(
          Effect.provideService(Headers.CurrentRedactedNames, redactedNames),
          // Once answered (or failed), the request counts against the budget from now: see RateLimiter.Limiter.
          permit === undefined ? identity : Effect.ensuring(permit.settle),
          bounded,
          Effect.mapError((error) =>
            error instanceof SpotError.TransportError
              ? error
              : error.reason._tag === "TransportError" && error.reason.cause instanceof HttpTimeout.TimeoutError
              ? noAnswer()
              : transportError(error, (text) => scrub(text, signature))
          )
        )
        const receivedAt = yield* Clock.currentTimeMillis
        // Texts that can end up in messages are scrubbed of credentials before they are cut to an excerpt (so no
        // fragment survives at the cut). The data itself is never scrubbed: a short passphrase may be a substring of
        // a price.
        const excerptOf = (text: string) => scrub(text, signature).slice(0, EXCERPT)
        const scrubText = (text: string) => scrub(text, signature)

        // An answer that is not a venue envelope: rate limited, a garbled success, or an HTTP failure page.
        const withoutEnvelope = (kind: "json" | "schema", description: string): SpotError.SpotErrorReason =>
          status === 429
            ? new SpotError.RateLimitError({ code: "429", msg: "Too Many Requests", httpStatus: status })
            : status >= 200 && status < 300
            ? new SpotError.DecodeError({ kind, description, excerpt: excerptOf(text), httpStatus: status })
            : new SpotError.HttpStatusError({ httpStatus: status, excerpt: excerptOf(text) })

        const parsed = yield* Effect.try({
          try: () => Json.parse(text),
          // The parser's own message quotes the body; say only what and where.
          catch: () => withoutEnvelope("json", `the body (${text.length} characters) is not valid JSON`)
        })

        const schemaError = (error: Schema.SchemaError) =>
          new SpotError.DecodeError({
            kind: "schema",
            description: error.message.slice(0, 400),
            excerpt: excerptOf(text),
            httpStatus: status
          })

        const isObject = typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
        if (!isObject || !("code" in parsed)) {
          return yield* Effect.fail(withoutEnvelope("schema", "expected an envelope object with a code"))
        }

        if (endpoint.envelope === "transfer" && String(parsed.code) === Envelope.TRANSFER_SUCCESS) {
          const timestampField = (parsed as { readonly timestamp?: unknown }).timestamp
          learn(typeof timestampField === "number" ? timestampField : Number(timestampField), sentAt, receivedAt)
          return yield* Effect.mapError(decode(parsed, scrubText), schemaError)
        }

        const envelope = yield* Effect.mapError(decodeStandard(parsed), schemaError)
        learn(envelope.requestTime, sentAt, receivedAt)
        if (envelope.code !== Envelope.SUCCESS) {
          return yield* Effect.fail(SpotError.fromVenue({
            code: envelope.code,
            msg: scrubText(envelope.msg ?? ""),
            requestTime: envelope.requestTime ?? undefined,
            httpStatus: status,
            clientOrderId
          }))
        }
        return yield* Effect.mapError(decode(envelope.data, scrubText), schemaError)
      }))

  const call: Transport["call"] = (endpoint, body, decode, context) => {
    const attempt = once(endpoint, body, decode, context?.clientOrderId)
    // 40008: the answer carried the server time, so the offset is corrected; sign again once with it.
    return Effect.catchIf(attempt, (reason) => reason._tag === "TimestampError", () => attempt)
  }

  return { call, clockOffset: Effect.sync(() => offset) } satisfies Transport
})
