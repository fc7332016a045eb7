// Authentication (docs/venue/signing.md): the API keys the exchange knows, and the checks of a signed request in the
// venue's order: headers present (40001, 40002, 40003, 40011), JSON content type (40007), timestamp well formed
// (40005), key known (40006), passphrase (40012), timestamp within the window (40008), signature over the bytes
// received (40009), the permission the endpoint declares (40014), and, for a request a replay of which would place or
// move again (the router says which), that this key, timestamp and signature were not admitted before within the
// window (40409: an exact replay). A request is remembered
// only once admitted (`admitted`, after the rate limits): one refused with 429 was not processed and may be sent again.
import { Venue } from "@spotkit/core"
import type { KeyObject } from "node:crypto"
import { EngineError } from "../engine/errors.ts"
import { hmacKey, signatureOf } from "./signature.ts"
import { refusal } from "./wire.ts"
import type { Refusal, WireRequest } from "./wire.ts"

/** An API key and what it may do. */
export interface ApiKey {
  readonly apiKey: string
  readonly secretKey: string
  readonly passphrase: string
  readonly userId: string
  /** @default ["read", "trade", "transfer"] */
  readonly permissions?: ReadonlyArray<Venue.Permission> | undefined
}

const ALL: ReadonlyArray<Venue.Permission> = ["read", "trade", "transfer"]

// The signed headers, as the transports hand them in (lower case).
const KEY = Venue.headers.key.toLowerCase()
const SIGN = Venue.headers.sign.toLowerCase()
const TIMESTAMP = Venue.headers.timestamp.toLowerCase()
const PASSPHRASE = Venue.headers.passphrase.toLowerCase()

const present = (value: string | undefined): value is string => value !== undefined && value !== ""

/** The refusals that say a credential was wrong: what someone guessing keys, passphrases or secrets meets. */
export const FAILED_CREDENTIALS: ReadonlySet<string> = new Set(["40006", "40009", "40012"])

/** An authenticated caller; `replay`: how `Auth.admitted` remembers a request whose replay is refused. */
export interface Caller {
  readonly userId: string
  readonly apiKey: string
  readonly replay: { readonly id: string; readonly closes: number } | undefined
}

export class Auth {
  private readonly keys = new Map<string, ApiKey>()
  // HMAC keys imported once per secret, not per request.
  private readonly hmacKeys = new Map<string, KeyObject>()
  private readonly windowMillis: number
  // The signed requests good once that may still be replayed (their timestamp within the window), by key,
  // timestamp and signature, with the time after which the window refuses them anyway; in the order they came.
  private readonly seen = new Map<string, number>()
  private seenOrder: Array<string> = []
  private seenHead = 0

  /** `windowMillis`: how far a request timestamp may be from server time. */
  constructor(windowMillis: number) {
    this.windowMillis = windowMillis
  }

  /** The request's API key when the exchange knows it, else `""`: whose failed authentications it counts among. */
  knownKey(request: WireRequest): string {
    const apiKey = request.header(KEY)
    return apiKey !== undefined && this.keys.has(apiKey) ? apiKey : ""
  }

  addKey(key: ApiKey): void {
    if (this.keys.has(key.apiKey)) throw new EngineError("api key exists")
    this.keys.set(key.apiKey, key)
  }

  /** A key the exchange knows (for the push venue's handshakes). */
  key(apiKey: string): ApiKey | undefined {
    return this.keys.get(apiKey)
  }

  /**
   * The caller of a signed request to an endpoint that needs `permission`, or why it is refused. `once`: a replay of
   * the request would place or move again, so its signature is good once (a replay of an admitted one within the window is refused); the
   * caller's `replay` is what `admitted` remembers.
   */
  authenticate(
    request: WireRequest,
    permission: Venue.Permission,
    now: number,
    once = false
  ): Caller | Refusal {
    const apiKey = request.header(KEY)
    const sign = request.header(SIGN)
    const timestamp = request.header(TIMESTAMP)
    const passphrase = request.header(PASSPHRASE)
    if (!present(apiKey)) return refusal("40001")
    if (!present(sign)) return refusal("40002")
    if (!present(timestamp)) return refusal("40003")
    if (!present(passphrase)) return refusal("40011")
    const contentType = request.header("content-type")
    if (contentType === undefined || !/^application\/json\s*(;|$)/i.test(contentType)) return refusal("40007")
    // Any millisecond count is well formed (a TestClock starts at 0); the window check judges its value.
    if (!/^\d{1,16}$/.test(timestamp)) return refusal("40005")
    const key = this.keys.get(apiKey)
    if (key === undefined) return refusal("40006")
    if (!constantTimeEqual(passphrase, key.passphrase)) return refusal("40012")
    if (Math.abs(now - Number(timestamp)) > this.windowMillis) return refusal("40008")
    const secret = this.keyOf(key.secretKey)
    // The path and query as received: Node's parser takes only ASCII in a request's target, so this text is its bytes.
    const expected = request.bodyBytes === undefined
      ? signatureOf(secret, Venue.prehash(timestamp, request.method, request.path, request.body))
      : signatureOf(secret, Venue.prehash(timestamp, request.method, request.path, ""), request.bodyBytes)
    if (!constantTimeEqual(sign, expected)) return refusal("40009")
    if (!(key.permissions ?? ALL).includes(permission)) return refusal("40014")
    if (!once) return { userId: key.userId, apiKey, replay: undefined }
    const replay = { id: `${apiKey}\n${timestamp}\n${sign}`, closes: Number(timestamp) + this.windowMillis }
    if (this.replayed(replay.id, now)) return refusal("40409")
    return { userId: key.userId, apiKey, replay }
  }

  /** Remembers an authenticated request as admitted (past the rate limits): from now on a replay of it is refused. */
  admitted(caller: Caller): void {
    if (caller.replay === undefined) return
    this.seen.set(caller.replay.id, caller.replay.closes)
    this.seenOrder.push(caller.replay.id)
  }

  /** Forgets every signature seen. */
  clearReplays(): void {
    this.seen.clear()
    this.seenOrder = []
    this.seenHead = 0
  }

  // Whether the request was admitted before and its window is still open.
  private replayed(id: string, now: number): boolean {
    // Entries whose window closed go, oldest first (an entry that closes later can hold back a few behind it for at
    // most twice the window).
    while (this.seenHead < this.seenOrder.length) {
      const oldest = this.seenOrder[this.seenHead]!
      const closed = this.seen.get(oldest)
      if (closed !== undefined && closed >= now) break
      this.seen.delete(oldest)
      this.seenHead++
    }
    if (this.seenHead > 1024 && this.seenHead * 2 > this.seenOrder.length) {
      this.seenOrder = this.seenOrder.slice(this.seenHead)
      this.seenHead = 0
    }
    const known = this.seen.get(id)
    return known !== undefined && known >= now
  }

  private keyOf(secret: string): KeyObject {
    let key = this.hmacKeys.get(secret)
    if (key === undefined) {
      key = hmacKey(secret)
      this.hmacKeys.set(secret, key)
    }
    return key
  }
}

// Compares in time that depends on the lengths only, never on where the strings first differ; no allocation.
// Exported for the test that counts its character reads.
export const constantTimeEqual = (given: string, expected: string): boolean => {
  let difference = given.length ^ expected.length
  for (let i = 0; i < expected.length; i++) {
    difference |= (given.charCodeAt(i % Math.max(1, given.length)) | 0) ^ expected.charCodeAt(i)
  }
  return difference === 0 && given.length === expected.length
}
