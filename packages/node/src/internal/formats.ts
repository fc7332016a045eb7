// The CLI's text forms, one writer each: CSV (RFC 4180 quoting, formula cells neutralised), tables for people, JSON
// and NDJSON. What a record kind puts in its columns is in `records.ts`. Ids and amounts are the exact strings the
// client decoded (64-bit ids never become JS numbers); times are millisecond epochs, except in tables, where they are
// ISO-8601 in UTC.
import { DateTime } from "effect"

// ---------------------------------------------------------------------------------------------------------------
// what may reach a terminal

// Characters a terminal acts on: C0 controls (ESC starts a sequence, BEL rings, CR and LF move), DEL, C1 controls
// (U+009B is a one-character CSI), the Arabic letter mark, bidi marks, embeddings, overrides and isolates, line and
// paragraph separators.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g
// The same without C0 and DEL, which `JSON.stringify` already escapes.
const BEYOND_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g

const escapeChar = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`

/** The text with every character a terminal acts on written as a JSON-style escape (`\u001b`). */
export const printable = (text: string): string => CONTROL.test(text) ? text.replace(CONTROLS, escapeChar) : text

/**
 * JSON text (from `JSON.stringify`, which escapes C0 controls) with the other characters a terminal acts on escaped
 * too (`\u202e`): every value stays the same for a JSON reader, and no venue text acts on a terminal.
 */
export const safeJson = (text: string): string => text.replace(BEYOND_JSON, escapeChar)

/** A value as indented JSON, one document. */
export const json = (value: unknown): string => safeJson(JSON.stringify(value, null, 2)) + "\n"

/** Values as NDJSON, one per line. */
export const ndjson = (values: ReadonlyArray<unknown>): string => {
  let text = ""
  for (const value of values) text += JSON.stringify(value) + "\n"
  return safeJson(text)
}

// ---------------------------------------------------------------------------------------------------------------
// CSV

/**
 * How CSV cells are written. `safe`: a cell a spreadsheet would run as a formula (starting with `=`, `+`, `@`, a tab,
 * a carriage return, or a `-` that does not start a number) gets a leading `'`, as OWASP recommends for CSV
 * injection; off with `--csv-raw`. `terminal`: the CSV goes to a terminal, so every character a terminal acts on is
 * written as an escape (`printable`), line breaks inside a cell included.
 */
export interface CsvMode {
  readonly safe: boolean
  readonly terminal: boolean
}

/** Safe cells, to a file or a pipe. */
export const CSV_FILE: CsvMode = { safe: true, terminal: false }

// A negative number (an amount), which a spreadsheet reads as a number, not as a formula.
const NEGATIVE_NUMBER = /^-(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/
// A cell that must be quoted (RFC 4180): a comma, a quote, a line break.
const QUOTED = /[",\r\n]/

const isFormula = (text: string): boolean => {
  const first = text.charCodeAt(0)
  // = + @ tab CR, and - unless a number follows
  return first === 0x3d || first === 0x2b || first === 0x40 || first === 0x09 || first === 0x0d ||
    (first === 0x2d && !NEGATIVE_NUMBER.test(text))
}

/** A cell's text as written, before quoting: escaped for a terminal, then neutralised. */
export const csvText = (value: string, mode: CsvMode): string => {
  const text = mode.terminal ? printable(value) : value
  return mode.safe && isFormula(text) ? "'" + text : text
}

// A cell that may need more than its text as it is: a formula's first character, or one to quote.
const SPECIAL = /^[=+\-@\t\r]|[",\r\n]/

/** One cell as CSV: its text (`csvText`), quoted when it must be. */
export const csvCell = (value: string | number, mode: CsvMode): string => {
  if (typeof value === "number") return String(value)
  // Most cells (ids, names, positive amounts) are written as they are: one test.
  if (!mode.terminal && !SPECIAL.test(value)) return value
  const text = csvText(value, mode)
  return QUOTED.test(text) ? "\"" + text.replaceAll("\"", "\"\"") + "\"" : text
}

/** Rows as CSV lines. */
export const csv = (rows: ReadonlyArray<ReadonlyArray<string | number>>, mode: CsvMode): string => {
  let text = ""
  for (const row of rows) {
    for (let i = 0; i < row.length; i++) text += (i === 0 ? "" : ",") + csvCell(row[i]!, mode)
    text += "\n"
  }
  return text
}

/**
 * The fields of the CSV records in a text, and where the last complete record ends: a record ends at a line break
 * outside quotes. Reads back what `csv` writes (quotes undone; a neutralising `'` stays).
 */
export class CsvReader {
  private field = ""
  private fields: Array<string> = []
  private quoted = false
  private afterQuote = false
  /** UTF-8 bytes read so far, and up to the end of the last complete record. */
  bytes = 0
  complete = 0

  /** Reads more text; calls `record` with each record completed. */
  read(text: string, record: (fields: ReadonlyArray<string>) => void): void {
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i)
      this.bytes += c < 0x80 ? 1 : c < 0x800 || (c >= 0xd800 && c <= 0xdfff) ? 2 : 3
      if (this.quoted) {
        if (c === 0x22) {
          this.quoted = false
          this.afterQuote = true
        } else {
          this.field += text[i]
        }
      } else if (c === 0x22) {
        // A quote right after a closing one is an escaped quote.
        if (this.afterQuote) this.field += "\""
        this.quoted = true
        this.afterQuote = false
      } else if (c === 0x2c) {
        this.fields.push(this.field)
        this.field = ""
        this.afterQuote = false
      } else if (c === 0x0a) {
        this.fields.push(this.field)
        record(this.fields)
        this.fields = []
        this.field = ""
        this.afterQuote = false
        this.complete = this.bytes
      } else {
        this.field += text[i]
        this.afterQuote = false
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// tables

/** A millisecond epoch as ISO-8601 in UTC (`2024-05-01T12:00:00.000Z`), for people. */
export const isoTime = (millis: number): string => DateTime.formatIso(DateTime.makeUnsafe(millis))

/** Left-aligned columns separated by two spaces, with a header row; characters a terminal acts on escaped. */
export const table = (header: ReadonlyArray<string>, body: ReadonlyArray<ReadonlyArray<string>>): string => {
  const rows = body.map((row) => row.map(printable))
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => (row[i] ?? "").length)))
  const line = (cells: ReadonlyArray<string>) =>
    cells.map((cell, i) => i === cells.length - 1 ? cell : cell.padEnd(widths[i]!)).join("  ").trimEnd() + "\n"
  return [header, ...rows].map(line).join("")
}
