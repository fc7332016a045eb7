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
import { Clock, Config, Context, Duration, Effect, Layer, Option, Random, Schedule, Schema, Stream } from "effect"
import type { HttpClient } from "effect/http"
import * as Bill from "./Bill.ts"
import * as Fast from "./internal/fast.ts"
import * as RateLimiter from "./internal/rateLimiter.ts"
import * as Transport from "./internal/transport.ts"
import * as validate from "./internal/validate.ts"
import * as Json from "./Json.ts"
import * as Order from "./Order.ts"
import { PageSize, TradingPair } from "./Primitives.ts"
import type { OrderId } from "./Primitives.ts"
import type * as Signer from "./Signer.ts"
import * as SpotError from "./SpotError.ts"
import * as Transfer from "./Transfer.ts"

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
 * Client-side rate limits per endpoint (DESIGN §4). Each field overrides its default; `false` for the whole option
 * turns limiting off.
 *
 * @since 0.1.0
 * @category options
 */
export interface RateLimitOptions {
  /** @default { limit: 10, windowMillis: 1000 } */
  readonly placeOrder?: RateLimit | undefined
  /** @default { limit: 10, windowMillis: 1000 } */
  readonly placeOrders?: RateLimit | undefined
  /** @default { limit: 10, windowMillis: 1000 } */
  readonly openOrders?: RateLimit | undefined
  /** @default { limit: 10, windowMillis: 1000 } */
  readonly internalTransfer?: RateLimit | undefined
  /** Weight budget of the bills endpoint; each request weighs `fundingBillsWeight`. @default { limit: 500, windowMillis: 10000 } */
  readonly fundingBills?: RateLimit | undefined
  /** @default 5 */
  readonly fundingBillsWeight?: number | undefined
  /** Added to every window to absorb network jitter between our send and the venue's receive. @default 25 */
  readonly marginMillis?: number | undefined
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
  /** `false` turns client-side rate limiting off. @default DESIGN §4 limits */
  readonly rateLimit?: RateLimitOptions | false | undefined
  /** `false` turns retries off. */
  readonly retry?: RetryOptions | false | undefined
  /** Time allowed for one HTTP exchange. @default 10 seconds */
  readonly timeout?: Duration.Input | undefined
}

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

/**
 * Endpoint paths (spec §4).
 *
 * @since 0.1.0
 * @category constants
 */
export const paths = {
  placeOrder: "/api/v2/trade/orders",
  placeOrders: "/api/v2/trade/batch-orders",
  openOrders: "/api/v2/trade/open-orders",
  fundingBills: "/api/v2/account/fundingBills",
  internalTransfer: "/api/v2/rebate/affiliate/internalWithdrawal"
} as const

/**
 * Items per batch request (DESIGN §3).
 *
 * @since 0.1.0
 * @category constants
 */
export const BATCH_LIMIT = 50

const STALE_PAGES = 3

// A public operation's span, like `Effect.fn(name)` gives, but without capturing a call-site stack trace on every
// call: that `new Error()` costs about 4 µs, a tenth of an in-process placeOrder, on a path that trading programs call
// in tight loops. Errors still carry the operation's name and reason.
const traced = (name: string) => <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.withSpan(self, name, { captureStackTrace: false })

const perSecond: RateLimit = { limit: 10, windowMillis: 1000 }
const billsBudget: RateLimit = { limit: 500, windowMillis: 10_000 }

// Reasons after which the venue may have applied a state-changing request: the answer was lost or garbled, or the
// server failed (5xx, with or without an envelope of an unknown code) after possibly acting on it.
const isAmbiguous = (reason: SpotError.SpotErrorReason): boolean =>
  (reason._tag === "TransportError" && reason.notSent !== true) ||
  reason._tag === "DecodeError" ||
  ((reason._tag === "HttpStatusError" || reason._tag === "ApiError") && reason.isRetryable)

