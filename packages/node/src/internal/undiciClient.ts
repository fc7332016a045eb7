// An HttpClient straight over an undici Dispatcher, for the requests SpotClient sends: a small text or bytes body,
// an answer read whole. `@effect/platform-node`'s undici client costs about twice the CPU of `undici.request` per
// request (URL parsing, an AbortController, an HTTP span with header attributes and trace-context headers, response
// streams and a TextDecoder per answer). This one dispatches with undici's handler API, collects the answer's bytes
// and hands them over in memory; interruption aborts the request. Anything else (query parameters, a hash, stream or
// form bodies, upgrades) goes to platform-node's client over the same dispatcher. It enforces core's request timeout
// itself (`HttpTimeout`): a plain timer per request instead of the fibers of a race.
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import type * as Undici from "@effect/platform-node/Undici"
import { HttpTimeout } from "@spotkit/core"
import { Effect, Inspectable, Option, Result, Stream } from "effect"
import {
  Cookies,
  Headers,
  HttpClient,
  HttpClientError,
  type HttpClientRequest,
  HttpClientResponse,
  HttpIncomingMessage,
  UrlParams
} from "effect/http"
import { pipeArguments } from "effect/Pipeable"
import { Buffer } from "node:buffer"
import type { IncomingHttpHeaders } from "node:http"

/** An answer read whole: status, headers and bytes. */
export class BufferedResponse extends Inspectable.Class implements HttpClientResponse.HttpClientResponse {
  readonly [HttpIncomingMessage.TypeId]: typeof HttpIncomingMessage.TypeId = HttpIncomingMessage.TypeId
  readonly [HttpClientResponse.TypeId]: typeof HttpClientResponse.TypeId = HttpClientResponse.TypeId
  readonly request: HttpClientRequest.HttpClientRequest
  readonly url: string
  readonly status: number
  private readonly source: IncomingHttpHeaders
  private readonly body: Buffer

  constructor(
    request: HttpClientRequest.HttpClientRequest,
    url: string,
    status: number,
    headers: IncomingHttpHeaders,
    body: Buffer
  ) {
    super()
    this.request = request
    this.url = url
    this.status = status
    this.source = headers
    this.body = body
  }

  // Built when read: the client reads the status and the text, rarely the headers.
  get headers(): Headers.Headers {
    return Headers.fromInput(this.source as Headers.Input)
  }

  get cookies(): Cookies.Cookies {
    const header = this.source["set-cookie"]
    return header === undefined ? Cookies.empty : Cookies.fromSetCookie(header)
  }

  get remoteAddress(): Option.Option<string> {
    return Option.none()
  }

  get text(): Effect.Effect<string, HttpClientError.HttpClientError> {
    return Effect.sync(() => this.body.toString("utf8"))
  }

  get json(): Effect.Effect<never, HttpClientError.HttpClientError> {
    return Effect.flatMap(this.text, (text) =>
      Effect.try({
        try: () => (text === "" ? null : JSON.parse(text)) as never,
        catch: (cause) => this.decodeError(cause)
      }))
  }

  get arrayBuffer(): Effect.Effect<ArrayBuffer, HttpClientError.HttpClientError> {
    return Effect.sync(() =>
      this.body.buffer.slice(this.body.byteOffset, this.body.byteOffset + this.body.byteLength) as ArrayBuffer
    )
  }

