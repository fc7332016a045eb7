/**
 * HMAC-SHA256 request signing with `node:crypto`, for `Signer` of `@spotkit/core`, and the same HMAC as a plain
 * synchronous function for code that checks signatures (the test exchange).
 *
 * The core default signs with WebCrypto, which works on every platform but takes a round trip through libuv's
 * thread pool (a promise) for every request. On Node, a client signs synchronously: its secret is prepared once per
 * client (`hmacSha256`) and each prehash is signed with two one-shot SHA-256 hashes (`crypto.hash`), RFC 2104's
 * construction. `createHmac` computes the same, but builds a stream object and has OpenSSL look the algorithm up for
 * every signature, which at one request in flight cost several microseconds more per request (BENCHMARKS.md, "The
 * client's cost at one request in flight (issue #26), seventh pass"). Every way signs identically;
 * `test/NodeSigner.test.ts` proves it on the RFC 4231 vectors and on generated input against `createHmac` and
 * WebCrypto.
 *
 * @since 0.1.0
 */
import { Signer } from "@spotkit/core"
import { Effect, Redacted } from "effect"
import type { Layer } from "effect"
import { Buffer } from "node:buffer"
import type { KeyObject } from "node:crypto"
import { createHmac, createSecretKey, hash } from "node:crypto"

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

// SHA-256's block size in bytes, and its digest size (RFC 2104: B and L).
const BLOCK = 64
const DIGEST = 32
// The message bytes a prepared key's buffer holds; a longer message (a large batch) gets a buffer of its own.
const ROOM = 16 * 1024

/**
 * `base64(HMAC-SHA256(secret, data))` with the secret prepared once: its UTF-8 bytes (hashed first when longer than a
 * block), padded and XORed with RFC 2104's inner and outer pads once, then for each text two one-shot hashes,
 * `SHA-256(outer ‖ SHA-256(inner ‖ data))`, the text written as UTF-8 after the inner pad in a buffer kept for it.
 * The same signature as `hmacBase64(hmacKey(secret), data)`.
 *
 * The padded key stays in the function's buffers, as the secret stays in the `Redacted` it came from; nothing of it is
 * ever written out.
 *
 * @since 0.1.0
 * @category primitives
 */
export const hmacSha256 = (secret: string): (data: string) => string => {
  const bytes = Buffer.from(secret, "utf8")
  const key = bytes.length > BLOCK ? hash("sha256", bytes, "buffer") : bytes
  const inner = Buffer.alloc(BLOCK + ROOM)
  const outer = Buffer.alloc(BLOCK + DIGEST)
  for (let i = 0; i < BLOCK; i++) {
    const byte = i < key.length ? key[i]! : 0
    inner[i] = byte ^ 0x36
    outer[i] = byte ^ 0x5c
  }
  return (data) => {
    let message: Buffer
    // A UTF-16 code unit is at most three UTF-8 bytes: a text that surely fits is written without counting first.
    if (data.length * 3 <= ROOM) message = inner.subarray(0, BLOCK + inner.write(data, BLOCK, "utf8"))
    else {
      message = Buffer.allocUnsafe(BLOCK + Buffer.byteLength(data, "utf8"))
      inner.copy(message, 0, 0, BLOCK)
      message.write(data, BLOCK, "utf8")
    }
    // The inner digest as a "binary" (latin1) text, one character per byte, written in place: a Buffer of it would be
    // made (a native buffer given its prototype) and copied.
    outer.write(hash("sha256", message, "binary"), BLOCK, "binary")
    return hash("sha256", outer, "base64")
  }
}

/**
 * HMAC-SHA256 over `node:crypto`; the secret is prepared once per client (`hmacSha256`).
 *
 * @since 0.1.0
 * @category implementations
 */
export const nodeCrypto: Signer.Service = {
  name: "node-crypto-hmac-sha256",
  prepare: (secretKey) =>
    Effect.sync(() => {
      const sign = hmacSha256(Redacted.value(secretKey))
      // Signed when called, answered as an exit: the client stamps the request in the same step (Signer.Sign).
      return (prehash: string) => Effect.succeed(sign(prehash))
    })
}

/**
 * Makes `SpotClient` sign with `node:crypto`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<never> = Signer.layer(nodeCrypto)
