// The venue's HTTP protocol over the engine: routing, authentication (DESIGN §3 signing, 30 s window, codes),
// rate limits (DESIGN §4), envelopes and status codes, fault injection. Synchronous: a request and the time in, an
// outcome out; the transports (in-process HttpClient, loopback server) only carry bytes.
import { Result } from "effect"
import { Buffer } from "node:buffer"
import type { KeyObject } from "node:crypto"
import { createHmac, createSecretKey } from "node:crypto"
import type * as Engine from "../Engine.ts"
import type * as Fault from "../Fault.ts"
import type { Budget } from "./limits.ts"
import { Limits } from "./limits.ts"
import { prng } from "./prng.ts"

export interface WireRequest {
  readonly method: string
  /** Path with `?query`, as signed. */
  readonly path: string
  /** Header value by lower-case name. */
  readonly header: (name: string) => string | undefined
  readonly body: string
  /** The transport stopped reading a body larger than the limit. */
  readonly bodyTooLarge?: boolean | undefined
  readonly clientAddress: string
}

export type Outcome =
  | {
    readonly _tag: "Respond"
    readonly status: number
    readonly contentType: string
    readonly body: string
    readonly delayMillis: number
  }
  | { readonly _tag: "Drop"; readonly delayMillis: number }
  | { readonly _tag: "Hang" }

export interface RequestRecord {
  readonly time: number
  readonly method: string
  readonly path: string
  readonly body: string
  /** The user of a valid API key, if any. */
  readonly userId: string | undefined
  /** HTTP status answered; undefined when the connection dropped or hung. */
  readonly status: number | undefined
  /** Venue code answered, if any. */
  readonly code: string | undefined
  readonly fault: Fault.Fault["_tag"] | undefined
}

export interface RateLimits {
  readonly placeOrder: Budget
  readonly placeOrders: Budget
  readonly openOrders: Budget
  readonly internalTransfer: Budget
  /** Weight budget of the bills endpoint per key and, separately, per client address. */
  readonly fundingBills: Budget
  readonly fundingBillsWeight: number
}

export const defaultRateLimits: RateLimits = {
  placeOrder: { limit: 10, windowMillis: 1000 },
  placeOrders: { limit: 10, windowMillis: 1000 },
  openOrders: { limit: 10, windowMillis: 1000 },
  internalTransfer: { limit: 10, windowMillis: 1000 },
  fundingBills: { limit: 500, windowMillis: 10_000 },
  fundingBillsWeight: 5
}

export interface ProtocolOptions {
  readonly rateLimits: RateLimits | false
  /** How far a request timestamp may be from server time (ms). */
  readonly windowMillis: number
  readonly maxBodyBytes: number
  /** How many request records to keep (oldest dropped first). */
  readonly requestLogSize: number
  readonly seed: number
}

export const paths = {
  placeOrder: "/api/v2/trade/orders",
  placeOrders: "/api/v2/trade/batch-orders",
  openOrders: "/api/v2/trade/open-orders",
  fundingBills: "/api/v2/account/fundingBills",
  internalTransfer: "/api/v2/rebate/affiliate/internalWithdrawal",
  products: "/products"
} as const

type Endpoint = keyof typeof paths
type Signed = Exclude<Endpoint, "products">

const endpointByPath = new Map<string, Endpoint>(
  Object.entries(paths).map(([name, path]) => [path, name as Endpoint])
)

const permissionOf: Record<Signed, "read" | "trade" | "transfer"> = {
  placeOrder: "trade",
  placeOrders: "trade",
  openOrders: "read",
  fundingBills: "read",
  internalTransfer: "transfer"
}

const BATCH_LIMIT = 50

/** A JSON number kept as its exact source text, so that a field's type and a 64-bit value both survive parsing. */
class WireNumber {
  readonly source: string
  constructor(source: string) {
    this.source = source
  }
}

interface ReviverContext {
  readonly source?: string
}

const reviver = (_key: string, value: unknown, context?: ReviverContext): unknown =>
  typeof value === "number" ? new WireNumber(context?.source ?? String(value)) : value

