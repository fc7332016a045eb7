// The ledger: one entry per change of an account's total balance, a record of five float64 slots each in segments
// (see segments.ts for why), so that millions of entries cost 40 bytes each and writing one touches one place.
// Entries are appended in time order (the engine's clock never goes back), so a per-account list of entry indices is
// sorted by (time, index) and time ranges are found by binary search.
import { Bill } from "@spotkit/core"
import { Segments } from "./segments.ts"

/**
 * The bill business types of docs/venue/account.md#bill-business-types (core's `Bill.BizType`): an entry's bizType is
 * an index into this list.
 */
export const bizTypes: ReadonlyArray<Bill.BizType> = Bill.BizType.literals

/** The index of each bizType. */
export const BIZ = Object.fromEntries(bizTypes.map((name, i) => [name, i])) as Record<Bill.BizType, number>

const STRIDE = 5
const SEGMENT_BITS = 16
const MASK = (1 << SEGMENT_BITS) - 1

export const TIME = 0
export const DELTA = 1
export const AFTER = 2
export const FEE = 3
/** user × 2^24 + kind, where kind = account × 2^16 + coin × 2^8 + bizType (exact: below 2^53 for users < 2^29) */
export const WHO = 4

const KINDS = 2 ** 24

export class Ledger {
  /** Entry `i` is at `at(i)` in `records.segment(i)`. */
  readonly records: Segments

  /** In shared memory if `shared` (see segments.ts). */
  constructor(shared = true) {
    this.records = new Segments(SEGMENT_BITS, STRIDE, shared)
  }

  append(
    user: number,
    account: number,
    coin: number,
    bizType: number,
    delta: number,
    after: number,
    fee: number,
    time: number
  ): number {
    const records = this.records
    const i = records.alloc()
    // The segment by the constant shift rather than `records.segment(i)`: appending is on every fill's path.
    const r = records.segments[i >>> SEGMENT_BITS]!
    const o = at(i)
    r[o + TIME] = time
    r[o + DELTA] = delta
    r[o + AFTER] = after
    r[o + FEE] = fee
    r[o + WHO] = user * KINDS + ((account << 16) | (coin << 8) | bizType)
    return i
  }

  time(i: number): number {
    return this.records.segment(i)[at(i) + TIME]!
  }
}

/** Offset of entry `i` in its segment. */
export const at = (i: number): number => (i & MASK) * STRIDE

/** The user of an entry, from its WHO slot. */
export const userOf = (who: number): number => Math.floor(who / KINDS)
/** The kind of an entry (account, coin, bizType), from its WHO slot. */
export const kindOf = (who: number): number => who % KINDS

export const accountOf = (kind: number): number => kind >>> 16
export const coinOf = (kind: number): number => (kind >>> 8) & 0xFF
export const bizTypeOf = (kind: number): number => kind & 0xFF

/** A growable list of ledger indices, sorted by entry time because entries are appended in time order. */
export class EntryList {
  size = 0
  items = new Int32Array(16)

  push(index: number): void {
    if (this.size === this.items.length) {
      const items = new Int32Array(this.items.length * 2)
      items.set(this.items)
      this.items = items
    }
    this.items[this.size++] = index
  }

  /** First position whose entry time is greater than `time` (or >= when `inclusive`). */
  bound(ledger: Ledger, time: number, inclusive: boolean): number {
    let lo = 0
    let hi = this.size
    const items = this.items
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      const t = ledger.time(items[mid]!)
      if (inclusive ? t >= time : t > time) hi = mid
      else lo = mid + 1
    }
    return lo
  }
}
