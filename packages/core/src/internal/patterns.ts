// Patterns shared by the wire schemas (Primitives.ts) and the hand-checked fast paths that must agree with them.

/** An exact decimal: optional `-`, integer digits without leading zeros, optional fraction; no exponent. */
export const DECIMAL = /^-?(?:0|[1-9]\d*)(?:\.\d+)?$/

/** Unsigned integer digits without leading zeros. */
export const DIGITS = /^(?:0|[1-9]\d*)$/
