/**
 * The test exchange as an Effect service: seed it (products, users, keys, balances, bill histories), inspect it
 * (orders, trades, balances, bills, the requests it received), make it fail on purpose (faults), and talk to it
 * through the venue's own protocol, in process (`layerHttpClient`) or over loopback HTTP (`Sandbox`).
 *
 * ```ts
 * const TestLayer = TestExchange.layerSpotClient()          // a ready SpotClient on a seeded exchange
 * it.layer(TestLayer)("orders", (it) =>
 *   it.effect("rest", () => Effect.gen(function*() {
 *     const client = yield* SpotClient.SpotClient
 *     ...
 *   })))
 * ```
 *
 * @since 0.1.0
 */
import { Signer, SpotClient, Venue } from "@spotkit/core"
import { Clock, Context, Duration, Effect, Layer, Redacted } from "effect"
import { HttpClient } from "effect/http"
import * as Engine from "./Engine.ts"
import type * as Fault from "./Fault.ts"
import { nodeCryptoSigner } from "./internal/clientSigner.ts"
import { partsOf } from "./internal/engine/parts.ts"
import * as InProcess from "./internal/inProcess.ts"
import * as PresetClients from "./internal/presetClients.ts"
import type { Auth } from "./internal/protocol/auth.ts"
import * as KeyTable from "./internal/protocol/keyTable.ts"
import * as Limits from "./internal/protocol/limits.ts"
import type * as RequestLog from "./internal/protocol/requestLog.ts"
import { Router } from "./internal/protocol/router.ts"
import type * as Wire from "./internal/protocol/wire.ts"
import { fixed, toUnits } from "./internal/units.ts"

/**
 * A request as the exchange sees it.
 *
 * @since 0.1.0
 * @category models
 */
export type WireRequest = Wire.WireRequest

/**
 * What the exchange does with a request: answer (possibly late), drop the connection, or never answer.
 *
 * @since 0.1.0
 * @category models
 */
export type Outcome = Wire.Outcome

/**
 * One request the exchange received, with what it answered.
 *
 * @since 0.1.0
 * @category models
 */
export type RequestRecord = RequestLog.RequestRecord

/**
 * Venue-side rate limits: the venue's weight model (docs/venue/limits.md) — budgets per API user (`uid`), per client
 * address (`ip`) and per API key and endpoint (`perEndpoint`, on placing, batching, cancelling and transfers), weights by endpoint
 * over the declared ones (`Venue.endpoints[name].weight`), and the `Retry-After` (seconds) a 429 carries, if any —
 * and the failed authentications an API key may make from an address in a window before that key is answered 429
 * from there (`authFailures`, default 20 a minute; the keys the exchange does not know count as one).
 *
 * @since 0.1.0
 * @category models
 */
export type RateLimits = Limits.RateLimits

/**
 * API credentials as plain strings (the exchange must know the secret to check signatures).
 *
 * @since 0.1.0
 * @category models
 */
export interface KeySpec {
  readonly apiKey: string
  readonly secretKey: string
  readonly passphrase: string
  /** @default ["read", "trade", "transfer"] */
  readonly permissions?: ReadonlyArray<Venue.Permission> | undefined
}

/**
 * A user to create at start: its id, API keys, balances and a synthetic funding-bill history.
 *
 * @since 0.1.0
 * @category models
 */
export interface AccountSpec {
  /** 64-bit id as digits. @default issued by the engine */
  readonly userId?: string | undefined
  readonly keys?: ReadonlyArray<KeySpec> | undefined
  readonly balances?:
    | ReadonlyArray<{
      readonly accountType: Engine.AccountType
      readonly coin: string
      readonly amount: string
    }>
    | undefined
  /** Funding bills written before the balances, ending one millisecond before the exchange's start time. */
  readonly bills?: { readonly count: number; readonly spanMillis?: number | undefined } | undefined
}

/**
 * Resting liquidity to place at start: `levels` price levels on each side of `mid`, `step` apart, `quantity` each,
 * owned by the account at `owner` (an index into `accounts`).
 *
 * @since 0.1.0
 * @category models
 */
export interface LiquiditySpec {
  readonly symbol: string
  readonly owner: number
  readonly mid: string
  readonly step: string
  readonly levels: number
  readonly quantity: string
}

/**
 * @since 0.1.0
 * @category options
 */
