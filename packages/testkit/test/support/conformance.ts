/**
 * The conformance scenarios: one list, each an Effect that drives the core `SpotClient` against a freshly seeded
 * `TestExchange` and returns a transcript (results, error reasons and codes, the requests the exchange saw, with
 * nothing transport-specific such as times or transport error texts). `conformance.test.ts` runs every scenario
 * over the in-process transport and over the sandbox (real loopback HTTP) and asserts the transcripts are equal.
 *
 * Every expected figure is worked out by hand from the demo seed (`TestExchange.demo`): alice holds SPOT 1,000,000
 * USDT, 10 BTC, 100 ETH and FUND 50,000 USDT, 2 BTC; bob holds SPOT 5,000,000 USDT, 500 BTC, 5,000 ETH and FUND
 * 10,000 USDT, and rests 0.5 BTC on every 5.00 step from 29,995 down to 29,900 (bids) and from 30,005 up to 30,100
 * (asks) on BTCUSDT_SPBL (price 2 decimals, quantity 6, market-buy quote amount 2, minimum value 5 USDT). Fills
 * are at the maker's price; fees are floor(what a side receives × 0.001) in 10^-8 units.
 */
import { assert } from "@effect/vitest"
import { SpotClient, Venue } from "@spotkit/core"
import type { Order, SpotError } from "@spotkit/core"
import { Duration, Effect, Layer, Redacted, Stream } from "effect"
import { FetchHttpClient, HttpClient } from "effect/http"
import { Fault, Sandbox, TestExchange } from "../../src/index.ts"
import type { Engine } from "../../src/index.ts"

// ---------------------------------------------------------------------------------------------------------------
// Harness

export type Transport = "in-process" | "sandbox"

export const transports: ReadonlyArray<Transport> = ["in-process", "sandbox"]

export interface ClientOptions extends Partial<SpotClient.Options> {
  /** The account whose credentials the client uses. @default alice */
  readonly account?: TestExchange.Account | undefined
}

export interface Harness {
  readonly transport: Transport
  readonly exchange: TestExchange.Service
  /** A client acting as alice with the scenario's client options. */
  readonly alice: SpotClient.Service
  readonly aliceId: string
  readonly bobId: string
  /** Another client on the same transport (scenario options, then these). */
  readonly client: (options?: ClientOptions) => Effect.Effect<SpotClient.Service>
}

export interface Scenario {
  readonly name: string
  /** @default `demo({ bills: 0 })` with the venue's rate limits off */
  readonly exchange?: TestExchange.Options | undefined
  /** Overrides of the default client options (no client-side limiting, retries with a 5 ms base delay). */
  readonly client?: Partial<SpotClient.Options> | undefined
  /** Asserts the scenario's expectations and answers a transport-independent transcript. */
  readonly run: (harness: Harness) => Effect.Effect<unknown, unknown>
}

/** The demo exchange without a bill history and with the venue's rate limits off. */
export const baseExchange = (options: Partial<TestExchange.Options> = {}): TestExchange.Options => ({
  ...TestExchange.demo({ bills: 0 }),
  rateLimits: false,
  ...options
})

const clientDefaults: Partial<SpotClient.Options> = { rateLimit: false, retry: { baseDelay: "5 millis" } }

/** Runs one scenario on a fresh exchange over one transport; checks coin conservation afterwards. */
export const runScenario = (transport: Transport, scenario: Scenario): Effect.Effect<unknown, unknown> => {
  const exchangeLayer = TestExchange.layer(scenario.exchange ?? baseExchange())
  const body = (baseUrl: string) =>
    Effect.gen(function*() {
      const exchange = yield* TestExchange.TestExchange
      const http = yield* HttpClient.HttpClient
      const client = (options: ClientOptions = {}) => {
        const { account, ...overrides } = options
        return SpotClient.make({
          baseUrl,
          credentials: (account ?? exchange.accounts[0]!).credentials,
          ...clientDefaults,
          ...scenario.client,
          ...overrides
        }).pipe(Effect.provideService(HttpClient.HttpClient, http))
      }
      const transcript = yield* scenario.run({
        transport,
        exchange,
        alice: yield* client(),
        aliceId: exchange.accounts[0]!.userId,
        bobId: exchange.accounts[1]!.userId,
        client
      })
      // Whatever happened, no coin was created or destroyed.
      for (const total of yield* exchange.totals) {
        assert.strictEqual(
          decimalSum([total.held, total.fees]),
          units(total.supply),
          `${total.coin}: held + fees == supply`
        )
      }
      return transcript
    })
  if (transport === "in-process") {
    return body(TestExchange.inProcessBaseUrl).pipe(
      Effect.provide(TestExchange.layerHttpClient.pipe(Layer.provideMerge(exchangeLayer)))
    )
  }
  return Effect.gen(function*() {
    const sandbox = yield* Sandbox.Sandbox
    return yield* body(sandbox.baseUrl)
  }).pipe(
    Effect.provide(Layer.mergeAll(Sandbox.layer(), FetchHttpClient.layer).pipe(Layer.provideMerge(exchangeLayer)))
  )
}

// ---------------------------------------------------------------------------------------------------------------
// Helpers

export const BTC = "BTCUSDT_SPBL"
export const ETH = "ETHUSDT_SPBL"

/** Exact decimal text -> 10^-8 units as bigint (every demo coin has 8 decimals). */
export const units = (text: string): bigint => {
  const match = /^(-?)(\d+)(?:\.(\d{1,8}))?$/.exec(text)
  if (match === null) throw new Error(`not a decimal with at most 8 places: ${JSON.stringify(text)}`)
  const value = BigInt(match[2]! + (match[3] ?? "").padEnd(8, "0"))
  return match[1] === "-" ? -value : value
}

const decimalSum = (texts: ReadonlyArray<string>): bigint => texts.reduce((sum, text) => sum + units(text), 0n)

/** A decimal without insignificant zeros ("1.500000" -> "1.5", "30010.00" -> "30010"), for comparing values. */
export const dec = (text: string): string => {
  assert.match(text, /^-?\d+(\.\d+)?$/, `decimal string: ${text}`)
  return text.includes(".") ? text.replace(/0+$/, "").replace(/\.$/, "") : text
}

const TWO_53 = 2n ** 53n

/** An id of 64 bits above 2^53 given as exact digits. */
export const assertBigId = (id: string, what: string) => {
  assert.match(id, /^\d{16,20}$/, `${what} is digits`)
  assert.isTrue(BigInt(id) > TWO_53 && BigInt(id) < 2n ** 64n, `${what} ${id} lies above 2^53`)
}

/** A failure reduced to what both transports must agree on. */
export interface Failure {
  readonly error: string
  readonly code?: string
  readonly httpStatus?: number
  readonly kind?: string
  readonly afterRetry?: boolean
  readonly clientOrderId?: string
  /** The transfers an OutcomeUnknownError names as candidates (their ids). */
  readonly candidates?: ReadonlyArray<string>
}

export const reasonOf = (error: SpotError.SpotError): Failure => {
  const reason = error.reason
  return {
    error: reason._tag,
    ...("code" in reason ? { code: reason.code } : {}),
    ...("httpStatus" in reason && reason.httpStatus !== undefined ? { httpStatus: reason.httpStatus } : {}),
    ...(reason._tag === "DecodeError" ? { kind: reason.kind } : {}),
    ...(reason._tag === "DuplicateOrderError" ? { afterRetry: reason.afterRetry } : {}),
    ...("clientOrderId" in reason && reason.clientOrderId !== undefined ? { clientOrderId: reason.clientOrderId } : {}),
    ...(reason._tag === "OutcomeUnknownError" && reason.candidates !== undefined
      ? { candidates: reason.candidates.map((c) => c.withdrawId) }
      : {})
  }
}

export type Outcome<A> = { readonly ok: A } | { readonly failed: Failure }

export const outcome = <A, R>(effect: Effect.Effect<A, SpotError.SpotError, R>): Effect.Effect<Outcome<A>, never, R> =>
  Effect.match(effect, { onFailure: (error) => ({ failed: reasonOf(error) }), onSuccess: (ok) => ({ ok }) })

/** Fails the scenario unless the outcome is a failure; answers its reason. */
export const failureOf = <A>(result: Outcome<A>) => {
  if ("ok" in result) return assert.fail(`expected a failure, got ${JSON.stringify(result.ok)}`)
  return result.failed
}

/** Fails the scenario unless the outcome is a success; answers its value. */
export const successOf = <A>(result: Outcome<A>): A => {
  if ("failed" in result) return assert.fail(`expected a success, got ${JSON.stringify(result.failed)}`)
  return result.ok
}

const endpointName = new Map<string, string>(Object.values(Venue.endpoints).map((e) => [e.path, e.name]))

/** A request's path without its query (a GET's is in the path the exchange records). */
const pathOf = (path: string) => path.split("?")[0]!

const isPublic = (path: string) => {
  const endpoint = Venue.endpointByPath.get(pathOf(path))
  return endpoint !== undefined && endpoint.permission === undefined
}

/**
 * What the exchange saw, in order: endpoint, HTTP status (null when none was sent), venue code, fault. The client's
 * own public requests (the server-time sync, the symbol rules it loads before checking orders) are left out.
 */
export const wireLog = (exchange: TestExchange.Service) =>
  Effect.map(exchange.requests, (records) =>
    records.filter((record) => !isPublic(record.path)).map((record) => ({
      endpoint: endpointName.get(pathOf(record.path)) ?? record.path,
      status: record.status ?? null,
      code: record.code ?? null,
      fault: record.fault ?? null
    })))

