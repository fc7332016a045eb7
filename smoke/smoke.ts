/**
 * The portable smoke program: `@spotkit/core` over the platform's own `fetch` (`FetchHttpClient`) and WebCrypto,
 * unchanged on Node, Bun, Deno and in a browser. It places an order and finds its exact 19-digit id among the open
 * orders (answered as a bare JSON number above 2^53 when placed, as a string when listed), streams every funding bill
 * (1,000 and more, newest first, each once), and transfers USDT to bob.
 *
 * Run by `scripts/installable.ts` in a fresh project that installed the packed packages, against the installed
 * `spotkit-sandbox`; `cli.ts` and `browser.ts` are its entry points.
 */
import { SpotClient } from "@spotkit/core"
import { Data, Effect, Layer, Redacted, Stream } from "effect"
import { FetchHttpClient } from "effect/http"

/** Where the sandbox is and who we are: its banner's `SPOTKIT_*` lines. */
export interface Config {
  readonly baseUrl: string
  readonly apiKey: string
  readonly secretKey: string
  readonly passphrase: string
  /** bob's user id, the transfer's receiver. */
  readonly toUserId: string
}

/** What one run did, printed as one JSON line. */
export interface Report {
  readonly runtime: string
  readonly orderId: string
  readonly bills: number
  readonly transferId: string
}

/** A result other than the one expected. */
export class SmokeError extends Data.TaggedError("SmokeError")<{ readonly message: string }> {}

const check = (ok: boolean, message: string): Effect.Effect<void, SmokeError> =>
  ok ? Effect.void : Effect.fail(new SmokeError({ message }))

/** The client the smoke program uses: core's layer over `fetch`, nothing platform-specific. */
export const clientLayer = (config: Config, options: Partial<SpotClient.Options> = {}) =>
  SpotClient.layer({
    baseUrl: config.baseUrl,
    credentials: {
      apiKey: Redacted.make(config.apiKey),
      secretKey: Redacted.make(config.secretKey),
      passphrase: Redacted.make(config.passphrase)
    },
    ...options
  }).pipe(Layer.provide(FetchHttpClient.layer))

/** The program; `runtime` names the platform in the report and in the order's clientOrderId. */
export const program = (config: Config, runtime: string) =>
  Effect.gen(function*() {
    const client = yield* SpotClient.SpotClient

    const clientOrderId = `smoke-${runtime}-${Date.now()}`
    const placed = yield* client.placeOrder({
      symbol: "BTCUSDT_SPBL",
      side: "buy",
      orderType: "limit",
      force: "normal",
      price: "29000",
      quantity: "0.01",
      clientOrderId
    })
    yield* check(
      /^\d{19}$/.test(placed.orderId) && BigInt(placed.orderId) > 2n ** 53n,
      `orderId ${placed.orderId} is not an exact 19-digit id above 2^53`
    )
    const open = yield* Stream.runCollect(client.openOrders({ symbol: "BTCUSDT_SPBL" }))
    yield* check(
      open.some((order) => order.orderId === placed.orderId && order.clientOrderId === clientOrderId),
      `order ${placed.orderId} (${clientOrderId}) is not among the ${open.length} open orders with the same id`
    )

    const ids = new Set<string>()
    let previous = Number.POSITIVE_INFINITY
    let ordered = true
    yield* client.fundingBills({ pageSize: 100 }).pipe(
      Stream.runForEach((bill) =>
        Effect.sync(() => {
          ids.add(bill.billId)
          if (bill.cTime > previous) ordered = false
          previous = bill.cTime
        })
      )
    )
    yield* check(ids.size >= 1000, `${ids.size} funding bills, expected 1,000 or more`)
    yield* check(ordered, "funding bills not newest first")

    const transfer = yield* client.internalTransfer({
      toUserId: config.toUserId,
      coin: "USDT",
      amount: "1.5",
      fromAccountType: "SPOT",
      toAccountType: "SPOT"
    })
    yield* check(/^\d+$/.test(transfer.id), `transfer id ${transfer.id}`)

    const report: Report = { runtime, orderId: placed.orderId, bills: ids.size, transferId: transfer.id }
    return report
  }).pipe(Effect.provide(clientLayer(config)))