export interface Options extends Engine.EngineOptions {
  /** @default BTCUSDT_SPBL and ETHUSDT_SPBL (`defaultProducts`) */
  readonly products?: ReadonlyArray<Engine.ProductSpec> | undefined
  readonly accounts?: ReadonlyArray<AccountSpec> | undefined
  readonly liquidity?: ReadonlyArray<LiquiditySpec> | undefined
  /**
   * `false` turns the venue's rate limits off; fields override the venue's (`Venue.budgets`, no `Retry-After`).
   * @default the venue's weight model (off under `layerSpotClient`, unless its `exchange` options set this)
   */
  readonly rateLimits?: Partial<RateLimits> | false | undefined
  /** How far a request timestamp may be from server time. @default 30000 */
  readonly timestampWindowMillis?: number | undefined
  /** Larger bodies are refused with HTTP 413. @default 262144 */
  readonly maxBodyBytes?: number | undefined
  /** Request records kept for `requests` (oldest dropped first); 0 keeps none. @default 10000 */
  readonly requestLogSize?: number | undefined
  /**
   * Bytes the request records may take (each keeps at most 4,096 characters of its body and path, copied, at two
   * bytes a character); beyond, the oldest are dropped. @default 16777216 (16 MiB)
   */
  readonly requestLogBytes?: number | undefined
}

/**
 * A user created on the exchange, with credentials ready for `SpotClient`.
 *
 * @since 0.1.0
 * @category models
 */
export interface Account {
  readonly userId: string
  readonly credentials: {
    readonly apiKey: Redacted.Redacted<string>
    readonly secretKey: Redacted.Redacted<string>
    readonly passphrase: Redacted.Redacted<string>
  }
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /** The engine itself, for synchronous inspection and bulk seeding. */
  readonly engine: Engine.Engine
  /** The users created from `Options.accounts`, in order. */
  readonly accounts: ReadonlyArray<Account>
  /** Bodies larger than this are refused (HTTP 413). */
  readonly maxBodyBytes: number
  /** Handles one request at the current `Clock` time. */
  readonly handle: (request: WireRequest) => Effect.Effect<Outcome>
  /** Handles one request at a given time (for transports with their own clock). */
  readonly handleAt: (request: WireRequest, now: number) => Outcome
  /**
   * Creates a user with its keys, bill history and balances. Fails, changing nothing (no user, key, bill or balance
   * left, no id taken), on a spec it refuses: an id or an API key the exchange has, a key given twice, an unknown
   * coin or account type, an amount that is not a positive decimal of the coin's precision, a bad history.
   */
  readonly addAccount: (spec: AccountSpec) => Effect.Effect<Account, Engine.EngineError>
  readonly deposit: (
    userId: string,
    accountType: Engine.AccountType,
    coin: string,
    amount: string
  ) => Effect.Effect<void, Engine.EngineError>
  readonly generateBills: (userId: string, options: Engine.HistoryOptions) => Effect.Effect<void, Engine.EngineError>
  readonly placeOrder: (
    userId: string,
    request: Engine.OrderRequest
  ) => Effect.Effect<Engine.Placed | Engine.Rejection>
  readonly cancelOrder: (
    userId: string,
    id: { readonly orderId?: string; readonly clientOrderId?: string }
  ) => Effect.Effect<boolean>
  /**
   * Adds a fault rule; rules are tried in the order they were added. Fails on an invalid rule (status, latency,
   * share, times, or a path that is not a venue endpoint's: `Venue.endpoints`, without a query string).
   */
  readonly injectFault: (rule: Fault.Rule) => Effect.Effect<void, Engine.EngineError>
  readonly clearFaults: Effect.Effect<void>
  /** Forgets every rate-limit window. */
  readonly resetRateLimits: Effect.Effect<void>
  readonly requests: Effect.Effect<ReadonlyArray<RequestRecord>>
  readonly clearRequests: Effect.Effect<void>
  /** Every order, oldest first, optionally of one user, each with its status and fills (final ones included). */
  readonly orders: (userId?: string) => Effect.Effect<ReadonlyArray<Engine.OrderView>, Engine.EngineError>
  /** One order by id, any status. */
  readonly order: (orderId: string) => Effect.Effect<Engine.OrderView | undefined>
  readonly trades: Effect.Effect<ReadonlyArray<Engine.Trade>>
  /** Every fill (each side of each trade), oldest first, optionally of one user. */
  readonly fills: (userId?: string) => Effect.Effect<ReadonlyArray<Engine.FillView>, Engine.EngineError>
  /** Every account and coin with a non-zero amount. */
  readonly balances: (userId: string) => Effect.Effect<ReadonlyArray<Engine.Balance>, Engine.EngineError>
  /** The spot account as `GET /api/v2/account/assets` answers it: every coin ever held, zeros included. */
  readonly spotBalances: (userId: string) => Effect.Effect<ReadonlyArray<Engine.SpotBalance>, Engine.EngineError>
  /** Every internal transfer, oldest first, optionally of one user (sent or received). */
  readonly transfers: (userId?: string) => Effect.Effect<ReadonlyArray<Engine.TransferView>, Engine.EngineError>
  /** Every product's trading rules, as `exchangeInfo` answers them. */
  readonly symbolRules: Effect.Effect<ReadonlyArray<Engine.SymbolRules>>
  readonly ledger: (
    userId: string,
    accountType?: Engine.AccountType
  ) => Effect.Effect<ReadonlyArray<Engine.LedgerEntry>, Engine.EngineError>
  readonly totals: Effect.Effect<ReadonlyArray<Engine.Totals>>
}

