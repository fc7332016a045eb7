/**
 * The exchange checks `ACCESS-SIGN` with its own few lines over node:crypto (`internal/protocol/signature.ts`), apart
 * from the client's signers. Held here to answers computed outside spotkit — the published HMAC-SHA256 vectors of
 * RFC 4231 and signatures of venue requests computed by openssl — and to core's `Signer` (the client's default,
 * WebCrypto), as is the preset client's own node:crypto signer (`layerSpotClient`'s default, written apart from the
 * check): they must agree on every secret, path and body, and a client signing with either must be accepted.
 */
import { assert, describe, it } from "@effect/vitest"
import { Signer, SpotClient, Venue } from "@spotkit/core"
import { Effect, Redacted } from "effect"
import * as fc from "fast-check"
import { Buffer } from "node:buffer"
import { TestExchange } from "../src/index.ts"
import { nodeCryptoSigner } from "../src/internal/clientSigner.ts"
import { hmacKey, signatureOf } from "../src/internal/protocol/signature.ts"

const hex = (base64: string) => Buffer.from(base64, "base64").toString("hex")

describe("the exchange's HMAC-SHA256", () => {
  // RFC 4231 section 4, the cases whose keys are text (UTF-8 bytes, as an API secret is); the expected values are the
  // RFC's HMAC-SHA-256 lines.
  it("answers RFC 4231's published vectors (test cases 1, 2 and 4)", () => {
    assert.strictEqual(
      hex(signatureOf(hmacKey("\x0b".repeat(20)), "Hi There")),
      "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
    )
    assert.strictEqual(
      hex(signatureOf(hmacKey("Jefe"), "what do ya want for nothing?")),
      "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
    )
    const key25 = String.fromCharCode(...Array.from({ length: 25 }, (_, i) => i + 1))
    assert.strictEqual(
      hex(signatureOf(hmacKey(key25), "", new Uint8Array(50).fill(0xcd))),
      "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"
    )
  })

  // Computed outside spotkit, by:
  //   printf '%s' "$PREHASH" | openssl dgst -sha256 -hmac demo-alice-secret -binary | openssl base64
  // (and again with Python's hmac module, which answered the same).
  const T0 = 1_700_000_000_000
  const OPEN_ORDERS = Venue.endpoints.openOrders.path
  const STATUS = Venue.endpoints.transferStatus.path
  const unicodeBody = `{"symbol":"BTCUSDT_SPBL","note":"€ ünïcödé"}`
  const vectors = [
    {
      name: "a POST with a non-ASCII body",
      method: "POST",
      path: OPEN_ORDERS,
      body: unicodeBody,
      prehash: `1700000000000POST/api/v2/trade/open-orders${unicodeBody}`,
      sign: "/GiO5F2l7tdRExOrcGjwkY9ytW1zMBmCbh8VvlDi4Ho="
    },
    {
      name: "a GET with its query",
      method: "GET",
      path: `${STATUS}?coin=USDT&pageSize=10`,
      body: "",
      prehash: "1700000000000GET/api/v2/rebate/affiliate/getInternalWithdrawalStatus?coin=USDT&pageSize=10",
      sign: "TvmBQMVnCRfGRBvijfMohTn3WVT4BYmvpFSj8c1STdw="
    }
  ] as const

  it("answers openssl's signatures of venue requests, over text and over the body's bytes", () => {
    const key = hmacKey(TestExchange.demoKeys.alice.secretKey)
    for (const vector of vectors) {
      assert.strictEqual(signatureOf(key, vector.prehash), vector.sign, vector.name)
      const head = vector.prehash.slice(0, vector.prehash.length - vector.body.length)
      assert.strictEqual(signatureOf(key, head, Buffer.from(vector.body, "utf8")), vector.sign, `${vector.name}, bytes`)
      // The prehash the exchange builds from the request is the one openssl signed.
      assert.strictEqual(Venue.prehash(String(T0), vector.method, vector.path, vector.body), vector.prehash)
    }
  })

  it.effect("accepts those requests signed by openssl, and refuses them with one character of the signature changed", () =>
    Effect.gen(function*() {
      const exchange = yield* TestExchange.make({ ...TestExchange.demo({ bills: 0 }), rateLimits: false })
      const alice = TestExchange.demoKeys.alice
      const send = (vector: typeof vectors[number], sign: string, bytes: boolean) => {
        const headers: Record<string, string> = {
          "access-key": alice.apiKey,
          "access-sign": sign,
          "access-timestamp": String(T0),
          "access-passphrase": alice.passphrase,
          "content-type": "application/json"
        }
        const outcome = exchange.handleAt({
          method: vector.method,
          path: vector.path,
          header: (name) => headers[name],
          body: vector.body,
          bodyBytes: bytes ? Buffer.from(vector.body, "utf8") : undefined,
          clientAddress: "127.0.0.1"
        }, T0)
        assert.strictEqual(outcome._tag, "Respond")
        return outcome._tag === "Respond" ? JSON.parse(outcome.body).code as string : ""
      }
      for (const vector of vectors) {
        const ok = vector.method === "GET" ? "200" : Venue.SUCCESS
        const flipped = `${vector.sign.slice(0, 5)}${vector.sign[5] === "A" ? "B" : "A"}${vector.sign.slice(6)}`
        for (const bytes of [false, true]) {
          assert.strictEqual(send(vector, vector.sign, bytes), ok, `${vector.name}, bytes ${bytes}`)
          assert.strictEqual(send(vector, flipped, bytes), "40009", `${vector.name} flipped, bytes ${bytes}`)
        }
      }
    }))
})

