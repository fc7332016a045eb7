// HMAC-SHA256 over node:crypto for the push side, written here so that the venue's check and the in-process client's
// signature depend on nothing but node:crypto: the venue verifies a private handshake (`timestamp + "/v2/ws/private"`)
// in time that does not depend on where a wrong signature differs, and `PushVenue.layerSpotPush`'s client signs
// synchronously (WebCrypto's asynchronous signing would make a `TestClock` run depend on the machine's load).
import type { Signer } from "@spotkit/core"
import { Effect, Redacted } from "effect"
import { Buffer } from "node:buffer"
import type { KeyObject } from "node:crypto"
import { createHmac, createSecretKey, timingSafeEqual } from "node:crypto"

export const hmacKey = (secret: string): KeyObject => createSecretKey(Buffer.from(secret, "utf8"))

export const sign = (key: KeyObject, text: string): string =>
  createHmac("sha256", key).update(text, "utf8").digest("base64")

/** Whether two texts are equal, in time that depends on their lengths only. */
export const equal = (given: string, expected: string): boolean => {
  const a = Buffer.from(given, "utf8")
  const b = Buffer.from(expected, "utf8")
  return timingSafeEqual(a.length === b.length ? a : b, b) && a.length === b.length
}

export const clientSigner: Signer.Service = {
  name: "testkit-push-node-crypto-hmac-sha256",
  prepare: (secretKey) =>
    Effect.sync(() => {
      const key = hmacKey(Redacted.value(secretKey))
      return (prehash: string) => Effect.sync(() => sign(key, prehash))
    })
}
