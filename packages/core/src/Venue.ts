/**
 * Every fact spotkit knows about the venue, in one place: the endpoints (path, method, signing, permission, rate
 * limit and weight, envelope, idempotency, request and response schemas), the signed headers and the text that is
 * signed, the success codes, the batch limit, the timestamp window, and the table of error codes with the reason
 * each one means. The client (`SpotClient`), the test exchange (`@spotkit/testkit`) and the CLI read them from here;
 * nothing about the venue is written a second time. The venue's interface, in our words and with the sources of each
 * fact: docs/venue/README.md; our choices where the sources are silent: docs/DESIGN.md.
 *
 * @since 0.1.0
 */
import { Effect, Schema } from "effect"
import * as Account from "./Account.ts"
import * as Bill from "./Bill.ts"
import * as Cancel from "./Cancel.ts"
import * as Fill from "./Fill.ts"
import * as OrderFast from "./internal/model/orderFast.ts"
import * as Json from "./Json.ts"
import * as Market from "./Market.ts"
import * as Order from "./Order.ts"
import { TradingPair } from "./Primitives.ts"
import * as SpotError from "./SpotError.ts"
import * as Transfer from "./Transfer.ts"

// ---------------------------------------------------------------------------------------------------------------
// Signing

/**
 * Names of the headers of a signed request (docs/venue/signing.md#headers). `key`, `sign` and `passphrase` carry
 * credentials.
 *
 * @since 0.1.0
 * @category signing
 */
export const headers = {
  key: "ACCESS-KEY",
  sign: "ACCESS-SIGN",
  passphrase: "ACCESS-PASSPHRASE",
  timestamp: "ACCESS-TIMESTAMP",
  locale: "locale"
} as const

/**
 * The credential headers in lower case, as HTTP clients redact them from traces.
 *
 * @since 0.1.0
 * @category signing
 */
export const credentialHeaders: ReadonlyArray<string> = [headers.key, headers.sign, headers.passphrase].map((name) =>
  name.toLowerCase()
)

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/

/**
 * What keeps a text from being the value of a request header (the API key, the passphrase, the locale), in words that
 * quote nothing of it (it may be a secret), or `undefined` when it can be one: a line break or another control
 * character (which an HTTP client refuses, or which would start a header of its own), a character other than
 * printable ASCII, or a space at either end (trimmed on the way, which would change what was signed). The client
 * refuses such an option with a `ValidationError` before sending; the `spotkit` CLI, such a variable.
 *
 * @since 0.1.0
 * @category signing
 */
export const headerValueProblem = (value: string): string | undefined => {
  if (/\r\n?$/.test(value)) return "ends with a carriage return (a file with Windows line endings?)"
  if (/[\r\n]/.test(value)) return "has a line break (CR or LF)"
  if (CONTROL.test(value)) return "has a control character"
  if (/[^\u0020-\u007e]/.test(value)) return "has a character other than printable ASCII, which a header cannot carry"
  if (value.trim() !== value) return "starts or ends with a space"
  return undefined
}

const EXAMPLE = "an http:// or https:// URL such as https://api.example.com"

/**
 * What keeps a text from being the venue's base URL, in words that quote nothing of it, or `undefined` when it can be
 * one: not an `http://` or `https://` URL with a host; a space or control character; a user name or password, a query
 * or a fragment in it; or a path ending in `/api` or `/api/v2`, which every endpoint's path starts with (each request
 * would go to `/api/v2/api/v2/...`, answered "Request URL NOT FOUND"). A path before that, such as a gateway's
 * prefix, is allowed. `SpotClient.make` refuses such a `baseUrl`; the configuration from the environment and the
 * `spotkit` CLI, such a `SPOTKIT_BASE_URL`.
 *
 * @since 0.1.0
 * @category endpoints
 */
