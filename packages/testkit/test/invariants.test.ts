/**
 * The engine's books after every step of a seeded random session (a small PRNG, no shrinking: each seed is one fixed
 * session, so a failure names the seed and the step): several users place limit orders of every force at prices
 * around one mid, market buys by quote amounts that do not divide into whole lots, market sells, and cancel their
 * own orders at random, partly filled ones included. After every step, checked from the engine's public views alone
 * with exact integers:
 *
 * - per coin, every user's available + frozen plus the fees collected equals the deposits; nothing is negative;
 * - the book is never crossed, and it is exactly the open orders' unfilled quantities, level by level;
 * - each user's open-orders list (all pages) is the set of their resting orders, and what they hold frozen is what
 *   those orders need;
 * - each new trade's amount is its price × quantity, its fees are the rates of what each side receives rounded down,
 *   and the ledger entries the step wrote sum, per user and coin, to that user's balance change;
 * - every order's fill quantity, total and last/highest/lowest fill price agree with the trades it took part in, and
 *   its status with its fills; the fills view holds one fill per side of every trade.
 */
import { assert, describe, it } from "@effect/vitest"
import type { Engine } from "../src/index.ts"
import { prng } from "../src/internal/prng.ts"
import { makeEngine, SYMBOL, toUnits as units8 } from "./support/engine.ts"

const T0 = 1_700_000_000_000
const COINS = ["BTC", "USDT"] as const
const SCALE = 10n ** 8n

const decimal = (value: bigint, decimals: number): string => {
  const digits = value.toString().padStart(decimals + 1, "0")
  return decimals === 0 ? digits : `${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`
}

const u = (text: string): bigint => units8(text)

interface Session {
  readonly engine: Engine.Engine
  readonly users: ReadonlyArray<string>
  readonly deposits: Map<string, bigint>
  readonly makerRate: bigint
  readonly takerRate: bigint
}

const RATES = ["0", "0.001", "0.0025", "0.000333"] as const

const start = (random: () => number): Session => {
  const makerFeeRate = RATES[Math.floor(random() * RATES.length)]!
  const takerFeeRate = RATES[Math.floor(random() * RATES.length)]!
  const engine = makeEngine({ makerFeeRate, takerFeeRate }, "1")
  const deposits = new Map<string, bigint>()
  const users: Array<string> = []
  for (let i = 0; i < 4; i++) {
    const userId = engine.addUser()
    users.push(userId)
    for (const [coin, amount] of [["BTC", "5"], ["USDT", "600"]] as const) {
      engine.deposit(userId, "SPOT", coin, amount, T0)
      deposits.set(coin, (deposits.get(coin) ?? 0n) + u(amount))
    }
  }
  const rate = (text: string) => u(text) / 100n // 10^-6 units
  return { engine, users, deposits, makerRate: rate(makerFeeRate), takerRate: rate(takerFeeRate) }
}

/** One random step: an order or a cancel; what it was, for the failure message. */
const step = (session: Session, random: () => number, n: number): string => {
  const { engine, users } = session
  const user = users[Math.floor(random() * users.length)]!
  const now = T0 + n
  const roll = random()
  if (roll < 0.2) {
    const open = engine.openOrders(user, SYMBOL, 0, 100)
    if (open.length > 0) {
      const target = open[Math.floor(random() * open.length)]!
      const ref = random() < 0.5 ? { orderId: target.orderId } : { clientOrderId: target.clientOrderId }
      const result = engine.cancel(user, SYMBOL, ref, now)
      return `cancel ${JSON.stringify(ref)} by ${user}: ${JSON.stringify(result)}`
    }
  }
  const side = random() < 0.5 ? "buy" : "sell"
  const clientOrderId = `c${n}`
  let request: Engine.OrderRequest
  if (roll < 0.35) {
    // A market buy of a quote amount in cents (rarely a whole number of lots at any price), or a market sell.
    const quantity = side === "buy"
      ? decimal(BigInt(1 + Math.floor(random() * 20_000)), 2)
      : decimal(BigInt(1 + Math.floor(random() * 20_000)), 4)
    request = { symbol: SYMBOL, side, orderType: "market", force: "normal", price: "0", quantity, clientOrderId }
  } else {
    const forces = ["normal", "normal", "normal", "postOnly", "fok", "ioc"] as const
    const force = forces[Math.floor(random() * forces.length)]!
    // Prices 95.00 .. 105.00 around a mid of 100, buys leaning low and sells high so that a book builds up.
    const offset = Math.floor(random() * 700) - (side === "buy" ? 550 : 150)
    const price = decimal(BigInt(10_000 + offset), 2)
    const quantity = decimal(BigInt(1 + Math.floor(random() * 15_000)), 4)
    request = { symbol: SYMBOL, side, orderType: "limit", force, price, quantity, clientOrderId }
  }
  const result = engine.placeOrder(user, request, now)
  return `place ${JSON.stringify(request)} by ${user}: ${result.ok ? result.orderId : result.code}`
}

type Holdings = Map<string, bigint>

