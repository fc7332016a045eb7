// The export's progress on stderr: rows, pages, rows/s and elapsed time, the total and an ETA when the venue said how
// many records there are, and what it waits for. On a terminal one line is redrawn in place at least once a second
// (also while nothing arrives: a wait counts down), elsewhere (only with --progress) a plain line every few seconds,
// so a log file is not flooded with carriage returns. Whatever stderr is, the export ends with one summary line.
// Time comes from `Clock`.
import { Clock, Effect } from "effect"
import type { Scope } from "effect"
import type { Channel, OutputError } from "./output.ts"

const TTY_INTERVAL = 200
const TICK = 1_000
const LOG_INTERVAL = 5_000

// Thousands separators without `Intl`: an `Intl.NumberFormat` pulls ICU data into memory (BENCHMARKS.md) for every
// command, also those that print no progress.
const thousands = (n: number): string => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",")

// "1 page", "0 pages", "2,001 pages".
const count = (n: number, noun: string): string => `${thousands(n)} ${noun}${n === 1 ? "" : "s"}`

export const formatDuration = (millis: number): string => {
  const seconds = Math.floor(millis / 1000)
  if (seconds < 60) return `${(millis / 1000).toFixed(1)} s`
  const minutes = Math.floor(seconds / 60)
  if (minutes < 60) return `${minutes} min ${String(seconds % 60).padStart(2, "0")} s`
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, "0")} min`
}

/** The figures of an export so far; with a `total`, how much of it and the time left at the rate so far. */
export const describe = (rows: number, pages: number, elapsed: number, total?: number): string => {
  const rate = elapsed > 0 ? Math.round(rows / (elapsed / 1000)) : 0
  const of = total === undefined || total < rows ? "" : ` of ${thousands(total)}`
  const eta = total === undefined || total < rows || rate === 0
    ? ""
    : `, ETA ${formatDuration(Math.round(((total - rows) / rate) * 1000))}`
  return `${count(rows, "row")}${of}, ${count(pages, "page")}, ${thousands(rate)} rows/s, ${
    formatDuration(elapsed)
  }${eta}`
}

/** What the export waits for, e.g. "rate limit" or "venue asked to wait", until a time of the `Clock`. */
export interface Wait {
  readonly what: string
  readonly until: number
}

export interface Progress {
  /** Called after each page: the rows and pages so far. */
  readonly update: (rows: number, pages: number) => Effect.Effect<void, OutputError>
  /** The number of records the whole export will have, once the venue said it. */
  readonly total: (total: number) => Effect.Effect<void>
  /** The export waits (shown, counting down, until it is over or the next page comes; the longer of two). */
  readonly waiting: (wait: Wait) => Effect.Effect<void>
  /** Clears the live line (on a terminal) and writes the summary: `verb`, the figures, `suffix`. Always. */
  readonly finish: (verb: string, suffix: string) => Effect.Effect<void, OutputError>
  /**
   * Writes `line` (ending in a newline) on stderr: in place of the live line if one is drawn, else on a terminal on a
   * line of its own (after the `^C` it echoed), else as it is. Always.
   */
  readonly note: (line: string) => Effect.Effect<void, OutputError>
}

/**
 * `forced`: --progress was given. `dataOnTerminal`: the data goes to the same terminal (stdout), where a line redrawn
 * in place would end up in the middle of the rows: then progress is only written as plain lines, and only if forced.
 */
export interface Options {
  readonly forced: boolean
  readonly dataOnTerminal: boolean
}

/** A progress for the scope: its redrawing (once a second) stops when the scope closes. */
export const make = (stderr: Channel, options: Options): Effect.Effect<Progress, never, Scope.Scope> =>
  Effect.gen(function*() {
    const started = yield* Clock.currentTimeMillis
    const live = stderr.isTTY && !options.dataOnTerminal
    const enabled = live || options.forced
    const interval = live ? TTY_INTERVAL : LOG_INTERVAL
    let rows = 0
    let pages = 0
    let total: number | undefined
    let wait: Wait | undefined
    let drawn = started
    let dirty = false
    const line = (now: number) => {
      const waiting = wait !== undefined && wait.until > now
        ? `; waiting: ${wait.what}, ${Math.ceil((wait.until - now) / 1000)} s`
        : ""
      return `spotkit: ${describe(rows, pages, now - started, total)}${waiting}`
    }
    const draw = (now: number, every: number) => {
      if (!enabled || now - drawn < every) return Effect.void
      drawn = now
      dirty = live
      return stderr.write(live ? `\r\x1b[K${line(now)}` : `${line(now)}\n`)
    }
    const update = (nextRows: number, nextPages: number) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        rows = nextRows
        pages = nextPages
        wait = undefined
        return draw(now, interval)
      })
    // Every second on a terminal, whatever a page drew meanwhile (a wait counts down, the elapsed time moves): never
    // a second without a redraw. In a log, a line when the last is a few seconds old.
    if (enabled) {
      yield* Effect.forkScoped(Effect.forever(Effect.andThen(
        Effect.sleep(TICK),
        Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.ignore(draw(now, live ? 0 : LOG_INTERVAL)))
      )))
    }
    const finish = (verb: string, suffix: string) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const summary = `spotkit: ${verb} ${describe(rows, pages, now - started)}${suffix}\n`
        const clear = dirty
        dirty = false
        return stderr.write(clear ? `\r\x1b[K${summary}` : summary)
      })
    const note = (text: string) =>
      Effect.suspend(() => {
        const clear = dirty
        dirty = false
        return stderr.write(clear ? `\r\x1b[K${text}` : stderr.isTTY ? `\n${text}` : text)
      })
    return {
      update,
      total: (value) => Effect.sync(() => void (total = value)),
      // The longer of two waits (a retry's short delay within a 429's pause).
      waiting: (value) =>
        Effect.sync(() => void (wait = wait !== undefined && wait.until > value.until ? wait : value)),
      finish,
      note
    }
  })
