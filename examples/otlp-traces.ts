/**
 * spotkit's spans in a real tracing backend: exported over OTLP/HTTP (JSON) with Effect's own exporter
 * (`effect/observability`), to an OpenTelemetry Collector or anything that speaks OTLP (Jaeger, Tempo, a vendor).
 *
 *   OTEL_EXPORTER_OTLP_ENDPOINT=http://localhost:4318 \
 *   SPOTKIT_BASE_URL=... SPOTKIT_API_KEY=... SPOTKIT_SECRET_KEY=... SPOTKIT_PASSPHRASE=... \
 *     node --conditions=@spotkit/source examples/otlp-traces.ts BTCUSDT_SPBL
 *
 * Each operation is a span named after it (`SpotClient.placeOrder`, with symbol, side, orderType and clientOrderId),
 * and each HTTP exchange a client span inside it (method, URL, status; headers only if `HttpClient.TracerHeaderFilter`
 * asks, the credential headers redacted). Nothing secret is exported: credentials are `Redacted`, and spotkit never
 * puts them on a span.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { SpotClient } from "@spotkit/core"
import { NodeSpotClient } from "@spotkit/node"
import { Config, Console, Effect, Layer, Stream } from "effect"
import { FetchHttpClient } from "effect/http"
import { OtlpSerialization, OtlpTracer } from "effect/observability"

const symbol = process.argv[2] ?? "BTCUSDT_SPBL"

const program = Effect.gen(function*() {
  const client = yield* SpotClient.SpotClient
  const placed = yield* client.placeOrder({
    symbol,
    side: "buy",
    orderType: "limit",
    price: "25000",
    quantity: "0.001",
    clientOrderId: "otlp-example-1"
  })
  const open = yield* Stream.runCount(client.openOrders({ symbol }))
  const page = yield* client.fundingBillsPage({ pageSize: 10 })
  yield* Console.log(
    `placed ${placed.orderId}; ${open} open orders; ${page.items?.length ?? 0} bills on the first page`
  )
}).pipe(Effect.withSpan("otlp-example"))

// The exporter: ended spans batched and sent to <endpoint>/v1/traces; the rest are flushed when the program ends
// (the layer's scope closes). It posts with its own HTTP client, so its requests are not traced themselves.
const Tracing = Layer.unwrap(
  Effect.map(
    Config.String("OTEL_EXPORTER_OTLP_ENDPOINT").pipe(Config.withDefault("http://localhost:4318")),
    (endpoint) =>
      OtlpTracer.layer({
        url: `${endpoint.replace(/\/+$/, "")}/v1/traces`,
        resource: { serviceName: "spotkit-example" }
      })
  )
).pipe(Layer.provide([OtlpSerialization.layerJson, FetchHttpClient.layer]))

// The default transport (undici) opens a client span per HTTP exchange; it sends no trace context to the venue.
const Client = NodeSpotClient.layerConfig()

program.pipe(Effect.provide(Client), Effect.provide(Tracing), NodeRuntime.runMain)
