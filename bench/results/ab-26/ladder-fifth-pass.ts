/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unused-expressions -- a record of a script run by hand, kept as it ran */
// Issue #26, fifth pass: the "ladder" of BENCHMARKS.md ("The client's cost at one request in flight (issue #26),
// fifth pass"), a script run by hand and kept as it ran. It climbs from undici's dispatch to the whole client over a
// real socket to bench/src/peers/serverRaw.ts, placeOrder at one in flight, one kind per process:
//   floor             undici Agent.dispatch, node:crypto HMAC, JSON.parse (bench:peers' floor)
//   floor-hproto      the same with the headers in an object of effect's Headers prototype (as spotkit sends them)
//   floor-u8          the same with the body as a Uint8Array (as spotkit sends it)
//   effect            the floor's dispatch inside Effect.callback, one fiber running Effect.forEach
//   transport         packages/node's undici HttpClient (internal/undiciClient.ts) with a request built by
//                     HttpClientRequest and the answer read by `.json`
//   spotkit           SpotClient.layer over that HttpClient, the limiter on (budgets out of reach)
//   spotkit-nolimit   the same, the limiter off
// It imports packages/node's internals, so it ran as packages/node/zz-ladder.ts, with the server started first and
// each process pinned to one CPU:
//   taskset -c 0 node --conditions=@spotkit/source zz-ladder.ts <kind> <baseUrl> 20000
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { SpotClient } from "@spotkit/core"
import { Effect, Layer, ManagedRuntime, Redacted } from "effect"
import { HttpClient, HttpClientRequest } from "effect/http"
import { createHmac, createSecretKey } from "node:crypto"
// The bench's undici 8.12.4: packages/node does not depend on undici itself, so this import named its path under
// node_modules/.pnpm when it ran.
import { Agent } from "undici"
import { credentials, orderBody, paths } from "../../bench/src/peers/shared.ts"
import * as UndiciClient from "./src/internal/undiciClient.ts"
import * as NodeSigner from "./src/NodeSigner.ts"

const [kind, baseUrl, nArg] = process.argv.slice(2) as [string, string, string]
const n = Number(nArg)
const key = createSecretKey(Buffer.from(credentials.secretKey))
const origin = new URL(baseUrl).origin
let id = 0
const headersOf = (body: string) => {
  const timestamp = String(Date.now())
  return {
    "access-key": credentials.apiKey,
    "access-sign": createHmac("sha256", key).update(timestamp + "POST" + paths.placeOrder + body).digest("base64"),
    "access-timestamp": timestamp,
    "access-passphrase": credentials.passphrase,
    "content-type": "application/json",
    locale: "en-US"
  }
}
const agent = new Agent({
  keepAliveTimeout: 30000,
  headersTimeout: 10000,
  bodyTimeout: 10000,
  connect: { timeout: 10000 }
})
import { Headers } from "effect/http"
const HP = Object.getPrototypeOf(Headers.empty)
const dispatchOne = (resolve: (a: unknown) => void, reject: (e: unknown) => void) => {
  const text = JSON.stringify(orderBody(`g${id++}`))
  const body: any = kind === "floor-u8" ? new TextEncoder().encode(text) : text
  let hs: any = headersOf(text)
  if (kind === "floor-hproto") {
    const h = Object.create(HP)
    for (const k in hs) h[k] = hs[k]
    hs = h
  }
  const chunks: Array<Buffer> = []
  let status = 0
  agent.dispatch({ origin, path: paths.placeOrder, method: "POST", headers: hs, body }, {
    onRequestStart: () => {},
    onResponseStart: (_c: unknown, s: number) => void (status = s),
    onResponseData: (_c: unknown, chunk: Buffer) => void chunks.push(chunk),
    onResponseEnd: () => {
      const a = JSON.parse(Buffer.concat(chunks).toString("utf8"))
      status === 200 ? resolve(a) : reject(a)
    },
    onResponseError: (_c: unknown, e: Error) => reject(e)
  } as any)
}
let run: (k: number) => Promise<unknown>
if (kind.startsWith("floor")) {
  run = async (k) => {
    for (let i = 0; i < k; i++) await new Promise(dispatchOne)
  }
} else if (kind === "effect") {
  const one = Effect.callback<unknown, unknown>((resume) =>
    dispatchOne((a) => resume(Effect.succeed(a)), (e) => resume(Effect.fail(e)))
  )
  run = (k) =>
    Effect.runPromise(Effect.forEach(Array.from({ length: k }), () => one, { concurrency: 1, discard: true }))
} else if (kind.startsWith("transport")) {
  const rt = ManagedRuntime.make(
    Layer.effect(
      HttpClient.HttpClient,
      UndiciClient.make({ timeoutMillis: kind === "transport-notimer" ? undefined : 10000, maxBodyBytes: 64 << 20 })
    ).pipe(Layer.provide(Layer.succeed(NodeHttpClient.Dispatcher, agent as any)))
  )
  const http = await rt.runPromise(Effect.service(HttpClient.HttpClient))
  const one = Effect.suspend(() => {
    const body = JSON.stringify(orderBody(`t${id++}`))
    const request = HttpClientRequest.post(baseUrl + paths.placeOrder).pipe(
      HttpClientRequest.setHeaders(headersOf(body)),
      HttpClientRequest.bodyText(body, "application/json")
    )
    return Effect.flatMap(http.execute(request), (r) => r.json)
  })
  run = (k) => rt.runPromise(Effect.forEach(Array.from({ length: k }), () => one, { concurrency: 1, discard: true }))
} else {
  const far = { limit: 1e12, windowMillis: 10_000 }
  const http = Layer.effect(HttpClient.HttpClient, UndiciClient.make({ timeoutMillis: 10_000, maxBodyBytes: 64 << 20 }))
    .pipe(Layer.provide(Layer.succeed(NodeHttpClient.Dispatcher, agent as any)))
  const rt = ManagedRuntime.make(
    SpotClient.layer({
      baseUrl,
      credentials: {
        apiKey: Redacted.make(credentials.apiKey),
        secretKey: Redacted.make(credentials.secretKey),
        passphrase: Redacted.make(credentials.passphrase)
      },
      rateLimit: kind === "spotkit-nolimit"
        ? false
        : { uid: far, ip: far, perEndpoint: { limit: 1e12, windowMillis: 1_000 } },
      timeoutBy: "transport"
    }).pipe(Layer.provide([http, NodeSigner.layer]))
  )
  const client = await rt.runPromise(Effect.service(SpotClient.SpotClient))
  const one = Effect.suspend(() => client.placeOrder(orderBody(`s${id++}`)))
  run = (k) => rt.runPromise(Effect.forEach(Array.from({ length: k }), () => one, { concurrency: 1, discard: true }))
}
await run(20000)
const c0 = process.cpuUsage()
await run(n)
const cu = process.cpuUsage(c0)
console.log(
  kind.padEnd(16),
  "cpu",
  ((cu.user + cu.system) / n).toFixed(1),
  "user",
  (cu.user / n).toFixed(1),
  "sys",
  (cu.system / n).toFixed(1)
)
process.exit(0)
