// One contestant of the paired A/B (worker.ts) alone, in a long loop, for a CPU profile or an instruction count:
//   node --cpu-prof --cpu-prof-dir=/tmp/prof --conditions=@spotkit/source bench/src/ab/profile.ts client|raw 40000
// SPOTKIT_AB_OPTIONS: the client's options as JSON (e.g. '{"timeoutBy":"transport"}'); SPOTKIT_AB_CHUNK: the orders
// per printed figure (default 5,000).
import { SpotClient } from "@spotkit/core"
import { TestExchange } from "@spotkit/testkit"
import { Effect, ManagedRuntime } from "effect"
import { exchangeOptions, placeAlone, restingOrder } from "../inProcess.ts"

const mode = process.argv[2] ?? "client"
const n = Number(process.argv[3] ?? 40_000)
const chunk = Math.min(n, Number(process.env.SPOTKIT_AB_CHUNK ?? 5_000))
const options: Partial<SpotClient.Options> = JSON.parse(process.env.SPOTKIT_AB_OPTIONS ?? "{}")

const order = restingOrder("ab")

const report = (figures: ReadonlyArray<string>) =>
  console.log(`${mode}: ${n} orders, µs CPU each per ${chunk}: ${figures.join(" ")}`)

const raw = () => {
  const exchange = Effect.runSync(TestExchange.make(exchangeOptions))
  const figures: Array<string> = []
  for (let done = 0; done < n; done += chunk) {
    const started = process.cpuUsage()
    for (let k = done; k < done + chunk; k++) placeAlone(exchange, order(k))
    const used = process.cpuUsage(started)
    figures.push(((used.user + used.system) / chunk).toFixed(1))
  }
  report(figures)
}

const client = () => {
  const runtime = ManagedRuntime.make(TestExchange.layerSpotClient({ exchange: exchangeOptions, client: options }))
  return runtime.runPromise(Effect.gen(function*() {
    const client = yield* SpotClient.SpotClient
    yield* client.placeOrder(order(-1))
    const figures: Array<string> = []
    for (let done = 0; done < n; done += chunk) {
      const started = process.cpuUsage()
      for (let k = done; k < done + chunk; k++) yield* client.placeOrder(order(k))
      const used = process.cpuUsage(started)
      figures.push(((used.user + used.system) / chunk).toFixed(1))
    }
    report(figures)
  })).finally(() => runtime.dispose())
}

if (mode === "raw") raw()
else void client()
