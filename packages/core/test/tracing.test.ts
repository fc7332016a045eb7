import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Stream, Tracer } from "effect"
import { FakeVenue, sampleTransfer, SYMBOL, withClient } from "./support/FakeVenue.ts"

// Records every span the client opens.
const recording = () => {
  const spans: Array<Tracer.NativeSpan> = []
  const layer = Layer.succeed(
    Tracer.Tracer,
    Tracer.make({
      span: (options) => {
        const span = new Tracer.NativeSpan(options)
        spans.push(span)
        return span
      }
    })
  )
  return { spans, layer }
}

describe("tracing", () => {
  it.effect("every public operation opens a span named after it, with the HTTP exchange inside", () => {
    const { layer, spans } = recording()
    const venue = new FakeVenue()
    return Effect.gen(function*() {
      yield* withClient(venue, (client) =>
        Effect.gen(function*() {
          yield* client.placeOrder({
            symbol: SYMBOL,
            side: "buy",
            orderType: "limit",
            price: "100",
            quantity: "0.5",
            clientOrderId: "trace-1"
          })
          yield* client.placeOrders(SYMBOL, [{ side: "sell", orderType: "limit", price: "200", quantity: "1" }])
          yield* client.openOrdersPage({ symbol: SYMBOL })
          yield* client.fundingBillsPage({})
          yield* client.internalTransfer(sampleTransfer)
          yield* Stream.runDrain(client.openOrders({ symbol: SYMBOL }))
        }))
      const names = spans.map((span) => span.name)
      for (
        const name of [
          "SpotClient.placeOrder",
          "SpotClient.placeOrders",
          "SpotClient.openOrdersPage",
          "SpotClient.fundingBillsPage",
          "SpotClient.internalTransfer",
          "SpotClient.openOrders"
        ]
      ) {
        assert.include(names, name)
      }
      const place = spans.find((span) => span.name === "SpotClient.placeOrder")!
      assert.strictEqual(place.attributes.get("symbol"), SYMBOL)
      assert.strictEqual(place.attributes.get("side"), "buy")
      assert.strictEqual(place.attributes.get("clientOrderId"), "trace-1")
      assert.strictEqual(place.status._tag, "Ended")
      // The HTTP client's span of the request is a child of the operation's span.
      const children = spans.filter((span) => span.parent._tag === "Some" && span.parent.value === place)
      assert.isAbove(children.length, 0)
    }).pipe(Effect.provide(layer))
  })
})
