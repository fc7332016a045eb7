/**
 * A scripted, stateful fake of the venue behind an `HttpClient`, for the core tests. It checks signatures with
 * node:crypto (independently of the client's WebCrypto signer), keeps orders and bills, pages them the way
 * docs/venue/trading.md#open-orders and account.md#funding-bills say, and plays faults from a script. The real exchange double is `@spotkit/testkit`. Also here: a
 * `ScriptedVenue` whose answers can be replaced after it applied a request, and the orders, requests and calls the
 * core tests share.
 */
import { assert } from "@effect/vitest"
import { Clock, Effect, Layer, Redacted, Stream } from "effect"
import { HttpClient, HttpClientError, type HttpClientRequest, HttpClientResponse } from "effect/http"
import { TestClock } from "effect/testing"
import { createHmac } from "node:crypto"
import { type Bill, type Order, SpotClient, SpotError, type Transfer, Venue } from "../../src/index.ts"
import * as Surface from "./fakeSurface.ts"

export const credentials = {
  apiKey: "test-api-key-7f3a",
  secretKey: "test-secret-key-c0ffee-9b1d",
  passphrase: "test-passphrase-a5e2"
} as const

export interface Received {
  /** The path and query, as signed. */
  readonly path: string
  /** The path without the query. */
  readonly pathname: string
  readonly method: string
  /** The query's parameters (GET). */
  readonly query: Readonly<Record<string, string>>
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
  readonly json: Record<string, unknown>
}

export type Fault =
  /** Answer with this HTTP status and body text without applying the request. */
  | { readonly kind: "http"; readonly status: number; readonly body: string }
  /** Answer with a venue error envelope without applying the request. */
  | { readonly kind: "venue"; readonly code: string; readonly msg?: string; readonly status?: number }
  /** The connection fails before the venue sees the request. */
  | { readonly kind: "dropBefore" }
  /** The venue applies the request, then the answer is lost. */
  | { readonly kind: "dropAfter" }
  /** The venue applies the request, then answers with this body text. */
  | { readonly kind: "garbleAfter"; readonly body: string }
  /** The venue applies the request, and its answer never comes (the caller gives up, or its timeout ends it). */
  | { readonly kind: "hangAfter" }

export interface FakeOrder {
  readonly orderId: bigint
  readonly symbol: string
  readonly clientOrderId: string
  readonly side: string
  readonly orderType: string
  readonly price: string
  readonly quantity: string
  readonly cTime: number
  /** As the venue answers it (`open` when absent); `full_fill` and `cancelled` orders are not open. */
  readonly status?: string
  readonly fillQuantity?: string
}

export interface FakeBill {
  readonly billId: string
  readonly coinId: number
  readonly coinName: string
  readonly bizType: string
  readonly deltaAmount: string
  readonly afterAmount: string
  readonly fees: string
  readonly cTime: number
}

export interface FakeVenueOptions {
  /** Server clock minus the client's clock (ms). */
  readonly skewMillis?: number
  /** Reject a batch item (by its JSON) with a code, or accept it (undefined). */
  readonly rejectItem?: (item: Record<string, unknown>) => string | undefined
  /** Send order ids as JSON strings instead of numbers. */
  readonly idsAsStrings?: boolean
  /** The credentials the venue accepts. @default `credentials` */
  readonly credentials?: { readonly apiKey: string; readonly secretKey: string; readonly passphrase: string }
  /** History and fills treat `after`/`before` as inclusive (the spec's choice is exclusive). */
  readonly inclusiveBounds?: boolean
  /** Cancels of an order that is not open answer an error envelope (43001, 43004) instead of `result: false`. */
  readonly cancelErrorsAsEnvelope?: boolean
  /** Paths the venue does not serve: answered HTTP 404 (a venue without orderInfo, say). */
  readonly notServed?: ReadonlyArray<string>
  /** The most transfers a status page holds, whatever the size asked (pages still placed by the size asked). */
  readonly transfersServed?: number
  /** Every transfer status page answers page 1. */
  readonly ignoresTransferPage?: boolean
}

/** A realistic "now" for tests: set it with `TestClock.setTime(NOW)` (the venue wants 13-digit timestamps). */
export const NOW = 1_763_800_000_000

export const FIRST_ORDER_ID = 602876318261969338n

const hmac = (secret: string, text: string) => createHmac("sha256", secret).update(text).digest("base64")

