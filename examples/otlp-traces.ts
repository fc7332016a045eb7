/**
 * spotkit's spans and metrics in a real backend: exported over OTLP/HTTP (JSON) with Effect's own exporters
 * (`effect/observability`), to an OpenTelemetry Collector or anything that speaks OTLP (Jaeger, Tempo, Prometheus's
 * OTLP receiver, a vendor). The metrics are `Telemetry`'s: requests by endpoint and outcome, their latency, retries,
 * 429s, rate-limit waits and the budgets' use.
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
import { OtlpMetrics, OtlpSerialization, OtlpTracer } from "effect/observability"

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

// The exporters: ended spans batched and sent to <endpoint>/v1/traces, the metrics to <endpoint>/v1/metrics every
// `exportInterval`; what is left is flushed when the program ends (the layers' scope closes). They post with their
// own HTTP client, so their requests are neither traced nor counted themselves.
const Observability = Layer.unwrap(
  Effect.map(
    Config.String("OTEL_EXPORTER_OTLP_ENDPOINT").pipe(Config.withDefault("http://localhost:4318")),
    (endpoint) => {
      const base = endpoint.replace(/\/+$/, "")
      const resource = { serviceName: "spotkit-example" }
      return Layer.mergeAll(
        OtlpTracer.layer({ url: `${base}/v1/traces`, resource }),
        OtlpMetrics.layer({ url: `${base}/v1/metrics`, resource, exportInterval: "10 seconds" })
      )
    }
  )
).pipe(Layer.provide([OtlpSerialization.layerJson, FetchHttpClient.layer]))

// The default transport (undici) opens a client span per HTTP exchange; it sends no trace context to the venue.
const Client = NodeSpotClient.layerConfig()

program.pipe(Effect.provide(Client), Effect.provide(Observability), NodeRuntime.runMain)
