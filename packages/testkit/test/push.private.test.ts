/**
 * The private streams (`watchFills`, `watchOrders`, `watchBalances`) against the test exchange, in process under the
 * `TestClock`: every fill the exchange made for the account is delivered exactly once and every order and balance
 * ends as the engine has it, while connections drop, close, stall and duplicate frames — what happened while
 * disconnected comes from the REST backfill after each reconnection. A consumer too slow fails with a typed error;
 * a backfill the venue refuses for good fails the streams; a transient one reconnects and backfills again.
 */
import { assert, describe, it } from "@effect/vitest"
import { Push, SpotClient, Venue } from "@spotkit/core"
import { Deferred, Effect, Fiber, Layer, Stream } from "effect"
import { createHmac } from "node:crypto"
import { Fault, PushVenue, TestExchange } from "../src/index.ts"
import { advance, collect, engineBook, lastBook, settle, setup, SpotPush } from "./support/push.ts"
import { bodyOf, signedGet } from "./support/signed.ts"

const SYMBOL = "BTCUSDT_SPBL"

const context = Effect.gen(function*() {
  const exchange = yield* TestExchange.TestExchange
  const venue = yield* PushVenue.PushVenue
  const push = yield* SpotPush.SpotPush
  const [alice, bob] = exchange.accounts
  return { exchange, venue, push, alice: alice!.userId, bob: bob!.userId, engine: exchange.engine }
})

// Alice's trading: market buys and sells that fill against bob's book, and a limit order that rests, then is
// cancelled every third round.
const round = (i: number) =>
  Effect.gen(function*() {
    const { alice, exchange } = yield* context
    const side = i % 2 === 0 ? "buy" : "sell"
    yield* exchange.placeOrder(alice, {
      symbol: SYMBOL,
      side,
      orderType: "market",
      force: "normal",
      quantity: side === "buy" ? "1500" : "0.05",
      clientOrderId: `m-${i}`
    })
    const rest = yield* exchange.placeOrder(alice, {
      symbol: SYMBOL,
      side: "buy",
      orderType: "limit",
      force: "normal",
      price: `${29000 + i}.00`,
      quantity: "0.01",
      clientOrderId: `l-${i}`
    })
    if (i % 3 === 0 && rest.ok) yield* exchange.cancelOrder(alice, { orderId: rest.orderId })
  })

// What the streams ended with, against the engine.
const check = (
  fills: ReadonlyArray<SpotPush.Fill>,
  orders: ReadonlyArray<SpotPush.OrderUpdate>,
  balances: ReadonlyArray<SpotPush.Balance>
) =>
  Effect.gen(function*() {
    const { alice, engine } = yield* context
    const expected = engine.fillList(alice)
    const ids = fills.map((f) => f.fillId)
    // Every fill once: the same set, no duplicate.
    assert.strictEqual(new Set(ids).size, ids.length, "a fill was delivered twice")
    assert.deepStrictEqual([...ids].sort(), expected.map((f) => f.fillId).sort())
    for (const fill of fills) {
      const known = expected.find((f) => f.fillId === fill.fillId)!
      assert.strictEqual(fill.orderId, known.orderId)
      assert.strictEqual(fill.quantity, known.fillQuantity)
    }
    // Every order's last state is the engine's.
    const last = new Map<string, SpotPush.OrderUpdate>()
    for (const order of orders) last.set(order.orderId, order)
    for (const order of engine.orderList(alice)) {
      const seen = last.get(order.orderId)
      assert.isDefined(seen, `order ${order.clientOrderId} never delivered`)
      assert.strictEqual(seen!.status, order.status)
      assert.strictEqual(seen!.filledQuantity, order.fillQuantity)
    }
    // Every balance's last value is the engine's.
    const lastBalance = new Map<string, SpotPush.Balance>()
    for (const balance of balances) lastBalance.set(balance.coinName, balance)
    for (const balance of engine.spotBalances(alice)) {
      assert.strictEqual(lastBalance.get(balance.coinName)?.available, balance.available, balance.coinName)
      assert.strictEqual(lastBalance.get(balance.coinName)?.frozen, balance.frozen, balance.coinName)
    }
    return expected.length
  })

const streams = Effect.gen(function*() {
  const { push } = yield* context
  return {
    fills: yield* collect(push.watchFills({ symbols: [SYMBOL] })),
    orders: yield* collect(push.watchOrders({ symbols: [SYMBOL] })),
    balances: yield* collect(push.watchBalances())
  }
})

