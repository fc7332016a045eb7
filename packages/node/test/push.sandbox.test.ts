/**
 * Push over real WebSockets: the sandbox's port serves the venue's push endpoints (`PushVenue.layerSandbox`), fed by
 * the engine, and `NodeSpotPush` (the `ws` package, node:crypto signing) reads them, on the live clock. The book
 * equals the engine's; every fill is delivered once while connections are dropped every few frames; a bad signature
 * is refused with HTTP 401 before any upgrade (and counted `refused`: `ws` names the status); pings are answered and
 * a stalled connection is replaced.
 */
import { assert, describe, it } from "@effect/vitest"
import { Push, SpotClient, SpotPush, Telemetry } from "@spotkit/core"
import { PushVenue, Sandbox, TestExchange } from "@spotkit/testkit"
import type { Engine } from "@spotkit/testkit"
import { Effect, Layer, Metric, Redacted } from "effect"
import type { Scope } from "effect"
import { Fiber, Stream } from "effect"
import { NodeSpotClient, NodeSpotPush } from "../src/index.ts"

const collect = <A, E>(stream: Stream.Stream<A, E>) =>
  Effect.gen(function*() {
    const items: Array<A> = []
    const fiber = yield* Effect.forkScoped(Stream.runForEach(stream, (a) => Effect.sync(() => items.push(a))))
    return { items, fiber, stop: Fiber.interrupt(fiber) }
  }) satisfies Effect.Effect<unknown, never, Scope.Scope>

const engineBook = (engine: Engine.Engine, symbol: string, depth: number) => {
  const view = engine.depth(symbol)
  const side = (rows: ReadonlyArray<readonly [string, string, number]>) =>
    rows.slice(0, depth).map(([price, size]) => ({ price, size }))
  return { bids: side(view.bids), asks: side(view.asks) }
}

const lastBook = (events: ReadonlyArray<SpotPush.BookEvent>) => {
  const last = events.at(-1)
  return last?._tag === "Book" ? last.book : undefined
}

const SYMBOL = "BTCUSDT_SPBL"

const sleep = (millis: number) => Effect.sleep(millis)

// The demo exchange, its push venue and the sandbox serving both on one port; alice's REST and push clients over it.
const layer = (
  options: { readonly venue?: PushVenue.Options; readonly push?: Partial<SpotPush.Options>; readonly secret?: string } =
    {}
) => {
  const exchange = TestExchange.layer({ ...TestExchange.demo({ bills: 0 }), rateLimits: false })
  const server = PushVenue.layerSandbox().pipe(
    Layer.provideMerge(PushVenue.layer({ pingInterval: "200 millis", ...options.venue })),
    Layer.provideMerge(exchange)
  )
  const clients = Layer.unwrap(Effect.gen(function*() {
    const sandbox = yield* Sandbox.Sandbox
    const alice = TestExchange.demoKeys.alice
    const credentials = {
      apiKey: Redacted.make(alice.apiKey),
      secretKey: Redacted.make(options.secret ?? alice.secretKey),
      passphrase: Redacted.make(alice.passphrase)
    }
    const client = NodeSpotClient.layer({ baseUrl: sandbox.baseUrl, credentials, rateLimit: false })
    return NodeSpotPush.layer({
      url: PushVenue.pushUrl(sandbox),
      credentials,
      backoff: { initial: "20 millis", max: "200 millis" },
      ...options.push
    }).pipe(Layer.provideMerge(client))
  }))
  return clients.pipe(Layer.provideMerge(server))
}

const context = Effect.gen(function*() {
  const exchange = yield* TestExchange.TestExchange
  const venue = yield* PushVenue.PushVenue
  return {
    exchange,
    venue,
    push: yield* SpotPush.SpotPush,
    alice: exchange.accounts[0]!.userId
  }
})

