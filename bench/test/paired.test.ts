/**
 * bench:paired's arithmetic (bench/src/paired/stats.ts): what it accepts on the command line, the orders it times the
 * processes in, the CPU per request and the bootstrap interval a target's verdict is read from.
 */
import { assert, describe, it } from "@effect/vitest"
import {
  baseOf,
  blockLength,
  bootstrap95,
  clientOf,
  mulberry32,
  pairsOf,
  perRequest,
  placeCounts,
  processesOf,
  schedule,
  shuffled,
  williams
} from "../src/paired/stats.ts"

const DEFAULT = ["spotkit", "spotkit#2", "ccxt", "ccxt#2", "raw"]
const FOUR = ["spotkit", "spotkit#2", "ccxt", "ccxt#2"]

// How often each process ran just before each other: "a>b" → count.
const neighbours = (orders: ReadonlyArray<ReadonlyArray<string | number>>): Map<string, number> => {
  const counts = new Map<string, number>()
  for (const o of orders) {
    for (let i = 1; i < o.length; i++) counts.set(`${o[i - 1]}>${o[i]}`, (counts.get(`${o[i - 1]}>${o[i]}`) ?? 0) + 1)
  }
  return counts
}

describe("processes and pairs", () => {
  it("accepts the default contestants, tags and the baseline's processes", () => {
    assert.deepStrictEqual(processesOf(DEFAULT), DEFAULT)
    assert.strictEqual(processesOf(["spotkit", "spotkit@base#2", "bitget-api"]).length, 3)
  })

  it("refuses a malformed name, a name twice, no spotkit, an empty list", () => {
    for (const bad of [["Spotkit"], ["spotkit#"], ["spotkit@base@base"], ["spotkit#a#b"], ["spotkit", "1ccxt"]]) {
      assert.throws(() => processesOf(bad), /is not <contestant>/)
    }
    assert.throws(() => processesOf(["spotkit", "ccxt", "spotkit"]), /twice/)
    assert.throws(() => processesOf(["ccxt", "raw"]), /must name spotkit/)
    assert.throws(() => processesOf(["spotkit@base"]), /must name spotkit/)
    assert.throws(() => processesOf([]), /comma-separated/)
  })

  it("names a process's client, and what a baseline's process runs as in its checkout", () => {
    assert.strictEqual(clientOf("spotkit#2"), "spotkit")
    assert.strictEqual(clientOf("spotkit@base#2"), "spotkit@base")
    assert.strictEqual(clientOf("raw"), "raw")
    assert.strictEqual(baseOf("spotkit@base#2"), "spotkit#2")
    assert.strictEqual(baseOf("spotkit@base"), "spotkit")
    assert.strictEqual(baseOf("spotkit#2"), undefined)
  })

  it("reads <path>@<in flight> and refuses anything else", () => {
    assert.deepStrictEqual(pairsOf(["placeOrder@1", "openOrders@16"]), [
      { path: "placeOrder", inFlight: 1, label: "placeOrder@1" },
      { path: "openOrders", inFlight: 16, label: "openOrders@16" }
    ])
    for (const bad of ["placeOrder", "placeOrder@0", "placeOrder@01", "cancel@1", "placeOrder@1@2", "placeOrder@-1"]) {
      assert.throws(() => pairsOf([bad]), /is not <placeOrder\|openOrders>@<in flight>/)
    }
    assert.throws(() => pairsOf([]), /comma-separated/)
    assert.throws(() => pairsOf(["placeOrder@1", "openOrders@1", "placeOrder@1"]), /twice/)
  })
})

