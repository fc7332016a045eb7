// What the commands over a time range share: `--since` / `--until` (a millisecond epoch or ISO-8601: `time.ts`; --since
// inclusive, --until exclusive) turned into the client's exclusive bounds; and the export of a stream of records to
// CSV or NDJSON (`bills export`, `fills export`) with `--out` (written beside as FILE.partial, renamed when whole:
// `outFile.ts`), `--resume`, `--progress`, `--page-size` and `--csv-raw`.
import { SafeText, type SpotClient, type SpotError, Telemetry, Venue } from "@spotkit/core"
import type { FileSystem } from "effect"
import { Cause, Clock, Effect, Exit, Metric, Option, Result, Stream } from "effect"
import { Flag } from "effect/cli"
import * as Formats from "../formats.ts"
import * as Output from "../output.ts"
import * as Progress from "../progress.ts"
import * as Records from "../records.ts"
import { parseTime } from "../time.ts"
import * as OutFile from "./outFile.ts"
import { client, csvRaw, format, NAME, usage } from "./shared.ts"

const time = (name: string, description: string) =>
  Flag.String(name).pipe(Flag.withDescription(description), Flag.withMetavar("TIME"), Flag.optional)

/** `--since` and `--until` of records of the kind `what` ("bills"). */
export const rangeFlags = (what: string) => ({
  since: time(
    "since",
    `Only ${what} at or after this time: a millisecond epoch (0, or since 2001) or ISO-8601 (2024-05-01T00:00:00Z)`
  ),
  until: time(
    "until",
    `Only ${what} before this time (exclusive): a millisecond epoch (0, or since 2001) or ISO-8601`
  )
})

/** A time range: as given (`since` inclusive, `until` exclusive) and as the client's exclusive bounds. */
export interface Range {
  readonly since: number | undefined
  readonly until: number | undefined
  /** The venue's records after it: --since minus one, none for --since 0, which is every record. */
  readonly after: number | undefined
  readonly before: number | undefined
}

/**
 * A time range as the client's exclusive bounds (`Range`). A time that cannot be read, or --until before --since, is
 * bad usage (exit code 2): checked before anything is sent or written.
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
    } satisfies Range
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
    Flag.withDescription(
      "Write to this file instead of stdout (- is stdout). The rows go to FILE.partial beside it, renamed onto " +
        "FILE once the export is whole: a failed or interrupted export leaves FILE as it was and its rows in " +
        "FILE.partial"
    ),
    Flag.withMetavar("FILE"),
    Flag.optional
  ),
  resume: Flag.Boolean("resume").pipe(
    Flag.withDescription(
      "Continue the interrupted export in FILE.partial (same command, format and filters) from its last row, then " +
        "rename it onto FILE; without one, start afresh"
    ),
    Flag.withDefault(false)
  ),
  progress: Flag.Boolean("progress").pipe(
    Flag.withDescription("Report progress on stderr even when it is not a terminal"),
    Flag.withDefault(false)
  ),
  pageSize: pageSizeFlag(what),
  csvRaw
})

/** The flags `run` reads. */
export interface ExportFlags {
  readonly format: "csv" | "ndjson"
  readonly out: Option.Option<string>
  readonly resume: boolean
  readonly progress: boolean
  readonly csvRaw: boolean
}

/** One kind of export: its records between two exclusive bounds, and how they are written and read back. */
export interface Kind<A> {
  /** The command ("bills export"), in the partial file's description and in messages. */
  readonly command: string
  /** The filters besides the time range, which a resumed export must repeat. */
  readonly filters: Readonly<Record<string, string | number | undefined>>
  readonly shape: Records.Shape<A>
  /** The record's id and time, as the client's stream pages by them (newest first by time). */
  readonly id: (record: A) => string
  readonly time: (record: A) => number
  readonly records: (
    client: SpotClient.Service,
    bounds: { readonly after: number | undefined; readonly before: number | undefined }
  ) => Stream.Stream<A, SpotError.SpotError>
  /** How many records there are between the bounds, when the venue says it (for the progress line's ETA). */
  readonly total?: (
    client: SpotClient.Service,
    bounds: { readonly after: number | undefined; readonly before: number | undefined }
  ) => Effect.Effect<number | undefined, SpotError.SpotError>
}

const thousands = (n: number): string => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",")

/**
 * Streams the records to `--out` (through FILE.partial) or stdout, page by page, with a progress line and a summary
 * on stderr. Nothing is written, and no file is opened, before the venue answered the first page: an export that
 * fails at once (bad input the client refuses, credentials the venue refuses) prints no data and leaves every file
 * alone. Each page is written as one piece, so the output only ever holds whole rows, also after Ctrl-C.
 */
