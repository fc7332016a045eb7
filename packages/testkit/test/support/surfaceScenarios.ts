/**
 * The conformance scenarios of the trading surface (issue #14): every operation added to `SpotClient` — cancels,
 * order lookup, history and fill streams, balances, symbol rules and the tick/step check, server time, transfer
 * status — and the recoveries of a lost answer through them, driven through the client against the test exchange.
 * `conformance.test.ts` runs them with the others over both transports. The demo seed is described in
 * `conformance.ts`; BTCUSDT_SPBL has a tick of 0.01 and a step of 0.000001.
 */
import { assert } from "@effect/vitest"
import { Order, type SpotError, Venue } from "@spotkit/core"
import { Effect, Option, Stream } from "effect"
import { Fault, type TestExchange } from "../../src/index.ts"
import {
  assertBigId,
  balanceOf,
  baseExchange,
  BTC,
  dec,
  ETH,
  failureOf,
  fills,
  limitOrder,
  marketOrder,
  noFills,
  orderByCid,
  outcome,
  type Scenario,
  successOf,
  wireLog
} from "./conformance.ts"

const UNKNOWN_ORDER_ID = "1001999999999999999"

/** Newest first, as the venue serves history and fills: time, then id, descending. */
const newestFirst = <A>(items: ReadonlyArray<A>, time: (a: A) => string | number, id: (a: A) => string) =>
  items.slice().sort((a, b) => {
    const dt = Number(time(b)) - Number(time(a))
    if (dt !== 0) return dt
    const ia = BigInt(id(a))
    const ib = BigInt(id(b))
    return ia === ib ? 0 : ib > ia ? 1 : -1
  })

/** The reason of a failed call, whole (its fields beyond the transcript's). */
const reasonOfFailure = <A>(effect: Effect.Effect<A, SpotError.SpotError>) =>
  Effect.map(Effect.flip(effect), (error) => error.reason)

/** The paths of the exchange's requests of one endpoint (a GET's with its query). */
const requestsTo = (exchange: TestExchange.Service, endpoint: Venue.Endpoint) =>
  Effect.map(exchange.requests, (records) => records.filter((r) => r.path.split("?")[0] === endpoint.path))

// ---------------------------------------------------------------------------------------------------------------
// Cancels

