/**
 * Wire primitives shared by every request and response: exact decimal strings, trading pairs, 64-bit ids and
 * millisecond timestamps. Every schema here decodes what the venue plausibly sends (ids as JSON numbers or strings,
 * timestamps as numbers or numeric strings) and never routes money or ids through a floating-point number.
 *
 * @since 0.1.0
 */
import { Schema, SchemaGetter } from "effect"
import { CLIENT_ORDER_ID, DECIMAL, DIGITS, TRADING_PAIR } from "./internal/model/patterns.ts"

const U64_MAX = 18446744073709551615n

/**
 * An exact decimal number written as a string: optional `-`, integer digits without leading zeros, optional
 * fraction. No exponent forms, no `+`, no spaces, no `.5` or `5.`.
 *
 * @since 0.1.0
 * @category decimals
 */
export const Decimal = Schema.String.check(
  Schema.isPattern(DECIMAL, {
    expected:
      "a decimal string such as \"0.25\" (a digit on each side of a point; no exponent, leading zeros, \"+\" or " +
      "separators)",
    message: "must be a decimal string such as \"0.25\": a digit on each side of a point, and no exponent, leading " +
      "zeros, \"+\" or separators"
  })
).pipe(Schema.brand("Decimal"))

/**
 * @since 0.1.0
 * @category decimals
 */
export type Decimal = typeof Decimal.Type

/**
 * Number of digits after the decimal point.
 *
 * @since 0.1.0
 * @category decimals
 */
export const scale = (value: string): number => {
  const dot = value.indexOf(".")
  return dot === -1 ? 0 : value.length - dot - 1
}

/**
 * Whether a decimal string is strictly greater than zero (exact, no parsing to a number).
 *
 * @since 0.1.0
 * @category decimals
 */
export const isPositive = (value: string): boolean => !value.startsWith("-") && /[1-9]/.test(value)

// The check of a decimal greater than zero, for a decimal given and one read from the wire alike.
const greaterThanZero = Schema.makeFilter((value: string) => isPositive(value) || "must be greater than 0", {
  expected: "a decimal greater than 0"
})

/**
 * A decimal string strictly greater than zero.
 *
 * @since 0.1.0
 * @category decimals
 */
export const PositiveDecimal = Decimal.check(greaterThanZero)

// The digits before the point as in a plain decimal: no leading zeros ("01.5e0" is refused as "01.5" is).
const EXPONENT = /^(-?)(0|[1-9]\d*)(?:\.(\d+))?[eE]([+-]?\d{1,4})$/

/**
 * The largest exponent (either sign) a decimal in exponent form may carry. Prices and amounts of a spot venue need at
 * most some 18 decimal places and 15 integer digits; a larger exponent could only blow a short text up into thousands
 * of digits (`1e9999`): a few bytes of an answer would cost kilobytes of memory, and the response size limit would no
 * longer bound what an answer costs. Such a decimal is refused (a `DecodeError`), never expanded.
 *
 * @since 0.1.0
 * @category decimals
 */
export const MAX_EXPONENT = 32

/**
 * Rewrites a decimal in exponent form (`"0E-8"`, `"1.5e3"`, as Java's BigDecimal may print) as a plain decimal
 * string, exactly, by moving the point in the digits. Answers `undefined` for anything else, and for an exponent
 * beyond `MAX_EXPONENT`: the plain text is never more than `MAX_EXPONENT` characters longer than the digits given.
 *
 * @since 0.1.0
 * @category decimals
 */
export const fromExponent = (text: string): string | undefined => {
  const match = EXPONENT.exec(text)
  if (match === null || Math.abs(Number(match[4])) > MAX_EXPONENT) return undefined
  const [, sign, int, frac = "", exp] = match
  const digits = int! + frac
  const point = int!.length + Number(exp)
  const raw = point <= 0
    ? "0." + "0".repeat(-point) + digits
    : point >= digits.length
    ? digits + "0".repeat(point - digits.length)
    : digits.slice(0, point) + "." + digits.slice(point)
  const plain = raw.replace(/^0+(?=\d)/, "")
  return sign + plain
}

