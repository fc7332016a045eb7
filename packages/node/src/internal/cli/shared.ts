// What the `spotkit` commands share: the reported failure (one line on stderr and an exit code), `handled` (how a
// command's errors become that line), the client from the environment (`client`), what a command prints, and the
// flags that recur. Each command group is a module beside this one; `Cli.ts` assembles the tree.
//
// A command is one flat effect: `Effect.fnUntraced(function*(flags) { const client = yield* Shared.client(); ... },
// Shared.handled)`.
import { SafeText, SpotClient, SpotError, type Telemetry, Venue } from "@spotkit/core"
import type { Config } from "effect"
import { Clock, Context, Data, Effect, FileSystem, Layer, Option, Runtime, type Scope } from "effect"
import { Flag } from "effect/cli"
import { HttpClient } from "effect/http"
import * as NodeSpotClient from "../../NodeSpotClient.ts"
import * as Formats from "../formats.ts"
import * as Output from "../output.ts"
import * as Records from "../records.ts"
import * as Environment from "./environment.ts"

/** The command's name. */
export const NAME = "spotkit"

/** An expected failure, already reported on stderr as one line; `exitCode` 1 (venue, network, output) or 2 (usage). */
export class CliFailure extends Data.TaggedError("CliFailure")<{
  readonly message: string
  readonly exitCode: number
}> {
  override readonly [Runtime.errorReported] = false
  // The process's exit code (`CliRuntime.exitCode`).
  override get [Runtime.errorExitCode](): number {
    return this.exitCode
  }
}

// How long one reported line may be: a message quoting a venue's text is cut well before; this bounds the rest.
const LINE = 2000

const report = (message: string, exitCode: number) =>
  Effect.flatMap(
    Effect.service(Output.Output),
    ({ stderr }) =>
      // One line whatever the message holds: no control character, bidi override or newline reaches the terminal.
      stderr.write(`${NAME}: ${SafeText.printable(message, LINE)}\n`).pipe(
        Effect.ignore,
        Effect.andThen(Effect.fail(new CliFailure({ message, exitCode })))
      )
  )

/** Bad usage or input: nothing was sent. */
export const usage = (message: string) => report(message, 2)

/** The venue's answer is not what the command was asked for (an order it does not know): exit code 1. */
export const failure = (message: string) => report(message, 1)

/** A line on stderr (a summary, a note): `spotkit: ` and the text, made printable. */
export const note = (message: string) =>
  Effect.flatMap(
    Effect.service(Output.Output),
    ({ stderr }) => stderr.write(`${NAME}: ${SafeText.printable(message, LINE)}\n`)
  )

/**
 * Whether a command's write may have left the process. Every request that changes state at the venue is a POST
 * (`Venue.endpoints`), and every request passes the client's `transformClient` just before the platform's client
 * sends it: a request other than a GET handed on there may be the write (or a read the venue serves by POST, which
 * errs on the safe side). Until one is, nothing that could change state was sent — the command was interrupted while
 * it loaded the symbol rules, asked the venue's time or waited for a rate-limit permit.
 */
export interface SendWatch {
  /** For the client's options (`Listener.transformClient`): notes each request other than a GET it hands on. */
  readonly transformClient: (client: HttpClient.HttpClient) => HttpClient.HttpClient
  /** Whether a request other than a GET was handed to the transport. */
  readonly sent: () => boolean
}

/** A new `SendWatch`, for one command's client. */
export const sendWatch = (): SendWatch => {
  let sent = false
  return {
    transformClient: (client) =>
      HttpClient.tapRequest(client, (request) => Effect.sync(() => void (sent ||= request.method !== "GET"))),
    sent: () => sent
  }
}

/**
 * What a command that changes state at the venue says about its request (`sending`). `doing` is what it was doing
 * ("placing the order (clientOrderId X)"); `unknown` is what may have happened when its outcome is not known, and the
 * command that tells ("it may have been placed; check with `...`"). The two say the same whether Ctrl-C cut the
 * request short or it failed with its outcome unknown.
 */
