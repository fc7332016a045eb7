// The push memory run (reliability.push.test.ts): depth changes published to the in-process venue (random levels in
// a band of prices around the mid, so that the book itself stays bounded), read by `watchBook` and consumed, the
// connection dropped every `dropEvery` changes; the heap measured after a full collection at intervals (its data
// spaces: see `dataHeap`). The engine is
// not involved past the first snapshot: its order history grows with every order, which would hide the client's own
// growth.
import { assert } from "@effect/vitest"
import { Effect, Stream } from "effect"
import { getHeapSpaceStatistics, setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"
import { PushVenue, TestExchange } from "../../src/index.ts"
import { advance, settle, SpotPush } from "./push.ts"
import { random, SYMBOL } from "./pushSoak.ts"

/** `global.gc`, exposed at run time (the test runner's workers do not start with `--expose-gc`). */
export const collectGarbage = (): () => void => {
  setFlagsFromString("--expose-gc")
  return runInNewContext("gc") as () => void
}

// The heap's objects after a collection, without the spaces of compiled code (code and trusted: bytecode and machine
// code the JIT keeps adding as functions warm up, which is not data the client keeps).
const dataHeap = (): number =>
  getHeapSpaceStatistics().reduce(
    (sum, space) => /^(code|trusted|read_only)/.test(space.space_name) ? sum : sum + space.space_used_size,
    0
  )

/** Least-squares slope of `y` over `x`. */
export const slope = (points: ReadonlyArray<readonly [number, number]>): number => {
  const n = points.length
  const mx = points.reduce((s, [x]) => s + x, 0) / n
  const my = points.reduce((s, [, y]) => s + y, 0) / n
  const sxy = points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0)
  const sxx = points.reduce((s, [x]) => s + (x - mx) ** 2, 0)
  return sxy / sxx
}

export interface MemoryOptions {
  readonly changes: number
  readonly samples: number
  readonly dropEvery: number
  /** Changes published between two yields to the client. */
  readonly batch: number
  readonly seed: number
}

export const pushMemory = (options: MemoryOptions) =>
  Effect.gen(function*() {
    const venue = yield* PushVenue.PushVenue
    const push = yield* SpotPush.SpotPush
    yield* TestExchange.TestExchange
    const gc = collectGarbage()
    const next = random(options.seed)
    let books = 0
    let resyncs = 0
    let lastVersion = ""
    yield* Effect.forkScoped(Stream.runForEach(push.watchBook(SYMBOL), (event) =>
      Effect.sync(() => {
        if (event._tag === "Book") {
          books++
          lastVersion = event.book.version
        } else {
          resyncs++
        }
      })))
    yield* settle
    const heap: Array<readonly [number, number]> = []
    const used: Array<number> = []
    const every = Math.floor(options.changes / options.samples)
    const level = (mid: number, sign: number): readonly [string, string] => {
      const price = mid + sign * 5 * (1 + Math.floor(next() * 40))
      const size = next() < 0.25 ? "0" : `0.${String(1 + Math.floor(next() * 999)).padStart(3, "0")}`
      return [`${price}.00`, size]
    }
    for (let done = 0; done < options.changes;) {
      for (let i = 0; i < options.batch; i++, done++) {
        const bid = next() < 0.5
        yield* venue.publish({
          _tag: "Book",
          symbol: SYMBOL,
          bids: bid ? [level(29_995, -1)] : [],
          asks: bid ? [] : [level(30_005, 1)]
        })
      }
      yield* Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve)))
      if (done % options.dropEvery === 0) {
        yield* venue.dropAll
        // The reconnection waits its backoff on the TestClock; then the book is resubscribed.
        while ((yield* venue.stats).open === 0) yield* advance(500, 500)
        yield* settle
      }
      if (done % every === 0) {
        yield* settle
        gc()
        heap.push([done, dataHeap()])
        used.push(process.memoryUsage().heapUsed)
      }
    }
    // A last change at the best bid, which every depth shows: the book's last version is then the venue's last.
    yield* venue.publish({ _tag: "Book", symbol: SYMBOL, bids: [["29995.00", "0.777"]], asks: [] })
    yield* settle
    assert.strictEqual(lastVersion, String(3_644_174_246n + BigInt(options.changes) + 1n))
    // The first tenth is warm-up (code compiled, buffers grown to their size).
    const steady = heap.filter(([x]) => x >= options.changes / 10)
    const bytesPerChange = slope(steady)
    const first = steady[0]![1]
    const peak = Math.max(...steady.map(([, y]) => y))
    const mb = (bytes: number) => Number((bytes / 1e6).toFixed(2))
    return {
      seed: options.seed,
      changes: options.changes,
      booksDelivered: books,
      resyncs,
      lastVersion,
      samples: heap.length,
      dataHeapFirstMB: mb(heap[0]![1]),
      dataHeapSteadyFirstMB: mb(first),
      dataHeapSteadyPeakMB: mb(peak),
      dataHeapEndMB: mb(heap.at(-1)![1]),
      bytesPerChange: Number(bytesPerChange.toFixed(3)),
      dataHeapMB: heap.map(([, y]) => mb(y)),
      heapUsedMB: used.map(mb)
    }
  })

/** The bound: the heap's slope over the steady part, in bytes per depth change. */
export const assertFlat = (
  figures: { readonly bytesPerChange: number; readonly booksDelivered: number },
  bound: number
) =>
  Effect.sync(() => {
    assert.isAbove(figures.booksDelivered, 0)
    assert.isBelow(figures.bytesPerChange, bound, "the heap grows with depth changes")
  })
