// What spotkit's client costs per placeOrder above the least a client can do, in one process and without a network
// (issue #26, fifth pass): `SpotClient.layer` (node:crypto signer, the limiter on with budgets out of reach, as
// bench:peers runs it) over a canned transport, against the floor over the same transport (sign with node:crypto,
// JSON.stringify the body, JSON.parse the answer: what bench:peers' floor does around undici). The transport answers
// each request on the next turn of the event loop (setImmediate) with the bytes the canned peers server sends, so no
// kernel, socket or server process adds its noise: the difference between the two is the client's own cost, its
// medians repeating within about a microsecond from run to run, where bench:peers' figures at one request in flight
// vary by ten times that. The canned transport bounds no exchange: the undici transport's deadline timer is not in it.
//
// With `--overhead-flush-kib N`, the transport first touches N KiB of memory (the same for both contestants, so the
// difference still holds only the client's cost): what a server process and the kernel's network stack do to the
// caches between two requests at one in flight. The client's cost grows with it: it runs more code and touches more
// data than the floor, and each request finds less of it in the caches (BENCHMARKS.md, "The client's cost at one
// request in flight (issue #26), fifth pass").
//
// Alternating contestants, rounds of `--overhead-requests` each, medians of `--overhead-rounds`; prints a table and
// writes bench/results/overhead-<date>.json.
//
//   node --conditions=@spotkit/source src/overhead.ts [--quick] [--overhead-requests N] [--overhead-rounds N]
//     [--overhead-flush-kib N]   (default: rounds without a flush, then rounds with 1024 KiB)
import { BufferedResponse, SpotClient } from "@spotkit/core"
import { NodeSigner } from "@spotkit/node"
import { Effect, Layer, ManagedRuntime } from "effect"
import { HttpClient, type HttpClientError, type HttpClientRequest, type HttpClientResponse } from "effect/http"
import { Buffer } from "node:buffer"
import { args, fmt, log, machine, median, option, quick, writeResult } from "./cli.ts"
import { secretKey, signedHeaders, spotkitOptions } from "./peers/contestants.ts"
import { orderBody, paths } from "./peers/shared.ts"

const REQUESTS = option("overhead-requests", quick ? 2_000 : 20_000)
const ROUNDS = option("overhead-rounds", quick ? 2 : 9)
const FLUSHES = args.includes("--overhead-flush-kib") ? [option("overhead-flush-kib", 1024)] : [0, 1024]

// The canned transport: the placeOrder answer of bench/src/peers/serverRaw.ts, on the next turn of the event loop,
// after touching `flushKib` KiB of memory (one byte per 64-byte cache line).
let flushKib = 0
const memory = new Uint8Array(Math.max(...FLUSHES) * 1024)
let touched = 0
const flush = () => {
  for (let i = 0; i < flushKib * 1024; i += 64) touched += memory[i]!++
}
// The clientOrderId of the order in flight (one at a time), which the answer echoes as the venue does.
let inFlight = "bench-0"
const answerBytes = () =>
  Buffer.from(
    `{"code":"00000","msg":"success","requestTime":${Date.now()},` +
      `"data":{"orderId":1001000000000000090,"clientOrderId":"${inFlight}"}}`
  )
const answerLater = (answer: (bytes: Buffer) => void) =>
  setImmediate(() => {
    flush()
    answer(answerBytes())
  })

const cannedClient = HttpClient.makeWith<
  HttpClientError.HttpClientError,
  never,
  HttpClientError.HttpClientError,
  never
>(
  (effect) =>
    Effect.flatMap(
      effect,
      (request: HttpClientRequest.HttpClientRequest) =>
        Effect.callback<HttpClientResponse.HttpClientResponse>((resume) => {
          answerLater((body) =>
            resume(Effect.succeed(
              new BufferedResponse.BufferedResponse({
                request,
                url: request.url,
                status: 200,
                headers: { "content-type": "application/json", "content-length": String(body.length) },
                body
              })
            ))
          )
        })
    ),
  Effect.succeed
)

