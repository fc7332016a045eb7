/**
 * The order book of a depth channel: nothing before a snapshot, stale messages skipped, a gap detected (never
 * applied), both continuity conventions accepted (`start == previous end` and `start == previous end + 1`), zero
 * sizes removing prices, prices ordered as decimals (not as strings), the 15-level channel trimmed, versions beyond
 * 2^53 compared exactly. A property test checks the book against a plain model of the same messages. The continuity
 * a venue follows is learned from its changes, and then a lost change is a gap under either one (a property test).
 */
import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import * as fc from "fast-check"
import { Push } from "../src/index.ts"
import { Book, Continuity } from "../src/internal/push/book.ts"

const level = (price: string, size: string) => ({ price, size })

// A depth message as the codec decodes it from the wire.
const message = (
  depthType: "SNAPSHOT" | "CHANGED",
  start: number | bigint,
  end: number | bigint,
  bids: ReadonlyArray<readonly [string, string]>,
  asks: ReadonlyArray<readonly [string, string]> = []
): Push.Depth =>
  Schema.decodeUnknownSync(Push.Depth)({
    startVersion: String(start),
    endVersion: String(end),
    depthType,
    symbol: "BTCUSDT_SPBL",
    bids: bids.map(([p, s]) => level(p, s)),
    asks: asks.map(([p, s]) => level(p, s))
  })