export interface Say<A> {
  readonly doing: string
  readonly unknown: string
  /** What the venue did, once it answered: "writing the result: the order was placed (orderId ...)". */
  readonly answered: (answer: A) => string
  /** Said in place of `doing` when the watch saw nothing that could be the write leave: nothing was sent. */
  readonly unsent?: { readonly watch: SendWatch; readonly line: string } | undefined
}

// Reasons after which a request that changes state may or may not have been applied: the client's own lookup could
// not tell (an order or a transfer), a retry met the order's own clientOrderId and could not find it, or the answer
// was lost (a transport failure once connected, a 5xx: `Venue.mayHaveApplied`).
const outcomeUnknown = (error: unknown): error is SpotError.SpotError => {
  if (!SpotError.isSpotError(error)) return false
  const reason = error.reason
  return reason._tag === "OutcomeUnknownError" ||
    (reason._tag === "DuplicateOrderError" && reason.afterRetry) ||
    Venue.mayHaveApplied(reason)
}

/**
 * `call`, a request that changes state at the venue, then `then` with its answer (the result printed), said on
 * stderr wherever its outcome would otherwise be lost:
 *
 * - Ctrl-C or SIGTERM interrupts either: `spotkit: interrupted <what>`. While the call runs, `what` is
 *   `while <doing>: <unknown>` — or, when `unsent` is given and its watch saw nothing that could be the write handed
 *   to the transport, `before <unsent.line>`: nothing was sent. Once the venue answered, it is
 *   `while <answered(answer)>`: what the venue did, since the interruption then cuts off only the printing (a stdout
 *   nobody reads holds it up).
 * - The call fails with its outcome unknown (`OutcomeUnknownError`, a lost answer, ...) once the write may have left:
 *   the error's line ends with `; <unknown>` (exit code 1), so that the command that tells is named there too.
 * - The answer cannot be printed because stdout's reader went away (EPIPE): `spotkit: stdout was closed while
 *   <answered(answer)>` on stderr, exit code 0 (the venue did what was asked; the result was said).
 */
export const sending = <A, E, R, B, E2, R2>(
  call: Effect.Effect<A, E, R>,
  say: Say<A>,
  then: (answer: A) => Effect.Effect<B, E2, R2>
): Effect.Effect<B, E | E2 | CliFailure, R | R2 | Output.Output> =>
  Effect.suspend(() => {
    let answer: { readonly value: A } | undefined
    const sent = () => say.unsent === undefined || say.unsent.watch.sent()
    const what = () =>
      answer !== undefined
        ? `while ${say.answered(answer.value)}`
        : !sent() && say.unsent !== undefined
        ? `before ${say.unsent.line}`
        : `while ${say.doing}: ${say.unknown}`
    const called = Effect.catch(
      call,
      (error): Effect.Effect<never, E | CliFailure, Output.Output> =>
        outcomeUnknown(error) && sent() ? failure(`${spotErrorLine(error)}; ${say.unknown}`) : Effect.fail(error)
    )
    return Effect.onInterrupt(
      Effect.flatMap(called, (value) => {
        answer = { value }
        return Effect.catch(
          then(value),
          (error): Effect.Effect<never, E2 | CliFailure, Output.Output> =>
            error instanceof Output.OutputError && error.code === "EPIPE"
              ? Effect.andThen(
                Effect.ignore(note(`stdout was closed while ${say.answered(value)}`)),
                Effect.fail(new CliFailure({ message: error.message, exitCode: 0 }))
              )
              : Effect.fail(error)
        )
      }),
      () => Effect.ignore(note(`interrupted ${what()}`))
    )
  })

/**
 * A `--since` (ms) for the records a call starting now may create: ten minutes before the local clock, as the venue's
 * clock may be behind it by minutes (the client stamps its requests with the venue's time, so such a machine trades
 * as every other). Records listed from a little earlier cost nothing; one left out would be placed again.
 */