// Reasons that prove the venue did not apply the request.
const isDefinitelyNotApplied = (reason: SpotError.SpotErrorReason): boolean =>
  reason._tag === "RateLimitError" || reason._tag === "MaintenanceError" || reason._tag === "TimestampError" ||
  (reason._tag === "TransportError" && reason.notSent === true)

const decoder = <S extends Schema.Top & { readonly DecodingServices: never }>(schema: S) => {
  const decode = Schema.decodeUnknownEffect(schema)
  return (data: unknown) => decode(data)
}

const decodePlaceOrderResult = Fast.decoder(Order.PlaceOrderResult, Fast.placeOrderResult)
const decodeBatchAnswer = decoder(Order.BatchResponse)
// Failure texts of a batch end up in outcomes and logs: scrub them like every other text from the network.
const decodeBatchResponse = (data: unknown, scrub: (text: string) => string) =>
  Effect.map(decodeBatchAnswer(data), (answer): Order.BatchResponse => ({
    ...answer,
    failure: answer.failure?.map((failure) => ({
      ...failure,
      errorMsg: typeof failure.errorMsg === "string" ? scrub(failure.errorMsg) : failure.errorMsg
    }))
  }))
const decodeOpenOrdersPage = Fast.decoder(Order.OpenOrdersPage, Fast.openOrdersPage)
const decodeBillPage = Fast.decoder(Bill.BillPage, Fast.billPage)
const decodeTransferSuccess = decoder(Transfer.TransferSuccess)
const validatePlaceOrder = validate.input(Order.PlaceOrder, undefined, Fast.placeOrder)
const validateBatchItem = validate.input(Order.BatchItem)
const validateSymbol = validate.input(TradingPair, "symbol")
const validateOpenOrdersQuery = validate.input(Order.OpenOrdersQuery, undefined, Fast.openOrdersQuery)
const validatePageSize = validate.input(Schema.UndefinedOr(PageSize), "pageSize")
const validateBillQuery = validate.input(Bill.BillQuery)
const validateBillPageQuery = validate.input(Bill.BillPageQuery)
const validateTransfer = validate.input(Transfer.InternalTransfer)

const orderBody = (symbol: string | undefined, order: Order.BatchItem, clientOrderId: string) => ({
  ...(symbol === undefined ? {} : { symbol }),
  side: order.side,
  orderType: order.orderType,
  force: order.force ?? "normal",
  // The venue's usage shape sends a zero price on market orders (spec §4.1).
  price: order.price ?? "0",
  quantity: order.quantity,
  clientOrderId
})

// Exact decimal equality regardless of formatting ("1.50" = "1.5", "2.0" = "2").
const sameDecimal = (a: string, b: string) => {
  const normal = (value: string) => value.includes(".") ? value.replace(/0+$/, "").replace(/\.$/, "") : value
  return normal(a) === normal(b)
}

const isSameOrder = (open: Order.OpenOrder, item: Order.BatchItem) =>
  open.side === item.side &&
  open.orderType === item.orderType &&
  (item.orderType !== "limit" ||
    (item.price !== undefined && sameDecimal(open.price, item.price) && sameDecimal(open.quantity, item.quantity)))

const omitUndefined = (record: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined))