/**
 * @since 0.1.0
 * @category services
 */
export class TestExchange extends Context.Service<TestExchange, Service>()("@spotkit/testkit/TestExchange") {}

/**
 * BTCUSDT_SPBL (price 2 decimals, quantity 6, minimum 5 USDT) and ETHUSDT_SPBL (2, 4, 5 USDT).
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultProducts: ReadonlyArray<Engine.ProductSpec> = [
  { symbol: "BTCUSDT_SPBL", base: "BTC", quote: "USDT", pricePrecision: 2, quantityPrecision: 6, minOrderValue: "5" },
  { symbol: "ETHUSDT_SPBL", base: "ETH", quote: "USDT", pricePrecision: 2, quantityPrecision: 4, minOrderValue: "5" }
]

const seedError = (cause: unknown): Engine.EngineError =>
  cause instanceof Engine.EngineError ? cause : new Engine.EngineError(String(cause))

const attempt = <A>(f: () => A): Effect.Effect<A, Engine.EngineError> => Effect.try({ try: f, catch: seedError })

/**
 * Builds an exchange from options, at the current `Clock` time.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = Effect.fnUntraced(function*(options: Options = {}) {
  const start = yield* Clock.currentTimeMillis
  const engine = yield* attempt(() => new Engine.Engine(options))
  const limits = options.rateLimits === false
    ? false as const
    : { ...Limits.defaultRateLimits, ...options.rateLimits }
  const router = new Router(engine, {
    rateLimits: limits,
    windowMillis: options.timestampWindowMillis ?? Venue.TIMESTAMP_WINDOW_MILLIS,
    maxBodyBytes: options.maxBodyBytes ?? 262_144,
    requestLogSize: options.requestLogSize ?? 10_000,
    requestLogBytes: options.requestLogBytes ?? 16 * 1024 * 1024,
    seed: engine.seed
  })
  // The push venue of this exchange (`PushVenue.layer`) authenticates with the same keys.
  KeyTable.attach(engine, router.auth)
  for (const product of options.products ?? defaultProducts) yield* attempt(() => engine.addProduct(product))

  const addAccount = (spec: AccountSpec): Effect.Effect<Account, Engine.EngineError> =>
    Effect.flatMap(Clock.currentTimeMillis, (now) =>
      attempt(() => {
        const history = historyOf(spec, now)
        // Everything is checked before the user is created, so that a refused account leaves nothing behind (no user
        // without its keys or balances, no id taken).
        checkAccount(engine, router.auth, spec, history)
        const userId = engine.addUser(spec.userId)
        for (const key of spec.keys ?? []) router.auth.addKey({ ...key, userId })
        if (history !== undefined) engine.generateBills(userId, history)
        for (const balance of spec.balances ?? []) {
          engine.deposit(userId, balance.accountType, balance.coin, balance.amount, now)
        }
        const key = spec.keys?.[0]
        return {
          userId,
          credentials: {
            apiKey: Redacted.make(key?.apiKey ?? ""),
            secretKey: Redacted.make(key?.secretKey ?? ""),
            passphrase: Redacted.make(key?.passphrase ?? "")
          }
        }
      }))

  const accounts: Array<Account> = []
  for (const spec of options.accounts ?? []) accounts.push(yield* addAccount(spec))
  for (const spec of options.liquidity ?? []) {
    const owner = accounts[spec.owner]
    if (owner === undefined) {
      return yield* Effect.fail(new Engine.EngineError(`liquidity owner ${spec.owner}: no such account`))
    }
    yield* attempt(() => placeLiquidity(engine, owner.userId, spec, start))
  }

  const now = Clock.currentTimeMillis
  const service: Service = {
    engine,
    accounts,
    maxBodyBytes: router.maxBodyBytes,
    handle: (request) => Effect.map(now, (time) => router.handle(request, time)),
    handleAt: (request, time) => router.handle(request, time),
    addAccount,
    deposit: (userId, accountType, coin, amount) =>
      Effect.flatMap(now, (time) => attempt(() => engine.deposit(userId, accountType, coin, amount, time))),
    generateBills: (userId, history) => attempt(() => engine.generateBills(userId, history)),
    placeOrder: (userId, request) => Effect.map(now, (time) => engine.placeOrder(userId, request, time)),
    cancelOrder: (userId, id) => Effect.map(now, (time) => engine.cancelOrder(userId, id, time)),
    injectFault: (rule) =>
      Effect.suspend(() => {
        const invalid = router.faults.inject(rule)
        return invalid === undefined ? Effect.void : Effect.fail(new Engine.EngineError(`fault rule: ${invalid}`))
      }),
    clearFaults: Effect.sync(() => router.faults.clear()),
    resetRateLimits: Effect.sync(() => router.limits.clear()),
    requests: Effect.sync(() => router.log.list()),
    clearRequests: Effect.sync(() => router.log.clear()),
    orders: (userId) => attempt(() => engine.orderList(userId)),
    order: (orderId) => Effect.sync(() => engine.order(orderId)),
    trades: Effect.sync(() => engine.tradeList().slice()),
    fills: (userId) => attempt(() => engine.fillList(userId)),
    balances: (userId) => attempt(() => engine.balances(userId)),
    spotBalances: (userId) => attempt(() => engine.spotBalances(userId)),
    transfers: (userId) => attempt(() => engine.transferList(userId)),
    symbolRules: Effect.sync(() => engine.symbolRules()),
    ledger: (userId, accountType) => attempt(() => engine.ledgerOf(userId, accountType)),
    totals: Effect.sync(() => engine.totals())
  }
  return service
})

// The funding-bill history an account asks for, ending one millisecond before `now`; undefined for none.
const historyOf = (spec: AccountSpec, now: number): Engine.HistoryOptions | undefined => {
  if (spec.bills === undefined || !(spec.bills.count > 0)) return undefined
  const span = spec.bills.spanMillis ?? 30 * 86_400_000
  // Times never go below 0 (a TestClock starts there).
  const to = Math.max(0, now - 1)
  return { count: spec.bills.count, from: Math.max(0, to - span), to }
}

// Throws, changing nothing, whatever `addAccount` would refuse part way: the user's id, a key the exchange (or the
// spec itself) already has, the bill history, and the deposits (account types, coins, amounts, supply).
const checkAccount = (
  engine: Engine.Engine,
  auth: Auth,
  spec: AccountSpec,
  history: Engine.HistoryOptions | undefined
): void => {
  const parts = partsOf(engine)
  parts.accounts.checkNewUser(spec.userId)
  const apiKeys = new Set<string>()
  for (const key of spec.keys ?? []) {
    if (auth.key(key.apiKey) !== undefined || apiKeys.has(key.apiKey)) throw new Engine.EngineError("api key exists")
    apiKeys.add(key.apiKey)
  }
  if (history !== undefined) parts.bills.check(history)
  parts.accounts.checkDeposits(spec.balances ?? [])
}

// Places `levels` bids below and asks above `mid`, `step` apart, as plain limit orders of `owner`. Prices are exact
// integers of the finer of the two decimals, never floats.
const placeLiquidity = (engine: Engine.Engine, owner: string, spec: LiquiditySpec, now: number): void => {
  const decimals = Math.max((spec.mid.split(".")[1] ?? "").length, (spec.step.split(".")[1] ?? "").length)
  const mid = toUnits(spec.mid, decimals)
  const step = toUnits(spec.step, decimals)
  if (typeof mid !== "number" || typeof step !== "number" || step === 0) {
    throw new Engine.EngineError(`liquidity ${spec.symbol}: mid and step must be positive decimals`)
  }
  for (let level = 1; level <= spec.levels; level++) {
    for (const side of ["buy", "sell"] as const) {
      const price = fixed(side === "buy" ? mid - level * step : mid + level * step, decimals)
      const placed = engine.placeOrder(owner, {
        symbol: spec.symbol,
        side,
        orderType: "limit",
        force: "normal",
        price,
        quantity: spec.quantity,
        clientOrderId: `liquidity-${spec.symbol}-${side}-${level}`
      }, now)
      if (!placed.ok) {
        throw new Engine.EngineError(`liquidity ${spec.symbol} ${side} ${price}: ${placed.code} ${placed.msg}`)
      }
    }
  }
}

/**
 * The exchange as a layer.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options = {}): Layer.Layer<TestExchange, Engine.EngineError> =>
  Layer.effect(TestExchange, make(options))

/**
 * An `HttpClient` that routes every request into the exchange with the full protocol (headers, signature, timestamp
 * window, envelopes, status codes, rate limits, faults) and no sockets. Latency faults sleep on the `Clock`;
 * timeouts never answer; dropped connections fail with a transport error. With no connection there is nothing to
 * abort or trace at the HTTP level, so it skips `HttpClient.make`'s URL parsing, abort controller and client span
 * (the client's own operation spans remain).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerHttpClient: Layer.Layer<HttpClient.HttpClient, never, TestExchange> = Layer.effect(
  HttpClient.HttpClient,
  Effect.gen(function*() {
    const exchange = yield* TestExchange
    return InProcess.make(exchange.handleAt)
  })
)

/**
 * Demo accounts: deterministic credentials (test values, not secrets) for the preset and the sandbox.
 *
 * @since 0.1.0
 * @category constants
 */
