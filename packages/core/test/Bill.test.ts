/**
 * The bills page decoder of the export's hot path (`Venue.endpoints.fundingBills.decodeResponse`): its hand-checked fast path
 * (`Bill.fastBillPage`) must accept only what the `Bill.BillPage` schema accepts and give exactly the schema's value
 * (same fields, same order, unknown fields dropped), and of what the schema accepts, give that value or leave it to
 * the schema, with its errors. Checked on generated pages that mix the usual shape with every variation the schema
 * allows or refuses. And bills of a newer bizType or with exponent-form amounts stream as they are.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Schema } from "effect"
import * as fc from "fast-check"
import { Bill, Json, Primitives, Venue } from "../src/index.ts"
import { type FakeBill, FakeVenue, NOW, streamBills } from "./support/FakeVenue.ts"
import { fastEqualOrDeclines, plainDecimal, safeNat, unusualDecimal, usually } from "./support/fastPath.ts"

const fastBillPage = Bill.fastBillPage

const schemaDecode = Schema.decodeUnknownExit(Bill.BillPage)
const decodeBillPage = Venue.endpoints.fundingBills.decodeResponse

// Each field is usually what an honest venue sends and sometimes one of the variations the schema converts (numbers
// for ids, exponent decimals, numeric times) or refuses (leading zeros, floats, unsafe integers, wrong types), so
// that pages with exactly one odd field are common.
const anyJson = fc.oneof(fc.constant(null), fc.boolean(), fc.double(), fc.string(), fc.constant([]), fc.constant({}))
const field = <A, B>(usual: fc.Arbitrary<A>, odd: fc.Arbitrary<B>) =>
  fc.oneof({ weight: 30, arbitrary: usual }, { weight: 1, arbitrary: odd }, { weight: 1, arbitrary: anyJson })

const decimal = fc.oneof(
  fc.constantFrom("0", "-0.00000001", "123456789012345.12345678", "1.5", "50000"),
  fc.tuple(fc.boolean(), fc.nat(), fc.option(fc.nat(), { nil: undefined })).map(([negative, whole, fraction]) =>
    `${negative ? "-" : ""}${whole}${fraction === undefined ? "" : `.${fraction}`}`
  )
)
const oddDecimal = fc.oneof(
  fc.constantFrom("01", "1.", ".5", "+1", "1e5", "0E-8", "1.5E3", " 1", "1,5", "", "-", "NaN", "-0"),
  fc.integer(),
  fc.double()
)

const bill = fc.record({
  billId: field(fc.constantFrom("2001000000001000005", "9007199254740993001"), fc.oneof(fc.nat(), fc.string())),
  coinId: field(fc.nat(100), fc.constantFrom(-1, 1.5, 2 ** 53, "2", 2 ** 53 - 1)),
  coinName: field(fc.constantFrom("USDT", "BTC"), fc.string()),
  bizType: field(fc.constantFrom(...Bill.BizType.literals), fc.string()),
  deltaAmount: field(decimal, oddDecimal),
  afterAmount: field(decimal, oddDecimal),
  fees: field(decimal, oddDecimal),
  cTime: field(
    fc.oneof(fc.constant("1795354440198"), fc.nat().map(String)),
    fc.constantFrom("01", "-5", "1e12", "99999999999999999999", "9007199254740993", "", 1795354440198, -1, 1.5, 2 ** 60)
  ),
  extra: fc.oneof(fc.constant(undefined), anyJson)
}, { requiredKeys: ["billId", "coinId", "coinName", "bizType", "deltaAmount", "afterAmount", "fees", "cTime"] })

const optionalBill = fc.oneof(
  { weight: 20, arbitrary: bill },
  {
    weight: 1,
    arbitrary: bill.map((b) => {
      const { billId: _, ...rest } = b
      return rest
    })
  }
)

const page = fc.record({
  total: field(fc.nat(), fc.constantFrom(null, 1.5, -3, "7")),
  page: field(fc.nat(), fc.constant(null)),
  pageSize: field(fc.nat(100), fc.constant(null)),
  hasNextPage: field(fc.boolean(), fc.constantFrom(null, "true", 1)),
  items: fc.oneof(
    { weight: 20, arbitrary: fc.array(optionalBill, { minLength: 1, maxLength: 3 }) },
    { weight: 1, arbitrary: fc.constantFrom(null, [], "[]", {}, 3) }
  ),
  unknown: fc.string()
}, { requiredKeys: [] })

// What JSON.parse of the page would give: `undefined` fields are absent.
const asParsed = (value: unknown): unknown => JSON.parse(JSON.stringify(value))

const millis = fc.integer({ min: 0, max: Primitives.MAX_MILLIS })

// Valid pages only: the usual forms, and sometimes a numeric billId, an exponent-form or integer amount, or a page
// field present with the value `undefined`, which the schema accepts and the fast path leaves to it.
const validBill = fc.record({
  billId: usually(fc.oneof(fc.constantFrom("2001000000001000005"), fc.string({ minLength: 1 })), safeNat, 30),
  coinId: fc.oneof(fc.nat(100), fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER })),
  coinName: fc.constantFrom("USDT", "BTC"),
  bizType: fc.oneof(fc.constantFrom(...Bill.BizType.literals), fc.string()),
  deltaAmount: usually(plainDecimal, unusualDecimal, 30),
  afterAmount: usually(plainDecimal, unusualDecimal, 30),
  fees: usually(plainDecimal, unusualDecimal, 30),
  cTime: fc.oneof(millis, millis.map(String)),
  chain: fc.constantFrom("TRC20", "ERC20")
}, {
  requiredKeys: ["billId", "coinId", "coinName", "bizType", "deltaAmount", "afterAmount", "fees", "cTime"],
  noNullPrototype: true
})

const intOrNull = usually(fc.oneof(fc.integer(), fc.constant(null)), fc.constant(undefined), 12)

const validPage = fc.record({
  total: intOrNull,
  page: intOrNull,
  pageSize: intOrNull,
  hasNextPage: usually(fc.oneof(fc.boolean(), fc.constant(null)), fc.constant(undefined), 12),
  items: usually(fc.array(validBill, { maxLength: 4 }), fc.constant(null), 10),
  extra: fc.string()
}, { requiredKeys: ["items"], noNullPrototype: true })

/** A page of one plain bill, with `fields` in place of its own. */
const pageOfOne = (fields: Record<string, unknown>) => ({
  items: [{
    billId: "9",
    coinId: 2,
    coinName: "USDT",
    bizType: "deposit",
    deltaAmount: "1",
    afterAmount: "1",
    fees: "0",
    cTime: 5,
    ...fields
  }]
})