/**
 * Builds the client from options; needs an `HttpClient`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = Effect.fnUntraced(function*(options: Options) {
  const limits = options.rateLimit === false ? undefined : options.rateLimit ?? {}
  const margin = limits?.marginMillis ?? 25
  const limiter = (pick: RateLimit | undefined, fallback: RateLimit) =>
    limits === undefined ? undefined : RateLimiter.make(pick ?? fallback, margin)
  if (limits !== undefined) {
    for (const name of ["placeOrder", "placeOrders", "openOrders", "internalTransfer", "fundingBills"] as const) {
      const budget = limits[name]
      if (budget !== undefined && !RateLimiter.isValidBudget(budget)) {
        return yield* Effect.die(new RangeError(`rateLimit.${name} needs a positive finite limit and windowMillis`))
      }
    }
    const weight = limits.fundingBillsWeight
    if (weight !== undefined && !RateLimiter.isPositive(weight)) {
      return yield* Effect.die(new RangeError("rateLimit.fundingBillsWeight must be a positive finite number"))
    }
  }
  const endpoint = (
    path: string,
    budget: RateLimiter.Limiter | undefined,
    weight = 1,
    envelope: Transport.Endpoint["envelope"] = "standard"
  ): Transport.Endpoint => ({ path, limiter: budget, weight, envelope })
  const endpoints = {
    placeOrder: endpoint(paths.placeOrder, limiter(limits?.placeOrder, perSecond)),
    placeOrders: endpoint(paths.placeOrders, limiter(limits?.placeOrders, perSecond)),
    openOrders: endpoint(paths.openOrders, limiter(limits?.openOrders, perSecond)),
    fundingBills: endpoint(
      paths.fundingBills,
      limiter(limits?.fundingBills, billsBudget),
      limits?.fundingBillsWeight ?? 5
    ),
    internalTransfer: endpoint(
      paths.internalTransfer,
      limiter(limits?.internalTransfer, perSecond),
      1,
      "transfer"
    )
  }

  const transport = yield* Transport.make({
    baseUrl: options.baseUrl.replace(/\/+$/, ""),
    credentials: options.credentials,
    locale: options.locale ?? "en-US",
    timeout: Duration.fromInputUnsafe(options.timeout ?? Duration.seconds(10))
  })

  const retryOptions = options.retry === false ? { times: 0 } : options.retry ?? {}
  const maxDelay = Duration.fromInputUnsafe(retryOptions.maxDelay ?? Duration.seconds(5))
  const schedule = Schedule.exponential(retryOptions.baseDelay ?? Duration.millis(200)).pipe(
    Schedule.jittered,
    Schedule.modifyDelay(({ duration }) =>
      Effect.succeed(Duration.millis(Math.round(Duration.toMillis(Duration.min(duration, maxDelay)))))
    )
  )
  const times = retryOptions.times ?? 4

  const logged = <A>(
    effect: Effect.Effect<A, SpotError.SpotErrorReason>,
    retryable: (reason: SpotError.SpotErrorReason) => boolean
  ) =>
    Effect.tapError(effect, (reason) =>
      retryable(reason)
        ? Effect.logDebug(`spotkit: retryable failure ${reason._tag}: ${reason.message}`)
        : Effect.void)

  // The retry schedule only starts after a first retryable failure, so a call that succeeds at once pays for one
  // `catch`, not for a schedule driver. The first failure is replayed into the schedule, so delays and the number of
  // attempts are exactly those of `Effect.retry` over the whole call.
  const retrying = <A>(
    effect: Effect.Effect<A, SpotError.SpotErrorReason>,
    retryable: (reason: SpotError.SpotErrorReason) => boolean
  ): Effect.Effect<A, SpotError.SpotErrorReason> =>
    Effect.catch(logged(effect, retryable), (first) => {
      if (times <= 0 || !retryable(first)) return Effect.fail(first)
      let replayed = false
      const again = Effect.suspend(() => {
        if (replayed) return logged(effect, retryable)
        replayed = true
        return Effect.fail(first)
      })
      return Effect.retry(again, { schedule, times, while: retryable })
    })

  const fail = (operation: string) => (reason: SpotError.SpotErrorReason) =>
    new SpotError.SpotError({ operation: `SpotClient.${operation}`, reason })

  const newClientOrderId = Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    const a = yield* Random.nextIntBetween(0, 2 ** 30)
    const b = yield* Random.nextIntBetween(0, 2 ** 30)
    return `sk${now.toString(36)}${a.toString(36).padStart(6, "0")}${b.toString(36).padStart(6, "0")}`
  })

  // ---------------------------------------------------------------------------------------------------------------
  // open orders

  const openOrdersPageReasons = (query: Order.OpenOrdersQuery) =>
    Effect.flatMap(validateOpenOrdersQuery(query), (valid) =>
      retrying(
        transport.call(endpoints.openOrders, Json.stringify(omitUndefined(valid)), decodeOpenOrdersPage),
        (reason) => reason.isRetryable
      ))

  const openOrdersPage = Effect.fnUntraced(
    function*(query: Order.OpenOrdersQuery) {
      yield* Effect.annotateCurrentSpan({ symbol: query.symbol, pageNo: query.pageNo ?? 0 })
      return yield* openOrdersPageReasons(query)
    },
    Effect.mapError(fail("openOrdersPage")),
    traced("SpotClient.openOrdersPage")
  )

  // Pages newest first from pageNo 0 until a page is shorter than the page size. Orders that move between pages
  // while paging (new orders push older ones down) are never yielded twice. A venue that ignores `pageNo` would
  // answer the same full page forever: after `STALE_PAGES` full pages without a new order the stream fails.
  const openOrdersReasons = (options: OpenOrdersOptions) =>
    Stream.unwrap(Effect.map(
      Effect.all([validateSymbol(options.symbol), validatePageSize(options.pageSize)]),
      ([symbol, pageSize]) => {
        const limit = pageSize ?? 100
        const seen = new Set<string>()
        let stale = 0
        return Stream.paginate(0, (pageNo: number) =>
          Effect.flatMap(openOrdersPageReasons({ symbol, limit, pageNo }), (page) => {
            const list = page.orderInfoResultList ?? []
            const fresh = list.filter((order) =>
              !seen.has(order.orderId)
            )
            for (const order of fresh) seen.add(order.orderId)
            const last = list.length < limit || page.nextPage === false
            stale = !last && fresh.length === 0 ? stale + 1 : 0
            if (stale >= STALE_PAGES) {
              return Effect.fail(
                new SpotError.DecodeError({
                  kind: "schema",
                  description: `open-orders paging made no progress: ${STALE_PAGES} full pages without a new order` +
                    ` (pageNo ${pageNo}); does the venue honour pageNo?`,
                  excerpt: ""
                })
              )
            }
            return Effect.succeed([fresh, last ? Option.none<number>() : Option.some(pageNo + 1)] as const)
          }))
      }
    ))

  const openOrders = (options: OpenOrdersOptions) =>
    openOrdersReasons(options).pipe(
      Stream.mapError(fail("openOrders")),
      Stream.withSpan("SpotClient.openOrders", { attributes: { symbol: options.symbol } })
    )

  // Looks up, among the open orders, the orders an ambiguous attempt may have placed. An open order counts only if
  // it is the same order (side, type, and for limit orders price and quantity): a clientOrderId reused from an older
  // order must not be mistaken for this one.
  const findOpenOrders = (symbol: string, wanted: ReadonlyMap<string, Order.BatchItem>) =>
    openOrdersReasons({ symbol }).pipe(
      Stream.filter((open) => {
        const item = wanted.get(open.clientOrderId)
        return item !== undefined && isSameOrder(open, item)
      }),
      Stream.runFold(() => new Map<string, OrderId>(), (found, order) => found.set(order.clientOrderId, order.orderId))
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
      let mayHaveApplied = false
      return yield* retrying(
        Effect.tapError(
          transport.call(endpoints.placeOrder, body, decodePlaceOrderResult, { clientOrderId }),
          (reason) => Effect.sync(() => (mayHaveApplied ||= isAmbiguous(reason)))
        ),
        (reason) => reason.isRetryable
      ).pipe(Effect.catch((reason) => {
        if (!mayHaveApplied) return Effect.fail(reason)
        // An earlier attempt may have placed the order: look for it before answering.
        return findOpenOrders(order.symbol, new Map([[clientOrderId, order]])).pipe(
          Effect.matchEffect({
            onFailure: () =>
              Effect.fail(
                new SpotError.OutcomeUnknownError({
                  description: `${reason.message}; the order could not be looked up among the open orders`,
                  clientOrderId
                })
              ),
            onSuccess: (found) => {
              const orderId = found.get(clientOrderId)
              if (orderId !== undefined) {
                return Effect.succeed<Order.PlaceOrderResult>({ orderId, clientOrderId })
              }
              return Effect.fail(
                reason._tag === "DuplicateOrderError"
                  ? new SpotError.DuplicateOrderError({
                    code: reason.code,
                    msg: reason.msg,
                    requestTime: reason.requestTime,
                    httpStatus: reason.httpStatus,
                    clientOrderId,
                    afterRetry: true
                  })
                  : new SpotError.OutcomeUnknownError({
                    description: `${reason.message}; the order is not among the open orders`,
                    clientOrderId
                  })
              )
            }
          })
        )
      }))
    },
    Effect.mapError(fail("placeOrder")),
    traced("SpotClient.placeOrder")
  )

  // ---------------------------------------------------------------------------------------------------------------
  // batch

  type Outcome = Order.BatchOutcome
  type Pending = { readonly index: number; readonly item: Order.BatchItem; readonly clientOrderId: string }

  const failed = (index: number, clientOrderId: string, reason: SpotError.SpotErrorReason, mayExist = false) =>
    ({
      _tag: "Failed",
      index,
      clientOrderId,
      code: "code" in reason ? reason.code : reason._tag,
      message: reason.message,
      mayExist
    }) satisfies Outcome

  const placeChunk = (symbol: string, chunk: ReadonlyArray<Pending>) =>
    Effect.gen(function*() {
      const body = Json.stringify({
        symbol,
        orderList: chunk.map((pending) => orderBody(undefined, pending.item, pending.clientOrderId))
      })
      let mayHaveApplied = false
      const answer = yield* retrying(
        Effect.tapError(
          transport.call(endpoints.placeOrders, body, decodeBatchResponse),
          (reason) => Effect.sync(() => (mayHaveApplied ||= isAmbiguous(reason)))
        ),
        (reason) => reason.isRetryable
      ).pipe(Effect.result)

      const accepted = new Map<string, OrderId>()
      const rejected = new Map<string, { readonly code: string; readonly message: string }>()
      if (answer._tag === "Success") {
        for (const result of answer.success.resultList ?? []) accepted.set(result.clientOrderId, result.orderId)
        for (const failure of answer.success.failure ?? []) {
          rejected.set(failure.clientOrderId, {
            code: failure.errorCode ?? "unknown",
            message: failure.errorMsg ?? "rejected"
          })
        }
      }
      // After an ambiguous attempt, every item not accepted by the last answer may have been placed by an earlier
      // one, whatever the last answer says of it (a venue may check the balance before duplicates): look them up.
      const unknown = mayHaveApplied ? chunk.filter(({ clientOrderId }) => !accepted.has(clientOrderId)) : []
      const recovered = unknown.length === 0
        ? new Map<string, OrderId>()
        : yield* findOpenOrders(symbol, new Map(unknown.map((pending) => [pending.clientOrderId, pending.item]))).pipe(
          Effect.orElseSucceed(() => new Map<string, OrderId>())
        )

      return chunk.map(({ clientOrderId, index }): Outcome => {
        const orderId = accepted.get(clientOrderId) ?? recovered.get(clientOrderId)
        if (orderId !== undefined) return { _tag: "Placed", index, clientOrderId, orderId }
        if (answer._tag === "Failure") return failed(index, clientOrderId, answer.failure, mayHaveApplied)
        const rejection = rejected.get(clientOrderId)
        if (rejection !== undefined) {
          // 43118: an order with this clientOrderId exists (placed earlier), so it must be looked up, not re-sent.
          return {
            _tag: "Failed",
            index,
            clientOrderId,
            ...rejection,
            mayExist: mayHaveApplied || rejection.code === "43118"
          }
        }
        return {
          _tag: "Failed",
          index,
          clientOrderId,
          code: "unknown",
          message: "the venue's answer did not mention this order",
          mayExist: true
        }
      })
    })

  const placeOrders = Effect.fnUntraced(
    function*(symbolInput: string, items: Iterable<Order.BatchItemInput>) {
      const symbol = yield* validateSymbol(symbolInput)
      const inputs = Array.from(items)
      yield* Effect.annotateCurrentSpan({ symbol, items: inputs.length })
      const outcomes: Array<Outcome | undefined> = new Array(inputs.length)
      const pending: Array<Pending> = []
      const used = new Set<string>()
      for (let index = 0; index < inputs.length; index++) {
        const result = yield* Effect.result(validateBatchItem(inputs[index]))
        if (result._tag === "Failure") {
          const reason = new SpotError.ValidationError({
            field: `items[${index}].${result.failure.field}`,
            description: result.failure.description
          })
          outcomes[index] = failed(index, inputs[index]?.clientOrderId ?? "", reason)
          continue
        }
        const clientOrderId = result.success.clientOrderId ?? (yield* newClientOrderId)
        if (used.has(clientOrderId)) {
          const reason = new SpotError.ValidationError({
            field: `items[${index}].clientOrderId`,
            description: `repeats ${clientOrderId} from an earlier item of this batch`
          })
          outcomes[index] = failed(index, clientOrderId, reason)
          continue
        }
        used.add(clientOrderId)
        pending.push({ index, item: result.success, clientOrderId })
      }
      for (let start = 0; start < pending.length; start += BATCH_LIMIT) {
        for (const outcome of yield* placeChunk(symbol, pending.slice(start, start + BATCH_LIMIT))) {
          outcomes[outcome.index] = outcome
        }
      }
      const all = outcomes as ReadonlyArray<Outcome>
      const placed = all.filter((outcome) => outcome._tag === "Placed").length
      return { outcomes: all, placed, failed: all.length - placed } satisfies Order.BatchResult
    },
    Effect.mapError(fail("placeOrders")),
    traced("SpotClient.placeOrders")
  )

  // ---------------------------------------------------------------------------------------------------------------
  // bills

  const billsPageReasons = (query: Bill.BillPageQuery) =>
    retrying(
      transport.call(endpoints.fundingBills, Json.stringify(omitUndefined({ ...query })), decodeBillPage),
      (reason) => reason.isRetryable
    )

  const fundingBillsPage = Effect.fnUntraced(
    function*(query: Bill.BillPageQuery = {}) {
      const valid = yield* validateBillPageQuery(query)
      return yield* billsPageReasons(valid)
    },
    Effect.mapError(fail("fundingBillsPage")),
    traced("SpotClient.fundingBillsPage")
  )

  interface BillCursor {
    /** Exclusive upper time bound of the next request. */
    readonly endTime: number | undefined
    readonly pageIndex: number
    /** Ids already yielded at the boundary time `boundary` (they reappear under an `endTime` of boundary + 1). */
    readonly boundary: number
    readonly boundaryIds: ReadonlySet<string>
  }

  // Keyset paging over time, newest first: after a page, the next request asks for bills before (oldest + 1) and
  // drops those of that millisecond it already yielded. New bills (newer than the cursor) cannot shift it, so
  // nothing is skipped or repeated. Only when a whole page shares one millisecond does it step `pageIndex` within
  // the fixed bound, where the set is stable because bills only arrive newer.
  //
  // It also defends against venues that bend the rules: bills outside the exclusive bounds are dropped (an
  // inclusive `endTime` would repeat the boundary), a page smaller than asked for is not mistaken for the last when
  // the venue caps the size, a boolean `hasNextPage` is trusted, bills out of newest-first order fail the stream
  // (paging by time would be wrong), and pages that bring nothing new `STALE_PAGES` times in a row fail it rather
  // than loop.
  const fundingBills = (query: Bill.BillQuery = {}) =>
    Stream.unwrap(Effect.map(validateBillQuery(query), (valid) => {
      const pageSize = valid.pageSize ?? 100
      const start: BillCursor = { endTime: valid.endTime, pageIndex: 1, boundary: -1, boundaryIds: new Set() }
      let stale = 0
      const stalled = (description: string) =>
        Effect.fail(new SpotError.DecodeError({ kind: "schema", description, excerpt: "" }))
      return Stream.paginate(start, (cursor: BillCursor) =>
        Effect.flatMap(
          billsPageReasons({
            coinId: valid.coinId,
            startTime: valid.startTime,
            endTime: cursor.endTime,
            pageIndex: cursor.pageIndex,
            pageSize
          }),
          (page) => {
            const items = page.items ?? []
            for (let i = 1; i < items.length; i++) {
              if (items[i]!.cTime > items[i - 1]!.cTime) {
                return stalled(`bills are not newest first (cTime ${items[i - 1]!.cTime} then ${items[i]!.cTime})`)
              }
            }
            const fresh = items.filter((bill) =>
              (valid.startTime === undefined || bill.cTime > valid.startTime) &&
              (cursor.endTime === undefined || bill.cTime < cursor.endTime) &&
              !(bill.cTime === cursor.boundary && cursor.boundaryIds.has(bill.billId))
            )
            // Within one millisecond's cluster (stepping pageIndex under a fixed bound) an honest venue always serves
            // bills not yet seen; old ones mean it ignores pageIndex, and trusting its hasNextPage would skip bills.
            if (cursor.pageIndex > 1 && items.length > 0 && fresh.length === 0) {
              return stalled(
                `bills paging made no progress at pageIndex ${cursor.pageIndex}; does the venue honour it?`
              )
            }
            const served = typeof page.pageSize === "number" && page.pageSize > 0
              ? Math.min(page.pageSize, pageSize)
              : pageSize
            const done = items.length === 0 ||
              (typeof page.hasNextPage === "boolean" ? !page.hasNextPage : items.length < served)
            if (done) return Effect.succeed([fresh, Option.none<BillCursor>()] as const)
            stale = fresh.length === 0 ? stale + 1 : 0
            if (stale >= STALE_PAGES) {
              return stalled(`bills paging made no progress: ${STALE_PAGES} pages without a new bill`)
            }
            const oldest = items[items.length - 1]!.cTime
            const ids = new Set(oldest === cursor.boundary ? cursor.boundaryIds : [])
            for (const bill of items) if (bill.cTime === oldest) ids.add(bill.billId)
            const stuck = cursor.endTime !== undefined && oldest + 1 >= cursor.endTime
            const next: BillCursor = stuck
              ? { endTime: cursor.endTime, pageIndex: cursor.pageIndex + 1, boundary: oldest, boundaryIds: ids }
              : { endTime: oldest + 1, pageIndex: 1, boundary: oldest, boundaryIds: ids }
            return Effect.succeed([fresh, Option.some(next)] as const)
          }
        ))
    })).pipe(
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
      const decode = (envelope: unknown) =>
        Effect.map(decodeTransferSuccess(envelope), (answer): Transfer.TransferResult => ({
          id: answer.id,
          timestamp: answer.timestamp ?? undefined
        }))
      return yield* retrying(transport.call(endpoints.internalTransfer, body, decode), isDefinitelyNotApplied).pipe(
        Effect.mapError((reason) =>
          isAmbiguous(reason)
            ? new SpotError.OutcomeUnknownError({
              description: `${reason.message}; the transfer was not retried because it may have been applied`
            })
            : reason
        )
      )
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
    clockOffset: transport.clockOffset
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
 * The client configured from `Config` (by default the environment variables `SPOTKIT_BASE_URL`,
 * `SPOTKIT_API_KEY`, `SPOTKIT_SECRET_KEY`, `SPOTKIT_PASSPHRASE` and optionally `SPOTKIT_LOCALE`). A missing
 * variable fails the layer with a `ConfigError` that names it.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerConfig = (
  config: Config.Wrap<Options> = defaultConfig
): Layer.Layer<SpotClient, Config.ConfigError, HttpClient.HttpClient> =>
  Layer.effect(SpotClient, Effect.flatMap(Config.unwrap(config), make))

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
