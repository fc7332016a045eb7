// An HttpClient straight over an undici Dispatcher, for the requests SpotClient sends: a small text or bytes body,
// an answer read whole. `@effect/platform-node`'s undici client costs about twice the CPU of `undici.request` per
// request (URL parsing, an AbortController, response streams and a TextDecoder per answer). This one dispatches with
// undici's handler API, collects the answer's bytes and hands them over in memory (core's BufferedResponse);
// interruption aborts the request. Anything else (query parameters, a hash, stream or form bodies, upgrades) goes to
// platform-node's client over the same dispatcher. It bounds every exchange by its `timeoutMillis` itself, without
// the fibers of a race and without a timer per request (`Deadlines`), failing as core's `timeoutBy: "transport"`
// expects: a TransportError caused by a TimeoutError. It stops reading an answer at `maxBodyBytes` (or at once, when its
// Content-Length says more), aborting the request, and fails with a TransportError caused by core's
// `ResponseTooLargeError`: a venue that streams an endless body costs at most that much memory.
//
// Under a tracing backend, each exchange is an HTTP client span, as effect's clients make them (the span name from
// `HttpClient.SpanNameGenerator`, `http.request.method`, `url.*`, `server.*`, `http.response.status_code`, 4xx and 5xx
// failed; headers only as `HttpClient.TracerHeaderFilter` selects, those of `Headers.CurrentRedactedNames` redacted),
// with the URL's attributes computed once per URL. Unlike effect's, it sends no trace-context headers: the venue is a
// third party.
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import type * as Undici from "@effect/platform-node/Undici"
import { BufferedResponse, SpotError } from "@spotkit/core"
import { Cause, Clock, Effect, Exit, Option, References, Result, Tracer } from "effect"
import { constFalse } from "effect/Function"
import {
  Headers,
  HttpClient,
  HttpClientError,
  type HttpClientRequest,
  type HttpClientResponse,
  UrlParams
} from "effect/http"
import { Buffer } from "node:buffer"
import type { IncomingHttpHeaders } from "node:http"

interface Target {
  readonly origin: string
  readonly path: string
  readonly href: string
  readonly url: URL
  /** The span's `url.*` and `server.*` attributes, for the URL-parameter names they were redacted by. */
  attributes: ReadonlyArray<readonly [string, unknown]> | undefined
  redactedBy: ReadonlyArray<string | RegExp> | undefined
}

/** The longest delay one `setTimeout` can wait (about 24.8 days). */
export const MAX_TIMER = 2 ** 31 - 1

// Parsed URLs by text: a client sends to a handful of URLs, so each is parsed once. Bounded all the same.
const TARGETS_KEPT = 256

const DEFAULT_PORTS: Readonly<Record<string, number>> = { "http:": 80, "https:": 443 }

interface Limits {
  /** The exchanges' deadlines, when they are bounded. */
  readonly deadlines: Deadlines | undefined
  readonly maxBodyBytes: number
}

/** One exchange's deadline in a `Deadlines` list: its time, what expiring does, its place in the list. */
export interface Deadline {
  at: number
  expire(): void
  previous: Deadline | undefined
  next: Deadline | undefined
  listed: boolean
}

/** A deadline, not yet listed, that calls `expire` when it comes. */
export const deadlineOf = (expire: () => void): Deadline => ({
  at: 0,
  expire,
  previous: undefined,
  next: undefined,
  listed: false
})

/**
 * The deadlines of one client's exchanges in flight, under one timer. Every exchange has the same timeout and its
 * deadline is counted on a monotonic clock from its start, so the list is in deadline order as it is appended to: the
 * head is the next to expire. The timer is armed for the head's deadline; an exchange that ends leaves the list, and
 * the timer as it is. When it fires, it expires what is due and is armed again for the new head, if any: a deadline
 * expires at its time (as one timer per exchange would), and a busy client arms about one timer per timeout instead of
 * one per exchange. A timer per exchange cost microseconds of CPU per request at one request in flight over a socket,
 * where each arming and clearing reaches into libuv (BENCHMARKS.md, "The deadline timer").
 *
 * Like undici's own timers (its `headersTimeout` and `bodyTimeout`), the timer does not hold the process open: an
 * exchange in flight does, by its socket (or its connection attempt, or its address lookup).
 */
export class Deadlines {
  private head: Deadline | undefined
  private tail: Deadline | undefined
  private timer: ReturnType<typeof setTimeout> | undefined
  // While due deadlines expire: an expiry can resume its fiber at once, which can start the next exchange (and `add`
  // must then not arm a second timer: the one armed below serves it).
  private firing = false
  private readonly fire = () => {
    this.timer = undefined
    this.firing = true
    const now = performance.now()
    let head = this.head
    while (head !== undefined && head.at <= now) {
      this.remove(head)
      head.expire()
      head = this.head
    }
    this.firing = false
    if (head !== undefined) this.arm(head.at - performance.now())
  }

