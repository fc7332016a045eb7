// `spotkit fills`: `export` streams the fills of a symbol (or of one order) to CSV or NDJSON, as `bills export` does.
import { Effect } from "effect"
import { Command, Flag } from "effect/cli"
import * as Records from "../records.ts"
import * as Export from "./export.ts"
import { handled, NAME, optional, symbol } from "./shared.ts"

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
  Effect.fnUntraced(function*(flags) {
    // Checked before anything is sent or a file opened, as for `bills export`.
    const range = yield* Export.checked(flags)
    const orderId = optional(flags.orderId)
    yield* Export.run(
      {
        command: "fills export",
        filters: { symbol: flags.symbol, orderId },
        shape: Records.fill,
        id: (fill) => fill.fillId,
        time: (fill) => fill.cTime,
        records: (client, { after, before }) =>
          client.fills({ symbol: flags.symbol, orderId, after, before, pageSize: flags.pageSize })
      },
      flags,
      range
    )
  }, handled)
).pipe(
  Command.withShortDescription("Streams every fill of a symbol to CSV or NDJSON"),
  Command.withDescription(
    "Streams every fill of a symbol (newest first) to CSV or NDJSON in constant memory, with --out, --resume and " +
      `progress as ${NAME} bills export. A fill's price, quantity, quote amount and fee are exact decimals`
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