export const limitOrder = (
  side: "buy" | "sell",
  price: string,
  quantity: string,
  clientOrderId: string,
  force: Order.Force = "normal",
  symbol: string = BTC
): Order.PlaceOrderInput => ({ symbol, side, orderType: "limit", force, price, quantity, clientOrderId })

export const marketOrder = (
  side: "buy" | "sell",
  quantity: string,
  clientOrderId: string,
  force: Order.Force = "normal",
  symbol: string = BTC
): Order.PlaceOrderInput => ({ symbol, side, orderType: "market", force, quantity, clientOrderId })

export const balanceOf = (exchange: TestExchange.Service, userId: string, coin: string, account = "SPOT") =>
  Effect.map(Effect.orDie(exchange.balances(userId)), (all) => {
    const found = all.find((b) => b.coin === coin && b.accountType === account)
    return { available: dec(found?.available ?? "0"), frozen: dec(found?.frozen ?? "0") }
  })

export const orderByCid = (exchange: TestExchange.Service, userId: string, clientOrderId: string): Engine.OrderView => {
  const order = exchange.engine.orderByClientId(userId, clientOrderId)
  if (order === undefined) return assert.fail(`no order ${clientOrderId} in the engine`)
  return order
}

/** The fill fields of an order, as comparable decimals. */
export const fills = (order: {
  readonly status: string
  readonly fillQuantity: string
  readonly fillTotalAmount: string
  readonly latestFillPrice: string
  readonly maxFillPrice: string
  readonly minFillPrice: string
}) => ({
  status: order.status,
  fillQuantity: dec(order.fillQuantity),
  fillTotalAmount: dec(order.fillTotalAmount),
  latestFillPrice: dec(order.latestFillPrice),
  maxFillPrice: dec(order.maxFillPrice),
  minFillPrice: dec(order.minFillPrice)
})

export const noFills = {
  fillQuantity: "0",
  fillTotalAmount: "0",
  latestFillPrice: "0",
  maxFillPrice: "0",
  minFillPrice: "0"
}

/** Alice's FUND bills as the engine holds them, newest first (the order the venue serves them in). */
const fundBillIds = (exchange: TestExchange.Service, userId: string) =>
  Effect.map(Effect.orDie(exchange.ledger(userId, "FUND")), (entries) => entries.map((e) => e.billId).reverse())

const assertDistinct = (ids: ReadonlyArray<string>, what: string) =>
  assert.strictEqual(new Set(ids).size, ids.length, `${what}: no id twice`)

const countTransfersOut = (exchange: TestExchange.Service, userId: string) =>
  Effect.map(
    Effect.orDie(exchange.ledger(userId, "FUND")),
    (entries) => entries.filter((e) => e.bizType === "transfer_out").length
  )

// ---------------------------------------------------------------------------------------------------------------
// Endpoints

