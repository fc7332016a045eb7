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
import type * as NodeRedis from "@effect/platform-node/NodeRedis"
import { RateLimitStore, SafeText, SpotClient, SpotError } from "@spotkit/core"
import { Config, Duration, Effect, Layer, Redacted, References } from "effect"
import { FetchHttpClient, HttpClient, HttpClientError } from "effect/http"
import * as Proxies from "./internal/proxy.ts"
import * as RateLimitEnv from "./internal/rateLimitEnv.ts"
import * as RedisEnv from "./internal/redisEnv.ts"
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
   *   whole into memory), with an HTTP client span per request under a tracing backend (as effect's clients make
   *   them, headers only as `HttpClient.TracerHeaderFilter` selects, credential headers redacted; none under
   *   Effect's native tracer, which exports nothing) and no trace-context headers to the venue. The fastest.
   * - `"effect-undici"`: `@effect/platform-node`'s undici `HttpClient` over the same pool: an HTTP client span per
   *   request and trace-context headers to the venue, at about twice the CPU per request.
   * - `"node:http"`: Node's own client with a keep-alive agent (its parser is native, undici's is WebAssembly), and
   *   an HTTP client span per request; no `proxy`. The `spotkit` CLI used it until the undici transport measured
   *   faster on its export at less memory (BENCHMARKS.md).
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
  /**
   * An HTTP(S) proxy: one URL for every venue (`"http://proxy.internal:3128"`; `http://user:password@host:port` sends
   * Basic `Proxy-Authorization`; a `Redacted` URL keeps a password out of logs), or one per scheme with the hosts
   * reached directly, as `HTTPS_PROXY`, `HTTP_PROXY` and `NO_PROXY` say (`layerConfig` reads those). An `https:` venue
   * is reached through a `CONNECT` tunnel: the proxy sees only the venue's host. An `http:` one (a sandbox) is sent
   * to the proxy as is, signed headers included. The undici transports support it; `"node:http"` does not, and a
   * layer given a proxy there fails with a `ValidationError` on `proxy`, as does a value that is neither an `http:`
   * or `https:` URL with a host nor `host:port` (taken as `http://`, as curl does). A transport failure of a request
   * sent through the proxy says so, naming the proxy by its scheme, host and port ("through the proxy
   * http://proxy.internal:3128: connect ECONNREFUSED ..."). Under Bun, the proxy for the venue's origin goes to Bun's
   * `fetch` (its `proxy` option).
   * @default none
   */
  readonly proxy?: ProxyOptions | string | Redacted.Redacted<string> | undefined
}

/**
 * Proxies by the venue's scheme, as the `HTTPS_PROXY`, `HTTP_PROXY` and `NO_PROXY` environment variables give them.
 *
 * @since 0.1.0
 * @category options
 */
export interface ProxyOptions {
  /** The proxy for `https:` venues (the venue's API). @default `http` */
  readonly https?: string | Redacted.Redacted<string> | undefined
  /** The proxy for `http:` venues. @default none */
  readonly http?: string | Redacted.Redacted<string> | undefined
  /**
   * Hosts reached without a proxy, comma-separated: `host`, `.domain` or `*.domain` (subdomains), `host:port`, or
   * `*` for every host.
   * @default none
   */
  readonly noProxy?: string | undefined
}

/**
 * A rate-limit budget shared through Redis (`RateLimitStore.layerRedis` over `@effect/platform-node`'s `NodeRedis`):
 * every process with the same API key and the same Redis counts against one budget, as the venue does.
 *
 * @since 0.1.0
 * @category options
 */
