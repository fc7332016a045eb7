/**
 * The venue's push side (WebSocket, V2), as the test exchange speaks it: handshake authentication (a private
 * connection's headers signed over `timestamp + "/v2/ws/private"` within the 30 s window; a bad signature is refused),
 * subscription acknowledgements, server pings (`{"event":"ping"}`, or `{"type":"ping"}`) and the close after five
 * unanswered ones, the limits (connection attempts and connections per address, operations and channels per
 * connection, closing with 1008 when one is broken; every handshake is an attempt, refused ones too, and one over the
 * limit is closed with 1008 before its key is checked; 20 failed authentications of a key from an address a minute,
 * beyond which its handshakes are refused with 429, as REST's; a client's message of 64 KiB at most, closing with
 * 1009 beyond it on real sockets), depth snapshots then versioned changes per depth (15 or 200
 * levels), trades, tickers, and the private `trade-event` frames of orders, fills (whose `id` is the REST `fillId`) and
 * balances.
 *
 * It pushes what it is told (`publish`), from the exchange or from a test, and reads the books it snapshots from a
 * source (the engine's depth). Two transports: in process (`layerWebSocketConstructor`: a WebSocket with no socket,
 * deterministic under `TestClock`) and real WebSockets on the sandbox's port (`layerSandbox`).
 *
 * Faults a client must survive, venue-wide and changeable at any time: `disconnect: N` drops every connection abruptly
 * after N data frames, `close: N` closes it cleanly, `stall: N` goes silent with the socket open, `dup: N` sends every
 * Nth data frame twice, `gap: N` loses one depth change in N, `noAck` never acknowledges, `noSnapshot` sends a depth
 * subscription its changes but not its snapshot, `snapshotFirst` sends the snapshot before the acknowledgement,
 * `refuseAuth` refuses every private handshake, `storm` drops every connection as soon as it opens.
 *
 * @since 0.1.0
 */
import { Signer, SpotClient, SpotPush } from "@spotkit/core"
import { Clock, Context, Duration, Effect, Layer, Redacted } from "effect"
import type { Scope } from "effect"
import * as Socket from "effect/socket/Socket"
import { EngineError } from "./Engine.ts"
import { nodeCryptoSigner } from "./internal/clientSigner.ts"
import * as PresetClients from "./internal/presetClients.ts"
import * as KeyTable from "./internal/protocol/keyTable.ts"
import * as EngineFeed from "./internal/push/engineFeed.ts"
import type * as Events from "./internal/push/events.ts"
import { parseFaults as parse } from "./internal/push/events.ts"
import { MemorySocket } from "./internal/push/inProcess.ts"
import * as Upgrade from "./internal/push/upgrade.ts"
import * as Internal from "./internal/push/venue.ts"
import * as Sandbox from "./Sandbox.ts"
import { demoKeys, type DemoUser, inProcessBaseUrl, TestExchange } from "./TestExchange.ts"

/**
 * A price level as the venue lists it: price and size, exact decimal strings (size `"0"` removes the price).
 *
 * @since 0.1.0
 * @category models
 */
export type Level = Events.Level

/**
 * What the venue pushes about. `Book`: levels of a symbol's book changed (absolute sizes; one new book version).
 * `Trade`, `Kline` (a candle bar of an interval, replacing the bar of the same open time), `Ticker`: public market
 * data. `Order`, `Fill`, `Balance`: a user's order changed, was filled, or its spot
 * balances changed (pushed to that user's private connections).
 *
 * @since 0.1.0
 * @category models
 */
export type VenueEvent = Events.VenueEvent

/**
 * Where the venue reads a symbol's whole book when a client subscribes to its depth (`undefined`: no such symbol).
 *
 * @since 0.1.0
 * @category models
 */
export type Source = Events.Source

/**
 * The faults the venue injects (see the module's documentation).
 *
 * @since 0.1.0
 * @category models
 */
export type Faults = Events.Faults

/**
 * An API key the venue accepts on its private endpoint, and its user.
 *
 * @since 0.1.0
 * @category models
 */
export type Key = Internal.Key

/**
 * Counts of the venue's connections: handshakes attempted and refused, connections opened, and open now.
 *
 * @since 0.1.0
 * @category models
 */
export type Stats = Internal.Stats

/**
 * Parses the sandbox's `--push-faults` text, e.g. `"disconnect=5,gap=3,noAck"`: the faults, or what is wrong.
 *
 * @since 0.1.0
 * @category constructors
 */
export const parseFaults: (text: string) => Faults | string = parse

/**
 * @since 0.1.0
 * @category options
 */
