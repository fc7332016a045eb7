/**
 * The private session on its own, with a REST side written here: pushes that arrive before all three channels are
 * acknowledged and while the backfill runs are buffered and merged after the REST records (a fill known to both once);
 * an account push older than one applied is ignored; a backfill that answers after its connection ended is dropped;
 * the buffer's limit reconnects.
 */
import { assert, describe, it } from "@effect/vitest"
import { Clock, Deferred, Effect, Fiber, Queue, Scope } from "effect"
import type { Cause } from "effect"
import { TestClock } from "effect/testing"
import { Push, SpotError } from "../src/index.ts"
import type { PushError } from "../src/index.ts"
import type * as Model from "../src/internal/push/model.ts"
import { makeOverflow } from "../src/internal/push/overflow.ts"
import { PrivateSession } from "../src/internal/push/private.ts"
import { readOpenOrders, type Rest, restOf } from "../src/internal/push/privateRest.ts"
import type { Control, DataFrame } from "../src/internal/push/subscriptions.ts"
import { OPEN_ORDERS, ScriptedVenue, SYMBOL, withClient } from "./support/FakeVenue.ts"

const fill = (id: string, time: number): Model.Fill => ({
  fillId: id,
  orderId: "9",
  symbol: "BTCUSDT_SPBL",
  side: "buy",
  quantity: "1",
  value: "10",
  fee: "0",
  role: undefined,
  time,
  source: "rest"
})

const rest = (fills: ReadonlyArray<Model.Fill>, calls: Array<string>, available = "1"): Rest => ({
  balances: Effect.sync(() => {
    calls.push("balances")
    return [{ coinId: "1", coinName: "BTC", available, frozen: "0", equity: available, source: "rest" }]
  }),
  openOrders: () => Effect.succeed([]),
  ordersAfter: () => Effect.succeed([]),
  fillsAfter: (_symbol, after) =>
    Effect.sync(() => {
      calls.push(`fills>${after}`)
      return fills
    }),
  order: () => Effect.succeed(undefined)
})

const frame = (channel: string, version: number, data: unknown): DataFrame => {
  const decoded = Push.decodeFrame(
    Push.frames.tradeEvent(channel, { msgEvent: "OrderUpdate", version, time: 100, data })
  )
  return decoded as DataFrame
}

// A pushed fill of a symbol at a time, of its own order unless one is given.
const pushedFillOf = (id: string, symbolName: string, time: number, orderId = id) =>
  frame("fill", 1, {
    orderFillTransaction: [{
      id,
      symbolName,
      orderId,
      orderSide: "BUY",
      fillSize: "1",
      fillValue: "10",
      fillFee: "0",
      direction: "TAKER",
      createdTime: String(time)
    }]
  })

// A pushed BTC fill of order 9 at time 100.
const pushedFill = (id: string) => pushedFillOf(id, "BTCUSDT_SPBL", 100, "9")

// A pushed new limit order of a symbol, created and updated at a time.
const pushedOrderOf = (id: string, symbolName: string, time: number) =>
  frame("orders", 1, {
    orderInfo: [{
      id,
      symbolName,
      orderSide: "BUY",
      type: "LIMIT",
      status: "NEW",
      price: "1",
      size: "1",
      cumFillSize: "0",
      createdTime: String(time),
      updatedTime: String(time)
    }]
  })

const asset = (version: number, available: string, coinId = 1) =>
  frame("account", version, {
    accountAsset: [{ coinId, coinName: coinId === 1 ? "BTC" : "USDT", available, frozen: "0", equity: available }]
  })

const drain = <A>(queue: Queue.Queue<A, PushError.PushErrorReason | Cause.Done>): Array<A> => {
  const out: Array<A> = []
  for (let taken = Queue.takeUnsafe(queue); taken !== undefined; taken = Queue.takeUnsafe(queue)) {
    if (taken._tag === "Success") out.push(taken.value)
  }
  return out
}

const setup = (
  fills: ReadonlyArray<Model.Fill>,
  options: {
    readonly bufferLimit?: number
    readonly available?: string
    readonly rest?: Rest
    readonly emit?: (event: Model.Event) => void
  } = {}
) =>
  Effect.gen(function*() {
    const calls: Array<string> = []
    const reconnects: Array<string> = []
    const control: Control = {
      resync: () => undefined,
      resyncNow: () => Effect.void,
      reconnect: (reason) => reconnects.push(reason)
    }
    const now = yield* Clock.clockWith((clock) => Effect.succeed(() => clock.currentTimeMillisUnsafe()))
    const session = new PrivateSession({
      rest: options.rest ?? rest(fills, calls, options.available),
      now,
      // The venue's clock well ahead of the times these tests push (at most seconds): none is stamped in the future.
      clockOffset: Effect.succeed(1_000_000),
      since: 50,
      symbols: ["BTCUSDT_SPBL"],
      capacity: 100,
      bufferLimit: options.bufferLimit ?? 100,
      overflow: yield* makeOverflow(),
      overlapMillis: 5,
      retentionMillis: 1_000,
      emit: options.emit ?? (() => undefined),
      onFailed: Effect.void
    })
    const fillSink = yield* Queue.bounded<Model.Fill, PushError.PushErrorReason | Cause.Done>(100)
    const balanceSink = yield* Queue.bounded<Model.Balance, PushError.PushErrorReason | Cause.Done>(100)
    session.fillSinks.add(fillSink)
    session.attachBalances(balanceSink)
    const scope = yield* Scope.make()
    const activate = Effect.forEach(
      ["orders", "fill", "account"],
      (channel) => session.onActive(channel, scope, control)
    )
    return { session, calls, reconnects, control, fillSink, balanceSink, scope, activate }
  })

