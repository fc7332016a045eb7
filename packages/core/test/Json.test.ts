/**
 * Lossless JSON: 64-bit ids and exact decimals survive `Json.parse` / `Json.stringify`.
 *
 * The contract (Json.ts module docs, docs/venue/README.md#exact-ids): a number literal stays a JS number only when it is an integer
 * literal within the safe range; every other number (large integers, fractions, exponent forms) comes back as its
 * exact source text.
 */
import { assert, describe, it, vi } from "@effect/vitest"
import { Result } from "effect"
import * as fc from "fast-check"
import { Json } from "../src/index.ts"

const INTEGER_LITERAL = /^-?\d+$/

/** What a lossless parse must answer for one number literal, derived from its text alone. */
const expectedNumber = (literal: string): unknown =>
  INTEGER_LITERAL.test(literal) && Number.isSafeInteger(Number(literal)) ? Number(literal) : literal

/** Reference lossless parse, independent of the code under test: the reviver sees each number's source text. */
const referenceParse = (text: string): unknown => {
  const reviver = (_key: string, value: unknown, context?: { readonly source?: string }): unknown =>
    typeof value === "number" && context?.source !== undefined ? expectedNumber(context.source) : value
  return JSON.parse(text, reviver)
}

const agree = (text: string, expected: unknown) => {
  assert.deepStrictEqual(Json.parse(text), expected, text)
  assert.deepStrictEqual(referenceParse(text), expected, text)
}

describe("Json.parse", () => {
  it("keeps a 64-bit order id sent as a JSON number as its exact digits", () => {
    assert.strictEqual(Json.parse("602876318261969338"), "602876318261969338")
    assert.deepStrictEqual(Json.parse("{\"data\":{\"orderId\":602876318261969338}}"), {
      data: { orderId: "602876318261969338" }
    })
    // The trap it avoids: the built-in parse rounds the id.
    assert.notStrictEqual(String(JSON.parse("602876318261969338")), "602876318261969338")
  })

  it("keeps safe integers as numbers and unsafe integers as text", () => {
    agree("[0,-42,1763800000000,9007199254740991,-9007199254740991]", [
      0,
      -42,
      1763800000000,
      9007199254740991,
      -9007199254740991
    ])
    agree("[9007199254740992,-9007199254740993,18446744073709551615,123456789012345678901234567890]", [
      "9007199254740992",
      "-9007199254740993",
      "18446744073709551615",
      "123456789012345678901234567890"
    ])
  })

  it("returns fractions and exponent forms as their source text", () => {
    agree("{\"price\":0.1,\"qty\":-1.50,\"fee\":2.5e-3,\"huge\":1e400,\"big\":12345678901234567890.123}", {
      price: "0.1",
      qty: "-1.50",
      fee: "2.5e-3",
      huge: "1e400",
      big: "12345678901234567890.123"
    })
  })

  it("never rounds a fraction to a nearby integer", () => {
    // These literals round to safe integers as doubles; returning that number would lose the value.
    agree("[1.0000000000000000001,99.999999999999999999,1e-400]", [
      "1.0000000000000000001",
      "99.999999999999999999",
      "1e-400"
    ])
  })

  it("returns fraction and exponent forms of integral values as their source text too", () => {
    agree("[1.0,1e5,2E+3,-0.0]", ["1.0", "1e5", "2E+3", "-0.0"])
  })

  it("leaves strings holding digits untouched, nested at any depth", () => {
    agree(
      "{\"id\":\"602876318261969338\",\"list\":[{\"s\":\":1.5,[2e3\"},[\"18446744073709551615\",7]]," +
        "\"n\":null,\"t\":true}",
      {
        id: "602876318261969338",
        list: [{ s: ":1.5,[2e3" }, ["18446744073709551615", 7]],
        n: null,
        t: true
      }
    )
  })

  it("throws SyntaxError on malformed text on both paths", () => {
    assert.throws(() => Json.parse("{\"code\":\"00000\",\"data\":{"), SyntaxError)
    assert.throws(() => Json.parse("{\"orderId\":602876318261969338,"), SyntaxError)
  })
})

// ---------------------------------------------------------------------------------------------------------------
// property: generated JSON texts, with the expected value built alongside the text

interface Sample {
  readonly text: string
  readonly expected: unknown
}

