// `spotkit balances`: the spot account's balances, one per coin.
import { Effect } from "effect"
import { Command } from "effect/cli"
import * as Formats from "../formats.ts"
import * as Records from "../records.ts"
import { format, json, NAME, redacted, withClient, write } from "./shared.ts"

/** `spotkit balances`. */
export const balances = Command.make(
  "balances",
  { format: format(["table", "json"], "table, or json (one array)") },
  (flags) =>
    withClient((client) =>
      Effect.flatMap(
        Effect.flatMap(client.balances(), redacted),
        (list) =>
          write(
            flags.format === "json" ? json(list) : Formats.table(Records.BALANCE_COLUMNS, list.map(Records.balanceRow))
          )
      )
    )
).pipe(
  Command.withShortDescription("The spot account's balances"),
  Command.withDescription(
    "Shows the spot account's balances, one row per coin: available (free to use), frozen (held by open orders) and " +
      "equity (their sum), as exact decimals"
  ),
  Command.withExamples([
    { command: `${NAME} balances`, description: "Every coin of the spot account" },
    { command: `${NAME} balances --format json`, description: "The same as one JSON array" }
  ])
)
