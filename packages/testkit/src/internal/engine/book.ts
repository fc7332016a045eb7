// Order storage and price levels: plain TypeScript, no allocation per resting order beyond its record's slots and a
// pointer to its clientOrderId string.
//
// Layout, chosen by measurement (BENCHMARKS.md): every order is one record of 16 float64 slots (128 bytes, two cache
// lines) in fixed-size segments. A record rather than a column per field, because the hot paths (a cancel, a maker's
// fill) touch one order at a random place in history and then read most of its fields: one or two cache lines
// instead of fifteen. Segments rather than one array grown by copying, because each copy left the old array as
// garbage outside V8's heap, and every few tens of megabytes of such memory forced a full garbage collection, a large
// share of a run's time; with segments the store allocates little more than it keeps (only its first segment grows
// by copying, up to 2 MB).
import { Segments } from "./segments.ts"

/** Flags packed in the FLAGS slot of a record. */
export const SIDE_SELL = 1
export const TYPE_MARKET = 2
export const FORCE_SHIFT = 2 // two bits: 0 normal, 1 postOnly, 2 fok, 3 ioc
export const STATUS_SHIFT = 4 // two bits: 0 open, 1 filled, 2 cancelled

export const FORCE_NORMAL = 0
export const FORCE_POST_ONLY = 1
export const FORCE_FOK = 2
export const FORCE_IOC = 3

export const STATUS_OPEN = 0
export const STATUS_FILLED = 1
export const STATUS_CANCELLED = 2

// The slots of an order's record. Numbers are integer units: price in ticks of the product's price precision,
// quantities in lots of its quantity precision (a market buy's in units of its quote precision), amounts in units of
// the quote coin. The first eight (one cache line) are the ones matching and cancelling read.
export const NEXT = 0
export const PREV = 1
export const REMAINING = 2
export const FLAGS = 3
export const USER = 4
export const PRICE = 5
export const PRODUCT = 6
/** The id of the level the order rests in (while it rests). */
export const LEVEL = 7
export const QUANTITY = 8
export const FILLED = 9
export const FILL_TOTAL = 10
export const LATEST_FILL = 11
export const MAX_FILL = 12
export const MIN_FILL = 13
export const C_TIME = 14
export const U_TIME = 15

const RECORD_BITS = 4
const SEGMENT_BITS = 14
const MASK = (1 << SEGMENT_BITS) - 1

/** Offset of an order's record in its segment (`OrderStore.segment`). */
export const at = (seq: number): number => (seq & MASK) << RECORD_BITS

const NONE = -1
export const NO_ORDER = NONE

/** Every order ever placed, indexed by its sequence number (the low digits of its id). */
export class OrderStore {
  private readonly records: Segments
  private readonly ids: Array<Array<string>> = []

  /** In shared memory if `shared` (see segments.ts). */
  constructor(shared = true) {
    this.records = new Segments(SEGMENT_BITS, 1 << RECORD_BITS, shared)
  }

  get size(): number {
    return this.records.size
  }

  /**
   * The segment holding the record of order `seq`; `at(seq)` is its offset there. Valid until the next `alloc`
   * (segments.ts).
   */
  segment(seq: number): Float64Array {
    return this.records.segments[seq >>> SEGMENT_BITS]!
  }

  /** A new record, all zero but for its links (none). */
  alloc(clientOrderId: string): number {
    const seq = this.records.alloc()
    const page = seq >>> SEGMENT_BITS
    if (page === this.ids.length) this.ids.push(new Array<string>(MASK + 1))
    this.ids[page]![seq & MASK] = clientOrderId
    return seq
  }

  clientOrderId(seq: number): string {
    return this.ids[seq >>> SEGMENT_BITS]![seq & MASK]!
  }

  user(seq: number): number {
    return this.segment(seq)[at(seq) + USER]!
  }

  flags(seq: number): number {
    return this.segment(seq)[at(seq) + FLAGS]!
  }
}

/** Sets an order's status in its record. */
export const setStatus = (record: Float64Array, o: number, status: number): void => {
  record[o + FLAGS] = (record[o + FLAGS]! & ~(3 << STATUS_SHIFT)) | (status << STATUS_SHIFT)
}

/** The resting orders at one price, oldest first (time priority), as a doubly linked list through the store. */
export class Level {
  head = NONE
  tail = NONE
  /** Sum of the remaining lots of its orders. */
  total = 0
  count = 0
  price = 0
  readonly id: number
  constructor(id: number) {
    this.id = id
  }
}

/**
 * One side of a book: levels sorted so that the best price is last (bids ascending, asks descending), so that the
 * hot operations (take the best, add near the best) touch the end of the array. Levels are reused: an order keeps
 * its level's id, so a cancel finds the level without a lookup by price.
 */
export class BookSide {
  readonly levels: Array<Level> = []
  readonly byId: Array<Level> = []
  private readonly byPrice = new PriceIndex()
  private readonly free: Array<Level> = []
  readonly isBid: boolean
  constructor(isBid: boolean) {
    this.isBid = isBid
  }

