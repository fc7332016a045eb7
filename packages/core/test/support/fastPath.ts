/**
 * The two property checks of a hand-written fast decoder against its Schema (docs/DESIGN.md#style), and the wire forms the
 * generators of their inputs share.
 *
 * - `fastAgreesWithSchema`, fast ⇒ Schema: on input mixing plain, unusual-but-valid and invalid forms, whatever the
 *   fast path answers, the Schema accepts too and decodes to the same value.
 * - `fastEqualOrDeclines`, Schema ⇒ fast: on input the Schema accepts (checked, so that the generator is), the fast
 *   path answers the Schema's value or `undefined`; and both happened: it took some inputs and left some valid ones
 *   to the Schema.
 */
import { assert } from "@effect/vitest"
import { Exit, Schema } from "effect"
import * as fc from "fast-check"

// ---------------------------------------------------------------------------------------------------------------
// fast ⇒ Schema: values a field may hold, the plain form, the other valid wire forms, and wrong ones

export const ids = fc.oneof(
  fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).map(String),
  fc.constantFrom("", "0", "007", "18446744073709551615", "18446744073709551616", "99999999999999999999", "-1", "1.5"),
  fc.integer({ min: -5, max: 2 ** 31 }),
  fc.constantFrom(1.5, null, "", "abc", true)
)
export const decimals = fc.oneof(
  fc.tuple(fc.integer({ min: -1e6, max: 1e9 }), fc.nat(99_999)).map(([i, f]) => `${i}.${String(f).padStart(5, "0")}`),
  fc.constantFrom("0", "100", "-0.5", "1e5", "1.5E-3", "2.5e+2", "01.5", "1.", ".5", "", " 1", "0x10"),
  fc.constantFrom(15, 0, -3, 1.5, null)
)
export const millis = fc.oneof(
  fc.integer({ min: 0, max: 2 ** 45 }),
  fc.integer({ min: 0, max: 2 ** 45 }).map(String),
  fc.constantFrom("0", "-1", "1e3", "12345678901234567", "0012", "", -1, 1.5, null, 2 ** 60),
  // About the last instant a date holds (8.64e15 ms): the last valid, the first not.
  fc.constantFrom(8_640_000_000_000_000, 8_640_000_000_000_001, "8640000000000000", "8640000000000001")
)
export const strings = fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom(5, null, undefined))
export const literal = (...values: ReadonlyArray<string>) => fc.oneof(fc.constantFrom(...values), strings)

/** An object of these fields where any may be missing, plus sometimes a field the Schema does not know. */
export const objectOf = (fields: Record<string, fc.Arbitrary<unknown>>, required: ReadonlyArray<string>) =>
  fc.tuple(
    fc.record(fields, { requiredKeys: [] }),
    fc.subarray([...required]),
    fc.boolean()
  ).map(([record, keep, extra]) => {
    const out: Record<string, unknown> = { ...record }
    for (const key of required) if (!keep.includes(key) && !(key in out)) out[key] = undefined
    if (extra) out.unknownField = "x"
    return out
  })

// ---------------------------------------------------------------------------------------------------------------
// Schema ⇒ fast: valid forms only, the plain one usually and the unusual ones sometimes

/** Mostly `plain`, sometimes `unusual`. */
export const usually = <A, B>(plain: fc.Arbitrary<A>, unusual: fc.Arbitrary<B>, weight = 6) =>
  fc.oneof({ weight, arbitrary: plain }, { weight: 1, arbitrary: unusual })

/** An unsigned 64-bit id as digits (the plain form). */
export const u64Digits = fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).map(String)

/** A safe non-negative integer, the form of an id the venue sends as a JSON number. */
export const safeNat = fc.maxSafeNat()

/** A decimal string: no leading zeros, no exponent. */
export const plainDecimal = fc.tuple(fc.boolean(), fc.nat(), fc.option(fc.nat(99_999_999), { nil: undefined })).map(
  ([negative, whole, fraction]) => `${negative ? "-" : ""}${whole}${fraction === undefined ? "" : `.${fraction}`}`
)

