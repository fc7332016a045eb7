/**
 * Request and response hooks: `transformClient` takes the platform's `HttpClient` and answers another, here one that
 * logs every HTTP exchange (method, path, headers, status, time taken) on stderr.
 *
 *   SPOTKIT_BASE_URL=... SPOTKIT_API_KEY=... SPOTKIT_SECRET_KEY=... SPOTKIT_PASSPHRASE=... \
 *     node --conditions=@spotkit/source examples/request-hooks.ts BTCUSDT_SPBL
 *
 * The hook sits beneath the client's own stages: it sees each exchange as it goes out, every retry included, with
 * the request signed. `ACCESS-KEY`, `ACCESS-PASSPHRASE` and `ACCESS-SIGN` are credentials: headers are logged only
 * through `Headers.redact` with the names in `Headers.CurrentRedactedNames`, which the client sets to include them
 * (they print as `<redacted>`). A hook may add headers (the signature does not cover them); changing the path, the
 * body or a signed header makes the venue refuse the signature.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { SpotClient } from "@spotkit/core"
import { NodeSpotClient } from "@spotkit/node"
import { Config, Console, Duration, Effect } from "effect"
import { Headers, HttpClient, type HttpClientRequest } from "effect/http"

const symbol = process.argv[2] ?? "BTCUSDT_SPBL"

const pathOf = (request: HttpClientRequest.HttpClientRequest) => new URL(request.url).pathname

// Every exchange on stderr: the request with its headers redacted, then its status and how long it took.
const logExchanges = (client: HttpClient.HttpClient): HttpClient.HttpClient =>
  client.pipe(
    HttpClient.tapRequest((request) =>
      Effect.gen(function*() {
        const names = yield* Headers.CurrentRedactedNames
        const headers = JSON.stringify(Headers.redact(request.headers, names))
        yield* Console.error(`-> ${request.method} ${pathOf(request)} ${headers}`)
      })
    ),
    HttpClient.transformResponse((exchange) =>
      Effect.flatMap(Effect.timed(exchange), ([took, response]) =>
        Effect.as(
          Console.error(
            `<- ${response.status} ${response.request.method} ${pathOf(response.request)} in ${
              Duration.toMillis(took)
            } ms`
          ),
          response
        ))
    )
  )

const program = Effect.gen(function*() {
  const client = yield* SpotClient.SpotClient
  const placed = yield* client.placeOrder({
    symbol,
    side: "buy",
    orderType: "limit",
    price: "25000",
    quantity: "0.001",
    clientOrderId: "hooks-example-1"
  })
  const page = yield* client.fundingBillsPage({ pageSize: 5 })
  yield* Console.log(`placed ${placed.orderId}; ${page.items?.length ?? 0} bills on the first page`)
})

const Client = NodeSpotClient.layerConfig({
  ...NodeSpotClient.defaultConfig,
  transformClient: Config.succeed(logExchanges)
})

program.pipe(Effect.provide(Client), NodeRuntime.runMain)
