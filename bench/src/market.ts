// Market data decode (issue #23): what the client's schemas cost over `JSON.parse` of the same text, for a 200-level
// book (`depth`) and 1,000 candles (`candles`), side by side in one process. Each answer is a standard envelope as the
// venue writes it (levels as string pairs with long trailing zeros, candles as arrays newest first); the client's
// path is what a call does with the body: `Json.parse`, the envelope's decode, the endpoint's response schema (the
// book sorted best first, the candles named and sorted ascending), measured whole and by stages (core's `Json.parse`,
// then with the envelope). Rounds rotate the contestants; the median of each is kept, and the ratio of the medians.
// Writes bench/results/market-<date>.json.
//
//   cd bench && node --conditions=@spotkit/source src/market.ts [--decodes N] [--rounds N] [--quick]
import { Envelope, Json, Venue } from "@spotkit/core"
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import { performance } from "node:perf_hooks"
import { fmt, log, machine, median, option, quick, writeResult } from "./cli.ts"

const DECODES = option("decodes", quick ? 200 : 2_000)
const ROUNDS = option("rounds", quick ? 3 : 11)
const NOW = 1_795_000_000_000

// A 200-level book around 30,000 with a tick of 0.1: sizes as the venue writes them, with long trailing zeros.
const level = (price: number, i: number) => [
  (price / 10).toFixed(1),
  `${(((i * 7919) % 5000) / 10_000 + 0.0001).toFixed(4)}000000000000`
]
const bookText = JSON.stringify({
  code: "00000",
  msg: "success",
  requestTime: NOW,
  data: {
    asks: Array.from({ length: 200 }, (_, i) => level(300_001 + i, i)),
    bids: Array.from({ length: 200 }, (_, i) => level(300_000 - i, i + 1)),
    timestamp: String(NOW)
  }
})

// 1,000 one-minute candles, newest first as the venue's sample sends them.
const candlesText = JSON.stringify({
  code: "00000",
  msg: "success",
  requestTime: NOW,
  data: Array.from({ length: 1000 }, (_, i) => {
    const open = 30_000 + ((i * 37) % 200) / 10
    return [
      NOW - (i + 1) * 60_000,
      open.toFixed(1),
      (open + 5.5).toFixed(1),
      (open - 4.5).toFixed(1),
      (open + 1.2).toFixed(1),
      `${(i % 97) + 1}.${String(i * 13).padStart(8, "0")}`,
      `${((i % 97) + 1) * 30_000}.${String(i * 7).padStart(9, "0")}`
    ]
  })
})

/** What a call does with an answer's body: parse, the envelope, the endpoint's response schema. */
const clientDecode = (decodeResponse: (payload: unknown) => Effect.Effect<unknown, unknown>) => (text: string) =>
  Effect.runSync(Effect.flatMap(Envelope.decodeStandard(Json.parse(text)), (envelope) => decodeResponse(envelope.data)))

const cases = [
  { name: "book, 200 levels a side", text: bookText, decode: clientDecode(Venue.endpoints.depth.decodeResponse) },
  { name: "candles, 1,000", text: candlesText, decode: clientDecode(Venue.endpoints.candles.decodeResponse) }
] as const

// The decoded answers must be right before their cost means anything.
const book = Effect.runSync(
  Effect.flatMap(Envelope.decodeStandard(Json.parse(bookText)), (e) => Venue.endpoints.depth.decodeResponse(e.data))
)
if (book.bids.length !== 200 || book.asks.length !== 200 || book.bids[0]!.price !== "30000.0") {
  throw new Error("the book did not decode as expected")
}
if (book.asks[0]!.price !== "30000.1" || book.asks[0]!.size !== "0.0001000000000000") {
  throw new Error("the book's asks did not decode as expected")
}
const candles = Effect.runSync(
  Effect.flatMap(
    Envelope.decodeStandard(Json.parse(candlesText)),
    (e) => Venue.endpoints.candles.decodeResponse(e.data)
  )
)
if (
  candles.length !== 1000 || candles[0]!.openTime !== NOW - 1000 * 60_000 || candles[999]!.openTime !== NOW - 60_000
) {
  throw new Error("the candles did not decode as expected")
}

let sink = 0
const time = (run: (text: string) => unknown, text: string): number => {
  const started = performance.now()
  for (let i = 0; i < DECODES; i++) sink += run(text) === undefined ? 0 : 1
  return ((performance.now() - started) * 1000) / DECODES
}

// The stages of the client's path, each measured whole, so that the differences between them say what each adds.
const envelopeOnly = (text: string) => Effect.runSync(Envelope.decodeStandard(Json.parse(text)))
const stages = (decode: (text: string) => unknown) =>
  [["JSON.parse", JSON.parse], ["Json.parse", Json.parse], ["+ envelope", envelopeOnly], ["+ schema", decode]] as const

const results = cases.map((c) => {
  const contestants = stages(c.decode)
  const runs = contestants.map((): Array<number> => [])
  for (const [, run] of contestants) time(run, c.text) // warm-up
  // Each round runs every stage once, the first to run rotating.
  for (let round = 0; round < ROUNDS; round++) {
    for (let j = 0; j < contestants.length; j++) {
      const k = (round + j) % contestants.length
      runs[k]!.push(time(contestants[k]![1], c.text))
    }
  }
  const us = runs.map(median)
  const [parseUs, , , clientUs] = us as [number, number, number, number]
  log(
    `${c.name} (${fmt(c.text.length)} characters), median of ${ROUNDS} rounds of ${fmt(DECODES)}: ` +
      contestants.map(([name], i) => `${name} ${us[i]!.toFixed(1)} µs`).join(", ") +
      `; the client's decode ${(clientUs / parseUs).toFixed(1)}× JSON.parse`
  )
  return {
    name: c.name,
    characters: c.text.length,
    parseUs,
    clientUs,
    ratio: clientUs / parseUs,
    stages: Object.fromEntries(contestants.map(([name], i) => [name, { medianUs: us[i], runsUs: runs[i] }]))
  }
})
if (sink !== (ROUNDS + 1) * DECODES * 4 * cases.length) throw new Error("a decode answered nothing")

const load = readFileSync("/proc/loadavg", "utf8").split(" ")[0]
log(`load average ${load}`)
const file = writeResult("market", {
  benchmark: "market-decode",
  date: new Date().toISOString(),
  machine,
  node: process.version,
  load,
  decodes: DECODES,
  rounds: ROUNDS,
  results
})
log(`written to ${file.pathname}`)
