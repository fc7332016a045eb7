// `spotkit balances`: the spot account's balances, one per coin.
import { Effect } from "effect"
import { Command } from "effect/cli"
import * as Records from "../records.ts"
import { client, handled, listFlags, NAME, writeRecords } from "./shared.ts"

/** `spotkit balances`. */
export const balances = Command.make(
  "balances",
  listFlags(["json"], "table, csv (with a header row), or json (one array)"),
  Effect.fnUntraced(function*(flags) {
    const spot = yield* client()
    yield* writeRecords(Records.balance, yield* spot.balances(), flags)
  }, handled)
).pipe(
  Command.withShortDescription("The spot account's balances"),
  Command.withDescription(
    "Shows the spot account's balances, one row per coin: available (free to use), frozen (held by open orders) and " +
      "equity (their sum), as exact decimals"
  ),
  Command.withExamples([
    { command: `${NAME} balances`, description: "Every coin of the spot account" },
    { command: `${NAME} balances --format csv`, description: "The same as CSV" }
  ])
)