const marketBuy = (i: number) =>
  Effect.gen(function*() {
    const { alice, exchange } = yield* context
    yield* exchange.placeOrder(alice, {
      symbol: SYMBOL,
      side: i % 2 === 0 ? "buy" : "sell",
      orderType: "market",
      force: "normal",
      quantity: i % 2 === 0 ? "600" : "0.02",
      clientOrderId: `ws-${i}`
    })
  })

describe("push over WebSocket (sandbox)", () => {
  it.live("the sandbox's port answers the push paths; the book equals the engine's", () =>
    Effect.gen(function*() {
      const { exchange, push } = yield* context
      const book = yield* collect(push.watchBook(SYMBOL))
      yield* sleep(300)
      for (let i = 0; i < 10; i++) yield* marketBuy(i)
      yield* sleep(300)
      const final = lastBook(book.items)!
      assert.deepStrictEqual({ bids: final.bids, asks: final.asks }, engineBook(exchange.engine, SYMBOL, 15))
      assert.isAbove(book.items.length, 5)
    }).pipe(Effect.provide(layer())), { timeout: 30_000 })

  it.live("every fill once while every connection is dropped after 3 data frames", () =>
    Effect.gen(function*() {
      const { alice, exchange, push, venue } = yield* context
      const fills = yield* collect(push.watchFills({ symbols: [SYMBOL] }))
      yield* sleep(300)
      yield* venue.setFaults({ disconnect: 3 })
      for (let i = 0; i < 24; i++) {
        yield* marketBuy(i)
        yield* sleep(40)
      }
      yield* venue.setFaults({})
      yield* sleep(1_500)
      const ids = fills.items.map((f) => f.fillId)
      assert.strictEqual(new Set(ids).size, ids.length)
      assert.deepStrictEqual([...ids].sort(), exchange.engine.fillList(alice).map((f) => f.fillId).sort())
      assert.isAtLeast((yield* venue.stats).opened, 3)
    }).pipe(Effect.provide(layer())), { timeout: 30_000 })

  it.live(
    "a bad signature is refused before the upgrade (HTTP 401); the public endpoint still works",
    () =>
      Effect.gen(function*() {
        const { push, venue } = yield* context
        const events = yield* collect(push.events)
        const balances = yield* Effect.forkScoped(Effect.flip(Stream.runDrain(push.watchBalances())))
        const book = yield* collect(push.watchBook(SYMBOL))
        yield* sleep(500)
        const stats = yield* venue.stats
        assert.isAtLeast(stats.refused, 1)
        // REST, asked after the refusal with the same key, refuses it too: the private stream fails, typed.
        const failure = yield* Fiber.join(balances)
        assert.strictEqual(failure.reason._tag, "CredentialsRefusedError")
        // Failed for good, not dialled again: no `Disconnected` announces a retry.
        assert.deepStrictEqual(events.items.filter((e) => e._tag === "Disconnected" && e.endpoint === "private"), [])
        assert.strictEqual(book.items[0]?._tag, "Book")
        // `ws` says a refused upgrade its own way ("Unexpected server response: 401"): each refusal counted so, the
        // public connection counted connected.
        const attempts = (endpoint: string, outcome: string) =>
          Effect.map(
            Metric.value(Metric.withAttributes(Telemetry.pushConnectionAttempts, { endpoint, outcome })),
            (state) => Number(state.count)
          )
        const refused = yield* attempts("private", "refused")
        assert.isAtLeast(refused, 1)
        assert.isAtMost(refused, (yield* venue.stats).refused)
        assert.strictEqual(yield* attempts("public", "connected"), 1)
      }).pipe(
        Effect.provide(layer({ secret: "not-the-secret" })),
        Effect.provideService(Metric.MetricRegistry, new Map())
      ),
    { timeout: 30_000 }
  )

  it.live(
    "pings answered over the wire; a stalled connection replaced by the idle watchdog",
    () =>
      Effect.gen(function*() {
        const { push, venue } = yield* context
        const events = yield* collect(push.events)
        const book = yield* collect(push.watchBook(SYMBOL))
        yield* sleep(1_500)
        // Seven ping intervals: answered, so never closed.
        assert.strictEqual(events.items.filter((e) => e._tag === "Disconnected").length, 0)
        yield* venue.setFaults({ stall: 1 })
        yield* venue.dropAll
        yield* sleep(1_000)
        yield* venue.setFaults({})
        yield* sleep(1_500)
        const reasons = events.items.flatMap((e) => e._tag === "Disconnected" ? [e.reason] : [])
        assert.isTrue(reasons.some((r) => r.includes("no frame")))
        assert.strictEqual(book.items.at(-1)?._tag, "Book")
        assert.strictEqual((yield* venue.stats).open, 1)
      }).pipe(Effect.provide(layer({ push: { idleTimeout: "700 millis" } }))),
    { timeout: 30_000 }
  )

  it.live("the push URL is the sandbox's base URL with the ws scheme", () =>
    Effect.gen(function*() {
      const sandbox = yield* Sandbox.Sandbox
      assert.strictEqual(PushVenue.pushUrl(sandbox), sandbox.baseUrl.replace("http://", "ws://"))
      assert.strictEqual(Push.paths.private, "/v2/ws/private")
    }).pipe(Effect.provide(layer())), { timeout: 30_000 })

  // Every fault of the venue over the wire, with trading sent by alice's REST client over HTTP: fills once (as the
  // engine has them), orders ending as the engine has them, the book equal to the engine's once quiet.
  const faults: ReadonlyArray<readonly [string, PushVenue.Faults]> = [
    ["dropped after 3 data frames", { disconnect: 3 }],
    ["closed cleanly after 4", { close: 4 }],
    ["stalled after 5", { stall: 5 }],
    ["every 2nd frame duplicated", { dup: 2 }],
    ["a depth change lost in 3", { gap: 3 }]
  ]
  for (const [name, fault] of faults) {
    it.live(
      `${name}: every fill once, orders as the engine's, the book equal to the engine's`,
      () =>
        Effect.gen(function*() {
          const { alice, exchange, push, venue } = yield* context
          const client = yield* SpotClient.SpotClient
          const fills = yield* collect(push.watchFills({ symbols: [SYMBOL] }))
          const orders = yield* collect(push.watchOrders({ symbols: [SYMBOL] }))
          const book = yield* collect(push.watchBook(SYMBOL))
          yield* sleep(300)
          yield* venue.setFaults(fault)
          for (let i = 0; i < 16; i++) {
            const buy = i % 2 === 0
            yield* client.placeOrder({
              symbol: SYMBOL,
              side: buy ? "buy" : "sell",
              orderType: "market",
              quantity: buy ? "700" : "0.02"
            })
            const rest = yield* client.placeOrder({
              symbol: SYMBOL,
              side: "buy",
              orderType: "limit",
              price: `${29_900 + i}.00`,
              quantity: "0.01"
            })
            if (i % 3 === 0) yield* client.cancelOrder({ symbol: SYMBOL, orderId: rest.orderId })
            yield* sleep(30)
          }
          yield* venue.setFaults({})
          // A lost last change shows only with the next one (the venue's changes carry no checksum): one more trade.
          yield* marketBuy(99)
          yield* sleep(2_000)
          const ids = fills.items.map((f) => f.fillId)
          assert.strictEqual(new Set(ids).size, ids.length, "a fill delivered twice")
          assert.deepStrictEqual([...ids].sort(), exchange.engine.fillList(alice).map((f) => f.fillId).sort())
          const last = new Map(orders.items.map((o) => [o.orderId, o]))
          for (const order of exchange.engine.orderList(alice)) {
            assert.strictEqual(last.get(order.orderId)?.status, order.status, order.clientOrderId)
            assert.strictEqual(last.get(order.orderId)?.filledQuantity, order.fillQuantity)
          }
          const final = lastBook(book.items)!
          assert.deepStrictEqual({ bids: final.bids, asks: final.asks }, engineBook(exchange.engine, SYMBOL, 15))
        }).pipe(Effect.provide(layer({ push: { idleTimeout: "700 millis" } }))),
      { timeout: 60_000 }
    )
  }

  it.live(
    "acknowledgements never sent: the subscription fails with SubscribeTimeoutError",
    () =>
      Effect.gen(function*() {
        const { push, venue } = yield* context
        yield* venue.setFaults({ noAck: true })
        const error = yield* Effect.flip(Stream.runDrain(push.watchBook(SYMBOL)))
        assert.strictEqual(error.reason._tag, "SubscribeTimeoutError")
      }).pipe(Effect.provide(layer({ push: { ackTimeout: "300 millis" } }))),
    { timeout: 30_000 }
  )

  it.live("a reconnect storm: within the connection budget, and live again once it ends", () =>
    Effect.gen(function*() {
      const { exchange, push, venue } = yield* context
      yield* venue.setFaults({ storm: true })
      const book = yield* collect(push.watchBook(SYMBOL))
      yield* sleep(1_000)
      assert.strictEqual((yield* venue.stats).attempts, 20)
      yield* venue.setFaults({})
      yield* sleep(1_500)
      yield* marketBuy(0)
      yield* sleep(300)
      const final = lastBook(book.items)!
      assert.deepStrictEqual({ bids: final.bids, asks: final.asks }, engineBook(exchange.engine, SYMBOL, 15))
    }).pipe(Effect.provide(layer({
      push: {
        backoff: { initial: "1 millis", max: "5 millis" },
        limits: { connectionAttempts: { limit: 20, windowMillis: 2_000 } }
      }
    }))), { timeout: 30_000 })

  it.live(
    "private handshakes refused for a while (refuseAuth): the fills of the outage come by REST",
    () =>
      Effect.gen(function*() {
        const { alice, exchange, push, venue } = yield* context
        const fills = yield* collect(push.watchFills({ symbols: [SYMBOL] }))
        yield* sleep(300)
        yield* venue.setFaults({ refuseAuth: true })
        yield* venue.dropAll
        for (let i = 0; i < 6; i++) yield* marketBuy(i)
        yield* sleep(300)
        assert.strictEqual(fills.items.length, 0)
        yield* venue.setFaults({})
        yield* sleep(1_500)
        assert.deepStrictEqual(
          fills.items.map((f) => f.fillId).sort(),
          exchange.engine.fillList(alice).map((f) => f.fillId).sort()
        )
        assert.isTrue(fills.items.every((f) => f.source === "rest"))
      }).pipe(Effect.provide(layer())),
    { timeout: 30_000 }
  )

  // What one read of the socket holds is handed to the consumers at once, before any can take of it: a consumer that
  // keeps up (it only keeps what it is given) gets a burst of many times its queue whole and in order, and goes on.
  it.live(
    "a burst of many times bufferSize reaches a consumer that keeps up whole and in order",
    () =>
      Effect.gen(function*() {
        const { alice, exchange, push } = yield* context
        const orders = yield* collect(push.watchOrders({ symbols: [SYMBOL] }))
        yield* sleep(300)
        const placed: Array<string> = []
        for (let i = 0; i < 300; i++) {
          const rest = yield* exchange.placeOrder(alice, {
            symbol: SYMBOL,
            side: "buy",
            orderType: "limit",
            force: "normal",
            price: `${20000 + i}.00`,
            quantity: "0.001",
            clientOrderId: `burst-${i}`
          })
          if (rest.ok) placed.push(rest.orderId)
        }
        assert.strictEqual(placed.length, 300)
        yield* sleep(1_500)
        assert.deepStrictEqual(orders.items.map((o) => o.orderId), placed)
        assert.isUndefined(orders.fiber.pollUnsafe(), "the orders stream still runs")
      }).pipe(Effect.provide(layer({ push: { bufferSize: 16 } }))),
    { timeout: 30_000 }
  )
})
