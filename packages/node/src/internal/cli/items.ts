// What the commands over a file of items share (`orders batch --file`, `orders cancel --file`): reading the items (a
// JSON array, or one item a line) and reporting one outcome per item — the outcomes on stdout, a summary on stderr,
// and exit code 1 when any item failed, also when stdout's reader went away (the items were acted on all the same).
import { Json } from "@spotkit/core"
import { Effect, Result } from "effect"
import { CliFailure, note, readFlagFile, usage, write } from "./shared.ts"

/**
 * Items from a file: a JSON array, or one item a line (blank lines skipped): a JSON value, or with `bare` any other
 * line as `bare` makes it (an id, say). Numbers are read as their exact source text (a price written as `30000.5`
 * stays "30000.5", a 19-digit id stays exact), since every field is a string on the wire; the client validates every
 * item and reports a bad one as that item's failure.
 */
export const parse = (
  text: string,
  bare?: (line: string) => unknown
): { readonly items: ReadonlyArray<unknown>; readonly where: ReadonlyArray<string> } | { readonly error: string } => {
  const json = (source: string, where: string) =>
    Result.try({
      try: () => Json.parse(source, "text"),
      catch: (cause) => `${where}: ${cause instanceof Error ? cause.message : String(cause)}`
    })
  const trimmed = text.trim()
  if (trimmed.startsWith("[")) {
    const result = json(trimmed, "not valid JSON")
    if (result._tag === "Failure") return { error: result.failure }
    return Array.isArray(result.success)
      ? { items: result.success, where: result.success.map((_, i) => `item ${i + 1}`) }
      : { error: "not a JSON array" }
  }
  const items: Array<unknown> = []
  const where: Array<string> = []
  const lines = text.split("\n")
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim()
    if (line.length === 0) continue
    if (bare !== undefined && !/^[{["]/.test(line)) {
      items.push(bare(line))
      where.push(`line ${i + 1}`)
      continue
    }
    const result = json(line, `line ${i + 1} is not valid JSON`)
    if (result._tag === "Failure") return { error: result.failure }
    items.push(result.success)
    where.push(`line ${i + 1}`)
  }
  return { items, where }
}

/**
 * The items of the file `--file` names; a file that cannot be read or parsed, or holds none, is bad usage (2). So is
 * an item `problem` finds fault with (what it says, after where the item is: "line 3", "item 2"), before anything is
 * sent: an item the command would otherwise take as something else than written (a field it does not know, dropped).
 */
export const read = (
  path: string,
  bare?: (line: string) => unknown,
  problem?: (item: unknown) => string | undefined
) =>
  Effect.gen(function*() {
    const parsed = parse(yield* readFlagFile("--file", path), bare)
    if ("error" in parsed) return yield* usage(`--file ${path}: ${parsed.error}`)
    if (parsed.items.length === 0) return yield* usage(`--file ${path}: no items`)
    for (let i = 0; problem !== undefined && i < parsed.items.length; i++) {
      const found = problem(parsed.items[i])
      if (found !== undefined) return yield* usage(`--file ${path}: ${parsed.where[i]}: ${found}; nothing was sent`)
    }
    return parsed.items
  })

/**
 * A `problem` for `read`: an object item with a field other than `fields` (which the client's schema would drop
 * without a word: a misspelt `clientOrderID` taken as no id, a `timeInForce` as the default), or with a `symbol` other
 * than --symbol's (every item is `acted` on --symbol: "placed", "cancelled"). An item that is no object is left to
 * the client, which fails it alone.
 */
export const onlyFields =
  (fields: ReadonlyArray<string>, symbol: string, acted: string) => (item: unknown): string | undefined => {
    if (typeof item !== "object" || item === null || Array.isArray(item)) return undefined
    for (const [key, value] of Object.entries(item)) {
      if (key === "symbol") {
        if (value !== symbol) {
          return `its symbol ${JSON.stringify(value)} is not --symbol ${symbol}: every item is ${acted} on --symbol ` +
            "(one run per symbol)"
        }
      } else if (!fields.includes(key)) {
        return `unknown field ${JSON.stringify(key)}: an item has ${fields.join(", ")} (and symbol, if --symbol)`
      }
    }
    return undefined
  }

/**
 * Writes the outcomes (`text`) on stdout and `summary` on stderr; fails with exit code 1 when `failed` items failed,
 * else with exit code 0 if stdout's reader went away (the summary says what was done all the same).
 */
export const report = (text: string, summary: string, failed: number) =>
  Effect.gen(function*() {
    // The items were acted on whether or not stdout still has a reader (`| head`): the summary and the exit code must
    // still say whether items failed.
    const closed = yield* write(text).pipe(
      Effect.as(undefined),
      Effect.catchIf((error) => error.code === "EPIPE", (error) => Effect.succeed(error))
    )
    yield* note(summary)
    if (failed > 0) return yield* Effect.fail(new CliFailure({ message: `${failed} items failed`, exitCode: 1 }))
    // Exit code 0, as for any reader that stopped reading (`| head`), the summary already said.
    if (closed !== undefined) return yield* Effect.fail(new CliFailure({ message: closed.message, exitCode: 0 }))
  })