export interface RedisOptions {
  /**
   * e.g. `"redis://127.0.0.1:6379"` or `"redis://:password@host:6379/0"` (`rediss:` for TLS); messages name it by its
   * scheme, host, port and database only (`safeRedisUrl`). Any other URL fails the layer with a `RateLimitStoreError`.
   */
  readonly url: string | Redacted.Redacted<string>
  /**
   * When Redis is lost mid-run: `"memory"` goes on against this process's own budget (one warning logged, Redis
   * tried again every 5 s), `"fail"` fails each call with a `RateLimitStoreError` before sending.
   * @default "memory"
   */
  readonly onUnavailable?: "memory" | "fail" | undefined
  /** Time allowed to connect, and for one command. @default 2 seconds */
  readonly timeout?: Duration.Input | undefined
  /** Prefix of the store's keys. @default "spotkit:{budget}:" */
  readonly prefix?: string | undefined
}

/**
 * The client's options (core `SpotClient.Options`: base URL, credentials, locale, rate limits, retries, the request
 * timeout), those of the connection pool, and the Redis that shares the rate-limit budget.
 *
 * @since 0.1.0
 * @category options
 */
export interface Options extends SpotClient.Options, HttpOptions {
  /** Share the rate-limit budget with other processes through Redis. @default each client its own, in memory */
  readonly redis?: RedisOptions | undefined
}

const millis = (input: Duration.Input | undefined, fallback: Duration.Input): number =>
  Duration.toMillis(Duration.fromInputUnsafe(input ?? fallback))

const refused = (field: string, description: string) =>
  new SpotError.SpotError({
    operation: "NodeSpotClient.layer",
    reason: new SpotError.ValidationError({ field, description })
  })

const proxiesOf = (options: HttpOptions): Proxies.Resolved | undefined | SpotError.SpotError => {
  const proxies = Proxies.resolve(options.proxy)
  return proxies !== undefined && "invalid" in proxies ? refused("proxy", proxies.invalid) : proxies
}

// Node's own client throws from `http.request` for a header it will not write (a line break or a character beyond
// Latin-1 in a value, a name that is not a token), which platform-node's client leaves a defect of the exchange.
// Nothing was written: it becomes the exchange's TransportError, whose code core reads as "not sent".
const HEADER_REFUSALS: ReadonlySet<string> = new Set([
  "ERR_INVALID_CHAR",
  "ERR_INVALID_HTTP_TOKEN",
  "ERR_HTTP_INVALID_HEADER_VALUE"
])

const headerRefusalsTyped = (client: HttpClient.HttpClient): HttpClient.HttpClient =>
  HttpClient.transform(
    client,
    (effect, request) =>
      Effect.catchDefect(effect, (defect) =>
        defect instanceof TypeError && "code" in defect && HEADER_REFUSALS.has(String(defect.code))
          ? Effect.fail(
            new HttpClientError.HttpClientError({
              reason: new HttpClientError.TransportError({ request, cause: defect })
            })
          )
          : Effect.die(defect))
  )

// A transport failure of a request sent through a proxy says so, naming the proxy by its scheme, host and port only
// ("through the proxy http://proxy.internal:3128: connect ECONNREFUSED ..."): a dead or misnamed proxy is not taken for
// the venue. The cause is kept, so the failure reads as before otherwise (not sent, a timeout, an answer too large).
const throughProxy = (proxies: Proxies.Resolved) => (client: HttpClient.HttpClient): HttpClient.HttpClient =>
  HttpClient.transform(client, (effect, request) =>
    Effect.mapError(effect, (error) => {
      const proxy = error.reason._tag === "TransportError" ? Proxies.forUrl(proxies, request.url) : undefined
      if (proxy === undefined) return error
      const cause = error.reason.cause
      const what = error.reason.description ??
        (cause instanceof Error && cause.message !== "" ? cause.message : undefined)
      return new HttpClientError.HttpClientError({
        reason: new HttpClientError.TransportError({
          request: error.reason.request,
          cause,
          description: `through the proxy ${Proxies.origin(proxy)}${what === undefined ? "" : `: ${what}`}`
        })
      })
    }))

