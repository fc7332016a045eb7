// The push client's own bookkeeping of the venue's limits: the reconnect backoff, and the subscribe/unsubscribe
// operations of one connection in a sliding window.

/** Reconnect backoff: exponential from `initialMillis`, capped at `maxMillis`, with full jitter. */
export interface Backoff {
  readonly initialMillis: number
  readonly maxMillis: number
  /** A connection that stayed up this long starts the next backoff from the beginning. */
  readonly resetAfterMillis: number
}

/**
 * The delay before reconnect attempt `attempt` (0 for the first after a healthy connection): uniform in
 * [0, min(max, initial × 2^attempt)] ("full jitter"), so that many clients dropped at once do not come back at once.
 * `random` is in [0, 1).
 */
export const backoffDelay = (backoff: Backoff, attempt: number, random: number): number => {
  const ceiling = Math.min(backoff.maxMillis, backoff.initialMillis * 2 ** Math.min(attempt, 30))
  return Math.floor(random * ceiling)
}

/** Operations (subscribes and unsubscribes) sent on one connection, in a sliding window. */
export class OperationLog {
  private readonly times: Array<number> = []
  private head = 0
  readonly limit: number
  readonly windowMillis: number

  constructor(limit: number, windowMillis: number) {
    this.limit = limit
    this.windowMillis = windowMillis
  }

  /** Operations still allowed at `now`. */
  remaining(now: number): number {
    while (this.head < this.times.length && this.times[this.head]! <= now - this.windowMillis) this.head++
    if (this.head > 256 && this.head * 2 > this.times.length) {
      this.times.splice(0, this.head)
      this.head = 0
    }
    return this.limit - (this.times.length - this.head)
  }

  /** When the next operation is allowed: `now` if one is, else when the oldest in the window leaves it. */
  freeAt(now: number): number {
    return this.remaining(now) >= 1 ? now : this.times[this.head]! + this.windowMillis
  }

  /** Spends `n` operations at `now` if they fit; whether they did. */
  spend(n: number, now: number): boolean {
    if (this.remaining(now) < n) return false
    for (let i = 0; i < n; i++) this.times.push(now)
    return true
  }
}
