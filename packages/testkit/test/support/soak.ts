/**
 * The soak runners: exports under a fault mix (bills, open orders), placements whose answers get lost after the
 * order was applied (idempotency), and many clients at once (load). Each runs the core client over undici against
 * the sandbox on loopback, asserts what must hold (nothing lost, nothing duplicated, equal checksums, one order per
 * clientOrderId, conservation) and answers its figures.
 */
import { assert } from "@effect/vitest"
import { Venue } from "@spotkit/core"
import type { Bill, Order, SpotClient, SpotError } from "@spotkit/core"
import { Clock, Duration, Effect, Exit, Stream } from "effect"
import { Fault } from "../../src/index.ts"
import type { TestExchange } from "../../src/index.ts"
import { BTC } from "./conformance.ts"
import {
  assertConserved,
  checksum,
  demoExchange,
  duplicatesOf,
  faultMix,
  full,
  outcomeTag,
  soakFaults,
  tally,
  wireFigures,
  withSandbox
} from "./reliability.ts"
import type { Harness } from "./reliability.ts"
import type { Collector } from "./secrets.ts"

/** A short timeout so that Timeout faults resolve quickly, and retries enough to outlast any run of faults. */
export const soakClient: Partial<SpotClient.Options> = {
  timeout: "150 millis",
  retry: { times: 12, baseDelay: "1 millis", maxDelay: "20 millis" }
}

/** A whole run may take this long before it counts as a hang. */
const runBound = Duration.minutes(full ? 30 : 2)

const injectAll = (exchange: TestExchange.Service, rules: ReadonlyArray<Fault.Rule>) =>
  Effect.forEach(rules, (rule) => Effect.orDie(exchange.injectFault(rule)), { discard: true })

/** Runs `effect` within the run bound, records its exit, and fails the test unless it succeeded. */
const successOf = <A>(
  effect: Effect.Effect<A, SpotError.SpotError>,
  what: string,
  collector: Collector | undefined
) =>
  Effect.map(Effect.exit(Effect.timeout(effect, runBound)), (exit) => {
    collector?.exit(what, exit)
    assert.strictEqual(outcomeTag(exit, what), "success", what)
    return (exit as Exit.Success<A>).value
  })

/** One exported or ledger bill as a row of its every field. */
const billRow = (bill: { readonly [K in keyof Bill.Bill]: string | number }) =>
  [bill.billId, bill.coinId, bill.coinName, bill.bizType, bill.deltaAmount, bill.afterAmount, bill.fees, bill.cTime]
    .join("|")

/** The figures of an export compared with the exchange's own records. */
const compareExport = (exported: ReadonlyArray<string>, expected: ReadonlyArray<string>, ids: {
  readonly exported: ReadonlyArray<string>
  readonly expected: ReadonlyArray<string>
}) => {
  const want = new Set(ids.expected)
  const got = new Set(ids.exported)
  const figures = {
    expected: ids.expected.length,
    exported: ids.exported.length,
    lost: ids.expected.filter((id) => !got.has(id)).length,
    duplicated: duplicatesOf(ids.exported),
    unexpected: ids.exported.filter((id) => !want.has(id)).length,
    checksum: checksum(exported),
    expectedChecksum: checksum(expected)
  }
  assert.strictEqual(figures.lost, 0, "nothing lost")
  assert.strictEqual(figures.duplicated, 0, "nothing duplicated")
  assert.strictEqual(figures.unexpected, 0, "nothing made up")
  assert.strictEqual(figures.exported, figures.expected, "as many as the ledger holds")
  assert.strictEqual(figures.checksum, figures.expectedChecksum, "every field equal")
  return figures
}

/** Every fault kind of the soak struck at least once (in full runs; reduced runs may miss a kind). */
const assertFaultsStruck = (faultsByKind: Record<string, number>) => {
  assert.isAbove(Object.values(faultsByKind).reduce((a, b) => a + b, 0), 0, "faults were injected")
  if (full) { for (const fault of soakFaults) assert.isAbove(faultsByKind[fault._tag] ?? 0, 0, fault._tag) }
}

// ---------------------------------------------------------------------------------------------------------------
// Fault soak: exports

