// The client's operations on orders: placing (one, a batch, settling a batch's unknown outcomes), open orders, one
// order's state, and cancels. Each is validate → (check against the symbol's rules) → encode →
// retrying(execute → decode), as a traced public operation failing with `SpotError`.
import { Effect, Option, Schema, Stream } from "effect"
import * as Cancel from "../../Cancel.ts"
import * as Order from "../../Order.ts"
import { PageSize, TradingPair } from "../../Primitives.ts"
import * as SpotError from "../../SpotError.ts"
import * as Venue from "../../Venue.ts"
import * as Batch from "./batch.ts"
import * as Cancels from "./cancel.ts"
import { attempt, body, call, type Context, fail, newClientOrderId, omitUndefined, traced } from "./operation.ts"
import * as Paging from "./paging.ts"
import * as Recovery from "./recovery.ts"
import * as validate from "./validate.ts"

/** Filters of the open-orders stream (`SpotClient.OpenOrdersOptions`). */
export interface OpenOrdersOptions {
  readonly symbol: string
  readonly pageSize?: number | undefined
}

const validatePlaceOrder = validate.input(Order.PlaceOrder)
const validateSymbol = validate.input(TradingPair, "symbol")
const validateOpenOrdersQuery = validate.input(Order.OpenOrdersQuery)
const validatePageSize = validate.input(Schema.UndefinedOr(PageSize), "pageSize")
const validateOrderRef = validate.input(Order.OrderInfoRequest)
const validateCancel = validate.input(Cancel.CancelOrderRequest)
const decodeBatchResponse = Schema.decodeUnknownEffect(Order.BatchResponse)
const decodeOrderInfo = Schema.decodeUnknownEffect(Order.OrderInfoResponse)
const decodeCancelOrder = Schema.decodeUnknownEffect(Cancel.CancelOrderResponse)
const decodeCancelBatch = Schema.decodeUnknownEffect(Cancel.CancelBatchResponse)

// The wire body of an order: the venue's usage shape sends `force` and a zero price on market orders
// (docs/venue/trading.md#place-order).
const orderBody = (symbol: string | undefined, order: Order.BatchItem, clientOrderId: string) => ({
  ...(symbol === undefined ? {} : { symbol }),
  side: order.side,
  orderType: order.orderType,
  force: order.force ?? "normal",
  price: order.price ?? "0",
  quantity: order.quantity,
  clientOrderId
})