const cancelScenarios: ReadonlyArray<Scenario> = [
  {
    name: "cancelOrder: by orderId and by clientOrderId, Cancelled and the funds released; unknown, cancelled and " +
      "filled orders are NotOpen",
    run: ({ alice, aliceId, exchange }) =>
      Effect.gen(function*() {
        const filled = yield* alice.placeOrder(marketOrder("sell", "0.1", "c-m"))
        const before = yield* balanceOf(exchange, aliceId, "USDT")
        const a = yield* alice.placeOrder(limitOrder("buy", "29000", "0.01", "c-1"))
        const b = yield* alice.placeOrder(limitOrder("buy", "28900", "0.02", "c-2"))
        // 0.01 × 29,000 + 0.02 × 28,900 frozen.
        assert.strictEqual((yield* balanceOf(exchange, aliceId, "USDT")).frozen, "868")
        yield* exchange.clearRequests

        const byId = yield* alice.cancelOrder({ symbol: BTC, orderId: a.orderId })
        assert.deepStrictEqual<unknown>(byId, { _tag: "Cancelled", orderId: a.orderId })
        const byClientId = yield* alice.cancelOrder({ symbol: BTC, clientOrderId: "c-2" })
        assert.deepStrictEqual<unknown>(byClientId, { _tag: "Cancelled", orderId: b.orderId, clientOrderId: "c-2" })
        assert.deepStrictEqual(yield* balanceOf(exchange, aliceId, "USDT"), before)
        assert.deepStrictEqual(
          ["c-1", "c-2", "c-m"].map((cid) => orderByCid(exchange, aliceId, cid).status),
          ["cancelled", "cancelled", "full_fill"]
        )

        // Not open: an answer, not a failure.
        const again = yield* alice.cancelOrder({ symbol: BTC, orderId: a.orderId })
        const ofFilled = yield* alice.cancelOrder({ symbol: BTC, clientOrderId: "c-m" })
        const unknown = yield* alice.cancelOrder({ symbol: BTC, orderId: UNKNOWN_ORDER_ID })
        const unknownCid = yield* alice.cancelOrder({ symbol: BTC, clientOrderId: "never-placed" })
        const notOpen = (o: typeof again) => o._tag === "NotOpen" ? [o.reason, o.code, o.orderId, o.clientOrderId] : o
        assert.deepStrictEqual(notOpen(again), ["final", "43004", a.orderId, undefined])
        assert.deepStrictEqual(notOpen(ofFilled), ["final", "43004", filled.orderId, "c-m"])
        assert.deepStrictEqual(notOpen(unknown), ["unknown", "43001", UNKNOWN_ORDER_ID, undefined])
        assert.deepStrictEqual((notOpen(unknownCid) as Array<unknown>).slice(0, 2), ["unknown", "43001"])

        // Refused before sending: neither or both ids, a clientOrderId the venue would refuse.
        const invalid = yield* Effect.forEach(
          [
            { symbol: BTC } as never,
            { symbol: BTC, orderId: a.orderId, clientOrderId: "c-1" } as never,
            { symbol: BTC, clientOrderId: "has space" }
          ],
          (ref) => outcome(alice.cancelOrder(ref))
        )
        for (const refused of invalid) assert.strictEqual(failureOf(refused).error, "ValidationError")

        const wire = yield* wireLog(exchange)
        assert.deepStrictEqual(wire.map((r) => [r.endpoint, r.status]), Array(6).fill(["cancelOrder", 200]))
        return {
          outcomes: [byId, byClientId, again, ofFilled, unknown, unknownCid].map((o) => ({ ...o, message: null })),
          invalid,
          wire
        }
      })
  },
  {
    name: "cancelOrder — AppliedLost: the retry answers 43004; the order's status says it was this cancel: Cancelled",
    run: ({ alice, aliceId, exchange }) =>
      Effect.gen(function*() {
        const placed = yield* alice.placeOrder(limitOrder("buy", "29000", "0.01", "cl-1"))
        yield* exchange.clearRequests
        yield* exchange.injectFault({ fault: Fault.appliedLost, path: Venue.endpoints.cancelOrder.path, times: 1 })
        const cancelled = yield* alice.cancelOrder({ symbol: BTC, clientOrderId: "cl-1" })
        assert.deepStrictEqual<unknown>(cancelled, {
          _tag: "Cancelled",
          orderId: placed.orderId,
          clientOrderId: "cl-1"
        })
        assert.strictEqual(orderByCid(exchange, aliceId, "cl-1").status, "cancelled")
        const wire = yield* wireLog(exchange)
        assert.deepStrictEqual(wire.map((r) => [r.endpoint, r.status, r.fault]), [
          ["cancelOrder", null, "AppliedLost"],
          ["cancelOrder", 200, null],
          ["order", 200, null]
        ])
        return { cancelled, wire }
      })
  },
  {
    name: "cancelOrders: 104 items by orderId and clientOrderId go in chunks of 50, one outcome each in input order",
    run: ({ alice, aliceId, exchange }) =>
      Effect.gen(function*() {
        const placed: Array<string> = []
        for (let i = 0; i < 100; i++) {
          placed.push((yield* alice.placeOrder(limitOrder("buy", String(20000 + i), "0.001", `k-${i}`))).orderId)
        }
        const filled = yield* alice.placeOrder(marketOrder("sell", "0.1", "k-filled"))
        yield* exchange.clearRequests
        const refs: Array<Order.OrderRef> = placed.map((orderId, i) =>
          i % 2 === 0 ? { orderId } : { clientOrderId: `k-${i}` }
        )
        // Among them: an unknown id, a filled order, an id the client refuses, and the unknown id again.
        refs.splice(7, 0, { orderId: UNKNOWN_ORDER_ID })
        refs.splice(60, 0, { clientOrderId: "k-filled" })
        refs.splice(61, 0, { clientOrderId: "not valid!" })
        refs.push({ orderId: UNKNOWN_ORDER_ID })
        const result = yield* alice.cancelOrders(BTC, refs)

        assert.strictEqual(result.outcomes.length, 104)
        assert.deepStrictEqual([result.cancelled, result.notOpen, result.failed], [100, 3, 1])
        result.outcomes.forEach((o, index) => {
          assert.strictEqual(o.index, index)
          const ref = refs[index]!
          if (ref.orderId !== undefined) assert.strictEqual(o.orderId, ref.orderId, `item ${index}`)
          else assert.strictEqual(o.clientOrderId, ref.clientOrderId, `item ${index}`)
        })
        const tags = result.outcomes.map((o) => o._tag === "NotOpen" ? `NotOpen:${o.reason}` : o._tag)
        assert.deepStrictEqual(tags[7], "NotOpen:unknown")
        assert.deepStrictEqual(tags[60], "NotOpen:final")
        assert.deepStrictEqual(tags[61], "Failed")
        assert.deepStrictEqual(tags[103], "NotOpen:unknown")
        assert.strictEqual(tags.filter((t) => t === "Cancelled").length, 100)
        const ofFilled = result.outcomes[60]!
        assert.strictEqual(ofFilled._tag === "NotOpen" ? ofFilled.code : undefined, "43004")
        assert.strictEqual(ofFilled.clientOrderId, "k-filled")
        assert.notStrictEqual(filled.orderId, undefined)
        assert.strictEqual(result.outcomes[61]!._tag === "Failed" ? result.outcomes[61]!.code : "", "ValidationError")

        const orders = yield* exchange.orders(aliceId)
        assert.strictEqual(orders.filter((o) => o.status === "cancelled").length, 100)
        assert.strictEqual((yield* balanceOf(exchange, aliceId, "USDT")).frozen, "0")
        // 52 orderIds (50 + 2) and 51 clientOrderIds (50 + 1): four requests.
        const wire = yield* wireLog(exchange)
        assert.deepStrictEqual(wire.map((r) => [r.endpoint, r.status]), Array(4).fill(["cancelOrders", 200]))
        return { outcomes: result.outcomes.map((o) => ({ ...o, message: null })), wire }
      })
  },
  {
    name: "cancelAll: every open order of the symbol cancelled, another symbol's left open; then nothing to cancel",
    run: ({ alice, aliceId, exchange }) =>
      Effect.gen(function*() {
        const btc: Array<string> = []
        for (let i = 0; i < 7; i++) {
          btc.push((yield* alice.placeOrder(limitOrder("buy", String(29000 - i), "0.01", `ca-${i}`))).orderId)
        }
        const eth = yield* alice.placeOrder(limitOrder("buy", "1500", "0.01", "ca-eth", "normal", ETH))
        yield* exchange.clearRequests
        const all = yield* alice.cancelAll(BTC)
        const cancelled = all.outcomes.map((outcome) => outcome._tag === "Cancelled" ? outcome.orderId : outcome._tag)
        assert.deepStrictEqual<ReadonlyArray<string | undefined>>(cancelled.slice().sort(), btc.slice().sort())
        assert.deepStrictEqual([all.cancelled, all.notOpen, all.failed], [7, 0, 0])
        const open = yield* Stream.runCollect(alice.openOrders({ symbol: BTC }))
        assert.strictEqual(open.length, 0)
        assert.strictEqual(orderByCid(exchange, aliceId, "ca-eth").status, "open")
        assert.strictEqual(eth.clientOrderId, "ca-eth")
        const none = yield* alice.cancelAll(BTC)
        assert.deepStrictEqual(none, { outcomes: [], cancelled: 0, notOpen: 0, failed: 0, complete: true })
        const wire = yield* wireLog(exchange)
        assert.deepStrictEqual(wire.map((r) => r.endpoint), ["cancelAll", "openOrders", "cancelAll"])
        return { cancelled: cancelled.slice().sort(), wire }
      })
  }
]

