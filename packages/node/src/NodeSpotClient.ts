/**
 * A ready `SpotClient` on Node: `SpotClient.layer` of `@spotkit/core` over undici (a keep-alive connection pool
 * with connect, header and body timeouts, used directly; `transport` picks platform-node's undici client or Node's
 * own), signing with `node:crypto` (`NodeSigner`), and the live clock. The client corrects the clock's skew from the server times in the venue's answers by itself (core's
 * `clockOffset`), so a machine whose clock is off by a minute still signs timestamps the venue accepts.
 *
 * ```ts
 * import { NodeSpotClient } from "@spotkit/node"
 * import { SpotClient } from "@spotkit/core"
 * import { Effect } from "effect"
 *
 * const program = Effect.gen(function*() {
 *   const client = yield* SpotClient.SpotClient
 *   return yield* client.placeOrder({ symbol: "BTCUSDT_SPBL", side: "buy", orderType: "limit", force: "normal",
 *     price: "30000", quantity: "0.01" })
 * })
 *
 * program.pipe(Effect.provide(NodeSpotClient.layerConfig()), Effect.runPromise)
 * ```
 *
 * @since 0.1.0
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { SpotClient } from "@spotkit/core"
import { Config, Duration, Effect, Layer } from "effect"
import { FetchHttpClient, HttpClient } from "effect/http"
import * as UndiciClient from "./internal/undiciClient.ts"
import * as NodeSigner from "./NodeSigner.ts"

/**
 * The connection pool of the undici `HttpClient`.
 *
 * @since 0.1.0
 * @category options
 */
export interface HttpOptions {
  /**
   * The HTTP implementation.
   *
   * - `"undici"`: undici's pooled dispatcher, built for many requests in flight, used directly (each answer read
   *   whole into memory; no HTTP span per request: the client's own operation spans remain). The fastest.
   * - `"effect-undici"`: `@effect/platform-node`'s undici `HttpClient` over the same pool: an HTTP client span per
   *   request and trace-context headers to the venue, at about twice the CPU per request.
   * - `"node:http"`: Node's own client with a keep-alive agent, which holds far less memory (its parser is native,
   *   undici's is WebAssembly); the `spotkit` CLI uses it, as it sends one request at a time.
   *
   * @default "undici"
   */
  readonly transport?: "undici" | "effect-undici" | "node:http" | undefined
  /** Connections per origin; `undefined` opens as many as there are requests in flight. @default unbounded */
  readonly connections?: number | undefined
  /** How long an idle keep-alive connection stays open. @default 30 seconds */
  readonly keepAliveTimeout?: Duration.Input | undefined
  /** Time allowed to open a connection (DNS, TCP, TLS). @default 10 seconds */
  readonly connectTimeout?: Duration.Input | undefined
}

/**
 * The client's options (core `SpotClient.Options`: base URL, credentials, locale, rate limits, retries, the request
 * timeout) and those of the connection pool.
 *
 * @since 0.1.0
 * @category options
 */
export interface Options extends SpotClient.Options, HttpOptions {}

const millis = (input: Duration.Input | undefined, fallback: Duration.Input): number =>
  Duration.toMillis(Duration.fromInputUnsafe(input ?? fallback))

// Bun's `undici` module is a stand-in without the pool the undici transports dispatch through (every request failed
// with a bare TransportError), so under Bun they give way to Bun's own fetch.
const undiciMissing = typeof process.versions.bun === "string"