const endpointScenarios: ReadonlyArray<Scenario> = [
  {
    name: "placeOrder: a limit order rests and its 64-bit id comes back exact",
    run: ({ alice, aliceId, exchange }) =>
      Effect.gen(function*() {
        const placed = yield* alice.placeOrder(limitOrder("buy", "29000", "0.01", "e-1"))
        const engine = orderByCid(exchange, aliceId, "e-1")
        assertBigId(placed.orderId, "orderId")
        assert.deepStrictEqual(placed, { orderId: engine.orderId, clientOrderId: "e-1" })
        // 0.01 BTC at 29,000 freezes 290 USDT.
        assert.deepStrictEqual(yield* balanceOf(exchange, aliceId, "USDT"), { available: "999710", frozen: "290" })
        const page = yield* alice.openOrdersPage({ symbol: BTC })
        assert.strictEqual(page.orderInfoResultList?.length, 1)
        const open = page.orderInfoResultList![0]!
        assert.deepStrictEqual({
          accountId: open.accountId,
          symbol: open.symbol,
          orderId: open.orderId,
          clientOrderId: open.clientOrderId,
          price: dec(open.price),
          quantity: dec(open.quantity),
          orderType: open.orderType,
          side: open.side,
          ...fills(open),
          cTime: String(open.cTime),
          uTime: String(open.uTime)
        }, {
          accountId: engine.accountId,
          symbol: BTC,
          orderId: placed.orderId,
          clientOrderId: "e-1",
          price: "29000",
          quantity: "0.01",
          orderType: "limit",
          side: "buy",
          status: "open",
          ...noFills,
          cTime: engine.cTime,
          uTime: engine.uTime
        })
        return { placed, open: { ...open, cTime: null, uTime: null }, wire: yield* wireLog(exchange) }
      })
  },
  {
    name: "placeOrders: 123 items go out in chunks of 50; invalid items fail alone, in input order",
    // The venue's own refusals of a bad tick (40808) are the point here: the client's check, which would refuse item
    // 17 before sending, has a scenario of its own (surface: the tick/step check).
    client: { checkSymbolRules: false },
    run: ({ alice, aliceId, exchange }) =>
      Effect.gen(function*() {
        yield* alice.placeOrder(limitOrder("buy", "20000", "0.001", "dup-0"))
        yield* exchange.clearRequests
        const items: Array<Order.BatchItemInput> = []
        for (let i = 0; i < 123; i++) {
          items.push({
            side: "buy",
            orderType: "limit",
            force: "normal",
            price: String(20000 + (i % 10)),
            quantity: "0.001",
            clientOrderId: `b-${i}`
          })
        }
        // Refused by the client before sending: no price, a clientOrderId repeated in the batch, a bad side.
        items[5] = { side: "buy", orderType: "limit", quantity: "0.001", clientOrderId: "b-5" }
        items[88] = { ...items[88]!, clientOrderId: "b-3" }
        items[110] = { ...items[110]!, side: "hold" as never }
        // Refused by the venue: too many price decimals, below the 5 USDT minimum, a clientOrderId in use.
        items[17] = { ...items[17]!, price: "20000.123" }
        items[40] = { ...items[40]!, quantity: "0.0001" }
        items[61] = { ...items[61]!, clientOrderId: "dup-0" }
        const result = yield* alice.placeOrders(BTC, items)

        const expectedFailures = new Map<number, { code: string; mayExist: boolean; clientOrderId: string }>([
          [5, { code: "ValidationError", mayExist: false, clientOrderId: "b-5" }],
          [17, { code: "40808", mayExist: false, clientOrderId: "b-17" }],
          [40, { code: "45110", mayExist: false, clientOrderId: "b-40" }],
          [61, { code: "43118", mayExist: true, clientOrderId: "dup-0" }],
          [88, { code: "ValidationError", mayExist: false, clientOrderId: "b-3" }],
          [110, { code: "ValidationError", mayExist: false, clientOrderId: "b-110" }]
        ])
        assert.strictEqual(result.outcomes.length, 123)
        assert.strictEqual(result.placed, 117)
        assert.strictEqual(result.failed, 6)
        let frozen = units("20") // dup-0: 0.001 × 20,000
        result.outcomes.forEach((o, i) => {
          assert.strictEqual(o.index, i)
          const failure = expectedFailures.get(i)
          if (failure !== undefined) {
            assert.strictEqual(o._tag, "Failed", `item ${i}`)
            if (o._tag === "Failed") {
              assert.deepStrictEqual(
                { code: o.code, mayExist: o.mayExist, clientOrderId: o.clientOrderId },
                failure,
                `item ${i}`
              )
            }
            return
          }
          assert.strictEqual(o._tag, "Placed", `item ${i}`)
          if (o._tag === "Placed") {
            assert.strictEqual(o.clientOrderId, `b-${i}`)
            assertBigId(o.orderId, `item ${i}`)
            assert.strictEqual(o.orderId, orderByCid(exchange, aliceId, `b-${i}`).orderId)
            frozen += BigInt(20000 + (i % 10)) * 100_000n // price × 0.001 BTC in 10^-8 USDT
          }
        })
        // The venue saw 120 valid items in three requests (50 + 50 + 20) and placed 117 of them once each.
        const wire = yield* wireLog(exchange)
        assert.deepStrictEqual(wire.map((r) => r.endpoint), ["placeOrders", "placeOrders", "placeOrders"])
        const orders = yield* exchange.orders(aliceId)
        assert.strictEqual(orders.length, 118)
        assert.strictEqual(orders.filter((o) => o.status === "open").length, 118)
        assert.strictEqual(units((yield* balanceOf(exchange, aliceId, "USDT")).frozen), frozen)
        // Item 61 may exist (43118): it says from when an order of this call could date (a time, not compared).
        const dup = result.outcomes[61]!
        assert.isTrue(dup._tag === "Failed" && typeof dup.notBefore === "number")
        const timeless = (o: Order.BatchOutcome) =>
          o._tag === "Failed" && o.notBefore !== undefined ? { notBefore: 0 } : {}
        return { outcomes: result.outcomes.map((o) => ({ ...o, message: null, ...timeless(o) })), wire }
      })
  },
  {
    name: "openOrders: 25 orders paged 7 at a time come newest first, each once",
    run: ({ alice, exchange }) =>
      Effect.gen(function*() {
        const placed: Array<string> = []
        for (let i = 0; i < 25; i++) {
          placed.push((yield* alice.placeOrder(limitOrder("buy", String(29000 - i), "0.01", `p-${i}`))).orderId)
        }
        yield* exchange.clearRequests
        const open = yield* Stream.runCollect(alice.openOrders({ symbol: BTC, pageSize: 7 }))
        assert.deepStrictEqual(open.map((o) => o.orderId), placed.slice().reverse())
        assert.deepStrictEqual(open.map((o) => o.clientOrderId), placed.map((_, i) => `p-${i}`).reverse())
        // Pages of 7, 7, 7 and 4: the short page ends the stream.
        assert.strictEqual((yield* wireLog(exchange)).length, 4)
        const last = yield* alice.openOrdersPage({ symbol: BTC, limit: 7, pageNo: 3 })
        assert.deepStrictEqual(last.orderInfoResultList?.map((o) => o.clientOrderId), ["p-3", "p-2", "p-1", "p-0"])
        // Pages of exactly 5: the sixth page is empty and ends the stream.
        yield* exchange.clearRequests
        const fives = yield* Stream.runCollect(alice.openOrders({ symbol: BTC, pageSize: 5 }))
        assert.deepStrictEqual(fives.map((o) => o.orderId), placed.slice().reverse())
        assert.strictEqual((yield* wireLog(exchange)).length, 6)
        const eth = yield* Stream.runCollect(alice.openOrders({ symbol: ETH }))
        assert.strictEqual(eth.length, 0)
        return { ids: open.map((o) => o.orderId), wire: yield* wireLog(exchange) }
      })
  },
  {
    name: "fundingBills: a history of 300 bills streams whole, newest first, with a consistent afterAmount chain",
    exchange: baseExchange({ ...TestExchange.demo({ bills: 300 }), rateLimits: false }),
    run: ({ alice, aliceId, exchange }) =>
      Effect.gen(function*() {
        const expected = yield* fundBillIds(exchange, aliceId)
        assert.strictEqual(expected.length, 302) // the history and the two demo deposits
        const bills = yield* Stream.runCollect(alice.fundingBills({ pageSize: 100 }))
        assert.deepStrictEqual(bills.map((b) => b.billId), expected)
        const small = yield* Stream.runCollect(alice.fundingBills({ pageSize: 37 }))
        assert.deepStrictEqual(small.map((b) => b.billId), expected)
        // Oldest first per coin, every afterAmount is the previous one plus deltaAmount, from zero.
        const after = new Map<string, bigint>()
        for (const bill of bills.slice().reverse()) {
          const next = (after.get(bill.coinName) ?? 0n) + units(bill.deltaAmount)
          assert.strictEqual(units(bill.afterAmount), next, `bill ${bill.billId}`)
          after.set(bill.coinName, next)
        }
        assert.strictEqual(after.get("USDT"), units((yield* balanceOf(exchange, aliceId, "USDT", "FUND")).available))
        const usdt = yield* Stream.runCollect(alice.fundingBills({ coinId: 2, pageSize: 50 }))
        assert.deepStrictEqual(
          usdt.map((b) => b.billId),
          bills.filter((b) => b.coinName === "USDT").map((b) => b.billId)
        )
        assert.isTrue(usdt.length > 0 && usdt.length < bills.length)
        // Exclusive time bounds: only bills strictly between startTime and endTime.
        const ledger = (yield* Effect.orDie(exchange.ledger(aliceId, "FUND"))).slice().reverse()
        const startTime = Number(ledger[200]!.cTime)
        const endTime = Number(ledger[50]!.cTime)
        const window = yield* Stream.runCollect(alice.fundingBills({ startTime, endTime, pageSize: 30 }))
        const inWindow = ledger.filter((e) => Number(e.cTime) > startTime && Number(e.cTime) < endTime)
        assert.isTrue(inWindow.length > 100, "the window holds most bills between the two")
        assert.deepStrictEqual(window.map((b) => b.billId), inWindow.map((e) => e.billId))
        return {
          bills: bills.map((b) => ({ ...b, cTime: null })),
          usdt: usdt.length,
          window: window.length,
          requests: (yield* wireLog(exchange)).length
        }
      })
  },
  {
    name: "internalTransfer: moves coins between users' accounts; balances and bills of both show it",
    run: ({ alice, aliceId, bobId, client, exchange }) =>
      Effect.gen(function*() {
        const bob = yield* client({ account: exchange.accounts[1] })
        const t1 = yield* alice.internalTransfer({
          toUserId: bobId,
          coin: "USDT",
          amount: "12.5",
          fromAccountType: "FUND",
          toAccountType: "SPOT"
        })
        const t2 = yield* alice.internalTransfer({
          toUserId: bobId,
          coin: "BTC",
          amount: "0.25",
          fromAccountType: "SPOT",
          toAccountType: "FUND"
        })
        const t3 = yield* alice.internalTransfer({
          toUserId: bobId,
          coin: "BTC",
          amount: "0.5",
          fromAccountType: "FUND",
          toAccountType: "FUND"
        })
        for (const t of [t1, t2, t3]) assertBigId(t.id, "transfer id")
        assertDistinct([t1.id, t2.id, t3.id], "transfer ids")
        assert.deepStrictEqual(
          {
            aliceFundUsdt: yield* balanceOf(exchange, aliceId, "USDT", "FUND"),
            aliceSpotBtc: yield* balanceOf(exchange, aliceId, "BTC", "SPOT"),
            aliceFundBtc: yield* balanceOf(exchange, aliceId, "BTC", "FUND"),
            bobSpotUsdt: yield* balanceOf(exchange, bobId, "USDT", "SPOT"),
            bobFundBtc: yield* balanceOf(exchange, bobId, "BTC", "FUND")
          },
          {
            aliceFundUsdt: { available: "49987.5", frozen: "0" },
            aliceSpotBtc: { available: "9.75", frozen: "0" },
            aliceFundBtc: { available: "1.5", frozen: "0" },
            // Bob's bids keep 498,950 USDT frozen (0.5 BTC on each of 29,995 ... 29,900, 5 ETH on 1,999.5 ... 1,990).
            bobSpotUsdt: { available: "4501062.5", frozen: "498950" },
            bobFundBtc: { available: "0.75", frozen: "0" }
          }
        )
        const view = (b: { bizType: string; coinName: string; deltaAmount: string; afterAmount: string }) => ({
          bizType: b.bizType,
          coinName: b.coinName,
          deltaAmount: dec(b.deltaAmount),
          afterAmount: dec(b.afterAmount)
        })
        // Funding bills through the client, newest first: alice's FUND side of t3 and t1 over her two deposits.
        const aliceBills = yield* Stream.runCollect(alice.fundingBills())
        assert.deepStrictEqual(aliceBills.slice(0, 2).map(view), [
          { bizType: "internal_withdraw", coinName: "BTC", deltaAmount: "-0.5", afterAmount: "1.5" },
          { bizType: "transfer_out", coinName: "USDT", deltaAmount: "-12.5", afterAmount: "49987.5" }
        ])
        assert.strictEqual(aliceBills.length, 4)
        const bobBills = yield* Stream.runCollect(bob.fundingBills())
        assert.deepStrictEqual(bobBills.map(view), [
          { bizType: "internal_deposit", coinName: "BTC", deltaAmount: "0.5", afterAmount: "0.75" },
          { bizType: "transfer_in", coinName: "BTC", deltaAmount: "0.25", afterAmount: "0.25" },
          { bizType: "deposit", coinName: "USDT", deltaAmount: "10000", afterAmount: "10000" }
        ])
        // The SPOT sides are in the ledgers (not funding bills).
        const aliceSpot = (yield* Effect.orDie(exchange.ledger(aliceId, "SPOT"))).at(-1)!
        assert.deepStrictEqual(view(aliceSpot), {
          bizType: "internal_withdraw",
          coinName: "BTC",
          deltaAmount: "-0.25",
          afterAmount: "9.75"
        })
        const bobSpot = (yield* Effect.orDie(exchange.ledger(bobId, "SPOT"))).filter((e) =>
          e.bizType === "internal_deposit"
        )
        assert.deepStrictEqual(bobSpot.map(view), [
          { bizType: "internal_deposit", coinName: "USDT", deltaAmount: "12.5", afterAmount: "5000012.5" }
        ])

        yield* exchange.clearRequests
        const transfer = (amount: string, toUserId = bobId, coin = "BTC") =>
          outcome(alice.internalTransfer({
            toUserId,
            coin: coin as "BTC",
            amount,
            fromAccountType: "FUND",
            toAccountType: "SPOT"
          }))
        const refused = {
          insufficient: failureOf(yield* transfer("2")),
          unknownUser: failureOf(yield* transfer("1", "4001000000000099999")),
          sevenDecimals: failureOf(yield* transfer("0.0000001")),
          coin: failureOf(yield* transfer("1", bobId, "ETH"))
        }
        assert.deepStrictEqual(refused, {
          insufficient: { error: "InsufficientBalanceError", code: "43012", httpStatus: 400 },
          unknownUser: { error: "InvalidRequestError", code: "40034", httpStatus: 400 },
          sevenDecimals: { error: "ValidationError" },
          coin: { error: "ValidationError" }
        })
        // Only the first two reached the venue; nothing moved.
        const wire = yield* wireLog(exchange)
        assert.strictEqual(wire.length, 2)
        assert.deepStrictEqual(yield* balanceOf(exchange, aliceId, "BTC", "FUND"), { available: "1.5", frozen: "0" })
        return { ids: [t1.id, t2.id, t3.id], aliceBills: aliceBills.map(view), refused, wire }
      })
  }
]

// ---------------------------------------------------------------------------------------------------------------
// Force types, market orders, partial fills

