// Exact arithmetic on the client's decimal strings (Primitives.Decimal: optional minus, no leading zeros, no
// exponent): comparisons, equality whatever the trailing zeros, and rounding to a step, on strings or scaled BigInts.
// No price, quantity or amount ever passes through a floating-point number.

/** A decimal as an integer number of units of 10^-scale. */
interface Scaled {
  readonly units: bigint
  readonly scale: number
}

const scaled = (value: string): Scaled => {
  const dot = value.indexOf(".")
  return dot === -1
    ? { units: BigInt(value), scale: 0 }
    : { units: BigInt(value.slice(0, dot) + value.slice(dot + 1)), scale: value.length - dot - 1 }
}

const TEN = 10n
const pow10 = (n: number): bigint => TEN ** BigInt(n)

/** Both values in units of the finer scale. */
const aligned = (a: string, b: string): readonly [bigint, bigint, number] => {
  const x = scaled(a)
  const y = scaled(b)
  const scale = Math.max(x.scale, y.scale)
  return [x.units * pow10(scale - x.scale), y.units * pow10(scale - y.scale), scale]
}

/** `units` × 10^-scale as a plain decimal string, with exactly `scale` decimals. */
const format = (units: bigint, scale: number): string => {
  const negative = units < 0n
  const digits = (negative ? -units : units).toString().padStart(scale + 1, "0")
  const text = scale === 0 ? digits : `${digits.slice(0, digits.length - scale)}.${digits.slice(-scale)}`
  return negative ? `-${text}` : text
}

/** Drops the zeros that end a fraction, and a bare point: "1.50" → "1.5", "2.000" → "2". */
export const normalize = (value: string): string =>
  value.includes(".") ? value.replace(/0+$/, "").replace(/\.$/, "") : value

/**
 * -1, 0 or 1 as `a` is below, equal to or above `b`, for non-negative decimals, by their digits: integer parts by
 * length then digits, fractions digit by digit (missing digits are zeros).
 */
export const compare = (a: string, b: string): -1 | 0 | 1 => {
  const da = a.indexOf(".")
  const db = b.indexOf(".")
  const ia = da === -1 ? a.length : da
  const ib = db === -1 ? b.length : db
  if (ia !== ib) return ia < ib ? -1 : 1
  for (let i = 0; i < ia; i++) {
    const ca = a.charCodeAt(i)
    const cb = b.charCodeAt(i)
    if (ca !== cb) return ca < cb ? -1 : 1
  }
  // The fractions, digit by digit after each point; a missing digit is a zero.
  const fa = da === -1 ? 0 : a.length - da - 1
  const fb = db === -1 ? 0 : b.length - db - 1
  for (let j = 0; j < Math.max(fa, fb); j++) {
    const ca = j < fa ? a.charCodeAt(da + 1 + j) : 48
    const cb = j < fb ? b.charCodeAt(db + 1 + j) : 48
    if (ca !== cb) return ca < cb ? -1 : 1
  }
  return 0
}

/** `a + b`, exactly, with the decimals of the finer of the two ("1.50" + "2" → "3.50"). */
export const add = (a: string, b: string): string => {
  const [x, y, scale] = aligned(a, b)
  return format(x + y, scale)
}

/** Whether two decimals are the same number regardless of formatting ("1.50" = "1.5", "2.0" = "2"). */
export const equal = (a: string, b: string): boolean => normalize(a) === normalize(b)

/**
 * A step (a price tick, a quantity step), prepared once: when it is a power of ten at most 1 ("1", "0.01"), a value
 * is a multiple of it exactly when it has at most `decimals` significant decimals, which needs no BigInt.
 */
export interface Step {
  readonly text: string
  /** Significant decimals allowed when the step is 10^-decimals (decimals ≥ 0); undefined for any other step. */
  readonly decimals: number | undefined
  /** Whether the step is above zero (a zero step constrains nothing). */
  readonly positive: boolean
}

const POWER_OF_TEN = /^(?:1|0\.0*1)$/

/** Prepares a step from its decimal text. */
export const step = (text: string): Step => {
  const plain = normalize(text)
  return {
    text,
    decimals: POWER_OF_TEN.test(plain) ? (plain === "1" ? 0 : plain.length - 2) : undefined,
    positive: /[1-9]/.test(plain) && !plain.startsWith("-")
  }
}

/** Whether a non-negative decimal is a whole multiple of `step` (always, for a step of zero). */
export const isMultiple = (value: string, of: Step): boolean => {
  if (!of.positive) return true
  if (of.decimals !== undefined) {
    const dot = value.indexOf(".")
    if (dot === -1) return true
    let end = value.length
    while (end > dot + 1 && value.charCodeAt(end - 1) === 48) end--
    return end - dot - 1 <= of.decimals
  }
  const [units, stepUnits] = aligned(value, of.text)
  return units % stepUnits === 0n
}

/** The multiples of `step` just below or at, and just above or at, a non-negative decimal. */
export const around = (value: string, of: Step): { readonly down: string; readonly up: string } => {
  const [units, stepUnits, scale] = aligned(value, of.text)
  const down = (units / stepUnits) * stepUnits
  const up = down === units ? down : down + stepUnits
  const stepScale = scaled(of.text).scale
  // Multiples of the step need no more decimals than the step has.
  const shown = (n: bigint) => format(n / pow10(scale - stepScale), stepScale)
  return { down: shown(down), up: shown(up) }
}
