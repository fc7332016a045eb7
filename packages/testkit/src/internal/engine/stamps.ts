// What the engine stamps on its records: ids and times. Ids are 19-digit (64-bit, above 2^53) decimal strings, the
// kind, a prefix from the seed and a sequence number, so the same seed and the same calls give the same ids. Time is
// whatever the caller passes, but never goes backwards, so the ledger stays in time order.
import { EngineError } from "./errors.ts"

/** Digits of the sequence number in an id. */
export const ID_DIGITS = 15

/** The digit that starts an id: what it names. */
export const Kind = { order: 1, bill: 2, transfer: 3, user: 4, trade: 5, account: 6, fill: 7 } as const

export class Stamps {
  readonly seed: number
  private readonly prefix: string
  /**
   * By kind and by the number of digits of a sequence number: the kind, the prefix and the zeros that pad it to
   * `ID_DIGITS`, so that an id is one concatenation (cheaper than `padStart` and two: BENCHMARKS.md).
   */
  private readonly heads: ReadonlyArray<ReadonlyArray<string>>
  private clock = 0

  constructor(seed: number) {
    if (!Number.isSafeInteger(seed) || seed < 0) throw new EngineError(`seed must be a non-negative integer`)
    this.seed = seed
    this.prefix = String(seed % 1000).padStart(3, "0")
    this.heads = Array.from(
      { length: Kind.fill + 1 },
      (_, kind) =>
        Array.from({ length: ID_DIGITS + 1 }, (_, digits) => kind + this.prefix + "0".repeat(ID_DIGITS - digits))
    )
  }

  id(kind: number, seq: number): string {
    let digits = 1
    for (let bound = 10; bound <= seq; bound *= 10) digits++
    return this.heads[kind]![digits]! + seq
  }

  /** The sequence number behind an id of this engine, or -1. */
  seqOf(kind: number, id: string): number {
    if (id.length !== 4 + ID_DIGITS || id.charCodeAt(0) !== 48 + kind || id.slice(1, 4) !== this.prefix) return -1
    const seq = Number(id.slice(4))
    return Number.isSafeInteger(seq) ? seq : -1
  }

  /** The time of an event the caller dates `now`: never before the latest one. */
  tick(now: number): number {
    if (now > this.clock) this.clock = Math.floor(now)
    return this.clock
  }

  /** The latest time seen (ms). */
  get now(): number {
    return this.clock
  }
}
