// The symbols a push stream may name: a trading pair's form, and (for the private streams, which share one session)
// one the venue lists.
import { Effect } from "effect"
import type { SpotClient } from "../../SpotClient.ts"
import * as SpotError from "../../SpotError.ts"
import { TRADING_PAIR } from "../model/patterns.ts"

export const invalid = (field: string, description: string) =>
  Effect.fail(new SpotError.ValidationError({ field, description }))

export const checkSymbols = (
  symbols: Iterable<string>
): Effect.Effect<ReadonlyArray<string>, SpotError.ValidationError> => {
  const list = Array.from(symbols)
  const bad = list.find((symbol) => !TRADING_PAIR.test(symbol))
  return bad === undefined
    ? Effect.succeed(list)
    : invalid("symbol", `${JSON.stringify(bad)} is no trading pair such as "BTCUSDT_SPBL"`)
}

// A symbol the venue does not list fails the stream that names it: in the session every private stream shares, its
// REST backfill would be refused for good and end them all. The venue's list is the client's cached symbol rules;
// when it cannot be read, the symbols go on unchecked (REST's refusal then fails the stream that named it, alone).
export const listedSymbols = (
  client: SpotClient["Service"],
  symbols: ReadonlyArray<string>
): Effect.Effect<void, SpotError.ValidationError> =>
  Effect.forEach(
    symbols,
    (symbol) =>
      Effect.flatMap(Effect.result(client.symbol(symbol)), (found) =>
        found._tag === "Success" && found.success._tag === "None"
          ? invalid("symbol", `${JSON.stringify(symbol)} is not a symbol the venue lists`)
          : Effect.void),
    { discard: true }
  )
