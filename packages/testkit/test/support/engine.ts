/**
 * The engine by example: one engine with the product BTCUSDT_SPBL (price 2 decimals, quantity 4 decimals, minimum
 * order value 5 USDT, default fees 0.001), users with deposits, orders written as on the wire, and readers of what
 * the engine holds. Every expected figure in the tests that use these is worked out by hand from the rules
 * (price-time priority, fills at the maker's price, fees = floor(what a side receives × rate), funds frozen at the
 * order's own price).
 */
import { assert } from "@effect/vitest"
import { Engine } from "../../src/index.ts"

export const T0 = 1_700_000_000_000
export const SYMBOL = "BTCUSDT_SPBL"

export const makeEngine = (options: Engine.EngineOptions = {}, minOrderValue = "5"): Engine.Engine => {
  const engine = new Engine.Engine({ seed: 7, ...options })
  engine.addProduct({
    symbol: SYMBOL,
    base: "BTC",
    quote: "USDT",
    pricePrecision: 2,
    quantityPrecision: 4,
    minOrderValue
  })
  return engine
}

/** A new user with SPOT deposits. */
export const addUser = (engine: Engine.Engine, deposits: Record<string, string> = {}): string => {
  const userId = engine.addUser()
  for (const [coin, amount] of Object.entries(deposits)) engine.deposit(userId, "SPOT", coin, amount, T0)
  return userId
}

export const limit = (
  side: "buy" | "sell",
  price: string,
  quantity: string,
  clientOrderId: string,
  force: Engine.OrderRequest["force"] = "normal"
): Engine.OrderRequest => ({ symbol: SYMBOL, side, orderType: "limit", force, price, quantity, clientOrderId })

export const market = (
  side: "buy" | "sell",
  quantity: string,
  clientOrderId: string,
  force = "normal"
): Engine.OrderRequest => ({ symbol: SYMBOL, side, orderType: "market", force, price: "0", quantity, clientOrderId })

/** Places an order that must be accepted; answers its orderId. */
export const place = (engine: Engine.Engine, userId: string, request: Engine.OrderRequest, now = T0): string => {
  const result = engine.placeOrder(userId, request, now)
  if (!result.ok) assert.fail(`refused ${result.code} ${result.msg}: ${JSON.stringify(request)}`)
  assert.strictEqual(result.clientOrderId, request.clientOrderId)
  return result.orderId
}

export const balance = (engine: Engine.Engine, userId: string, coin: string, account: Engine.AccountType = "SPOT") => {
  const found = engine.balances(userId).find((b) => b.coin === coin && b.accountType === account)
  return { available: found?.available ?? "0", frozen: found?.frozen ?? "0" }
}

export const orderOf = (engine: Engine.Engine, orderId: string): Engine.OrderView => {
  const order = engine.order(orderId)
  if (order === undefined) assert.fail(`no order ${orderId}`)
  return order
}

export const fills = (order: Engine.OrderView) => ({
  status: order.status,
  fillQuantity: order.fillQuantity,
  fillTotalAmount: order.fillTotalAmount,
  latestFillPrice: order.latestFillPrice,
  maxFillPrice: order.maxFillPrice,
  minFillPrice: order.minFillPrice
})

export const NO_FILLS = {
  fillQuantity: "0",
  fillTotalAmount: "0",
  latestFillPrice: "0",
  maxFillPrice: "0",
  minFillPrice: "0"
}

export const tradeSummary = (trade: Engine.Trade) => ({
  maker: trade.makerOrderId,
  taker: trade.takerOrderId,
  side: trade.takerSide,
  price: trade.price,
  quantity: trade.quantity,
  amount: trade.amount,
  makerFee: trade.makerFee,
  takerFee: trade.takerFee
})

export const openIds = (engine: Engine.Engine, userId: string) =>
  engine.openOrders(userId, SYMBOL, 0, 100).map((o) => o.orderId)

export const totalsOf = (engine: Engine.Engine, coin: string) => {
  const found = engine.totals().find((t) => t.coin === coin)
  if (found === undefined) assert.fail(`no totals for ${coin}`)
  return { supply: found.supply, held: found.held, fees: found.fees }
}

/** Everything observable, to show that a refusal changes nothing. */
export const snapshot = (engine: Engine.Engine, users: ReadonlyArray<string>): string =>
  JSON.stringify({
    balances: users.map((u) => engine.balances(u)),
    ledger: users.map((u) => engine.ledgerOf(u)),
    orders: engine.orderList(),
    trades: engine.tradeList(),
    depth: engine.depth(SYMBOL),
    totals: engine.totals()
  })

/** Exact units (10^-8) of a decimal string with at most 8 decimals. */
export const toUnits = (text: string): bigint => {
  const match = /^(-?)(\d+)(?:\.(\d{1,8}))?$/.exec(text)
  if (match === null) assert.fail(`not an 8-decimal amount: ${text}`)
  const value = BigInt(match[2]! + (match[3] ?? "").padEnd(8, "0"))
  return match[1] === "-" ? -value : value
}

export const isBigId = (id: string): boolean => /^\d{19}$/.test(id) && BigInt(id) > 2n ** 53n
