/**
 * Funding-account bills (spec §2.6, §4.4).
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { DecimalFromWire, IdFromWire, Millis, MillisFromWire, PageSize } from "./Primitives.ts"

/**
 * Business type of a bill (spec §2.6).
 *
 * @since 0.1.0
 * @category literals
 */
export const BizType = Schema.Literals([
  "deposit",
  "buy_success",
  "sell_cancel",
  "withdraw_freeze",
  "withdraw_complete",
  "withdraw_failed",
  "sell_freeze",
  "sell_complete",
  "transfer_in",
  "transfer_out",
  "internal_deposit",
  "internal_withdraw",
  "interest_receive",
  "platform_retrieve",
  "platform_lock",
  "platform_unlock",
  "platform_lock_reward",
  "c2c_buy",
  "c2c_sell",
  "c2c_freeze",
  "c2c_unfreeze"
])

/**
 * @since 0.1.0
 * @category literals
 */
export type BizType = typeof BizType.Type

/**
 * A business type as the venue sends it: one of `BizType`, or a newer value kept as it comes, so that a type the
 * venue adds later does not stop a bill export.
 *
 * @since 0.1.0
 * @category literals
 */
export const BizTypeFromWire = Schema.Union([BizType, Schema.String])

/**
 * One balance change of the funding account.
 *
 * @since 0.1.0
 * @category responses
 */
export const Bill = Schema.Struct({
  billId: IdFromWire,
  coinId: Schema.Int,
  coinName: Schema.String,
  bizType: BizTypeFromWire,
  deltaAmount: DecimalFromWire,
  afterAmount: DecimalFromWire,
  fees: DecimalFromWire,
  cTime: MillisFromWire
})

/**
 * @since 0.1.0
 * @category responses
 */
export type Bill = typeof Bill.Type

/**
 * One page of bills as the venue answers it.
 *
 * @since 0.1.0
 * @category responses
 */
export const BillPage = Schema.Struct({
  total: Schema.optional(Schema.NullOr(Schema.Int)),
  page: Schema.optional(Schema.NullOr(Schema.Int)),
  pageSize: Schema.optional(Schema.NullOr(Schema.Int)),
  hasNextPage: Schema.optional(Schema.NullOr(Schema.Boolean)),
  items: Schema.NullOr(Schema.Array(Bill))
})

/**
 * @since 0.1.0
 * @category responses
 */
export type BillPage = typeof BillPage.Type

const timeBounds = Schema.makeFilter(
  (q: { readonly startTime?: number | undefined; readonly endTime?: number | undefined }) =>
    q.startTime !== undefined && q.endTime !== undefined && q.endTime <= q.startTime
      ? { path: ["endTime"], issue: "must be after startTime" }
      : undefined
)

const queryFields = {
  /** Only bills of this coin. */
  coinId: Schema.optional(Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))),
  /** Only bills created after this time (ms, exclusive). */
  startTime: Schema.optional(Millis),
  /** Only bills created before this time (ms, exclusive). */
  endTime: Schema.optional(Millis)
}

/**
 * Filters of the bills stream; `pageSize` (1..100, default 100) is the size of each request.
 *
 * @since 0.1.0
 * @category requests
 */
export const BillQuery = Schema.Struct({ ...queryFields, pageSize: Schema.optional(PageSize) }).check(timeBounds)

/**
 * @since 0.1.0
 * @category requests
 */
export type BillQuery = typeof BillQuery.Encoded

/**
 * One page request (spec §4.4): `pageIndex` from 1, `pageSize` 1..100 (venue default 10).
 *
 * @since 0.1.0
 * @category requests
 */
export const BillPageQuery = Schema.Struct({
  ...queryFields,
  pageIndex: Schema.optional(Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))),
  pageSize: Schema.optional(PageSize)
}).check(timeBounds)

/**
 * @since 0.1.0
 * @category requests
 */
export type BillPageQuery = typeof BillPageQuery.Encoded
