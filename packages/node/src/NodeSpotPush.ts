/**
 * Push streams on Node: core's `SpotPush` over the `ws` package (`@effect/platform-node`'s `NodeWS`), which sends the
 * private handshake's headers and pauses reading a connection while the session has not taken what was read (a
 * process falling behind holds the venue back rather than buffering), signing with `node:crypto`. A consumer that
 * falls behind its stream is not waited for: its queue and `slowConsumerAfter` bound it (`SpotPush`). A message
 * larger than `maxFrameBytes` (1 MiB by default) is refused before it is read whole, and no compression is offered to
 * the venue (a small compressed frame cannot become a large message): the connection is closed (1009) and dialled
 * again like any lost one, its `Disconnected` event saying why. With `redis`, the connection-attempt budget (the
 * venue's 300 per 5 minutes per address) is shared through Redis by every process of the address.
 *
 * ```ts
 * import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
 * import { SpotPush } from "@spotkit/core"
 * import { NodeSpotClient, NodeSpotPush } from "@spotkit/node"
 * import { Effect, Layer, Stream } from "effect"
 *
 * const program = Effect.gen(function*() {
 *   const push = yield* SpotPush.SpotPush
 *   yield* push.watchFills({ symbols: ["BTCUSDT_SPBL"] }).pipe(
 *     Stream.runForEach((fill) => Effect.log(`${fill.fillId} ${fill.side} ${fill.quantity}`))
 *   )
 * })
 *
 * // SPOTKIT_BASE_URL, SPOTKIT_PUSH_URL and the credentials from the environment
 * program.pipe(
 *   Effect.provide(NodeSpotPush.layerConfig().pipe(Layer.provideMerge(NodeSpotClient.layerConfig()))),
 *   NodeRuntime.runMain
 * )
 * ```
 *
 * @since 0.1.0
 */
import * as NodeWS from "@effect/platform-node/NodeWS"
import { SpotClient, SpotError, SpotPush } from "@spotkit/core"
import type { Redacted } from "effect"
import { Config, Duration, Effect, Layer, Option, Schema } from "effect"
import * as Socket from "effect/socket/Socket"
import * as Proxies from "./internal/proxy.ts"
import * as RateLimitEnv from "./internal/rateLimitEnv.ts"
import * as RedisEnv from "./internal/redisEnv.ts"
import * as NodeSigner from "./NodeSigner.ts"
import * as NodeSpotClient from "./NodeSpotClient.ts"

/**
 * The push options (core `SpotPush.Options`), and the Redis that shares the connection-attempt budget.
 *
 * @since 0.1.0
 * @category options
 */
export interface Options extends SpotPush.Options {
  /** Share the connection-attempt budget with other processes through Redis. @default this process's own, in memory */
  readonly redis?: NodeSpotClient.RedisOptions | undefined
  /**
   * The largest message the venue may send, in bytes (1 to 2147483647). A larger one is refused as its header
   * announces it (or as its fragments add up to it), before it is held in memory: the connection is closed with 1009
   * (the socket destroyed a second later at most, should the venue keep sending) and dialled again after its backoff,
   * and the `Disconnected` event's reason names this option. The venue's largest
   * messages are a 200-level depth snapshot (some 20 KB) and a private push listing every coin of the account (some
   * 100 KB for a thousand coins).
   * @default 1048576 (1 MiB, `DEFAULT_MAX_FRAME_BYTES`)
   */
  readonly maxFrameBytes?: number | undefined
  /**
   * An HTTP(S) proxy, as `NodeSpotClient.HttpOptions.proxy` takes it (one URL, or one per scheme with the hosts
   * reached directly): each connection goes through an HTTP `CONNECT` tunnel of the proxy for the push URL's scheme
   * (`wss:` the `https` one, `ws:` the `http` one), unless `noProxy` names the venue. Over `wss:` TLS to the venue runs
   * inside the tunnel: the proxy sees the venue's host and port, never a header or a frame. A user and password in the
   * URL are sent as Basic `Proxy-Authorization` and never shown (scrubbed from every event and error, as the
   * credentials are); a failure through the proxy says so in the `Disconnected` event's reason, naming the proxy by its
   * scheme, host and port ("through the proxy http://proxy.internal:3128: the proxy answered CONNECT with 407 ..."),
   * and the connection is dialled again after its backoff. The proxy's answer is awaited at most `openTimeout`. A value
   * that is not an `http:` or `https:` URL with a host (or `host:port`) fails the layer with a `ValidationError` on
   * `proxy`. Tested on Node; not under Bun, whose `ws` may be its own implementation.
   * @default none (the venue dialled directly)
   */
  readonly proxy?: NodeSpotClient.ProxyOptions | string | Redacted.Redacted<string> | undefined
}