/** A decimal the venue may send in exponent form ("0E-8", "1.5e3"), which the Schema rewrites exactly. */
export const exponentDecimal = fc.tuple(
  fc.boolean(),
  fc.nat(99_999),
  fc.option(fc.nat(9_999), { nil: undefined }),
  fc.constantFrom("e", "E", "e+", "E-", "e-"),
  fc.nat(12)
).map(([negative, whole, fraction, marker, exponent]) =>
  `${negative ? "-" : ""}${whole}${fraction === undefined ? "" : `.${fraction}`}${marker}${exponent}`
)

/** The other valid wire forms of a decimal: an exponent form, or a JSON integer. */
export const unusualDecimal = fc.oneof(exponentDecimal, fc.integer())

/** A millisecond time as the venue sends it: a number, or digits of up to 15 characters. */
export const plainMillis = fc.oneof(
  fc.integer({ min: 0, max: 2 ** 45 }),
  fc.integer({ min: 0, max: 2 ** 45 }).map(String)
)

/** A time as 16 digits, up to the last a date holds (valid, but past the digits the fast paths read as a number). */
export const longMillisText = fc.integer({ min: 10 ** 15, max: 8_640_000_000_000_000 }).map(String)

// ---------------------------------------------------------------------------------------------------------------
// the checks

/** A fast path: the decoded value, or `undefined` to leave the input to the Schema. */
type Fast = (input: unknown) => unknown

type Decodable = Schema.Top & { readonly DecodingServices: never }

const show = (value: unknown) => {
  const text = fc.stringify(value)
  return text.length > 600 ? `${text.slice(0, 600)}…` : text
}

/** fast ⇒ Schema: whatever `fast` answers for an input of `input`, the Schema decodes that input to. */
export const fastAgreesWithSchema = (
  schema: Decodable,
  fast: Fast,
  input: fc.Arbitrary<unknown>,
  numRuns: number
): void => {
  const decode = Schema.decodeUnknownExit(schema)
  let taken = 0
  fc.assert(
    fc.property(input, (value) => {
      const expected = decode(value)
      const quick = fast(value)
      if (quick !== undefined) {
        taken++
        assert.isTrue(Exit.isSuccess(expected), `the Schema refuses what the fast path took: ${String(expected)}`)
        assert.deepStrictEqual(quick, Exit.isSuccess(expected) ? expected.value : undefined)
      }
    }),
    { numRuns }
  )
  // The fast path took inputs; that it leaves valid ones to the Schema is `fastEqualOrDeclines`'s to show.
  assert.isAbove(taken, 0)
}

/**
 * Schema ⇒ fast: every input of `valid` is accepted by the Schema, and `fast` answers either the Schema's value or
 * `undefined`. At least `minShare` of the runs must go each way: taken by the fast path, and declined although valid.
 * `sameOrder` also compares the fields' order (JSON text), for values whose shape is written out as it comes.
 */
export const fastEqualOrDeclines = (
  schema: Decodable,
  fast: Fast,
  valid: fc.Arbitrary<unknown>,
  options: { readonly numRuns: number; readonly minShare: number; readonly sameOrder?: boolean }
): void => {
  const decode = Schema.decodeUnknownExit(schema)
  let taken = 0
  let declined = 0
  fc.assert(
    fc.property(valid, (value) => {
      const expected = decode(value)
      assert.isTrue(Exit.isSuccess(expected), `the generator made an input the Schema refuses: ${show(value)}`)
      if (Exit.isFailure(expected)) return
      const quick = fast(value)
      if (quick === undefined) {
        declined++
        return
      }
      taken++
      assert.deepStrictEqual(quick, expected.value, show(value))
      if (options.sameOrder === true) assert.strictEqual(JSON.stringify(quick), JSON.stringify(expected.value))
    }),
    { numRuns: options.numRuns }
  )
  const least = Math.ceil(options.numRuns * options.minShare)
  assert.isAtLeast(taken, least, `the fast path took ${taken} of ${options.numRuns} valid inputs`)
  assert.isAtLeast(declined, least, `the fast path declined ${declined} of ${options.numRuns} valid inputs`)
}
