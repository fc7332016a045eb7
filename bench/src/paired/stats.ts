// bench:paired's arithmetic, apart from its processes (bench/src/paired.ts): the names it accepts, the orders it times
// the processes in, the CPU per request, and the bootstrap interval beside every ratio. Kept pure, so that
// bench/test/paired.test.ts checks what decides a target's verdict.

/** A process's name: "<contestant>", "@base" for the baseline's checkout, "#<tag>" for another process of a client. */
export const PROCESS = /^([a-z][a-z0-9-]*)(@base)?(#[A-Za-z0-9]+)?$/

/** The processes of `--paired-contestants`, checked: each well formed, none twice, spotkit among them. */
export const processesOf = (names: ReadonlyArray<string>): ReadonlyArray<string> => {
  if (names.length === 0) throw new Error("--paired-contestants takes a comma-separated list")
  if (new Set(names).size !== names.length) throw new Error("--paired-contestants names a process twice")
  for (const p of names) {
    if (!PROCESS.test(p)) throw new Error(`--paired-contestants: "${p}" is not <contestant>[@base][#<tag>]`)
  }
  if (!names.some((p) => clientOf(p) === "spotkit")) throw new Error("--paired-contestants must name spotkit")
  return names
}

/** The client a process measures: "spotkit#2" → "spotkit", "spotkit@base#2" → "spotkit@base". */
export const clientOf = (proc: string): string => proc.split("#")[0]!

/** The name a baseline's process runs under in the baseline's checkout ("spotkit@base#2" → "spotkit#2"). */
export const baseOf = (proc: string): string | undefined =>
  proc.includes("@base") ? proc.replace("@base", "") : undefined

/** A (path, in flight) pair of `--paired-pairs`. */
export interface Pair {
  readonly path: "placeOrder" | "openOrders"
  readonly inFlight: number
  readonly label: string
}

/** The pairs of `--paired-pairs`, checked ("placeOrder@1"). */
export const pairsOf = (labels: ReadonlyArray<string>): ReadonlyArray<Pair> => {
  if (labels.length === 0) throw new Error("--paired-pairs takes a comma-separated list")
  if (new Set(labels).size !== labels.length) throw new Error("--paired-pairs names a pair twice")
  return labels.map((p) => {
    const [path = "", inFlight = "", ...rest] = p.split("@")
    if ((path !== "placeOrder" && path !== "openOrders") || !/^[1-9][0-9]*$/.test(inFlight) || rest.length > 0) {
      throw new Error(`--paired-pairs: "${p}" is not <placeOrder|openOrders>@<in flight>`)
    }
    return { path, inFlight: Number(inFlight), label: `${path}@${inFlight}` }
  })
}

/** A generator of numbers in [0, 1) from a 32-bit seed (mulberry32), so that a run can be repeated. */
export const mulberry32 = (seed: number): () => number => {
  let state = seed | 0
  return () => {
    state = (state + 0x6d2b79f5) | 0
    let t = Math.imul(state ^ (state >>> 15), 1 | state)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** A permutation of `xs` (Fisher-Yates), drawn with `random`. */
export const shuffled = <A>(xs: ReadonlyArray<A>, random: () => number): Array<A> => {
  const out = [...xs]
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    ;[out[i], out[j]] = [out[j]!, out[i]!]
  }
  return out
}

/**
 * The rows of a Williams design for `n` processes: orders of 0..n-1 in which every process holds every place equally
 * often and every process runs just before every other equally often. The first row is 0, 1, n-1, 2, n-2, ...; row i
 * adds i to it (mod n). For an even n those n rows do it, each place once and each ordered neighbour pair once; an odd
 * n needs the n rows reversed as well (2n rows, each twice).
 */
export const williams = (n: number): Array<Array<number>> => {
  if (!Number.isSafeInteger(n) || n < 1) throw new Error("williams: n is a positive integer")
  const first: Array<number> = []
  for (let k = 0, low = 0, high = n - 1; k < n; k++) first.push(k % 2 === 0 ? low++ : high--)
  const rows = Array.from({ length: n }, (_, i) => first.map((x) => (x + i) % n))
  return n % 2 === 0 ? rows : [...rows, ...rows.map((row) => [...row].reverse())]
}

/** How a pair's rounds are ordered: see `schedule`. */
export type Orders = "balanced" | "mirrored" | "shuffled"

/**
 * The orders in which one pair's rounds time the processes, one order per call to the answer, counted over every set.
 * A window's cost depends a little on its place in the round (the last one timed read about 1.2 % dearer in the tenth
 * pass of #26) and on what ran just before it (processes of one client share the node binary's code in the caches).
 *
 * - `"balanced"`: blocks of rounds that follow a Williams design (`williams`), its rows in a shuffled order and the
 *   processes given to its numbers in a shuffled order, both drawn afresh for every block. Within each whole block
 *   every process holds every place equally often, and runs just before every other equally often, so any cost of a
 *   place or of a predecessor falls on every process alike. A block is n rounds for n processes (2n when n is odd);
 *   rounds past the last whole block are balanced only on average.
 * - `"mirrored"`: a fresh shuffle, then the same order reversed, and so on. It balances a place's cost only when that
 *   cost is symmetric about the middle (a trend across places): a dearer last place falls on whoever holds either
 *   end. The eleventh pass's runs a and b used it.
 * - `"shuffled"`: a fresh shuffle every round, which balances places only on average (in the tenth pass, 48 sets timed
 *   the process `ccxt` last 18 times where 12 were expected).
 */
export const schedule = <A>(
  orders: Orders,
  processes: ReadonlyArray<A>,
  random: () => number
): () => Array<A> => {
  const rows = williams(processes.length)
  let index = 0
  let previous: ReadonlyArray<A> | undefined
  let block: Array<Array<A>> = []
  return () => {
    let order: Array<A>
    if (orders === "shuffled") order = shuffled(processes, random)
    else if (orders === "mirrored") {
      order = index % 2 === 1 && previous !== undefined ? [...previous].reverse() : shuffled(processes, random)
    } else {
      if (index % rows.length === 0) {
        const labels = shuffled(processes, random)
        block = shuffled(rows, random).map((row) => row.map((k) => labels[k]!))
      }
      order = block[index % rows.length]!
    }
    index++
    previous = order
    return order
  }
}

/** The number of rounds in a whole block of `schedule`'s balanced orders, for `n` processes: `williams(n)`'s rows. */
export const blockLength = (n: number): number => williams(n).length

/** One set's timed windows: per pair label, per process, the CPU µs of each window in round order. */
export type Windows = Readonly<Record<string, Readonly<Record<string, ReadonlyArray<number>>>>>

/**
 * The CPU µs per request of `procs` over the windows of `pair` in `sets`: every window's CPU summed, over the
 * requests (a mean, so that a window which caught a major GC counts in full).
 */
export const perRequest = (
  sets: ReadonlyArray<{ readonly windows: Windows }>,
  pair: string,
  procs: ReadonlyArray<string>,
  window: number
): number => {
  let cpu = 0
  let windows = 0
  for (const s of sets) {
    for (const p of procs) {
      for (const w of s.windows[pair]![p]!) {
        cpu += w
        windows++
      }
    }
  }
  return cpu / (windows * window)
}

/**
 * A percentile bootstrap 95 % interval of the ratio Σtops ÷ Σbottoms: the sets (their `tops[k]`, `bottoms[k]`) drawn
 * again with replacement `resamples` times, each time the ratio of the drawn sets' totals; the 2.5th and 97.5th
 * percentiles. A set is the unit that varies (its processes' JIT decisions, the machine's state).
 */
export const bootstrap95 = (
  tops: ReadonlyArray<number>,
  bottoms: ReadonlyArray<number>,
  random: () => number,
  resamples = 10_000
): readonly [number, number] => {
  if (tops.length === 0 || tops.length !== bottoms.length) throw new Error("bootstrap95: one top and bottom per set")
  const ratios = new Float64Array(resamples)
  for (let i = 0; i < resamples; i++) {
    let t = 0
    let b = 0
    for (let k = 0; k < tops.length; k++) {
      const drawn = Math.floor(random() * tops.length)
      t += tops[drawn]!
      b += bottoms[drawn]!
    }
    ratios[i] = t / b
  }
  ratios.sort()
  return [ratios[Math.floor(resamples * 0.025)]!, ratios[Math.ceil(resamples * 0.975) - 1]!]
}

/** How many times each process was timed at each place of its rounds (place 0 first). */
export const placeCounts = (
  orders: ReadonlyArray<ReadonlyArray<string>>
): Record<string, Array<number>> => {
  const counts: Record<string, Array<number>> = {}
  for (const order of orders) {
    order.forEach((p, place) => {
      const c = (counts[p] ??= Array.from({ length: order.length }, () => 0))
      c[place]!++
    })
  }
  return counts
}
