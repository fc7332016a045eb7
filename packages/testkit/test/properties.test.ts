/**
 * Properties of the engine over random command sequences: limit and market orders of every force for 2–4 users on
 * 1–2 symbols (sharing coins: BTC is the base of one and the quote of the other), cancels (also of others' and of
 * finished orders), transfers between any accounts (also refused ones) and deposits, with random fee rates.
 *
 * The default suite runs `SPOTKIT_PROPERTY_RUNS` (200) cases per property; `pnpm test:properties` runs 10K.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { isDeepStrictEqual } from "node:util"
import { Engine } from "../src/index.ts"
import {
  ACCOUNTS,
  type AccountType,
  decimal,
  type ExpectedStatus,
  type Force,
  Model,
  type ModelProduct,
  type ModelRequest,
  SCALE,
  type Side,
  units
} from "./support/model.ts"

const runs = Number(process.env.SPOTKIT_PROPERTY_RUNS ?? 200)
const timeout = Math.max(60_000, runs * 50)

const T0 = 1_700_000_000_000
const COINS = ["BTC", "USDT", "ETH"] as const

const PRODUCTS: ReadonlyArray<ModelProduct & { readonly mid: number }> = [
  {
    symbol: "BTCUSDT_SPBL",
    base: "BTC",
    quote: "USDT",
    pricePrecision: 2,
    quantityPrecision: 4,
    quotePrecision: 2,
    minOrderValue: "1",
    mid: 10_000 // 100.00
  },
  {
    symbol: "ETHBTC_SPBL",
    base: "ETH",
    quote: "BTC",
    pricePrecision: 5,
    quantityPrecision: 3,
    quotePrecision: 5,
    minOrderValue: "0.0001",
    mid: 5_000 // 0.05000
  }
]

// -----------------------------------------------------------------------------------------------------------------
// Commands

type Command =
  | {
    readonly kind: "place"
    readonly user: number
    readonly symbol: number
    readonly side: Side
    readonly orderType: "limit" | "market"
    readonly force: Force
    /** Ticks from the mid price. */
    readonly offset: number
    /** Lots of the quantity precision, or a market buy's units of the quote precision. */
    readonly size: number
    /** An id from a small shared pool (to meet duplicates), or null for a fresh one. */
    readonly cid: number | null
    readonly dt: number
  }
  | {
    readonly kind: "cancel"
    readonly user: number
    readonly pick: number
    readonly byClientId: boolean
    readonly dt: number
  }
  | {
    readonly kind: "transfer"
    readonly user: number
    readonly to: number
    readonly coin: number
    /** Millionths of the coin, or the sender's whole available balance (at 6 decimals), or one millionth more. */
    readonly micros: number | "all" | "over"
    /** A 7th decimal digit when not 0 (refused with 40808). */
    readonly seventh: number
    readonly from: AccountType
    readonly toAccount: AccountType
    readonly dt: number
  }
  | {
    readonly kind: "deposit"
    readonly user: number
    readonly account: AccountType
    readonly coin: number
    readonly amount: number
    readonly dt: number
  }

const dt = fc.integer({ min: 0, max: 2 })
const account = fc.constantFrom<AccountType>(...ACCOUNTS)

const placeCommand = fc.record({
  kind: fc.constant("place" as const),
  user: fc.nat(3),
  symbol: fc.nat(1),
  side: fc.constantFrom<Side>("buy", "sell"),
  orderType: fc.oneof(
    { weight: 4, arbitrary: fc.constant("limit" as const) },
    { weight: 1, arbitrary: fc.constant("market" as const) }
  ),
  force: fc.constantFrom<Force>("normal", "postOnly", "fok", "ioc"),
  offset: fc.integer({ min: -4, max: 4 }),
  // Round sizes often, so that quantities meet exactly (a fok for exactly what the book holds, a taker that empties
  // a level).
  size: fc.oneof(
    { weight: 3, arbitrary: fc.integer({ min: 1, max: 3000 }) },
    { weight: 2, arbitrary: fc.constantFrom(100, 200, 300, 500, 1000) }
  ),
  cid: fc.oneof({ weight: 7, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.nat(5) }),
  dt
})

