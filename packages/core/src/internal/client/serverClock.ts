// The venue's clock as one client knows it: server time minus local time, learned from every answer that carries a
// plausible server time, and the timestamps the client signs with.
//
// Signing once: every send is signed exactly once. Two sends that change state and carry the same body within one
// millisecond (two equal transfers, a cancel retried at once) must still be signed differently, since the venue may
// refuse an exact replay (same key, timestamp and signature) of a request that changes state. So the writes of the
// latest stamped millisecond are remembered (their path and body, not their signatures): a write equal to one of them
// takes the next millisecond, any other shares it, and a write whose clock is at or just behind that millisecond is
// stamped with it. That costs a comparison with each write of that millisecond (a set lookup once there are more than
// a few) — no signature is remembered and no loop waits for the clock. A stamp far behind the last one is the offset
// moving back (a venue whose clock is behind ours, learned from a refusal) and is kept as it is. Reads may repeat a
// signature: a replayed read changes nothing.
import type * as Venue from "../../Venue.ts"

/** How far behind the last write a write's stamp may be moved forward, in ms: far more than writes ever bunch up. */
const BUMP_MILLIS = 1_000

/**
 * The writes of one millisecond compared one by one before they go into a set: a body is compared as it is, where a
 * set hashes every body it is given (a fresh text each time), which on the path of every order cost more than the
 * comparisons with the few writes a millisecond holds.
 */
const SCANNED = 16

const addTo = (sets: Map<string, Set<string>>, path: string, body: string): void => {
  const bodies = sets.get(path)
  if (bodies === undefined) sets.set(path, new Set([body]))
  else bodies.add(body)
}

/** The client's estimate of the venue's clock at one moment: the offset, and how many answers had taught it. */
export interface Estimate {
  readonly offset: number
  readonly learned: number
}

export class ServerClock {
  /** Server time minus local time (ms). */
  offset = 0
  /** How many answers have set `offset`: more after an exchange than before it, an answer of it confirmed `offset`. */
  learned = 0
  private lastWrite = 0
  // The writes of the latest stamped millisecond, side by side (a path is one of a few constant texts, a body is
  // compared as it is: no text is joined per write); past `SCANNED` of them, in sets by path instead.
  private readonly paths: Array<string> = []
  private readonly bodies: Array<string> = []
  private sets: Map<string, Set<string>> | undefined

  /** The millisecond to sign a request of `endpoint` with this path (and query) and body with, at local time `now`. */
  stamp(endpoint: Venue.Endpoint, requestPath: string, body: string, now: number): number {
    // TestClock (and jittered sleeps) can yield fractional millis; the venue wants an integer.
    const millis = Math.round(now + this.offset)
    return endpoint.idempotency === "read" ? millis : this.write(millis, requestPath, body)
  }

  private write(millis: number, path: string, body: string): number {
    if (millis > this.lastWrite || this.lastWrite - millis >= BUMP_MILLIS) {
      this.lastWrite = millis
      this.forget()
    } else if (this.written(path, body)) {
      this.lastWrite++
      this.forget()
    }
    this.remember(path, body)
    return this.lastWrite
  }

  private written(path: string, body: string): boolean {
    if (this.sets !== undefined) return this.sets.get(path)?.has(body) === true
    const { bodies, paths } = this
    for (let i = 0; i < bodies.length; i++) {
      if (bodies[i] === body && paths[i] === path) return true
    }
    return false
  }

  private remember(path: string, body: string): void {
    if (this.sets !== undefined) return addTo(this.sets, path, body)
    this.paths.push(path)
    this.bodies.push(body)
    if (this.bodies.length <= SCANNED) return
    const sets = new Map<string, Set<string>>()
    for (let i = 0; i < this.bodies.length; i++) addTo(sets, this.paths[i]!, this.bodies[i]!)
    this.sets = sets
    this.paths.length = 0
    this.bodies.length = 0
  }

  private forget(): void {
    this.paths.length = 0
    this.bodies.length = 0
    this.sets = undefined
  }

  /**
   * Learns the offset from a server time seen in an answer to a request sent at `sentAt` and answered at
   * `receivedAt` (local times). Only a plausible millisecond epoch (years 2001..2286) moves it: one answer with
   * seconds, or garbage, must not make every later request fail its timestamp check.
   */
  learn(serverTime: number | undefined, sentAt: number, receivedAt: number): void {
    if (serverTime !== undefined && serverTime >= 1e12 && serverTime < 1e13) {
      this.offset = Math.round(serverTime - (sentAt + receivedAt) / 2)
      this.learned++
    }
  }
}
