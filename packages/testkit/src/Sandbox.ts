/**
 * The sandbox: the exchange's protocol as a real HTTP server on loopback, for programs and tools that must cross a
 * socket (the CLI, other languages, load tests). The same `TestExchange` serves it, so a test can seed and inspect
 * the state while a client talks HTTP.
 *
 * Faults act on the wire: a dropped connection is a socket reset, a timeout is a request that is never answered
 * (until the sandbox stops), latency delays the answer on the real clock.
 *
 * The sandbox tells time, and checks request timestamps, by the `Clock` of the scope its layer is built in. Under
 * `@effect/vitest`, `it.layer` builds on a `TestClock` stopped at 0 unless given `{ excludeTestServices: true }`: a
 * sandbox built there serves time 0 and refuses every request signed with the wall clock (40008).
 *
 * ```ts
 * const SandboxLayer = Sandbox.layer().pipe(Layer.provideMerge(TestExchange.layer(TestExchange.demo())))
 * it.layer(SandboxLayer, { excludeTestServices: true })("over loopback HTTP", (it) => {
 *   ...
 * })
 * ```
 *
 * @since 0.1.0
 */
import { Clock, Context, Data, Effect, Layer } from "effect"
import { Buffer } from "node:buffer"
import type { IncomingMessage, ServerResponse } from "node:http"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import type { Duplex } from "node:stream"
import { hostAllowed, hostRefusal, refuseUpgrade } from "./internal/loopback.ts"
import { TestExchange } from "./TestExchange.ts"

/**
 * @since 0.1.0
 * @category options
 */
export interface Options {
  /** @default 0 (any free port) */
  readonly port?: number | undefined
  /**
   * The address to listen on. What arrives on a loopback address (the default's only one) is answered only when
   * addressed to a loopback name (`Host`: `localhost`, `*.localhost`, `127.x.x.x`, `[::1]`), others 403: a page whose
   * name is pointed at 127.0.0.1 (DNS rebinding) cannot drive the sandbox with the demo keys. What arrives on another
   * address (a sandbox bound to be reached from elsewhere) may name it any way.
   *
   * @default "127.0.0.1"
   */
  readonly host?: string | undefined
  /**
   * Answer cross-origin requests from this origin (`"http://localhost:5173"`, or `"*"` for any), so that a program
   * in a browser page can call the sandbox directly: preflights are answered and every answer carries
   * `Access-Control-Allow-Origin`. A browser blocks a request the sandbox does not allow before the program sees
   * an answer. With the push venue on the port (`PushVenue.layerSandbox`), a WebSocket handshake that carries an
   * `Origin` (a browser's) is refused 403 unless it is this origin (or `"*"`); programs outside a browser send none.
   *
   * @default undefined (no CORS headers: a page on another origin cannot read the answers)
   */
  readonly cors?: string | undefined
  /**
   * Takes the HTTP upgrades (WebSocket handshakes) on the sandbox's port, e.g. the push venue's
   * (`PushVenue.layerSandbox`).
   */
  readonly upgrade?: ((request: IncomingMessage, socket: Duplex, head: Buffer) => void) | undefined
}

/**
 * A running sandbox.
 *
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /** e.g. `"http://127.0.0.1:39421"` */
  readonly baseUrl: string
  readonly port: number
}

/**
 * @since 0.1.0
 * @category services
 */
export class Sandbox extends Context.Service<Sandbox, Service>()("@spotkit/testkit/Sandbox") {}

/**
 * The server could not listen.
 *
 * @since 0.1.0
 * @category errors
 */
export class SandboxError extends Data.TaggedError("SandboxError")<{ readonly message: string }> {}

const headerOf = (request: IncomingMessage) => (name: string): string | undefined => {
  const value = request.headers[name]
  return Array.isArray(value) ? value.join(", ") : value
}

