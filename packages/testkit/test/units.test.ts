/**
 * Exact decimals of integer units.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { trimmed } from "../src/internal/units.ts"

describe("units: trimmed", () => {
  it("is the exact decimal without trailing zeros, for any safe integer and scale", () => {
    // Reference: the digits with the point placed by string operations, then trailing zeros cut.
    const reference = (units: number, scale: number) => {
      if (units === 0) return "0"
      const digits = String(Math.abs(units)).padStart(scale + 1, "0")
      const whole = digits.slice(0, digits.length - scale)
      const fraction = digits.slice(digits.length - scale).replace(/0+$/, "")
      return (units < 0 ? "-" : "") + whole + (fraction === "" ? "" : "." + fraction)
    }
    const units = fc.oneof(
      fc.maxSafeInteger(),
      fc.integer({ min: -1_000_000, max: 1_000_000 }),
      fc.tuple(fc.integer({ min: -99_999, max: 99_999 }), fc.integer({ min: 0, max: 10 })).map(([n, zeros]) =>
        n * 10 ** zeros
      )
    )
    fc.assert(
      fc.property(units, fc.integer({ min: 0, max: 18 }), (n, scale) => {
        assert.strictEqual(trimmed(n, scale), reference(n, scale), `${n} at scale ${scale}`)
      }),
      { numRuns: 3000 }
    )
  })
})
