/**
 * The exchange engine: products, users, API keys, accounts, one order book per symbol with price-time priority, a
 * ledger for every account, internal transfers and synthetic bill histories. Plain, synchronous TypeScript with no
 * Effect in the hot loop; `TestExchange` wraps it in a service and the transports speak the venue protocol over it.
 *
 * Exactness: every amount is an integer number of the smallest unit of its coin (10^-scale), held in a JS number.
 * The engine refuses any deposit that would take a coin's total supply to 2^53 units or more; since trading and
 * transfers only move existing units, every balance, fill and total stays a safe integer and every operation is
 * exact. Ids are 19-digit (64-bit, above 2^53) decimal strings issued from counters, so the same seed and the same
 * calls give the same ids, responses and state.
 *
 * Time is whatever the caller passes (`TestExchange` reads `Clock`); the engine never lets it go backwards, so its
 * ledger stays in time order.
 *
 * @since 0.1.0
 */
import { Bill } from "@spotkit/core"
import {
  at,
  BookSide,
  C_TIME,
  FILL_TOTAL,
  FILLED,
  FLAGS,
  FORCE_FOK,
  FORCE_NORMAL,
  FORCE_POST_ONLY,
  FORCE_SHIFT,
  LATEST_FILL,
  LEVEL,
  type Level,
  MAX_FILL,
  MIN_FILL,
  NEXT,
  NO_ORDER,
  OrderStore,
  PRICE,
  PRODUCT,
  QUANTITY,
  REMAINING,
  setStatus,
  SIDE_SELL,
  STATUS_CANCELLED,
  STATUS_FILLED,
  STATUS_OPEN,
  STATUS_SHIFT,
  TYPE_MARKET,
  U_TIME,
  USER
} from "./internal/book.ts"
import { ClientIds } from "./internal/clientIds.ts"
import * as Ledger from "./internal/ledger.ts"
import { prng } from "./internal/prng.ts"
import * as Trades from "./internal/trades.ts"
import { fixed, mulDivFloor, pow10, rate, RATE_SCALE, toUnits, trimmed } from "./internal/units.ts"

/**
 * The account types of spec §2.7, in the engine's index order.
 *
 * @since 0.1.0
 * @category constants
 */
export const accountTypes = ["SPOT", "SPOT_V2", "FUND"] as const

/**
 * @since 0.1.0
 * @category models
 */
export type AccountType = typeof accountTypes[number]

const SPOT = 0
const FUND = 2

/**
 * The bill business types of spec §2.6 (core's `Bill.BizType`), in the engine's index order.
 *
 * @since 0.1.0
 * @category constants
 */
export const bizTypes: ReadonlyArray<Bill.BizType> = Bill.BizType.literals

/**
 * @since 0.1.0
 * @category models
 */
export type BizType = Bill.BizType

const BIZ = Object.fromEntries(bizTypes.map((name, i) => [name, i])) as Record<BizType, number>
// The ones a fill writes, as plain constants for the hot path.
const BUY_SUCCESS = BIZ.buy_success
const SELL_COMPLETE = BIZ.sell_complete

// Each bizType as a JSON string, for bills written as JSON text.
const BIZ_TYPE_JSON: ReadonlyArray<string> = bizTypes.map((name) => JSON.stringify(name))

const EMPTY_LIST = new Ledger.EntryList()

// The bizTypes of synthetic history that debit the funding account; the others credit it.
const DEBITS =
  /^(withdraw_freeze|withdraw_complete|sell_freeze|transfer_out|internal_withdraw|platform_lock|c2c_sell|c2c_freeze)$/
const DEBIT_TYPES = bizTypes.flatMap((name, i) => DEBITS.test(name) ? [i] : [])
const CREDIT_TYPES = bizTypes.flatMap((name, i) => DEBITS.test(name) ? [] : [i])

/**
 * A coin: its name, the numeric `coinId` the bills endpoint filters on, and the decimals its balances are kept in.
 *
 * @since 0.1.0
 * @category models
 */
export interface CoinSpec {
  readonly name: string
  readonly coinId: number
  /** @default 8 */
  readonly scale?: number | undefined
}

/**
 * A trading pair as served at `/products`.
 *
 * @since 0.1.0
 * @category models
 */