// ---------------------------------------------------------------------------------------------------------------
// One order, history and fills

const orderScenarios: ReadonlyArray<Scenario> = [
  {
    name: "order: by orderId and by clientOrderId, open, partly filled, filled and cancelled orders as the venue " +
      "names them; an unknown id is None",
    run: ({ alice, aliceId, exchange }) =>
      Effect.gen(function*() {
        yield* alice.placeOrder(limitOrder("buy", "29000", "0.01", "o-open"))
        // 0.8 at 30,005: the 0.5 on offer fills, 0.3 rests.
        yield* alice.placeOrder(limitOrder("buy", "30005", "0.8", "o-part"))
        yield* alice.placeOrder(marketOrder("sell", "0.1", "o-filled"))
        const toCancel = yield* alice.placeOrder(limitOrder("buy", "28000", "0.01", "o-cancelled"))
        yield* alice.cancelOrder({ symbol: BTC, orderId: toCancel.orderId })
        // IOC for 2 at 30,010: 0.5 fills, the rest is cancelled with its fills.
        yield* alice.placeOrder(limitOrder("buy", "30010", "2", "o-ioc", "ioc"))
        const expected = [
          ["o-open", "open", false],
          ["o-part", "partial_fill", false],
          ["o-filled", "full_fill", true],
          ["o-cancelled", "cancelled", true],
          ["o-ioc", "cancelled", true]
        ] as const
        const seen = []
        for (const [cid, status, final] of expected) {
          const engine = orderByCid(exchange, aliceId, cid)
          assert.strictEqual(engine.status, status)
          const byCid = Option.getOrThrow(yield* alice.order({ clientOrderId: cid }))
          const byId = Option.getOrThrow(yield* alice.order({ orderId: engine.orderId }))
          assert.deepStrictEqual(byId, byCid)
          assert.strictEqual(byCid.orderId, engine.orderId)
          assert.strictEqual(byCid.clientOrderId, cid)
          assert.strictEqual(byCid.status, status)
          assert.strictEqual(Order.isFinal(byCid.status), final, cid)
          assert.deepStrictEqual({ ...fills(byCid), status: engine.status }, fills(engine))
          assert.deepStrictEqual([String(byCid.cTime), String(byCid.uTime)], [engine.cTime, engine.uTime])
          seen.push({ cid, ...fills(byCid), orderId: byCid.orderId })
        }
        assert.deepStrictEqual(fills(orderByCid(exchange, aliceId, "o-open")), { status: "open", ...noFills })
        assert.strictEqual(dec(orderByCid(exchange, aliceId, "o-ioc").fillQuantity), "0.5")
        assert.isTrue(Option.isNone(yield* alice.order({ orderId: UNKNOWN_ORDER_ID })))
        assert.isTrue(Option.isNone(yield* alice.order({ clientOrderId: "never-placed" })))
        // Another user's order is not alice's to see.
        const bobs = (yield* exchange.orders(exchange.accounts[1]!.userId))[0]!
        assert.isTrue(Option.isNone(yield* alice.order({ orderId: bobs.orderId })))
        return { seen }
      })
  },
  {
    name: "orderHistory and fills: streams by time, newest first, every record once, as the engine holds them",
    run: ({ alice, aliceId, exchange }) =>
      Effect.gen(function*() {
        // Orders of every kind, many in the same millisecond: resting, cancelled, filled in several fills.
        for (let i = 0; i < 12; i++) yield* alice.placeOrder(limitOrder("buy", String(28000 + i), "0.01", `h-r${i}`))
        for (let i = 0; i < 6; i++) {
          const placed = yield* alice.placeOrder(limitOrder("buy", String(27000 + i), "0.01", `h-c${i}`))
          yield* alice.cancelOrder({ symbol: BTC, orderId: placed.orderId })
        }
        // Market buys of 20,000 USDT: each takes 0.5 at 30,005 … several asks, several fills.
        for (let i = 0; i < 3; i++) yield* alice.placeOrder(marketOrder("buy", "20000", `h-m${i}`))
        for (let i = 0; i < 5; i++) yield* alice.placeOrder(marketOrder("sell", "0.3", `h-s${i}`))
        yield* alice.placeOrder(limitOrder("buy", "1500", "0.1", "h-eth", "normal", ETH))

        const engineOrders = newestFirst(
          (yield* exchange.orders(aliceId)).filter((o) => o.symbol === BTC),
          (o) => o.cTime,
          (o) => o.orderId
        )
        assert.strictEqual(engineOrders.length, 26)
        yield* exchange.clearRequests
        const history = yield* Stream.runCollect(alice.orderHistory({ symbol: BTC, pageSize: 4 }))
        assert.deepStrictEqual(history.map((o) => o.orderId), engineOrders.map((o) => o.orderId))
        assert.deepStrictEqual(history.map((o) => o.status), engineOrders.map((o) => o.status))
        // 26 orders, 4 a page (more where a millisecond holds more than a page: the transports differ there).
        assert.isAtLeast((yield* wireLog(exchange)).length, 7)

        const engineFills = newestFirst(
          (yield* exchange.fills(aliceId)).filter((f) => f.symbol === BTC),
          (f) => f.cTime,
          (f) => f.fillId
        )
        assert.isAbove(engineFills.length, 8)
        const streamed = yield* Stream.runCollect(alice.fills({ symbol: BTC, pageSize: 3 }))
        assert.deepStrictEqual(streamed.map((f) => f.fillId), engineFills.map((f) => f.fillId))
        assert.deepStrictEqual(
          streamed.map((f) => [f.orderId, dec(f.fillPrice), dec(f.fillQuantity), dec(f.fillTotalAmount), dec(f.fees)]),
          engineFills.map((
            f
          ) => [f.orderId, dec(f.fillPrice), dec(f.fillQuantity), dec(f.fillTotalAmount), dec(f.fees)])
        )
        // One order's fills add up to its filled quantity.
        const market = orderByCid(exchange, aliceId, "h-m0")
        const ofOne = yield* Stream.runCollect(alice.fills({ symbol: BTC, orderId: market.orderId }))
        assert.isAbove(ofOne.length, 1)
        assert.isTrue(ofOne.every((f) => f.orderId === market.orderId))
        const total = ofOne.reduce((sum, f) => sum + Number(f.fillQuantity), 0)
        assert.strictEqual(total.toFixed(6), Number(market.fillQuantity).toFixed(6))

        // Orders placed while the stream pages are newer than where it stands: it yields each old one once.
        let placedMeanwhile = 0
        const during = yield* Stream.runCollect(
          alice.orderHistory({ symbol: BTC, pageSize: 5 }).pipe(
            Stream.tap((_, i = placedMeanwhile) =>
              i < 3
                ? Effect.andThen(
                  alice.placeOrder(limitOrder("buy", String(26000 + i), "0.01", `h-new${i}`)),
                  Effect.sync(() => placedMeanwhile++)
                )
                : Effect.void
            )
          )
        )
        const ids = during.map((o) => o.orderId)
        assert.strictEqual(new Set(ids).size, ids.length, "no order twice")
        for (const o of engineOrders) assert.include(ids, o.orderId)
        for (const o of during) {
          assert.isTrue(
            engineOrders.some((e) => e.orderId === o.orderId) || o.clientOrderId.startsWith("h-new"),
            o.clientOrderId
          )
        }
        const eth = yield* Stream.runCollect(alice.orderHistory({ symbol: ETH }))
        assert.deepStrictEqual(eth.map((o) => o.clientOrderId), ["h-eth"])
        return {
          history: history.map((o) => [o.orderId, o.status]),
          fills: streamed.map((f) => f.fillId),
          ofOne: ofOne.map((f) => f.fillId)
        }
      })
  }
]

