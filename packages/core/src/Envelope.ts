/**
 * The two response envelopes (spec §7, §4.5).
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { IdFromWire, MillisFromWire } from "./Primitives.ts"

/**
 * Success code of the standard envelope.
 *
 * @since 0.1.0
 * @category constants
 */
export const SUCCESS = "00000"

/**
 * Success code of the transfer envelope.
 *
 * @since 0.1.0
 * @category constants
 */
export const TRANSFER_SUCCESS = "200"

/**
 * `{ code, msg, requestTime, data }`, used by every operation except the transfer's success answer. `code` may
 * arrive as a string or a number; `msg` and `requestTime` are tolerated when missing or null.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Standard = Schema.Struct({
  code: IdFromWire,
  msg: Schema.optional(Schema.NullOr(Schema.String)),
  requestTime: Schema.optional(Schema.NullOr(MillisFromWire)),
  data: Schema.optional(Schema.Unknown)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type Standard = typeof Standard.Type
