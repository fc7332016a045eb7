// Every trade as one record of numbers (eight float64 slots, 64 bytes) in segments (see segments.ts);
// `Engine.tradeList` formats them only when asked, so recording costs a few writes per fill instead of an object and
// seven strings.
import { Segments } from "./segments.ts"

const STRIDE = 8
const SEGMENT_BITS = 14
const MASK = (1 << SEGMENT_BITS) - 1

export const MAKER = 0
export const TAKER = 1
export const PRICE = 2
export const LOTS = 3
export const VALUE = 4
export const MAKER_FEE = 5
export const TAKER_FEE = 6
export const TIME = 7

/** Every trade of an engine, in the order they happened. */
export class TradeLog {
  /** Trade `i` is at `at(i)` in `records.segment(i)`. */
  readonly records: Segments

  /** In shared memory if `shared` (see segments.ts). */
  constructor(shared = true) {
    this.records = new Segments(SEGMENT_BITS, STRIDE, shared)
  }

  append(
    maker: number,
    taker: number,
    price: number,
    lots: number,
    value: number,
    makerFee: number,
    takerFee: number,
    time: number
  ): void {
    const records = this.records
    const i = records.alloc()
    // The segment by the constant shift rather than `records.segment(i)`: appending is on every fill's path.
    const r = records.segments[i >>> SEGMENT_BITS]!
    const o = at(i)
    r[o + MAKER] = maker
    r[o + TAKER] = taker
    r[o + PRICE] = price
    r[o + LOTS] = lots
    r[o + VALUE] = value
    r[o + MAKER_FEE] = makerFee
    r[o + TAKER_FEE] = takerFee
    r[o + TIME] = time
  }
}

/** Offset of trade `i` in its segment. */
export const at = (i: number): number => (i & MASK) * STRIDE