describe("push private session", () => {
  it.effect("buffers until the backfill merged; a fill known to REST and push is delivered once, as pushed", () =>
    Effect.gen(function*() {
      const { balanceSink, calls, control, fillSink, scope, session } = yield* setup([fill("1", 90), fill("2", 95)])
      // From the first acknowledgement on, pushes are kept until the backfill merged.
      yield* session.onActive("fill", scope, control)
      session.onFrame(pushedFill("2"), control)
      session.onFrame(pushedFill("3"), control)
      yield* Effect.yieldNow
      assert.deepStrictEqual(drain(fillSink), [])
      yield* session.onActive("orders", scope, control)
      yield* session.onActive("account", scope, control)
      yield* Effect.yieldNow
      // "2" was pushed while REST's answer was on its way: delivered as the push (its role), not as REST's copy.
      assert.deepStrictEqual(drain(fillSink).map((f) => [f.fillId, f.source]), [["1", "rest"], ["2", "push"], [
        "3",
        "push"
      ]])
      assert.deepStrictEqual(calls, ["balances", "fills>45"])
      assert.deepStrictEqual(drain(balanceSink).map((b) => b.available), ["1"])
      // Live now: a push is merged at once, once.
      session.onFrame(pushedFill("3"), control)
      session.onFrame(pushedFill("4"), control)
      assert.deepStrictEqual(drain(fillSink).map((f) => f.fillId), ["4"])
    }))

  it.effect("a fill pushed with a side neither buy nor sell replaces the connection (REST reads it back), undelivered", () =>
    Effect.gen(function*() {
      const { activate, control, fillSink, reconnects, session } = yield* setup([])
      yield* activate
      yield* Effect.yieldNow
      const both = frame("fill", 1, {
        orderFillTransaction: [{
          id: "5",
          symbolName: "BTCUSDT_SPBL",
          orderId: "9",
          orderSide: "BOTH",
          fillSize: "1",
          fillValue: "10",
          fillFee: "0",
          createdTime: "100"
        }]
      })
      session.onFrame(both, control)
      assert.deepStrictEqual(reconnects, ["an undecodable fill push"])
      session.onFrame(pushedFill("6"), control)
      assert.deepStrictEqual(drain(fillSink).map((f) => [f.fillId, f.side]), [["6", "buy"]])
    }))

  it.effect("an account push without equity has it as available + frozen; the same balance from REST is no news", () =>
    Effect.gen(function*() {
      const { activate, balanceSink, control, session } = yield* setup([], { available: "5" })
      const down = Effect.forEach(["orders", "fill", "account"], (channel) => session.onInactive(channel))
      yield* activate
      yield* Effect.yieldNow
      // The coin moves by push, with no equity in the pushes, and back to where REST had it.
      const pushed = (version: number, available: string, frozen: string) =>
        frame("account", version, { accountAsset: [{ coinId: 1, coinName: "BTC", available, frozen }] })
      session.onFrame(pushed(1, "4", "0.5"), control)
      session.onFrame(pushed(2, "5", "0"), control)
      assert.deepStrictEqual(drain(balanceSink).map((b) => [b.available, b.equity, b.source]), [
        ["5", "5", "rest"],
        ["4", "4.5", "push"],
        ["5", "5", "push"]
      ])
      // Reconnections: REST's balance, equity included, is the one known: not delivered again.
      for (let i = 0; i < 3; i++) {
        yield* down
        yield* activate
        yield* Effect.yieldNow
      }
      assert.deepStrictEqual(drain(balanceSink), [])
    }))

  it.effect("an account push older than one applied does not undo it", () =>
    Effect.gen(function*() {
      const { activate, balanceSink, control, session } = yield* setup([])
      yield* activate
      yield* Effect.yieldNow
      drain(balanceSink)
      session.onFrame(asset(7, "2"), control)
      session.onFrame(asset(6, "3"), control)
      session.onFrame(asset(7, "3"), control)
      session.onFrame(asset(8, "4"), control)
      assert.deepStrictEqual(drain(balanceSink).map((b) => b.available), ["2", "4"])
    }))

  it.effect("an account push buffered before the balances were asked for is superseded by REST's answer", () =>
    Effect.gen(function*() {
      // The balance went 1 → 2 → 3 (versions 5 and 6) before the backfill asked REST, which answers 3.
      const { balanceSink, control, scope, session } = yield* setup([], { available: "3" })
      yield* session.onActive("fill", scope, control)
      session.onFrame(asset(5, "2"), control)
      session.onFrame(asset(6, "3"), control)
      // A coin REST's answer (the whole account) leaves out is at zero then: its older push is not delivered either.
      session.onFrame(asset(7, "7", 2), control)
      session.onFrame(asset(6, "3"), control)
      yield* session.onActive("orders", scope, control)
      yield* session.onActive("account", scope, control)
      yield* Effect.yieldNow
      // The consumer gets the state once, never the older 2 after it nor the same 3 again.
      assert.deepStrictEqual(drain(balanceSink).map((b) => [b.coinId, b.available, b.source]), [["1", "3", "rest"]])
      // Live: a repeat of the versions merged is ignored, a newer one counts.
      session.onFrame(asset(7, "3"), control)
      session.onFrame(asset(8, "4"), control)
      assert.deepStrictEqual(drain(balanceSink).map((b) => b.available), ["4"])
    }))

  it.effect("account pushes that arrive while the balances are asked for never take a balance back", () =>
    Effect.gen(function*() {
      // The balance goes 100 → 90 → 80 (versions 5, 6); both pushes arrive while REST's answer is on its way.
      const answer = (available: string) =>
        Effect.gen(function*() {
          const gate = yield* Deferred.make<void>()
          const { balanceSink, control, scope, session } = yield* setup([], {
            rest: {
              ...rest([], []),
              balances: Effect.as(Deferred.await(gate), [{
                coinId: "1",
                coinName: "BTC",
                available,
                frozen: "0",
                equity: available,
                source: "rest" as const
              }])
            }
          })
          yield* Effect.forEach(["orders", "fill", "account"], (channel) => session.onActive(channel, scope, control))
          yield* Effect.yieldNow
          session.onFrame(asset(5, "90"), control)
          session.onFrame(asset(6, "80"), control)
          // A coin REST does not list: its pushes are all there is.
          session.onFrame(asset(7, "7", 2), control)
          yield* Deferred.succeed(gate, undefined)
          for (let i = 0; i < 3; i++) yield* Effect.yieldNow
          return drain(balanceSink).map((b) => `${b.coinId} ${b.available} ${b.source}`)
        })
      // REST answered after both changes: its 80 once, never the older 90 after it (nor 80 again).
      assert.deepStrictEqual(yield* answer("80"), ["1 80 rest", "2 7 push"])
      // REST answered between them: its 90, then the newer 80; no intermediate state is shown.
      assert.deepStrictEqual(yield* answer("90"), ["1 90 rest", "1 80 push", "2 7 push"])
    }))

  it.effect("a coin REST's answer no longer lists (a venue that omits zero balances) is delivered as zero, once", () =>
    Effect.gen(function*() {
      const coin = (coinId: string, available: string): Model.Balance => ({
        coinId,
        coinName: coinId === "1" ? "BTC" : "USDT",
        available,
        frozen: "0",
        equity: available,
        source: "rest"
      })
      // First answer: BTC 1, USDT 5. Then USDT is spent to zero while disconnected, and the venue leaves it out.
      const answers = [[coin("1", "1"), coin("2", "5")], [coin("1", "2")], [coin("1", "2")]]
      let asked = 0
      const { balanceSink, control, scope, session } = yield* setup([], {
        rest: { ...rest([], []), balances: Effect.sync(() => answers[Math.min(asked++, answers.length - 1)]!) }
      })
      const up = Effect.andThen(
        Effect.forEach(["orders", "fill", "account"], (channel) => session.onActive(channel, scope, control)),
        Effect.yieldNow
      )
      const down = Effect.forEach(["orders", "fill", "account"], (channel) => session.onInactive(channel))
      yield* up
      yield* down
      // A push of USDT from before the balances were asked for (3, on its way down) is older than REST's answer.
      yield* session.onActive("fill", scope, control)
      session.onFrame(asset(9, "3", 2), control)
      yield* up
      yield* down
      yield* up
      assert.deepStrictEqual(drain(balanceSink).map((b) => `${b.coinId} ${b.available} ${b.source}`), [
        "1 1 rest",
        "2 5 rest",
        "1 2 rest",
        "2 0 rest"
      ])
    }))

  it.effect("a symbol a consumer brings while a backfill runs is backfilled once that one is merged", () =>
    Effect.gen(function*() {
      const gate = yield* Deferred.make<void>()
      const asked: Array<string> = []
      const { control, scope, session } = yield* setup([], {
        rest: {
          ...rest([], []),
          openOrders: (symbol) =>
            Effect.andThen(
              Effect.sync(() => asked.push(symbol)),
              symbol === "BTCUSDT_SPBL" ? Effect.as(Deferred.await(gate), []) : Effect.succeed([])
            )
        }
      })
      yield* Effect.forEach(["orders", "fill", "account"], (channel) => session.onActive(channel, scope, control))
      yield* Effect.yieldNow
      assert.deepStrictEqual(asked, ["BTCUSDT_SPBL"])
      // ETH arrives while the backfill waits on BTC's open orders (its list of symbols already taken).
      yield* session.addSymbols(["ETHUSDT_SPBL"])
      yield* Deferred.succeed(gate, undefined)
      for (let i = 0; i < 5; i++) yield* Effect.yieldNow
      // Then ETH's open orders alone: BTC's were read by the backfill.
      assert.deepStrictEqual(asked, ["BTCUSDT_SPBL", "ETHUSDT_SPBL"])
      // A symbol whose open orders were read on this connection costs nothing.
      yield* session.addSymbols(["ETHUSDT_SPBL", "BTCUSDT_SPBL"])
      for (let i = 0; i < 5; i++) yield* Effect.yieldNow
      assert.strictEqual(asked.length, 2)
    }))

  it.effect("a symbol brought while a backfill runs gets its reads, from before the pushes buffered meanwhile", () =>
    Effect.gen(function*() {
      const gate = yield* Deferred.make<void>()
      const asked: Array<string> = []
      const eth = { ...fill("e-1", 60), orderId: "e-order", symbol: "ETHUSDT_SPBL" }
      const { control, fillSink, scope, session } = yield* setup([], {
        rest: {
          ...rest([], []),
          openOrders: (symbol) =>
            Effect.andThen(
              Effect.sync(() => asked.push(`open ${symbol}`)),
              symbol === "BTCUSDT_SPBL" ? Effect.as(Deferred.await(gate), []) : Effect.succeed([])
            ),
          ordersAfter: (symbol, after) => Effect.as(Effect.sync(() => asked.push(`orders ${symbol}>${after}`)), []),
          fillsAfter: (symbol, after) =>
            Effect.sync(() => {
              asked.push(`fills ${symbol}>${after}`)
              return symbol === "ETHUSDT_SPBL" ? [eth].filter((f) => f.time > after) : []
            }),
          order: (orderId) => Effect.as(Effect.sync(() => asked.push(`order ${orderId}`)), undefined)
        }
      })
      yield* Effect.forEach(["orders", "fill", "account"], (channel) => session.onActive(channel, scope, control))
      yield* Effect.yieldNow
      // ETH arrives while the backfill waits on BTC's open orders (its list of symbols already taken); an ETH fill
      // made after one of the outage is pushed meanwhile (buffered): merged, it moves ETH's watermark past the outage.
      yield* session.addSymbols(["ETHUSDT_SPBL"])
      session.onFrame(pushedFillOf("e-2", "ETHUSDT_SPBL", 500), control)
      yield* Deferred.succeed(gate, undefined)
      for (let i = 0; i < 5; i++) yield* Effect.yieldNow
      // ETH gets what the backfill read of BTC: open orders, orders and fills from the session's start less the
      // overlap (not from the pushed fill), and the order of a fill not seen.
      assert.deepStrictEqual(asked.filter((a) => a.includes("ETH") || a.startsWith("order ")), [
        "open ETHUSDT_SPBL",
        "orders ETHUSDT_SPBL>45",
        "fills ETHUSDT_SPBL>45",
        "order e-order"
      ])
      assert.deepStrictEqual(drain(fillSink).map((f) => f.fillId), ["e-2", "e-1"])
      // Read once: a consumer bringing it again costs nothing.
      asked.length = 0
      yield* session.addSymbols(["ETHUSDT_SPBL"])
      for (let i = 0; i < 5; i++) yield* Effect.yieldNow
      assert.deepStrictEqual(asked, [])
    }))

  it.effect("a symbol new to the session brought to a live session: its reads merged as they come, pushes not held", () =>
    Effect.gen(function*() {
      const gate = yield* Deferred.make<void>()
      const calls: Array<string> = []
      const events: Array<string> = []
      const eth = (status: string, filled: string, updatedTime: number): Model.OrderUpdate => ({
        orderId: "77",
        clientOrderId: "eth-old",
        symbol: "ETHUSDT_SPBL",
        side: "buy",
        orderType: "limit",
        status,
        final: false,
        price: "1500",
        quantity: "1",
        filledQuantity: filled,
        filledValue: undefined,
        createdTime: 10,
        updatedTime,
        source: "rest"
      })
      const { control, fillSink, scope, session } = yield* setup([], {
        rest: {
          ...rest([], calls),
          openOrders: (symbol) =>
            symbol === "ETHUSDT_SPBL"
              ? Effect.andThen(Deferred.await(gate), Effect.sync(() => [[eth("new", "0", 20)]]))
              : Effect.succeed([])
        },
        emit: (event) => events.push(event._tag)
      })
      const orderSink = yield* Queue.bounded<Model.OrderUpdate, PushError.PushErrorReason | Cause.Done>(100)
      session.attachOrders(orderSink)
      yield* Effect.forEach(["orders", "fill", "account"], (channel) => session.onActive(channel, scope, control))
      yield* Effect.yieldNow
      calls.length = 0
      events.length = 0
      yield* session.addSymbols(["ETHUSDT_SPBL"])
      yield* Effect.yieldNow
      // While ETH's open orders are read, a fill is pushed: delivered at once, not held for the read.
      session.onFrame(pushedFill("5"), control)
      assert.deepStrictEqual(drain(fillSink).map((f) => f.fillId), ["5"])
      // The order moved on meanwhile (pushed partly filled): REST's older answer does not undo it.
      session.onFrame(
        frame("orders", 2, {
          orderInfo: [{
            id: "77",
            clientOrderId: "eth-old",
            symbolName: "ETHUSDT_SPBL",
            orderSide: "BUY",
            type: "LIMIT",
            status: "PARTIAL_FILL",
            price: "1500",
            size: "1",
            cumFillSize: "0.5",
            createdTime: "10",
            updatedTime: "30"
          }]
        }),
        control
      )
      yield* Deferred.succeed(gate, undefined)
      for (let i = 0; i < 5; i++) yield* Effect.yieldNow
      assert.deepStrictEqual(drain(orderSink).map((o) => o.filledQuantity), ["0.5"])
      // Besides its open orders, its fills since the session's start (50, less the overlap): a symbol new to the session
      // was read by no backfill. No "Resynced": this was no resynchronisation.
      assert.deepStrictEqual(calls, ["fills>45"])
      assert.deepStrictEqual(events, [])
    }))

  it.effect("a symbol known from pushes brought to a live session: its open orders read alone", () =>
    Effect.gen(function*() {
      const calls: Array<string> = []
      const { activate, control, session } = yield* setup([], { rest: rest([], calls) })
      yield* activate
      yield* Effect.yieldNow
      // ETH is learnt from a push on this live connection: its events from then on are pushed.
      session.onFrame(pushedOrderOf("77", "ETHUSDT_SPBL", 60), control)
      calls.length = 0
      yield* session.addSymbols(["ETHUSDT_SPBL"])
      for (let i = 0; i < 5; i++) yield* Effect.yieldNow
      assert.deepStrictEqual(calls, [])
    }))

  it.effect("a balance written otherwise (trailing zeros) is no change: not delivered again", () =>
    Effect.gen(function*() {
      const { activate, balanceSink, control, session } = yield* setup([])
      yield* activate
      yield* Effect.yieldNow
      assert.deepStrictEqual(drain(balanceSink).map((b) => b.available), ["1"])
      session.onFrame(asset(7, "1.0000000000000000"), control)
      session.onFrame(asset(8, "1.5"), control)
      assert.deepStrictEqual(drain(balanceSink).map((b) => b.available), ["1.5"])
    }))

  it.effect("a backfill that answers after its connection ended is dropped; the next one counts", () =>
    Effect.gen(function*() {
      const { activate, control, fillSink, scope, session } = yield* setup([fill("1", 90)])
      yield* activate
      yield* Effect.forEach(["orders", "fill", "account"], (channel) => session.onInactive(channel))
      yield* Effect.yieldNow
      // The backfill forked by the first connection ran; it found its generation gone and merged nothing.
      assert.deepStrictEqual(drain(fillSink), [])
      yield* Effect.forEach(["orders", "fill", "account"], (channel) => session.onActive(channel, scope, control))
      yield* Effect.yieldNow
      assert.deepStrictEqual(drain(fillSink).map((f) => f.fillId), ["1"])
    }))

  it.effect("more pushes than the buffer holds during a backfill: reconnect (and backfill again)", () =>
    Effect.gen(function*() {
      const { control, reconnects, scope, session } = yield* setup([], { bufferLimit: 2 })
      yield* session.onActive("fill", scope, control)
      for (let i = 0; i < 3; i++) session.onFrame(pushedFill(String(i)), control)
      assert.strictEqual(reconnects.length, 1)
      assert.include(reconnects[0]!, "more than 2 pushes")
    }))
})

