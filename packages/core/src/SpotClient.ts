/**
 * The spotkit client: every operation of the spot-trading and account interface as an Effect service.
 *
 * `SpotClient.layer(options)` needs an `HttpClient` (the Node package provides one; tests provide a fake or the
 * testkit). Each call validates its input before anything is sent (an order also against its symbol's trading rules),
 * waits for its rate-limit budget, signs with a clock corrected by the server's time, retries transient failures with
 * jittered exponential backoff, and fails with one `SpotError` whose `reason` says what happened. The operations are
 * written in `internal/orders.ts`, `internal/account.ts` and `internal/transfers.ts`; `make` assembles them.
 *
 * @since 0.1.0
 */
import {
  type Array as Arr,
  Config,
  Context,
  Duration,
  Effect,
  Layer,
  type Option,
  Redacted,
  Schema,
  type Stream
} from "effect"
import type { HttpClient } from "effect/http"
import type * as Account from "./Account.ts"
import type * as Bill from "./Bill.ts"
import type * as Cancel from "./Cancel.ts"
import type * as Fill from "./Fill.ts"
import * as AccountOps from "./internal/client/account.ts"
import * as Budget from "./internal/client/budget.ts"
import * as Call from "./internal/client/call.ts"
import * as Cancels from "./internal/client/cancel.ts"
import * as ConfigReading from "./internal/client/config.ts"
import * as MarketOps from "./internal/client/market.ts"
import * as OrderState from "./internal/client/orderState.ts"
import * as Pipeline from "./internal/client/pipeline.ts"
import * as Placing from "./internal/client/placing.ts"
import * as RateLimiter from "./internal/client/rateLimiter.ts"
import * as Retry from "./internal/client/retry.ts"
import * as Rules from "./internal/client/rules.ts"
import * as Reporting from "./internal/client/telemetry.ts"
import * as Transfers from "./internal/client/transfers.ts"
import type * as Market from "./Market.ts"
import type * as Order from "./Order.ts"
import * as RateLimitStore from "./RateLimitStore.ts"
import type * as Signer from "./Signer.ts"
import type * as SpotError from "./SpotError.ts"
import type * as Telemetry from "./Telemetry.ts"
import type * as Transfer from "./Transfer.ts"
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
 * Client-side rate limits: the venue's weight model (docs/venue/limits.md, `Venue.budgets` and each endpoint's
 * `Venue.Weight`). Every signed request charges its UID weight against the API user's budget and its IP weight
 * against the address's; a public one only the address's; placing, batching, cancelling and transfers also count one
 * request against their endpoint's own budget. A request counts while in flight and for one window (plus
 * `marginMillis`) from its answer. After a 429 the budget the request came from (the API user's for a signed request,
 * the address's for a public one) pauses for the venue's `Retry-After`, or one window, before any call charging it
 * sends again; a `Retry-After` beyond `maxRetryAfter` fails the call at once with a `RateLimitError` that says so
 * (and the pause lasts `maxRetryAfter`); the endpoints in `pauseExempt` go through a pause that another endpoint's
 * request drew. Each field overrides its default; `false` for the whole option turns limiting off.
 *
 * The budgets live in the `RateLimitStore` in context, or in memory per client without one: provide
 * `RateLimitStore.layerRedis` (`@spotkit/node`: `SPOTKIT_REDIS_URL`) to share them between processes. Their names
 * in the store carry the host of `baseUrl`, so that clients of two venues on one store never hold each other up.
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
  /**
   * The longest wait after a 429 that the client makes: a venue asking for more (`Retry-After`) fails the call at
   * once with a `RateLimitError` naming both, rather than leaving it silent for that long. @default 60 seconds
   */
  readonly maxRetryAfter?: Duration.Input | undefined
  /**
   * Endpoints whose requests go through a 429's pause, e.g. `["cancelOrder", "cancelOrders", "cancelAll"]` for a
   * program that would rather try to cancel at once than wait out the pause (one window of the budget: 10 s). They
   * still charge every budget and wait for room in it; a 429 that one of them draws pauses them too, as it does every
   * other request. The venue asks to wait after a 429, and a request sent during the pause may draw another.
   * @default [] (every request waits out a pause)
   */
  readonly pauseExempt?: ReadonlyArray<Venue.EndpointName> | undefined
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
  /**
   * e.g. `"https://api.example.com"`; a trailing `/` is ignored. Without `/api/v2`, which every endpoint's path
   * starts with: `make` refuses a base URL ending in it, and one that is not an http(s) URL (`Venue.baseUrlProblem`).
   */
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
   * exchange itself with a `TransportError` caused by a `TimeoutError` (`NodeSpotClient`'s default transport does, with
   * one timer per client for all its exchanges instead of a race of fibers; its layer refuses `"transport"` over the
   * others).
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
  /**
   * Whether the client asks the server's time (`GET /api/v2/public/time`, once, best effort) before its first signed
   * request, so that even that one is stamped with the server's clock. Without it the clock offset is learned from
   * answers, and a first request outside the venue's window is re-signed once after its `40008`.
   * @default true
   */
  readonly syncServerTime?: boolean | undefined
  /**
   * Whether orders are checked against their symbol's trading rules (tick, step, minimum and maximum quantity,
   * trading enabled) before they are sent. The rules are loaded on first use and cached; a symbol the venue does not
   * list, or rules that cannot be loaded, leave the order unchecked. Their load never holds an order back more than
   * 3 seconds (the first order's; expired rules serve while they are reloaded in the background). Rules older than 30
   * seconds that refuse an order, or after the venue refused one for a rule (`40808`, `45110`), are reloaded, at most
   * once per 30 seconds. A `SymbolRuleError` names the rule and the nearest valid values.
   * @default true
   */
  readonly checkSymbolRules?: boolean | undefined
  /**
   * How long cached symbol rules are used before they are loaded again (for orders, in the background: the expired
   * rules serve meanwhile). @default 1 hour
   */
  readonly symbolRulesMaxAge?: Duration.Input | undefined
  /**
   * Request and response hooks: a transform of the platform's `HttpClient` (e.g. `HttpClient.tapRequest`,
   * `HttpClient.tap`, `HttpClient.mapRequest`), applied once when the client is built. It sits beneath every stage of
   * the client, so it sees each HTTP exchange as sent: every attempt of a retried call, the rate-limit waits already
   * behind it, and signed requests, whose `ACCESS-KEY`, `ACCESS-PASSPHRASE` and `ACCESS-SIGN` headers are credentials:
   * log headers only through `Headers.redact` with the names in `Headers.CurrentRedactedNames` (which the client
   * sets to include them). A changed signed request (path, body, timestamp) fails the venue's signature check. Answers
   * reach it before the client reads them: a hook that reads a body must hand on a response that can be read again
   * (`BufferedResponse.read` makes one). A redirect reaches it as a failure: the client never follows one, whatever
   * the transform does.
   * @default none
   */
  readonly transformClient?: ((client: HttpClient.HttpClient) => HttpClient.HttpClient) | undefined
  /**
   * Told of what the client waits for and retries (`Telemetry.Event`): a wait for a rate-limit budget, a 429 and the
   * pause it starts, a retry about to wait; and entries of the symbol rules that could not be read. For a progress
   * line or a log; its failures and defects are ignored, and it should return at once (it runs on the request's way).
   * The same events are metrics and span events whether or not a listener is given (`Telemetry`).
   */
  readonly onEvent?: ((event: Telemetry.Event) => Effect.Effect<void>) | undefined
  /**
   * Further secrets that the client's errors never show: removed from every text of the network they quote (an
   * answer's body, a transport's message), in every form the credentials are (`SafeText.Scrubber`). For what the
   * requests carry besides the credentials, e.g. a proxy's password or a token a `transformClient` adds.
   * `NodeSpotClient.layer` adds its proxy's password, `user:password` and `Proxy-Authorization` itself.
   * @default none
   */
  readonly secrets?: ReadonlyArray<string | Redacted.Redacted<string>> | undefined
}