/** Exports alice's `bills` funding bills, `pageSize` a page, while 10 % of the bills requests meet a fault. */
export const billsSoak = (options: { readonly bills: number; readonly pageSize: number }, collector?: Collector) =>
  withSandbox(demoExchange(options.bills), ({ client, exchange }) =>
    Effect.gen(function*() {
      const aliceId = exchange.accounts[0]!.userId
      yield* injectAll(exchange, faultMix(soakFaults, 0.1, Venue.endpoints.fundingBills.path))
      const alice = yield* client(soakClient)
      const start = yield* Clock.currentTimeMillis
      const bills = yield* successOf(
        Stream.runCollect(alice.fundingBills({ pageSize: options.pageSize })),
        "bills export",
        collector
      )
      const millis = (yield* Clock.currentTimeMillis) - start
      yield* exchange.clearFaults
      const ledger = yield* Effect.orDie(exchange.ledger(aliceId, "FUND"))
      const figures = compareExport(bills.map(billRow), ledger.map(billRow), {
        exported: bills.map((bill) => bill.billId),
        expected: ledger.map((entry) => entry.billId)
      })
      const wire = yield* wireFigures(exchange)
      assertFaultsStruck(wire.faultsByKind)
      yield* assertConserved(exchange)
      return { ...figures, pageSize: options.pageSize, ...wire, durationMillis: millis }
    }), collector)

/** Exports alice's `orders` open orders, `pageSize` a page, while 10 % of the open-orders requests meet a fault. */
export const openOrdersSoak = (
  options: { readonly orders: number; readonly pageSize: number },
  collector?: Collector
) =>
  withSandbox(demoExchange(0), ({ client, exchange }) =>
    Effect.gen(function*() {
      const aliceId = exchange.accounts[0]!.userId
      // Resting buys of 0.001 BTC at 20,000.00 to 24,999.00: below every ask, so none fills.
      for (let i = 0; i < options.orders; i++) {
        const placed = yield* exchange.placeOrder(aliceId, {
          symbol: BTC,
          side: "buy",
          orderType: "limit",
          force: "normal",
          price: `${20_000 + (i * 7919) % 5000}.00`,
          quantity: "0.001",
          clientOrderId: `rest-${i}`
        })
        assert.isTrue(placed.ok, `seed order ${i}`)
      }
      yield* injectAll(exchange, faultMix(soakFaults, 0.1, Venue.endpoints.openOrders.path))
      const alice = yield* client(soakClient)
      const start = yield* Clock.currentTimeMillis
      const open = yield* successOf(
        Stream.runCollect(alice.openOrders({ symbol: BTC, pageSize: options.pageSize })),
        "open-orders export",
        collector
      )
      const millis = (yield* Clock.currentTimeMillis) - start
      yield* exchange.clearFaults
      const engine = (yield* Effect.orDie(exchange.orders(aliceId))).filter((o) => o.status === "open")
      const row = (
        o: { readonly [K in "orderId" | "clientOrderId" | "price" | "quantity" | "side" | "status"]: string }
      ) => [o.orderId, o.clientOrderId, o.price, o.quantity, o.side, o.status].join("|")
      const figures = compareExport(open.map(row), engine.map(row), {
        exported: open.map((o) => o.orderId),
        expected: engine.map((o) => o.orderId)
      })
      assert.strictEqual(figures.expected, options.orders)
      const wire = yield* wireFigures(exchange)
      assertFaultsStruck(wire.faultsByKind)
      yield* assertConserved(exchange)
      return { ...figures, pageSize: options.pageSize, ...wire, durationMillis: millis }
    }), collector)

// ---------------------------------------------------------------------------------------------------------------
// Idempotency soak

/** The i-th placement: resting limit buys and sells, and market buys and sells that fill against bob at once. */
const placement = (i: number): Order.PlaceOrderInput => {
  const clientOrderId = `idem-${i}`
  switch (i % 4) {
    case 0:
      return {
        symbol: BTC,
        side: "buy",
        orderType: "limit",
        price: `${29_000 - (i % 50)}`,
        quantity: "0.001",
        clientOrderId
      }
    case 1:
      return { symbol: BTC, side: "buy", orderType: "market", quantity: "6", clientOrderId }
    case 2:
      return {
        symbol: BTC,
        side: "sell",
        orderType: "limit",
        price: `${31_000 + (i % 50)}`,
        quantity: "0.001",
        clientOrderId
      }
    default:
      return { symbol: BTC, side: "sell", orderType: "market", quantity: "0.0002", clientOrderId }
  }
}