describe("push private session: watermarks per symbol", () => {
  const at = (id: string, symbol: string, time: number, orderId = id): Model.Fill => ({
    ...fill(id, time),
    orderId,
    symbol
  })
  // A venue's REST side that answers honestly: a symbol's fills and orders after the bound asked for.
  const venue = (fills: Array<Model.Fill>, orders: Array<Model.OrderUpdate>, asked: Array<string>): Rest => ({
    balances: Effect.succeed([]),
    openOrders: () => Effect.succeed([]),
    ordersAfter: (symbol, after) =>
      Effect.sync(() => {
        asked.push(`orders ${symbol}>${after}`)
        return orders.filter((o) => o.symbol === symbol && (o.createdTime ?? 0) > after)
      }),
    fillsAfter: (symbol, after) =>
      Effect.sync(() => {
        asked.push(`fills ${symbol}>${after}`)
        return fills.filter((f) => f.symbol === symbol && f.time > after)
      }),
    order: (orderId) => Effect.sync(() => orders.find((o) => o.orderId === orderId))
  })
  const order = (orderId: string, symbol: string, createdTime: number, status: string): Model.OrderUpdate => ({
    orderId,
    clientOrderId: undefined,
    symbol,
    side: "buy",
    orderType: "limit",
    status,
    final: status === "full_fill" || status === "cancelled",
    price: "1",
    quantity: "1",
    filledQuantity: "0",
    filledValue: undefined,
    createdTime,
    updatedTime: createdTime,
    source: "rest"
  })

  it.effect("a fill or order of one symbol made before a later one of another, missed in a drop, is backfilled", () =>
    Effect.gen(function*() {
      const fills: Array<Model.Fill> = []
      const orders: Array<Model.OrderUpdate> = []
      const asked: Array<string> = []
      const { control, scope, session } = yield* setup([], { rest: venue(fills, orders, asked) })
      yield* session.addSymbols(["ETHUSDT_SPBL"])
      const orderSink = yield* Queue.bounded<Model.OrderUpdate, PushError.PushErrorReason | Cause.Done>(100)
      session.attachOrders(orderSink)
      const fillSink = [...session.fillSinks][0]!
      const up = Effect.forEach(["orders", "fill", "account"], (channel) => session.onActive(channel, scope, control))
      const down = Effect.forEach(["orders", "fill", "account"], (channel) => session.onInactive(channel))
      yield* up
      yield* Effect.yieldNow
      // BTC's fill at 1,000 is pushed; ETH's fill at 900 and an ETH order created at 900 and cancelled are not (their
      // pushes late, across symbols), and the connection drops.
      fills.push(at("b1", "BTCUSDT_SPBL", 1_000), at("e1", "ETHUSDT_SPBL", 900, "e-order"))
      orders.push(order("b-order", "BTCUSDT_SPBL", 1_000, "open"), order("e-gone", "ETHUSDT_SPBL", 900, "cancelled"))
      session.onFrame(pushedFillOf("b1", "BTCUSDT_SPBL", 1_000), control)
      session.onFrame(pushedOrderOf("b-order", "BTCUSDT_SPBL", 1_000), control)
      assert.deepStrictEqual(drain(fillSink).map((f) => f.fillId), ["b1"])
      drain(orderSink)
      yield* down
      asked.length = 0
      yield* up
      yield* Effect.yieldNow
      // Each symbol is read from its own watermark less the overlap: ETH's from the session's start, not BTC's 995.
      assert.includeMembers(asked, ["fills BTCUSDT_SPBL>995", "fills ETHUSDT_SPBL>45", "orders ETHUSDT_SPBL>45"])
      assert.deepStrictEqual(drain(fillSink).map((f) => f.fillId), ["e1"])
      assert.deepStrictEqual(drain(orderSink).map((o) => o.orderId), ["e-gone"])
    }))

  it.effect("a fill is remembered by its own symbol's watermark: another symbol trading on does not let it come twice", () =>
    Effect.gen(function*() {
      const fills: Array<Model.Fill> = [at("e1", "ETHUSDT_SPBL", 100)]
      const { control, scope, session } = yield* setup([], { rest: venue(fills, [], []) })
      yield* session.addSymbols(["ETHUSDT_SPBL"])
      const fillSink = [...session.fillSinks][0]!
      const up = Effect.forEach(["orders", "fill", "account"], (channel) => session.onActive(channel, scope, control))
      const down = Effect.forEach(["orders", "fill", "account"], (channel) => session.onInactive(channel))
      yield* up
      yield* Effect.yieldNow
      assert.deepStrictEqual(drain(fillSink).map((f) => f.fillId), ["e1"])
      // BTC trades on, far beyond the retention (1,000 ms) of ETH's last fill; each backfill after a drop prunes.
      for (let i = 0; i < 3; i++) session.onFrame(pushedFillOf(`b${i}`, "BTCUSDT_SPBL", 5_000 + i), control)
      for (let drop = 0; drop < 2; drop++) {
        yield* down
        yield* up
        yield* Effect.yieldNow
      }
      // REST answers ETH's fill again each time (within its overlap): known, never delivered twice.
      assert.deepStrictEqual(drain(fillSink).map((f) => f.fillId), ["b0", "b1", "b2"])
    }))
})