/**
 * The default of `Options.maxResponseBytes`: 64 MiB.
 *
 * @since 0.1.0
 * @category options
 */
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024

/**
 * The default of `Options.timeout`: 10 seconds for one exchange (a request and its answer read).
 *
 * @since 0.1.0
 * @category options
 */
export const DEFAULT_TIMEOUT: Duration.Duration = Duration.seconds(10)

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
 * The client. Every operation validates its input before anything is sent and fails with one `SpotError`; ids are
 * exact strings, decimals exact strings, names the same everywhere (`clientOrderId`, whatever the venue calls it).
 * The examples below are programs that need a `SpotClient` (`NodeSpotClient.layerConfig()`, or the test exchange's
 * `TestExchange.layerSpotClient()`).
 *
 * @example
 * ```ts
 * // placeOrder: a limit order, and what becomes of it
 * import { Effect, Option } from "effect"
 * import { Order, SpotClient } from "@spotkit/core"
 *
 * const program = Effect.gen(function*() {
 *   const client = yield* SpotClient.SpotClient
 *   const { orderId } = yield* client.placeOrder({
 *     symbol: "BTCUSDT_SPBL", side: "buy", orderType: "limit", price: "43250.5", quantity: "0.002"
 *   })
 *   const order = yield* client.order({ orderId }) // orderId: exact 64-bit id, a string
 *   return Option.match(order, {
 *     onNone: () => "unknown",
 *     onSome: (o) => Order.isFinal(o.status) ? "final" : o.status
 *   })
 * })
 * ```
 *
 * @example
 * ```ts
 * // placeOrders: as many orders as needed, one outcome each; those that may exist settled by `resolve`
 * import { Effect } from "effect"
 * import { SpotClient } from "@spotkit/core"
 *
 * const items = [1, 2, 3].map((i) => ({
 *   side: "buy" as const,
 *   orderType: "limit" as const,
 *   price: `${100 - i}`,
 *   quantity: "0.01"
 * }))
 * const program = Effect.gen(function*() {
 *   const client = yield* SpotClient.SpotClient
 *   const first = yield* client.placeOrders("BTCUSDT_SPBL", items)
 *   const result = first.outcomes.some((o) => o._tag === "Failed" && o.mayExist)
 *     ? yield* client.resolve("BTCUSDT_SPBL", items, first)
 *     : first
 *   return `${result.placed} placed, ${result.failed} failed`
 * })
 * ```
 *
 * @example
 * ```ts
 * // openOrders and cancelOrders: every open order of a symbol, then cancel the oldest ten
 * import { Effect, Stream } from "effect"
 * import { SpotClient } from "@spotkit/core"
 *
 * const program = Effect.gen(function*() {
 *   const client = yield* SpotClient.SpotClient
 *   const open = yield* Stream.runCollect(client.openOrders({ symbol: "BTCUSDT_SPBL" })) // newest first
 *   const oldest = open.slice(-10).map((order) => ({ orderId: order.orderId }))
 *   const result = yield* client.cancelOrders("BTCUSDT_SPBL", oldest)
 *   return result.outcomes.map((o) => o._tag) // "Cancelled" | "NotOpen" | "Failed"
 * })
 * ```
 *
 * @example
 * ```ts
 * // cancelOrder and cancelAll: an order that is no longer open is an answer, not a failure
 * import { Effect } from "effect"
 * import { SpotClient } from "@spotkit/core"
 *
 * const program = Effect.gen(function*() {
 *   const client = yield* SpotClient.SpotClient
 *   const one = yield* client.cancelOrder({ symbol: "BTCUSDT_SPBL", clientOrderId: "my-order-1" })
 *   if (one._tag === "NotOpen") yield* Effect.log(`not open: ${one.reason}`) // "unknown" or "final"
 *   const all = yield* client.cancelAll("BTCUSDT_SPBL")
 *   return `${all.cancelled} cancelled`
 * })
 * ```
 *
 * @example
 * ```ts
 * // fundingBills and fills: lazily paged streams, never a row twice, never one skipped
 * import { Effect, Stream } from "effect"
 * import { SpotClient } from "@spotkit/core"
 *
 * const program = Effect.gen(function*() {
 *   const client = yield* SpotClient.SpotClient
 *   const deposits = yield* client.fundingBills({ coinId: 2, startTime: 1_700_000_000_000 }).pipe(
 *     Stream.filter((bill) => bill.bizType === "deposit"),
 *     Stream.runCount
 *   )
 *   const fills = yield* Stream.runCollect(Stream.take(client.fills({ symbol: "BTCUSDT_SPBL" }), 100))
 *   return { deposits, fees: fills.map((fill) => fill.fees) } // fees: exact decimal strings
 * })
 * ```
 *
 * @example
 * ```ts
 * // balances and internalTransfer: a transfer is never sent twice blindly; a lost answer is looked up
 * import { Effect } from "effect"
 * import { SpotClient } from "@spotkit/core"
 *
 * const program = Effect.gen(function*() {
 *   const client = yield* SpotClient.SpotClient
 *   const usdt = (yield* client.balances()).find((balance) => balance.coinName === "USDT")
 *   const { id } = yield* client.internalTransfer({
 *     toUserId: "602876318261969338", coin: "USDT", amount: "25", fromAccountType: "SPOT", toAccountType: "SPOT"
 *   })
 *   return { available: usdt?.available, transfer: id }
 * })
 * ```
 *
 * @example
 * ```ts
 * // ticker, orderBook, candleHistory, recentTrades: public market data, no key needed
 * import { Effect, Stream } from "effect"
 * import { SpotClient } from "@spotkit/core"
 *
 * const program = Effect.gen(function*() {
 *   const client = yield* SpotClient.SpotClient
 *   const { lastPrice } = yield* client.ticker("BTCUSDT_SPBL")
 *   const book = yield* client.orderBook("BTCUSDT_SPBL", { limit: 15 }) // bids and asks best first
 *   const day = yield* Stream.runCollect(
 *     client.candleHistory("BTCUSDT_SPBL", "1h", { since: 1_795_000_000_000, until: 1_795_086_400_000 })
 *   ) // 24 candles, ascending by open time
 *   const trades = yield* client.recentTrades("BTCUSDT_SPBL", { limit: 50 })
 *   const [bid, ask] = [book.bids[0]?.price, book.asks[0]?.price]
 *   return { lastPrice, bid, ask, candles: day.length, trades: trades.length }
 * })
 * ```
 *
 * @since 0.1.0
 * @category models
 */
