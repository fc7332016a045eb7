// The venue's side of a depth channel: the whole book of a symbol (from the engine's snapshot, then every change),
// its version, and what each depth (15 or 200 levels) last showed its subscribers, so that a change sends exactly
// the levels that changed within that depth — including those that enter it when a better one leaves.

/** A price level as the venue lists it: price, size (exact decimal strings). */
export type Level = readonly [price: string, size: string]

/** Orders two non-negative decimal strings by value ("10" > "9.5", "1.50" = "1.5"). */
export const compareDecimal = (a: string, b: string): number => {
  const [ia = "", fa = ""] = a.split(".")
  const [ib = "", fb = ""] = b.split(".")
  const intA = ia.replace(/^0+(?=\d)/, "")
  const intB = ib.replace(/^0+(?=\d)/, "")
  if (intA.length !== intB.length) return intA.length - intB.length
  if (intA !== intB) return intA < intB ? -1 : 1
  const width = Math.max(fa.length, fb.length)
  const fracA = fa.padEnd(width, "0")
  const fracB = fb.padEnd(width, "0")
  return fracA === fracB ? 0 : fracA < fracB ? -1 : 1
}

const isZero = (size: string): boolean => !/[1-9]/.test(size)

// One side, best first: bids descending, asks ascending.
class Side {
  readonly levels: Array<[string, string]> = []
  private readonly descending: boolean

  constructor(descending: boolean) {
    this.descending = descending
  }

  private index(price: string): number {
    let lo = 0
    let hi = this.levels.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      const order = compareDecimal(this.levels[mid]![0], price)
      if (order === 0) return mid
      if (this.descending ? order > 0 : order < 0) lo = mid + 1
      else hi = mid
    }
    return lo
  }

  set(price: string, size: string): void {
    const i = this.index(price)
    const found = i < this.levels.length && compareDecimal(this.levels[i]![0], price) === 0
    if (isZero(size)) {
      if (found) this.levels.splice(i, 1)
    } else if (found) {
      this.levels[i]![1] = size
    } else {
      this.levels.splice(i, 0, [price, size])
    }
  }

  top(depth: number): ReadonlyArray<Level> {
    return this.levels.slice(0, depth).map(([price, size]): Level => [price, size])
  }
}

/** What changed within the best `depth` levels since they were last shown: sizes, "0" for a level that left. */
const diff = (before: ReadonlyArray<Level>, after: ReadonlyArray<Level>): Array<Level> => {
  const old = new Map(before)
  const changes: Array<Level> = []
  for (const [price, size] of after) {
    if (old.get(price) !== size) changes.push([price, size])
    old.delete(price)
  }
  for (const price of old.keys()) changes.push([price, "0"])
  return changes
}

/** The changed levels of one depth, per side. */
export interface Changes {
  readonly bids: ReadonlyArray<Level>
  readonly asks: ReadonlyArray<Level>
}

export class DepthBook {
  private readonly bids = new Side(true)
  private readonly asks = new Side(false)
  private readonly shown = new Map<number, { bids: ReadonlyArray<Level>; asks: ReadonlyArray<Level> }>()

  constructor(snapshot: { readonly bids: ReadonlyArray<Level>; readonly asks: ReadonlyArray<Level> }) {
    for (const [price, size] of snapshot.bids) this.bids.set(price, size)
    for (const [price, size] of snapshot.asks) this.asks.set(price, size)
  }

  /** The best `depth` levels, remembered as shown to that depth. */
  snapshot(depth: number): Changes {
    const view = { bids: this.bids.top(depth), asks: this.asks.top(depth) }
    this.shown.set(depth, view)
    return view
  }

  /** Applies changed levels (absolute sizes, "0" removes). */
  apply(bids: ReadonlyArray<Level>, asks: ReadonlyArray<Level>): void {
    for (const [price, size] of bids) this.bids.set(price, size)
    for (const [price, size] of asks) this.asks.set(price, size)
  }

  /** What changed within the best `depth` levels since last shown (empty sides when nothing did). */
  changes(depth: number): Changes {
    const before = this.shown.get(depth) ?? { bids: [], asks: [] }
    const after = { bids: this.bids.top(depth), asks: this.asks.top(depth) }
    this.shown.set(depth, after)
    return { bids: diff(before.bids, after.bids), asks: diff(before.asks, after.asks) }
  }
}
