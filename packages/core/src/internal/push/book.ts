// One order book rebuilt from a depth channel (the venue's V2 rules, and our choices where its documents are silent):
// nothing counts before a SNAPSHOT; a CHANGED message is stale when it ends at or before the book's version (a copy of
// one applied, or one the snapshot holds), a gap when it starts past where the venue's next change starts
// (`Continuity`) or lies inside the last change applied (that change claimed an end the venue had not reached), and
// applied otherwise. A size of zero
// removes a price; prices are ordered as decimals, never as strings; the 15-level channel keeps its best 15 levels per
// side. Versions are compared as BigInts.
import { isPositive } from "../../Primitives.ts"
import type * as Push from "../../Push.ts"
import type * as PushModel from "../../PushModel.ts"
import * as Decimal from "../model/decimal.ts"

/** One price level: an exact price and the quantity resting there. */
export type Level = PushModel.Level

/** A consistent book: bids best (highest) first, asks best (lowest) first, at `version`. */
export type Snapshot = PushModel.OrderBook

/** What one depth message did: applied (the book moved), stale (skipped), a gap, or ignored (no snapshot yet). */
export type Outcome = "applied" | "stale" | "gap" | "ignored"

// The index where `price` is, or would be inserted, in a side sorted best first (`descending` for bids).
const search = (levels: ReadonlyArray<Level>, price: string, descending: boolean): number => {
  let lo = 0
  let hi = levels.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    const order = Decimal.compare(levels[mid]!.price, price)
    if (order === 0) return mid
    if (descending ? order > 0 : order < 0) lo = mid + 1
    else hi = mid
  }
  return lo
}

const applySide = (levels: Array<Level>, changes: ReadonlyArray<Push.PriceLevel>, descending: boolean): void => {
  for (const change of changes) {
    const i = search(levels, change.price, descending)
    const found = i < levels.length && Decimal.compare(levels[i]!.price, change.price) === 0
    if (!isPositive(change.size)) {
      if (found) levels.splice(i, 1)
    } else if (found) {
      levels[i] = { price: change.price, size: change.size }
    } else {
      levels.splice(i, 0, { price: change.price, size: change.size })
    }
  }
}

const sorted = (levels: ReadonlyArray<Push.PriceLevel>, descending: boolean): Array<Level> => {
  const out: Array<Level> = []
  applySide(out, levels, descending)
  return out
}

/**
 * How a venue's consecutive changes follow each other, which its documents do not say: does a change start at the
 * previous one's end (`previousEnd`), or one version after it (`next`)? Until it is known (`unknown`) both continue a
 * book, and a lost change that covered one version goes unseen on a `previousEnd` venue: the change after it starts
 * one after the book's version. So the service learns the reading from the changes themselves, once for all its books:
 *
 * - a change that starts where the change before it ended (two changes in a row, of one subscription) shows
 *   `previousEnd`; from then on a change that starts later than the book's version is a gap;
 * - a change that starts and ends at one version shows `next` (on a `previousEnd` venue a change starts before it
 *   ends), for good: both readings continue a book, as before anything was learned. It is checked first, so a
 *   `previousEnd` learned wrongly (an overlapping change on a `next` venue) ends at its next one-version change, not
 *   in a resync loop.
 */
export class Continuity {
  reading: "unknown" | "previousEnd" | "next" = "unknown"

  /** The highest version a change may start at to continue a book at `version`. */
  limit(version: bigint): bigint {
    return this.reading === "previousEnd" ? version : version + 1n
  }

  /** What a change shows; `previous` is the end of the change before it when the two came in a row. */
  learn(start: bigint, end: bigint, previous: bigint | undefined): void {
    if (start === end) this.reading = "next"
    else if (this.reading === "unknown" && start === previous) this.reading = "previousEnd"
  }
}

export class Book {
  readonly symbol: string
  readonly depth: Push.DepthLevel
  private bids: Array<Level> = []
  private asks: Array<Level> = []
  private version: bigint | undefined = undefined
  private versionText = ""
  // Whether the book's version is the end of a change (not of a snapshot): the next change is one in a row.
  private changed = false
  // Where the last change applied started (a snapshot's version, after a snapshot): a copy of a change applied, or one
  // a snapshot holds, starts at or before it.
  private appliedFrom: bigint | undefined = undefined
  private readonly continuity: Continuity

  /** `continuity` is the service's, shared by all its books (a fresh one for a book alone). */
  constructor(symbol: string, depth: Push.DepthLevel, continuity: Continuity = new Continuity()) {
    this.symbol = symbol
    this.depth = depth
    this.continuity = continuity
  }

  /** Whether a snapshot has been applied since the last reset. */
  get live(): boolean {
    return this.version !== undefined
  }

  /** Forgets the book: the next message that counts is a SNAPSHOT. */
  reset(): void {
    this.bids = []
    this.asks = []
    this.version = undefined
    this.versionText = ""
    this.changed = false
    this.appliedFrom = undefined
  }

  apply(message: Push.Depth): Outcome {
    if (message.depthType === "SNAPSHOT") {
      // A live book takes no snapshot that would take it back: the same version again is stale, an older one (late,
      // replayed) a reason to rebuild from a fresh one, never a book to show (a new subscription resets first).
      if (this.version !== undefined) {
        const end = BigInt(message.endVersion)
        if (end === this.version) return "stale"
        if (end < this.version) return "gap"
      }
      this.bids = sorted(message.bids, true)
      this.asks = sorted(message.asks, false)
      this.trim()
      this.version = BigInt(message.endVersion)
      this.versionText = message.endVersion
      this.changed = false
      this.appliedFrom = this.version
      return "applied"
    }
    if (this.version === undefined) return "ignored"
    const end = BigInt(message.endVersion)
    const start = BigInt(message.startVersion)
    if (end <= this.version) {
      // A change that starts after the last one applied started, and ends within it, is no copy of a change applied:
      // that one claimed an end the venue had not reached (a bad message), and every real change would now be skipped
      // as stale, the book frozen with nothing said. The book and the venue disagree: rebuilt from a snapshot.
      return this.appliedFrom !== undefined && start > this.appliedFrom ? "gap" : "stale"
    }
    // A one-version change shows its reading before the gap check (see `Continuity`).
    this.continuity.learn(start, end, this.changed ? this.version : undefined)
    if (start > this.continuity.limit(this.version)) return "gap"
    applySide(this.bids, message.bids, true)
    applySide(this.asks, message.asks, false)
    this.trim()
    this.version = end
    this.versionText = message.endVersion
    this.changed = true
    this.appliedFrom = start
    return "applied"
  }

  /** The book as it is now; later changes do not alter it. */
  snapshot(): Snapshot {
    return {
      symbol: this.symbol,
      depth: this.depth,
      version: this.versionText,
      bids: this.bids.slice(),
      asks: this.asks.slice()
    }
  }

  private trim(): void {
    if (this.bids.length > this.depth) this.bids.length = this.depth
    if (this.asks.length > this.depth) this.asks.length = this.depth
  }
}