export const envelope = (code: string, msg: string, requestTime: number, dataJson: string) =>
  `{"code":"${code}","msg":${JSON.stringify(msg)},"requestTime":${requestTime},"data":${dataJson}}`

export class FakeVenue {
  /** The signed requests the venue received. */
  readonly requests: Array<Received> = []
  /**
   * The public requests (server time, exchangeInfo), kept apart: the client sends them on its own (a time sync before
   * its first signed request, the symbol rules before its first order), and the tests count signed requests.
   */
  readonly publicRequests: Array<Received> = []
  /** The last request of either kind. */
  last: Received | undefined
  readonly orders: Array<FakeOrder> = []
  readonly bills: Array<FakeBill> = []
  readonly fills: Array<Surface.FakeFill> = []
  readonly transfers: Array<Surface.FakeTransfer> = []
  readonly balances: Array<Surface.FakeBalance> = []
  /** The symbol rules exchangeInfo answers (the venue's sample fields). */
  readonly rules: Array<Record<string, unknown>> = [Surface.rulesOf(SYMBOL)]
  readonly faults: Array<{ readonly path?: string; readonly fault: Fault }> = []
  /** Called after each request is handled (e.g. to insert bills between pages). */
  onHandled: (request: Received) => void = () => {}
  skewMillis: number
  private nextOrderId = FIRST_ORDER_ID
  private nextTransferId = 9_000_000_000_000_000_001n

  readonly options: FakeVenueOptions
  constructor(options: FakeVenueOptions = {}) {
    this.options = options
    this.skewMillis = options.skewMillis ?? 0
  }

  /** Queues a fault for the next request (to `path`, if given). */
  fail(fault: Fault, path?: string): this {
    this.faults.push(path === undefined ? { fault } : { path, fault })
    return this
  }

  count(path: string): number {
    return this.requests.filter((request) => request.path === path || request.pathname === path).length
  }

  get layer(): Layer.Layer<HttpClient.HttpClient> {
    return Layer.succeed(HttpClient.HttpClient, this.client)
  }

