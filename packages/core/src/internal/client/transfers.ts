// The client's operations on transfers: an internal transfer (recovered by a lookup when its answer is lost, never
// sent again blindly) and the venue's list of transfers with their status.
import { Clock, Effect, Schema } from "effect"
import * as Json from "../../Json.ts"
import * as Transfer from "../../Transfer.ts"
import * as Venue from "../../Venue.ts"
import { attempt, call, type Context, fail, queryString, traced } from "./operation.ts"
import * as TransferRecovery from "./transferRecovery.ts"
import * as validate from "./validate.ts"

const validateTransfer = validate.input(Transfer.InternalTransfer)
const validateStatusQuery = validate.input(Transfer.TransferStatusQuery)
const decodeTransferSuccess = Schema.decodeUnknownEffect(Transfer.TransferSuccess)
const decodeStatus = Schema.decodeUnknownEffect(Transfer.TransferStatusResponse)

// The status query on the wire: the venue spells the id `withdrawID`.
const statusQuery = (query: typeof Transfer.TransferStatusQuery.Type) =>
  queryString({
    withdrawID: query.withdrawId,
    coin: query.coin,
    startTime: query.startTime,
    endTime: query.endTime,
    fromAccountType: query.fromAccountType,
    toAccountType: query.toAccountType,
    page: query.page,
    pageSize: query.pageSize
  })

/** The operations on transfers of one client. */
export const make = (context: Context) => {
  const { pipeline, retrying } = context
  const endpoints = Venue.endpoints
  // The transfers this client made or recovered, which a recovery must not take for a lost one.
  const known = new TransferRecovery.Known()

  const statusOf = (query: typeof Transfer.TransferStatusQuery.Type) =>
    call(context, endpoints.transferStatus, statusQuery(query), decodeStatus)

  const transferStatus = Effect.fnUntraced(
    function*(query: Transfer.TransferStatusQuery = {}) {
      const valid = yield* validateStatusQuery(query)
      return (yield* statusOf(valid)).list ?? []
    },
    Effect.mapError(fail("transferStatus")),
    traced("SpotClient.transferStatus")
  )

  // The time on the server's clock, as the client estimates it.
  const serverNow = Effect.zipWith(Clock.currentTimeMillis, pipeline.clockOffset, (now, offset) => now + offset)

  const internalTransfer = Effect.fnUntraced(
    function*(input: Transfer.InternalTransferInput) {
      const transfer = yield* validateTransfer(input)
      yield* Effect.annotateCurrentSpan({ coin: transfer.coin, toUserId: transfer.toUserId })
      const payload = Json.stringify({
        toUserId: Json.rawNumber(transfer.toUserId),
        coin: transfer.coin,
        amount: transfer.amount,
        fromAccountType: transfer.fromAccountType,
        toAccountType: transfer.toAccountType
      })
      const start = yield* serverNow
      return yield* retrying(
        endpoints.internalTransfer,
        attempt(pipeline, endpoints.internalTransfer, payload, decodeTransferSuccess).pipe(
          Effect.map((answer): Transfer.TransferResult => ({ id: answer.id, timestamp: answer.timestamp ?? undefined }))
        )
      ).pipe(
        Effect.tap((result) => Effect.sync(() => known.add(result.id))),
        Effect.catch((failure) =>
          Effect.flatMap(serverNow, (end) =>
            TransferRecovery.recover(
              (query) => statusOf(query as typeof Transfer.TransferStatusQuery.Type),
              transfer,
              { start, end },
              known,
              failure
            ))
        )
      )
    },
    Effect.mapError(fail("internalTransfer")),
    traced("SpotClient.internalTransfer")
  )

  return { internalTransfer, transferStatus }
}