/**
 * Starts the sandbox for the lifetime of the layer's scope; stopping it closes every connection, including requests
 * held by a `Timeout` fault.
 *
 * It serves on the `Clock` in context when the layer is built (server time, the timestamp window, every record's
 * time). For programs that sign with the wall clock (the CLI, another process, a client on the real clock), build it
 * on the real clock: `it.layer(layer, { excludeTestServices: true })`, or within `it.live`. Built on a `TestClock`
 * (`it.layer` without that option, or `it.effect`), it serves time 0 and answers them 40008 (timestamp expired); only
 * clients on that same `TestClock` are served.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options = {}): Layer.Layer<Sandbox, SandboxError, TestExchange> =>
  Layer.effect(
    Sandbox,
    Effect.gen(function*() {
      const exchange = yield* TestExchange
      const clock = yield* Clock.clockWith(Effect.succeed)
      const maxBody = exchange.maxBodyBytes
      const timers = new Set<ReturnType<typeof setTimeout>>()

      const answer = (
        request: IncomingMessage,
        response: ServerResponse,
        bytes: Buffer | undefined,
        bodyTooLarge: boolean
      ) => {
        const outcome = exchange.handleAt({
          method: request.method ?? "GET",
          path: request.url ?? "/",
          header: headerOf(request),
          body: bytes === undefined ? "" : bytes.toString("utf8"),
          bodyBytes: bytes,
          bodyTooLarge,
          clientAddress: request.socket.remoteAddress ?? "unknown"
        }, clock.currentTimeMillisUnsafe())
        const send = () => {
          switch (outcome._tag) {
            case "Respond":
              response.writeHead(outcome.status, {
                ...outcome.headers,
                "content-type": outcome.contentType,
                "content-length": Buffer.byteLength(outcome.body),
                // The rest of a body too large is never read: the connection cannot carry another request.
                ...(bodyTooLarge ? { connection: "close" } : {})
              })
              response.end(outcome.body)
              return
            case "Drop":
              request.socket.destroy()
              return
            case "Hang":
              return
          }
        }
        const delay = outcome._tag === "Hang" ? 0 : outcome.delayMillis
        if (delay > 0) {
          const timer = setTimeout(() => {
            timers.delete(timer)
            send()
          }, delay)
          timers.add(timer)
        } else {
          send()
        }
      }

      const bound = options.host ?? "127.0.0.1"
      const server = createServer((request, response) => {
        if (!hostAllowed(request.socket.localAddress, request.headers.host)) {
          response.writeHead(403, { "content-type": "text/plain", "content-length": Buffer.byteLength(hostRefusal) })
          response.end(hostRefusal)
          return
        }
        if (options.cors !== undefined) {
          const origin = request.headers.origin
          if (options.cors === "*" || origin === options.cors) {
            response.setHeader("access-control-allow-origin", options.cors === "*" ? "*" : options.cors)
            response.setHeader("vary", "origin")
          }
          // A preflight: allow the method and whatever headers the client means to send (the signed ones, `locale`,
          // trace context), without reaching the exchange.
          if (request.method === "OPTIONS") {
            response.writeHead(204, {
              "access-control-allow-methods": "GET, POST",
              "access-control-allow-headers": request.headers["access-control-request-headers"] ?? "content-type",
              "access-control-max-age": "600"
            })
            response.end()
            return
          }
        }
        // A body larger than the limit is refused without reading it: at once when its Content-Length says so, and
        // when it comes in chunks, as soon as they pass the limit. The protocol answers (413 where a body counts)
        // and the connection closes, the rest of the body unread.
        if (Number(request.headers["content-length"] ?? 0) > maxBody) {
          answer(request, response, undefined, true)
          return
        }
        const chunks: Array<Buffer> = []
        let size = 0
        let refused = false
        const onData = (chunk: Buffer) => {
          size += chunk.length
          if (size <= maxBody) {
            chunks.push(chunk)
            return
          }
          refused = true
          request.off("data", onData)
          request.pause()
          answer(request, response, undefined, true)
        }
        request.on("data", onData)
        request.on("end", () => {
          // The bytes go to the exchange as received (the signature is checked over them), with their text.
          if (!refused) answer(request, response, Buffer.concat(chunks), false)
        })
        request.on("error", () => request.socket.destroy())
      })
      server.keepAliveTimeout = 5_000
      const upgrade = options.upgrade
      if (upgrade !== undefined) {
        server.on("upgrade", (request: IncomingMessage, socket: Duplex, head: Buffer) =>
          hostAllowed(request.socket.localAddress, request.headers.host)
            ? upgrade(request, socket, head)
            : refuseUpgrade(socket, 403, hostRefusal))
      }

      const port = yield* Effect.acquireRelease(
        Effect.callback<number, SandboxError>((resume) => {
          server.once("error", (error) =>
            resume(Effect.fail(new SandboxError({ message: error.message }))))
          server.listen(options.port ?? 0, bound, () => {
            // From now on a server error (rare after listening) must not crash the process: connections fail alone.
            server.removeAllListeners("error")
            server.on("error", () =>
              undefined)
            resume(Effect.succeed((server.address() as AddressInfo).port))
          })
        }),
        () =>
          Effect.callback<void>((resume) => {
            for (const timer of timers) clearTimeout(timer)
            server.close(() => resume(Effect.void))
            server.closeAllConnections()
          })
      )
      return { baseUrl: `http://${bound.includes(":") ? `[${bound}]` : bound}:${port}`, port }
    })
  )
