/**
 * Wire primitives: a 64-bit order id decodes from a JSON number (as `Json.parse` hands it over) or a string to the
 * same exact digits and encodes back; a decimal in exponent form is rewritten exactly as a plain decimal.
 */
import { assert, describe, it } from "@effect/vitest"
import { Option, Schema } from "effect"
import * as fc from "fast-check"
import { Json, Primitives } from "../src/index.ts"

// ---------------------------------------------------------------------------------------------------------------
// OrderId through the wire schema

const decodeOrderId = Schema.decodeUnknownSync(Primitives.OrderIdFromWire)
const encodeOrderId = Schema.encodeSync(Primitives.OrderIdFromWire)

/** The `orderId` of a wire text, parsed losslessly and decoded. */
const orderIdOf = (text: string) => decodeOrderId((Json.parse(text) as { readonly orderId: unknown }).orderId)

describe("OrderIdFromWire", () => {
  it("decodes an id sent as a JSON number (lossless source text) or as a JSON string to the same digits", () => {
    assert.strictEqual(orderIdOf("{\"orderId\":602876318261969338}"), "602876318261969338")
    assert.strictEqual(orderIdOf("{\"orderId\":\"602876318261969338\"}"), "602876318261969338")
    assert.strictEqual(orderIdOf("{\"orderId\":18446744073709551615}"), "18446744073709551615")
    assert.strictEqual(orderIdOf("{\"orderId\":12345}"), "12345")
  })

  it("rejects ids that are not unsigned 64-bit integers", () => {
    for (const text of ["18446744073709551616", "-1", "1.5", "\"0602876318261969338\"", "\"\"", "\"12a\""]) {
      assert.throws(() => orderIdOf(`{"orderId":${text}}`), undefined, undefined, text)
    }
  })

  it("encodes to the exact digits and decodes back, as a JSON string or a raw JSON number", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), (n) => {
        const id = decodeOrderId(String(n))
        const encoded = encodeOrderId(id)
        assert.strictEqual(String(encoded), String(n))
        assert.strictEqual(orderIdOf(Json.stringify({ orderId: encoded })), String(n))
        assert.strictEqual(orderIdOf(Json.stringify({ orderId: Json.rawNumber(String(n)) })), String(n))
      }),
      { numRuns: 200 }
    )
  })
})

describe("IdFromWire and TextFromWire", () => {
  const decodeId = Schema.decodeUnknownOption(Primitives.IdFromWire)
  const decodeText = Schema.decodeUnknownOption(Primitives.TextFromWire)

  it("an id is text or an integer, as text, never empty: records are told apart by it", () => {
    assert.deepStrictEqual(decodeId("2001000000001000005"), Option.some("2001000000001000005"))
    assert.deepStrictEqual(decodeId("a-1"), Option.some("a-1"))
    assert.deepStrictEqual(decodeId(7), Option.some("7"))
    for (const bad of ["", 1.5, null, true]) assert.isTrue(Option.isNone(decodeId(bad)), String(bad))
  })

  it("a code may be empty (a batch item's errorCode of a placed order)", () => {
    assert.deepStrictEqual(decodeText(""), Option.some(""))
    assert.deepStrictEqual(decodeText(40014), Option.some("40014"))
    assert.deepStrictEqual(decodeText("00000"), Option.some("00000"))
  })
})

describe("Millis", () => {
  it("a time is from 0 to the last instant a date holds (8.64e15 ms): a later one could not be shown", () => {
    const decode = Schema.decodeUnknownOption(Primitives.MillisFromWire)
    assert.deepStrictEqual(decode("8640000000000000"), Option.some(Primitives.MAX_MILLIS))
    assert.deepStrictEqual(decode(0), Option.some(0))
    assert.strictEqual(new Date(Primitives.MAX_MILLIS).toISOString(), "+275760-09-13T00:00:00.000Z")
    for (const bad of ["8640000000000001", 8_640_000_000_000_001, "9007199254740991", -1]) {
      assert.isTrue(Option.isNone(decode(bad)), String(bad))
    }
  })
})

describe("tolerance of exponent decimals", () => {
  const exponents = [
    { wire: "0E-8", plain: "0.00000000" },
    { wire: "1.5e3", plain: "1500" },
    { wire: "-2.50e-2", plain: "-0.0250" },
    { wire: "1E+2", plain: "100" },
    { wire: "12.345e1", plain: "123.45" },
    { wire: "5e-1", plain: "0.5" }
  ]
  const decodeDecimal = Schema.decodeUnknownOption(Primitives.DecimalFromWire)

  it.each(exponents)("fromExponent($wire) = $plain", ({ plain, wire }) => {
    assert.strictEqual(Primitives.fromExponent(wire), plain)
  })

  it.each(exponents)("DecimalFromWire decodes $wire as $plain", ({ plain, wire }) => {
    assert.deepStrictEqual(decodeDecimal(wire), Option.some(plain as Primitives.Decimal))
  })

  it("leaves plain decimals alone and rejects a huge or malformed exponent", () => {
    assert.deepStrictEqual(decodeDecimal("0.25"), Option.some("0.25" as Primitives.Decimal))
    assert.isUndefined(Primitives.fromExponent("0.25"))
    // Leading zeros are refused as in the plain form ("01.5" is no decimal).
    for (const bad of ["1e99999", "1.5e", "e5", "1e2.5", "+1e2", "01.5e0", "-00e1", "007E-2"]) {
      assert.isUndefined(Primitives.fromExponent(bad), bad)
      assert.isTrue(Option.isNone(decodeDecimal(bad)), bad)
    }
  })
})

describe("Decimal's refusal", () => {
  // The message named only an exponent and leading zeros: a user who typed ".5" or "29,000" was pointed elsewhere.
  it("names what each common slip breaks", () => {
    for (const text of [".5", "5.", "29,000", "+1", "1e3", "01.5"]) {
      const result = Schema.decodeUnknownExit(Primitives.Decimal)(text)
      assert.isTrue(result._tag === "Failure", text)
      assert.include(
        String(result),
        "must be a decimal string such as \"0.25\": a digit on each side of a point, and no exponent, leading zeros, " +
          "\"+\" or separators",
        text
      )
    }
  })
})
