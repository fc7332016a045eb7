// `spotkit symbols`: the venue's symbols with their trading rules (exchangeInfo), all or one. Public data: only
// SPOTKIT_BASE_URL is needed.
import type { Market } from "@spotkit/core"
import { Effect, Option } from "effect"
import { Command, Flag } from "effect/cli"
import * as Records from "../records.ts"
import { client, failure, handled, json, listFlags, NAME, redacted, write, writeRecords } from "./shared.ts"

/** `spotkit symbols`. */
export const symbols = Command.make(
  "symbols",
  {
    symbol: Flag.String("symbol").pipe(
      Flag.withDescription("Only this symbol, e.g. BTCUSDT_SPBL (exit code 1 when the venue does not list it)"),
      Flag.optional
    ),
    ...listFlags(["json"], "table, csv (with a header row), or json (an array; one object with --symbol)")
  },
  Effect.fnUntraced(function*(flags) {
    // The entries of the venue's list the client could not read (left out of what it answers; the log warns of them).
    let unreadable: ReadonlyArray<Market.UnreadableSymbol> = []
    const spot = yield* client("public", {
      onEvent: (event) =>
        Effect.sync(() => {
          if (event._tag === "UnreadableSymbols") unreadable = event.entries
        })
    })
    if (Option.isNone(flags.symbol)) return yield* writeRecords(Records.symbol, yield* spot.symbols(), flags)
    const name = flags.symbol.value
    const one = yield* spot.symbol(name)
    if (Option.isNone(one)) {
      const entry = unreadable.find((entry) => entry.symbol === name)
      return yield* failure(
        entry === undefined
          ? `the venue lists no symbol ${name}`
          : `the venue lists ${name}, but its rules could not be read (${entry.issue}); orders on it are sent unchecked`
      )
    }
    if (flags.format === "json") return yield* write(json(yield* redacted(one.value)))
    yield* writeRecords(Records.symbol, [one.value], flags)
  }, handled)
).pipe(
  Command.withShortDescription("Symbols and their trading rules (tick, step, quantity limits, fees)"),
  Command.withDescription(
    "Shows the venue's symbols and their trading rules: price tick, quantity step, smallest and largest order " +
      "quantity (base coin), maker and taker fee rates, and whether it trades now. Orders are checked against them " +
      "before they are sent. Public data: only SPOTKIT_BASE_URL is needed, no key"
  ),
  Command.withExamples([
    { command: `${NAME} symbols`, description: "Every symbol" },
    { command: `${NAME} symbols --symbol BTCUSDT_SPBL --format json`, description: "One symbol's rules as JSON" }
  ])
)
