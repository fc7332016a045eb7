/**
 * The one error type of spotkit. A `SpotError` names the operation that failed and carries a `reason`: a tagged
 * value saying what went wrong, whether a retry may help (`isRetryable`) and, when the venue answered, its `code`,
 * `msg` and `requestTime`. Handle reasons with `Effect.catchReason("SpotError", "RateLimitError", ...)`.
 *
 * No reason ever holds request headers, the secret key, the passphrase or a signature; texts that come from the
 * network are scrubbed of credentials (in every encoding, `SafeText.Scrubber`), and bodies are shortened excerpts. A
 * venue's `msg` is kept whole on the reason; every `message` shows network texts with `SafeText.printable`: one line,
 * control and bidi characters escaped, cut at a length that it states.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { printable } from "./SafeText.ts"
import { TransferRecord } from "./Transfer.ts"

const venueFields = {
  /** The venue's error code, e.g. `"43012"`. */
  code: Schema.String,
  /** The venue's message. */
  msg: Schema.String,
  /** Server time of the answer (ms), when the venue sent one. */
  requestTime: Schema.optional(Schema.Number),
  /** HTTP status of the answer. */
  httpStatus: Schema.optional(Schema.Number)
}

// A code is a few digits from an honest venue: anything longer is cut sooner than a message.
const CODE_SHOWN = 40

const venueMessage = (self: { readonly code: string; readonly msg: string }) =>
  `${printable(self.msg)} (code ${printable(self.code, CODE_SHOWN)})`

// Quoted as JSON quotes it, then made printable (JSON leaves C1 and bidi controls as they are).
const quoted = (text: string) => printable(JSON.stringify(text), 400)

/**
 * Bad input caught before anything was sent: `field` names the offending field (a dotted path) and `description`
 * says why.
 *
 * @since 0.1.0
 * @category reasons
 */
export class ValidationError extends Schema.Error<ValidationError>("@spotkit/core/SpotError/ValidationError")({
  _tag: Schema.tag("ValidationError"),
  field: Schema.String,
  description: Schema.String
}) {
  /** The offending field, a dotted path (`"items.3.price"`). */
  declare readonly field: string
  /** Why it is refused. */
  declare readonly description: string

  get isRetryable(): boolean {
    return false
  }
  override get message(): string {
    return `invalid ${this.field}: ${this.description}`
  }
}

/**
 * The venue rejected the credentials or the signed headers (40001–40003, 40005–40007, 40009, 40011, 40012; the test
 * exchange's 40409, a replayed signature).
 *
 * @since 0.1.0
 * @category reasons
 */
export class AuthenticationError
  extends Schema.Error<AuthenticationError>("@spotkit/core/SpotError/AuthenticationError")({
    _tag: Schema.tag("AuthenticationError"),
    ...venueFields
  })
{
  /** The venue's error code, e.g. `"43012"`. */
  declare readonly code: string
  /** The venue's message. */
  declare readonly msg: string
  /** Server time of the answer (ms), when the venue sent one. */
  declare readonly requestTime: number | undefined
  /** HTTP status of the answer. */
  declare readonly httpStatus: number | undefined

  get isRetryable(): boolean {
    return false
  }
  override get message(): string {
    return venueMessage(this)
  }
}

/**
 * The request timestamp was outside the venue's 30 s window (40008). The client re-syncs its clock offset from the
 * answer and retries once by itself; this reason reaches the caller only if that retry fails too.
 *
 * @since 0.1.0
 * @category reasons
 */
export class TimestampError extends Schema.Error<TimestampError>("@spotkit/core/SpotError/TimestampError")({
  _tag: Schema.tag("TimestampError"),
  ...venueFields
}) {
  /** The venue's error code, e.g. `"43012"`. */
  declare readonly code: string
  /** The venue's message. */
  declare readonly msg: string
  /** Server time of the answer (ms), when the venue sent one. */
  declare readonly requestTime: number | undefined
  /** HTTP status of the answer. */
  declare readonly httpStatus: number | undefined

  get isRetryable(): boolean {
    return true
  }
  override get message(): string {
    return venueMessage(this)
  }
}

/**
 * The key lacks the permission for this operation (40014).
 *
 * @since 0.1.0
 * @category reasons
 */