/**
 * A decimal on the wire: the exact string, an exponent-form string (rewritten exactly), or a JSON number. The
 * lossless `Json.parse` hands over numbers only as plain safe integers (anything else arrives as its source text),
 * so every branch is exact.
 *
 * @since 0.1.0
 * @category decimals
 */
export const DecimalFromWire = Schema.Union([
  Decimal,
  Schema.String.check(
    Schema.isPattern(EXPONENT, { expected: "a decimal in exponent form" }),
    Schema.makeFilter((s: string) => fromExponent(s) !== undefined, {
      expected: `a decimal in exponent form with an exponent of at most ${MAX_EXPONENT} either way`
    })
  ).pipe(
    Schema.decodeTo(Decimal, {
      decode: SchemaGetter.transform((s: string) => Decimal.make(fromExponent(s)!)),
      encode: SchemaGetter.transform((s: string) => s)
    })
  ),
  Schema.Int.pipe(Schema.decodeTo(Decimal, {
    decode: SchemaGetter.transform((n: number) => Decimal.make(String(n))),
    encode: SchemaGetter.transform((s: string) => Number(s))
  }))
])

/**
 * A decimal on the wire (`DecimalFromWire`) strictly greater than zero: a fill's quantity, price and value, a trade's.
 * A venue (or a gateway) sending `0` or a negative one sends something no trade can be: a `DecodeError`, never a fact.
 *
 * @since 0.1.0
 * @category decimals
 */
export const PositiveDecimalFromWire = DecimalFromWire.check(greaterThanZero)

/**
 * A spot trading pair, `<BASE><QUOTE>_SPBL` in upper case, e.g. `BTCUSDT_SPBL`.
 *
 * @since 0.1.0
 * @category symbols
 */
export const TradingPair = Schema.String.check(
  Schema.isPattern(TRADING_PAIR, {
    expected: "a trading pair such as \"BTCUSDT_SPBL\"",
    message: "must be a trading pair <BASE><QUOTE>_SPBL in upper case, such as \"BTCUSDT_SPBL\""
  })
).pipe(Schema.brand("TradingPair"))

/**
 * @since 0.1.0
 * @category symbols
 */
export type TradingPair = typeof TradingPair.Type

const U64 = Schema.String.check(
  Schema.makeFilter((s: string) => (DIGITS.test(s) && BigInt(s) <= U64_MAX) || "must be an unsigned 64-bit integer", {
    expected: "an unsigned 64-bit integer"
  })
)

const idFromWire = <S extends Schema.Top & { readonly Type: string; readonly Encoded: string }>(id: S) =>
  Schema.Union([
    id,
    Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)).pipe(Schema.decodeTo(id, {
      decode: SchemaGetter.transform((n: number) => String(n)),
      encode: SchemaGetter.transform((s: string) => Number(s))
    }))
  ])

/**
 * A 64-bit order id, kept as its exact decimal digits. Compare ids as strings; never convert them to `number`.
 *
 * @since 0.1.0
 * @category ids
 */
export const OrderId = U64.pipe(Schema.brand("OrderId"))

/**
 * @since 0.1.0
 * @category ids
 */
export type OrderId = typeof OrderId.Type

/**
 * An order id as the venue sends it: a JSON number (decoded losslessly) or a string.
 *
 * @since 0.1.0
 * @category ids
 */
export const OrderIdFromWire = idFromWire(OrderId)

/**
 * A 64-bit user id as exact digits. Sent to the venue as a bare JSON number (see `Json.rawNumber`).
 *
 * @since 0.1.0
 * @category ids
 */
export const UserId = U64.pipe(Schema.brand("UserId"))

/**
 * @since 0.1.0
 * @category ids
 */
export type UserId = typeof UserId.Type