const forceScenarios: ReadonlyArray<Scenario> = [
  {
    name: "force normal and postOnly rest; a postOnly that would take is refused (40020)",
    run: ({ alice, aliceId, exchange }) =>
      Effect.gen(function*() {
        const normal = yield* alice.placeOrder(limitOrder("buy", "29500", "0.2", "n-1"))
        // Between the best bid 29,995 and the best ask 30,005: a maker.
        const post = yield* alice.placeOrder(limitOrder("buy", "30000", "0.2", "po-1", "postOnly"))
        const takingBuy = yield* outcome(alice.placeOrder(limitOrder("buy", "30005", "0.2", "po-2", "postOnly")))
        const takingSell = yield* outcome(alice.placeOrder(limitOrder("sell", "29995", "0.2", "po-3", "postOnly")))
        const refusal = { error: "InvalidRequestError", code: "40020", httpStatus: 400 }
        assert.deepStrictEqual(failureOf(takingBuy), refusal)
        assert.deepStrictEqual(failureOf(takingSell), refusal)
        assert.strictEqual(exchange.engine.orderByClientId(aliceId, "po-2"), undefined)
        assert.strictEqual(exchange.engine.orderByClientId(aliceId, "po-3"), undefined)
        assert.strictEqual((yield* exchange.trades).length, 0)
        const open = yield* Stream.runCollect(alice.openOrders({ symbol: BTC }))
        assert.deepStrictEqual(open.map((o) => ({ orderId: o.orderId, ...fills(o) })), [
          { orderId: post.orderId, status: "open", ...noFills },
          { orderId: normal.orderId, status: "open", ...noFills }
        ])
        // 0.2 × 29,500 + 0.2 × 30,000 frozen.
        assert.deepStrictEqual(yield* balanceOf(exchange, aliceId, "USDT"), { available: "988100", frozen: "11900" })
        return { ids: [normal.orderId, post.orderId], takingBuy, takingSell }
      })
  },
  {
    name: "force fok: all or nothing",
    run: ({ alice, aliceId, exchange }) =>
      Effect.gen(function*() {
        // 1.2 BTC up to 30,010: only 0.5 + 0.5 on offer, so nothing fills and nothing rests.
        const killed = yield* alice.placeOrder(limitOrder("buy", "30010", "1.2", "fok-1", "fok"))
        assert.deepStrictEqual(fills(orderByCid(exchange, aliceId, "fok-1")), { status: "cancelled", ...noFills })
        assert.strictEqual((yield* exchange.trades).length, 0)
        assert.deepStrictEqual(yield* balanceOf(exchange, aliceId, "USDT"), { available: "1000000", frozen: "0" })
        // 0.8 BTC: 0.5 at 30,005 and 0.3 at 30,010, at once.
        const filled = yield* alice.placeOrder(limitOrder("buy", "30010", "0.8", "fok-2", "fok"))
        assert.deepStrictEqual(fills(orderByCid(exchange, aliceId, "fok-2")), {
          status: "full_fill",
          fillQuantity: "0.8",
          fillTotalAmount: "24005.5",
          latestFillPrice: "30010",
          maxFillPrice: "30010",
          minFillPrice: "30005"
        })
        const trades = (yield* exchange.trades).map((t) => [dec(t.price), dec(t.quantity), t.takerOrderId])
        assert.deepStrictEqual(trades, [["30005", "0.5", filled.orderId], ["30010", "0.3", filled.orderId]])
        // Fees 0.0005 + 0.0003 BTC; the 0.5 bought at 30,005 under a 30,010 limit gets 2.5 USDT back.
        assert.deepStrictEqual(yield* balanceOf(exchange, aliceId, "BTC"), { available: "10.7992", frozen: "0" })
        assert.deepStrictEqual(yield* balanceOf(exchange, aliceId, "USDT"), { available: "975994.5", frozen: "0" })
        assert.strictEqual((yield* Stream.runCollect(alice.openOrders({ symbol: BTC }))).length, 0)
        return { killed, filled, trades }
      })
  },
  {
    name: "force ioc: fills what it can at once, the rest is cancelled",
    run: ({ alice, aliceId, exchange }) =>
      Effect.gen(function*() {
        const partial = yield* alice.placeOrder(limitOrder("buy", "30005", "0.8", "ioc-1", "ioc"))
        assert.deepStrictEqual(fills(orderByCid(exchange, aliceId, "ioc-1")), {
          status: "cancelled",
          fillQuantity: "0.5",
          fillTotalAmount: "15002.5",
          latestFillPrice: "30005",
          maxFillPrice: "30005",
          minFillPrice: "30005"
        })
        const none = yield* alice.placeOrder(limitOrder("sell", "31000", "0.1", "ioc-2", "ioc"))
        assert.deepStrictEqual(fills(orderByCid(exchange, aliceId, "ioc-2")), { status: "cancelled", ...noFills })
        assert.strictEqual((yield* Stream.runCollect(alice.openOrders({ symbol: BTC }))).length, 0)
        // The unfilled 0.3 × 30,005 and the 0.1 BTC are released; fee 0.0005 BTC.
        assert.deepStrictEqual(yield* balanceOf(exchange, aliceId, "USDT"), { available: "984997.5", frozen: "0" })
        assert.deepStrictEqual(yield* balanceOf(exchange, aliceId, "BTC"), { available: "10.4995", frozen: "0" })
        const depth = exchange.engine.depth(BTC)
        const best = depth.asks[0]!
        assert.deepStrictEqual([dec(best[0]), dec(best[1]), best[2]], ["30010", "0.5", 1])
        return { partial, none }
      })
  },
  {
    name: "market buy spends quote coin, market sell sells base coin; force is ignored for market orders",
    run: ({ alice, aliceId, exchange }) =>
      Effect.gen(function*() {
        // 15,500 USDT: 0.5 at 30,005 (15,002.5), then 497.5 / 300.10 per 0.01 -> 16,577 lots of 0.000001 at 30,010.
        const buy = yield* alice.placeOrder(marketOrder("buy", "15500", "m-1"))
        assert.deepStrictEqual(fills(orderByCid(exchange, aliceId, "m-1")), {
          status: "full_fill",
          fillQuantity: "0.516577",
          fillTotalAmount: "15499.97577",
          latestFillPrice: "30010",
          maxFillPrice: "30010",
          minFillPrice: "30005"
        })
        // Fees floor(0.5 × 0.001) = 0.0005 and floor(0.016577 × 0.001) = 0.00001657 BTC.
        assert.deepStrictEqual(yield* balanceOf(exchange, aliceId, "BTC"), { available: "10.51606043", frozen: "0" })
        assert.deepStrictEqual(yield* balanceOf(exchange, aliceId, "USDT"), { available: "984500.02423", frozen: "0" })
        // 0.7 BTC: 0.5 at 29,995 and 0.2 at 29,990 = 20,995.5 USDT, fees 14.9975 + 5.998.
        const sell = yield* alice.placeOrder(marketOrder("sell", "0.7", "m-2"))
        assert.deepStrictEqual(fills(orderByCid(exchange, aliceId, "m-2")), {
          status: "full_fill",
          fillQuantity: "0.7",
          fillTotalAmount: "20995.5",
          latestFillPrice: "29990",
          maxFillPrice: "29995",
          minFillPrice: "29990"
        })
        // A market order marked postOnly still takes: force means nothing for market orders.
        const post = yield* alice.placeOrder(marketOrder("sell", "0.1", "m-3", "postOnly"))
        assert.deepStrictEqual(fills(orderByCid(exchange, aliceId, "m-3")), {
          status: "full_fill",
          fillQuantity: "0.1",
          fillTotalAmount: "2999",
          latestFillPrice: "29990",
          maxFillPrice: "29990",
          minFillPrice: "29990"
        })
        assert.deepStrictEqual(yield* balanceOf(exchange, aliceId, "BTC"), { available: "9.71606043", frozen: "0" })
        assert.deepStrictEqual(yield* balanceOf(exchange, aliceId, "USDT"), {
          available: "1008470.52973",
          frozen: "0"
        })
        assert.strictEqual((yield* Stream.runCollect(alice.openOrders({ symbol: BTC }))).length, 0)
        return { buy, sell, post }
      })
  },
  {
    name: "partial fills show in open orders (fillQuantity, fillTotalAmount, fill prices) until filled",
    run: ({ alice, aliceId, client, exchange }) =>
      Effect.gen(function*() {
        const bob = yield* client({ account: exchange.accounts[1] })
        // 1.5 BTC at 30,010: takes 0.5 at 30,005 and 0.5 at 30,010, rests 0.5.
        const placed = yield* alice.placeOrder(limitOrder("buy", "30010", "1.5", "pf-1"))
        const view = (o: Order.OpenOrder) => ({
          orderId: o.orderId,
          price: dec(o.price),
          quantity: dec(o.quantity),
          ...fills(o)
        })
        const first = yield* Stream.runCollect(alice.openOrders({ symbol: BTC }))
        // A resting order with fills is `partial_fill` on the wire (docs/venue/trading.md#order-status), `open` without.
        assert.deepStrictEqual(first.map(view), [{
          orderId: placed.orderId,
          price: "30010",
          quantity: "1.5",
          status: "partial_fill",
          fillQuantity: "1",
          fillTotalAmount: "30007.5",
          latestFillPrice: "30010",
          maxFillPrice: "30010",
          minFillPrice: "30005"
        }])
        // Bob sells 0.2 into alice's bid (the best bid, above his own).
        yield* bob.placeOrder(limitOrder("sell", "30010", "0.2", "bob-1"))
        const second = yield* Stream.runCollect(alice.openOrders({ symbol: BTC }))
        assert.deepStrictEqual(second.map(view), [{
          ...first.map(view)[0]!,
          fillQuantity: "1.2",
          fillTotalAmount: "36009.5"
        }])
        assert.isTrue(second[0]!.uTime >= first[0]!.uTime)
        // A market sell of 0.3 fills the rest: the order leaves the open orders.
        yield* bob.placeOrder(marketOrder("sell", "0.3", "bob-2"))
        assert.strictEqual((yield* Stream.runCollect(alice.openOrders({ symbol: BTC }))).length, 0)
        assert.deepStrictEqual(fills(orderByCid(exchange, aliceId, "pf-1")), {
          status: "full_fill",
          fillQuantity: "1.5",
          fillTotalAmount: "45012.5",
          latestFillPrice: "30010",
          maxFillPrice: "30010",
          minFillPrice: "30005"
        })
        // Fees: 0.0005 + 0.0005 as taker, 0.0002 + 0.0003 as maker.
        assert.deepStrictEqual(yield* balanceOf(exchange, aliceId, "BTC"), { available: "11.4985", frozen: "0" })
        assert.deepStrictEqual(yield* balanceOf(exchange, aliceId, "USDT"), { available: "954987.5", frozen: "0" })
        return { first: first.map(view), second: second.map(view) }
      })
  }
]

