// Funding bills: pages of a user's funding-account ledger (docs/venue/account.md#funding-bills) as objects or as JSON
// text written directly, and synthetic bill histories for seeding.
import type { BillPage, BillQuery, BillView, HistoryOptions } from "../../EngineModel.ts"
import { prng } from "../prng.ts"
import { pow10, trimmed } from "../units.ts"
import { FUND } from "./accounts.ts"
import { EngineError } from "./errors.ts"
import * as Ledger from "./ledger.ts"
import type { Coin } from "./registry.ts"
import { Kind } from "./stamps.ts"
import type { State } from "./state.ts"
import type { Views } from "./views.ts"

const EMPTY_LIST = new Ledger.EntryList()

// Each bizType as a JSON string, for bills written as JSON text.
const BIZ_TYPE_JSON: ReadonlyArray<string> = Ledger.bizTypes.map((name) => JSON.stringify(name))

// The bizTypes of synthetic history that debit the funding account; the others credit it.
const DEBITS =
  /^(withdraw_freeze|withdraw_complete|sell_freeze|transfer_out|internal_withdraw|platform_lock|c2c_sell|c2c_freeze)$/
const DEBIT_TYPES = Ledger.bizTypes.flatMap((name, i) => DEBITS.test(name) ? [i] : [])
const CREDIT_TYPES = Ledger.bizTypes.flatMap((name, i) => DEBITS.test(name) ? [] : [i])

/** Positions `first` down to `last` (exclusive) of a page in a bill list, newest first. */
interface Range {
  readonly list: Ledger.EntryList
  readonly first: number
  readonly last: number
  readonly total: number
  readonly pageIndex: number
  readonly pageSize: number
  readonly hasNextPage: boolean
}

export class Bills {
  // The engine's state (state.ts), the floor below.
  private readonly state: State
  private readonly views: Views

  constructor(state: State, views: Views) {
    this.state = state
    this.views = views
  }

  /**
   * The coins a history would spread over; throws, changing nothing, for options `generate` refuses on an account
   * whose last bill is at `last` (-Infinity for an account with none, a user yet to be added).
   */
  check(options: HistoryOptions, last = -Infinity): ReadonlyArray<Coin> {
    const coins = (options.coins ?? this.state.registry.coins.map((c) => c.name)).map((name) =>
      this.state.registry.coin(name)
    )
    if (!Number.isSafeInteger(options.count) || options.count < 0) {
      throw new EngineError("count: a non-negative integer")
    }
    if (coins.length === 0) throw new EngineError("coins: at least one")
    if (options.from < last || options.to < options.from) {
      throw new EngineError("history: from <= to, and not before the account's last bill")
    }
    return coins
  }

