/**
 * A push stamped ahead of the venue's clock (a push node whose clock is off) against the test exchange, in process
 * under the `TestClock`: it is delivered, but the watermarks (fills, orders) and the trades' floor never pass this
 * machine's estimate of the venue's time, so the catch-up of a later outage still reads that outage back by REST.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { PushVenue, TestExchange } from "../src/index.ts"
import { advance, collect, settle, setup, SpotPush } from "./support/push.ts"

const SYMBOL = "BTCUSDT_SPBL"

// Ten minutes ahead of the venue's clock.
const AHEAD = 600_000

const context = Effect.gen(function*() {
  const exchange = yield* TestExchange.TestExchange
  const venue = yield* PushVenue.PushVenue
  const push = yield* SpotPush.SpotPush
  return { exchange, venue, push, alice: exchange.accounts[0]!.userId }
})

// An outage of the private connection a minute on, in which `during` runs, then the catch-up.
const privateOutage = <A, E, R>(during: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const { venue } = yield* context
    yield* advance(60_000)
    yield* venue.setFaults({ refuseAuth: true })
    yield* venue.dropAll
    yield* advance(2_000)
    const result = yield* during
    yield* advance(2_000)
    yield* venue.setFaults({})
    yield* advance(60_000, 2_000)
    return result
  })

describe("push: a private push stamped ahead of the venue's clock", () => {
  it.effect("is delivered, and the fills of a later outage are still read back", () =>
    Effect.gen(function*() {
      const { alice, exchange, push, venue } = yield* context
      const fills = yield* collect(push.watchFills({ symbols: [SYMBOL] }))
      const orders = yield* collect(push.watchOrders({ symbols: [SYMBOL] }))
      yield* settle
      yield* exchange.placeOrder(alice, {
        symbol: SYMBOL,
        side: "buy",
        orderType: "market",
        force: "normal",
        quantity: "100",
        clientOrderId: "first"
      })
      yield* advance(2_000)
      // A fill of another order, well formed but stamped ten minutes ahead.
      const genuine = exchange.engine.fillList(alice)[0]!
      const ahead = String(Number(genuine.cTime) + AHEAD)
      yield* venue.publish({
        _tag: "Fill",
        userId: alice,
        fill: { ...genuine, fillId: "7999999999999999999", orderId: "1999999999999999999", cTime: ahead },
        time: Number(ahead)
      })
      yield* advance(2_000)
      assert.include(fills.items.map((f) => f.fillId), "7999999999999999999")
      const placed = yield* privateOutage(exchange.placeOrder(alice, {
        symbol: SYMBOL,
        side: "buy",
        orderType: "market",
        force: "normal",
        quantity: "200",
        clientOrderId: "during"
      }))
      assert.isTrue(placed.ok)
      const during = placed.ok ? placed.orderId : ""
      assert.include(orders.items.filter((o) => o.orderId === during).map((o) => o.status), "full_fill")
      const owed = exchange.engine.fillList(alice).filter((f) => f.orderId === during).map((f) => f.fillId)
      assert.isAbove(owed.length, 0)
      assert.deepStrictEqual(
        fills.items.filter((f) => f.orderId === during).map((f) => f.fillId).sort(),
        owed.sort(),
        "the fills of the outage are delivered"
      )
    }).pipe(Effect.provide(setup())), { timeout: 60_000 })

  it.effect(
    "is delivered, and an order placed and cancelled in a later outage, with no fill, is still read back",
    () =>
      Effect.gen(function*() {
        const { alice, exchange, push, venue } = yield* context
        const orders = yield* collect(push.watchOrders({ symbols: [SYMBOL] }))
        yield* settle
        const resting = yield* exchange.placeOrder(alice, {
          symbol: SYMBOL,
          side: "buy",
          orderType: "limit",
          force: "normal",
          price: "25000.00",
          quantity: "0.01",
          clientOrderId: "resting"
        })
        assert.isTrue(resting.ok)
        yield* advance(2_000)
        // Another order, open and unfilled, created (so the push says) ten minutes ahead.
        const view = exchange.engine.orderList(alice).find((o) => o.clientOrderId === "resting")!
        const ahead = String(Number(view.cTime) + AHEAD)
        yield* venue.publish({
          _tag: "Order",
          userId: alice,
          order: { ...view, orderId: "1999999999999999999", clientOrderId: "ahead", cTime: ahead, uTime: ahead },
          time: Number(ahead)
        })
        yield* advance(2_000)
        assert.include(orders.items.map((o) => o.orderId), "1999999999999999999")
        const gone = yield* privateOutage(Effect.gen(function*() {
          const placed = yield* exchange.placeOrder(alice, {
            symbol: SYMBOL,
            side: "buy",
            orderType: "limit",
            force: "normal",
            price: "24000.00",
            quantity: "0.01",
            clientOrderId: "gone"
          })
          if (placed.ok) yield* exchange.cancelOrder(alice, { orderId: placed.orderId })
          return placed
        }))
        assert.isTrue(gone.ok)
        assert.include(
          orders.items.filter((o) => o.clientOrderId === "gone").map((o) => o.status),
          "cancelled",
          "the order of the outage is delivered in its final state"
        )
      }).pipe(Effect.provide(setup())),
    { timeout: 60_000 }
  )
})

describe("push: a trade pushed ahead of the venue's clock", () => {
  it.effect("is delivered, and the trades of a later outage still come from REST", () =>
    Effect.gen(function*() {
      const { alice, exchange, push, venue } = yield* context
      const events = yield* collect(push.events)
      const trades = yield* collect(push.watchTrades(SYMBOL))
      yield* advance(3_000)
      const clock = yield* Effect.clockWith((c) => c.currentTimeMillis)
      yield* venue.publish({
        _tag: "Trade",
        symbol: SYMBOL,
        time: clock + AHEAD,
        price: "30000.00",
        size: "0.001",
        value: "30.00",
        buyerMaker: false
      })
      yield* advance(2_000)
      assert.strictEqual(trades.items.length, 1)
      // An outage of the public connection, in which three trades are made.
      yield* venue.setFaults({ storm: true })
      yield* venue.dropAll
      yield* advance(2_000)
      for (let i = 0; i < 3; i++) {
        const placed = yield* exchange.placeOrder(alice, {
          symbol: SYMBOL,
          side: "buy",
          orderType: "market",
          force: "normal",
          quantity: "100",
          clientOrderId: `t${i}`
        })
        assert.isTrue(placed.ok)
        yield* advance(1_000)
      }
      yield* venue.setFaults({})
      yield* advance(60_000, 2_000)
      const made = (yield* exchange.trades).filter((t) => t.symbol === SYMBOL).length
      assert.isAtLeast(made, 3)
      assert.strictEqual(trades.items.filter((t) => t.source === "rest").length, made, "the outage's trades")
      assert.deepStrictEqual(events.items.filter((e) => e._tag === "Gap"), [])
    }).pipe(Effect.provide(setup())), { timeout: 60_000 })
})