// ---------------------------------------------------------------------------------------------------------------
// Paging while new items arrive

const pagingScenarios: ReadonlyArray<Scenario> = [
  {
    name: "openOrders paging with inserts: orders placed mid-stream push older ones down; none lost or repeated",
    run: ({ alice, aliceId, exchange }) =>
      Effect.gen(function*() {
        const initial: Array<string> = []
        for (let i = 0; i < 23; i++) {
          initial.push((yield* alice.placeOrder(limitOrder("buy", String(29000 - i), "0.01", `i-${i}`))).orderId)
        }
        yield* exchange.clearRequests
        let pulled = 0
        let pagesBeforeInsert = -1
        const yielded = yield* Stream.runCollect(
          alice.openOrders({ symbol: BTC, pageSize: 5 }).pipe(Stream.tap(() =>
            Effect.gen(function*() {
              if (++pulled !== 7) return
              pagesBeforeInsert = (yield* wireLog(exchange)).length
              for (let k = 0; k < 4; k++) {
                const placed = yield* exchange.placeOrder(aliceId, {
                  symbol: BTC,
                  side: "buy",
                  orderType: "limit",
                  force: "normal",
                  price: String(28000 + k),
                  quantity: "0.01",
                  clientOrderId: `new-${k}`
                })
                assert.isTrue(placed.ok)
              }
            })
          ))
        )
        const ids = yielded.map((o) => o.orderId)
        assertDistinct(ids, "open orders")
        // The new orders are the newest (page 0, already read); every order there at the start comes once.
        assert.deepStrictEqual(ids, initial.slice().reverse())
        const requests = (yield* wireLog(exchange)).length
        assert.isTrue(pagesBeforeInsert >= 2 && pagesBeforeInsert < requests, "the inserts came mid-stream")
        // 27 orders in pages of 5: the sixth page (2 orders) is the last.
        assert.strictEqual(requests, 6)
        return { ids, pagesBeforeInsert, requests }
      })
  },
  {
    name: "fundingBills paging with inserts: bills written mid-stream are not mixed in; none lost or repeated",
    exchange: baseExchange({ ...TestExchange.demo({ bills: 300 }), rateLimits: false }),
    run: ({ alice, aliceId, bobId, exchange }) =>
      Effect.gen(function*() {
        const initial = yield* fundBillIds(exchange, aliceId)
        let pulled = 0
        const yielded = yield* Stream.runCollect(
          alice.fundingBills({ pageSize: 50 }).pipe(Stream.tap(() =>
            Effect.gen(function*() {
              if (++pulled !== 60) return
              for (let k = 0; k < 3; k++) {
                yield* alice.internalTransfer({
                  toUserId: bobId,
                  coin: "USDT",
                  amount: String(k + 1),
                  fromAccountType: "FUND",
                  toAccountType: "SPOT"
                })
              }
              yield* Effect.orDie(exchange.deposit(aliceId, "FUND", "USDT", "7"))
            })
          ))
        )
        const ids = yielded.map((b) => b.billId)
        assertDistinct(ids, "bills")
        assert.deepStrictEqual(ids, initial)
        // A new stream starts with the four new bills.
        const after = yield* Stream.runCollect(alice.fundingBills({ pageSize: 100 }))
        assert.strictEqual(after.length, initial.length + 4)
        assert.deepStrictEqual(after.slice(4).map((b) => b.billId), initial)
        assert.deepStrictEqual(after.slice(0, 4).map((b) => [b.bizType, dec(b.deltaAmount)]), [
          ["deposit", "7"],
          ["transfer_out", "-3"],
          ["transfer_out", "-2"],
          ["transfer_out", "-1"]
        ])
        return { ids, newest: after.slice(0, 4).map((b) => b.billId) }
      })
  },
  {
    name: "fundingBills within one millisecond: 250 bills of one time page by pageIndex, with inserts",
    exchange: {
      seed: 3,
      rateLimits: false,
      accounts: [
        {
          keys: [TestExchange.demoKeys.alice],
          bills: { count: 250, spanMillis: 0 },
          balances: [{ accountType: "FUND", coin: "USDT", amount: "1000" }]
        },
        { keys: [TestExchange.demoKeys.bob] }
      ]
    },
    run: ({ alice, aliceId, bobId, exchange }) =>
      Effect.gen(function*() {
        const initial = yield* fundBillIds(exchange, aliceId)
        assert.strictEqual(initial.length, 251)
        const times = new Set((yield* Effect.orDie(exchange.ledger(aliceId, "FUND"))).slice(0, 250).map((e) => e.cTime))
        assert.strictEqual(times.size, 1, "the history shares one millisecond")
        let pulled = 0
        const yielded = yield* Stream.runCollect(
          alice.fundingBills({ pageSize: 40 }).pipe(Stream.tap(() =>
            pulled++ === 100
              ? Effect.asVoid(alice.internalTransfer({
                toUserId: bobId,
                coin: "USDT",
                amount: "5",
                fromAccountType: "FUND",
                toAccountType: "FUND"
              }))
              : Effect.void
          ))
        )
        const ids = yielded.map((b) => b.billId)
        assertDistinct(ids, "bills")
        assert.deepStrictEqual(ids, initial)
        return { ids, requests: (yield* wireLog(exchange)).filter((r) => r.endpoint === "fundingBills").length }
      })
  }
]

// ---------------------------------------------------------------------------------------------------------------
// Authentication and permissions

const authScenarios: ReadonlyArray<Scenario> = [
  {
    name: "auth failures through the client: 40009, 40006, 40012 and 40014, never retried",
    run: ({ alice, aliceId, bobId, client, exchange }) =>
      Effect.gen(function*() {
        const reader = yield* Effect.orDie(exchange.addAccount({
          keys: [{
            apiKey: "reader-key",
            secretKey: "reader-secret",
            passphrase: "reader-pass",
            permissions: ["read"]
          }],
          balances: [{ accountType: "SPOT", coin: "USDT", amount: "1000" }]
        }))
        const trader = yield* Effect.orDie(exchange.addAccount({
          keys: [{
            apiKey: "trader-key",
            secretKey: "trader-secret",
            passphrase: "trader-pass",
            permissions: ["read", "trade"]
          }],
          balances: [
            { accountType: "SPOT", coin: "USDT", amount: "1000" },
            { accountType: "FUND", coin: "USDT", amount: "100" }
          ]
        }))
        const own = exchange.accounts[0]!.credentials
        const wrongSecret = yield* client({ credentials: { ...own, secretKey: Redacted.make("not-the-secret") } })
        const unknownKey = yield* client({ credentials: { ...own, apiKey: Redacted.make("no-such-key") } })
        const wrongPass = yield* client({ credentials: { ...own, passphrase: Redacted.make("not-the-pass") } })
        const readerClient = yield* client({ account: reader })
        const traderClient = yield* client({ account: trader })
        const order = (cid: string) => limitOrder("buy", "29000", "0.01", cid)
        const transfer = {
          toUserId: bobId,
          coin: "USDT",
          amount: "1",
          fromAccountType: "FUND",
          toAccountType: "SPOT"
        } as const
        yield* exchange.clearRequests
        const auth = (code: string) => ({ error: "AuthenticationError", code, httpStatus: 400 })
        const permission = { error: "PermissionError", code: "40014", httpStatus: 400 }
        const results = {
          wrongSecret: failureOf(yield* outcome(wrongSecret.placeOrder(order("a-1")))),
          wrongSecretBills: failureOf(yield* outcome(Stream.runCollect(wrongSecret.fundingBills()))),
          unknownKey: failureOf(yield* outcome(unknownKey.placeOrder(order("a-2")))),
          wrongPass: failureOf(yield* outcome(wrongPass.internalTransfer(transfer))),
          readerOrder: failureOf(yield* outcome(readerClient.placeOrder(order("a-3")))),
          readerTransfer: failureOf(yield* outcome(readerClient.internalTransfer(transfer))),
          traderTransfer: failureOf(yield* outcome(traderClient.internalTransfer(transfer)))
        }
        assert.deepStrictEqual(results, {
          wrongSecret: auth("40009"),
          wrongSecretBills: auth("40009"),
          unknownKey: auth("40006"),
          wrongPass: auth("40012"),
          readerOrder: permission,
          readerTransfer: permission,
          traderTransfer: permission
        })
        // Each refused call went out exactly once.
        assert.strictEqual((yield* wireLog(exchange)).length, 7)
        // What the keys may do still works.
        const readerOpen = yield* Stream.runCollect(readerClient.openOrders({ symbol: BTC }))
        const traderOrder = yield* traderClient.placeOrder(order("a-4"))
        const aliceOrder = yield* alice.placeOrder(order("a-5"))
        assert.strictEqual(readerOpen.length, 0)
        assert.deepStrictEqual((yield* exchange.orders(aliceId)).map((o) => o.orderId), [aliceOrder.orderId])
        assert.deepStrictEqual((yield* exchange.orders(reader.userId)).length, 0)
        assert.deepStrictEqual((yield* exchange.orders(trader.userId)).map((o) => o.orderId), [traderOrder.orderId])
        assert.strictEqual(yield* countTransfersOut(exchange, trader.userId), 0)
        assert.strictEqual(yield* countTransfersOut(exchange, aliceId), 0)
        return { results, wire: yield* wireLog(exchange) }
      })
  }
]

