// The exchange's own check of `ACCESS-SIGN`: base64(HMAC-SHA256(secret, prehash)) over node:crypto, written apart
// from the client's signers (core's WebCrypto default, the Node package's node:crypto one) and sharing no code with
// them, so that a signing bug on either side shows on the other instead of agreeing with itself.
// test/signature.test.ts holds it to published HMAC-SHA256 vectors and to signatures computed by openssl.
import { Buffer } from "node:buffer"
import type { KeyObject } from "node:crypto"
import { createHmac, createSecretKey } from "node:crypto"

/** The HMAC key of an API secret (its UTF-8 bytes), imported once per secret. */
export const hmacKey = (secret: string): KeyObject => createSecretKey(Buffer.from(secret, "utf8"))

/**
 * The signature of a request: HMAC-SHA256 over `text` as UTF-8, then `bytes` as they are (a body as received), in
 * base64.
 */
export const signatureOf = (key: KeyObject, text: string, bytes?: Uint8Array | undefined): string => {
  const hmac = createHmac("sha256", key).update(text, "utf8")
  if (bytes !== undefined) hmac.update(bytes)
  return hmac.digest("base64")
}
