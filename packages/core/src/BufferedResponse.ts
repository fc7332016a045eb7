/**
 * An `HttpClientResponse` whose body is already in memory, as bytes or as text. The venue's answers are small
 * and read whole, so an `HttpClient` that collects the body itself (`@spotkit/node`'s undici client, the test
 * exchange's in-process client) hands it over in one of these: no web `Response`, no streams, no copies. The text is
 * decoded once, when first read. `read` makes one of any response, reading at most a given number of bytes of its
 * body: how the client bounds what a venue can make it hold in memory.
 *
 * @since 0.1.0
 */
import { Effect, Inspectable, Option, Stream } from "effect"
import { Cookies, Headers, HttpClientError, HttpClientResponse, HttpIncomingMessage, UrlParams } from "effect/http"
import type { HttpClientRequest } from "effect/http"
import { pipeArguments } from "effect/Pipeable"
import * as SpotError from "./SpotError.ts"

const encoder = new TextEncoder()
const decoder = new TextDecoder()

/**
 * Header values as a transport has them: a record of strings (or lists of strings, as Node gives `set-cookie`).
 *
 * @since 0.1.0
 * @category models
 */
export type HeadersInput = Readonly<Record<string, string | ReadonlyArray<string> | undefined>>

/**
 * @since 0.1.0
 * @category models
 */
export class BufferedResponse extends Inspectable.Class implements HttpClientResponse.HttpClientResponse {
  readonly [HttpIncomingMessage.TypeId]: typeof HttpIncomingMessage.TypeId = HttpIncomingMessage.TypeId
  readonly [HttpClientResponse.TypeId]: typeof HttpClientResponse.TypeId = HttpClientResponse.TypeId
  readonly request: HttpClientRequest.HttpClientRequest
  readonly url: string
  readonly status: number
  readonly remoteAddress: Option.Option<string>
  private readonly source: HeadersInput
  private body: Uint8Array | string

  constructor(options: {
    readonly request: HttpClientRequest.HttpClientRequest
    readonly status: number
    readonly headers: HeadersInput
    readonly body: Uint8Array | string
    /** @default the request's URL */
    readonly url?: string | undefined
    readonly remoteAddress?: string | undefined
  }) {
    super()
    this.request = options.request
    this.url = options.url ?? options.request.url
    this.status = options.status
    this.source = options.headers
    this.body = options.body
    this.remoteAddress = Option.fromUndefinedOr(options.remoteAddress)
  }

  /**
   * The body as text, decoded (as UTF-8) once.
   *
   * @since 0.1.0
   */
  get bodyText(): string {
    if (typeof this.body !== "string") this.body = decoder.decode(this.body)
    return this.body
  }

  /**
   * The body's size in bytes.
   *
   * @since 0.1.0
   */
  get byteLength(): number {
    return typeof this.body === "string" ? utf8Length(this.body) : this.body.byteLength
  }

  /**
   * Whether the body is larger than `bytes`; for a text, without counting its bytes unless its length leaves it
   * open (a character is one to three bytes).
   *
   * @since 0.1.0
   */
  isLargerThan(bytes: number): boolean {
    if (typeof this.body !== "string") return this.body.byteLength > bytes
    if (this.body.length > bytes) return true
    return this.body.length * 3 > bytes && utf8Length(this.body) > bytes
  }

  // Built when read: the client reads the status and the text, rarely the headers.
  get headers(): Headers.Headers {
    return Headers.fromInput(this.source as Headers.Input)
  }

  get cookies(): Cookies.Cookies {
    const header = this.source["set-cookie"]
    return header === undefined ? Cookies.empty : Cookies.fromSetCookie(header)
  }

  get text(): Effect.Effect<string, HttpClientError.HttpClientError> {
    return Effect.sync(() => this.bodyText)
  }

  get json(): Effect.Effect<never, HttpClientError.HttpClientError> {
    return Effect.flatMap(this.text, (text) =>
      Effect.try({
        try: () => (text === "" ? null : JSON.parse(text)) as never,
        catch: (cause) => this.decodeError(cause)
      }))
  }

  get arrayBuffer(): Effect.Effect<ArrayBuffer, HttpClientError.HttpClientError> {
    return Effect.sync(() => {
      const bytes = this.bytes()
      return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer
    })
  }

  get stream(): Stream.Stream<Uint8Array, HttpClientError.HttpClientError> {
    return Stream.suspend(() => Stream.succeed(this.bytes()))
  }

