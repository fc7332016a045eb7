// The export's progress line on stderr: rows, pages, rows/s and elapsed time. On a terminal it redraws one line in
// place a few times a second; elsewhere (only with --progress) it writes a plain line every few seconds, so a log
// file is not flooded with carriage returns. Time comes from `Clock`.
import { Clock, Effect } from "effect"
import type { Channel, OutputError } from "./output.ts"

const TTY_INTERVAL = 200
const LOG_INTERVAL = 5_000

// Thousands separators without `Intl`: an `Intl.NumberFormat` pulls ICU data into memory (BENCHMARKS.md) for every
// command, also those that print no progress.
const thousands = (n: number): string => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",")

export const formatDuration = (millis: number): string => {
  const seconds = Math.floor(millis / 1000)
  if (seconds < 60) return `${(millis / 1000).toFixed(1)} s`
  const minutes = Math.floor(seconds / 60)
  return `${minutes} min ${String(seconds % 60).padStart(2, "0")} s`
}

/** The figures of an export so far. */
export const describe = (rows: number, pages: number, elapsed: number): string => {
  const rate = elapsed > 0 ? Math.round(rows / (elapsed / 1000)) : 0
  return `${thousands(rows)} rows, ${thousands(pages)} pages, ${thousands(rate)} rows/s, ${formatDuration(elapsed)}`
}

export interface Progress {
  /** Called after each page; draws when enough time has passed. */
  readonly update: (rows: number, pages: number) => Effect.Effect<void, OutputError>
  /** When enabled: clears the live line (on a terminal) and writes the last figures after `verb`. */
  readonly finish: (verb: string, rows: number, pages: number, suffix: string) => Effect.Effect<void, OutputError>
  /**
   * Writes `line` (ending in a newline) on stderr: in place of the live line if one is drawn, else on a terminal on a
   * line of its own (after the `^C` it echoed), else as it is.
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

export const make = (stderr: Channel, options: Options): Effect.Effect<Progress> =>
  Effect.map(Clock.currentTimeMillis, (started): Progress => {
    const live = stderr.isTTY && !options.dataOnTerminal
    const enabled = live || options.forced
    const interval = live ? TTY_INTERVAL : LOG_INTERVAL
    let drawn = started
    let dirty = false
    const update = (rows: number, pages: number) =>
      !enabled ? Effect.void : Effect.flatMap(Clock.currentTimeMillis, (now) => {
        if (now - drawn < interval) return Effect.void
        drawn = now
        dirty = live
        const line = `spotkit: ${describe(rows, pages, now - started)}`
        return stderr.write(live ? `\r\x1b[K${line}` : `${line}\n`)
      })
    const finish = (verb: string, rows: number, pages: number, suffix: string) =>
      !enabled ? Effect.void : Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const line = `spotkit: ${verb} ${describe(rows, pages, now - started)}${suffix}\n`
        return stderr.write(dirty ? `\r\x1b[K${line}` : line)
      })
    const note = (line: string) =>
      Effect.suspend(() => {
        const clear = dirty
        dirty = false
        return stderr.write(clear ? `\r\x1b[K${line}` : stderr.isTTY ? `\n${line}` : line)
      })
    return { update, finish, note }
  })
