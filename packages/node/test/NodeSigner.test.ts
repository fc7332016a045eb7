/**
 * `NodeSigner.nodeCrypto` (node:crypto, the secret prepared once per client by `hmacSha256`) and core's
 * `Signer.webCrypto` sign identically: the RFC 4231 HMAC-SHA256 vectors whose key and data are ASCII text (so the UTF-8
 * string the signer takes is those exact bytes), and generated secrets and prehash strings, unicode included. The
 * prepared key signs as `createHmac` does across the block size (keys longer than 64 bytes are hashed first) and
 * across the room of its reused buffer.
 */
import { assert, describe, it } from "@effect/vitest"
import { Signer, Venue } from "@spotkit/core"
import { Effect, Redacted } from "effect"
import * as fc from "fast-check"
import { Buffer } from "node:buffer"
import { createHmac } from "node:crypto"
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

// Secrets and prehash strings: ASCII like real keys and the prehash of docs/venue/signing.md, and any code point (astral planes and
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

  // node:crypto's own HMAC, a fresh key each time: the reference the prepared key is held to.
  const reference = (secret: string, data: string) =>
    createHmac("sha256", Buffer.from(secret, "utf8")).update(data, "utf8").digest("base64")

  it("a prepared key signs as createHmac across the block size: keys of 0 to 200 bytes, hashed first past 64", () => {
    for (const length of [0, 1, 31, 32, 63, 64, 65, 100, 128, 131, 200]) {
      const secret = "k".repeat(length)
      const data = `1714521600000POST/api/v2/trade/orders{"key":${length}}`
      assert.strictEqual(NodeSigner.hmacSha256(secret)(data), reference(secret, data), `a ${length}-byte key`)
    }
    // A key of multi-byte characters: 22 characters, 66 UTF-8 bytes, so it is hashed first.
    const wide = "€".repeat(22)
    assert.strictEqual(NodeSigner.hmacSha256(wide)("x"), reference(wide, "x"))
  })

  it("a prepared key signs texts around the room of its buffer, and a short text after a long one, as createHmac", () => {
    const sign = NodeSigner.hmacSha256("demo-alice-secret")
    // The buffer holds 16 KiB of message: texts written without counting (length * 3 within it), texts counted first,
    // texts that need a buffer of their own; one-byte, three-byte and four-byte characters.
    const room = 16 * 1024
    const texts = [
      "a".repeat(Math.floor(room / 3)),
      "a".repeat(Math.floor(room / 3) + 1),
      "a".repeat(room),
      "a".repeat(room + 1),
      "€".repeat(Math.floor(room / 3)),
      "€".repeat(Math.floor(room / 3) + 1),
      "𝄞".repeat(room / 2),
      "x".repeat(100_000),
      "short",
      ""
    ]
    for (const data of texts) {
      assert.strictEqual(sign(data), reference("demo-alice-secret", data), `${data.length} code units`)
    }
  })

  it("property: a prepared key signs every text as createHmac, the key reused across texts", () =>
    fc.assert(
      fc.property(
        text(0).chain((secret) => fc.tuple(fc.constant(secret), fc.array(text(0), { minLength: 1, maxLength: 5 }))),
        fc.string({ unit: "binary", minLength: 60, maxLength: 140 }),
        ([secret, datas], long) => {
          const sign = NodeSigner.hmacSha256(secret)
          for (const data of [...datas, long, ...datas]) {
            if (sign(data) !== reference(secret, data)) return false
          }
          return sign(secret + long) === reference(secret, secret + long)
        }
      ),
      { numRuns: 300 }
    ))
})