export const sinceNow: Effect.Effect<number> = Effect.map(
  Clock.currentTimeMillis,
  (now) => Math.max(0, now - 10 * 60_000)
)

/** The errors a command may end with, each turned into one line and an exit code by `handled`. */
export type CommandError = SpotError.SpotError | Config.ConfigError | Output.OutputError | CliFailure

// Reasons the client gives before anything is sent: the input is bad (exit code 2), as flags the CLI refuses are.
const BEFORE_SENDING: ReadonlySet<string> = new Set(["ValidationError", "SymbolRuleError"])

// The variable to look at when the venue refused the credentials, by its code: an unknown key (40006), a signature
// that does not match (40009: the secret), a passphrase that does not belong to the key (40012).
const CREDENTIAL_HINTS: ReadonlyMap<string, string> = new Map([
  ["40006", "SPOTKIT_API_KEY"],
  ["40009", "SPOTKIT_SECRET_KEY"],
  ["40012", "SPOTKIT_PASSPHRASE (and SPOTKIT_API_KEY)"]
])

/**
 * `line`, with the variable to check when `error` is the venue refusing the credentials (`error` a REST call's, the
 * one `line` tells of or quotes).
 */
export const withCredentialHint = (line: string, error: SpotError.SpotError): string => {
  const reason = error.reason
  const variable = reason._tag === "AuthenticationError" && reason.code !== undefined
    ? CREDENTIAL_HINTS.get(reason.code)
    : undefined
  return variable === undefined ? line : `${line}; check ${variable}`
}

// An endpoint's path answered 404 (the venue's 40404, or a page without its envelope): every endpoint of the venue
// exists, so the requests went to the wrong place (a gateway's prefix, another host).
const withUrlHint = (line: string, error: SpotError.SpotError): string => {
  const reason = error.reason
  const notFound = (reason._tag === "ApiError" || reason._tag === "HttpStatusError") && reason.httpStatus === 404
  return notFound ? `${line}; check SPOTKIT_BASE_URL: the venue has no such path` : line
}

// A SpotError's line, with the variable to check when the venue refused the credentials or knows no such path.
const spotErrorLine = (error: SpotError.SpotError): string =>
  withUrlHint(withCredentialHint(error.message, error), error)

const explain = (error: CommandError): Effect.Effect<never, CliFailure, Output.Output> => {
  switch (error._tag) {
    case "CliFailure":
      return Effect.fail(error)
    case "SpotError":
      return report(spotErrorLine(error), BEFORE_SENDING.has(error.reason._tag) ? 2 : 1)
    case "OutputError":
      // The reader of stdout went away (`spotkit ... | head`): a normal way to stop, as for other Unix tools.
      return error.code === "EPIPE" ?
        Effect.fail(new CliFailure({ message: error.message, exitCode: 0 })) :
        report(error.message, 1)
    default:
      return usage(`${new SpotClient.ConfigurationError(error).message}; see ${NAME} --help`)
  }
}

const defectMessage = (defect: unknown): string =>
  `unexpected failure: ${defect instanceof Error ? `${defect.name}: ${defect.message}` : String(defect)}`

/**
 * A command's effect with its scope closed (the client's connections, files) and its errors reported: each one line
 * on stderr and an exit code (`CliFailure`). A defect (a bug, or a failure nothing expected) is one line too, exit
 * code 1: never a stack trace, never on stdout.
 */
export const handled = <A, R>(
  effect: Effect.Effect<A, CommandError, R>
): Effect.Effect<A, CliFailure, Exclude<R, Scope.Scope> | Output.Output> =>
  effect.pipe(
    Effect.scoped,
    Effect.catchDefect((defect) => report(defectMessage(defect), 1)),
    Effect.catch(explain)
  )

