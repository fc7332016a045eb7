/**
 * HMAC-SHA256 request signing with `node:crypto`, for `Signer` of `@spotkit/core`.
 *
 * The core default signs with WebCrypto, which works on every platform but takes a round trip through libuv's
 * thread pool (a promise) for every request. On Node, `createHmac` signs synchronously in well under a microsecond
 * of key setup, because the key is imported once per client (`prepare`) as a `KeyObject`. Both produce the same
 * signature for the same input; `test/NodeSigner.test.ts` proves it on the RFC 4231 vectors and generated input.
 *
 * @since 0.1.0
 */
import { Signer } from "@spotkit/core"
import { Effect, Redacted } from "effect"
import type { Layer } from "effect"
import { Buffer } from "node:buffer"
import { createHmac, createSecretKey } from "node:crypto"

/**
 * HMAC-SHA256 over `node:crypto`; the secret becomes a `KeyObject` once per client.
 *
 * @since 0.1.0
 * @category implementations
 */
export const nodeCrypto: Signer.Service = {
  name: "node-crypto-hmac-sha256",
  prepare: (secretKey) =>
    Effect.sync(() => {
      const key = createSecretKey(Buffer.from(Redacted.value(secretKey), "utf8"))
      return (prehash: string) => Effect.sync(() => createHmac("sha256", key).update(prehash, "utf8").digest("base64"))
    })
}

/**
 * Makes `SpotClient` sign with `node:crypto`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<never> = Signer.layer(nodeCrypto)
