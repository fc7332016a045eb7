/**
 * Funding-account bills (docs/venue/account.md#funding-bills).
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import * as Fast from "./internal/model/fast.ts"
import { DIGITS } from "./internal/model/patterns.ts"
import {
  CoinIdFromWire,
  DecimalFromWire,
  IdFromWire,
  MAX_MILLIS,
  Millis,
  MillisFromWire,
  PageSize
} from "./Primitives.ts"

/**
 * Business type of a bill (docs/venue/account.md#bill-business-types).
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
  coinId: CoinIdFromWire,
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
 * One page request (docs/venue/account.md#funding-bills): `pageIndex` from 1, `pageSize` 1..100 (venue default 10).
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

// A bill in the usual shape, or undefined when the Schema must judge it.
const fastBill = (u: unknown): Bill | undefined => {
  if (!Fast.isPlainObject(u)) return undefined
  const { afterAmount, billId, bizType, coinId, coinName, cTime, deltaAmount, fees } = u
  if (
    typeof billId !== "string" || billId === "" || typeof coinName !== "string" || typeof bizType !== "string" ||
    typeof coinId !== "number" || !Number.isSafeInteger(coinId) || !Fast.decimal(deltaAmount) ||
    !Fast.decimal(afterAmount) || !Fast.decimal(fees)
  ) {
    return undefined
  }
  const time = typeof cTime === "string" ? (DIGITS.test(cTime) ? Number(cTime) : NaN) : cTime
  if (typeof time !== "number" || !Number.isSafeInteger(time) || time < 0 || time > MAX_MILLIS) return undefined
  return { billId, coinId, coinName, bizType, deltaAmount, afterAmount, fees, cTime: time } as Bill
}

/**
 * The hand-written fast path of `BillPage`, the export's hot path (less time and garbage per bill than the Schema:
 * BENCHMARKS.md): a page whose every bill is in the plain wire form (ids and decimals as strings,
 * safe integers, no undefined-valued keys) decoded to exactly the Schema's value, or `undefined` to leave the whole
 * page to the Schema. Property-tested against the Schema in both directions (test/Bill.test.ts).
 *
 * @since 0.1.0
 * @category decoding
 */
export const fastBillPage = (u: unknown): BillPage | undefined => {
  if (!Fast.isPlainObject(u)) return undefined
  // Built in the schema's field order; absent optional fields stay absent.
  const page: Record<string, unknown> = {}
  for (const key of ["total", "page", "pageSize"] as const) {
    if (key in u) {
      const value = u[key]
      if (!Fast.intField(value)) return undefined
      page[key] = value
    }
  }
  if ("hasNextPage" in u) {
    const value = u.hasNextPage
    if (value !== null && typeof value !== "boolean") return undefined
    page.hasNextPage = value
  }
  const items = u.items
  if (items === null) {
    page.items = null
  } else {
    if (!Array.isArray(items)) return undefined
    const bills: Array<Bill> = new Array(items.length)
    for (let i = 0; i < items.length; i++) {
      const bill = fastBill(items[i])
      if (bill === undefined) return undefined
      bills[i] = bill
    }
    page.items = bills
  }
  return page as BillPage
}
