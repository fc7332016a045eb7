// Accounts: users, their balances (available and frozen, per account type and coin), the ledger entry every change
// writes, freezing for orders, transfers between accounts (and their records), the spot balances a user sees, and
// the totals that prove conservation. Coins enter only by deposits (and synthetic histories, as flows from outside);
// the supply of a coin stays below 2^53 units, so every balance, fill and total is an exact integer.
import type { AccountType, Balance, SpotBalance, Totals } from "../../EngineModel.ts"
import { toUnits, trimmed } from "../units.ts"
import { EngineError } from "./errors.ts"
import { accountOf, at as entryAt, BIZ, coinOf, EntryList, kindOf, Ledger, userOf, WHO } from "./ledger.ts"
import type { Coin, Registry } from "./registry.ts"
import { Kind, type Stamps } from "./stamps.ts"

/** The account types of docs/venue/account.md#internal-transfer, in index order. */
export const accountTypes = ["SPOT", "SPOT_V2", "FUND"] as const satisfies ReadonlyArray<AccountType>

export const SPOT = 0
export const FUND = 2

export interface User {
  readonly index: number
  readonly userId: string
  readonly accountId: string
  /** (account * coins + coin) * 2 + (0 available | 1 frozen), in units. */
  readonly balances: Float64Array
  readonly fundBills: EntryList
  readonly fundBillsByCoin: Array<EntryList>
}

/** One internal transfer, as it was made: the users by index, the accounts by index, the amount in units. */
export interface TransferRecord {
  readonly id: string
  readonly sender: number
  readonly receiver: number
  readonly from: number
  readonly to: number
  readonly coin: number
  readonly amount: number
  readonly time: number
}

export class Accounts {
  /** Hears the spot balances that change outside trading (deposits, transfers), for the push venue. */
  listener: ((user: User) => void) | undefined = undefined
  readonly users: Array<User> = []
  readonly ledger: Ledger
  /** Units of each coin that entered from outside, by coin index. */
  readonly supply: Array<number>
  /** Units of each coin collected as fees, by coin index. */
  readonly fees: Array<number>
  private readonly userById = new Map<string, User>()
  private readonly registry: Registry
  private readonly stamps: Stamps
  private readonly coinCount: number
  /** Every transfer, oldest first. */
  readonly transfers: Array<TransferRecord> = []
  // Which SPOT coins each user ever held (by user index, then coin index), from the ledger entries up to `heldSeen`:
  // taken in only when balances are asked for, so that posting pays nothing for it.
  private readonly held: Array<Uint8Array> = []
  private heldSeen = 0

  /** The ledger in shared memory if `shared` (segments.ts). */
  constructor(registry: Registry, stamps: Stamps, shared: boolean) {
    this.registry = registry
    this.stamps = stamps
    this.coinCount = registry.coins.length
    this.ledger = new Ledger(shared)
    this.supply = registry.coins.map(() => 0)
    this.fees = registry.coins.map(() => 0)
  }

  addUser(userId?: string): string {
    const index = this.users.length
    const id = this.checkNewUser(userId)
    const user: User = {
      index,
      userId: id,
      accountId: this.stamps.id(Kind.account, index + 1),
      balances: new Float64Array(accountTypes.length * this.coinCount * 2),
      fundBills: new EntryList(),
      fundBillsByCoin: this.registry.coins.map(() => new EntryList())
    }
    this.users.push(user)
    this.userById.set(id, user)
    return id
  }

  /** The id `addUser(userId)` would give the next user; throws, changing nothing, where it would throw. */
  checkNewUser(userId?: string): string {
    const id = userId ?? this.stamps.id(Kind.user, this.users.length + 1)
    if (!/^[1-9]\d{0,19}$/.test(id) || BigInt(id) >= 2n ** 64n) throw new EngineError(`user id ${id}: u64 digits`)
    if (this.userById.has(id)) throw new EngineError(`user ${id} exists`)
    return id
  }

  /** A user by id; throws for an unknown one (seeding and inspection). */
  user(userId: string): User {
    const user = this.userById.get(userId)
    if (user === undefined) throw new EngineError(`unknown user ${userId}`)
    return user
  }

  find(userId: string): User | undefined {
    return this.userById.get(userId)
  }

  /** An account type's index; throws for an unknown one. */
  account(accountType: AccountType): number {
    const account = accountTypes.indexOf(accountType)
    if (account < 0) throw new EngineError(`unknown account type ${accountType}: one of ${accountTypes.join(", ")}`)
    return account
  }

  deposit(userId: string, accountType: AccountType, coinName: string, amount: string, now: number): void {
    const user = this.user(userId)
    const { account, coin, units } = this.checkDeposit(accountType, coinName, amount)
    this.external(coin, units)
    this.post(user, account, coin, BIZ.deposit, units, 0, this.stamps.tick(now))
    if (this.listener !== undefined) this.listener(user)
  }

  /** A deposit's account, coin and units; throws, changing nothing, for what `deposit` refuses before it credits. */
  checkDeposit(
    accountType: AccountType,
    coinName: string,
    amount: string
  ): { readonly account: number; readonly coin: Coin; readonly units: number } {
    const coin = this.registry.coin(coinName)
    const account = this.account(accountType)
    const units = toUnits(amount, coin.scale)
    if (typeof units !== "number" || units === 0) throw new EngineError(`deposit ${amount}: a positive decimal`)
    return { account, coin, units }
  }

  /**
   * Throws, changing nothing, if deposits of these amounts (each checked as `deposit` checks it) would take a coin's
   * supply past the cap: a seeding that checks first leaves nothing half done.
   */
  checkDeposits(
    deposits: ReadonlyArray<{ readonly accountType: AccountType; readonly coin: string; readonly amount: string }>
  ): void {
    const supply = this.supply.slice()
    for (const deposit of deposits) {
      const { coin, units } = this.checkDeposit(deposit.accountType, deposit.coin, deposit.amount)
      supply[coin.index] = this.supplyAfter(coin, supply[coin.index]!, units)
    }
  }