// Bodies with no number literal at all (single orders) skip the reviver.
const HAS_NUMBER = /[:[,]\s*-?\d/

type Json = { readonly [key: string]: unknown }

/** A failed parameter check: the venue's code and message. */
class Refusal {
  readonly code: string
  readonly msg: string
  readonly status: number
  constructor(code: string, msg: string, status = 400) {
    this.code = code
    this.msg = msg
    this.status = status
  }
}

const empty = (name: string) => new Refusal("40019", `Parameter ${name} cannot be empty`)
const wrong = (name: string) => new Refusal("40020", `Parameter ${name} error`)

const stringField = (body: Json, name: string, required: boolean): string | undefined | Refusal => {
  const value = body[name]
  if (value === undefined || value === null || value === "") return required ? empty(name) : undefined
  return typeof value === "string" ? value : wrong(name)
}

/** An integer field: a JSON number or a string of digits, within [min, max]. */
const integerField = (body: Json, name: string, min: number, max: number): number | undefined | Refusal => {
  const value = body[name]
  if (value === undefined || value === null || value === "") return undefined
  const text = value instanceof WireNumber ? value.source : typeof value === "string" ? value : undefined
  if (text === undefined || !/^-?\d{1,16}$/.test(text)) return wrong(name)
  const n = Number(text)
  return Number.isSafeInteger(n) && n >= min && n <= max ? n : wrong(name)
}

/** A 64-bit id: a JSON number or a digit string, kept as exact digits. */
const longField = (body: Json, name: string): string | Refusal => {
  const value = body[name]
  if (value === undefined || value === null || value === "") return empty(name)
  const text = value instanceof WireNumber ? value.source : typeof value === "string" ? value : undefined
  return text !== undefined && /^\d{1,20}$/.test(text) ? text.replace(/^0+(?=\d)/, "") : wrong(name)
}

const quote = JSON.stringify

const HTML_PAGE = (status: number) =>
  `<html><head><title>${status}</title></head><body><center><h1>${status} Error</h1></center><hr>` +
  `<center>upstream</center></body></html>`

const afterApplying = (fault: Fault.Fault): boolean => fault._tag === "AppliedLost" || fault._tag === "Truncated"

export class Protocol {
  readonly engine: Engine.Engine
  readonly options: ProtocolOptions
  private readonly limits = new Limits()
  // HMAC keys imported once per secret, not per request.
  private readonly hmacKeys = new Map<string, KeyObject>()
  private rules: Array<{ rule: Fault.Rule; left: number }> = []
  // A ring of the latest `requestLogSize` records: `log[next]` is the oldest once the ring is full.
  private log: Array<RequestRecord> = []
  private next = 0
  private readonly random: () => number

  constructor(engine: Engine.Engine, options: ProtocolOptions) {
    this.engine = engine
    this.options = options
    this.random = prng(options.seed ^ 0x5EED)
  }

  // -------------------------------------------------------------------------------------------------------------
  // Faults and the request log

  /** Adds a rule; answers why it is invalid instead, if it is. */
  inject(rule: Fault.Rule): string | undefined {
    const fault = rule.fault
    const status = fault._tag === "HttpError" || fault._tag === "VenueError" ? fault.status : 200
    if (!Number.isInteger(status) || status < 100 || status > 599) return `HTTP status ${status} is not in 100..599`
    if (fault._tag === "Latency" && !(fault.millis >= 0 && Number.isFinite(fault.millis))) {
      return `latency ${fault.millis} is not a finite non-negative number of milliseconds`
    }
    if (rule.share !== undefined && !(rule.share >= 0 && rule.share <= 1)) return `share ${rule.share} is not in 0..1`
    if (rule.times !== undefined && !(Number.isInteger(rule.times) && rule.times >= 0)) {
      return `times ${rule.times} is not a non-negative integer`
    }
    // "The next 0 requests" is no fault at all.
    if (rule.times === 0) return undefined
    this.rules.push({ rule, left: rule.times ?? Infinity })
    return undefined
  }

  clearFaults(): void {
    this.rules = []
  }

  clearRateLimits(): void {
    this.limits.clear()
  }

  requests(): ReadonlyArray<RequestRecord> {
    return this.log.length < this.options.requestLogSize
      ? this.log.slice()
      : [...this.log.slice(this.next), ...this.log.slice(0, this.next)]
  }

  clearRequests(): void {
    this.log = []
    this.next = 0
  }

  // The rule that strikes this request, if any. A rule whose fault acts only on an applied request (the answer is
  // truncated or lost after the venue acted) is used up only when the request is applied: see `spend`.
  private nextFault(path: string): { readonly fault: Fault.Fault; readonly entry: { left: number } } | undefined {
    for (let i = 0; i < this.rules.length; i++) {
      const entry = this.rules[i]!
      const rule = entry.rule
      if (rule.path !== undefined && rule.path !== path) continue
      if (rule.share !== undefined && this.random() >= rule.share) continue
      if (!afterApplying(rule.fault)) this.spend(entry)
      return { fault: rule.fault, entry }
    }
    return undefined
  }

  private spend(entry: { left: number }): void {
    entry.left--
    if (entry.left <= 0) this.rules = this.rules.filter((e) => e !== entry)
  }

  private record(record: RequestRecord): void {
    if (this.options.requestLogSize <= 0) return
    if (this.log.length < this.options.requestLogSize) {
      this.log.push(record)
      return
    }
    this.log[this.next] = record
    this.next = (this.next + 1) % this.options.requestLogSize
  }

  // -------------------------------------------------------------------------------------------------------------
  // Handling

  handle(request: WireRequest, now: number): Outcome {
    const queryAt = request.path.indexOf("?")
    const path = queryAt < 0 ? request.path : request.path.slice(0, queryAt)
    const endpoint = endpointByPath.get(path)
    const strike = endpoint === undefined || endpoint === "products" ? undefined : this.nextFault(path)
    const fault = strike?.fault
    // Whether the fault acted on this request (one that acts after applying does not act on a refused request).
    let acted = fault !== undefined && !afterApplying(fault)
    // The user is known once the request authenticates; records made before say undefined.
    const caller: { userId: string | undefined } = { userId: undefined }
    const finish = (outcome: Outcome, code: string | undefined): Outcome => {
      this.record({
        time: now,
        method: request.method,
        path: request.path,
        body: request.body.length > 4096 ? request.body.slice(0, 4096) : request.body,
        userId: caller.userId,
        status: outcome._tag === "Respond" ? outcome.status : undefined,
        code,
        fault: acted ? fault?._tag : undefined
      })
      return outcome
    }
    const respond = (status: number, body: string, delayMillis = 0, contentType = "application/json"): Outcome => ({
      _tag: "Respond",
      status,
      contentType,
      body,
      delayMillis
    })
    // A latency fault delays whatever the venue answers, refusals included.
    const delay = fault?._tag === "Latency" ? fault.millis : 0
    const refuse = (refusal: Refusal): Outcome =>
      finish(respond(refusal.status, this.envelope(refusal.code, refusal.msg, now, "null"), delay), refusal.code)

    if (fault !== undefined) {
      switch (fault._tag) {
        case "HttpError":
          return finish(respond(fault.status, HTML_PAGE(fault.status), 0, "text/html"), undefined)
        case "RateLimited":
          return refuse(new Refusal("429", "Too Many Requests", 429))
        case "VenueError":
          return refuse(new Refusal(fault.code, fault.msg, fault.status))
        case "Drop":
          return finish({ _tag: "Drop", delayMillis: 0 }, undefined)
        case "Timeout":
          return finish({ _tag: "Hang" }, undefined)
        case "Malformed":
          return finish(respond(200, "<html>upstream answered garbage</html>", 0, "text/html"), undefined)
        default:
          break
      }
    }

    if (endpoint === undefined) return refuse(new Refusal("40404", "Request URL NOT FOUND", 404))
    if (endpoint === "products") {
      if (request.method !== "GET" && request.method !== "POST") {
        return refuse(new Refusal("40405", "Method Not Allowed", 405))
      }
      return finish(respond(200, this.envelope("00000", "success", now, quote(this.engine.productList()))), "00000")
    }
    if (request.method !== "POST") return refuse(new Refusal("40405", "Method Not Allowed", 405))
    const max = this.options.maxBodyBytes
    // The limit is in UTF-8 bytes, as a socket counts them; a body of n code units has at most 3n bytes.
    const tooLarge = request.bodyTooLarge === true || request.body.length > max ||
      (request.body.length * 3 > max && Buffer.byteLength(request.body, "utf8") > max)
    if (tooLarge) {
      return refuse(new Refusal("40017", "Request body too large", 413))
    }

    const auth = this.authenticate(request, endpoint, now)
    if (auth instanceof Refusal) return refuse(auth)
    caller.userId = auth.userId

    const limited = this.rateLimited(endpoint, auth.apiKey, request.clientAddress, now)
    if (limited) return refuse(new Refusal("429", "Too Many Requests", 429))

    const body = this.parse(request.body)
    if (body instanceof Refusal) return refuse(body)

    const result = this.dispatch(endpoint, auth.userId, body, now)
    if (result instanceof Refusal) return refuse(result)
    const code = endpoint === "internalTransfer" ? "200" : "00000"
    if (strike !== undefined && afterApplying(strike.fault)) {
      this.spend(strike.entry)
      acted = true
      if (strike.fault._tag === "AppliedLost") return finish({ _tag: "Drop", delayMillis: 0 }, code)
      return finish(respond(200, result.slice(0, Math.max(1, Math.floor(result.length / 2)))), code)
    }
    return finish(respond(200, result, delay), code)
  }

  private envelope(code: string, msg: string, now: number, data: string): string {
    return `{"code":${quote(code)},"msg":${quote(msg)},"requestTime":${now},"data":${data}}`
  }

  private parse(text: string): Json | Refusal {
    const parsed = parseJson(text)
    if (Result.isFailure(parsed)) return new Refusal("40017", "Parameter verification failed")
    const value = parsed.success
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      return new Refusal("40017", "Parameter verification failed")
    }
    return value as Json
  }

  private authenticate(
    request: WireRequest,
    endpoint: Signed,
    now: number
  ): { readonly userId: string; readonly apiKey: string } | Refusal {
    const apiKey = request.header("access-key")
    const sign = request.header("access-sign")
    const timestamp = request.header("access-timestamp")
    const passphrase = request.header("access-passphrase")
    if (apiKey === undefined || apiKey === "") return new Refusal("40001", "ACCESS_KEY cannot be empty")
    if (sign === undefined || sign === "") return new Refusal("40002", "ACCESS_SIGN cannot be empty")
    if (timestamp === undefined || timestamp === "") return new Refusal("40003", "ACCESS_TIMESTAMP cannot be empty")
    if (passphrase === undefined || passphrase === "") return new Refusal("40011", "ACCESS_PASSPHRASE cannot be empty")
    const contentType = request.header("content-type")
    if (contentType === undefined || !/^application\/json\s*(;|$)/i.test(contentType)) {
      return new Refusal("40007", "Invalid Content_Type, please use \"application/json\"")
    }
    // Any millisecond count is well formed (a TestClock starts at 0); the window check judges its value.
    if (!/^\d{1,16}$/.test(timestamp)) return new Refusal("40005", "Invalid ACCESS_TIMESTAMP")
    const key = this.engine.apiKey(apiKey)
    if (key === undefined) return new Refusal("40006", "Invalid ACCESS_KEY")
    if (!constantTimeEqual(passphrase, key.passphrase)) return new Refusal("40012", "apikey/password is incorrect")
    if (Math.abs(now - Number(timestamp)) > this.options.windowMillis) {
      return new Refusal("40008", "Request timestamp expired")
    }
    let hmacKey = this.hmacKeys.get(key.secretKey)
    if (hmacKey === undefined) {
      hmacKey = createSecretKey(Buffer.from(key.secretKey, "utf8"))
      this.hmacKeys.set(key.secretKey, hmacKey)
    }
    const expected = createHmac("sha256", hmacKey)
      .update(timestamp + request.method.toUpperCase() + request.path + request.body)
      .digest("base64")
    if (!constantTimeEqual(sign, expected)) return new Refusal("40009", "sign signature error")
    const permissions = key.permissions ?? ["read", "trade", "transfer"]
    if (!permissions.includes(permissionOf[endpoint])) return new Refusal("40014", "Incorrect permissions")
    return { userId: key.userId, apiKey }
  }

  private rateLimited(endpoint: Signed, apiKey: string, address: string, now: number): boolean {
    const limits = this.options.rateLimits
    if (limits === false) return false
    if (endpoint === "fundingBills") {
      const weight = limits.fundingBillsWeight
      // Both budgets must have room, and a refused request charges neither.
      const byKey = `bills:key:${apiKey}`
      const byAddress = `bills:ip:${address}`
      if (!this.limits.hasRoom(byKey, now, weight, limits.fundingBills)) return true
      if (!this.limits.hasRoom(byAddress, now, weight, limits.fundingBills)) return true
      this.limits.take(byKey, now, weight, limits.fundingBills)
      this.limits.take(byAddress, now, weight, limits.fundingBills)
      return false
    }
    return !this.limits.take(`${endpoint}:${apiKey}`, now, 1, limits[endpoint])
  }

  // `/products` is public and answered before authentication.
  private dispatch(endpoint: Signed, userId: string, body: Json, now: number): string | Refusal {
    switch (endpoint) {
      case "placeOrder":
        return this.placeOrder(userId, body, now)
      case "placeOrders":
        return this.placeOrders(userId, body, now)
      case "openOrders":
        return this.openOrders(userId, body, now)
      case "fundingBills":
        return this.fundingBills(userId, body, now)
      case "internalTransfer":
        return this.transfer(userId, body, now)
    }
  }

  private orderRequest(body: Json, symbol: string | undefined): Engine.OrderRequest | Refusal {
    const fields: Record<string, string | undefined> = {}
    for (const name of ["symbol", "side", "orderType", "force", "price", "quantity", "clientOrderId"]) {
      if (name === "symbol" && symbol !== undefined) continue
      const value = stringField(body, name, name !== "price")
      if (value instanceof Refusal) return value
      fields[name] = value
    }
    return {
      symbol: symbol ?? fields.symbol!,
      side: fields.side!,
      orderType: fields.orderType!,
      force: fields.force!,
      price: fields.price,
      quantity: fields.quantity!,
      clientOrderId: fields.clientOrderId!
    }
  }

  private placeOrder(userId: string, body: Json, now: number): string | Refusal {
    const request = this.orderRequest(body, undefined)
    if (request instanceof Refusal) return request
    const placed = this.engine.placeOrder(userId, request, now)
    if (!placed.ok) return new Refusal(placed.code, placed.msg)
    return this.envelope(
      "00000",
      "success",
      now,
      `{"orderId":${placed.orderId},"clientOrderId":${quote(placed.clientOrderId)}}`
    )
  }

  private placeOrders(userId: string, body: Json, now: number): string | Refusal {
    const symbol = stringField(body, "symbol", true)
    if (symbol instanceof Refusal) return symbol
    const list = body.orderList
    if (list === undefined || list === null) return empty("orderList")
    if (!Array.isArray(list) || list.length === 0 || list.length > BATCH_LIMIT) return wrong("orderList")
    const results: Array<string> = []
    const failures: Array<string> = []
    for (const item of list as ReadonlyArray<unknown>) {
      const itemBody = typeof item === "object" && item !== null && !Array.isArray(item) ? item as Json : {}
      const cid = typeof itemBody.clientOrderId === "string" ? itemBody.clientOrderId : ""
      const request = this.orderRequest(itemBody, symbol!)
      const placed = request instanceof Refusal
        ? { ok: false as const, code: request.code, msg: request.msg }
        : this.engine.placeOrder(userId, request, now)
      if (placed.ok) {
        results.push(`{"orderId":${placed.orderId},"clientOrderId":${quote(placed.clientOrderId)}}`)
      } else {
        failures.push(
          `{"clientOrderId":${quote(cid)},"errorCode":${quote(placed.code)},"errorMsg":${quote(placed.msg)}}`
        )
      }
    }
    return this.envelope(
      "00000",
      "success",
      now,
      `{"resultList":[${results.join(",")}],"failure":[${failures.join(",")}]}`
    )
  }

  private openOrders(userId: string, body: Json, now: number): string | Refusal {
    const symbol = stringField(body, "symbol", true)
    if (symbol instanceof Refusal) return symbol
    const limit = integerField(body, "limit", 1, 100)
    if (limit instanceof Refusal) return limit
    const pageNo = integerField(body, "pageNo", 0, 1_000_000_000)
    if (pageNo instanceof Refusal) return pageNo
    if (!this.engine.hasProduct(symbol!)) return new Refusal("40102", "Symbol does not exist")
    const orders = this.engine.openOrders(userId, symbol!, pageNo ?? 0, limit ?? 100).map((o) => ({
      accountId: o.accountId,
      symbol: o.symbol,
      orderId: o.orderId,
      clientOrderId: o.clientOrderId,
      price: o.price,
      quantity: o.quantity,
      orderType: o.orderType,
      side: o.side,
      status: o.status,
      latestFillPrice: o.latestFillPrice,
      maxFillPrice: o.maxFillPrice,
      minFillPrice: o.minFillPrice,
      fillQuantity: o.fillQuantity,
      fillTotalAmount: o.fillTotalAmount,
      cTime: o.cTime,
      uTime: o.uTime
    }))
    return this.envelope(
      "00000",
      "success",
      now,
      `{"orderInfoResultList":${quote(orders)},"nextPage":null,"totals":null}`
    )
  }

  private fundingBills(userId: string, body: Json, now: number): string | Refusal {
    const coinId = integerField(body, "coinId", 0, 2_147_483_647)
    if (coinId instanceof Refusal) return coinId
    const startTime = integerField(body, "startTime", 0, Number.MAX_SAFE_INTEGER)
    if (startTime instanceof Refusal) return startTime
    const endTime = integerField(body, "endTime", 0, Number.MAX_SAFE_INTEGER)
    if (endTime instanceof Refusal) return endTime
    const pageIndex = integerField(body, "pageIndex", 1, 1_000_000_000)
    if (pageIndex instanceof Refusal) return pageIndex
    const pageSize = integerField(body, "pageSize", 1, 100)
    if (pageSize instanceof Refusal) return pageSize
    const page = this.engine.fundingBillsJson(userId, { coinId, startTime, endTime, pageIndex, pageSize })
    return this.envelope("00000", "success", now, page)
  }

  private transfer(userId: string, body: Json, now: number): string | Refusal {
    const toUserId = longField(body, "toUserId")
    if (toUserId instanceof Refusal) return toUserId
    const fields: Record<string, string> = {}
    for (const name of ["coin", "amount", "fromAccountType", "toAccountType"]) {
      const value = stringField(body, name, true)
      if (value instanceof Refusal) return value
      fields[name] = value!
    }
    const done = this.engine.transfer(userId, {
      toUserId,
      coin: fields.coin!,
      amount: fields.amount!,
      fromAccountType: fields.fromAccountType!,
      toAccountType: fields.toAccountType!
    }, now)
    if (!done.ok) return new Refusal(done.code, done.msg)
    return `{"code":"200","id":${quote(done.id)},"timestamp":${now}}`
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

// Lossless parse: the reviver only runs when the body holds a number literal (single orders have none).
const parseJson = (text: string): Result.Result<unknown, unknown> =>
  Result.try(() => HAS_NUMBER.test(text) ? JSON.parse(text, reviver as never) : JSON.parse(text))