const command: fc.Arbitrary<Command> = fc.oneof(
  { weight: 14, arbitrary: placeCommand },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("cancel" as const),
      user: fc.nat(3),
      pick: fc.nat(),
      byClientId: fc.boolean(),
      dt
    })
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("transfer" as const),
      user: fc.nat(3),
      to: fc.nat(3),
      coin: fc.nat(2),
      micros: fc.oneof(
        { weight: 6, arbitrary: fc.integer({ min: 0, max: 5_000_000 }) },
        { weight: 1, arbitrary: fc.constantFrom("all" as const, "over" as const) }
      ),
      seventh: fc.oneof({ weight: 9, arbitrary: fc.constant(0) }, {
        weight: 1,
        arbitrary: fc.integer({ min: 1, max: 9 })
      }),
      from: fc.oneof({ weight: 3, arbitrary: fc.constant<AccountType>("SPOT") }, { weight: 2, arbitrary: account }),
      toAccount: account,
      dt
    })
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("deposit" as const),
      user: fc.nat(3),
      account,
      coin: fc.nat(2),
      // Millionths.
      amount: fc.integer({ min: 1, max: 20_000_000 }),
      dt
    })
  }
)

const scenario = fc.record({
  seed: fc.nat(1_000_000),
  users: fc.integer({ min: 2, max: 4 }),
  symbols: fc.integer({ min: 1, max: 2 }),
  makerRate: fc.constantFrom("0", "0.001", "0.0002", "0.0025"),
  takerRate: fc.constantFrom("0", "0.001", "0.0015", "0.003"),
  // SPOT deposits per user in millionths (so that a transfer can move a whole balance): none, or BTC 1–5,
  // USDT 200–1000, ETH 10–50.
  initial: fc.array(
    fc.tuple(
      ...[5e6, 1e9, 5e7].map((max) =>
        fc.oneof({ weight: 1, arbitrary: fc.constant(0) }, { weight: 6, arbitrary: fc.integer({ min: max / 5, max }) })
      )
    ),
    { minLength: 4, maxLength: 4 }
  ),
  commands: fc.array(command, { minLength: 1, maxLength: 40, size: "max" })
})

type Scenario = typeof scenario extends fc.Arbitrary<infer A> ? A : never

// -----------------------------------------------------------------------------------------------------------------
// Running a scenario

type Event =
  | {
    readonly kind: "deposit"
    readonly user: string
    readonly account: AccountType
    readonly coin: string
    readonly amount: string
  }
  | {
    readonly kind: "place"
    readonly user: string
    readonly request: ModelRequest
    readonly result: Engine.Placed | Engine.Rejection
    /** The trades this order made. */
    readonly trades: ReadonlyArray<Engine.Trade>
  }
  | {
    readonly kind: "cancel"
    readonly user: string
    readonly id: { readonly orderId?: string; readonly clientOrderId?: string }
    readonly result: boolean
  }
  | {
    readonly kind: "transfer"
    readonly user: string
    readonly request: {
      readonly toUserId: string
      readonly coin: string
      readonly amount: string
      readonly fromAccountType: AccountType
      readonly toAccountType: AccountType
    }
    readonly result: { readonly ok: true; readonly id: string } | Engine.Rejection
  }

interface Run {
  readonly engine: Engine.Engine
  readonly users: ReadonlyArray<string>
  readonly products: ReadonlyArray<ModelProduct & { readonly mid: number }>
  readonly makerRate: string
  readonly takerRate: string
}