// A resting limit buy of alice's, placed in the exchange directly (no push consumer involved).
const resting = (symbol: string, price: string, quantity: string, clientOrderId: string) =>
  Effect.flatMap(
    context,
    ({ alice, exchange }) =>
      exchange.placeOrder(alice, {
        symbol,
        side: "buy",
        orderType: "limit",
        force: "normal",
        price,
        quantity,
        clientOrderId
      })
  )

describe("SpotPush private streams", () => {
  it.effect("start from the account as REST has it: the balances, the open orders", () =>
    Effect.gen(function*() {
      const { alice, engine, exchange } = yield* context
      yield* exchange.placeOrder(alice, {
        symbol: SYMBOL,
        side: "buy",
        orderType: "limit",
        force: "normal",
        price: "25000.00",
        quantity: "0.01",
        clientOrderId: "resting"
      })
      const { balances, fills, orders } = yield* streams
      yield* settle
      assert.deepStrictEqual(orders.items.map((o) => [o.clientOrderId, o.status, o.source]), [[
        "resting",
        "open",
        "rest"
      ]])
      assert.strictEqual(fills.items.length, 0)
      assert.deepStrictEqual(
        balances.items.map((b) => [b.coinName, b.available]).sort(),
        engine.spotBalances(alice).map((b) => [b.coinName, b.available]).sort()
      )
    }).pipe(Effect.provide(setup())))

  it.effect("a consumer that joins the running session with a symbol of its own gets that symbol's open orders", () =>
    Effect.gen(function*() {
      const { push } = yield* context
      yield* resting(SYMBOL, "25000.00", "0.01", "btc-resting")
      yield* resting("ETHUSDT_SPBL", "1500.00", "0.01", "eth-resting")
      // The session starts with a consumer that names no symbol (balances), then with one that names BTC.
      yield* collect(push.watchBalances())
      yield* settle
      const btc = yield* collect(push.watchOrders({ symbols: [SYMBOL] }))
      yield* settle
      assert.deepStrictEqual(btc.items.map((o) => [o.clientOrderId, o.status]), [["btc-resting", "open"]])
      // A consumer of ETH joins the live session: ETH's open orders come first; BTC's consumer gets them too, as new.
      const eth = yield* collect(push.watchOrders({ symbols: ["ETHUSDT_SPBL"] }))
      yield* settle
      assert.deepStrictEqual(eth.items.map((o) => o.clientOrderId).sort(), ["btc-resting", "eth-resting"])
      assert.deepStrictEqual(btc.items.map((o) => o.clientOrderId), ["btc-resting", "eth-resting"])
    }).pipe(Effect.provide(setup())))

  it.effect("so does one whose symbol the session knows only from pushes: its older open orders are read too", () =>
    Effect.gen(function*() {
      const { push } = yield* context
      yield* resting("ETHUSDT_SPBL", "1500.00", "0.01", "eth-old") // before the session: only REST knows it
      yield* collect(push.watchBalances())
      yield* settle
      yield* resting("ETHUSDT_SPBL", "1501.00", "0.01", "eth-new") // pushed: the session has seen ETH now
      yield* settle
      const eth = yield* collect(push.watchOrders({ symbols: ["ETHUSDT_SPBL"] }))
      yield* settle
      assert.deepStrictEqual(eth.items.map((o) => [o.clientOrderId, o.status]).sort(), [
        ["eth-new", "open"],
        ["eth-old", "open"]
      ])
    }).pipe(Effect.provide(setup())))

  it.effect("live: every fill once, orders and balances as the engine has them", () =>
    Effect.gen(function*() {
      const { balances, fills, orders } = yield* streams
      yield* settle
      for (let i = 0; i < 15; i++) {
        yield* round(i)
        yield* settle
      }
      const count = yield* check(fills.items, orders.items, balances.items)
      assert.isAtLeast(count, 15)
      assert.isTrue(fills.items.every((f) => f.source === "push"))
    }).pipe(Effect.provide(setup())))

  for (
    const [name, faults] of [
      ["dropped every 3 data frames, frames duplicated", { disconnect: 3, dup: 2 }],
      ["closed cleanly every 4 data frames", { close: 4 }],
      ["stalled after 5 data frames", { stall: 5 }]
    ] as const
  ) {
    it.effect(`gap-free while connections are ${name}`, () =>
      Effect.gen(function*() {
        const { venue } = yield* context
        const events = yield* collect((yield* SpotPush.SpotPush).events)
        const { balances, fills, orders } = yield* streams
        yield* settle
        yield* venue.setFaults(faults)
        for (let i = 0; i < 40; i++) {
          yield* round(i)
          yield* advance(3_000)
        }
        yield* venue.setFaults({})
        yield* advance(90_000, 5_000)
        const count = yield* check(fills.items, orders.items, balances.items)
        assert.isAtLeast(count, 40)
        const resynced = events.items.filter((e) => e._tag === "Resynced").length
        assert.isAtLeast(resynced, 3)
        // Some of the fills could only have come from the backfill.
        assert.isTrue(fills.items.some((f) => f.source === "rest"))
      }).pipe(Effect.provide(setup({ push: { idleTimeout: "10 seconds" } }))), {
      // 40 rounds of reconnections on the test clock: 1-3 s of CPU alone, beyond vitest's 5 s on a loaded machine.
      timeout: 30_000
    })
  }

  it.effect("what happens while disconnected comes from REST: fills, orders placed and cancelled, balances", () =>
    Effect.gen(function*() {
      const { alice, exchange, venue } = yield* context
      const { balances, fills, orders } = yield* streams
      yield* settle
      yield* venue.setFaults({ refuseAuth: true })
      yield* venue.dropAll
      for (let i = 0; i < 6; i++) yield* round(i)
      // An order placed and cancelled entirely during the outage, with no fill.
      const gone = yield* exchange.placeOrder(alice, {
        symbol: SYMBOL,
        side: "sell",
        orderType: "limit",
        force: "normal",
        price: "40000.00",
        quantity: "0.01",
        clientOrderId: "placed-and-cancelled"
      })
      assert.isTrue(gone.ok)
      if (gone.ok) yield* exchange.cancelOrder(alice, { orderId: gone.orderId })
      yield* advance(20_000)
      assert.strictEqual(fills.items.length, 0)
      yield* venue.setFaults({})
      yield* advance(40_000)
      yield* check(fills.items, orders.items, balances.items)
      assert.isTrue(fills.items.every((f) => f.source === "rest"))
      const cancelled = orders.items.filter((o) => o.clientOrderId === "placed-and-cancelled")
      assert.deepStrictEqual(cancelled.map((o) => o.status), ["cancelled"])
    }).pipe(Effect.provide(setup())))

  it.effect("faults at random (drops, closes, stalls, duplicates, lost depth changes): fills once, the book right", () =>
    Effect.gen(function*() {
      const { engine, venue } = yield* context
      const push = yield* SpotPush.SpotPush
      const { balances, fills, orders } = yield* streams
      const book = yield* collect(push.watchBook(SYMBOL))
      yield* settle
      // A seeded sequence of faults, one every four rounds.
      const menu: ReadonlyArray<PushVenue.Faults> = [
        { disconnect: 2 },
        { close: 3 },
        { stall: 2 },
        { dup: 1 },
        { gap: 2 },
        {},
        { disconnect: 5, dup: 2, gap: 3 }
      ]
      let seed = 24
      for (let i = 0; i < 60; i++) {
        if (i % 4 === 0) {
          seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648
          yield* venue.setFaults(menu[seed % menu.length]!)
        }
        yield* round(i)
        yield* advance(2_000, 500)
      }
      yield* venue.setFaults({})
      // A lost last depth change shows only with the next one: one more round, then quiet.
      yield* round(60)
      yield* advance(90_000, 5_000)
      yield* check(fills.items, orders.items, balances.items)
      const final = lastBook(book.items)!
      assert.deepStrictEqual({ bids: final.bids, asks: final.asks }, engineBook(engine, SYMBOL, 15))
      assert.isTrue(book.items.some((e) => e._tag === "Resync"))
      // The venue pings more often than the watchdog's timeout, so that a quiet connection lives.
    }).pipe(Effect.provide(setup({ push: { idleTimeout: "10 seconds" }, venue: { pingInterval: "4 seconds" } }))))

  it.effect("a fresh signature on every connection: reconnects go on long after a first timestamp expired", () =>
    Effect.gen(function*() {
      const { venue } = yield* context
      const events = yield* collect((yield* SpotPush.SpotPush).events)
      const { balances, fills, orders } = yield* streams
      for (let i = 0; i < 6; i++) {
        yield* advance(20_000)
        yield* round(i)
        yield* venue.dropAll
      }
      yield* advance(40_000)
      assert.strictEqual((yield* venue.stats).refused, 0)
      assert.isAtLeast(events.items.filter((e) => e._tag === "Resynced").length, 7)
      yield* check(fills.items, orders.items, balances.items)
    }).pipe(Effect.provide(setup())))

  it.effect("a symbol a consumer brings while a reconnection's backfill runs gets the outage's fills and orders", () =>
    Effect.gen(function*() {
      const { alice, engine, exchange, push, venue } = yield* context
      const btc = yield* collect(push.watchFills({ symbols: [SYMBOL] }))
      const orders = yield* collect(push.watchOrders({ symbols: [SYMBOL] }))
      yield* settle
      // An outage in which alice trades BTC, and ETH — a symbol no consumer has brought yet, never pushed.
      yield* venue.setFaults({ refuseAuth: true })
      yield* venue.dropAll
      yield* round(0)
      yield* exchange.placeOrder(alice, {
        symbol: "ETHUSDT_SPBL",
        side: "buy",
        orderType: "market",
        force: "normal",
        quantity: "100",
        clientOrderId: "eth-buy"
      })
      yield* advance(20_000)
      // The venue takes alice back; the backfill's fills read answers late. While it is under way, a consumer of ETH
      // joins (the backfill's list of symbols is taken by then).
      yield* exchange.clearRequests
      yield* exchange.injectFault({ fault: Fault.latency(2_000), path: Venue.endpoints.fills.path, times: 1 })
      yield* venue.setFaults({})
      const waiting = Effect.map(
        exchange.requests,
        (list) => list.some((r) => r.path === Venue.endpoints.fills.path && r.fault === "Latency")
      )
      for (let i = 0; i < 600 && !(yield* waiting); i++) yield* advance(100, 100)
      assert.isTrue(yield* waiting, "the backfill's fills read is under way")
      const eth = yield* collect(push.watchFills({ symbols: ["ETHUSDT_SPBL"] }))
      yield* advance(20_000)
      const ethFills = engine.fillList(alice).filter((f) => f.symbol === "ETHUSDT_SPBL").map((f) => f.fillId)
      assert.isAbove(ethFills.length, 0)
      // ETH's fills of the outage are read back as they would be had it joined a moment earlier, for every consumer.
      const ofEth = eth.items.filter((f) => f.symbol === "ETHUSDT_SPBL").map((f) => f.fillId)
      assert.deepStrictEqual(ofEth.sort(), [...ethFills].sort())
      assert.includeMembers(btc.items.map((f) => f.fillId), ethFills)
      assert.include(orders.items.map((o) => o.clientOrderId), "eth-buy")
    }).pipe(Effect.provide(setup())))

  it.effect("a symbol a consumer brings just after a reconnection's backfill ended gets the outage's fills too", () =>
    Effect.gen(function*() {
      const { alice, engine, exchange, push, venue } = yield* context
      const btc = yield* collect(push.watchFills({ symbols: [SYMBOL] }))
      yield* settle
      yield* advance(2_000)
      // An outage in which alice buys ETH, a symbol no consumer brought and none pushed yet.
      yield* venue.setFaults({ refuseAuth: true })
      yield* venue.dropAll
      yield* advance(2_000)
      const placed = yield* exchange.placeOrder(alice, {
        symbol: "ETHUSDT_SPBL",
        side: "buy",
        orderType: "market",
        force: "normal",
        quantity: "100",
        clientOrderId: "eth-buy"
      })
      assert.isTrue(placed.ok)
      yield* venue.setFaults({})
      // The backfill runs and ends without ETH; a moment later a consumer of ETH joins.
      yield* advance(30_000, 1_000)
      const eth = yield* collect(push.watchFills({ symbols: ["ETHUSDT_SPBL"] }))
      yield* advance(20_000, 1_000)
      const owed = engine.fillList(alice).filter((f) => f.symbol === "ETHUSDT_SPBL").map((f) => f.fillId)
      assert.isAbove(owed.length, 0)
      // Read back from the session's start, as had it joined during the backfill, for every consumer, once.
      assert.deepStrictEqual(eth.items.map((f) => f.fillId).sort(), [...owed].sort())
      assert.deepStrictEqual(
        btc.items.filter((f) => f.symbol === "ETHUSDT_SPBL").map((f) => f.fillId).sort(),
        [...owed].sort()
      )
    }).pipe(Effect.provide(setup())))

  it.effect("a consumer that falls a buffer behind fails with SlowConsumerError; others go on", () =>
    Effect.gen(function*() {
      const { push } = yield* context
      const gate = yield* Deferred.make<void>()
      const slow = yield* Effect.forkChild(Effect.flip(Stream.runForEach(
        push.watchFills({ symbols: [SYMBOL] }),
        () => Deferred.await(gate)
      )))
      const fast = yield* collect(push.watchFills({ symbols: [SYMBOL] }))
      yield* settle
      for (let i = 0; i < 6; i++) {
        yield* round(i)
        yield* settle
      }
      // Past the grace a consumer has to take what waits for it: still blocked, it is behind.
      yield* advance(2_000)
      yield* Deferred.succeed(gate, undefined)
      const error = yield* Fiber.join(slow)
      assert.strictEqual(error.reason._tag, "SlowConsumerError")
      assert.isAtLeast(fast.items.length, 6)
    }).pipe(Effect.provide(setup({ push: { bufferSize: 3 } }))))

  // What one read of the socket holds is handed over before a consumer can take any of it: a consumer that keeps up
  // gets a burst of many times its queue whole and in order, and goes on.
  it.effect("a burst of many times bufferSize reaches a consumer that keeps up whole and in order; it goes on", () =>
    Effect.gen(function*() {
      const { alice, exchange, push } = yield* context
      const orders = yield* collect(push.watchOrders({ symbols: [SYMBOL] }))
      yield* settle
      // 40 orders resting on the book, placed in one go (nothing yields between them): their pushes come together.
      const placed: Array<string> = []
      for (let i = 0; i < 40; i++) {
        const rest = yield* exchange.placeOrder(alice, {
          symbol: SYMBOL,
          side: "buy",
          orderType: "limit",
          force: "normal",
          price: `${20000 + i}.00`,
          quantity: "0.01",
          clientOrderId: `burst-${i}`
        })
        if (rest.ok) placed.push(rest.orderId)
      }
      assert.strictEqual(placed.length, 40)
      yield* settle
      assert.deepStrictEqual(orders.items.map((o) => o.orderId), placed)
      assert.isUndefined(orders.fiber.pollUnsafe(), "the orders stream still runs")
      yield* round(0)
      yield* settle
      assert.include(orders.items.map((o) => o.clientOrderId), "m-0")
    }).pipe(Effect.provide(setup({ push: { bufferSize: 8 } }))))

  // A burst the consumer is still taking when the connection drops waits in the overflow, each push with the grace to be
  // taken; the catch-up's records must go behind it in order, yet with no such limit, as `bufferSize` says.
  for (const drained of [true, false]) {
    it.effect(
      `a catch-up's records reach a consumer that keeps up whole and in order, the burst before the drop ${
        drained ? "taken" : "still waiting"
      }`,
      () =>
        Effect.gen(function*() {
          const { alice, exchange, push, venue } = yield* context
          // One order update every 10 ms (100 a second), steadily.
          const taken: Array<string> = []
          const consumer = yield* Effect.forkChild(Stream.runForEach(
            push.watchOrders({ symbols: [SYMBOL] }),
            (order) =>
              Effect.andThen(Effect.sync(() => taken.push(order.clientOrderId ?? "")), Effect.sleep("10 millis"))
          ))
          yield* advance(3_000, 100)
          const place = (from: number, to: number) =>
            Effect.forEach(Array.from({ length: to - from }, (_, i) => from + i), (k) =>
              Effect.flatMap(
                exchange.placeOrder(alice, {
                  symbol: SYMBOL,
                  side: "buy",
                  orderType: "limit",
                  force: "normal",
                  price: `${20000 + k}.00`,
                  quantity: "0.001",
                  clientOrderId: `o${k}`
                }),
                (placed) => Effect.sync(() => assert.isTrue(placed.ok))
              ), { discard: true })
          // 60 pushes at once: 0.6 s of the consumer's pace, within the grace of the last one.
          yield* place(0, 60)
          yield* settle
          if (drained) yield* advance(3_000, 10)
          // The connection drops; 300 orders are placed while it is down, for the catch-up to read.
          yield* venue.dropAll
          yield* place(60, 360)
          yield* advance(8_000, 10)
          assert.isUndefined(consumer.pollUnsafe(), "the consumer failed (SlowConsumerError) though it keeps up")
          const expected = Array.from({ length: 360 }, (_, k) => `o${k}`)
          // The burst first, as pushed; then the outage's orders (REST's order among them), each once.
          assert.deepStrictEqual(taken.slice(0, 60), expected.slice(0, 60))
          assert.deepStrictEqual([...taken].sort(), [...expected].sort())
        }).pipe(Effect.provide(setup({ push: { bufferSize: 2 } }))),
      { timeout: 120_000 }
    )
  }

  it.effect("a symbol the venue does not list fails the stream that names it, not the session the others share", () =>
    Effect.gen(function*() {
      const { push } = yield* context
      const fills = yield* collect(push.watchFills())
      yield* settle
      const error = yield* Effect.flip(Stream.runDrain(push.watchOrders({ symbols: ["NOPEUSDT_SPBL"] })))
      assert.strictEqual(error.reason._tag, "ValidationError")
      assert.include(error.message, "NOPEUSDT_SPBL")
      // The fills stream goes on: alice's next trade is pushed to it.
      yield* round(0)
      yield* settle
      assert.isAbove(fills.items.length, 0)
      assert.isUndefined(fills.fiber.pollUnsafe(), "the fills stream still runs")
    }).pipe(Effect.provide(setup())))

  it.effect("a backfill refused for good (a key without read permission) fails the streams with BackfillError", () =>
    Effect.gen(function*() {
      const { push } = yield* context
      const error = yield* Effect.flip(Stream.runDrain(push.watchBalances()))
      assert.strictEqual(error.reason._tag, "BackfillError")
      assert.include(error.message, "permission")
    }).pipe(Effect.provide(setup({
      exchange: {
        ...TestExchange.demo({ bills: 0 }),
        rateLimits: false,
        accounts: [
          {
            ...TestExchange.demo().accounts![0]!,
            bills: undefined,
            keys: [{ ...TestExchange.demoKeys.alice, permissions: ["trade"] }]
          },
          TestExchange.demo().accounts![1]!
        ]
      }
    }))))

  it.effect("a backfill that fails for a while reconnects and backfills again", () =>
    Effect.gen(function*() {
      const { exchange, push } = yield* context
      const events = yield* collect(push.events)
      yield* exchange.injectFault({ fault: Fault.httpError(503), path: Venue.endpoints.balances.path, times: 2 })
      const balances = yield* collect(push.watchBalances())
      yield* advance(10_000)
      assert.isTrue(events.items.some((e) => e._tag === "Disconnected" && e.reason.includes("backfill")))
      assert.isAbove(balances.items.length, 0)
      assert.strictEqual(events.items.filter((e) => e._tag === "Resynced").length, 1)
    }).pipe(Effect.provide(setup({ client: { retry: false } }))))

  it.effect("private streams need credentials", () =>
    Effect.gen(function*() {
      const push = yield* SpotPush.make({ url: "ws://exchange.test" })
      const error = yield* Effect.flip(Stream.runDrain(push.watchOrders()))
      assert.strictEqual(error.reason._tag, "ValidationError")
    }).pipe(Effect.provide(PushVenue.layerWebSocketConstructor), Effect.provide(setup())))
})

