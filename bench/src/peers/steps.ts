// The Effect runtime's steps per request of spotkit over HTTP (issue #26): every step a fiber runs asks the scheduler
// whether to yield, so counting those asks counts the steps. NodeSpotClient.layer over undici, as the `spotkit`
// contestant of bench/src/peers.ts uses it, one request at a time (200 to warm up, then 1,000 counted per request),
// against a running server (`src/peers/serverRaw.ts` prints its URL). A count, not a timing: it does not move with
// the machine's load.
//
//   node --conditions=@spotkit/source src/peers/steps.ts <baseUrl>
import { SpotClient, type SpotError } from "@spotkit/core"
import { NodeSpotClient } from "@spotkit/node"
import { Effect, ManagedRuntime, Redacted } from "effect"
import * as Scheduler from "effect/Scheduler"
import { credentials, openOrdersBody, orderBody } from "./shared.ts"

let steps = 0
const shouldYield = Scheduler.MixedScheduler.prototype.shouldYield
Scheduler.MixedScheduler.prototype.shouldYield = function(fiber) {
  steps++
  return shouldYield.call(this, fiber)
}

const baseUrl = process.argv[2]
if (baseUrl === undefined) throw new Error("usage: steps.ts <baseUrl>")
const runtime = ManagedRuntime.make(NodeSpotClient.layer({
  baseUrl,
  credentials: {
    apiKey: Redacted.make(credentials.apiKey),
    secretKey: Redacted.make(credentials.secretKey),
    passphrase: Redacted.make(credentials.passphrase)
  },
  rateLimit: false,
  transport: "undici"
}))
const client = await runtime.runPromise(Effect.service(SpotClient.SpotClient))
let id = 0
const requests: ReadonlyArray<readonly [string, Effect.Effect<unknown, SpotError.SpotError>]> = [
  ["placeOrder", Effect.suspend(() => client.placeOrder(orderBody(`steps-${id++}`)))],
  ["openOrdersPage", Effect.suspend(() => client.openOrdersPage(openOrdersBody))]
]
for (const [name, one] of requests) {
  await runtime.runPromise(Effect.forEach(Array.from({ length: 200 }), () => one, { discard: true }))
  steps = 0
  await runtime.runPromise(Effect.forEach(Array.from({ length: 1000 }), () => one, { discard: true }))
  console.log(`${name}: ${(steps / 1000).toFixed(1)} runtime steps per request`)
}
await runtime.dispose()
