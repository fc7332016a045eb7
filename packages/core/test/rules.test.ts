/**
 * Symbol rules (src/internal/rules.ts): the check of an order against its symbol's tick, step, minimum and maximum
 * quantity and `enableTrade`, with the nearest valid values; the client's cache of exchangeInfo (loaded on first use,
 * once for concurrent callers, again when older than its maximum age, again after a 40808 or 45110 when older than 30 s), and the
 * option that turns the check off. Checked orders that break a rule never reach the network.
 */
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber, Logger, Option, Schema, Scope } from "effect"
import { TestClock } from "effect/testing"
import { Market, type Order, type SpotError, type Telemetry } from "../src/index.ts"
import * as Rules from "../src/internal/client/rules.ts"
import type * as RuleCheck from "../src/internal/model/symbolRules.ts"
import * as Surface from "./support/fakeSurface.ts"
import {
  BATCH,
  EXCHANGE_INFO,
  FakeVenue,
  limitOrderAt,
  ORDERS,
  reasonOf,
  SYMBOL,
  withClient
} from "./support/FakeVenue.ts"

const decodeRules = Schema.decodeUnknownSync(Market.SymbolRules)

/** A checker for rules tick 0.01, step 0.0001, quantity 0.0001..100000 with `overrides`. */
const checkerOf = (overrides: Record<string, unknown> = {}) =>
  Rules.checker(decodeRules(Surface.rulesOf(SYMBOL, overrides)))

const limit = (price: string, quantity: string): RuleCheck.Checked => ({
  side: "buy",
  orderType: "limit",
  price,
  quantity
})

const brief = (error: SpotError.SymbolRuleError | undefined) =>
  error === undefined
    ? undefined
    : { rule: error.rule, field: error.field, value: error.value, limit: error.limit, nearest: error.nearest }

