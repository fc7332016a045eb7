// What every contestant of the client benchmark (bench/src/peers.ts) sends, and the credentials it signs with.

/** The trading pair of every request. */
export const SYMBOL = "BTCUSDT_SPBL"

/** Orders per open-orders page: the servers hold exactly this many open orders of the caller. */
export const OPEN_ORDERS_LIMIT = 10

/** The sandbox's demo user alice (`TestExchange.demoKeys.alice`); the raw server accepts anything. */
export const credentials = {
  apiKey: "demo-alice-key",
  secretKey: "demo-alice-secret",
  passphrase: "demo-alice-pass"
} as const

export const paths = {
  placeOrder: "/api/v2/trade/orders",
  openOrders: "/api/v2/trade/open-orders"
} as const

export type PathKey = keyof typeof paths

/**
 * The place-order body, in the field order spotkit writes: a limit buy far below the book, immediate-or-cancel, so
 * the sandbox places it (an orderId, balances frozen and released) and cancels it at once. Nothing rests, so the
 * open-orders page stays the same for the whole run and the balances never run out.
 */
export const orderBody = (clientOrderId: string) =>
  ({
    symbol: SYMBOL,
    side: "buy",
    orderType: "limit",
    force: "ioc",
    price: "100",
    quantity: "0.06",
    clientOrderId
  }) as const

/** The open-orders body: the first page of `OPEN_ORDERS_LIMIT`. */
export const openOrdersBody = { symbol: SYMBOL, limit: OPEN_ORDERS_LIMIT, pageNo: 0 } as const
