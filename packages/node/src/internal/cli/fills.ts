// `spotkit fills`: `export` streams the fills of a symbol (or of one order) to CSV or NDJSON, as `bills export` does.
import { Effect } from "effect"
import { Command, Flag } from "effect/cli"
import * as Formats from "../formats.ts"
import * as Records from "../records.ts"
import * as Export from "./export.ts"
import { NAME, optional, symbol } from "./shared.ts"

const fillsExport = Command.make(
  "export",
  {
    symbol,
    orderId: Flag.String("order-id").pipe(
      Flag.withDescription("Only the fills of this order"),
      Flag.withMetavar("ID"),
      Flag.optional
    ),
    ...Export.rangeFlags("fills"),
    ...Export.exportFlags("Fills")
  },
  (flags) =>
    Effect.gen(function*() {
      // Checked before --out is opened and before a header is written, as for `bills export`.
      const range = yield* Export.checked(flags)
      yield* Export.run(
        { flags, csvHeader: Records.fillsCsvHeader(), csv: Records.fillsCsv, ndjson: Formats.ndjson },
        (client) =>
          client.fills({
            symbol: flags.symbol,
            orderId: optional(flags.orderId),
            after: range.after,
            before: range.before,
            pageSize: flags.pageSize
          })
      )
    })
).pipe(
  Command.withShortDescription("Streams every fill of a symbol to CSV or NDJSON"),
  Command.withDescription(
    "Streams every fill of a symbol (newest first) to CSV or NDJSON in constant memory, with progress as " +
      `${NAME} bills export; Ctrl-C keeps whole rows. A fill's price, quantity, quote amount and fee are exact decimals`
  ),
  Command.withExamples([
    { command: `${NAME} fills export --symbol BTCUSDT_SPBL --out fills.csv`, description: "Every fill to a CSV file" },
    {
      command: `${NAME} fills export --symbol BTCUSDT_SPBL --order-id 602882076026339770 --format ndjson`,
      description: "One order's fills as NDJSON on stdout"
    }
  ])
)

/** `spotkit fills`. */
export const fills = Command.make("fills").pipe(
  Command.withDescription("Fills of your orders"),
  Command.withSubcommands([fillsExport])
)