describe("the check", () => {
  const checker = checkerOf()

  it("keeps valid orders, whatever their trailing zeros", () => {
    for (
      const order of [
        limit("27123.45", "0.015"),
        limit("100.10", "0.060000"),
        limit("0.01", "0.0001"),
        limit("1", "100000")
      ]
    ) {
      assert.isUndefined(checker.check(order), JSON.stringify(order))
    }
  })

  it.each([
    {
      order: limit("27123.456", "1"),
      expected: {
        rule: "tickSize",
        field: "price",
        value: "27123.456",
        limit: "0.01",
        nearest: ["27123.45", "27123.46"]
      }
    },
    {
      order: limit("0.005", "1"),
      expected: { rule: "tickSize", field: "price", value: "0.005", limit: "0.01", nearest: ["0.01"] }
    },
    {
      order: limit("100", "0.00015"),
      expected: {
        rule: "stepSize",
        field: "quantity",
        value: "0.00015",
        limit: "0.0001",
        nearest: ["0.0001", "0.0002"]
      }
    },
    {
      order: limit("100", "0.00005"),
      expected: { rule: "stepSize", field: "quantity", value: "0.00005", limit: "0.0001", nearest: ["0.0001"] }
    },
    {
      order: limit("100", "100001"),
      expected: { rule: "maxTradeAmount", field: "quantity", value: "100001", limit: "100000", nearest: ["100000"] }
    }
  ])("$expected.rule: $order.price × $order.quantity", ({ expected, order }) => {
    assert.deepStrictEqual<unknown>(brief(checker.check(order)), expected)
  })

  it("below the minimum: the smallest valid quantity is the minimum rounded up to the step", () => {
    const strict = checkerOf({ minTradeAmount: "0.00125", stepSize: "0.001" })
    assert.deepStrictEqual<unknown>(brief(strict.check(limit("100", "0.001"))), {
      rule: "minTradeAmount",
      field: "quantity",
      value: "0.001",
      limit: "0.00125",
      nearest: ["0.002"]
    })
  })

  it("with no minimum published, a quantity below the step is offered the step, never zero", () => {
    const unbounded = checkerOf({ minTradeAmount: "0", stepSize: "0.000001" })
    assert.deepStrictEqual<unknown>(brief(unbounded.check(limit("100", "0.0000004"))), {
      rule: "stepSize",
      field: "quantity",
      value: "0.0000004",
      limit: "0.000001",
      nearest: ["0.000001"]
    })
  })

  it("a symbol that does not trade refuses every order", () => {
    const closed = checkerOf({ enableTrade: false })
    assert.deepStrictEqual<unknown>(brief(closed.check(limit("100", "1"))), {
      rule: "enableTrade",
      field: "symbol",
      value: SYMBOL,
      limit: "false",
      nearest: []
    })
    assert.strictEqual(
      closed.check(limit("100", "1"))?.message,
      `${SYMBOL} does not trade now: its rules say enableTrade false`
    )
  })

  it("a market buy's quantity is quote coin: the base step and bounds do not apply; a market sell's do", () => {
    assert.isUndefined(checker.check({ side: "buy", orderType: "market", quantity: "25.123456" }))
    assert.strictEqual(checker.check({ side: "sell", orderType: "market", quantity: "0.00001" })?.rule, "stepSize")
  })

  it("a rule of zero constrains nothing", () => {
    const loose = checkerOf({ tickSize: "0", stepSize: "0", minTradeAmount: "0", maxTradeAmount: "0" })
    assert.isUndefined(loose.check(limit("1.23456789", "0.000000001")))
  })

  // A venue answering garbage: a negative bound or step is no rule at all, as zero is; before, a minimum of "-1"
  // refused a quantity of 5 as below it and a maximum of "-1" refused 12 with "nearest valid: -1" (the comparison
  // reads non-negative decimals only).
  it("a negative rule constrains nothing (a venue's garbage never refuses a valid order)", () => {
    const negative = checkerOf({ tickSize: "-0.01", stepSize: "-1", minTradeAmount: "-1", maxTradeAmount: "-1" })
    for (const quantity of ["5", "12", "0.5", "100000.5"]) {
      assert.isUndefined(negative.check(limit("100.123", quantity)), quantity)
    }
    const min = checkerOf({ minTradeAmount: "-1" })
    assert.isUndefined(min.check(limit("100", "5")))
    const max = checkerOf({ maxTradeAmount: "-1" })
    assert.isUndefined(max.check(limit("100", "12")))
    // The other rules still hold.
    assert.strictEqual(max.check(limit("100", "0.00001"))?.rule, "stepSize")
  })

  it("the error names the rule and the nearest values", () => {
    const error = checker.check(limit("27123.456", "1"))!
    assert.strictEqual(
      error.message,
      "invalid price 27123.456 for BTCUSDT_SPBL: breaks tickSize 0.01; nearest valid: 27123.45 or 27123.46"
    )
    assert.isFalse(error.isRetryable)
  })
})

