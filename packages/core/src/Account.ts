/**
 * The spot account's balances (docs/venue/account.md#balances, `GET /api/v2/account/assets`).
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { CoinIdFromWire, DecimalFromWire } from "./Primitives.ts"

/**
 * One coin of the spot account: what is free to use, what open orders hold, and their sum.
 *
 * @since 0.1.0
 * @category responses
 */
export const Balance = Schema.Struct({
  coinId: CoinIdFromWire,
  coinName: Schema.String,
  available: DecimalFromWire,
  frozen: DecimalFromWire,
  equity: DecimalFromWire
})

/**
 * @since 0.1.0
 * @category responses
 */
export type Balance = typeof Balance.Type

/**
 * The `data` of `assets`: one entry per coin.
 *
 * @since 0.1.0
 * @category responses
 */
export const Balances = Schema.NullOr(Schema.Array(Balance))