/** Runs the scenario on a fresh engine, calling `step` after every event (initial deposits included). */
const simulate = (s: Scenario, step: (run: Run, event: Event) => void): Run => {
  const engine = new Engine.Engine({ seed: s.seed, makerFeeRate: s.makerRate, takerFeeRate: s.takerRate })
  const products = PRODUCTS.slice(0, s.symbols)
  for (const p of products) {
    engine.addProduct({
      symbol: p.symbol,
      base: p.base,
      quote: p.quote,
      pricePrecision: p.pricePrecision,
      quantityPrecision: p.quantityPrecision,
      quotePrecision: p.quotePrecision,
      minOrderValue: p.minOrderValue
    })
  }
  const users = Array.from({ length: s.users }, () => engine.addUser())
  const run: Run = { engine, users, products, makerRate: s.makerRate, takerRate: s.takerRate }
  let now = T0
  const deposit = (user: string, account: AccountType, coin: string, micros: number) => {
    const text = decimal(BigInt(micros), 6)
    engine.deposit(user, account, coin, text, now)
    step(run, { kind: "deposit", user, account, coin, amount: text })
  }
  users.forEach((user, i) => {
    s.initial[i]!.forEach((amount, c) => {
      if (amount > 0) deposit(user, "SPOT", ["BTC", "USDT", "ETH"][c]!, amount)
    })
  })
  s.commands.forEach((c, index) => {
    now += c.dt
    const user = users[c.user % users.length]!
    switch (c.kind) {
      case "deposit": {
        deposit(user, c.account, COINS[c.coin]!, c.amount)
        break
      }
      case "place": {
        const product = products[c.symbol % products.length]!
        const marketBuy = c.orderType === "market" && c.side === "buy"
        const request: ModelRequest = {
          symbol: product.symbol,
          side: c.side,
          orderType: c.orderType,
          force: c.force,
          price: c.orderType === "market" ? "0" : decimal(BigInt(product.mid + c.offset), product.pricePrecision),
          quantity: decimal(BigInt(c.size), marketBuy ? product.quotePrecision : product.quantityPrecision),
          clientOrderId: c.cid === null ? `u${index}` : `c${c.cid}`
        }
        const before = engine.tradeList().length
        const result = engine.placeOrder(user, request, now)
        step(run, { kind: "place", user, request, result, trades: engine.tradeList().slice(before) })
        break
      }
      case "cancel": {
        const all = engine.orderList()
        if (all.length === 0) break
        const target = all[c.pick % all.length]!
        const id = c.byClientId ? { clientOrderId: target.clientOrderId } : { orderId: target.orderId }
        const result = engine.cancelOrder(user, id, now)
        step(run, { kind: "cancel", user, id, result })
        break
      }
      case "transfer": {
        const coin = COINS[c.coin]!
        let micros: bigint
        if (typeof c.micros === "number") {
          micros = BigInt(c.micros)
        } else {
          const held = engine.balances(user).find((b) => b.accountType === c.from && b.coin === coin)
          micros = units(held?.available ?? "0", 6 + 2) / 100n + (c.micros === "over" ? 1n : 0n)
        }
        const request = {
          toUserId: users[c.to % users.length]!,
          coin,
          amount: decimal(micros, 6) + (c.seventh === 0 ? "" : String(c.seventh)),
          fromAccountType: c.from,
          toAccountType: c.toAccount
        }
        const result = engine.transfer(user, request, now)
        step(run, { kind: "transfer", user, request, result })
        break
      }
    }
  })
  return run
}

interface Check {
  readonly step?: (run: Run, event: Event) => void
  readonly end?: (run: Run) => void
}

/** Asserts a check over `runs` random scenarios; `make` gives each scenario (and each shrink) a fresh check. */
const property = (make: () => Check) =>
  fc.assert(
    fc.property(scenario, (s) => {
      const check = make()
      const run = simulate(s, check.step ?? (() => {}))
      check.end?.(run)
    }),
    { numRuns: runs }
  )

// -----------------------------------------------------------------------------------------------------------------
// Checks: plain comparisons, with an assertion (and its message) only on failure, so that 10K cases stay fast

const check = (ok: boolean, message: () => string): void => {
  if (!ok) assert.fail(message())
}

const same = (actual: unknown, expected: unknown, message: () => string): void => {
  if (!isDeepStrictEqual(actual, expected)) assert.deepStrictEqual(actual, expected, message())
}

// -----------------------------------------------------------------------------------------------------------------
// Views of the engine's state

const productOf = (symbol: string) => {
  const product = PRODUCTS.find((p) => p.symbol === symbol)
  if (product === undefined) assert.fail(`unknown symbol ${symbol}`)
  return product
}

