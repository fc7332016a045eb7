/**
 * The spotkit client: every operation of the spot-trading and account interface as an Effect service.
 *
 * `SpotClient.layer(options)` needs an `HttpClient` (the Node package provides one; tests provide a fake or the
 * testkit). Each call validates its input before anything is sent, waits for its rate-limit budget, signs with a
 * clock corrected by the server's time, retries transient failures with jittered exponential backoff, and fails
 * with one `SpotError` whose `reason` says what happened.
 *
 * @since 0.1.0
 */
import { Clock, Config, Context, Duration, Effect, Layer, Random, Redacted, Schema, Stream } from "effect"
import type { HttpClient } from "effect/http"
import * as Bill from "./Bill.ts"
import * as Batch from "./internal/batch.ts"
import * as Budget from "./internal/budget.ts"
import * as Paging from "./internal/paging.ts"
import * as Pipeline from "./internal/pipeline.ts"
import * as RateLimiter from "./internal/rateLimiter.ts"
import * as Recovery from "./internal/recovery.ts"
import * as Retry from "./internal/retry.ts"
import * as validate from "./internal/validate.ts"
import * as Json from "./Json.ts"
import * as Order from "./Order.ts"
import { PageSize, TradingPair } from "./Primitives.ts"
import * as RateLimitStore from "./RateLimitStore.ts"
import type * as Signer from "./Signer.ts"
import * as SpotError from "./SpotError.ts"
import * as Transfer from "./Transfer.ts"
import * as Venue from "./Venue.ts"

/**
 * A rate-limit budget: at most `limit` weight in any window of `windowMillis`.
 *
 * @since 0.1.0
 * @category options
 */
export interface RateLimit {
  readonly limit: number
  readonly windowMillis: number
}

/**
 * Client-side rate limits: the venue's weight model (spec-extended §8, `Venue.budgets` and each endpoint's
 * `Venue.Weight`). Every signed request charges its UID weight against the API user's budget and its IP weight
 * against the address's; a public one only the address's; placing, batching, cancelling and transfers also count one
 * request against their endpoint's own budget. A request counts while in flight and for one window (plus
 * `marginMillis`) from its answer. After a 429 the shared budgets pause for the venue's `Retry-After`, or one window,
 * before any call sends again. Each field overrides its default; `false` for the whole option turns limiting off.
 *
 * The budgets live in the `RateLimitStore` in context, or in memory per client without one: provide
 * `RateLimitStore.layerRedis` (`@spotkit/node`: `SPOTKIT_REDIS_URL`) to share them between processes.
 *
 * @since 0.1.0
 * @category options
 */
export interface RateLimitOptions {
  /** The budget per API user (UID). @default { limit: 500, windowMillis: 10000 } */
  readonly uid?: RateLimit | undefined
  /** The budget per IP address. @default { limit: 500, windowMillis: 10000 } */
  readonly ip?: RateLimit | undefined
  /** The budget of each of placing, batching, cancelling and transfers, in requests. @default { limit: 10, windowMillis: 1000 } */
  readonly perEndpoint?: RateLimit | undefined
  /**
   * Weights by endpoint name, over the venue's (`Venue.endpoints[name].weight`), e.g.
   * `{ fundingBills: { uid: 10, ip: 10 } }`.
   */
  readonly weights?: { readonly [Name in Venue.EndpointName]?: Partial<Venue.Weight> | undefined } | undefined
  /** Added to every window to absorb network jitter between our send and the venue's receive. @default 25 */
  readonly marginMillis?: number | undefined
  /**
   * The name of the address's budget in a shared store: processes that reach the venue from one address (one host,
   * or several behind one NAT) share it, whatever their API keys. @default "default"
   */
  readonly address?: string | undefined
}

/**
 * Retry policy for transient failures (transport, HTTP 5xx, 429, maintenance, garbled bodies).
 *
 * @since 0.1.0
 * @category options
 */
export interface RetryOptions {
  /** Retries after the first attempt. @default 4 */
  readonly times?: number | undefined
  /** Delay before the first retry; doubles each time, with ±20 % jitter. @default 200 millis */
  readonly baseDelay?: Duration.Input | undefined
  /** Upper bound of one delay. @default 5 seconds */
  readonly maxDelay?: Duration.Input | undefined
}

