/**
 * HMAC-SHA256 request signing with `node:crypto`, for `Signer` of `@spotkit/core`, and the same HMAC as a plain
 * synchronous function for code that checks signatures (the test exchange).
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
import type { KeyObject } from "node:crypto"
import { createHmac, createSecretKey } from "node:crypto"

/**
 * A secret (its UTF-8 bytes) imported as a `KeyObject` for `hmacBase64`: import once, sign many times.
 *
 * @since 0.1.0
 * @category primitives
 */
export const hmacKey = (secret: string): KeyObject => createSecretKey(Buffer.from(secret, "utf8"))

/**
 * `base64(HMAC-SHA256(key, data))`, synchronously: the venue's signature of a prehash (docs/venue/signing.md#signing).
 * A text is hashed as its UTF-8 bytes, bytes as they are, and a list of parts one after the other: a server checks a
 * signature over the bytes it received, `[Venue.prehash(timestamp, method, path, ""), body]`, not over a decoding of
 * them.
 *
 * @since 0.1.0
 * @category primitives
 */
export const hmacBase64 = (key: KeyObject, data: string | Uint8Array | ReadonlyArray<string | Uint8Array>): string => {
  const hmac = createHmac("sha256", key)
  if (typeof data === "string") hmac.update(data, "utf8")
  else if (data instanceof Uint8Array) hmac.update(data)
  else {
    for (const part of data) {
      if (typeof part === "string") hmac.update(part, "utf8")
      else hmac.update(part)
    }
  }
  return hmac.digest("base64")
}

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
      const key = hmacKey(Redacted.value(secretKey))
      // Signed when called, answered as an exit: the client stamps the request in the same step (Signer.Sign).
      return (prehash: string) => Effect.succeed(hmacBase64(key, prehash))
    })
}

/**
 * Makes `SpotClient` sign with `node:crypto`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<never> = Signer.layer(nodeCrypto)