/** Every user's balance of every account and coin, zeros included, in units. */
const balancesOf = (run: Run) => {
  const out = new Map<string, { available: bigint; frozen: bigint }>()
  for (const user of run.users) {
    for (const a of ACCOUNTS) for (const coin of COINS) out.set(`${user}|${a}|${coin}`, { available: 0n, frozen: 0n })
    for (const b of run.engine.balances(user)) {
      out.set(`${user}|${b.accountType}|${b.coin}`, {
        available: units(b.available, SCALE),
        frozen: units(b.frozen, SCALE)
      })
    }
  }
  return out
}

/** What an open order holds frozen: a buy its unfilled quantity at its price, a sell its unfilled quantity. */
const needOf = (order: Engine.OrderView): { readonly coin: string; readonly amount: bigint } => {
  const product = productOf(order.symbol)
  const left = units(order.quantity, SCALE) - units(order.fillQuantity, SCALE)
  if (order.side === "sell") return { coin: product.base, amount: left }
  const value = left * units(order.price, SCALE)
  if (value % 10n ** BigInt(SCALE) !== 0n) assert.fail(`inexact value of ${JSON.stringify(order)}`)
  return { coin: product.quote, amount: value / 10n ** BigInt(SCALE) }
}

const placedOrder = (run: Run, event: Event & { kind: "place" }): Engine.OrderView | undefined => {
  if (!event.result.ok) return undefined
  const order = run.engine.order(event.result.orderId)
  if (order === undefined) assert.fail(`accepted order ${event.result.orderId} not found`)
  return order
}

// -----------------------------------------------------------------------------------------------------------------