// A market buy of BTC filled whole, as REST reads it back.
const filledMarketBuy = (orderId: string, createdTime: number, updatedTime: number): Model.OrderUpdate => ({
  orderId,
  clientOrderId: undefined,
  symbol: "BTCUSDT_SPBL",
  side: "buy",
  orderType: "market",
  status: "full_fill",
  final: true,
  price: undefined,
  quantity: "1",
  filledQuantity: "1",
  filledValue: undefined,
  createdTime,
  updatedTime,
  source: "rest"
})

// A venue whose orders and fills REST lists after a bound, and tells by id; no open orders, no balances.
const honest = (fills: Array<Model.Fill>, orders: Array<Model.OrderUpdate>): Rest => ({
  balances: Effect.succeed([]),
  openOrders: () => Effect.succeed([]),
  ordersAfter: (symbol, after) =>
    Effect.sync(() => orders.filter((o) => o.symbol === symbol && (o.createdTime ?? 0) > after)),
  fillsAfter: (symbol, after) => Effect.sync(() => fills.filter((f) => f.symbol === symbol && f.time > after)),
  order: (orderId) => Effect.sync(() => orders.find((o) => o.orderId === orderId))
})

describe("push private session: what is remembered", () => {
  const filledFill = (id: string, orderId: string, time: number): Model.Fill => ({ ...fill(id, time), orderId })
  const filledOrder = (orderId: string, time: number) => filledMarketBuy(orderId, time, time)
  const placed = (id: string, time: number) => pushedOrderOf(id, "BTCUSDT_SPBL", time)
  const run = (fills: Array<Model.Fill>, orders: Array<Model.OrderUpdate>) =>
    Effect.gen(function*() {
      const { control, scope, session } = yield* setup([], { rest: honest(fills, orders) })
      const orderSink = yield* Queue.bounded<Model.OrderUpdate, PushError.PushErrorReason | Cause.Done>(100)
      session.attachOrders(orderSink)
      const up = Effect.andThen(
        Effect.forEach(["orders", "fill", "account"], (channel) => session.onActive(channel, scope, control)),
        Effect.yieldNow
      )
      const down = Effect.forEach(["orders", "fill", "account"], (channel) => session.onInactive(channel))
      return { control, orderSink, session, up, down }
    })

  it.effect("a filled order is delivered once, however long orders are placed after its last fill", () =>
    Effect.gen(function*() {
      // A market buy filled at 100 (its fill the symbol's latest), then orders placed far beyond the retention
      // (1,000 ms) of it, none filled: the order watermark moves on, the fill watermark stays.
      const fills = [filledFill("f1", "the-buy", 100)]
      const orders = [filledOrder("the-buy", 100)]
      const { control, down, orderSink, session, up } = yield* run(fills, orders)
      yield* up
      for (let i = 0; i < 3; i++) session.onFrame(placed(`p${i}`, 3_000 + i), control)
      // Each reconnection's backfill reads the fill again (within its overlap): known, and so is its order's outcome.
      for (let drop = 0; drop < 3; drop++) {
        yield* down
        yield* up
      }
      const buys = drain(orderSink).filter((o) => o.orderId === "the-buy").map((o) => o.status)
      assert.deepStrictEqual(buys, ["full_fill"])
    }))

  it.effect("a filled order is kept while a fill of it can still come from REST", () =>
    Effect.gen(function*() {
      // The buy's final state is known (pushed), its fill not yet (REST lists it late); orders are placed on.
      const fills: Array<Model.Fill> = []
      const orders = [filledOrder("the-buy", 100)]
      const { control, down, orderSink, session, up } = yield* run(fills, orders)
      yield* up
      for (let i = 0; i < 3; i++) session.onFrame(placed(`p${i}`, 3_000 + i), control)
      yield* down
      yield* up
      // Now REST lists the fill: new, delivered; its order is no news.
      fills.push(filledFill("f1", "the-buy", 100))
      yield* down
      yield* up
      const fillSink = [...session.fillSinks][0]!
      assert.deepStrictEqual(drain(fillSink).map((f) => f.fillId), ["f1"])
      const buys = drain(orderSink).filter((o) => o.orderId === "the-buy").map((o) => o.status)
      assert.deepStrictEqual(buys, ["full_fill"])
    }))
})

