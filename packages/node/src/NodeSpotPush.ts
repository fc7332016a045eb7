/**
 * Push streams on Node: core's `SpotPush` over the `ws` package (`@effect/platform-node`'s
 * `NodeWS.layerWebSocketConstructor`), which sends the private handshake's headers and stops reading a connection
 * whose consumer fell behind (back-pressure to the venue rather than memory), signing with `node:crypto`. With `redis`,
 * the connection-attempt budget (the venue's 300 per 5 minutes per address) is shared through Redis by every process
 * of the address.
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
import { SpotClient, SpotPush } from "@spotkit/core"
import type { SpotError } from "@spotkit/core"
import { Config, Effect, Layer, Redacted, Schema } from "effect"
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
}

/**
 * A ready `SpotPush` over the `ws` package; needs the `SpotClient` whose clock offset it signs with and through which
 * it backfills. Fails when `redis` is given and cannot be reached.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: Options
): Layer.Layer<SpotPush.SpotPush, SpotError.SpotError, SpotClient.SpotClient> => {
  const { redis, ...push } = options
  const layer = SpotPush.layer(push).pipe(Layer.provide([NodeWS.layerWebSocketConstructor, NodeSigner.layer]))
  return redis === undefined ? layer : Layer.provide(layer, NodeSpotClient.layerRedisStore(redis))
}

/**
 * The default configuration: `SPOTKIT_PUSH_URL` (a `ws://` or `wss://` URL, the sandbox prints it), the credentials
 * of `SPOTKIT_API_KEY`, `SPOTKIT_SECRET_KEY` and `SPOTKIT_PASSPHRASE` (as `Redacted`), and `SPOTKIT_REDIS_URL`
 * (optional).
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
  redis: Config.Redacted("SPOTKIT_REDIS_URL").pipe(
    Config.map((url): NodeSpotClient.RedisOptions | undefined =>
      Redacted.value(url).trim() === "" ? undefined : { url }
    ),
    Config.withDefault(undefined)
  )
}

/**
 * A ready `SpotPush` configured from `Config`, by default the environment (see `defaultConfig`); a missing or invalid
 * variable fails the layer with a `SpotClient.ConfigurationError` that names it.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerConfig = (
  config: Config.Wrap<Options> = defaultConfig
): Layer.Layer<SpotPush.SpotPush, Config.ConfigError | SpotError.SpotError, SpotClient.SpotClient> =>
  Layer.unwrap(Effect.map(SpotClient.readConfig(config), layer))