  readonly millis: number
  constructor(millis: number) {
    this.millis = millis
  }

  /** Lists `deadline` for `millis` from now: its `expire` is called when it comes, unless it is removed before. */
  add(deadline: Deadline): void {
    deadline.at = performance.now() + this.millis
    deadline.previous = this.tail
    deadline.next = undefined
    deadline.listed = true
    if (this.tail === undefined) this.head = deadline
    else this.tail.next = deadline
    this.tail = deadline
    if (this.timer === undefined && !this.firing) this.arm(this.millis)
  }

  /** Takes a deadline out of the list (an exchange that ended): it never expires after that. Again, nothing. */
  remove(deadline: Deadline): void {
    if (!deadline.listed) return
    deadline.listed = false
    const { next, previous } = deadline
    if (previous === undefined) this.head = next
    else previous.next = next
    if (next === undefined) this.tail = previous
    else next.previous = previous
    deadline.previous = undefined
    deadline.next = undefined
  }

  // At least a millisecond, rounded up: a timer that fires a little early (Node counts from the event loop's time,
  // which can be behind) finds nothing due and is armed again for the rest.
  private arm(millis: number): void {
    this.timer = setTimeout(this.fire, Math.max(1, Math.ceil(millis)))
    this.timer.unref()
  }
}

type Exchange = Effect.Effect<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError>

// The failure of an exchange. undici's own errors are described by their message (e.g. a proxy's "Proxy
// Authentication Required (407)"), which names no secret: the client scrubs what it quotes all the same.
const transportError = (request: HttpClientRequest.HttpClientRequest, cause: unknown, described = false) =>
  new HttpClientError.HttpClientError({
    reason: new HttpClientError.TransportError({
      request,
      cause,
      ...(described && cause instanceof Error ? { description: cause.message } : {})
    })
  })

// What an exchange past its deadline fails with (inside a TransportError).
const timeoutOf = (millis: number) => new Cause.TimeoutError(`no answer within ${millis} ms`)

// One exchange through the dispatcher's handler API, its answer collected whole within the limits: the handler undici
// calls, and the exchange's deadline in the client's list. One object per exchange whose methods are shared, where a
// handler of closures made a dozen functions for every request.
class ExchangeHandler implements Undici.Dispatcher.DispatchHandler, Deadline {
  at = 0
  previous: Deadline | undefined = undefined
  next: Deadline | undefined = undefined
  listed = false
  private controller: Undici.Dispatcher.DispatchController | undefined = undefined
  // Why the request was cut short (interrupted, timed out), for a controller that starts afterwards.
  private aborted: Error | undefined = undefined
  private status = 0
  private headers: IncomingHttpHeaders | undefined = undefined
  private readonly chunks: Array<Buffer> = []
  private size = 0
  private readonly limits: Limits
  private readonly request: HttpClientRequest.HttpClientRequest
  private readonly target: Target
  private readonly resume: (effect: Exchange) => void

  constructor(
    limits: Limits,
    request: HttpClientRequest.HttpClientRequest,
    target: Target,
    resume: (effect: Exchange) => void
  ) {
    this.limits = limits
    this.request = request
    this.target = target
    this.resume = resume
  }

  private abort(reason: Error): void {
    this.aborted ??= reason
    this.controller?.abort(reason)
  }

  private ended(): void {
    this.limits.deadlines?.remove(this)
  }

  /** The whole exchange (answer read whole) past its timeout: a TransportError caused by a TimeoutError. */
  expire(): void {
    const timeout = timeoutOf(this.limits.deadlines!.millis)
    this.abort(timeout)
    this.resume(Effect.fail(transportError(this.request, timeout)))
  }

  /** The exchange's fiber was interrupted: the request is aborted. */
  interrupt(): void {
    this.ended()
    this.abort(new Error("The request was interrupted"))
  }

  /** The dispatcher refused the request at once. */
  refused(cause: unknown): void {
    this.ended()
    this.resume(Effect.fail(transportError(this.request, cause)))
  }

  // Past the limit: the request is aborted (the connection closed) and nothing more is kept.
  private tooLarge(declared: number | undefined): void {
    this.ended()
    const cause = new SpotError.ResponseTooLargeError({
      limit: this.limits.maxBodyBytes,
      declared,
      httpStatus: this.status
    })
    this.chunks.length = 0
    // Resumed first: aborting makes undici report the abort as the request's error at once.
    this.resume(Effect.fail(transportError(this.request, cause)))
    this.abort(new Error(cause.message))
  }

