/**
 * Texts from the network made safe to show. A venue (or a proxy, or anyone on the way) decides what its messages,
 * bodies and ids contain; before such a text reaches a message, a log line, a span or a terminal:
 *
 * - `Scrubber` removes every credential from it, raw or encoded as a server might echo it: JSON-escaped (also with
 *   `\/`), `\u`-escaped, URL-encoded (either case of hex, any mix of encoded and plain characters, also encoded twice:
 *   `%252B`), HTML-escaped (`&amp;`, `&#43;`, `&#x2B;`, as an HTML error page of a proxy or gateway quotes a header),
 *   base64 (standard or URL-safe, at any alignment within a longer base64 text); and the start of one (six characters
 *   or more) where a text ends, as a text cut short ends (a WebSocket close reason is at most 123 bytes);
 * - `printable` makes it one harmless line: control characters (C0, DEL, C1: newlines, terminal escapes), bidi
 *   controls (U+202E and its kin), line and paragraph separators and lone surrogates are written as escapes, and
 *   the line is cut at a length, saying how long the whole text is.
 *
 * The client scrubs what it quotes when it builds an error (the full text stays on the error object, scrubbed) and
 * renders every network text with `printable` in `message`; the `spotkit` CLI scrubs everything it writes.
 *
 * @since 0.1.0
 */
import { Redacted } from "effect"
import { Base64, Base64Url } from "effect/encoding"
import type * as Signer from "./Signer.ts"

/**
 * What a credential is replaced with.
 *
 * @since 0.1.0
 * @category constants
 */
export const REDACTED = "<redacted>"

/**
 * Secrets shorter than this are not searched for everywhere: they would match in ordinary text. A short one given with
 * its label (`Scrubber`'s `labelled`, as `Scrubber.of` gives the passphrase) is removed where it is labelled.
 *
 * @since 0.1.0
 * @category constants
 */
export const MIN_SECRET_LENGTH = 4

// A base64 form shorter than this is not searched for: four or five base64 characters occur by chance in ids and
// other base64 text, which would then be garbled for nothing.
const MIN_BASE64_FORM = 8

const encoder = new TextEncoder()

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&")

// Hex digits of either case, as a character class per letter: `%2f` and `%2F` are the same byte.
const anyCase = (hex: string): string => hex.replace(/[a-f]/g, (digit) => `[${digit}${digit.toUpperCase()}]`)

const hex = (value: number, width: number): string => value.toString(16).padStart(width, "0")

// The named HTML entities of characters a credential may hold (HTML 4's five, and those of HTML5 an escaper might
// pick for the characters of base64 and of URLs).
const NAMED_ENTITIES: Readonly<Record<string, ReadonlyArray<string>>> = {
  "&": ["amp"],
  "<": ["lt"],
  ">": ["gt"],
  "\"": ["quot"],
  "'": ["apos"],
  "+": ["plus"],
  "=": ["equals"],
  "/": ["sol"],
  "#": ["num"],
  "%": ["percnt"]
}

// A character as an HTML character reference, decimal or hexadecimal (`&#43;`, `&#x2B;`, `&#X2b;`), with up to four
// leading zeros (`&#0043;`), or named.
const entityPattern = (character: string): string => {
  const code = character.codePointAt(0)!
  const named = (NAMED_ENTITIES[character] ?? []).map((name) => `&${name};`)
  // (A numeric reference's `;` may be left out: HTML reads `&#34` as `&#34;`.)
  return [`&#0{0,4}${code};?`, `&#[xX]0{0,4}${anyCase(code.toString(16))};?`, ...named].join("|")
}