/**
 * @since 0.1.0
 * @category options
 */
export interface Options {
  /** e.g. `"https://api.example.com"`; a trailing `/` is ignored. */
  readonly baseUrl: string
  readonly credentials: Signer.Credentials
  /** Sent as the `locale` header. @default "en-US" */
  readonly locale?: string | undefined
  /** `false` turns client-side rate limiting off. @default the venue's budgets and weights (`Venue.budgets`) */
  readonly rateLimit?: RateLimitOptions | false | undefined
  /** `false` turns retries off. */
  readonly retry?: RetryOptions | false | undefined
  /** Time allowed for one HTTP exchange. @default 10 seconds */
  readonly timeout?: Duration.Input | undefined
  /**
   * Who ends an exchange that takes longer than `timeout`. `"client"` races it against the `Clock`: it works over any
   * `HttpClient` and under `TestClock`. `"transport"` leaves it to the `HttpClient`, which must then fail such an
   * exchange itself with a `TransportError` caused by a `TimeoutError` (`NodeSpotClient`'s does, with one timer per
   * request instead of a race of fibers).
   * @default "client"
   */
  readonly timeoutBy?: "client" | "transport" | undefined
  /**
   * The largest answer body the client reads, in bytes. A larger one (a misbehaving venue or proxy: an endless or a
   * gigantic body) fails the call with a `ResponseTooLargeError`, which is not retried, having held at most this
   * much of it in memory: the client reads bodies as they arrive and stops at the limit, and `NodeSpotClient`'s
   * transports stop there too. The venue's answers are a few kilobytes; the largest, a page of 100 bills or orders,
   * some tens.
   * @default 67108864 (64 MiB)
   */
  readonly maxResponseBytes?: number | undefined
}

/**
 * The default of `Options.maxResponseBytes`: 64 MiB.
 *
 * @since 0.2.0
 * @category options
 */
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024

/**
 * Filters of the open-orders stream.
 *
 * @since 0.1.0
 * @category models
 */
export interface OpenOrdersOptions {
  readonly symbol: string
  /** Orders per request, 1..100. @default 100 */
  readonly pageSize?: number | undefined
}

/**
 * The client.
 *
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /**
   * Places one order. Without a `clientOrderId` one is generated. A retried call reuses its clientOrderId, so the
   * order is placed at most once; when the venue answers "duplicate" after a retry, the order placed by the
   * earlier attempt is looked up among the open orders and returned.
   */
  readonly placeOrder: (order: Order.PlaceOrderInput) => Effect.Effect<Order.PlaceOrderResult, SpotError.SpotError>
  /**
   * Places any number of orders on one symbol, 50 per request. The result has one outcome per item in input order;
   * an invalid item or a failed chunk fails only its own items.
   */
  readonly placeOrders: (
    symbol: string,
    items: Iterable<Order.BatchItemInput>
  ) => Effect.Effect<Order.BatchResult, SpotError.SpotError>
  /**
   * Every open order of a symbol, newest first, fetched page by page as the stream is pulled. An order is never
   * yielded twice, even when new orders push older ones to later pages. The venue pages by offset with no cursor, so
   * an order can be missed if older orders leave the book (fill, cancel) while the stream pages: such a stream is a
   * snapshot taken over time, not an atomic one.
   */
  readonly openOrders: (options: OpenOrdersOptions) => Stream.Stream<Order.OpenOrder, SpotError.SpotError>
  /** One page of open orders. */
  readonly openOrdersPage: (query: Order.OpenOrdersQuery) => Effect.Effect<Order.OpenOrdersPage, SpotError.SpotError>
  /**
   * Every funding bill matching the filters, newest first, fetched as the stream is pulled. Never yields a bill
   * twice and never skips one that existed when the stream began, even while new bills arrive.
   */
  readonly fundingBills: (query?: Bill.BillQuery) => Stream.Stream<Bill.Bill, SpotError.SpotError>
  /** One page of bills. */
  readonly fundingBillsPage: (query?: Bill.BillPageQuery) => Effect.Effect<Bill.BillPage, SpotError.SpotError>
  /**
   * Transfers a coin to another user. Retried only when the venue provably did not apply it (no connection, 429,
   * maintenance, timestamp); when the answer is lost the call fails with `OutcomeUnknownError` instead of risking a
   * second transfer.
   */
  readonly internalTransfer: (
    transfer: Transfer.InternalTransferInput
  ) => Effect.Effect<Transfer.TransferResult, SpotError.SpotError>
  /** Current estimate of server time minus local time (ms), learned from the venue's answers. */
  readonly clockOffset: Effect.Effect<number>
}

