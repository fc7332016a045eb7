// The patterns of the primitives (Primitives.ts), shared with the fast decoders (fast.ts) so both test the same.

/** A decimal string: optional minus, no leading zeros, no exponent. */
export const DECIMAL = /^-?(?:0|[1-9]\d*)(?:\.\d+)?$/

/** Digits without a leading zero. */
export const DIGITS = /^(?:0|[1-9]\d*)$/

/** `<BASE><QUOTE>_SPBL`. */
export const TRADING_PAIR = /^[A-Z0-9]{2,40}_SPBL$/

/** 1 to 64 characters without whitespace. */
export const CLIENT_ORDER_ID = /^\S{1,64}$/