// ---------------------------------------------------------------------------------------------------------------
// Venue rate limits

const rateLimitScenarios: ReadonlyArray<Scenario> = [
  {
    name: "venue rate limits with retries off: a burst past the budget gets RateLimitError (HTTP 429)",
    // Orders: 3 per minute on the endpoint. The user's budget: 25 per minute, of which the 3 orders weigh 15 (5 each).
    exchange: baseExchange({
      rateLimits: { perEndpoint: { limit: 3, windowMillis: 60_000 }, uid: { limit: 25, windowMillis: 60_000 } }
    }),
    client: { retry: false },
    run: ({ alice, aliceId, exchange }) =>
      Effect.gen(function*() {
        const results = []
        for (let i = 0; i < 5; i++) {
          results.push(yield* outcome(alice.placeOrder(limitOrder("buy", "29000", "0.01", `rl-${i}`))))
        }
        const limited = { error: "RateLimitError", code: "429", httpStatus: 429 }
        assert.deepStrictEqual(results.slice(3).map(failureOf), [limited, limited])
        for (const r of results.slice(0, 3)) successOf(r)
        assert.strictEqual((yield* exchange.orders(aliceId)).length, 3)
        // Bills weigh 5 against the 10 left: two pages pass, the third is refused.
        const bills = yield* outcome(Stream.runCollect(alice.fundingBills({ pageSize: 1 })))
        assert.deepStrictEqual(failureOf(bills), limited)
        const wire = yield* wireLog(exchange)
        assert.deepStrictEqual(wire.map((r) => [r.endpoint, r.status]), [
          ["placeOrder", 200],
          ["placeOrder", 200],
          ["placeOrder", 200],
          ["placeOrder", 429],
          ["placeOrder", 429],
          ["fundingBills", 200],
          ["fundingBills", 200],
          ["fundingBills", 429]
        ])
        return { results, wire }
      })
  },
  {
    name: "venue rate limits with retries on: the client's backoff absorbs the 429s of a burst",
    exchange: baseExchange({ rateLimits: { perEndpoint: { limit: 2, windowMillis: 60 } } }),
    client: { retry: { baseDelay: "15 millis", times: 8 } },
    run: ({ alice, aliceId, exchange }) =>
      Effect.gen(function*() {
        const cids = Array.from({ length: 6 }, (_, i) => `burst-${i}`)
        const placed = yield* Effect.forEach(
          cids,
          (cid) => alice.placeOrder(limitOrder("buy", "29000", "0.01", cid)),
          { concurrency: "unbounded" }
        )
        const orders = yield* exchange.orders(aliceId)
        assert.strictEqual(orders.length, 6)
        for (const p of placed) assert.strictEqual(p.orderId, orderByCid(exchange, aliceId, p.clientOrderId).orderId)
        const wire = yield* wireLog(exchange)
        assert.isTrue(wire.some((r) => r.status === 429), "the venue refused some")
        assert.strictEqual(wire.filter((r) => r.status === 200).length, 6)
        return {
          placed: placed.map((p) => p.clientOrderId).sort(),
          ids: placed.map((p) => p.orderId).sort()
        }
      })
  },
  {
    name: "client-side limiting keeps a burst within the venue's limits: no 429 at all",
    exchange: baseExchange({ rateLimits: { perEndpoint: { limit: 3, windowMillis: 150 } } }),
    client: { retry: false, rateLimit: { perEndpoint: { limit: 3, windowMillis: 150 } } },
    run: ({ alice, aliceId, exchange }) =>
      Effect.gen(function*() {
        const placed = yield* Effect.forEach(
          Array.from({ length: 8 }, (_, i) => `cl-${i}`),
          (cid) => alice.placeOrder(limitOrder("buy", "29000", "0.01", cid)),
          { concurrency: "unbounded" }
        )
        assert.strictEqual((yield* exchange.orders(aliceId)).length, 8)
        const wire = yield* wireLog(exchange)
        assert.deepStrictEqual(wire.map((r) => r.status), Array(8).fill(200))
        return { placed: placed.length, wire }
      })
  }
]

// ---------------------------------------------------------------------------------------------------------------
// Faults

const ORDER_PATH = Venue.endpoints.placeOrder.path
const TRANSFER_PATH = Venue.endpoints.internalTransfer.path

interface OrderFaultCase {
  readonly label: string
  readonly faults: ReadonlyArray<Fault.Fault>
  readonly client?: Partial<SpotClient.Options>
  /** @default a limit buy of 0.01 BTC at 29,000 (clientOrderId "f-1") that rests */
  readonly order?: Order.PlaceOrderInput
  /** The client's answer: the order it placed, or this failure. */
  readonly expect: "placed" | Failure
  /** Orders in the engine afterwards. */
  readonly orders: number
  /** The exchange's log: endpoint, status, code, fault. */
  readonly wire: ReadonlyArray<readonly [string, number | null, string | null, string | null]>
  /** Least time the call must take (ms). */
  readonly minMillis?: number
}

const ok = (endpoint = "placeOrder") => [endpoint, 200, "00000", null] as const

// Retried and succeeds (faults the venue did not apply), recovered (applied, answer lost: the retry meets 43118
// and the order is looked up by its clientOrderId, `order`), or reported (not retryable).
const orderFaultCases: ReadonlyArray<OrderFaultCase> = [
  {
    label: "HttpError 503 twice: retried, placed once",
    faults: [Fault.httpError(503), Fault.httpError(503)],
    expect: "placed",
    orders: 1,
    wire: [["placeOrder", 503, null, "HttpError"], ["placeOrder", 503, null, "HttpError"], ok()]
  },
  {
    label: "RateLimited twice: retried, placed once",
    faults: [Fault.rateLimited, Fault.rateLimited],
    expect: "placed",
    orders: 1,
    wire: [["placeOrder", 429, "429", "RateLimited"], ["placeOrder", 429, "429", "RateLimited"], ok()]
  },
  {
    label: "VenueError 40200 (maintenance) twice: retried, placed once",
    faults: [Fault.venueError("40200", "server upgrade"), Fault.venueError("40200", "server upgrade")],
    expect: "placed",
    orders: 1,
    wire: [["placeOrder", 400, "40200", "VenueError"], ["placeOrder", 400, "40200", "VenueError"], ok()]
  },
  {
    label: "VenueError 40008 (timestamp): signed again at once, placed once",
    faults: [Fault.venueError("40008", "Request timestamp expired")],
    expect: "placed",
    orders: 1,
    wire: [["placeOrder", 400, "40008", "VenueError"], ok()]
  },
  {
    label: "VenueError of an unknown code under HTTP 500: retried, placed once",
    faults: [Fault.venueError("50001", "internal error", 500)],
    expect: "placed",
    orders: 1,
    wire: [["placeOrder", 500, "50001", "VenueError"], ok()]
  },
  {
    label: "VenueError 43012: not retryable, reported as InsufficientBalanceError",
    faults: [Fault.venueError("43012", "Insufficient balance")],
    expect: { error: "InsufficientBalanceError", code: "43012", httpStatus: 400 },
    orders: 0,
    wire: [["placeOrder", 400, "43012", "VenueError"]]
  },
  {
    label: "Drop: retried, placed once",
    faults: [Fault.drop],
    expect: "placed",
    orders: 1,
    wire: [["placeOrder", null, null, "Drop"], ok()]
  },
  {
    label: "Timeout: the 200 ms client timeout fires, retried, placed once",
    faults: [Fault.timeout],
    client: { timeout: "200 millis" },
    expect: "placed",
    orders: 1,
    wire: [["placeOrder", null, null, "Timeout"], ok()],
    minMillis: 200
  },
  {
    label: "Latency 120 ms: answered late, placed once",
    faults: [Fault.latency(120)],
    expect: "placed",
    orders: 1,
    wire: [["placeOrder", 200, "00000", "Latency"]],
    minMillis: 120
  },
  {
    label: "Latency 500 ms beyond a 200 ms timeout: applied, the retry meets 43118, the order is found",
    faults: [Fault.latency(500)],
    client: { timeout: "200 millis" },
    expect: "placed",
    orders: 1,
    wire: [["placeOrder", 200, "00000", "Latency"], ["placeOrder", 400, "43118", null], ok("order")],
    minMillis: 200
  },
  {
    label: "Latency 150 ms on an order the venue refuses (43012): the refusal comes late too",
    faults: [Fault.latency(150)],
    order: limitOrder("buy", "29000", "1000", "f-1"),
    expect: { error: "InsufficientBalanceError", code: "43012", httpStatus: 400 },
    orders: 0,
    wire: [["placeOrder", 400, "43012", "Latency"]],
    minMillis: 150
  },
  {
    label: "Malformed: retried, placed once",
    faults: [Fault.malformed],
    expect: "placed",
    orders: 1,
    wire: [["placeOrder", 200, null, "Malformed"], ok()]
  },
  {
    label: "Truncated: applied, the retry meets 43118, the order is found and returned",
    faults: [Fault.truncated],
    expect: "placed",
    orders: 1,
    wire: [["placeOrder", 200, "00000", "Truncated"], ["placeOrder", 400, "43118", null], ok("order")]
  },
  {
    label: "AppliedLost: applied, the retry meets 43118, the order is found and returned",
    faults: [Fault.appliedLost],
    expect: "placed",
    orders: 1,
    wire: [["placeOrder", null, "00000", "AppliedLost"], ["placeOrder", 400, "43118", null], ok("order")]
  }
]

