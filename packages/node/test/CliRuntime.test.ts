/**
 * What the two command-line tools share (`CliRuntime`): the one-line report of bad flags, the exit codes, and the
 * version from `package.json`. `runMain` itself runs in the end-to-end tests (the built `spotkit`) and in testkit's
 * `sandboxCommand.test.ts` (`spotkit-sandbox`).
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import { Data, Effect, Exit, Fiber, FileSystem, Runtime } from "effect"
import { Command, Flag } from "effect/cli"
import { createRequire } from "node:module"
import { pathToFileURL } from "node:url"
import * as Cli from "../src/Cli.ts"
import * as CliRuntime from "../src/CliRuntime.ts"
import { runInProcess } from "./support/cli.ts"

const tool = Command.make("tool", {
  port: Flag.Int("port").pipe(Flag.withDescription("A port"), Flag.withDefault(0)),
  format: Flag.Literals("format", ["csv", "ndjson"]).pipe(Flag.withDefault("csv"))
}, () => Effect.void)

// A command that needs a subcommand (it has no handler of its own), as bare `spotkit`.
const group = Command.make("group").pipe(Command.withSubcommands([Command.make("sub", {}, () => Effect.void)]))

/** Runs `tool` (or `command`) with the shared presenter: the lines it wrote and the exit code `runMain` gives. */
const runTool = (args: ReadonlyArray<string>, command: "tool" | "group" = "tool") =>
  Effect.gen(function*() {
    const lines: Array<string> = []
    const run = command === "tool"
      ? Command.runWith(tool, { version: "1.2.3" })
      : Command.runWith(group, { version: "1" })
    const exit = yield* run(args).pipe(
      Effect.provide(CliRuntime.layerPresenter({
        name: "tool",
        write: (line) => Effect.sync(() => void lines.push(line))
      })),
      Effect.provide(NodeServices.layer),
      Effect.exit
    )
    return { lines, exitCode: CliRuntime.exitCode(exit, { interrupted: 130 }) }
  })

describe("layerPresenter", () => {
  it.effect("an unknown flag with a near one: one line naming both, exit code 2", () =>
    Effect.gen(function*() {
      const run = yield* runTool(["--prot", "8080"])
      assert.deepStrictEqual(run.lines, ["tool: unrecognized flag --prot (did you mean --port?) (see --help)"])
      assert.strictEqual(run.exitCode, 2)
    }))

  it.effect("a bad value: its message on one line, exit code 2", () =>
    Effect.gen(function*() {
      for (const args of [["--port", "seventy"], ["--format", "xml"]]) {
        const run = yield* runTool(args)
        assert.strictEqual(run.exitCode, 2, args.join(" "))
        assert.strictEqual(run.lines.length, 1, run.lines.join("\n"))
        assert.match(run.lines[0]!, /^tool: [^\n]+ \(see --help\)$/)
        assert.include(run.lines[0], args[0])
      }
    }))

  it.effect("several errors: one line, joined by \"; \"", () =>
    Effect.gen(function*() {
      const run = yield* runTool(["--prot", "1", "--formt", "csv"])
      assert.strictEqual(run.exitCode, 2)
      assert.strictEqual(run.lines.length, 1, run.lines.join("\n"))
      assert.include(run.lines[0], "unrecognized flag --prot (did you mean --port?); ")
      assert.include(run.lines[0], "unrecognized flag --formt (did you mean --format?)")
    }))

  it.effect("valid flags, --help and --version: no usage line, exit code 0", () =>
    Effect.gen(function*() {
      for (const args of [["--port", "1"], ["--help"], ["--version"]]) {
        const run = yield* runTool(args)
        assert.deepStrictEqual(run.lines, [], args.join(" "))
        assert.strictEqual(run.exitCode, 0, args.join(" "))
      }
    }))

  it.effect("a command that needs a subcommand, run without one: its help page as the lines, exit code 2", () =>
    Effect.gen(function*() {
      const bare = yield* runTool([], "group")
      assert.strictEqual(bare.exitCode, 2)
      assert.strictEqual(bare.lines.length, 1)
      assert.include(bare.lines[0], "USAGE")
      assert.include(bare.lines[0], "sub")
      const sub = yield* runTool(["sub"], "group")
      assert.deepStrictEqual(sub.lines, [])
      assert.strictEqual(sub.exitCode, 0)
    }))

  it.effect("a command line holding a terminal's escape sequences is quoted as one printable line", () =>
    Effect.gen(function*() {
      const hostile = "\u001b]0;pwned\u0007\u001b[2J\u009b31m"
      for (const args of [["--format", hostile], [`--for${hostile}`, "csv"], ["--port", `8${hostile}`]]) {
        const run = yield* runTool(args)
        assert.strictEqual(run.exitCode, 2, args.join(" "))
        assert.strictEqual(run.lines.length, 1)
        // eslint-disable-next-line no-control-regex
        assert.notMatch(run.lines[0]!, /[\u0000-\u001f\u007f-\u009f]/, JSON.stringify(run.lines[0]))
        assert.include(run.lines[0]!, "\\u001b]0;pwned\\u0007", JSON.stringify(run.lines[0]))
      }
    }))

  it.effect("spotkit's presenter (Cli.layerPresenter) writes the line to its stderr, with a newline", () =>
    Effect.gen(function*() {
      const run = yield* runInProcess(["bills", "export", "--formt", "csv"], {})
      assert.strictEqual(run.exitCode, 2)
      assert.strictEqual(run.stdout, "")
      assert.strictEqual(run.stderr, "spotkit: unrecognized flag --formt (did you mean --format?) (see --help)\n")
    }))
})

