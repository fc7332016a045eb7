/**
 * Internal transfer between users (docs/venue/account.md#internal-transfer).
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import * as Decimal from "./internal/model/decimal.ts"
import {
  DecimalFromWire,
  IdFromWire,
  Millis,
  MillisFromWire,
  PositiveDecimal,
  scale,
  TextFromWire,
  UserId,
  UserIdFromWire
} from "./Primitives.ts"

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
 * A transfer amount: greater than 0, at most 6 decimal places, zeros after them aside (`"100.19000000"`, a balance as
 * the venue writes it, is `100.19`). An amount written with more places is sent without those zeros (`"100.19"`);
 * one of 6 places or fewer, as written.
 *
 * @since 0.1.0
 * @category requests
 */
export const TransferAmount = PositiveDecimal.check(
  Schema.makeFilter((s: string) => scale(Decimal.normalize(s)) <= 6 || "must have at most 6 decimal places", {
    expected: "at most 6 decimal places"
  })
)

/**
 * The amount as a transfer sends it: as written, unless written with more than 6 decimal places (zeros, then, which
 * the venue's rule may count): without the zeros that end it.
 *
 * @since 0.1.0
 * @category requests
 */
export const wireAmount = (amount: string): string => scale(amount) > 6 ? Decimal.normalize(amount) : amount

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
  code: Schema.optional(TextFromWire),
  id: IdFromWire,
  timestamp: Schema.optional(Schema.NullOr(MillisFromWire))
})

/**
 * A completed transfer: its id, and the server time of the answer when the venue sent one. When the answer was lost
 * and the client found the transfer in the venue's list instead, `timestamp` is the transfer's creation time and
 * `status` its status then (`SUCCESS`, `FAILED`, `PROGRESSING`).
 *
 * @since 0.1.0
 * @category responses
 */
export interface TransferResult {
  readonly id: string
  readonly timestamp?: number | undefined
  readonly status?: TransferStatus | undefined
}

/**
 * A transfer's status as the venue reports it: `SUCCESS`, `FAILED`, `PROGRESSING`, or any other string kept.
 *
 * @since 0.1.0
 * @category literals
 */
export const TransferStatus = Schema.Union([Schema.Literals(["SUCCESS", "FAILED", "PROGRESSING"]), Schema.String])

/**
 * An open union: the known statuses, and any other string.
 *
 * @since 0.1.0
 * @category literals
 */
export type TransferStatus = "SUCCESS" | "FAILED" | "PROGRESSING" | (string & {})

/**
 * One transfer of the status list (docs/venue/account.md#transfer-status). User ids come as JSON numbers and stay exact
 * digits.
 *
 * @since 0.1.0
 * @category responses
 */
export const TransferRecord = Schema.Struct({
  fromUserId: UserIdFromWire,
  toUserId: UserIdFromWire,
  withdrawId: IdFromWire,
  coin: Schema.String,
  status: TransferStatus,
  amount: DecimalFromWire,
  createTime: MillisFromWire,
  updateTime: Schema.optional(Schema.NullOr(MillisFromWire))
})

/**
 * @since 0.1.0
 * @category responses
 */
export type TransferRecord = typeof TransferRecord.Type

/**
 * The status answer, in the transfer's own envelope: `{ total, code: "200", list, timestamp }`. `total` is never
 * trusted (a sample has 2 with one item).
 *
 * @since 0.1.0
 * @category responses
 */
export const TransferStatusResponse = Schema.Struct({
  code: Schema.optional(TextFromWire),
  total: Schema.optional(Schema.Unknown),
  list: Schema.NullOr(Schema.Array(TransferRecord)),
  timestamp: Schema.optional(Schema.NullOr(MillisFromWire))
})

/**
 * @since 0.1.0
 * @category responses
 */
export type TransferStatusResponse = typeof TransferStatusResponse.Type

const PageSize = Schema.Int.check(
  Schema.isBetween({ minimum: 1, maximum: 200 }, { message: "must be an integer from 1 to 200" })
)

const statusFields = {
  withdrawId: Schema.optional(
    Schema.String.check(Schema.isPattern(/^\S{1,64}$/, { message: "must be 1 to 64 characters without whitespace" }))
  ),
  coin: Schema.optional(Coin),
  startTime: Schema.optional(Millis),
  endTime: Schema.optional(Millis),
  fromAccountType: Schema.optional(AccountType),
  toAccountType: Schema.optional(AccountType)
}

/**
 * Query of the transfer status list; every field optional. `withdrawId` is a transfer's id (sent as the venue's
 * `withdrawID`); times in ms (the venue serves the past month); `page` from 1, `pageSize` up to 200 (default 100).
 *
 * @since 0.1.0
 * @category requests
 */
export const TransferStatusQuery = Schema.Struct({
  ...statusFields,
  page: Schema.optional(Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))),
  pageSize: Schema.optional(PageSize)
})

/**
 * @since 0.1.0
 * @category requests
 */
export type TransferStatusQuery = typeof TransferStatusQuery.Encoded

/**
 * What `SpotClient.transfers` lists: the status query without its page. `pageSize` is the size asked of each page
 * (default 200, the most the venue serves).
 *
 * @since 0.1.0
 * @category requests
 */
export const TransferFilter = Schema.Struct({ ...statusFields, pageSize: Schema.optional(PageSize) })

/**
 * @since 0.1.0
 * @category requests
 */
export type TransferFilter = typeof TransferFilter.Encoded