/** What a command hears of the client's waits (`client`'s `listen`): its events, and where a line is said. */
export interface Listener {
  /** A wait, a 429, a retry (a progress line shows what it waits for). */
  readonly onEvent?: ((event: Telemetry.Event) => Effect.Effect<void>) | undefined
  /** Writes a line (with its newline) on stderr, e.g. in place of a progress line. @default stderr as it is */
  readonly say?: ((line: string) => Effect.Effect<void, Output.OutputError>) | undefined
  /** The client's `transformClient` (a `SendWatch`'s). @default none */
  readonly transformClient?: ((client: HttpClient.HttpClient) => HttpClient.HttpClient) | undefined
}

/** The line that announces a 429 and the pause it starts. */
export const pauseLine = (retryAfterMillis: number | undefined): string =>
  `${NAME}: the venue answered 429 (too many requests); every request waits ${
    retryAfterMillis === undefined
      ? "one rate-limit window"
      : `${Math.ceil(retryAfterMillis / 1000)} s, as it asked (Retry-After),`
  } before it is sent again\n`

/**
 * The configuration from the environment (every `SPOTKIT_*` variable checked first: `Environment.read`; with `push`,
 * `SPOTKIT_PUSH_URL` required too). From here on every text the command writes (data on stdout or in a file, lines on
 * stderr, its errors) has the credentials removed, in any encoding a venue could echo them in: `Output.protect`, the
 * one place that does it.
 */
export const environment = (
  access: Environment.Access,
  push = false
): Effect.Effect<Environment.Options, CliFailure, Output.Output> =>
  Effect.gen(function*() {
    const options = yield* Environment.read(access, push).pipe(
      Effect.catch((problem) =>
        typeof problem === "string" ? usage(`${problem}; see ${NAME} --help`) : explain(problem)
      )
    )
    yield* (yield* Output.Output).protect(options.credentials)
    return options
  })

/**
 * The client of a configuration (`environment`), for the command's scope. The first 429 of a run is announced on
 * stderr, whatever the log level (`pauseLine`); `listen` hears every wait, 429 and retry.
 */
export const clientOf = (
  options: Environment.Options,
  listen: Listener = {}
): Effect.Effect<SpotClient.Service, SpotError.SpotError, Output.Output | Scope.Scope> =>
  Effect.gen(function*() {
    const output = yield* Output.Output
    const say = listen.say ?? output.stderr.write
    let announced = false
    const onEvent = (event: Telemetry.Event) =>
      Effect.andThen(
        event._tag !== "RateLimited" || announced
          ? Effect.void
          : Effect.suspend(() => {
            announced = true
            return Effect.ignore(say(pauseLine(event.retryAfterMillis)))
          }),
        listen.onEvent === undefined ? Effect.void : listen.onEvent(event)
      )
    // The default undici transport, the fastest for an export at less memory (BENCHMARKS.md).
    const context = yield* Layer.build(
      NodeSpotClient.layer({ ...options, onEvent, transformClient: listen.transformClient })
    )
    return Context.get(context, SpotClient.SpotClient)
  })

/**
 * The client from the environment (`environment`, then `clientOf`), for the command's scope. `public` access needs
 * only `SPOTKIT_BASE_URL`.
 */
export const client = (
  access: Environment.Access = "private",
  listen: Listener = {}
): Effect.Effect<SpotClient.Service, CliFailure | SpotError.SpotError, Output.Output | Scope.Scope> =>
  Effect.flatMap(environment(access), (options) => clientOf(options, listen))

/** Writes to stdout. */
export const write = (text: string) => Effect.flatMap(Effect.service(Output.Output), ({ stdout }) => stdout.write(text))

/** Data from the venue with the credentials removed from every text in it, before it is formatted. */
export const redacted = Output.redacted

/** A value as indented JSON, one document. */
export const json = Formats.json

/**
 * A command's result on stdout: one line of text (printable: it may quote the venue's ids), or the value as JSON with
 * `--format json` (`resultFormat`); credentials removed either way.
 */
