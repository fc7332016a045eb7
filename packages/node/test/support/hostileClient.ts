/**
 * A library process for the memory figures of `hostile.ts` (`runLibrary`): one `fundingBillsPage` call through
 * `NodeSpotClient.layer` over the transport and with the `maxResponseBytes` its arguments name, against a venue at
 * `baseUrl`; prints the outcome as one JSON line on stdout (`{"outcome":"success"}` or the reason's tag and message)
 * and exits 0 either way. It imports the built packages (`dist`), as a program that depends on them would.
 *
 * Arguments: `<baseUrl> <undici|effect-undici|node:http> <maxResponseBytes>`.
 */
import { SpotClient, SpotError } from "@spotkit/core"
import { NodeSpotClient } from "@spotkit/node"
import { Cause, Effect, Exit, Redacted } from "effect"

const [baseUrl = "", transport = "undici", limit = "0"] = process.argv.slice(2)
if (transport !== "undici" && transport !== "effect-undici" && transport !== "node:http") {
  throw new Error(`unknown transport ${transport}`)
}

const program = Effect.flatMap(Effect.service(SpotClient.SpotClient), (client) => client.fundingBillsPage()).pipe(
  Effect.provide(NodeSpotClient.layer({
    baseUrl,
    credentials: {
      apiKey: Redacted.make("library-key"),
      secretKey: Redacted.make("library-secret"),
      passphrase: Redacted.make("library-passphrase")
    },
    rateLimit: false,
    retry: false,
    // One request, the bills page: no server-time sync before it (a public GET of its own).
    syncServerTime: false,
    transport,
    maxResponseBytes: Number(limit)
  }))
)

void Effect.runPromiseExit(program).then((exit) => {
  if (Exit.isSuccess(exit)) {
    process.stdout.write(`${JSON.stringify({ outcome: "success" })}\n`)
    return
  }
  const error = Cause.squash(exit.cause)
  process.stdout.write(
    `${
      JSON.stringify(
        error instanceof SpotError.SpotError
          ? { outcome: error.reason._tag, message: error.message }
          : { outcome: "defect", message: String(error) }
      )
    }\n`
  )
})
