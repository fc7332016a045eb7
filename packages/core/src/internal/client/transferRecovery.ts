// Recovery of a transfer whose answer was lost. A transfer carries no idempotency key, so it is never sent again
// blindly; instead the venue's transfer list is searched for it: transfers created in the window of the call (on the
// venue's clock as the lookup's own answer gives it, widened by the venue's timestamp window, within which its clock
// and the one the call was signed with agree), of the same coin, receiver and amount, and
// not among the transfers this client already knows (its earlier transfers, and earlier recoveries). Exactly one
// match is the transfer, unless another transfer of this client of the same coin, receiver and amount is unsettled
// (still in flight, or ended with its outcome unknown) in that window: the match may be that one's. Otherwise, none or
// several leave the outcome unknown, and the error carries the candidates.
import { Effect, Stream } from "effect"
import * as SpotError from "../../SpotError.ts"
import type {
  InternalTransfer,
  TransferRecord,
  TransferResult,
  TransferStatusQuery,
  TransferStatusResponse
} from "../../Transfer.ts"
import * as Decimal from "../model/decimal.ts"
import * as Paging from "./paging.ts"
import { Recent } from "./recent.ts"
import * as Recovery from "./recovery.ts"
import type * as Retry from "./retry.ts"
import type { Moment, Span } from "./serverClock.ts"
import * as Telemetry from "./telemetry.ts"

/** Ids of the transfers a client knows, the most recent `capacity` of them. */
export class Known extends Recent {}

/** A transfer of this client whose outcome no id settles: in flight (`end` undefined), or ended unknown. */
export interface Entry {
  readonly kind: string
  /**
   * When it started and ended, on the client's monotonic clock (ms): the entries are compared with each other only,
   * an estimate of the venue's clock may move between two calls (the first one of a client is made before the venue's
   * time is asked), and a step of the wall clock must not move them.
   */
  readonly start: number
  end: number | undefined
}

/**
 * The transfers of a client whose outcome no id settles, the most recent `capacity` of them: the one match of a lost
 * transfer may be one of theirs. One that ended unknown is kept as long as its record could fall in the window of a
 * later call.
 */
export class Unsettled {
  private readonly entries = new Set<Entry>()
  private readonly capacity: number
  constructor(capacity = 10_000) {
    this.capacity = capacity
  }
  /**
   * A transfer starts at `start`. One that ended unknown goes once no call in flight (started at the earliest of their
   * starts) or to come can meet its records.
   */
  begin(transfer: InternalTransfer, start: number): Entry {
    let earliest = start
    for (const entry of this.entries) {
      if (entry.end === undefined && entry.start < earliest) earliest = entry.start
    }
    for (const entry of this.entries) {
      if (entry.end !== undefined && entry.end < earliest - 2 * MARGIN_MILLIS) this.entries.delete(entry)
    }
    if (this.entries.size >= this.capacity) this.entries.delete(this.entries.values().next().value!)
    const entry: Entry = { kind: kindOf(transfer), start, end: undefined }
    this.entries.add(entry)
    return entry
  }
  /** Its outcome is known: done with an id, or refused. */
  settle(entry: Entry): void {
    this.entries.delete(entry)
  }
  /** It ended at `end` with its outcome unknown. */
  unknown(entry: Entry, end: number): void {
    entry.end = end
  }
  /** Whether another unsettled transfer of the same kind as `entry` may have a record in `window` (widened). */
  contests(entry: Entry, window: { readonly start: number; readonly end: number }): boolean {
    for (const other of this.entries) {
      if (
        other !== entry && other.kind === entry.kind && other.start - MARGIN_MILLIS <= window.end &&
        (other.end === undefined || other.end + MARGIN_MILLIS >= window.start)
      ) return true
    }
    return false
  }
}

// Transfers the lookup cannot tell apart: the same coin, receiver and amount.
const kindOf = (transfer: InternalTransfer): string =>
  `${transfer.coin} ${transfer.toUserId} ${Decimal.normalize(transfer.amount)}`

/** One page of the transfer list (`transferStatus`), retried. */
export type Lookup = (
  query: typeof TransferStatusQuery.Type
) => Effect.Effect<TransferStatusResponse, SpotError.SpotErrorReason>

/**
 * Transfers read at most: a window of a minute or two holds far fewer transfers of one user (five pages of the
 * venue's most, 200).
 */
const MAX_RECORDS = 1_000

/**
 * How far (ms) the venue's record of the transfer may be from the call's own window on the client's clock: the margin
 * of order recovery (`recovery.ts`), for the same reason.
 */
export const MARGIN_MILLIS = Recovery.MARGIN_MILLIS

/**
 * The transfers of the window that could be this one, read as `SpotClient.transfers` reads the list (`Paging`), except
 * that a page shorter than asked is the last: taking it for a possible cap would cost every recovery that finds its
 * transfer a second lookup of weight 100 (a fifth of the UID budget's 500 per 10 s, when the connection is already in
 * trouble), and a venue capping its pages below the transfers of one user in a window of a few seconds is not
 * plausible. On such a venue the lookup may stop short: the call ends with `OutcomeUnknownError`, never a second
 * transfer.
 */