describe("bills page decoding", () => {
  it("the fast path answers exactly the schema's value, or leaves the page to the schema", () => {
    let fast = 0
    fc.assert(
      fc.property(page, (generated) => {
        const input = asParsed(generated)
        const expected = schemaDecode(input)
        const got = fastBillPage(input)
        if (got === undefined) return
        fast++
        assert.isTrue(
          Exit.isSuccess(expected),
          `the fast path accepted what the schema refuses: ${JSON.stringify(input)}`
        )
        if (Exit.isSuccess(expected)) {
          // Field order too: the CSV and NDJSON writers rely on the decoded shape.
          assert.strictEqual(JSON.stringify(got), JSON.stringify(expected.value))
          assert.deepStrictEqual(got, expected.value)
        }
      }),
      { numRuns: 3000 }
    )
    // The generator must exercise the fast path, not only the fallback.
    assert.isAbove(fast, 100)
  })

  it("whatever the schema accepts, the fast path decodes to the same value (fields in order) or declines", () => {
    fastEqualOrDeclines(Bill.BillPage, fastBillPage, validPage, { numRuns: 3000, minShare: 0.1, sameOrder: true })
  })

  it.effect("the decoder answers the schema's result on every page, fast path or not", () =>
    Effect.sync(() => {
      fc.assert(
        fc.property(page, (generated) => {
          const input = asParsed(generated)
          const expected = schemaDecode(input)
          const got = Effect.runSyncExit(decodeBillPage(input))
          assert.strictEqual(got._tag, expected._tag)
          if (Exit.isSuccess(got) && Exit.isSuccess(expected)) assert.deepStrictEqual(got.value, expected.value)
          if (Exit.isFailure(got) && Exit.isFailure(expected)) {
            assert.strictEqual(String(got.cause), String(expected.cause))
          }
        }),
        { numRuns: 1000 }
      )
    }))

  it("the usual page takes the fast path: ids and decimals as sent, the time as a number", () => {
    const input = {
      total: 2,
      page: 1,
      pageSize: 100,
      hasNextPage: false,
      items: [{
        billId: "2001000000001000005",
        coinId: 1,
        coinName: "BTC",
        bizType: "deposit",
        deltaAmount: "-0.00000001",
        afterAmount: "27979.56445917",
        fees: "0",
        cTime: "1795354473040"
      }]
    }
    assert.deepStrictEqual(fastBillPage(input) as unknown, {
      ...input,
      items: [{ ...input.items[0]!, cTime: 1795354473040 }]
    })
  })

  it("a bill with an empty id is refused, by the fast path as by the schema", () => {
    const input = pageOfOne({ billId: "" })
    assert.isUndefined(fastBillPage(input))
    assert.isTrue(Exit.isFailure(Effect.runSyncExit(decodeBillPage(input))))
  })

  it("an exponent-form decimal or a numeric id goes to the schema, which converts it exactly", () => {
    const input = {
      items: [{
        billId: 7,
        coinId: 2,
        coinName: "USDT",
        bizType: "deposit",
        deltaAmount: "0E-8",
        afterAmount: "1",
        fees: "0",
        cTime: 5
      }]
    }
    assert.isUndefined(fastBillPage(input))
    const decoded = Effect.runSync(decodeBillPage(input))
    assert.strictEqual(decoded.items![0]!.billId, "7")
    assert.strictEqual(decoded.items![0]!.deltaAmount, "0.00000000")
  })

  it("a coinId written as digits is the coin's number; any other text, or digits past 2^53, fail the page", () => {
    const page = (coinId: unknown) => pageOfOne({ coinId })
    assert.strictEqual(Effect.runSync(decodeBillPage(page("2"))).items![0]!.coinId, 2)
    for (const bad of ["2.0", "-2", "", "USDT", "9007199254740993"]) {
      assert.isTrue(Exit.isFailure(Effect.runSyncExit(decodeBillPage(page(bad)))), bad)
    }
  })
})