/**
 * The default of `Options.maxFrameBytes`: 1 MiB, ten times the largest message the venue documents.
 *
 * @since 0.1.0
 * @category options
 */
export const DEFAULT_MAX_FRAME_BYTES = 1024 * 1024

// `ws` keeps its limit in a 32-bit integer: beyond, it would wrap and limit nothing.
const MAX_FRAME_BYTES_LIMIT = 2 ** 31 - 1

// How long a connection whose message was refused may wait for the venue's side of the close, once its close frame
// (1009) is asked for: then the socket is destroyed. A second is a round trip on any network the venue is reached
// over, a thirtieth of `ws`'s own close timeout.
const REFUSED_CLOSE_TIMEOUT_MILLIS = 1000

// The `ws` constructor of spotkit: the handshake's headers, at most `maxFrameBytes` a message, no per-message deflate
// offered (what the venue sends is read as sent: nothing to inflate). A message over the limit fails the socket with
// an error that names the option, which the `Disconnected` event quotes.
//
// `ws` then sends its close frame (1009), half-closes, and reads and drops whatever the venue still sends until the
// venue ends its side or `ws`'s close timeout (30 s) destroys the socket: a venue that keeps sending would cost CPU
// and garbage for 30 s a connection. Here that wait is `REFUSED_CLOSE_TIMEOUT_MILLIS`. Not a destroy as soon as the
// close frame is written: the venue's data left unread makes that a TCP reset, which reaches the venue right behind
// the close frame, and a venue that writes before it reads then never sees the 1009; a second lets it read the frame,
// and an honest venue answers and ends its side well within it, the connection then closing cleanly as before.
//
// Every other close waits at most `CLOSE_TIMEOUT_MILLIS` for the closing handshake to end, not `ws`'s 30 s: a venue
// that sends its close frame (going away) and leaves the TCP connection open held the connection's end, and so the
// `Disconnected` event and the reconnection, for 30 s, blind. The protocol's wait is for the other side's close
// frame and the end of the TCP connection, which an honest venue sends within a round trip.
const CLOSE_TIMEOUT_MILLIS = 2000

// Through a proxy, `createConnection` is the tunnel's: `ws` hands it to Node's `http.request`, whose option may answer
// through its callback (Node's `ClientRequestArgs`); `ws`'s types narrow it to `net.createConnection`'s, hence the cast.
// Every error of a connection through the proxy says so (`Proxies.tunnel`'s own already do), as the client's do.
const webSocketConstructor = (
  maxFrameBytes: number,
  proxy: { readonly url: string; readonly timeoutMillis: number } | undefined
): Socket.WebSocketConstructor["Service"] =>
(url, options) => {
  // Aborted once the WebSocket is closed (`ws` emits `close` for a connection closed while still opening too): a tunnel
  // still waiting for the proxy's answer is abandoned with it.
  const closed = new AbortController()
  const tunnel = proxy === undefined ? undefined : Proxies.tunnel({
    proxy: proxy.url,
    secure: /^wss:/i.test(url),
    timeoutMillis: proxy.timeoutMillis,
    signal: closed.signal
  })
  const init = {
    maxPayload: maxFrameBytes,
    perMessageDeflate: false,
    closeTimeout: CLOSE_TIMEOUT_MILLIS,
    ...(tunnel === undefined ? {} : { createConnection: tunnel as unknown as NodeWS.ClientOptions["createConnection"] })
  }
  const ws = options === undefined || typeof options === "string" || Array.isArray(options)
    ? new NodeWS.WebSocket(url, options, init)
    : new NodeWS.WebSocket(url, options.protocols, { ...init, headers: options.headers })
  if (tunnel !== undefined) ws.once("close", () => closed.abort())
  // Registered before the socket's own listeners: they see the message as said here.
  ws.on("error", (error: Error & { readonly code?: unknown }) => {
    if (error.code === "WS_ERR_UNSUPPORTED_MESSAGE_LENGTH") {
      error.message = `the venue sent a message larger than maxFrameBytes (${maxFrameBytes} bytes)`
      // `ws` has asked for its close frame before this event.
      // Unreferenced: the wait never keeps a process alive.
      const timer = setTimeout(() => ws.terminate(), REFUSED_CLOSE_TIMEOUT_MILLIS).unref()
      ws.once("close", () => clearTimeout(timer))
    }
    if (proxy !== undefined && !error.message.startsWith("through the proxy ")) {
      error.message = `through the proxy ${Proxies.origin(proxy.url)}: ${error.message}`
    }
  })
  return ws
}

