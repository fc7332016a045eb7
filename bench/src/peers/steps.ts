// The Effect runtime's steps per request of spotkit over HTTP (issue #26): every step a fiber runs asks the scheduler
// whether to yield, so counting those asks counts the steps. NodeSpotClient.layer over undici, as the `spotkit`
// contestant of bench/src/peers.ts uses it (the rate limiter on, budgets out of reach) and without the limiter, one
// request at a time (200 to warm up, then 1,000 counted per request), against a running server
// (`src/peers/serverRaw.ts` prints its URL). A count, not a timing: it does not move with the machine's load.
//
// `--list` prints the steps of one request of each kind, one line per step: the primitive run and the start of the
// function it runs (seen through a tracer's `context` hook on the native tracer), to see which combinator costs what.
//
//   node --conditions=@spotkit/source src/peers/steps.ts <baseUrl> [--list]
import { SpotClient, type SpotError } from "@spotkit/core"
import { Effect, ManagedRuntime, Tracer } from "effect"
import * as Scheduler from "effect/Scheduler"
import { spotkitLayer } from "./contestants.ts"
import { openOrdersBody, orderBody } from "./shared.ts"

let steps = 0
const shouldYield = Scheduler.MixedScheduler.prototype.shouldYield
Scheduler.MixedScheduler.prototype.shouldYield = function(fiber) {
  steps++
  return shouldYield.call(this, fiber)
}

// The native tracer with a `context` hook that notes each primitive while `listed` is set. Provided explicitly (the
// same object as the default, so the client's checks for the native tracer still hold), since the fiber only calls
// the hook of a tracer in its context.
const evaluate = "~effect/Effect/evaluate"
const identifier = "~effect/Effect/identifier"
const argsKey = "~effect/Effect/args"
type Primitive = Record<string, unknown> & { readonly [evaluate]: (fiber: unknown) => unknown }
let listed: Array<string> | undefined
const describe = (primitive: Primitive): string => {
  const arg = primitive[argsKey]
  const what = typeof arg === "function"
    ? arg.toString().replace(/\s+/g, " ").slice(0, 100)
    : typeof arg === "object" && arg !== null && identifier in arg
    ? `(${String((arg as Record<string, unknown>)[identifier])})`
    : ""
  return `${String(primitive[identifier])} ${what}`
}
Object.assign(Tracer.nativeTracer, {
  context: (primitive: Primitive, fiber: unknown) => {
    listed?.push(describe(primitive))
    return primitive[evaluate](fiber)
  }
})

const baseUrl = process.argv[2]
if (baseUrl === undefined) throw new Error("usage: steps.ts <baseUrl> [--list]")
const list = process.argv.includes("--list")

for (const limiter of [true, false]) {
  const runtime = ManagedRuntime.make(spotkitLayer(baseUrl, "undici", limiter))
  const client = await runtime.runPromise(Effect.service(SpotClient.SpotClient))
  let id = 0
  const requests: ReadonlyArray<readonly [string, Effect.Effect<unknown, SpotError.SpotError>]> = [
    ["placeOrder", Effect.suspend(() => client.placeOrder(orderBody(`steps-${process.pid}-${id++}`)))],
    ["openOrdersPage", Effect.suspend(() => client.openOrdersPage(openOrdersBody))]
  ]
  for (const [name, one] of requests) {
    await runtime.runPromise(Effect.forEach(Array.from({ length: 200 }), () => one, { discard: true }))
    steps = 0
    await runtime.runPromise(Effect.forEach(Array.from({ length: 1000 }), () => one, { discard: true }))
    const label = `${name}, rate limiter ${limiter ? "on" : "off"}`
    console.log(`${label}: ${(steps / 1000).toFixed(1)} runtime steps per request`)
    if (list) {
      // The tracer is provided outside the list: its own steps are not the request's.
      const traced = Effect.withTracer(
        Effect.suspend(() => {
          listed = []
          return one
        }),
        Tracer.nativeTracer
      )
      await runtime.runPromise(traced)
      const seen: ReadonlyArray<string> = listed ?? []
      listed = undefined
      seen.forEach((step, i) => console.log(`  ${String(i + 1).padStart(3)} ${step}`))
    }
  }
  await runtime.dispose()
}