// spotkit as bench:peers runs it (the limiter on, budgets out of reach), the exchange bounded by the transport as
// over NodeSpotClient.layer's default undici transport.
const runtime = ManagedRuntime.make(
  SpotClient.layer({ ...spotkitOptions("http://127.0.0.1:1"), timeoutBy: "transport" }).pipe(
    Layer.provide([Layer.succeed(HttpClient.HttpClient, cannedClient), NodeSigner.layer])
  )
)
const client = await runtime.runPromise(Effect.service(SpotClient.SpotClient))
let id = 0
const placeOne = Effect.suspend(() => {
  inFlight = `o${id++}`
  return client.placeOrder(orderBody(inFlight))
})
let placedIds = 0
const spotkit = (n: number) =>
  runtime.runPromise(Effect.forEach(Array.from({ length: n }), () => placeOne, { concurrency: 1, discard: true }))
    .then(() => void (placedIds += n))

// The floor: what bench:peers' floor does around undici, over the same transport.
const key = secretKey()
const floorOne = () =>
  new Promise<{ readonly data: { readonly orderId: unknown } }>((resolve) => {
    const body = JSON.stringify(orderBody(`f${id++}`))
    const headers = signedHeaders(key, paths.placeOrder, body)
    if (headers["access-sign"]?.length !== 44) throw new Error("not signed")
    answerLater((bytes) => resolve(JSON.parse(bytes.toString("utf8"))))
  })
const floor = async (n: number) => {
  for (let i = 0; i < n; i++) {
    const answer = await floorOne()
    if (answer.data.orderId === undefined) throw new Error("no orderId")
  }
}

// CPU µs per request of one round (this process: the main thread and V8's helpers).
const timed = async (run: (n: number) => Promise<void>): Promise<number> => {
  const before = process.cpuUsage()
  await run(REQUESTS)
  const used = process.cpuUsage(before)
  return (used.user + used.system) / REQUESTS
}

log(`overhead: placeOrder at one in flight over a canned in-process transport; ${fmt(REQUESTS)} requests a round,`)
log(`  ${ROUNDS} rounds per contestant, alternating; node ${machine.node}, ${machine.cpu}`)
const rows: Array<{ flushKib: number; spotkit: number; floor: number; difference: number; rounds: object }> = []
for (const kib of FLUSHES) {
  flushKib = kib
  // Warm-up: each contestant reaches its steady state (V8 optimizes the code it runs most) before any timing.
  await spotkit(REQUESTS)
  await floor(REQUESTS)
  const ofSpotkit: Array<number> = []
  const ofFloor: Array<number> = []
  for (let round = 0; round < ROUNDS; round++) {
    ofSpotkit.push(await timed(spotkit))
    ofFloor.push(await timed(floor))
  }
  const row = {
    flushKib: kib,
    spotkit: median(ofSpotkit),
    floor: median(ofFloor),
    difference: median(ofSpotkit.map((s, i) => s - ofFloor[i]!)),
    rounds: { spotkit: ofSpotkit, floor: ofFloor }
  }
  rows.push(row)
}
// Every placement answered with the canned orderId, as a string (64 bits never through a number).
const check = await runtime.runPromise(placeOne)
if (check.orderId !== "1001000000000000090") throw new Error(`orderId ${String(check.orderId)}`)
await runtime.dispose()

log("")
log("| memory touched between requests | spotkit CPU µs/req | floor CPU µs/req | spotkit − floor (median of rounds) |")
log("| ---: | ---: | ---: | ---: |")
for (const row of rows) {
  log(
    `| ${fmt(row.flushKib)} KiB | ${row.spotkit.toFixed(1)} | ${row.floor.toFixed(1)} | ${row.difference.toFixed(1)} |`
  )
}
log(`(${fmt(placedIds)} placements through spotkit; ${touched === 0 ? "no memory touched" : "memory touched"})`)

const file = writeResult("overhead", {
  date: new Date().toISOString(),
  machine,
  requests: REQUESTS,
  rounds: ROUNDS,
  rows
})
log(`wrote ${file.pathname}`)