  get urlParamsBody(): Effect.Effect<UrlParams.UrlParams, HttpClientError.HttpClientError> {
    return Effect.flatMap(this.text, (text) =>
      Effect.try({
        // A leading "?" is form data; URLSearchParams would drop it as a query prefix.
        try: () => UrlParams.fromInput(new URLSearchParams(text.replace(/^\?/, "%3F"))),
        catch: (cause) => this.decodeError(cause)
      }))
  }

  get formData(): Effect.Effect<FormData, HttpClientError.HttpClientError> {
    return Effect.tryPromise({
      try: () => new Response(this.bytes().slice(), { headers: this.headers }).formData(),
      catch: (cause) => this.decodeError(cause)
    })
  }

  get upgrade(): Effect.Effect<never, HttpClientError.HttpClientError> {
    return Effect.fail(
      new HttpClientError.HttpClientError({
        reason: new HttpClientError.StatusCodeError({
          request: this.request,
          response: this,
          description: "the request did not ask for an upgrade"
        })
      })
    )
  }

  toJSON(): unknown {
    return HttpIncomingMessage.inspect(this, { _id: "HttpClientResponse", url: this.url, status: this.status })
  }

  pipe() {
    // eslint-disable-next-line prefer-rest-params
    return pipeArguments(this, arguments)
  }

  private bytes(): Uint8Array {
    return typeof this.body === "string" ? encoder.encode(this.body) : this.body
  }

  private decodeError(cause: unknown): HttpClientError.HttpClientError {
    return new HttpClientError.HttpClientError({
      reason: new HttpClientError.DecodeError({ request: this.request, response: this, cause })
    })
  }
}

// UTF-8 bytes of a text without encoding it (a lone surrogate is written as U+FFFD, three bytes).
const utf8Length = (text: string): number => {
  let bytes = 0
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code < 0x80) bytes += 1
    else if (code < 0x800) bytes += 2
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1)
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4
        i++
      } else {
        bytes += 3
      }
    } else bytes += 3
  }
  return bytes
}

const tooLarge = (
  response: HttpClientResponse.HttpClientResponse,
  limit: number,
  declared: number | undefined
): HttpClientError.HttpClientError =>
  new HttpClientError.HttpClientError({
    reason: new HttpClientError.DecodeError({
      request: response.request,
      response,
      description: `the body is larger than ${limit} bytes`,
      cause: new SpotError.ResponseTooLargeError({ limit, declared, httpStatus: response.status })
    })
  })

/**
 * A response with its body in memory, reading at most `maxBytes` of it. A `BufferedResponse` is answered as it is,
 * unless its body is larger. Any other response is read from its `stream` as the chunks arrive and stopped, the
 * stream closed (which releases the connection), once more than `maxBytes` arrived, or at its first chunk when its
 * `Content-Length` says more. Past the limit it fails with an `HttpClientError` whose reason's `cause` is a
 * `SpotError.ResponseTooLargeError`, having held at most `maxBytes` (and one chunk) of the body.
 *
 * @since 0.1.0
 * @category constructors
 */
export const read = (
  response: HttpClientResponse.HttpClientResponse,
  maxBytes: number
): Effect.Effect<BufferedResponse, HttpClientError.HttpClientError> => {
  if (response instanceof BufferedResponse) {
    return response.isLargerThan(maxBytes)
      ? Effect.fail(tooLarge(response, maxBytes, undefined))
      : Effect.succeed(response)
  }
  return Effect.suspend(() => {
    const length = response.headers["content-length"]
    const declared = length === undefined || !/^\d+$/.test(length) ? undefined : Number(length)
    const chunks: Array<Uint8Array> = []
    let size = 0
    return Stream.runForEachArray(response.stream, (batch) => {
      if (declared !== undefined && declared > maxBytes) return Effect.fail(tooLarge(response, maxBytes, declared))
      for (const chunk of batch) {
        size += chunk.byteLength
        if (size > maxBytes) return Effect.fail(tooLarge(response, maxBytes, declared))
        chunks.push(chunk)
      }
      return Effect.void
    }).pipe(Effect.map(() => {
      let body: Uint8Array
      if (chunks.length === 1) body = chunks[0]!
      else {
        body = new Uint8Array(size)
        let at = 0
        for (const chunk of chunks) {
          body.set(chunk, at)
          at += chunk.byteLength
        }
      }
      return new BufferedResponse({
        request: response.request,
        url: response.url,
        status: response.status,
        headers: response.headers as HeadersInput,
        body,
        ...(Option.isSome(response.remoteAddress) ? { remoteAddress: response.remoteAddress.value } : {})
      })
    }))
  })
}