// A raw private connection signed with a key, subscribed to `channel`: whether it opened, and the frames it got.
const connectPrivate = (venue: PushVenue.Service, key: TestExchange.KeySpec, channel: string) =>
  Effect.gen(function*() {
    const timestamp = String(venue.venue.now())
    const sign = createHmac("sha256", key.secretKey).update(Push.prehash(timestamp)).digest("base64")
    const ws = venue.webSocket("ws://exchange.test/v2/ws/private", {
      headers: {
        [Push.headers.key]: key.apiKey,
        [Push.headers.passphrase]: key.passphrase,
        [Push.headers.timestamp]: timestamp,
        [Push.headers.sign]: sign
      }
    })
    const seen = { opened: false, frames: [] as Array<string> }
    ws.addEventListener("open", () => (seen.opened = true))
    ws.addEventListener("message", (event) => seen.frames.push(String(event.data)))
    yield* settle
    if (seen.opened) ws.send(JSON.stringify({ event: "subscribe", channel }))
    yield* settle
    return seen
  })

describe("the private handshake's keys", () => {
  const first = { apiKey: "first-key", secretKey: "first-secret", passphrase: "first-pass" }
  const second = {
    apiKey: "second-key",
    secretKey: "second-secret",
    passphrase: "second-pass",
    permissions: ["read"] as const
  }
  const later = { apiKey: "later-key", secretKey: "later-secret", passphrase: "later-pass" }
  const exchange = TestExchange.layer({ accounts: [{ keys: [first, second] }], rateLimits: false })

  it.effect("every key REST accepts opens it, for its own user: an account's second key, one added since", () =>
    Effect.gen(function*() {
      const exchange = yield* TestExchange.TestExchange
      const venue = yield* PushVenue.PushVenue
      const added = yield* exchange.addAccount({ keys: [later] })
      const owner = exchange.accounts[0]!.userId
      const keys: ReadonlyArray<readonly [TestExchange.KeySpec, string]> = [
        [first, owner],
        [second, owner],
        [later, added.userId]
      ]
      for (const [key, userId] of keys) {
        const now = venue.venue.now()
        const rest = exchange.handleAt(signedGet(key, Venue.endpoints.balances.path, now), now)
        assert.strictEqual(JSON.parse(bodyOf(rest)).code, "00000", key.apiKey)
        const seen = yield* connectPrivate(venue, key, "account")
        assert.isTrue(seen.opened, `${key.apiKey}: the handshake was refused`)
        // Its user's pushes reach it.
        yield* exchange.deposit(userId, "SPOT", "USDT", "1")
        yield* settle
        assert.isTrue(seen.frames.some((frame) => frame.includes("accountAsset")), key.apiKey)
      }
      // A key no one has is still refused.
      const unknown = yield* connectPrivate(venue, { ...later, apiKey: "nobody" }, "account")
      assert.isFalse(unknown.opened)
    }).pipe(Effect.provide(PushVenue.layer().pipe(Layer.provideMerge(exchange)))))
})