describe("the client checks orders before sending", () => {
  it.effect("an order off the tick fails with SymbolRuleError and is not sent", () => {
    const venue = new FakeVenue()
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(client.placeOrder(limitOrderAt("tick-1", "100.005", "1")))
        const reason = reasonOf(error, "SymbolRuleError")
        assert.deepStrictEqual(reason.nearest, ["100.00", "100.01"])
        assert.strictEqual(error.operation, "SpotClient.placeOrder")
        assert.strictEqual(venue.count(ORDERS), 0)
        assert.strictEqual(venue.publicRequests.filter((r) => r.pathname === EXCHANGE_INFO).length, 1)
      }))
  })

  it.effect("loads the rules once, on first use, for concurrent orders", () => {
    const venue = new FakeVenue()
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        assert.strictEqual(venue.publicRequests.length, 0, "nothing before the first call")
        yield* Effect.all(
          Array.from({ length: 5 }, (_, i) => client.placeOrder(limitOrderAt(`conc-${i}`))),
          { concurrency: "unbounded" }
        )
        yield* client.placeOrder(limitOrderAt("later"))
        assert.strictEqual(venue.publicRequests.filter((r) => r.pathname === EXCHANGE_INFO).length, 1)
        assert.strictEqual(venue.count(ORDERS), 6)
      }))
  })

  it.effect("checks every item of a batch: an item that breaks a rule fails alone", () => {
    const venue = new FakeVenue()
    const items: ReadonlyArray<Order.BatchItemInput> = [
      { side: "buy", orderType: "limit", price: "100", quantity: "1", clientOrderId: "b-ok" },
      { side: "buy", orderType: "limit", price: "100", quantity: "0.00001", clientOrderId: "b-step" },
      { side: "buy", orderType: "limit", price: "100.001", quantity: "1", clientOrderId: "b-tick" }
    ]
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const result = yield* client.placeOrders(SYMBOL, items)
        assert.strictEqual(result.outcomes[0]!._tag, "Placed")
        assert.deepInclude(result.outcomes[1], { _tag: "Failed", code: "SymbolRuleError", mayExist: false })
        assert.include((result.outcomes[1] as { message: string }).message, "stepSize")
        assert.deepInclude(result.outcomes[2], { _tag: "Failed", code: "SymbolRuleError" })
        const sent = venue.requests.filter((r) => r.path === BATCH).flatMap((r) => r.json.orderList as Array<unknown>)
        assert.strictEqual(sent.length, 1)
      }))
  })

  it.effect("checkSymbolRules: false sends the order unchecked and never asks for the rules", () => {
    const venue = new FakeVenue()
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        yield* client.placeOrder(limitOrderAt("off-1", "100.005", "1"))
        assert.strictEqual(venue.count(ORDERS), 1)
        assert.strictEqual(venue.publicRequests.filter((r) => r.pathname === EXCHANGE_INFO).length, 0)
      }), { checkSymbolRules: false })
  })

  it.effect("a symbol the venue does not list is sent unchecked", () => {
    const venue = new FakeVenue()
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        yield* client.placeOrder({ ...limitOrderAt("eth-1", "1.00001", "1"), symbol: "ETHUSDT_SPBL" })
        assert.strictEqual(venue.count(ORDERS), 1)
      }))
  })

  // After a failed load, orders do not wait for the next one: it runs in the background, and serves once loaded.
  it.effect("rules that cannot be loaded leave orders unchecked, and are not asked for again for a minute", () => {
    const venue = new FakeVenue().fail({ kind: "http", status: 404, body: "Not Found" }, EXCHANGE_INFO)
    const infoRequests = () => venue.publicRequests.filter((r) => r.pathname === EXCHANGE_INFO).length
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        yield* client.placeOrder(limitOrderAt("u-1", "100.005", "1"))
        yield* client.placeOrder(limitOrderAt("u-2", "100.005", "1"))
        assert.strictEqual(venue.count(ORDERS), 2)
        assert.strictEqual(infoRequests(), 1)
        yield* TestClock.adjust("61 seconds")
        yield* client.placeOrder(limitOrderAt("u-3", "100.005", "1"))
        yield* TestClock.adjust("10 millis")
        assert.strictEqual(infoRequests(), 2)
        const error = yield* Effect.flip(client.placeOrder(limitOrderAt("u-4", "100.005", "1")))
        reasonOf(error, "SymbolRuleError")
        assert.strictEqual(venue.count(ORDERS), 3)
      }))
  })

  it.effect("a 40808 answer refreshes stale rules once and explains the refusal with the fresh rules", () => {
    const venue = new FakeVenue({ rejectItem: (item) => String(item.price).endsWith("5") ? "40808" : undefined })
    const infoRequests = () => venue.publicRequests.filter((r) => r.pathname === EXCHANGE_INFO).length
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        yield* client.placeOrder(limitOrderAt("r-0"))
        // The venue's tick becomes 0.1; the cached rules still say 0.01 (and are older than a refusal's reload needs).
        venue.rules[0] = Surface.rulesOf(SYMBOL, { tickSize: "0.1" })
        yield* TestClock.adjust("31 seconds")
        const error = yield* Effect.flip(client.placeOrder(limitOrderAt("r-1", "100.05", "1")))
        const reason = reasonOf(error, "SymbolRuleError")
        assert.deepInclude(reason, { rule: "tickSize", limit: "0.1" })
        assert.deepStrictEqual(reason.nearest, ["100.0", "100.1"])
        assert.strictEqual(infoRequests(), 2)
        // The fresh rules are used from now on, without asking again.
        const next = yield* Effect.flip(client.placeOrder(limitOrderAt("r-2", "100.15", "1")))
        reasonOf(next, "SymbolRuleError")
        assert.strictEqual(venue.count(ORDERS), 2)
        assert.strictEqual(infoRequests(), 2)
      }))
  })

  // The batch reloaded the rules after the venue's refusal, but left the refused items with the venue's bare code.
  it.effect("a batch item the venue refused for a rule is explained with the fresh rules, as a single order", () => {
    // A limit price off the new tick, and a market buy (whose quote precision the rules do not carry), refused.
    const venue = new FakeVenue({
      rejectItem: (item) => String(item.price).endsWith("5") || item.orderType === "market" ? "40808" : undefined
    })
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        yield* client.placeOrder(limitOrderAt("r-0"))
        venue.rules[0] = Surface.rulesOf(SYMBOL, { tickSize: "0.1" })
        yield* TestClock.adjust("31 seconds")
        const batch = yield* client.placeOrders(SYMBOL, [
          { side: "buy", orderType: "limit", price: "100.05", quantity: "1", clientOrderId: "b-1" },
          { side: "buy", orderType: "limit", price: "100.1", quantity: "1", clientOrderId: "b-2" },
          { side: "buy", orderType: "market", price: "105", quantity: "15", clientOrderId: "b-3" }
        ])
        assert.deepInclude(batch.outcomes[0], { _tag: "Failed", clientOrderId: "b-1", code: "SymbolRuleError" })
        assert.include(
          (batch.outcomes[0] as { message: string }).message,
          "breaks tickSize 0.1; nearest valid: 100.0 or 100.1"
        )
        assert.deepInclude(batch.outcomes[1], { _tag: "Placed", clientOrderId: "b-2" })
        // A market buy's refusal is not one the rules describe: it stays the venue's.
        assert.deepInclude(batch.outcomes[2], { _tag: "Failed", clientOrderId: "b-3", code: "40808" })
      }))
  })

  it.effect("a 45110 the fresh rules do not explain stays the venue's InvalidOrderError", () => {
    const venue = new FakeVenue({ rejectItem: () => "45110" })
    const infoRequests = () => venue.publicRequests.filter((r) => r.pathname === EXCHANGE_INFO).length
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        yield* client.symbols()
        yield* TestClock.adjust("31 seconds")
        const error = yield* Effect.flip(client.placeOrder(limitOrderAt("m-1")))
        assert.strictEqual(reasonOf(error, "InvalidOrderError").code, "45110")
        assert.strictEqual(infoRequests(), 2, "loaded, then refreshed once")
        assert.strictEqual(venue.count(ORDERS), 1, "not sent again")
      }))
  })

  // Rules cached during a halt (or before a finer tick) refused valid orders, unsent, until they expired (an hour). A
  // refusal by rules older than 30 s now loads them again (as a refusal by the venue does) and refuses only if the
  // fresh rules still refuse.
  it.effect("a refusal by rules older than 30 s checks the order against fresh rules: a halt that ended", () => {
    const venue = new FakeVenue()
    venue.rules[0] = Surface.rulesOf(SYMBOL, { enableTrade: false })
    const infoRequests = () => venue.publicRequests.filter((r) => r.pathname === EXCHANGE_INFO).length
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        reasonOf(yield* Effect.flip(client.placeOrder(limitOrderAt("h-0"))), "SymbolRuleError")
        // Still halted: refused, the rules loaded again at most once per 30 s.
        for (let i = 1; i <= 12; i++) {
          yield* TestClock.adjust("10 seconds")
          reasonOf(yield* Effect.flip(client.placeOrder(limitOrderAt(`h-${i}`))), "SymbolRuleError")
        }
        assert.strictEqual(infoRequests(), 1 + 4)
        const batch = yield* client.placeOrders(SYMBOL, [{
          side: "buy",
          orderType: "limit",
          price: "100",
          quantity: "1"
        }])
        assert.deepInclude(batch.outcomes[0], { _tag: "Failed", code: "SymbolRuleError" })
        // Trading resumes: the next order is placed, a single one as a batch's item.
        venue.rules[0] = Surface.rulesOf(SYMBOL)
        yield* TestClock.adjust("31 seconds")
        yield* client.placeOrder(limitOrderAt("h-open"))
        // Halted again, seen by a reload; resumed again.
        venue.rules[0] = Surface.rulesOf(SYMBOL, { enableTrade: false })
        yield* client.refreshSymbols()
        venue.rules[0] = Surface.rulesOf(SYMBOL)
        yield* TestClock.adjust("31 seconds")
        const resumed = yield* client.placeOrders(SYMBOL, [
          { side: "buy", orderType: "limit", price: "100", quantity: "1" },
          { side: "buy", orderType: "limit", price: "100.001", quantity: "1" }
        ])
        assert.deepStrictEqual(resumed.outcomes.map((outcome) => outcome._tag), ["Placed", "Failed"])
        assert.strictEqual(venue.count(ORDERS), 1)
      }))
  })

  it.effect("a refusal by rules older than 30 s checks the order against fresh rules: a tick made finer", () => {
    const venue = new FakeVenue()
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        yield* client.placeOrder(limitOrderAt("t-1", "100.01", "1"))
        venue.rules[0] = Surface.rulesOf(SYMBOL, { tickSize: "0.001" })
        yield* TestClock.adjust("30 minutes")
        yield* client.placeOrder(limitOrderAt("t-2", "100.005", "1"))
        // Still refused at the fresh tick, with its nearest values.
        const error = yield* Effect.flip(client.placeOrder(limitOrderAt("t-3", "100.0005", "1")))
        assert.deepStrictEqual(reasonOf(error, "SymbolRuleError").nearest, ["100.000", "100.001"])
        assert.strictEqual(venue.count(ORDERS), 2)
      }))
  })

  // Each refused order reloaded every symbol's rules (weight 10): 30 refusals, 30 loads, the IP budget spent on
  // answers that could not change. A refusal reloads them only when they are older than 30 s (so at most once per
  // 30 s), and never for a market buy, whose quantity (quote coin) the rules do not describe.
  it.effect("refusals for a rule reload the rules at most once per 30 s, and never for a market buy", () => {
    const venue = new FakeVenue({ rejectItem: (item) => item.orderType === "market" ? "40808" : "45110" })
    const infoRequests = () => venue.publicRequests.filter((r) => r.pathname === EXCHANGE_INFO).length
    const marketBuy: Order.PlaceOrderInput = { symbol: SYMBOL, side: "buy", orderType: "market", quantity: "10.001" }
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        yield* client.symbols()
        for (let i = 0; i < 20; i++) {
          const error = yield* Effect.flip(client.placeOrder(limitOrderAt(`min-${i}`)))
          assert.strictEqual(reasonOf(error, "InvalidOrderError").code, "45110")
        }
        for (let i = 0; i < 10; i++) {
          const error = yield* Effect.flip(client.placeOrder({ ...marketBuy, clientOrderId: `mb-${i}` }))
          assert.strictEqual(reasonOf(error, "InvalidOrderError").code, "40808")
        }
        const batch = yield* client.placeOrders(SYMBOL, [{
          side: "buy",
          orderType: "limit",
          price: "100",
          quantity: "1"
        }])
        assert.deepInclude(batch.outcomes[0], { _tag: "Failed", code: "45110" })
        assert.strictEqual(infoRequests(), 1, "rules loaded 0 s ago: not again")
        yield* TestClock.adjust("31 seconds")
        for (let i = 0; i < 10; i++) {
          const error = yield* Effect.flip(client.placeOrder({ ...marketBuy, clientOrderId: `mb2-${i}` }))
          assert.strictEqual(reasonOf(error, "InvalidOrderError").code, "40808")
        }
        assert.strictEqual(infoRequests(), 1, "a market buy's refusal: not a rule the rules carry")
        for (let i = 0; i < 10; i++) yield* Effect.flip(client.placeOrder(limitOrderAt(`min2-${i}`)))
        assert.strictEqual(infoRequests(), 2, "once, then younger than 30 s")
        yield* TestClock.adjust("31 seconds")
        yield* client.placeOrders(SYMBOL, [{ side: "buy", orderType: "limit", price: "100", quantity: "1" }])
        yield* client.placeOrders(SYMBOL, [{ side: "buy", orderType: "limit", price: "100", quantity: "1" }])
        assert.strictEqual(infoRequests(), 3)
        assert.strictEqual(venue.count(ORDERS), 50)
      }))
  })

  // An order does not wait for the reload of expired rules: they serve while one reload runs in the background.
  it.effect("rules older than symbolRulesMaxAge are loaded again, in the background, serving meanwhile", () => {
    const venue = new FakeVenue()
    const infoRequests = () => venue.publicRequests.filter((r) => r.pathname === EXCHANGE_INFO).length
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        yield* client.placeOrder(limitOrderAt("age-1"))
        yield* TestClock.adjust("59 seconds")
        yield* client.placeOrder(limitOrderAt("age-2"))
        assert.strictEqual(infoRequests(), 1)
        venue.rules[0] = Surface.rulesOf(SYMBOL, { tickSize: "0.1" })
        yield* TestClock.adjust("2 seconds")
        // Checked against the expired rules (tick 0.01), and sent.
        yield* client.placeOrder(limitOrderAt("age-3", "100.01", "1"))
        yield* Effect.all([client.placeOrder(limitOrderAt("age-4")), client.placeOrder(limitOrderAt("age-5"))], {
          concurrency: "unbounded"
        })
        yield* TestClock.adjust("10 millis")
        assert.strictEqual(infoRequests(), 2, "one reload")
        reasonOf(yield* Effect.flip(client.placeOrder(limitOrderAt("age-6", "100.01", "1"))), "SymbolRuleError")
        assert.strictEqual(venue.count(ORDERS), 5)
      }), { symbolRulesMaxAge: "1 minute" })
  })
})