export class PermissionError extends Schema.Error<PermissionError>("@spotkit/core/SpotError/PermissionError")({
  _tag: Schema.tag("PermissionError"),
  ...venueFields
}) {
  /** The venue's error code, e.g. `"43012"`. */
  declare readonly code: string
  /** The venue's message. */
  declare readonly msg: string
  /** Server time of the answer (ms), when the venue sent one. */
  declare readonly requestTime: number | undefined
  /** HTTP status of the answer. */
  declare readonly httpStatus: number | undefined

  get isRetryable(): boolean {
    return false
  }
  override get message(): string {
    return venueMessage(this)
  }
}

const seconds = (millis: number) => `${Math.round(millis / 100) / 10} s`

/**
 * Too many requests (HTTP 429). Nothing was applied; retrying later is safe. When the venue asked for a wait beyond
 * the client's cap (`rateLimit.maxRetryAfter`), the call failed at once rather than wait, and says so.
 *
 * @since 0.1.0
 * @category reasons
 */
export class RateLimitError extends Schema.Error<RateLimitError>("@spotkit/core/SpotError/RateLimitError")({
  _tag: Schema.tag("RateLimitError"),
  ...venueFields,
  /** How long the venue asked to wait (its `Retry-After` header, in ms), when it said. */
  retryAfterMillis: Schema.optional(Schema.Number),
  /**
   * The client's cap on such a wait (ms), when the venue asked for longer: the call was not retried, and the budget
   * the request came from pauses for the cap only.
   */
  maxRetryAfterMillis: Schema.optional(Schema.Number)
}) {
  /** The venue's error code, e.g. `"43012"`. */
  declare readonly code: string
  /** The venue's message. */
  declare readonly msg: string
  /** Server time of the answer (ms), when the venue sent one. */
  declare readonly requestTime: number | undefined
  /** HTTP status of the answer. */
  declare readonly httpStatus: number | undefined
  /** How long the venue asked to wait (its `Retry-After` header, in ms), when it said. */
  declare readonly retryAfterMillis: number | undefined
  /**
   * The client's cap on such a wait (ms), when the venue asked for longer: the call was not retried, and the budget the
   * request came from pauses for the cap only.
   */
  declare readonly maxRetryAfterMillis: number | undefined

  /** False when the venue asked for a wait beyond the client's cap. */
  get isRetryable(): boolean {
    return this.maxRetryAfterMillis === undefined
  }
  override get message(): string {
    if (this.maxRetryAfterMillis === undefined || this.retryAfterMillis === undefined) return venueMessage(this)
    return `${venueMessage(this)}: the venue asked to wait ${seconds(this.retryAfterMillis)}, beyond the client's ` +
      `cap of ${seconds(this.maxRetryAfterMillis)} (rateLimit.maxRetryAfter)`
  }
}

/**
 * The venue rejected a parameter (40017, 40019, 40020, 40034).
 *
 * @since 0.1.0
 * @category reasons
 */
export class InvalidRequestError
  extends Schema.Error<InvalidRequestError>("@spotkit/core/SpotError/InvalidRequestError")({
    _tag: Schema.tag("InvalidRequestError"),
    ...venueFields
  })
{
  /** The venue's error code, e.g. `"43012"`. */
  declare readonly code: string
  /** The venue's message. */
  declare readonly msg: string
  /** Server time of the answer (ms), when the venue sent one. */
  declare readonly requestTime: number | undefined
  /** HTTP status of the answer. */
  declare readonly httpStatus: number | undefined

  get isRetryable(): boolean {
    return false
  }
  override get message(): string {
    return venueMessage(this)
  }
}

/**
 * Not enough available balance (43012).
 *
 * @since 0.1.0
 * @category reasons
 */
export class InsufficientBalanceError
  extends Schema.Error<InsufficientBalanceError>("@spotkit/core/SpotError/InsufficientBalanceError")({
    _tag: Schema.tag("InsufficientBalanceError"),
    ...venueFields
  })
{
  /** The venue's error code, e.g. `"43012"`. */
  declare readonly code: string
  /** The venue's message. */
  declare readonly msg: string
  /** Server time of the answer (ms), when the venue sent one. */
  declare readonly requestTime: number | undefined
  /** HTTP status of the answer. */
  declare readonly httpStatus: number | undefined

  get isRetryable(): boolean {
    return false
  }
  override get message(): string {
    return venueMessage(this)
  }
}

