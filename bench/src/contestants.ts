// The contestants: each runs the same op stream on a fresh book. `prepare` (untimed) builds the book and anything
// the API needs pre-formatted; `run` (timed) replays the ops; `book` (untimed) reads the resting book back as price
// levels for the equivalence check.
import { Engine } from "@spotkit/testkit/Engine"
import * as EngineUnits from "@spotkit/testkit/EngineUnits"
import { type LimitOrderOptions, OrderBook, Side } from "nodejs-order-book"
import {
  type Book,
  CANCEL,
  decimal,
  LIMIT,
  LOT_DECIMALS,
  POST_ONLY,
  PRICE_DECIMALS,
  QUOTE_DECIMALS,
  type RestingSet,
  type Workload
} from "./workload.ts"

export const SYMBOL = "BTCUSDT_SPBL"
const T0 = 1_700_000_000_000

export interface Instance {
  /** Replays `ops` ops; answers how many the book refused. */
  readonly run: (w: Workload) => number
  readonly book: () => Book
}

export interface Contestant {
  readonly key: string
  readonly label: string
  /** Untimed, once per workload: what every run shares (pre-formatted strings). */
  readonly prepare: (w: Workload) => void
  /** Untimed: a fresh book. */
  readonly fresh: () => Instance
}

// ---------------------------------------------------------------------------------------------------------------
// @spotkit/testkit Engine

/** The numeric entry to an engine (`EngineUnits`; before it, the engine's own methods). */
export type Units = Pick<
  EngineUnits.EngineUnits,
  "submit" | "placeUnits" | "cancelByClientId" | "cancelBySeq" | "userIndex" | "productIndex"
>

/** A version of the engine's source: its `Engine` class and its numeric entry (`engineAB.ts` compares copies). */
export interface Version {
  readonly Engine: typeof Engine
  readonly units: (engine: Engine) => Units
}

const current: Version = { Engine, units: EngineUnits.make }

/** A fresh engine with the product and two funded users, and its numeric entry. */
const newEngine = (recordTrades: boolean, version: Version = current) => {
  const engine = new version.Engine({ recordTrades })
  engine.addProduct({ symbol: SYMBOL, base: "BTC", quote: "USDT", pricePrecision: 2, quantityPrecision: 4 })
  const users = [engine.addUser(), engine.addUser()] as const
  // 4e7 of each coin per user: far more than the workload ever freezes, within the engine's 2^53-unit supply cap.
  for (const user of users) {
    engine.deposit(user, "SPOT", "BTC", "40000000", T0)
    engine.deposit(user, "SPOT", "USDT", "40000000", T0)
  }
  return { engine, units: version.units(engine), users }
}

const units = (text: string): number => Number(text.replace(".", ""))

const engineBook = (engine: Engine) => (): Book => {
  const depth = engine.depth(SYMBOL)
  const levels = (side: typeof depth.bids) => side.map(([p, q, n]) => [units(p), units(q), n] as const)
  return { bids: levels(depth.bids), asks: levels(depth.asks) }
}

const runUnits = (engine: Engine, units: Units, u0: string, u1: string) => (w: Workload): number => {
  const { force, ids, kind, lots, order, price, quote, side } = w
  let refused = 0
  for (let i = 0; i < w.ops; i++) {
    const k = order[i]!
    const user = (k & 1) === 0 ? u0 : u1
    const op = kind[i]!
    const now = T0 + i
    if (op === CANCEL) {
      engine.cancelOrder(user, { clientOrderId: ids[k]! }, now)
      continue
    }
    const s = side[i]!
    const result = op === LIMIT
      ? units.placeUnits(user, SYMBOL, s, 0, force[i]!, price[i]!, lots[i]!, ids[k]!, now)
      : units.placeUnits(user, SYMBOL, s, 1, 0, 0, s === 0 ? quote[i]! : lots[i]!, ids[k]!, now)
    if (!result.ok) refused++
  }
  return refused
}

export const engineUnits = (recordTrades: boolean, version: Version = current): Contestant => ({
  key: recordTrades ? "engine-placeUnits-trades" : "engine-placeUnits",
  label: recordTrades
    ? "@spotkit/testkit EngineUnits.placeUnits (recordTrades on, the default)"
    : "@spotkit/testkit EngineUnits.placeUnits (recordTrades off)",
  prepare: () => {},
  fresh: () => {
    const { engine, units, users } = newEngine(recordTrades, version)
    return { run: runUnits(engine, units, users[0], users[1]), book: engineBook(engine) }
  }
})