/**
 * @since 0.1.0
 * @category services
 */
export class SpotClient extends Context.Service<SpotClient, Service>()("@spotkit/core/SpotClient") {}

// A public operation's span, like `Effect.fn(name)` gives, but without capturing a call-site stack trace on every
// call: that `new Error()` costs about 4 µs, a tenth of an in-process placeOrder, on a path that trading programs call
// in tight loops. Errors still carry the operation's name and reason.
const traced = (name: string) => <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.withSpan(self, name, { captureStackTrace: false })

const validatePlaceOrder = validate.input(Order.PlaceOrder, undefined, Order.fastPlaceOrder)
const validateSymbol = validate.input(TradingPair, "symbol")
const validateOpenOrdersQuery = validate.input(Order.OpenOrdersQuery, undefined, Order.fastOpenOrdersQuery)
const validatePageSize = validate.input(Schema.UndefinedOr(PageSize), "pageSize")
const validateBillQuery = validate.input(Bill.BillQuery)
const validateBillPageQuery = validate.input(Bill.BillPageQuery)
const validateTransfer = validate.input(Transfer.InternalTransfer)
const decodeBatchResponse = Schema.decodeUnknownEffect(Order.BatchResponse)
const decodeTransferSuccess = Schema.decodeUnknownEffect(Transfer.TransferSuccess)

// The wire body of an order: the venue's usage shape sends `force` and a zero price on market orders (spec §4.1).
const orderBody = (symbol: string | undefined, order: Order.BatchItem, clientOrderId: string) => ({
  ...(symbol === undefined ? {} : { symbol }),
  side: order.side,
  orderType: order.orderType,
  force: order.force ?? "normal",
  price: order.price ?? "0",
  quantity: order.quantity,
  clientOrderId
})

const omitUndefined = (record: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined))

const invalid = (message: string) => Effect.die(new RangeError(message))

// The API key's hash (SHA-256, hex), which names its budgets in a store: never the key itself.
const keyHash = (apiKey: string) =>
  Effect.map(
    Effect.promise(() => globalThis.crypto.subtle.digest("SHA-256", new TextEncoder().encode(apiKey))),
    (digest) => Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, "0")).join("").slice(0, 32)
  )

// The client's budgets, from the venue's defaults and the caller's overrides, in the store of the context (or a store
// of its own); none when limiting is off.
const makeLimiter = (options: Options, timeoutMillis: number): Effect.Effect<Budget.Limiter | undefined> =>
  Effect.gen(function*() {
    const rateLimit = options.rateLimit
    if (rateLimit === false) return undefined
    const overrides = rateLimit ?? {}
    for (const name of ["uid", "ip", "perEndpoint"] as const) {
      const budget = overrides[name]
      if (budget !== undefined && !RateLimiter.isValidBudget(budget)) {
        return yield* invalid(`rateLimit.${name} needs a positive finite limit and windowMillis`)
      }
    }
    const weights = overrides.weights ?? {}
    for (const [name, weight] of Object.entries(weights)) {
      if (!(name in Venue.endpoints)) return yield* invalid(`rateLimit.weights.${name}: no such endpoint`)
      for (const side of ["uid", "ip"] as const) {
        const value = weight?.[side]
        if (value !== undefined && !RateLimiter.isPositive(value)) {
          return yield* invalid(`rateLimit.weights.${name}.${side} must be a positive finite number`)
        }
      }
    }
    const found = yield* Effect.serviceOption(RateLimitStore.RateLimitStore)
    const store = found._tag === "Some" ? found.value : yield* RateLimitStore.makeMemory
    return Budget.make(store, {
      uid: overrides.uid ?? Venue.budgets.uid,
      ip: overrides.ip ?? Venue.budgets.ip,
      perEndpoint: overrides.perEndpoint ?? Venue.budgets.perEndpoint,
      weights,
      marginMillis: overrides.marginMillis ?? 25,
      userKey: yield* keyHash(Redacted.value(options.credentials.apiKey)),
      address: overrides.address ?? "default",
      // A request in flight longer than its timeout has ended, however; a little more for the answer's way back.
      leaseMillis: timeoutMillis + 5_000
    })
  })

