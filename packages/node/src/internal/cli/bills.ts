// `spotkit bills`: `export` streams the funding bills to CSV or NDJSON.
import type { Bill } from "@spotkit/core"
import { Effect, Option } from "effect"
import { Command, Flag } from "effect/cli"
import * as Formats from "../formats.ts"
import * as Export from "./export.ts"
import { NAME, optional, usage } from "./shared.ts"

const billsExport = Command.make(
  "export",
  {
    coinId: Flag.Int("coin-id").pipe(Flag.withDescription("Only bills of this coin id"), Flag.optional),
    ...Export.rangeFlags("bills"),
    ...Export.exportFlags("Bills")
  },
  (flags) =>
    Effect.gen(function*() {
      // Checked before --out is opened (created or truncated) and before a header is written: a bad flag must leave
      // an earlier export in that file alone and print no data.
      const range = yield* Export.checked(flags)
      if (Option.isSome(flags.coinId) && flags.coinId.value < 0) {
        return yield* usage(`--coin-id: ${flags.coinId.value} is negative`)
      }
      // The venue's startTime is exclusive; --since is inclusive (--since 0 is every bill, those at 0 included).
      const query: Bill.BillQuery = {
        coinId: optional(flags.coinId),
        startTime: range.after,
        endTime: range.before,
        pageSize: flags.pageSize
      }
      yield* Export.run(
        { flags, csvHeader: Formats.csvHeader(), csv: Formats.billsCsv, ndjson: Formats.billsNdjson },
        (client) => client.fundingBills(query)
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