class Coded extends Data.TaggedError("Coded")<{ readonly code: number }> {
  override get [Runtime.errorExitCode](): number {
    return this.code
  }
}

describe("exitCode", () => {
  const code = <A, E>(effect: Effect.Effect<A, E>, interrupted = 130) =>
    Effect.map(Effect.exit(effect), (exit) => CliRuntime.exitCode(exit, { interrupted }))

  it.effect("0 on success; the chosen code after an interrupt", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* code(Effect.void), 0)
      const fiber = yield* Effect.forkChild(Effect.never)
      const interrupted = yield* Fiber.interrupt(fiber).pipe(Effect.andThen(Fiber.await(fiber)))
      assert.isTrue(Exit.hasInterrupts(interrupted))
      assert.strictEqual(CliRuntime.exitCode(interrupted, { interrupted: 143 }), 143)
      assert.strictEqual(CliRuntime.exitCode(interrupted, { interrupted: 0 }), 0)
    }))

  it.effect("an error's own Runtime.errorExitCode, 1 for an error without one", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* code(Effect.fail(new Coded({ code: 7 }))), 7)
      assert.strictEqual(yield* code(Effect.fail(new Coded({ code: 0 }))), 0)
      assert.strictEqual(yield* code(Effect.fail(new Error("boom"))), 1)
      assert.strictEqual(yield* code(Effect.die("defect")), 1)
    }))

  it("spotkit's CliFailure exits with its exitCode", () => {
    for (const exitCode of [0, 1, 2]) {
      const failure = new Cli.CliFailure({ message: "reported", exitCode })
      assert.isTrue(Cli.isCliFailure(failure))
      assert.strictEqual(CliRuntime.exitCode(Exit.fail(failure), { interrupted: 130 }), exitCode)
    }
  })
})

describe("packageVersion", () => {
  it("the version of a package.json", () => {
    const url = new URL("../package.json", import.meta.url)
    const pkg = createRequire(import.meta.url)("../package.json") as { readonly version: string }
    assert.strictEqual(CliRuntime.packageVersion(url), pkg.version)
    assert.match(pkg.version, /^\d+\.\d+\.\d+/)
  })

  it.effect("\"0.0.0\" for a package.json without a version", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* fs.makeTempDirectoryScoped({ prefix: "spotkit-pkg-" })
      yield* fs.writeFileString(`${dir}/package.json`, "{\"name\":\"unversioned\"}")
      assert.strictEqual(CliRuntime.packageVersion(pathToFileURL(`${dir}/package.json`)), "0.0.0")
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))
})