// Bun's `undici` module is a stand-in without the pool the undici transports dispatch through (every request failed
// with a bare TransportError), so under Bun they give way to Bun's own fetch.
const undiciMissing = typeof process.versions.bun === "string"

/**
 * An `HttpClient` with a keep-alive pool, undici's unless `transport` says `"node:http"` (see `HttpOptions`). Its socket
 * timeouts follow the client's request `timeout`, so that a stalled socket is released. The default transport bounds
 * the whole exchange by it too, failing with a `TransportError` caused by a `TimeoutError`, as core's
 * `timeoutBy: "transport"` expects, and stops reading an answer past `maxResponseBytes` (default 64 MiB), failing
 * with a `TransportError` caused by a `SpotError.ResponseTooLargeError` (the client's own reading bounds the others).
 * Under Bun, whose `undici` has no pool, the two undici transports are Bun's `fetch` (`FetchHttpClient`: its own
 * connection reuse; `connections`, `keepAliveTimeout` and `connectTimeout` do not apply; `layer` gives it the
 * proxy). With a `proxy`, the undici transports dispatch through it, and a transport failure through it names it;
 * the layer fails with a `SpotError` whose `ValidationError` is on `proxy` for a URL that is not `http:` or `https:`
 * with a host (or `host:port`), naming each such proxy, and for the `"node:http"` transport.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerHttpClient = (
  options: HttpOptions & {
    readonly timeout?: Duration.Input | undefined
    readonly maxResponseBytes?: number | undefined
  } = {}
): Layer.Layer<HttpClient.HttpClient, SpotError.SpotError> => {
  const proxies = proxiesOf(options)
  if (proxies instanceof SpotError.SpotError) return Layer.effect(HttpClient.HttpClient, Effect.fail(proxies))
  // Under Bun a proxy is Bun's fetch option, given where the client is built (`layer`).
  if (undiciMissing && options.transport !== "node:http") return FetchHttpClient.layer
  const timeout = millis(options.timeout, "10 seconds")
  if (options.transport === "node:http") {
    if (proxies !== undefined) {
      const error = refused("proxy", "the node:http transport cannot use a proxy; use the undici transport")
      return Layer.effect(HttpClient.HttpClient, Effect.fail(error))
    }
    return Layer.effect(HttpClient.HttpClient, Effect.map(HttpClient.HttpClient, headerRefusalsTyped)).pipe(
      Layer.provide(NodeHttpClient.layerNodeHttpOptions({
        keepAlive: true,
        ...(options.connections === undefined ? {} : { maxSockets: options.connections }),
        timeout
      }))
    )
  }
  const pool = {
    ...(options.connections === undefined ? {} : { connections: options.connections }),
    keepAliveTimeout: millis(options.keepAliveTimeout, "30 seconds"),
    connect: { timeout: millis(options.connectTimeout, "10 seconds") },
    headersTimeout: timeout,
    bodyTimeout: timeout
  }
  const dispatcher = proxies === undefined
    ? NodeHttpClient.layerDispatcherOptions(pool)
    : Layer.effect(NodeHttpClient.Dispatcher, Proxies.dispatcher(proxies, pool))
  const proxied = (layer: Layer.Layer<HttpClient.HttpClient>): Layer.Layer<HttpClient.HttpClient> =>
    proxies === undefined
      ? layer
      : Layer.effect(HttpClient.HttpClient, Effect.map(HttpClient.HttpClient, throughProxy(proxies))).pipe(
        Layer.provide(layer)
      )
  if (options.transport === "effect-undici") {
    // Note: platform-node's client sets its own headersTimeout (1 hour) and bodyTimeout (none) on every request,
    // which win over the pool's; core's timeout still bounds every exchange.
    return proxied(NodeHttpClient.layerUndiciNoDispatcher.pipe(Layer.provide(dispatcher)))
  }
  const maxBodyBytes = options.maxResponseBytes ?? SpotClient.DEFAULT_MAX_RESPONSE_BYTES
  return proxied(
    Layer.effect(HttpClient.HttpClient, UndiciClient.make({ timeoutMillis: timeout, maxBodyBytes })).pipe(
      Layer.provide(dispatcher)
    )
  )
}

/**
 * A Redis URL as messages may show it: its scheme, host, port and database number only, without a user name, a
 * password, a query or a fragment (`redis://127.0.0.1:6379/0`).
 *
 * @since 0.1.0
 * @category layers
 */