/**
 * Builds the client from options; needs an `HttpClient`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = Effect.fnUntraced(function*(options: Options) {
  const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES
  if (!Number.isSafeInteger(maxResponseBytes) || maxResponseBytes < 1) {
    return yield* Effect.die(new RangeError("maxResponseBytes must be a positive integer"))
  }
  const timeout = Duration.fromInputUnsafe(options.timeout ?? Duration.seconds(10))
  const pipeline = yield* Pipeline.make({
    baseUrl: options.baseUrl.replace(/\/+$/, ""),
    credentials: options.credentials,
    locale: options.locale ?? "en-US",
    timeout,
    timeoutBy: options.timeoutBy ?? "client",
    maxResponseBytes,
    limiter: yield* makeLimiter(options, Duration.toMillis(timeout))
  })
  const retrying = Retry.make(options.retry ?? {})

  // execute: one request through the pipeline; decode: its payload, a shape the Schema refuses quoted as the body.
  const execute = (endpoint: Venue.Endpoint, body: string) => pipeline.execute(pipeline.request(endpoint, body))
  const decode =
    <A>(decoder: (payload: unknown) => Effect.Effect<A, Schema.SchemaError>) =>
    (response: Pipeline.VenueResponse): Effect.Effect<A, SpotError.SpotErrorReason> =>
      Effect.mapError(decoder(response.payload), (error) => response.schemaError(error))

  const fail = (operation: string) => (reason: SpotError.SpotErrorReason) =>
    new SpotError.SpotError({ operation: `SpotClient.${operation}`, reason })
  const reasonOf = (failure: Retry.Failure) => failure.reason

  const newClientOrderId = Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    const a = yield* Random.nextIntBetween(0, 2 ** 30)
    const b = yield* Random.nextIntBetween(0, 2 ** 30)
    return `sk${now.toString(36)}${a.toString(36).padStart(6, "0")}${b.toString(36).padStart(6, "0")}`
  })

  // ---------------------------------------------------------------------------------------------------------------
  // open orders

  const openOrdersPageOf = (query: typeof Order.OpenOrdersQuery.Type) =>
    Effect.mapError(
      retrying(
        Venue.endpoints.openOrders,
        Effect.flatMap(
          execute(Venue.endpoints.openOrders, Json.stringify(omitUndefined(query))),
          decode(Order.decodeOpenOrdersPage)
        )
      ),
      reasonOf
    )

  const openOrdersPage = Effect.fnUntraced(
    function*(query: Order.OpenOrdersQuery) {
      yield* Effect.annotateCurrentSpan({ symbol: query.symbol, pageNo: query.pageNo ?? 0 })
      return yield* openOrdersPageOf(yield* validateOpenOrdersQuery(query))
    },
    Effect.mapError(fail("openOrdersPage")),
    traced("SpotClient.openOrdersPage")
  )

  const openOrdersOf = (symbol: TradingPair, pageSize = 100) => Paging.openOrders(openOrdersPageOf, symbol, pageSize)

  const openOrders = (options: OpenOrdersOptions) =>
    Stream.unwrap(Effect.map(
      Effect.all([validateSymbol(options.symbol), validatePageSize(options.pageSize)]),
      ([symbol, pageSize]) => openOrdersOf(symbol, pageSize)
    )).pipe(
      Stream.mapError(fail("openOrders")),
      Stream.withSpan("SpotClient.openOrders", { attributes: { symbol: options.symbol } })
    )

  // ---------------------------------------------------------------------------------------------------------------
  // place order

  const placeOrder = Effect.fnUntraced(
    function*(input: Order.PlaceOrderInput) {
      const order = yield* validatePlaceOrder(input)
      const clientOrderId = order.clientOrderId ?? (yield* newClientOrderId)
      yield* Effect.annotateCurrentSpan({
        symbol: order.symbol,
        side: order.side,
        orderType: order.orderType,
        clientOrderId
      })
      const body = Json.stringify(orderBody(order.symbol, order, clientOrderId))
      return yield* retrying(
        Venue.endpoints.placeOrder,
        execute(Venue.endpoints.placeOrder, body).pipe(
          Effect.flatMap(decode(Order.decodePlaceOrderResult)),
          Effect.mapError((reason) =>
            reason._tag === "DuplicateOrderError"
              ? new SpotError.DuplicateOrderError({ ...reason, clientOrderId })
              : reason
          )
        )
      ).pipe(Effect.catch((failure) => Recovery.placement(openOrdersOf, order, clientOrderId, failure)))
    },
    Effect.mapError(fail("placeOrder")),
    traced("SpotClient.placeOrder")
  )

  // ---------------------------------------------------------------------------------------------------------------
  // batch

  const batchClient: Batch.Client = {
    send: (symbol, chunk) =>
      retrying.tracked(
        Venue.endpoints.placeOrders,
        execute(
          Venue.endpoints.placeOrders,
          Json.stringify({
            symbol,
            orderList: chunk.map((pending) => orderBody(undefined, pending.item, pending.clientOrderId))
          })
        ).pipe(Effect.flatMap((response) =>
          Effect.map(decode(decodeBatchResponse)(response), (answer): Order.BatchResponse => ({
            ...answer,
            // Failure texts end up in outcomes and logs: scrubbed like every other text from the network.
            failure: answer.failure?.map((failure) => ({
              ...failure,
              errorMsg: typeof failure.errorMsg === "string" ? response.scrub(failure.errorMsg) : failure.errorMsg
            }))
          }))
        ))
      ),
    find: (symbol, wanted) => Recovery.findOpenOrders(openOrdersOf, symbol, wanted),
    newClientOrderId
  }

  const placeOrders = Effect.fnUntraced(
    function*(symbolInput: string, items: Iterable<Order.BatchItemInput>) {
      const symbol = yield* validateSymbol(symbolInput)
      const inputs = Array.from(items)
      yield* Effect.annotateCurrentSpan({ symbol, items: inputs.length })
      return yield* Batch.placeOrders(batchClient, symbol, inputs)
    },
    Effect.mapError(fail("placeOrders")),
    traced("SpotClient.placeOrders")
  )

  // ---------------------------------------------------------------------------------------------------------------
  // bills

  const billsPageOf = (query: Bill.BillPageQuery) =>
    Effect.mapError(
      retrying(
        Venue.endpoints.fundingBills,
        Effect.flatMap(
          execute(Venue.endpoints.fundingBills, Json.stringify(omitUndefined({ ...query }))),
          decode(Bill.decodeBillPage)
        )
      ),
      reasonOf
    )

  const fundingBillsPage = Effect.fnUntraced(
    function*(query: Bill.BillPageQuery = {}) {
      return yield* billsPageOf(yield* validateBillPageQuery(query))
    },
    Effect.mapError(fail("fundingBillsPage")),
    traced("SpotClient.fundingBillsPage")
  )

  const fundingBills = (query: Bill.BillQuery = {}) =>
    Stream.unwrap(Effect.map(validateBillQuery(query), (valid) => Paging.fundingBills(billsPageOf, valid))).pipe(
      Stream.mapError(fail("fundingBills")),
      Stream.withSpan("SpotClient.fundingBills")
    )

  // ---------------------------------------------------------------------------------------------------------------
  // transfer

  const internalTransfer = Effect.fnUntraced(
    function*(input: Transfer.InternalTransferInput) {
      const transfer = yield* validateTransfer(input)
      yield* Effect.annotateCurrentSpan({ coin: transfer.coin, toUserId: transfer.toUserId })
      const body = Json.stringify({
        toUserId: Json.rawNumber(transfer.toUserId),
        coin: transfer.coin,
        amount: transfer.amount,
        fromAccountType: transfer.fromAccountType,
        toAccountType: transfer.toAccountType
      })
      return yield* retrying(
        Venue.endpoints.internalTransfer,
        execute(Venue.endpoints.internalTransfer, body).pipe(
          Effect.flatMap(decode(decodeTransferSuccess)),
          Effect.map((answer): Transfer.TransferResult => ({ id: answer.id, timestamp: answer.timestamp ?? undefined }))
        )
      ).pipe(Effect.mapError((failure) =>
        failure.mayHaveApplied
          ? new SpotError.OutcomeUnknownError({
            description: `${failure.reason.message}; the transfer was not retried because it may have been applied`
          })
          : failure.reason
      ))
    },
    Effect.mapError(fail("internalTransfer")),
    traced("SpotClient.internalTransfer")
  )

  return SpotClient.of({
    placeOrder,
    placeOrders,
    openOrders,
    openOrdersPage,
    fundingBills,
    fundingBillsPage,
    internalTransfer,
    clockOffset: pipeline.clockOffset
  })
})

/**
 * The client as a layer; needs an `HttpClient`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<SpotClient, never, HttpClient.HttpClient> =>
  Layer.effect(SpotClient, make(options))

/**
 * A configuration that could not be read, said in words: a `Config.ConfigError` whose message names the variable
 * and says it is not set (rather than `SchemaError(Expected string at ["SPOTKIT_PASSPHRASE"])`), or why its value is
 * invalid.
 *
 * @since 0.2.0
 * @category errors
 */