describe("the cache (Rules.make)", () => {
  const list = Schema.decodeUnknownSync(Market.ExchangeInfo)([Surface.rulesOf(SYMBOL)])
  const options = { maxAge: 3_600_000, retryMillis: 60_000, waitMillis: 3_000, refreshAfter: 30_000 }

  it.effect("a cold cache: an order waits waitMillis at most, the next one not at all; the load goes on", () =>
    Effect.gen(function*() {
      const gate = yield* Deferred.make<void>()
      let loads = 0
      const cache = yield* Rules.make(
        Effect.andThen(Effect.sync(() => loads++), Effect.as(Deferred.await(gate), list)),
        options
      )
      const first = yield* Effect.forkChild(cache.forOrder(SYMBOL))
      yield* TestClock.adjust("3 seconds")
      assert.isUndefined(yield* Fiber.join(first))
      assert.isUndefined(yield* cache.forOrder(SYMBOL), "no wait on a load an order gave up on")
      yield* Deferred.succeed(gate, undefined)
      yield* TestClock.adjust("1 milli")
      assert.strictEqual((yield* cache.forOrder(SYMBOL))?.rules.symbol, SYMBOL)
      assert.strictEqual(loads, 1)
    }))

  // The loads run in the scope the cache was made in (a client's layer): once it closed, a load is interrupted at
  // once, and an order goes unchecked; it is never interrupted itself.
  it.effect("a load interrupted with its scope leaves orders unchecked, never interrupted", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const cache = yield* Effect.provideService(Rules.make(Effect.never, options), Scope.Scope, scope)
      yield* Scope.close(scope, Exit.void)
      const exit = yield* Effect.exit(cache.forOrder(SYMBOL))
      assert.isTrue(Exit.isSuccess(exit) && exit.value === undefined, String(exit))
      const again = yield* Effect.exit(cache.revalidated(SYMBOL, 0))
      assert.isTrue(Exit.isSuccess(again) && again.value === Rules.Unchanged, String(again))
    }))
})