  /** Counts units that enter (or, negative, leave) the exchange, within the supply cap. */
  external(coin: Coin, units: number): void {
    this.supply[coin.index] = this.supplyAfter(coin, this.supply[coin.index]!, units)
  }

  private supplyAfter(coin: Coin, before: number, units: number): number {
    const supply = before + units
    if (!Number.isSafeInteger(supply) || supply < 0) {
      throw new EngineError(`${coin.name}: total supply must stay below 2^53 units`)
    }
    return supply
  }

  /** Changes an account's available balance by `delta` and writes the ledger entry (total after the change). */
  post(user: User, account: number, coin: Coin, biz: number, delta: number, fee: number, time: number): void {
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
  spendFrozen(user: User, coin: Coin, units: number, biz: number, time: number): void {
    const slot = this.slot(SPOT, coin)
    const balances = user.balances
    balances[slot + 1] = balances[slot + 1]! - units
    const after = balances[slot]! + balances[slot + 1]!
    this.ledger.append(user.index, SPOT, coin.index, biz, -units, after, 0, time)
  }

  /** Moves units from available to frozen in the SPOT account (negative units release them). */
  freeze(user: User, coin: Coin, units: number): void {
    const slot = this.slot(SPOT, coin)
    user.balances[slot] = user.balances[slot]! - units
    user.balances[slot + 1] = user.balances[slot + 1]! + units
  }

  /** Index of an account's available balance in `User.balances`; the frozen one follows it. */
  slot(account: number, coin: Coin): number {
    return (account * this.coinCount + coin.index) * 2
  }

  available(user: User, account: number, coin: Coin): number {
    return user.balances[this.slot(account, coin)]!
  }

  /**
   * Moves `amount` units from the sender's `from` account to the receiver's `to` account: `internal_withdraw` and
   * `internal_deposit`, or `transfer_out` / `transfer_in` on the side that is the only funding account. Answers the
   * transfer's id, or undefined when the sender has not that much available.
   */
  transfer(
    sender: User,
    from: number,
    receiver: User,
    to: number,
    coin: Coin,
    amount: number,
    now: number
  ): string | undefined {
    if (amount > this.available(sender, from, coin)) return undefined
    const time = this.stamps.tick(now)
    const oneFund = (from === FUND) !== (to === FUND)
    this.post(sender, from, coin, oneFund && from === FUND ? BIZ.transfer_out : BIZ.internal_withdraw, -amount, 0, time)
    this.post(receiver, to, coin, oneFund && to === FUND ? BIZ.transfer_in : BIZ.internal_deposit, amount, 0, time)
    if (this.listener !== undefined) {
      this.listener(sender)
      this.listener(receiver)
    }
    const id = this.stamps.id(Kind.transfer, this.transfers.length + 1)
    this.transfers.push({
      id,
      sender: sender.index,
      receiver: receiver.index,
      from,
      to,
      coin: coin.index,
      amount,
      time
    })
    return id
  }

  /**
   * A user's spot account as the venue lists it (docs/venue/account.md#balances): every coin the user ever held there,
   * zeros included, in the registry's order. A coin is held only through a ledger entry (freezing moves nothing in or
   * out), so the SPOT entries of the user say which.
   */
  spotBalances(user: User): ReadonlyArray<SpotBalance> {
    const held = this.heldBy(user)
    const out: Array<SpotBalance> = []
    for (const coin of this.registry.coins) {
      if (held[coin.index] === 0) continue
      const slot = this.slot(SPOT, coin)
      const available = user.balances[slot]!
      const frozen = user.balances[slot + 1]!
      out.push({
        coinId: coin.coinId,
        coinName: coin.name,
        available: trimmed(available, coin.scale),
        frozen: trimmed(frozen, coin.scale),
        equity: trimmed(available + frozen, coin.scale)
      })
    }
    return out
  }

  /** The SPOT coins a user ever held, after taking in the ledger entries written since the last call. */
  private heldBy(user: User): Uint8Array {
    const records = this.ledger.records
    for (let i = this.heldSeen; i < records.size; i++) {
      const who = records.segment(i)[entryAt(i) + WHO]!
      const kind = kindOf(who)
      if (accountOf(kind) === SPOT) this.heldOf(userOf(who))[coinOf(kind)] = 1
    }
    this.heldSeen = records.size
    return this.heldOf(user.index)
  }

  private heldOf(userIndex: number): Uint8Array {
    let held = this.held[userIndex]
    if (held === undefined) {
      held = new Uint8Array(this.coinCount)
      this.held[userIndex] = held
    }
    return held
  }

  /** A user's balances: every account and coin with a non-zero amount. */
  balances(userId: string): ReadonlyArray<Balance> {
    const user = this.user(userId)
    const out: Array<Balance> = []
    accountTypes.forEach((accountType, account) => {
      for (const coin of this.registry.coins) {
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

  /** Per coin: supply, what all accounts hold (available + frozen), and the fees collected. */
  totals(): ReadonlyArray<Totals> {
    return this.registry.coins.map((coin) => {
      let held = 0
      for (const user of this.users) {
        for (let account = 0; account < accountTypes.length; account++) {
          const slot = this.slot(account, coin)
          held += user.balances[slot]! + user.balances[slot + 1]!
        }
      }
      return {
        coin: coin.name,
        supply: trimmed(this.supply[coin.index]!, coin.scale),
        held: trimmed(held, coin.scale),
        fees: trimmed(this.fees[coin.index]!, coin.scale)
      }
    })
  }
}