// Every way one character (a code point) of a secret may be written in a text: as is, JSON-escaped, `\/`,
// `\u`-escaped (per UTF-16 unit), URL-encoded (its UTF-8 bytes, once or twice: `%2B` or `%252B`), `+` for a space
// (form encoding), an HTML character reference.
const characterPattern = (character: string): string => {
  const forms = new Set<string>([escapeRegExp(character)])
  // JSON-escaped once, and twice: a JSON text quoted as a string in another (a gateway's answer quoting the request
  // it forwarded) escapes the escapes again (`"` as `\\\"`).
  const json = JSON.stringify(character).slice(1, -1)
  if (json !== character) forms.add(escapeRegExp(json)).add(escapeRegExp(JSON.stringify(json).slice(1, -1)))
  if (character === "/") forms.add(escapeRegExp("\\/")).add(escapeRegExp("\\\\/"))
  let unicode = ""
  for (let i = 0; i < character.length; i++) unicode += `\\\\u${anyCase(hex(character.charCodeAt(i), 4))}`
  forms.add(unicode).add(`\\\\${unicode}`)
  let url = ""
  for (const byte of encoder.encode(character)) url += `%(?:25)?${anyCase(hex(byte, 2))}`
  forms.add(url)
  if (character === " ") forms.add("\\+")
  forms.add(entityPattern(character))
  return forms.size === 1 ? forms.values().next().value! : `(?:${[...forms].join("|")})`
}

/**
 * A secret and the word that names it where a text would quote it (`"passphrase"`: the header `ACCESS-PASSPHRASE: ab`,
 * a field `"passphrase":"ab"`, `passphrase=ab`, a message `wrong passphrase ab`).
 *
 * @since 0.1.0
 * @category models
 */
export interface Labelled {
  readonly label: string
  readonly secret: string
}

// What may stand between a label and its value: a few characters that are no letter or digit (quotes, `:`, `=`,
// spaces, brackets, `\`), also escaped, URL-encoded or HTML character references (`&quot;`, `&#61;`).
const LABEL_SEPARATOR = String
  .raw`(?:[^A-Za-z0-9%\\]|\\[^A-Za-z0-9u]|\\u[0-9A-Fa-f]{4}|%(?:25)?[0-9A-Fa-f]{2}|&#?[0-9A-Za-z]{1,8};)`

// Any case of a label's letters: `ACCESS_PASSPHRASE` and `passphrase` name the same thing.
const caseless = (label: string): string =>
  Array.from(
    escapeRegExp(label),
    (c) => c.toLowerCase() === c.toUpperCase() ? c : `[${c.toLowerCase()}${c.toUpperCase()}]`
  )
    .join("")

// A short secret where its label names it: after the label and one to eight separators, as a whole token (no letter or
// digit right after it), in each form `characterPattern` knows.
const labelledPattern = ({ label, secret }: Labelled): string =>
  `(?<=${caseless(label)}${LABEL_SEPARATOR}{1,8})${Array.from(secret, characterPattern).join("")}(?![A-Za-z0-9])`

// The base64 characters that depend on the secret's bytes only, for each of the three alignments the secret can
// have within a longer base64 text (0, 1 or 2 bytes before it in its group of three), in both alphabets.
const base64Forms = (secret: string): Array<string> => {
  const bytes = encoder.encode(secret)
  const forms: Array<string> = []
  for (let offset = 0; offset < 3; offset++) {
    const padded = new Uint8Array(offset + bytes.length)
    padded.set(bytes, offset)
    // Character i covers bits [6i, 6i + 6); the secret's bits are [8 offset, 8 (offset + n)).
    const first = Math.ceil((8 * offset) / 6)
    const last = Math.floor((8 * (offset + bytes.length) - 6) / 6)
    if (last - first + 1 < MIN_BASE64_FORM) continue
    forms.push(Base64.encode(padded).slice(first, last + 1), Base64Url.encode(padded).slice(first, last + 1))
  }
  return forms
}

const byLength = (a: string, b: string) => b.length - a.length

// A secret that looks like a number, or a part of one (digits, a sign, a decimal point or separator): in data, where
// amounts, ids and times are, it is searched for only where labelled.
const NUMBER_LIKE = /^[0-9.,+-]+$/

