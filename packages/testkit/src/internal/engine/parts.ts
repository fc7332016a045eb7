// The parts of an engine, one per concern, built in the order they depend on each other: stamps (ids, time) <-
// registry (coins, products) <- accounts (users, balances, ledger) <- matching (orders, books, trades), which the hot
// path runs through, each holding what it needs; then views (reports), bills (pages, histories), requests (wire
// strings), cancels (with their outcomes), history (order and fill pages) and transfers (their records), which read
// the others through this one shared object. `Engine` is the façade over them; `EngineUnits` reaches the same parts
// of an engine through `partsOf`.
import type { EngineOptions } from "../../EngineModel.ts"
import { rate } from "../units.ts"
import { Accounts } from "./accounts.ts"
import { Bills } from "./bills.ts"
import { Cancels } from "./cancels.ts"
import { EngineError } from "./errors.ts"
import { History } from "./history.ts"
import { Matching } from "./matching.ts"
import { defaultCoins, Registry } from "./registry.ts"
import { Requests } from "./requests.ts"
import { Stamps } from "./stamps.ts"
import { Transfers } from "./transfers.ts"
import { Views } from "./views.ts"

export class Parts {
  readonly stamps: Stamps
  readonly registry: Registry
  readonly accounts: Accounts
  readonly matching: Matching
  readonly views: Views
  readonly bills: Bills
  readonly requests: Requests
  readonly cancels: Cancels
  readonly history: History
  readonly transfers: Transfers

  constructor(options: EngineOptions) {
    this.stamps = new Stamps(options.seed ?? 1)
    this.registry = new Registry(options.coins ?? defaultCoins)
    const makerRate = rate(options.makerFeeRate ?? "0.001")
    const takerRate = rate(options.takerFeeRate ?? "0.001")
    if (makerRate === undefined || takerRate === undefined) {
      throw new EngineError("fee rates are decimals in 0..1, 6 places")
    }
    const shared = options.sharedMemory ?? true
    this.accounts = new Accounts(this.registry, this.stamps, shared)
    this.matching = new Matching(this.registry, this.accounts, this.stamps, {
      makerRate,
      takerRate,
      recordTrades: options.recordTrades ?? true,
      shared
    })
    this.views = new Views(this)
    this.bills = new Bills(this)
    this.requests = new Requests(this)
    this.cancels = new Cancels(this)
    this.history = new History(this)
    this.transfers = new Transfers(this)
  }
}

const byEngine = new WeakMap<object, Parts>()

/** Records the parts behind an engine. */
export const attach = (engine: object, parts: Parts): void => {
  byEngine.set(engine, parts)
}

/** The parts behind an engine; throws for anything that is not one. */
export const partsOf = (engine: object): Parts => {
  const parts = byEngine.get(engine)
  if (parts === undefined) throw new EngineError("not an Engine")
  return parts
}
