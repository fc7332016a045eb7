// The engine's state, the floor every reading part stands on: stamps (ids, time) <- registry (coins, products) <-
// accounts (users, balances, ledger) <- matching (orders, books, trades), each built from the ones before it and
// holding what it needs; the hot path runs through these alone. The parts above (views, then bills, requests,
// cancels, history and transfers) read this state and never the reverse; parts.ts puts the floors together.
import type { EngineOptions } from "../../EngineModel.ts"
import { rate } from "../units.ts"
import { Accounts } from "./accounts.ts"
import { EngineError } from "./errors.ts"
import { Matching } from "./matching.ts"
import { defaultCoins, Registry } from "./registry.ts"
import { Stamps } from "./stamps.ts"

export class State {
  readonly stamps: Stamps
  readonly registry: Registry
  readonly accounts: Accounts
  readonly matching: Matching

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
  }
}
