// What the `spotkit` commands share: the reported failure (one line on stderr and an exit code), the client from the
// environment, stdout, and the flags that recur. Each command group is a module beside this one; `Cli.ts` assembles
// the tree.
import { SafeText, SpotClient, type SpotError } from "@spotkit/core"
import { Config, Data, Effect, FileSystem, Option, Runtime, Schema } from "effect"
import { Flag } from "effect/cli"
import * as NodeSpotClient from "../../NodeSpotClient.ts"
import * as Formats from "../formats.ts"
import * as Output from "../output.ts"

/** The command's name. */
export const NAME = "spotkit"

/** The largest answer body the CLI reads by default: 16 MiB. */
export const CLI_MAX_RESPONSE_BYTES = 16 * 1024 * 1024

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

// Errors of a command, each turned into one line and an exit code. A ValidationError was caught by the client
// before anything was sent (bad input: 2); every other SpotError reason comes from the venue or the network (1). A
// defect (a bug, or a failure nothing expected) is one line too, exit code 1: never a stack trace, never on stdout.
type CommandError = SpotError.SpotError | Config.ConfigError | Output.OutputError | CliFailure

const defectMessage = (defect: unknown): string =>
  `unexpected failure: ${defect instanceof Error ? `${defect.name}: ${defect.message}` : String(defect)}`

const reported = <A, R>(effect: Effect.Effect<A, CommandError, R>) =>
  effect.pipe(
    Effect.catchDefect((defect) => report(defectMessage(defect), 1)),
    Effect.catch(explain)
  )

const explain = (error: CommandError): Effect.Effect<never, CliFailure, Output.Output> => {
  switch (error._tag) {
    case "CliFailure":
      return Effect.fail(error)
    case "SpotError":
      return report(error.message, error.reason._tag === "ValidationError" ? 2 : 1)
    case "OutputError":
      // The reader of stdout went away (`spotkit ... | head`): a normal way to stop, as for other Unix tools.
      return error.code === "EPIPE" ?
        Effect.fail(new CliFailure({ message: error.message, exitCode: 0 })) :
        report(error.message, 1)
    default: {
      const explained = error instanceof SpotClient.ConfigurationError
        ? error
        : new SpotClient.ConfigurationError(error)
      return usage(
        explained.variable === undefined
          ? explained.message
          : explained.problem === "missing"
          ? `environment variable ${explained.variable} is not set; see ${NAME} --help`
          : `environment variable ${explained.message}; see ${NAME} --help`
      )
    }
  }
}

// The client from the environment (a proxy from HTTPS_PROXY, HTTP_PROXY, NO_PROXY included), over the default
// undici transport, the fastest for an export at less memory (BENCHMARKS.md). It reads at most 16 MiB of an answer
// (SPOTKIT_MAX_RESPONSE_BYTES), not the library's 64 MiB: its largest answer, a page of 100 records, is some tens of
// kilobytes, and an endless body then costs it at most that much (RELIABILITY.md).
const config: Config.Wrap<NodeSpotClient.Options> = {
  ...NodeSpotClient.defaultConfig,
  maxResponseBytes: Config.schema(Schema.Int.check(Schema.isGreaterThan(0)), "SPOTKIT_MAX_RESPONSE_BYTES").pipe(
    Config.withDefault(CLI_MAX_RESPONSE_BYTES)
  )
}

/**
 * Runs a command's body with a client from the environment, reporting its errors. Everything the body writes (data on
 * stdout or in a file, lines on stderr, its errors) has the credentials removed, in any encoding a venue could echo
 * them in.
 */
export const withClient = <A>(
  body: (client: SpotClient.Service) => Effect.Effect<A, CommandError, Output.Output | FileSystem.FileSystem>
) =>
  reported(Effect.gen(function*() {
    const options = yield* SpotClient.readConfig(config)
    const scrubber = SafeText.Scrubber.of(options.credentials)
    const redact = (text: string) => scrubber.scrub(text)
    const { stderr, stdout } = yield* Output.Output
    return yield* reported(
      Effect.flatMap(Effect.service(SpotClient.SpotClient), body).pipe(Effect.provide(NodeSpotClient.layer(options)))
    ).pipe(
      Effect.provideService(Output.Output, {
        stdout: Output.redacting(stdout, redact),
        stderr: Output.redacting(stderr, redact)
      }),
      Effect.provideService(Output.Redact, redact)
    )
  }))

/** Writes to stdout. */
export const write = (text: string) => Effect.flatMap(Effect.service(Output.Output), ({ stdout }) => stdout.write(text))

/** A value as indented JSON, one document (characters a terminal acts on escaped, as `Formats.safeJson`). */
export const json = (value: unknown) => Formats.safeJson(JSON.stringify(value, null, 2)) + "\n"

/**
 * Data from the venue with the credentials removed from every text in it (`Output.redactStrings`), before it is
 * formatted: the key, the secret and the passphrase never reach stdout or a file, even echoed in an id.
 */
export const redacted = <A>(value: A): Effect.Effect<A> =>
  Effect.map(Effect.service(Output.Redact), (redact) => Output.redactStrings(value, redact))

/**
 * A command's result on stdout: one line of text (printable: it may quote the venue's ids), or the value as JSON with
 * `--format json` (`resultFormat`); credentials removed either way.
 */
export const writeResult = <A>(format: "text" | "json", value: A, line: (value: A) => string) =>
  Effect.flatMap(
    redacted(value),
    (clean) => write(format === "json" ? json(clean) : `${SafeText.printable(line(clean), LINE)}\n`)
  )

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
