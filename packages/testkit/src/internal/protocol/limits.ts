// Venue-side rate limits (DESIGN §4), from the endpoints' declarations (`Venue.endpoints[name].rateLimit`: budget,
// weight, and whether the caller's address has a budget of its own) with the exchange's overrides: sliding-window
// logs per endpoint and API key, and per endpoint and address, counted on the time the protocol is given (the
// exchange's Clock). Also the failed authentications of each address (a wrong key, passphrase or signature): past a
// burst of them the address is answered 429 before any check, until the failures age out of the window, so that
// holding an API key is no licence to guess its passphrase.
import { Venue } from "@spotkit/core"

type Budget = Venue.Budget

/** The budgets the exchange's options may override, by endpoint name (a type, so that it reads as a record). */
export type RateLimits = {
  readonly placeOrder: Budget
  readonly placeOrders: Budget
  readonly openOrders: Budget
  readonly internalTransfer: Budget
  /** Weight budget of the bills endpoint per key and, separately, per client address. */
  readonly fundingBills: Budget
  readonly fundingBillsWeight: number
  /** Failed authentications (40006, 40009, 40012) an address may make in a window before it is answered 429. */
  readonly authFailures: Budget
}

const { fundingBills, internalTransfer, openOrders, placeOrder, placeOrders } = Venue.endpoints

export const defaultRateLimits: RateLimits = {
  placeOrder: placeOrder.rateLimit.budget,
  placeOrders: placeOrders.rateLimit.budget,
  openOrders: openOrders.rateLimit.budget,
  internalTransfer: internalTransfer.rateLimit.budget,
  fundingBills: fundingBills.rateLimit.budget,
  fundingBillsWeight: fundingBills.rateLimit.weight,
  // Not the venue's (unknown): a burst a person mistyping never reaches, far below what guessing needs.
  authFailures: { limit: 20, windowMillis: 60_000 }
}

/** A sliding-window log of (time, weight) pairs. */
class WindowLog {
  private times: Array<number> = []
  private weights: Array<number> = []
  private head = 0
  private used = 0

  /** Whether `weight` fits in the window at `now`. */
  hasRoom(now: number, weight: number, budget: Budget): boolean {
    this.prune(now, budget)
    return this.used + weight <= budget.limit
  }

  take(now: number, weight: number): void {
    this.times.push(now)
    this.weights.push(weight)
    this.used += weight
  }

  private prune(now: number, budget: Budget): void {
    const cutoff = now - budget.windowMillis
    while (this.head < this.times.length && this.times[this.head]! <= cutoff) {
      this.used -= this.weights[this.head]!
      this.head++
    }
    if (this.head > 1024 && this.head * 2 > this.times.length) {
      this.times = this.times.slice(this.head)
      this.weights = this.weights.slice(this.head)
      this.head = 0
    }
  }
}

/** One endpoint's limit: its budget and weight, and its logs by API key and by address. */
interface Limit {
  readonly budget: Budget
  readonly weight: number
  readonly byKey: Map<string, WindowLog>
  readonly byAddress: Map<string, WindowLog> | undefined
}

const logOf = (logs: Map<string, WindowLog>, id: string): WindowLog => {
  let log = logs.get(id)
  if (log === undefined) {
    log = new WindowLog()
    logs.set(id, log)
  }
  return log
}

const budgetOr = (value: Budget | number | undefined, declared: Budget): Budget =>
  typeof value === "object" ? value : declared

export class Limits {
  private readonly limits = new Map<string, Limit>()
  private readonly authFailures: Budget | undefined
  private readonly failuresByAddress = new Map<string, WindowLog>()

  /** `false`: no limits at all. */
  constructor(options: RateLimits | false) {
    this.authFailures = options === false ? undefined : options.authFailures
    if (options === false) return
    const overrides: { readonly [name: string]: Budget | number | undefined } = options
    for (const endpoint of Object.values(Venue.endpoints)) {
      // Public endpoints are answered before authentication, with no caller to count against.
      if (endpoint.permission === undefined) continue
      this.limits.set(endpoint.name, {
        budget: budgetOr(overrides[endpoint.name], endpoint.rateLimit.budget),
        weight: endpoint.name === "fundingBills" ? options.fundingBillsWeight : endpoint.rateLimit.weight,
        byKey: new Map(),
        byAddress: endpoint.rateLimit.perAddress ? new Map() : undefined
      })
    }
  }

  /**
   * Whether a request to the endpoint is over a budget: its API key's, or its address's where the endpoint counts
   * those. Both budgets must have room; a refused request charges neither, an admitted one both.
   */
  refuses(endpoint: string, apiKey: string, address: string, now: number): boolean {
    const limit = this.limits.get(endpoint)
    if (limit === undefined) return false
    const { budget, weight } = limit
    const byKey = logOf(limit.byKey, apiKey)
    const byAddress = limit.byAddress === undefined ? undefined : logOf(limit.byAddress, address)
    if (!byKey.hasRoom(now, weight, budget)) return true
    if (byAddress !== undefined && !byAddress.hasRoom(now, weight, budget)) return true
    byKey.take(now, weight)
    byAddress?.take(now, weight)
    return false
  }

  /** Whether the address made as many failed authentications as its window allows: it is refused (429) at once. */
  authBlocked(address: string, now: number): boolean {
    const budget = this.authFailures
    if (budget === undefined) return false
    const log = this.failuresByAddress.get(address)
    return log !== undefined && !log.hasRoom(now, 1, budget)
  }

  /** Counts a failed authentication of the address. */
  authFailed(address: string, now: number): void {
    if (this.authFailures !== undefined) logOf(this.failuresByAddress, address).take(now, 1)
  }

  /** Forgets every window. */
  clear(): void {
    for (const limit of this.limits.values()) {
      limit.byKey.clear()
      limit.byAddress?.clear()
    }
    this.failuresByAddress.clear()
  }
}