describe("orders", () => {
  it("a seed gives the same draws again; another seed others; every draw in [0, 1)", () => {
    const a = mulberry32(42)
    const b = mulberry32(42)
    const c = mulberry32(43)
    const xs = Array.from({ length: 1_000 }, () => a())
    assert.deepStrictEqual(Array.from({ length: 1_000 }, () => b()), xs)
    assert.notDeepEqual(Array.from({ length: 1_000 }, () => c()), xs)
    assert.isTrue(xs.every((x) => x >= 0 && x < 1))
  })

  it("a shuffle is a permutation, leaves its input alone, and puts each process at each place about as often", () => {
    const random = mulberry32(7)
    const input = ["a", "b", "c", "d"]
    const orders = Array.from({ length: 8_000 }, () => shuffled(input, random))
    assert.deepStrictEqual(input, ["a", "b", "c", "d"])
    for (const o of orders) assert.deepStrictEqual([...o].sort(), input)
    const counts = placeCounts(orders)
    for (const p of input) for (const n of counts[p]!) assert.isTrue(n > 1_800 && n < 2_200, `${p}: ${counts[p]}`)
  })

  it("a Williams design puts every process at every place, and before every other, equally often", () => {
    for (let n = 1; n <= 7; n++) {
      const rows = williams(n)
      assert.strictEqual(rows.length, blockLength(n))
      const each = rows.length / n
      for (const row of rows) {
        assert.deepStrictEqual(
          [...row].sort((a, b) => a - b),
          Array.from({ length: n }, (_, k) => k)
        )
      }
      for (let place = 0; place < n; place++) {
        for (let k = 0; k < n; k++) assert.strictEqual(rows.filter((row) => row[place] === k).length, each, `n ${n}`)
      }
      const pairs = neighbours(rows)
      assert.strictEqual(pairs.size, n * (n - 1), `n ${n}: every ordered pair ran next to each other`)
      for (const count of pairs.values()) assert.strictEqual(count, each, `n ${n}`)
    }
  })

  it("balanced orders: in whole blocks, every process at every place and before every other equally often", () => {
    for (const [processes, rounds] of [[FOUR, 24], [DEFAULT, 20]] as const) {
      const next = schedule("balanced", processes, mulberry32(17))
      const orders = Array.from({ length: rounds }, () => next())
      const blocks = rounds / blockLength(processes.length)
      const counts = placeCounts(orders)
      for (const p of processes) {
        assert.deepStrictEqual(
          counts[p],
          processes.map(() => blocks * (blockLength(processes.length) / processes.length))
        )
      }
      const pairs = neighbours(orders)
      assert.strictEqual(pairs.size, processes.length * (processes.length - 1))
      for (const count of pairs.values()) {
        assert.strictEqual(count, blocks * blockLength(processes.length) / processes.length)
      }
      // The blocks are drawn afresh: not the same orders again.
      const block = blockLength(processes.length)
      assert.notDeepEqual(orders.slice(0, block), orders.slice(block, 2 * block))
    }
  })

  it("mirrored orders: a shuffle, then its reverse; a place costs alike only where its cost is symmetric", () => {
    const orders = Array.from({ length: 24 }, schedule("mirrored", DEFAULT, mulberry32(11)))
    for (let i = 1; i < orders.length; i += 2) assert.deepStrictEqual(orders[i], [...orders[i - 1]!].reverse())
    // A round after a mirrored pair is a new shuffle, not the mirror of the one before it.
    assert.notDeepEqual(orders[2], [...orders[1]!].reverse())
    const counts = placeCounts(orders)
    for (const p of DEFAULT) {
      const c = counts[p]!
      for (let place = 0; place < c.length; place++) assert.strictEqual(c[place], c[c.length - 1 - place])
    }
    // First and last stay with whoever the shuffles put at either end: for this seed, not every process equally.
    assert.isFalse(DEFAULT.every((p) => counts[p]![0] === counts[DEFAULT[0]!]![0]))
  })

  it("a pair's first order, and every order when shuffled, is the shuffle the seed gives", () => {
    assert.deepStrictEqual(schedule("mirrored", DEFAULT, mulberry32(3))(), shuffled(DEFAULT, mulberry32(3)))
    const next = schedule("shuffled", DEFAULT, mulberry32(5))
    const random = mulberry32(5)
    for (let i = 0; i < 10; i++) assert.deepStrictEqual(next(), shuffled(DEFAULT, random))
  })

  it("for example, 24 plain shuffles of this seed leave the places unbalanced (what the designs mend)", () => {
    const random = mulberry32(11)
    const counts = placeCounts(Array.from({ length: 24 }, () => shuffled(DEFAULT, random)))
    assert.isFalse(DEFAULT.every((p) => counts[p]!.every((n) => n === counts[p]![0])))
  })
})

