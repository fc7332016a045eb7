/**
 * Lossless JSON for the venue's wire format.
 *
 * The venue sends 64-bit order ids as JSON numbers (`602876318261969338`), which `JSON.parse` silently
 * rounds. `parse` keeps every number that a double cannot hold exactly as its source text (a string),
 * so schemas downstream see either a safe integer or the exact digits. `raw` marks a value that must be
 * written as a bare JSON number without passing through a double (for example `toUserId`).
 *
 * @since 0.1.0
 */

import { Result } from "effect"

interface ReviverContext {
  readonly source?: string
}

interface JsonWithRaw {
  rawJSON(text: string): unknown
}

// A number literal the fast path cannot prove exact: 16+ digits, a fraction or an exponent. JSON numbers only
// follow `:`, `[`, `,` (or start the text), so a match outside a string means "use the reviver". A match inside a
// string only costs the slower path, never correctness. The pattern starts with a character class and no
// alternation, so V8 scans for its first character quickly: a page of bills is tested in a fifth of the time
// `(?:^|[:[,])\s*-?(?:\d{16}|\d+[.eE])` took. `[\s-]*` is looser than `\s*-?`, which can only send more texts to
// the exact path.
const UNSAFE_NUMBER = /[:[,][\s-]*\d+(?:[.eE]|\d{15})/
// A text that is itself a number (`1.5`, `602876318261969338`).
const LEADING_NUMBER = /^\s*-?\d/

const unsafe = (text: string): boolean => UNSAFE_NUMBER.test(text) || LEADING_NUMBER.test(text)

const PLAIN_INTEGER = /^-?\d+$/

// An integer literal of 17+ digits in value position (after `:`, `[` or `,`, before `,`, `]` or `}`).
const LONG_INTEGER = /([:[,]\s*)(-?\d{17,})(?=\s*[,\]}])/g

// Set by `reviver` when JSON.parse gave it no source text (a runtime older than ES2025's): the double alone may have
// been rounded, so the text is read again by `quoteUnsafe` instead (`revived`).
let sourceless = false

// Keeps a number only when its source is a plain integer a double holds exactly; everything else (`1.0`, `1e5`,
// `99.999999999999999999`, `602876318261969338`) is returned as its exact source text.
const reviver = function(this: unknown, _key: string, value: unknown, context?: ReviverContext): unknown {
  if (typeof value !== "number") return value
  const source = context?.source
  if (source === undefined) {
    sourceless = true
    return value
  }
  return Number.isSafeInteger(value) && PLAIN_INTEGER.test(source) ? value : source
}

// The text read exactly: through the reviver, or, on a runtime whose JSON.parse gives no source text, with every
// number literal the reviver would have answered as its text quoted first (the same value, without the reviver).
// (The text is valid JSON once the first reading succeeded, which `quoteUnsafe` needs.)
const revived = (text: string): unknown => {
  sourceless = false
  const parsed: unknown = JSON.parse(text, reviver as never)
  return sourceless ? JSON.parse(quoteUnsafe(text)) : parsed
}

/**
 * A JSON number as its exact source text, for `parse(text, "tagged")`: a reader that must tell `1` from `"1"` and
 * keep every digit (the test exchange checks that string fields are strings).
 *
 * @since 0.1.0
 * @category parsing
 */
export class JsonNumber {
  readonly source: string
  constructor(source: string) {
    this.source = source
  }
}

/**
 * What `parse` makes of a JSON number.
 *
 * - `"lossless"`: a plain integer literal that is a safe integer stays a `number`; every other number (large
 *   integers, fractions, exponent forms) becomes its exact source text, a `string`.
 * - `"text"`: every number becomes its exact source text (for input whose fields are all strings on the wire).
 * - `"tagged"`: every number becomes a `JsonNumber` holding its source text.
 *
 * @since 0.1.0
 * @category parsing
 */
export type Numbers = "lossless" | "text" | "tagged"

const textReviver = (_key: string, value: unknown, context?: ReviverContext): unknown =>
  typeof value === "number" ? context?.source ?? String(value) : value

const taggedReviver = (_key: string, value: unknown, context?: ReviverContext): unknown =>
  typeof value === "number" ? new JsonNumber(context?.source ?? String(value)) : value

// The length up to which `parse` quotes long ids before it scans for unsafe numbers.
const SHORT = 512