describe("orders pushes", () => {
  it.effect("timeInForce: IOC for a market order, whatever force it was sent with; the force's for a limit order", () =>
    Effect.gen(function*() {
      const { alice, exchange, venue } = yield* context
      const raw = yield* connectPrivate(venue, TestExchange.demoKeys.alice, "orders")
      assert.isTrue(raw.opened)
      const market = { symbol: SYMBOL, orderType: "market", force: "normal" } as const
      yield* exchange.placeOrder(alice, { ...market, side: "buy", quantity: "100", clientOrderId: "mb" })
      yield* exchange.placeOrder(alice, { ...market, side: "sell", quantity: "0.001", clientOrderId: "ms" })
      const limit = { symbol: SYMBOL, side: "buy", orderType: "limit", price: "29000.00", quantity: "0.01" } as const
      yield* exchange.placeOrder(alice, { ...limit, force: "normal", clientOrderId: "gtc" })
      yield* exchange.placeOrder(alice, { ...limit, force: "postOnly", clientOrderId: "post" })
      yield* exchange.placeOrder(alice, { ...limit, force: "ioc", clientOrderId: "ioc" })
      yield* exchange.placeOrder(alice, { ...limit, force: "fok", clientOrderId: "fok" })
      yield* settle
      const pushed = new Map<string, string>()
      for (const frame of raw.frames) {
        const decoded = Push.decodeFrame(frame)
        if (decoded?._tag !== "TradeEvent" || decoded.channel !== "orders") continue
        for (const item of Push.privateItems("orders", decoded.data) as Array<Record<string, string>>) {
          pushed.set(item.clientOrderId!, `${item.type} ${item.timeInForce}`)
        }
      }
      assert.deepStrictEqual(Object.fromEntries(pushed), {
        mb: "MARKET IOC",
        ms: "MARKET IOC",
        gtc: "LIMIT GTC",
        post: "LIMIT POST_ONLY",
        ioc: "LIMIT IOC",
        fok: "LIMIT FOK"
      })
    }).pipe(Effect.provide(setup())))
})