describe("symbols, symbol, refreshSymbols", () => {
  it.effect("answer the rules from exchangeInfo, exact decimals, from the same cache", () => {
    const venue = new FakeVenue()
    venue.rules.push(Surface.rulesOf("ETHUSDT_SPBL", { tickSize: "0.001", enableTrade: false }))
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const all = yield* client.symbols()
        assert.deepStrictEqual(all.map((rules) => rules.symbol), [SYMBOL, "ETHUSDT_SPBL"])
        const eth = Option.getOrThrow(yield* client.symbol("ETHUSDT_SPBL"))
        assert.deepInclude<unknown>(eth, {
          tickSize: "0.001",
          stepSize: "0.0001",
          enableTrade: false,
          takerFeeRate: "0.001"
        })
        assert.isTrue(Option.isNone(yield* client.symbol("XRPUSDT_SPBL")))
        yield* client.placeOrder(limitOrderAt("after-symbols"))
        assert.strictEqual(venue.publicRequests.filter((r) => r.pathname === EXCHANGE_INFO).length, 1)
        venue.rules.pop()
        assert.strictEqual((yield* client.refreshSymbols()).length, 1)
        assert.isTrue(Option.isNone(yield* client.symbol("ETHUSDT_SPBL")))
      }))
  })

  it.effect("symbol refuses a malformed name before sending", () => {
    const venue = new FakeVenue()
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(client.symbol("btc-usdt"))
        assert.strictEqual(reasonOf(error, "ValidationError").field, "symbol")
        assert.strictEqual(venue.publicRequests.length, 0)
      }))
  })

  it.effect("symbols fails with the reason when exchangeInfo cannot be read", () => {
    const venue = new FakeVenue().fail({ kind: "http", status: 404, body: "<html>Not Found</html>" }, EXCHANGE_INFO)
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(client.symbols())
        reasonOf(error, "HttpStatusError")
        assert.strictEqual(error.operation, "SpotClient.symbols")
      }))
  })
})

