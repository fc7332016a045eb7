/**
 * How the `spotkit` command runs as a Node process (`spotkit-sandbox` follows the same rules in the testkit, which
 * does not depend on this package): bad flags reported as one line on stderr, the exit codes (2 for bad usage, a
 * chosen code after SIGINT or SIGTERM, an error's own `Runtime.errorExitCode` otherwise), the version from the
 * package's `package.json`, and the `main` that runs a command with them: log lines on stderr (stdout is for data),
 * and a failure nothing reported (a defect) as one line on stderr, never a stack trace.
 *
 * @since 0.1.0
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { SafeText } from "@spotkit/core"
import { Cause, Console, Effect, Exit, Layer, Logger, Runtime, Stdio } from "effect"
import { CliError, CliOutput, Command } from "effect/cli"
import { createRequire } from "node:module"
import { fileURLToPath } from "node:url"

/**
 * The one line (without its newline) that reports bad flags or values: `<name>: unrecognized flag --x (did you mean
 * --y?) (see --help)`, several errors joined by `; `.
 *
 * @since 0.1.0
 * @category formatting
 */
export const usageLine = (name: string, errors: ReadonlyArray<CliError.NonShowHelpErrors>): string =>
  // One printable line: the errors quote the command line, which may hold a terminal's escape sequences.
  SafeText.printable(
    `${name}: ${
      errors.map((error) =>
        error._tag === "UnrecognizedOption" && error.suggestions.length > 0
          ? `unrecognized flag ${error.option} (did you mean ${error.suggestions.join(" or ")}?)`
          : error.message.split("\n").map((line) => line.trim()).filter((line) => line.length > 0).join(" ")
      ).join("; ")
    } (see --help)`,
    4096
  )

/**
 * Options of `layerPresenter`.
 *
 * @since 0.1.0
 * @category models
 */
export interface PresenterOptions {
  /** The command's name, which starts the line. */
  readonly name: string
  /**
   * Writes the line (without its newline) to stderr; failures to write are ignored.
   *
   * @default Console.error
   */
  readonly write?: ((line: string) => Effect.Effect<void, unknown>) | undefined
}

/**
 * Bad flags as one line on stderr (`usageLine`, no help page); a command run without the subcommand it needs (bare
 * `spotkit`) as its help page on stderr (it exits with 2: `exitCode`); `--help` and `--version` as usual, on stdout.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerPresenter = (options: PresenterOptions): Layer.Layer<never> => {
  const write = options.write ?? Console.error
  return CliOutput.layerPresenter({
    present: (event) =>
      event._tag === "InvalidInvocation"
        ? Effect.ignore(write(usageLine(options.name, event.errors)))
        : event._tag === "Help" && event.reason === "Implicit"
        ? Effect.gen(function*() {
          const formatter = yield* CliOutput.Formatter
          yield* Effect.ignore(write(formatter.formatHelpDoc(event.helpDoc)))
        })
        : CliOutput.defaultPresenter.present(event)
  })
}

/**
 * The exit code of a run: 0 on success, `interrupted` when it was interrupted, 2 for bad usage (the `ShowHelp` error
 * of `effect/cli`: bad flags or values, or a command run without the subcommand it needs, as bare `spotkit`; `--help`
 * itself succeeds), otherwise the error's `Runtime.errorExitCode` (1 when it has none), as `Runtime.defaultTeardown`
 * gives it.
 *
 * @since 0.1.0
 * @category exit codes
 */
export const exitCode = (exit: Exit.Exit<unknown, unknown>, options: { readonly interrupted: number }): number => {
  if (Exit.isSuccess(exit)) return 0
  if (Cause.hasInterruptsOnly(exit.cause)) return options.interrupted
  const error = Cause.squash(exit.cause)
  if (CliError.isCliError(error) && error._tag === "ShowHelp") return 2
  return Runtime.getErrorExitCode(error)
}

/**
 * The `version` of a `package.json`, e.g. `packageVersion(new URL("../../package.json", import.meta.url))`; "0.0.0"
 * when it has none.
 *
 * @since 0.1.0
 * @category constructors
 */
export const packageVersion = (url: URL): string => {
  const pkg: unknown = createRequire(url)(fileURLToPath(url))
  return typeof pkg === "object" && pkg !== null && "version" in pkg && typeof pkg.version === "string"
    ? pkg.version
    : "0.0.0"
}

/**
 * The one line (without its newline) that reports a failure nothing else reported: `<name>: unexpected failure: ...`,
 * control characters escaped and cut at 2,000 characters; undefined when there is none to report (success, an
 * interruption, an error marked as reported).
 *
 * @since 0.1.0
 * @category formatting
 */
export const unreportedLine = (name: string, exit: Exit.Exit<unknown, unknown>): string | undefined => {
  if (Exit.isSuccess(exit) || Cause.hasInterruptsOnly(exit.cause)) return undefined
  const error = Cause.squash(exit.cause)
  if (!Runtime.getErrorReported(error)) return undefined
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error)
  return `${name}: unexpected failure: ${SafeText.printable(text, 2000)}`
}

/**
 * Options of `runMain`.
 *
 * @since 0.1.0
 * @category models
 */
export interface MainOptions<L> {
  /** What `--version` prints. */
  readonly version: string
  /** What the command needs besides the Node services, its presenter of usage errors included. */
  readonly layer: Layer.Layer<L>
  /**
   * The exit code after SIGINT or SIGTERM (the runtime interrupts the program on both).
   *
   * @default 128 + the signal's number (130, 143), as shells report it
   */
  readonly interrupted?: ((signal: "SIGINT" | "SIGTERM") => number) | undefined
}

/**
 * Runs a command as the process's main program: parses the arguments, provides the Node services and `layer`, and
 * exits with `exitCode`.
 *
 * @since 0.1.0
 * @category running
 */
export const runMain = <Name extends string, Input, ContextInput, E, L, R extends NodeServices.NodeServices | L>(
  command: Command.Command<Name, Input, ContextInput, E, R>,
  options: MainOptions<L>
): void => {
  // Which signal interrupted the program decides the exit code.
  let signal: "SIGINT" | "SIGTERM" = "SIGINT"
  process.once("SIGTERM", () => {
    signal = "SIGTERM"
  })
  const interrupted = options.interrupted ?? ((received) => received === "SIGTERM" ? 143 : 130)
  const run = Command.runWith(command, { version: options.version })
  // `pnpm <script> -- --flag` passes the `--` on; the commands take no positional arguments, so a leading `--` is
  // dropped rather than turning every flag after it into one.
  Stdio.Stdio.use(({ args }) => Effect.flatMap(args, (argv) => run(argv[0] === "--" ? argv.slice(1) : argv))).pipe(
    Effect.provide(Layer.merge(NodeServices.layer, options.layer)),
    // The default logger writes to stdout, which holds the command's data: stderr, where `layer` installs no logger of
    // its own (the `spotkit` CLI's writes through its output layer, scrubbed and printable: `Cli.layer`).
    Effect.provideService(Logger.LogToStderr, true),
    // Instead of the runtime's report of an unexpected failure (a multi-line log with a stack trace): one line.
    Effect.tapCause((cause) => {
      const line = unreportedLine(command.name, Exit.failCause(cause))
      return line === undefined ? Effect.void : Effect.ignore(Console.error(line))
    }),
    NodeRuntime.runMain({
      disableErrorReporting: true,
      teardown: (exit, onExit) => onExit(exitCode(exit, { interrupted: interrupted(signal) }))
    })
  )
}