export interface ProductSpec {
  /** `<BASE><QUOTE>_SPBL`, e.g. `"BTCUSDT_SPBL"`. */
  readonly symbol: string
  readonly base: string
  readonly quote: string
  /** Decimals of a price. */
  readonly pricePrecision: number
  /** Decimals of a quantity in the base coin. */
  readonly quantityPrecision: number
  /** Decimals of a market buy's quantity, which is an amount of the quote coin. @default pricePrecision */
  readonly quotePrecision?: number | undefined
  /** Smallest order value in the quote coin (price × quantity; a market buy's quantity). @default "0" */
  readonly minOrderValue?: string | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface EngineOptions {
  /** Seeds the id prefixes and the synthetic histories. @default 1 */
  readonly seed?: number | undefined
  /** @default BTC (coinId 1), USDT (2), ETH (3), all with 8 decimals */
  readonly coins?: ReadonlyArray<CoinSpec> | undefined
  /** Fee on what a maker receives, at most 6 decimals. @default "0.001" */
  readonly makerFeeRate?: string | undefined
  /** Fee on what a taker receives, at most 6 decimals. @default "0.001" */
  readonly takerFeeRate?: string | undefined
  /** Keep a record of every trade (`trades()`). @default true */
  readonly recordTrades?: boolean | undefined
  /**
   * Keep orders, ledger entries, trades and the clientOrderId table in `SharedArrayBuffer`s where the platform has
   * them. V8 does not count those as external memory, so a growing engine calls for no full garbage collections
   * (which could free none of it, and each of which marks the whole program's heap: twice the throughput with a few
   * million live strings around). Set `false` in a program that creates and drops many large engines: a dropped
   * engine's shared memory is freed only at the next full collection, which its size no longer brings on.
   * @default true
   */
  readonly sharedMemory?: boolean | undefined
}

/**
 * An order request as the venue receives it (spec §2.1), already parsed from JSON.
 *
 * @since 0.1.0
 * @category models
 */
export interface OrderRequest {
  readonly symbol: string
  readonly side: string
  readonly orderType: string
  readonly force: string
  readonly price?: string | undefined
  readonly quantity: string
  readonly clientOrderId: string
}

/**
 * A refusal with the venue's code and message (DESIGN §3).
 *
 * @since 0.1.0
 * @category models
 */
export interface Rejection {
  readonly ok: false
  readonly code: string
  readonly msg: string
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Placed {
  readonly ok: true
  readonly orderId: string
  readonly clientOrderId: string
}

/**
 * An order as the venue reports it (spec §2.5), for any status.
 *
 * @since 0.1.0
 * @category models
 */
export interface OrderView {
  readonly accountId: string
  readonly userId: string
  readonly symbol: string
  readonly orderId: string
  readonly clientOrderId: string
  readonly price: string
  readonly quantity: string
  readonly orderType: "limit" | "market"
  readonly side: "buy" | "sell"
  readonly force: "normal" | "postOnly" | "fok" | "ioc"
  readonly status: "open" | "filled" | "cancelled"
  readonly latestFillPrice: string
  readonly maxFillPrice: string
  readonly minFillPrice: string
  readonly fillQuantity: string
  readonly fillTotalAmount: string
  readonly cTime: string
  readonly uTime: string
}

/**
 * One match between a resting (maker) and an incoming (taker) order.
 *
 * @since 0.1.0
 * @category models
 */
export interface Trade {
  readonly tradeId: string
  readonly symbol: string
  readonly price: string
  readonly quantity: string
  readonly amount: string
  readonly takerSide: "buy" | "sell"
  readonly makerOrderId: string
  readonly takerOrderId: string
  readonly makerFee: string
  readonly takerFee: string
  readonly time: number
}

/**
 * A funding bill (spec §2.6).
 *
 * @since 0.1.0
 * @category models
 */
export interface BillView {
  readonly billId: string
  readonly coinId: number
  readonly coinName: string
  readonly bizType: BizType
  readonly deltaAmount: string
  readonly afterAmount: string
  readonly fees: string
  readonly cTime: string
}

/**
 * A ledger entry of any account.
 *
 * @since 0.1.0
 * @category models
 */
export interface LedgerEntry extends BillView {
  readonly userId: string
  readonly accountType: AccountType
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Balance {
  readonly accountType: AccountType
  readonly coin: string
  readonly available: string
  readonly frozen: string
}

/**
 * Filters of the bills endpoint (spec §4.4); bounds are exclusive.
 *
 * @since 0.1.0
 * @category models
 */
export interface BillQuery {
  readonly coinId?: number | undefined
  readonly startTime?: number | undefined
  readonly endTime?: number | undefined
  /** From 1. @default 1 */
  readonly pageIndex?: number | undefined
  /** 1..100. @default 10 */
  readonly pageSize?: number | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface BillPage {
  readonly total: number
  readonly page: number
  readonly pageSize: number
  readonly hasNextPage: boolean
  readonly items: ReadonlyArray<BillView>
}

/**
 * An internal transfer request (spec §2.7); `toUserId` as exact digits.
 *
 * @since 0.1.0
 * @category models
 */
export interface TransferRequest {
  readonly toUserId: string
  readonly coin: string
  readonly amount: string
  readonly fromAccountType: string
  readonly toAccountType: string
}

/**
 * Parameters of a synthetic funding-bill history.
 *
 * @since 0.1.0
 * @category models
 */
export interface HistoryOptions {
  readonly count: number
  /** Time of the first bill (ms); not before the account's last bill. */
  readonly from: number
  /** Time of the last bill (ms). Several bills share a millisecond when `count` exceeds the span. */
  readonly to: number
  /** Coins to spread the bills over. @default every coin */
  readonly coins?: ReadonlyArray<string> | undefined
  /** @default the engine's seed */
  readonly seed?: number | undefined
}

/**
 * A programming error in seeding (unknown user or coin, bad product, supply overflow).
 *
 * @since 0.1.0
 * @category errors
 */
export class EngineError extends Error {
  override readonly name = "EngineError"
}

const reject = (code: string, msg: string): Rejection => ({ ok: false, code, msg })

// Refusals of the matching path, as negative results (no allocation on the hot path).
const REJECT_DUPLICATE = -1
const REJECT_MIN_VALUE = -2
const REJECT_BALANCE = -3
const REJECT_POST_ONLY = -4
const REJECT_UNKNOWN = -5
const REJECT_PARAMETER = -6

const ID_DIGITS = 15
const KIND_ORDER = 1
const KIND_BILL = 2
const KIND_TRANSFER = 3
const KIND_USER = 4
const KIND_TRADE = 5
const KIND_ACCOUNT = 6

interface Coin {
  readonly index: number
  readonly name: string
  readonly coinId: number
  readonly scale: number
}

interface Product {
  readonly index: number
  readonly symbol: string
  readonly base: Coin
  readonly quote: Coin
  readonly pricePrecision: number
  readonly quantityPrecision: number
  readonly quotePrecision: number
  /** Quote units of one tick × one lot. */
  readonly notional: number
  /** Base units of one lot. */
  readonly lot: number
  /** Quote units of one unit of a market buy's quantity. */
  readonly marketBuyUnit: number
  readonly minValue: number
  readonly minOrderValue: string
  readonly bids: BookSide
  readonly asks: BookSide
}

interface User {
  readonly index: number
  readonly userId: string
  readonly accountId: string
  /** (account * coins + coin) * 2 + (0 available | 1 frozen), in units. */
  readonly balances: Float64Array
  readonly fundBills: Ledger.EntryList
  readonly fundBillsByCoin: Array<Ledger.EntryList>
}

/**
 * An API key and what it may do.
 *
 * @since 0.1.0
 * @category models
 */
export interface ApiKey {
  readonly apiKey: string
  readonly secretKey: string
  readonly passphrase: string
  readonly userId: string
  /** @default ["read", "trade", "transfer"] */
  readonly permissions?: ReadonlyArray<"read" | "trade" | "transfer"> | undefined
}

/**
 * Default coins: BTC (coinId 1), USDT (2), ETH (3).
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultCoins: ReadonlyArray<CoinSpec> = [
  { name: "BTC", coinId: 1, scale: 8 },
  { name: "USDT", coinId: 2, scale: 8 },
  { name: "ETH", coinId: 3, scale: 8 }
]

const SIDES = ["buy", "sell"] as const
const FORCES = ["normal", "postOnly", "fok", "ioc"] as const
const STATUSES = ["open", "filled", "cancelled"] as const

/**
 * The exchange engine.
 *
 * @since 0.1.0
 * @category engine
 */
export class Engine {
  readonly seed: number
  private readonly orders: OrderStore
  private readonly ledger: Ledger.Ledger
  private readonly clientIds: ClientIds
  private readonly coins: Array<Coin>
  private readonly coinByName = new Map<string, Coin>()
  private readonly coinById = new Map<number, Coin>()
  // Each coin's name as a JSON string, by coin index.
  private readonly coinNameJson: Array<string>
  private readonly products: Array<Product> = []
  private readonly productBySymbol = new Map<string, Product>()
  private readonly users: Array<User> = []
  private readonly userById = new Map<string, User>()
  private readonly keys = new Map<string, ApiKey>()
  private readonly makerRate: number
  private readonly takerRate: number
  private readonly recordTrades: boolean
  private readonly tradeLog: Trades.TradeLog
  private readonly supplyUnits: Array<number>
  private readonly feeUnits: Array<number>
  private readonly idPrefix: string
  /**
   * By kind and by the number of digits of a sequence number: the kind, the prefix and the zeros that pad it to
   * `ID_DIGITS`, so that an id is one concatenation (`padStart` and two concatenations took about 80 ns).
   */
  private readonly idHeads: ReadonlyArray<ReadonlyArray<string>>
  private transfers = 0
  private clock = 0