describe("the client's signer and the exchange agree", () => {
  it.effect("core's Signer (WebCrypto), the preset's signer and the exchange agree for any secret and request", () =>
    Effect.promise(() =>
      fc.assert(
        fc.asyncProperty(
          fc.string({ unit: "grapheme", minLength: 1, maxLength: 64 }),
          fc.constantFrom("GET", "POST"),
          fc.string({ unit: "grapheme-ascii", maxLength: 80 }),
          fc.string({ unit: "grapheme", maxLength: 300 }),
          fc.integer({ min: 0, max: 2 ** 44 }),
          async (secret, method, path, body, time) => {
            const prehash = Venue.prehash(String(time), method, `/${path}`, body)
            const signWith = (signer: Signer.Service) =>
              Effect.runPromise(Effect.flatMap(signer.prepare(Redacted.make(secret)), (sign) => sign(prehash)))
            const sign = await signWith(Signer.webCrypto)
            assert.strictEqual(await signWith(nodeCryptoSigner), sign)
            const key = hmacKey(secret)
            assert.strictEqual(signatureOf(key, prehash), sign)
            const head = Venue.prehash(String(time), method, `/${path}`, "")
            assert.strictEqual(signatureOf(key, head, Buffer.from(body, "utf8")), sign)
          }
        ),
        { numRuns: 300, seed: 2_125 }
      )
    ))

  it.effect("a client signing with core's default is accepted on every kind of request: POST, GET with a query, transfer", () =>
    Effect.gen(function*() {
      const client = yield* SpotClient.SpotClient
      const exchange = yield* TestExchange.TestExchange
      const bob = exchange.accounts[1]!
      const placed = yield* client.placeOrder({
        symbol: "BTCUSDT_SPBL",
        side: "buy",
        orderType: "limit",
        price: "29000",
        quantity: "0.001",
        clientOrderId: "signed-by-webcrypto"
      })
      const seen = yield* client.order({ orderId: placed.orderId })
      assert.isTrue(seen._tag === "Some")
      yield* client.internalTransfer({
        toUserId: bob.userId,
        coin: "USDT",
        amount: "1",
        fromAccountType: "SPOT",
        toAccountType: "SPOT"
      })
      const signed = (yield* exchange.requests).filter((record) => record.userId !== undefined)
      assert.isAtLeast(signed.length, 3)
      assert.deepStrictEqual(signed.filter((record) => record.code === "40009"), [])
    }).pipe(Effect.provide(TestExchange.layerSpotClient({ signer: Signer.webCrypto }))))
})