describe("push private session: the shape of a push", () => {
  const order = {
    id: "11",
    symbolName: "BTCUSDT_SPBL",
    orderSide: "BUY",
    type: "LIMIT",
    status: "NEW",
    price: "1",
    size: "1",
    cumFillSize: "0",
    createdTime: "100",
    updatedTime: "100"
  }
  const fillRecord = {
    id: "21",
    symbolName: "BTCUSDT_SPBL",
    orderId: "9",
    orderSide: "BUY",
    fillSize: "1",
    fillValue: "10",
    fillFee: "0",
    direction: "TAKER",
    createdTime: "100"
  }
  const balance = { coinId: 1, coinName: "BTC", available: "5", frozen: "0", equity: "5" }

  // A live session with a consumer of each stream; what each got from a push, and the reconnections it asked.
  const live = Effect.gen(function*() {
    const { activate, balanceSink, control, fillSink, reconnects, session } = yield* setup([])
    const orderSink = yield* Queue.bounded<Model.OrderUpdate, PushError.PushErrorReason | Cause.Done>(100)
    session.attachOrders(orderSink)
    yield* activate
    yield* Effect.yieldNow
    drain(balanceSink)
    const got = (channel: string, data: unknown) => {
      session.onFrame(frame(channel, 2, data), control)
      return {
        orders: drain(orderSink).map((o) => o.orderId),
        fills: drain(fillSink).map((f) => f.fillId),
        balances: drain(balanceSink).map((b) => b.available),
        reconnects: reconnects.splice(0)
      }
    }
    return got
  })
  const nothing = { orders: [], fills: [], balances: [], reconnects: [] }

  it.effect("a single record, not in an array, is one item: delivered", () =>
    Effect.gen(function*() {
      const got = yield* live
      assert.deepStrictEqual(got("orders", { orderInfo: order }), { ...nothing, orders: ["11"] })
      assert.deepStrictEqual(got("orders", { ...order, id: "12" }), { ...nothing, orders: ["12"] })
      assert.deepStrictEqual(got("fill", { orderFillTransaction: fillRecord }), { ...nothing, fills: ["21"] })
      assert.deepStrictEqual(got("account", { accountAsset: balance }), { ...nothing, balances: ["5"] })
    }))

  it.effect("a shape that is neither a list nor a record of the channel replaces the connection, as a bad item does", () =>
    Effect.gen(function*() {
      const got = yield* live
      const decode = (what: string) => ({ ...nothing, reconnects: [`an undecodable ${what} push`] })
      assert.deepStrictEqual(got("fill", "21"), decode("fill"))
      assert.deepStrictEqual(got("fill", 21), decode("fill"))
      assert.deepStrictEqual(got("fill", null), decode("fill"))
      assert.deepStrictEqual(got("fill", { other: [fillRecord] }), decode("fill"))
      assert.deepStrictEqual(got("account", { other: balance }), decode("account"))
      assert.deepStrictEqual(got("orders", "11"), decode("order"))
      assert.deepStrictEqual(got("orders", { other: [{ id: "11" }] }), decode("order"))
    }))

  it.effect("an empty list is no item: nothing delivered, the connection kept", () =>
    Effect.gen(function*() {
      const got = yield* live
      assert.deepStrictEqual(got("fill", { orderFillTransaction: [] }), nothing)
      assert.deepStrictEqual(got("account", { accountAsset: [] }), nothing)
      assert.deepStrictEqual(got("orders", { orderInfo: [] }), nothing)
      assert.deepStrictEqual(got("orders", []), nothing)
    }))
})

describe("push private session: an event stamped ahead of the venue's clock", () => {
  it.effect("is delivered, but moves its watermark no further than the venue's time as estimated", () =>
    Effect.gen(function*() {
      const { activate, calls, control, fillSink, session } = yield* setup([])
      const down = Effect.forEach(["orders", "fill", "account"], (channel) => session.onInactive(channel))
      yield* activate
      yield* Effect.yieldNow
      // The venue's time is this machine's clock (0) plus the offset (1,000,000); a fill stamped ten minutes past it.
      session.onFrame(pushedFillOf("f1", "BTCUSDT_SPBL", 1_000_000 + 600_000, "9"), control)
      assert.deepStrictEqual(drain(fillSink).map((f) => f.fillId), ["f1"])
      calls.length = 0
      yield* down
      yield* activate
      yield* Effect.yieldNow
      // The next backfill reads from the venue's time when it arrived, less the overlap: not from ten minutes ahead.
      assert.deepStrictEqual(calls, ["balances", `fills>${1_000_000 - 5}`])
    }))
})

describe("push private session: fills pushed again", () => {
  const pushedAt = (id: string, time: number) => pushedFillOf(id, "BTCUSDT_SPBL", time, "9")

  it.effect("a fill pushed again after a reconnection is delivered once, however far the venue's fill times moved on", () =>
    Effect.gen(function*() {
      const { activate, control, fillSink, session } = yield* setup([])
      const down = Effect.forEach(["orders", "fill", "account"], (channel) => session.onInactive(channel))
      yield* activate
      yield* Effect.yieldNow
      // A fill, then one whose venue time is beyond the retention (1,000 ms) after it (minutes later, or a time in
      // the future): by venue time alone the first is forgettable at the next prune.
      session.onFrame(pushedAt("f1", 100), control)
      session.onFrame(pushedAt("f2", 100 + 1_500), control)
      yield* down
      yield* activate
      yield* Effect.yieldNow
      // The venue delivers both again on the new connection (at least once): known, not delivered twice.
      session.onFrame(pushedAt("f1", 100), control)
      session.onFrame(pushedAt("f2", 100 + 1_500), control)
      assert.deepStrictEqual(drain(fillSink).map((f) => f.fillId), ["f1", "f2"])
      // Seen longer ago than the retention (on this machine's clock) and behind the horizon: forgotten at last, so
      // memory stays bounded by how many fills arrive within the retention.
      yield* TestClock.adjust(1_001)
      yield* down
      yield* activate
      yield* Effect.yieldNow
      session.onFrame(pushedAt("f3", 100 + 1_600), control)
      assert.deepStrictEqual(drain(fillSink).map((f) => f.fillId), ["f3"])
      assert.strictEqual(session.remembered.fills, 2)
    }))
})

describe("push private session: orders pushed again", () => {
  // A pushed order of BTC in a status, created and updated at a time.
  const pushedOrder = (id: string, status: string, time: number) =>
    frame("orders", 1, {
      orderInfo: [{
        id,
        symbolName: "BTCUSDT_SPBL",
        orderSide: "BUY",
        type: "LIMIT",
        status,
        price: "1",
        size: "1",
        cumFillSize: "0",
        createdTime: String(time),
        updatedTime: String(time)
      }]
    })

  it.effect("a final order pushed again after a reconnection is delivered once, however far orders moved on", () =>
    Effect.gen(function*() {
      const { activate, control, session } = yield* setup([])
      const orderSink = yield* Queue.bounded<Model.OrderUpdate, PushError.PushErrorReason | Cause.Done>(100)
      session.attachOrders(orderSink)
      const down = Effect.forEach(["orders", "fill", "account"], (channel) => session.onInactive(channel))
      yield* activate
      yield* Effect.yieldNow
      // An order cancelled, then one placed beyond the retention (1,000 ms) after it by venue time: by venue time
      // alone the first is forgettable at the next prune (each backfill's end).
      session.onFrame(pushedOrder("o1", "CANCELLED", 100), control)
      session.onFrame(pushedOrder("o2", "NEW", 100 + 1_500), control)
      yield* down
      yield* activate
      yield* Effect.yieldNow
      // The venue pushes the end again on the new connection (at least once): known, not delivered twice.
      session.onFrame(pushedOrder("o1", "CANCELLED", 100), control)
      assert.deepStrictEqual(drain(orderSink).map((o) => [o.orderId, o.status]), [["o1", "cancelled"], ["o2", "open"]])
      // Ended longer ago than the retention (on this machine's clock) and behind the horizon: forgotten at last.
      yield* TestClock.adjust(1_001)
      yield* down
      yield* activate
      yield* Effect.yieldNow
      assert.strictEqual(session.remembered.orders, 1)
    }))
})