  constructor(options: EngineOptions = {}) {
    this.seed = options.seed ?? 1
    if (!Number.isSafeInteger(this.seed) || this.seed < 0) throw new EngineError(`seed must be a non-negative integer`)
    this.idPrefix = String(this.seed % 1000).padStart(3, "0")
    this.idHeads = Array.from(
      { length: KIND_ACCOUNT + 1 },
      (_, kind) =>
        Array.from({ length: ID_DIGITS + 1 }, (_, digits) => kind + this.idPrefix + "0".repeat(ID_DIGITS - digits))
    )
    this.coins = (options.coins ?? defaultCoins).map((spec, index) => {
      const scale = spec.scale ?? 8
      if (!Number.isInteger(scale) || scale < 0 || scale > 18) throw new EngineError(`coin ${spec.name}: bad scale`)
      return { index, name: spec.name, coinId: spec.coinId, scale }
    })
    if (this.coins.length > 255) throw new EngineError("at most 255 coins")
    this.coinNameJson = this.coins.map((coin) => JSON.stringify(coin.name))
    for (const coin of this.coins) {
      this.coinByName.set(coin.name, coin)
      this.coinById.set(coin.coinId, coin)
    }
    const maker = rate(options.makerFeeRate ?? "0.001")
    const taker = rate(options.takerFeeRate ?? "0.001")
    if (maker === undefined || taker === undefined) throw new EngineError("fee rates are decimals in 0..1, 6 places")
    this.makerRate = maker
    this.takerRate = taker
    this.recordTrades = options.recordTrades ?? true
    const shared = options.sharedMemory ?? true
    this.orders = new OrderStore(shared)
    this.ledger = new Ledger.Ledger(shared)
    this.clientIds = new ClientIds(this.orders, shared)
    this.tradeLog = new Trades.TradeLog(shared)
    this.supplyUnits = this.coins.map(() => 0)
    this.feeUnits = this.coins.map(() => 0)
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Ids and time

  private id(kind: number, seq: number): string {
    let digits = 1
    for (let bound = 10; bound <= seq; bound *= 10) digits++
    return this.idHeads[kind]![digits]! + seq
  }

  /** The sequence number behind an id of this engine, or -1. */
  private seqOf(kind: number, id: string): number {
    if (id.length !== 4 + ID_DIGITS || id.charCodeAt(0) !== 48 + kind || id.slice(1, 4) !== this.idPrefix) return -1
    const seq = Number(id.slice(4))
    return Number.isSafeInteger(seq) ? seq : -1
  }

  private tick(now: number): number {
    if (now > this.clock) this.clock = Math.floor(now)
    return this.clock
  }

  /**
   * The latest time the engine has seen (ms).
   *
   * @since 0.1.0
   */
  get now(): number {
    return this.clock
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Seeding

  /**
   * Adds a trading pair.
   *
   * @since 0.1.0
   */
  addProduct(spec: ProductSpec): void {
    if (this.productBySymbol.has(spec.symbol)) throw new EngineError(`product ${spec.symbol} exists`)
    if (!/^[A-Z0-9]+_SPBL$/.test(spec.symbol)) throw new EngineError(`symbol ${spec.symbol}: <BASE><QUOTE>_SPBL`)
    const base = this.coin(spec.base)
    const quote = this.coin(spec.quote)
    const pp = spec.pricePrecision
    const qp = spec.quantityPrecision
    const quotePrecision = spec.quotePrecision ?? pp
    const ok = (n: number) => Number.isInteger(n) && n >= 0
    if (!ok(pp) || !ok(qp) || !ok(quotePrecision)) throw new EngineError(`${spec.symbol}: bad precision`)
    if (pp + qp > quote.scale || quotePrecision > quote.scale || qp > base.scale) {
      throw new EngineError(`${spec.symbol}: precisions exceed the coins' scales`)
    }
    const minValue = toUnits(spec.minOrderValue ?? "0", quote.scale)
    if (typeof minValue !== "number") throw new EngineError(`${spec.symbol}: bad minOrderValue`)
    const product: Product = {
      index: this.products.length,
      symbol: spec.symbol,
      base,
      quote,
      pricePrecision: pp,
      quantityPrecision: qp,
      quotePrecision,
      notional: pow10(quote.scale - pp - qp),
      lot: pow10(base.scale - qp),
      marketBuyUnit: pow10(quote.scale - quotePrecision),
      minValue,
      minOrderValue: trimmed(minValue, quote.scale),
      bids: new BookSide(true),
      asks: new BookSide(false)
    }
    this.products.push(product)
    this.productBySymbol.set(spec.symbol, product)
  }

  /**
   * The products as served at `/products`.
   *
   * @since 0.1.0
   */
  productList(): ReadonlyArray<{
    readonly symbol: string
    readonly baseCoin: string
    readonly quoteCoin: string
    readonly pricePrecision: string
    readonly quantityPrecision: string
    readonly quotePrecision: string
    readonly minTradeUSDT: string
    readonly status: "online"
  }> {
    return this.products.map((p) => ({
      symbol: p.symbol,
      baseCoin: p.base.name,
      quoteCoin: p.quote.name,
      pricePrecision: String(p.pricePrecision),
      quantityPrecision: String(p.quantityPrecision),
      quotePrecision: String(p.quotePrecision),
      minTradeUSDT: p.minOrderValue,
      status: "online"
    }))
  }

  /**
   * Whether a symbol is listed.
   *
   * @since 0.1.0
   */
  hasProduct(symbol: string): boolean {
    return this.productBySymbol.has(symbol)
  }

  /**
   * Adds a user and answers its 64-bit id.
   *
   * @since 0.1.0
   */
  addUser(userId?: string): string {
    const index = this.users.length
    const id = userId ?? this.id(KIND_USER, index + 1)
    if (!/^[1-9]\d{0,19}$/.test(id) || BigInt(id) >= 2n ** 64n) throw new EngineError(`user id ${id}: u64 digits`)
    if (this.userById.has(id)) throw new EngineError(`user ${id} exists`)
    const user: User = {
      index,
      userId: id,
      accountId: this.id(KIND_ACCOUNT, index + 1),
      balances: new Float64Array(accountTypes.length * this.coins.length * 2),
      fundBills: new Ledger.EntryList(),
      fundBillsByCoin: this.coins.map(() => new Ledger.EntryList())
    }
    this.users.push(user)
    this.userById.set(id, user)
    return id
  }

  /**
   * Registers an API key for a user.
   *
   * @since 0.1.0
   */
  addApiKey(key: ApiKey): void {
    this.user(key.userId)
    if (this.keys.has(key.apiKey)) throw new EngineError("api key exists")
    this.keys.set(key.apiKey, key)
  }

  /**
   * The key record for an API key, if any.
   *
   * @since 0.1.0
   */
  apiKey(apiKey: string): ApiKey | undefined {
    return this.keys.get(apiKey)
  }

  /**
   * Credits an account from outside the exchange (an on-chain deposit): the only way coins enter.
   *
   * @since 0.1.0
   */
  deposit(userId: string, accountType: AccountType, coinName: string, amount: string, now: number): void {
    const user = this.user(userId)
    const coin = this.coin(coinName)
    const account = accountTypes.indexOf(accountType)
    if (account < 0) throw new EngineError(`unknown account type ${accountType}: one of ${accountTypes.join(", ")}`)
    const units = toUnits(amount, coin.scale)
    if (typeof units !== "number" || units === 0) throw new EngineError(`deposit ${amount}: a positive decimal`)
    this.external(coin, units)
    this.post(user, account, coin, BIZ.deposit, units, 0, this.tick(now))
  }

  private external(coin: Coin, units: number): void {
    const supply = this.supplyUnits[coin.index]! + units
    if (!Number.isSafeInteger(supply) || supply < 0) {
      throw new EngineError(`${coin.name}: total supply must stay below 2^53 units`)
    }
    this.supplyUnits[coin.index] = supply
  }

  /**
   * Writes a synthetic funding-bill history for a user over every bizType: amounts move the funding balance (as
   * flows from outside the exchange) and each bill's `afterAmount` chains on the previous one. Deterministic for a
   * seed; a million bills take well under a second.
   *
   * @since 0.1.0
   */
  generateBills(userId: string, options: HistoryOptions): void {
    const user = this.user(userId)
    const coins = (options.coins ?? this.coins.map((c) => c.name)).map((name) => this.coin(name))
    const count = options.count
    if (!Number.isSafeInteger(count) || count < 0) throw new EngineError("count: a non-negative integer")
    if (coins.length === 0) throw new EngineError("coins: at least one")
    const last = user.fundBills.size === 0
      ? -Infinity
      : this.ledger.time(user.fundBills.items[user.fundBills.size - 1]!)
    if (options.from < last || options.to < options.from) {
      throw new EngineError("history: from <= to, and not before the account's last bill")
    }
    const random = prng(options.seed ?? this.seed)
    // Evenly spread over [from, to] without forming span × i, which can pass 2^53 (ten years × 30K bills).
    const span = options.to - options.from
    const gaps = Math.max(1, count - 1)
    const spare = span % gaps
    const step = (span - spare) / gaps
    for (let i = 0; i < count; i++) {
      const time = count === 1 ? options.from : options.from + step * i + Math.floor((spare * i) / (count - 1))
      const coin = coins[Math.floor(random() * coins.length)]!
      const slot = this.slot(FUND, coin)
      const available = user.balances[slot]!
      // Credits and debits are equally likely, so a long history is a random walk that stays far from 2^53.
      const credit = available === 0 || random() < 0.5
      const choices = credit ? CREDIT_TYPES : DEBIT_TYPES
      const biz = choices[Math.floor(random() * choices.length)]!
      const magnitude = 1 + Math.floor(random() * Math.min(100 * pow10(coin.scale), 1e12))
      const delta = credit ? magnitude : -Math.min(magnitude, available)
      const fee = credit && biz !== BIZ.deposit ? Math.floor(delta / 1000) : 0
      this.external(coin, delta - fee)
      this.post(user, FUND, coin, biz, delta - fee, fee, time)
    }
    // Live activity continues after the history, so the account's bills stay in time order.
    this.tick(options.to)
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Balances and the ledger

  private coin(name: string): Coin {
    const coin = this.coinByName.get(name)
    if (coin === undefined) throw new EngineError(`unknown coin ${name}`)
    return coin
  }

  private user(userId: string): User {
    const user = this.userById.get(userId)
    if (user === undefined) throw new EngineError(`unknown user ${userId}`)
    return user
  }

  /** Changes an account's available balance by `delta` and writes the ledger entry (total after the change). */
  private post(user: User, account: number, coin: Coin, biz: number, delta: number, fee: number, time: number): void {
    const slot = this.slot(account, coin)
    const balances = user.balances
    balances[slot] = balances[slot]! + delta
    const after = balances[slot]! + balances[slot + 1]!
    const entry = this.ledger.append(user.index, account, coin.index, biz, delta, after, fee, time)
    if (account === FUND) {
      user.fundBills.push(entry)
      user.fundBillsByCoin[coin.index]!.push(entry)
    }
  }

  /** Moves units from a frozen balance out of the account (spent by a fill). */
  private spendFrozen(user: User, coin: Coin, units: number, biz: number, time: number): void {
    const slot = this.slot(SPOT, coin)
    const balances = user.balances
    balances[slot + 1] = balances[slot + 1]! - units
    const after = balances[slot]! + balances[slot + 1]!
    this.ledger.append(user.index, SPOT, coin.index, biz, -units, after, 0, time)
  }

  private freeze(user: User, coin: Coin, units: number): void {
    const slot = this.slot(SPOT, coin)
    user.balances[slot] = user.balances[slot]! - units
    user.balances[slot + 1] = user.balances[slot + 1]! + units
  }

  /** Index of an account's available balance in `User.balances`; the frozen one follows it. */
  private slot(account: number, coin: Coin): number {
    return (account * this.coins.length + coin.index) * 2
  }

  private available(user: User, account: number, coin: Coin): number {
    return user.balances[this.slot(account, coin)]!
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Orders

  /**
   * Places an order from its wire fields (spec §2.1) with the venue's checks and codes: parameters (40019/40020),
   * symbol (40102), precision (40808), minimum value (45110), duplicate clientOrderId (43118), balance (43012).
   * Orders trade against the user's `SPOT` account.
   *
   * @since 0.1.0
   */
  placeOrder(userId: string, request: OrderRequest, now: number): Placed | Rejection {
    const user = this.userById.get(userId)
    if (user === undefined) return reject("40034", "Parameter userId does not exist")
    const product = this.productBySymbol.get(request.symbol)
    if (product === undefined) return reject("40102", "Symbol does not exist")
    const side = request.side === "buy" ? 0 : request.side === "sell" ? 1 : -1
    if (side < 0) return reject("40020", "Parameter side error")
    const market = request.orderType === "market" ? 1 : request.orderType === "limit" ? 0 : -1
    if (market < 0) return reject("40020", "Parameter orderType error")
    const force = FORCES.indexOf(request.force as typeof FORCES[number])
    if (force < 0) return reject("40020", "Parameter force error")
    const cid = request.clientOrderId
    if (cid.length === 0 || cid.length > 64) return reject("40020", "Parameter clientOrderId error")
    let price = 0
    if (market === 0) {
      if (request.price === undefined || request.price === "") return reject("40019", "Parameter price cannot be empty")
      const units = toUnits(request.price, product.pricePrecision)
      if (units === "scale") return reject("40808", "parameter scale error: price")
      if (typeof units !== "number" || units === 0) return reject("40020", "Parameter price error")
      price = units
    }
    const quantityScale = market === 1 && side === 0 ? product.quotePrecision : product.quantityPrecision
    const quantity = toUnits(request.quantity, quantityScale)
    if (quantity === "scale") return reject("40808", "parameter scale error: quantity")
    if (typeof quantity !== "number" || quantity === 0) return reject("40020", "Parameter quantity error")
    return this.placed(product, this.place(user, product, side, market, force, price, quantity, cid, now), cid)
  }

  private placed(product: Product, result: number, clientOrderId: string): Placed | Rejection {
    return result >= 0
      ? { ok: true, orderId: this.id(KIND_ORDER, result), clientOrderId }
      : this.rejection(result, product)
  }

  private rejection(result: number, product: Product): Rejection {
    switch (result) {
      case REJECT_DUPLICATE:
        return reject("43118", "clientOrderId duplicate")
      case REJECT_MIN_VALUE:
        return reject("45110", `less than the minimum amount ${product.minOrderValue}`)
      case REJECT_BALANCE:
        return reject("43012", "Insufficient balance")
      case REJECT_POST_ONLY:
        return reject("40020", "Parameter force error: a postOnly order would take liquidity")
      case REJECT_PARAMETER:
        return reject("40020", "Parameter error: side, orderType, force, price or quantity out of range")
      default:
        return reject("40034", "Parameter does not exist")
    }
  }

  /**
   * Places an order given in integer units (price in ticks, quantity in lots, or a market buy's quote units):
   * the matching path without the parsing, for benchmarks and bulk seeding. `side` 0 buy / 1 sell; `market` 0 / 1;
   * `force` 0 normal, 1 postOnly, 2 fok, 3 ioc.
   *
   * @since 0.1.0
   */
  placeUnits(
    userId: string,
    symbol: string,
    side: number,
    market: number,
    force: number,
    price: number,
    quantity: number,
    clientOrderId: string,
    now: number
  ): Placed | Rejection {
    const user = this.userById.get(userId)
    const product = this.productBySymbol.get(symbol)
    if (user === undefined || product === undefined) return reject("40034", "Parameter does not exist")
    const result = this.place(user, product, side, market, force, price, quantity, clientOrderId, now)
    return this.placed(product, result, clientOrderId)
  }

  /**
   * The allocation-free form of `placeUnits` for hot loops: users and products by index (`userIndex`,
   * `productIndex`); answers the order's sequence number (`orderIdOf` makes its id), or a negative number for a
   * refusal (`rejectionOf` says which).
   *
   * @since 0.1.0
   */
  submit(
    user: number,
    product: number,
    side: number,
    market: number,
    force: number,
    price: number,
    quantity: number,
    clientOrderId: string,
    now: number
  ): number {
    const u = this.users[user]
    const p = this.products[product]
    if (u === undefined || p === undefined) return REJECT_UNKNOWN
    return this.place(u, p, side, market, force, price, quantity, clientOrderId, now)
  }

  /**
   * The refusal behind a negative result of `submit`.
   *
   * @since 0.1.0
   */
  rejectionOf(result: number, product: number): Rejection {
    const p = this.products[product]
    return p === undefined ? reject("40034", "Parameter does not exist") : this.rejection(result, p)
  }

  /**
   * The id of the order with this sequence number (a non-negative result of `submit`); throws `EngineError` for
   * anything that cannot be one (a refusal's negative code, a fraction, 10^15 or more).
   *
   * @since 0.1.0
   */
  orderIdOf(seq: number): string {
    if (!Number.isSafeInteger(seq) || seq < 0 || seq >= 10 ** ID_DIGITS) {
      throw new EngineError(`not an order's sequence number: ${seq}`)
    }
    return this.id(KIND_ORDER, seq)
  }

  /**
   * A user's index for `submit`, or -1.
   *
   * @since 0.1.0
   */
  userIndex(userId: string): number {
    return this.userById.get(userId)?.index ?? -1
  }

  /**
   * A product's index for `submit`, or -1.
   *
   * @since 0.1.0
   */
  productIndex(symbol: string): number {
    return this.productBySymbol.get(symbol)?.index ?? -1
  }

  private place(
    user: User,
    product: Product,
    side: number,
    market: number,
    force: number,
    price: number,
    quantity: number,
    clientOrderId: string,
    nowInput: number
  ): number {
    // The numeric entry points skip the string checks; keep their numbers inside what the string path could produce.
    if (
      (side !== 0 && side !== 1) || (market !== 0 && market !== 1) || !(force >= 0 && force <= 3) ||
      !Number.isSafeInteger(force) || !Number.isSafeInteger(quantity) || quantity <= 0 ||
      !Number.isSafeInteger(price) || (market === 0 ? price <= 0 : price !== 0)
    ) {
      return REJECT_PARAMETER
    }
    if (this.clientIds.get(user.index, clientOrderId) >= 0) return REJECT_DUPLICATE
    const buy = side === 0
    const opposite = buy ? product.asks : product.bids
    // What the order freezes: a limit buy its full value at its price, a market buy its quote amount, a sell its
    // base quantity. The value check doubles as the minimum-value check.
    let freeze: number
    let value: number
    if (market === 1) {
      if (buy) {
        freeze = quantity * product.marketBuyUnit
        value = freeze
      } else {
        freeze = quantity * product.lot
        const best = product.bids.best()
        value = best === undefined ? product.minValue : best.price * quantity * product.notional
      }
    } else {
      value = price * quantity * product.notional
      freeze = buy ? value : quantity * product.lot
    }
    if (value < product.minValue) return REJECT_MIN_VALUE
    const coin = buy ? product.quote : product.base
    if (!Number.isSafeInteger(freeze) || freeze > this.available(user, SPOT, coin)) {
      return REJECT_BALANCE
    }
    if (market === 0 && force === FORCE_POST_ONLY) {
      const best = opposite.best()
      // It would take when the best opposite price is at least as good as its own.
      if (best !== undefined && !opposite.better(price, best.price)) {
        return REJECT_POST_ONLY
      }
    }
    const now = this.tick(nowInput)
    const store = this.orders
    const seq = store.alloc(clientOrderId)
    this.clientIds.addMissed(seq)
    // A fresh record is all zeros: the fill fields start so.
    const record = store.segment(seq)
    const o = at(seq)
    record[o + PRICE] = price
    record[o + QUANTITY] = quantity
    // A market buy counts down what it may still spend, in units of the quote coin.
    record[o + REMAINING] = market === 1 && buy ? freeze : quantity
    record[o + C_TIME] = now
    record[o + U_TIME] = now
    record[o + USER] = user.index
    record[o + PRODUCT] = product.index
    record[o + FLAGS] = (buy ? 0 : SIDE_SELL) | (market === 1 ? TYPE_MARKET : 0) | (force << FORCE_SHIFT)
    this.freeze(user, coin, freeze)

    // Fill-or-kill: all of it now at acceptable prices, or nothing (the order is accepted and cancelled).
    if (market === 0 && force === FORCE_FOK && !this.canFill(opposite, price, quantity)) {
      this.finish(user, product, seq, now)
      return seq
    }
    this.match(user, product, seq, opposite, now)
    if (record[o + REMAINING]! > 0 && market === 0 && (force === FORCE_NORMAL || force === FORCE_POST_ONLY)) {
      const own = buy ? product.bids : product.asks
      own.append(store, own.levelFor(price), seq)
    } else {
      this.finish(user, product, seq, now)
    }
    return seq
  }

  /** Whether the opposite side holds `quantity` lots at prices at least as good as `limit`. */
  private canFill(side: BookSide, limit: number, quantity: number): boolean {
    let needed = quantity
    const levels = side.levels
    for (let i = levels.length - 1; i >= 0 && needed > 0; i--) {
      const level = levels[i]!
      if (side.better(limit, level.price)) break
      needed -= level.total
    }
    return needed <= 0
  }

  private match(taker: User, product: Product, seq: number, opposite: BookSide, now: number): void {
    const store = this.orders
    const t = store.segment(seq)
    const to = at(seq)
    const flags = t[to + FLAGS]!
    const buy = (flags & SIDE_SELL) === 0
    const market = (flags & TYPE_MARKET) !== 0
    const limit = t[to + PRICE]!
    const lotCost = product.notional
    let level: Level | undefined
    while (t[to + REMAINING]! > 0 && (level = opposite.best()) !== undefined) {
      const levelPrice = level.price
      if (!market && (buy ? levelPrice > limit : levelPrice < limit)) break
      let maker = level.head
      while (maker !== NO_ORDER && t[to + REMAINING]! > 0) {
        const m = store.segment(maker)
        const mo = at(maker)
        const next = m[mo + NEXT]!
        let lots = m[mo + REMAINING]!
        if (market && buy) {
          // Both are safe integers, so the floor of the double quotient is the exact integer quotient.
          const affordable = Math.floor(t[to + REMAINING]! / (levelPrice * lotCost))
          if (affordable === 0) return
          if (affordable < lots) lots = affordable
        } else if (t[to + REMAINING]! < lots) {
          lots = t[to + REMAINING]!
        }
        this.fill(taker, product, seq, maker, levelPrice, lots, now)
        level.total -= lots
        if (m[mo + REMAINING] === 0) {
          opposite.unlink(store, level, maker)
          setStatus(m, mo, STATUS_FILLED)
        }
        maker = next
      }
    }
  }

  private fill(taker: User, product: Product, ts: number, ms: number, price: number, lots: number, now: number): void {
    const store = this.orders
    const t = store.segment(ts)
    const to = at(ts)
    const m = store.segment(ms)
    const mo = at(ms)
    const maker = this.users[m[mo + USER]!]!
    const takerBuys = (t[to + FLAGS]! & SIDE_SELL) === 0
    const value = price * lots * product.notional
    const baseUnits = lots * product.lot
    const buyer = takerBuys ? taker : maker
    const seller = takerBuys ? maker : taker
    const buyerRate = takerBuys ? this.takerRate : this.makerRate
    const sellerRate = takerBuys ? this.makerRate : this.takerRate
    const base = product.base
    const quote = product.quote

    // The buyer's frozen quote: a taker limit buy froze at its own price and gets the difference back.
    const b = takerBuys ? t : m
    const bo = takerBuys ? to : mo
    const buyerMarket = (b[bo + FLAGS]! & TYPE_MARKET) !== 0
    const frozenAtLimit = buyerMarket ? value : b[bo + PRICE]! * lots * product.notional
    this.spendFrozen(buyer, quote, value, BUY_SUCCESS, now)
    const released = frozenAtLimit - value
    if (released > 0) this.freeze(buyer, quote, -released)
    const buyerFee = mulDivFloor(baseUnits, buyerRate, pow10(RATE_SCALE))
    this.post(buyer, SPOT, base, BUY_SUCCESS, baseUnits - buyerFee, buyerFee, now)

    this.spendFrozen(seller, base, baseUnits, SELL_COMPLETE, now)
    const sellerFee = mulDivFloor(value, sellerRate, pow10(RATE_SCALE))
    this.post(seller, SPOT, quote, SELL_COMPLETE, value - sellerFee, sellerFee, now)
    this.feeUnits[base.index] = this.feeUnits[base.index]! + buyerFee
    this.feeUnits[quote.index] = this.feeUnits[quote.index]! + sellerFee

    recordFill(t, to, price, lots, value, now)
    recordFill(m, mo, price, lots, value, now)
    if (this.recordTrades) {
      const makerFee = takerBuys ? sellerFee : buyerFee
      const takerFee = takerBuys ? buyerFee : sellerFee
      this.tradeLog.append(ms, ts, price, lots, value, makerFee, takerFee, now)
    }
  }

  /** Ends an order that does not rest: releases what it still has frozen; filled if nothing is left. */
  private finish(user: User, product: Product, seq: number, now: number): void {
    const r = this.orders.segment(seq)
    const o = at(seq)
    const flags = r[o + FLAGS]!
    const buy = (flags & SIDE_SELL) === 0
    const market = (flags & TYPE_MARKET) !== 0
    const remaining = r[o + REMAINING]!
    const release = buy
      ? (market ? remaining : remaining * r[o + PRICE]! * product.notional)
      : remaining * product.lot
    if (release > 0) this.freeze(user, buy ? product.quote : product.base, -release)
    // A market buy is done when what is left cannot buy one more lot.
    const done = remaining === 0 || (market && buy && r[o + FILLED]! > 0 && this.dust(product, remaining))
    setStatus(r, o, done ? STATUS_FILLED : STATUS_CANCELLED)
    r[o + U_TIME] = now
  }

  private dust(product: Product, remainingQuote: number): boolean {
    const best = product.asks.best()
    // With no asks left the rest was not spent for want of liquidity: that is a cancelled remainder, not dust.
    return best !== undefined && remainingQuote < best.price * product.notional
  }

  /**
   * Cancels an open order of the user (by orderId or clientOrderId) and releases its frozen funds.
   *
   * @since 0.1.0
   */
  cancelOrder(
    userId: string,
    id: { readonly orderId?: string; readonly clientOrderId?: string },
    now: number
  ): boolean {
    const user = this.userById.get(userId)
    if (user === undefined) return false
    const seq = id.orderId !== undefined
      ? this.seqOf(KIND_ORDER, id.orderId)
      : this.clientIds.get(user.index, id.clientOrderId ?? "")
    return this.cancel(user.index, seq, now)
  }

  /**
   * Cancels by clientOrderId with the user by index: the allocation-free form of `cancelOrder` for hot loops.
   *
   * @since 0.1.0
   */
  cancelByClientId(user: number, clientOrderId: string, now: number): boolean {
    return this.cancel(user, this.clientIds.get(user, clientOrderId), now)
  }

  /**
   * Cancels by the order's sequence number (what `submit` answered; `orderIdOf` makes its id) with the user by index:
   * the allocation-free form of `cancelOrder` by orderId for hot loops. False, as `cancelOrder`, for an order that is
   * not the user's or not open, and for anything that is not a sequence number.
   *
   * @since 0.1.0
   */
  cancelBySeq(user: number, seq: number, now: number): boolean {
    return Number.isSafeInteger(seq) && this.cancel(user, seq, now)
  }

  private cancel(userIndex: number, seq: number, now: number): boolean {
    const user = this.users[userIndex]
    const store = this.orders
    if (user === undefined || seq < 0 || seq >= store.size) return false
    const r = store.segment(seq)
    const o = at(seq)
    const flags = r[o + FLAGS]!
    if (r[o + USER] !== user.index || ((flags >> STATUS_SHIFT) & 3) !== STATUS_OPEN) return false
    const product = this.products[r[o + PRODUCT]!]!
    const buy = (flags & SIDE_SELL) === 0
    const side = buy ? product.bids : product.asks
    // An open order rests (market, FOK and IOC orders are never open after their call), in the level it recorded.
    const level = side.byId[r[o + LEVEL]!]
    if (level === undefined || level.count === 0 || level.price !== r[o + PRICE]) return false
    side.unlink(store, level, seq)
    const remaining = r[o + REMAINING]!
    const price = r[o + PRICE]!
    this.freeze(
      user,
      buy ? product.quote : product.base,
      -(buy ? remaining * price * product.notional : remaining * product.lot)
    )
    setStatus(r, o, STATUS_CANCELLED)
    r[o + U_TIME] = this.tick(now)
    return true
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Queries

  /**
   * A user's open orders on a symbol, newest first (cTime desc, then orderId desc), one page (`pageNo` from 0).
   *
   * @since 0.1.0
   */
  openOrders(userId: string, symbol: string, pageNo: number, limit: number): ReadonlyArray<OrderView> {
    const user = this.userById.get(userId)
    const product = this.productBySymbol.get(symbol)
    if (user === undefined || product === undefined) return []
    const store = this.orders
    const seqs: Array<number> = []
    for (const side of [product.bids, product.asks]) {
      for (const level of side.levels) {
        for (let seq = level.head; seq !== NO_ORDER; seq = store.segment(seq)[at(seq) + NEXT]!) {
          if (store.user(seq) === user.index) seqs.push(seq)
        }
      }
    }
    // The venue's order is cTime desc, then orderId desc. An order's cTime is the engine's clock when it was placed,
    // which never goes back, so that order is descending sequence numbers: a numeric sort, no comparator.
    const sorted = Float64Array.from(seqs).sort()
    const out: Array<OrderView> = []
    const first = sorted.length - 1 - pageNo * limit
    for (let i = first; i > first - limit && i >= 0; i--) out.push(this.view(sorted[i]!))
    return out
  }

  /**
   * One order by id, any status.
   *
   * @since 0.1.0
   */
  order(orderId: string): OrderView | undefined {
    const seq = this.seqOf(KIND_ORDER, orderId)
    return seq >= 0 && seq < this.orders.size ? this.view(seq) : undefined
  }

  /**
   * Every order, oldest first, optionally of one user.
   *
   * @since 0.1.0
   */
  orderList(userId?: string): ReadonlyArray<OrderView> {
    const out: Array<OrderView> = []
    const user = userId === undefined ? undefined : this.user(userId)
    for (let seq = 0; seq < this.orders.size; seq++) {
      if (user === undefined || this.orders.user(seq) === user.index) out.push(this.view(seq))
    }
    return out
  }

  /**
   * The order with this clientOrderId of a user, any status.
   *
   * @since 0.1.0
   */
  orderByClientId(userId: string, clientOrderId: string): OrderView | undefined {
    const seq = this.clientIds.get(this.user(userId).index, clientOrderId)
    return seq < 0 ? undefined : this.view(seq)
  }

  private view(seq: number): OrderView {
    const r = this.orders.segment(seq)
    const o = at(seq)
    const product = this.products[r[o + PRODUCT]!]!
    const user = this.users[r[o + USER]!]!
    const flags = r[o + FLAGS]!
    const market = (flags & TYPE_MARKET) !== 0
    const buy = (flags & SIDE_SELL) === 0
    const pp = product.pricePrecision
    const fillPrice = (ticks: number) => ticks === 0 ? "0" : fixed(ticks, pp)
    const filled = r[o + FILLED]!
    return {
      accountId: user.accountId,
      userId: user.userId,
      symbol: product.symbol,
      orderId: this.id(KIND_ORDER, seq),
      clientOrderId: this.orders.clientOrderId(seq),
      price: market ? "0" : fixed(r[o + PRICE]!, pp),
      quantity: fixed(r[o + QUANTITY]!, market && buy ? product.quotePrecision : product.quantityPrecision),
      orderType: market ? "market" : "limit",
      side: SIDES[buy ? 0 : 1],
      force: FORCES[(flags >> FORCE_SHIFT) & 3]!,
      status: STATUSES[(flags >> STATUS_SHIFT) & 3]!,
      latestFillPrice: fillPrice(r[o + LATEST_FILL]!),
      maxFillPrice: fillPrice(r[o + MAX_FILL]!),
      minFillPrice: fillPrice(r[o + MIN_FILL]!),
      fillQuantity: filled === 0 ? "0" : fixed(filled, product.quantityPrecision),
      fillTotalAmount: trimmed(r[o + FILL_TOTAL]!, product.quote.scale),
      cTime: String(r[o + C_TIME]),
      uTime: String(r[o + U_TIME])
    }
  }

  /**
   * The order book of a symbol: price levels best first, with the total quantity and number of orders at each.
   *
   * @since 0.1.0
   */
  depth(symbol: string): {
    readonly bids: ReadonlyArray<readonly [price: string, quantity: string, orders: number]>
    readonly asks: ReadonlyArray<readonly [price: string, quantity: string, orders: number]>
  } {
    const product = this.productBySymbol.get(symbol)
    if (product === undefined) throw new EngineError(`unknown symbol ${symbol}`)
    const levels = (side: BookSide) =>
      side.levels.slice().reverse().map((l) =>
        [fixed(l.price, product.pricePrecision), fixed(l.total, product.quantityPrecision), l.count] as const
      )
    return { bids: levels(product.bids), asks: levels(product.asks) }
  }

  /**
   * Every trade, oldest first (empty when `recordTrades` is off).
   *
   * @since 0.1.0
   */
  tradeList(): ReadonlyArray<Trade> {
    const log = this.tradeLog
    const store = this.orders
    const out: Array<Trade> = []
    for (let i = 0; i < log.size; i++) {
      const r = log.segment(i)
      const o = Trades.at(i)
      const maker = r[o + Trades.MAKER]!
      const taker = r[o + Trades.TAKER]!
      const product = this.products[store.segment(taker)[at(taker) + PRODUCT]!]!
      const takerBuys = (store.flags(taker) & SIDE_SELL) === 0
      // Each side pays its fee in the coin it receives: the buyer in base, the seller in quote.
      const makerScale = takerBuys ? product.quote.scale : product.base.scale
      const takerScale = takerBuys ? product.base.scale : product.quote.scale
      out.push({
        tradeId: this.id(KIND_TRADE, i + 1),
        symbol: product.symbol,
        price: fixed(r[o + Trades.PRICE]!, product.pricePrecision),
        quantity: fixed(r[o + Trades.LOTS]!, product.quantityPrecision),
        amount: trimmed(r[o + Trades.VALUE]!, product.quote.scale),
        takerSide: takerBuys ? "buy" : "sell",
        makerOrderId: this.id(KIND_ORDER, maker),
        takerOrderId: this.id(KIND_ORDER, taker),
        makerFee: trimmed(r[o + Trades.MAKER_FEE]!, makerScale),
        takerFee: trimmed(r[o + Trades.TAKER_FEE]!, takerScale),
        time: r[o + Trades.TIME]!
      })
    }
    return out
  }

  /**
   * A user's balances: every account and coin with a non-zero amount.
   *
   * @since 0.1.0
   */
  balances(userId: string): ReadonlyArray<Balance> {
    const user = this.user(userId)
    const out: Array<Balance> = []
    accountTypes.forEach((accountType, account) => {
      for (const coin of this.coins) {
        const slot = this.slot(account, coin)
        const available = user.balances[slot]!
        const frozen = user.balances[slot + 1]!
        if (available !== 0 || frozen !== 0) {
          out.push({
            accountType,
            coin: coin.name,
            available: trimmed(available, coin.scale),
            frozen: trimmed(frozen, coin.scale)
          })
        }
      }
    })
    return out
  }

  /**
   * Per coin: everything that entered from outside (deposits and synthetic flows), everything held in accounts
   * (available + frozen, all users), and the fees collected. Conservation: `held + fees === supply`.
   *
   * @since 0.1.0
   */
  totals(): ReadonlyArray<
    { readonly coin: string; readonly supply: string; readonly held: string; readonly fees: string }
  > {
    return this.coins.map((coin) => {
      let held = 0
      for (const user of this.users) {
        for (let account = 0; account < accountTypes.length; account++) {
          const slot = this.slot(account, coin)
          held += user.balances[slot]! + user.balances[slot + 1]!
        }
      }
      return {
        coin: coin.name,
        supply: trimmed(this.supplyUnits[coin.index]!, coin.scale),
        held: trimmed(held, coin.scale),
        fees: trimmed(this.feeUnits[coin.index]!, coin.scale)
      }
    })
  }

  /**
   * One page of a user's funding bills (spec §4.4): newest first (cTime desc, then billId desc), exclusive time
   * bounds, `pageIndex` from 1.
   *
   * @since 0.1.0
   */
  fundingBills(userId: string, query: BillQuery = {}): BillPage {
    const range = this.billRange(userId, query)
    const items: Array<BillView> = []
    for (let position = range.first; position > range.last; position--) {
      items.push(this.billView(range.list.items[position]!))
    }
    return {
      total: range.total,
      page: range.pageIndex,
      pageSize: range.pageSize,
      hasNextPage: range.hasNextPage,
      items
    }
  }

  /**
   * The JSON text of `fundingBills(userId, query)`, exactly what `JSON.stringify` gives for it, written without
   * building the bills as objects first: the sandbox serves a million-bill export as 10,000 such pages, and the
   * objects and their stringification were most of its work.
   *
   * @since 0.1.0
   */
  fundingBillsJson(userId: string, query: BillQuery = {}): string {
    const range = this.billRange(userId, query)
    const ledger = this.ledger
    let items = ""
    for (let position = range.first; position > range.last; position--) {
      const entry = range.list.items[position]!
      const r = ledger.segment(entry)
      const o = Ledger.at(entry)
      const kind = Ledger.kindOf(r[o + Ledger.WHO]!)
      const coin = this.coins[Ledger.coinOf(kind)]!
      // Ids, amounts and times are digits, "-" and "." only: nothing to escape. Names are quoted once per coin.
      items += (items === "" ? "{\"billId\":\"" : ",{\"billId\":\"") + this.id(KIND_BILL, entry + 1) +
        "\",\"coinId\":" + coin.coinId + ",\"coinName\":" + this.coinNameJson[coin.index] + ",\"bizType\":" +
        BIZ_TYPE_JSON[Ledger.bizTypeOf(kind)] + ",\"deltaAmount\":\"" + trimmed(r[o + Ledger.DELTA]!, coin.scale) +
        "\",\"afterAmount\":\"" + trimmed(r[o + Ledger.AFTER]!, coin.scale) + "\",\"fees\":\"" +
        trimmed(r[o + Ledger.FEE]!, coin.scale) + "\",\"cTime\":\"" + r[o + Ledger.TIME] + "\"}"
    }
    // The page numbers through JSON.stringify: a direct caller's NaN or Infinity is written as null, as it would be.
    return "{\"total\":" + range.total + ",\"page\":" + JSON.stringify(range.pageIndex) + ",\"pageSize\":" +
      JSON.stringify(range.pageSize) +
      ",\"hasNextPage\":" + range.hasNextPage + ",\"items\":[" + items + "]}"
  }

  // Positions `first` down to `last` (exclusive) of the page in the user's (or the coin's) bill list, newest first.
  private billRange(userId: string, query: BillQuery): {
    readonly list: Ledger.EntryList
    readonly first: number
    readonly last: number
    readonly total: number
    readonly pageIndex: number
    readonly pageSize: number
    readonly hasNextPage: boolean
  } {
    const user = this.userById.get(userId)
    const pageIndex = query.pageIndex ?? 1
    const pageSize = query.pageSize ?? 10
    const empty = { list: EMPTY_LIST, first: 0, last: 0, total: 0, pageIndex, pageSize, hasNextPage: false }
    // The protocol refuses such pages (40020); a direct caller gets an empty page rather than reads out of range.
    const valid = (n: number) => Number.isSafeInteger(n) && n >= 1
    if (user === undefined || !valid(pageIndex) || !valid(pageSize)) return empty
    let list = user.fundBills
    if (query.coinId !== undefined) {
      const coin = this.coinById.get(query.coinId)
      if (coin === undefined) return empty
      list = user.fundBillsByCoin[coin.index]!
    }
    const lo = query.startTime === undefined ? 0 : list.bound(this.ledger, query.startTime, false)
    const hi = query.endTime === undefined ? list.size : list.bound(this.ledger, query.endTime, true)
    const total = Math.max(0, hi - lo)
    const first = hi - 1 - (pageIndex - 1) * pageSize
    return {
      list,
      first,
      last: Math.max(lo - 1, first - pageSize),
      total,
      pageIndex,
      pageSize,
      hasNextPage: pageIndex * pageSize < total
    }
  }

  private billView(entry: number): BillView {
    const r = this.ledger.segment(entry)
    const o = Ledger.at(entry)
    const kind = Ledger.kindOf(r[o + Ledger.WHO]!)
    const coin = this.coins[Ledger.coinOf(kind)]!
    return {
      billId: this.id(KIND_BILL, entry + 1),
      coinId: coin.coinId,
      coinName: coin.name,
      bizType: bizTypes[Ledger.bizTypeOf(kind)]!,
      deltaAmount: trimmed(r[o + Ledger.DELTA]!, coin.scale),
      afterAmount: trimmed(r[o + Ledger.AFTER]!, coin.scale),
      fees: trimmed(r[o + Ledger.FEE]!, coin.scale),
      cTime: String(r[o + Ledger.TIME])
    }
  }

  /**
   * Every ledger entry of a user (optionally of one account), oldest first.
   *
   * @since 0.1.0
   */
  ledgerOf(userId: string, accountType?: AccountType): ReadonlyArray<LedgerEntry> {
    const user = this.user(userId)
    const account = accountType === undefined ? -1 : accountTypes.indexOf(accountType)
    if (accountType !== undefined && account < 0) throw new EngineError(`unknown account type ${accountType}`)
    const out: Array<LedgerEntry> = []
    const ledger = this.ledger
    for (let i = 0; i < ledger.size; i++) {
      const r = ledger.segment(i)
      const o = Ledger.at(i)
      const who = r[o + Ledger.WHO]!
      const entryAccount = Ledger.accountOf(Ledger.kindOf(who))
      if (Ledger.userOf(who) === user.index && (account < 0 || entryAccount === account)) {
        out.push({ ...this.billView(i), userId: user.userId, accountType: accountTypes[entryAccount]! })
      }
    }
    return out
  }

  /**
   * Number of funding bills of a user.
   *
   * @since 0.1.0
   */
  fundingBillCount(userId: string): number {
    return this.user(userId).fundBills.size
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Transfers

  /**
   * An internal transfer (spec §2.7): moves `amount` from the sender's `fromAccountType` account to the receiver's
   * `toAccountType` account. The sender's entry is `internal_withdraw` and the receiver's `internal_deposit`; where
   * only one side is a funding account, that side's entry is `transfer_out` (funds leave it) or `transfer_in`.
   *
   * @since 0.1.0
   */
  transfer(
    userId: string,
    request: TransferRequest,
    now: number
  ): { readonly ok: true; readonly id: string } | Rejection {
    const sender = this.userById.get(userId)
    if (sender === undefined) return reject("40034", "Parameter userId does not exist")
    const receiver = this.userById.get(request.toUserId)
    if (receiver === undefined) return reject("40034", "Parameter toUserId does not exist")
    const coin = this.coinByName.get(request.coin)
    if (coin === undefined) return reject("40020", "Parameter coin error")
    const from = accountTypes.indexOf(request.fromAccountType as AccountType)
    const to = accountTypes.indexOf(request.toAccountType as AccountType)
    if (from < 0) return reject("40020", "Parameter fromAccountType error")
    if (to < 0) return reject("40020", "Parameter toAccountType error")
    if (sender === receiver && from === to) return reject("40020", "Parameter toAccountType error")
    const units = toUnits(request.amount, Math.min(6, coin.scale))
    if (units === "scale") return reject("40808", "parameter scale error: amount")
    if (typeof units !== "number" || units === 0) return reject("40020", "Parameter amount error")
    const amount = units * pow10(coin.scale - Math.min(6, coin.scale))
    if (amount > this.available(sender, from, coin)) return reject("43012", "Insufficient balance")
    const time = this.tick(now)
    const oneFund = (from === FUND) !== (to === FUND)
    this.post(sender, from, coin, oneFund && from === FUND ? BIZ.transfer_out : BIZ.internal_withdraw, -amount, 0, time)
    this.post(receiver, to, coin, oneFund && to === FUND ? BIZ.transfer_in : BIZ.internal_deposit, amount, 0, time)
    return { ok: true, id: this.id(KIND_TRANSFER, ++this.transfers) }
  }
}

/** Adds a fill to an order's fill fields (spec §2.5). */
const recordFill = (r: Float64Array, o: number, price: number, lots: number, value: number, now: number): void => {
  const marketBuy = (r[o + FLAGS]! & (TYPE_MARKET | SIDE_SELL)) === TYPE_MARKET
  r[o + REMAINING] = r[o + REMAINING]! - (marketBuy ? value : lots)
  r[o + FILLED] = r[o + FILLED]! + lots
  r[o + FILL_TOTAL] = r[o + FILL_TOTAL]! + value
  r[o + LATEST_FILL] = price
  if (r[o + MAX_FILL]! < price) r[o + MAX_FILL] = price
  if (r[o + MIN_FILL] === 0 || r[o + MIN_FILL]! > price) r[o + MIN_FILL] = price
  r[o + U_TIME] = now
}
