// The protocol's vocabulary: a request as the transports hand it in, the outcome they carry back, and a refusal (the
// venue's code, its message from core's `Venue`, and its HTTP status) with the envelopes answers are written in.
import { Venue } from "@spotkit/core"

export interface WireRequest {
  readonly method: string
  /** Path with `?query`, as signed. */
  readonly path: string
  /** Header value by lower-case name. */
  readonly header: (name: string) => string | undefined
  readonly body: string
  /** The transport stopped reading a body larger than the limit. */
  readonly bodyTooLarge?: boolean | undefined
  readonly clientAddress: string
}

export type Outcome =
  | {
    readonly _tag: "Respond"
    readonly status: number
    readonly contentType: string
    readonly body: string
    readonly delayMillis: number
    /** Headers besides the content type (a 429's `Retry-After`). */
    readonly headers?: Readonly<Record<string, string>> | undefined
  }
  | { readonly _tag: "Drop"; readonly delayMillis: number }
  | { readonly _tag: "Hang" }

export const respond = (
  status: number,
  body: string,
  delayMillis = 0,
  contentType = "application/json",
  headers?: Readonly<Record<string, string>>
): Outcome => ({ _tag: "Respond", status, contentType, body, delayMillis, headers })

/** A refused request: the venue's code and message, and the HTTP status they come with. */
export class Refusal {
  readonly code: string
  readonly msg: string
  readonly status: number
  readonly headers: Readonly<Record<string, string>> | undefined
  constructor(code: string, msg: string, status = 400, headers?: Readonly<Record<string, string>>) {
    this.code = code
    this.msg = msg
    this.status = status
    this.headers = headers
  }
}

/** The venue's refusal for a code, with its message (naming `parameter`) and its status from `Venue.codes`. */
export const refusal = (code: string, parameter?: string): Refusal =>
  new Refusal(code, Venue.message(code, parameter), Venue.codes.get(code)?.status ?? 400)

const quote = JSON.stringify

/** The standard envelope `{code, msg, requestTime, data}` around `data`, which is JSON text. */
export const envelope = (code: string, msg: string, now: number, data: string): string =>
  `{"code":${quote(code)},"msg":${quote(msg)},"requestTime":${now},"data":${data}}`

/**
 * A success answer in the endpoint's envelope; `data` is JSON text. The transfer envelope has no `data`: `data` is a
 * JSON object whose fields go between its `code` and its `timestamp` (`{"id":…}` for a transfer, `{"total":…,"list":…}`
 * for the status list).
 */
export const success = (kind: Venue.Endpoint["envelope"], data: string, now: number): string =>
  kind === "transfer"
    ? `{"code":${quote(Venue.TRANSFER_SUCCESS)},${data.length > 2 ? data.slice(1, -1) + "," : ""}"timestamp":${now}}`
    : envelope(Venue.SUCCESS, Venue.SUCCESS_MSG, now, data)
