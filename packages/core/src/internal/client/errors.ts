// How a failed exchange becomes a SpotError reason, and how texts from the network are made safe to show: the one
// place that reads HTTP failures, statuses and envelopes into reasons, and that scrubs credentials from what it
// quotes. Used by the answer stage of the pipeline (answer.ts) and by decoding (a schema failure on a payload).
import { Cause, Duration, type Schema } from "effect"
import type { HttpClientError } from "effect/http"
import * as SpotError from "../../SpotError.ts"
import * as Venue from "../../Venue.ts"

/**
 * The codes of Node's errors (TypeErrors) for a header name or value it refuses, which `http.request` throws before
 * writing anything (and `ws` builds its handshake with it).
 */
export const HEADER_REFUSAL_CODES: ReadonlySet<unknown> = new Set([
  "ERR_INVALID_CHAR",
  "ERR_INVALID_HTTP_TOKEN",
  "ERR_HTTP_INVALID_HEADER_VALUE"
])

// System error codes raised before a request could leave the machine: no connection was made, or the HTTP client
// refused the request as given (undici's invalid argument, Node's refusal of a header), so the venue cannot have seen
// it. Anything later (a reset, a timeout after connecting) leaves the outcome unknown.
const NOT_SENT_CODES: ReadonlySet<unknown> = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_INVALID_ARG",
  ...HEADER_REFUSAL_CODES
])

// Codes of an HTTP client that was closed (undici's pool destroyed or closed when its layer's scope ended): every attempt
// fails at once, so none is retried. A request in flight when it closed may have reached the venue.
const CLOSED_CODES: ReadonlySet<unknown> = new Set(["UND_ERR_DESTROYED", "UND_ERR_CLOSED"])

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

/** How long an excerpt of a body may be in a message. */
export const EXCERPT = 160

// Credentials are removed from texts that came over the network, in every form a server may echo them (SafeText).
// Data is never scrubbed by the client, only texts that end up in messages: a short passphrase may be part of a price.
export { Scrubber } from "../../SafeText.ts"

/**
 * An HTTP client failure (no answer, a reset, the request's deadline) as a `TransportError`. A timeout reads "no
 * answer within …" whether the pipeline's clock or the transport itself (NodeSpotClient) ended it. A body larger than
 * the client reads is the `ResponseTooLargeError` that the reading (BufferedResponse.read) or a transport that
 * stopped at the limit gave as the cause; a redirect, the `RedirectError` that redirects.ts gave as the cause.
 */
export const transportError = (
  error: HttpClientError.HttpClientError,
  timeout: Duration.Duration,
  scrub: (text: string) => string
): SpotError.TransportError | SpotError.ResponseTooLargeError | SpotError.RedirectError => {
  const cause = error.reason.cause
  if (cause instanceof SpotError.ResponseTooLargeError || cause instanceof SpotError.RedirectError) return cause
  if (error.reason._tag === "TransportError" && Cause.isTimeoutError(error.reason.cause)) {
    return new SpotError.TransportError({ description: `no answer within ${Duration.format(timeout)}` })
  }
  const code = systemCode(error.reason.cause)
  const text = failureText(error.reason)
  const closed = code !== undefined && CLOSED_CODES.has(code)
  return new SpotError.TransportError({
    description: scrub(
      (code === undefined || text.includes(code) ? text : `${text} (${code})`) +
        (closed ? "; the HTTP client was closed (its layer released): not retried" : "")
    ),
    notSent: code !== undefined && NOT_SENT_CODES.has(code),
    ...(closed ? { closed } : {})
  })
}

// What failed, said once (`TransportError.message` already says "transport failure"): for a transport failure, the HTTP
// client's description of it, or its cause's message (platform-node's clients give only the cause), then the request;
// for another failure of the request (a URL or a body that cannot be encoded), the HTTP client's own message, which
// names its kind.
const failureText = (reason: HttpClientError.HttpClientError["reason"]): string => {
  if (reason._tag !== "TransportError") return reason.message
  const cause = reason.cause instanceof Error && reason.cause.message !== "" ? reason.cause.message : undefined
  return `${reason.description ?? cause ?? "the request failed"} (${reason.methodAndUrl})`
}

/** An answer that is not a venue envelope: rate limited, a garbled success, or an HTTP failure page. */
export const withoutEnvelope = (
  status: number,
  kind: "json" | "schema",
  description: string,
  excerpt: string
): SpotError.SpotErrorReason =>
  status === 429
    ? new SpotError.RateLimitError({ code: "429", msg: Venue.message("429"), httpStatus: status })
    : status >= 200 && status < 300
    ? new SpotError.DecodeError({ kind, description, excerpt, httpStatus: status })
    : new SpotError.HttpStatusError({ httpStatus: status, excerpt })

/**
 * A payload or envelope of the wrong shape (or, given a text, of the right shape answering another request). The
 * Schema's message quotes the payload, so it is made safe as the body's excerpt is: `excerptOf(text, length)` answers
 * the scrubbed start of a text.
 */
export const schemaError = (
  error: Schema.SchemaError | string,
  excerptOf: (text: string, length: number) => string,
  body: string,
  status: number
): SpotError.DecodeError =>
  new SpotError.DecodeError({
    kind: "schema",
    description: excerptOf(typeof error === "string" ? error : error.message, 400),
    excerpt: excerptOf(body, EXCERPT),
    httpStatus: status
  })
