/**
 * No transport follows a redirect. A loopback pair: origin A answers every request with a redirect to the same path
 * on origin B, which answers anything with a valid page of the venue. Over each transport (`NodeSpotClient`'s undici,
 * effect-undici and node:http; core over `FetchHttpClient`, Node's fetch, which follows redirects by default), for
 * each redirect status, a signed POST with a body (a bills page), a signed GET (transfer status) and an order fail with
 * a `RedirectError` naming the status and B's origin, sent once; B never sees a request, so neither the credential
 * headers nor a signed body ever reach it.
 */
import { assert, describe, it } from "@effect/vitest"
import { SpotClient, Venue } from "@spotkit/core"
import { Effect, Layer, Redacted } from "effect"
import { FetchHttpClient } from "effect/http"
import { createServer, type IncomingMessage } from "node:http"
import type { AddressInfo } from "node:net"
import { NodeSpotClient } from "../src/index.ts"

interface Seen {
  readonly method: string
  readonly url: string
  readonly headers: IncomingMessage["headers"]
  readonly body: string
}

// A valid bills page, which A and B both answer to the bills path: a client that took B's answer, or A's redirect,
// for the venue's would succeed.
const BILLS = Venue.endpoints.fundingBills.path
const BILLS_PAGE = JSON.stringify({
  code: "00000",
  msg: "success",
  requestTime: 1695806880000,
  data: {
    total: 1,
    page: 1,
    pageSize: 10,
    hasNextPage: false,
    items: [{
      billId: "2001000000000000004",
      coinId: 2,
      coinName: "USDT",
      bizType: "transfer_out",
      deltaAmount: "-12.5",
      afterAmount: "49987.5",
      fees: "0",
      cTime: "1695806875837"
    }]
  }
})

const listen = (answer: (request: IncomingMessage) => { status: number; headers: Record<string, string> }) =>
  Effect.gen(function*() {
    const seen: Array<Seen> = []
    const http = createServer((request, response) => {
      const chunks: Array<Buffer> = []
      request.on("data", (chunk: Buffer) => chunks.push(chunk))
      request.on("end", () => {
        const body = Buffer.concat(chunks).toString("utf8")
        seen.push({ method: request.method ?? "", url: request.url ?? "", headers: request.headers, body })
        const { headers, status } = answer(request)
        const text = request.url === BILLS ? BILLS_PAGE : `{"code":"00000","msg":"success","data":[]}`
        response.writeHead(status, { "content-type": "application/json", ...headers })
        response.end(text)
      })
    })
    const port = yield* Effect.acquireRelease(
      Effect.callback<number>((resume) => {
        http.listen(0, "127.0.0.1", () => resume(Effect.succeed((http.address() as AddressInfo).port)))
      }),
      () =>
        Effect.callback<void>((resume) => {
          http.close(() => resume(Effect.void))
          http.closeAllConnections()
        })
    )
    return { origin: `http://127.0.0.1:${port}`, seen }
  })

const credentials = {
  apiKey: Redacted.make("redirect-test-key-41f0"),
  secretKey: Redacted.make("redirect-test-secret-9a7c"),
  passphrase: Redacted.make("redirect-test-pass-3e21")
}

const transports = ["undici", "effect-undici", "node:http", "fetch"] as const

const clientLayer = (transport: typeof transports[number], baseUrl: string) => {
  const options: SpotClient.Options = {
    baseUrl,
    credentials,
    rateLimit: false,
    retry: { baseDelay: 0 },
    syncServerTime: false,
    checkSymbolRules: false
  }
  return transport === "fetch"
    ? SpotClient.layer(options).pipe(Layer.provide(FetchHttpClient.layer))
    : NodeSpotClient.layer({ ...options, transport })
}

describe("no transport follows a redirect", () => {
  for (const transport of transports) {
    for (const status of [301, 302, 303, 307, 308]) {
      it.live(`${transport}, HTTP ${status}: a RedirectError naming B; B never sees a request`, () =>
        Effect.gen(function*() {
          const b = yield* listen(() => ({ status: 200, headers: {} }))
          const a = yield* listen((request) => ({ status, headers: { location: `${b.origin}${request.url}` } }))
          const failures = yield* Effect.gen(function*() {
            const client = yield* SpotClient.SpotClient
            return yield* Effect.all([
              Effect.flip(client.fundingBillsPage({ pageSize: 10 })),
              Effect.flip(client.transferStatus({})),
              Effect.flip(client.placeOrder({
                symbol: "BTCUSDT_SPBL",
                side: "buy",
                orderType: "limit",
                price: "100",
                quantity: "1",
                clientOrderId: "redirected-1"
              }))
            ])
          }).pipe(Effect.provide(clientLayer(transport, a.origin)))
          const [bills, transfers, order] = failures
          for (const error of [bills, transfers, ...(status === 303 ? [] : [order])]) {
            assert.strictEqual(error.reason._tag, "RedirectError", error.message)
            if (error.reason._tag !== "RedirectError") continue
            assert.strictEqual(error.reason.httpStatus, status)
            assert.strictEqual(error.reason.target, b.origin)
            assert.include(error.message, `HTTP ${status} to ${b.origin}`)
          }
          // A 303 says the server acted on the order: it is looked up by its clientOrderId, which is redirected too.
          if (status === 303) {
            assert.strictEqual(order.reason._tag, "OutcomeUnknownError")
            assert.include(order.message, "HTTP 303")
          }
          for (const error of failures) {
            for (const secret of Object.values(credentials)) assert.notInclude(String(error), Redacted.value(secret))
          }
          // Each call sent once to A (the 303 order: and its lookup), signed and with its body; nothing reached B.
          assert.deepStrictEqual(
            a.seen.map((seen) => seen.method),
            status === 303 ? ["POST", "GET", "POST", "POST"] : ["POST", "GET", "POST"]
          )
          assert.isDefined(a.seen[0]!.headers["access-sign"])
          assert.include(a.seen[0]!.body, "pageSize")
          assert.deepStrictEqual(b.seen, [])
        }))
    }
  }
})