describe("CPU per request and the bootstrap interval", () => {
  const sets = [
    { windows: { "placeOrder@1": { a: [100, 300], b: [500] } } },
    { windows: { "placeOrder@1": { a: [200, 200], b: [100] } } }
  ]

  it("sums every window's CPU over the requests of the processes named", () => {
    assert.strictEqual(perRequest(sets.slice(0, 1), "placeOrder@1", ["a"], 10), 20)
    assert.strictEqual(perRequest(sets.slice(0, 1), "placeOrder@1", ["a", "b"], 10), 30)
    assert.strictEqual(perRequest(sets, "placeOrder@1", ["a"], 10), 20)
    assert.strictEqual(perRequest(sets, "placeOrder@1", ["b"], 10), 30)
  })

  it("sets that agree give an interval of no width at their ratio", () => {
    const [low, high] = bootstrap95([140, 140, 140], [100, 100, 100], mulberry32(1))
    assert.strictEqual(low, 1.4)
    assert.strictEqual(high, 1.4)
  })

  it("refuses sets without a bottom for each top", () => {
    assert.throws(() => bootstrap95([1, 2], [1], mulberry32(1)), /one top and bottom per set/)
    assert.throws(() => bootstrap95([], [], mulberry32(1)), /one top and bottom per set/)
  })

  // Sets whose sides vary by ±10 % around a true ratio of 1.4, as a set's clients do (each set its own processes).
  const draw = (random: () => number, n: number) => {
    const tops: Array<number> = []
    const bottoms: Array<number> = []
    for (let k = 0; k < n; k++) {
      const machine = 1 + (random() - 0.5) * 0.2
      tops.push(140 * machine * (1 + (random() - 0.5) * 0.2))
      bottoms.push(100 * machine * (1 + (random() - 0.5) * 0.2))
    }
    return { tops, bottoms }
  }

  it("holds the ratio of the totals, and narrows as the sets grow", () => {
    const random = mulberry32(5)
    const few = draw(random, 8)
    const many = draw(random, 64)
    const width = (d: { tops: Array<number>; bottoms: Array<number> }) => {
      const [low, high] = bootstrap95(d.tops, d.bottoms, random)
      const ratio = d.tops.reduce((a, b) => a + b) / d.bottoms.reduce((a, b) => a + b)
      assert.isTrue(low <= ratio && ratio <= high, `${low} ${ratio} ${high}`)
      return high - low
    }
    // The width falls about as 1/√n: 8 times the sets, about a third of the width.
    assert.isBelow(width(many), width(few) / 2)
  })

  it("answers the 2.5th and 97.5th percentiles of the resampled ratios", () => {
    // 50 sets of ratio 1 to 50; every resample draws one set 50 times, a different set each resample, in a shuffled
    // order: the resampled ratios are 1 to 50, and the interval their 2nd and 49th smallest (floor(1.25) = 1 and
    // ceil(48.75) - 1 = 48 from 0).
    const n = 50
    const sets = shuffled(Array.from({ length: n }, (_, k) => k), mulberry32(1))
    let call = 0
    const random = () => (sets[Math.floor(call++ / n)]! + 0.5) / n
    const tops = Array.from({ length: n }, (_, k) => k + 1)
    assert.deepStrictEqual(bootstrap95(tops, tops.map(() => 1), random, n), [2, 49])
  })

  it("covers the true ratio about 95 times in 100 at 24 sets, missing it about as often on either side", () => {
    const random = mulberry32(9)
    const trials = 400
    let below = 0
    let above = 0
    for (let t = 0; t < trials; t++) {
      const d = draw(random, 24)
      const [low, high] = bootstrap95(d.tops, d.bottoms, random, 2_000)
      if (high < 1.4) below++
      if (low > 1.4) above++
    }
    // A percentile bootstrap of 24 sets covers a little less than it says (about 10 misses a side in 400 at 95 %); an
    // interval missing a tail, or of another width, misses far more or far less on some side.
    assert.isTrue(below >= 2 && below <= 25, `below ${below}`)
    assert.isTrue(above >= 2 && above <= 25, `above ${above}`)
  })
})
