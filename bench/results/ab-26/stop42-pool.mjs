// The line on stop 41's client (issue #26): placeOrder at one request in flight, ccxt's CPU per request over spotkit's,
// over stop 41's run (`paired-stop41-line.json`, commit c3d31f5) and stop 42's four runs a-d (`paired-stop42-line-*.json`,
// commit 064864d; the request path of the two commits is the same: between them only the push telemetry's metric series
// and doc comments changed): 120 sets in all, each of fresh processes, one window of 20,000 requests per process and
// set, two processes per client, balanced orders. Per run and pooled: the ratio of totals (every window of every set)
// with bench:paired's own bootstrap 95 % interval (bench/src/paired/stats.ts: the sets resampled 10,000 times,
// mulberry32 from seed 26), the sets at or above 1.4×, the A/A controls the same way, and the geometric mean of the
// runs' ratios (each run weighed alike, however fast the machine ran).
//
//   node bench/results/ab-26/stop42-pool.mjs      (Node >= 23.6: it imports the TypeScript module as it is)
import { pool, read } from "./pool.mjs"

const runs = {
  "stop 41": read("paired-stop41-line.json"),
  "stop 42 a": read("paired-stop42-line-a.json"),
  "stop 42 b": read("paired-stop42-line-b.json"),
  "stop 42 c": read("paired-stop42-line-c.json"),
  "stop 42 d": read("paired-stop42-line-d.json")
}

pool(runs, "all five")