export interface Options {
  /** How often the venue pings every connection. @default 20 seconds */
  readonly pingInterval?: Duration.Input | undefined
  /** The key of the venue's pings: `{"event":"ping"}` or `{"type":"ping"}`. @default "event" */
  readonly pingType?: "event" | "type" | undefined
  /** Pings a connection may leave unanswered before it is closed. @default 5 */
  readonly unansweredPings?: number | undefined
  /** How far a private handshake's timestamp may be from the venue's clock. @default 30000 */
  readonly timestampWindowMillis?: number | undefined
  /** The venue's limits, over `Push.limits`. */
  readonly limits?: Partial<Internal.Limits> | undefined
  /** Faults from the start. */
  readonly faults?: Faults | undefined
  /** The first version of every book, as digits (versions go beyond 2^53 on the venue). @default "3644174246" */
  readonly initialVersion?: string | undefined
  /**
   * Where a depth change starts: one version after the previous message's end (`next`), or at it (`previousEnd`, as a
   * V3 client reads the venue). The venue's V2 documents do not say; a client must follow either.
   * @default "next"
   */
  readonly continuity?: "next" | "previousEnd" | undefined
  /**
   * Keys accepted on the private endpoint. `layer` accepts besides every key its exchange's REST accepts, as REST has
   * them at each handshake (every key of an account, those of accounts added later too).
   */
  readonly keys?: ReadonlyArray<Key> | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /** Pushes an event to the connections subscribed to it. */
  readonly publish: (event: VenueEvent) => Effect.Effect<void>
  /** Replaces the faults in force. */
  readonly setFaults: (faults: Faults) => Effect.Effect<void>
  readonly addKey: (key: Key) => Effect.Effect<void>
  readonly stats: Effect.Effect<Stats>
  /** Drops every connection abruptly (a venue restart, as clients see it). */
  readonly dropAll: Effect.Effect<void>
  /** A WebSocket constructor that reaches this venue in process (any URL; the path chooses the endpoint). */
  readonly webSocket: Socket.WebSocketConstructor["Service"]
  /** The protocol itself, for the transports of this package. */
  readonly venue: Internal.Venue
}

/**
 * @since 0.1.0
 * @category services
 */
export class PushVenue extends Context.Service<PushVenue, Service>()("@spotkit/testkit/PushVenue") {}