/** The operations on orders of one client. */
export const make = (context: Context) => {
  const { pipeline, retrying } = context
  const endpoints = Venue.endpoints

  // ---------------------------------------------------------------------------------------------------------------
  // one order's state

  // The orderInfo answer is a list; the order is the one with the id asked for (the newest, should there be more).
  const lookup = (ref: typeof Order.OrderInfoRequest.Type) =>
    Effect.map(
      call(context, endpoints.order, body({ orderId: ref.orderId, clientOrderId: ref.clientOrderId }), decodeOrderInfo),
      (records) => {
        let found: Order.OrderRecord | undefined
        for (const record of records ?? []) {
          const same = ref.orderId !== undefined
            ? record.orderId === ref.orderId
            : record.clientOrderId === ref.clientOrderId
          if (same && (found === undefined || record.cTime > found.cTime)) found = record
        }
        return Option.fromNullishOr(found)
      }
    )
  const lookupRef: Cancels.Lookup = (ref) => lookup(ref as typeof Order.OrderInfoRequest.Type)

  const order = Effect.fnUntraced(
    function*(ref: Order.OrderRef) {
      const valid = yield* validateOrderRef(ref)
      yield* Effect.annotateCurrentSpan(omitUndefined(valid))
      return yield* lookup(valid)
    },
    Effect.mapError(fail("order")),
    traced("SpotClient.order")
  )

  // ---------------------------------------------------------------------------------------------------------------
  // open orders

  const openOrdersPageOf = (query: typeof Order.OpenOrdersQuery.Type) =>
    call(context, endpoints.openOrders, body(query), Order.decodeOpenOrdersPage)

  const openOrdersPage = Effect.fnUntraced(
    function*(query: Order.OpenOrdersQuery) {
      yield* Effect.annotateCurrentSpan({ symbol: query.symbol, pageNo: query.pageNo ?? 0 })
      return yield* openOrdersPageOf(yield* validateOpenOrdersQuery(query))
    },
    Effect.mapError(fail("openOrdersPage")),
    traced("SpotClient.openOrdersPage")
  )

  const openOrders = (options: OpenOrdersOptions) =>
    Stream.unwrap(Effect.map(
      Effect.all([validateSymbol(options.symbol), validatePageSize(options.pageSize)]),
      ([symbol, pageSize]) => Paging.openOrders(openOrdersPageOf, symbol, pageSize ?? 100)
    )).pipe(
      Stream.mapError(fail("openOrders")),
      Stream.withSpan("SpotClient.openOrders", { attributes: { symbol: options.symbol } })
    )

  // ---------------------------------------------------------------------------------------------------------------
  // recovery lookups

  // Orders by clientOrderId, for recovering placements: one orderInfo each, which sees filled and cancelled orders
  // too (the open orders would not list an order that filled at once).
  const lookupByClientIds: Recovery.Lookup = (_symbol, clientOrderIds) =>
    Effect.map(
      Effect.forEach(clientOrderIds, (clientOrderId) => lookup({ clientOrderId }), { concurrency: 4 }),
      (records) => {
        const found = new Map<string, Order.OrderRecord>()
        records.forEach((record, i) => Option.isSome(record) && found.set(clientOrderIds[i]!, record.value))
        return found
      }
    )

  // ---------------------------------------------------------------------------------------------------------------
  // place order

  // The symbol's rules when orders are checked (loaded on first use, best effort).
  const rulesFor = (symbol: string) => context.checkRules ? context.rules.forOrder(symbol) : Effect.undefined

  // A refusal for a rule (40808, 45110) means the cached rules are stale: they are loaded again (once per call, and
  // not when another call did since this one checked its order), and the order is checked against them for a better
  // message.
  const ruleRefused = (order: Order.PlaceOrder, since: number) => (reason: SpotError.SpotErrorReason) =>
    context.checkRules && reason._tag === "InvalidOrderError" && Batch.RULE_CODES.has(reason.code)
      ? Effect.flatMap(context.rules.refreshedSince(order.symbol, since), (rules) => {
        const broken = rules?.check(order)
        return Effect.fail(broken ?? reason)
      })
      : Effect.fail(reason)

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
      const rules = yield* rulesFor(order.symbol)
      if (rules !== undefined) {
        const broken = rules.check(order)
        if (broken !== undefined) return yield* broken
      }
      const since = context.rules.generation()
      const payload = body(orderBody(order.symbol, order, clientOrderId))
      return yield* retrying(
        endpoints.placeOrder,
        attempt(pipeline, endpoints.placeOrder, payload, Order.decodePlaceOrderResult).pipe(
          Effect.mapError((reason) =>
            reason._tag === "DuplicateOrderError"
              ? new SpotError.DuplicateOrderError({ ...reason, clientOrderId })
              : reason
          )
        )
      ).pipe(
        Effect.catch((failure) => Recovery.placement(lookupByClientIds, order, clientOrderId, failure)),
        Effect.catch(ruleRefused(order, since))
      )
    },
    Effect.mapError(fail("placeOrder")),
    traced("SpotClient.placeOrder")
  )

  // ---------------------------------------------------------------------------------------------------------------
  // batch

  const batchClient: Batch.Client = {
    send: (symbol, chunk) =>
      retrying.tracked(
        endpoints.placeOrders,
        pipeline.execute(pipeline.request(
          endpoints.placeOrders,
          body({ symbol, orderList: chunk.map((pending) => orderBody(undefined, pending.item, pending.clientOrderId)) })
        )).pipe(Effect.flatMap((response) =>
          Effect.map(
            Effect.mapError(decodeBatchResponse(response.payload), (error) => response.schemaError(error)),
            (answer): Order.BatchResponse => ({
              ...answer,
              // Failure texts end up in outcomes and logs: scrubbed like every other text from the network.
              failure: answer.failure?.map((failure) => ({
                ...failure,
                errorMsg: typeof failure.errorMsg === "string" ? response.scrub(failure.errorMsg) : failure.errorMsg
              }))
            })
          )
        ))
      ),
    lookup: lookupByClientIds,
    rules: rulesFor,
    rulesGeneration: context.rules.generation,
    ruleRefused: (symbol, since) =>
      context.checkRules ? Effect.asVoid(context.rules.refreshedSince(symbol, since)) : Effect.void,
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

  const resolve = Effect.fnUntraced(
    function*(symbolInput: string, items: ReadonlyArray<Order.BatchItemInput>, result: Order.BatchResult) {
      const symbol = yield* validateSymbol(symbolInput)
      yield* Effect.annotateCurrentSpan({ symbol, items: items.length })
      return yield* Batch.resolve(lookupByClientIds, symbol, items, result)
    },
    Effect.mapError(fail("resolve")),
    traced("SpotClient.resolve")
  )

  // ---------------------------------------------------------------------------------------------------------------
  // cancels

  const cancelOrder = Effect.fnUntraced(
    function*(input: Cancel.CancelOrderInput) {
      const request = yield* validateCancel(input)
      yield* Effect.annotateCurrentSpan(omitUndefined(request))
      const sent = retrying.tracked(
        endpoints.cancelOrder,
        attempt(pipeline, endpoints.cancelOrder, body(Cancels.oneBody(request)), decodeCancelOrder)
      )
      return yield* Cancels.one(request, sent, lookupRef)
    },
    Effect.mapError(fail("cancelOrder")),
    traced("SpotClient.cancelOrder")
  )

  const cancelClient = (symbol: string): Cancels.Client => ({
    send: (request) =>
      retrying.tracked(
        endpoints.cancelOrders,
        attempt(pipeline, endpoints.cancelOrders, body({ ...request, symbol }), decodeCancelBatch)
      ),
    lookup: lookupRef
  })

  const cancelOrders = Effect.fnUntraced(
    function*(symbolInput: string, orders: Iterable<Order.OrderRef>) {
      const symbol = yield* validateSymbol(symbolInput)
      const refs = Array.from(orders)
      yield* Effect.annotateCurrentSpan({ symbol, orders: refs.length })
      return yield* Cancels.many(cancelClient(symbol), symbol, refs)
    },
    Effect.mapError(fail("cancelOrders")),
    traced("SpotClient.cancelOrders")
  )

  const cancelAll = Effect.fnUntraced(
    function*(symbolInput: string) {
      const symbol = yield* validateSymbol(symbolInput)
      yield* Effect.annotateCurrentSpan({ symbol })
      return Cancels.all(yield* call(context, endpoints.cancelAll, body({ symbol }), decodeCancelBatch))
    },
    Effect.mapError(fail("cancelAll")),
    traced("SpotClient.cancelAll")
  )

  return {
    placeOrder,
    placeOrders,
    resolve,
    openOrders,
    openOrdersPage,
    order,
    cancelOrder,
    cancelOrders,
    cancelAll
  }
}
