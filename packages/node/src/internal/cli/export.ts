// What the commands over a time range share: `--since` / `--until` (a millisecond epoch or ISO-8601; --since
// inclusive, --until exclusive) turned into the client's exclusive bounds, and the export of a stream of pages to CSV
// or NDJSON (`bills export`, `fills export`) with `--out`, `--progress` and `--page-size`.
import type { SpotClient, SpotError } from "@spotkit/core"
import { Effect, Option, Stream } from "effect"
import { Flag } from "effect/cli"
import * as Output from "../output.ts"
import * as Progress from "../progress.ts"
import { parseTime } from "../time.ts"
import { format, NAME, usage, withClient } from "./shared.ts"

const time = (name: string, description: string) =>
  Flag.String(name).pipe(Flag.withDescription(description), Flag.withMetavar("TIME"), Flag.optional)

/** `--since` and `--until` of records of the kind `what` ("bills"). */
export const rangeFlags = (what: string) => ({
  since: time(
    "since",
    `Only ${what} at or after this time: a millisecond epoch or ISO-8601 (2024-05-01T00:00:00Z)`
  ),
  until: time("until", `Only ${what} before this time (exclusive): a millisecond epoch or ISO-8601`)
})

/**
 * A time range as the client's exclusive bounds: `after` (the venue's records after it: --since minus one, none for
 * --since 0, which is every record) and `before` (--until). Both given as they were too (`since`, `until`) for a
 * caller that filters itself. A time that cannot be read, or --until before --since, is bad usage (exit code 2):
 * checked before anything is sent or written.
 */
export const range = (flags: { readonly since: Option.Option<string>; readonly until: Option.Option<string> }) =>
  Effect.gen(function*() {
    const read = (name: string, text: Option.Option<string>) => {
      if (Option.isNone(text)) return Effect.succeed(undefined)
      const parsed = parseTime(text.value)
      return "error" in parsed ? usage(`${name}: ${parsed.error}`) : Effect.succeed(parsed.millis)
    }
    const since = yield* read("--since", flags.since)
    const until = yield* read("--until", flags.until)
    if (since !== undefined && until !== undefined && until < since) {
      return yield* usage(`--until (${until}) is before --since (${since})`)
    }
    return {
      since,
      until,
      after: since === undefined || since === 0 ? undefined : since - 1,
      before: until
    }
  })

/** `--page-size`: records per request, 1 to `max` (the venue's largest page). */
export const pageSizeFlag = (what: string, max = 100) =>
  Flag.Int("page-size").pipe(Flag.withDescription(`${what} per request, 1..${max}`), Flag.withDefault(max))

/**
 * The time range of the flags (`range`), once `--page-size` is checked too (1 to `max`): bad usage (exit code 2)
 * otherwise, before anything is sent or written.
 */
export const checked = (
  flags: Parameters<typeof range>[0] & { readonly pageSize: number },
  max = 100
) =>
  Effect.flatMap(
    range(flags),
    (bounds) =>
      flags.pageSize < 1 || flags.pageSize > max
        ? usage(`--page-size: ${flags.pageSize} is not from 1 to ${max}`)
        : Effect.succeed(bounds)
  )

/** The flags of an export besides its filters. */
export const exportFlags = (what: string) => ({
  format: format(["csv", "ndjson"], "csv (with a header row) or ndjson (one JSON object per line)"),
  out: Flag.String("out").pipe(
    Flag.withDescription("Write to this file (created or truncated) instead of stdout"),
    Flag.withMetavar("FILE"),
    Flag.optional
  ),
  progress: Flag.Boolean("progress").pipe(
    Flag.withDescription("Report progress on stderr even when it is not a terminal"),
    Flag.withDefault(false)
  ),
  pageSize: pageSizeFlag(what)
})

/** How the records of one export are written. */
export interface Export<A> {
  readonly flags: {
    readonly format: "csv" | "ndjson"
    readonly out: Option.Option<string>
    readonly progress: boolean
  }
  /** The CSV header row, with its line break. */
  readonly csvHeader: string
  /** One page of records as CSV rows, and as NDJSON lines. */
  readonly csv: (page: ReadonlyArray<A>) => string
  readonly ndjson: (page: ReadonlyArray<A>) => string
}

/**
 * Streams the records to `--out` or stdout, page by page, with a progress line on stderr. Nothing is written, and
 * `--out` is not opened (created or truncated), before the venue answered the first page: an export that fails at
 * once (bad input the client refuses, credentials the venue refuses) prints no data and leaves an earlier export in
 * that file alone. Each page is written as one piece, so the output only ever holds whole rows, also after Ctrl-C.
 */
export const run = <A>(
  how: Export<A>,
  records: (client: SpotClient.Service) => Stream.Stream<A, SpotError.SpotError>
) =>
  withClient((client) =>
    Effect.scoped(Effect.gen(function*() {
      const { stderr, stdout } = yield* Output.Output
      // Credentials removed from each page before it is formatted: CSV quoting would hide one from the scrubber of
      // the text the channels apply.
      const redact = yield* Output.Redact
      const path = Option.getOrUndefined(how.flags.out)
      const target = path === undefined ? "" : ` to ${path}`
      const progress = yield* Progress.make(stderr, {
        forced: how.flags.progress,
        dataOnTerminal: path === undefined && stdout.isTTY
      })
      const csv = how.flags.format === "csv"
      // Where the rows go, once the first page (or the end of an empty export) has come.
      let out: { readonly channel: Output.Channel; readonly file: Output.FileChannel | undefined } | undefined
      const opened = Effect.suspend(() =>
        out !== undefined ? Effect.succeed(out) : Effect.gen(function*() {
          const file = path === undefined ? undefined : yield* Output.openFile(path)
          out = { channel: file ?? stdout, file }
          if (csv) yield* out.channel.write(how.csvHeader)
          return out
        })
      )
      let rows = 0
      let pages = 0
      yield* records(client).pipe(
        // Read-ahead: while this page is formatted and written, the next one waits in a buffer of one page and the
        // request for the one after (it needs only the last record of the page before) is in flight, so neither side
        // of the connection waits for the other; at most two pages ahead.
        Stream.bufferArray({ capacity: 1 }),
        // Each array is one page of the venue's answer: written as one piece, so the output only ever holds whole rows.
        Stream.runForEachArray((records) =>
          Effect.flatMap(opened, ({ channel }) => {
            const page = Output.redactStrings(records, redact)
            rows += page.length
            pages++
            return channel.write(csv ? how.csv(page) : how.ndjson(page)).pipe(
              Effect.andThen(progress.update(rows, pages))
            )
          })
        ),
        Effect.onInterrupt(() =>
          progress.note(`${NAME}: interrupted after ${rows} rows${target}; every row written is complete\n`).pipe(
            Effect.ignore
          )
        )
      )
      const { file } = yield* opened
      // A file's last writes are still buffered: only once it is closed is the export known to be complete.
      if (file !== undefined) yield* file.close
      yield* progress.finish("exported", rows, pages, target)
    }))
  )
