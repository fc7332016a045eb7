// Growable storage of fixed-size float64 records in fixed-size segments. Once the first segment is full size, growth
// allocates one more segment and copies nothing, so the store never leaves a grown-out array behind as garbage: large
// typed arrays live outside V8's heap, and every few tens of megabytes of such garbage forced a full collection
// (BENCHMARKS.md). Only the first segment grows by doubling (from 256 records, copying), so that a small engine stays
// small. So a segment obtained from `segments` is valid until the next `alloc` on the same store: while the first
// segment doubles, an `alloc` replaces it.
//
// The memory is shared (`SharedArrayBuffer`) where the platform has it, unless the engine is told otherwise. V8
// counts an ordinary ArrayBuffer as "external memory" and starts a full collection for every so many megabytes of it
// allocated, on the assumption that collecting may free some. An engine keeps every record it ever allocates for as
// long as it lives, so those collections free nothing of it, and each one marks the whole heap of the program the
// engine runs in, which with millions of strings live beside it costs the engine much of its speed (BENCHMARKS.md).
// V8 does not count shared buffers there, so a growing engine no longer calls for collections. The price: the memory
// of an engine that is dropped is freed at the next full collection, which its size no longer brings on; a program
// that creates and drops many large engines can turn sharing off (`EngineOptions.sharedMemory`). No other thread ever
// sees these buffers.

const Shared: typeof SharedArrayBuffer | undefined = typeof SharedArrayBuffer === "function"
  ? SharedArrayBuffer
  : undefined

/** `bytes` of zeroed memory, shared when asked and the platform allows it (see above). */
export const zeroed = (bytes: number, shared: boolean): ArrayBufferLike =>
  shared && Shared !== undefined ? new Shared(bytes) : new ArrayBuffer(bytes)

const FIRST_BITS = 8

export class Segments {
  size = 0
  /** Valid until the next `alloc` (see above). */
  readonly segments: Array<Float64Array> = []
  private capacity = 0
  private readonly segmentBits: number
  private readonly stride: number
  private readonly shared: boolean

  /** Segments of `2^segmentBits` records of `stride` slots each, in shared memory if `shared` (see above). */
  constructor(segmentBits: number, stride: number, shared = true) {
    this.segmentBits = segmentBits
    this.stride = stride
    this.shared = shared
  }

  /** The segment holding record `i`. Valid until the next `alloc` (see above). */
  segment(i: number): Float64Array {
    return this.segments[i >>> this.segmentBits]!
  }

  /** The index of a new record (all zeros). */
  alloc(): number {
    const index = this.size
    if (index === this.capacity) this.grow()
    this.size = index + 1
    return index
  }

  private grow(): void {
    const full = 1 << this.segmentBits
    const segments = this.segments
    if (this.capacity < full) {
      // The first segment, doubled (copied) until it is a full one.
      const records = Math.min(this.capacity === 0 ? 1 << FIRST_BITS : 2 * this.capacity, full)
      const first = new Float64Array(zeroed(8 * this.stride * records, this.shared))
      if (segments.length === 1) first.set(segments[0]!)
      segments[0] = first
      this.capacity = records
    } else {
      segments.push(new Float64Array(zeroed(8 * this.stride * full, this.shared)))
      this.capacity += full
    }
  }
}