export class ConfigurationError extends Config.ConfigError {
  /** The variable (the config key), when the error names one. */
  readonly variable: string | undefined
  /** `missing`: not set; `invalid`: set, with a value the config refuses. */
  readonly problem: "missing" | "invalid"
  private readonly detail: string

  constructor(error: Config.ConfigError) {
    super(error.cause)
    // "SchemaError(Expected string\n  at ["SPOTKIT_API_KEY"])": the variable, and what was wrong with it.
    const text = error.cause.toString()
    this.variable = /at \["([^"]+)"\]/.exec(text)?.[1]
    this.detail = text.split("\n")[0]!.replace(/^SchemaError\(/, "").replace(/\)$/, "")
    this.problem = this.detail === "Expected string" ? "missing" : "invalid"
  }

  override get message(): string {
    if (this.variable === undefined) return `configuration: ${this.detail}`
    return this.problem === "missing"
      ? `${this.variable} is not set`
      : `${this.variable} is invalid (${this.detail})`
  }
}

/**
 * Reads a configuration, failing with a `ConfigurationError` that says what is missing or invalid.
 *
 * @since 0.2.0
 * @category layers
 */
export const readConfig = <A>(config: Config.Wrap<A>): Effect.Effect<A, ConfigurationError> =>
  Effect.mapError(Config.unwrap(config), (error) => new ConfigurationError(error))

