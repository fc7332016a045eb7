// The body of the `spotkit` command: parses the arguments, runs the command on the Node runtime, and maps how it
// ended to the exit code (0 success, 1 venue/network error, 2 bad usage or input, 130 after Ctrl-C (SIGINT), 143
// after SIGTERM: 128 + the signal, as shells report it). Loaded by
// `bin/spotkit.ts` once V8 is configured.
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Cause, Effect, Exit, Layer, Runtime, Stdio } from "effect"
import { CliError, Command } from "effect/cli"
import { createRequire } from "node:module"
import * as Cli from "../Cli.ts"

// The package's version; `../../package.json` from both `src/internal` and `dist/internal`.
const version = ((): string => {
  const pkg: unknown = createRequire(import.meta.url)("../../package.json")
  return typeof pkg === "object" && pkg !== null && "version" in pkg && typeof pkg.version === "string"
    ? pkg.version
    : "0.0.0"
})()

// The runtime interrupts the program on SIGINT and SIGTERM alike; which one it was decides the exit code.
let interruptedBy: "SIGINT" | "SIGTERM" = "SIGINT"
process.once("SIGTERM", () => {
  interruptedBy = "SIGTERM"
})

const teardown: Runtime.Teardown = (exit, onExit) => {
  if (Exit.isFailure(exit)) {
    if (Cause.hasInterruptsOnly(exit.cause)) return onExit(interruptedBy === "SIGTERM" ? 143 : 130)
    const error = Cause.squash(exit.cause)
    if (Cli.isCliFailure(error)) return onExit(error.exitCode)
    if (CliError.isCliError(error) && error._tag === "ShowHelp" && error.errors.length > 0) return onExit(2)
  }
  Runtime.defaultTeardown(exit, onExit)
}

const run = Command.runWith(Cli.command, { version })

Stdio.Stdio.use(({ args }) => Effect.flatMap(args, (argv) => run(argv[0] === "--" ? argv.slice(1) : argv))).pipe(
  Effect.provide(Layer.merge(NodeServices.layer, Cli.layer)),
  NodeRuntime.runMain({ teardown })
)