  /** One page of a user's funding bills: newest first (cTime desc, then billId desc), exclusive time bounds. */
  page(userId: string, query: BillQuery): BillPage {
    const range = this.range(userId, query)
    const items: Array<BillView> = []
    for (let position = range.first; position > range.last; position--) {
      items.push(this.views.bill(range.list.items[position]!))
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
   * The JSON text of `page(userId, query)`, exactly what `JSON.stringify` gives for it, written without building the
   * bills as objects first: the sandbox serves a million-bill export as 10,000 such pages, and the objects and their
   * stringification were most of its work.
   */
  pageJson(userId: string, query: BillQuery): string {
    const range = this.range(userId, query)
    const ledger = this.state.accounts.ledger.records
    const coins = this.state.registry.coins
    let items = ""
    for (let position = range.first; position > range.last; position--) {
      const entry = range.list.items[position]!
      const r = ledger.segment(entry)
      const o = Ledger.at(entry)
      const kind = Ledger.kindOf(r[o + Ledger.WHO]!)
      const coin = coins[Ledger.coinOf(kind)]!
      // Ids, amounts and times are digits, "-" and "." only: nothing to escape. Names are quoted once per coin.
      items += (items === "" ? "{\"billId\":\"" : ",{\"billId\":\"") + this.state.stamps.id(Kind.bill, entry + 1) +
        "\",\"coinId\":" + coin.coinId + ",\"coinName\":" + coin.nameJson + ",\"bizType\":" +
        BIZ_TYPE_JSON[Ledger.bizTypeOf(kind)] + ",\"deltaAmount\":\"" + trimmed(r[o + Ledger.DELTA]!, coin.scale) +
        "\",\"afterAmount\":\"" + trimmed(r[o + Ledger.AFTER]!, coin.scale) + "\",\"fees\":\"" +
        trimmed(r[o + Ledger.FEE]!, coin.scale) + "\",\"cTime\":\"" + r[o + Ledger.TIME] + "\"}"
    }
    // The page numbers through JSON.stringify: a direct caller's NaN or Infinity is written as null, as it would be.
    return "{\"total\":" + range.total + ",\"page\":" + JSON.stringify(range.pageIndex) + ",\"pageSize\":" +
      JSON.stringify(range.pageSize) +
      ",\"hasNextPage\":" + range.hasNextPage + ",\"items\":[" + items + "]}"
  }

  private range(userId: string, query: BillQuery): Range {
    const user = this.state.accounts.find(userId)
    const pageIndex = query.pageIndex ?? 1
    const pageSize = query.pageSize ?? 10
    const empty = { list: EMPTY_LIST, first: 0, last: 0, total: 0, pageIndex, pageSize, hasNextPage: false }
    // The protocol refuses such pages (40020); a direct caller gets an empty page rather than reads out of range.
    const valid = (n: number) => Number.isSafeInteger(n) && n >= 1
    if (user === undefined || !valid(pageIndex) || !valid(pageSize)) return empty
    let list = user.fundBills
    if (query.coinId !== undefined) {
      const coin = this.state.registry.findCoinById(query.coinId)
      if (coin === undefined) return empty
      list = user.fundBillsByCoin[coin.index]!
    }
    const ledger = this.state.accounts.ledger
    const lo = query.startTime === undefined ? 0 : list.bound(ledger, query.startTime, false)
    const hi = query.endTime === undefined ? list.size : list.bound(ledger, query.endTime, true)
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

  /** Number of funding bills of a user. */
  count(userId: string): number {
    return this.state.accounts.user(userId).fundBills.size
  }

  /**
   * Writes a synthetic funding-bill history for a user over every bizType: amounts move the funding balance (as
   * flows from outside the exchange) and each bill's `afterAmount` chains on the previous one. Deterministic for a
   * seed.
   */
  generate(userId: string, options: HistoryOptions): void {
    const accounts = this.state.accounts
    const user = accounts.user(userId)
    const last = user.fundBills.size === 0
      ? -Infinity
      : accounts.ledger.time(user.fundBills.items[user.fundBills.size - 1]!)
    const coins = this.check(options, last)
    const count = options.count
    const random = prng(options.seed ?? this.state.stamps.seed)
    // Evenly spread over [from, to] without forming span × i, which can pass 2^53 (ten years × 30K bills).
    const span = options.to - options.from
    const gaps = Math.max(1, count - 1)
    const spare = span % gaps
    const step = (span - spare) / gaps
    for (let i = 0; i < count; i++) {
      const time = count === 1 ? options.from : options.from + step * i + Math.floor((spare * i) / (count - 1))
      const coin = coins[Math.floor(random() * coins.length)]!
      const available = accounts.available(user, FUND, coin)
      // Credits and debits are equally likely, so a long history is a random walk that stays far from 2^53.
      const credit = available === 0 || random() < 0.5
      const choices = credit ? CREDIT_TYPES : DEBIT_TYPES
      const biz = choices[Math.floor(random() * choices.length)]!
      const magnitude = 1 + Math.floor(random() * Math.min(100 * pow10(coin.scale), 1e12))
      const delta = credit ? magnitude : -Math.min(magnitude, available)
      const fee = credit && biz !== Ledger.BIZ.deposit ? Math.floor(delta / 1000) : 0
      accounts.external(coin, delta - fee)
      accounts.post(user, FUND, coin, biz, delta - fee, fee, time)
    }
    // Live activity continues after the history, so the account's bills stay in time order.
    this.state.stamps.tick(options.to)
  }
}