describe("push private session: an order first pushed without its filled quantity", () => {
  // A pushed order of BTC without `cumFillSize` (a venue may leave it out).
  const pushedBare = (id: string, type: string, side: string, status: string, size: string) =>
    frame("orders", 1, {
      orderInfo: [{
        id,
        symbolName: "BTCUSDT_SPBL",
        orderSide: side,
        type,
        status,
        size,
        createdTime: "60",
        updatedTime: "70"
      }]
    })
  const recorded = (orderId: string, filledQuantity: string): Model.OrderUpdate => ({
    ...filledMarketBuy(orderId, 60, 70),
    quantity: "100",
    filledQuantity,
    filledValue: "100"
  })

  // A filled market buy "mb" pushed bare to a live session whose REST order info is `order`: its size is in the quote
  // coin, so nothing in the push tells how much BTC it bought.
  const marketBuyPushed = (order: Rest["order"]) =>
    Effect.gen(function*() {
      const { activate, control, session } = yield* setup([], { rest: { ...rest([], []), order } })
      const orderSink = yield* Queue.bounded<Model.OrderUpdate, PushError.PushErrorReason | Cause.Done>(100)
      session.attachOrders(orderSink)
      yield* activate
      yield* Effect.yieldNow
      session.onFrame(pushedBare("mb", "MARKET", "BUY", "FILLED", "100"), control)
      for (let i = 0; i < 5; i++) yield* Effect.yieldNow
      return { control, orderSink, session }
    })

  it.effect("a filled market buy is not shown as filled \"0\": its quantity is read back by REST first", () =>
    Effect.gen(function*() {
      const asked: Array<string> = []
      const gate = yield* Deferred.make<void>()
      const { control, orderSink, session } = yield* marketBuyPushed((orderId) =>
        Effect.andThen(
          Effect.andThen(Effect.sync(() => asked.push(orderId)), Deferred.await(gate)),
          Effect.succeed(recorded(orderId, "0.0033"))
        )
      )
      assert.deepStrictEqual(asked, ["mb"])
      assert.deepStrictEqual(drain(orderSink), [])
      yield* Deferred.succeed(gate, undefined)
      for (let i = 0; i < 5; i++) yield* Effect.yieldNow
      assert.deepStrictEqual(drain(orderSink).map((o) => [o.orderId, o.status, o.filledQuantity]), [
        ["mb", "full_fill", "0.0033"]
      ])
      // Known now: the same push again is no news, and costs no REST call.
      session.onFrame(pushedBare("mb", "MARKET", "BUY", "FILLED", "100"), control)
      for (let i = 0; i < 5; i++) yield* Effect.yieldNow
      assert.deepStrictEqual(drain(orderSink), [])
      assert.deepStrictEqual(asked, ["mb"])
    }))

  it.effect("held when the connection ends before REST answers: the next backfill asks for it", () =>
    Effect.gen(function*() {
      let asked = 0
      const { activate, control, session } = yield* setup([], {
        rest: {
          ...rest([], []),
          // The first answer never comes (its connection ends); the next backfill's does.
          order: (orderId) =>
            Effect.suspend(() => ++asked === 1 ? Effect.never : Effect.succeed(recorded(orderId, "0.0033")))
        }
      })
      const orderSink = yield* Queue.bounded<Model.OrderUpdate, PushError.PushErrorReason | Cause.Done>(100)
      session.attachOrders(orderSink)
      const down = Effect.forEach(["orders", "fill", "account"], (channel) => session.onInactive(channel))
      yield* activate
      yield* Effect.yieldNow
      session.onFrame(pushedBare("mb", "MARKET", "BUY", "FILLED", "100"), control)
      for (let i = 0; i < 5; i++) yield* Effect.yieldNow
      yield* down
      yield* activate
      for (let i = 0; i < 5; i++) yield* Effect.yieldNow
      assert.strictEqual(asked, 2)
      assert.deepStrictEqual(drain(orderSink).map((o) => [o.orderId, o.status, o.filledQuantity]), [
        ["mb", "full_fill", "0.0033"]
      ])
    }))

  it.effect("REST not knowing it yet (its records lag the pushes): asked again a second later, not shown filled \"0\"", () =>
    Effect.gen(function*() {
      let asked = 0
      const { orderSink } = yield* marketBuyPushed((orderId) =>
        Effect.sync(() => ++asked < 3 ? undefined : recorded(orderId, "0.0033"))
      )
      assert.strictEqual(asked, 1)
      assert.deepStrictEqual(drain(orderSink), [])
      yield* TestClock.adjust(1_000)
      assert.strictEqual(asked, 2)
      assert.deepStrictEqual(drain(orderSink), [], "still held")
      yield* TestClock.adjust(1_000)
      assert.strictEqual(asked, 3)
      assert.deepStrictEqual(drain(orderSink).map((o) => [o.orderId, o.status, o.filledQuantity]), [
        ["mb", "full_fill", "0.0033"]
      ])
    }))

  it.effect("REST never knowing it: after three asks its pushes are delivered as they are", () =>
    Effect.gen(function*() {
      let asked = 0
      const { orderSink } = yield* marketBuyPushed(() => Effect.sync(() => void ++asked))
      yield* TestClock.adjust(10_000)
      assert.strictEqual(asked, 3)
      assert.deepStrictEqual(drain(orderSink).map((o) => [o.orderId, o.status]), [["mb", "full_fill"]])
    }))

  it.effect("where the push tells it exactly (a new order; a filled limit order or sell), delivered at once", () =>
    Effect.gen(function*() {
      const asked: Array<string> = []
      const { activate, control, session } = yield* setup([], {
        rest: { ...rest([], []), order: (orderId) => Effect.as(Effect.sync(() => asked.push(orderId)), undefined) }
      })
      const orderSink = yield* Queue.bounded<Model.OrderUpdate, PushError.PushErrorReason | Cause.Done>(100)
      session.attachOrders(orderSink)
      yield* activate
      yield* Effect.yieldNow
      session.onFrame(pushedBare("new", "LIMIT", "BUY", "NEW", "0.5"), control)
      session.onFrame(pushedBare("lim", "LIMIT", "BUY", "FILLED", "0.5"), control)
      session.onFrame(pushedBare("ms", "MARKET", "SELL", "FILLED", "0.25"), control)
      for (let i = 0; i < 5; i++) yield* Effect.yieldNow
      assert.deepStrictEqual(drain(orderSink).map((o) => [o.orderId, o.status, o.filledQuantity]), [
        ["new", "open", "0"],
        ["lim", "full_fill", "0.5"],
        ["ms", "full_fill", "0.25"]
      ])
      assert.deepStrictEqual(asked, [])
    }))
})