/**
 * An order with this clientOrderId exists already (43118). `mayExist` is always true: the order with this id
 * exists or existed. `afterRetry` is true when the duplicate answered a retry of this very call and the client could
 * not find the order by its clientOrderId (or found a different order with it).
 *
 * @since 0.1.0
 * @category reasons
 */
export class DuplicateOrderError
  extends Schema.Error<DuplicateOrderError>("@spotkit/core/SpotError/DuplicateOrderError")({
    _tag: Schema.tag("DuplicateOrderError"),
    ...venueFields,
    clientOrderId: Schema.optional(Schema.String),
    afterRetry: Schema.Boolean
  })
{
  /** The venue's error code, e.g. `"43012"`. */
  declare readonly code: string
  /** The venue's message. */
  declare readonly msg: string
  /** Server time of the answer (ms), when the venue sent one. */
  declare readonly requestTime: number | undefined
  /** HTTP status of the answer. */
  declare readonly httpStatus: number | undefined
  /** The order's clientOrderId, when the call gave one. */
  declare readonly clientOrderId: string | undefined
  /**
   * True when the duplicate answered a retry of this very call and the client could not find the order by its
   * clientOrderId (or found a different order with it).
   */
  declare readonly afterRetry: boolean

  get isRetryable(): boolean {
    return false
  }
  get mayExist(): boolean {
    return true
  }
  override get message(): string {
    const id = this.clientOrderId === undefined ? "" : ` for clientOrderId ${printable(this.clientOrderId)}`
    return this.afterRetry
      ? `${venueMessage(this)}${id}: an earlier attempt may have placed the order, and looking it up by its` +
        ` clientOrderId did not find this order; look it up before placing it again`
      : `${venueMessage(this)}${id}`
  }
}

/**
 * The trading pair does not exist (40102).
 *
 * @since 0.1.0
 * @category reasons
 */
export class UnknownSymbolError extends Schema.Error<UnknownSymbolError>("@spotkit/core/SpotError/UnknownSymbolError")({
  _tag: Schema.tag("UnknownSymbolError"),
  ...venueFields
}) {
  /** The venue's error code, e.g. `"43012"`. */
  declare readonly code: string
  /** The venue's message. */
  declare readonly msg: string
  /** Server time of the answer (ms), when the venue sent one. */
  declare readonly requestTime: number | undefined
  /** HTTP status of the answer. */
  declare readonly httpStatus: number | undefined

  get isRetryable(): boolean {
    return false
  }
  override get message(): string {
    return venueMessage(this)
  }
}

/**
 * The order breaks a rule of the symbol: below the minimum amount (45110) or too many decimals (40808).
 *
 * @since 0.1.0
 * @category reasons
 */
export class InvalidOrderError extends Schema.Error<InvalidOrderError>("@spotkit/core/SpotError/InvalidOrderError")({
  _tag: Schema.tag("InvalidOrderError"),
  ...venueFields
}) {
  /** The venue's error code, e.g. `"43012"`. */
  declare readonly code: string
  /** The venue's message. */
  declare readonly msg: string
  /** Server time of the answer (ms), when the venue sent one. */
  declare readonly requestTime: number | undefined
  /** HTTP status of the answer. */
  declare readonly httpStatus: number | undefined

  get isRetryable(): boolean {
    return false
  }
  override get message(): string {
    return venueMessage(this)
  }
}

/**
 * The venue is being upgraded (40200). Nothing was applied; retrying later is safe.
 *
 * @since 0.1.0
 * @category reasons
 */
export class MaintenanceError extends Schema.Error<MaintenanceError>("@spotkit/core/SpotError/MaintenanceError")({
  _tag: Schema.tag("MaintenanceError"),
  ...venueFields
}) {
  /** The venue's error code, e.g. `"43012"`. */
  declare readonly code: string
  /** The venue's message. */
  declare readonly msg: string
  /** Server time of the answer (ms), when the venue sent one. */
  declare readonly requestTime: number | undefined
  /** HTTP status of the answer. */
  declare readonly httpStatus: number | undefined

  get isRetryable(): boolean {
    return true
  }
  override get message(): string {
    return venueMessage(this)
  }
}