/**
 * `placements` placeOrder calls, each with its own clientOrderId, while 20 % of the applied placements lose their
 * answer (the connection drops after the venue placed the order). Every 100 placements alice cancels her resting
 * orders on the exchange, as a trader's housekeeping would, which keeps each look-up to one page.
 */
export const idempotencySoak = (options: { readonly placements: number }, collector?: Collector) =>
  withSandbox(demoExchange(0), ({ client, exchange }) =>
    Effect.gen(function*() {
      const aliceId = exchange.accounts[0]!.userId
      yield* Effect.orDie(
        exchange.injectFault({ fault: Fault.appliedLost, path: Venue.endpoints.placeOrder.path, share: 0.2 })
      )
      const alice = yield* client({ ...soakClient, timeout: "5 seconds" })
      const outcomes: Array<string> = []
      const start = yield* Clock.currentTimeMillis
      for (let i = 0; i < options.placements; i++) {
        const order = placement(i)
        const what = `placement ${order.clientOrderId}`
        const exit = yield* Effect.exit(Effect.timeout(alice.placeOrder(order), Duration.seconds(30)))
        collector?.exit("placement", exit)
        const tag = outcomeTag(exit, what)
        const inEngine = exchange.engine.orderByClientId(aliceId, order.clientOrderId!)
        if (inEngine === undefined) return assert.fail(`${what}: no order in the engine`)
        if (Exit.isSuccess(exit)) {
          assert.strictEqual(exit.value.orderId, inEngine.orderId, `${what}: the engine's orderId`)
          assert.strictEqual(exit.value.clientOrderId, order.clientOrderId)
        } else {
          // The order exists (every lost answer was applied): the reason must say it may.
          const reason = (exit.cause.reasons[0] as { readonly error: SpotError.SpotError }).error.reason
          assert.isTrue("mayExist" in reason && reason.mayExist, `${what}: ${reason._tag} says the order may exist`)
          assert.strictEqual("clientOrderId" in reason ? reason.clientOrderId : undefined, order.clientOrderId, what)
        }
        outcomes.push(tag)
        if (i % 100 === 99) {
          for (const open of exchange.engine.orderList(aliceId)) {
            if (open.status === "open") yield* exchange.cancelOrder(aliceId, { orderId: open.orderId })
          }
        }
      }
      const millis = (yield* Clock.currentTimeMillis) - start
      yield* exchange.clearFaults
      const orders = yield* Effect.orDie(exchange.orders(aliceId))
      const cids = orders.map((o) => o.clientOrderId)
      const wanted = Array.from({ length: options.placements }, (_, i) => `idem-${i}`)
      const wire = yield* wireFigures(exchange)
      const figures = {
        placements: options.placements,
        engineOrders: orders.length,
        lost: wanted.filter((cid) => exchange.engine.orderByClientId(aliceId, cid) === undefined).length,
        duplicated: duplicatesOf(cids),
        outcomes: tally(outcomes),
        checksumPlaced: checksum(wanted),
        checksumEngine: checksum(cids),
        ...wire,
        durationMillis: millis
      }
      assert.strictEqual(figures.engineOrders, options.placements, "one engine order per placement")
      assert.strictEqual(figures.lost, 0)
      assert.strictEqual(figures.duplicated, 0)
      assert.strictEqual(figures.checksumEngine, figures.checksumPlaced, "the engine's clientOrderIds are those placed")
      assert.isAbove(wire.faultsByKind.AppliedLost ?? 0, 0, "answers were lost")
      // The venue serves the lookup by clientOrderId (#14): every lost answer is recovered, filled orders included.
      assert.strictEqual(figures.outcomes.success, options.placements, "every call answered the engine's orderId")
      yield* assertConserved(exchange)
      return figures
    }), collector)

// ---------------------------------------------------------------------------------------------------------------
// Load

interface Call {
  readonly op: string
  readonly client: number
  readonly tag: string
  readonly placed: ReadonlyArray<{ readonly clientOrderId: string; readonly orderId: string }>
}

/** The credentials of the load's clients. */
export const loadKeys = (clients: number) =>
  Array.from({ length: clients }, (_, c) => ({
    apiKey: `load-key-${c}`,
    secretKey: `load-secret-${c}-0123456789`,
    passphrase: `load-pass-${c}`
  }))