export const demoKeys = {
  alice: { apiKey: "demo-alice-key", secretKey: "demo-alice-secret", passphrase: "demo-alice-pass" },
  bob: { apiKey: "demo-bob-key", secretKey: "demo-bob-secret", passphrase: "demo-bob-pass" }
} as const

/**
 * Options of a demo exchange: alice (index 0) with USDT, BTC and ETH in SPOT and FUND and a funding-bill history of
 * `bills` entries; bob (index 1), the market maker, with resting liquidity on BTCUSDT_SPBL and ETHUSDT_SPBL.
 *
 * @since 0.1.0
 * @category constructors
 */
export const demo = (
  options: { readonly seed?: number | undefined; readonly bills?: number | undefined } = {}
): Options => ({
  seed: options.seed ?? 1,
  accounts: [
    {
      keys: [demoKeys.alice],
      bills: { count: options.bills ?? 1000 },
      balances: [
        { accountType: "SPOT", coin: "USDT", amount: "1000000" },
        { accountType: "SPOT", coin: "BTC", amount: "10" },
        { accountType: "SPOT", coin: "ETH", amount: "100" },
        { accountType: "FUND", coin: "USDT", amount: "50000" },
        { accountType: "FUND", coin: "BTC", amount: "2" }
      ]
    },
    {
      keys: [demoKeys.bob],
      balances: [
        { accountType: "SPOT", coin: "USDT", amount: "5000000" },
        { accountType: "SPOT", coin: "BTC", amount: "500" },
        { accountType: "SPOT", coin: "ETH", amount: "5000" },
        { accountType: "FUND", coin: "USDT", amount: "10000" }
      ]
    }
  ],
  liquidity: [
    { symbol: "BTCUSDT_SPBL", owner: 1, mid: "30000.00", step: "5.00", levels: 20, quantity: "0.5" },
    { symbol: "ETHUSDT_SPBL", owner: 1, mid: "2000.00", step: "0.50", levels: 20, quantity: "5" }
  ]
})

