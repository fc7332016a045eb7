/**
 * Request signing (docs/venue/signing.md#signing): `ACCESS-SIGN = base64(HMAC-SHA256(secret, prehash))`, with the
 * prehash text and the header names of `Venue`.
 *
 * `Signer` is a replaceable service with a default: WebCrypto HMAC-SHA256, available on every platform. A platform
 * layer can provide a faster implementation (Node's `node:crypto`), and another algorithm (RSA) fits the same shape:
 * `prepare` turns the secret into a signing function once, so keys are imported once per client, not per request.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer, Redacted } from "effect"
import { Base64 } from "effect/encoding"

/**
 * The API credentials. Every part is `Redacted`, so none of them prints in logs, errors or spans.
 *
 * @since 0.1.0
 * @category models
 */
export interface Credentials {
  readonly apiKey: Redacted.Redacted<string>
  readonly secretKey: Redacted.Redacted<string>
  readonly passphrase: Redacted.Redacted<string>
}

/**
 * No credentials: for a client (and a push session) that reads public data only — the market, the symbols, the
 * venue's time, the public push channels. A signed call then fails before anything is sent, with a `ValidationError`
 * naming the credentials.
 *
 * @since 0.1.0
 * @category constructors
 */
export const noCredentials: Credentials = {
  apiKey: Redacted.make(""),
  secretKey: Redacted.make(""),
  passphrase: Redacted.make("")
}

/**
 * Signs one prehash string, answering the base64 signature. A synchronous signer may sign when called and answer
 * `Effect.succeed(signature)`: the client then stamps the request without a step of its own (node:crypto's does).
 *
 * @since 0.1.0
 * @category models
 */
export type Sign = (prehash: string) => Effect.Effect<string>

/**
 * The signing service.
 *
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /** A short name for diagnostics, e.g. `"webcrypto-hmac-sha256"`. */
  readonly name: string
  /** Prepares a signing function for a secret (imports the key once). */
  readonly prepare: (secretKey: Redacted.Redacted<string>) => Effect.Effect<Sign>
}

const encoder = new TextEncoder()

/**
 * HMAC-SHA256 over WebCrypto (`globalThis.crypto.subtle`).
 *
 * @since 0.1.0
 * @category implementations
 */
export const webCrypto: Service = {
  name: "webcrypto-hmac-sha256",
  prepare: (secretKey) =>
    Effect.map(
      Effect.promise(() =>
        globalThis.crypto.subtle.importKey(
          "raw",
          encoder.encode(Redacted.value(secretKey)),
          { name: "HMAC", hash: "SHA-256" },
          false,
          ["sign"]
        )
      ),
      (key): Sign => (prehash) =>
        Effect.map(
          Effect.promise(() => globalThis.crypto.subtle.sign("HMAC", key, encoder.encode(prehash))),
          (signature) => Base64.encode(new Uint8Array(signature))
        )
    )
}

/**
 * The signing service; WebCrypto HMAC-SHA256 unless another is provided.
 *
 * @since 0.1.0
 * @category services
 */
export const Signer: Context.Reference<Service> = Context.Reference<Service>("@spotkit/core/Signer", {
  defaultValue: () => webCrypto
})

/**
 * Provides another signing implementation.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (service: Service): Layer.Layer<never> => Layer.succeed(Signer, service)