// ---------------------------------------------------------------------------------------------------------------
// Account and market data

const accountScenarios: ReadonlyArray<Scenario> = [
  {
    name: "balances: the spot account's coins as the engine holds them, available + frozen = equity",
    run: ({ alice, aliceId, exchange }) =>
      Effect.gen(function*() {
        yield* alice.placeOrder(limitOrder("buy", "29000", "0.5", "bal-1"))
        yield* alice.placeOrder(limitOrder("sell", "2000", "3", "bal-2", "normal", ETH))
        yield* exchange.clearRequests
        const balances = yield* alice.balances()
        const engine = yield* Effect.orDie(exchange.spotBalances(aliceId))
        const view = (b: { coinId: number; coinName: string; available: string; frozen: string; equity: string }) => [
          b.coinId,
          b.coinName,
          dec(b.available),
          dec(b.frozen),
          dec(b.equity)
        ]
        assert.deepStrictEqual(balances.map(view), engine.map(view))
        const byCoin = new Map(balances.map((b) => [b.coinName, b]))
        assert.deepStrictEqual(view(byCoin.get("USDT")!).slice(2), ["985500", "14500", "1000000"])
        assert.deepStrictEqual(view(byCoin.get("ETH")!).slice(2), ["97", "3", "100"])
        const wire = yield* wireLog(exchange)
        assert.deepStrictEqual(wire.map((r) => [r.endpoint, r.status]), [["balances", 200]])
        return { balances: balances.map(view), wire }
      })
  },
  {
    name:
      "symbols and symbol: every product's rules from exchangeInfo, loaded once and cached; refreshSymbols asks again",
    run: ({ alice, exchange }) =>
      Effect.gen(function*() {
        const rules = yield* alice.symbols()
        const engine = yield* exchange.symbolRules
        const view = (r: {
          symbol: string
          tickSize: string
          stepSize: string
          minTradeAmount: string
          maxTradeAmount: string
          takerFeeRate: string
          makerFeeRate: string
          enableTrade: boolean
        }) => [
          r.symbol,
          r.tickSize,
          r.stepSize,
          r.minTradeAmount,
          r.maxTradeAmount,
          r.takerFeeRate,
          r.makerFeeRate,
          r.enableTrade
        ]
        assert.deepStrictEqual(rules.map(view), engine.map(view))
        const btc = Option.getOrThrow(yield* alice.symbol(BTC))
        assert.deepStrictEqual([btc.baseCoin, btc.quoteCoin, btc.tickSize, btc.stepSize], [
          "BTC",
          "USDT",
          "0.01",
          "0.000001"
        ])
        assert.isTrue(Option.isNone(yield* alice.symbol("DOGEUSDT_SPBL")))
        assert.strictEqual((yield* requestsTo(exchange, Venue.endpoints.exchangeInfo)).length, 1, "cached")
        yield* alice.refreshSymbols()
        assert.strictEqual((yield* requestsTo(exchange, Venue.endpoints.exchangeInfo)).length, 2)
        return { rules: rules.map(view) }
      })
  },
  {
    name: "the tick/step check: a bad price or quantity refused before sending with the nearest valid values; " +
      "in a batch only its item fails; off, the venue refuses it (40808)",
    run: ({ alice, aliceId, client, exchange }) =>
      Effect.gen(function*() {
        const tick = yield* reasonOfFailure(alice.placeOrder(limitOrder("buy", "29000.005", "0.01", "t-1")))
        const step = yield* reasonOfFailure(alice.placeOrder(limitOrder("buy", "29000", "0.0100005", "t-2")))
        const sell = yield* reasonOfFailure(alice.placeOrder(marketOrder("sell", "0.0000001", "t-3")))
        const view = (reason: SpotError.SpotErrorReason) =>
          reason._tag === "SymbolRuleError"
            ? {
              rule: reason.rule,
              field: reason.field,
              value: reason.value,
              limit: reason.limit,
              nearest: reason.nearest
            }
            : { unexpected: reason._tag }
        assert.deepStrictEqual(view(tick), {
          rule: "tickSize",
          field: "price",
          value: "29000.005",
          limit: "0.01",
          // At the tick's scale.
          nearest: ["29000.00", "29000.01"]
        })
        assert.deepStrictEqual(view(step), {
          rule: "stepSize",
          field: "quantity",
          value: "0.0100005",
          limit: "0.000001",
          nearest: ["0.010000", "0.010001"]
        })
        assert.deepStrictEqual(view(sell), {
          rule: "stepSize",
          field: "quantity",
          value: "0.0000001",
          limit: "0.000001",
          nearest: ["0.000001"]
        })
        assert.include(tick.message, "nearest valid: 29000.00 or 29000.01")
        // Nothing was sent: the rules were loaded once, no order reached the venue.
        assert.deepStrictEqual(yield* wireLog(exchange), [])
        assert.strictEqual((yield* requestsTo(exchange, Venue.endpoints.exchangeInfo)).length, 1)
        assert.strictEqual((yield* exchange.orders(aliceId)).length, 0)

        const batch = yield* alice.placeOrders(BTC, [
          { side: "buy", orderType: "limit", price: "29000", quantity: "0.01", clientOrderId: "tb-0" },
          { side: "buy", orderType: "limit", price: "29000.001", quantity: "0.01", clientOrderId: "tb-1" },
          { side: "buy", orderType: "limit", price: "28999.99", quantity: "0.01", clientOrderId: "tb-2" }
        ])
        assert.deepStrictEqual(batch.outcomes.map((o) => o._tag === "Failed" ? o.code : o._tag), [
          "Placed",
          "SymbolRuleError",
          "Placed"
        ])
        assert.include(batch.outcomes[1]!._tag === "Failed" ? batch.outcomes[1]!.message : "", "29000.00 or 29000.01")

        // With the check off, the same order goes out and the venue refuses it.
        const unchecked = yield* client({ checkSymbolRules: false })
        const refused = yield* outcome(unchecked.placeOrder(limitOrder("buy", "29000.005", "0.01", "t-4")))
        assert.deepStrictEqual(failureOf(refused), { error: "InvalidOrderError", code: "40808", httpStatus: 400 })
        const wire = yield* wireLog(exchange)
        assert.deepStrictEqual(wire.map((r) => [r.endpoint, r.code]), [["placeOrders", "00000"], [
          "placeOrder",
          "40808"
        ]])
        return {
          tick: view(tick),
          step: view(step),
          sell: view(sell),
          batch: batch.outcomes.map((o) => o._tag),
          refused,
          wire
        }
      })
  },
  {
    name: "serverTime: the exchange's clock; a new client asks it once, before its first signed request",
    run: ({ client, exchange }) =>
      Effect.gen(function*() {
        yield* exchange.clearRequests
        const fresh = yield* client()
        yield* fresh.balances()
        yield* fresh.balances()
        const paths = (yield* exchange.requests).map((r) => r.path)
        assert.deepStrictEqual(paths, [
          Venue.endpoints.serverTime.path,
          Venue.endpoints.balances.path,
          Venue.endpoints.balances.path
        ])
        const time = yield* fresh.serverTime()
        assert.isTrue(Math.abs(time - Date.now()) < 5_000, `server time ${time}`)
        assert.isTrue(Math.abs(yield* fresh.clockOffset) < 5_000)
        const off = yield* client({ syncServerTime: false })
        yield* exchange.clearRequests
        yield* off.balances()
        assert.deepStrictEqual((yield* exchange.requests).map((r) => r.path), [Venue.endpoints.balances.path])
        return { paths }
      })
  }
]