export interface Service {
  // --- orders

  /**
   * Places one order. Without a `clientOrderId` one is generated. The order is first checked against its symbol's
   * rules (`SymbolRuleError`; see `Options.checkSymbolRules`). A retried call reuses its clientOrderId, so the order
   * is placed at most once; when an attempt may have been applied and the call fails (its answer lost, or a retry
   * answered "duplicate"), the order is looked up by its clientOrderId (`order`, which sees filled orders too) and
   * returned when it is the same order, so a market, IOC or FOK order that filled at once still answers its orderId.
   * A clientOrderId given is held while the call runs: another `placeOrder` (or `placeOrders` item) of this client
   * with it meanwhile fails at once, unsent (a `ValidationError`, "in flight").
   */
  readonly placeOrder: (order: Order.PlaceOrderInput) => Effect.Effect<Order.PlaceOrderResult, SpotError.SpotError>
  /**
   * Places any number of orders on one symbol, 50 per request. The result has one outcome per item in input order;
   * an invalid item, one that breaks the symbol's rules, or a failed chunk fails only its own items (so does an item
   * whose clientOrderId another call of this client is placing). Items an ambiguous attempt may have placed are
   * looked up by clientOrderId; those still unknown say `mayExist`.
   */
  readonly placeOrders: (
    symbol: string,
    items: Iterable<Order.BatchItemInput>
  ) => Effect.Effect<Order.BatchResult, SpotError.SpotError>
  /**
   * Settles the outcomes of `placeOrders` that say `mayExist`: each is looked up by its clientOrderId and becomes
   * `Placed` (the venue has the same order, created during that call: no earlier than the outcome's `notBefore`, or
   * its `sentAt` put on the venue's clock by the estimates the lookup's answer teaches, through the monotonic clock
   * when this client returned the outcome) or `Failed` with `mayExist: false` (it has none, or another order holds the
   * id, an older one under a reused id too). `items` are the items given to `placeOrders`, in the same order. Outcomes
   * whose lookup fails stay as they are, and so do those whose identical order was created before `unsureUntil` (a
   * step of the machine's clock during the call leaves it unknown whether it is the call's). An order this client
   * placed under the id since (a later `placeOrder` or batch) is that call's, not the outcome's: the outcome becomes
   * `Failed` with `mayExist: false`, naming it; an outcome whose id a call of this client is placing now stays as it is.
   */
  readonly resolve: (
    symbol: string,
    items: ReadonlyArray<Order.BatchItemInput>,
    result: Order.BatchResult
  ) => Effect.Effect<Order.BatchResult, SpotError.SpotError>
  /**
   * One order by orderId or clientOrderId, whatever its status (open, filled, cancelled): `None` when the venue does
   * not know it. `Order.isFinal(order.status)` says whether it can still change.
   */
  readonly order: (ref: Order.OrderRef) => Effect.Effect<Option.Option<Order.OrderRecord>, SpotError.SpotError>
  /**
   * Every open order of a symbol, newest first, fetched page by page as the stream is pulled, until a page is shorter
   * than the page size (100 by default, the venue's documented maximum: a venue serving fewer than asked would end the
   * list early). An order is never yielded twice, even when new orders push older ones to later pages. A full page of orders all yielded before is asked
   * again once (newer orders pushing them down answer the same; a replayed answer is followed by the page owed), and
   * after three such pages in a row the stream fails rather than loop. The venue pages by offset with no cursor, so
   * an order can be missed if orders already listed (newer ones, on pages read) leave the book (fill, cancel) while the
   * stream pages: each moves the older orders up one place, and the first of the next page slides onto a page read.
   * Older orders leaving hide none. Such a stream is a snapshot taken over time, not an atomic one; to be sure of a
   * whole list, read it again until two reads agree.
   */
  readonly openOrders: (options: OpenOrdersOptions) => Stream.Stream<Order.OpenOrder, SpotError.SpotError>
  /** One page of open orders. */
  readonly openOrdersPage: (query: Order.OpenOrdersQuery) => Effect.Effect<Order.OpenOrdersPage, SpotError.SpotError>
  /**
   * Cancels one order of a symbol, by orderId or clientOrderId. `Cancelled`, or `NotOpen` (`unknown`: no such order;
   * `final`: already filled or cancelled) — an order that is not open is an answer, not a failure. Retried like a
   * read (cancelling twice does no harm); when an earlier attempt may have gone through, a "final" answer is checked
   * against the order's status, so the caller's own cancel is reported `Cancelled`.
   */
  readonly cancelOrder: (order: Cancel.CancelOrderInput) => Effect.Effect<Cancel.CancelOutcome, SpotError.SpotError>
  /**
   * Cancels any number of orders of a symbol, by orderId or clientOrderId, 50 per request: one outcome per item in
   * input order (`Cancelled`, `NotOpen`, or `Failed` for an invalid item or a request that failed).
   */
  readonly cancelOrders: (
    symbol: string,
    orders: Iterable<Order.OrderRef>
  ) => Effect.Effect<Cancel.CancelOrdersResult, SpotError.SpotError>
  /** Cancels every open order of a symbol: the ids cancelled, and those the venue listed as not cancelled. */
  readonly cancelAll: (symbol: string) => Effect.Effect<Cancel.CancelOrdersResult, SpotError.SpotError>
  /**
   * The order history of a symbol (every order, any status), newest first, fetched as the stream is pulled. Pages by
   * time like `fundingBills`: never yields an order twice and never skips one that existed when the stream began,
   * whether the venue's time bounds are inclusive or exclusive. When a page's `nextPage` is not a boolean, a short
   * page may be the venue's cap: the stream asks below it, at the size served, and ends at a page shorter than that
   * (one more request at the end of the list).
   */
  readonly orderHistory: (filter: Order.OrderHistoryFilter) => Stream.Stream<Order.OrderRecord, SpotError.SpotError>
  /** One page of order history (`pageIndex` from 0). */
  readonly orderHistoryPage: (
    query: Order.OrderHistoryQuery
  ) => Effect.Effect<Order.OrderHistoryPage, SpotError.SpotError>
  /** The fills of a symbol (or of one order), newest first, paged by time with the guarantees of `orderHistory`. */
  readonly fills: (filter: Fill.FillsFilter) => Stream.Stream<Fill.FillRecord, SpotError.SpotError>
  /** One page of fills (`pageIndex` from 0). */
  readonly fillsPage: (query: Fill.FillsQuery) => Effect.Effect<Fill.FillsPage, SpotError.SpotError>

