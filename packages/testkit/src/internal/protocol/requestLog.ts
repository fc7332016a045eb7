// The request log: a ring of the latest records, each request with what the exchange answered, for tests to inspect.
import type * as Fault from "../../Fault.ts"

export interface RequestRecord {
  readonly time: number
  readonly method: string
  readonly path: string
  readonly body: string
  /** The user of a valid API key, if any. */
  readonly userId: string | undefined
  /** HTTP status answered; undefined when the connection dropped or hung. */
  readonly status: number | undefined
  /** Venue code answered, if any. */
  readonly code: string | undefined
  readonly fault: Fault.Fault["_tag"] | undefined
}

/** Bodies are kept up to this many characters. */
const BODY_KEPT = 4096

export class RequestLog {
  private readonly size: number
  // `records[next]` is the oldest once the ring is full.
  private records: Array<RequestRecord> = []
  private next = 0

  /** Keeps the latest `size` records (oldest dropped first); 0 keeps none. */
  constructor(size: number) {
    this.size = size
  }

  add(record: RequestRecord): void {
    if (this.size <= 0) return
    const kept = record.body.length > BODY_KEPT ? { ...record, body: record.body.slice(0, BODY_KEPT) } : record
    if (this.records.length < this.size) {
      this.records.push(kept)
      return
    }
    this.records[this.next] = kept
    this.next = (this.next + 1) % this.size
  }

  /** Oldest first. */
  list(): ReadonlyArray<RequestRecord> {
    return this.records.length < this.size
      ? this.records.slice()
      : [...this.records.slice(this.next), ...this.records.slice(0, this.next)]
  }

  clear(): void {
    this.records = []
    this.next = 0
  }
}
