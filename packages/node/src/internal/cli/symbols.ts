// `spotkit symbols`: the venue's symbols with their trading rules (exchangeInfo), all or one.
import { Effect, Option } from "effect"
import { Command, Flag } from "effect/cli"
import * as Formats from "../formats.ts"
import * as Records from "../records.ts"
import { failure, format, json, NAME, redacted, withClient, write } from "./shared.ts"

/** `spotkit symbols`. */
export const symbols = Command.make(
  "symbols",
  {
    symbol: Flag.String("symbol").pipe(
      Flag.withDescription("Only this symbol, e.g. BTCUSDT_SPBL (exit code 1 when the venue does not list it)"),
      Flag.optional
    ),
    format: format(["table", "json"], "table, or json (an array; one object with --symbol)")
  },
  (flags) =>
    withClient((client) =>
      Effect.gen(function*() {
        if (Option.isSome(flags.symbol)) {
          const one = yield* Effect.flatMap(client.symbol(flags.symbol.value), redacted)
          if (Option.isNone(one)) return yield* failure(`the venue lists no symbol ${flags.symbol.value}`)
          return yield* write(
            flags.format === "json"
              ? json(one.value)
              : Formats.table(Records.SYMBOL_COLUMNS, [Records.symbolRow(one.value)])
          )
        }
        const all = yield* redacted(yield* client.symbols())
        yield* write(
          flags.format === "json" ? json(all) : Formats.table(Records.SYMBOL_COLUMNS, all.map(Records.symbolRow))
        )
      })
    )
).pipe(
  Command.withShortDescription("Symbols and their trading rules (tick, step, quantity limits, fees)"),
  Command.withDescription(
    "Shows the venue's symbols and their trading rules: price tick, quantity step, smallest and largest order " +
      "quantity (base coin), maker and taker fee rates, and whether it trades now. Orders are checked against them " +
      "before they are sent"
  ),
  Command.withExamples([
    { command: `${NAME} symbols`, description: "Every symbol" },
    { command: `${NAME} symbols --symbol BTCUSDT_SPBL --format json`, description: "One symbol's rules as JSON" }
  ])
)