const orderFaultScenario = (c: OrderFaultCase): Scenario => ({
  name: `fault on placeOrder — ${c.label}`,
  client: c.client,
  run: ({ alice, aliceId, exchange }) =>
    Effect.gen(function*() {
      for (const fault of c.faults) yield* exchange.injectFault({ fault, path: ORDER_PATH, times: 1 })
      const [elapsed, result] = yield* Effect.timed(
        outcome(alice.placeOrder(c.order ?? limitOrder("buy", "29000", "0.01", "f-1")))
      )
      const orders = yield* exchange.orders(aliceId)
      assert.strictEqual(orders.length, c.orders)
      if (c.expect === "placed") {
        assert.deepStrictEqual(successOf(result), { orderId: orders[0]!.orderId, clientOrderId: "f-1" })
        assert.strictEqual(orders[0]!.status, "open")
      } else {
        assert.deepStrictEqual(failureOf(result), c.expect)
      }
      const wire = yield* wireLog(exchange)
      assert.deepStrictEqual(wire.map((r) => [r.endpoint, r.status, r.code, r.fault]), c.wire.map((w) => [...w]))
      if (c.minMillis !== undefined) assert.isAtLeast(Duration.toMillis(elapsed), c.minMillis - 1)
      return { result, wire }
    })
})

interface TransferFaultCase {
  readonly label: string
  readonly fault: Fault.Fault
  readonly client?: Partial<SpotClient.Options>
  /**
   * `done`: answered by the venue; `recovered`: its answer lost, found in the venue's transfer list and answered with
   * its id; `unknown`: OutcomeUnknownError, no transfer in the list matching it; or this failure.
   */
  readonly expect: "done" | "recovered" | "unknown" | Failure
  /** Transfers applied afterwards. */
  readonly applied: number
  /** The exchange's log of transfer requests: status, code, fault. */
  readonly wire: ReadonlyArray<readonly [number | null, string | null, string | null]>
}

// A transfer is retried only when the venue provably did not apply it (429, maintenance); anything ambiguous
// (5xx, lost or garbled answers, timeouts) is never sent again: the client looks it up in the venue's transfer list
// (transferStatus, once) and answers it when exactly one transfer matches, OutcomeUnknownError with the candidates
// otherwise.
const transferFaultCases: ReadonlyArray<TransferFaultCase> = [
  {
    label: "RateLimited: retried, done once",
    fault: Fault.rateLimited,
    expect: "done",
    applied: 1,
    wire: [[429, "429", "RateLimited"], [200, "200", null]]
  },
  {
    label: "VenueError 40200: retried, done once",
    fault: Fault.venueError("40200", "server upgrade"),
    expect: "done",
    applied: 1,
    wire: [[400, "40200", "VenueError"], [200, "200", null]]
  },
  {
    label: "VenueError 40008 (timestamp): signed again at once, done once",
    fault: Fault.venueError("40008", "Request timestamp expired"),
    expect: "done",
    applied: 1,
    wire: [[400, "40008", "VenueError"], [200, "200", null]]
  },
  {
    label:
      "VenueError of an unknown code under HTTP 500: may have been applied, not in the list: OutcomeUnknownError; nothing moved",
    fault: Fault.venueError("50001", "internal error", 500),
    expect: "unknown",
    applied: 0,
    wire: [[500, "50001", "VenueError"]]
  },
  {
    label: "VenueError 43012: reported, nothing moved",
    fault: Fault.venueError("43012", "Insufficient balance"),
    expect: { error: "InsufficientBalanceError", code: "43012", httpStatus: 400 },
    applied: 0,
    wire: [[400, "43012", "VenueError"]]
  },
  {
    label: "Latency 100 ms: done once",
    fault: Fault.latency(100),
    expect: "done",
    applied: 1,
    wire: [[200, "200", "Latency"]]
  },
  {
    label: "HttpError 503: not retried (may have been applied), not in the list: OutcomeUnknownError; nothing moved",
    fault: Fault.httpError(503),
    expect: "unknown",
    applied: 0,
    wire: [[503, null, "HttpError"]]
  },
  {
    label: "Drop: not retried, not in the list: OutcomeUnknownError; nothing moved",
    fault: Fault.drop,
    expect: "unknown",
    applied: 0,
    wire: [[null, null, "Drop"]]
  },
  {
    label: "Timeout (200 ms): not retried, not in the list: OutcomeUnknownError; nothing moved",
    fault: Fault.timeout,
    client: { timeout: "200 millis" },
    expect: "unknown",
    applied: 0,
    wire: [[null, null, "Timeout"]]
  },
  {
    label: "Malformed: not retried, not in the list: OutcomeUnknownError; nothing moved",
    fault: Fault.malformed,
    expect: "unknown",
    applied: 0,
    wire: [[200, null, "Malformed"]]
  },
  {
    label: "Truncated: applied, found in the transfer list and answered with its id; exactly one transfer",
    fault: Fault.truncated,
    expect: "recovered",
    applied: 1,
    wire: [[200, "200", "Truncated"]]
  },
  {
    label: "AppliedLost: applied, found in the transfer list and answered with its id; exactly one transfer",
    fault: Fault.appliedLost,
    expect: "recovered",
    applied: 1,
    wire: [[null, "200", "AppliedLost"]]
  }
]

const transferFaultScenario = (c: TransferFaultCase): Scenario => ({
  name: `fault on internalTransfer — ${c.label}`,
  client: c.client,
  run: ({ alice, aliceId, bobId, exchange }) =>
    Effect.gen(function*() {
      yield* exchange.injectFault({ fault: c.fault, path: TRANSFER_PATH, times: 1 })
      const result = yield* outcome(alice.internalTransfer({
        toUserId: bobId,
        coin: "USDT",
        amount: "10",
        fromAccountType: "FUND",
        toAccountType: "SPOT"
      }))
      const transfers = yield* Effect.orDie(exchange.transfers(aliceId))
      if (c.expect === "done" || c.expect === "recovered") {
        const done = successOf(result)
        assertBigId(done.id, "transfer id")
        assert.deepStrictEqual(transfers.map((t) => t.id), [done.id])
        // The answer's server time, within the client's view of now; a recovered transfer's is its creation time.
        assert.isTrue(typeof done.timestamp === "number" && Math.abs(done.timestamp - Date.now()) < 60_000)
        if (c.expect === "recovered") {
          assert.deepStrictEqual(done, { id: transfers[0]!.id, timestamp: transfers[0]!.createTime, status: "SUCCESS" })
        }
      } else if (c.expect === "unknown") {
        assert.deepStrictEqual(failureOf(result), { error: "OutcomeUnknownError", candidates: [] })
      } else assert.deepStrictEqual(failureOf(result), c.expect)
      assert.strictEqual(yield* countTransfersOut(exchange, aliceId), c.applied)
      assert.strictEqual(transfers.length, c.applied)
      const moved = c.applied === 1
      assert.deepStrictEqual(yield* balanceOf(exchange, aliceId, "USDT", "FUND"), {
        available: moved ? "49990" : "50000",
        frozen: "0"
      })
      // Bob's bids keep 498,950 of his 5,000,000 USDT frozen.
      assert.deepStrictEqual(yield* balanceOf(exchange, bobId, "USDT", "SPOT"), {
        available: moved ? "4501060" : "4501050",
        frozen: "498950"
      })
      const wire = yield* wireLog(exchange)
      assert.deepStrictEqual(
        wire.filter((r) => r.endpoint === "internalTransfer").map((r) => [r.status, r.code, r.fault]),
        c.wire.map((w) => [...w]),
        "the exchange's log of transfer requests"
      )
      // Besides them, one look at the transfer list when the answer was lost, nothing else.
      const lookedUp = c.expect === "recovered" || c.expect === "unknown"
      assert.deepStrictEqual(
        wire.filter((r) => r.endpoint !== "internalTransfer").map((r) => [r.endpoint, r.status, r.code, r.fault]),
        lookedUp ? [["transferStatus", 200, "200", null]] : []
      )
      // The server time in a success is not part of the transcript.
      return { result: "ok" in result ? { ok: { id: result.ok.id } } : result, wire }
    })
})