const loadFaults = [Fault.httpError(503), Fault.rateLimited, Fault.drop]

/**
 * `clients` clients, each its own user with its own key, run mixed traffic (limit, market and batch orders, open
 * orders, bills, transfers) for `seconds` against the sandbox, as fast as it answers, while 1 % of the requests
 * meet a fault the venue did not apply. Rate limits are off on both sides, so any refusal would be the sandbox's
 * own failure: with the venue's limits on, 64 clients sharing one 2-vCPU process with the sandbox saw transit
 * delays vary by more than a second, more than any client-side margin absorbs (docs/venue/limits.md's limits are tested in the
 * conformance suite). Afterwards: no request failed without an injected fault, every
 * call that failed failed because of one, every order is in the engine once with the id its call answered, the
 * transfers in the ledger are those that succeeded, and coins are conserved.
 */
export const load = (options: { readonly clients: number; readonly seconds: number }, collector?: Collector) => {
  const accounts = loadKeys(options.clients).map((key) => ({
    keys: [key],
    bills: { count: 50 },
    balances: [
      { accountType: "SPOT" as const, coin: "USDT", amount: "1000000" },
      { accountType: "SPOT" as const, coin: "BTC", amount: "10" },
      { accountType: "FUND" as const, coin: "USDT", amount: "10000" }
    ]
  }))
  const base = demoExchange(0)
  const exchangeOptions: TestExchange.Options = { ...base, accounts: [...base.accounts!, ...accounts] }
  return withSandbox(exchangeOptions, (harness) => runLoad(harness, options, collector), collector)
}