/**
 * The venue failed to process the request in time or hit an internal error (40010 request timed out, 40015 system
 * error). Retryable; a state-changing request may have been applied, as after an HTTP 5xx.
 *
 * @since 0.1.0
 * @category reasons
 */
export class ServerError extends Schema.Error<ServerError>("@spotkit/core/SpotError/ServerError")({
  _tag: Schema.tag("ServerError"),
  ...venueFields
}) {
  /** The venue's error code, e.g. `"43012"`. */
  declare readonly code: string
  /** The venue's message. */
  declare readonly msg: string
  /** Server time of the answer (ms), when the venue sent one. */
  declare readonly requestTime: number | undefined
  /** HTTP status of the answer. */
  declare readonly httpStatus: number | undefined

  get isRetryable(): boolean {
    return true
  }
  override get message(): string {
    return venueMessage(this)
  }
}

/**
 * An order breaks a trading rule of its symbol (`Market.SymbolRules`: price tick, quantity step, smallest or largest
 * quantity, trading disabled), caught before sending. `nearest` holds the closest valid values, for a caller that
 * wants to adjust and place again.
 *
 * @since 0.1.0
 * @category reasons
 */
export class SymbolRuleError extends Schema.Error<SymbolRuleError>("@spotkit/core/SpotError/SymbolRuleError")({
  _tag: Schema.tag("SymbolRuleError"),
  symbol: Schema.String,
  /** The rule: `tickSize`, `stepSize`, `minTradeAmount`, `maxTradeAmount` or `enableTrade`. */
  rule: Schema.Literals(["tickSize", "stepSize", "minTradeAmount", "maxTradeAmount", "enableTrade"]),
  /** The order's field that breaks it (`price` or `quantity`), and its value. */
  field: Schema.String,
  value: Schema.String,
  /** The rule's value (the tick, the step, the bound). */
  limit: Schema.String,
  /** The closest valid values of `field`, below and above (one when only one side exists). */
  nearest: Schema.Array(Schema.String)
}) {
  /** The order's symbol. */
  declare readonly symbol: string
  /** The rule: `tickSize`, `stepSize`, `minTradeAmount`, `maxTradeAmount` or `enableTrade`. */
  declare readonly rule: "tickSize" | "stepSize" | "minTradeAmount" | "maxTradeAmount" | "enableTrade"
  /** The order's field that breaks it (`price` or `quantity`), and its value. */
  declare readonly field: string
  /** The value of `field` in the order. */
  declare readonly value: string
  /** The rule's value (the tick, the step, the bound). */
  declare readonly limit: string
  /** The closest valid values of `field`, below and above (one when only one side exists). */
  declare readonly nearest: ReadonlyArray<string>

  get isRetryable(): boolean {
    return false
  }
  override get message(): string {
    if (this.rule === "enableTrade") {
      return `${this.symbol} does not trade now: its rules say enableTrade ${this.limit}`
    }
    const nearest = this.nearest.length === 0 ? "" : `; nearest valid: ${this.nearest.join(" or ")}`
    return `invalid ${this.field} ${this.value} for ${this.symbol}: breaks ${this.rule} ${this.limit}${nearest}`
  }
}

/**
 * A venue error code spotkit does not know. Under an HTTP 5xx (or 408) status it is treated like a server failure:
 * retryable, and a state-changing request may have been applied.
 *
 * @since 0.1.0
 * @category reasons
 */
export class ApiError extends Schema.Error<ApiError>("@spotkit/core/SpotError/ApiError")({
  _tag: Schema.tag("ApiError"),
  ...venueFields
}) {
  /** The venue's error code, e.g. `"43012"`. */
  declare readonly code: string
  /** The venue's message. */
  declare readonly msg: string
  /** Server time of the answer (ms), when the venue sent one. */
  declare readonly requestTime: number | undefined
  /** HTTP status of the answer. */
  declare readonly httpStatus: number | undefined

  get isRetryable(): boolean {
    return this.httpStatus !== undefined && (this.httpStatus >= 500 || this.httpStatus === 408)
  }
  override get message(): string {
    return venueMessage(this)
  }
}