// A text cut short (a WebSocket close reason is at most 123 bytes; a venue may cut its messages, and mark the cut)
// may end inside a secret it quoted: the start of a secret, of this many characters or more, at the very end of a
// text (before an ellipsis, if any) is taken for a cut secret. Shorter, it would match ordinary endings by chance (a
// host `venue.test` against a key `test-...`); five characters of a secret say little of it.
const MIN_CUT = 6
// (The cut may fall inside an escape: `%2`, `\u00`, `&#4`.)
// A cut may be marked with more than an ellipsis: a bracketed note after it (`…[truncated]`, `... (300 more bytes)`).
const AT_CUT = String
  .raw`(?=(?:%(?:25?)?[0-9A-Fa-f]?|\\(?:u[0-9A-Fa-f]{0,3})?|&#?[0-9A-Za-z]{0,8})?(?:\.{2,3}|\u2026)?\s*(?:[\[(<][^\])>]{0,40}[\])>])?\s*$)`

// A secret's starts of `MIN_CUT` to all but one of its characters (the whole secret is found by the other patterns),
// in every form of each character: `c0...c5(?:c6(?:c7)?)?`.
const startsPattern = (secret: string): string | undefined => {
  const characters = Array.from(secret, characterPattern)
  if (characters.length <= MIN_CUT) return undefined
  let rest = ""
  for (let i = characters.length - 2; i >= MIN_CUT; i--) rest = `(?:${characters[i]}${rest})?`
  return characters.slice(0, MIN_CUT).join("") + rest
}

// The longest form of one character: its four UTF-8 bytes URL-encoded twice (`%25F0%259F%2598%2580`); an HTML
// reference is at most 14 (`&#x00001F600;`), `\u`-escapes 12.
const FORM_LENGTH = 20

/**
 * Removes credentials from texts, in every form listed in the module's header. Data stays exact where it is not a
 * credential; a secret is replaced by `<redacted>`.
 *
 * @since 0.1.0
 * @category models
 */
export class Scrubber {
  // Raw and base64 forms: enough for a text without `\`, `%` (nor `+`, when a secret has a space), which is most.
  private readonly plain: RegExp | undefined
  // Every form, character by character.
  private readonly full: RegExp | undefined
  private readonly plus: boolean
  // The short secrets, where labelled.
  private readonly labelled: RegExp | undefined
  // The start of any secret at the end of a text cut short.
  private readonly cut: RegExp | undefined
  // The longest form of any secret: `FORM_LENGTH` characters per character at most.
  private readonly longest: number
  // In data (`scrubData`): the secrets as whole tokens (raw and base64 forms, then every form), and those that look
  // like numbers only where labelled.
  private readonly dataPlain: RegExp | undefined
  private readonly dataFull: RegExp | undefined
  private lastSignature = ""
  private lastSignaturePattern: RegExp | undefined