describe("layerSpotPush as another user than alice", () => {
  // bob's REST client, and a push session over it (`user` given to both presets, or to the client only).
  const bobsClient = TestExchange.layerSpotClient({
    exchange: { ...TestExchange.demo({ bills: 0 }), rateLimits: false },
    user: "bob"
  })
  const overBob = (options?: Parameters<typeof PushVenue.layerSpotPush>[0]) =>
    PushVenue.layerSpotPush(options).pipe(Layer.provideMerge(PushVenue.layer()), Layer.provideMerge(bobsClient))

  // alice buys from bob's asks: each trade is a fill of hers and one of his; the session hears his only.
  const hearsBobsFills = Effect.gen(function*() {
    const { alice, bob, engine, exchange, push } = yield* context
    const fills = yield* collect(push.watchFills({ symbols: [SYMBOL] }))
    yield* settle
    yield* exchange.placeOrder(alice, {
      symbol: SYMBOL,
      side: "buy",
      orderType: "market",
      force: "normal",
      quantity: "20000",
      clientOrderId: "alice-takes"
    })
    yield* advance(2_000)
    const bobs = engine.fillList(bob).map((fill) => fill.fillId)
    assert.isAbove(bobs.length, 0)
    assert.deepStrictEqual(fills.items.map((fill) => fill.fillId).sort(), [...bobs].sort())
    assert.isTrue(fills.items.every((fill) => fill.source === "push"))
  })

  it.effect("user: \"bob\" signs the push session in as bob: his fills are pushed, not alice's", () =>
    hearsBobsFills.pipe(Effect.provide(overBob({ user: "bob" }))))

  it.effect("with no user, the session signs in as the preset client's user: bob's fills over bob's client", () =>
    hearsBobsFills.pipe(Effect.provide(overBob())))

  // The session backfills through the client: alice's pushes and bob's REST answers would be reported as one user's.
  it.effect("a user other than the client's fails the layer, naming both", () =>
    Effect.gen(function*() {
      const exchange = yield* TestExchange.TestExchange
      const [alice, bob] = exchange.accounts
      const error = yield* Effect.flip(Layer.build(PushVenue.layerSpotPush({ user: "alice" })))
      assert.include(error.message, `alice (user ${alice!.userId})`)
      assert.include(error.message, `acts as user ${bob!.userId}`)
      const byIndex = yield* Effect.flip(Layer.build(PushVenue.layerSpotPush({ user: 0 })))
      assert.include(byIndex.message, "same user as layerSpotClient")
    }).pipe(Effect.scoped, Effect.provide(PushVenue.layer().pipe(Layer.provideMerge(bobsClient)))))

  it.effect("credentials of another user than the client's fail the layer", () =>
    Effect.gen(function*() {
      const exchange = yield* TestExchange.TestExchange
      const credentials = exchange.accounts[0]!.credentials
      const error = yield* Effect.flip(Layer.build(PushVenue.layerSpotPush({ credentials })))
      assert.include(error.message, `sign in as user ${exchange.accounts[0]!.userId}`)
    }).pipe(Effect.scoped, Effect.provide(PushVenue.layer().pipe(Layer.provideMerge(bobsClient)))))

  it.effect("a user the exchange does not have fails the layer", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(Layer.build(PushVenue.layerSpotPush({ user: 5 })))
      assert.isTrue(exit._tag === "Failure" && String(exit.cause).includes("no account to act as 5"))
    }).pipe(Effect.scoped, Effect.provide(setup())))
})

