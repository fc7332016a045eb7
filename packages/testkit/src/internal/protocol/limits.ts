// Venue-side rate limits: the venue's weight model (docs/venue/limits.md, `Venue.budgets` and each endpoint's
// `Venue.Weight`) with the exchange's overrides. A signed request weighs its UID weight against its user's budget and
// its IP weight against its address's, and placing, batching, cancelling and transfers count one request against the
// endpoint's own budget per API key; a public request weighs against its address only. Sliding-window logs, counted on
// the time the protocol is given (the exchange's Clock). Also the failed authentications (a wrong key, passphrase or
// signature) of each API key from each address: past a burst of them that key is answered 429 from that address
// before any check, until the failures age out of the window, so that holding an API key is no licence to guess its
// passphrase, while one misconfigured client does not lock out the other keys behind its address. Failures with a key
// the exchange does not know count together, per address.
import { Venue } from "@spotkit/core"

type Budget = Venue.Budget

/** The model the exchange enforces (a type, so that it reads as a record). */
export type RateLimits = {
  /** Per API user. */
  readonly uid: Budget
  /** Per client address. */
  readonly ip: Budget
  /** Requests per API key on each endpoint whose weight says `perSecond`. */
  readonly perEndpoint: Budget
  /** Weights by endpoint name, over the declared ones. */
  readonly weights: { readonly [name: string]: Partial<Venue.Weight> | undefined }
  /** Seconds to send in a 429's `Retry-After` header; none by default, as the venue shows none. */
  readonly retryAfterSeconds: number | undefined
  /**
   * Failed authentications (40006, 40009, 40012) of one API key from one address (of unknown keys, from one address)
   * in a window before that key is answered 429 from that address.
   */
  readonly authFailures: Budget
}

export const defaultRateLimits: RateLimits = {
  uid: Venue.budgets.uid,
  ip: Venue.budgets.ip,
  perEndpoint: Venue.budgets.perEndpoint,
  weights: {},
  retryAfterSeconds: undefined,
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

const logOf = (logs: Map<string, WindowLog>, id: string): WindowLog => {
  let log = logs.get(id)
  if (log === undefined) {
    log = new WindowLog()
    logs.set(id, log)
  }
  return log
}

/** One budget a request is charged against. */
interface Charge {
  readonly log: WindowLog
  readonly budget: Budget
  readonly weight: number
}

export class Limits {
  /** The headers of a 429 (`Retry-After` when configured). */
  readonly refusalHeaders: Readonly<Record<string, string>> | undefined
  private readonly options: RateLimits | false
  private readonly weights = new Map<string, Venue.Weight>()
  private readonly byUser = new Map<string, WindowLog>()
  private readonly byAddress = new Map<string, WindowLog>()
  private readonly byEndpoint = new Map<string, WindowLog>()
  private readonly failuresByKeyAndAddress = new Map<string, WindowLog>()

  /** `false`: no limits at all. */
  constructor(options: RateLimits | false) {
    this.options = options
    this.refusalHeaders = options === false || options.retryAfterSeconds === undefined
      ? undefined
      : { "retry-after": String(options.retryAfterSeconds) }
    if (options === false) return
    for (const endpoint of Object.values(Venue.endpoints)) {
      this.weights.set(endpoint.name, { ...endpoint.weight, ...options.weights[endpoint.name] })
    }
  }

  /**
   * Whether a request to the endpoint is over a budget: its user's (`caller` undefined for a public request), its
   * address's, or its endpoint's, which is counted per API key (docs/venue/limits.md#budgets: "10 requests per second
   * per key"), so that two keys of one user each have their own. Every budget must have room; a refused request
   * charges none, an admitted one all.
   */
  refuses(
    endpoint: string,
    caller: { readonly userId: string; readonly apiKey: string } | undefined,
    address: string,
    now: number
  ): boolean {
    const options = this.options
    const weight = this.weights.get(endpoint)
    if (options === false || weight === undefined) return false
    const charges: Array<Charge> = [{ log: logOf(this.byAddress, address), budget: options.ip, weight: weight.ip }]
    if (caller !== undefined) {
      charges.push({ log: logOf(this.byUser, caller.userId), budget: options.uid, weight: weight.uid ?? weight.ip })
      if (weight.perSecond) {
        const log = logOf(this.byEndpoint, `${caller.apiKey}\n${endpoint}`)
        charges.push({ log, budget: options.perEndpoint, weight: 1 })
      }
    }
    for (const charge of charges) if (!charge.log.hasRoom(now, charge.weight, charge.budget)) return true
    for (const charge of charges) charge.log.take(now, charge.weight)
    return false
  }

  /** Whether failed authentications are counted at all (not with the limits off). */
  get countsAuthFailures(): boolean {
    return this.options !== false
  }

  /**
   * Whether the key (`""` for any key the exchange does not know) made as many failed authentications from the
   * address as its window allows: it is refused (429) at once.
   */
  authBlocked(apiKey: string, address: string, now: number): boolean {
    if (this.options === false) return false
    const budget = this.options.authFailures
    const log = this.failuresByKeyAndAddress.get(`${apiKey}\n${address}`)
    return log !== undefined && !log.hasRoom(now, 1, budget)
  }

  /** Counts a failed authentication of the key (`""` for an unknown one) from the address. */
  authFailed(apiKey: string, address: string, now: number): void {
    if (this.options !== false) logOf(this.failuresByKeyAndAddress, `${apiKey}\n${address}`).take(now, 1)
  }

  /** Forgets every window. */
  clear(): void {
    this.byUser.clear()
    this.byAddress.clear()
    this.byEndpoint.clear()
    this.failuresByKeyAndAddress.clear()
  }
}
