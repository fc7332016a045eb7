/**
 * The `HttpClient` that `NodeSpotClient` uses by default (`transport: "undici"`): undici's dispatcher used directly.
 * Against a real loopback server it sends the exact method, path, headers and body, answers any status with its
 * headers and text, fails a refused connection with a `TransportError` that carries the system code (so the client
 * knows the request was never sent), aborts the request on the server's side when the caller is interrupted, and
 * hands requests it does not handle itself (query parameters, stream bodies) to platform-node's client. Each exchange
 * is an HTTP client span inside the caller's under a tracer, with effect's attributes, credential headers redacted
 * when headers are recorded at all, 4xx failed, and no span when tracing is off for the request or no tracer but
 * Effect's native one is installed.
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { assert, describe, it } from "@effect/vitest"
import { SpotClient } from "@spotkit/core"
import { Cause, Deferred, Effect, Fiber, Layer, Redacted, Stream, Tracer } from "effect"
import { Headers, HttpClient, HttpClientRequest } from "effect/http"
import { execFile } from "node:child_process"
import { createServer, type IncomingMessage } from "node:http"
import type { AddressInfo } from "node:net"
import { fileURLToPath } from "node:url"
import { recordingTracer } from "../../core/test/support/spans.ts"
import { NodeSpotClient } from "../src/index.ts"
import * as UndiciClient from "../src/internal/undiciClient.ts"

interface Seen {
  readonly method: string
  readonly url: string
  readonly headers: IncomingMessage["headers"]
  readonly body: string
}

// A loopback server that records every request and answers it, except those under `/hold`, which it never
// answers; `held` completes when one arrives, `closed` when a held request's connection goes away.
const server = Effect.gen(function*() {
  const seen: Array<Seen> = []
  const held = yield* Deferred.make<void>()
  const closed = yield* Deferred.make<void>()
  const http = createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      seen.push({
        method: request.method ?? "",
        url: request.url ?? "",
        headers: request.headers,
        body: Buffer.concat(chunks).toString("utf8")
      })
      if (request.url?.startsWith("/hold") === true) {
        response.on("close", () => Deferred.doneUnsafe(closed, Effect.void))
        Deferred.doneUnsafe(held, Effect.void)
        return
      }
      const status = request.url?.startsWith("/teapot") === true ? 418 : 200
      response.writeHead(status, { "content-type": "application/json", "x-answer": "yes" })
      response.end(`{"status":${status},"text":"naïve ✓"}`)
    })
  })
  const port = yield* Effect.acquireRelease(
    Effect.callback<number>((resume) => {
      http.listen(0, "127.0.0.1", () => resume(Effect.succeed((http.address() as AddressInfo).port)))
    }),
    () =>
      Effect.callback<void>((resume) => {
        http.close(() => resume(Effect.void))
        http.closeAllConnections()
      })
  )
  return { baseUrl: `http://127.0.0.1:${port}`, seen, held, closed }
})

const clientWith = (timeoutMillis?: number) =>
  Layer.effect(HttpClient.HttpClient, UndiciClient.make({ timeoutMillis })).pipe(
    Layer.provide(NodeHttpClient.layerDispatcherOptions({}))
  )

const client = clientWith()

describe("NodeSpotClient's undici HttpClient", () => {
  it.effect("sends the exact request; answers the status, headers and UTF-8 text", () =>
    Effect.gen(function*() {
      const { baseUrl, seen } = yield* server
      const http = yield* HttpClient.HttpClient
      const body = `{"clientOrderId":"é-1","price":"30000.5"}`
      const response = yield* http.execute(
        HttpClientRequest.post(`${baseUrl}/api/v2/trade/orders`).pipe(
          HttpClientRequest.setHeaders({ "ACCESS-KEY": "key", locale: "en-US" }),
          HttpClientRequest.bodyText(body, "application/json")
        )
      )
      assert.strictEqual(response.status, 200)
      assert.strictEqual(response.headers["x-answer"], "yes")
      assert.strictEqual(response.url, `${baseUrl}/api/v2/trade/orders`)
      assert.strictEqual(yield* response.text, `{"status":200,"text":"naïve ✓"}`)
      assert.deepStrictEqual(yield* response.json, { status: 200, text: "naïve ✓" })
      assert.strictEqual(seen.length, 1)
      assert.strictEqual(seen[0]!.method, "POST")
      assert.strictEqual(seen[0]!.url, "/api/v2/trade/orders")
      assert.strictEqual(seen[0]!.body, body)
      assert.strictEqual(seen[0]!.headers["access-key"], "key")
      assert.strictEqual(seen[0]!.headers["content-type"], "application/json")
      assert.strictEqual(seen[0]!.headers["content-length"], String(Buffer.byteLength(body)))
    }).pipe(Effect.provide(client)))

  it.effect("an error status is an answer, not a failure", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* server
      const http = yield* HttpClient.HttpClient
      const response = yield* http.get(`${baseUrl}/teapot`)
      assert.strictEqual(response.status, 418)
      assert.strictEqual(yield* response.text, `{"status":418,"text":"naïve ✓"}`)
    }).pipe(Effect.provide(client)))

  it.effect("a refused connection fails with a TransportError carrying ECONNREFUSED", () =>
    Effect.gen(function*() {
      const http = yield* HttpClient.HttpClient
      const error = yield* Effect.flip(http.get("http://127.0.0.1:9/nothing"))
      assert.strictEqual(error.reason._tag, "TransportError")
      const cause = error.reason.cause as { readonly code?: unknown }
      assert.strictEqual(cause.code, "ECONNREFUSED")
    }).pipe(Effect.provide(client)))

  it.effect("through SpotClient, a refused connection is a TransportError that was not sent", () =>
    Effect.gen(function*() {
      const spot = yield* SpotClient.SpotClient
      const error = yield* Effect.flip(spot.openOrdersPage({ symbol: "BTCUSDT_SPBL" }))
      assert.strictEqual(error.reason._tag, "TransportError")
      assert.isTrue(error.reason._tag === "TransportError" && error.reason.notSent === true)
      assert.include(error.message, "ECONNREFUSED")
    }).pipe(Effect.provide(NodeSpotClient.layer({
      baseUrl: "http://127.0.0.1:9",
      credentials: { apiKey: Redacted.make("k"), secretKey: Redacted.make("s"), passphrase: Redacted.make("p") },
      retry: false
    }))))

  it.effect("interrupting the caller aborts the request: the server sees its connection close", () =>
    Effect.gen(function*() {
      const { baseUrl, closed, held } = yield* server
      const http = yield* HttpClient.HttpClient
      const fiber = yield* Effect.forkChild(http.post(`${baseUrl}/hold`, { body: undefined }))
      yield* Deferred.await(held)
      yield* Fiber.interrupt(fiber)
      yield* Deferred.await(closed)
      assert.isTrue(Deferred.isDoneUnsafe(closed))
    }).pipe(Effect.provide(client)))

  it.effect("with a timeout, a request with no answer fails with a TimeoutError cause and is aborted", () =>
    Effect.gen(function*() {
      const { baseUrl, closed } = yield* server
      const http = yield* HttpClient.HttpClient
      const error = yield* Effect.flip(http.post(`${baseUrl}/hold`))
      assert.strictEqual(error.reason._tag, "TransportError")
      assert.isTrue(Cause.isTimeoutError(error.reason.cause))
      yield* Deferred.await(closed)
    }).pipe(Effect.provide(clientWith(50))))

  // One timer cannot wait longer than 2^31 - 1 ms (Node's setTimeout fires at once beyond it): such a timeout arms no
  // timer (NodeSpotClient has the client race it instead).
  it.effect("a timeout longer than one timer can hold arms none: the request is answered", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* server
      const http = yield* HttpClient.HttpClient
      const response = yield* http.post(`${baseUrl}/api/v2/trade/orders`)
      assert.strictEqual(response.status, 200)
    }).pipe(Effect.provide(clientWith(2 ** 31))))

  it.effect("through SpotClient, its timeout is the client's: no answer within the timeout, retryable", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* server
      const error = yield* Effect.flip(
        Effect.flatMap(Effect.service(SpotClient.SpotClient), (spot) => spot.openOrdersPage({ symbol: "BTCUSDT_SPBL" }))
          .pipe(
            Effect.provide(NodeSpotClient.layer({
              baseUrl: `${baseUrl}/hold`,
              credentials: {
                apiKey: Redacted.make("k"),
                secretKey: Redacted.make("s"),
                passphrase: Redacted.make("p")
              },
              retry: false,
              timeout: "100 millis"
            }))
          )
      )
      assert.strictEqual(error.reason._tag, "TransportError")
      assert.include(error.message, "no answer within 100ms")
      assert.isTrue(error.isRetryable)
    }).pipe(Effect.provide(client)))

  // One timer serves every deadline of a client (`Deadlines`): it may be armed for an exchange that has since ended,
  // and then fires before the next one is due. That one must still get its whole timeout, counted from its own start.
  it.effect("each exchange gets its whole timeout from its own start, whatever came and went before it", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* server
      const http = yield* HttpClient.HttpClient
      const timed = <A, E>(effect: Effect.Effect<A, E>) =>
        Effect.suspend(() => {
          const start = performance.now()
          return Effect.map(Effect.exit(effect), (exit) => ({ exit, millis: performance.now() - start }))
        })
      const pause = (millis: number) => Effect.promise(() => new Promise((resolve) => setTimeout(resolve, millis)))
      // Answered at once: the timer is armed for its deadline, 300 ms on, and stays armed when it ends.
      assert.strictEqual((yield* http.post(`${baseUrl}/api/v2/trade/orders`)).status, 200)
      yield* pause(150)
      // Three held exchanges, started 100 ms apart, one answered among them.
      const held = yield* Effect.forEach([0, 1, 2], (i) =>
        Effect.andThen(
          pause(i === 0 ? 0 : 100),
          Effect.forkChild(timed(http.post(`${baseUrl}/hold`)), { startImmediately: true })
        ))
      assert.strictEqual((yield* http.post(`${baseUrl}/api/v2/trade/orders`)).status, 200)
      for (const fiber of held) {
        const { exit, millis } = yield* Fiber.join(fiber)
        assert.isTrue(exit._tag === "Failure" && Cause.hasFails(exit.cause), "timed out")
        const error = exit._tag === "Failure" ? Cause.squash(exit.cause) as { reason?: { cause?: unknown } } : {}
        assert.isTrue(Cause.isTimeoutError(error.reason?.cause))
        assert.isAtLeast(millis, 300, "never before its own deadline")
        assert.isBelow(millis, 3_000)
      }
    }).pipe(Effect.provide(clientWith(300))))

  // An expiry resumes its fiber at once, which may start the next exchange before the expiring is done: that one must
  // not arm a second timer beside the one armed for it afterwards (a chain of timers per timeout, growing).
  it.effect("an exchange started by an expiry is served by the one timer: never two timers armed", () =>
    Effect.gen(function*() {
      // Node's timers may fire a little early (they count from the event loop's time); the list then re-arms for the
      // rest, so the number of armings varies. What must hold is that no two are pending at once.
      let pending = 0
      let most = 0
      const realSetTimeout = globalThis.setTimeout
      const counting = ((callback: () => void, millis: number) => {
        most = Math.max(most, ++pending)
        return realSetTimeout(() => {
          pending--
          callback()
        }, millis)
      }) as typeof setTimeout
      const expired: Array<number> = []
      yield* Effect.callback<void>((resume) => {
        globalThis.setTimeout = counting
        const deadlines = new UndiciClient.Deadlines(20)
        // Each expiry adds the next deadline at once, five times.
        const next = (i: number) =>
          deadlines.add(UndiciClient.deadlineOf(() => {
            expired.push(i)
            if (i < 5) next(i + 1)
            else resume(Effect.void)
          }))
        next(1)
      }).pipe(Effect.ensuring(Effect.sync(() => (globalThis.setTimeout = realSetTimeout))))
      assert.deepStrictEqual(expired, [1, 2, 3, 4, 5])
      assert.strictEqual(most, 1, "timers pending at once")
    }))

  it.effect(
    "the deadline timer does not hold the process open once its exchanges have ended",
    () =>
      Effect.gen(function*() {
        const script = fileURLToPath(new URL("./support/deadlineExit.ts", import.meta.url))
        const run = yield* Effect.callback<
          { readonly code: number | null; readonly stdout: string; readonly stderr: string; readonly millis: number }
        >(
          (resume) => {
            const start = performance.now()
            const child = execFile(
              process.execPath,
              ["--conditions=@spotkit/source", script],
              { timeout: 30_000 },
              (error, stdout, stderr) =>
                resume(Effect.succeed({
                  code: error === null ? 0 : typeof error.code === "number" ? error.code : null,
                  stdout,
                  stderr,
                  millis: performance.now() - start
                }))
            )
            return Effect.sync(() => child.kill())
          }
        )
        assert.strictEqual(run.stdout, "answered 200\n", run.stderr)
        assert.strictEqual(run.code, 0, run.stderr)
        // The timer is armed for 60 s; the process ends long before (its startup takes a second or two).
        assert.isBelow(run.millis, 20_000)
      }),
    { timeout: 40_000 }
  )

  it.effect("query parameters and stream bodies go through platform-node's client, bounded by the Timeout too", () =>
    Effect.gen(function*() {
      const { baseUrl, held, seen } = yield* server
      const http = yield* HttpClient.HttpClient
      const withQuery = yield* http.get(`${baseUrl}/search`, { urlParams: { q: "a b", n: "2" } })
      assert.strictEqual(withQuery.status, 200)
      const streamed = yield* http.execute(
        HttpClientRequest.post(`${baseUrl}/upload`).pipe(
          HttpClientRequest.bodyStream(Stream.make(new TextEncoder().encode("one "), new TextEncoder().encode("two")))
        )
      )
      assert.strictEqual(yield* streamed.text, `{"status":200,"text":"naïve ✓"}`)
      // Under a timeout the answer is read whole there too, and still readable.
      const bounded = yield* Effect.flatMap(
        Effect.service(HttpClient.HttpClient),
        (timed) => Effect.flatMap(timed.get(`${baseUrl}/search`, { urlParams: { q: "c" } }), (r) => r.text)
      ).pipe(Effect.provide(clientWith(10_000)))
      assert.strictEqual(bounded, `{"status":200,"text":"naïve ✓"}`)
      const heldThere = yield* Effect.flip(
        Effect.flatMap(
          Effect.service(HttpClient.HttpClient),
          (timed) => timed.get(`${baseUrl}/hold`, { urlParams: { q: "d" } })
        ).pipe(Effect.provide(clientWith(50)))
      )
      assert.isTrue(Cause.isTimeoutError(heldThere.reason.cause))
      // The held request timed out on the client's side; on a busy machine the server may see it only now.
      yield* Deferred.await(held)
      assert.deepStrictEqual(seen.map((s) => [s.method, s.url, s.body]), [
        ["GET", "/search?q=a+b&n=2", ""],
        ["POST", "/upload", "one two"],
        ["GET", "/search?q=c", ""],
        ["GET", "/hold?q=d", ""]
      ])
    }).pipe(Effect.provide(client)))
})

describe("NodeSpotClient's undici HttpClient: spans", () => {
  it.effect("each exchange is a client span inside the caller's, with method, URL, server and status", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* server
      const { spans, tracer } = recordingTracer()
      const http = yield* HttpClient.HttpClient
      yield* Effect.gen(function*() {
        yield* http.execute(
          HttpClientRequest.post(`${baseUrl}/api/v2/trade/orders`).pipe(
            HttpClientRequest.setHeaders({ "ACCESS-KEY": "key-value", "ACCESS-SIGN": "sign-value", locale: "en-US" }),
            HttpClientRequest.bodyText("{}", "application/json")
          )
        )
        yield* http.get(`${baseUrl}/teapot?symbol=BTCUSDT_SPBL`)
      }).pipe(Effect.withSpan("caller"), Effect.withTracer(tracer))
      const caller = spans.find((span) => span.name === "caller")!
      const [post, get] = spans.filter((span) => span.kind === "client")
      assert.isDefined(post)
      assert.isDefined(get)
      assert.strictEqual(post!.name, "POST")
      assert.strictEqual(post!.parent._tag === "Some" && post!.parent.value.spanId, caller.spanId)
      const port = Number(new URL(baseUrl).port)
      assert.deepStrictEqual(Object.fromEntries(post!.attributes), {
        "http.request.method": "POST",
        "url.full": `${baseUrl}/api/v2/trade/orders`,
        "url.path": "/api/v2/trade/orders",
        "url.scheme": "http",
        "server.address": "127.0.0.1",
        "server.port": port,
        "http.response.status_code": 200
      })
      assert.strictEqual(post!.status._tag === "Ended" && post!.status.exit._tag, "Success")
      // A 4xx answer is an answer, but its span failed, as OpenTelemetry has it.
      assert.strictEqual(get!.attributes.get("url.query"), "symbol=BTCUSDT_SPBL")
      assert.strictEqual(get!.attributes.get("http.response.status_code"), 418)
      assert.strictEqual(get!.attributes.get("error.type"), "418")
      assert.strictEqual(get!.status._tag === "Ended" && get!.status.exit._tag, "Failure")
    }).pipe(Effect.provide(client)))

  it.effect("headers only as TracerHeaderFilter selects them, credential headers redacted; none when off", () =>
    Effect.gen(function*() {
      const { baseUrl } = yield* server
      const { spans, tracer } = recordingTracer()
      const http = yield* HttpClient.HttpClient
      const request = HttpClientRequest.post(`${baseUrl}/api/v2/trade/orders`).pipe(
        HttpClientRequest.setHeaders({ "ACCESS-KEY": "key-value", "ACCESS-SIGN": "sign-value", locale: "en-US" })
      )
      yield* http.execute(request).pipe(
        Effect.provideService(HttpClient.TracerHeaderFilter, () => true),
        Effect.provideService(Headers.CurrentRedactedNames, ["access-key", "access-sign"]),
        Effect.withTracer(tracer)
      )
      const attributes = Object.fromEntries(spans[0]!.attributes)
      assert.strictEqual(attributes["http.request.header.access-key"], "<redacted>")
      assert.strictEqual(attributes["http.request.header.access-sign"], "<redacted>")
      assert.strictEqual(attributes["http.request.header.locale"], "en-US")
      assert.strictEqual(attributes["http.response.header.x-answer"], "yes")
      assert.notInclude(JSON.stringify(attributes), "key-value")
      assert.notInclude(JSON.stringify(attributes), "sign-value")
      yield* http.execute(request).pipe(
        Effect.provideService(HttpClient.TracerDisabledWhen, () => true),
        Effect.withTracer(tracer)
      )
      yield* http.execute(request).pipe(
        Effect.provideService(Tracer.DisablePropagation, true),
        Effect.withTracer(tracer)
      )
      assert.strictEqual(spans.length, 1)
      // Under the native tracer (no backend) no span is made: the span's name is never asked for.
      let named = 0
      const naming = (request: HttpClientRequest.HttpClientRequest) => {
        named++
        return request.method
      }
      yield* http.execute(request).pipe(Effect.provideService(HttpClient.SpanNameGenerator, naming))
      assert.strictEqual(named, 0)
      yield* http.execute(request).pipe(
        Effect.provideService(HttpClient.SpanNameGenerator, naming),
        Effect.withTracer(tracer)
      )
      assert.strictEqual(named, 1)
    }).pipe(Effect.provide(client)))
})
