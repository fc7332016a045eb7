// The steady-state workload of the engine benchmark (issue #3, "Benchmarks"), generated once before any timing and
// replayed unchanged by every contestant: a seeded stream of new orders around a slowly drifting mid price (about
// 30 % crossing, 2 % market, the rest passive limit orders resting a few dozen ticks from the mid) and, 20K orders
// after each order that may rest, its cancel (a no-op when it has filled meanwhile). Everything lives in typed arrays
// (plus one id string per order), so the timed loops only read.
//
// The generator drives its own small reference book (price-time priority, lazy FIFO queues per tick) while it
// generates. That model chooses prices relative to the live book (a passive order never crosses, a crossing order
// is priced through the best opposite price), it prices each market buy in the quote coin so that it buys exactly
// the lots the library's base-quantity market buy takes, and it predicts the final resting book that every
// contestant must reproduce level by level.

/** Op kinds. */
export const LIMIT = 0
export const MARKET = 1
export const CANCEL = 2

/** Forces, as the engine numbers them. */
export const NORMAL = 0
export const POST_ONLY = 1
export const FOK = 2
export const IOC = 3

/** BTCUSDT_SPBL: prices in ticks of 0.01 USDT, quantities in lots of 0.0001 BTC. */
export const PRICE_DECIMALS = 2
export const LOT_DECIMALS = 4
/** A market buy's quantity is quote coin at the price precision (cents). */
export const QUOTE_DECIMALS = 2
/** Ticks × lots per cent of quote coin: 10^(PRICE_DECIMALS + LOT_DECIMALS - QUOTE_DECIMALS). */
const TICK_LOTS_PER_CENT = 10_000

/** 30000.00 USDT in ticks. */
export const MID = 3_000_000
const WINDOW = 8192
const BASE = MID - WINDOW / 2
const DRIFT_LIMIT = 1500

export interface WorkloadOptions {
  readonly orders: number
  readonly seed?: number | undefined
  /** Orders between an order and its cancel. @default 20_000 */
  readonly cancelAfter?: number | undefined
}

/** Price levels best first: price in ticks, total lots, number of orders. */
export type Levels = ReadonlyArray<readonly [price: number, lots: number, orders: number]>

export interface Book {
  readonly bids: Levels
  readonly asks: Levels
}

export interface WorkloadStats {
  readonly limit: number
  readonly market: number
  readonly marketBuys: number
  /** Limit orders priced through the best opposite price when generated. */
  readonly crossing: number
  readonly passive: number
  readonly postOnly: number
  readonly ioc: number
  readonly fok: number
  /** FOK orders the model kills (not fillable when placed). */
  readonly fokKilled: number
  /** Orders that traded at least once as taker. */
  readonly takers: number
  /** Maker fills (one per resting order touched). */
  readonly fills: number
  readonly cancels: number
  /** Cancels that found their order still resting. */
  readonly cancelsEffective: number
  readonly maxResting: number
  readonly meanResting: number
  readonly midMin: number
  readonly midMax: number
}

export interface Workload {
  readonly orders: number
  readonly ops: number
  readonly cancelAfter: number
  readonly seed: number
  /** Per op. */
  readonly kind: Uint8Array
  readonly side: Uint8Array
  readonly force: Uint8Array
  /** Ticks (limit orders). */
  readonly price: Int32Array
  /** Lots (limit orders, market sells, and market buys for a base-quantity API). */
  readonly lots: Int32Array
  /** Market buys: quote coin in cents that buys exactly `lots` on the book they meet. */
  readonly quote: Float64Array
  /** The order number: the op's own order, or the target of a cancel. */
  readonly order: Int32Array
  /** Per order number: its clientOrderId (also the library's order id). */
  readonly ids: ReadonlyArray<string>
  /** The resting book after the whole stream, as the reference model predicts it. */
  readonly expected: Book
  readonly stats: WorkloadStats
}