  // --- account and market data

  /** The spot account's balances, one per coin: available, frozen, equity (exact decimals). */
  readonly balances: () => Effect.Effect<ReadonlyArray<Account.Balance>, SpotError.SpotError>
  /**
   * Every funding bill matching the filters, newest first, fetched as the stream is pulled. Never yields a bill
   * twice and never skips one that existed when the stream began, even while new bills arrive.
   */
  readonly fundingBills: (query?: Bill.BillQuery) => Stream.Stream<Bill.Bill, SpotError.SpotError>
  /** One page of bills. */
  readonly fundingBillsPage: (query?: Bill.BillPageQuery) => Effect.Effect<Bill.BillPage, SpotError.SpotError>
  /**
   * Every symbol's trading rules (exchangeInfo): tick, step, minimum and maximum quantity, fees, tradable. Cached by
   * the client: loaded on first use and again when older than `Options.symbolRulesMaxAge`. An entry that cannot be
   * read is left out and reported (`Telemetry.Event` `UnreadableSymbols`, a warning in the log); the others are kept.
   */
  readonly symbols: () => Effect.Effect<ReadonlyArray<Market.SymbolRules>, SpotError.SpotError>
  /**
   * One symbol's trading rules, from the same cache: `None` when the venue does not list it or its entry could not be
   * read (then reported, as by `symbols`).
   */
  readonly symbol: (name: string) => Effect.Effect<Option.Option<Market.SymbolRules>, SpotError.SpotError>
  /** Loads every symbol's rules again now (the cache the order check uses too). */
  readonly refreshSymbols: () => Effect.Effect<ReadonlyArray<Market.SymbolRules>, SpotError.SpotError>
  /** A symbol's 24-hour statistics: last price, change, high, low, volumes (exact decimals). Public: no key needed. */
  readonly ticker: (symbol: string) => Effect.Effect<Market.Ticker, SpotError.SpotError>
  /** Every symbol's ticker (one request of weight 40 by default: `rateLimit.weights.tickers`). */
  readonly tickers: () => Effect.Effect<ReadonlyArray<Market.Ticker>, SpotError.SpotError>
  /**
   * The order book of a symbol, 15 or 200 levels a side: bids best (highest) first, asks best (lowest) first, sizes
   * exact as the venue writes them.
   */
  readonly orderBook: (
    symbol: string,
    options?: Market.OrderBookOptions
  ) => Effect.Effect<Market.OrderBook, SpotError.SpotError>
  /** Candles of a symbol and period, ascending by open time, from one request (`limit`, `startTime`, `endTime`). */
  readonly candles: (
    symbol: string,
    period: Market.CandlePeriod,
    options?: Market.CandlesOptions
  ) => Effect.Effect<ReadonlyArray<Market.Candle>, SpotError.SpotError>
  /**
   * Candles of a long range, ascending by open time, fetched as the stream is pulled: paged by time windows that
   * never skip or repeat a candle, whatever the venue's bounds and limits do. A window answered short of the limit
   * asked, by a venue that serves fewer, is asked for the rest; an answer about another window (a replayed answer,
   * or a venue that ignores `startTime`/`endTime`) is asked again, and the third in a row fails the stream with a
   * `DecodeError` rather than skip candles.
   */
  readonly candleHistory: (
    symbol: string,
    period: Market.CandlePeriod,
    options: Market.CandleHistoryOptions
  ) => Stream.Stream<Market.Candle, SpotError.SpotError>
  /** The latest trades of a symbol's market, newest first (at most 1,000). */
  readonly recentTrades: (
    symbol: string,
    options?: Market.RecentTradesOptions
  ) => Effect.Effect<ReadonlyArray<Market.Trade>, SpotError.SpotError>
  /** The server's time (ms); the clock offset is learned from it. */
  readonly serverTime: () => Effect.Effect<number, SpotError.SpotError>
  /** Current estimate of server time minus local time (ms), learned from the venue's answers. */
  readonly clockOffset: Effect.Effect<number>

