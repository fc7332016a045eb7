/**
 * Properties of the engine over random command sequences: limit and market orders of every force for 2–4 users on
 * 1–2 symbols (sharing coins: BTC is the base of one and the quote of the other), cancels (also of others' and of
 * finished orders, on the wrong symbol, many at once, all of a symbol), transfers between any accounts (also refused
 * ones) and deposits, with random fee rates; and the views of the result: order lookups (by id, by clientOrderId,
 * history pages), fills, spot balances and transfer records.
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

// The engine reports statuses in the venue's words; the reference model keeps open, filled and cancelled.
const resting = (status: string): boolean => status === "open" || status === "partial_fill"

/** The venue's words the model's expected status allows, given what the model says filled. */
const wordsOf = (expected: ExpectedStatus, filled: bigint): ReadonlyArray<string> =>
  expected === "filled or cancelled"
    ? ["full_fill", "cancelled"]
    : expected === "filled"
    ? ["full_fill"]
    : expected === "cancelled"
    ? ["cancelled"]
    : [filled > 0n ? "partial_fill" : "open"]

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
    /**
     * 0: `cancelOrder` (a boolean); 1: `cancel` on the order's symbol; 2: `cancel` on symbol `symbol`; 3:
     * `cancelOrders` of this order and the one at `pick2`; 4: `cancelAll` of symbol `symbol`.
     */
    readonly how: number
    readonly symbol: number
    readonly pick2: number
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
      how: fc.nat(4),
      symbol: fc.nat(1),
      pick2: fc.nat(),
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
    readonly kind: "cancelOne"
    readonly user: string
    readonly symbol: string
    readonly id: Engine.OrderRef
    readonly result: Engine.Cancelled | Engine.NotCancelled
  }
  | {
    readonly kind: "cancelMany"
    readonly user: string
    readonly symbol: string
    readonly ids: ReadonlyArray<Engine.OrderRef>
    readonly result: Engine.CancelBatch
  }
  | {
    readonly kind: "cancelAll"
    readonly user: string
    readonly symbol: string
    readonly result: Engine.CancelBatch
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

/**
 * Runs the scenario on a fresh engine, calling `step` after every event (initial deposits included); each command's
 * `dt` is `stretch` milliseconds.
 */
const simulate = (s: Scenario, step: (run: Run, event: Event) => void, stretch = 1): Run => {
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
    now += c.dt * stretch
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
        const symbol = products[c.symbol % products.length]!.symbol
        if (c.how === 4) {
          step(run, { kind: "cancelAll", user, symbol, result: engine.cancelAll(user, symbol, now) })
          break
        }
        const all = engine.orderList()
        if (all.length === 0) break
        const refOf = (target: Engine.OrderView) =>
          c.byClientId ? { clientOrderId: target.clientOrderId } : { orderId: target.orderId }
        const target = all[c.pick % all.length]!
        const id = refOf(target)
        if (c.how === 0) {
          step(run, { kind: "cancel", user, id, result: engine.cancelOrder(user, id, now) })
        } else if (c.how === 3) {
          const ids = [id, refOf(all[c.pick2 % all.length]!)]
          const result = engine.cancelOrders(user, target.symbol, ids, now)
          step(run, { kind: "cancelMany", user, symbol: target.symbol, ids, result })
        } else {
          const on = c.how === 1 ? target.symbol : symbol
          step(run, { kind: "cancelOne", user, symbol: on, id, result: engine.cancel(user, on, id, now) })
        }
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

/**
 * Asserts a check over `runs` random scenarios; `make` gives each scenario (and each shrink) a fresh check. `stretch`:
 * how many milliseconds a command's `dt` is (1 unless given).
 */
const property = (make: () => Check, stretch: fc.Arbitrary<number> = fc.constant(1)) =>
  fc.assert(
    fc.property(scenario, stretch, (s, k) => {
      const check = make()
      const run = simulate(s, check.step ?? (() => {}), k)
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
          if (!resting(order.status)) continue
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
              case "cancelOne": {
                const expected = m.cancelOn(event.user, event.symbol, event.id)
                const actual = event.result.ok ? "cancelled" : event.result.code
                check(actual === expected, () => `cancel answered ${actual}, expected ${expected}: ${what()}`)
                break
              }
              case "cancelMany": {
                // Named in turn: the cancelled in the order named, and the failed with their codes.
                const outcomes = event.ids.map((id) => [id, m.cancelOn(event.user, event.symbol, id)] as const)
                same(
                  [event.result.cancelled.length, event.result.failed.map((f) => f.code)],
                  [
                    outcomes.filter(([, o]) => o === "cancelled").length,
                    outcomes.flatMap(([, o]) => o === "cancelled" ? [] : [o])
                  ],
                  what
                )
                break
              }
              case "cancelAll": {
                const expected = m.openOrders(event.user, event.symbol).map((o) => o.orderId)
                for (const orderId of expected) m.cancel(event.user, { orderId })
                same(event.result.cancelled.map((c) => c.orderId), expected, what)
                same(event.result.failed, [], what)
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
                const allowed = wordsOf(expected.status, expected.order.filled)
                check(allowed.includes(order.status), () => `status ${order.status}, expected ${allowed}: ${what()}`)
                if (expected.status === "filled or cancelled") {
                  expected.order.status = order.status === "full_fill" ? "filled" : "cancelled"
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
              // The depth endpoint's book: the same levels without their counts, the best 15 or 200 a side; merged
              // into steps of 10 ticks, bids down and asks up.
              const tick = 10n ** BigInt(SCALE - p.pricePrecision)
              const bookLevels = (rows: ReadonlyArray<readonly [string, string]>) =>
                rows.map(([price, quantity]) => [units(price, SCALE), units(quantity, SCALE)])
              const merged = (side: Side) => {
                const out: Array<[bigint, bigint]> = []
                for (const [price, quantity] of levels(side) as Array<[bigint, bigint]>) {
                  const step = 10n * tick
                  const bucket = side === "buy" ? price - price % step : price + (step - price % step) % step
                  if (out.length > 0 && out[out.length - 1]![0] === bucket) out[out.length - 1]![1] += quantity
                  else out.push([bucket, quantity])
                }
                return out
              }
              for (const limit of [15, 200]) {
                const book = run.engine.orderBook(p.symbol, limit)
                const top = (side: Side) => levels(side).slice(0, limit).map(([price, quantity]) => [price, quantity])
                same(bookLevels(book.bids), top("buy"), () => `${p.symbol} book(${limit}) bids after ${what()}`)
                same(bookLevels(book.asks), top("sell"), () => `${p.symbol} book(${limit}) asks after ${what()}`)
              }
              const steps = run.engine.orderBook(p.symbol, 200, 1)
              same(bookLevels(steps.bids), merged("buy"), () => `${p.symbol} step1 bids after ${what()}`)
              same(bookLevels(steps.asks), merged("sell"), () => `${p.symbol} step1 asks after ${what()}`)
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
        if (order.status === "full_fill") {
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
            check(order.status === "full_fill" || order.status === "cancelled", () => JSON.stringify(order))
          }
        }
        const orders = run.engine.orderList()
        for (const order of orders) {
          if (order.force === "ioc" || order.force === "fok" || order.orderType === "market") {
            check(!resting(order.status), () => `rests: ${JSON.stringify(order)}`)
          }
        }
        for (const user of run.users) {
          for (const p of run.products) {
            for (const order of run.engine.openOrders(user, p.symbol, 0, 1000)) {
              check(
                order.orderType === "limit" && (order.force === "normal" || order.force === "postOnly") &&
                  resting(order.status),
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
            .filter((o) => o.symbol === p.symbol && resting(o.status))
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

  it("a cancel releases exactly what its orders still held (to available, from frozen), and nothing else moves", () => {
    property(() => {
      let before: Map<string, { available: bigint; frozen: bigint }> | undefined
      return {
        step: (run, event) => {
          const after = balancesOf(run)
          const cancelled = cancelledBy(run, event)
          if (before !== undefined && cancelled !== undefined) {
            const released = new Map<string, bigint>()
            for (const orderId of cancelled) {
              const order = run.engine.order(orderId)!
              check(order.status === "cancelled", () => `not cancelled: ${JSON.stringify(order)}`)
              const { amount, coin } = needOf(order)
              const key = `${order.userId}|SPOT|${coin}`
              released.set(key, (released.get(key) ?? 0n) + amount)
            }
            for (const [key, b] of after) {
              const was = before.get(key)!
              const r = released.get(key) ?? 0n
              same(
                [b.available - was.available, b.frozen - was.frozen],
                [r, -r],
                () => `${key} after ${JSON.stringify(event)}`
              )
            }
          }
          before = after
        }
      }
    })
  }, timeout)

  it("order lookups see every order with its status and fills: by orderId, by clientOrderId, in history pages", () => {
    property(() => ({
      end: (run) => {
        const orders = run.engine.orderList()
        for (const order of orders) {
          same(run.engine.order(order.orderId), order, () => `order(${order.orderId})`)
          same(run.engine.orderByClientId(order.userId, order.clientOrderId), order, () => `by ${order.clientOrderId}`)
          // The venue's word follows the fills: a resting order is `open` until its first fill, `partial_fill` after
          // it; `full_fill` has filled all (a market buy: all it could buy, within a lot).
          const filled = units(order.fillQuantity, SCALE)
          const word = order.status === "full_fill" || order.status === "cancelled"
            ? order.status
            : filled > 0n
            ? "partial_fill"
            : "open"
          check(order.status === word, () => `venue status of ${JSON.stringify(order)}`)
          if (order.orderType === "limit" && order.status === "full_fill") {
            check(filled === units(order.quantity, SCALE), () => `full_fill of all: ${JSON.stringify(order)}`)
          }
          if (order.status === "partial_fill") {
            check(filled < units(order.quantity, SCALE), () => `partial_fill of less: ${JSON.stringify(order)}`)
          }
          check(Engine.venueStatus(order) === order.status, () => `Engine.venueStatus of ${JSON.stringify(order)}`)
        }
        for (const user of run.users) {
          for (const p of run.products) {
            const newest = orders.filter((o) => o.userId === user && o.symbol === p.symbol).reverse()
            for (const pageSize of [1, 3, 100]) {
              same(
                pages((pageIndex) => run.engine.orderHistory(user, p.symbol, { pageIndex, pageSize })),
                newest,
                () => `history of ${user} on ${p.symbol} by ${pageSize}`
              )
            }
            // Exclusive bounds on cTime.
            const [after, before] = [T0 + 5, T0 + 30]
            same(
              run.engine.orderHistory(user, p.symbol, { after, before, pageSize: 100 }).items,
              newest.filter((o) => Number(o.cTime) > after && Number(o.cTime) < before),
              () => `history of ${user} on ${p.symbol} between ${after} and ${before}`
            )
          }
        }
      }
    }))
  }, timeout)

  it(
    "fills: two per trade with unique ids; an order's fills add up to its fill fields; fees add up to those collected",
    () => {
      property(() => ({
        end: (run) => {
          const fills = run.engine.fillList()
          const trades = run.engine.tradeList()
          check(fills.length === 2 * trades.length, () => `${fills.length} fills for ${trades.length} trades`)
          check(new Set(fills.map((f) => f.fillId)).size === fills.length, () => "fill ids repeat")
          const byOrder = new Map<string, { quantity: bigint; total: bigint }>()
          const fees = new Map<string, bigint>()
          for (const fill of fills) {
            const sum = byOrder.get(fill.orderId) ?? { quantity: 0n, total: 0n }
            byOrder.set(fill.orderId, {
              quantity: sum.quantity + units(fill.fillQuantity, SCALE),
              total: sum.total + units(fill.fillTotalAmount, SCALE)
            })
            fees.set(fill.feeCoin, (fees.get(fill.feeCoin) ?? 0n) + units(fill.fees, SCALE))
          }
          for (const order of run.engine.orderList()) {
            same(
              byOrder.get(order.orderId) ?? { quantity: 0n, total: 0n },
              { quantity: units(order.fillQuantity, SCALE), total: units(order.fillTotalAmount, SCALE) },
              () => `fills of ${JSON.stringify(order)}`
            )
          }
          for (const t of run.engine.totals()) {
            check((fees.get(t.coin) ?? 0n) === units(t.fees, SCALE), () => `${t.coin}: fills' fees != ${t.fees}`)
          }
          for (const user of run.users) {
            for (const p of run.products) {
              const newest = fills.filter((f) => f.userId === user && f.symbol === p.symbol).reverse()
              same(
                pages((pageIndex) => run.engine.fills(user, p.symbol, { pageIndex, pageSize: 3 })),
                newest,
                () => `fills of ${user} on ${p.symbol}`
              )
            }
          }
        }
      }))
    },
    timeout
  )

  it(
    "spot balance views: equity = available + frozen = the SPOT balance; with the other accounts and fees, the supply",
    () => {
      property(() => ({
        step: (run) => {
          const balances = balancesOf(run)
          const viewed = new Map<string, bigint>()
          for (const user of run.users) {
            for (const b of run.engine.spotBalances(user)) {
              const available = units(b.available, SCALE)
              const frozen = units(b.frozen, SCALE)
              const equity = units(b.equity, SCALE)
              const slot = balances.get(`${user}|SPOT|${b.coinName}`)!
              same(
                [available, frozen, equity],
                [slot.available, slot.frozen, slot.available + slot.frozen],
                () => `${user} ${JSON.stringify(b)}`
              )
              viewed.set(b.coinName, (viewed.get(b.coinName) ?? 0n) + equity)
            }
          }
          // Holdings (the spot views, the other accounts) + fees == supply.
          for (const t of run.engine.totals()) {
            let held = viewed.get(t.coin) ?? 0n
            for (const [key, b] of balances) {
              const [, account, coin] = key.split("|")
              if (account !== "SPOT" && coin === t.coin) {
                held += b.available + b.frozen
              }
            }
            check(
              held + units(t.fees, SCALE) === units(t.supply, SCALE),
              () => `${t.coin}: ${held} + ${t.fees} != ${t.supply}`
            )
          }
        },
        end: (run) => {
          for (const user of run.users) {
            // Every coin the user ever held in SPOT (a ledger entry there), zeros included, and no other.
            const held = new Set(run.engine.ledgerOf(user, "SPOT").map((e) => e.coinName))
            same(
              run.engine.spotBalances(user).map((b) => b.coinName),
              COINS.filter((coin) => held.has(coin)),
              () => `spot coins of ${user}`
            )
          }
        }
      }))
    },
    timeout
  )

  it("transfer records: one per accepted transfer with its fields; the sender's status list finds it by id", () => {
    property(() => {
      let count = 0
      return {
        step: (run, event) => {
          if (event.kind !== "transfer") return
          const list = run.engine.transferList()
          if (!event.result.ok) {
            check(list.length === count, () => `a refused transfer was recorded: ${JSON.stringify(event)}`)
            return
          }
          count++
          const record = list.at(-1)!
          same(
            record,
            {
              id: event.result.id,
              fromUserId: event.user,
              toUserId: event.request.toUserId,
              coin: event.request.coin,
              amount: decimal(units(event.request.amount, 6), 6).replace(/\.?0+$/, "") || "0",
              fromAccountType: event.request.fromAccountType,
              toAccountType: event.request.toAccountType,
              status: "SUCCESS",
              createTime: record.createTime,
              updateTime: record.createTime
            },
            () => JSON.stringify(event)
          )
          check(list.length === count, () => `${list.length} records for ${count} transfers`)
          same(
            run.engine.transferStatus(event.user, { withdrawId: event.result.id }),
            { total: 1, items: [record] },
            () => `status of ${event.result.ok ? event.result.id : ""}`
          )
        }
      }
    })
  }, timeout)
})

/** The orders a cancel event cancelled, or undefined for any other event. */
const cancelledBy = (run: Run, event: Event): ReadonlyArray<string> | undefined => {
  switch (event.kind) {
    case "cancel": {
      if (!event.result) return []
      const order = event.id.orderId !== undefined
        ? run.engine.order(event.id.orderId)
        : run.engine.orderByClientId(event.user, event.id.clientOrderId!)
      return [order!.orderId]
    }
    case "cancelOne":
      return event.result.ok ? [event.result.orderId] : []
    case "cancelMany":
    case "cancelAll":
      return event.result.cancelled.map((c) => c.orderId)
    default:
      return undefined
  }
}

/** Every item of a paged list, page after page from 0 while `nextPage` says there is more. */
const pages = <A>(page: (pageIndex: number) => Engine.Page<A>): ReadonlyArray<A> => {
  const out: Array<A> = []
  for (let pageIndex = 0;; pageIndex++) {
    const { items, nextPage } = page(pageIndex)
    out.push(...items)
    if (!nextPage) {
      check(page(pageIndex + 1).items.length === 0, () => `items after the last page (${pageIndex})`)
      return out
    }
    check(items.length > 0, () => `an empty page ${pageIndex} with a next one`)
  }
}

// -----------------------------------------------------------------------------------------------------------------
// Market data: candles, recent trades and the ticker against the trade log, with the periods' boundaries from `Date`

const MINUTE = 60_000
const DAY = 86_400_000
const PERIOD_LENGTH: Record<string, number> = {
  "1m": MINUTE,
  "5m": 5 * MINUTE,
  "15m": 15 * MINUTE,
  "30m": 30 * MINUTE,
  "1h": 60 * MINUTE,
  "2h": 120 * MINUTE,
  "4h": 240 * MINUTE,
  "6h": 360 * MINUTE,
  "8h": 480 * MINUTE,
  "12h": 720 * MINUTE,
  "1d": DAY
}
const PERIODS = [...Object.keys(PERIOD_LENGTH), "1w", "1M"] as ReadonlyArray<Engine.CandlePeriod>

/** The open time of the period holding `t`, by the calendar of `Date`: weeks from Monday, months, in UTC. */
const referenceOpen = (period: Engine.CandlePeriod, t: number): number => {
  const date = new Date(t)
  if (period === "1M") return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1)
  if (period === "1w") {
    const day = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate())
    return Math.max(0, day - ((date.getUTCDay() + 6) % 7) * DAY)
  }
  return t - (t % PERIOD_LENGTH[period]!)
}

/** Milliseconds a command's `dt` stands for: within a minute, across minutes, hours, and days (weeks and months). */
const stretches = fc.constantFrom(1, 30_011, 3_600_007, 4 * DAY + 13)

const tradesOf = (run: Run, symbol: string) => run.engine.tradeList().filter((t) => t.symbol === symbol)

describe("Market data properties", () => {
  it(
    "candles of every period add up to the trades: each trade in the candle of its period, volumes, counts, prices",
    () => {
      property(() => ({
        end: (run) => {
          for (const p of run.products) {
            const trades = tradesOf(run, p.symbol)
            for (const period of PERIODS) {
              const expected: Array<{
                openTime: number
                open: bigint
                high: bigint
                low: bigint
                close: bigint
                baseVolume: bigint
                quoteVolume: bigint
                trades: number
              }> = []
              for (const t of trades) {
                const openTime = referenceOpen(period, t.time)
                const price = units(t.price, SCALE)
                const last = expected[expected.length - 1]
                if (last === undefined || last.openTime !== openTime) {
                  expected.push({
                    openTime,
                    open: price,
                    high: price,
                    low: price,
                    close: price,
                    baseVolume: units(t.quantity, SCALE),
                    quoteVolume: units(t.amount, SCALE),
                    trades: 1
                  })
                } else {
                  if (price > last.high) last.high = price
                  if (price < last.low) last.low = price
                  last.close = price
                  last.baseVolume += units(t.quantity, SCALE)
                  last.quoteVolume += units(t.amount, SCALE)
                  last.trades++
                }
              }
              // Oldest first from the epoch on: every candle, newest first as the venue sends them.
              const candles = run.engine.candles(p.symbol, period, { startTime: 0, limit: 1000 }).slice().reverse()
              same(
                candles.map((c) => ({
                  openTime: c.openTime,
                  open: units(c.open, SCALE),
                  high: units(c.high, SCALE),
                  low: units(c.low, SCALE),
                  close: units(c.close, SCALE),
                  baseVolume: units(c.baseVolume, SCALE),
                  quoteVolume: units(c.quoteVolume, SCALE),
                  trades: c.trades
                })),
                expected,
                () => `${p.symbol} ${period}`
              )
              // The newest `limit` without startTime are the last of them; a range from a candle's open time to the
              // next's holds exactly that candle.
              same(
                run.engine.candles(p.symbol, period, { limit: 2 }).map((c) => c.openTime),
                candles.slice(-2).reverse().map((c) => c.openTime),
                () => `${p.symbol} ${period} newest 2`
              )
              candles.forEach((c, i) => {
                const next = candles[i + 1]?.openTime ?? c.openTime + 1
                same(
                  run.engine.candles(p.symbol, period, { startTime: c.openTime, endTime: next }).map((x) => x.openTime),
                  [c.openTime],
                  () => `${p.symbol} ${period} candle ${c.openTime} alone in [${c.openTime}, ${next})`
                )
              })
            }
          }
        }
      }), stretches)
    },
    timeout
  )

  it("recent trades are the symbol's latest trades of the log, newest first, with the log's ids", () => {
    property(() => ({
      end: (run) => {
        for (const p of run.products) {
          const expected = tradesOf(run, p.symbol).reverse().map((t) => ({
            tradeId: t.tradeId,
            symbol: t.symbol,
            time: t.time,
            price: units(t.price, SCALE),
            size: units(t.quantity, SCALE),
            value: units(t.amount, SCALE),
            buyerMaker: t.takerSide === "sell"
          }))
          for (const limit of [1, 3, 1000]) {
            same(
              run.engine.recentTrades(p.symbol, limit).map((t) => ({
                ...t,
                price: units(t.price, SCALE),
                size: units(t.size, SCALE),
                value: units(t.value, SCALE)
              })),
              expected.slice(0, limit),
              () => `${p.symbol} limit ${limit}`
            )
          }
        }
      }
    }), stretches)
  }, timeout)

  it("the ticker is the trades from the minute 24 hours before now's: open, high, low, last, volumes, change", () => {
    property(() => ({
      end: (run) => {
        const now = run.engine.now
        const start = Math.max(0, now - (now % MINUTE) - DAY)
        for (const p of run.products) {
          const all = tradesOf(run, p.symbol)
          const window = all.filter((t) => t.time >= start)
          const prices = window.map((t) => units(t.price, SCALE))
          const last = all.length === 0 ? 0n : units(all[all.length - 1]!.price, SCALE)
          const open = prices[0] ?? last
          const max = prices.reduce((a, b) => (b > a ? b : a), last)
          const min = prices.reduce((a, b) => (b < a ? b : a), last)
          const scale = 10n ** BigInt(SCALE - p.pricePrecision)
          const ticker = run.engine.ticker(p.symbol, now)
          same(
            {
              lastPrice: units(ticker.lastPrice, SCALE),
              open: units(ticker.open, SCALE),
              high: units(ticker.high, SCALE),
              low: units(ticker.low, SCALE),
              close: units(ticker.close, SCALE),
              priceChange: units(ticker.priceChange, SCALE),
              priceChangePercent: ticker.priceChangePercent,
              size: units(ticker.size, SCALE),
              value: units(ticker.value, SCALE),
              trades: ticker.trades,
              highTime: ticker.highTime,
              lowTime: ticker.lowTime,
              startTime: ticker.startTime,
              endTime: ticker.endTime
            },
            {
              lastPrice: last,
              open,
              high: window.length === 0 ? last : max,
              low: window.length === 0 ? last : min,
              close: last,
              priceChange: last - open,
              priceChangePercent: decimal(open === 0n ? 0n : ((last - open) / scale) * 1_000_000n / (open / scale), 6),
              size: window.reduce((sum, t) => sum + units(t.quantity, SCALE), 0n),
              value: window.reduce((sum, t) => sum + units(t.amount, SCALE), 0n),
              trades: window.length,
              highTime: window.find((t) => units(t.price, SCALE) === max)?.time ?? null,
              lowTime: window.find((t) => units(t.price, SCALE) === min)?.time ?? null,
              startTime: start,
              endTime: now
            },
            () => `${p.symbol} at ${now}`
          )
        }
      }
    }), stretches)
  }, timeout)
})
