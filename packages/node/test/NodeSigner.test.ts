/**
 * `NodeSigner.nodeCrypto` (node:crypto, a `KeyObject` per client) and core's `Signer.webCrypto` sign identically:
 * the RFC 4231 HMAC-SHA256 vectors whose key and data are ASCII text (so the UTF-8 string the signer takes is those
 * exact bytes), and generated secrets and prehash strings, unicode included.
 */
import { assert, describe, it } from "@effect/vitest"
import { Signer, Venue } from "@spotkit/core"
import { Effect, Redacted } from "effect"
import * as fc from "fast-check"
import { Buffer } from "node:buffer"
import { NodeSigner } from "../src/index.ts"

const sign = (signer: Signer.Service, secret: string, prehash: string) =>
  Effect.flatMap(signer.prepare(Redacted.make(secret)), (signWith) => signWith(prehash))

const base64OfHex = (hex: string) => Buffer.from(hex, "hex").toString("base64")

// RFC 4231 §4.2 and §4.3. Test cases 3 to 7 have keys (or data) with bytes above 0x7f, which no UTF-8 secret string
// encodes to, so they do not apply to a signer that takes text.
const vectors = [
  {
    name: "test case 1",
    key: "\x0b".repeat(20),
    data: "Hi There",
    hex: "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
  },
  {
    name: "test case 2",
    key: "Jefe",
    data: "what do ya want for nothing?",
    hex: "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
  }
]

// Secrets and prehash strings: ASCII like real keys and DESIGN §3's prehash, and any code point (astral planes and
// lone surrogates included, which both signers encode as UTF-8 with U+FFFD).
const text = (minLength: number) =>
  fc.oneof(
    fc.string({ unit: "binary-ascii", minLength }),
    fc.string({ unit: "grapheme", minLength }),
    fc.string({ unit: "binary", minLength })
  )

describe("NodeSigner", () => {
  for (const vector of vectors) {
    it.effect(`RFC 4231 ${vector.name}: both signers answer the vector`, () =>
      Effect.gen(function*() {
        const expected = base64OfHex(vector.hex)
        assert.strictEqual(yield* sign(NodeSigner.nodeCrypto, vector.key, vector.data), expected)
        assert.strictEqual(yield* sign(Signer.webCrypto, vector.key, vector.data), expected)
      }))
  }

  it("hmacBase64 (the synchronous primitive the test exchange checks signatures with) answers every vector", () => {
    for (const vector of vectors) {
      assert.strictEqual(NodeSigner.hmacBase64(NodeSigner.hmacKey(vector.key), vector.data), base64OfHex(vector.hex))
    }
  })

  it.effect("a prepared key signs many prehash strings, each as a fresh WebCrypto key would", () =>
    Effect.gen(function*() {
      const node = yield* NodeSigner.nodeCrypto.prepare(Redacted.make("demo-alice-secret"))
      const web = yield* Signer.webCrypto.prepare(Redacted.make("demo-alice-secret"))
      const prehashes = [
        Venue.prehash("1714521600000", "post", "/api/v2/trade/orders", "{\"symbol\":\"BTCUSDT_SPBL\"}"),
        Venue.prehash("1714521600001", "POST", "/api/v2/account/fundingBills", ""),
        "",
        "€ 𝄞 ✓"
      ]
      const fromNode = yield* Effect.forEach(prehashes, node)
      const fromWeb = yield* Effect.forEach(prehashes, web)
      assert.deepStrictEqual(fromNode, fromWeb)
      // Different input, different signature: the key is not reset to a constant answer.
      assert.strictEqual(new Set(fromNode).size, prehashes.length)
    }))

  it.effect("property: node:crypto and WebCrypto sign every secret and prehash identically", () =>
    Effect.promise(() =>
      fc.assert(
        fc.asyncProperty(text(1), text(0), async (secret, prehash) => {
          const [node, web] = await Effect.runPromise(
            Effect.all([sign(NodeSigner.nodeCrypto, secret, prehash), sign(Signer.webCrypto, secret, prehash)])
          )
          return node === web && /^[A-Za-z0-9+/]{43}=$/.test(node)
        }),
        { numRuns: 300 }
      )
    ))
})
