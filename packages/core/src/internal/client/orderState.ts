// The client's operations on the state of orders: one order by its ids, and the open orders of a symbol (a stream and
// its pages); and the lookups that recovery, batches and cancels use. Each is validate → send → decode by the
// endpoint's declaration (call.ts), as a traced public operation failing with `SpotError`.
import { Effect, Option, Schema, Stream } from "effect"
import type * as Order from "../../Order.ts"
import { PageSize, TradingPair } from "../../Primitives.ts"
import type * as SpotError from "../../SpotError.ts"
import * as Venue from "../../Venue.ts"
import { type Context, fail, flatMapNow, recording, send, validate } from "./call.ts"
import * as Paging from "./paging.ts"
import type * as Recovery from "./recovery.ts"
import * as Validate from "./validate.ts"

/** Filters of the open-orders stream (`SpotClient.OpenOrdersOptions`). */
export interface OpenOrdersOptions {
  readonly symbol: string
  readonly pageSize?: number | undefined
}

const validateSymbol = Validate.input(TradingPair, "symbol")
const validatePageSize = Validate.input(Schema.UndefinedOr(PageSize), "pageSize")

const { openOrders: openOrdersEndpoint, order: orderEndpoint } = Venue.endpoints

/** One order by its ids (retried): `None` when the venue does not know it. */
export type Lookup = (
  ref: Venue.RequestOf<typeof orderEndpoint>
) => Effect.Effect<Option.Option<Order.OrderRecord>, SpotError.SpotErrorReason>

/** The operations on the state of orders of one client, and its lookups. */
export const make = (context: Context) => {
  // The orderInfo answer is a list; the order is the one with the id asked for (the newest, should there be more).
  const lookup: Lookup = (ref) =>
    Effect.map(send(context, orderEndpoint, ref), (records) => {
      let found: Order.OrderRecord | undefined
      for (const record of records ?? []) {
        const same = ref.orderId !== undefined
          ? record.orderId === ref.orderId
          : record.clientOrderId === ref.clientOrderId
        if (same && (found === undefined || record.cTime > found.cTime)) found = record
      }
      return Option.fromNullishOr(found)
    })

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

  const order = Effect.fnUntraced(
    function*(ref: Order.OrderRef) {
      const valid = yield* validate(orderEndpoint, ref)
      yield* Effect.annotateCurrentSpan(
        valid.orderId !== undefined ? { orderId: valid.orderId } : {
          clientOrderId: valid.clientOrderId
        }
      )
      return yield* lookup(valid)
    },
    Effect.mapError(fail("order")),
    context.traced("SpotClient.order")
  )

  const openOrdersPageOf = (query: Venue.RequestOf<typeof openOrdersEndpoint>) =>
    send(context, openOrdersEndpoint, query)

  // Without a generator: paging through open orders is a loop of its own. The span is annotated with the valid query
  // (a symbol as typed may be any text).
  const openOrdersPage = (query: Order.OpenOrdersQuery) =>
    Effect.withFiber((fiber) =>
      flatMapNow(validate(openOrdersEndpoint, query), (valid) => {
        const span = recording(fiber)
        if (span !== undefined) {
          span.attribute("symbol", valid.symbol)
          span.attribute("pageNo", valid.pageNo ?? 0)
        }
        return openOrdersPageOf(valid)
      })
    ).pipe(
      Effect.mapError(fail("openOrdersPage")),
      context.traced("SpotClient.openOrdersPage")
    )

  const openOrders = (options: OpenOrdersOptions) =>
    Stream.unwrap(Effect.flatMap(
      Effect.all([validateSymbol(options.symbol), validatePageSize(options.pageSize)]),
      ([symbol, pageSize]) =>
        Effect.as(
          Effect.annotateCurrentSpan({ symbol }),
          Paging.openOrders(openOrdersPageOf, symbol, pageSize ?? 100)
        )
    )).pipe(
      Stream.mapError(fail("openOrders")),
      Stream.withSpan("SpotClient.openOrders")
    )

  return { operations: { order, openOrders, openOrdersPage }, lookup, lookupByClientIds }
}