// bob sells into alice's resting bid at 29999.00 (0.05), part of it: one fill of alice's, as maker.
const quote = { symbol: SYMBOL, side: "buy", orderType: "limit", price: "29999.00", quantity: "0.05" } as const
const bobTakesPart = (exchange: TestExchange.Service, bob: string) =>
  exchange.placeOrder(bob, { ...quote, side: "sell", force: "ioc", quantity: "0.01", clientOrderId: "bob-1" })

// alice's fills and the connections' events collected, and her bid resting.
const quoting = Effect.gen(function*() {
  const { bob, exchange, push, venue } = yield* context
  const client = yield* SpotClient.SpotClient
  const fills = yield* collect(push.watchFills({ symbols: [SYMBOL] }))
  const events = yield* collect(push.events)
  yield* settle
  yield* client.placeOrder(quote)
  return { bob, client, events, exchange, fills, venue }
})

// A fill made on an open connection while the session's backfill was on its way (held behind a 429's pause of the
// client's budget, here) is delivered once, as pushed: its role and `source: "push"`, not REST's copy of it.
describe("a fill pushed while the backfill is under way", () => {
  it.effect("is delivered as pushed, once, when the backfill ends", () =>
    Effect.gen(function*() {
      const { bob, client, events, exchange, fills, venue } = yield* quoting
      yield* advance(2_000, 100)
      // One 429 to a signed call: the client's user budget pauses for a window (10 s), the backfill's reads with it.
      yield* exchange.injectFault({ fault: Fault.rateLimited, path: Venue.endpoints.balances.path, times: 1 })
      yield* Effect.forkChild(client.balances(), { startImmediately: true })
      yield* settle
      yield* venue.dropAll
      yield* advance(500, 100)
      const connected = events.items.filter((e) => e._tag === "Connected" && e.endpoint === "private")
      assert.strictEqual(connected.length, 2, "the private connection is open again")
      // bob takes part of the quote: pushed at once on the open connection, while the backfill waits.
      yield* bobTakesPart(exchange, bob)
      yield* advance(12_000, 500)
      assert.strictEqual(fills.items.length, 1, "delivered once")
      assert.strictEqual(fills.items[0]!.source, "push")
      assert.strictEqual(fills.items[0]!.role, "maker")
    }).pipe(Effect.provide(setup({ client: { rateLimit: {} } }))))
})

// A backfill's read answered with a code the client does not know (under a 4xx) may be the venue's passing trouble:
// the private session reconnects and backfills again, as for a 5xx; its streams go on and miss nothing.
describe("a backfill's read answered with an unknown venue code", () => {
  it.effect("does not end the private streams: the session backfills again and the next fill is delivered", () =>
    Effect.gen(function*() {
      const { bob, events, exchange, fills, venue } = yield* quoting
      yield* advance(1_000, 100)
      yield* exchange.injectFault({
        fault: Fault.venueError("50001", "system busy, try again", 400),
        path: Venue.endpoints.fills.path,
        times: 1
      })
      yield* venue.dropAll
      yield* advance(5_000, 100)
      yield* bobTakesPart(exchange, bob)
      yield* advance(5_000, 100)
      assert.isUndefined(fills.fiber.pollUnsafe(), "watchFills goes on")
      assert.strictEqual(fills.items.length, 1)
      const lost = events.items.filter((e) => e._tag === "Disconnected" && e.endpoint === "private")
      assert.isTrue(lost.some((e) => e._tag === "Disconnected" && e.reason.includes("50001")), "backfilled again")
    }).pipe(Effect.provide(setup())))
})