/**
 * A venue over a source of books, pinging on the `Clock` for the lifetime of the scope.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options & { readonly source: Source }): Effect.Effect<Service, never, Scope.Scope> =>
  Effect.gen(function*() {
    const clock = yield* Clock.clockWith(Effect.succeed)
    const venue = new Internal.Venue({
      source: options.source,
      now: () => clock.currentTimeMillisUnsafe(),
      pingType: options.pingType ?? "event",
      unansweredPings: options.unansweredPings ?? 5,
      timestampWindowMillis: options.timestampWindowMillis ?? 30_000,
      limits: {
        connectionAttempts: options.limits?.connectionAttempts ?? { limit: 300, windowMillis: 300_000 },
        authFailures: options.limits?.authFailures ?? { limit: 20, windowMillis: 60_000 },
        connections: options.limits?.connections ?? 100,
        operations: options.limits?.operations ?? { limit: 240, windowMillis: 3_600_000 },
        channelsPerConnection: options.limits?.channelsPerConnection ?? 100
      },
      initialVersion: BigInt(options.initialVersion ?? "3644174246"),
      continuity: options.continuity ?? "next"
    })
    for (const key of options.keys ?? []) venue.addKey(key)
    if (options.faults !== undefined) venue.setFaults(options.faults)
    const interval = Duration.fromInputUnsafe(options.pingInterval ?? Duration.seconds(20))
    yield* Effect.forkScoped(Effect.forever(Effect.andThen(Effect.sleep(interval), Effect.sync(() => venue.tick()))))
    yield* Effect.addFinalizer(() => Effect.sync(() => venue.dropAll()))
    return {
      publish: (event) => Effect.sync(() => venue.publish(event)),
      setFaults: (faults) => Effect.sync(() => venue.setFaults(faults)),
      addKey: (key) => Effect.sync(() => venue.addKey(key)),
      stats: Effect.sync(() => venue.stats()),
      dropAll: Effect.sync(() => venue.dropAll()),
      webSocket: (url, init) => {
        const headers = init !== undefined && typeof init === "object" && !Array.isArray(init)
          ? init.headers
          : undefined
        return new MemorySocket(venue, url, headers ?? {}, "127.0.0.1")
      },
      venue
    }
  })

/**
 * The push venue of the `TestExchange`: books from its engine, every key its REST accepts (an account's every key, and
 * those of accounts added later), and what its engine does pushed as it happens — orders placed, filled and cancelled,
 * fills, balances (trading, deposits, transfers), public trades and book levels — each built only for a subscriber (no
 * subscriber: nearly nothing).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options = {}): Layer.Layer<PushVenue, never, TestExchange> =>
  Layer.effect(
    PushVenue,
    Effect.gen(function*() {
      const exchange = yield* TestExchange
      const engine = exchange.engine
      const service = yield* make({
        ...options,
        source: {
          depth: (symbol) => {
            if (!engine.hasProduct(symbol)) return undefined
            const depth = engine.depth(symbol)
            return {
              bids: depth.bids.map(([price, size]): Level => [price, size]),
              asks: depth.asks.map(([price, size]): Level => [price, size])
            }
          }
        }
      })
      // Every key REST accepts, as REST has it at each handshake (an account's every key, accounts added later too).
      service.venue.useKeyTable((apiKey) => KeyTable.lookup(engine, apiKey))
      // What the engine does is pushed from now on, until the layer ends.
      const detach = EngineFeed.attach(engine, service.venue)
      yield* Effect.addFinalizer(() => Effect.sync(detach))
      return service
    })
  )

/**
 * The in-process WebSocket constructor of the `PushVenue`, for `SpotPush.layer` (any URL).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerWebSocketConstructor: Layer.Layer<Socket.WebSocketConstructor, never, PushVenue> = Layer.effect(
  Socket.WebSocketConstructor,
  Effect.map(PushVenue, (venue) => venue.webSocket)
)

/**
 * A ready `SpotPush` over the in-process transport: with `TestExchange.layerSpotClient()` and `layer()`, one line of
 * test setup. The session reads what it may have missed through the `SpotClient` in context, so both must act as the
 * same user: it signs in with the key of the preset's client (`layerSpotClient({ user: "bob" })` gives a session of
 * bob's), unless `user` names an account (a demo user, or an index into the exchange's `accounts`) or `credentials`
 * are given; over a client built some other way, as alice. It signs with node:crypto, synchronously, as
 * `layerSpotClient` does (WebCrypto's asynchronous signing would make a `TestClock` run depend on the machine's load).
 * Fails with an `EngineError` when no account matches `user`, and when `user` or `credentials` name another user of
 * the exchange than the preset's client acts as (the push would be one user's, the backfill the other's).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerSpotPush = (
  options: Partial<SpotPush.Options> & {
    readonly signer?: Signer.Service | undefined
    /**
     * Who the session signs in as: a demo user by name, or an index into the exchange's `accounts`.
     * @default the user of the `SpotClient` of `layerSpotClient` in context, else "alice"
     */
    readonly user?: DemoUser | number | undefined
  } = {}
): Layer.Layer<SpotPush.SpotPush, EngineError, PushVenue | TestExchange | SpotClient.SpotClient> => {
  const { signer, user, ...pushOptions } = options
  const url = inProcessBaseUrl.replace(/^http/, "ws")
  return Layer.unwrap(Effect.gen(function*() {
    const exchange = yield* TestExchange
    const userOf = (credentials: Signer.Credentials | undefined): string | undefined =>
      credentials === undefined
        ? undefined
        : KeyTable.lookup(exchange.engine, Redacted.value(credentials.apiKey))?.userId
    // The user the preset's client acts as: undefined for a client built some other way, or with a key the exchange
    // does not know (nothing to compare with).
    const clientCredentials = PresetClients.credentialsOf(yield* SpotClient.SpotClient)
    const clientUser = userOf(clientCredentials)
    if (user === undefined && pushOptions.credentials === undefined && clientUser !== undefined) {
      return SpotPush.layer({ url, credentials: clientCredentials, ...pushOptions })
    }
    const named = user ?? "alice"
    const account = typeof named === "number"
      ? exchange.accounts[named]
      : exchange.accounts.find((account) => Redacted.value(account.credentials.apiKey) === demoKeys[named].apiKey)
    if (account === undefined && pushOptions.credentials === undefined) {
      return yield* Effect.fail(new EngineError(`layerSpotPush: no account to act as ${named}`))
    }
    const pushUser = userOf(pushOptions.credentials ?? account?.credentials)
    if (clientUser !== undefined && pushUser !== undefined && pushUser !== clientUser) {
      const who = pushOptions.credentials === undefined ? `${named} (user ${pushUser})` : `user ${pushUser}`
      return yield* Effect.fail(
        new EngineError(
          `layerSpotPush: the session would sign in as ${who}, but the SpotClient in context acts as user ` +
            `${clientUser}; the session backfills through that client, so both must be one user: give ` +
            `layerSpotPush the same user as layerSpotClient, or leave it out`
        )
      )
    }
    return SpotPush.layer({ url, credentials: account?.credentials, ...pushOptions })
  })).pipe(Layer.provide([layerWebSocketConstructor, Signer.layer(signer ?? nodeCryptoSigner)]))
}

/**
 * The sandbox (`Sandbox.layer`) with the push venue on its port, at `/v2/ws/public` and `/v2/ws/private`
 * (`ws://host:port` is the push URL). A handshake from a browser page is taken only from the origin `cors` allows, as
 * its REST answers.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerSandbox = (
  options: Sandbox.Options = {}
): Layer.Layer<Sandbox.Sandbox, Sandbox.SandboxError, TestExchange | PushVenue> =>
  Layer.effect(
    Sandbox.Sandbox,
    Effect.gen(function*() {
      const push = yield* PushVenue
      const upgrades = Upgrade.make(push.venue, { cors: options.cors })
      const context = yield* Layer.build(Sandbox.layer({ ...options, upgrade: upgrades.handle }))
      // Before the server's own release, which waits for every connection (upgraded ones too) to end.
      yield* Effect.addFinalizer(() => Effect.sync(() => upgrades.close()))
      return Context.get(context, Sandbox.Sandbox)
    })
  )

/**
 * The push URL of a sandbox: its base URL with the `ws` scheme.
 *
 * @since 0.1.0
 * @category constructors
 */
export const pushUrl = (sandbox: Sandbox.Service): string => sandbox.baseUrl.replace(/^http/, "ws")
