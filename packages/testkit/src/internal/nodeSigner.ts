// HMAC-SHA256 signing with node:crypto: synchronous, with the key imported once per client. The testkit runs on
// Node (its protocol checks signatures with node:crypto too), so its preset client signs this way instead of the
// portable WebCrypto default, whose every call is a round trip through the thread pool.
import type { Signer } from "@spotkit/core"
import { Effect, Redacted } from "effect"
import { Buffer } from "node:buffer"
import { createHmac, createSecretKey } from "node:crypto"

export const nodeSigner: Signer.Service = {
  name: "node-crypto-hmac-sha256",
  prepare: (secretKey) =>
    Effect.sync(() => {
      const key = createSecretKey(Buffer.from(Redacted.value(secretKey), "utf8"))
      return (prehash: string) => Effect.sync(() => createHmac("sha256", key).update(prehash).digest("base64"))
    })
}
