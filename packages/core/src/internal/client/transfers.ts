// The client's operations on transfers: an internal transfer (recovered by a lookup when its answer is lost, never
// sent again blindly) and the venue's list of transfers with their status.
import { Clock, Effect, Exit, Option, Stream } from "effect"
import type * as SpotError from "../../SpotError.ts"
import * as Transfer from "../../Transfer.ts"
import * as Venue from "../../Venue.ts"
import { attempt, type Context, fail, send, validate } from "./call.ts"
import * as Paging from "./paging.ts"
import { momentOf } from "./serverClock.ts"
import * as TransferRecovery from "./transferRecovery.ts"
import * as Validate from "./validate.ts"

const { internalTransfer: transferEndpoint, transferStatus: statusEndpoint } = Venue.endpoints

const validateFilter = Validate.input(Transfer.TransferFilter)

/** The operations on transfers of one client. */
export const make = (context: Context) => {
  const { pipeline, retrying } = context
  // The transfers this client made or recovered, which a recovery must not take for a lost one; and those whose
  // outcome is not settled yet (in flight, or ended unknown), whose record a recovery cannot tell from its own.
  const known = new TransferRecovery.Known()
  const unsettled = new TransferRecovery.Unsettled()

  const statusOf = (query: Venue.RequestOf<typeof statusEndpoint>) => send(context, statusEndpoint, query)

  const transferStatus = Effect.fnUntraced(
    function*(query: Transfer.TransferStatusQuery = {}) {
      const valid = yield* validate(statusEndpoint, query)
      return (yield* statusOf(valid)).list ?? []
    },
    Effect.mapError(fail("transferStatus")),
    context.traced("SpotClient.transferStatus")
  )

  const transfers = (filter: Transfer.TransferFilter = {}) =>
    Stream.unwrap(Effect.map(validateFilter(filter), (valid) => Paging.transfers(statusOf, valid))).pipe(
      Stream.mapError(fail("transfers")),
      Stream.withSpan("SpotClient.transfers")
    )

  const internalTransfer = Effect.fnUntraced(
    function*(input: Transfer.InternalTransferInput) {
      const transfer = yield* validate(transferEndpoint, input)
      yield* Effect.annotateCurrentSpan({ coin: transfer.coin, toUserId: transfer.toUserId })
      // The call's times are on the client's clocks: the unsettled compares the client's own calls on the monotonic
      // one, and the window a lost transfer is searched in is put on the venue's clock when it is searched, through
      // the monotonic clock too (transferRecovery.ts): a step of the wall clock during the call moves neither.
      const moment = Clock.clockWith((clock) => Effect.succeed(momentOf(clock)))
      const start = yield* moment
      // Whether an attempt of the call may have been applied: one handed to the transport and not refused in a way that
      // proves it was not (a 429, a refusal). A transfer is retried only after such a refusal, so the latest attempt
      // tells: until one is handed, or after its refusal, the venue holds no transfer of this call.
      let mayBeApplied = false
      const hand = () => {
        mayBeApplied = true
      }
      const refused = (reason: SpotError.SpotErrorReason) =>
        Effect.sync(() => {
          mayBeApplied = Venue.mayHaveApplied(reason)
        })
      // The call's entry among the unsettled is made and ended as a resource: no interruption can leave it in flight.
      return yield* Effect.acquireUseRelease(
        Effect.sync(() => unsettled.begin(transfer, start.mono)),
        (entry) =>
          retrying(
            transferEndpoint,
            attempt(pipeline, transferEndpoint, transfer, hand).pipe(
              Effect.tapError(refused),
              Effect.map((answer): Transfer.TransferResult => ({
                id: answer.id,
                timestamp: answer.timestamp ?? undefined
              }))
            )
          ).pipe(
            Effect.tap((result) => Effect.sync(() => known.add(result.id))),
            Effect.catch((failure) =>
              Effect.flatMap(moment, (end) =>
                TransferRecovery.recover(statusOf, transfer, {
                  window: { start, end },
                  venueSpan: pipeline.venueSpan,
                  known,
                  failure,
                  unsettled,
                  entry
                }))
            )
          ),
        // Settled by an id or a refusal, or when no attempt may have been applied (interrupted while it waited for a
        // permit, the venue's time or a retry after a 429: it contests no later transfer); unknown when the outcome is,
        // or when the caller stopped waiting for an attempt that may have been applied.
        (entry, exit) => {
          const error = Exit.findErrorOption(exit)
          return !mayBeApplied || Exit.isSuccess(exit) ||
              (Option.isSome(error) && error.value._tag !== "OutcomeUnknownError")
            ? Effect.sync(() => unsettled.settle(entry))
            : Effect.map(moment, (end) => unsettled.unknown(entry, end.mono))
        }
      )
    },
    Effect.mapError(fail("internalTransfer")),
    context.traced("SpotClient.internalTransfer")
  )

  return { internalTransfer, transfers, transferStatus }
}