const holdings = (session: Session): Holdings => {
  const out: Holdings = new Map()
  for (const user of session.users) {
    for (const b of session.engine.balances(user)) {
      out.set(`${user}|${b.accountType}|${b.coin}|available`, u(b.available))
      out.set(`${user}|${b.accountType}|${b.coin}|frozen`, u(b.frozen))
    }
  }
  return out
}

const resting = (status: string) => status === "open" || status === "partial_fill"

const check = (session: Session, tradesBefore: number, what: string) => {
  const { engine, users } = session
  const fail = (message: string): never => assert.fail(`${what}\n  ${message}`)
  const after = holdings(session)
  const totals = new Map(engine.totals().map((t) => [t.coin, t]))

  // Conservation, and nothing negative.
  for (const coin of COINS) {
    let held = 0n
    for (const [key, amount] of after) {
      if (amount < 0n) fail(`${key} is ${amount}`)
      if (key.split("|")[2] === coin) held += amount
    }
    const fees = u(totals.get(coin)!.fees)
    if (held + fees !== session.deposits.get(coin)) {
      fail(`${coin}: held ${held} + fees ${fees} != deposits ${session.deposits.get(coin)}`)
    }
  }

  // The book: never crossed, and exactly the resting orders' unfilled quantities.
  const depth = engine.depth(SYMBOL)
  const bestBid = depth.bids[0]
  const bestAsk = depth.asks[0]
  if (bestBid !== undefined && bestAsk !== undefined && u(bestBid[0]) >= u(bestAsk[0])) {
    fail(`crossed book: bid ${bestBid[0]} >= ask ${bestAsk[0]}`)
  }
  const orders = engine.orderList()
  const levels = { buy: new Map<bigint, [bigint, number]>(), sell: new Map<bigint, [bigint, number]>() }
  for (const order of orders) {
    if (!resting(order.status)) continue
    const level = levels[order.side]
    const price = u(order.price)
    const [quantity, count] = level.get(price) ?? [0n, 0]
    level.set(price, [quantity + u(order.quantity) - u(order.fillQuantity), count + 1])
  }
  const expectedDepth = (side: "buy" | "sell") =>
    [...levels[side]].sort(([a], [b]) => (side === "buy" ? (a < b ? 1 : -1) : a < b ? -1 : 1))
      .map(([price, [quantity, count]]) => [decimal(price / 10n ** 6n, 2), decimal(quantity / 10n ** 4n, 4), count])
  assert.deepStrictEqual(
    { bids: depth.bids, asks: depth.asks },
    { bids: expectedDepth("buy"), asks: expectedDepth("sell") },
    `${what}\n  depth is not the resting orders`
  )

  // Open orders, and what they hold frozen.
  for (const user of users) {
    const listed: Array<string> = []
    for (let page = 0;; page++) {
      const got = engine.openOrders(user, SYMBOL, page, 7)
      listed.push(...got.map((o) => o.orderId))
      if (got.length < 7) break
    }
    const expected = orders.filter((o) => o.userId === user && resting(o.status)).map((o) => o.orderId)
    assert.deepStrictEqual([...listed].sort(), [...expected].sort(), `${what}\n  open orders of ${user}`)
    assert.strictEqual(new Set(listed).size, listed.length, `${what}\n  an open order listed twice`)
    const need = { BTC: 0n, USDT: 0n }
    for (const o of orders) {
      if (o.userId !== user || !resting(o.status)) continue
      const left = u(o.quantity) - u(o.fillQuantity)
      if (o.side === "sell") need.BTC += left
      else need.USDT += left * u(o.price) / SCALE
    }
    for (const coin of COINS) {
      const frozen = after.get(`${user}|SPOT|${coin}|frozen`) ?? 0n
      if (frozen !== need[coin]) fail(`${user} ${coin}: frozen ${frozen}, open orders need ${need[coin]}`)
    }
  }

  // The new trades: amounts, fees, and the ledger entries of the step against the balance changes.
  const trades = engine.tradeList()
  const byId = new Map(orders.map((o) => [o.orderId, o]))
  for (const trade of trades.slice(tradesBefore)) {
    const amount = u(trade.price) * u(trade.quantity) / SCALE
    if (u(trade.amount) !== amount) fail(`trade ${trade.tradeId}: amount ${trade.amount} != price × quantity`)
    const makerRate = session.makerRate
    const takerRate = session.takerRate
    const buyerRate = trade.takerSide === "buy" ? takerRate : makerRate
    const sellerRate = trade.takerSide === "buy" ? makerRate : takerRate
    const buyerFee = u(trade.quantity) * buyerRate / 1_000_000n
    const sellerFee = amount * sellerRate / 1_000_000n
    const [makerFee, takerFee] = trade.takerSide === "buy" ? [sellerFee, buyerFee] : [buyerFee, sellerFee]
    if (u(trade.makerFee) !== makerFee || u(trade.takerFee) !== takerFee) {
      fail(`trade ${trade.tradeId}: fees ${trade.makerFee}/${trade.takerFee}, expected ${makerFee}/${takerFee}`)
    }
    // Fills at the maker's price: a resting limit order.
    const maker = byId.get(trade.makerOrderId)!
    if (maker.orderType !== "limit" || u(maker.price) !== u(trade.price)) fail(`trade ${trade.tradeId}: not at maker`)
    const taker = byId.get(trade.takerOrderId)!
    if (taker.orderType === "limit") {
      const better = taker.side === "buy" ? u(trade.price) <= u(taker.price) : u(trade.price) >= u(taker.price)
      if (!better) fail(`trade ${trade.tradeId}: beyond the taker's limit ${taker.price}`)
    }
  }
  // Orders against their trades.
  const sums = new Map<string, { q: bigint; total: bigint; last: bigint; max: bigint; min: bigint }>()
  for (const trade of trades) {
    for (const id of [trade.makerOrderId, trade.takerOrderId]) {
      const s = sums.get(id) ?? { q: 0n, total: 0n, last: 0n, max: 0n, min: 0n }
      const price = u(trade.price)
      sums.set(id, {
        q: s.q + u(trade.quantity),
        total: s.total + u(trade.amount),
        last: price,
        max: s.max > price ? s.max : price,
        min: s.min !== 0n && s.min < price ? s.min : price
      })
    }
  }
  for (const o of orders) {
    const s = sums.get(o.orderId) ?? { q: 0n, total: 0n, last: 0n, max: 0n, min: 0n }
    const got = [o.fillQuantity, o.fillTotalAmount, o.latestFillPrice, o.maxFillPrice, o.minFillPrice].map(u)
    assert.deepStrictEqual(got, [s.q, s.total, s.last, s.max, s.min], `${what}\n  fills of ${JSON.stringify(o)}`)
    const quoteBuy = o.orderType === "market" && o.side === "buy"
    const full = !quoteBuy && s.q === u(o.quantity)
    if (!quoteBuy && s.q > u(o.quantity)) fail(`overfilled ${JSON.stringify(o)}`)
    if (quoteBuy && s.total > u(o.quantity)) fail(`market buy spent more than its amount: ${JSON.stringify(o)}`)
    const status = o.status
    if (full && status !== "full_fill") fail(`filled but ${status}: ${JSON.stringify(o)}`)
    if (!quoteBuy && !full && status === "full_fill") fail(`full_fill without its quantity: ${JSON.stringify(o)}`)
    if (status === "open" && s.q !== 0n) fail(`open with fills: ${JSON.stringify(o)}`)
    if (status === "partial_fill" && s.q === 0n) fail(`partial_fill without fills: ${JSON.stringify(o)}`)
    if (resting(status) && (o.orderType === "market" || o.force === "ioc" || o.force === "fok")) {
      fail(`rests: ${JSON.stringify(o)}`)
    }
    if (o.force === "fok" && o.orderType === "limit" && s.q !== 0n && !full) fail(`fok partly: ${JSON.stringify(o)}`)
  }
  const fills = engine.fillList()
  if (fills.length !== 2 * trades.length) fail(`${fills.length} fills for ${trades.length} trades`)
}

