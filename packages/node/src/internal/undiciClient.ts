// An HttpClient straight over an undici Dispatcher, for the requests SpotClient sends: a small text or bytes body,
// an answer read whole. `@effect/platform-node`'s undici client costs about twice the CPU of `undici.request` per
// request (URL parsing, an AbortController, an HTTP span with header attributes and trace-context headers, response
// streams and a TextDecoder per answer). This one dispatches with undici's handler API, collects the answer's bytes
// and hands them over in memory (core's BufferedResponse); interruption aborts the request. Anything else (query
// parameters, a hash, stream or form bodies, upgrades) goes to platform-node's client over the same dispatcher. It
// bounds every exchange by its `timeoutMillis` itself, with a plain timer per request instead of the fibers of a
// race, failing as core's `timeoutBy: "transport"` expects: a TransportError caused by a TimeoutError. It stops
// reading an answer at `maxBodyBytes` (or at once, when its Content-Length says more), aborting the request, and fails
// with a TransportError caused by core's `ResponseTooLargeError`: a venue that streams an endless body costs at most
// that much memory.
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import type * as Undici from "@effect/platform-node/Undici"
import { BufferedResponse, SpotError } from "@spotkit/core"
import { Cause, Effect, Option, Result } from "effect"
import { HttpClient, HttpClientError, type HttpClientRequest, type HttpClientResponse } from "effect/http"
import { Buffer } from "node:buffer"
import type { IncomingHttpHeaders } from "node:http"

interface Target {
  readonly origin: string
  readonly path: string
  readonly href: string
}

/** The longest delay one `setTimeout` can wait (about 24.8 days). */
export const MAX_TIMER = 2 ** 31 - 1

// Parsed URLs by text: a client sends to a handful of URLs, so each is parsed once. Bounded all the same.
const TARGETS_KEPT = 256

/**
 * The client over the `Dispatcher` in context (platform-node's `layerDispatcherOptions` makes a pooled `Agent` and
 * closes it with the layer); every exchange within `timeoutMillis`, when given, and no answer body read beyond
 * `maxBodyBytes`, when given.
 */
export const make = (
  options: { readonly timeoutMillis?: number | undefined; readonly maxBodyBytes?: number | undefined } = {}
): Effect.Effect<HttpClient.HttpClient, never, NodeHttpClient.Dispatcher> =>
  Effect.gen(function*() {
    // One timer cannot wait longer than 2^31 - 1 ms (setTimeout fires at once beyond it): no deadline then.
    const timeoutMillis = options.timeoutMillis !== undefined && options.timeoutMillis <= MAX_TIMER
      ? options.timeoutMillis
      : undefined
    const maxBodyBytes = options.maxBodyBytes ?? Infinity
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
      body: Uint8Array | string | null
    ): Effect.Effect<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError> =>
      Effect.callback<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError>((resume) => {
        let controller: Undici.Dispatcher.DispatchController | undefined
        // Why the request was cut short (interrupted, timed out), for a controller that starts afterwards.
        let aborted: Error | undefined
        let status = 0
        let headers: IncomingHttpHeaders = {}
        const chunks: Array<Buffer> = []
        let size = 0
        const abort = (reason: Error) => {
          aborted ??= reason
          controller?.abort(reason)
        }
        // The whole exchange (answer read whole) within timeoutMillis, or a TransportError caused by a TimeoutError.
        const timer = timeoutMillis === undefined ? undefined : setTimeout(() => {
          const timeout = new Cause.TimeoutError(`no answer within ${timeoutMillis} ms`)
          abort(timeout)
          resume(Effect.fail(transportError(request, timeout)))
        }, timeoutMillis)
        // Past the limit: the request is aborted (the connection closed) and nothing more is kept.
        const tooLarge = (declared: number | undefined) => {
          clearTimeout(timer)
          const cause = new SpotError.ResponseTooLargeError({ limit: maxBodyBytes, declared, httpStatus: status })
          chunks.length = 0
          // Resumed first: aborting makes undici report the abort as the request's error at once.
          resume(Effect.fail(transportError(request, cause)))
          abort(new Error(cause.message))
        }
        const handler: Undici.Dispatcher.DispatchHandler = {
          onRequestStart(c) {
            controller = c
            if (aborted !== undefined) c.abort(aborted)
          },
          onResponseStart(_c, statusCode, responseHeaders) {
            status = statusCode
            headers = responseHeaders
            const length = responseHeaders["content-length"]
            const declared = typeof length === "string" && /^\d+$/.test(length) ? Number(length) : undefined
            if (declared !== undefined && declared > maxBodyBytes) tooLarge(declared)
          },
          onResponseData(_c, chunk) {
            if (aborted !== undefined) return
            size += chunk.length
            if (size > maxBodyBytes) tooLarge(undefined)
            else chunks.push(chunk)
          },
          onResponseEnd() {
            clearTimeout(timer)
            const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)
            resume(Effect.succeed(
              new BufferedResponse.BufferedResponse({ request, url: target.href, status, headers, body: bytes })
            ))
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
    // there too (at most `maxBodyBytes` of it), so the bound covers the whole exchange, on the same real-time timer as
    // above (not the Clock: this is a socket's deadline); the loser of the race is interrupted, which aborts the
    // request.
    const fallback = (
      request: HttpClientRequest.HttpClientRequest
    ): Effect.Effect<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError> => {
      if (timeoutMillis === undefined) return full.execute(request)
      const whole = Effect.flatMap(
        full.execute(request),
        (response): Effect.Effect<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError> =>
          BufferedResponse.read(response, maxBodyBytes)
      )
      const deadline = Effect.callback<never, HttpClientError.HttpClientError>((resume) => {
        const timer = setTimeout(
          () =>
            resume(
              Effect.fail(transportError(request, new Cause.TimeoutError(`no answer within ${timeoutMillis} ms`)))
            ),
          timeoutMillis
        )
        return Effect.sync(() => clearTimeout(timer))
      })
      return Effect.raceFirst(whole, deadline)
    }

    const execute = (
      request: HttpClientRequest.HttpClientRequest
    ): Effect.Effect<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError> => {
      const plain = request.urlParams.params.length === 0 && Option.isNone(request.hash) &&
        request.headers.upgrade === undefined
      const target = plain ? targetOf(request.url) : undefined
      if (target !== undefined) {
        switch (request.body._tag) {
          case "Empty":
            return send(request, target, null)
          case "Uint8Array":
            return send(request, target, request.body.body)
          case "Raw":
            if (typeof request.body.body === "string" || request.body.body instanceof Uint8Array) {
              return send(request, target, request.body.body)
            }
        }
      }
      return fallback(request)
    }

    return HttpClient.makeWith<HttpClientError.HttpClientError, never, HttpClientError.HttpClientError, never>(
      (effect) => Effect.flatMap(effect, execute),
      Effect.succeed
    )
  })
