// Transfer records (docs/venue/account.md#transfer-status) as the venue reports them: every internal transfer the
// accounts made, with its id, users, coin, amount, accounts and time, and the status list a sender queries to learn
// whether a transfer whose answer it lost went through. A transfer the engine accepts completes at once: `SUCCESS`.
import type { TransferPage, TransferQuery, TransferView } from "../../EngineModel.ts"
import { trimmed } from "../units.ts"
import { accountTypes, type TransferRecord } from "./accounts.ts"
import type { State } from "./state.ts"

export class Transfers {
  // The engine's state (state.ts), the floor below.
  private readonly state: State

  constructor(state: State) {
    this.state = state
  }

  /** Every transfer, oldest first, optionally of one user (sent or received; by index). */
  list(userIndex?: number): ReadonlyArray<TransferView> {
    const out: Array<TransferView> = []
    for (const record of this.state.accounts.transfers) {
      if (userIndex === undefined || record.sender === userIndex || record.receiver === userIndex) {
        out.push(this.view(record))
      }
    }
    return out
  }

  /** The transfers a user sent that match the filters, newest first, one page (`page` from 1). */
  page(userIndex: number, query: TransferQuery): TransferPage {
    const page = query.page ?? 1
    const pageSize = query.pageSize ?? 100
    // The protocol refuses such pages (40020); a direct caller gets an empty page rather than reads out of range.
    if (!Number.isSafeInteger(page) || page < 1 || !Number.isSafeInteger(pageSize) || pageSize < 1) {
      return { total: 0, items: [] }
    }
    const coin = query.coin === undefined ? undefined : this.state.registry.findCoin(query.coin)
    if (query.coin !== undefined && coin === undefined) return { total: 0, items: [] }
    const from = query.fromAccountType === undefined ? -1 : accountTypes.indexOf(query.fromAccountType)
    const to = query.toAccountType === undefined ? -1 : accountTypes.indexOf(query.toAccountType)
    if ((query.fromAccountType !== undefined && from < 0) || (query.toAccountType !== undefined && to < 0)) {
      return { total: 0, items: [] }
    }
    const matching: Array<TransferRecord> = []
    const records = this.state.accounts.transfers
    for (let i = records.length - 1; i >= 0; i--) {
      const record = records[i]!
      if (
        record.sender === userIndex &&
        (query.withdrawId === undefined || record.id === query.withdrawId) &&
        (coin === undefined || record.coin === coin.index) &&
        (query.startTime === undefined || record.time >= query.startTime) &&
        (query.endTime === undefined || record.time <= query.endTime) &&
        (from < 0 || record.from === from) &&
        (to < 0 || record.to === to)
      ) {
        matching.push(record)
      }
    }
    const first = (page - 1) * pageSize
    return { total: matching.length, items: matching.slice(first, first + pageSize).map((r) => this.view(r)) }
  }

  private view(record: TransferRecord): TransferView {
    const users = this.state.accounts.users
    const coin = this.state.registry.coins[record.coin]!
    return {
      id: record.id,
      fromUserId: users[record.sender]!.userId,
      toUserId: users[record.receiver]!.userId,
      coin: coin.name,
      amount: trimmed(record.amount, coin.scale),
      fromAccountType: accountTypes[record.from]!,
      toAccountType: accountTypes[record.to]!,
      status: "SUCCESS",
      createTime: record.time,
      updateTime: record.time
    }
  }
}