/**
 * EngineUnits.submit + a cancel by index: users and the product by index, results as numbers (no allocation). Each cancel
 * names its order by clientOrderId (`cancelByClientId`), or with `bySeq` by the sequence number `submit` answered
 * (`cancelBySeq`: the orderId in number form, as a program that keeps the ids the venue returned does; no
 * clientOrderId lookup).
 */
export const engineSubmit = (
  recordTrades: boolean,
  bySeq = false,
  version: Version = current
): Contestant => {
  // With `bySeq`: the sequence number of each order of the stream, written by its placement before any cancel of it
  // reads it.
  let seqs = new Float64Array(0)
  return {
    key: `engine-submit${recordTrades ? "-trades" : ""}${bySeq ? "-by-seq" : ""}`,
    label: `@spotkit/testkit EngineUnits.submit + ${bySeq ? "cancelBySeq" : "cancelByClientId"} (recordTrades ${
      recordTrades ? "on" : "off"
    })`,
    prepare: (w) => {
      if (bySeq) seqs = new Float64Array(w.orders)
    },
    fresh: () => {
      const { engine, units, users } = newEngine(recordTrades, version)
      const u0 = units.userIndex(users[0])
      const u1 = units.userIndex(users[1])
      const product = units.productIndex(SYMBOL)
      const run = (w: Workload): number => {
        const { force, ids, kind, lots, order, price, quote, side } = w
        let refused = 0
        for (let i = 0; i < w.ops; i++) {
          const k = order[i]!
          const user = (k & 1) === 0 ? u0 : u1
          const op = kind[i]!
          const now = T0 + i
          if (op === CANCEL) {
            if (bySeq) units.cancelBySeq(user, seqs[k]!, now)
            else units.cancelByClientId(user, ids[k]!, now)
            continue
          }
          const s = side[i]!
          const result = op === LIMIT
            ? units.submit(user, product, s, 0, force[i]!, price[i]!, lots[i]!, ids[k]!, now)
            : units.submit(user, product, s, 1, 0, 0, s === 0 ? quote[i]! : lots[i]!, ids[k]!, now)
          if (bySeq) seqs[k] = result
          if (result < 0) refused++
        }
        return refused
      }
      return { run, book: engineBook(engine) }
    }
  }
}

const SIDE_TEXT = ["buy", "sell"] as const
const FORCE_TEXT = ["normal", "postOnly", "fok", "ioc"] as const

