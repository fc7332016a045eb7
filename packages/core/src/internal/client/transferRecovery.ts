// Recovery of a transfer whose answer was lost. A transfer carries no idempotency key, so it is never sent again
// blindly; instead the venue's transfer list is searched for it: transfers created in the window of the call (widened
// by the venue's timestamp window, within which its clock and ours agree), of the same coin, receiver and amount, and
// not among the transfers this client already knows (its earlier transfers, and earlier recoveries). Exactly one
// match is the transfer; none or several leave the outcome unknown, and the error carries the candidates.
import { Effect } from "effect"
import * as SpotError from "../../SpotError.ts"
import type {
  InternalTransfer,
  TransferRecord,
  TransferResult,
  TransferStatusQuery,
  TransferStatusResponse
} from "../../Transfer.ts"
import * as Venue from "../../Venue.ts"
import * as Decimal from "../model/decimal.ts"
import type * as Retry from "./retry.ts"

/** Ids of the transfers a client knows, the most recent `capacity` of them. */
export class Known {
  private readonly ids = new Set<string>()
  private readonly capacity: number
  constructor(capacity = 10_000) {
    this.capacity = capacity
  }
  add(id: string): void {
    this.ids.delete(id)
    this.ids.add(id)
    if (this.ids.size > this.capacity) this.ids.delete(this.ids.values().next().value!)
  }
  has(id: string): boolean {
    return this.ids.has(id)
  }
}

/** One page of the transfer list (`transferStatus`), retried. */
export type Lookup = (
  query: typeof TransferStatusQuery.Type
) => Effect.Effect<TransferStatusResponse, SpotError.SpotErrorReason>

const PAGE_SIZE = 200
/** Pages read at most: a window of a minute or two holds far fewer transfers of one user. */
const MAX_PAGES = 5

/** How far (ms) the venue's record of the transfer may be from the call's own window on the client's clock. */
export const MARGIN_MILLIS = Venue.TIMESTAMP_WINDOW_MILLIS + 1_000

/** The transfers of the window that could be this one. */
const candidates = (
  lookup: Lookup,
  transfer: InternalTransfer,
  window: { readonly start: number; readonly end: number },
  known: Known
): Effect.Effect<ReadonlyArray<TransferRecord>, SpotError.SpotErrorReason> =>
  Effect.gen(function*() {
    const found = new Map<string, TransferRecord>()
    for (let page = 1; page <= MAX_PAGES; page++) {
      const answer = yield* lookup({
        coin: transfer.coin,
        startTime: window.start,
        endTime: window.end,
        fromAccountType: transfer.fromAccountType,
        toAccountType: transfer.toAccountType,
        page,
        pageSize: PAGE_SIZE
      })
      const list = answer.list ?? []
      for (const record of list) {
        // The venue's filters are not relied upon: every criterion is checked here again.
        if (
          record.toUserId === transfer.toUserId && record.coin === transfer.coin &&
          Decimal.equal(record.amount, transfer.amount) && record.createTime >= window.start &&
          record.createTime <= window.end && !known.has(record.withdrawId)
        ) {
          found.set(record.withdrawId, record)
        }
      }
      if (list.length < PAGE_SIZE) break
    }
    return [...found.values()]
  })

/**
 * What a failed transfer answers: its reason when the venue provably did not apply it; otherwise the transfer found
 * by the lookup, or `OutcomeUnknownError` with the candidates. `window` is the call's time on the server's clock (as
 * the client estimates it), before widening.
 */
export const recover = (
  lookup: Lookup,
  transfer: InternalTransfer,
  window: { readonly start: number; readonly end: number },
  known: Known,
  failure: Retry.Failure
): Effect.Effect<TransferResult, SpotError.SpotErrorReason> => {
  const reason = failure.reason
  if (!failure.mayHaveApplied) return Effect.fail(reason)
  const widened = { start: Math.floor(window.start - MARGIN_MILLIS), end: Math.ceil(window.end + MARGIN_MILLIS) }
  const what = `${transfer.amount} ${transfer.coin} to ${transfer.toUserId}`
  return Effect.matchEffect(candidates(lookup, transfer, widened, known), {
    onFailure: (lookupReason) =>
      Effect.fail(
        new SpotError.OutcomeUnknownError({
          description: `${reason.message}; the transfer (${what}) may have been applied and could not be looked up` +
            ` (${lookupReason.message}); it was not sent again`
        })
      ),
    onSuccess: (found) => {
      if (found.length === 1) {
        const record = found[0]!
        known.add(record.withdrawId)
        return Effect.succeed<TransferResult>({
          id: record.withdrawId,
          timestamp: record.createTime,
          status: record.status
        })
      }
      return Effect.fail(
        new SpotError.OutcomeUnknownError({
          description: `${reason.message}; the transfer (${what}) may have been applied: ` +
            (found.length === 0
              ? "no transfer of the venue's list matches it (yet)"
              : `${found.length} transfers of the venue's list match it`) +
            "; it was not sent again",
          candidates: found
        })
      )
    }
  })
}