// One entry the client cannot read used to fail the whole list: `symbols()` failed for everyone and every order went
// unchecked (or kept the older rules) until the next load. Now only that entry is left out, and reported.
describe("an unreadable entry in the symbol list", () => {
  const ETH = "ETHUSDT_SPBL"
  const XRP = "XRPUSDT_SPBL"
  const bad: ReadonlyArray<Record<string, unknown>> = [
    Surface.rulesOf(ETH, { tickSize: "1e-40" }),
    Object.fromEntries(Object.entries(Surface.rulesOf(XRP)).filter(([key]) => key !== "stepSize")),
    Surface.rulesOf("SOLUSDT_SPBL", { enableTrade: "maybe" })
  ]

  /** Runs `f` with the events the client reported and its log at warning. */
  const observed = <A, E>(
    venue: FakeVenue,
    f: (
      client: Parameters<Parameters<typeof withClient>[1]>[0],
      seen: { readonly events: Array<Telemetry.Event>; readonly warnings: Array<string> }
    ) => Effect.Effect<A, E>
  ) => {
    const seen = { events: [] as Array<Telemetry.Event>, warnings: [] as Array<string> }
    const logger = Logger.layer([
      Logger.make((options) => {
        if (options.logLevel === "Warn") seen.warnings.push(String(options.message))
      })
    ])
    return withClient(venue, (client) => f(client, seen), {
      onEvent: (event) => Effect.sync(() => void seen.events.push(event))
    }).pipe(Effect.provide(logger))
  }

  it.effect("the good entries are kept; the bad ones are reported (an event, a warning), each with why", () => {
    const venue = new FakeVenue()
    venue.rules.push(...bad, 42 as unknown as Record<string, unknown>)
    return observed(venue, (client, seen) =>
      Effect.gen(function*() {
        const all = yield* client.symbols()
        assert.deepStrictEqual(all.map((rules) => rules.symbol), [SYMBOL])
        assert.isTrue(Option.isNone(yield* client.symbol(ETH)))
        const reported = seen.events.filter((event) => event._tag === "UnreadableSymbols")
        assert.strictEqual(reported.length, 1)
        const entries = reported[0]!.entries
        assert.deepStrictEqual(entries.map(({ index, symbol }) => ({ index, symbol })), [
          { index: 1, symbol: ETH },
          { index: 2, symbol: XRP },
          { index: 3, symbol: "SOLUSDT_SPBL" },
          { index: 4, symbol: undefined }
        ])
        assert.include(entries[0]!.issue, "tickSize")
        assert.include(entries[1]!.issue, "stepSize")
        assert.include(entries[2]!.issue, "enableTrade")
        assert.strictEqual(seen.warnings.length, 1)
        assert.include(seen.warnings[0]!, "4 entries of the venue's symbol rules could not be read")
        assert.include(seen.warnings[0]!, `${ETH} (tickSize`)
        assert.include(seen.warnings[0]!, "entry 4 (")
      }))
  })

  it.effect("an order on the good symbol is still checked; one on a bad entry's symbol is sent unchecked", () => {
    const venue = new FakeVenue()
    venue.rules.push(...bad)
    return observed(venue, (client) =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(client.placeOrder(limitOrderAt("good-1", "100.005", "1")))
        reasonOf(error, "SymbolRuleError")
        assert.strictEqual(venue.count(ORDERS), 0)
        // As an order on a symbol the venue does not list: sent, for the venue to judge.
        yield* client.placeOrder({ ...limitOrderAt("eth-1", "100.005", "1"), symbol: ETH })
        yield* client.placeOrder({ ...limitOrderAt("xrp-1", "100.005", "1"), symbol: XRP })
        assert.strictEqual(venue.count(ORDERS), 2)
        assert.strictEqual(venue.publicRequests.filter((r) => r.pathname === EXCHANGE_INFO).length, 1)
      }))
  })

  it.effect("a symbol whose entry turns unreadable loses its older rules, as a symbol no longer listed", () => {
    const venue = new FakeVenue()
    venue.rules.push(Surface.rulesOf(ETH))
    return observed(venue, (client, seen) =>
      Effect.gen(function*() {
        const before = yield* Effect.flip(client.placeOrder({ ...limitOrderAt("e-1", "100.005", "1"), symbol: ETH }))
        reasonOf(before, "SymbolRuleError")
        venue.rules[1] = bad[0]!
        assert.deepStrictEqual((yield* client.refreshSymbols()).map((rules) => rules.symbol), [SYMBOL])
        yield* client.placeOrder({ ...limitOrderAt("e-2", "100.005", "1"), symbol: ETH })
        assert.strictEqual(venue.count(ORDERS), 1)
        assert.strictEqual(seen.events.filter((event) => event._tag === "UnreadableSymbols").length, 1)
      }))
  })

  // A symbol listed twice with different rules: the last copy in the venue's order was the one orders were checked
  // against, with nothing said, and `symbols()` listed both. Which copy is the venue's rule is unknown: checking
  // against the wrong one refuses valid orders (or suggests wrong nearest values), so neither is taken.
  it.effect("a symbol listed twice with different rules is left out and reported; identical copies kept once", () => {
    const venue = new FakeVenue()
    venue.rules.push(Surface.rulesOf(SYMBOL, { tickSize: "1" }), Surface.rulesOf(ETH), Surface.rulesOf(ETH))
    return observed(venue, (client, seen) =>
      Effect.gen(function*() {
        assert.deepStrictEqual((yield* client.symbols()).map((rules) => rules.symbol), [ETH])
        assert.isTrue(Option.isNone(yield* client.symbol(SYMBOL)))
        const reported = seen.events.filter((event) => event._tag === "UnreadableSymbols")
        assert.strictEqual(reported.length, 1)
        assert.deepStrictEqual(reported[0]!.entries.map(({ index, symbol }) => ({ index, symbol })), [
          { index: 0, symbol: SYMBOL },
          { index: 1, symbol: SYMBOL }
        ])
        assert.include(reported[0]!.entries[0]!.issue, "listed 2 times with different rules")
        // Valid at the first copy's tick, not at the second's: sent unchecked, for the venue to judge.
        yield* client.placeOrder(limitOrderAt("dup-1", "100.5", "1"))
        assert.strictEqual(venue.count(ORDERS), 1)
      }))
  })

  // A symbol listed twice, one copy unreadable: the copies differ (the unreadable one's rules are not the other's), so
  // which is the venue's rule is as unknown as with two readable copies: the readable one was kept and checked.
  it("a symbol listed twice, one copy unreadable: every copy left out and reported", () => {
    const list = Schema.decodeUnknownSync(Market.ExchangeInfo)([
      Surface.rulesOf(SYMBOL),
      Surface.rulesOf(ETH),
      Surface.rulesOf(SYMBOL, { tickSize: "1e-40" })
    ])
    assert.deepStrictEqual(list.symbols.map((rules) => rules.symbol), [ETH])
    assert.deepStrictEqual(list.unreadable.map(({ index, symbol }) => ({ index, symbol })), [
      { index: 0, symbol: SYMBOL },
      { index: 2, symbol: SYMBOL }
    ])
    assert.include(list.unreadable[0]!.issue, "listed 2 times with different rules")
    assert.include(list.unreadable[1]!.issue, "tickSize")
  })

  it("Market.ExchangeInfo reads each entry on its own; only an answer that is no array fails", () => {
    const decode = Schema.decodeUnknownSync(Market.ExchangeInfo)
    const list = decode([Surface.rulesOf(SYMBOL), ...bad])
    assert.deepStrictEqual(list.symbols.map((rules) => rules.symbol), [SYMBOL])
    assert.strictEqual(list.unreadable.length, 3)
    assert.deepStrictEqual(decode(null), { symbols: [], unreadable: [] })
    assert.throws(() => decode({ symbol: SYMBOL }))
  })
})