  // --- transfers

  /**
   * Transfers a coin to another user. Retried only when the venue provably did not apply it (no connection, 429,
   * maintenance, timestamp). When the answer is lost, the transfer is never sent again: it is looked up in the
   * venue's list (by time, coin, receiver and amount, leaving out transfers this client already knows) and answered
   * when exactly one matches; otherwise the call fails with `OutcomeUnknownError`, whose `candidates` are the matches.
   */
  readonly internalTransfer: (
    transfer: Transfer.InternalTransferInput
  ) => Effect.Effect<Transfer.TransferResult, SpotError.SpotError>
  /**
   * The venue's internal transfers with their status (about the past month), newest first, every page, as a lazy
   * stream: no request before the first pull, one a page (200 by default, the venue's most). A transfer is never
   * yielded twice, even when newer ones push it to a later page. The venue may serve fewer than asked, so a short page
   * is not taken for the last until a page shorter than one served before: the end of a list costs one more request.
   * A full page of transfers all yielded before is asked again once, and after three such pages in a row the stream
   * fails rather than loop. Transfers made while it pages are not sought (the list has no cursor): read from the
   * start to see them.
   */
  readonly transfers: (filter?: Transfer.TransferFilter) => Stream.Stream<Transfer.TransferRecord, SpotError.SpotError>
  /** One page of the venue's list of internal transfers with their status (`page` from 1, up to 200 a page). */
  readonly transferStatus: (
    query?: Transfer.TransferStatusQuery
  ) => Effect.Effect<ReadonlyArray<Transfer.TransferRecord>, SpotError.SpotError>
}