/**
 * An `HttpClient` with a keep-alive pool, undici's unless `transport` says `"node:http"` (see `HttpOptions`). Its socket
 * timeouts follow the client's request `timeout`, so that a stalled socket is released. The default transport bounds
 * the whole exchange by it too, failing with a `TransportError` caused by a `TimeoutError`, as core's
 * `timeoutBy: "transport"` expects, and stops reading an answer past `maxResponseBytes` (default 64 MiB), failing
 * with a `TransportError` caused by a `SpotError.ResponseTooLargeError` (the client's own reading bounds the others). Under Bun, whose `undici` has no pool, the two undici transports are Bun's `fetch`
 * (`FetchHttpClient`: its own connection reuse; `connections`, `keepAliveTimeout` and `connectTimeout` do not apply).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerHttpClient = (
  options: HttpOptions & {
    readonly timeout?: Duration.Input | undefined
    readonly maxResponseBytes?: number | undefined
  } = {}
): Layer.Layer<HttpClient.HttpClient> => {
  if (undiciMissing && options.transport !== "node:http") return FetchHttpClient.layer
  const timeout = millis(options.timeout, "10 seconds")
  if (options.transport === "node:http") {
    return NodeHttpClient.layerNodeHttpOptions({
      keepAlive: true,
      ...(options.connections === undefined ? {} : { maxSockets: options.connections }),
      timeout
    })
  }
  const dispatcher = NodeHttpClient.layerDispatcherOptions({
    ...(options.connections === undefined ? {} : { connections: options.connections }),
    keepAliveTimeout: millis(options.keepAliveTimeout, "30 seconds"),
    connect: { timeout: millis(options.connectTimeout, "10 seconds") },
    headersTimeout: timeout,
    bodyTimeout: timeout
  })
  if (options.transport === "effect-undici") {
    // Note: platform-node's client sets its own headersTimeout (1 hour) and bodyTimeout (none) on every request,
    // which win over the pool's; core's timeout still bounds every exchange.
    return NodeHttpClient.layerUndiciNoDispatcher.pipe(Layer.provide(dispatcher))
  }
  const maxBodyBytes = options.maxResponseBytes ?? SpotClient.DEFAULT_MAX_RESPONSE_BYTES
  return Layer.effect(HttpClient.HttpClient, UndiciClient.make({ timeoutMillis: timeout, maxBodyBytes })).pipe(
    Layer.provide(dispatcher)
  )
}

/**
 * A ready `SpotClient`: undici HTTP, `node:crypto` signing, the live clock. Over the default transport the HTTP client
 * bounds each exchange by `timeout` itself (`timeoutBy: "transport"`); over the others the client races it. Under Bun
 * the HTTP client is Bun's `fetch` (see `layerHttpClient`), and the client races the timeout.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<SpotClient.SpotClient> => {
  // The undici client bounds the exchange itself, unless one timer cannot hold the timeout.
  const bounding = !undiciMissing && (options.transport ?? "undici") === "undici" &&
    millis(options.timeout, "10 seconds") <= UndiciClient.MAX_TIMER
  return SpotClient.layer({ ...options, timeoutBy: options.timeoutBy ?? (bounding ? "transport" : "client") }).pipe(
    Layer.provide([layerHttpClient(options), NodeSigner.layer])
  )
}

/**
 * The default configuration: core's `SPOTKIT_BASE_URL`, `SPOTKIT_API_KEY`, `SPOTKIT_SECRET_KEY`,
 * `SPOTKIT_PASSPHRASE` (the three secrets read as `Redacted`), `SPOTKIT_LOCALE` (optional), and
 * `SPOTKIT_RATE_LIMIT` (`on` or `off`, default `on`): `off` turns the client-side limits of DESIGN §4 off, for a venue
 * that does not enforce them (the sandbox started with `--rate-limits off`).
 *
 * @since 0.1.0
 * @category layers
 */
export const defaultConfig: Config.Wrap<Options> = {
  ...SpotClient.defaultConfig,
  rateLimit: Config.Literals(["on", "off"], "SPOTKIT_RATE_LIMIT").pipe(
    Config.withDefault("on"),
    Config.map((value) => value === "off" ? false as const : undefined)
  )
}

/**
 * A ready `SpotClient` configured from `Config`, by default the environment (see `defaultConfig`). A missing or
 * invalid variable fails the layer with a `SpotClient.ConfigurationError` that names it ("SPOTKIT_PASSPHRASE is not
 * set").
 *
 * @since 0.1.0
 * @category layers
 */
export const layerConfig = (
  config: Config.Wrap<Options> = defaultConfig
): Layer.Layer<SpotClient.SpotClient, Config.ConfigError> =>
  Layer.unwrap(Effect.map(SpotClient.readConfig(config), layer))