/**
 * A ready `SpotPush` over the `ws` package; needs the `SpotClient` whose clock offset it signs with and through which
 * it backfills. Fails when `redis` is given and cannot be reached, and with a `ValidationError` on `proxy` for a proxy
 * that is not one; a `maxFrameBytes` that is not an integer from 1 to 2147483647 is a defect (a `RangeError`).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: Options
): Layer.Layer<SpotPush.SpotPush, SpotError.SpotError, SpotClient.SpotClient> => {
  const { maxFrameBytes = DEFAULT_MAX_FRAME_BYTES, proxy, redis, ...push } = options
  if (!Number.isSafeInteger(maxFrameBytes) || maxFrameBytes < 1 || maxFrameBytes > MAX_FRAME_BYTES_LIMIT) {
    return Layer.effect(
      SpotPush.SpotPush,
      Effect.die(new RangeError(`maxFrameBytes must be an integer from 1 to ${MAX_FRAME_BYTES_LIMIT}`))
    )
  }
  const proxies = Proxies.resolve(proxy)
  if (proxies !== undefined && "invalid" in proxies) {
    const reason = new SpotError.ValidationError({ field: "proxy", description: proxies.invalid })
    return Layer.effect(
      SpotPush.SpotPush,
      Effect.fail(new SpotError.SpotError({ operation: "NodeSpotPush.layer", reason }))
    )
  }
  const through = proxies === undefined ? undefined : Proxies.forPushUrl(proxies, push.url)
  // The tunnel's answer is part of opening a connection: bounded as the whole opening is (core's default 10 s).
  const timeoutMillis = Duration.toMillis(
    Option.getOrElse(Duration.fromInput(push.openTimeout ?? "10 seconds"), () => Duration.seconds(10))
  )
  const construct = Layer.succeed(Socket.WebSocketConstructor)(
    webSocketConstructor(maxFrameBytes, through === undefined ? undefined : { url: through, timeoutMillis })
  )
  // The proxy's user name and password are secrets of the streams' texts, as the credentials are.
  const secrets = [...(push.secrets ?? []), ...(proxies === undefined ? [] : Proxies.secrets(proxies))]
  const layer = SpotPush.layer({ ...push, secrets }).pipe(Layer.provide([construct, NodeSigner.layer]))
  return redis === undefined ? layer : Layer.provide(layer, NodeSpotClient.layerRedisStore(redis))
}

/**
 * The default configuration: `SPOTKIT_PUSH_URL` (a `ws://` or `wss://` URL, the sandbox prints it), the credentials
 * of `SPOTKIT_API_KEY`, `SPOTKIT_SECRET_KEY` and `SPOTKIT_PASSPHRASE` (as `Redacted`), `SPOTKIT_REDIS_URL` with
 * `SPOTKIT_REDIS_ON_UNAVAILABLE`, `SPOTKIT_REDIS_TIMEOUT_MS` and `SPOTKIT_REDIS_PREFIX` (optional),
 * `SPOTKIT_RATE_LIMIT_ADDRESS` (optional: the name of the address's connection-attempt budget, `address`), and the
 * proxy from `HTTPS_PROXY` (for `wss:`), `HTTP_PROXY` (for `ws:`) and `NO_PROXY`, read as
 * `NodeSpotClient.defaultConfig` reads them (the lower-case names win; each checked, every problem named at once).
 *
 * @since 0.1.0
 * @category layers
 */
export const defaultConfig: Config.Wrap<Options> = {
  url: Config.schema(
    Schema.String.check(Schema.isPattern(/^wss?:\/\/[^\s/?#]+[^\s]*$/, { message: "must be a ws:// or wss:// URL" })),
    "SPOTKIT_PUSH_URL"
  ),
  credentials: {
    apiKey: Config.Redacted("SPOTKIT_API_KEY"),
    secretKey: Config.Redacted("SPOTKIT_SECRET_KEY"),
    passphrase: Config.Redacted("SPOTKIT_PASSPHRASE")
  },
  redis: RedisEnv.config,
  address: RateLimitEnv.addressConfig,
  proxy: Proxies.config
}

/**
 * A ready `SpotPush` configured from `Config`, by default the environment (see `defaultConfig`); missing or invalid
 * variables fail the layer with one `SpotClient.ConfigurationError` that names every one of them.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerConfig = (
  config: Config.Wrap<Options> = defaultConfig
): Layer.Layer<SpotPush.SpotPush, Config.ConfigError | SpotError.SpotError, SpotClient.SpotClient> =>
  Layer.unwrap(Effect.map(SpotClient.readConfig(config), layer))