describe("push private session: symbols learnt from pushes", () => {
  // Whether the queue was failed, and what it held before.
  const taken = <A>(queue: Queue.Queue<A, PushError.PushErrorReason | Cause.Done>) => {
    const values: Array<A> = []
    let failed = false
    for (let next = Queue.takeUnsafe(queue); next !== undefined && !failed; next = Queue.takeUnsafe(queue)) {
      if (next._tag === "Success") values.push(next.value)
      else failed = true
    }
    return { values, failed }
  }
  const unknown = () =>
    new SpotError.SpotError({
      operation: "SpotClient.openOrders",
      reason: new SpotError.UnknownSymbolError({ code: "40102", msg: "Symbol does not exist" })
    })
  // A venue that lists BTC and ETH only: any other symbol is refused, as the venue's REST does.
  const listing = (fills: Array<Model.Fill>, asked: Array<string>): Rest => {
    const known = (symbol: string) => symbol === "BTCUSDT_SPBL" || symbol === "ETHUSDT_SPBL"
    return {
      balances: Effect.succeed([]),
      openOrders: (symbol) =>
        Effect.suspend(() => {
          asked.push(symbol)
          return known(symbol) ? Effect.succeed([]) : Effect.fail(unknown())
        }),
      ordersAfter: (symbol) => known(symbol) ? Effect.succeed([]) : Effect.fail(unknown()),
      fillsAfter: (symbol, after) =>
        known(symbol)
          ? Effect.sync(() => fills.filter((f) => f.symbol === symbol && f.time > after))
          : Effect.fail(unknown()),
      order: () => Effect.succeed(undefined)
    }
  }

  it.effect("a pushed symbol REST refuses (delisted, malformed) is dropped from the backfill; the streams go on", () =>
    Effect.gen(function*() {
      const fills: Array<Model.Fill> = []
      const asked: Array<string> = []
      const { control, fillSink, scope, session } = yield* setup([], { rest: listing(fills, asked) })
      const up = Effect.andThen(
        Effect.forEach(["orders", "fill", "account"], (channel) => session.onActive(channel, scope, control)),
        Effect.yieldNow
      )
      const down = Effect.forEach(["orders", "fill", "account"], (channel) => session.onInactive(channel))
      yield* up
      // Fills of a pair the venue no longer lists and of one written in lower case: pushed, delivered.
      session.onFrame(pushedFillOf("d1", "DELISTED_SPBL", 100), control)
      session.onFrame(pushedFillOf("m1", "btcusdt_spbl", 101), control)
      session.onFrame(pushedFillOf("e1", "ETHUSDT_SPBL", 102), control)
      const live = taken(fillSink)
      assert.deepStrictEqual(live.values.map((f) => f.fillId), ["d1", "m1", "e1"])
      // A reconnection: ETH (learnt from its push) is read, the others are refused or never asked; nothing fails.
      fills.push({ ...fill("e2", 200), symbol: "ETHUSDT_SPBL" })
      yield* down
      asked.length = 0
      yield* up
      const after = taken(fillSink)
      assert.isFalse(after.failed, "the fills stream failed")
      assert.deepStrictEqual(after.values.map((f) => f.fillId), ["e2"])
      assert.deepStrictEqual(asked.filter((symbol) => symbol !== "DELISTED_SPBL").sort(), [
        "BTCUSDT_SPBL",
        "ETHUSDT_SPBL"
      ])
      // The refused symbol is no longer read; a new push of it is still delivered, and does not bring it back.
      session.onFrame(pushedFillOf("d2", "DELISTED_SPBL", 300), control)
      assert.deepStrictEqual(taken(fillSink).values.map((f) => f.fillId), ["d2"])
      yield* down
      asked.length = 0
      yield* up
      assert.deepStrictEqual(asked.slice().sort(), ["BTCUSDT_SPBL", "ETHUSDT_SPBL"])
      assert.isFalse(taken(fillSink).failed, "the fills stream failed")
    }))

  it.effect("a symbol a consumer brought that REST refuses fails that consumer's stream only, live or after a drop", () =>
    Effect.gen(function*() {
      // The symbol rules could not be read when they joined: the symbols came unchecked.
      const fills: Array<Model.Fill> = []
      const { balanceSink, control, fillSink, scope, session } = yield* setup([], { rest: listing(fills, []) })
      const up = Effect.andThen(
        Effect.forEach(["orders", "fill", "account"], (channel) => session.onActive(channel, scope, control)),
        Effect.yieldNow
      )
      const down = Effect.forEach(["orders", "fill", "account"], (channel) => session.onInactive(channel))
      yield* up
      // Joins a live session: its open orders are read at once, and refused.
      const live = yield* Queue.bounded<Model.OrderUpdate, PushError.PushErrorReason | Cause.Done>(100)
      session.attachOrders(live)
      yield* session.addSymbols(["NOPEUSDT_SPBL"], live)
      for (let i = 0; i < 3; i++) yield* Effect.yieldNow
      assert.isTrue(taken(live).failed, "the stream that named the symbol goes on")
      // Joins while disconnected: the next backfill is refused it.
      const later = yield* Queue.bounded<Model.Fill, PushError.PushErrorReason | Cause.Done>(100)
      yield* down
      session.fillSinks.add(later)
      yield* session.addSymbols(["GONEUSDT_SPBL", "ETHUSDT_SPBL"], later)
      fills.push({ ...fill("e1", 200), symbol: "ETHUSDT_SPBL" })
      yield* up
      assert.isTrue(taken(later).failed, "the stream that named the symbol goes on")
      // Every other stream goes on: the backfill delivered the fill of the symbols REST reads, and pushes come.
      session.onFrame(pushedFillOf("e2", "ETHUSDT_SPBL", 300), control)
      const others = taken(fillSink)
      assert.isFalse(others.failed, "another consumer's stream ended")
      assert.deepStrictEqual(others.values.map((f) => f.fillId), ["e1", "e2"])
      assert.isFalse(taken(balanceSink).failed, "another consumer's stream ended")
      // Neither is read again.
      yield* down
      yield* up
      assert.isFalse(taken(fillSink).failed, "another consumer's stream ended")
    }))
})

describe("push private session: a backfill larger than a consumer's queue", () => {
  const open = (i: number): Model.OrderUpdate => ({
    orderId: String(1_000 + i),
    clientOrderId: undefined,
    symbol: "BTCUSDT_SPBL",
    side: "buy",
    orderType: "limit",
    status: "open",
    final: false,
    price: "1",
    quantity: "1",
    filledQuantity: "0",
    filledValue: undefined,
    createdTime: 60 + i,
    updatedTime: 60 + i,
    source: "rest"
  })
  const range = (n: number) => Array.from({ length: n }, (_, i) => i)
  // 250 open orders and 250 fills to read, for queues of 100.
  const big: Rest = {
    balances: Effect.succeed([]),
    // Three answers of REST, as pages of 100 would give.
    openOrders: () => Effect.succeed([0, 100, 200].map((from) => range(250).slice(from, from + 100).map(open))),
    ordersAfter: () => Effect.succeed([]),
    fillsAfter: () => Effect.succeed(range(250).map((i) => fill(`f${i}`, 60 + i))),
    order: () => Effect.succeed(undefined)
  }
  const newSink = <A>() => Queue.bounded<A, PushError.PushErrorReason | Cause.Done>(100)
  // A consumer that keeps up: takes `n` elements as they come (failing as its stream would).
  const consume = <A>(sink: Queue.Queue<A, PushError.PushErrorReason | Cause.Done>, n: number) =>
    Effect.forkChild(Effect.forEach(range(n), () => Queue.take(sink)))

  it.effect("waits for room: consumers that keep up get every record, and a late joiner the whole replay", () =>
    Effect.gen(function*() {
      const { activate, fillSink, session } = yield* setup([], { rest: big })
      const orderSink = yield* newSink<Model.OrderUpdate>()
      session.attachOrders(orderSink)
      const fills = yield* consume(fillSink, 250)
      const orders = yield* consume(orderSink, 250)
      yield* activate
      assert.deepStrictEqual((yield* Fiber.join(fills)).map((f) => f.fillId), range(250).map((i) => `f${i}`))
      assert.strictEqual((yield* Fiber.join(orders)).length, 250)
      // A consumer joining now is given the 250 open orders, more than its queue holds.
      const late = yield* newSink<Model.OrderUpdate>()
      session.attachOrders(late)
      yield* session.addSymbols([])
      const replay = yield* Fiber.join(yield* consume(late, 250))
      assert.deepStrictEqual(replay.map((o) => o.orderId), range(250).map((i) => String(1_000 + i)))
    }))

  it.effect("a consumer that does not take holds no other, and fails once the buffer's limit of pushes waits behind it", () =>
    Effect.gen(function*() {
      const { activate, control, fillSink, session } = yield* setup([], { rest: big, bufferLimit: 5 })
      const slow = yield* newSink<Model.Fill>()
      session.fillSinks.add(slow)
      const fast = yield* consume(fillSink, 250)
      yield* activate
      assert.strictEqual((yield* Fiber.join(fast)).length, 250)
      // Live pushes reach the consumer that keeps up at once, while the other still owes 150 of the backfill.
      for (let i = 0; i < 5; i++) session.onFrame(pushedFill(`p${i}`), control)
      assert.deepStrictEqual(drain(fillSink).map((f) => f.fillId), ["p0", "p1", "p2", "p3", "p4"])
      assert.strictEqual(yield* Queue.size(slow), 100)
      assert.isTrue(session.fillSinks.has(slow))
      session.onFrame(pushedFill("p5"), control)
      assert.deepStrictEqual(drain(fillSink).map((f) => f.fillId), ["p5"])
      // The sixth push behind it: a slow consumer, failed after what it was given.
      assert.isFalse(session.fillSinks.has(slow))
      const taken: Array<string> = []
      const exit = yield* Effect.exit(Effect.forever(Effect.map(Queue.take(slow), (f) => taken.push(f.fillId))))
      assert.strictEqual(taken.length, 100)
      assert.isTrue(exit._tag === "Failure" && String(exit.cause).includes("SlowConsumerError"))
      // Told as what it is: pushes behind a backfill (the backfillBuffer option), not an element's wait for room.
      assert.isTrue(exit._tag === "Failure" && String(exit.cause).includes("6 pushes waited behind a backfill"))
    }))
})