/**
 * A user id as the venue sends it: a JSON number (decoded losslessly) or a string.
 *
 * @since 0.1.0
 * @category ids
 */
export const UserIdFromWire = idFromWire(UserId)

// A number the venue may write as its digits (`"2"`, `"1622697148000"`): the digits, read as `to`'s number.
const digitsOf = <S extends Schema.Codec<number>>(to: S, expected: string) =>
  Schema.String.check(Schema.isPattern(DIGITS, { expected })).pipe(
    Schema.decodeTo(to, {
      decode: SchemaGetter.transform((s: string) => Number(s)),
      encode: SchemaGetter.transform((n: number) => String(n))
    })
  )

const intAsText = Schema.Int.pipe(Schema.decodeTo(Schema.String, {
  decode: SchemaGetter.transform((n: number) => String(n)),
  encode: SchemaGetter.transform((s: string) => Number(s))
}))

/**
 * An opaque identifier the venue gives as a string or a number (bill ids, fill ids, transfer ids, account ids). Never
 * empty: ids are what records are told apart by (a fill delivered once by its id), so two records with an empty id
 * must not pass for one.
 *
 * @since 0.1.0
 * @category ids
 */
export const IdFromWire = Schema.Union([
  Schema.String.check(Schema.isNonEmpty({ expected: "a non-empty id" })),
  intAsText
])

/**
 * A coin's id (`coinId` of balances and bills) as the venue gives it: a JSON integer or its digits as a string
 * (`"2"`), read as the number. Ids elsewhere are read as numbers or strings alike (DESIGN.md); a page of bills must not
 * fail for the way one of them writes its coin.
 *
 * @since 0.1.0
 * @category ids
 */
export const CoinIdFromWire = Schema.Union([
  Schema.Int,
  digitsOf(Schema.Int, "a coin id as digits")
])

/**
 * A code or an echoed reference the venue gives as a string or a number (a response's `code`, a batch item's
 * `errorCode`, a cancel answer's `orderId`), as text; it may be empty.
 *
 * @since 0.1.0
 * @category ids
 */
export const TextFromWire = Schema.Union([Schema.String, intAsText])

/**
 * The latest time a timestamp may name: the last instant a date can hold (8.64e15 ms, in the year 275760). A later
 * one is no time a venue means, and no date could show it.
 *
 * @since 0.1.0
 * @category time
 */
export const MAX_MILLIS = 8_640_000_000_000_000

/**
 * A millisecond epoch timestamp, from 0 to `MAX_MILLIS`.
 *
 * @since 0.1.0
 * @category time
 */
export const Millis = Schema.Int.check(
  Schema.isBetween({ minimum: 0, maximum: MAX_MILLIS }, { expected: "a millisecond epoch time from 0 to 8.64e15" })
)

/**
 * A millisecond epoch timestamp on the wire: a JSON integer or a numeric string (`cTime: "1622697148000"`).
 *
 * @since 0.1.0
 * @category time
 */
export const MillisFromWire = Schema.Union([
  Millis,
  digitsOf(Millis, "a millisecond epoch as digits")
])

/**
 * A client-chosen order identifier: 1 to 40 characters, each a letter, a digit, `_` or `-` (the venue refuses longer
 * ids and special characters; docs/venue/trading.md#client-order-ids). The ids the client generates fit.
 *
 * @since 0.1.0
 * @category ids
 */
export const ClientOrderId = Schema.String.check(
  Schema.isPattern(CLIENT_ORDER_ID, {
    expected: "1 to 40 letters, digits, _ or -",
    message: "must be 1 to 40 characters, each a letter, a digit, _ or -"
  })
)

/**
 * A page size: an integer from 1 to 100.
 *
 * @since 0.1.0
 * @category paging
 */
export const PageSize = Schema.Int.check(
  Schema.isBetween({ minimum: 1, maximum: 100 }, { message: "must be an integer from 1 to 100" })
)
