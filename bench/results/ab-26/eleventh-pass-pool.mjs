// The eleventh pass's pool (issue #26): placeOrder at one request in flight, ccxt's CPU per request over spotkit's,
// over runs a (mirrored orders) and c (balanced orders) of the pass and runs b, c and e of the tenth (shuffled orders):
// bench:paired, 24 sets each of fresh processes, one window of 20,000 requests per process and set, two processes per
// client. (Run b of the pass timed windows of 2,000 and is not pooled here.) Per run and
// pooled: the ratio of totals (every window of every set) with bench:paired's own bootstrap 95 % interval
// (bench/src/paired/stats.ts at the commit of this record: the sets resampled 10,000 times, mulberry32 from seed 26),
// the sets at or above 1.4×, the A/A controls the same way, and the geometric mean of the runs' ratios (each run
// weighed alike, however fast the machine ran that day).
//
//   node bench/results/ab-26/eleventh-pass-pool.mjs      (Node >= 23.6: it imports the TypeScript module as it is)
import { pool, read } from "./pool.mjs"

const runs = {
  "tenth b": read("paired-tenth-pass-b.json"),
  "tenth c": read("paired-tenth-pass-c.json"),
  "tenth e": read("paired-tenth-pass-e.json"),
  "eleventh a": read("paired-eleventh-pass-a.json"),
  "eleventh c": read("paired-eleventh-pass-c.json")
}

pool(runs, "all five")