describe("push private session: open orders read while some leave the book", () => {
  const order = (i: number, status: "open" | "cancelled"): Model.OrderUpdate => ({
    orderId: String(5_000 + i),
    clientOrderId: undefined,
    symbol: "BTCUSDT_SPBL",
    side: "buy",
    orderType: "limit",
    status,
    final: status === "cancelled",
    price: "1",
    quantity: "1",
    filledQuantity: "0",
    filledValue: undefined,
    createdTime: 10,
    updatedTime: status === "open" ? 10 + i : 1_000 + i,
    source: "rest"
  })
  const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i)

  it.effect("every order open when the session starts is delivered, though orders left while REST paged", () =>
    Effect.gen(function*() {
      // 150 open orders, paged 100 at a time, newest first. The 30 newest are cancelled once the first page is read:
      // the second page (offset 100) then starts at the 130th, and orders 100 to 129 are on no page of that read.
      let reads = 0
      const rest: Rest = {
        balances: Effect.succeed([]),
        openOrders: () =>
          Effect.sync(() => {
            reads++
            return reads === 1
              ? [range(0, 100), range(130, 150)].map((page) => page.map((i) => order(i, "open")))
              : [range(30, 130), range(130, 150)].map((page) => page.map((i) => order(i, "open")))
          }),
        ordersAfter: () => Effect.succeed([]),
        fillsAfter: () => Effect.succeed([]),
        order: (orderId) => Effect.succeed(order(Number(orderId) - 5_000, reads === 0 ? "open" : "cancelled"))
      }
      const { activate, session } = yield* setup([], { rest })
      const orderSink = yield* Queue.bounded<Model.OrderUpdate, PushError.PushErrorReason | Cause.Done>(1_000)
      session.attachOrders(orderSink)
      yield* activate
      for (let i = 0; i < 5; i++) yield* Effect.yieldNow
      const last = new Map<string, string>()
      for (const o of drain(orderSink)) last.set(o.orderId, o.status)
      const missed = range(0, 150).filter((i) => !last.has(String(5_000 + i)))
      assert.deepStrictEqual(missed, [])
      // Those that left are delivered as they ended, the others as open.
      assert.deepStrictEqual(range(0, 30).map((i) => last.get(String(5_000 + i))), range(0, 30).map(() => "cancelled"))
      assert.deepStrictEqual(range(30, 150).map((i) => last.get(String(5_000 + i))), range(30, 150).map(() => "open"))
    }))
})

describe("push private session: open orders read over the client", () => {
  const addOpen = (venue: ScriptedVenue, count: number) => {
    for (let i = 0; i < count; i++) {
      venue.orders.push({
        orderId: 720_000_000_000_000_000n + BigInt(venue.orders.length),
        symbol: SYMBOL,
        clientOrderId: `b${venue.orders.length}`,
        side: "buy",
        orderType: "limit",
        price: "100",
        quantity: "1",
        cTime: 1_000 + i
      })
    }
  }

  it.effect("a read in one answer is whole: one request, not read again", () => {
    const venue = new ScriptedVenue()
    addOpen(venue, 30)
    return Effect.gen(function*() {
      const read = yield* withClient(venue, (client) => readOpenOrders(restOf(client), SYMBOL))
      assert.strictEqual(read.orders.length, 30)
      assert.strictEqual(venue.count(OPEN_ORDERS), 1)
    })
  })

  it.effect("a read of two answers is read again until two reads agree", () => {
    // 130 orders in answers of 100 and 30: an order of the first leaving before the second is asked would hide one.
    const venue = new ScriptedVenue()
    addOpen(venue, 130)
    return Effect.gen(function*() {
      const read = yield* withClient(venue, (client) => readOpenOrders(restOf(client), SYMBOL))
      assert.strictEqual(new Set(read.orders.map((order) => order.orderId)).size, 130)
      assert.strictEqual(venue.count(OPEN_ORDERS), 4)
    })
  })
})

describe("push private session: the stream's start", () => {
  const ended = (orderId: string, updatedTime: number) => filledMarketBuy(orderId, updatedTime - 1, updatedTime)
  const filledAt = (orderId: string, time: number): Model.Fill => ({ ...fill(`f-${orderId}`, time), orderId })

  it.effect("an order that ended before the start (within the overlap) is not delivered, as its fill is not", () =>
    Effect.gen(function*() {
      // The session starts at 50 and reads back 5 ms: one order ended at 48 (before the start), one at 52 (after).
      const fills = [filledAt("before", 48), filledAt("after", 52)]
      const orders = [ended("before", 48), ended("after", 52)]
      const { activate, control, fillSink, session } = yield* setup([], { rest: honest(fills, orders) })
      const orderSink = yield* Queue.bounded<Model.OrderUpdate, PushError.PushErrorReason | Cause.Done>(100)
      session.attachOrders(orderSink)
      yield* activate
      yield* Effect.yieldNow
      assert.deepStrictEqual(drain(fillSink).map((f) => f.orderId), ["after"])
      assert.deepStrictEqual(drain(orderSink).map((o) => o.orderId), ["after"])
      // Recorded all the same: a push of its end (the venue's at least once) is no news either.
      session.onFrame(
        frame("orders", 1, {
          orderInfo: [{
            id: "before",
            symbolName: "BTCUSDT_SPBL",
            orderSide: "BUY",
            type: "MARKET",
            status: "FILLED",
            size: "1",
            cumFillSize: "1",
            createdTime: "47",
            updatedTime: "48"
          }]
        }),
        control
      )
      assert.deepStrictEqual(drain(orderSink), [])
    }))

  it.effect("an order that ended before the start, asked for by a fill's id, is not delivered", () =>
    Effect.gen(function*() {
      // Its record not listed after the bound (created long before), its fill is: the order is asked for by id.
      const fills = [filledAt("old", 48)]
      const orders = [{ ...ended("old", 48), createdTime: 1 }]
      const { activate, fillSink, session } = yield* setup([], { rest: honest(fills, orders) })
      const orderSink = yield* Queue.bounded<Model.OrderUpdate, PushError.PushErrorReason | Cause.Done>(100)
      session.attachOrders(orderSink)
      yield* activate
      yield* Effect.yieldNow
      assert.deepStrictEqual(drain(fillSink), [])
      assert.deepStrictEqual(drain(orderSink), [])
    }))
})
