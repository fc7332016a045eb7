/**
 * bench:paired's arithmetic (bench/src/paired/stats.ts): what it accepts on the command line, the orders it times the
 * processes in, the CPU per request and the bootstrap interval a target's verdict is read from.
 */
import { assert, describe, it } from "@effect/vitest"
import {
  baseOf,
  bootstrap95,
  clientOf,
  mulberry32,
  pairsOf,
  perRequest,
  placeCounts,
  processesOf,
  roundOrder,
  shuffled
} from "../src/paired/stats.ts"

const DEFAULT = ["spotkit", "spotkit#2", "ccxt", "ccxt#2", "raw"]

describe("processes and pairs", () => {
  it("accepts the default contestants, tags and the baseline's processes", () => {
    assert.deepStrictEqual(processesOf(DEFAULT), DEFAULT)
    assert.deepStrictEqual(processesOf(["spotkit", "spotkit@base#2", "bitget-api"]).length, 3)
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

  it("a mirrored round reverses the one before it, so every process holds each place as often as its mirror", () => {
    const random = mulberry32(11)
    const orders: Array<ReadonlyArray<string>> = []
    for (let i = 0; i < 24; i++) orders.push(roundOrder(i, DEFAULT, orders.at(-1), random))
    for (let i = 1; i < orders.length; i += 2) assert.deepStrictEqual(orders[i], [...orders[i - 1]!].reverse())
    // Two rounds in a row are not both fresh shuffles: the even ones are.
    assert.notDeepEqual(orders[2], [...orders[1]!].reverse())
    const counts = placeCounts(orders)
    for (const p of DEFAULT) {
      const c = counts[p]!
      for (let place = 0; place < c.length; place++) assert.strictEqual(c[place], c[c.length - 1 - place])
    }
  })

  it("shuffles alone leave the places unbalanced over as many rounds (what mirroring mends)", () => {
    const random = mulberry32(11)
    const counts = placeCounts(Array.from({ length: 24 }, () => shuffled(DEFAULT, random)))
    const balanced = DEFAULT.every((p) => {
      const c = counts[p]!
      return c.every((n, place) => n === c[c.length - 1 - place])
    })
    assert.isFalse(balanced)
  })

  it("the first round of a pair, or one without a round before it, is a shuffle", () => {
    const random = mulberry32(3)
    const first = roundOrder(1, DEFAULT, undefined, random)
    assert.deepStrictEqual([...first].sort(), [...DEFAULT].sort())
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

  it("covers the true ratio about 95 times in 100 at 24 sets", () => {
    const random = mulberry32(9)
    const trials = 400
    let covered = 0
    for (let t = 0; t < trials; t++) {
      const d = draw(random, 24)
      const [low, high] = bootstrap95(d.tops, d.bottoms, random, 2_000)
      if (low <= 1.4 && 1.4 <= high) covered++
    }
    // A percentile bootstrap of 24 sets covers a little less than it says; far from 95 % it would be wrong.
    assert.isTrue(covered / trials > 0.88 && covered / trials < 0.99, `covered ${covered} of ${trials}`)
  })
})
