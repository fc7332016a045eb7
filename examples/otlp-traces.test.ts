/**
 * otlp-traces.ts as a user runs it (a `node` process against the sandbox), exporting to an OTLP/HTTP receiver on
 * loopback that this test runs: what a collector receives is OTLP JSON on /v1/traces with spotkit's spans, named
 * after the operations, with their attributes, each HTTP exchange inside its operation, all in one trace; OTLP JSON
 * on /v1/metrics with spotkit's request counts by endpoint and outcome and their latency; and no credential anywhere
 * in either.
 */
import { assert, describe, it } from "@effect/vitest"
import { Venue } from "@spotkit/core"
import { Sandbox, TestExchange } from "@spotkit/testkit"
import { Effect, Layer, Redacted } from "effect"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { runExample } from "./test/support.ts"

interface Export {
  readonly path: string
  readonly contentType: string
  readonly body: string
}

/** An OTLP/HTTP receiver on loopback for the scope: it answers 200 to every export and keeps what it received. */
const receiver = Effect.acquireRelease(
  Effect.callback<{ readonly endpoint: string; readonly received: Array<Export>; close: () => void }>((resume) => {
    const received: Array<Export> = []
    const server = createServer((request, response) => {
      const chunks: Array<Buffer> = []
      request.on("data", (chunk: Buffer) => chunks.push(chunk))
      request.on("end", () => {
        received.push({
          path: request.url ?? "",
          contentType: request.headers["content-type"] ?? "",
          body: Buffer.concat(chunks).toString("utf8")
        })
        response.writeHead(200, { "content-type": "application/json" }).end("{}")
      })
    })
    server.listen(0, "127.0.0.1", () =>
      resume(Effect.succeed({
        endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        received,
        close: () => server.close()
      })))
  }),
  (receiver) => Effect.sync(() => receiver.close())
)

// OTLP/JSON, the parts read here.
interface AnyValue {
  readonly stringValue?: string
  readonly intValue?: number | string
  readonly boolValue?: boolean
}
interface KeyValue {
  readonly key: string
  readonly value: AnyValue
}
interface Span {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId?: string
  readonly name: string
  readonly attributes: ReadonlyArray<KeyValue>
}
interface DataPoint {
  readonly attributes?: ReadonlyArray<KeyValue>
  readonly asInt?: number | string
  readonly asDouble?: number
  readonly count?: number | string
}
interface MetricsData {
  readonly resourceMetrics: ReadonlyArray<{
    readonly scopeMetrics: ReadonlyArray<{
      readonly metrics: ReadonlyArray<{
        readonly name: string
        readonly sum?: { readonly dataPoints: ReadonlyArray<DataPoint> }
        readonly histogram?: { readonly dataPoints: ReadonlyArray<DataPoint> }
      }>
    }>
  }>
}
interface TracesData {
  readonly resourceSpans: ReadonlyArray<{
    readonly resource: { readonly attributes: ReadonlyArray<KeyValue> }
    readonly scopeSpans: ReadonlyArray<{ readonly spans: ReadonlyArray<Span> }>
  }>
}

const attributes = (values: ReadonlyArray<KeyValue>): Record<string, unknown> =>
  Object.fromEntries(values.map(({ key, value }) => [key, value.stringValue ?? value.intValue ?? value.boolValue]))

const sandbox = Sandbox.layer().pipe(
  Layer.provideMerge(TestExchange.layer({ ...TestExchange.demo({ seed: 5, bills: 200 }), rateLimits: false }))
)

