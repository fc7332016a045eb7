/**
 * The secrets collector: everything a run makes observable, gathered by source, and a search of it for credentials.
 *
 * Sources: log lines (every level), spans (names, attributes, events, failure causes), renderings of every exit a
 * runner records (`String`, `message`, JSON, `inspect`, `Cause.pretty`) and any other text given to `add` — the
 * CLI's stdout and stderr will be one more source, `collector.add("cli", lines)`. Every signature a client sends is
 * recorded on its way out (`tap`), so signatures can be searched for as well as the fixed credentials.
 */
import { assert } from "@effect/vitest"
import { Cause, Effect, Exit, Layer, Logger, References, Tracer } from "effect"
import { HttpClient } from "effect/http"
import { inspect } from "node:util"

const show = (value: unknown): string => inspect(value, { depth: 8, breakLength: Infinity })

/** The texts a failed or successful exit can be rendered as. */
const renderings = (exit: Exit.Exit<unknown, unknown>): Array<string> => {
  if (Exit.isSuccess(exit)) return [show(exit.value)]
  const texts = [Cause.pretty(exit.cause)]
  for (const reason of exit.cause.reasons) {
    const error = Cause.isFailReason(reason) ? reason.error : Cause.isDieReason(reason) ? reason.defect : undefined
    if (error === undefined) continue
    texts.push(String(error), show(error), JSON.stringify(error) ?? "")
    if (error instanceof Error) texts.push(error.message, error.stack ?? "")
  }
  return texts
}

const spanTexts = (span: Tracer.NativeSpan): Array<string> => {
  const texts = [span.name, show(Object.fromEntries(span.attributes)), show(span.events)]
  if (span.status._tag === "Ended" && Exit.isFailure(span.status.exit)) texts.push(Cause.pretty(span.status.exit.cause))
  return texts
}

export interface Leak {
  readonly source: string
  readonly secret: string
  readonly excerpt: string
}

// A base64 HMAC-SHA256 is 43 characters and one "=": each "=" preceded by 43 base64 characters is a candidate.
// Linear in the text (a regular expression backtracks on megabyte runs of base64 characters).
const signaturesIn = (text: string, known: ReadonlySet<string>): Array<readonly [string, number]> => {
  const found: Array<readonly [string, number]> = []
  for (let at = text.indexOf("=", 43); at >= 0; at = text.indexOf("=", at + 1)) {
    const candidate = text.slice(at - 43, at + 1)
    if (known.has(candidate)) found.push([candidate, at - 43])
  }
  return found
}

// Texts are also searched with JSON's "\/" and URL encoding undone, the forms a signature takes when a body or a
// URL quotes it.
const unescapings = (text: string): Array<string> => [
  text,
  text.replaceAll("\\/", "/"),
  text.replaceAll(/%2B/gi, "+").replaceAll(/%2F/gi, "/").replaceAll(/%3D/gi, "=")
]

export class Collector {
  private readonly texts: Array<{ readonly source: string; readonly text: string }> = []
  private readonly spans: Array<Tracer.NativeSpan> = []
  /** Every ACCESS-SIGN a tapped client sent. */
  readonly signatures = new Set<string>()

  private readonly logger = Logger.make((options) =>
    this.add("log", [Logger.formatJson.log(options), Cause.pretty(options.cause)])
  )
  private readonly tracer = Tracer.make({ span: (options) => this.track(new Tracer.NativeSpan(options)) })

  private track(span: Tracer.NativeSpan): Tracer.NativeSpan {
    this.spans.push(span)
    return span
  }

  /** Captures log lines at every level and every span, and lets spans record request headers (redacted or not). */
  readonly layer: Layer.Layer<never> = Layer.mergeAll(
    Logger.layer([this.logger]),
    Layer.succeed(References.MinimumLogLevel, "All"),
    Layer.succeed(Tracer.Tracer, this.tracer),
    Layer.succeed(HttpClient.TracerHeaderFilter, () => true)
  )

  /** The client, recording the signature of every request it sends. */
  tap(client: HttpClient.HttpClient): HttpClient.HttpClient {
    return HttpClient.tapRequest(client, (request) =>
      Effect.sync(() => {
        const signature = request.headers["access-sign"]
        if (signature !== undefined) this.signatures.add(signature)
      }))
  }

  /** Adds texts of a source (e.g. "cli" for a command's output). */
  add(source: string, texts: Iterable<string>): void {
    for (const text of texts) this.texts.push({ source, text })
  }

  /** Adds the renderings of an exit. */
  exit(source: string, exit: Exit.Exit<unknown, unknown>): void {
    this.add(source, renderings(exit))
  }

  /** Texts by source, spans included. */
  get sources(): Record<string, number> {
    const counts: Record<string, number> = { span: this.spans.length }
    for (const { source } of this.texts) counts[source] = (counts[source] ?? 0) + 1
    return counts
  }

  /** Every text gathered, the spans' included, with its source. */
  get all(): Array<{ readonly source: string; readonly text: string }> {
    const spans = this.spans.flatMap((span) => spanTexts(span).map((text) => ({ source: "span", text })))
    return [...this.texts, ...spans]
  }

  /** Each text that holds a credential (or its first 10 characters) or a recorded signature, once per secret. */
  leaks(credentials: ReadonlyArray<string>): Array<Leak> {
    const needles = [...new Set(credentials.flatMap((secret) => [secret, secret.slice(0, 10)]))]
    const spans = this.spans.flatMap((span) => spanTexts(span).map((text) => ({ source: "span", text })))
    const found: Array<Leak> = []
    for (const { source, text } of [...this.texts, ...spans]) {
      const forms = [...new Set(unescapings(text))]
      const excerpt = (form: string, at: number) => form.slice(Math.max(0, at - 40), at + 60)
      for (const needle of needles) {
        const form = forms.find((f) => f.includes(needle))
        if (form !== undefined) found.push({ source, secret: needle, excerpt: excerpt(form, form.indexOf(needle)) })
      }
      const signatures = new Map<string, string>()
      for (const form of forms) {
        for (const [signature, at] of signaturesIn(form, this.signatures)) signatures.set(signature, excerpt(form, at))
      }
      for (const at of signatures.values()) found.push({ source, secret: "a signature", excerpt: at })
    }
    return found
  }
}

/** Fails with the first leaks, by source, unless there is none. */
export const assertNoLeak = (collector: Collector, credentials: ReadonlyArray<string>): void => {
  const leaks = collector.leaks(credentials)
  assert.deepStrictEqual(leaks.slice(0, 10), [], `${leaks.length} leaks`)
}