export const safeRedisUrl = (url: string): string => {
  const parsed = URL.parse(url)
  if (parsed === null) return "an invalid Redis URL"
  // A URL without `//` has no host: what follows the scheme is a path, which may hold anything.
  if (parsed.host === "") return `a ${parsed.protocol} URL without a host`
  return `${parsed.protocol}//${parsed.host}${/^\/\d+$/.test(parsed.pathname) ? parsed.pathname : ""}`
}

// What keeps a URL from being one node-redis connects to, in words that quote nothing of it, or undefined. node-redis
// throws for these while the client is created (Node's `ERR_INVALID_URL` carries the whole URL, password included).
const redisUrlProblem = (url: string): string | undefined => {
  const parsed = URL.parse(url)
  if (parsed === null) return "not a URL; expected redis://host:port"
  if (parsed.protocol !== "redis:" && parsed.protocol !== "rediss:") return "the scheme is not redis: or rediss:"
  if (parsed.hostname === "") return "the URL names no host; expected redis://host:port"
  if (!/^(?:\/\d*)?$/.test(parsed.pathname)) return "the URL has a path other than a database number (/0)"
  // node-redis reads none of a query: `?db=4` would be database 0, a budget apart from the others' `/4`.
  if (parsed.search !== "" || parsed.hash !== "") {
    return "the URL has a query or a fragment, which the Redis client ignores; give the database as the path (/4)"
  }
  if (!Proxies.decodable(parsed.username) || !Proxies.decodable(parsed.password)) {
    return "the URL's user name or password is not valid percent-encoding"
  }
  return undefined
}

// The secrets of a Redis URL, removed from the texts of node-redis's failures: its user name and password (also as
// node-redis decodes them) and the values of its query.
const redisSecrets = (url: string): ReadonlyArray<string> => {
  const parsed = URL.parse(url)
  if (parsed === null) return [url]
  return [
    parsed.username,
    parsed.password,
    Proxies.decoded(parsed.username),
    Proxies.decoded(parsed.password),
    ...parsed.searchParams.values()
  ]
}

// node-redis is loaded when a Redis store is built, not with this module: with its own modules it was most of what the
// CLI loaded, and heap that a process which never uses Redis kept all its life (BENCHMARKS.md, "The export's peak
// memory (issue #26), fourth pass"). A failed import is a broken installation: a defect, as for undici in proxy.ts.
const loadNodeRedis: Effect.Effect<typeof NodeRedis> = Effect.promise(() => import("@effect/platform-node/NodeRedis"))

