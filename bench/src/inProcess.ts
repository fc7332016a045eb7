// What the in-process benchmarks of the client share (client.ts, and the paired A/B in ab/): the exchange they place
// into, the order they place, and the baseline that places it with no client ("the exchange alone").
import { Venue } from "@spotkit/core"
import { TestExchange } from "@spotkit/testkit"
import { createHmac } from "node:crypto"

/** The demo exchange with nothing that varies by run: no rate limits, no trade records, no request log. */
export const exchangeOptions: TestExchange.Options = {
  ...TestExchange.demo({ bills: 0 }),
  rateLimits: false,
  recordTrades: false,
  requestLogSize: 0
}

/**
 * The `i`th order of a run, its clientOrderId `prefix-i`. Every order rests (a limit buy far below the book), so each
 * contestant does the same engine work per order.
 */
export const restingOrder = (prefix: string) => (i: number) =>
  ({
    symbol: "BTCUSDT_SPBL",
    side: "buy",
    orderType: "limit",
    force: "normal",
    price: "100",
    quantity: "0.06",
    clientOrderId: `${prefix}-${i}`
  }) as const

const PATH = Venue.endpoints.placeOrder.path

/**
 * `order` as alice's signed request, straight into the exchange's protocol at the wall clock's time (no client: no
 * checks, no decoding beyond `JSON.parse`); throws unless it is placed.
 */
export const placeAlone = (exchange: TestExchange.Service, order: object): void => {
  const key = TestExchange.demoKeys.alice
  const body = JSON.stringify(order)
  const now = Date.now()
  const timestamp = String(now)
  const sign = createHmac("sha256", key.secretKey).update(timestamp + "POST" + PATH + body).digest("base64")
  const headers: Record<string, string> = {
    "access-key": key.apiKey,
    "access-sign": sign,
    "access-timestamp": timestamp,
    "access-passphrase": key.passphrase,
    "content-type": "application/json",
    locale: "en-US"
  }
  const outcome = exchange.handleAt(
    { method: "POST", path: PATH, header: (name) => headers[name], body, clientAddress: "127.0.0.1" },
    now
  )
  if (outcome._tag !== "Respond" || outcome.status !== 200) throw new Error(`refused: ${JSON.stringify(outcome)}`)
  JSON.parse(outcome.body)
}