describe("Engine properties", () => {
  it("per coin, held + fees == supply after every step, and supply changes only by deposits", () => {
    property(() => {
      const supply = new Map<string, bigint>()
      return {
        step: (run, event) => {
          if (event.kind === "deposit") {
            supply.set(event.coin, (supply.get(event.coin) ?? 0n) + units(event.amount, SCALE))
          }
          for (const t of run.engine.totals()) {
            const held = units(t.held, SCALE)
            const fees = units(t.fees, SCALE)
            const total = units(t.supply, SCALE)
            check(held + fees === total, () => `${t.coin}: held ${t.held} + fees ${t.fees} != supply ${t.supply}`)
            check(total === (supply.get(t.coin) ?? 0n), () => `${t.coin}: supply ${t.supply} != deposits`)
            check(fees >= 0n, () => `${t.coin}: fees ${t.fees}`)
          }
        }
      }
    })
  }, timeout)

  it("no available or frozen amount is ever negative", () => {
    property(() => ({
      step: (run) => {
        for (const [key, b] of balancesOf(run)) {
          check(b.available >= 0n && b.frozen >= 0n, () => `${key}: available ${b.available}, frozen ${b.frozen}`)
        }
      }
    }))
  }, timeout)

  it("frozen amounts equal what the open orders need (SPOT), and nothing is frozen elsewhere", () => {
    property(() => ({
      step: (run) => {
        const need = new Map<string, bigint>()
        for (const order of run.engine.orderList()) {
          if (order.status !== "open") continue
          const { amount, coin } = needOf(order)
          const key = `${order.userId}|SPOT|${coin}`
          need.set(key, (need.get(key) ?? 0n) + amount)
        }
        for (const [key, b] of balancesOf(run)) {
          check(
            b.frozen === (need.get(key) ?? 0n),
            () => `${key}: frozen ${b.frozen}, open orders need ${need.get(key)}`
          )
        }
      }
    }))
  }, timeout)

  it(
    "matches the reference model: price-time priority, fill quantities and prices, fees, statuses, book, balances",
    () => {
      property(() => {
        let model: Model | undefined
        return {
          step: (run, event) => {
            const m = (model ??= new Model(run.products, run.makerRate, run.takerRate))
            const what = () => JSON.stringify(event)
            const outcome = (result: { readonly ok: boolean; readonly code?: string }) =>
              result.ok ? "accepted" : result.code!
            switch (event.kind) {
              case "deposit": {
                m.deposit(event.user, event.account, event.coin, event.amount)
                break
              }
              case "transfer": {
                const codes = m.transferRefusals(event.user, event.request)
                if (codes.length === 0) {
                  check(event.result.ok, () => `transfer refused: ${what()}`)
                  m.transfer(event.user, event.request)
                } else {
                  check(codes.includes(outcome(event.result)), () => `expected one of ${codes}: ${what()}`)
                }
                break
              }
              case "cancel": {
                const expected = m.cancel(event.user, event.id)
                check(
                  event.result === expected,
                  () => `cancel answered ${event.result}, expected ${expected}: ${what()}`
                )
                break
              }
              case "place": {
                const codes = m.placeRefusals(event.user, event.request)
                if (codes.length > 0) {
                  check(codes.includes(outcome(event.result)), () => `expected one of ${codes}: ${what()}`)
                  same(event.trades, [], what)
                  break
                }
                if (!event.result.ok) assert.fail(`refused: ${what()}`)
                const expected = m.place(event.user, event.request, event.result.orderId)
                // Price-time priority: the makers, in order, with their prices and quantities (and the fees).
                same(
                  event.trades.map((t) => ({
                    makerOrderId: t.makerOrderId,
                    takerOrderId: t.takerOrderId,
                    takerSide: t.takerSide,
                    price: units(t.price, SCALE),
                    quantity: units(t.quantity, SCALE),
                    amount: units(t.amount, SCALE),
                    makerFee: units(t.makerFee, SCALE),
                    takerFee: units(t.takerFee, SCALE)
                  })),
                  expected.fills,
                  what
                )
                const order = placedOrder(run, event)!
                const allowed: ReadonlyArray<string> = expected.status === "filled or cancelled"
                  ? ["filled", "cancelled"]
                  : [expected.status satisfies ExpectedStatus]
                check(allowed.includes(order.status), () => `status ${order.status}, expected ${allowed}: ${what()}`)
                if (expected.status === "filled or cancelled") {
                  expected.order.status = order.status as "filled" | "cancelled"
                }
                same(
                  [units(order.fillQuantity, SCALE), units(order.fillTotalAmount, SCALE)],
                  [expected.order.filled, expected.order.fillTotal],
                  what
                )
                break
              }
            }
            // The book, every user's open orders with their fills, and every balance.
            for (const p of run.products) {
              const depth = run.engine.depth(p.symbol)
              const levels = (side: Side) => {
                const open = m.orders.filter((o) =>
                  o.status === "open" && o.product.symbol === p.symbol && o.side === side
                )
                const prices = [...new Set(open.map((o) => o.price))].sort((a, b) =>
                  (side === "buy" ? a > b : a < b) ? -1 : 1
                )
                return prices.map((price) => {
                  const at = open.filter((o) => o.price === price)
                  return [price, at.reduce((sum, o) => sum + o.remaining, 0n), at.length]
                })
              }
              const engineLevels = (rows: ReadonlyArray<readonly [string, string, number]>) =>
                rows.map(([price, quantity, count]) => [units(price, SCALE), units(quantity, SCALE), count])
              same(engineLevels(depth.bids), levels("buy"), () => `${p.symbol} bids after ${what()}`)
              same(engineLevels(depth.asks), levels("sell"), () => `${p.symbol} asks after ${what()}`)
              for (const user of run.users) {
                const open = run.engine.openOrders(user, p.symbol, 0, 1000)
                  .map((o) => [o.orderId, units(o.fillQuantity, SCALE)] as const)
                  .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
                const expectedOpen = m.openOrders(user, p.symbol).map((o) => [o.orderId, o.filled] as const)
                same(open, expectedOpen, () => `open orders of ${user} on ${p.symbol} after ${what()}`)
              }
            }
            for (const [key, b] of balancesOf(run)) {
              const [user, account, coin] = key.split("|") as [string, AccountType, string]
              const expected = m.slot(user, account, coin)
              same(b, { available: expected.available, frozen: expected.frozen }, () => `${key} after ${what()}`)
            }
          }
        }
      })
    },
    timeout
  )

  it("fok limit orders fill completely or not at all", () => {
    property(() => ({
      step: (run, event) => {
        if (event.kind !== "place" || event.request.orderType !== "limit" || event.request.force !== "fok") return
        const order = placedOrder(run, event)
        if (order === undefined) return
        const what = () => JSON.stringify({ order, trades: event.trades })
        const quantity = units(order.quantity, SCALE)
        if (order.status === "filled") {
          const traded = event.trades.reduce((sum, t) => sum + units(t.quantity, SCALE), 0n)
          check(units(order.fillQuantity, SCALE) === quantity && traded === quantity, what)
        } else {
          check(order.status === "cancelled", what)
          check(order.fillQuantity === "0" && order.fillTotalAmount === "0" && event.trades.length === 0, what)
        }
      }
    }))
  }, timeout)

  it("ioc and market orders never rest: never open, never in openOrders or the book", () => {
    property(() => ({
      step: (run, event) => {
        if (event.kind === "place") {
          const order = placedOrder(run, event)
          if (order !== undefined && (order.force === "ioc" || order.orderType === "market")) {
            check(order.status === "filled" || order.status === "cancelled", () => JSON.stringify(order))
          }
        }
        const orders = run.engine.orderList()
        for (const order of orders) {
          if (order.force === "ioc" || order.force === "fok" || order.orderType === "market") {
            check(order.status !== "open", () => `rests: ${JSON.stringify(order)}`)
          }
        }
        for (const user of run.users) {
          for (const p of run.products) {
            for (const order of run.engine.openOrders(user, p.symbol, 0, 1000)) {
              check(
                order.orderType === "limit" && (order.force === "normal" || order.force === "postOnly") &&
                  order.status === "open",
                () => `in openOrders: ${JSON.stringify(order)}`
              )
            }
          }
        }
        // What the book holds is exactly the open orders' unfilled quantities.
        for (const p of run.products) {
          const depth = run.engine.depth(p.symbol)
          const inBook = [...depth.bids, ...depth.asks].reduce((sum, [, quantity]) => sum + units(quantity, SCALE), 0n)
          const unfilled = orders
            .filter((o) => o.symbol === p.symbol && o.status === "open")
            .reduce((sum, o) => sum + units(o.quantity, SCALE) - units(o.fillQuantity, SCALE), 0n)
          check(inBook === unfilled, () => `${p.symbol}: book holds ${inBook}, open orders ${unfilled}`)
        }
      }
    }))
  }, timeout)

  it("postOnly limit orders never take: never the taker of a trade", () => {
    property(() => ({
      step: (run, event) => {
        if (event.kind !== "place") return
        for (const trade of event.trades) {
          // force has no effect on market orders, so only a postOnly limit order counts.
          const taker = run.engine.order(trade.takerOrderId)
          check(!(taker?.orderType === "limit" && taker.force === "postOnly"), () => JSON.stringify(trade))
        }
        if (event.request.orderType === "limit" && event.request.force === "postOnly") {
          check(event.trades.length === 0, () => JSON.stringify(event))
        }
      }
    }))
  }, timeout)

  it("every account's ledger has a consistent afterAmount chain ending at its balance", () => {
    property(() => ({
      end: (run) => {
        const balances = balancesOf(run)
        for (const user of run.users) {
          const after = new Map<string, bigint>()
          for (const entry of run.engine.ledgerOf(user)) {
            const key = `${user}|${entry.accountType}|${entry.coinName}`
            const expected = (after.get(key) ?? 0n) + units(entry.deltaAmount, SCALE)
            check(
              units(entry.afterAmount, SCALE) === expected,
              () => `${key}: ${JSON.stringify(entry)}, expected ${expected}`
            )
            after.set(key, expected)
          }
          for (const a of ACCOUNTS) {
            for (const coin of COINS) {
              const key = `${user}|${a}|${coin}`
              const b = balances.get(key)!
              check((after.get(key) ?? 0n) === b.available + b.frozen, () => `${key}: chain ends at ${after.get(key)}`)
            }
          }
          // The funding bills are the FUND account's entries, newest first.
          const bills = run.engine.fundingBills(user, { pageSize: 100 })
          const fund = run.engine.ledgerOf(user, "FUND")
          same(
            [bills.total, bills.items.map((b) => b.billId)],
            [fund.length, fund.slice(-100).reverse().map((e) => e.billId)],
            () => `funding bills of ${user}`
          )
        }
      }
    }))
  }, timeout)
})
