// The ledger: one entry per change of an account's total balance, struct-of-arrays so that millions of entries cost
// tens of bytes each. Entries are appended in time order (the engine's clock never goes back), so a per-account
// list of entry indices is sorted by (time, index) and time ranges are found by binary search.

export class Ledger {
  size = 0
  capacity: number
  user: Int32Array
  account: Uint8Array
  coin: Uint8Array
  bizType: Uint8Array
  delta: Float64Array
  after: Float64Array
  fee: Float64Array
  time: Float64Array

  constructor(capacity = 4096) {
    this.capacity = capacity
    this.user = new Int32Array(capacity)
    this.account = new Uint8Array(capacity)
    this.coin = new Uint8Array(capacity)
    this.bizType = new Uint8Array(capacity)
    this.delta = new Float64Array(capacity)
    this.after = new Float64Array(capacity)
    this.fee = new Float64Array(capacity)
    this.time = new Float64Array(capacity)
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
    if (this.size === this.capacity) this.reserve(this.capacity * 2)
    const i = this.size++
    this.user[i] = user
    this.account[i] = account
    this.coin[i] = coin
    this.bizType[i] = bizType
    this.delta[i] = delta
    this.after[i] = after
    this.fee[i] = fee
    this.time[i] = time
    return i
  }

  reserve(capacity: number): void {
    if (capacity <= this.capacity) return
    const grow = <A extends Int32Array | Uint8Array | Float64Array>(from: A, make: (n: number) => A): A => {
      const to = make(capacity)
      to.set(from)
      return to
    }
    this.user = grow(this.user, (n) => new Int32Array(n))
    this.account = grow(this.account, (n) => new Uint8Array(n))
    this.coin = grow(this.coin, (n) => new Uint8Array(n))
    this.bizType = grow(this.bizType, (n) => new Uint8Array(n))
    this.delta = grow(this.delta, (n) => new Float64Array(n))
    this.after = grow(this.after, (n) => new Float64Array(n))
    this.fee = grow(this.fee, (n) => new Float64Array(n))
    this.time = grow(this.time, (n) => new Float64Array(n))
    this.capacity = capacity
  }
}

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
    const times = ledger.time
    const items = this.items
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      const t = times[items[mid]!]!
      if (inclusive ? t >= time : t > time) hi = mid
      else lo = mid + 1
    }
    return lo
  }
}
