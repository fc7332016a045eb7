/**
 * Exact decimal arithmetic (src/internal/decimal.ts) against a BigInt reference: comparison, equality whatever the
 * trailing zeros, multiples of a step (the power-of-ten shortcut and the general case), the multiples around a value.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as Decimal from "../src/internal/model/decimal.ts"

const RUNS = 2_000

/** A non-negative decimal string in the client's form: no leading zeros, no exponent, maybe trailing zeros. */
const decimal = fc.tuple(fc.bigInt({ min: 0n, max: 10n ** 12n }), fc.integer({ min: 0, max: 10 })).map(
  ([units, scale]) => {
    const digits = units.toString().padStart(scale + 1, "0")
    return scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`
  }
)

const step = fc.oneof(
  fc.constantFrom("1", "0.1", "0.01", "0.00000001", "10", "100", "0.5", "0.25", "0.0005", "2.5", "0.010"),
  decimal.filter((d) => /[1-9]/.test(d))
)

/** value × 10^scale as a BigInt, for values with at most `scale` decimals. */
const units = (value: string, scale: number) => {
  const [int, frac = ""] = value.split(".")
  return BigInt(int! + frac.padEnd(scale, "0"))
}
const scaleOf = (value: string) => value.split(".")[1]?.length ?? 0

describe("decimal", () => {
  it("compare agrees with BigInt", () => {
    fc.assert(
      fc.property(decimal, decimal, (a, b) => {
        const scale = Math.max(scaleOf(a), scaleOf(b))
        const x = units(a, scale)
        const y = units(b, scale)
        assert.strictEqual(Decimal.compare(a, b), x < y ? -1 : x > y ? 1 : 0)
        assert.strictEqual(Decimal.equal(a, b), x === y)
      }),
      { numRuns: RUNS }
    )
  })

  it("add agrees with BigInt, written with the finer scale's decimals", () => {
    fc.assert(
      fc.property(decimal, decimal, (a, b) => {
        const scale = Math.max(scaleOf(a), scaleOf(b))
        const sum = Decimal.add(a, b)
        assert.strictEqual(scaleOf(sum), scale)
        assert.strictEqual(units(sum, scale), units(a, scale) + units(b, scale))
      }),
      { numRuns: RUNS }
    )
    assert.strictEqual(Decimal.add("1.50", "2"), "3.50")
    assert.strictEqual(Decimal.add("0.0040000000000000", "0"), "0.0040000000000000")
  })

  it("isMultiple agrees with BigInt, for powers of ten and other steps", () => {
    fc.assert(
      fc.property(decimal, step, (value, by) => {
        const scale = Math.max(scaleOf(value), scaleOf(by))
        assert.strictEqual(Decimal.isMultiple(value, Decimal.step(by)), units(value, scale) % units(by, scale) === 0n)
      }),
      { numRuns: RUNS }
    )
  })

  it("around gives the multiples just below and above, written with the step's decimals", () => {
    fc.assert(
      fc.property(decimal, step, (value, by) => {
        const { down, up } = Decimal.around(value, Decimal.step(by))
        const s = Decimal.step(by)
        assert.isTrue(Decimal.isMultiple(down, s) && Decimal.isMultiple(up, s), `${down} ${up}`)
        assert.isAtMost(Decimal.compare(down, value), 0)
        assert.isAtLeast(Decimal.compare(up, value), 0)
        assert.strictEqual(scaleOf(down), scaleOf(by))
        assert.strictEqual(scaleOf(up), scaleOf(by))
        const scale = Math.max(scaleOf(value), scaleOf(by))
        const gap = units(up, scale) - units(down, scale)
        assert.isTrue(gap === 0n || gap === units(by, scale))
        assert.strictEqual(gap === 0n, Decimal.isMultiple(value, s))
      }),
      { numRuns: RUNS }
    )
  })

  it("a zero step constrains nothing", () => {
    assert.isTrue(Decimal.isMultiple("1.23456", Decimal.step("0")))
    assert.isTrue(Decimal.isMultiple("7", Decimal.step("0.000")))
  })

  it("examples", () => {
    assert.deepStrictEqual(Decimal.around("27123.456", Decimal.step("0.01")), { down: "27123.45", up: "27123.46" })
    assert.deepStrictEqual(Decimal.around("0.00015", Decimal.step("0.0001")), { down: "0.0001", up: "0.0002" })
    assert.deepStrictEqual(Decimal.around("7", Decimal.step("2.5")), { down: "5.0", up: "7.5" })
    assert.isTrue(Decimal.isMultiple("0.060000", Decimal.step("0.0001")))
    assert.isTrue(Decimal.equal("1.50", "1.5") && Decimal.equal("2", "2.000") && !Decimal.equal("1.05", "1.5"))
  })
})
