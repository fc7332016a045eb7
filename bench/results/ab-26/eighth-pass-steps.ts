/* eslint-disable @typescript-eslint/no-explicit-any -- a record of a script run by hand, kept as it ran */
// Issue #26, eighth pass: Effect run-loop steps per placeOrder (BENCHMARKS.md, eighth pass). Ran by hand from
// packages/node as zz-steps.ts: SpotClient over a canned transport answering on setImmediate, the fiber's run loop
// wrapped to add up its operation counts. `node --conditions=@spotkit/source zz-steps.ts [nolimit]`
import { BufferedResponse, SpotClient } from "@spotkit/core"
import { Effect, Layer, ManagedRuntime, Redacted } from "effect"
import { HttpClient } from "effect/http"
import { credentials, orderBody } from "../../bench/src/peers/shared.ts"
import * as NodeSigner from "./src/NodeSigner.ts"
const proto = Object.getPrototypeOf(Effect.runFork(Effect.void)) as { runLoop: (e: unknown) => unknown }
const orig = proto.runLoop
let steps = 0, loops = 0
proto.runLoop = function(this: { currentOpCount: number }, e: unknown) {
  const r = orig.call(this, e)
  steps += this.currentOpCount
  loops++
  return r
}
const canned = HttpClient.makeWith(
  (effect) =>
    Effect.flatMap(effect, (request: any) =>
      Effect.callback<any>((resume) => {
        setImmediate(() => {
          const body = Buffer.from(
            `{"code":"00000","msg":"success","requestTime":${Date.now()},"data":{"orderId":1001000000000000090,"clientOrderId":"bench-0"}}`
          )
          resume(
            Effect.succeed(
              new BufferedResponse.BufferedResponse({
                request,
                url: request.url,
                status: 200,
                headers: { "content-type": "application/json" },
                body
              })
            )
          )
        })
      })),
  Effect.succeed as any
)
const far = { limit: 1e12, windowMillis: 10_000 }
const rt = ManagedRuntime.make(
  SpotClient.layer({
    baseUrl: "http://127.0.0.1:1",
    credentials: {
      apiKey: Redacted.make(credentials.apiKey),
      secretKey: Redacted.make(credentials.secretKey),
      passphrase: Redacted.make(credentials.passphrase)
    },
    rateLimit: process.argv[2] === "nolimit"
      ? false
      : { uid: far, ip: far, perEndpoint: { limit: 1e12, windowMillis: 1_000 } },
    timeoutBy: "transport"
  }).pipe(Layer.provide([Layer.succeed(HttpClient.HttpClient, canned as any), NodeSigner.layer]))
)
const client = await rt.runPromise(Effect.service(SpotClient.SpotClient))
let id = 0
const one = Effect.suspend(() => client.placeOrder(orderBody(`s${id++}`)))
await rt.runPromise(Effect.forEach(Array.from({ length: 1000 }), () => one, { concurrency: 1, discard: true }))
const base0 = steps
const l0 = loops
await rt.runPromise(Effect.forEach(Array.from({ length: 1000 }), () => Effect.void, { concurrency: 1, discard: true }))
const emptyPer = (steps - base0) / 1000
const s0 = steps, l1 = loops
await rt.runPromise(Effect.forEach(Array.from({ length: 1000 }), () => one, { concurrency: 1, discard: true }))
console.log(
  "steps/placeOrder",
  (steps - s0) / 1000,
  "runLoops",
  (loops - l1) / 1000,
  "forEach-empty per item",
  emptyPer,
  l1 - l0
)
