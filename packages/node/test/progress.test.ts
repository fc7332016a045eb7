/**
 * The progress line of long commands (`internal/progress.ts`): never drawn in the middle of rows that go to the same
 * terminal, redrawn in place on a terminal alone at least once a second while nothing arrives (a wait counting down),
 * plain lines otherwise; a summary line at the end whatever stderr is; its figures, with a total and an ETA.
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
      yield* TestClock.adjust("10 seconds")
      assert.deepStrictEqual(quiet.chunks, [])
      // The summary alone, as a plain line.
      yield* progress.finish("exported", "")
      assert.deepStrictEqual(quiet.chunks, ["spotkit: exported 100 rows, 1 page, 9 rows/s, 11.0 s\n"])

      const forced = capture(true)
      const plain = yield* Progress.make(forced.channel, { forced: true, dataOnTerminal: true })
      yield* TestClock.adjust("10 seconds")
      yield* plain.update(100, 1)
      assert.isAtLeast(forced.chunks.length, 1)
      for (const chunk of forced.chunks) {
        assert.isFalse(chunk.includes("\r"), JSON.stringify(forced.chunks))
        assert.isTrue(chunk.endsWith("\n"))
      }
    }).pipe(Effect.scoped))

  it.effect("a terminal alone: redrawn in place; a note replaces the live line", () =>
    Effect.gen(function*() {
      const tty = capture(true)
      const progress = yield* Progress.make(tty.channel, { forced: false, dataOnTerminal: false })
      yield* TestClock.adjust("300 millis")
      yield* progress.update(100, 1)
      assert.isTrue(tty.chunks[0]!.startsWith("\r\x1b[K"))
      yield* progress.note("spotkit: interrupted\n")
      assert.strictEqual(tty.chunks[1], "\r\x1b[Kspotkit: interrupted\n")
    }).pipe(Effect.scoped))

  it.effect("a terminal alone: while no page comes, redrawn every second, a wait counting down", () =>
    Effect.gen(function*() {
      const tty = capture(true)
      const progress = yield* Progress.make(tty.channel, { forced: false, dataOnTerminal: false })
      yield* TestClock.adjust("300 millis")
      yield* progress.update(500, 5)
      const now = 300
      yield* progress.waiting({ what: "rate limit", until: now + 7_000 })
      const drawn = tty.chunks.length
      for (let second = 1; second <= 9; second++) {
        yield* TestClock.adjust("1 second")
        assert.strictEqual(tty.chunks.length, drawn + second, `a redraw in second ${second}`)
      }
      const lines = tty.chunks.slice(drawn)
      assert.include(lines[0], "; waiting: rate limit, 7 s")
      assert.include(lines[5], "; waiting: rate limit, 2 s")
      // Over: the wait is no longer shown; the elapsed time still moves.
      assert.notInclude(lines[8], "waiting")
      assert.include(lines[8], " 9.0 s")
      // The next page clears a wait that was still running.
      yield* progress.waiting({ what: "venue asked to wait", until: 10_000 + 60_000 })
      // A retry's short delay within it does not shorten it.
      yield* progress.waiting({ what: "retry 1 after a TransportError", until: 10_000 + 500 })
      yield* TestClock.adjust("1 second")
      assert.include(tty.chunks.at(-1), "waiting: venue asked to wait, 60 s")
      yield* progress.update(600, 6)
      yield* TestClock.adjust("1 second")
      assert.notInclude(tty.chunks.at(-1), "waiting")
    }).pipe(Effect.scoped))

  it.effect("not a terminal, no --progress: nothing until the summary, which always comes", () =>
    Effect.gen(function*() {
      const log = capture(false)
      const progress = yield* Progress.make(log.channel, { forced: false, dataOnTerminal: false })
      for (let i = 1; i <= 30; i++) {
        yield* TestClock.adjust("1 second")
        yield* progress.update(i * 100, i)
      }
      assert.deepStrictEqual(log.chunks, [])
      yield* progress.finish("exported", " to out.csv")
      assert.deepStrictEqual(log.chunks, ["spotkit: exported 3,000 rows, 30 pages, 100 rows/s, 30.0 s to out.csv\n"])
    }).pipe(Effect.scoped))

  it.effect("not a terminal, --progress: a plain line every 5 seconds, also while waiting", () =>
    Effect.gen(function*() {
      const log = capture(false)
      yield* Effect.gen(function*() {
        yield* Progress.make(log.channel, { forced: true, dataOnTerminal: false })
        yield* TestClock.adjust("21 seconds")
      }).pipe(Effect.scoped)
      assert.strictEqual(log.chunks.length, 4, JSON.stringify(log.chunks))
      for (const chunk of log.chunks) assert.match(chunk, /^spotkit: 0 rows, 0 pages, 0 rows\/s, [\d.]+ s\n$/)
      // The scope closed: no more lines.
      yield* TestClock.adjust("30 seconds")
      assert.strictEqual(log.chunks.length, 4)
    }))

  it.effect("not a terminal: a note is exactly its line (no blank line before it)", () =>
    Effect.gen(function*() {
      const log = capture(false)
      const progress = yield* Progress.make(log.channel, { forced: true, dataOnTerminal: false })
      yield* progress.note("spotkit: interrupted\n")
      assert.deepStrictEqual(log.chunks, ["spotkit: interrupted\n"])
    }).pipe(Effect.scoped))
})

describe("progress figures", () => {
  it("thousands separators, the rate and the elapsed time", () => {
    assert.strictEqual(
      Progress.describe(1_234_567, 12_346, 2_000),
      "1,234,567 rows, 12,346 pages, 617,284 rows/s, 2.0 s"
    )
    assert.strictEqual(Progress.describe(999, 10, 0), "999 rows, 10 pages, 0 rows/s, 0.0 s")
    assert.strictEqual(Progress.describe(0, 0, 61_000), "0 rows, 0 pages, 0 rows/s, 1 min 01 s")
    assert.strictEqual(Progress.describe(0, 0, 3_725_000), "0 rows, 0 pages, 0 rows/s, 1 h 02 min")
  })

  it("one row, one page: in the singular", () => {
    assert.strictEqual(Progress.describe(1, 1, 1_000), "1 row, 1 page, 1 rows/s, 1.0 s")
    assert.strictEqual(Progress.describe(0, 1, 1_000), "0 rows, 1 page, 0 rows/s, 1.0 s")
  })

  it("with a total: how many of it, and the time left at the rate so far", () => {
    assert.strictEqual(
      Progress.describe(1_000, 10, 10_000, 61_000),
      "1,000 rows of 61,000, 10 pages, 100 rows/s, 10.0 s, ETA 10 min 00 s"
    )
    // A total below what came (new records since): not shown.
    assert.strictEqual(Progress.describe(1_000, 10, 10_000, 900), "1,000 rows, 10 pages, 100 rows/s, 10.0 s")
  })
})
