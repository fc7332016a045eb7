/**
 * The CLI's output layer (`internal/output.ts`): a file's `close` says whether every write reached it; `redactStrings`
 * removes credentials from every text of a value before a format quotes them (issue #17).
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import { Effect, FileSystem } from "effect"
import { existsSync } from "node:fs"
import * as Output from "../src/internal/output.ts"

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
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

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
      }).pipe(Effect.scoped)
  )
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

  it("answers the same value when no string changes", () => {
    const value = { id: "1", list: ["a", { b: "c" }] }
    assert.strictEqual(Output.redactStrings(value, redact), value)
  })
})
