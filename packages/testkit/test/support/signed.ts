/**
 * Requests for `TestExchange.handleAt`, signed per docs/venue/signing.md#signing with an HMAC computed here, independently of the
 * testkit's own signer, and the status an outcome answered.
 */
import { createHmac } from "node:crypto"
import type { TestExchange } from "../../src/index.ts"

export type Key = { readonly apiKey: string; readonly secretKey: string; readonly passphrase: string }

const request = (
  key: Key,
  method: "GET" | "POST",
  path: string,
  body: string,
  now: number
): TestExchange.WireRequest => {
  const headers: Record<string, string> = {
    "access-key": key.apiKey,
    "access-sign": createHmac("sha256", key.secretKey).update(`${now}${method}${path}${body}`).digest("base64"),
    "access-timestamp": String(now),
    "access-passphrase": key.passphrase,
    "content-type": "application/json"
  }
  return { method, path, header: (name) => headers[name], body, clientAddress: "127.0.0.1" }
}

/** A POST of `body` to `path`, signed by `key` at `now`. */
export const signed = (key: Key, path: string, body: string, now: number): TestExchange.WireRequest =>
  request(key, "POST", path, body, now)

/** A GET of `path` (with its `?query`, signed byte for byte as given), signed by `key` at `now`. */
export const signedGet = (key: Key, path: string, now: number): TestExchange.WireRequest =>
  request(key, "GET", path, "", now)

/** An unsigned request, as a public endpoint takes it. */
export const unsigned = (method: "GET" | "POST", path: string): TestExchange.WireRequest => ({
  method,
  path,
  header: () => undefined,
  body: "",
  clientAddress: "127.0.0.1"
})

export const statusOf = (outcome: TestExchange.Outcome): number | undefined =>
  outcome._tag === "Respond" ? outcome.status : undefined

/** The body an outcome answered; fails for a dropped or hung request. */
export const bodyOf = (outcome: TestExchange.Outcome): string => {
  if (outcome._tag !== "Respond") throw new Error(`no answer: ${outcome._tag}`)
  return outcome.body
}
