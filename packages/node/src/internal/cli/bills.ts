// `spotkit bills`: `export` streams the funding bills to CSV or NDJSON.
import type { Bill } from "@spotkit/core"
import { Effect, Option, Stream } from "effect"
import { Command, Flag } from "effect/cli"
import * as Formats from "../formats.ts"
import * as Output from "../output.ts"
import * as Progress from "../progress.ts"
import { parseTime } from "../time.ts"
import { format, NAME, optional, usage, withClient } from "./shared.ts"

// The credentials removed from a page of bills before it is formatted (CSV quoting would hide one from a scrubber of
// the text). The texts of a page are searched at once, so that a page without any costs one search, not one per field.
const redactPage = (bills: ReadonlyArray<Bill.Bill>, redact: (text: string) => string): ReadonlyArray<Bill.Bill> => {
  let probe = ""
  for (const b of bills) {
    probe += b.billId + "\u0000" + b.coinName + "\u0000" + b.bizType + "\u0000" + b.deltaAmount + "\u0000" +
      b.afterAmount + "\u0000" + b.fees + "\u0000"
  }
  return redact(probe) === probe ? bills : bills.map((bill) => Output.redactStrings(bill, redact))
}

const time = (name: string, description: string) =>
  Flag.String(name).pipe(Flag.withDescription(description), Flag.withMetavar("TIME"), Flag.optional)

const billsExport = Command.make(
  "export",
  {
    coinId: Flag.Int("coin-id").pipe(Flag.withDescription("Only bills of this coin id"), Flag.optional),
    since: time("since", "Only bills at or after this time: a millisecond epoch or ISO-8601 (2024-05-01T00:00:00Z)"),
    until: time("until", "Only bills before this time (exclusive): a millisecond epoch or ISO-8601"),
    format: format(["csv", "ndjson"], "csv (with a header row) or ndjson (one JSON object per line)"),
    out: Flag.String("out").pipe(
      Flag.withDescription("Write to this file (created or truncated) instead of stdout"),
      Flag.withMetavar("FILE"),
      Flag.optional
    ),
    progress: Flag.Boolean("progress").pipe(
      Flag.withDescription("Report progress on stderr even when it is not a terminal"),
      Flag.withDefault(false)
    ),
    pageSize: Flag.Int("page-size").pipe(
      Flag.withDescription("Bills per request, 1..100"),
      Flag.withDefault(100)
    )
  },
  (flags) =>
    Effect.gen(function*() {
      const since = Option.map(flags.since, parseTime)
      const until = Option.map(flags.until, parseTime)
      for (const [name, parsed] of [["--since", since], ["--until", until]] as const) {
        if (Option.isSome(parsed) && "error" in parsed.value) return yield* usage(`${name}: ${parsed.value.error}`)
      }
      const millis = (parsed: typeof since) =>
        Option.isSome(parsed) && "millis" in parsed.value ? parsed.value.millis : undefined
      const sinceMillis = millis(since)
      const untilMillis = millis(until)
      // Checked before --out is opened (created or truncated) and before a header is written: a bad flag must leave
      // an earlier export in that file alone and print no data.
      if (sinceMillis !== undefined && untilMillis !== undefined && untilMillis < sinceMillis) {
        return yield* usage(`--until (${untilMillis}) is before --since (${sinceMillis})`)
      }
      if (flags.pageSize < 1 || flags.pageSize > 100) {
        return yield* usage(`--page-size: ${flags.pageSize} is not from 1 to 100`)
      }
      if (Option.isSome(flags.coinId) && flags.coinId.value < 0) {
        return yield* usage(`--coin-id: ${flags.coinId.value} is negative`)
      }
      const query: Bill.BillQuery = {
        coinId: optional(flags.coinId),
        // The venue's startTime is exclusive; --since is inclusive (--since 0 is every bill, those at 0 included).
        startTime: sinceMillis === undefined || sinceMillis === 0 ? undefined : sinceMillis - 1,
        endTime: untilMillis,
        pageSize: flags.pageSize
      }
      yield* withClient((client) =>
        Effect.scoped(Effect.gen(function*() {
          // Inside the client's scope: its channels remove the credentials from what they write.
          const { stderr, stdout } = yield* Output.Output
          const redact = yield* Output.Redact
          const file = Option.isSome(flags.out) ? yield* Output.openFile(flags.out.value) : undefined
          const out = file ?? stdout
          const target = Option.isSome(flags.out) ? ` to ${flags.out.value}` : ""
          const progress = yield* Progress.make(stderr, {
            forced: flags.progress,
            dataOnTerminal: file === undefined && stdout.isTTY
          })
          const csv = flags.format === "csv"
          if (csv) yield* out.write(Formats.csvHeader())
          let rows = 0
          let pages = 0
          yield* client.fundingBills(query).pipe(
            // Read-ahead: while this page is formatted and written, the next one waits in a buffer of one page and the
            // request for the one after (it needs only the last bill of the page before) is in flight, so neither side
            // of the connection waits for the other; at most two pages ahead.
            Stream.bufferArray({ capacity: 1 }),
            // Each array is one page of the venue's answer: written as one piece, so the output only ever holds
            // whole rows.
            Stream.runForEachArray((page) => {
              const bills = redactPage(page, redact)
              rows += bills.length
              pages++
              return out.write(csv ? Formats.billsCsv(bills) : Formats.billsNdjson(bills)).pipe(
                Effect.andThen(progress.update(rows, pages))
              )
            }),
            Effect.onInterrupt(() =>
              progress.note(`${NAME}: interrupted after ${rows} rows${target}; every row written is complete\n`).pipe(
                Effect.ignore
              )
            )
          )
          // A file's last writes are still buffered: only once it is closed is the export known to be complete.
          if (file !== undefined) yield* file.close
          yield* progress.finish("exported", rows, pages, target)
        }))
      )
    })
).pipe(
  Command.withDescription(
    "Streams every funding bill (newest first) to CSV or NDJSON in constant memory; Ctrl-C keeps whole rows"
  ),
  Command.withExamples([
    { command: `${NAME} bills export --out bills.csv`, description: "Every bill to a CSV file" },
    {
      command: `${NAME} bills export --coin-id 2 --since 2024-05-01 --until 2024-06-01 --format ndjson`,
      description: "May 2024's USDT bills as NDJSON on stdout"
    }
  ])
)

/** `spotkit bills`. */
export const bills = Command.make("bills").pipe(
  Command.withDescription("Funding-account bills"),
  Command.withSubcommands([billsExport])
)
