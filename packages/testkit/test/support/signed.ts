/**
 * Requests for `TestExchange.handleAt`, signed per DESIGN §3 with an HMAC computed here, independently of the
 * testkit's own signer, and the status an outcome answered.
 */
import { createHmac } from "node:crypto"
import type { TestExchange } from "../../src/index.ts"

export type Key = { readonly apiKey: string; readonly secretKey: string; readonly passphrase: string }

/** A POST of `body` to `path`, signed by `key` at `now`. */
export const signed = (key: Key, path: string, body: string, now: number): TestExchange.WireRequest => {
  const headers: Record<string, string> = {
    "access-key": key.apiKey,
    "access-sign": createHmac("sha256", key.secretKey).update(`${now}POST${path}${body}`).digest("base64"),
    "access-timestamp": String(now),
    "access-passphrase": key.passphrase,
    "content-type": "application/json"
  }
  return { method: "POST", path, header: (name) => headers[name], body, clientAddress: "127.0.0.1" }
}

export const statusOf = (outcome: TestExchange.Outcome): number | undefined =>
  outcome._tag === "Respond" ? outcome.status : undefined
