// Exact decimal <-> integer units. The engine keeps every amount as an integer count of the smallest unit
// (10^-scale) in a JS number, and guarantees all such integers stay below 2^53 (see Engine: coin supply is capped),
// so every sum, difference and product it forms is exact. No floating-point value ever carries money.

const DECIMAL = /^(\d+)(?:\.(\d+))?$/

/** Why a decimal string could not become units. */
export type UnitsError = "format" | "scale" | "range"

const POW10: ReadonlyArray<number> = Array.from({ length: 19 }, (_, i) => 10 ** i)

/** 10^n for n in 0..18 (exact: every power up to 10^22 is a double). */
export const pow10 = (n: number): number => POW10[n]!

/** Parses a non-negative decimal string into integer units of 10^-scale; rejects more decimals than `scale`. */
export const toUnits = (text: string, scale: number): number | UnitsError => {
  const match = DECIMAL.exec(text)
  if (match === null) return "format"
  const whole = match[1]!
  const fraction = match[2] ?? ""
  let cut = fraction.length
  // Trailing zeros beyond the scale are not precision ("1.500" at scale 1 is 15 units).
  while (cut > scale && fraction.charCodeAt(cut - 1) === 48) cut--
  if (cut > scale) return "scale"
  const digits = (whole + fraction.slice(0, cut).padEnd(scale, "0")).replace(/^0+(?=\d)/, "")
  if (digits.length > 16) return "range"
  const value = Number(digits)
  return Number.isSafeInteger(value) ? value : "range"
}

/** Formats integer units with exactly `scale` decimals. */
export const fixed = (units: number, scale: number): string => {
  const negative = units < 0
  const digits = String(negative ? -units : units)
  if (scale === 0) return negative ? "-" + digits : digits
  const padded = digits.length > scale ? digits : digits.padStart(scale + 1, "0")
  const point = padded.length - scale
  return (negative ? "-" : "") + padded.slice(0, point) + "." + padded.slice(point)
}

/** Formats integer units as the shortest exact decimal ("1.5", "0", "-0.0001"). */
export const trimmed = (units: number, scale: number): string => {
  if (units === 0) return "0"
  // Trailing zeros dropped by integer division (exact: `units` is a safe integer, and so is every quotient).
  while (scale > 0 && units % 10 === 0) {
    units /= 10
    scale--
  }
  return fixed(units, scale)
}

// Integer division of non-negative safe integers; `%` on doubles is exact, so the quotient is exact too.
const div = (a: number, b: number): number => (a - (a % b)) / b

/**
 * floor(amount * numerator / denominator) for a non-negative safe integer `amount` and numerator <= denominator <=
 * 10^6, without any intermediate leaving the safe-integer range.
 */
export const mulDivFloor = (amount: number, numerator: number, denominator: number): number => {
  const product = amount * numerator
  if (product <= Number.MAX_SAFE_INTEGER) {
    // The usual case: the product is exact; correct the double quotient's floor if it rounded up.
    const quotient = Math.floor(product / denominator)
    return quotient * denominator > product ? quotient - 1 : quotient
  }
  const remainder = amount % denominator
  return div(amount, denominator) * numerator + div(remainder * numerator, denominator)
}

/** Decimals of a fee rate: 10^6 keeps every intermediate of `mulDivFloor` below 2^53. */
export const RATE_SCALE = 6

/** A fee rate such as "0.001" as numerator / 10^6; at most 6 decimals, between 0 and 1. */
export const rate = (text: string): number | undefined => {
  const units = toUnits(text, RATE_SCALE)
  return typeof units === "number" && units <= POW10[RATE_SCALE]! ? units : undefined
}