export const run = <A>(kind: Kind<A>, flags: ExportFlags, range: Range) =>
  Effect.gen(function*() {
    const output = yield* Output.Output
    const toStdout = Option.isNone(flags.out) || flags.out.value === OutFile.STDOUT
    const progress = yield* Progress.make(output.stderr, {
      forced: flags.progress,
      dataOnTerminal: toStdout && output.stdout.isTTY
    })
    const spot = yield* client("private", {
      onEvent: (event) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) => {
          const wait = waitOf(event, now)
          return wait === undefined ? Effect.void : progress.waiting(wait)
        }),
      say: progress.note
    })
    const description: OutFile.Description = {
      command: kind.command,
      format: flags.format,
      csvRaw: flags.csvRaw,
      // The bounds the export asks for: --since 0 is every record, as no --since (a resume may give either).
      filters: { ...kind.filters, since: range.after === undefined ? undefined : range.since, until: range.until }
    }
    const csv = flags.format === "csv"
    const header = csv ? Records.csvHeader(kind.shape) : undefined
    const keys: OutFile.Keys = {
      header: header ?? "",
      id: { column: 0, field: kind.shape.columns[0]! },
      time: { column: kind.shape.times[0]!, field: kind.shape.columns[kind.shape.times[0]!]! }
    }
    const target = yield* OutFile.plan(Option.getOrUndefined(flags.out), { resume: flags.resume, description, keys })
    const toTerminal = target._tag === "Stdout" && output.stdout.isTTY
    const mode: Formats.CsvMode = { safe: !flags.csvRaw, terminal: toTerminal }
    const resumed = target._tag === "File" ? target.resumed : undefined
    const last = resumed?.last
    // From the last row's millisecond down, without the rows of that millisecond already written (their ids as the
    // file holds them: credentials removed, a CSV cell neutralised).
    const bounds = { after: range.after, before: last === undefined ? range.before : last.time + 1 }
    const written = (record: A) => {
      const id = output.redactData(kind.id(record))
      return last !== undefined && kind.time(record) === last.time && last.ids.has(csv ? Formats.csvText(id, mode) : id)
    }
    if (kind.total !== undefined && (flags.progress || (output.stderr.isTTY && !toTerminal))) {
      const before = (resumed?.rows ?? 0) - (last?.ids.size ?? 0)
      yield* Effect.forkScoped(Effect.ignore(Effect.flatMap(
        kind.total(spot, bounds),
        (total) => total === undefined ? Effect.void : progress.total(before + total)
      )))
    }
    // Where the rows go, opened (the CSV header written) once the first page, or the end of an empty export, came.
    let channel: Output.Channel | undefined
    let file: Output.FileChannel | undefined
    const opened = Effect.suspend(() => {
      if (channel !== undefined) return Effect.succeed(channel)
      if (target._tag === "Stdout") {
        channel = output.stdout
        return header === undefined ? Effect.succeed(channel) : Effect.as(channel.write(header), channel)
      }
      return Effect.map(OutFile.open(target, description, header), (opening) => {
        channel = file = opening
        return opening
      })
    })
    const exported = Telemetry.exportRows.pipe(Metric.withAttributes({ export: kind.command.split(" ")[0]! }))
    let rows = 0
    let pages = 0
    yield* kind.records(spot, bounds).pipe(
      // Read-ahead: while this page is formatted and written, the next one waits in a buffer of one page and the
      // request for the one after (it needs only the last record of the page before) is in flight, so neither side
      // of the connection waits for the other; at most two pages ahead.
      Stream.bufferArray({ capacity: 1 }),
      // Each array is one page of the venue's answer: written as one piece, so the output only ever holds whole rows.
      Stream.runForEachArray((records) =>
        Effect.flatMap(opened, (out) => {
          const page = Output.redactStrings(
            last === undefined ? records : records.filter((r) => !written(r)),
            output.redactData
          )
          rows += page.length
          pages++
          return out.write(csv ? Records.csv(kind.shape, page, mode) : Formats.ndjson(page)).pipe(
            Effect.andThen(Metric.update(exported, page.length)),
            Effect.andThen(progress.update(rows, pages))
          )
        })
      ),
      Effect.onExit((exit) =>
        Effect.gen(function*() {
          if (Exit.isSuccess(exit)) return
          // Stdout's reader went away (`| head`): a normal way to stop (exit code 0), yet the export still ends with
          // its summary, of the rows handed to stdout before it closed.
          if (target._tag === "Stdout" && closedStdout(exit)) {
            return yield* Effect.ignore(progress.finish("stdout was closed (its reader went away) after", ""))
          }
          const held = yield* heldRows(exit, target, file, rows, flags.format, keys)
          const line = stopped(exit, target, held, channel !== undefined)
          if (line !== "") yield* Effect.ignore(progress.note(line))
        })
      )
    )
    // The venue answered at least one page: an export it had nothing for (its stream ended without a record) counts
    // that page, so that the summary never says "0 pages" after a request.
    if (pages === 0) yield* progress.update(rows, 1)
    // An export with no row still leaves its file, and the CSV header.
    yield* opened
    // A file's last writes are still buffered: only once it is closed is the export known to be complete.
    if (file !== undefined) yield* file.close
    if (target._tag === "File") yield* OutFile.commit(target)
    const earlier = resumed === undefined || resumed.rows === 0
      ? ""
      : `, after the ${thousands(resumed.rows)} rows of an earlier run`
    yield* progress.finish("exported", `${target._tag === "Stdout" ? "" : ` to ${finishedName(target)}`}${earlier}`)
  })