// Texts with no number literal at all need no reviver.
const HAS_NUMBER = /[:[,]\s*-?\d|^\s*-?\d/

/**
 * Parses JSON text without losing precision (see `Numbers`; `"lossless"` by default, exact on a runtime whose
 * `JSON.parse` gives revivers no source text too, older than ES2025's). Throws `SyntaxError` on bad input; callers in
 * this package wrap it in `Effect.try`.
 *
 * @since 0.1.0
 * @category parsing
 */
export const parse = (text: string, numbers: Numbers = "lossless"): unknown => {
  if (numbers !== "lossless") {
    return HAS_NUMBER.test(text)
      ? JSON.parse(text, (numbers === "text" ? textReviver : taggedReviver) as never)
      : JSON.parse(text)
  }
  // The common unsafe case is an id of 17+ digits (always beyond 2^53): quote it and parse without a reviver, which
  // is much cheaper (BENCHMARKS.md). A short text (an order's answer, which carries its id as a number) is read once
  // by `quoteIds`, which quotes exactly the number literals outside strings; a long one (a page, whose ids are
  // strings) is scanned first, sparing it the quoting. There a match inside a string literal cannot go unnoticed: the
  // inserted quote ends the string and leaves digits right after it, which is never valid JSON, so the exact reviver
  // path decides. Every text with such an id is unsafe, so a text the quoting leaves as it is, and safe, is one
  // JSON.parse reads exactly.
  if (text.length <= SHORT) {
    const quoted = quoteIds(text)
    if (quoted === text) return JSON.parse(text)
    if (quoted !== undefined) {
      const fast = Result.try(() => JSON.parse(quoted) as unknown)
      if (Result.isSuccess(fast)) return fast.success
    }
    return revived(text)
  }
  if (!unsafe(text)) return JSON.parse(text)
  const quoted = text.replace(LONG_INTEGER, "$1\"$2\"")
  if (!unsafe(quoted)) {
    if (quoted === text) return JSON.parse(text)
    const fast = Result.try(() => JSON.parse(quoted) as unknown)
    if (Result.isSuccess(fast)) return fast.success
  }
  return revived(text)
}

const QUOTE = 34
const BACKSLASH = 92
const MINUS = 45
const ZERO = 48
const NINE = 57
const DOT = 46
const LOWER_E = 101
const UPPER_E = 69

// Whether the quote at `at` is escaped: preceded by an odd number of backslashes.
const escaped = (text: string, at: number): boolean => {
  let backslashes = 0
  while (text.charCodeAt(at - 1 - backslashes) === BACKSLASH) backslashes++
  return backslashes % 2 === 1
}

// The index just past the string whose opening quote is at `at`; -1 when the string is not closed.
const pastString = (text: string, at: number): number => {
  let end = text.indexOf("\"", at + 1)
  while (end !== -1 && escaped(text, end)) end = text.indexOf("\"", end + 1)
  return end === -1 ? -1 : end + 1
}

// A JSON text with every integer literal of 17+ digits (outside strings) quoted, in one pass; undefined when a number
// a double may not hold exactly remains (16 digits, a fraction or an exponent), which the reviver must read. Bad JSON
// (an unterminated string) is left as it is for JSON.parse to refuse. For long texts the regular expressions are
// faster: a page is mostly strings, which `UNSAFE_NUMBER` passes over quickly (BENCHMARKS.md, #26 third pass).
const quoteIds = (text: string): string | undefined => {
  const length = text.length
  let out = ""
  let from = 0
  let i = 0
  while (i < length) {
    const c = text.charCodeAt(i)
    if (c === QUOTE) {
      i = pastString(text, i)
      if (i === -1) return text
    } else if (c === MINUS || (c >= ZERO && c <= NINE)) {
      const start = i
      if (c === MINUS) i++
      const first = i
      while (i < length && text.charCodeAt(i) >= ZERO && text.charCodeAt(i) <= NINE) i++
      const digits = i - first
      const next = text.charCodeAt(i)
      if (next === DOT || next === LOWER_E || next === UPPER_E || digits === 16) return undefined
      if (digits >= 17) {
        out += `${text.slice(from, start)}"${text.slice(start, i)}"`
        from = i
      }
    } else {
      i++
    }
  }
  return from === 0 ? text : out + text.slice(from)
}

// A JSON text with every number literal outside strings that is not a plain safe integer (a fraction, an exponent
// form, an integer beyond 2^53) quoted: what the reviver answers, for a runtime that gives it no source text. Called
// only on a text JSON.parse has read, so every string is closed; a rare path, where one regular expression will do.
const TOKEN = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g
const quoteUnsafe = (text: string): string =>
  text.replace(
    TOKEN,
    (token) =>
      token.charCodeAt(0) === QUOTE || (PLAIN_INTEGER.test(token) && Number.isSafeInteger(Number(token)))
        ? token
        : `"${token}"`
  )

const rawJSON = (JSON as unknown as JsonWithRaw).rawJSON

/**
 * A value that `stringify` writes verbatim as a JSON number, so that an integer above 2^53 never passes through
 * a double. The text must be a JSON number literal (`rawJSON` throws otherwise); `UserId` guarantees digits.
 *
 * @since 0.1.0
 * @category encoding
 */
export const rawNumber = (digits: string): unknown => rawJSON(digits)

/**
 * Writes JSON text; values made with `rawNumber` appear as bare numbers with their exact digits.
 *
 * @since 0.1.0
 * @category encoding
 */
export const stringify = (value: unknown): string => JSON.stringify(value)
