// `spotkit transfer`: a coin to another user's account; `transfer status`: the transfers made, with their status.
import { Transfer } from "@spotkit/core"
import { Effect, Option, Stream } from "effect"
import { Command, Flag } from "effect/cli"
import * as Formats from "../formats.ts"
import * as Records from "../records.ts"
import * as Export from "./export.ts"
import {
  client,
  failure,
  handled,
  listFlags,
  NAME,
  optional,
  redacted,
  resultFormat,
  sending,
  sendWatch,
  sinceNow,
  write,
  writeRecords,
  writeResult
} from "./shared.ts"

const accountType = (name: string, description: string) =>
  Flag.Literals(name, Transfer.AccountType.literals).pipe(Flag.withDescription(description))

const PAGE_MAX = 200

const transferStatus = Command.make(
  "status",
  {
    id: Flag.String("id").pipe(
      Flag.withDescription("Only the transfer with this id (the id `transfer` printed); exit code 1 when none"),
      Flag.withMetavar("ID"),
      Flag.optional
    ),
    coin: Flag.Literals("coin", Transfer.Coin.literals).pipe(Flag.withDescription("Only this coin"), Flag.optional),
    ...Export.rangeFlags("transfers made"),
    fromAccount: accountType("from-account", "Only transfers from this account: SPOT, SPOT_V2 or FUND").pipe(
      Flag.optional
    ),
    toAccount: accountType("to-account", "Only transfers to this account: SPOT, SPOT_V2 or FUND").pipe(Flag.optional),
    ...listFlags(["json", "ndjson"], "table, csv (with a header row), json (one array) or ndjson (one per line)"),
    pageSize: Export.pageSizeFlag("Transfers", PAGE_MAX)
  },
  Effect.fnUntraced(function*(flags) {
    const range = yield* Export.checked(flags, PAGE_MAX)
    const filter: Transfer.TransferFilter = {
      withdrawId: optional(flags.id),
      coin: optional(flags.coin),
      // Whether the venue's bounds are inclusive is not known: ask from a millisecond before --since (an exclusive
      // start still holds it) to --until (an inclusive end holds it too, dropped), then keep exactly --since
      // (inclusive) to --until (exclusive).
      startTime: range.after,
      endTime: range.before,
      fromAccountType: optional(flags.fromAccount),
      toAccountType: optional(flags.toAccount),
      pageSize: flags.pageSize
    }
    const inRange = (record: Transfer.TransferRecord) =>
      (range.since === undefined || record.createTime >= range.since) &&
      (range.until === undefined || record.createTime < range.until)
    const spot = yield* client()
    // Every page, each transfer once (`SpotClient.transfers`: a venue serving fewer than asked a page, replaying an
    // answer or ignoring `page` loses nothing and loops not).
    const records = Stream.filter(spot.transfers(filter), inRange)
    if (flags.format === "ndjson" && Option.isNone(flags.id)) {
      return yield* Stream.runForEachArray(
        records,
        (page) => Effect.flatMap(redacted(page), (clean) => write(Formats.ndjson(clean)))
      )
    }
    const all = yield* Stream.runCollect(records)
    if (Option.isSome(flags.id) && all.length === 0) {
      return yield* failure(
        `no transfer with id ${flags.id.value}${
          Option.isSome(flags.since) || Option.isSome(flags.until) || Option.isSome(flags.coin)
            ? " matching the filters"
            : ""
        }`
      )
    }
    yield* writeRecords(Records.transfer, all, flags)
  }, handled)
).pipe(
  Command.withShortDescription("Your transfers and their status"),
  Command.withDescription(
    "Lists your internal transfers, newest first, with their status (SUCCESS, FAILED, PROGRESSING): one by its id, " +
      "or all matching the filters (the venue keeps about a month)"
  ),
  Command.withExamples([
    { command: `${NAME} transfer status --id 1234567890`, description: "One transfer's status" },
    {
      command: `${NAME} transfer status --coin USDT --since 2024-05-01 --format ndjson`,
      description: "The USDT transfers since 1 May 2024 (UTC), one JSON object per line"
    }
  ])
)

/** `spotkit transfer` (and `transfer status`). */
export const transfer = Command.make(
  "transfer",
  {
    toUser: Flag.String("to-user").pipe(Flag.withDescription("The receiving user's id"), Flag.withMetavar("ID")),
    coin: Flag.Literals("coin", Transfer.Coin.literals).pipe(Flag.withDescription("The coin: USDT or BTC")),
    amount: Flag.String("amount").pipe(Flag.withDescription("The amount, up to 6 decimal places")),
    fromAccount: accountType("from-account", "The account it leaves: SPOT, SPOT_V2 or FUND"),
    toAccount: accountType("to-account", "The account it reaches: SPOT, SPOT_V2 or FUND"),
    format: resultFormat
  },
  Effect.fnUntraced(function*(flags) {
    const watch = sendWatch()
    const spot = yield* client("private", { transformClient: watch.transformClient })
    const since = yield* sinceNow
    yield* sending(
      spot.internalTransfer({
        toUserId: flags.toUser,
        coin: flags.coin,
        amount: flags.amount,
        fromAccountType: flags.fromAccount,
        toAccountType: flags.toAccount
      }),
      {
        doing: "transferring",
        // A transfer has no idempotency key: sent again, it is a second transfer.
        unknown: `the transfer may have been made; check with ` +
          `\`${NAME} transfer status --coin ${flags.coin} --since ${since}\` and do not send it again before ` +
          "you know: sent again, it is a second transfer",
        unsent: { watch, line: "the transfer was sent: nothing was transferred" },
        answered: (r) => `writing the result: the transfer was made (id ${r.id})`
      },
      (result) => writeResult(flags.format, result, (r) => `transferred ${r.id}`)
    )
  }, handled)
).pipe(
  Command.withDescription("Transfers a coin to another user's account; `transfer status` lists the transfers made"),
  Command.withExamples([{
    command:
      `${NAME} transfer --to-user 4001000000000000002 --coin USDT --amount 25 --from-account SPOT --to-account FUND`,
    description: "25 USDT from your spot account to another user's funding account"
  }]),
  Command.withSubcommands([transferStatus])
)