export const baseUrlProblem = (value: string): string | undefined => {
  if (CONTROL.test(value) || /\s/.test(value)) return `has a space or a control character; expected ${EXAMPLE}`
  const url = URL.parse(value)
  if (url === null) return `is not a URL; expected ${EXAMPLE}`
  if (url.protocol !== "http:" && url.protocol !== "https:") return "must start with http:// or https://"
  if (url.hostname === "") return `names no host; expected ${EXAMPLE}`
  if (url.username !== "" || url.password !== "") return "has a user name or password in it"
  if (url.search !== "" || url.hash !== "") return "has a query or a fragment (?, #)"
  const doubled = /\/api(?:\/v\d+)?\/*$/.exec(url.pathname)
  if (doubled === null) return undefined
  const suffix = doubled[0].replace(/\/+$/, "")
  return `ends in ${suffix}, which every endpoint's path starts with; leave it out (${
    url.origin + url.pathname.slice(0, doubled.index)
  })`
}

/**
 * The text that is signed (docs/venue/signing.md#signing): `timestamp + METHOD + requestPath + body`, where
 * `requestPath` carries the `?query` of a GET and `body` is the exact text sent.
 *
 * @since 0.1.0
 * @category signing
 */
export const prehash = (timestamp: string, method: string, requestPath: string, body: string): string =>
  timestamp + (method === "POST" || method === "GET" ? method : method.toUpperCase()) + requestPath + body

/**
 * How far a request's `ACCESS-TIMESTAMP` may be from the venue's clock (ms) before it answers `40008`.
 *
 * @since 0.1.0
 * @category signing
 */
export const TIMESTAMP_WINDOW_MILLIS = 30_000

// ---------------------------------------------------------------------------------------------------------------
// Envelopes and limits

/**
 * Success code of the standard envelope `{ code, msg, requestTime, data }`.
 *
 * @since 0.1.0
 * @category envelopes
 */
export const SUCCESS = "00000"

/**
 * The message of a success in the standard envelope.
 *
 * @since 0.1.0
 * @category envelopes
 */
export const SUCCESS_MSG = "success"

/**
 * Success code of the transfer envelope `{ code, id, timestamp }` (docs/venue/account.md#internal-transfer).
 *
 * @since 0.1.0
 * @category envelopes
 */
export const TRANSFER_SUCCESS = "200"

/**
 * Most orders in one batch request (docs/venue/trading.md#batch-orders).
 *
 * @since 0.1.0
 * @category limits
 */
export const BATCH_LIMIT = 50

// ---------------------------------------------------------------------------------------------------------------
// Error codes

/**
 * The reasons a venue code can mean.
 *
 * @since 0.1.0
 * @category codes
 */
export type CodeReason =
  | typeof SpotError.AuthenticationError
  | typeof SpotError.TimestampError
  | typeof SpotError.PermissionError
  | typeof SpotError.RateLimitError
  | typeof SpotError.InvalidRequestError
  | typeof SpotError.InsufficientBalanceError
  | typeof SpotError.DuplicateOrderError
  | typeof SpotError.UnknownSymbolError
  | typeof SpotError.InvalidOrderError
  | typeof SpotError.MaintenanceError
  | typeof SpotError.ServerError
  | typeof SpotError.ApiError

/**
 * One venue error code: the reason it means, the venue's message (`{0}` stands for a parameter's name) and the HTTP
 * status it comes with. Whether a retry may help is the reason's `isRetryable`; whether the venue may have applied
 * the request, `mayHaveApplied` of the reason (a refusal for every code but those of a `ServerError`).
 *
 * @since 0.1.0
 * @category codes
 */
export interface Code {
  readonly reason: CodeReason
  readonly msg: string
  readonly status: number
  /** The code answers a cancel of an order that is not open: one the venue does not know, or one already final. */
  readonly notOpen?: "unknown" | "final" | undefined
  /** The venue refused an order for a rule of its symbol (price scale, minimum amount): cached rules may be stale. */
  readonly rule?: boolean | undefined
}

const code = (reason: CodeReason, msg: string, status = 400, meaning: Partial<Code> = {}): Code => ({
  reason,
  msg,
  status,
  ...meaning
})

/**
 * The venue's error codes (docs/venue/signing.md#error-codes), and the three the test exchange adds for unknown paths
 * and methods and replayed requests.
 *
 * @since 0.1.0
 * @category codes
 */
export const codes: ReadonlyMap<string, Code> = new Map([
  ["40001", code(SpotError.AuthenticationError, "ACCESS_KEY cannot be empty")],
  ["40002", code(SpotError.AuthenticationError, "ACCESS_SIGN cannot be empty")],
  ["40003", code(SpotError.AuthenticationError, "ACCESS_TIMESTAMP cannot be empty")],
  ["40005", code(SpotError.AuthenticationError, "Invalid ACCESS_TIMESTAMP")],
  ["40006", code(SpotError.AuthenticationError, "Invalid ACCESS_KEY")],
  ["40007", code(SpotError.AuthenticationError, "Invalid Content_Type, please use \"application/json\"")],
  ["40008", code(SpotError.TimestampError, "Request timestamp expired")],
  ["40009", code(SpotError.AuthenticationError, "sign signature error")],
  ["40011", code(SpotError.AuthenticationError, "ACCESS_PASSPHRASE cannot be empty")],
  ["40012", code(SpotError.AuthenticationError, "apikey/password is incorrect")],
  ["40014", code(SpotError.PermissionError, "Incorrect permissions")],
  ["40017", code(SpotError.InvalidRequestError, "Parameter verification failed")],
  ["40019", code(SpotError.InvalidRequestError, "Parameter {0} cannot be empty")],
  ["40020", code(SpotError.InvalidRequestError, "Parameter {0} error")],
  ["40034", code(SpotError.InvalidRequestError, "Parameter {0} does not exist")],
  ["43012", code(SpotError.InsufficientBalanceError, "Insufficient balance")],
  ["43118", code(SpotError.DuplicateOrderError, "clientOrderId duplicate")],
  ["40102", code(SpotError.UnknownSymbolError, "Symbol does not exist")],
  ["45110", code(SpotError.InvalidOrderError, "less than the minimum amount {0}", 400, { rule: true })],
  ["40808", code(SpotError.InvalidOrderError, "parameter scale error: {0}", 400, { rule: true })],
  ["429", code(SpotError.RateLimitError, "Too Many Requests", 429)],
  ["40200", code(SpotError.MaintenanceError, "server upgrade")],
  ["40010", code(SpotError.ServerError, "Request timed out")],
  ["40015", code(SpotError.ServerError, "System error")],
  ["40013", code(SpotError.PermissionError, "User has been frozen")],
  ["40016", code(SpotError.PermissionError, "The user must bind the phone or Google")],
  ["40018", code(SpotError.PermissionError, "Invalid IP")],
  ["40912", code(SpotError.InvalidRequestError, "Batch cancel cannot exceed 50")],
  ["40913", code(SpotError.InvalidRequestError, "orderId or clientOid must be passed one")],
  ["43001", code(SpotError.InvalidRequestError, "The order does not exist", 400, { notOpen: "unknown" })],
  ["43004", code(SpotError.InvalidRequestError, "There is no order to cancel", 400, { notOpen: "final" })],
  // Not venue codes: the test exchange's answers to an unknown path or method, which the client sees as ApiError,
  // and to an exact replay of a signed request that changes state (same key, timestamp and signature) within the
  // timestamp window: refused signed headers, as the client never sends one signature twice.
  ["40404", code(SpotError.ApiError, "Request URL NOT FOUND", 404)],
  ["40405", code(SpotError.ApiError, "Method Not Allowed", 405)],
  ["40409", code(SpotError.AuthenticationError, "Duplicate request", 409)]
])

/**
 * The venue's message for a code, with `{0}` filled in (`message("40020", "side")` is `"Parameter side error"`);
 * without a parameter the placeholder goes (`message("40034")` is `"Parameter does not exist"`). An unknown code
 * answers itself.
 *
 * @since 0.1.0
 * @category codes
 */
export const message = (venueCode: string, parameter?: string): string => {
  const text = codes.has(venueCode) ? codes.get(venueCode)!.msg : venueCode
  return parameter === undefined ? text.replace(/ ?\{0\}/, "") : text.replace("{0}", parameter)
}

/**
 * Whether a code says the venue refused an order for a rule of its symbol (price scale, minimum amount): the client's
 * cached rules may be stale.
 *
 * @since 0.1.0
 * @category codes
 */
export const isRuleRefusal = (venueCode: string): boolean => codes.get(venueCode)?.rule === true

/**
 * Whether a cancel's answer says the order is not open, and how: `"unknown"` (the venue does not know it, `43001`),
 * `"final"` (already filled or cancelled, `43004`), or `undefined` for any other refusal. The code decides when it is
 * one of the table's; batch answers may carry only a message (the venue's samples show `FAILED_ORDER_NOT_FOUND`),
 * which is read then.
 *
 * @since 0.1.0
 * @category codes
 */
export const notOpen = (
  venueCode: string | undefined,
  msg: string | undefined
): "unknown" | "final" | undefined => {
  const known = venueCode === undefined ? undefined : codes.get(venueCode)?.notOpen
  if (known !== undefined || msg === undefined) return known
  if (/not[ _]?found|not[ _]exist|unknown[ _]order/i.test(msg)) return "unknown"
  if (/no order to cancel|already|final|filled|cancell?ed/i.test(msg)) return "final"
  return undefined
}

/**
 * The code a not-open answer is reported with: the venue's when it gave one, else the table's code for how the
 * message says the order is not open.
 *
 * @since 0.1.0
 * @category codes
 */
export const notOpenCode = (venueCode: string | undefined, how: "unknown" | "final" | undefined): string =>
  venueCode ?? (how === "unknown" ? "43001" : how === "final" ? "43004" : "unknown")

/**
 * The reason for an error the venue answered. Unknown codes become `ApiError`, or `RateLimitError` under HTTP 429;
 * `43118` becomes a `DuplicateOrderError` for `clientOrderId`.
 *
 * @since 0.1.0
 * @category codes
 */
export const reasonOf = (props: {
  readonly code: string
  readonly msg: string
  readonly requestTime?: number | undefined
  readonly httpStatus?: number | undefined
  readonly clientOrderId?: string | undefined
}): SpotError.SpotErrorReason => {
  const { clientOrderId, ...venue } = props
  // `has` first: a code such as "constructor" must not reach an Object.prototype member.
  const known = codes.has(venue.code) ? codes.get(venue.code)!.reason : undefined
  if (known === SpotError.DuplicateOrderError) {
    return new SpotError.DuplicateOrderError({ ...venue, clientOrderId, afterRetry: false })
  }
  const Reason = known ?? (venue.httpStatus === 429 ? SpotError.RateLimitError : SpotError.ApiError)
  return new (Reason as typeof SpotError.ApiError)(venue)
}

// The redirects that ask for the request to be sent to another URL: the server that answered them did not handle it.
const SENT_ELSEWHERE: ReadonlySet<number> = new Set([301, 302, 307, 308])

/**
 * The one answer to "may the venue have applied a request that failed for this reason?". True when the answer was
 * lost or garbled after the request left (a transport failure once connected, a body that cannot be read or is too
 * large to read) or the server failed after possibly acting on it (HTTP 5xx or 408, with or without an envelope of
 * an unknown code), or answered a status that says nothing of it (an informational 1xx taken for the answer, as
 * node:http hands over a 101). True too for a `ServerError` (the venue's own "request timed out" or "system error"),
 * and for a `RedirectError` other than 301, 302, 307 and 308, which send the request elsewhere without handling it:
 * a 303 ("see other": the server acted on the request), a 304 or 300 answering a request that asked for neither, a
 * browser's opaque redirect (which may be a 303). False when the venue refused it (a 4xx but 408, every other code
 * it answers with), rate limited it, sent it elsewhere, or never saw it (no connection could be made, or it was
 * refused before sending).
 *
 * @since 0.1.0
 * @category codes
 */
export const mayHaveApplied = (reason: SpotError.SpotErrorReason): boolean => {
  switch (reason._tag) {
    case "TransportError":
      return reason.notSent !== true
    case "DecodeError":
    case "ResponseTooLargeError":
      return true
    case "HttpStatusError":
      return reason.isRetryable || reason.httpStatus < 400
    case "ApiError":
      return reason.isRetryable
    case "ServerError":
      return true
    case "RedirectError":
      return !SENT_ELSEWHERE.has(reason.httpStatus)
    default:
      return false
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Endpoints

/**
 * A rate-limit budget: at most `limit` weight in any window of `windowMillis`.
 *
 * @since 0.1.0
 * @category limits
 */
export interface Budget {
  readonly limit: number
  readonly windowMillis: number
}

/**
 * The venue's weight budgets (docs/venue/limits.md#budgets): one per API user (UID) and one per IP address, 500 each
 * per 10 s, and the older 10 requests per second per endpoint on placing, batching, cancelling and transfers.
 *
 * @since 0.1.0
 * @category limits
 */
export const budgets = {
  uid: { limit: 500, windowMillis: 10_000 },
  ip: { limit: 500, windowMillis: 10_000 },
  perEndpoint: { limit: 10, windowMillis: 1_000 }
} as const satisfies Record<string, Budget>

/**
 * What one request of an endpoint weighs against the IP budget and the UID budget (`undefined`: a public endpoint,
 * counted against the IP only), and whether it also counts against the endpoint's 10 per second.
 *
 * @since 0.1.0
 * @category limits
 */
export interface Weight {
  readonly ip: number
  readonly uid: number | undefined
  readonly perSecond: boolean
}

/**
 * What a retry of a failed request risks. `"read"`: nothing changes on the venue, retry freely. `"idempotent"`: it
 * changes state, but doing it twice does no more than once (a cancel), so it is retried like a read. `"clientOrderId"`:
 * the venue refuses a second order with the same clientOrderId (43118), so a retry with the same body is safe and a
 * duplicate answer means an earlier attempt went through. `"none"`: no key deduplicates it, so it is retried only
 * when it provably was not applied (`mayHaveApplied` is false).
 *
 * @since 0.1.0
 * @category endpoints
 */
export type Idempotency = "read" | "idempotent" | "clientOrderId" | "none"

/**
 * What an API key must be allowed to do for a signed endpoint.
 *
 * @since 0.1.0
 * @category endpoints
 */
export type Permission = "read" | "trade" | "transfer"

/**
 * A schema the client can run without services.
 *
 * @since 0.1.0
 * @category endpoints
 */
export type Codec = Schema.Top & { readonly DecodingServices: never; readonly EncodingServices: never }

/**
 * One endpoint, declared once: the client validates, sends and decodes by it (one generic call reads everything
 * below), the test exchange routes, authorizes and rate-limits by it. Adding an endpoint is declaring it here, one
 * line in the client's service, and its handler in the test exchange (docs/ARCHITECTURE.md).
 *
 * @since 0.1.0
 * @category endpoints
 */
export interface Endpoint<
  Name extends string = string,
  Request extends Codec = Codec,
  Response extends Codec = Codec
> {
  readonly name: Name
  readonly method: "GET" | "POST"
  /** The path below the base URL. */
  readonly path: string
  /** Signed (docs/venue/signing.md#headers), with the permission the key needs; `undefined` for a public endpoint. */
  readonly permission: Permission | undefined
  /** `standard`: `{code, msg, requestTime, data}`. `transfer`: `{code: "200", id, timestamp}` on success. */
  readonly envelope: "standard" | "transfer"
  readonly idempotency: Idempotency
  /** The venue's weights of this endpoint (docs/venue/limits.md#weights), against `budgets`. */
  readonly weight: Weight
  /** The request: what the client validates before anything is sent. */
  readonly request: Request
  /** The venue's answer: the envelope's `data` (the whole envelope for `transfer`). */
  readonly response: Response
  /**
   * The request as the venue spells it: the JSON body's fields of a POST, the query's of a GET, in the order sent;
   * fields left `undefined` are not sent.
   */
  wire(request: Request["Type"]): Readonly<Record<string, unknown>>
  /**
   * A hand-written decoder of the answer beside the Schema, where a benchmark showed it pays: exactly the Schema's
   * value, or `undefined` to leave the payload to the Schema (property-tested against it).
   */
  readonly fast?: ((payload: unknown) => Response["Type"] | undefined) | undefined
  /**
   * How an answer contradicts the request it answers (records of a symbol, a coin or an order other than the one
   * asked), or `undefined` when it does not: the client takes such an answer for a garbled one (a `DecodeError`
   * naming both), never as the answer to what it asked. Absent where nothing in the answer can be checked against
   * the request.
   */
  contradiction?(request: Request["Type"], response: Response["Type"]): string | undefined
  /** A request checked against `request`. */
  readonly decodeRequest: (input: unknown) => Effect.Effect<Request["Type"], Schema.SchemaError>
  /** An answer's payload decoded by `response`, through `fast` when it takes it. */
  readonly decodeResponse: (payload: unknown) => Effect.Effect<Response["Type"], Schema.SchemaError>
}

/**
 * The request an endpoint takes, as validated.
 *
 * @since 0.1.0
 * @category endpoints
 */
export type RequestOf<E extends Endpoint> = E["request"]["Type"]

/**
 * The answer an endpoint gives, as decoded.
 *
 * @since 0.1.0
 * @category endpoints
 */
export type ResponseOf<E extends Endpoint> = E["response"]["Type"]

const weight = (ip: number, uid: number | undefined, counted = false): Weight => ({ ip, uid, perSecond: counted })

const endpoint = <const Name extends string, Request extends Codec, Response extends Codec>(
  spec: Omit<Endpoint<Name, Request, Response>, "decodeRequest" | "decodeResponse">
): Endpoint<Name, Request, Response> => {
  const decode = Schema.decodeUnknownEffect(spec.response)
  const fast = spec.fast
  return {
    ...spec,
    decodeRequest: Schema.decodeUnknownEffect(spec.request),
    decodeResponse: fast === undefined ? decode : (payload) => {
      const value = fast(payload)
      return value === undefined ? decode(payload) : Effect.succeed(value)
    }
  }
}

// An answer about one symbol whose records name another: a gateway that routed the request elsewhere, or a body
// rewritten on the way. One string compare a record.
const otherSymbol = (
  asked: string,
  records: ReadonlyArray<{ readonly symbol: string }> | null | undefined
): string | undefined => {
  if (records == null) return undefined
  for (const record of records) {
    if (record.symbol !== asked) return `the answer names symbol ${record.symbol}, not the symbol asked ${asked}`
  }
  return undefined
}

// The same for the other filters a paged read is asked with: a record of another coin (bills) or another order (fills)
// than the one asked. Unchecked when none was asked. Ids compare as their exact digits (no leading zeros either side).
const otherThanAsked = <K extends string, V extends string | number>(
  noun: string,
  key: K,
  asked: V | undefined,
  records: ReadonlyArray<{ readonly [_ in K]: V }> | null | undefined
): string | undefined => {
  if (asked === undefined || records == null) return undefined
  for (const record of records) {
    if (record[key] !== asked) return `the answer names ${noun} ${record[key]}, not the ${noun} asked ${asked}`
  }
  return undefined
}

const asIs = (request: object): Readonly<Record<string, unknown>> => ({ ...request })
const nothing = (): Readonly<Record<string, unknown>> => ({})
const NoParameters = Schema.Struct({})

// An order as the venue's usage shape sends it: `force` always, a zero price on market orders (whatever price one was
// given: the venue ignores it, and a price that reached it would read as a limit the order does not have), and the
// client's clientOrderId; one literal, led by the symbol of a single order (undefined, so left out, for a batch's items).
const orderWire = (order: Order.BatchItem, symbol: string | undefined) => ({
  symbol,
  side: order.side,
  orderType: order.orderType,
  force: order.force ?? "normal",
  price: order.orderType === "market" ? "0" : order.price ?? "0",
  quantity: order.quantity,
  clientOrderId: order.clientOrderId
})

/**
 * The endpoints of the venue's trading, account and market-data interface (docs/venue/README.md), with the venue's
 * weights (docs/venue/limits.md#weights) against `budgets`. `/products` is the path the first operation list names;
 * `/api/v2/public/products` the one the venue's documents give (docs/venue/market-data.md#products); the test exchange
 * serves both.
 *
 * @since 0.1.0
 * @category endpoints
 */
export const endpoints = {
  placeOrder: endpoint({
    name: "placeOrder",
    method: "POST",
    path: "/api/v2/trade/orders",
    permission: "trade",
    envelope: "standard",
    idempotency: "clientOrderId",
    weight: weight(2, 5, true),
    request: Order.PlaceOrder,
    response: Order.PlaceOrderResult,
    wire: (order) => orderWire(order, order.symbol),
    fast: OrderFast.placeOrderResult
  }),
  placeOrders: endpoint({
    name: "placeOrders",
    method: "POST",
    path: "/api/v2/trade/batch-orders",
    permission: "trade",
    envelope: "standard",
    idempotency: "clientOrderId",
    weight: weight(5, 10, true),
    request: Order.BatchRequest,
    response: Order.BatchResponse,
    wire: (batch) => ({ symbol: batch.symbol, orderList: batch.orderList.map((item) => orderWire(item, undefined)) })
  }),
  openOrders: endpoint({
    name: "openOrders",
    method: "POST",
    path: "/api/v2/trade/open-orders",
    permission: "read",
    envelope: "standard",
    idempotency: "read",
    weight: weight(3, 3),
    request: Order.OpenOrdersQuery,
    response: Order.OpenOrdersPage,
    contradiction: (query, page) => otherSymbol(query.symbol, page.orderInfoResultList),
    wire: asIs,
    fast: OrderFast.openOrdersPage
  }),
  fundingBills: endpoint({
    name: "fundingBills",
    method: "POST",
    path: "/api/v2/account/fundingBills",
    permission: "read",
    envelope: "standard",
    idempotency: "read",
    weight: weight(5, 5),
    request: Bill.BillPageQuery,
    response: Bill.BillPage,
    contradiction: (query, page) => otherThanAsked("coin", "coinId", query.coinId, page.items),
    wire: asIs,
    fast: Bill.fastBillPage
  }),
  internalTransfer: endpoint({
    name: "internalTransfer",
    method: "POST",
    path: "/api/v2/rebate/affiliate/internalWithdrawal",
    permission: "transfer",
    envelope: "transfer",
    idempotency: "none",
    weight: weight(100, 100, true),
    request: Transfer.InternalTransfer,
    response: Transfer.TransferSuccess,
    // `toUserId` is a Long on the wire: a bare JSON number, written exactly.
    wire: (transfer) => ({
      toUserId: Json.rawNumber(transfer.toUserId),
      coin: transfer.coin,
      amount: Transfer.wireAmount(transfer.amount),
      fromAccountType: transfer.fromAccountType,
      toAccountType: transfer.toAccountType
    })
  }),
  cancelOrder: endpoint({
    name: "cancelOrder",
    method: "POST",
    path: "/api/v2/trade/cancel-order",
    permission: "trade",
    envelope: "standard",
    idempotency: "idempotent",
    weight: weight(2, 3, true),
    request: Cancel.CancelOrderRequest,
    response: Cancel.CancelOrderResponse,
    // The venue names the client's id `clientOid` here.
    wire: (cancel) =>
      cancel.orderId !== undefined
        ? { symbol: cancel.symbol, orderId: cancel.orderId }
        : { symbol: cancel.symbol, clientOid: cancel.clientOrderId }
  }),
  cancelOrders: endpoint({
    name: "cancelOrders",
    method: "POST",
    path: "/api/v2/trade/cancel-batch-orders",
    permission: "trade",
    envelope: "standard",
    idempotency: "idempotent",
    // The IP weight is not shown: it counts as the UID weight.
    weight: weight(10, 10, true),
    request: Cancel.CancelOrdersRequest,
    response: Cancel.CancelBatchResponse,
    wire: asIs
  }),
  cancelAll: endpoint({
    name: "cancelAll",
    method: "POST",
    path: "/api/v2/trade/cancel-symbol-order",
    permission: "trade",
    envelope: "standard",
    idempotency: "idempotent",
    weight: weight(5, 8, true),
    request: Cancel.CancelAllRequest,
    response: Cancel.CancelBatchResponse,
    wire: asIs
  }),
  order: endpoint({
    name: "order",
    method: "POST",
    path: "/api/v2/trade/orderInfo",
    permission: "read",
    envelope: "standard",
    idempotency: "read",
    weight: weight(2, 2),
    request: Order.OrderInfoRequest,
    response: Order.OrderInfoResponse,
    wire: (ref) => ({ orderId: ref.orderId, clientOrderId: ref.clientOrderId })
  }),
  orderHistory: endpoint({
    name: "orderHistory",
    method: "POST",
    path: "/api/v2/trade/history",
    permission: "read",
    envelope: "standard",
    idempotency: "read",
    weight: weight(10, 10),
    request: Order.OrderHistoryQuery,
    response: Order.OrderHistoryPage,
    contradiction: (query, page) => otherSymbol(query.symbol, page.orderInfoResultList),
    wire: asIs,
    fast: OrderFast.openOrdersPage
  }),
  fills: endpoint({
    name: "fills",
    method: "POST",
    path: "/api/v2/trade/fills",
    permission: "read",
    envelope: "standard",
    idempotency: "read",
    weight: weight(5, 5),
    request: Fill.FillsQuery,
    response: Fill.FillsPage,
    contradiction: (query, page) =>
      otherSymbol(query.symbol, page.fillsOrderResultList) ??
        otherThanAsked("order", "orderId", query.orderId, page.fillsOrderResultList),
    // The order's id is a Long on the wire: a bare JSON number, written exactly.
    wire: (query) => ({ ...query, orderId: query.orderId === undefined ? undefined : Json.rawNumber(query.orderId) })
  }),
  balances: endpoint({
    name: "balances",
    method: "GET",
    path: "/api/v2/account/assets",
    permission: "read",
    envelope: "standard",
    idempotency: "read",
    // The IP weight is not shown: it counts as the UID weight.
    weight: weight(5, 5),
    request: NoParameters,
    response: Account.Balances,
    wire: nothing
  }),
  transferStatus: endpoint({
    name: "transferStatus",
    method: "GET",
    path: "/api/v2/rebate/affiliate/getInternalWithdrawalStatus",
    permission: "read",
    envelope: "transfer",
    idempotency: "read",
    weight: weight(100, 100),
    request: Transfer.TransferStatusQuery,
    response: Transfer.TransferStatusResponse,
    // The venue spells the id `withdrawID`.
    wire: (query) => ({
      withdrawID: query.withdrawId,
      coin: query.coin,
      startTime: query.startTime,
      endTime: query.endTime,
      fromAccountType: query.fromAccountType,
      toAccountType: query.toAccountType,
      page: query.page,
      pageSize: query.pageSize
    })
  }),
  exchangeInfo: endpoint({
    name: "exchangeInfo",
    method: "GET",
    path: "/api/v2/public/exchangeInfo",
    permission: undefined,
    envelope: "standard",
    idempotency: "read",
    weight: weight(10, undefined),
    request: Schema.Struct({ symbol: Schema.optional(Schema.String), symbols: Schema.optional(Schema.String) }),
    response: Market.ExchangeInfo,
    wire: asIs
  }),
  productList: endpoint({
    name: "productList",
    method: "GET",
    path: "/api/v2/public/products",
    permission: undefined,
    envelope: "standard",
    idempotency: "read",
    weight: weight(1, undefined),
    request: NoParameters,
    response: Market.ProductList,
    wire: nothing
  }),
  serverTime: endpoint({
    name: "serverTime",
    method: "GET",
    path: "/api/v2/public/time",
    permission: undefined,
    envelope: "standard",
    idempotency: "read",
    weight: weight(1, undefined),
    request: NoParameters,
    response: Market.ServerTime,
    wire: nothing
  }),
  ticker: endpoint({
    name: "ticker",
    method: "GET",
    path: "/api/v2/market/ticker",
    permission: undefined,
    envelope: "standard",
    idempotency: "read",
    weight: weight(1, undefined),
    request: Schema.Struct({ symbol: TradingPair }),
    response: Market.Ticker,
    contradiction: (query, ticker) => otherSymbol(query.symbol, [ticker]),
    wire: asIs
  }),
  tickers: endpoint({
    name: "tickers",
    method: "GET",
    path: "/api/v2/market/tickers",
    permission: undefined,
    envelope: "standard",
    idempotency: "read",
    // Not shown for spot: the contract interface's weight (docs/venue/market-data.md#ticker), configurable.
    weight: weight(40, undefined),
    request: NoParameters,
    response: Market.Tickers,
    wire: nothing
  }),
  depth: endpoint({
    name: "depth",
    method: "GET",
    path: "/api/v2/market/depth",
    permission: undefined,
    envelope: "standard",
    idempotency: "read",
    weight: weight(1, undefined),
    request: Market.DepthQuery,
    response: Market.OrderBook,
    wire: asIs
  }),
  candles: endpoint({
    name: "candles",
    method: "GET",
    path: "/api/v2/market/candles",
    permission: undefined,
    envelope: "standard",
    idempotency: "read",
    weight: weight(1, undefined),
    request: Market.CandlesQuery,
    response: Market.Candles,
    wire: asIs
  }),
  recentTrades: endpoint({
    name: "recentTrades",
    method: "GET",
    path: "/api/v2/market/fills",
    permission: undefined,
    envelope: "standard",
    idempotency: "read",
    weight: weight(5, undefined),
    request: Market.TradesQuery,
    response: Market.Trades,
    contradiction: (query, trades) => otherSymbol(query.symbol, trades),
    wire: asIs
  }),
  products: endpoint({
    name: "products",
    method: "GET",
    path: "/products",
    permission: undefined,
    envelope: "standard",
    idempotency: "read",
    weight: weight(1, undefined),
    request: NoParameters,
    response: Schema.Array(Schema.Unknown),
    wire: nothing
  })
} as const

/**
 * The name of an endpoint.
 *
 * @since 0.1.0
 * @category endpoints
 */
export type EndpointName = keyof typeof endpoints

/**
 * Every endpoint, by its path.
 *
 * @since 0.1.0
 * @category endpoints
 */
export const endpointByPath: ReadonlyMap<string, Endpoint> = new Map(
  Object.values(endpoints).map((e): [string, Endpoint] => [e.path, e])
)