// Whether the export ended because stdout's reader went away.
const closedStdout = (exit: Exit.Exit<unknown, unknown>): boolean =>
  Exit.isFailure(exit) && Option.match(Cause.findErrorOption(exit.cause), {
    onNone: () => false,
    onSome: (error) => error instanceof Output.OutputError && error.code === "EPIPE"
  })

// What the progress line says the export waits for (nothing for an event that is no wait: the log says those).
const waitOf = (event: Telemetry.Event, now: number): Progress.Wait | undefined => {
  switch (event._tag) {
    case "Waiting":
      return { what: event.budget === "paused" ? "venue asked to wait" : "rate limit", until: now + event.millis }
    case "RateLimited":
      return { what: "venue asked to wait", until: now + (event.retryAfterMillis ?? WINDOW) }
    case "Retrying":
      return {
        what: event.reason._tag === "RateLimitError" ?
          "venue asked to wait" :
          `retry ${event.attempt} after a ${event.reason._tag}`,
        until: now + event.delayMillis
      }
    case "UnreadableSymbols":
      return undefined
  }
}

// A 429 without Retry-After pauses the budgets for one window (SpotClient.RateLimitOptions).
const WINDOW = Venue.budgets.uid.windowMillis

// (As one printable line: a file's name is the user's, and may hold a terminal's escape sequences.)
const outName = (target: Exclude<OutFile.Target, { readonly _tag: "Stdout" }>): string =>
  SafeText.printable(target._tag === "File" ? target.out : target.path, 4096)

// Where a finished export went; a symbolic link it replaced is said, so that nobody waits for the linked file.
const finishedName = (target: Exclude<OutFile.Target, { readonly _tag: "Stdout" }>): string =>
  target._tag === "File" && target.replacesLink
    ? `${target.out} (it was a symbolic link: replaced by the file, the file it pointed to unchanged)`
    : outName(target)

/** The rows an export that did not finish wrote: exactly, or at most that many when they could not be read back. */
interface Held {
  readonly rows: number
  readonly exact: boolean
}

/**
 * The rows of this run in FILE.partial once a failed export ended it. `rows` counts the pages handed to the file,
 * which buffers them: after a write failed (a full disk, a file too large) the last of them, and the page of the
 * failed write, never reached it whole, so the partial file is read back (as `--resume` will) for its whole rows.
 * An interrupted export's writes all reach the file as it closes: `rows` then.
 */
const heldRows = (
  exit: Exit.Exit<unknown, unknown>,
  target: OutFile.Target,
  file: Output.FileChannel | undefined,
  rows: number,
  format: "csv" | "ndjson",
  keys: OutFile.Keys
): Effect.Effect<Held, never, FileSystem.FileSystem | Output.Output> =>
  Effect.gen(function*() {
    const counted = { rows, exact: true }
    if (target._tag !== "File" || file === undefined || (Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause))) {
      return counted
    }
    if (yield* file.end) return counted
    const found = yield* Effect.result(OutFile.scan(target.partial, format, keys))
    return Result.isSuccess(found)
      ? { rows: found.success.rows - (target.resumed?.rows ?? 0), exact: true }
      : { ...counted, exact: false }
  })

/**
 * What an export that did not finish says about its rows: where they are, and that FILE is as it was. Never "after
 * 0 rows to FILE" for a file it never opened.
 */
const stopped = (exit: Exit.Exit<unknown, unknown>, target: OutFile.Target, held: Held, opened: boolean): string => {
  const rows = held.rows
  const interrupted = Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause)
  const how = interrupted ? "interrupted" : "the export failed"
  if (target._tag === "Stdout") {
    return interrupted ? `${NAME}: interrupted after ${thousands(rows)} rows; every row written is complete\n` : ""
  }
  if (target._tag === "Direct") {
    // A pipe or a device buffers what it is handed: after a failed write, the rows handed are not all written, and
    // the last may be cut short. Nothing can be read back to count them.
    if (!opened) return ""
    return interrupted
      ? `${NAME}: ${how} after ${thousands(rows)} rows to ${target.path}; every row written is complete\n`
      : `${NAME}: ${how} after up to ${thousands(rows)} rows to ${target.path}; the last may be incomplete\n`
  }
  const kept = rows + (target.resumed?.rows ?? 0)
  const untouched = `${target.out} ${target.mode === undefined ? "was not written" : "is untouched"}`
  if (!opened && kept === 0) return interrupted ? `${NAME}: interrupted before any row was written; ${untouched}\n` : ""
  const upTo = held.exact ? "" : "up to "
  return `${NAME}: ${how} after ${upTo}${thousands(rows)} rows${
    target.resumed === undefined || target.resumed.rows === 0 ? "" : ` (and ${thousands(target.resumed.rows)} before)`
  }; ${held.exact ? "the" : "up to"} ${thousands(kept)} rows are in ${target.partial} (--resume continues it); ` +
    `${untouched}\n`
}
