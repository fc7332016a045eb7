// How `spotkit-sandbox` runs as a Node process, on the Node runtime and services of `@effect/platform-node-shared`
// (what `@effect/platform-node` re-exports, without its Redis peer) and `effect/cli` alone, since the testkit does not
// depend on the Node package: bad flags as one line on stderr, exit code 2; after SIGINT or SIGTERM the code the caller
// chooses; otherwise the error's `Runtime.errorExitCode` (1 when it has none); log lines on stderr (stdout is the
// command's data); a failure nothing reported (a defect) as one line, never a stack trace.
import * as NodeChildProcessSpawner from "@effect/platform-node-shared/NodeChildProcessSpawner"
import * as NodeFileSystem from "@effect/platform-node-shared/NodeFileSystem"
import * as NodePath from "@effect/platform-node-shared/NodePath"
import * as NodeRuntime from "@effect/platform-node-shared/NodeRuntime"
import * as NodeStdio from "@effect/platform-node-shared/NodeStdio"
import * as NodeTerminal from "@effect/platform-node-shared/NodeTerminal"
import { SafeText } from "@spotkit/core"
import type { FileSystem, Path, Terminal } from "effect"
import { Cause, Console, Effect, Exit, Layer, Logger, Runtime, Stdio } from "effect"
import { CliError, CliOutput, Command } from "effect/cli"
import type { ChildProcessSpawner } from "effect/process"
import { readFileSync } from "node:fs"

/** What a command gets from Node: files, paths, stdio, the terminal, child processes. */
type NodeServices =
  | ChildProcessSpawner.ChildProcessSpawner
  | FileSystem.FileSystem
  | Path.Path
  | Stdio.Stdio
  | Terminal.Terminal

const nodeServices: Layer.Layer<NodeServices> = Layer.provideMerge(
  NodeChildProcessSpawner.layer,
  Layer.mergeAll(NodeFileSystem.layer, NodePath.layer, NodeStdio.layer, NodeTerminal.layer)
)

/** `<name>: <what is wrong> (see --help)`, several errors joined by `; `, on one line. */
export const usageLine = (name: string, errors: ReadonlyArray<CliError.NonShowHelpErrors>): string => {
  const parts = errors.map((error) =>
    error._tag === "UnrecognizedOption" && error.suggestions.length > 0
      ? `unrecognized flag ${error.option} (did you mean ${error.suggestions.join(" or ")}?)`
      : error.message.split("\n").map((line) => line.trim()).filter((line) => line.length > 0).join(" ")
  )
  return `${name}: ${parts.join("; ")} (see --help)`
}

/** Bad flags as one line on stderr (no help page); `--help` and `--version` as usual. */
const presenter = (name: string): Layer.Layer<never> =>
  CliOutput.layerPresenter({
    present: (event) =>
      event._tag === "InvalidInvocation"
        ? Effect.ignore(Console.error(usageLine(name, event.errors)))
        : CliOutput.defaultPresenter.present(event)
  })

/** 0 on success, `interrupted` after an interruption, 2 for bad flags, else the error's own exit code. */
export const exitCode = (exit: Exit.Exit<unknown, unknown>, interrupted: number): number => {
  if (Exit.isSuccess(exit)) return 0
  if (Cause.hasInterruptsOnly(exit.cause)) return interrupted
  const error = Cause.squash(exit.cause)
  if (CliError.isCliError(error) && error._tag === "ShowHelp" && error.errors.length > 0) return 2
  return Runtime.getErrorExitCode(error)
}

/** The one line that reports a failure nothing else reported, printable and cut short; none otherwise. */
export const unreportedLine = (name: string, exit: Exit.Exit<unknown, unknown>): string | undefined => {
  if (Exit.isSuccess(exit) || Cause.hasInterruptsOnly(exit.cause)) return undefined
  const error = Cause.squash(exit.cause)
  if (!Runtime.getErrorReported(error)) return undefined
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error)
  return `${name}: unexpected failure: ${SafeText.printable(text, 2000)}`
}

/** The `version` of a `package.json`; "0.0.0" when it has none. */
export const packageVersion = (url: URL): string => {
  const pkg: unknown = JSON.parse(readFileSync(url, "utf8"))
  return typeof pkg === "object" && pkg !== null && "version" in pkg && typeof pkg.version === "string"
    ? pkg.version
    : "0.0.0"
}

/** Runs a command as the process's main program and exits with `exitCode`. */
export const runMain = <Name extends string, Input, ContextInput, E>(
  command: Command.Command<Name, Input, ContextInput, E, NodeServices>,
  options: { readonly version: string; readonly interrupted: number }
): void => {
  const run = Command.runWith(command, { version: options.version })
  // `pnpm <script> -- --flag` passes the `--` on; the command takes no positional arguments, so a leading `--` is
  // dropped rather than turning every flag after it into one.
  Stdio.Stdio.use(({ args }) => Effect.flatMap(args, (argv) => run(argv[0] === "--" ? argv.slice(1) : argv))).pipe(
    Effect.provide(Layer.merge(nodeServices, presenter(command.name))),
    Effect.provideService(Logger.LogToStderr, true),
    Effect.tapCause((cause) => {
      const line = unreportedLine(command.name, Exit.failCause(cause))
      return line === undefined ? Effect.void : Effect.ignore(Console.error(line))
    }),
    NodeRuntime.runMain({
      disableErrorReporting: true,
      teardown: (exit, onExit) => onExit(exitCode(exit, options.interrupted))
    })
  )
}