const moreFaultScenarios: ReadonlyArray<Scenario> = [
  {
    name: "fault rules: `times: 0` strikes no request; `share: 0` none; a rule on another path none",
    run: ({ alice, exchange }) =>
      Effect.gen(function*() {
        yield* exchange.injectFault({ fault: Fault.httpError(503), path: ORDER_PATH, times: 0 })
        yield* exchange.injectFault({ fault: Fault.drop, path: ORDER_PATH, share: 0 })
        yield* exchange.injectFault({ fault: Fault.malformed, path: TRANSFER_PATH })
        const placed = yield* outcome(alice.placeOrder(limitOrder("buy", "29000", "0.01", "z-1")))
        successOf(placed)
        const wire = yield* wireLog(exchange)
        assert.deepStrictEqual(wire.map((r) => [r.endpoint, r.status, r.fault]), [["placeOrder", 200, null]])
        return { placed, wire }
      })
  },
  {
    name:
      "fault on placeOrder — AppliedLost on a market order that fills: found by clientOrderId, its orderId returned",
    run: ({ alice, aliceId, exchange }) =>
      Effect.gen(function*() {
        yield* exchange.injectFault({ fault: Fault.appliedLost, path: ORDER_PATH, times: 1 })
        const result = yield* outcome(alice.placeOrder(marketOrder("sell", "0.1", "lost-market")))
        // The order filled at once, so no open-orders list holds it; `order` by clientOrderId sees it filled.
        const orders = yield* exchange.orders(aliceId)
        assert.deepStrictEqual(orders.map((o) => [o.clientOrderId, o.status]), [["lost-market", "full_fill"]])
        assert.deepStrictEqual(successOf(result), { orderId: orders[0]!.orderId, clientOrderId: "lost-market" })
        const wire = yield* wireLog(exchange)
        assert.deepStrictEqual(wire.map((r) => [r.endpoint, r.status, r.code, r.fault]), [
          ["placeOrder", null, "00000", "AppliedLost"],
          ["placeOrder", 400, "43118", null],
          ["order", 200, "00000", null]
        ])
        return { result, wire }
      })
  },
  {
    name: "fault on placeOrder — HttpError on a share (30 %) of 20 orders: every order placed exactly once",
    run: ({ alice, aliceId, exchange }) =>
      Effect.gen(function*() {
        yield* exchange.injectFault({ fault: Fault.httpError(502), path: ORDER_PATH, share: 0.3 })
        const placed = []
        for (let i = 0; i < 20; i++) {
          placed.push(yield* alice.placeOrder(limitOrder("buy", String(29000 - i), "0.01", `s-${i}`)))
        }
        const orders = yield* exchange.orders(aliceId)
        assert.deepStrictEqual(orders.map((o) => o.orderId), placed.map((p) => p.orderId))
        const wire = yield* wireLog(exchange)
        const failed = wire.filter((r) => r.fault === "HttpError").length
        assert.isTrue(failed > 0, "some requests failed")
        assert.strictEqual(wire.length, 20 + failed)
        return { ids: placed.map((p) => p.orderId), wire }
      })
  },
  {
    name: "fault on placeOrders — AppliedLost on a chunk: the retry meets 43118 and every item is recovered once",
    run: ({ alice, aliceId, exchange }) =>
      Effect.gen(function*() {
        yield* exchange.injectFault({ fault: Fault.appliedLost, path: Venue.endpoints.placeOrders.path, times: 1 })
        const items = [0, 1, 2].map((i): Order.BatchItemInput => ({
          side: "buy",
          orderType: "limit",
          price: String(29100 + i),
          quantity: "0.01",
          clientOrderId: `lost-${i}`
        }))
        const result = yield* alice.placeOrders(BTC, items)
        const orders = yield* exchange.orders(aliceId)
        assert.strictEqual(orders.length, 3)
        assert.deepStrictEqual<unknown>(
          result.outcomes,
          [0, 1, 2].map((i) => ({
            _tag: "Placed",
            index: i,
            clientOrderId: `lost-${i}`,
            orderId: orderByCid(exchange, aliceId, `lost-${i}`).orderId
          }))
        )
        const wire = yield* wireLog(exchange)
        assert.deepStrictEqual(wire.map((r) => [r.endpoint, r.status, r.code, r.fault]), [
          ["placeOrders", null, "00000", "AppliedLost"],
          ["placeOrders", 200, "00000", null],
          // Each item looked up by its clientOrderId.
          ["order", 200, "00000", null],
          ["order", 200, "00000", null],
          ["order", 200, "00000", null]
        ])
        return { result, wire }
      })
  },
  {
    name: "fault on placeOrders — HttpError then Malformed: retried, every item placed once",
    run: ({ alice, aliceId, exchange }) =>
      Effect.gen(function*() {
        yield* exchange.injectFault({ fault: Fault.httpError(500), path: Venue.endpoints.placeOrders.path, times: 1 })
        yield* exchange.injectFault({ fault: Fault.malformed, path: Venue.endpoints.placeOrders.path, times: 1 })
        const result = yield* alice.placeOrders(
          BTC,
          [0, 1].map((i) => ({
            side: "buy" as const,
            orderType: "limit" as const,
            price: "29000",
            quantity: "0.01",
            clientOrderId: `hm-${i}`
          }))
        )
        assert.strictEqual(result.placed, 2)
        assert.strictEqual((yield* exchange.orders(aliceId)).length, 2)
        return { result, wire: yield* wireLog(exchange) }
      })
  },
  {
    name: "fault on openOrders — HttpError, Drop, Malformed, RateLimited on successive pages: the stream is whole",
    run: ({ alice, exchange }) =>
      Effect.gen(function*() {
        const ids: Array<string> = []
        for (let i = 0; i < 12; i++) {
          ids.push((yield* alice.placeOrder(limitOrder("buy", String(29000 - i), "0.01", `oo-${i}`))).orderId)
        }
        yield* exchange.clearRequests
        const path = Venue.endpoints.openOrders.path
        for (const fault of [Fault.httpError(503), Fault.drop, Fault.malformed, Fault.rateLimited]) {
          yield* exchange.injectFault({ fault, path, times: 1 })
        }
        const open = yield* Stream.runCollect(alice.openOrders({ symbol: BTC, pageSize: 5 }))
        assert.deepStrictEqual(open.map((o) => o.orderId), ids.slice().reverse())
        const wire = yield* wireLog(exchange)
        // Four failed attempts, then the pages of 5, 5 and 2.
        assert.deepStrictEqual(wire.map((r) => r.fault), [
          "HttpError",
          "Drop",
          "Malformed",
          "RateLimited",
          null,
          null,
          null
        ])
        return { ids: open.map((o) => o.orderId), wire }
      })
  },
  {
    name: "fault on openOrdersPage — Timeout (200 ms client timeout): retried, answered",
    client: { timeout: "200 millis" },
    run: ({ alice, exchange }) =>
      Effect.gen(function*() {
        const placed = yield* alice.placeOrder(limitOrder("buy", "29000", "0.01", "to-1"))
        yield* exchange.injectFault({ fault: Fault.timeout, path: Venue.endpoints.openOrders.path, times: 1 })
        const [elapsed, page] = yield* Effect.timed(alice.openOrdersPage({ symbol: BTC }))
        assert.deepStrictEqual(page.orderInfoResultList?.map((o) => o.orderId), [placed.orderId])
        assert.isAtLeast(Duration.toMillis(elapsed), 199)
        return { ids: page.orderInfoResultList?.map((o) => o.orderId), wire: yield* wireLog(exchange) }
      })
  },
  {
    name: "fault on fundingBills — HttpError on a share (30 %) of pages: all 300 bills, each once",
    exchange: baseExchange({ ...TestExchange.demo({ bills: 300 }), rateLimits: false }),
    run: ({ alice, aliceId, exchange }) =>
      Effect.gen(function*() {
        yield* exchange.injectFault({
          fault: Fault.httpError(503),
          path: Venue.endpoints.fundingBills.path,
          share: 0.3
        })
        const bills = yield* Stream.runCollect(alice.fundingBills({ pageSize: 25 }))
        assert.deepStrictEqual(bills.map((b) => b.billId), yield* fundBillIds(exchange, aliceId))
        const wire = yield* wireLog(exchange)
        assert.isTrue(wire.some((r) => r.fault === "HttpError"), "some pages failed")
        return { count: bills.length, wire }
      })
  },
  {
    name: "fault on fundingBills — VenueError 40200, Latency, Truncated, Timeout: all bills, each once",
    exchange: baseExchange({ ...TestExchange.demo({ bills: 120 }), rateLimits: false }),
    client: { timeout: "200 millis" },
    run: ({ alice, aliceId, exchange }) =>
      Effect.gen(function*() {
        const path = Venue.endpoints.fundingBills.path
        yield* exchange.injectFault({ fault: Fault.venueError("40200", "server upgrade"), path, times: 1 })
        yield* exchange.injectFault({ fault: Fault.latency(50), path, times: 1 })
        yield* exchange.injectFault({ fault: Fault.truncated, path, times: 1 })
        yield* exchange.injectFault({ fault: Fault.timeout, path, times: 1 })
        const bills = yield* Stream.runCollect(alice.fundingBills({ pageSize: 50 }))
        assert.deepStrictEqual(bills.map((b) => b.billId), yield* fundBillIds(exchange, aliceId))
        const wire = yield* wireLog(exchange)
        assert.deepStrictEqual(wire.map((r) => r.fault).slice(0, 4), ["VenueError", "Latency", "Truncated", "Timeout"])
        return { count: bills.length, wire }
      })
  }
]

// ---------------------------------------------------------------------------------------------------------------

export const scenarios: ReadonlyArray<Scenario> = [
  ...endpointScenarios,
  ...forceScenarios,
  ...pagingScenarios,
  ...authScenarios,
  ...rateLimitScenarios,
  ...orderFaultCases.map(orderFaultScenario),
  ...transferFaultCases.map(transferFaultScenario),
  ...moreFaultScenarios
]
