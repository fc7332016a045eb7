// The checks the hand-written fast decoders share (Envelope.fastStandard, Order.fastOpenOrdersPage,
// Bill.fastBillPage, ...): the plain wire forms of the primitives of Primitives.ts, accepted only when they need no
// conversion beyond a string's own value, so that what a fast decoder builds is exactly what the Schema would.
import { Effect, Schema } from "effect"
import { DECIMAL, DIGITS } from "./patterns.ts"

/** A fast path: the decoded value, or `undefined` to leave the input to the Schema. */
export type Fast<A> = (input: unknown) => A | undefined

/** A decoder that takes the fast path when it can and the Schema's otherwise. */
export const decoder = <S extends Schema.Top & { readonly DecodingServices: never }>(
  schema: S,
  fast: Fast<S["Type"]>
) => {
  const decode = Schema.decodeUnknownEffect(schema)
  return (input: unknown): Effect.Effect<S["Type"], Schema.SchemaError> => {
    const value = fast(input)
    return value === undefined ? decode(input) : Effect.succeed(value)
  }
}

export type Fields = Record<string, unknown>

export const isRecord = (input: unknown): input is Fields =>
  typeof input === "object" && input !== null && !Array.isArray(input)

// A plain object as JSON.parse makes them: anything else (class instances, arrays, null prototypes) is for the schema.
export const isPlainObject = (u: unknown): u is Fields =>
  typeof u === "object" && u !== null && Object.getPrototypeOf(u) === Object.prototype

export const decimal = (value: unknown): value is string => typeof value === "string" && DECIMAL.test(value)

// Up to 19 digits without a leading zero is always below 2^64; 20 digits needs the comparison.
const U64_MAX = 18446744073709551615n
export const u64 = (value: unknown): value is string =>
  typeof value === "string" && DIGITS.test(value) &&
  (value.length < 20 || (value.length === 20 && BigInt(value) <= U64_MAX))

// Primitives.MAX_MILLIS: the last instant a date holds.
const MAX_MILLIS = 8_640_000_000_000_000

/** A time from 0 to `MAX_MILLIS`, as a number or as digits (15 at most: always below it). */
export const millis = (value: unknown): number | undefined =>
  typeof value === "number"
    ? Number.isSafeInteger(value) && value >= 0 && value <= MAX_MILLIS ? value : undefined
    : typeof value === "string" && value.length <= 15 && DIGITS.test(value)
    ? Number(value)
    : undefined

export const isPositive = (value: string) => !value.startsWith("-") && /[1-9]/.test(value)

/** An optional key: absent, or present with a value `accept` takes. Present with `undefined`: not plain. */
export const optional = (input: Fields, key: string, accept: (value: unknown) => boolean): boolean =>
  !(key in input) || (input[key] !== undefined && accept(input[key]))

/** An optional `NullOr(Int)` field: null or a safe integer are taken as they are. */
export const intField = (u: unknown): boolean => u === null || Number.isSafeInteger(u)