describe("tolerance of newer bizTypes and exponent decimals", () => {
  /** Adds one bill with the given fields to a fake venue. */
  const venueWithBill = (fields: Partial<FakeBill>) => {
    const venue = new FakeVenue()
    venue.addBills(1, NOW - 1000)
    venue.bills[0] = { ...venue.bills[0]!, ...fields }
    return venue
  }

  it.effect("a bill with an unknown bizType streams with that bizType", () => {
    const venue = venueWithBill({ bizType: "margin_interest" })
    return Effect.map(streamBills(venue), (bills) => {
      assert.deepStrictEqual(bills.map((bill) => bill.bizType), ["margin_interest"])
    })
  })

  it.effect("a bill with exponent-form amounts streams with exact plain decimals", () => {
    const venue = venueWithBill({ deltaAmount: "1.5e3", afterAmount: "-2.50e-2", fees: "0E-8" })
    return Effect.map(streamBills(venue), (bills) => {
      assert.deepStrictEqual(
        bills.map(({ afterAmount, deltaAmount, fees }) => ({ deltaAmount, afterAmount, fees })),
        [{ deltaAmount: "1500", afterAmount: "-0.0250", fees: "0.00000000" }]
      )
    })
  })
})

describe("exponent decimals stay bounded (issue #25)", () => {
  const exponentText = fc.tuple(
    fc.boolean(),
    fc.stringMatching(/^(?:0|[1-9]\d{0,11})$/),
    fc.option(fc.stringMatching(/^\d{1,12}$/), { nil: undefined }),
    fc.constantFrom("e", "E"),
    fc.integer({ min: -9999, max: 9999 })
  ).map(([negative, int, frac, e, exp]) =>
    `${negative ? "-" : ""}${int}${frac === undefined ? "" : `.${frac}`}${e}${exp}`
  )

  it("an exponent form within MAX_EXPONENT is rewritten, never longer than its text plus MAX_EXPONENT + 2", () => {
    fc.assert(
      fc.property(exponentText, (text) => {
        const plain = Primitives.fromExponent(text)
        const exponent = Math.abs(Number(/[eE]([+-]?\d+)$/.exec(text)![1]))
        if (exponent > Primitives.MAX_EXPONENT) return plain === undefined
        return plain !== undefined && plain.length <= text.length + Primitives.MAX_EXPONENT + 2
      }),
      { numRuns: 2000 }
    )
  })

  it.effect("an amount of 1e9999 (as a string or a JSON number) is a DecodeError, not 10,000 digits", () =>
    Effect.gen(function*() {
      for (const amount of [`"1e9999"`, "1e9999", `"-2.5E-400"`]) {
        const text = `{"items":[{"billId":"1","coinId":2,"coinName":"USDT","bizType":"deposit",` +
          `"fillSize":"1","fillValue":"1","deltaAmount":${amount},"afterAmount":"1","fees":"0","cTime":1}],` +
          `"hasNextPage":false}`
        const exit = yield* Effect.exit(decodeBillPage(Json.parse(text)))
        assert.isTrue(Exit.isFailure(exit), amount)
        const message = Exit.isFailure(exit) ? String(exit.cause) : ""
        assert.include(message, `at most ${Primitives.MAX_EXPONENT}`)
        assert.isBelow(message.length, 2000)
      }
    }))

  it.effect("whatever the amounts say, a decoded page is at most 8 times the size of its text", () =>
    Effect.sync(() => {
      const amount = fc.oneof(exponentText, decimal, fc.constantFrom("1e32", "-1e-32", "1E32", "0e-32"))
      // An amount as a JSON number where it is one (the lossless parse hands it over as its text), else a string.
      const json = (text: string) => /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/.test(text) ? text : `"${text}"`
      const page = fc.array(fc.tuple(amount, amount, amount), { minLength: 1, maxLength: 40 }).map((rows) =>
        `{"items":[${
          rows.map(([a, b, c], i) =>
            `{"billId":"${i + 1}","coinId":2,"coinName":"USDT","bizType":"deposit","fillSize":"1","fillValue":"1",` +
            `"deltaAmount":"${a}","afterAmount":${json(b)},"fees":"${c}","cTime":${i + 1}}`
          ).join(",")
        }],"hasNextPage":false}`
      )
      fc.assert(
        fc.property(page, (text) => {
          const exit = Effect.runSyncExit(decodeBillPage(Json.parse(text)))
          return Exit.isFailure(exit) || JSON.stringify(exit.value).length <= 8 * text.length
        }),
        { numRuns: 500 }
      )
    }))
})
