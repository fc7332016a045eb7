/**
 * Internal transfer between users (spec §2.7, §4.5).
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { IdFromWire, MillisFromWire, PositiveDecimal, scale, UserId } from "./Primitives.ts"

/**
 * Coins the venue lists for internal transfers.
 *
 * @since 0.1.0
 * @category literals
 */
export const Coin = Schema.Literals(["USDT", "BTC"])

/**
 * @since 0.1.0
 * @category literals
 */
export type Coin = typeof Coin.Type

/**
 * `SPOT` spot wallet, `SPOT_V2` professional spot wallet, `FUND` funding wallet.
 *
 * @since 0.1.0
 * @category literals
 */
export const AccountType = Schema.Literals(["SPOT", "SPOT_V2", "FUND"])

/**
 * @since 0.1.0
 * @category literals
 */
export type AccountType = typeof AccountType.Type

/**
 * A transfer amount: greater than 0, at most 6 decimal places.
 *
 * @since 0.1.0
 * @category requests
 */
export const TransferAmount = PositiveDecimal.check(
  Schema.makeFilter((s: string) => scale(s) <= 6 || "must have at most 6 decimal places", {
    expected: "at most 6 decimal places"
  })
)

/**
 * The transfer request. `toUserId` is exact digits and is sent as a JSON number without loss.
 *
 * @since 0.1.0
 * @category requests
 */
export const InternalTransfer = Schema.Struct({
  toUserId: UserId,
  coin: Coin,
  amount: TransferAmount,
  fromAccountType: AccountType,
  toAccountType: AccountType
})

/**
 * @since 0.1.0
 * @category requests
 */
export type InternalTransfer = typeof InternalTransfer.Type

/**
 * The input accepted by `internalTransfer`: plain strings, validated before anything is sent.
 *
 * @since 0.1.0
 * @category requests
 */
export type InternalTransferInput = typeof InternalTransfer.Encoded

/**
 * The transfer's success answer: the spec's envelope `{ code: "200", id, timestamp }`, or — tolerated — the `data`
 * of a standard `00000` envelope holding the `id`. Failures use the standard envelope.
 *
 * @since 0.1.0
 * @category responses
 */
export const TransferSuccess = Schema.Struct({
  code: Schema.optional(IdFromWire),
  id: IdFromWire,
  timestamp: Schema.optional(Schema.NullOr(MillisFromWire))
})

/**
 * A completed transfer: its id, and the server time of the answer when the venue sent one.
 *
 * @since 0.1.0
 * @category responses
 */
export interface TransferResult {
  readonly id: string
  readonly timestamp?: number | undefined
}
