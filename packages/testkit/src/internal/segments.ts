// Growable storage of fixed-size float64 records in fixed-size segments. Growth allocates one more segment and
// copies nothing, so the store never leaves a grown-out array behind as garbage: large typed arrays live outside
// V8's heap, and every few tens of megabytes of such garbage forced a full collection (BENCHMARKS.md).

export class Segments {
  size = 0
  readonly segments: Array<Float64Array> = []
  private readonly segmentBits: number
  private readonly length: number

  /** Segments of `2^segmentBits` records of `stride` slots each. */
  constructor(segmentBits: number, stride: number) {
    this.segmentBits = segmentBits
    this.length = stride << segmentBits
  }

  /** The index of a new record (all zeros). */
  alloc(): number {
    const index = this.size
    if (index >>> this.segmentBits === this.segments.length) this.segments.push(new Float64Array(this.length))
    this.size = index + 1
    return index
  }
}