/**
 * @since 0.1.0
 * @category services
 */
export class SpotClient extends Context.Service<SpotClient, Service>()("@spotkit/core/SpotClient") {}

// After symbol rules failed to load, placing orders sends them unchecked for this long before loading is tried again.
const RULES_RETRY_MILLIS = 60_000

// The longest an order waits for the symbol rules' load (a cold cache's, or the reload after a refusal): the rules are
// optional, the load is retried for up to a minute, and an order that waited that long would execute at another price.
const RULES_WAIT_MILLIS = 3_000

// A refusal for a rule reloads the symbol rules only when they are older than this: a refusal the rules cannot explain
// (an order value below the venue's minimum, which they do not carry) would otherwise reload every symbol's rules
// (weight 10) on every refused order.
const RULES_REFRESH_AFTER_MILLIS = 30_000

const invalid = (message: string) => Effect.die(new RangeError(message))

// The API key's hash (SHA-256, hex), which names its budgets in a store: never the key itself.
const keyHash = (apiKey: string) =>
  Effect.map(
    Effect.promise(() => globalThis.crypto.subtle.digest("SHA-256", new TextEncoder().encode(apiKey))),
    (digest) => Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, "0")).join("").slice(0, 32)
  )

// The client's budgets, from the venue's defaults and the caller's overrides, in the store of the context (or a store
// of its own); none when limiting is off.
const makeLimiter = (
  options: Options,
  timeoutMillis: number,
  reporter: Reporting.Reporter
): Effect.Effect<Budget.Limiter | undefined> =>
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
      if (!Object.hasOwn(Venue.endpoints, name)) return yield* invalid(`rateLimit.weights.${name}: no such endpoint`)
      for (const side of ["uid", "ip"] as const) {
        const value = weight?.[side]
        if (value !== undefined && !RateLimiter.isPositive(value)) {
          return yield* invalid(`rateLimit.weights.${name}.${side} must be a positive finite number`)
        }
      }
    }
    for (const name of overrides.pauseExempt ?? []) {
      if (!Object.hasOwn(Venue.endpoints, name)) {
        return yield* invalid(`rateLimit.pauseExempt: ${String(name)}: no such endpoint`)
      }
    }
    const maxRetryAfter = overrides.maxRetryAfter === undefined
      ? undefined
      : Duration.toMillis(Duration.fromInputUnsafe(overrides.maxRetryAfter))
    if (maxRetryAfter !== undefined && !(maxRetryAfter > 0)) {
      return yield* invalid("rateLimit.maxRetryAfter must be a positive duration")
    }
    const found = yield* Effect.serviceOption(RateLimitStore.RateLimitStore)
    const store = found._tag === "Some" ? found.value : yield* RateLimitStore.makeMemory
    return Budget.make(store, {
      uid: overrides.uid ?? Venue.budgets.uid,
      ip: overrides.ip ?? Venue.budgets.ip,
      perEndpoint: overrides.perEndpoint ?? Venue.budgets.perEndpoint,
      weights,
      marginMillis: overrides.marginMillis ?? 25,
      baseUrl: options.baseUrl,
      maxRetryAfterMillis: maxRetryAfter,
      userKey: yield* keyHash(Redacted.value(options.credentials.apiKey)),
      address: overrides.address ?? "default",
      // A request in flight longer than its timeout has ended, however; a little more for the answer's way back.
      leaseMillis: timeoutMillis + 5_000,
      onWait: (wait) => reporter.waiting(wait.endpoint, wait.budget, wait.millis),
      onWaited: reporter.waited,
      pauseExempt: overrides.pauseExempt
    })
  })

