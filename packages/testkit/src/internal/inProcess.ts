// The exchange's protocol as an `HttpClient` with no sockets: each request is handed to the exchange with the time of
// the client's `Clock`, and the outcome becomes a response in memory (after its latency, on the same `Clock`), a
// transport error (a dropped connection) or no answer at all.
//
// Given a timeout, it bounds each exchange itself, on the same `Clock`, as core's `timeoutBy: "transport"` asks: an
// answer later than the timeout, or none, fails with a `TransportError` caused by a `TimeoutError` once the timeout
// has passed. An answer given at once needs no timer, where the client's own bound races every call with fibers.
import { BufferedResponse } from "@spotkit/core"
import { Cause, Clock, Effect } from "effect"
import { HttpClient, HttpClientError, UrlParams } from "effect/http"
import type { HttpClientRequest, HttpClientResponse } from "effect/http"
import type { Outcome, WireRequest } from "./protocol/wire.ts"

const decoder = new TextDecoder()

// The venue's requests are JSON text, which `HttpClientRequest.bodyText` stores as bytes (keeping the text). Other
// bodies (form data, streams) are no venue request; they reach the protocol as empty and fail its checks.
const bodyText = (request: HttpClientRequest.HttpClientRequest): string =>
  request.body._tag === "Uint8Array" ? request.body.text ?? decoder.decode(request.body.body) : ""

const contentTypeOf = (request: HttpClientRequest.HttpClientRequest): string | undefined =>
  request.headers["content-type"] ?? (request.body._tag === "Empty" ? undefined : request.body.contentType)

// The path and query of a request, as the venue signs and routes it ("http://host/api/x?a=1" -> "/api/x?a=1").
const pathOf = (request: HttpClientRequest.HttpClientRequest): string => {
  const url = request.url
  const scheme = url.indexOf("://")
  const slash = scheme < 0 ? url.indexOf("/") : url.indexOf("/", scheme + 3)
  const path = slash < 0 ? "/" : url.slice(slash)
  const params = UrlParams.toString(request.urlParams)
  return params === "" ? path : `${path}${path.includes("?") ? "&" : "?"}${params}`
}

const timedOut = (request: HttpClientRequest.HttpClientRequest, timeoutMillis: number) =>
  Effect.fail(
    new HttpClientError.HttpClientError({
      reason: new HttpClientError.TransportError({
        request,
        cause: new Cause.TimeoutError(`no answer within ${timeoutMillis} ms`)
      })
    })
  )

/**
 * An `HttpClient` over `handleAt`. With no connection there is nothing to abort or trace at the HTTP level, so it
 * skips `HttpClient.make`'s URL parsing, abort controller and client span (the client's own operation spans remain).
 * With `timeoutMillis`, each exchange is bounded by it (see above); without, a hung one waits forever.
 */
export const make = (
  handleAt: (request: WireRequest, now: number) => Outcome,
  timeoutMillis?: number | undefined
): HttpClient.HttpClient => {
  const send = (
    request: HttpClientRequest.HttpClientRequest,
    now: number
  ): Effect.Effect<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError> => {
    const outcome = handleAt({
      method: request.method,
      path: pathOf(request),
      header: (name) => name === "content-type" ? contentTypeOf(request) : request.headers[name],
      body: bodyText(request),
      bodyBytes: request.body._tag === "Uint8Array" ? request.body.body : undefined,
      clientAddress: "127.0.0.1"
    }, now)
    switch (outcome._tag) {
      case "Respond": {
        const response = new BufferedResponse.BufferedResponse({
          request,
          status: outcome.status,
          headers: { ...outcome.headers, "content-type": outcome.contentType },
          body: outcome.body,
          remoteAddress: "127.0.0.1"
        })
        if (outcome.delayMillis <= 0) return Effect.succeed(response)
        return timeoutMillis !== undefined && outcome.delayMillis > timeoutMillis
          ? Effect.andThen(Effect.sleep(timeoutMillis), timedOut(request, timeoutMillis))
          : Effect.as(Effect.sleep(outcome.delayMillis), response)
      }
      case "Drop":
        return Effect.fail(
          new HttpClientError.HttpClientError({
            reason: new HttpClientError.TransportError({ request, description: "connection reset by the exchange" })
          })
        )
      case "Hang":
        return timeoutMillis === undefined
          ? Effect.never
          : Effect.andThen(Effect.sleep(timeoutMillis), timedOut(request, timeoutMillis))
    }
  }
  return HttpClient.makeWith<HttpClientError.HttpClientError, never, HttpClientError.HttpClientError, never>(
    (effect) =>
      Effect.flatMap(effect, (request) => Clock.clockWith((clock) => send(request, clock.currentTimeMillisUnsafe()))),
    Effect.succeed as HttpClient.HttpClient.Preprocess<HttpClientError.HttpClientError, never>
  )
}