/**
 * The rate-limit store in Redis (`RateLimitStore.layerRedis`), connected when the layer is built. A URL that is not a
 * `redis:` or `rediss:` URL with a host (and at most a database number as its path), or a Redis that cannot be reached
 * then, fails the layer with a `SpotError` whose `RateLimitStoreError` names the URL by its scheme, host, port and
 * database only (`safeRedisUrl`): never its user name, password or query. node-redis itself is imported when the
 * layer is built, too: a program that never builds this layer never loads it.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerRedisStore = (
  options: RedisOptions
): Layer.Layer<RateLimitStore.RateLimitStore, SpotError.SpotError> => {
  const url = Redacted.isRedacted(options.url) ? Redacted.value(options.url) : options.url
  const name = safeRedisUrl(url)
  const timeout = millis(options.timeout, "2 seconds")
  const scrubber = new SafeText.Scrubber(redisSecrets(url))
  const failed = (description: string) =>
    new SpotError.SpotError({
      operation: "NodeSpotClient.layer",
      reason: new SpotError.RateLimitStoreError({ store: name, description: scrubber.scrub(description) })
    })
  const problem = redisUrlProblem(url)
  if (problem !== undefined) return Layer.effect(RateLimitStore.RateLimitStore, Effect.fail(failed(problem)))
  return Layer.effect(
    RateLimitStore.RateLimitStore,
    Effect.gen(function*() {
      // Commands fail at once while the connection is down (no offline queue), so that the store's policy applies.
      const redis = (yield* loadNodeRedis).layer({
        url,
        disableOfflineQueue: true,
        socket: { connectTimeout: timeout }
      })
      // NodeRedis logs a warning at every failed reconnection attempt; the store logs one when Redis is lost.
      const context = yield* Layer.build(redis).pipe(
        Effect.provideService(References.MinimumLogLevel, "Error"),
        Effect.mapError((error) => {
          const cause = error.cause instanceof Error ? error.cause.message : String(error.cause)
          return failed(`cannot connect: ${cause.split("\n")[0] || "no answer"}`)
        })
      )
      return yield* RateLimitStore.makeRedis({
        name,
        onUnavailable: options.onUnavailable,
        timeout: options.timeout,
        prefix: options.prefix
      }).pipe(Effect.provide(context), Effect.mapError((error) => failed(error.description)))
    })
  )
}

// Why `timeoutBy: "transport"` cannot be honoured: which transport would not bound the exchange.
const unboundedBy = (options: Options): string =>
  `is "transport", but ${
    undiciMissing
      ? "under Bun the transport is Bun's fetch, which"
      : (options.transport ?? "undici") !== "undici"
      ? `the "${options.transport}" transport`
      : "the undici transport, with a timeout longer than one timer holds (about 24.8 days),"
  } does not end an exchange at the timeout; leave it unset (the client then races the timeout)`

/**
 * A ready `SpotClient`: undici HTTP, `node:crypto` signing, the live clock. Over the default transport the HTTP client
 * bounds each exchange by `timeout` itself (`timeoutBy: "transport"`); over the others the client races it. Under Bun
 * the HTTP client is Bun's `fetch` (see `layerHttpClient`), and the client races the timeout. `timeoutBy: "transport"`
 * asked of a transport that does not bound an exchange (`"effect-undici"`, `"node:http"`, Bun's `fetch`, or a timeout
 * longer than one timer holds) would leave exchanges unbounded: the layer fails with a `ValidationError` on
 * `timeoutBy`. With `redis`, the rate-limit budget is shared through Redis (`layerRedisStore`), and the layer fails
 * when Redis cannot be reached.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<SpotClient.SpotClient, SpotError.SpotError> => {
  // The undici client bounds the exchange itself, unless one timer cannot hold the timeout.
  const bounding = !undiciMissing && (options.transport ?? "undici") === "undici" &&
    millis(options.timeout, "10 seconds") <= UndiciClient.MAX_TIMER
  // Asked of a transport that does not bound an exchange, "transport" would leave every exchange without a bound: a
  // venue that trickles its answer a byte at a time would hold the call for ever.
  if (options.timeoutBy === "transport" && !bounding) {
    return Layer.effect(SpotClient.SpotClient, Effect.fail(refused("timeoutBy", unboundedBy(options))))
  }
  const proxies = proxiesOf(options)
  const proxy = undiciMissing && proxies !== undefined && !(proxies instanceof SpotError.SpotError)
    ? Proxies.forUrl(proxies, options.baseUrl)
    : undefined
  // The proxy's user name and password are secrets of the client's messages, as the credentials are.
  const secrets = proxies === undefined || proxies instanceof SpotError.SpotError ? [] : Proxies.secrets(proxies)
  const client = SpotClient.layer({
    ...options,
    timeoutBy: options.timeoutBy ?? (bounding ? "transport" : "client"),
    secrets: [...(options.secrets ?? []), ...secrets]
  })
    .pipe(
      Layer.provide([
        layerHttpClient(options),
        NodeSigner.layer,
        // Bun's fetch takes its proxy as a RequestInit field, which the client keeps under its own.
        proxy === undefined ? Layer.empty : Layer.succeed(FetchHttpClient.RequestInit, { proxy } as RequestInit)
      ])
    )
  return options.redis === undefined || options.rateLimit === false
    ? client
    : Layer.provide(client, layerRedisStore(options.redis))
}

/**
 * The default configuration: core's `SPOTKIT_BASE_URL`, `SPOTKIT_API_KEY`, `SPOTKIT_SECRET_KEY`,
 * `SPOTKIT_PASSPHRASE` (the three secrets read as `Redacted`), `SPOTKIT_LOCALE` (optional), and
 * `SPOTKIT_RATE_LIMIT` (`on` or `off`, default `on`): `off` turns the client-side limits (the venue's weight model)
 * off, for a venue that does not enforce them (the sandbox started with `--rate-limits off`);
 * `SPOTKIT_RATE_LIMIT_PAUSE_EXEMPT` (optional): endpoint names, separated by commas, whose requests go through a 429's
 * pause (`rateLimit.pauseExempt`), e.g. `cancelOrder,cancelOrders,cancelAll`; `SPOTKIT_RATE_LIMIT_ADDRESS`
 * (optional): the name of the address's budget in a shared store (`rateLimit.address`: processes behind different
 * addresses name theirs apart); `SPOTKIT_REDIS_URL` (optional, read as `Redacted`): the Redis through which every
 * process on the same API key shares one rate-limit budget, with `SPOTKIT_REDIS_ON_UNAVAILABLE` (`memory` or `fail`,
 * `RedisOptions.onUnavailable`), `SPOTKIT_REDIS_TIMEOUT_MS` (whole milliseconds, `RedisOptions.timeout`) and
 * `SPOTKIT_REDIS_PREFIX` (the keys' prefix, `RedisOptions.prefix`), all optional; and the proxy (`HttpOptions.proxy`) from `HTTPS_PROXY`, `HTTP_PROXY` and `NO_PROXY` (each also in lower
 * case, which wins, as curl reads them; the two proxies as `Redacted`, each checked: one that is no `http://` or
 * `https://` URL nor `host:port` is a problem naming its variable, reported with every other one by
 * `SpotClient.readConfig`).
 *
 * @since 0.1.0
 * @category layers
 */