const digits = (min: number, max: number) =>
  fc.array(fc.integer({ min: 0, max: 9 }), { minLength: min, maxLength: max }).map((ds) => ds.join(""))

const integerLiteral = fc.oneof(
  fc.integer({ min: -1_000_000_000, max: 1_000_000_000 }).map(String),
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String),
  fc.bigInt({ min: 2n ** 53n - 3n, max: 2n ** 53n + 3n }).map((n) => String(n)),
  fc.constantFrom("602876318261969338", "18446744073709551615", "-9007199254740992")
)

const decimalLiteral = fc.tuple(fc.boolean(), fc.bigInt({ min: 0n, max: 10n ** 22n }), digits(1, 24)).map(
  ([negative, whole, fraction]) => `${negative ? "-" : ""}${whole}.${fraction}`
)

const exponentLiteral = fc.tuple(
  fc.oneof(integerLiteral, decimalLiteral),
  fc.constantFrom("e", "E", "e+", "e-", "E-"),
  fc.integer({ min: 0, max: 400 })
).map(([mantissa, marker, exponent]) => `${mantissa}${marker}${exponent}`)

const numberSample = fc.oneof(integerLiteral, decimalLiteral, exponentLiteral).map((literal): Sample => ({
  text: literal,
  expected: expectedNumber(literal)
}))

// Strings made of the characters that could fool a scanner for unsafe numbers.
const trickyString = fc.string({
  unit: fc.constantFrom("0", "1", "6", "9", ".", "e", "E", ":", ",", "[", "-", " ", "a", "\"", "\\", "\n")
})

const stringSample = trickyString.map((s): Sample => ({ text: JSON.stringify(s), expected: s }))

const literalSample = fc.constantFrom<Sample>(
  { text: "true", expected: true },
  { text: "false", expected: false },
  { text: "null", expected: null }
)

const whitespace = fc.constantFrom("", " ", "\n", "\t ", "\r\n  ")

const padded = (sample: fc.Arbitrary<Sample>) =>
  fc.tuple(whitespace, sample, whitespace).map(([before, s, after]): Sample => ({
    text: before + s.text + after,
    expected: s.expected
  }))