/**
 * The request or its answer was lost in transit (connection refused or reset, timeout). Whether the venue applied
 * the request is unknown, unless `notSent` says no connection was ever made.
 *
 * @since 0.1.0
 * @category reasons
 */
export class TransportError extends Schema.Error<TransportError>("@spotkit/core/SpotError/TransportError")({
  _tag: Schema.tag("TransportError"),
  description: Schema.String,
  /**
   * True when the request provably never reached the venue: no connection could be made (refused, unknown host,
   * unreachable network, connect timeout). Then even a transfer is retried, and an order is known not to exist.
   */
  notSent: Schema.optional(Schema.Boolean),
  /**
   * True when the HTTP client was closed (its layer's scope ended: the connection pool is gone), under a request in
   * flight or before one was made: not retried, since every attempt would fail the same way at once.
   */
  closed: Schema.optional(Schema.Boolean)
}) {
  /** What the transport said (its error's message). */
  declare readonly description: string
  /**
   * True when the request provably never reached the venue: no connection could be made (refused, unknown host,
   * unreachable network, connect timeout). Then even a transfer is retried, and an order is known not to exist.
   */
  declare readonly notSent: boolean | undefined
  /** True when the HTTP client was closed (its layer released): not retried. */
  declare readonly closed: boolean | undefined

  get isRetryable(): boolean {
    return this.closed !== true
  }
  override get message(): string {
    return `transport failure: ${printable(this.description, 400)}`
  }
}

/**
 * A non-success HTTP status without a venue envelope (e.g. a 502 page from a proxy). Retryable for 5xx and 408. A
 * state-changing request may have been applied unless the status is a refusal (a 4xx other than 408).
 *
 * @since 0.1.0
 * @category reasons
 */
export class HttpStatusError extends Schema.Error<HttpStatusError>("@spotkit/core/SpotError/HttpStatusError")({
  _tag: Schema.tag("HttpStatusError"),
  httpStatus: Schema.Number,
  excerpt: Schema.String
}) {
  /** The answer's HTTP status. */
  declare readonly httpStatus: number
  /** The start of the answer's body. */
  declare readonly excerpt: string

  get isRetryable(): boolean {
    return this.httpStatus >= 500 || this.httpStatus === 408
  }
  override get message(): string {
    return `HTTP ${this.httpStatus}: ${quoted(this.excerpt)}`
  }
}

/**
 * The answer was a redirect (HTTP 3xx), which the client never follows: following it would send the signed headers
 * (and, for 307 and 308, the signed body) to `target` and take its answer for the venue's. Usually a base URL that
 * is not the venue's API origin (`http:` for `https:`, a moved host). `target` is the origin the answer pointed to,
 * when it named a valid one; `httpStatus` is 0 when a browser hid the redirect (fetch's opaque redirect). Not
 * retried. A 301, 302, 307 or 308 sends the request elsewhere: it was not handled there. Any other 3xx may follow
 * an action (a 303 says the server acted on the request; a 304 or 300 answers a request that asked for neither; an
 * opaque redirect may be a 303), so a state-changing request may have been applied.
 *
 * @since 0.1.0
 * @category reasons
 */
export class RedirectError extends Schema.Error<RedirectError>("@spotkit/core/SpotError/RedirectError")({
  _tag: Schema.tag("RedirectError"),
  /** The answer's status (301, 302, 303, 307, 308, ...), or 0 for a browser's opaque redirect. */
  httpStatus: Schema.Number,
  /** The origin of the answer's `Location` (e.g. `"https://elsewhere.example"`), when it had one. */
  target: Schema.optional(Schema.String)
}) {
  /** The answer's status (301, 302, 303, 307, 308, ...), or 0 for a browser's opaque redirect. */
  declare readonly httpStatus: number
  /** The origin of the answer's `Location` (e.g. `"https://elsewhere.example"`), when it had one. */
  declare readonly target: string | undefined

  get isRetryable(): boolean {
    return false
  }
  override get message(): string {
    const status = this.httpStatus === 0 ? "an opaque redirect (the browser hides where to)" : `HTTP ${this.httpStatus}`
    const target = this.target === undefined ? "" : ` to ${printable(this.target, 200)}`
    return `the answer is a redirect, ${status}${target}, which the client does not follow (it would send the signed` +
      ` request there); check that the base URL is the venue's API origin`
  }
}