export const defaultConfig: Config.Wrap<Options> = {
  ...SpotClient.defaultConfig,
  rateLimit: Config.all({
    mode: Config.Literals(["on", "off"], "SPOTKIT_RATE_LIMIT").pipe(Config.withDefault("on")),
    pauseExempt: RedisEnv.checked("SPOTKIT_RATE_LIMIT_PAUSE_EXEMPT", RateLimitEnv.problem),
    address: RateLimitEnv.addressConfig
  }).pipe(
    Config.map(({ address, mode, pauseExempt }) => RateLimitEnv.rateLimitOf(mode === "off", pauseExempt, address))
  ),
  redis: RedisEnv.config,
  proxy: Proxies.config
}

/**
 * A ready `SpotClient` configured from `Config`, by default the environment (see `defaultConfig`). Missing or
 * invalid variables fail the layer with one `SpotClient.ConfigurationError` that names every one of them
 * ("SPOTKIT_API_KEY is not set; SPOTKIT_PASSPHRASE is not set").
 *
 * @since 0.1.0
 * @category layers
 */
export const layerConfig = (
  config: Config.Wrap<Options> = defaultConfig
): Layer.Layer<SpotClient.SpotClient, Config.ConfigError | SpotError.SpotError> =>
  Layer.unwrap(Effect.map(SpotClient.readConfig(config), layer))