/** Per user and coin (SPOT): the sum of the ledger entries' deltas from index `from` of each user's ledger. */
const ledgerDeltas = (session: Session, from: Map<string, number>) => {
  const out = new Map<string, bigint>()
  for (const user of session.users) {
    const entries = session.engine.ledgerOf(user, "SPOT")
    for (const entry of entries.slice(from.get(user) ?? 0)) {
      const key = `${user}|SPOT|${entry.coinName}`
      out.set(key, (out.get(key) ?? 0n) + u(entry.deltaAmount))
    }
  }
  return out
}

const ledgerSizes = (session: Session) =>
  new Map(session.users.map((user) => [user, session.engine.ledgerOf(user, "SPOT").length]))

describe("Engine invariants after every step of seeded random sessions", () => {
  // One test a seed: each well inside the default timeout on a loaded machine.
  it.each([1, 2, 3, 4, 5, 6])(
    "seed %i: conservation, book, open orders, frozen funds, trades, ledger, orders",
    (seed) => {
      const random = prng(seed)
      const session = start(random)
      for (let n = 1; n <= 250; n++) {
        const before = holdings(session)
        const sizes = ledgerSizes(session)
        const tradesBefore = session.engine.tradeList().length
        const what = `seed ${seed}, step ${n}: ${step(session, random, n)}`
        check(session, tradesBefore, what)
        // The step's ledger entries sum, per user and coin, to the change of available + frozen.
        const deltas = ledgerDeltas(session, sizes)
        const after = holdings(session)
        for (const user of session.users) {
          for (const coin of COINS) {
            const total = (h: Holdings) =>
              (h.get(`${user}|SPOT|${coin}|available`) ?? 0n) + (h.get(`${user}|SPOT|${coin}|frozen`) ?? 0n)
            const key = `${user}|SPOT|${coin}`
            assert.strictEqual(deltas.get(key) ?? 0n, total(after) - total(before), `${what}\n  ledger of ${key}`)
          }
        }
      }
      assert.isAbove(session.engine.tradeList().length, 50, `seed ${seed}: too few trades to mean anything`)
    }
  )
})
