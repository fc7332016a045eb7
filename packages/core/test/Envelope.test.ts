/**
 * The standard envelope's hand-written fast path (`Envelope.fastStandard`) against its Schema, in both directions:
 * whatever the fast path answers, the Schema decodes to the same value; whatever the Schema accepts, the fast path
 * decodes to the same value or leaves to the Schema.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fc from "fast-check"
import { Envelope, Json } from "../src/index.ts"
import {
  fastAgreesWithSchema,
  fastEqualOrDeclines,
  longMillisText,
  millis,
  objectOf,
  plainMillis,
  usually
} from "./support/fastPath.ts"

const RUNS = 3_000

const standard = objectOf({
  code: fc.oneof(fc.constantFrom("00000", "40009", "200"), fc.integer(), fc.constant(null)),
  msg: fc.oneof(fc.string(), fc.constantFrom(null, 5)),
  requestTime: fc.oneof(millis, fc.constant(null)),
  data: fc.oneof(fc.constant({ orderId: "1" }), fc.constant(null), fc.constant([]), fc.constant("x"))
}, ["code"])

// Valid envelopes: usually as the venue sends them, sometimes a numeric code, a time as 16 digits, or a key present
// with the value `undefined` (all of which the Schema accepts and the fast path leaves to it).
const validStandard = fc.record({
  code: usually(fc.constantFrom("00000", "40009", "43012", "200"), fc.integer()),
  msg: usually(fc.oneof(fc.string(), fc.constant(null)), fc.constant(undefined)),
  requestTime: usually(fc.oneof(plainMillis, fc.constant(null)), fc.oneof(longMillisText, fc.constant(undefined))),
  data: usually(fc.oneof(fc.jsonValue(), fc.constant({ orderId: "1" })), fc.constant(undefined)),
  traceId: fc.string()
}, { requiredKeys: ["code"], noNullPrototype: true })

describe("fast decoders", () => {
  it.effect("Envelope.Standard: whatever the fast path accepts, the Schema decodes to the same value", () =>
    Effect.sync(() => fastAgreesWithSchema(Envelope.Standard, Envelope.fastStandard, standard, RUNS)))

  it.effect("Envelope.Standard: whatever the Schema accepts, the fast path decodes to the same value or declines", () =>
    Effect.sync(() =>
      fastEqualOrDeclines(Envelope.Standard, Envelope.fastStandard, validStandard, { numRuns: RUNS, minShare: 0.1 })
    ))

  it("the venue's usual success and error envelopes take the fast path", () => {
    assert.deepStrictEqual(
      Envelope.fastStandard(
        Json.parse(
          `{"code":"00000","msg":"success","requestTime":1795353820150,"data":{"orderId":1001000000000000090}}`
        )
      ),
      { code: "00000", msg: "success", requestTime: 1795353820150, data: { orderId: "1001000000000000090" } }
    )
    assert.deepStrictEqual(
      Envelope.fastStandard(
        Json.parse(`{"code":"40009","msg":"sign signature error","requestTime":1795353820150,"data":null}`)
      ),
      { code: "40009", msg: "sign signature error", requestTime: 1795353820150, data: null }
    )
  })
})
