/**
 * The progress line of long commands (`internal/progress.ts`): never drawn in the middle of rows that go to the same
 * terminal, redrawn in place on a terminal alone, plain lines otherwise; its figures.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import * as Progress from "../src/internal/progress.ts"
import { capture } from "./support/cli.ts"

describe("Progress", () => {
  it.effect("on a terminal that also shows the data: no line redrawn in place; --progress gives plain lines", () =>
    Effect.gen(function*() {
      const quiet = capture(true)
      const progress = yield* Progress.make(quiet.channel, { forced: false, dataOnTerminal: true })
      yield* TestClock.adjust("1 second")
      yield* progress.update(100, 1)
      yield* progress.finish("exported", 100, 1, "")
      assert.deepStrictEqual(quiet.chunks, [])

      const forced = capture(true)
      const plain = yield* Progress.make(forced.channel, { forced: true, dataOnTerminal: true })
      yield* TestClock.adjust("10 seconds")
      yield* plain.update(100, 1)
      assert.strictEqual(forced.chunks.length, 1)
      assert.isFalse(forced.chunks[0]!.includes("\r"), JSON.stringify(forced.chunks))
      assert.isTrue(forced.chunks[0]!.endsWith("\n"))
    }))

  it.effect("a terminal alone: redrawn in place; a note replaces the live line", () =>
    Effect.gen(function*() {
      const tty = capture(true)
      const progress = yield* Progress.make(tty.channel, { forced: false, dataOnTerminal: false })
      yield* TestClock.adjust("1 second")
      yield* progress.update(100, 1)
      assert.isTrue(tty.chunks[0]!.startsWith("\r\x1b[K"))
      yield* progress.note("spotkit: interrupted\n")
      assert.strictEqual(tty.chunks[1], "\r\x1b[Kspotkit: interrupted\n")
    }))

  it.effect("not a terminal: a note is exactly its line (no blank line before it)", () =>
    Effect.gen(function*() {
      const log = capture(false)
      const progress = yield* Progress.make(log.channel, { forced: true, dataOnTerminal: false })
      yield* progress.note("spotkit: interrupted\n")
      assert.deepStrictEqual(log.chunks, ["spotkit: interrupted\n"])
    }))
})

describe("progress figures", () => {
  it("thousands separators, the rate and the elapsed time", () => {
    assert.strictEqual(
      Progress.describe(1_234_567, 12_346, 2_000),
      "1,234,567 rows, 12,346 pages, 617,284 rows/s, 2.0 s"
    )
    assert.strictEqual(Progress.describe(999, 10, 0), "999 rows, 10 pages, 0 rows/s, 0.0 s")
    assert.strictEqual(Progress.describe(0, 0, 61_000), "0 rows, 0 pages, 0 rows/s, 1 min 01 s")
  })
})
