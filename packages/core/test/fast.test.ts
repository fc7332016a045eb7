/**
 * The fast decoders in front of the hot Schemas (src/internal/fast.ts) must never change a result: whenever a fast
 * path accepts an input, the Schema accepts it too and decodes it to the same value; whatever it declines, the
 * Schema judges. Checked on generated input mixing the venue's plain forms with the unusual-but-valid forms
 * (numeric ids, exponent decimals, millisecond strings) and invalid ones. And the fast paths do take the answers
 * and requests a trading program sends and receives every time, or they would be pointless.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Schema } from "effect"
import * as fc from "fast-check"
import { Envelope, Json, Order } from "../src/index.ts"
import * as Fast from "../src/internal/fast.ts"

const RUNS = 3_000

// Values a field may hold: the plain form, the other valid wire forms, and wrong ones.
const ids = fc.oneof(
  fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).map(String),
  fc.constantFrom("0", "007", "18446744073709551615", "18446744073709551616", "99999999999999999999", "-1", "1.5"),
  fc.integer({ min: -5, max: 2 ** 31 }),
  fc.constantFrom(1.5, null, "", "abc", true)
)
const decimals = fc.oneof(
  fc.tuple(fc.integer({ min: -1e6, max: 1e9 }), fc.nat(99_999)).map(([i, f]) => `${i}.${String(f).padStart(5, "0")}`),
  fc.constantFrom("0", "100", "-0.5", "1e5", "1.5E-3", "2.5e+2", "01.5", "1.", ".5", "", " 1", "0x10"),
  fc.constantFrom(15, 0, -3, 1.5, null)
)
const millis = fc.oneof(
  fc.integer({ min: 0, max: 2 ** 45 }),
  fc.integer({ min: 0, max: 2 ** 45 }).map(String),
  fc.constantFrom("0", "-1", "1e3", "12345678901234567", "0012", "", -1, 1.5, null, 2 ** 60)
)
const strings = fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom(5, null, undefined))
const literal = (...values: ReadonlyArray<string>) => fc.oneof(fc.constantFrom(...values), strings)

// An object of these fields where any may be missing, plus sometimes a field the Schema does not know.
const objectOf = (fields: Record<string, fc.Arbitrary<unknown>>, required: ReadonlyArray<string>) =>
  fc.tuple(
    fc.record(fields, { requiredKeys: [] }),
    fc.subarray([...required]),
    fc.boolean()
  ).map(([record, keep, extra]) => {
    const out: Record<string, unknown> = { ...record }
    for (const key of required) if (!keep.includes(key) && !(key in out)) out[key] = undefined
    if (extra) out.unknownField = "x"
    return out
  })

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

const arbitraries = {
  standard: objectOf({
    code: fc.oneof(fc.constantFrom("00000", "40009", "200"), fc.integer(), fc.constant(null)),
    msg: fc.oneof(fc.string(), fc.constantFrom(null, 5)),
    requestTime: fc.oneof(millis, fc.constant(null)),
    data: fc.oneof(fc.constant({ orderId: "1" }), fc.constant(null), fc.constant([]), fc.constant("x"))
  }, ["code"]),
  placeOrderResult: objectOf({ orderId: ids, clientOrderId: strings }, ["orderId", "clientOrderId"]),
  openOrdersPage: objectOf({
    orderInfoResultList: fc.oneof(
      fc.array(plainOpenOrder, { maxLength: 4 }),
      fc.array(anyOpenOrder, { maxLength: 3 }),
      fc.constantFrom(null, "x")
    ),
    nextPage: fc.constantFrom(null, false, 1, "n"),
    totals: fc.constantFrom(null, 3)
  }, ["orderInfoResultList"]),
  placeOrder: objectOf({
    symbol: literal("BTCUSDT_SPBL", "ETHUSDT_SPBL", "btcusdt_spbl", "BTC-USDT"),
    side: literal("buy", "sell"),
    orderType: literal("limit", "market"),
    force: literal("normal", "postOnly", "fok", "ioc", "gtc"),
    price: decimals,
    quantity: decimals,
    clientOrderId: fc.oneof(fc.string({ maxLength: 70 }), fc.constantFrom("a b", "ok-1", 7))
  }, ["symbol", "side", "orderType", "quantity"]),
  openOrdersQuery: objectOf({
    symbol: literal("BTCUSDT_SPBL", "btc"),
    limit: fc.oneof(fc.integer({ min: -2, max: 102 }), fc.constantFrom(1.5, "10", null)),
    pageNo: fc.oneof(fc.integer({ min: -2, max: 1_000 }), fc.constantFrom(0.5, "0", null))
  }, ["symbol"])
}

const cases = [
  { name: "Envelope.Standard", schema: Envelope.Standard, fast: Envelope.fastStandard, input: arbitraries.standard },
  {
    name: "Order.PlaceOrderResult",
    schema: Order.PlaceOrderResult,
    fast: Order.fastPlaceOrderResult,
    input: arbitraries.placeOrderResult
  },
  {
    name: "Order.OpenOrdersPage",
    schema: Order.OpenOrdersPage,
    fast: Order.fastOpenOrdersPage,
    input: arbitraries.openOrdersPage
  },
  { name: "Order.PlaceOrder", schema: Order.PlaceOrder, fast: Order.fastPlaceOrder, input: arbitraries.placeOrder },
  {
    name: "Order.OpenOrdersQuery",
    schema: Order.OpenOrdersQuery,
    fast: Order.fastOpenOrdersQuery,
    input: arbitraries.openOrdersQuery
  }
] as const

describe("fast decoders", () => {
  for (const { fast, input, name, schema } of cases) {
    it.effect(`${name}: whatever the fast path accepts, the Schema decodes to the same value`, () =>
      Effect.sync(() => {
        const decode = Schema.decodeUnknownExit(schema as Schema.Top & { readonly DecodingServices: never })
        let taken = 0
        let declinedValid = 0
        fc.assert(
          fc.property(input, (value) => {
            const expected = decode(value)
            const quick = (fast as (input: unknown) => unknown)(value)
            if (quick !== undefined) {
              taken++
              assert.isTrue(Exit.isSuccess(expected), `the Schema refuses what the fast path took: ${String(expected)}`)
              assert.deepStrictEqual(quick, Exit.isSuccess(expected) ? expected.value : undefined)
            } else if (Exit.isSuccess(expected)) {
              declinedValid++
            }
          }),
          { numRuns: RUNS }
        )
        // Both branches were exercised: the fast path took inputs, and it left some valid ones to the Schema.
        assert.isAbove(taken, 0)
        assert.isAbove(taken + declinedValid, 0)
      }))
  }

  it.effect("the decoder with a fast path fails exactly when the Schema does, with the Schema's error", () =>
    Effect.gen(function*() {
      const decode = Fast.decoder(Order.PlaceOrderResult, Order.fastPlaceOrderResult)
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
      assert.deepStrictEqual(Order.fastPlaceOrderResult(envelope?.data), {
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
      const page = Order.fastOpenOrdersPage({ orderInfoResultList: [order, order], nextPage: null, totals: null })
      assert.strictEqual(page?.orderInfoResultList?.[1]?.cTime, 1795353817335)
      assert.isDefined(
        Order.fastPlaceOrder({
          symbol: "BTCUSDT_SPBL",
          side: "buy",
          orderType: "limit",
          force: "ioc",
          price: "100",
          quantity: "0.06",
          clientOrderId: "b-1"
        })
      )
      assert.isDefined(
        Order.fastPlaceOrder({ symbol: "BTCUSDT_SPBL", side: "buy", orderType: "market", quantity: "10" })
      )
      assert.isDefined(Order.fastOpenOrdersQuery({ symbol: "BTCUSDT_SPBL", limit: 100, pageNo: 3 }))
    }))
})
