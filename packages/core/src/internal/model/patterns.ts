// The patterns of the primitives (Primitives.ts), shared with the fast decoders (fast.ts) so both test the same.

/** A decimal string: optional minus, no leading zeros, no exponent. */
export const DECIMAL = /^-?(?:0|[1-9]\d*)(?:\.\d+)?$/

/** Digits without a leading zero. */
export const DIGITS = /^(?:0|[1-9]\d*)$/

/** `<BASE><QUOTE>_SPBL`. */
export const TRADING_PAIR = /^[A-Z0-9]{2,40}_SPBL$/

/** 1 to 40 letters, digits, `_` or `-` (docs/venue/trading.md#client-order-ids). */
export const CLIENT_ORDER_ID = /^[A-Za-z0-9_-]{1,40}$/