  get client(): HttpClient.HttpClient {
    return HttpClient.make((request, url) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => this.handle(request, url, now + this.skewMillis))
    )
  }

  private handle(request: HttpClientRequest.HttpClientRequest, url: URL, serverNow: number) {
    const body = request.body._tag === "Uint8Array" ? new TextDecoder().decode(request.body.body) : ""
    const headers: Record<string, string> = { ...request.headers }
    const path = url.pathname + url.search
    const received: Received = {
      path,
      pathname: url.pathname,
      method: request.method,
      query: Object.fromEntries(url.searchParams),
      headers,
      body,
      json: body === "" ? {} : JSON.parse(body)
    }
    const isPublic = isPublicPath(url.pathname)
    ;(isPublic ? this.publicRequests : this.requests).push(received)
    this.last = received
    const respond = (status: number, text: string) =>
      Effect.succeed(HttpClientResponse.fromWeb(request, new Response(text, { status })))
    const lost = () =>
      Effect.fail(
        new HttpClientError.HttpClientError({
          reason: new HttpClientError.TransportError({ request, description: "connection reset by peer" })
        })
      )
    const venueError = (code: string, msg: string, status = 400) =>
      respond(status, envelope(code, msg, serverNow, "null"))

    // A fault without a path strikes the next signed request; a public one only by its path.
    const index = this.faults.findIndex((entry) =>
      entry.path === undefined ? !isPublic : entry.path === path || entry.path === url.pathname
    )
    const fault = index === -1 ? undefined : this.faults.splice(index, 1)[0]!.fault
    if (fault?.kind === "http") return respond(fault.status, fault.body)
    if (fault?.kind === "venue") return venueError(fault.code, fault.msg ?? "scripted", fault.status ?? 400)
    if (fault?.kind === "dropBefore") return lost()
    if (isPublic) {
      const answer = Surface.publicAnswer(this, url.pathname, received, serverNow)
      return respond(answer.status, answer.text)
    }

    // Authentication as docs/venue/signing.md says.
    const timestamp = headers["access-timestamp"] ?? ""
    if (headers["access-key"] === undefined) return venueError("40001", "ACCESS_KEY cannot be empty")
    if (headers["access-sign"] === undefined) return venueError("40002", "ACCESS_SIGN cannot be empty")
    if (timestamp === "") return venueError("40003", "ACCESS_TIMESTAMP cannot be empty")
    if (headers["access-passphrase"] === undefined) return venueError("40011", "ACCESS_PASSPHRASE cannot be empty")
    if (!/^\d{13}$/.test(timestamp)) return venueError("40005", "Invalid ACCESS_TIMESTAMP")
    const accepted = this.options.credentials ?? credentials
    if (headers["access-key"] !== accepted.apiKey) return venueError("40006", "Invalid ACCESS_KEY")
    if (headers["content-type"] !== "application/json") {
      return venueError("40007", "Invalid Content_Type, please use \"application/json\"")
    }
    if (Math.abs(Number(timestamp) - serverNow) > 30_000) return venueError("40008", "Request timestamp expired")
    if (headers["access-sign"] !== hmac(accepted.secretKey, timestamp + request.method + path + body)) {
      return venueError("40009", "sign signature error")
    }
    if (headers["access-passphrase"] !== accepted.passphrase) {
      return venueError("40012", "apikey/password is incorrect")
    }

    const answer = this.options.notServed?.includes(url.pathname)
      ? { status: 404, text: "<html><body>Not Found</body></html>" }
      : this.apply(url.pathname, received, serverNow)
    this.onHandled(received)
    if (fault?.kind === "dropAfter") return lost()
    if (fault?.kind === "garbleAfter") return respond(200, fault.body)
    if (fault?.kind === "hangAfter") return Effect.never
    return respond(answer.status, answer.text)
  }

  private orderIdJson(id: bigint) {
    return this.options.idsAsStrings ? `"${id}"` : String(id)
  }

  private place(symbol: string, item: Record<string, unknown>, now: number): FakeOrder | string {
    const clientOrderId = String(item.clientOrderId)
    if (this.orders.some((order) => order.clientOrderId === clientOrderId)) return "43118"
    const rejected = this.options.rejectItem?.(item)
    if (rejected !== undefined) return rejected
    const order: FakeOrder = {
      orderId: this.nextOrderId++,
      symbol,
      clientOrderId,
      side: String(item.side),
      orderType: String(item.orderType),
      price: String(item.price),
      quantity: String(item.quantity),
      cTime: now
    }
    this.orders.push(order)
    return order
  }

  private apply(path: string, received: Received, now: number): { status: number; text: string } {
    const json = received.json
    const ok = (dataJson: string) => ({ status: 200, text: envelope("00000", "success", now, dataJson) })
    const error = (code: string, msg: string) => ({ status: 400, text: envelope(code, msg, now, "null") })
    switch (path) {
      case "/api/v2/trade/orders": {
        const placed = this.place(String(json.symbol), json, now)
        if (typeof placed === "string") {
          return error(placed, placed === "43118" ? "clientOrderId duplicate" : "rejected")
        }
        return ok(
          `{"orderId":${this.orderIdJson(placed.orderId)},"clientOrderId":${JSON.stringify(placed.clientOrderId)}}`
        )
      }
      case "/api/v2/trade/batch-orders": {
        const accepted: Array<string> = []
        const failure: Array<string> = []
        for (const item of json.orderList as Array<Record<string, unknown>>) {
          const placed = this.place(String(json.symbol), item, now)
          if (typeof placed === "string") {
            failure.push(
              `{"clientOrderId":${
                JSON.stringify(item.clientOrderId)
              },"errorCode":"${placed}","errorMsg":"rejected ${placed}"}`
            )
          } else {
            accepted.push(
              `{"orderId":${this.orderIdJson(placed.orderId)},"clientOrderId":${JSON.stringify(placed.clientOrderId)}}`
            )
          }
        }
        return ok(`{"resultList":[${accepted.join(",")}],"failure":[${failure.join(",")}]}`)
      }
      case "/api/v2/trade/open-orders": {
        const limit = Number(json.limit ?? 100)
        const pageNo = Number(json.pageNo ?? 0)
        const list = this.orders
          .filter((order) => order.symbol === json.symbol && !Surface.isFinal(order))
          .sort((a, b) => b.cTime - a.cTime || (b.orderId > a.orderId ? 1 : -1))
          .slice(pageNo * limit, pageNo * limit + limit)
          .map((order) =>
            JSON.stringify({
              accountId: "10012",
              symbol: order.symbol,
              orderId: String(order.orderId),
              clientOrderId: order.clientOrderId,
              price: order.price,
              quantity: order.quantity,
              orderType: order.orderType,
              side: order.side,
              status: "open",
              latestFillPrice: "0",
              maxFillPrice: "0",
              minFillPrice: "0",
              fillQuantity: "0",
              fillTotalAmount: "0",
              cTime: String(order.cTime),
              uTime: String(order.cTime)
            })
          )
        return ok(`{"orderInfoResultList":[${list.join(",")}],"nextPage":null,"totals":null}`)
      }
      case "/api/v2/account/fundingBills": {
        const pageSize = Number(json.pageSize ?? 10)
        const pageIndex = Number(json.pageIndex ?? 1)
        const matching = this.bills
          .filter((bill) =>
            (json.coinId === undefined || bill.coinId === json.coinId) &&
            (json.startTime === undefined || bill.cTime > Number(json.startTime)) &&
            (json.endTime === undefined || bill.cTime < Number(json.endTime))
          )
          .sort((a, b) => b.cTime - a.cTime || (BigInt(b.billId) > BigInt(a.billId) ? 1 : -1))
        const items = matching.slice((pageIndex - 1) * pageSize, pageIndex * pageSize)
        return ok(JSON.stringify({
          total: matching.length,
          page: pageIndex,
          pageSize,
          hasNextPage: pageIndex * pageSize < matching.length,
          items: items.map((bill) => ({ ...bill, cTime: String(bill.cTime) }))
        }))
      }
      case "/api/v2/rebate/affiliate/internalWithdrawal": {
        const id = this.nextTransferId++
        this.transfers.push({
          withdrawId: String(id),
          fromUserId: "10012",
          // From the text: JSON.parse would round a 64-bit id.
          toUserId: /"toUserId":(\d+)/.exec(received.body)?.[1] ?? "0",
          coin: String(json.coin),
          amount: String(json.amount),
          status: "SUCCESS",
          createTime: now
        })
        return { status: 200, text: `{"code":"200","id":"${id}","timestamp":${now}}` }
      }
      default:
        return Surface.signedAnswer(this, path, received, now) ??
          { status: 404, text: "<html><body>Not Found</body></html>" }
    }
  }

  /** Adds `count` bills, `perMillis` per millisecond, newest at `newest`. Ids grow with time. */
  addBills(count: number, newest: number, perMillis = 1, coinId = 2): void {
    let after = 1_000_000n
    for (let i = 0; i < count; i++) {
      const cTime = newest - Math.floor((count - 1 - i) / perMillis)
      after += 1n
      this.bills.push({
        billId: String(7_000_000_000_000_000_000n + BigInt(this.bills.length)),
        coinId,
        coinName: coinId === 2 ? "USDT" : "BTC",
        bizType: "deposit",
        deltaAmount: "1",
        afterAmount: `${after}`,
        fees: "0",
        cTime
      })
    }
  }
}

