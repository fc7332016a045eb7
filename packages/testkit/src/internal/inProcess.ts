// An HttpClientResponse over a string already in memory: no web `Response`, no streams, no copies.
import { Effect, Inspectable, Option, Stream } from "effect"
import { Cookies, Headers, HttpClientError, HttpClientResponse, HttpIncomingMessage, UrlParams } from "effect/http"
import type { HttpClientRequest } from "effect/http"
import { pipeArguments } from "effect/Pipeable"

const encoder = new TextEncoder()

export class InProcessResponse extends Inspectable.Class implements HttpClientResponse.HttpClientResponse {
  readonly [HttpIncomingMessage.TypeId]: typeof HttpIncomingMessage.TypeId = HttpIncomingMessage.TypeId
  readonly [HttpClientResponse.TypeId]: typeof HttpClientResponse.TypeId = HttpClientResponse.TypeId
  readonly request: HttpClientRequest.HttpClientRequest
  readonly status: number
  readonly url: string
  readonly body: string
  private readonly contentType: string

  constructor(
    request: HttpClientRequest.HttpClientRequest,
    url: string,
    status: number,
    contentType: string,
    body: string
  ) {
    super()
    this.request = request
    this.url = url
    this.status = status
    this.body = body
    this.contentType = contentType
  }

  // Built on demand: the client reads the status and the text, rarely the headers.
  get headers(): Headers.Headers {
    return Headers.fromRecordUnsafe({ "content-type": this.contentType })
  }

  toJSON(): unknown {
    return HttpIncomingMessage.inspect(this, { _id: "HttpClientResponse", url: this.url, status: this.status })
  }

  get cookies(): Cookies.Cookies {
    return Cookies.empty
  }

  get remoteAddress(): Option.Option<string> {
    return Option.some("127.0.0.1")
  }

  get text(): Effect.Effect<string, HttpClientError.HttpClientError> {
    return Effect.succeed(this.body)
  }

  get json(): Effect.Effect<never, HttpClientError.HttpClientError> {
    return Effect.flatMap(this.text, (text) =>
      Effect.try({
        try: () => (text === "" ? null : JSON.parse(text)) as never,
        catch: (cause) => this.decodeError(cause)
      }))
  }

  get arrayBuffer(): Effect.Effect<ArrayBuffer, HttpClientError.HttpClientError> {
    return Effect.sync(() => encoder.encode(this.body).buffer as ArrayBuffer)
  }

  get stream(): Stream.Stream<Uint8Array, HttpClientError.HttpClientError> {
    return Stream.succeed(encoder.encode(this.body))
  }

  get urlParamsBody(): Effect.Effect<UrlParams.UrlParams, HttpClientError.HttpClientError> {
    return Effect.succeed(UrlParams.fromInput(new URLSearchParams(this.body)))
  }

  get formData(): Effect.Effect<FormData, HttpClientError.HttpClientError> {
    return Effect.fail(this.decodeError("the exchange answers JSON, not form data"))
  }

  get upgrade(): Effect.Effect<never, HttpClientError.HttpClientError> {
    return Effect.fail(
      new HttpClientError.HttpClientError({
        reason: new HttpClientError.StatusCodeError({
          request: this.request,
          response: this,
          description: "the in-process exchange has no connection to hand over"
        })
      })
    )
  }

  private decodeError(cause: unknown): HttpClientError.HttpClientError {
    return new HttpClientError.HttpClientError({
      reason: new HttpClientError.DecodeError({ request: this.request, response: this, cause })
    })
  }

  pipe() {
    // eslint-disable-next-line prefer-rest-params
    return pipeArguments(this, arguments)
  }
}