/**
 * Builds the client from options; needs an `HttpClient`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = Effect.fnUntraced(function*(options: Options) {
  const baseUrlProblem = Venue.baseUrlProblem(options.baseUrl)
  if (baseUrlProblem !== undefined) return yield* invalid(`baseUrl ${baseUrlProblem}`)
  const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES
  if (!Number.isSafeInteger(maxResponseBytes) || maxResponseBytes < 1) {
    return yield* Effect.die(new RangeError("maxResponseBytes must be a positive integer"))
  }
  const timeout = Duration.fromInputUnsafe(options.timeout ?? DEFAULT_TIMEOUT)
  const overrides = new Map(
    Object.entries((options.rateLimit === false ? undefined : options.rateLimit?.weights) ?? {})
  )
  const reporter = Reporting.make(
    options.onEvent,
    (endpoint) => ({ ...endpoint.weight, ...overrides.get(endpoint.name) })
  )
  const pipeline = yield* Pipeline.make({
    reporter,
    baseUrl: options.baseUrl.replace(/\/+$/, ""),
    credentials: options.credentials,
    secrets: (options.secrets ?? []).map((secret) => Redacted.isRedacted(secret) ? Redacted.value(secret) : secret),
    locale: options.locale ?? "en-US",
    timeout,
    timeoutBy: options.timeoutBy ?? "client",
    maxResponseBytes,
    limiter: yield* makeLimiter(options, Duration.toMillis(timeout), reporter),
    syncTime: options.syncServerTime ?? true,
    transformClient: options.transformClient
  })
  const retrying = Retry.make(options.retry ?? {}, reporter)
  const rules = yield* Rules.make(
    Call.send({ pipeline, retrying }, Venue.endpoints.exchangeInfo, {}).pipe(
      Effect.tap((list) => reporter.unreadableSymbols(list.unreadable))
    ),
    {
      maxAge: Duration.toMillis(Duration.fromInputUnsafe(options.symbolRulesMaxAge ?? Duration.hours(1))),
      retryMillis: RULES_RETRY_MILLIS,
      waitMillis: RULES_WAIT_MILLIS,
      refreshAfter: RULES_REFRESH_AFTER_MILLIS
    }
  )
  const context: Call.Context = {
    pipeline,
    retrying,
    rules,
    checkRules: options.checkSymbolRules ?? true,
    traced: Call.tracer(pipeline.enter)
  }
  const orderState = OrderState.make(context)
  return SpotClient.of({
    ...orderState.operations,
    ...Placing.make(context, orderState.lookupByClientIds),
    ...Cancels.make(context, orderState.lookup),
    ...MarketOps.make(context),
    ...AccountOps.make(context),
    ...Transfers.make(context),
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
 * One problem of a configuration that could not be read: the variable (the config key, when the error names one),
 * whether it is `missing` (not set) or `invalid` (set, with a value the config refuses), and the config's words for
 * what is wrong (never the value: Effect's `Config` reports none).
 *
 * @since 0.1.0
 * @category errors
 */