/** Options for `SpotClient.layer` with the fake's credentials. */
export const clientOptions: SpotClient.Options = {
  baseUrl: "https://venue.test",
  credentials: {
    apiKey: Redacted.make(credentials.apiKey),
    secretKey: Redacted.make(credentials.secretKey),
    passphrase: Redacted.make(credentials.passphrase)
  }
}

/** A `SpotClient` layer over the fake venue. */
export const clientLayer = (
  venue: FakeVenue,
  options: Partial<SpotClient.Options> = {}
): Layer.Layer<SpotClient.SpotClient> =>
  SpotClient.layer({ ...clientOptions, ...options }).pipe(Layer.provide(venue.layer))

/**
 * Runs `f` with a client over `venue` at `NOW` (TestClock). Rate limits are off and retries have no backoff unless
 * `options` say otherwise.
 */
export const withClient = <A, E>(
  venue: FakeVenue,
  f: (client: SpotClient.Service) => Effect.Effect<A, E>,
  options: Partial<SpotClient.Options> = {}
): Effect.Effect<A, E> =>
  Effect.gen(function*() {
    yield* TestClock.setTime(NOW)
    return yield* f(yield* SpotClient.SpotClient)
  }).pipe(Effect.provide(clientLayer(venue, { rateLimit: false, retry: { baseDelay: 0 }, ...options })))

/** The symbol the tests trade. */
export const SYMBOL = "BTCUSDT_SPBL"

/** A valid transfer to a 64-bit user id. */
export const sampleTransfer: Transfer.InternalTransferInput = {
  toUserId: "602876318261969338",
  coin: "USDT",
  amount: "1",
  fromAccountType: "SPOT",
  toAccountType: "FUND"
}

