// Order storage and price levels: plain TypeScript, struct-of-arrays, no allocation per resting order beyond the
// typed-array slots and its clientOrderId string.

/** Flags packed in one byte per order. */
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

const NONE = -1

/**
 * Every order ever placed, indexed by its sequence number (the low digits of its id). Numbers are integer units:
 * price in ticks of the product's price precision, quantities in lots of its quantity precision (a market buy's in
 * units of its quote precision), amounts in units of the quote coin.
 */
export class OrderStore {
  size = 0
  capacity: number
  price: Float64Array
  quantity: Float64Array
  remaining: Float64Array
  filled: Float64Array
  fillTotal: Float64Array
  latestFill: Float64Array
  maxFill: Float64Array
  minFill: Float64Array
  cTime: Float64Array
  uTime: Float64Array
  next: Int32Array
  prev: Int32Array
  user: Int32Array
  product: Int32Array
  flags: Uint8Array
  clientOrderId: Array<string>

  constructor(capacity = 1024) {
    this.capacity = capacity
    this.price = new Float64Array(capacity)
    this.quantity = new Float64Array(capacity)
    this.remaining = new Float64Array(capacity)
    this.filled = new Float64Array(capacity)
    this.fillTotal = new Float64Array(capacity)
    this.latestFill = new Float64Array(capacity)
    this.maxFill = new Float64Array(capacity)
    this.minFill = new Float64Array(capacity)
    this.cTime = new Float64Array(capacity)
    this.uTime = new Float64Array(capacity)
    this.next = new Int32Array(capacity)
    this.prev = new Int32Array(capacity)
    this.user = new Int32Array(capacity)
    this.product = new Int32Array(capacity)
    this.flags = new Uint8Array(capacity)
    // Sized with the typed arrays: appending one element at a time would reallocate it over and over.
    this.clientOrderId = new Array<string>(capacity)
  }

  alloc(): number {
    if (this.size === this.capacity) this.grow()
    return this.size++
  }

  // Grows by half: memory per order stays within 1.5× of the fields' size (doubling would allow 2×), at the cost of
  // a few more copies.
  private grow(): void {
    const capacity = Math.ceil(this.capacity * 1.5)
    const f64 = (from: Float64Array) => {
      const to = new Float64Array(capacity)
      to.set(from)
      return to
    }
    const i32 = (from: Int32Array) => {
      const to = new Int32Array(capacity)
      to.set(from)
      return to
    }
    this.price = f64(this.price)
    this.quantity = f64(this.quantity)
    this.remaining = f64(this.remaining)
    this.filled = f64(this.filled)
    this.fillTotal = f64(this.fillTotal)
    this.latestFill = f64(this.latestFill)
    this.maxFill = f64(this.maxFill)
    this.minFill = f64(this.minFill)
    this.cTime = f64(this.cTime)
    this.uTime = f64(this.uTime)
    this.next = i32(this.next)
    this.prev = i32(this.prev)
    this.user = i32(this.user)
    this.product = i32(this.product)
    const flags = new Uint8Array(capacity)
    flags.set(this.flags)
    this.flags = flags
    const ids = new Array<string>(capacity)
    for (let i = 0; i < this.size; i++) ids[i] = this.clientOrderId[i]!
    this.clientOrderId = ids
    this.capacity = capacity
  }

  status(seq: number): number {
    return (this.flags[seq]! >> STATUS_SHIFT) & 3
  }

  setStatus(seq: number, status: number): void {
    this.flags[seq] = (this.flags[seq]! & ~(3 << STATUS_SHIFT)) | (status << STATUS_SHIFT)
  }
}

/** The resting orders at one price, oldest first (time priority), as a doubly linked list through the store. */
export class Level {
  head = NONE
  tail = NONE
  /** Sum of the remaining lots of its orders. */
  total = 0
  count = 0
  readonly price: number
  constructor(price: number) {
    this.price = price
  }
}

/**
 * One side of a book: levels sorted so that the best price is last (bids ascending, asks descending), so that the
 * hot operations (take the best, add near the best) touch the end of the array.
 */
export class BookSide {
  readonly levels: Array<Level> = []
  readonly byPrice = new Map<number, Level>()
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
    if (existing !== undefined) return existing
    const level = new Level(price)
    const levels = this.levels
    // First index whose price is better than `price`: the new level goes just before it.
    let lo = 0
    let hi = levels.length
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (this.better(levels[mid]!.price, price)) hi = mid
      else lo = mid + 1
    }
    if (lo === levels.length) levels.push(level)
    else levels.splice(lo, 0, level)
    this.byPrice.set(price, level)
    return level
  }

  removeLevel(level: Level): void {
    this.byPrice.delete(level.price)
    const levels = this.levels
    if (levels[levels.length - 1] === level) {
      levels.pop()
      return
    }
    let lo = 0
    let hi = levels.length
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (this.better(levels[mid]!.price, level.price)) hi = mid
      else lo = mid + 1
    }
    // `lo` is just past the level (equal prices are not better), so it sits at lo - 1.
    levels.splice(lo - 1, 1)
  }

  append(store: OrderStore, level: Level, seq: number): void {
    store.next[seq] = NONE
    store.prev[seq] = level.tail
    if (level.tail === NONE) level.head = seq
    else store.next[level.tail] = seq
    level.tail = seq
    level.total += store.remaining[seq]!
    level.count++
  }

  /** Unlinks an order; drops the level when it becomes empty. */
  unlink(store: OrderStore, level: Level, seq: number): void {
    const prev = store.prev[seq]!
    const next = store.next[seq]!
    if (prev === NONE) level.head = next
    else store.next[prev] = next
    if (next === NONE) level.tail = prev
    else store.prev[next] = prev
    level.total -= store.remaining[seq]!
    level.count--
    if (level.count === 0) this.removeLevel(level)
  }
}

export const NO_ORDER = NONE
