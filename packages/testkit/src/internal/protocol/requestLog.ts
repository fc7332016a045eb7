// The request log: a ring of the latest records, each request with what the exchange answered, for tests to inspect.
// Bounded in records and in bytes: a record keeps at most 4,096 characters of the body and of the path, as copies,
// never slices (a slice of a string keeps the whole string alive: 4 KB kept of a 260 KB body held all 260 KB).
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

/** Bodies (and paths) are kept up to this many characters. */
const TEXT_KEPT = 4096

// What a record costs besides its texts (the object, its numbers and short strings), counted against the bytes.
const RECORD_OVERHEAD = 160

// A copy of the start of a text that holds nothing of the text it was cut from. A JSON round trip builds a new
// string and keeps every code unit as it was, lone surrogates included.
const kept = (text: string): string =>
  text.length <= TEXT_KEPT ? text : JSON.parse(JSON.stringify(text.slice(0, TEXT_KEPT))) as string

// Two bytes per character: what a string holding any character beyond Latin-1 takes.
const bytesOf = (record: RequestRecord): number => RECORD_OVERHEAD + 2 * (record.body.length + record.path.length)

export class RequestLog {
  private readonly size: number
  private readonly maxBytes: number
  // A queue: `records[head]` is the oldest; slots before it are emptied, so that a dropped record is freed at once.
  private records: Array<RequestRecord | undefined> = []
  private head = 0
  // What the records from `head` on take.
  private bytes = 0

  /**
   * Keeps the latest `size` records (oldest dropped first), and fewer when they would take more than `maxBytes` (the
   * latest one is always kept); 0 keeps none.
   */
  constructor(size: number, maxBytes = Infinity) {
    this.size = size
    this.maxBytes = maxBytes
  }

  add(record: RequestRecord): void {
    if (this.size <= 0) return
    const body = kept(record.body)
    const path = kept(record.path)
    const copy = body === record.body && path === record.path ? record : { ...record, body, path }
    this.records.push(copy)
    this.bytes += bytesOf(copy)
    while (this.count > this.size || (this.bytes > this.maxBytes && this.count > 1)) {
      this.bytes -= bytesOf(this.records[this.head]!)
      this.records[this.head++] = undefined
    }
    if (this.head > 1024 && this.head * 2 > this.records.length) {
      this.records = this.records.slice(this.head)
      this.head = 0
    }
  }

  /** Oldest first. */
  list(): ReadonlyArray<RequestRecord> {
    return this.records.slice(this.head) as Array<RequestRecord>
  }

  clear(): void {
    this.records = []
    this.head = 0
    this.bytes = 0
  }

  private get count(): number {
    return this.records.length - this.head
  }
}