export interface ConfigurationProblem {
  readonly variable: string | undefined
  readonly problem: "missing" | "invalid"
  readonly detail: string
}

// "SchemaError(Expected string\n  at ["SPOTKIT_API_KEY"])": the variable, and what was wrong with it.
const problemOf = (error: Config.ConfigError): ReadonlyArray<ConfigurationProblem> => {
  if (error instanceof ConfigurationError) return error.problems
  const text = error.cause.toString()
  const lines = text.split("\n")
  // The closing parenthesis is SchemaError's own only when it is on the first line; else it is the detail's.
  const first = lines[0]!.replace(/^SchemaError\(/, "")
  const detail = lines.length === 1 ? first.replace(/\)$/, "") : first
  return [{
    variable: /at \["([^"]+)"\]/.exec(text)?.[1],
    problem: detail === "Expected string" ? "missing" : "invalid",
    detail
  }]
}

const sentence = ({ detail, problem, variable }: ConfigurationProblem): string => {
  if (variable === undefined) return `configuration: ${detail}`
  return problem === "missing" ? `${variable} is not set` : `${variable} is invalid (${detail})`
}

/**
 * A configuration that could not be read, said in words: a `Config.ConfigError` whose message names every variable
 * that is not set (rather than `SchemaError(Expected string at ["SPOTKIT_PASSPHRASE"])`) or whose value is invalid,
 * and why, one after the other ("SPOTKIT_API_KEY is not set; SPOTKIT_PASSPHRASE is not set; SPOTKIT_BASE_URL is
 * invalid (must be an http:// or https:// URL)"), so that one run shows everything to fix. Never a value: three of
 * the variables are secrets.
 *
 * @since 0.1.0
 * @category errors
 */
export class ConfigurationError extends Config.ConfigError {
  /** The first problem's variable (the config key), when its error names one. */
  readonly variable: string | undefined
  /** The first problem's kind. `missing`: not set; `invalid`: set, with a value the config refuses. */
  readonly problem: "missing" | "invalid"
  /** Every problem found, in the order the configuration reads its variables (never empty). */
  readonly problems: ReadonlyArray<ConfigurationProblem>

  /** From one error (a `ConfigurationError` keeps its problems) or from several, the first the `cause`. */
  constructor(error: Config.ConfigError | Arr.NonEmptyReadonlyArray<Config.ConfigError>) {
    const errors: Arr.NonEmptyReadonlyArray<Config.ConfigError> = error instanceof Config.ConfigError ? [error] : error
    super(errors[0].cause)
    this.problems = errors.flatMap(problemOf)
    this.variable = this.problems[0]!.variable
    this.problem = this.problems[0]!.problem
  }

  override get message(): string {
    return this.problems.map(sentence).join("; ")
  }
}

/**
 * Reads a configuration (a `Config`, or an object of them, nested, as `Config.unwrap` takes), every variable of it:
 * when any is missing or invalid, fails with one `ConfigurationError` that names them all.
 *
 * @since 0.1.0
 * @category layers
 */
export const readConfig = <A>(config: Config.Wrap<A>): Effect.Effect<A, ConfigurationError> =>
  Effect.mapError(ConfigReading.readAll(config), (errors) => new ConfigurationError(errors))

/**
 * The client configured from `Config` (by default the environment variables `SPOTKIT_BASE_URL`,
 * `SPOTKIT_API_KEY`, `SPOTKIT_SECRET_KEY`, `SPOTKIT_PASSPHRASE` and optionally `SPOTKIT_LOCALE`). A missing or
 * invalid variable fails the layer with a `ConfigurationError` that names it, and every other one missing or invalid
 * with it ("SPOTKIT_API_KEY is not set; SPOTKIT_PASSPHRASE is not set").
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
    Schema.String.check(Schema.makeFilter((url: string) => Venue.baseUrlProblem(url) ?? true)),
    "SPOTKIT_BASE_URL"
  ),
  credentials: {
    apiKey: Config.Redacted("SPOTKIT_API_KEY"),
    secretKey: Config.Redacted("SPOTKIT_SECRET_KEY"),
    passphrase: Config.Redacted("SPOTKIT_PASSPHRASE")
  },
  locale: Config.String("SPOTKIT_LOCALE").pipe(Config.withDefault("en-US"))
}
