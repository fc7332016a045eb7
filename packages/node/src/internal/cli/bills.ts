// `spotkit bills`: `export` streams the funding bills to CSV or NDJSON.
import { Effect, Option } from "effect"
import { Command, Flag } from "effect/cli"
import * as Records from "../records.ts"
import * as Export from "./export.ts"
import { handled, NAME, optional, usage } from "./shared.ts"

const billsExport = Command.make(
  "export",
  {
    coinId: Flag.Int("coin-id").pipe(Flag.withDescription("Only bills of this coin id"), Flag.optional),
    ...Export.rangeFlags("bills"),
    ...Export.exportFlags("Bills")
  },
  Effect.fnUntraced(function*(flags) {
    // Checked before anything is sent or a file opened: a bad flag must leave every file alone and print no data.
    const range = yield* Export.checked(flags)
    if (Option.isSome(flags.coinId) && flags.coinId.value < 0) {
      return yield* usage(`--coin-id: ${flags.coinId.value} is negative`)
    }
    const coinId = optional(flags.coinId)
    // The venue's startTime is exclusive; --since is inclusive (--since 0 is every bill, those at 0 included).
    yield* Export.run(
      {
        command: "bills export",
        filters: { coinId },
        shape: Records.bill,
        id: (bill) => bill.billId,
        time: (bill) => bill.cTime,
        records: (client, { after, before }) =>
          client.fundingBills({ coinId, startTime: after, endTime: before, pageSize: flags.pageSize }),
        // The venue says how many bills a query has (`total`): one bill's page asks it.
        total: (client, { after, before }) =>
          Effect.map(
            client.fundingBillsPage({ coinId, startTime: after, endTime: before, pageIndex: 1, pageSize: 1 }),
            (page) => page.total ?? undefined
          )
      },
      flags,
      range
    )
  }, handled)
).pipe(
  Command.withShortDescription("Streams every funding bill to CSV or NDJSON"),
  Command.withDescription(
    "Streams every funding bill (newest first) to CSV or NDJSON in constant memory. With --out FILE the rows go to " +
      "FILE.partial and are renamed onto FILE once whole; after a failure or Ctrl-C, FILE is as it was and " +
      "--resume continues from FILE.partial. A summary line ends every export on stderr"
  ),
  Command.withExamples([
    { command: `${NAME} bills export --out bills.csv`, description: "Every bill to a CSV file" },
    {
      command: `${NAME} bills export --out bills.csv --resume`,
      description: "Continue an interrupted export (the same flags, plus --resume)"
    },
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