/**
 * Base URL the preset client uses; any URL works in process.
 *
 * @since 0.1.0
 * @category constants
 */
export const inProcessBaseUrl = "http://exchange.test"

/**
 * A demo user by name (`demoKeys`): `"alice"`, the trader, or `"bob"`, the market maker.
 *
 * @since 0.1.0
 * @category models
 */
export type DemoUser = keyof typeof demoKeys

/**
 * A ready `SpotClient` over the in-process transport, plus the `TestExchange` behind it, for one-line test setup.
 * The client acts as alice of `demo` unless `user` names another: a demo user (`"bob"`: the account holding bob's
 * demo key) or the index of an account in the exchange's `accounts`.
 *
 * Rate limiting is off on both sides unless the options turn it on (under a `TestClock`, a client retrying after a
 * 429 would wait on a clock that does not move): `exchange` options that leave `rateLimits` out keep the venue's off
 * too (another seed, say). To test them, pass `exchange` options with `rateLimits` (`{}` for the venue's own weight
 * model) and advance the clock, or use `it.live`. The client signs with node:crypto, synchronously (so that a call forked under a
 * `TestClock` runs up to its first wait at once), in code of its own apart from the exchange's check; pass `signer`
 * for another (`Signer.webCrypto`, core's portable default, say). The in-process transport bounds each exchange by
 * the client's `timeout` itself, on the same `Clock` (`timeoutBy: "transport"`: no race of fibers per call; a
 * timeout or a late answer ends as under the client's race), unless `client` sets `timeoutBy: "client"` or a
 * `transformClient`.
 *
 * ```ts
 * import { SpotClient } from "@spotkit/core"
 * import { TestExchange } from "@spotkit/testkit"
 * import { Effect } from "effect"
 *
 * // bob, the market maker of `TestExchange.demo()`, sells into his own bids
 * const sold = Effect.gen(function*() {
 *   const bob = yield* SpotClient.SpotClient
 *   return yield* bob.placeOrder({
 *     symbol: "BTCUSDT_SPBL", side: "sell", orderType: "market", quantity: "0.1"
 *   })
 * }).pipe(Effect.provide(TestExchange.layerSpotClient({ user: "bob" })))
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layerSpotClient = (
  options: {
    readonly exchange?: Options | undefined
    readonly client?: Partial<SpotClient.Options> | undefined
    /** Who the client acts as: a demo user by name, or an index into the exchange's `accounts`. @default "alice" */
    readonly user?: DemoUser | number | undefined
    /** How the client signs. @default HMAC-SHA256 over node:crypto, synchronous */
    readonly signer?: Signer.Service | undefined
  } = {}
): Layer.Layer<SpotClient.SpotClient | TestExchange, Engine.EngineError> => {
  // The venue's rate limits are off unless the options set `rateLimits` themselves (options given only for another
  // seed or other accounts leave them off too): under a TestClock a 429 would make the client's retry sleep on a
  // clock that never moves.
  const exchangeOptions = options.exchange ?? demo()
  const exchange = layer({ ...exchangeOptions, rateLimits: exchangeOptions.rateLimits ?? false })
  const client = Layer.unwrap(Effect.gen(function*() {
    const ex = yield* TestExchange
    const account = accountOf(ex.accounts, options.user ?? "alice")
    if (account === undefined) {
      return yield* Effect.fail(
        new Engine.EngineError(`layerSpotClient: no account to act as ${options.user ?? "alice"}`)
      )
    }
    // The transport bounds each exchange by the client's timeout itself, on the same Clock (no race of fibers per
    // call), unless the caller's hooks sit between (their own delays are bounded only by the client's race) or the
    // caller chose otherwise.
    const bounding = options.client?.transformClient === undefined && options.client?.timeoutBy !== "client"
    const timeoutMillis = Duration.toMillis(
      Duration.fromInputUnsafe(options.client?.timeout ?? SpotClient.DEFAULT_TIMEOUT)
    )
    const clientOptions: SpotClient.Options = {
      baseUrl: inProcessBaseUrl,
      credentials: account.credentials,
      rateLimit: false,
      ...options.client,
      timeoutBy: bounding ? "transport" : "client"
    }
    // Known by its credentials, so that `PushVenue.layerSpotPush` signs in as the same user.
    const made = Effect.tap(
      SpotClient.make(clientOptions),
      (made) => Effect.sync(() => PresetClients.register(made, clientOptions.credentials))
    )
    return Layer.effect(SpotClient.SpotClient, made).pipe(
      Layer.provide(
        Layer.succeed(HttpClient.HttpClient, InProcess.make(ex.handleAt, bounding ? timeoutMillis : undefined))
      )
    )
  }))
  return client.pipe(
    Layer.provide(Signer.layer(options.signer ?? nodeCryptoSigner)),
    Layer.provideMerge(exchange)
  )
}

// The account a preset client acts as: the one holding a demo user's key, or the one at an index.
const accountOf = (accounts: ReadonlyArray<Account>, user: DemoUser | number): Account | undefined =>
  typeof user === "number"
    ? accounts[user]
    : accounts.find((account) => Redacted.value(account.credentials.apiKey) === demoKeys[user].apiKey)
