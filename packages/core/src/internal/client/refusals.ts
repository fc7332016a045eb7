// What a client's options could never be sent with, found once when the client is made (pipeline.ts `make`; its
// `execute` fails such a request with the refusal before any stage): a locale, API key or passphrase no header can
// carry, a secret key that is empty or only whitespace. The push handshake refuses the same secret keys (handshake.ts).
import { Redacted } from "effect"
import type * as Signer from "../../Signer.ts"
import * as SpotError from "../../SpotError.ts"
import * as Venue from "../../Venue.ts"

// The options that go into headers, checked once: a value no header can carry (a line break, a character other than
// printable ASCII) fails every request that would carry it with a ValidationError, before anything is sent, rather
// than as the transport's refusal (a defect on node:http, a TransportError on undici) or half a header.
export interface Refusals {
  readonly public: SpotError.ValidationError | undefined
  readonly signed: SpotError.ValidationError | undefined
}

export const refusalsOf = (
  options: { readonly locale: string; readonly credentials: Signer.Credentials }
): Refusals => {
  const refusal = (field: string, value: string) => {
    const problem = Venue.headerValueProblem(value)
    return problem === undefined ? undefined : new SpotError.ValidationError({ field, description: problem })
  }
  const locale = refusal("locale", options.locale)
  return {
    public: locale,
    signed: locale ??
      refusal("credentials.apiKey", Redacted.value(options.credentials.apiKey)) ??
      refusal("credentials.passphrase", Redacted.value(options.credentials.passphrase)) ??
      emptySecretRefusal(options.credentials)
  }
}

/**
 * An empty secret key (an empty `SPOTKIT_SECRET_KEY`), which signs nothing the venue accepts and which WebCrypto
 * refuses to import (a defect, when the client is built), or one of whitespace only (a variable set to " "): a
 * configuration mistake, which would sign every request for the venue to refuse it. Every signed request fails with a
 * ValidationError instead, before anything is sent.
 */
export const emptySecretRefusal = (credentials: Signer.Credentials): SpotError.ValidationError | undefined => {
  const secret = Redacted.value(credentials.secretKey)
  if (secret === "") return new SpotError.ValidationError({ field: "credentials.secretKey", description: "is empty" })
  return /^\s+$/.test(secret)
    ? new SpotError.ValidationError({ field: "credentials.secretKey", description: "is only whitespace" })
    : undefined
}
