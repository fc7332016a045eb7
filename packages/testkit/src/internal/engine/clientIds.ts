// Every clientOrderId ever used, per user: the venue refuses a reused one (43118) for as long as it exists, so this
// index only grows. A `Map<string, number>` of a million strings costs hundreds of nanoseconds per lookup (bucket,
// entry and key string are three scattered reads); this open-addressing table keeps (hash, seq) pairs side by side in
// one Int32Array, so a lookup usually reads one cache line and compares strings only when the hashes agree. The
// keys themselves live in the order store (`clientOrderId[seq]`, `user[seq]`), not here.
import type { OrderStore } from "./book.ts"
import { zeroed } from "./segments.ts"

const EMPTY = 0

// FNV-1a over the user and the UTF-16 code units, then a final avalanche (murmur3 fmix32) for the low bits used as
// the slot. Never 0, so 0 can mark an empty slot.
const hashOf = (user: number, id: string): number => {
  let h = 0x811C9DC5 ^ user
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193)
  h ^= h >>> 16
  h = Math.imul(h, 0x85EBCA6B)
  h ^= h >>> 13
  h = Math.imul(h, 0xC2B2AE35)
  h ^= h >>> 16
  return h === 0 ? 1 : h
}

export class ClientIds {
  private readonly store: OrderStore
  /** Pairs (hash, seq + 1); a zero hash is an empty slot. */
  private slots: Int32Array
  private mask = 1023
  private size = 0

  private readonly shared: boolean

  /** Its table in shared memory if `shared` (see segments.ts). */
  constructor(store: OrderStore, shared = true) {
    this.store = store
    this.shared = shared
    this.slots = new Int32Array(zeroed(4 * 2 * 1024, shared))
  }

  // What the last `get` that found nothing hashed, and the empty slot its probe ended on.
  private lastHash = 0
  private lastSlot = 0

  /** The order of `user` with this clientOrderId, or -1. */
  get(user: number, id: string): number {
    const hash = hashOf(user, id)
    const slots = this.slots
    const store = this.store
    const mask = this.mask
    for (let i = hash & mask;; i = (i + 1) & mask) {
      const h = slots[2 * i]!
      if (h === EMPTY) {
        this.lastHash = hash
        this.lastSlot = i
        return -1
      }
      if (h === hash) {
        const seq = slots[2 * i + 1]! - 1
        if (store.user(seq) === user && store.clientOrderId(seq) === id) return seq
      }
    }
  }

  /**
   * Records the order `seq` under the clientOrderId that the last `get` looked up and did not find (nothing else
   * may change the table in between): placing an order neither hashes nor probes twice.
   */
  addMissed(seq: number): void {
    if (2 * (this.size + 1) > this.mask + 1) {
      this.grow()
      this.put(this.lastHash, seq)
    } else {
      this.slots[2 * this.lastSlot] = this.lastHash
      this.slots[2 * this.lastSlot + 1] = seq + 1
    }
    this.size++
  }

  private put(hash: number, seq: number): void {
    const slots = this.slots
    let i = hash & this.mask
    while (slots[2 * i] !== EMPTY) i = (i + 1) & this.mask
    slots[2 * i] = hash
    slots[2 * i + 1] = seq + 1
  }

  // The outgrown table is left to the garbage collector; in shared memory (segments.ts) it does not prompt a
  // collection, so up to the size of the new table may wait for the next one.
  private grow(): void {
    const old = this.slots
    this.slots = new Int32Array(zeroed(4 * old.length * 2, this.shared))
    this.mask = this.mask * 2 + 1
    for (let i = 0; i < old.length; i += 2) {
      if (old[i] !== EMPTY) this.put(old[i]!, old[i + 1]! - 1)
    }
  }
}