/** mulberry32: small, fast, and the same on every platform. */
export const prng = (seed: number) => {
  let a = seed >>> 0
  return (): number => {
    a = (a + 0x6D2B79F5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** One side of the reference book: per tick a FIFO of order numbers (dead entries skipped lazily). */
class ModelSide {
  readonly lots = new Float64Array(WINDOW)
  readonly count = new Int32Array(WINDOW)
  readonly head = new Int32Array(WINDOW)
  readonly queue: Array<Array<number>> = Array.from({ length: WINDOW }, () => [])
  readonly isBid: boolean
  /** Best tick index; -1 (bids) or WINDOW (asks) when empty. */
  best: number
  constructor(isBid: boolean) {
    this.isBid = isBid
    this.best = isBid ? -1 : WINDOW
  }

  get empty(): boolean {
    return this.best < 0 || this.best >= WINDOW
  }

  add(k: number, at: number, lots: number): void {
    this.queue[at]!.push(k)
    this.lots[at] = this.lots[at]! + lots
    this.count[at] = this.count[at]! + 1
    if (this.isBid ? at > this.best : at < this.best) this.best = at
  }

  /** Called when a level may have emptied. */
  settle(at: number): void {
    if (this.count[at] !== 0) return
    this.queue[at]!.length = 0
    this.head[at] = 0
    if (at !== this.best) return
    if (this.isBid) {
      while (this.best >= 0 && this.count[this.best] === 0) this.best--
    } else {
      while (this.best < WINDOW && this.count[this.best] === 0) this.best++
    }
  }

  levels(): Array<readonly [number, number, number]> {
    const out: Array<readonly [number, number, number]> = []
    if (this.isBid) {
      for (let at = WINDOW - 1; at >= 0; at--) {
        if (this.count[at]! > 0) out.push([BASE + at, this.lots[at]!, this.count[at]!])
      }
    } else {
      for (let at = 0; at < WINDOW; at++) {
        if (this.count[at]! > 0) out.push([BASE + at, this.lots[at]!, this.count[at]!])
      }
    }
    return out
  }
}

/** Generates the op stream (deterministic for `seed`) and the final book the reference model predicts. */
export const generate = (options: WorkloadOptions): Workload => {
  const n = options.orders
  const cancelAfter = options.cancelAfter ?? 20_000
  const seed = options.seed ?? 42
  const random = prng(seed)
  const capacity = 2 * n
  const kind = new Uint8Array(capacity)
  const side = new Uint8Array(capacity)
  const force = new Uint8Array(capacity)
  const price = new Int32Array(capacity)
  const lots = new Int32Array(capacity)
  const quote = new Float64Array(capacity)
  const order = new Int32Array(capacity)
  const ids: Array<string> = new Array<string>(n)
  const cancellable = new Uint8Array(n)

  // The reference model.
  const remaining = new Int32Array(n)
  const orderSide = new Uint8Array(n)
  const orderAt = new Int32Array(n)
  const bids = new ModelSide(true)
  const asks = new ModelSide(false)
  let resting = 0
  let restingSum = 0
  let maxResting = 0
  const stats = {
    limit: 0,
    market: 0,
    marketBuys: 0,
    crossing: 0,
    passive: 0,
    postOnly: 0,
    ioc: 0,
    fok: 0,
    fokKilled: 0,
    takers: 0,
    fills: 0,
    cancels: 0,
    cancelsEffective: 0
  }

  /** Takes up to `want` lots from `book` at ticks no worse than `limit` (-1: any); answers ticks × lots taken. */
  let taken = 0
  const take = (book: ModelSide, limit: number, want: number): number => {
    let left = want
    let cost = 0
    while (left > 0 && !book.empty) {
      const at = book.best
      if (limit >= 0 && (book.isBid ? at < limit : at > limit)) break
      const queue = book.queue[at]!
      let h = book.head[at]!
      while (left > 0 && h < queue.length) {
        const m = queue[h]!
        const r = remaining[m]!
        if (r === 0) {
          h++
          continue
        }
        const x = r < left ? r : left
        remaining[m] = r - x
        left -= x
        book.lots[at] = book.lots[at]! - x
        cost += (BASE + at) * x
        stats.fills++
        if (r === x) {
          book.count[at] = book.count[at]! - 1
          resting--
          h++
        }
      }
      book.head[at] = h
      if (h > 1024 && 2 * h > queue.length) {
        queue.splice(0, h)
        book.head[at] = 0
      }
      book.settle(at)
    }
    taken = want - left
    return cost
  }

  const fillable = (book: ModelSide, limit: number, want: number): boolean => {
    let have = 0
    if (book.isBid) {
      for (let at = book.best; at >= 0 && at >= limit && have < want; at--) have += book.lots[at]!
    } else {
      for (let at = book.best; at < WINDOW && at <= limit && have < want; at++) have += book.lots[at]!
    }
    return have >= want
  }

  let ops = 0
  let mid = MID - BASE
  let midMin = mid
  let midMax = mid
  for (let k = 0; k < n; k++) {
    if (random() < 0.001) {
      mid += random() < 0.5 ? 1 : -1
      if (mid > WINDOW / 2 + DRIFT_LIMIT) mid = WINDOW / 2 + DRIFT_LIMIT
      if (mid < WINDOW / 2 - DRIFT_LIMIT) mid = WINDOW / 2 - DRIFT_LIMIT
      if (mid < midMin) midMin = mid
      if (mid > midMax) midMax = mid
    }
    ids[k] = "o" + k
    const buy = random() < 0.5
    const own = buy ? bids : asks
    const other = buy ? asks : bids
    const u = random()
    const i = ops++
    order[i] = k
    side[i] = buy ? 0 : 1
    orderSide[k] = buy ? 0 : 1
    if (u < 0.02) {
      // Market: a few lots; a market buy's quote amount is exactly what those lots cost on the current book.
      const size = 1 + Math.floor(random() * 10)
      kind[i] = MARKET
      lots[i] = size
      const cost = take(other, -1, size)
      if (taken > 0) stats.takers++
      if (buy) {
        stats.marketBuys++
        // Whole cents, rounded up: the excess is below one cent, less than any lot costs, so it buys nothing more.
        const rest = cost % TICK_LOTS_PER_CENT
        quote[i] = Math.max(1, (cost - rest) / TICK_LOTS_PER_CENT + (rest === 0 ? 0 : 1))
      }
      stats.market++
      continue
    }
    kind[i] = LIMIT
    stats.limit++
    let at: number
    let size: number
    let f: number
    if (u < 0.32) {
      // Crossing: priced 0-3 ticks through the best opposite price; normal (the rest rests), IOC or FOK.
      stats.crossing++
      const through = Math.floor(random() * 4)
      at = other.empty ? (buy ? mid + 1 : mid - 1) : (buy ? other.best + through : other.best - through)
      size = 1 + Math.floor(random() * 10)
      const v = random()
      f = v < 0.6 ? NORMAL : v < 0.85 ? IOC : FOK
    } else {
      // Passive: 1-40 ticks from the mid on its own side, and never through the best opposite price.
      stats.passive++
      const away = 1 + Math.floor(random() * 40)
      at = buy ? mid - away : mid + away
      if (!other.empty && (buy ? at >= other.best : at <= other.best)) at = buy ? other.best - 1 : other.best + 1
      size = 1 + Math.floor(random() * 5)
      f = random() < 0.1 ? POST_ONLY : NORMAL
    }
    price[i] = BASE + at
    lots[i] = size
    force[i] = f
    if (f === POST_ONLY) stats.postOnly++
    if (f === IOC) stats.ioc++
    if (f === FOK) stats.fok++
    if (f === FOK && !fillable(other, at, size)) {
      stats.fokKilled++
    } else {
      take(other, at, size)
      if (taken > 0) stats.takers++
      const left = size - taken
      if (left > 0 && (f === NORMAL || f === POST_ONLY)) {
        remaining[k] = left
        orderAt[k] = at
        own.add(k, at, left)
        resting++
      }
    }
    if (f === NORMAL || f === POST_ONLY) cancellable[k] = 1
    restingSum += resting
    if (resting > maxResting) maxResting = resting

    // The cancel of the order placed `cancelAfter` orders ago, if it could rest.
    const target = k - cancelAfter
    if (target >= 0 && cancellable[target] === 1) {
      const c = ops++
      kind[c] = CANCEL
      order[c] = target
      side[c] = orderSide[target]!
      stats.cancels++
      const r = remaining[target]!
      if (r > 0) {
        stats.cancelsEffective++
        const book = orderSide[target] === 0 ? bids : asks
        const where = orderAt[target]!
        remaining[target] = 0
        book.lots[where] = book.lots[where]! - r
        book.count[where] = book.count[where]! - 1
        resting--
        book.settle(where)
      }
    }
  }
  return {
    orders: n,
    ops,
    cancelAfter,
    seed,
    kind: kind.subarray(0, ops),
    side: side.subarray(0, ops),
    force: force.subarray(0, ops),
    price: price.subarray(0, ops),
    lots: lots.subarray(0, ops),
    quote: quote.subarray(0, ops),
    order: order.subarray(0, ops),
    ids,
    expected: { bids: bids.levels(), asks: asks.levels() },
    stats: {
      ...stats,
      maxResting,
      meanResting: Math.round(restingSum / n),
      midMin: BASE + midMin,
      midMax: BASE + midMax
    }
  }
}

/** The first `ops` ops of a workload (a valid stream: a cancel only ever follows its order). */
export const prefix = (w: Workload, ops: number): Workload => ({
  ...w,
  ops: Math.min(ops, w.ops),
  kind: w.kind.subarray(0, ops),
  side: w.side.subarray(0, ops),
  force: w.force.subarray(0, ops),
  price: w.price.subarray(0, ops),
  lots: w.lots.subarray(0, ops),
  quote: w.quote.subarray(0, ops),
  order: w.order.subarray(0, ops)
})

/** N non-crossing resting orders (bids below the mid, asks above), for the memory measurement. */
export interface RestingSet {
  readonly n: number
  readonly side: Uint8Array
  readonly price: Int32Array
  readonly lots: Int32Array
  readonly ids: ReadonlyArray<string>
}

export const restingSet = (n: number, seed = 7): RestingSet => {
  const random = prng(seed)
  const side = new Uint8Array(n)
  const price = new Int32Array(n)
  const lots = new Int32Array(n)
  const ids: Array<string> = new Array<string>(n)
  for (let k = 0; k < n; k++) {
    const buy = random() < 0.5
    const away = 1 + Math.floor(random() * 40)
    side[k] = buy ? 0 : 1
    price[k] = buy ? MID - away : MID + away
    lots[k] = 1 + Math.floor(random() * 5)
    ids[k] = "m" + k
  }
  return { n, side, price, lots, ids }
}

/** Integer units as a decimal string with exactly `decimals` places ("3000000", 2 -> "30000.00"). */
export const decimal = (units: number, decimals: number): string => {
  const digits = String(units).padStart(decimals + 1, "0")
  return digits.slice(0, digits.length - decimals) + "." + digits.slice(digits.length - decimals)
}