/** Asserts the reason's tag and narrows it. */
export const reasonOf = <T extends SpotError.SpotErrorReason["_tag"]>(
  error: SpotError.SpotError,
  tag: T
): Extract<SpotError.SpotErrorReason, { _tag: T }> => {
  assert.strictEqual(error.reason._tag, tag, error.message)
  return error.reason as Extract<SpotError.SpotErrorReason, { _tag: T }>
}

/**
 * Whether a path is one of the venue's public endpoints (server time, exchangeInfo, products): requests the client
 * sends on its own, which tests that count or time the signed requests leave out.
 */
export const isPublicPath = (path: string): boolean =>
  Venue.endpointByPath.has(path) && Venue.endpointByPath.get(path)!.permission === undefined

/** Endpoint paths, by short name. */
export const BILLS = Venue.endpoints.fundingBills.path
export const TRANSFER = Venue.endpoints.internalTransfer.path
export const OPEN_ORDERS = Venue.endpoints.openOrders.path
export const ORDERS = Venue.endpoints.placeOrder.path
export const BATCH = Venue.endpoints.placeOrders.path
export const ORDER_INFO = Venue.endpoints.order.path
export const CANCEL = Venue.endpoints.cancelOrder.path
export const CANCEL_BATCH = Venue.endpoints.cancelOrders.path
export const CANCEL_ALL = Venue.endpoints.cancelAll.path
export const HISTORY = Venue.endpoints.orderHistory.path
export const FILLS = Venue.endpoints.fills.path
export const ASSETS = Venue.endpoints.balances.path
export const TRANSFER_STATUS = Venue.endpoints.transferStatus.path
export const EXCHANGE_INFO = Venue.endpoints.exchangeInfo.path
export const SERVER_TIME = Venue.endpoints.serverTime.path

/** The venue's own order id (exact digits) for a clientOrderId, asserting there is exactly one such order. */
export const venueOrderId = (venue: FakeVenue, clientOrderId: string): string => {
  const orders = venue.orders.filter((order) => order.clientOrderId === clientOrderId)
  assert.strictEqual(orders.length, 1, `venue orders for ${clientOrderId}`)
  return String(orders[0]!.orderId)
}

/** The orderId of a `Placed` outcome (as plain digits), or the outcome's tag otherwise. */
export const orderIdOf = (outcome: Order.BatchOutcome | undefined): string | undefined =>
  outcome?._tag === "Placed" ? String(outcome.orderId) : outcome?._tag

/** Signed requests the venue received on `path` (with or without their query), in order. */
export const requestsTo = (venue: FakeVenue, path: string): Array<Received> =>
  venue.requests.filter((request) => request.path === path || request.pathname === path)

/** `count` clientOrderIds: `${prefix}0`, `${prefix}1`, ... */
export const ids = (count: number, prefix = "c"): Array<string> =>
  Array.from({ length: count }, (_, i) => `${prefix}${i}`)

/** A post-only limit buy of 0.015 at 27123.45, with `clientOrderId` when given. */
export const limitOrder = (clientOrderId?: string): Order.PlaceOrderInput => ({
  symbol: SYMBOL,
  side: "buy",
  orderType: "limit",
  force: "postOnly",
  price: "27123.45",
  quantity: "0.015",
  ...(clientOrderId === undefined ? {} : { clientOrderId })
})

/** A limit buy at `price` (default 100) of `quantity` (default 1). */
export const limitOrderAt = (clientOrderId: string, price = "100", quantity = "1"): Order.PlaceOrderInput => ({
  symbol: SYMBOL,
  side: "buy",
  orderType: "limit",
  price,
  quantity,
  clientOrderId
})

/** A batch item: a limit sell of 0.002 at 30000.1. */
export const batchItem = (clientOrderId: string): Order.BatchItemInput => ({
  side: "sell",
  orderType: "limit",
  price: "30000.1",
  quantity: "0.002",
  clientOrderId
})

export const OLD_ORDER_ID = 500_000_000_000_000_001n

/** An old open order (sell 5 @ 99999) that already uses `clientOrderId`. */
export const addOldOrder = (venue: FakeVenue, clientOrderId: string) =>
  venue.orders.push({
    orderId: OLD_ORDER_ID,
    symbol: SYMBOL,
    clientOrderId,
    side: "sell",
    orderType: "limit",
    price: "99999",
    quantity: "5",
    cTime: NOW - 60_000
  })