describe("otlp-traces.ts", () => {
  it.live("exports spotkit's spans and metrics over OTLP: names, attributes, nesting, counts, and no secret", () =>
    Effect.scoped(Effect.gen(function*() {
      const { endpoint, received } = yield* receiver
      const run = yield* runExample("otlp-traces.ts", ["BTCUSDT_SPBL"], { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint })
      assert.strictEqual(run.code, 0, run.stderr)
      assert.match(run.stdout, /^placed \d{19}; 1 open orders; 10 bills on the first page\n$/)

      // OTLP/HTTP with JSON bodies, on the traces and metrics paths, flushed before the program exited.
      assert.isAbove(received.length, 0)
      for (const exported of received) {
        assert.include(["/v1/traces", "/v1/metrics"], exported.path)
        assert.include(exported.contentType, "application/json")
      }
      const traces = received.filter((exported) => exported.path === "/v1/traces")
      const data = traces.map((exported) => JSON.parse(exported.body) as TracesData)
      for (const resourceSpans of data.flatMap((d) => d.resourceSpans)) {
        assert.strictEqual(attributes(resourceSpans.resource.attributes)["service.name"], "spotkit-example")
      }
      const spans = data.flatMap((d) => d.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans)))
      const named = (name: string): Span => {
        const span = spans.find((span) => span.name === name)
        assert.isDefined(span, `no span ${name} among ${spans.map((span) => span.name).join(", ")}`)
        return span!
      }

      // One trace: the program's span, an operation span per call inside it, an HTTP client span inside each.
      const root = named("otlp-example")
      assert.isUndefined(root.parentSpanId)
      assert.deepStrictEqual(new Set(spans.map((span) => span.traceId)), new Set([root.traceId]))
      const place = named("SpotClient.placeOrder")
      const open = named("SpotClient.openOrders")
      const bills = named("SpotClient.fundingBillsPage")
      for (const operation of [place, open, bills]) assert.strictEqual(operation.parentSpanId, root.spanId)
      assert.deepStrictEqual(attributes(place.attributes), {
        symbol: "BTCUSDT_SPBL",
        side: "buy",
        orderType: "limit",
        clientOrderId: "otlp-example-1"
      })
      assert.deepStrictEqual(attributes(open.attributes), { symbol: "BTCUSDT_SPBL" })
      const exchanges = [
        [place, Venue.endpoints.placeOrder.path],
        [open, Venue.endpoints.openOrders.path],
        [bills, Venue.endpoints.fundingBills.path]
      ] as const
      // The first call also carries the client's own public requests, each once: the server's time (before its first
      // signed request) and the symbol rules (before it checks its first order).
      const publicGets = new Map<string, ReadonlyArray<string>>([
        [place.spanId, [Venue.endpoints.exchangeInfo.path, Venue.endpoints.serverTime.path]]
      ])
      for (const [operation, path] of exchanges) {
        const http = spans.filter((span) => span.parentSpanId === operation.spanId)
        const gets = http.filter((span) => attributes(span.attributes)["http.request.method"] === "GET")
        assert.deepStrictEqual(
          gets.map((span) => attributes(span.attributes)["url.path"]).sort(),
          [...publicGets.get(operation.spanId) ?? []],
          `${operation.name}: its public GETs`
        )
        const own = http.filter((span) => !gets.includes(span))
        assert.strictEqual(own.length, 1, `${operation.name}: ${own.length} HTTP spans of its own`)
        for (const span of own) {
          const attrs = attributes(span.attributes)
          assert.strictEqual(attrs["http.request.method"], "POST")
          assert.strictEqual(attrs["url.path"], path)
          assert.strictEqual(attrs["http.response.status_code"], 200)
        }
      }

      // The metrics: every request counted by endpoint and outcome, and timed, as the venue answered them.
      const metrics = received.filter((exported) => exported.path === "/v1/metrics")
        .flatMap((exported) => (JSON.parse(exported.body) as MetricsData).resourceMetrics)
        .flatMap((resource) => resource.scopeMetrics.flatMap((scope) => scope.metrics))
      const points = (name: string) =>
        metrics.filter((metric) => metric.name === name)
          .flatMap((metric) => metric.sum?.dataPoints ?? metric.histogram?.dataPoints ?? [])
      const requests = new Map<string, number>()
      for (const point of points("spotkit_requests_total")) {
        const { endpoint, outcome } = attributes(point.attributes ?? [])
        // Cumulative: the last export of a series holds its total.
        requests.set(`${endpoint} ${outcome}`, Number(point.asInt ?? point.asDouble))
      }
      for (const name of ["placeOrder", "openOrders", "fundingBills", "serverTime", "exchangeInfo"]) {
        assert.strictEqual(requests.get(`${name} ok`), 1, `requests of ${name}: ${[...requests].join(", ")}`)
      }
      const latency = points("spotkit_request_duration_ms")
        .filter((point) => attributes(point.attributes ?? [])["endpoint"] === "placeOrder")
      assert.isAbove(latency.length, 0)
      assert.strictEqual(Number(latency.at(-1)!.count), 1)

      // Nothing secret: no credential's value anywhere in what was exported, no attribute named after one.
      const exchange = yield* TestExchange.TestExchange
      const { credentials } = exchange.accounts[0]!
      const text = received.map((exported) => exported.body).join("\n")
      for (const secret of [credentials.apiKey, credentials.secretKey, credentials.passphrase]) {
        assert.notInclude(text, Redacted.value(secret))
      }
      for (const span of spans) {
        for (const { key } of span.attributes) assert.notMatch(key, /access|passphrase|secret|sign/i, span.name)
      }
    })).pipe(Effect.provide(sandbox)))
})