  /**
   * `secrets` are removed wherever they are, in every form; a short one (under `MIN_SECRET_LENGTH`) of `labelled`
   * only where its label names it (it would match in ordinary text elsewhere), a longer one everywhere too.
   */
  constructor(secrets: ReadonlyArray<string>, labelled: ReadonlyArray<Labelled> = []) {
    const short = labelled.filter(({ label, secret }) =>
      secret.length > 0 && secret.length < MIN_SECRET_LENGTH && label.length > 0
    )
    const all = [...secrets, ...labelled.map(({ secret }) => secret)]
    const kept = [...new Set(all.filter((secret) => secret.length >= MIN_SECRET_LENGTH))].sort(byLength)
    const base64 = [...new Set(kept.flatMap(base64Forms))].sort(byLength).map(escapeRegExp)
    const plain = [...kept.map(escapeRegExp), ...base64]
    const full = [...kept.map((secret) => Array.from(secret, characterPattern).join("")), ...base64]
    this.plain = plain.length === 0 ? undefined : new RegExp(plain.join("|"), "g")
    this.full = full.length === 0 ? undefined : new RegExp(full.join("|"), "g")
    this.plus = kept.some((secret) => secret.includes(" "))
    this.labelled = short.length === 0 ? undefined : new RegExp(short.map(labelledPattern).join("|"), "g")
    const starts = [...new Set(all)].flatMap((secret) => startsPattern(secret) ?? [])
    this.cut = starts.length === 0 ? undefined : new RegExp(`(?:${starts.join("|")})${AT_CUT}`)
    this.longest = FORM_LENGTH * Math.max(kept[0]?.length ?? 0, ...short.map(({ secret }) => secret.length))
    const wordy = kept.filter((secret) => !NUMBER_LIKE.test(secret))
    const dataLabelled = labelled
      .filter(({ label, secret }) =>
        secret.length > 0 && label.length > 0 && (secret.length < MIN_SECRET_LENGTH || NUMBER_LIKE.test(secret))
      )
      .map(labelledPattern)
    const dataBase64 = [...new Set(wordy.flatMap(base64Forms))].sort(byLength).map(escapeRegExp)
    const token = (pattern: string) => `(?<![A-Za-z0-9])${pattern}(?![A-Za-z0-9])`
    const dataPlain = [...wordy.map((secret) => token(escapeRegExp(secret))), ...dataBase64, ...dataLabelled]
    const dataFull = [
      ...wordy.map((secret) => token(Array.from(secret, characterPattern).join(""))),
      ...dataBase64,
      ...dataLabelled
    ]
    this.dataPlain = dataPlain.length === 0 ? undefined : new RegExp(dataPlain.join("|"), "g")
    this.dataFull = dataFull.length === 0 ? undefined : new RegExp(dataFull.join("|"), "g")
  }

  /**
   * A scrubber of the three credentials, and of any further `secrets` (a proxy's password, say).
   *
   * @since 0.1.0
   */
  static of(credentials: Signer.Credentials, secrets: ReadonlyArray<string> = []): Scrubber {
    return new Scrubber(
      [Redacted.value(credentials.apiKey), Redacted.value(credentials.secretKey), ...secrets],
      passphraseOf(credentials)
    )
  }

  /**
   * The text without any credential, nor `signature` (a request's own), in any form; nor the start of a credential
   * (six characters or more) where the text ends, as a text cut short would end.
   *
   * @since 0.1.0
   */
  scrub(text: string, signature = ""): string {
    return this.scrubText(text, signature, true)
  }

  /**
   * A text of data (records the venue sent: amounts, ids, times, names), printed or exported, without any credential
   * the venue may have echoed into it, and otherwise exact: a secret is found only as a whole token (not inside a
   * longer run of letters and digits, such as a generated id), and a secret that looks like a number (a passphrase of
   * digits: a PIN, a year) only where its label names it, since an amount, an id or a time may contain it, or be it.
   * No cut is looked for: data is not cut short.
   *
   * @since 0.1.0
   */
  scrubData(text: string): string {
    if (this.dataFull === undefined) return text
    const encoded = text.includes("\\") || text.includes("%") || text.includes("&") || (this.plus && text.includes("+"))
    return text.replace(encoded ? this.dataFull : this.dataPlain!, REDACTED)
  }

  private scrubText(text: string, signature: string, whole: boolean): string {
    let out = text
    if (this.full !== undefined) {
      const encoded = out.includes("\\") || out.includes("%") || out.includes("&") || (this.plus && out.includes("+"))
      out = out.replace(encoded ? this.full : this.plain!, REDACTED)
    }
    if (this.labelled !== undefined) out = out.replace(this.labelled, REDACTED)
    if (signature.length >= MIN_SECRET_LENGTH) out = out.replace(this.signaturePattern(signature), REDACTED)
    if (whole && this.cut !== undefined) out = out.replace(this.cut, REDACTED)
    return out
  }