/** Engine.placeOrder with the wire strings, pre-formatted per order before timing. */
export const engineStrings = (recordTrades: boolean): Contestant => {
  let priceText: Array<string | undefined> = []
  let quantityText: Array<string> = []
  return {
    key: recordTrades ? "engine-placeOrder-trades" : "engine-placeOrder",
    label: `@spotkit/testkit Engine.placeOrder, decimal strings (recordTrades ${recordTrades ? "on" : "off"})`,
    prepare: (w) => {
      priceText = new Array<string | undefined>(w.orders)
      quantityText = new Array<string>(w.orders)
      for (let i = 0; i < w.ops; i++) {
        const kind = w.kind[i]!
        if (kind === CANCEL) continue
        const k = w.order[i]!
        priceText[k] = kind === LIMIT ? decimal(w.price[i]!, PRICE_DECIMALS) : undefined
        quantityText[k] = kind !== LIMIT && w.side[i] === 0
          ? decimal(w.quote[i]!, QUOTE_DECIMALS)
          : decimal(w.lots[i]!, LOT_DECIMALS)
      }
    },
    fresh: () => {
      const { engine, users } = newEngine(recordTrades)
      const [u0, u1] = users
      const run = (w: Workload): number => {
        const { force, ids, kind, order, side } = w
        let refused = 0
        for (let i = 0; i < w.ops; i++) {
          const k = order[i]!
          const user = (k & 1) === 0 ? u0 : u1
          const op = kind[i]!
          const now = T0 + i
          if (op === CANCEL) {
            engine.cancelOrder(user, { clientOrderId: ids[k]! }, now)
            continue
          }
          const result = engine.placeOrder(user, {
            symbol: SYMBOL,
            side: SIDE_TEXT[side[i]!]!,
            orderType: op === LIMIT ? "limit" : "market",
            force: FORCE_TEXT[force[i]!]!,
            price: priceText[k],
            quantity: quantityText[k]!,
            clientOrderId: ids[k]!
          }, now)
          if (!result.ok) refused++
        }
        return refused
      }
      return { run, book: engineBook(engine) }
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// nodejs-order-book: prices in ticks and sizes in lots (integers, so its float arithmetic stays exact).

type TimeInForce = NonNullable<LimitOrderOptions["timeInForce"]>
// Its TimeInForce enum is not exported from the package root; the values are these strings.
const TIF = ["GTC", "GTC", "FOK", "IOC"] as unknown as ReadonlyArray<TimeInForce>
const SIDES = [Side.BUY, Side.SELL] as const

const libraryBook = (ob: OrderBook) => (): Book => {
  const snapshot = ob.snapshot()
  const levels = (side: typeof snapshot.bids) =>
    side.map(({ orders, price }) => [price, orders.reduce((sum, o) => sum + o.size, 0), orders.length] as const)
  return { bids: levels(snapshot.bids), asks: levels(snapshot.asks) }
}

export const library: Contestant = {
  key: "nodejs-order-book",
  label: "nodejs-order-book limit/market/cancel",
  prepare: () => {},
  fresh: () => {
    const ob = new OrderBook()
    const run = (w: Workload): number => {
      const { force, ids, kind, lots, order, price, side } = w
      let refused = 0
      for (let i = 0; i < w.ops; i++) {
        const k = order[i]!
        const op = kind[i]!
        if (op === CANCEL) {
          ob.cancel(ids[k]!)
          continue
        }
        const f = force[i]!
        const result = op === LIMIT
          ? ob.limit({
            id: ids[k]!,
            side: SIDES[side[i]!]!,
            size: lots[i]!,
            price: price[i]!,
            timeInForce: TIF[f]!,
            postOnly: f === POST_ONLY
          })
          : ob.market({ side: SIDES[side[i]!]!, size: lots[i]! })
        if (result.err !== null) refused++
      }
      return refused
    }
    return { run, book: libraryBook(ob) }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Memory: heap (V8 heap + off-heap ArrayBuffers) retained by N resting orders placed into a fresh book.

const gc = (): void => {
  if (globalThis.gc === undefined) throw new Error("run node with --expose-gc")
  globalThis.gc()
  globalThis.gc()
}

/**
 * Live bytes: the V8 heap plus the memory of ArrayBuffers and SharedArrayBuffers (typed arrays' backing stores).
 * `arrayBuffers`, not `external`: external counts ordinary ArrayBuffers but not shared ones (the engine's records are
 * shared: see its internal/segments.ts). What it leaves out, external memory other than buffers, neither contestant
 * grows.
 */
export const liveBytes = (): number => {
  gc()
  const m = process.memoryUsage()
  return m.heapUsed + m.arrayBuffers
}

export interface MemoryResult {
  readonly bytes: number
  readonly perOrder: number
  readonly resting: number
}

export const memoryEngine = (set: RestingSet): MemoryResult => {
  const { engine, units, users } = newEngine(true)
  const before = liveBytes()
  for (let k = 0; k < set.n; k++) {
    units.placeUnits(users[k & 1]!, SYMBOL, set.side[k]!, 0, 0, set.price[k]!, set.lots[k]!, set.ids[k]!, T0)
  }
  const bytes = liveBytes() - before
  const book = engineBook(engine)()
  const resting = [...book.bids, ...book.asks].reduce((sum, [, , n]) => sum + n, 0)
  return { bytes, perOrder: bytes / set.n, resting }
}

export const memoryLibrary = (set: RestingSet): MemoryResult => {
  const ob = new OrderBook()
  const before = liveBytes()
  for (let k = 0; k < set.n; k++) {
    ob.limit({ id: set.ids[k]!, side: SIDES[set.side[k]!]!, size: set.lots[k]!, price: set.price[k]! })
  }
  const bytes = liveBytes() - before
  const book = libraryBook(ob)()
  const resting = [...book.bids, ...book.asks].reduce((sum, [, , n]) => sum + n, 0)
  return { bytes, perOrder: bytes / set.n, resting }
}

/** What the ids themselves take (one string and one array slot each): excluded from both measurements above. */
export const memoryIds = (n: number): number => {
  const before = liveBytes()
  const ids = Array.from({ length: n }, (_, k) => "m" + k)
  const bytes = liveBytes() - before
  return ids.length === n ? bytes / n : NaN
}
