// One contestant of a paired A/B run (ab.ts), in its own process and its own tree: it waits for "run N" messages and
// answers the CPU and wall time that N operations took. Modes: `client` (SpotClient.placeOrder over the testkit's
// in-process transport, the preset signer, rules checked), `raw` (the same signed request straight into the
// exchange's protocol, no client: the floor of #26's "within 3x of the exchange alone").
import { SpotClient } from "@spotkit/core"
import { TestExchange } from "@spotkit/testkit"
import { Effect, ManagedRuntime } from "effect"
import { performance } from "node:perf_hooks"
import { exchangeOptions, placeAlone, restingOrder } from "../inProcess.ts"

const mode = process.argv[2] ?? "client"
// The client's options as JSON, for a variant (e.g. '{"timeoutBy":"transport"}'); none by default.
const clientOptions: Partial<SpotClient.Options> = JSON.parse(process.env.SPOTKIT_AB_OPTIONS ?? "{}")

const order = restingOrder("ab")

// Each block runs against a fresh exchange (built before the clock starts), so that every block of every contestant
// finds the same book and balances.
const rawBlock = (n: number): Promise<number> => {
  const exchange = Effect.runSync(TestExchange.make(exchangeOptions))
  const started = process.cpuUsage()
  for (let k = 0; k < n; k++) placeAlone(exchange, order(k))
  const used = process.cpuUsage(started)
  return Promise.resolve((used.user + used.system) / 1000)
}

const clientBlock = (n: number): Promise<number> => {
  const runtime = ManagedRuntime.make(
    TestExchange.layerSpotClient({ exchange: exchangeOptions, client: clientOptions })
  )
  return runtime.runPromise(Effect.gen(function*() {
    const client = yield* SpotClient.SpotClient
    // The client's first call loads the symbol rules and the server's time: done before the clock starts.
    yield* client.placeOrder(order(-1))
    const started = process.cpuUsage()
    for (let k = 0; k < n; k++) yield* client.placeOrder(order(k))
    const used = process.cpuUsage(started)
    return (used.user + used.system) / 1000
  })).finally(() => runtime.dispose())
}

process.on("message", (message: { readonly n: number }) => {
  const started = performance.now()
  ;(mode === "raw" ? Promise.resolve().then(() => rawBlock(message.n)) : clientBlock(message.n)).then(
    (cpuMs) => process.send!({ wallMs: performance.now() - started, cpuMs }),
    (error: unknown) => process.send!({ error: String(error) })
  )
})
process.send!({ ready: true })