  /**
   * The start of a text, at most `length` characters, scrubbed before it is cut (no fragment of a secret survives at
   * the cut) and without scrubbing more of a long text than the start needs.
   *
   * @since 0.1.0
   */
  excerpt(text: string, length: number, signature = ""): string {
    // A secret that starts within the excerpt ends within this many more characters, in its longest form.
    const reach = length + Math.max(this.longest, FORM_LENGTH * signature.length)
    // Only the whole text's end is where a venue cut it: the end of the part scrubbed here is ours.
    const whole = text.length <= reach
    return this.scrubText(whole ? text : text.slice(0, reach), signature, whole).slice(0, length)
  }

  private signaturePattern(signature: string): RegExp {
    if (signature !== this.lastSignature || this.lastSignaturePattern === undefined) {
      this.lastSignature = signature
      const starts = startsPattern(signature)
      this.lastSignaturePattern = new RegExp(
        [
          Array.from(signature, characterPattern).join(""),
          ...base64Forms(signature).map(escapeRegExp),
          ...(starts === undefined ? [] : [`(?:${starts})${AT_CUT}`])
        ].join("|"),
        "g"
      )
    }
    return this.lastSignaturePattern
  }
}

/**
 * The passphrase of the credentials with its labels: the one secret a person chooses, which may be short (the venue's
 * documents give no least length), so it is removed where it is labelled when it is too short to be searched for
 * everywhere. Labelled `passphrase`, or `password` as the venue's own messages call it (`40012 apikey/password is
 * incorrect`).
 *
 * @since 0.1.0
 * @category constructors
 */
export const passphraseOf = (credentials: Signer.Credentials): ReadonlyArray<Labelled> => [
  { label: "passphrase", secret: Redacted.value(credentials.passphrase) },
  { label: "password", secret: Redacted.value(credentials.passphrase) }
]

// ---------------------------------------------------------------------------------------------------------------
// Printable

// C0 controls, DEL, C1 controls (U+009B is a terminal's one-character CSI), the Arabic letter mark, the bidi marks,
// embeddings, overrides and isolates, line and paragraph separators, and surrogates (a lone one is checked below).
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff]/

const isUnsafe = (code: number): boolean =>
  code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x061c || code === 0x200e || code === 0x200f ||
  (code >= 0x2028 && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069)

const SHORT_ESCAPES: Readonly<Record<number, string>> = { 9: "\\t", 10: "\\n", 13: "\\r" }

const escapeOf = (code: number): string => SHORT_ESCAPES[code] ?? `\\u${hex(code, 4)}`

/**
 * How long a network text may be in a message, by default.
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_LENGTH = 240

/**
 * The text as one harmless line: control characters, bidi controls, line separators and lone surrogates written as
 * escapes (`\n`, `\u001b`, `\u202e`), cut after `maxLength` characters with the length of the whole text said
 * (`… (104857600 characters)`). A text with nothing to escape and within the length is answered as is.
 *
 * @since 0.1.0
 * @category formatting
 */
export const printable = (text: string, maxLength: number = MAX_LENGTH): string => {
  if (text.length <= maxLength && !UNSAFE.test(text)) return text
  let out = ""
  let i = 0
  while (i < text.length && out.length < maxLength) {
    const code = text.charCodeAt(i)
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = text.charCodeAt(i + 1)
      if (next >= 0xdc00 && next <= 0xdfff) {
        out += text[i]! + text[i + 1]!
        i += 2
      } else {
        out += escapeOf(code)
        i++
      }
      continue
    }
    out += isUnsafe(code) || (code >= 0xdc00 && code <= 0xdfff) ? escapeOf(code) : text[i]!
    i++
  }
  return i < text.length ? `${out}… (${text.length} characters)` : out
}
