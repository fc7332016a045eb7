/**
 * Body fields into the engine's fields, or the venue's refusal (docs/venue/signing.md#error-codes: 40017 for a body that is no JSON object,
 * 40019 for a missing field, 40020 for a field of the wrong type or form). Bodies are parsed with every number tagged,
 * so these cases pin what that representation must not change: a bare number is no body, a number is no string, and
 * a 64-bit id keeps every digit.
 */
import { assert, describe, it } from "@effect/vitest"
import {
  clientIdField,
  idListField,
  integerField,
  longField,
  optionalLongField,
  parseBody,
  parseQuery,
  stringField
} from "../src/internal/protocol/fields.ts"
import type { Body } from "../src/internal/protocol/fields.ts"
import { Refusal } from "../src/internal/protocol/wire.ts"

const codeOf = (value: unknown): string | undefined => value instanceof Refusal ? value.code : undefined

const body = (text: string): Body => {
  const parsed = parseBody(text)
  if (parsed instanceof Refusal) assert.fail(`refused ${parsed.code}: ${text}`)
  return parsed
}

describe("fields", () => {
  it("a body that is not a JSON object is 40017, whatever JSON it is", () => {
    for (const text of ["", "{", "5", "-1.5", "1e400", "\"text\"", "null", "true", "[]", "[{}]", "{\"a\":1}x"]) {
      const refused = parseBody(text)
      assert.strictEqual(codeOf(refused), "40017", text)
      assert.strictEqual((refused as Refusal).msg, "Parameter verification failed", text)
    }
    assert.deepStrictEqual(body("{}"), {})
  })

  it("a string field must be a JSON string: absent, null or empty is 40019 when required, a number 40020", () => {
    const fields = body("{\"a\":\"x\",\"b\":1,\"c\":null,\"d\":\"\",\"e\":true,\"f\":{}}")
    assert.strictEqual(stringField(fields, "a", true), "x")
    assert.strictEqual(codeOf(stringField(fields, "b", true)), "40020")
    assert.strictEqual((stringField(fields, "b", true) as Refusal).msg, "Parameter b error")
    for (const name of ["c", "d", "missing"]) {
      assert.strictEqual(codeOf(stringField(fields, name, true)), "40019", name)
      assert.strictEqual(stringField(fields, name, false), undefined, name)
    }
    assert.strictEqual((stringField(fields, "c", true) as Refusal).msg, "Parameter c cannot be empty")
    assert.strictEqual(codeOf(stringField(fields, "e", false)), "40020")
    assert.strictEqual(codeOf(stringField(fields, "f", false)), "40020")
  })

  it("an integer field is a JSON integer or a digit string within its range; fractions and exponents are 40020", () => {
    const fields = body(
      "{\"n\":42,\"s\":\"42\",\"neg\":-3,\"frac\":1.0,\"exp\":1e2,\"big\":12345678901234567,\"text\":\"4x\",\"none\":null}"
    )
    assert.strictEqual(integerField(fields, "n", 0, 100), 42)
    assert.strictEqual(integerField(fields, "s", 0, 100), 42)
    assert.strictEqual(integerField(fields, "neg", -5, 5), -3)
    assert.strictEqual(integerField(fields, "none", 0, 100), undefined)
    assert.strictEqual(integerField(fields, "missing", 0, 100), undefined)
    for (const name of ["frac", "exp", "big", "text"]) {
      assert.strictEqual(codeOf(integerField(fields, name, 0, Number.MAX_SAFE_INTEGER)), "40020", name)
    }
    assert.strictEqual(codeOf(integerField(fields, "n", 0, 41)), "40020")
    assert.strictEqual(codeOf(integerField(fields, "neg", 0, 5)), "40020")
  })

  it("a 64-bit id keeps every digit, as a JSON number or a digit string, without leading zeros", () => {
    const fields = body(
      "{\"a\":18446744073709551615,\"b\":\"602876318261969338\",\"c\":\"007\",\"d\":-1,\"e\":1.5,\"f\":\"\",\"g\":123456789012345678901}"
    )
    assert.strictEqual(longField(fields, "a"), "18446744073709551615")
    assert.strictEqual(longField(fields, "b"), "602876318261969338")
    assert.strictEqual(longField(fields, "c"), "7")
    for (const name of ["d", "e", "g"]) assert.strictEqual(codeOf(longField(fields, name)), "40020", name)
    assert.strictEqual(codeOf(longField(fields, "f")), "40019")
    assert.strictEqual(codeOf(longField(fields, "missing")), "40019")
  })

  it("a query string's parameters are decoded strings; none without one; a parameter twice is 40020", () => {
    assert.deepStrictEqual(parseQuery("/api/x"), {})
    assert.deepStrictEqual(parseQuery("/api/x?"), {})
    assert.deepStrictEqual(parseQuery("/api/x?a=1&symbols=A%2CB,C&c=&d=x+y%20z"), {
      a: "1",
      symbols: "A,B,C",
      c: "",
      d: "x y z"
    })
    // Names that are members of Object.prototype are plain parameters.
    assert.deepStrictEqual(parseQuery("/api/x?constructor=1&__proto__=2"), { constructor: "1", ["__proto__"]: "2" })
    const twice = parseQuery("/api/x?coin=USDT&coin=BTC")
    assert.deepStrictEqual([codeOf(twice), (twice as Refusal).msg], ["40020", "Parameter coin error"])
    // As strings, they pass the integer and id fields as digit strings do.
    const query = parseQuery("/api/x?pageSize=20&orderId=602876318261969338") as Body
    assert.strictEqual(integerField(query, "pageSize", 1, 100), 20)
    assert.strictEqual(optionalLongField(query, "orderId"), "602876318261969338")
  })

  it("an optional id is undefined when absent, null or empty, and held to longField's form otherwise", () => {
    const fields = body("{\"a\":602876318261969338,\"n\":null,\"e\":\"\",\"x\":\"1a\"}")
    assert.strictEqual(optionalLongField(fields, "a"), "602876318261969338")
    for (const name of ["n", "e", "missing"]) assert.strictEqual(optionalLongField(fields, name), undefined, name)
    assert.strictEqual(codeOf(optionalLongField(fields, "x")), "40020")
  })

  it("a client id is 1 to 40 of A-Z a-z 0-9 _ - (under the name the endpoint gives it), else 40020", () => {
    const fields = body(`{"ok":"${"Az09_-".padEnd(40, "x")}","long":"${"x".repeat(41)}","dot":"a.b","num":7}`)
    assert.strictEqual(clientIdField(fields, "ok"), "Az09_-".padEnd(40, "x"))
    assert.strictEqual(clientIdField(fields, "missing"), undefined)
    for (const name of ["long", "dot", "num"]) {
      const refused = clientIdField(fields, name)
      assert.deepStrictEqual([codeOf(refused), (refused as Refusal).msg], ["40020", `Parameter ${name} error`], name)
    }
  })

  it("an id list is a non-empty array of valid ids, kept in order; anything else in it is 40020 for the list", () => {
    const fields = body(
      "{\"ids\":[602876318261969338,\"7\"],\"cids\":[\"a\",\"b-2\"],\"empty\":[],\"one\":\"7\",\"bad\":[\"7\",\"x\"],\"badCid\":[\"a b\"],\"none\":null}"
    )
    assert.deepStrictEqual(idListField(fields, "ids", "orderId"), ["602876318261969338", "7"])
    assert.deepStrictEqual(idListField(fields, "cids", "clientOrderId"), ["a", "b-2"])
    assert.strictEqual(idListField(fields, "none", "orderId"), undefined)
    assert.strictEqual(idListField(fields, "missing", "orderId"), undefined)
    for (
      const [name, kind] of [
        ["empty", "orderId"],
        ["one", "orderId"],
        ["bad", "orderId"],
        ["badCid", "clientOrderId"],
        [
          "ids",
          "clientOrderId"
        ]
      ] as const
    ) {
      const refused = idListField(fields, name, kind)
      assert.deepStrictEqual([codeOf(refused), (refused as Refusal).msg], ["40020", `Parameter ${name} error`], name)
    }
  })
})
