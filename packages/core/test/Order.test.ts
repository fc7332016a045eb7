/**
 * The order schemas' hand-written fast paths (`Order.fastPlaceOrderResult`, `fastOpenOrdersPage`) against their
 * Schemas, in both directions: whatever a fast path answers, the Schema decodes to the same value; whatever the Schema accepts, the fast path decodes to the same value or leaves to the Schema.
 * Checked on generated input mixing the venue's plain forms with the unusual-but-valid forms (numeric ids, exponent
 * decimals, long millisecond strings, keys present with `undefined`) and invalid ones. And the fast paths do take the
 * answers a trading program receives every time, or they would be pointless. Also the
 * limit-price rule on market orders.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Schema } from "effect"
import { TestClock } from "effect/testing"
import * as fc from "fast-check"
import { Envelope, Json, Order, Venue } from "../src/index.ts"
import * as OrderFast from "../src/internal/model/orderFast.ts"
import { FakeVenue, reasonOf, SYMBOL, venueOrderId, withClient } from "./support/FakeVenue.ts"
import {
  decimals,
  fastAgreesWithSchema,
  fastEqualOrDeclines,
  ids,
  literal,
  longMillisText,
  millis,
  objectOf,
  plainDecimal,
  plainMillis,
  safeNat,
  strings,
  u64Digits,
  unusualDecimal,
  usually
} from "./support/fastPath.ts"

const RUNS = 3_000

// ---------------------------------------------------------------------------------------------------------------
// fast ⇒ Schema: plain, unusual-but-valid and invalid forms

const openOrderFields = {
  accountId: ids,
  symbol: strings,
  orderId: ids,
  clientOrderId: strings,
  price: decimals,
  quantity: decimals,
  orderType: literal("limit", "market"),
  side: literal("buy", "sell"),
  status: strings,
  latestFillPrice: decimals,
  maxFillPrice: decimals,
  minFillPrice: decimals,
  fillQuantity: decimals,
  fillTotalAmount: decimals,
  cTime: millis,
  uTime: millis
}
// Mostly well-formed orders (every key, plain forms) so that whole pages reach the fast path often.
const plainOpenOrder = fc.record({
  accountId: fc.bigInt({ min: 0n, max: 2n ** 63n }).map(String),
  symbol: fc.constant("BTCUSDT_SPBL"),
  orderId: fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).map(String),
  clientOrderId: fc.string({ minLength: 1, maxLength: 10 }),
  price: fc.constantFrom("100.00", "30000.5", "0.000001"),
  quantity: fc.constantFrom("0.060000", "1", "12.5"),
  orderType: fc.constantFrom("limit", "market"),
  side: fc.constantFrom("buy", "sell"),
  status: fc.constant("open"),
  latestFillPrice: fc.constant("0"),
  maxFillPrice: fc.constant("0"),
  minFillPrice: fc.constant("0"),
  fillQuantity: fc.constant("0"),
  fillTotalAmount: fc.constant("0"),
  cTime: fc.integer({ min: 0, max: 2 ** 45 }).map(String),
  uTime: fc.integer({ min: 0, max: 2 ** 45 })
})
const anyOpenOrder = fc.oneof(plainOpenOrder, objectOf(openOrderFields, Object.keys(openOrderFields)))

// A caller's order: plain fields, unusual-but-valid ones (keys present with undefined) and wrong ones.
const placeOrderFields = {
  symbol: fc.oneof(fc.constantFrom("BTCUSDT_SPBL", "ETHUSDT_SPBL", "btcusdt_spbl", "BTCUSDT", ""), strings),
  side: literal("buy", "sell"),
  orderType: literal("limit", "market"),
  force: literal("normal", "postOnly", "fok", "ioc"),
  price: decimals,
  quantity: decimals,
  clientOrderId: fc.oneof(fc.constantFrom("ab-1", "x_Y-9", "a".repeat(40), "a".repeat(41), "a b", ""), strings)
}

const arbitraries = {
  placeOrder: fc.oneof(
    // Mostly well-formed (every key, plain forms), so that the fast path is reached often.
    fc.record({
      symbol: fc.constant("BTCUSDT_SPBL"),
      side: fc.constantFrom("buy", "sell"),
      orderType: fc.constantFrom("limit", "market"),
      force: fc.constantFrom("normal", "ioc"),
      price: fc.constantFrom("100", "0.5", "0", "-1", "1e2"),
      quantity: fc.constantFrom("0.06", "1", "0", "-2", "01"),
      clientOrderId: fc.constantFrom("ab-1", "a b")
    }, { requiredKeys: ["symbol", "side", "orderType", "quantity"] }),
    objectOf(placeOrderFields, ["symbol", "side", "orderType", "quantity"])
  ),
  placeOrderResult: objectOf({ orderId: ids, clientOrderId: strings }, ["orderId", "clientOrderId"]),
  openOrdersPage: objectOf({
    orderInfoResultList: fc.oneof(
      fc.array(plainOpenOrder, { maxLength: 4 }),
      fc.array(anyOpenOrder, { maxLength: 3 }),
      fc.constantFrom(null, "x")
    ),
    nextPage: fc.constantFrom(null, false, 1, "n"),
    totals: fc.constantFrom(null, 3)
  }, ["orderInfoResultList"])
}

// ---------------------------------------------------------------------------------------------------------------
// Schema ⇒ fast: valid forms only

// Sometimes a key present with the value `undefined`: the Schema accepts it (keeping the key), the fast paths decline.
const orUndefined = <A>(value: fc.Arbitrary<A>) => usually(value, fc.constant(undefined), 6)

const validOpenOrder = fc.record({
  accountId: usually(u64Digits, safeNat, 20),
  symbol: fc.constantFrom("BTCUSDT_SPBL", "ETHUSDT_SPBL", "odd symbol"),
  orderId: usually(u64Digits, safeNat, 20),
  clientOrderId: fc.string({ maxLength: 12 }),
  price: usually(plainDecimal, unusualDecimal, 20),
  quantity: usually(plainDecimal, unusualDecimal, 20),
  orderType: fc.constantFrom("limit", "market"),
  side: fc.constantFrom("buy", "sell"),
  status: fc.constantFrom("open", "partial_fill", "new"),
  latestFillPrice: usually(plainDecimal, unusualDecimal, 20),
  maxFillPrice: fc.constant("0"),
  minFillPrice: fc.constant("0"),
  fillQuantity: usually(plainDecimal, unusualDecimal, 20),
  fillTotalAmount: fc.constant("0"),
  cTime: usually(plainMillis, longMillisText, 20),
  uTime: usually(plainMillis, longMillisText, 20),
  source: fc.constantFrom("api", "web")
}, {
  requiredKeys: [
    "accountId",
    "symbol",
    "orderId",
    "clientOrderId",
    "price",
    "quantity",
    "orderType",
    "side",
    "status",
    "latestFillPrice",
    "maxFillPrice",
    "minFillPrice",
    "fillQuantity",
    "fillTotalAmount",
    "cTime",
    "uTime"
  ],
  noNullPrototype: true
})

const positiveDecimal = plainDecimal.filter((text) => !text.startsWith("-") && /[1-9]/.test(text))

const validArbitraries = {
  placeOrder: fc.record({
    symbol: fc.constantFrom("BTCUSDT_SPBL", "ETHUSDT_SPBL"),
    side: fc.constantFrom("buy", "sell"),
    orderType: fc.constantFrom("limit", "market"),
    force: orUndefined(fc.constantFrom("normal", "postOnly", "fok", "ioc")),
    price: orUndefined(positiveDecimal),
    quantity: positiveDecimal,
    clientOrderId: orUndefined(fc.stringMatching(/^[A-Za-z0-9_-]{1,40}$/)),
    note: fc.constantFrom("an unknown field", undefined)
  }, { requiredKeys: ["symbol", "side", "orderType", "quantity", "price"], noNullPrototype: true }).filter((order) =>
    order.orderType === "market" || order.price !== undefined
  ),
  placeOrderResult: fc.record({
    orderId: usually(u64Digits, safeNat, 2),
    clientOrderId: fc.string(),
    status: fc.constantFrom("new", "live")
  }, { requiredKeys: ["orderId", "clientOrderId"], noNullPrototype: true }),
  openOrdersPage: fc.record({
    orderInfoResultList: usually(fc.array(validOpenOrder, { maxLength: 4 }), fc.constant(null), 8),
    nextPage: orUndefined(fc.oneof(fc.constant(null), fc.jsonValue())),
    totals: orUndefined(fc.oneof(fc.constant(null), fc.jsonValue()))
  }, { requiredKeys: ["orderInfoResultList"], noNullPrototype: true })
}

const cases = [
  {
    name: "Order.PlaceOrder (a caller's order)",
    schema: Order.PlaceOrder,
    fast: OrderFast.placeOrder,
    input: arbitraries.placeOrder,
    valid: validArbitraries.placeOrder
  },
  {
    name: "Order.PlaceOrderResult",
    schema: Order.PlaceOrderResult,
    fast: OrderFast.placeOrderResult,
    input: arbitraries.placeOrderResult,
    valid: validArbitraries.placeOrderResult
  },
  {
    name: "Order.OpenOrdersPage",
    schema: Order.OpenOrdersPage,
    fast: OrderFast.openOrdersPage,
    input: arbitraries.openOrdersPage,
    valid: validArbitraries.openOrdersPage
  }
] as const

describe("fast decoders", () => {
  for (const { fast, input, name, schema, valid } of cases) {
    it.effect(`${name}: whatever the fast path accepts, the Schema decodes to the same value`, () =>
      Effect.sync(() => fastAgreesWithSchema(schema, fast, input, RUNS)))

    it.effect(`${name}: whatever the Schema accepts, the fast path decodes to the same value or declines`, () =>
      Effect.sync(() => fastEqualOrDeclines(schema, fast, valid, { numRuns: RUNS, minShare: 0.1 })))
  }

  it.effect("the decoder with a fast path fails exactly when the Schema does, with the Schema's error", () =>
    Effect.gen(function*() {
      const decode = Venue.endpoints.placeOrder.decodeResponse
      const numeric = yield* decode({ orderId: 42, clientOrderId: "a" })
      assert.deepStrictEqual(numeric, { orderId: "42", clientOrderId: "a" }) // the Schema's conversion
      const bad = yield* Effect.flip(decode({ orderId: "-1", clientOrderId: "a" }))
      const reference = yield* Effect.flip(
        Schema.decodeUnknownEffect(Order.PlaceOrderResult)({ orderId: "-1", clientOrderId: "a" })
      )
      assert.strictEqual(bad.message, reference.message)
    }))

  it.effect("the venue's usual answers and a trading program's usual requests take the fast path", () =>
    Effect.sync(() => {
      const placed = Json.parse(
        `{"code":"00000","msg":"success","requestTime":1795353820150,` +
          `"data":{"orderId":1001000000000000090,"clientOrderId":"x1"}}`
      )
      const envelope = Envelope.fastStandard(placed)
      assert.isDefined(envelope)
      assert.deepStrictEqual(OrderFast.placeOrderResult(envelope?.data), {
        orderId: "1001000000000000090",
        clientOrderId: "x1"
      } as Order.PlaceOrderResult)
      const order = {
        accountId: "6001000000000000001",
        symbol: "BTCUSDT_SPBL",
        orderId: "1001000000000000089",
        clientOrderId: "resting-9",
        price: "109.00",
        quantity: "0.060000",
        orderType: "limit",
        side: "buy",
        status: "open",
        latestFillPrice: "0",
        maxFillPrice: "0",
        minFillPrice: "0",
        fillQuantity: "0",
        fillTotalAmount: "0",
        cTime: "1795353817335",
        uTime: "1795353817335"
      }
      const page = OrderFast.openOrdersPage({ orderInfoResultList: [order, order], nextPage: null, totals: null })
      assert.strictEqual(page?.orderInfoResultList?.[1]?.cTime, 1795353817335)
      // An empty accountId is no id (the Schema refuses it): the fast path leaves the page to it, so that a list and
      // a lookup of the same order agree.
      const emptied = { orderInfoResultList: [{ ...order, accountId: "" }], nextPage: null, totals: null }
      assert.isUndefined(OrderFast.openOrdersPage(emptied))
      assert.isTrue(Exit.isFailure(Schema.decodeUnknownExit(Order.OpenOrdersPage)(emptied)))
    }))
})

describe("market order prices", () => {
  const market = (price: string): Order.PlaceOrderInput => ({
    symbol: SYMBOL,
    side: "buy",
    orderType: "market",
    price,
    quantity: "25",
    clientOrderId: `m${price}`
  })

  it.effect("a negative price on a market order fails validation on price, sending nothing", () => {
    const venue = new FakeVenue()
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(client.placeOrder(market("-1")))
        assert.strictEqual(reasonOf(error, "ValidationError").field, "price")
        const batch = yield* client.placeOrders(SYMBOL, [market("-1")].map(({ symbol: _, ...item }) => item))
        const [outcome] = batch.outcomes
        assert.strictEqual(outcome?._tag, "Failed")
        if (outcome?._tag === "Failed") assert.include(outcome.message, "items[0].price")
        assert.strictEqual(venue.requests.length, 0)
      }))
  })

  it.effect("a zero price on a market order is accepted and sent", () => {
    const venue = new FakeVenue()
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const result = yield* client.placeOrder(market("0"))
        assert.strictEqual(result.orderId, venueOrderId(venue, "m0"))
        assert.strictEqual(venue.requests[0]!.json.price, "0")
      }))
  })
})

describe("Order.newClientOrderId", () => {
  it.effect("the client's form (`sk`, the time and 60 random bits in base 36), from the Clock, valid as a clientOrderId", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(1_700_000_000_000)
      const ids = yield* Effect.all(Array.from({ length: 50 }, () => Order.newClientOrderId))
      assert.strictEqual(new Set(ids).size, ids.length)
      for (const id of ids) {
        assert.match(id, /^sk[a-z0-9]{20}$/)
        assert.isTrue(id.startsWith(`sk${(1_700_000_000_000).toString(36)}`), id)
        assert.isTrue(Schema.is(Order.BatchItem.fields.clientOrderId)(id), id)
      }
    }))
})
