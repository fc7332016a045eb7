/**
 * Fills: the trades of an account's orders (docs/venue/trading.md#fills, `POST /api/v2/trade/fills`).
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import * as Checks from "./internal/model/checks.ts"
import {
  DecimalFromWire,
  IdFromWire,
  MillisFromWire,
  OrderId,
  OrderIdFromWire,
  PageSize,
  PositiveDecimalFromWire,
  TradingPair
} from "./Primitives.ts"

/**
 * One fill as the venue sends it, newest first in its lists. `orderType` and `fillPrice` may be `""` (a sample
 * shows both empty): the price is then the fill's total divided by its quantity.
 *
 * @since 0.1.0
 * @category responses
 */
export const FillRecord = Schema.Struct({
  accountId: IdFromWire,
  symbol: Schema.String,
  baseCoin: Schema.optional(Schema.NullOr(Schema.String)),
  quoteCoin: Schema.optional(Schema.NullOr(Schema.String)),
  orderId: OrderIdFromWire,
  fillId: IdFromWire,
  orderType: Schema.String,
  side: Schema.String,
  fillPrice: Schema.Union([PositiveDecimalFromWire, Schema.Literal("")]),
  fillQuantity: PositiveDecimalFromWire,
  fillTotalAmount: PositiveDecimalFromWire,
  fees: DecimalFromWire,
  cTime: MillisFromWire
})

/**
 * @since 0.1.0
 * @category responses
 */
export type FillRecord = typeof FillRecord.Type

/**
 * One page of fills. `nextPage` and `totals` are never trusted.
 *
 * @since 0.1.0
 * @category responses
 */
export const FillsPage = Schema.Struct({
  fillsOrderResultList: Schema.NullOr(Schema.Array(FillRecord)),
  nextPage: Schema.optional(Schema.Unknown),
  totals: Schema.optional(Schema.Unknown)
})

/**
 * @since 0.1.0
 * @category responses
 */
export type FillsPage = typeof FillsPage.Type

/**
 * Filters of the fills stream: a symbol, optionally one order's fills, exclusive time bounds (ms), and the size of
 * each request (1..100, default 100).
 *
 * @since 0.1.0
 * @category requests
 */
export const FillsFilter = Schema.Struct({
  symbol: TradingPair,
  /** Only the fills of this order. */
  orderId: Schema.optional(OrderId),
  ...Checks.timeBoundFields,
  pageSize: Schema.optional(PageSize)
}).check(Checks.timeBounds)

/**
 * @since 0.1.0
 * @category requests
 */
export type FillsFilter = typeof FillsFilter.Encoded

/**
 * Query of one page of fills: `after`/`before` exclusive (ms), `pageIndex` from 0, `pageSize` 1..100 (venue
 * default 10).
 *
 * @since 0.1.0
 * @category requests
 */
export const FillsQuery = Schema.Struct({
  symbol: TradingPair,
  orderId: Schema.optional(OrderId),
  ...Checks.timeBoundFields,
  pageIndex: Schema.optional(Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))),
  pageSize: Schema.optional(PageSize)
}).check(Checks.timeBounds)

/**
 * @since 0.1.0
 * @category requests
 */
export type FillsQuery = typeof FillsQuery.Encoded