/**
 * The client configured from `Config` (by default the environment variables `SPOTKIT_BASE_URL`,
 * `SPOTKIT_API_KEY`, `SPOTKIT_SECRET_KEY`, `SPOTKIT_PASSPHRASE` and optionally `SPOTKIT_LOCALE`). A missing or
 * invalid variable fails the layer with a `ConfigurationError` that names it ("SPOTKIT_PASSPHRASE is not set").
 *
 * @since 0.1.0
 * @category layers
 */
export const layerConfig = (
  config: Config.Wrap<Options> = defaultConfig
): Layer.Layer<SpotClient, Config.ConfigError, HttpClient.HttpClient> =>
  Layer.effect(SpotClient, Effect.flatMap(readConfig(config), make))

/**
 * The default configuration: `SPOTKIT_*` environment variables.
 *
 * @since 0.1.0
 * @category layers
 */
export const defaultConfig: Config.Wrap<Options> = {
  baseUrl: Config.schema(
    Schema.String.check(
      Schema.isPattern(/^https?:\/\/[^\s/?#]+[^\s]*$/, { message: "must be an http:// or https:// URL" })
    ),
    "SPOTKIT_BASE_URL"
  ),
  credentials: {
    apiKey: Config.Redacted("SPOTKIT_API_KEY"),
    secretKey: Config.Redacted("SPOTKIT_SECRET_KEY"),
    passphrase: Config.Redacted("SPOTKIT_PASSPHRASE")
  },
  locale: Config.String("SPOTKIT_LOCALE").pipe(Config.withDefault("en-US"))
}
