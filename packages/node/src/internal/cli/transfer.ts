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

/** Full pages in a row without a transfer not seen before, before `transfer status` decides the venue does not page. */
const STALE_PAGES = 3

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
    const query: Transfer.TransferStatusQuery = {
      withdrawId: optional(flags.id),
      coin: optional(flags.coin),
      // Whether the venue's bounds are inclusive is not known: ask a millisecond wider on each side, then keep
      // exactly --since (inclusive) to --until (exclusive).
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
    // Page by page until a page is empty or shorter than one served before; the venue pages by offset, so a transfer
    // seen twice (newer ones pushed it to the next page meanwhile) is written once. A first page shorter than asked
    // may be the venue's cap rather than the end (the docs say 200 at most; a gateway may serve fewer): page 2 is asked
    // at the size served, which places it right after page 1 whether the venue offsets by the size asked or by the
    // size it serves; one more request ends a list shorter than a page. A full page of transfers all seen before is
    // asked again once before moving on: newer transfers that pushed them down answer the same, while an answer to
    // the request before (a cache replaying it) is followed by the page owed. A venue that ignores `page` answers the
    // same full page forever: after `STALE_PAGES` full pages in a row without a transfer not seen before (the page
    // asked again included), the command fails rather than loop.
    const seen = new Set<string>()
    let stale = 0
    let largest = 0
    const records = Stream.paginate(
      { page: 1, size: flags.pageSize, again: false },
      ({ again, page, size }) =>
        Effect.flatMap(spot.transferStatus({ ...query, page, pageSize: size }), (list) => {
          const unseen = list.filter((record) => !seen.has(record.withdrawId))
          for (const record of unseen) seen.add(record.withdrawId)
          // A short page as large as any before is the first one short (every page before was full): page 1.
          const short = list.length < size
          const capped = short && list.length > 0 && list.length >= largest
          largest = Math.max(largest, list.length)
          const last = short && !capped
          const nothingNew = !last && unseen.length === 0
          stale = nothingNew ? stale + 1 : 0
          const next = nothingNew && !again
            ? { page, size, again: true }
            : { page: page + 1, size: capped ? list.length : size, again: false }
          return stale >= STALE_PAGES
            ? failure(
              `the venue answered ${STALE_PAGES} full pages without a new transfer (page ${page}); does it honour page?`
            )
            : Effect.succeed([unseen.filter(inRange), last ? Option.none<typeof next>() : Option.some(next)] as const)
        })
    )
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
        pending: `transferring: the transfer may have been made; check with ` +
          `\`${NAME} transfer status --coin ${flags.coin} --since ${since}\` before transferring again`,
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
      `${NAME} transfer --to-user 4001000000000002 --coin USDT --amount 25 --from-account SPOT --to-account FUND`,
    description: "25 USDT from your spot account to another user's funding account"
  }]),
  Command.withSubcommands([transferStatus])
)
