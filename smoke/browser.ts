/**
 * The smoke program in a browser page, bundled by esbuild. The page's address carries the configuration after `#`
 * (`baseUrl`, `apiKey`, `secretKey`, `passphrase`, `toUserId`, `mode`); the outcome is written as JSON to
 * `document.body.dataset.result` for the driver (Playwright) to read.
 *
 * - `mode=run`: the smoke program, from a page whose origin the sandbox allows (`spotkit-sandbox --cors <origin>`).
 * - `mode=blocked`: from an origin the sandbox does not allow, so the browser blocks every request: what the client
 *   then says (a read fails with a `TransportError`; an order, whose request may have left, with "the request may
 *   have been applied").
 */
import { SpotClient } from "@spotkit/core"
import { Cause, Effect, Exit } from "effect"
import type { Config } from "./smoke.ts"
import { clientLayer, program } from "./smoke.ts"

const params = new URLSearchParams(location.hash.slice(1))
const config: Config = {
  baseUrl: params.get("baseUrl") ?? "",
  apiKey: params.get("apiKey") ?? "",
  secretKey: params.get("secretKey") ?? "",
  passphrase: params.get("passphrase") ?? "",
  toUserId: params.get("toUserId") ?? ""
}

const blocked = Effect.gen(function*() {
  const client = yield* SpotClient.SpotClient
  const read = yield* Effect.flip(client.fundingBillsPage({ pageSize: 10 }))
  const order = yield* Effect.flip(
    client.placeOrder({ symbol: "BTCUSDT_SPBL", side: "buy", orderType: "limit", price: "29000", quantity: "0.01" })
  )
  return {
    runtime: "chromium",
    read: { reason: read.reason._tag, message: read.message },
    order: { reason: order.reason._tag, message: order.message }
  }
}).pipe(Effect.provide(clientLayer(config, { retry: false })))

const run: Effect.Effect<unknown, unknown> = params.get("mode") === "blocked" ? blocked : program(config, "chromium")

void Effect.runPromiseExit(run).then((exit) => {
  document.body.dataset.result = JSON.stringify(
    Exit.isSuccess(exit) ? { ok: true, value: exit.value } : { ok: false, error: Cause.pretty(exit.cause) }
  )
})