describe("push book", () => {
  it("ignores changes before a snapshot; then applies, skips stale ones, and refuses a gap", () => {
    const book = new Book("BTCUSDT_SPBL", 200)
    assert.strictEqual(book.apply(message("CHANGED", 1, 1, [["1", "1"]])), "ignored")
    assert.isFalse(book.live)
    assert.strictEqual(book.apply(message("SNAPSHOT", 10, 10, [["9.5", "1"], ["10", "2"]], [["11", "3"]])), "applied")
    // Prices as decimals: "10" is a better bid than "9.5", though "10" < "9.5" as strings.
    assert.deepStrictEqual(book.snapshot().bids, [level("10", "2"), level("9.5", "1")])
    assert.strictEqual(book.apply(message("CHANGED", 11, 11, [["9.75", "4"]])), "applied")
    assert.strictEqual(book.apply(message("CHANGED", 11, 11, [["9.75", "5"]])), "stale")
    assert.strictEqual(book.apply(message("CHANGED", 9, 11, [["9.75", "5"]])), "stale")
    // start == previous end: the other convention, applied.
    assert.strictEqual(book.apply(message("CHANGED", 11, 12, [["10", "0"]])), "applied")
    assert.deepStrictEqual(book.snapshot().bids, [level("9.75", "4"), level("9.5", "1")])
    assert.strictEqual(book.snapshot().version, "12")
    assert.strictEqual(book.apply(message("CHANGED", 14, 14, [["9", "1"]])), "gap")
    // A gap changes nothing.
    assert.deepStrictEqual(book.snapshot().bids, [level("9.75", "4"), level("9.5", "1")])
    assert.strictEqual(book.snapshot().version, "12")
    book.reset()
    assert.isFalse(book.live)
    assert.strictEqual(book.apply(message("CHANGED", 13, 13, [["9", "1"]])), "ignored")
  })

  it("a live book takes no snapshot that would take it back: the same version is stale, an older one a gap", () => {
    const book = new Book("BTCUSDT_SPBL", 200)
    book.apply(message("SNAPSHOT", 10, 10, [["100", "1"]]))
    book.apply(message("CHANGED", 11, 11, [["100", "5"]]))
    // The snapshot of v10 again (replayed, or late): the book stays at v11, nothing to show or a reason to rebuild.
    assert.strictEqual(book.apply(message("SNAPSHOT", 10, 10, [["100", "1"]])), "gap")
    assert.strictEqual(book.apply(message("SNAPSHOT", 11, 11, [["100", "5"]])), "stale")
    assert.deepStrictEqual(book.snapshot(), {
      symbol: "BTCUSDT_SPBL",
      depth: 200,
      version: "11",
      bids: [level("100", "5")],
      asks: []
    })
    // A newer snapshot is taken; after a reset (a new subscription), any snapshot is.
    assert.strictEqual(book.apply(message("SNAPSHOT", 12, 12, [["101", "2"]])), "applied")
    book.reset()
    assert.strictEqual(book.apply(message("SNAPSHOT", 3, 3, [["99", "1"]])), "applied")
    assert.strictEqual(book.snapshot().version, "3")
  })

  // A bad message that claims an end far ahead would otherwise leave every real change after it stale: skipped, with
  // no gap and no resync, the book frozen until the connection is replaced.
  it("a change inside the last one applied (that one claimed an end far ahead) is a gap; a copy of one applied is stale", () => {
    const v = 3_644_174_246n
    for (const reading of ["next", "previousEnd"] as const) {
      const book = new Book("BTCUSDT_SPBL", 15)
      // Under `next` a change starts one after the book's version, under `previousEnd` at it.
      const from = (version: bigint) => reading === "next" ? version + 1n : version
      assert.strictEqual(book.apply(message("SNAPSHOT", v, v, [["100", "1"]])), "applied")
      // Stale changes the snapshot holds (they start at or before it) are no gap.
      assert.strictEqual(book.apply(message("CHANGED", v - 3n, v - 1n, [["100", "7"]])), "stale")
      assert.strictEqual(book.apply(message("CHANGED", v - 1n, v, [["100", "7"]])), "stale")
      assert.strictEqual(book.apply(message("CHANGED", from(v), v + 1n, [["100", "2"]])), "applied")
      // One starting where it should, that claims to end 10^12 versions later: nothing says yet it is wrong.
      assert.strictEqual(
        book.apply(message("CHANGED", from(v + 1n), v + 1_000_000_000_000n, [["100", "3"]])),
        "applied"
      )
      // Copies of the changes applied (a duplicated frame) are stale, as before.
      assert.strictEqual(book.apply(message("CHANGED", from(v + 1n), v + 1_000_000_000_000n, [["100", "3"]])), "stale")
      assert.strictEqual(book.apply(message("CHANGED", from(v), v + 1n, [["100", "2"]])), "stale")
      // The venue goes on from where it really is: its next change lies inside the last one applied, a gap.
      assert.strictEqual(book.apply(message("CHANGED", from(v + 2n), v + 3n, [["100", "4"]])), "gap", reading)
      assert.strictEqual(book.snapshot().bids[0]!.size, "3")
      // Rebuilt from a new snapshot (a new subscription resets the book), it follows the venue again.
      book.reset()
      assert.strictEqual(book.apply(message("SNAPSHOT", v + 3n, v + 3n, [["100", "4"]])), "applied")
      assert.strictEqual(book.apply(message("CHANGED", from(v + 3n), v + 4n, [["100", "5"]])), "applied")
      assert.strictEqual(book.snapshot().bids[0]!.size, "5")
    }
  })

  it("removes a price at size zero in any form, and a removal of an unknown price is no change", () => {
    const book = new Book("BTCUSDT_SPBL", 200)
    book.apply(message("SNAPSHOT", 1, 1, [["100.0", "1"]], [["101", "1"], ["102", "2"]]))
    book.apply(message("CHANGED", 2, 2, [["100", "0.000"], ["99", "0"]], [["101.00", "0.00000000"]]))
    const snapshot = book.snapshot()
    assert.deepStrictEqual(snapshot.bids, [])
    assert.deepStrictEqual(snapshot.asks, [level("102", "2")])
  })

  it("keeps the best 15 levels per side on the 15-level channel", () => {
    const book = new Book("BTCUSDT_SPBL", 15)
    const bids = Array.from({ length: 20 }, (_, i) => [String(100 - i), "1"] as const)
    const asks = Array.from({ length: 20 }, (_, i) => [String(101 + i), "1"] as const)
    book.apply(message("SNAPSHOT", 1, 1, bids, asks))
    assert.strictEqual(book.snapshot().bids.length, 15)
    assert.strictEqual(book.snapshot().bids[14]!.price, "86")
    book.apply(message("CHANGED", 2, 2, [["100.5", "1"]], [["100.75", "2"]]))
    const snapshot = book.snapshot()
    assert.strictEqual(snapshot.bids[0]!.price, "100.5")
    assert.strictEqual(snapshot.bids.length, 15)
    assert.strictEqual(snapshot.bids[14]!.price, "87")
    assert.strictEqual(snapshot.asks[0]!.price, "100.75")
    assert.strictEqual(snapshot.asks.length, 15)
  })

  it("compares versions beyond 2^53 exactly", () => {
    const book = new Book("BTCUSDT_SPBL", 15)
    const base = 2n ** 60n
    book.apply(message("SNAPSHOT", base, base, [["1", "1"]]))
    assert.strictEqual(book.apply(message("CHANGED", base + 1n, base + 1n, [["2", "1"]])), "applied")
    // As numbers, base + 2 and base + 3 are the same double: as BigInts one is a gap.
    assert.strictEqual(book.apply(message("CHANGED", base + 3n, base + 3n, [["3", "1"]])), "gap")
    assert.strictEqual(book.snapshot().version, String(base + 1n))
  })

  it("a snapshot is not changed by later messages", () => {
    const book = new Book("BTCUSDT_SPBL", 15)
    book.apply(message("SNAPSHOT", 1, 1, [["1", "1"]]))
    const before = book.snapshot()
    book.apply(message("CHANGED", 2, 2, [["1", "5"], ["2", "1"]]))
    assert.deepStrictEqual(before.bids, [level("1", "1")])
  })

  it("property: equals a plain model (a map per side, sorted by value) after any consecutive changes", () => {
    const price = fc.integer({ min: 1, max: 400 }).map((n) => (n % 3 === 0 ? `${n / 4}` : `${n}.${n % 7}`))
    const change = fc.tuple(price, fc.constantFrom("0", "1", "2.5", "0.001"))
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.array(change), fc.array(change)), { maxLength: 40 }), (changes) => {
        const book = new Book("X", 200)
        book.apply(message("SNAPSHOT", 0, 0, []))
        const bids = new Map<number, string>()
        const asks = new Map<number, string>()
        changes.forEach(([b, a], i) => {
          assert.strictEqual(book.apply(message("CHANGED", i + 1, i + 1, b, a)), "applied")
          for (const [p, s] of b) {
            if (s === "0") bids.delete(Number(p))
            else bids.set(Number(p), s)
          }
          for (const [p, s] of a) {
            if (s === "0") asks.delete(Number(p))
            else asks.set(Number(p), s)
          }
        })
        const snapshot = book.snapshot()
        assert.deepStrictEqual(
          snapshot.bids.map((l) => [Number(l.price), l.size]),
          [...bids].sort((x, y) => y[0] - x[0])
        )
        assert.deepStrictEqual(
          snapshot.asks.map((l) => [Number(l.price), l.size]),
          [...asks].sort((x, y) => x[0] - y[0])
        )
      })
    )
  })

  describe("continuity learned from the changes", () => {
    it("on a venue whose changes start at the previous end, a lost one-version change is a gap once two came in a row", () => {
      const continuity = new Continuity()
      const book = new Book("BTCUSDT_SPBL", 200, continuity)
      book.apply(message("SNAPSHOT", 10, 10, [["100", "1"]]))
      // The first change after a snapshot shows nothing (how a snapshot's version relates to changes is not known).
      assert.strictEqual(book.apply(message("CHANGED", 10, 11, [["100", "2"]])), "applied")
      assert.strictEqual(continuity.reading, "unknown")
      assert.strictEqual(book.apply(message("CHANGED", 11, 12, [["101", "1"]])), "applied")
      assert.strictEqual(continuity.reading, "previousEnd")
      // 12 -> 13 (remove 101, add 99) is lost; 13 -> 14 starts one after the book's version: under either reading
      // alone it would continue the book, with 101 shown and 99 missing.
      assert.strictEqual(book.apply(message("CHANGED", 13, 14, [["98", "1"]])), "gap")
      assert.strictEqual(book.snapshot().version, "12")
      // A new subscription: the reading stays learned, for this book and every other of the service.
      book.reset()
      book.apply(message("SNAPSHOT", 20, 20, [["100", "1"]]))
      assert.strictEqual(book.apply(message("CHANGED", 21, 22, [["100", "3"]])), "gap")
      const other = new Book("ETHUSDT_SPBL", 15, continuity)
      other.apply(message("SNAPSHOT", 5, 5, [["10", "1"]]))
      assert.strictEqual(other.apply(message("CHANGED", 5, 6, [["10", "2"]])), "applied")
      assert.strictEqual(other.apply(message("CHANGED", 7, 8, [["10", "3"]])), "gap")
    })

    it("a one-version change shows the `next` reading for good, even over a `previousEnd` learned wrongly", () => {
      const continuity = new Continuity()
      const book = new Book("BTCUSDT_SPBL", 200, continuity)
      book.apply(message("SNAPSHOT", 10, 10, [["100", "1"]]))
      assert.strictEqual(book.apply(message("CHANGED", 11, 12, [["100", "2"]])), "applied")
      // An overlapping change on a `next` venue looks like `previousEnd`...
      assert.strictEqual(book.apply(message("CHANGED", 12, 14, [["100", "3"]])), "applied")
      assert.strictEqual(continuity.reading, "previousEnd")
      // ...and its next one-version change, starting one after the version, is taken, not a gap: no resync loop.
      assert.strictEqual(book.apply(message("CHANGED", 15, 15, [["100", "4"]])), "applied")
      assert.strictEqual(continuity.reading, "next")
      // Learned for good: changes in a row that start at the previous end no longer change it.
      assert.strictEqual(book.apply(message("CHANGED", 15, 16, [["100", "5"]])), "applied")
      assert.strictEqual(book.apply(message("CHANGED", 16, 17, [["100", "6"]])), "applied")
      assert.strictEqual(continuity.reading, "next")
      assert.strictEqual(book.apply(message("CHANGED", 19, 19, [["100", "7"]])), "gap")
      assert.deepStrictEqual(book.snapshot().bids, [level("100", "6")])
    })

    it("property: under either reading, a book never shows a change lost after the first two, and never a false gap", () => {
      // A venue's stream: the book's value at version v is v itself (one price level of size v), so a book that
      // skipped a change shows a size that differs from its version.
      const stream = fc.record({
        previousEnd: fc.boolean(),
        spans: fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 2, maxLength: 30 }),
        lost: fc.array(fc.boolean(), { maxLength: 30 })
      })
      fc.assert(
        fc.property(stream, ({ lost, previousEnd, spans }) => {
          const book = new Book("X", 200)
          book.apply(message("SNAPSHOT", 100, 100, [["1", "100"]]))
          let version = 100
          let lostOne = false
          for (const [i, span] of spans.entries()) {
            const end = version + span
            // A change covers the versions after `version` up to `end`: a `next` venue's starts at version + 1, a
            // `previousEnd` venue's at version (so one covering a single version goes unseen when lost, by the
            // version check alone).
            const change = message("CHANGED", previousEnd ? version : version + 1, end, [["1", String(end)]])
            version = end
            if (i >= 2 && lost[i] === true) {
              lostOne = true
              continue
            }
            const outcome = book.apply(change)
            if (lostOne) {
              assert.strictEqual(outcome, "gap")
              return
            }
            assert.strictEqual(outcome, "applied")
            assert.strictEqual(book.snapshot().bids[0]!.size, book.snapshot().version)
          }
        })
      )
    })
  })
})