  get stream(): Stream.Stream<Uint8Array, HttpClientError.HttpClientError> {
    return Stream.succeed(new Uint8Array(this.body))
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
      try: () => new Response(new Uint8Array(this.body), { headers: this.headers }).formData(),
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

interface Target {
  readonly origin: string
  readonly path: string
  readonly href: string
}

// Parsed URLs by text: a client sends to a handful of URLs, so each is parsed once. Bounded all the same.
const TARGETS_KEPT = 256

/**
 * The client over the `Dispatcher` in context (platform-node's `layerDispatcherOptions` makes a pooled `Agent` and
 * closes it with the layer).
 */
export const make: Effect.Effect<HttpClient.HttpClient, never, NodeHttpClient.Dispatcher> = Effect.gen(function*() {
  const dispatcher = yield* NodeHttpClient.Dispatcher
  const full = yield* NodeHttpClient.makeUndici
  const targets = new Map<string, Target>()

  const targetOf = (url: string): Target | undefined => {
    let target = targets.get(url)
    if (target === undefined) {
      const parsed = URL.parse(url)
      if (parsed === null) return undefined
      target = { origin: parsed.origin, path: parsed.pathname + parsed.search, href: parsed.href.split("#")[0]! }
      if (targets.size >= TARGETS_KEPT) targets.clear()
      targets.set(url, target)
    }
    return target
  }

  const transportError = (request: HttpClientRequest.HttpClientRequest, cause: unknown) =>
    new HttpClientError.HttpClientError({ reason: new HttpClientError.TransportError({ request, cause }) })

  const send = (
    request: HttpClientRequest.HttpClientRequest,
    target: Target,
    body: Uint8Array | string | null,
    timeoutMillis: number | undefined
  ): Effect.Effect<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError> =>
    Effect.callback<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError>((resume) => {
      let controller: Undici.Dispatcher.DispatchController | undefined
      // Why the request was cut short (interrupted, timed out), for a controller that starts afterwards.
      let aborted: Error | undefined
      let status = 0
      let headers: IncomingHttpHeaders = {}
      const chunks: Array<Buffer> = []
      const abort = (reason: Error) => {
        aborted ??= reason
        controller?.abort(reason)
      }
      // HttpTimeout's promise: the whole exchange (answer read whole) within the fiber's Timeout, or a
      // TransportError caused by HttpTimeout.TimeoutError.
      const timer = timeoutMillis === undefined ? undefined : setTimeout(() => {
        const timeout = new HttpTimeout.TimeoutError({ millis: timeoutMillis })
        abort(timeout)
        resume(Effect.fail(transportError(request, timeout)))
      }, timeoutMillis)
      const handler: Undici.Dispatcher.DispatchHandler = {
        onRequestStart(c) {
          controller = c
          if (aborted !== undefined) c.abort(aborted)
        },
        onResponseStart(_c, statusCode, responseHeaders) {
          status = statusCode
          headers = responseHeaders
        },
        onResponseData(_c, chunk) {
          chunks.push(chunk)
        },
        onResponseEnd() {
          clearTimeout(timer)
          const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)
          resume(Effect.succeed(new BufferedResponse(request, target.href, status, headers, bytes)))
        },
        onResponseError(_c, error) {
          clearTimeout(timer)
          resume(Effect.fail(transportError(request, error)))
        }
      }
      const dispatched = Result.try(() =>
        dispatcher.dispatch({
          origin: target.origin,
          path: target.path,
          method: request.method,
          headers: request.headers,
          body
        }, handler)
      )
      if (Result.isFailure(dispatched)) {
        clearTimeout(timer)
        resume(Effect.fail(transportError(request, dispatched.failure)))
      }
      return Effect.sync(() => {
        clearTimeout(timer)
        abort(new Error("The request was interrupted"))
      })
    })

  // Requests this client does not send itself go to platform-node's. Under a Timeout the answer is read whole
  // there too, so the bound covers the whole exchange, on the same real-time timer as above (not the Clock: this is
  // a socket's deadline); the loser of the race is interrupted, which aborts the request.
  const fallback = (
    request: HttpClientRequest.HttpClientRequest,
    timeoutMillis: number | undefined
  ): Effect.Effect<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError> => {
    if (timeoutMillis === undefined) return full.execute(request)
    const whole = Effect.flatMap(
      full.execute(request),
      (response) =>
        Effect.map(response.arrayBuffer, (bytes): HttpClientResponse.HttpClientResponse =>
          new BufferedResponse(
            request,
            response.url,
            response.status,
            response.headers as IncomingHttpHeaders,
            Buffer.from(bytes)
          ))
    )
    const deadline = Effect.callback<never, HttpClientError.HttpClientError>((resume) => {
      const timer = setTimeout(
        () => resume(Effect.fail(transportError(request, new HttpTimeout.TimeoutError({ millis: timeoutMillis })))),
        timeoutMillis
      )
      return Effect.sync(() => clearTimeout(timer))
    })
    return Effect.raceFirst(whole, deadline)
  }

  const execute = (
    request: HttpClientRequest.HttpClientRequest,
    timeoutMillis: number | undefined
  ): Effect.Effect<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError> => {
    const plain = request.urlParams.params.length === 0 && Option.isNone(request.hash) &&
      request.headers.upgrade === undefined
    const target = plain ? targetOf(request.url) : undefined
    if (target !== undefined) {
      switch (request.body._tag) {
        case "Empty":
          return send(request, target, null, timeoutMillis)
        case "Uint8Array":
          return send(request, target, request.body.body, timeoutMillis)
        case "Raw":
          if (typeof request.body.body === "string" || request.body.body instanceof Uint8Array) {
            return send(request, target, request.body.body, timeoutMillis)
          }
      }
    }
    return fallback(request, timeoutMillis)
  }

  const client = HttpClient.makeWith<HttpClientError.HttpClientError, never, HttpClientError.HttpClientError, never>(
    (effect) =>
      Effect.flatMap(
        effect,
        (request) => Effect.withFiber((fiber) => execute(request, fiber.getRef(HttpTimeout.Timeout)))
      ),
    Effect.succeed
  )
  return HttpTimeout.enforcing(client)
})