/**
 * The answer could not be read: not JSON (`kind: "json"` — a truncated or garbled body, worth a retry) or JSON of
 * the wrong shape (`kind: "schema"`). `excerpt` is the start of the body.
 *
 * @since 0.1.0
 * @category reasons
 */
export class DecodeError extends Schema.Error<DecodeError>("@spotkit/core/SpotError/DecodeError")({
  _tag: Schema.tag("DecodeError"),
  kind: Schema.Literals(["json", "schema"]),
  description: Schema.String,
  excerpt: Schema.String,
  httpStatus: Schema.optional(Schema.Number)
}) {
  /** `"json"`: the body is not JSON (truncated or garbled, worth a retry); `"schema"`: JSON of the wrong shape. */
  declare readonly kind: "json" | "schema"
  /** What could not be read, and where. */
  declare readonly description: string
  /** The start of the body. */
  declare readonly excerpt: string
  /** HTTP status of the answer. */
  declare readonly httpStatus: number | undefined

  get isRetryable(): boolean {
    return this.kind === "json"
  }
  override get message(): string {
    return `cannot decode the answer (${this.kind}): ${printable(this.description, 400)}; body starts ${
      quoted(this.excerpt)
    }`
  }
}

/**
 * The answer's body was larger than the client reads (`SpotClient.Options.maxResponseBytes`). Reading stopped at the
 * limit (or at once, when the answer declared a larger `Content-Length`), so memory stayed bounded. Not retried: a
 * venue that answered this once likely will again. A state-changing request may have been applied, since its answer
 * was not read.
 *
 * @since 0.1.0
 * @category reasons
 */
export class ResponseTooLargeError
  extends Schema.Error<ResponseTooLargeError>("@spotkit/core/SpotError/ResponseTooLargeError")({
    _tag: Schema.tag("ResponseTooLargeError"),
    /** The limit, in bytes. */
    limit: Schema.Number,
    /** The size the answer declared (`Content-Length`), when it declared one. */
    declared: Schema.optional(Schema.Number),
    /** HTTP status of the answer, when the transport had read it. */
    httpStatus: Schema.optional(Schema.Number)
  })
{
  /** The limit, in bytes. */
  declare readonly limit: number
  /** The size the answer declared (`Content-Length`), when it declared one. */
  declare readonly declared: number | undefined
  /** HTTP status of the answer, when the transport had read it. */
  declare readonly httpStatus: number | undefined

  get isRetryable(): boolean {
    return false
  }
  override get message(): string {
    const declared = this.declared === undefined ? "" : ` (it declared ${this.declared} bytes)`
    return `the answer is too large: more than ${this.limit} bytes, the client's maxResponseBytes${declared}`
  }
}

/**
 * A request that changes state may have been applied but its answer was lost, and it cannot be safely retried or
 * recovered: check the venue (`order` by clientOrderId, `transferStatus`) before sending it again. `clientOrderId` is
 * set for orders. For a transfer, `candidates` holds the transfers the client's lookup found that could be this one
 * (by time, coin, receiver and amount, none it already knew): empty when none matched, two or more when it cannot
 * tell which; absent when the lookup itself failed.
 *
 * @since 0.1.0
 * @category reasons
 */
export class OutcomeUnknownError
  extends Schema.Error<OutcomeUnknownError>("@spotkit/core/SpotError/OutcomeUnknownError")({
    _tag: Schema.tag("OutcomeUnknownError"),
    description: Schema.String,
    clientOrderId: Schema.optional(Schema.String),
    candidates: Schema.optional(Schema.Array(TransferRecord))
  })
{
  /** What was sent, and what became of its answer and of the lookup. */
  declare readonly description: string
  /** The order's clientOrderId (orders only). */
  declare readonly clientOrderId: string | undefined
  /**
   * A transfer's candidates: the transfers the client's lookup found that could be this one (empty when none matched,
   * two or more when it cannot tell which); absent when the lookup failed, and for orders.
   */
  declare readonly candidates: ReadonlyArray<TransferRecord> | undefined

  get isRetryable(): boolean {
    return false
  }
  get mayExist(): boolean {
    return true
  }
  override get message(): string {
    const id = this.clientOrderId === undefined ? "" : ` (clientOrderId ${printable(this.clientOrderId)})`
    return `the request may have been applied${id}: ${printable(this.description, 1000)}`
  }
}