  onRequestStart(controller: Undici.Dispatcher.DispatchController): void {
    this.controller = controller
    if (this.aborted !== undefined) controller.abort(this.aborted)
  }

  onResponseStart(_controller: unknown, statusCode: number, headers: IncomingHttpHeaders): void {
    this.status = statusCode
    this.headers = headers
    const length = headers["content-length"]
    const declared = typeof length === "string" && /^\d+$/.test(length) ? Number(length) : undefined
    if (declared !== undefined && declared > this.limits.maxBodyBytes) this.tooLarge(declared)
  }

  onResponseData(_controller: unknown, chunk: Buffer): void {
    if (this.aborted !== undefined) return
    this.size += chunk.length
    if (this.size > this.limits.maxBodyBytes) this.tooLarge(undefined)
    else this.chunks.push(chunk)
  }

  onResponseEnd(): void {
    this.ended()
    const { chunks, request, target } = this
    const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)
    this.resume(Effect.succeed(
      new BufferedResponse.BufferedResponse({
        request,
        url: target.href,
        status: this.status,
        headers: this.headers ?? {},
        body: bytes
      })
    ))
  }

  onResponseError(_controller: unknown, error: Error): void {
    this.ended()
    this.resume(Effect.fail(transportError(this.request, error, this.aborted === undefined)))
  }
}

// One exchange through the dispatcher's handler API, within its deadline when the client has them.
const dispatch = (
  dispatcher: Undici.Dispatcher,
  limits: Limits,
  request: HttpClientRequest.HttpClientRequest,
  target: Target,
  body: Uint8Array | string | null
): Exchange =>
  Effect.callback<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError>((resume) => {
    const handler = new ExchangeHandler(limits, request, target, resume)
    limits.deadlines?.add(handler)
    const dispatched = Result.try(() =>
      dispatcher.dispatch({
        origin: target.origin,
        path: target.path,
        method: request.method,
        headers: request.headers,
        body
      }, handler)
    )
    if (Result.isFailure(dispatched)) handler.refused(dispatched.failure)
    return Effect.sync(() => handler.interrupt())
  })

// Requests the client does not send itself go to platform-node's (which makes its own span). Under a Timeout the
// answer is read whole there too (at most `maxBodyBytes` of it), so the bound covers the whole exchange, in the same
// list of deadlines as above (real time, not the Clock: this is a socket's deadline); the loser of the race is
// interrupted, which aborts the request.
const fallback = (full: HttpClient.HttpClient, limits: Limits) => (request: HttpClientRequest.HttpClientRequest) => {
  const { deadlines, maxBodyBytes } = limits
  if (deadlines === undefined) return full.execute(request)
  const whole = Effect.flatMap(
    full.execute(request),
    (response): Exchange => BufferedResponse.read(response, maxBodyBytes)
  )
  const deadline = Effect.callback<never, HttpClientError.HttpClientError>((resume) => {
    const listed = deadlineOf(() => resume(Effect.fail(transportError(request, timeoutOf(deadlines.millis)))))
    deadlines.add(listed)
    return Effect.sync(() => deadlines.remove(listed))
  })
  return Effect.raceFirst(whole, deadline)
}

// The `url.*` and `server.*` attributes of a span to `target`, as effect's clients record them.
const urlAttributes = (target: Target, redacted: ReadonlyArray<string | RegExp>) => {
  if (target.attributes !== undefined && target.redactedBy === redacted) return target.attributes
  const url = target.url
  const attributes: Array<readonly [string, unknown]> = [
    ["url.full", UrlParams.redactUrl(target.href, redacted)],
    ["url.path", url.pathname]
  ]
  if (url.search !== "") attributes.push(["url.query", UrlParams.redactUrl(url.search, redacted).slice(1)])
  attributes.push(["url.scheme", url.protocol.slice(0, -1)])
  attributes.push(["server.address", url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname])
  const port = url.port === "" ? DEFAULT_PORTS[url.protocol] : Number(url.port)
  if (port !== undefined) attributes.push(["server.port", port])
  target.attributes = attributes
  target.redactedBy = redacted
  return attributes
}

const headerAttributes = (
  span: Tracer.Span,
  phase: "request" | "response",
  headers: Headers.Headers,
  filter: (name: string, phase: "request" | "response") => boolean,
  redacted: ReadonlyArray<string | RegExp>
) => {
  for (const name in headers) {
    if (!filter(name, phase)) continue
    span.attribute(
      `http.${phase}.header.${name}`,
      Headers.isRedactedName(name, redacted) ? "<redacted>" : headers[name]
    )
  }
}

