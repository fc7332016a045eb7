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
): { readonly items: ReadonlyArray<unknown> } | { readonly error: string } => {
  const json = (source: string, where: string) =>
    Result.try({
      try: () => Json.parse(source, "text"),
      catch: (cause) => `${where}: ${cause instanceof Error ? cause.message : String(cause)}`
    })
  const trimmed = text.trim()
  if (trimmed.startsWith("[")) {
    const result = json(trimmed, "not valid JSON")
    if (result._tag === "Failure") return { error: result.failure }
    return Array.isArray(result.success) ? { items: result.success } : { error: "not a JSON array" }
  }
  const items: Array<unknown> = []
  const lines = text.split("\n")
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim()
    if (line.length === 0) continue
    if (bare !== undefined && !/^[{["]/.test(line)) {
      items.push(bare(line))
      continue
    }
    const result = json(line, `line ${i + 1} is not valid JSON`)
    if (result._tag === "Failure") return { error: result.failure }
    items.push(result.success)
  }
  return { items }
}

/** The items of the file `--file` names; a file that cannot be read or parsed, or holds none, is bad usage (2). */
export const read = (path: string, bare?: (line: string) => unknown) =>
  Effect.gen(function*() {
    const parsed = parse(yield* readFlagFile("--file", path), bare)
    if ("error" in parsed) return yield* usage(`--file ${path}: ${parsed.error}`)
    if (parsed.items.length === 0) return yield* usage(`--file ${path}: no items`)
    return parsed.items
  })

/**
 * Writes the outcomes (`text`) on stdout and `summary` on stderr; fails with exit code 1 when `failed` items failed,
 * else with stdout's EPIPE if its reader went away (exit code 0).
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
    if (closed !== undefined) return yield* Effect.fail(closed)
  })