/** Runs the bills stream over `venue` and collects it. */
export const streamBills = (venue: FakeVenue, query: Bill.BillQuery = {}) =>
  withClient(venue, (client) => Stream.runCollect(client.fundingBills(query)))

// -----------------------------------------------------------------------------------------------------------------
// venues that answer differently from the fake

/** An answer as the venue sends it. */
export interface Answer {
  readonly status: number
  readonly body: string
}

export type Rewrite = (original: Answer, request: Received) => Answer

/**
 * The fake venue, whose answer to a request can be replaced after the fake has received, checked and applied it:
 * `answerNext(path, rewrite)` replaces the next answer on `path` once.
 */
export class ScriptedVenue extends FakeVenue {
  private readonly scripted: Array<{ readonly path: string; readonly rewrite: Rewrite }> = []

  answerNext(path: string, rewrite: Rewrite): this {
    this.scripted.push({ path, rewrite })
    return this
  }

  protected answerFor(path: string, original: Answer, request: Received): Answer {
    const index = this.scripted.findIndex((entry) => entry.path === path)
    return index === -1 ? original : this.scripted.splice(index, 1)[0]!.rewrite(original, request)
  }

  override get client(): HttpClient.HttpClient {
    const inner = super.client
    return HttpClient.make((request, url) =>
      Effect.flatMap(inner.execute(request), (response) =>
        Effect.map(response.text, (text) => {
          const { body, status } = this.answerFor(
            url.pathname,
            { status: response.status, body: text },
            this.last!
          )
          return HttpClientResponse.fromWeb(request, new Response(body, { status }))
        }))
    )
  }
}

/** A standard envelope of the given code at `NOW`. */
export const answer = (status: number, code: string, data: unknown = null): Answer => ({
  status,
  body: envelope(code, code === "00000" ? "success" : "internal error", NOW, JSON.stringify(data))
})

/** A batch answer in which the venue refused every item of the request with 43012 (a venue checking balance first). */
export const allInsufficient: Rewrite = (_, request) =>
  answer(200, "00000", {
    resultList: [],
    failure: (request.json.orderList as Array<{ readonly clientOrderId: string }>).map(({ clientOrderId }) => ({
      clientOrderId,
      errorCode: "43012",
      errorMsg: "insufficient balance"
    }))
  })

/** A fault that answers with arbitrary text (a success by default), as the venue (or a proxy) might send it. */
export const httpAnswer = (body: string, status = 200): Fault => ({ kind: "http", status, body })

// -----------------------------------------------------------------------------------------------------------------
// one call of each operation, over a fake venue that first plays faults

export type Call<A = unknown> = (client: SpotClient.Service) => Effect.Effect<A, SpotError.SpotError>

export const calls = {
  placeOrder: (client) =>
    client.placeOrder({
      symbol: SYMBOL,
      side: "buy",
      orderType: "limit",
      price: "100",
      quantity: "1",
      clientOrderId: "err-1"
    }),
  openOrdersPage: (client) => client.openOrdersPage({ symbol: SYMBOL }),
  fundingBillsPage: (client) => client.fundingBillsPage({ pageSize: 10 }),
  internalTransfer: (client) => client.internalTransfer(sampleTransfer)
} satisfies Record<string, Call>

/** Runs `call` at `NOW` over a fake venue that first plays `faults`; answers the venue and the call's result. */
export const attempt = <A>(
  faults: ReadonlyArray<Fault>,
  call: Call<A>,
  retry: SpotClient.Options["retry"] = false
) => {
  const venue = new FakeVenue()
  for (const fault of faults) venue.fail(fault)
  return Effect.gen(function*() {
    yield* TestClock.setTime(NOW)
    const client = yield* SpotClient.SpotClient
    const result = yield* Effect.result(call(client))
    return { venue, result }
  }).pipe(Effect.provide(clientLayer(venue, { retry })))
}

/** Like `attempt`, for calls that must fail: answers the error. */
export const failure = (faults: ReadonlyArray<Fault>, call: Call, retry: SpotClient.Options["retry"] = false) =>
  Effect.map(attempt(faults, call, retry), ({ result, venue }) => {
    assert.strictEqual(result._tag, "Failure", "the call should have failed")
    if (result._tag === "Success") throw new Error("unreachable")
    assert.isTrue(SpotError.isSpotError(result.failure))
    return { error: result.failure, venue }
  })
