// The signer of `TestExchange.layerSpotClient`'s client: HMAC-SHA256 over node:crypto, synchronous, so that a test's
// client signs without waiting on the thread pool (as WebCrypto does) and a test that forks a call and moves a
// `TestClock` finds it where the clock left it. It is the client's side: written apart from the exchange's check
// (protocol/signature.ts), sharing no code with it; test/signature.test.ts holds both to core's WebCrypto signer.
import type { Signer } from "@spotkit/core"
import { Effect, Redacted } from "effect"
import { Buffer } from "node:buffer"
import { createHmac, createSecretKey } from "node:crypto"

export const nodeCryptoSigner: Signer.Service = {
  name: "testkit-node-crypto-hmac-sha256",
  prepare: (secretKey) =>
    Effect.sync(() => {
      const key = createSecretKey(Buffer.from(Redacted.value(secretKey), "utf8"))
      // Signed when called, answered as an exit: the client stamps the request in the same step (Signer.Sign).
      return (prehash: string) => Effect.succeed(createHmac("sha256", key).update(prehash, "utf8").digest("base64"))
    })
}