export const writeResult = <A>(format: "text" | "json", value: A, line: (value: A) => string) =>
  Effect.flatMap(
    redacted(value),
    (clean) => write(format === "json" ? json(clean) : `${SafeText.printable(line(clean), LINE)}\n`)
  )

/** How CSV cells go to stdout: safe unless `--csv-raw`, escaped when stdout is a terminal. */
export const csvMode = (raw: boolean) =>
  Effect.map(Effect.service(Output.Output), ({ stdout }): Formats.CsvMode => ({ safe: !raw, terminal: stdout.isTTY }))

/** How records are printed: `--format` and `--csv-raw`. */
export interface ListFormat {
  readonly format: "table" | "csv" | "json" | "ndjson"
  readonly csvRaw: boolean
}

/** Records as a table, CSV (with a header row), one JSON array, or NDJSON; credentials removed. */
export const formatRecords = <A>(shape: Records.Shape<A>, records: ReadonlyArray<A>, as: ListFormat) =>
  Effect.gen(function*() {
    const clean = yield* redacted(records)
    switch (as.format) {
      case "table":
        return Records.table(shape, clean)
      case "json":
        return json(clean)
      case "ndjson":
        return Formats.ndjson(clean)
      case "csv": {
        const mode = yield* csvMode(as.csvRaw)
        return Formats.csv([shape.columns], mode) + Records.csv(shape, clean, mode)
      }
    }
  })

/** Records on stdout (`formatRecords`). */
export const writeRecords = <A>(shape: Records.Shape<A>, records: ReadonlyArray<A>, as: ListFormat) =>
  Effect.flatMap(formatRecords(shape, records, as), write)

/** An optional flag's value, as the client's optional fields take it. */
export const optional = <A>(option: Option.Option<A>): A | undefined => Option.getOrUndefined(option)

/** Why a file could not be read, in words (the platform's tag names are not for users). */
const readProblem = (reason: { readonly _tag: string; readonly message: string }): string => {
  switch (reason._tag) {
    case "NotFound":
      return "no such file"
    case "BadResource":
      return "not a readable file (a directory?)"
    case "PermissionDenied":
      return "permission denied"
    default:
      return reason.message
  }
}

/** The text of the file a flag names; a file that cannot be read is bad input (exit code 2). */
export const readFlagFile = (flag: string, path: string) =>
  Effect.flatMap(
    Effect.service(FileSystem.FileSystem),
    (fs) =>
      fs.readFileString(path).pipe(
        Effect.catch((error) => usage(`${flag}: cannot read ${path}: ${readProblem(error.reason)}`))
      )
  )

/** `--symbol`. */
export const symbol = Flag.String("symbol").pipe(Flag.withDescription("The symbol, e.g. BTCUSDT_SPBL"))

/** `--format` of a command's output: one of `choices`, the first by default. */
export const format = <const A extends string>(choices: readonly [A, ...Array<A>], description: string) =>
  Flag.Literals("format", choices).pipe(Flag.withDescription(description), Flag.withDefault(choices[0]))

/** `--format` of a command whose result is one line of text or a JSON document. */
export const resultFormat = format(["text", "json"], "text or json")

/** `--csv-raw`, wherever CSV is written. */
export const csvRaw = Flag.Boolean("csv-raw").pipe(
  Flag.withDescription(
    "Write CSV cells exactly as the venue sent them. By default a cell a spreadsheet would run as a formula (one " +
      "starting with =, +, @, a tab, a carriage return, or a - that does not start a number) is written with a " +
      "leading ' (OWASP's advice against CSV injection)"
  ),
  Flag.withDefault(false)
)

/**
 * `--format` (`table` by default) and `--csv-raw` of a command that prints records: a table (times as ISO-8601 in
 * UTC), CSV with a header row (times as millisecond epochs), and the `others` given (json, ndjson).
 */
export const listFlags = <const A extends string>(others: readonly [A, ...Array<A>], description: string) => ({
  format: format<"table" | "csv" | A>(["table", "csv", ...others], description),
  csvRaw
})