// ---------------------------------------------------------------------------------------------------------------
// Transfers

const transfer = (toUserId: string, amount: string, coin: "USDT" | "BTC" = "USDT") => ({
  toUserId,
  coin,
  amount,
  fromAccountType: "FUND" as const,
  toAccountType: "SPOT" as const
})

const transferScenarios: ReadonlyArray<Scenario> = [
  {
    name: "transferStatus: the transfers with their status, by coin and by id; ids and user ids exact",
    run: ({ alice, aliceId, bobId, exchange }) =>
      Effect.gen(function*() {
        const t1 = yield* alice.internalTransfer(transfer(bobId, "10"))
        const t2 = yield* alice.internalTransfer(transfer(bobId, "20.5"))
        const t3 = yield* alice.internalTransfer(transfer(bobId, "0.25", "BTC"))
        yield* exchange.clearRequests
        const usdt = yield* alice.transferStatus({ coin: "USDT" })
        const view = (
          r: (typeof usdt)[number]
        ) => [r.withdrawId, r.fromUserId, r.toUserId, r.coin, dec(r.amount), r.status]
        assert.deepStrictEqual(
          usdt.map(view).sort(),
          [
            [t1.id, aliceId, bobId, "USDT", "10", "SUCCESS"],
            [t2.id, aliceId, bobId, "USDT", "20.5", "SUCCESS"]
          ].sort()
        )
        for (const record of usdt) {
          assertBigId(record.fromUserId, "fromUserId")
          assertBigId(record.toUserId, "toUserId")
        }
        const byId = yield* alice.transferStatus({ withdrawId: t3.id })
        assert.deepStrictEqual(byId.map(view), [[t3.id, aliceId, bobId, "BTC", "0.25", "SUCCESS"]])
        const engine = yield* Effect.orDie(exchange.transfers(aliceId))
        assert.deepStrictEqual(byId[0]!.createTime, engine.find((t) => t.id === t3.id)!.createTime)
        const wire = yield* wireLog(exchange)
        assert.deepStrictEqual(wire.map((r) => [r.endpoint, r.status, r.code]), [
          ["transferStatus", 200, "200"],
          ["transferStatus", 200, "200"]
        ])
        return { usdt: usdt.map(view).sort(), byId: byId.map(view), wire }
      })
  },
  {
    name: "transfers: every transfer of the filter, newest first, each once, over pages; the engine's list",
    run: ({ alice, aliceId, bobId, exchange }) =>
      Effect.gen(function*() {
        for (let i = 1; i <= 5; i++) yield* alice.internalTransfer(transfer(bobId, String(i)))
        yield* alice.internalTransfer(transfer(bobId, "0.5", "BTC"))
        yield* exchange.clearRequests
        const listed = yield* Stream.runCollect(alice.transfers({ coin: "USDT", pageSize: 2 }))
        const engine = (yield* Effect.orDie(exchange.transfers(aliceId))).filter((t) => t.coin === "USDT")
        assert.deepStrictEqual(
          listed.map((r) => r.withdrawId),
          newestFirst(engine, (t) => t.createTime, (t) => t.id).map((t) => t.id)
        )
        assert.deepStrictEqual(listed.map((r) => dec(r.amount)), ["5", "4", "3", "2", "1"])
        const wire = yield* wireLog(exchange)
        // Pages of 2, 2 and 1: the short third is shorter than the pages served before, the last.
        assert.deepStrictEqual(wire.map((r) => [r.endpoint, r.status, r.code]), [
          ["transferStatus", 200, "200"],
          ["transferStatus", 200, "200"],
          ["transferStatus", 200, "200"]
        ])
        return { listed: listed.map((r) => [r.withdrawId, dec(r.amount)]), wire }
      })
  },
  {
    name: "internalTransfer — AppliedLost on the second of two like transfers: the one the client knows is left " +
      "out, the lost one answered with its id; a client that knows neither gets the candidates",
    run: ({ alice, aliceId, bobId, client, exchange }) =>
      Effect.gen(function*() {
        const first = yield* alice.internalTransfer(transfer(bobId, "10"))
        yield* exchange.injectFault({ fault: Fault.appliedLost, path: Venue.endpoints.internalTransfer.path, times: 1 })
        const second = yield* alice.internalTransfer(transfer(bobId, "10"))
        const engine = yield* Effect.orDie(exchange.transfers(aliceId))
        assert.deepStrictEqual(engine.map((t) => t.id), [first.id, second.id])
        assert.notStrictEqual(second.id, first.id)
        assert.deepStrictEqual(second, { id: engine[1]!.id, timestamp: engine[1]!.createTime, status: "SUCCESS" })

        // Another client of alice knows none of them: three transfers match, none is sent again.
        const other = yield* client()
        yield* exchange.injectFault({ fault: Fault.appliedLost, path: Venue.endpoints.internalTransfer.path, times: 1 })
        const unknown = failureOf(yield* outcome(other.internalTransfer(transfer(bobId, "10"))))
        const all = yield* Effect.orDie(exchange.transfers(aliceId))
        assert.strictEqual(all.length, 3)
        // Newest first, as the venue lists them.
        assert.deepStrictEqual(unknown, {
          error: "OutcomeUnknownError",
          candidates: newestFirst(all, (t) => t.createTime, (t) => t.id).map((t) => t.id)
        })
        assert.deepStrictEqual(
          yield* balanceOf(exchange, aliceId, "USDT", "FUND"),
          { available: "49970", frozen: "0" }
        )
        const wire = yield* wireLog(exchange)
        assert.deepStrictEqual(wire.map((r) => [r.endpoint, r.fault]), [
          ["internalTransfer", null],
          ["internalTransfer", "AppliedLost"],
          ["transferStatus", null],
          ["internalTransfer", "AppliedLost"],
          ["transferStatus", null]
        ])
        return { recovered: second.id === all[1]!.id, candidates: unknown.candidates?.length, wire }
      })
  },
  {
    name: "fault on placeOrder — Truncated on an IOC order partly filled: found cancelled with its fills; its orderId",
    run: ({ alice, aliceId, exchange }) =>
      Effect.gen(function*() {
        yield* exchange.injectFault({ fault: Fault.truncated, path: Venue.endpoints.placeOrder.path, times: 1 })
        const result = yield* outcome(alice.placeOrder(limitOrder("buy", "30005", "2", "lost-ioc", "ioc")))
        const engine = orderByCid(exchange, aliceId, "lost-ioc")
        assert.deepStrictEqual(successOf(result), { orderId: engine.orderId, clientOrderId: "lost-ioc" })
        assert.deepStrictEqual(fills(engine).status, "cancelled")
        assert.strictEqual(dec(engine.fillQuantity), "0.5")
        const wire = yield* wireLog(exchange)
        assert.deepStrictEqual(wire.map((r) => [r.endpoint, r.status, r.code, r.fault]), [
          ["placeOrder", 200, "00000", "Truncated"],
          ["placeOrder", 400, "43118", null],
          ["order", 200, "00000", null]
        ])
        return { result, wire }
      })
  }
]

/** Every scenario of the trading surface. */
export const surfaceScenarios: ReadonlyArray<Scenario> = [
  ...cancelScenarios,
  ...orderScenarios,
  ...accountScenarios,
  ...transferScenarios
].map((scenario) => ({ ...scenario, exchange: scenario.exchange ?? baseExchange() }))