// The exchange in an HTTP client span, unless tracing is off for it. Without a tracing backend (Effect's native
// tracer, which exports nothing) no span is made: nothing runs inside it, so nothing could observe it, and a span
// is a large share of what this client spends per request (BENCHMARKS.md).
const traced = (request: HttpClientRequest.HttpClientRequest, target: Target, exchange: Exchange): Exchange =>
  Effect.withFiber((fiber) => {
    if (
      fiber.getRef(Tracer.Tracer) === Tracer.nativeTracer || fiber.getRef(Tracer.DisablePropagation) ||
      fiber.getRef(HttpClient.TracerDisabledWhen)(request)
    ) {
      return exchange
    }
    return Effect.useSpan(fiber.getRef(HttpClient.SpanNameGenerator)(request), { kind: "client" }, (span) => {
      span.attribute("http.request.method", request.method)
      for (const [key, value] of urlAttributes(target, fiber.getRef(UrlParams.CurrentRedactedNames))) {
        span.attribute(key, value)
      }
      // Headers are recorded only when a filter selects some (the default records none; a BufferedResponse builds
      // its headers when read).
      const filter = fiber.getRef(HttpClient.TracerHeaderFilter)
      const redacted = filter === constFalse ? undefined : fiber.getRef(Headers.CurrentRedactedNames)
      if (redacted !== undefined) headerAttributes(span, "request", request.headers, filter, redacted)
      return Effect.map(exchange, (response) => {
        span.attribute("http.response.status_code", response.status)
        if (redacted !== undefined) headerAttributes(span, "response", response.headers, filter, redacted)
        // OpenTelemetry marks client spans failed for 4xx and 5xx, while the answer itself succeeds.
        if (response.status >= 400 && response.status < 600) {
          span.attribute("error.type", String(response.status))
          const failed = new HttpClientError.HttpClientError({
            reason: new HttpClientError.StatusCodeError({ request, response })
          })
          const now = fiber.getRef(References.TracerTimingEnabled)
            ? fiber.getRef(Clock.Clock).currentTimeNanosUnsafe()
            : 0n
          span.end(now, Exit.fail(failed))
        }
        return response
      })
    })
  })

/**
 * The client over the `Dispatcher` in context (platform-node's `layerDispatcherOptions` makes a pooled `Agent` and
 * closes it with the layer); every exchange within `timeoutMillis`, when given, and no answer body read beyond
 * `maxBodyBytes`, when given.
 */
export const make = (
  options: { readonly timeoutMillis?: number | undefined; readonly maxBodyBytes?: number | undefined } = {}
): Effect.Effect<HttpClient.HttpClient, never, NodeHttpClient.Dispatcher> =>
  Effect.gen(function*() {
    const limits: Limits = {
      // One timer cannot wait longer than 2^31 - 1 ms (setTimeout fires at once beyond it): no deadline then.
      deadlines: options.timeoutMillis !== undefined && options.timeoutMillis <= MAX_TIMER
        ? new Deadlines(options.timeoutMillis)
        : undefined,
      maxBodyBytes: options.maxBodyBytes ?? Infinity
    }
    const dispatcher = yield* NodeHttpClient.Dispatcher
    const other = fallback(yield* NodeHttpClient.makeUndici, limits)
    const targets = new Map<string, Target>()

    const targetOf = (text: string): Target | undefined => {
      let target = targets.get(text)
      if (target === undefined) {
        const url = URL.parse(text)
        if (url === null) return undefined
        const href = url.href.split("#")[0]!
        target = {
          origin: url.origin,
          path: url.pathname + url.search,
          href,
          url,
          attributes: undefined,
          redactedBy: undefined
        }
        if (targets.size >= TARGETS_KEPT) targets.clear()
        targets.set(text, target)
      }
      return target
    }

    const send = (request: HttpClientRequest.HttpClientRequest, target: Target, body: Uint8Array | string | null) =>
      traced(request, target, dispatch(dispatcher, limits, request, target, body))

    const execute = (request: HttpClientRequest.HttpClientRequest): Exchange => {
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
      return other(request)
    }

    // A request already at hand (the preprocessing's `Effect.succeed`, an exit) is sent at once, without a step to
    // unwrap it.
    return HttpClient.makeWith<HttpClientError.HttpClientError, never, HttpClientError.HttpClientError, never>(
      (effect) =>
        Exit.isExit(effect) && Exit.isSuccess(effect)
          // An exit of this effect: its value is the request.
          ? execute(effect.value as HttpClientRequest.HttpClientRequest)
          : Effect.flatMap(effect, execute),
      Effect.succeed
    )
  })
