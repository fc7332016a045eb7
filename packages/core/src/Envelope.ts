/**
 * The standard response envelope (docs/venue/signing.md#envelopes). Its success code and the transfer envelope's are in
 * `Venue`.
 *
 * @since 0.1.0
 */
import { Effect, Schema } from "effect"
import { millis } from "./internal/model/fast.ts"
import { MillisFromWire, TextFromWire } from "./Primitives.ts"

/**
 * `{ code, msg, requestTime, data }`, used by every operation except the transfer's success answer. `code` may
 * arrive as a string or a number, decoded as its digits (the client reads a number `0` under a 2xx status as the
 * success, `"00000"`, which JSON cannot write as a number); `msg` and `requestTime` are tolerated when missing or null.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Standard = Schema.Struct({
  code: TextFromWire,
  msg: Schema.optional(Schema.NullOr(Schema.String)),
  requestTime: Schema.optional(Schema.NullOr(MillisFromWire)),
  data: Schema.optional(Schema.Unknown)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export type Standard = typeof Standard.Type

/**
 * The hand-written fast path of `Standard`, taken for every answer: the plain form (a string code; msg, requestTime
 * and data as the venue sends them) decoded to exactly the Schema's value, or `undefined` to leave the input to the
 * Schema. Property-tested against the Schema in both directions (test/Envelope.test.ts).
 *
 * @since 0.1.0
 * @category decoding
 */
export const fastStandard = (input: unknown): Standard | undefined => {
  if (typeof input !== "object" || input === null || Array.isArray(input)) return undefined
  const fields = input as Record<string, unknown>
  if (typeof fields.code !== "string") return undefined
  const out: { -readonly [K in keyof Standard]: Standard[K] } = { code: fields.code }
  if ("msg" in fields) {
    const msg = fields.msg
    if (msg !== null && typeof msg !== "string") return undefined
    out.msg = msg
  }
  if ("requestTime" in fields) {
    const time = fields.requestTime
    if (time === null) out.requestTime = null
    else {
      const value = millis(time)
      if (value === undefined) return undefined
      out.requestTime = value
    }
  }
  if ("data" in fields) {
    if (fields.data === undefined) return undefined
    out.data = fields.data
  }
  return out
}

const decodeSchema = Schema.decodeUnknownEffect(Standard)

/**
 * Decodes a standard envelope: the fast path when it applies, the Schema otherwise.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeStandard = (input: unknown): Effect.Effect<Standard, Schema.SchemaError> => {
  const fast = fastStandard(input)
  return fast === undefined ? decodeSchema(input) : Effect.succeed(fast)
}
