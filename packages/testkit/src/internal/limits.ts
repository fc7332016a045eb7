// Venue-side rate limits (DESIGN §4): sliding-window logs keyed by API key and endpoint, or by IP, counted on the
// time the protocol is given (the exchange's Clock).

export interface Budget {
  readonly limit: number
  readonly windowMillis: number
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

  /** Takes `weight` if the window has room at `now`; answers whether it did. */
  take(now: number, weight: number, budget: Budget): boolean {
    if (!this.hasRoom(now, weight, budget)) return false
    this.times.push(now)
    this.weights.push(weight)
    this.used += weight
    return true
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

export class Limits {
  private readonly logs = new Map<string, WindowLog>()

  private log(key: string): WindowLog {
    let log = this.logs.get(key)
    if (log === undefined) {
      log = new WindowLog()
      this.logs.set(key, log)
    }
    return log
  }

  hasRoom(key: string, now: number, weight: number, budget: Budget): boolean {
    return this.log(key).hasRoom(now, weight, budget)
  }

  take(key: string, now: number, weight: number, budget: Budget): boolean {
    return this.log(key).take(now, weight, budget)
  }

  clear(): void {
    this.logs.clear()
  }
}