/**
 * The shared rate-limit budget (`RateLimitStore`, e.g. in Redis) could not be reached: at start, or mid-run under the
 * `"fail"` policy. Nothing was sent. `store` names the store (a Redis URL without its password).
 *
 * @since 0.1.0
 * @category reasons
 */
export class RateLimitStoreError
  extends Schema.Error<RateLimitStoreError>("@spotkit/core/SpotError/RateLimitStoreError")({
    _tag: Schema.tag("RateLimitStoreError"),
    store: Schema.String,
    description: Schema.String
  })
{
  /** The store, by name (a Redis URL without its password). */
  declare readonly store: string
  /** Why it could not be reached. */
  declare readonly description: string

  get isRetryable(): boolean {
    return false
  }
  override get message(): string {
    return `rate-limit store ${printable(this.store, 200)}: ${printable(this.description, 400)}`
  }
}

/**
 * Every reason a `SpotError` can carry.
 *
 * @since 0.1.0
 * @category models
 */
export type SpotErrorReason =
  | ValidationError
  | AuthenticationError
  | TimestampError
  | PermissionError
  | RateLimitError
  | InvalidRequestError
  | InsufficientBalanceError
  | DuplicateOrderError
  | UnknownSymbolError
  | InvalidOrderError
  | MaintenanceError
  | ServerError
  | SymbolRuleError
  | ApiError
  | TransportError
  | HttpStatusError
  | RedirectError
  | DecodeError
  | ResponseTooLargeError
  | OutcomeUnknownError
  | RateLimitStoreError

/**
 * Schema of every reason.
 *
 * @since 0.1.0
 * @category schemas
 */
export const SpotErrorReason = Schema.Union([
  ValidationError,
  AuthenticationError,
  TimestampError,
  PermissionError,
  RateLimitError,
  InvalidRequestError,
  InsufficientBalanceError,
  DuplicateOrderError,
  UnknownSymbolError,
  InvalidOrderError,
  MaintenanceError,
  ServerError,
  SymbolRuleError,
  ApiError,
  TransportError,
  HttpStatusError,
  RedirectError,
  DecodeError,
  ResponseTooLargeError,
  OutcomeUnknownError,
  RateLimitStoreError
])

// The reason the schema's constructor set: read through a function, as TypeScript takes the `declare`d field below (there
// for its documentation) for one not yet initialized when `cause` is.
const reasonOf = (error: { readonly reason: SpotErrorReason }): SpotErrorReason => error.reason

/**
 * The error of every spotkit operation.
 *
 * @since 0.1.0
 * @category errors
 */
export class SpotError extends Schema.Error<SpotError>("@spotkit/core/SpotError")({
  _tag: Schema.tag("SpotError"),
  /** The operation, e.g. `"SpotClient.placeOrder"`. */
  operation: Schema.String,
  reason: SpotErrorReason
}) {
  /** The operation that failed, e.g. `"SpotClient.placeOrder"`. */
  declare readonly operation: string
  /** What went wrong: one of `SpotErrorReason`, told apart by its `_tag` (handle one with `Effect.catchReason`). */
  declare readonly reason: SpotErrorReason

  /** The `reason` again, as the standard `Error.cause`. */
  override readonly cause = reasonOf(this)

  /**
   * Whether retrying may succeed. The client already retried retryable failures within its retry budget.
   */
  get isRetryable(): boolean {
    return this.reason.isRetryable
  }

  /**
   * The venue's error code, when the venue answered with one.
   */
  get code(): string | undefined {
    return "code" in this.reason ? this.reason.code : undefined
  }

  override get message(): string {
    return `${this.operation}: ${this.reason.message}`
  }
}

/**
 * Whether a value is a `SpotError`.
 *
 * @since 0.1.0
 * @category guards
 */
export const isSpotError = (u: unknown): u is SpotError => u instanceof SpotError
