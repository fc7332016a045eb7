// A warning a venue may cause at any rate (a frame that cannot be read, an error frame answering nothing asked), logged
// so that it is seen but cannot flood the log: the first, then at most one per interval, each saying how many were not
// logged since the one before it. One per kind of warning and per connection, on the connection's monotonic clock.
import { Effect } from "effect"

export class RateLimitedWarning {
  private readonly intervalMillis: number
  // When the last line was logged (`undefined`: none yet), and how many warnings since were not.
  private loggedAt: number | undefined = undefined
  private unlogged = 0

  constructor(intervalMillis: number) {
    this.intervalMillis = intervalMillis
  }

  /**
   * The warning `line()` (built only when logged) as an effect that logs it, if one may be logged at `now` (ms);
   * `undefined`, and counted, if the last was logged less than the interval before.
   */
  warn(now: number, line: () => string): Effect.Effect<void> | undefined {
    if (this.loggedAt !== undefined && now - this.loggedAt < this.intervalMillis) {
      this.unlogged++
      return undefined
    }
    const unlogged = this.unlogged
    this.loggedAt = now
    this.unlogged = 0
    return Effect.logWarning(`${line()}${unlogged === 0 ? "" : ` (and ${unlogged} more since the last one logged)`}`)
  }
}