const { value: jsonSample } = fc.letrec<{ value: Sample; array: Sample; object: Sample }>((tie) => ({
  value: fc.oneof(
    { maxDepth: 4, depthSize: "small" },
    numberSample,
    stringSample,
    literalSample,
    tie("array"),
    tie("object")
  ),
  array: fc.array(padded(tie("value")), { maxLength: 6 }).map((items): Sample => ({
    text: `[${items.map((item) => item.text).join(",")}]`,
    expected: items.map((item) => item.expected)
  })),
  object: fc.array(fc.tuple(trickyString, padded(tie("value"))), { maxLength: 6 }).map((entries): Sample => ({
    text: `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${item.text}`).join(",")}}`,
    expected: Object.fromEntries(entries.map(([key, item]) => [key, item.expected]))
  }))
}))

describe("Json.parse (properties)", () => {
  it("equals the reference lossless parse on generated texts with big integers, decimals and digit strings", () => {
    fc.assert(
      fc.property(padded(jsonSample), ({ expected, text }) => {
        assert.deepStrictEqual(referenceParse(text), expected, text)
        assert.deepStrictEqual(Json.parse(text), expected, text)
      }),
      { numRuns: 400 }
    )
  })

  it("agrees with the built-in parse when every number is a safe integer (the fast path)", () => {
    const safeTree = fc.letrec<{ value: unknown }>((tie) => ({
      value: fc.oneof(
        { maxDepth: 4, depthSize: "small" },
        fc.maxSafeInteger(),
        trickyString,
        fc.boolean(),
        fc.constant(null),
        fc.array(tie("value"), { maxLength: 5 }),
        fc.dictionary(trickyString, tie("value"), { maxKeys: 5 })
      )
    })).value
    fc.assert(
      fc.property(safeTree, (value) => {
        const text = JSON.stringify(value)
        assert.deepStrictEqual(Json.parse(text), JSON.parse(text), text)
      }),
      { numRuns: 300 }
    )
  })
})

describe("Json.stringify", () => {
  it("writes a raw number with its exact digits", () => {
    const text = Json.stringify({
      toUserId: Json.rawNumber("18446744073709551615"),
      coin: "USDT",
      nested: [Json.rawNumber("9007199254740993"), 1]
    })
    assert.strictEqual(text, "{\"toUserId\":18446744073709551615,\"coin\":\"USDT\",\"nested\":[9007199254740993,1]}")
    assert.deepStrictEqual(Json.parse(text), {
      toUserId: "18446744073709551615",
      coin: "USDT",
      nested: ["9007199254740993", 1]
    })
  })

  it("round-trips any u64 through rawNumber and parse", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), (n) => {
        const parsed = Json.parse(Json.stringify({ id: Json.rawNumber(String(n)) })) as { readonly id: unknown }
        assert.strictEqual(String(parsed.id), String(n))
        assert.strictEqual(typeof parsed.id, Number.isSafeInteger(Number(n)) ? "number" : "string")
      }),
      { numRuns: 200 }
    )
  })
})

describe("Json.parse id fast path", () => {
  it("quotes ids in value position but never touches digits inside strings", () => {
    const text =
      `{"msg":"a:12345678901234567890,","data":{"orderId":602876318261969338,"ids":[18446744073709551615, 1]}}`
    assert.deepStrictEqual(Json.parse(text), {
      msg: "a:12345678901234567890,",
      data: { orderId: "602876318261969338", ids: ["18446744073709551615", 1] }
    })
  })

  it("keeps 16-digit safe integers as numbers next to a 19-digit id", () => {
    assert.deepStrictEqual(Json.parse(`{"t":1234567890123456,"id":9223372036854775807,"p":1.50}`), {
      t: 1234567890123456,
      id: "9223372036854775807",
      p: "1.50"
    })
  })
})

describe("Json.parse on a runtime whose JSON.parse gives revivers no source text (before ES2025)", () => {
  // JSON.parse as such a runtime has it: the reviver gets the key and the value, never the context.
  const original = JSON.parse
  const withoutSource = ((text: string, reviver?: (this: unknown, key: string, value: unknown) => unknown) =>
    original(
      text,
      reviver === undefined ? undefined : function(this: unknown, key: string, value: unknown) {
        return reviver.call(this, key, value)
      }
    )) as typeof JSON.parse

  // Before: the rounded double was answered (a 16-digit id beyond 2^53 read as its neighbour), then the whole text was
  // refused (a SyntaxError, so a fraction in any field, one the client ignores included, failed every call).
  it("reads every number exactly, as with source text: unsafe ones as their text, by quoting them first", () => {
    const spy = vi.spyOn(JSON, "parse").mockImplementation(withoutSource)
    const parsed = (text: string) => Result.try(() => Json.parse(text))
    const cases = [
      // 16 digits beyond 2^53 (the reviver's case: 17 digits and more are quoted without one), short and long texts.
      [`{"orderId":9007199254740993}`, { orderId: "9007199254740993" }],
      [`{"pad":"${"x".repeat(600)}","orderId":9007199254740993}`, {
        pad: "x".repeat(600),
        orderId: "9007199254740993"
      }],
      // Fractions and exponent forms, one that rounds to an integer among them, beside strings holding digits.
      [
        `{"price":0.10,"p":[99.999999999999999999, -1E+2,2.5e-3],"s":"1.5 \\"9007199254740993","n":-42,"z":-0}`,
        { price: "0.10", p: ["99.999999999999999999", "-1E+2", "2.5e-3"], s: "1.5 \"9007199254740993", n: -42, z: -0 }
      ],
      [`{"orderId":602876318261969338,"time":1763800000000,"n":-42}`, {
        orderId: "602876318261969338",
        time: 1763800000000,
        n: -42
      }],
      [`1.5`, "1.5"]
    ] as const
    const outcomes = cases.map(([text]) => parsed(text))
    const generated: Array<readonly [Sample, Result.Result<unknown, unknown>]> = fc.sample(padded(jsonSample), {
      numRuns: 300,
      seed: 46
    }).map((sample) => [sample, parsed(sample.text)])
    spy.mockRestore()
    cases.forEach(([text, expected], i) => {
      const outcome = outcomes[i]!
      assert.isTrue(Result.isSuccess(outcome), text)
      assert.deepStrictEqual(Result.getOrUndefined(outcome), expected as unknown, text)
    })
    for (const [sample, outcome] of generated) {
      assert.isTrue(Result.isSuccess(outcome), sample.text)
      assert.deepStrictEqual(Result.getOrUndefined(outcome), sample.expected, sample.text)
    }
  })
})
