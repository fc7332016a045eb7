// The answer stage of the pipeline (pipeline.ts): an HTTP answer, read whole, becomes a `VenueResponse` (the payload
// of a success and the server time it carried) or a `SpotErrorReason`. The body is parsed losslessly (Json.ts), the
// status and the envelope are checked (`Envelope.decodeStandard`, the transfer envelope), and every failure is mapped
// to a reason: HTTP statuses, garbled bodies, venue codes (`Venue.reasonOf`), a 429's `Retry-After` kept (budget.ts).
// Every text quoted is scrubbed of the credentials, the further secrets and the request's signature (errors.ts). Of
// the client and of the request it reads only what it needs (`Scrubbing`, `Sent`); the pipeline passes its own records.
import { Effect, Result, type Schema } from "effect"
import type { BufferedResponse } from "../../BufferedResponse.ts"
import * as Envelope from "../../Envelope.ts"
import * as Json from "../../Json.ts"
import type * as SpotError from "../../SpotError.ts"
import * as Venue from "../../Venue.ts"
import * as Budget from "./budget.ts"
import * as Errors from "./errors.ts"

/** What an answer reads of its client's context (pipeline.ts `Context`): the scrubber of the texts it quotes. */
export interface Scrubbing {
  readonly scrubber: Errors.Scrubber
}

/** What an answer reads of the request it answers (pipeline.ts `Stamped`). */
export interface Sent {
  readonly endpoint: Venue.Endpoint
  /** `ACCESS-SIGN`, scrubbed from every text quoted; empty for a public endpoint. */
  readonly signature: string
  /** The monotonic clock's time when stamped (ms). */
  readonly sentMono: number
}

/**
 * A venue's answer that passed the envelope check: the payload (the standard envelope's `data`, or the whole
 * transfer envelope), the server time it carried, and what a decoder needs to quote it safely.
 */
export class VenueResponse {
  readonly payload: unknown
  readonly serverTime: number | undefined
  readonly status: number
  readonly bodyText: string
  /** The monotonic clock's time (ms) when it was stamped. */
  readonly sentMono: number
  private readonly context: Scrubbing
  private readonly signature: string

  constructor(
    payload: unknown,
    serverTime: number | undefined,
    status: number,
    bodyText: string,
    context: Scrubbing,
    stamped: Sent
  ) {
    this.payload = payload
    this.serverTime = serverTime
    this.status = status
    this.bodyText = bodyText
    this.context = context
    this.sentMono = stamped.sentMono
    this.signature = stamped.signature
  }

  /** A text of the answer made safe for a message. */
  scrub(text: string): string {
    return this.context.scrubber.scrub(text, this.signature)
  }

  /**
   * A payload of the wrong shape, as a reason quoting the body's start; or, given a text, one of the right shape that
   * answers another request (the text says how).
   */
  schemaError(error: Schema.SchemaError | string): SpotError.DecodeError {
    return Errors.schemaError(
      error,
      (text, length) => this.context.scrubber.excerpt(text, length, this.signature),
      this.bodyText,
      this.status
    )
  }
}

const transferSuccess = (
  context: Scrubbing,
  stamped: Sent,
  response: BufferedResponse,
  parsed: { readonly code: unknown }
): VenueResponse | undefined => {
  if (stamped.endpoint.envelope !== "transfer" || String(parsed.code) !== Venue.TRANSFER_SUCCESS) return undefined
  const field = (parsed as { readonly timestamp?: unknown }).timestamp
  const serverTime = typeof field === "number" ? field : Number(field)
  return new VenueResponse(parsed, serverTime, response.status, response.bodyText, context, stamped)
}

/** The answer read: the payload of a success, or the reason of a failure, with every quoted text scrubbed. */
export const answer = (
  context: Scrubbing,
  stamped: Sent,
  response: BufferedResponse
): Effect.Effect<VenueResponse, SpotError.SpotErrorReason> => {
  const { status, bodyText: text } = response
  const scrub = (text: string) => context.scrubber.scrub(text, stamped.signature)
  const excerptOf = (text: string, length: number) => context.scrubber.excerpt(text, length, stamped.signature)
  const excerpt = (text: string) => excerptOf(text, Errors.EXCERPT)
  // An answer read by its status, as one without the venue's envelope (a proxy's or a load balancer's page): a 429
  // still says how long to wait.
  const byStatus = (kind: "json" | "schema", description: string) =>
    Budget.withRetryAfter(Errors.withoutEnvelope(status, kind, description, excerpt(text)), response.headers)
  const result = Result.try(() => Json.parse(text))
  // The parser's own message quotes the body; say only what and where.
  if (Result.isFailure(result)) {
    // A stack overflow (the only RangeError of a parse): arrays or objects nested deeper than the parser can follow.
    const what = result.failure instanceof RangeError ? "is nested too deeply to read" : "is not valid JSON"
    return byStatus("json", `the body (${text.length} characters) ${what}`)
  }
  const parsed = result.success
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed) || !("code" in parsed)) {
    return byStatus("schema", "expected an envelope object with a code")
  }
  const transfer = transferSuccess(context, stamped, response, parsed)
  if (transfer !== undefined) return Effect.succeed(transfer)
  const success = (envelope: Envelope.Standard) =>
    new VenueResponse(envelope.data, envelope.requestTime ?? undefined, status, text, context, stamped)
  // A plain success, as `decodeStandard`'s fast path reads it, is answered at once.
  const plain = Envelope.fastStandard(parsed)
  if (plain !== undefined && plain.code === Venue.SUCCESS) return Effect.succeed(success(plain))
  const ok = status >= 200 && status < 300
  return (plain === undefined ? Envelope.decodeStandard(parsed) : Effect.succeed(plain)).pipe(
    // An envelope of the wrong shape under an error status is a page of whatever answered (a gateway's, a proxy's),
    // read by its status as one without an envelope is: a 429 still says how long to wait, a 502 is retried.
    Effect.catch((error) =>
      ok
        ? Effect.fail(Errors.schemaError(error, excerptOf, text, status))
        : byStatus("schema", "an envelope of the wrong shape")
    ),
    Effect.flatMap((envelope) =>
      // A venue that writes its codes as JSON numbers (which `Standard` accepts) can write its success only as 0; under
      // an error status a 0 is no success (a gateway's page), but the status's failure.
      envelope.code === Venue.SUCCESS || (parsed.code === 0 && ok)
        ? Effect.succeed(success(envelope))
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