const candidates = (
  lookup: Lookup,
  transfer: InternalTransfer,
  window: { readonly start: number; readonly end: number },
  known: Known
): Effect.Effect<ReadonlyArray<TransferRecord>, SpotError.SpotErrorReason> =>
  Paging.transfers(lookup, {
    coin: transfer.coin,
    startTime: window.start,
    endTime: window.end,
    fromAccountType: transfer.fromAccountType,
    toAccountType: transfer.toAccountType,
    pageSize: 200
  }, false).pipe(
    Stream.take(MAX_RECORDS),
    // The venue's filters are not relied upon: every criterion is checked here again.
    Stream.filter((record) =>
      record.toUserId === transfer.toUserId && record.coin === transfer.coin &&
      Decimal.equal(record.amount, transfer.amount) && record.createTime >= window.start &&
      record.createTime <= window.end && !known.has(record.withdrawId)
    ),
    Stream.runCollect
  )

/** What the recovery of a failed transfer is given. */
export interface Recovering {
  /** The call's start and end on the client's clocks, before widening. */
  readonly window: { readonly start: Moment; readonly end: Moment }
  /** Where a local moment lies on the venue's clock, by the current estimates (`ServerClock.venueSpan`). */
  readonly venueSpan: (at: Moment) => Effect.Effect<Span>
  /** The transfers the client knows. */
  readonly known: Known
  readonly failure: Retry.Failure
  readonly unsettled: Unsettled
  /** The call's entry among the `unsettled`. */
  readonly entry: Entry
}

/**
 * The call's window on the venue's clock, widened by the margin: `wide` holds the transfer wherever the call's start
 * and end lie in their spans (a step of the machine's clock, or a suspended machine, during the call makes a span
 * more than a point: `ServerClock.venueSpan`); `narrow` holds only what lies in the call's window however they lie.
 */
const windows = (
  window: Recovering["window"],
  venueSpan: Recovering["venueSpan"]
): Effect.Effect<{ readonly wide: Window; readonly narrow: Window }> =>
  Effect.flatMap(venueSpan(window.start), (start) =>
    Effect.map(venueSpan(window.end), (end) => ({
      wide: { start: Math.floor(start.early - MARGIN_MILLIS), end: Math.ceil(end.late + MARGIN_MILLIS) },
      narrow: { start: Math.floor(start.late - MARGIN_MILLIS), end: Math.ceil(end.early + MARGIN_MILLIS) }
    })))

interface Window {
  readonly start: number
  readonly end: number
}

const within = (record: TransferRecord, window: Window): boolean =>
  record.createTime >= window.start && record.createTime <= window.end

/**
 * What a failed transfer answers: its reason when the venue provably did not apply it; otherwise the transfer found
 * by the lookup (when no other unsettled transfer of the client contests it), or `OutcomeUnknownError` with the
 * candidates.
 *
 * The list is asked for the call's window on the venue's clock as estimated before the lookup, and its records are
 * checked against that window as the lookup's answer gives it: every attempt of the call may have been lost, leaving
 * an estimate the venue never confirmed (the first transfer of a client starts before the venue's time is asked), and
 * a window on it may hold another program's earlier transfer. A record outside either is not taken.
 */
export const recover = (
  lookup: Lookup,
  transfer: InternalTransfer,
  { entry, failure, known, unsettled, venueSpan, window }: Recovering
): Effect.Effect<TransferResult, SpotError.SpotErrorReason> => {
  const reason = failure.reason
  if (!failure.mayHaveApplied) return Effect.fail(reason)
  const what = `${transfer.amount} ${transfer.coin} to ${transfer.toUserId}`
  const listed = Effect.flatMap(windows(window, venueSpan), ({ wide }) => candidates(lookup, transfer, wide, known))
  // The records in the window again, on the estimates the lookup's answer taught.
  const confirmed = Effect.flatMap(listed, (records) =>
    Effect.map(windows(window, venueSpan), ({ narrow, wide }) => ({
      records: records.filter((record) => within(record, wide)),
      narrow
    })))
  return Effect.matchEffect(confirmed, {
    onFailure: (lookupReason) =>
      Effect.fail(
        new SpotError.OutcomeUnknownError({
          description: `${reason.message}; the transfer (${what}) may have been applied and could not be looked up` +
            ` (${lookupReason.message}); it was not sent again`
        })
      ),
    onSuccess: ({ narrow, records }) => {
      // Transfers settled while the list was read are known now.
      const found = records.filter((record) => !known.has(record.withdrawId))
      // The client's own calls, compared on the monotonic clock: the call's window widened as the search's is.
      const contested = unsettled.contests(entry, {
        start: window.start.mono - MARGIN_MILLIS,
        end: window.end.mono + MARGIN_MILLIS
      })
      // The one match is taken only when it lies in the call's window however a step of the clock put it.
      const sure = found.length === 1 && within(found[0]!, narrow)
      if (sure && !contested) {
        const record = found[0]!
        known.add(record.withdrawId)
        return Effect.as(Telemetry.recovered("found"), {
          id: record.withdrawId,
          timestamp: record.createTime,
          status: record.status
        })
      }
      return Effect.andThen(
        Telemetry.recovered(found.length === 0 ? "not_found" : "unsure"),
        Effect.fail(
          new SpotError.OutcomeUnknownError({
            description: `${reason.message}; the transfer (${what}) may have been applied: ` +
              (found.length === 0
                ? "no transfer of the venue's list matches it (yet)"
                : found.length === 1 && !sure
                ? "one transfer of the venue's list matches it, created about when the call started, but the machine's" +
                  " clock stepped (or it was suspended) during the call: whether it is this transfer cannot be told"
                : found.length === 1
                ? "one transfer of the venue's list matches it, but it may be another transfer of this client of the" +
                  " same coin, receiver and amount whose outcome is not known"
                : `${found.length} transfers of the venue's list match it`) +
              "; it was not sent again",
            candidates: found
          })
        )
      )
    }
  })
}