  best(): Level | undefined {
    return this.levels[this.levels.length - 1]
  }

  /** Whether `price` is strictly better than `than` on this side. */
  better(price: number, than: number): boolean {
    return this.isBid ? price > than : price < than
  }

  levelFor(price: number): Level {
    const existing = this.byPrice.get(price)
    if (existing >= 0) return this.byId[existing]!
    let level = this.free.pop()
    if (level === undefined) {
      level = new Level(this.byId.length)
      this.byId.push(level)
    }
    // A reused level emptied exactly (integer units), but state nothing on that.
    level.head = NONE
    level.tail = NONE
    level.total = 0
    level.count = 0
    level.price = price
    const levels = this.levels
    const i = this.after(price)
    if (i === levels.length) levels.push(level)
    else levels.splice(i, 0, level)
    this.byPrice.set(price, level.id)
    return level
  }

  /** The first index whose price is better than `price`. */
  private after(price: number): number {
    const levels = this.levels
    let lo = 0
    let hi = levels.length
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (this.better(levels[mid]!.price, price)) hi = mid
      else lo = mid + 1
    }
    return lo
  }

  private removeLevel(level: Level): void {
    this.byPrice.remove(level.price)
    this.free.push(level)
    const levels = this.levels
    if (levels[levels.length - 1] === level) levels.pop()
    // The level is just before the first better one (equal prices are not better).
    else levels.splice(this.after(level.price) - 1, 1)
  }

  append(store: OrderStore, level: Level, seq: number): void {
    const record = store.segment(seq)
    const o = at(seq)
    record[o + NEXT] = NONE
    record[o + PREV] = level.tail
    record[o + LEVEL] = level.id
    if (level.tail === NONE) level.head = seq
    else store.segment(level.tail)[at(level.tail) + NEXT] = seq
    level.tail = seq
    level.total += record[o + REMAINING]!
    level.count++
  }

  /** Unlinks an order; drops the level when it becomes empty. */
  unlink(store: OrderStore, level: Level, seq: number): void {
    const record = store.segment(seq)
    const o = at(seq)
    const prev = record[o + PREV]!
    const next = record[o + NEXT]!
    if (prev === NONE) level.head = next
    else store.segment(prev)[at(prev) + NEXT] = next
    if (next === NONE) level.tail = prev
    else store.segment(next)[at(next) + PREV] = prev
    level.total -= record[o + REMAINING]!
    level.count--
    if (level.count === 0) this.removeLevel(level)
  }
}

/**
 * Price → level id, open addressing with linear probing over typed arrays (a `Map` of number keys hashed each heap
 * number and cost a few percent of a run); deletion shifts later entries back, so no tombstones pile up as levels
 * come and go.
 */
export class PriceIndex {
  private keys = new Float64Array(64)
  /** level id + 1; 0 is an empty slot. */
  private values = new Int32Array(64)
  private mask = 63
  private shift = 26
  private size = 0

  private slot(price: number): number {
    // Fibonacci hashing: prices are integers below 2^53, `| 0` keeps their low 32 bits, the multiply mixes them into
    // the high bits, which index the table.
    return Math.imul(price | 0, 0x9E3779B1) >>> this.shift
  }

  get(price: number): number {
    const keys = this.keys
    const values = this.values
    for (let i = this.slot(price);; i = (i + 1) & this.mask) {
      const v = values[i]!
      if (v === 0) return -1
      if (keys[i] === price) return v - 1
    }
  }

  /** Adds a price that is absent. */
  set(price: number, id: number): void {
    if (2 * (this.size + 1) > this.mask + 1) this.grow()
    let i = this.slot(price)
    while (this.values[i] !== 0) i = (i + 1) & this.mask
    this.keys[i] = price
    this.values[i] = id + 1
    this.size++
  }

  /** Removes a price that is present. */
  remove(price: number): void {
    const keys = this.keys
    const values = this.values
    const mask = this.mask
    let i = this.slot(price)
    while (keys[i] !== price || values[i] === 0) i = (i + 1) & mask
    // Backward-shift deletion: move up each later entry of the run that may not sit past the hole.
    let hole = i
    for (let j = (i + 1) & mask; values[j] !== 0; j = (j + 1) & mask) {
      const home = this.slot(keys[j]!)
      // The entry at j may fill the hole when its home is not in (hole, j] (cyclically).
      if (hole <= j ? (home <= hole || home > j) : (home <= hole && home > j)) {
        keys[hole] = keys[j]!
        values[hole] = values[j]!
        hole = j
      }
    }
    values[hole] = 0
    this.size--
  }

  private grow(): void {
    const keys = this.keys
    const values = this.values
    this.keys = new Float64Array(keys.length * 2)
    this.values = new Int32Array(values.length * 2)
    this.mask = this.mask * 2 + 1
    this.shift--
    this.size = 0
    for (let i = 0; i < keys.length; i++) {
      if (values[i] !== 0) this.set(keys[i]!, values[i]! - 1)
    }
  }
}
