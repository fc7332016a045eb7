/**
 * otlp-traces.ts as a user runs it (a `node` process against the sandbox), exporting to an OTLP/HTTP receiver on
 * loopback that this test runs: what a collector receives is OTLP JSON on /v1/traces with spotkit's spans, named
 * after the operations, with their attributes, each HTTP exchange inside its operation, all in one trace, and no
 * credential anywhere in it.
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
  it.live("exports spotkit's spans over OTLP: names, attributes, nesting, and no secret", () =>
    Effect.scoped(Effect.gen(function*() {
      const { endpoint, received } = yield* receiver
      const run = yield* runExample("otlp-traces.ts", ["BTCUSDT_SPBL"], { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint })
      assert.strictEqual(run.code, 0, run.stderr)
      assert.match(run.stdout, /^placed \d{19}; 1 open orders; 10 bills on the first page\n$/)

      // OTLP/HTTP with JSON bodies, on the traces path, flushed before the program exited.
      assert.isAbove(received.length, 0)
      for (const exported of received) {
        assert.strictEqual(exported.path, "/v1/traces")
        assert.include(exported.contentType, "application/json")
      }
      const data = received.map((exported) => JSON.parse(exported.body) as TracesData)
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
      // The client's first signed call also asks the server's time (once per client) and loads the symbols' rules
      // (once, for the check before an order is sent): both public GETs, inside that call's span.
      const exchanges = [
        [place, [Venue.endpoints.serverTime, Venue.endpoints.exchangeInfo, Venue.endpoints.placeOrder]],
        [open, [Venue.endpoints.openOrders]],
        [bills, [Venue.endpoints.fundingBills]]
      ] as const
      for (const [operation, endpoints] of exchanges) {
        const http = spans.filter((span) => span.parentSpanId === operation.spanId).map((span) =>
          attributes(span.attributes)
        )
        assert.strictEqual(http.length, endpoints.length, `${operation.name}: ${http.length} HTTP spans`)
        for (const endpoint of endpoints) {
          const attrs = http.find((attrs) => attrs["url.path"] === endpoint.path)
          assert.isDefined(attrs, `${operation.name}: no HTTP span for ${endpoint.path}`)
          assert.strictEqual(attrs!["http.request.method"], endpoint.method)
          assert.strictEqual(attrs!["http.response.status_code"], 200)
        }
      }

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