const runLoad = (
  { client, exchange }: Harness,
  options: { readonly clients: number; readonly seconds: number },
  collector: Collector | undefined
) =>
  Effect.gen(function*() {
    const users = exchange.accounts.slice(2)
    const transfersOut = (userId: string) =>
      Effect.map(
        Effect.orDie(exchange.ledger(userId, "FUND")),
        (entries) => entries.filter((e) => e.bizType === "transfer_out").length
      )
    const before = yield* Effect.forEach(users, (user) => transfersOut(user.userId))
    yield* exchange.clearRequests
    yield* Effect.forEach(faultMix(loadFaults, 0.01), (rule) => Effect.orDie(exchange.injectFault(rule)), {
      discard: true
    })
    const calls: Array<Call> = []
    const start = yield* Clock.currentTimeMillis
    const deadline = start + options.seconds * 1000
    yield* Effect.forEach(users, (user, c) =>
      Effect.gen(function*() {
        const spot = yield* client({
          account: user,
          retry: { times: 8, baseDelay: "5 millis", maxDelay: "100 millis" },
          timeout: "10 seconds"
        })
        const next = users[(c + 1) % users.length]!.userId
        for (let i = 0; (yield* Clock.currentTimeMillis) < deadline; i++) {
          const cid = `c${c}-${i}`
          const record = <A>(
            op: string,
            effect: Effect.Effect<A, SpotError.SpotError>,
            placed: (a: A) => Call["placed"] = () => []
          ) =>
            Effect.map(Effect.exit(Effect.timeout(effect, Duration.seconds(60))), (exit) => {
              collector?.exit(`load ${op}`, exit)
              const tag = outcomeTag(exit, `${op} ${cid}`)
              calls.push({ op, client: c, tag, placed: Exit.isSuccess(exit) ? placed(exit.value) : [] })
            })
          const single = (result: Order.PlaceOrderResult) => [result]
          switch (i % 7) {
            case 0:
              yield* record(
                "limit",
                spot.placeOrder({
                  symbol: BTC,
                  side: "buy",
                  orderType: "limit",
                  price: `${20_000 + (i * 37) % 5000}`,
                  quantity: "0.001",
                  clientOrderId: cid
                }),
                single
              )
              break
            case 1:
              yield* record("openOrders", spot.openOrdersPage({ symbol: BTC, limit: 20 }))
              break
            case 2:
              yield* record(
                "market",
                spot.placeOrder({ symbol: BTC, side: "buy", orderType: "market", quantity: "6", clientOrderId: cid }),
                single
              )
              break
            case 3:
              yield* record("bills", spot.fundingBillsPage({ pageSize: 20 }))
              break
            case 4:
              yield* record(
                "batch",
                spot.placeOrders(
                  BTC,
                  [0, 1, 2].map((k) => ({
                    side: "sell" as const,
                    orderType: "limit" as const,
                    price: `${40_000 + k}`,
                    quantity: "0.001",
                    clientOrderId: `${cid}-${k}`
                  }))
                ),
                (result) => {
                  assert.strictEqual(result.failed, 0, `batch ${cid}`)
                  return result.outcomes.flatMap((o) => o._tag === "Placed" ? [o] : [])
                }
              )
              break
            case 5:
              yield* record(
                "transfer",
                spot.internalTransfer({
                  toUserId: next,
                  coin: "USDT",
                  amount: "1",
                  fromAccountType: "FUND",
                  toAccountType: "SPOT"
                })
              )
              break
            default:
              yield* record(
                "market",
                spot.placeOrder({
                  symbol: BTC,
                  side: "sell",
                  orderType: "market",
                  quantity: "0.0002",
                  clientOrderId: cid
                }),
                single
              )
          }
        }
      }), { concurrency: "unbounded", discard: true })
    const millis = (yield* Clock.currentTimeMillis) - start
    yield* exchange.clearFaults
    const records = yield* exchange.requests

    // The wire: every request that was not answered 200 met an injected fault.
    const unexplained = records.filter((r) => r.status !== 200 && r.fault === undefined)
    assert.deepStrictEqual(
      unexplained.slice(0, 5).map((r) => [r.path, r.status, r.code]),
      [],
      "failures without a fault"
    )
    // The calls: only transfers may fail (they are not retried once sent), each because a fault met it.
    const failed = calls.filter((call) => call.tag !== "success")
    const transferFaults = records.filter((r) =>
      r.path === Venue.endpoints.internalTransfer.path && (r.fault === "HttpError" || r.fault === "Drop")
    ).length
    assert.deepStrictEqual(
      failed.filter((call) =>
        call.op !== "transfer"
      ).map((call) => call.tag),
      []
    )
    assert.isTrue(failed.every((call) => call.tag === "OutcomeUnknownError"), "failed transfers say they may exist")
    assert.strictEqual(failed.length, transferFaults, "one failed transfer per fault on a transfer request")

    // The state: every order once, with the id its call answered; the transfers that succeeded, and only those.
    let orders = 0
    for (const call of calls) {
      for (const placed of call.placed) {
        orders++
        const userId = users[call.client]!.userId
        assert.strictEqual(exchange.engine.orderByClientId(userId, placed.clientOrderId)?.orderId, placed.orderId)
      }
    }
    let engineOrders = 0
    for (const user of users) engineOrders += (yield* Effect.orDie(exchange.orders(user.userId))).length
    assert.strictEqual(engineOrders, orders, "the engine holds exactly the orders placed")
    const after = yield* Effect.forEach(users, (user) => transfersOut(user.userId))
    users.forEach((_, c) => {
      const succeeded = calls.filter((call) => call.client === c && call.op === "transfer" && call.tag === "success")
      assert.strictEqual(after[c]! - before[c]!, succeeded.length, `client ${c}: transfers in the ledger`)
    })
    yield* assertConserved(exchange)

    // A consistent read afterwards: one client's open orders, streamed, are the engine's.
    const reader = yield* client({ account: users[0]! })
    const open = yield* successOf(Stream.runCollect(reader.openOrders({ symbol: BTC })), "open orders after", collector)
    const engineOpen = (yield* Effect.orDie(exchange.orders(users[0]!.userId))).filter((o) => o.status === "open")
    assert.strictEqual(checksum(open.map((o) => o.orderId)), checksum(engineOpen.map((o) => o.orderId)))

    const faults = tally(records.flatMap((r) => r.fault === undefined ? [] : [r.fault]))
    return {
      clients: options.clients,
      seconds: options.seconds,
      calls: calls.length,
      callsByOp: tally(calls.map((call) => call.op)),
      requests: records.length,
      faultsInjected: Object.values(faults).reduce((a, b) => a + b, 0),
      faultsByKind: faults,
      failedCalls: failed.length,
      failedWithoutFault: unexplained.length,
      orders,
      durationMillis: millis
    }
  })
