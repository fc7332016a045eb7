/**
 * The CLI's output layer (`internal/output.ts`): a file's `close` says whether every write reached it; once a command
 * has its credentials (`protect`), nothing written to stdout, stderr or a file holds them; `redactStrings` removes
 * credentials from every text of a value before a format quotes them (issue #17); log lines go through it too, one
 * printable line each, and the CLI's layer installs that logger in place of the default one (review finding 1).
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import { Cause, Context, Effect, FileSystem, Layer, Logger, Redacted } from "effect"
import { existsSync } from "node:fs"
import * as Cli from "../src/Cli.ts"
import * as Output from "../src/internal/output.ts"
import { capture } from "./support/cli.ts"

const stdout = capture(false)
const stderr = capture(true)
const OutputLayer = Layer.succeed(Output.Output, Output.make({ stdout: stdout.channel, stderr: stderr.channel }))

const HEADER = "billId,coinId,coinName,bizType,deltaAmount,afterAmount,fees,cTime\n"
const hasDevFull = existsSync("/dev/full")

describe("Output.openFile", () => {
  it.live("close: every write has reached the file", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* fs.makeTempDirectoryScoped({ prefix: "spotkit-out-" })
      const path = `${dir}/out.csv`
      const file = yield* Output.openFile(path)
      yield* file.write("a,b\n")
      yield* file.write("1,2\n")
      yield* file.close
      assert.strictEqual(yield* fs.readFileString(path), "a,b\n1,2\n")
      // Appending (cut back to the length given first).
      const more = yield* Output.openFile(path, { _tag: "Append", length: 8, permissions: 0o600 })
      yield* more.write("3,4\n")
      yield* more.close
      assert.strictEqual(yield* fs.readFileString(path), "a,b\n1,2\n3,4\n")
    }).pipe(Effect.scoped, Effect.provide([NodeServices.layer, OutputLayer])))

  it.live.skipIf(!hasDevFull)(
    "close: a failure of the last, buffered writes fails it (ENOSPC)",
    () =>
      Effect.gen(function*() {
        const file = yield* Output.openFile("/dev/full")
        // Buffered: the write itself succeeds, the disk's refusal comes later.
        yield* file.write(HEADER)
        const error = yield* Effect.flip(file.close)
        assert.strictEqual(error.code, "ENOSPC")
        assert.include(error.message, "cannot write /dev/full")
      }).pipe(Effect.scoped, Effect.provide(OutputLayer))
  )
})

describe("Output.protect", () => {
  it.live("after it, no credential reaches stdout, stderr, a file or a redacted value, in any encoding", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const output = yield* Output.Output
      const secret = "s3cret-Passphrase/+="
      const before = "before: " + secret + "\n"
      yield* output.stdout.write(before)
      assert.include(stdout.chunks.join(""), secret, "nothing to scrub before the credentials are known")
      yield* output.protect({
        apiKey: Redacted.make("the-api-key-1234"),
        secretKey: Redacted.make("the-secret-key-5678"),
        passphrase: Redacted.make(secret)
      })
      const echoed = `${secret} ${encodeURIComponent(secret)} ${JSON.stringify(secret)} the-secret-key-5678\n`
      stdout.chunks.length = 0
      yield* output.stdout.write(echoed)
      yield* output.stderr.write(echoed)
      const dir = yield* fs.makeTempDirectoryScoped({ prefix: "spotkit-out-" })
      const file = yield* Output.openFile(`${dir}/out.csv`)
      yield* file.write(echoed)
      yield* file.close
      const value = yield* Output.redacted({ id: secret, list: [secret] })
      const everything = [stdout.chunks.join(""), stderr.chunks.join(""), yield* fs.readFileString(`${dir}/out.csv`)]
      for (const text of everything) {
        assert.notInclude(text, secret)
        assert.notInclude(text, encodeURIComponent(secret))
        assert.notInclude(text, "the-secret-key-5678")
        assert.include(text, "<redacted>")
      }
      assert.deepStrictEqual(value, { id: "<redacted>", list: ["<redacted>"] })
    }).pipe(Effect.scoped, Effect.provide([NodeServices.layer, OutputLayer])))
})

describe("Output.layerLogger", () => {
  it.effect("log lines on stderr: credentials removed, one printable line each, whatever the message holds", () =>
    Effect.gen(function*() {
      const out = capture(false)
      const err = capture(true)
      const output = Output.make({ stdout: out.channel, stderr: err.channel })
      const passphrase = "log-passphrase-1234"
      yield* output.protect({
        apiKey: Redacted.make("log-api-key-1234"),
        secretKey: Redacted.make("log-secret-key-5678"),
        passphrase: Redacted.make(passphrase)
      })
      yield* Effect.gen(function*() {
        yield* Effect.logWarning(`the venue said: pass=${passphrase} \u001b[2J\nFAKE LINE`, { echoed: passphrase })
        yield* Effect.logError(
          "a failure",
          Cause.fail(new Error(`line one\nline two ${encodeURIComponent(passphrase)}`))
        )
      }).pipe(Effect.provide(Output.layerLogger.pipe(Layer.provide(Layer.succeed(Output.Output, output)))))
      const lines = err.chunks
      assert.strictEqual(lines.length, 2)
      for (const line of lines) {
        assert.isTrue(line.endsWith("\n"))
        // eslint-disable-next-line no-control-regex
        assert.notMatch(line.slice(0, -1), /[\u0000-\u001f\u007f-\u009f]/)
        assert.notInclude(line, passphrase)
        assert.notInclude(line, encodeURIComponent(passphrase))
      }
      assert.match(lines[0]!, /^\[\d\d:\d\d:\d\d\.\d{3}\] WARN \(#\d+\): the venue said: pass=<redacted> /)
      assert.include(lines[0]!, "\\u001b[2J\\nFAKE LINE")
      assert.include(lines[0]!, "{\"echoed\":\"<redacted>\"}")
      assert.include(lines[1]!, "ERROR")
      assert.include(lines[1]!, "line one\\nline two <redacted>")
      assert.deepStrictEqual(out.chunks, [], "nothing on stdout")
    }))

  it.effect("the CLI's layer replaces the default logger (which writes to the console as it is)", () =>
    Effect.gen(function*() {
      const context = yield* Layer.build(Cli.layer)
      const loggers = Context.get(context, Logger.CurrentLoggers)
      assert.strictEqual(loggers.size, 1)
      assert.isFalse(loggers.has(Logger.defaultLogger))
    }))
})

describe("Output.redactStrings", () => {
  const redact = (text: string) => text.replaceAll("s3cret", "<redacted>")

  it("redacts every string of plain objects and arrays, nested, and leaves other values as they are", () => {
    const when = new Date(0)
    const value = { id: "a s3cret id", n: 1, list: ["s3cret", { deep: "x s3cret" }], when, none: null }
    const clean = Output.redactStrings(value, redact)
    assert.deepStrictEqual(clean, {
      id: "a <redacted> id",
      n: 1,
      list: ["<redacted>", { deep: "x <redacted>" }],
      when,
      none: null
    })
    assert.strictEqual(clean.when, when, "not a plain object: kept")
    assert.strictEqual(value.id, "a s3cret id", "the value itself untouched")
  })

  it("a value nested deeper than 64 levels is shown as such: no stack overflow, in redacting nor in writing JSON", () => {
    const deep = JSON.parse(`${"[".repeat(20_000)}"s3cret"${"]".repeat(20_000)}`) as unknown
    const clean = Output.redactStrings({ symbol: "BTCUSDT_SPBL", extra: deep }, redact)
    const text = JSON.stringify(clean)
    assert.include(text, "<nested deeper than 64 levels>")
    assert.notInclude(text, "s3cret")
    // The object is the first level, `extra` the second: 63 arrays, then the mark.
    assert.isTrue(text.startsWith(`{"symbol":"BTCUSDT_SPBL","extra":${"[".repeat(63)}"<nested`), text.slice(0, 100))
    // Up to 64 levels, as it was.
    const fine = JSON.parse(`${"[".repeat(64)}"x"${"]".repeat(64)}`) as unknown
    assert.strictEqual(Output.redactStrings(fine, redact), fine)
  })

  it("answers the same value when no string changes", () => {
    const value = { id: "1", list: ["a", { b: "c" }] }
    assert.strictEqual(Output.redactStrings(value, redact), value)
  })
})
