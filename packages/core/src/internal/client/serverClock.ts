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
//
// Two clocks: the wall clock (`currentTimeMillis`) and the monotonic one. A request is signed with the wall clock plus
// the offset (the venue checks the timestamp against its own clock; before any answer the wall clock is all there is).
// A step of the wall clock (NTP stepping a drifted clock, a VM resumed, a user setting the time) makes that offset wrong
// until the next answer teaches it again (a refusal for the timestamp, 40008, carries the venue's time and is re-signed
// at once). The bounds of a recovery must not move with such a step: they are put on the venue's clock through the
// monotonic clock (`venueMinusMono`), which no step moves, and through the wall clock as well, whose time a suspended
// machine keeps where the monotonic clock may not: between them lies the call's start (`venueSpan`).
import type { Clock } from "effect"
import type * as Venue from "../../Venue.ts"
import { millisOf } from "./rateLimiter.ts"

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

/** A moment on both local clocks: the wall clock (ms) and the monotonic one (ms). */
export interface Moment {
  readonly wall: number
  readonly mono: number
}

/** The moment `clock` reads now (one read of each of its clocks). */
export const momentOf = (clock: Clock.Clock): Moment => ({
  wall: clock.currentTimeMillisUnsafe(),
  mono: millisOf(clock.monotonicTimeNanosUnsafe())
})

/**
 * Where a local moment lies on the venue's clock: between `early` and `late` (equal unless the wall clock stepped, or
 * the machine was suspended, since the moment).
 */
export interface Span {
  readonly early: number
  readonly late: number
}

/**
 * How far apart the two estimates of one moment may be and still be one moment, in ms. They differ without any step:
 * the offset is rounded to the millisecond, the two clocks are read a few microseconds apart, and the wall clock is
 * slewed (NTP runs it up to 0.05 % fast or slow) while the monotonic clock is not. Such a difference is far inside the
 * margin a recovery's bound already allows (`Recovery.MARGIN_MILLIS`); only a step or a suspend makes a span.
 */
const SAME_MOMENT_MILLIS = 1_000

const pointOf = (at: number): Span => {
  const point = Math.floor(at)
  return { early: point, late: point }
}

// A span in whole milliseconds, as wide as the two estimates are apart, or their earlier one when they are one moment.
const spanOf = (early: number, late: number): Span =>
  late - early <= SAME_MOMENT_MILLIS ? pointOf(early) : { early: Math.floor(early), late: Math.ceil(late) }

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
  /** Server time minus monotonic time (ms), learned with `offset`; undefined before any answer. */
  venueMinusMono: number | undefined = undefined
  /** The monotonic time (ms) the request of the last answer that taught the estimates was sent at. */
  private learnedMono: number | undefined = undefined
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
   * Learns the offset from a server time seen in an answer to a request sent at `sentMono` (monotonic clock), answered
   * at `receivedAt` (wall clock) and `receivedMono` (monotonic clock). The round trip is measured monotonically, and
   * the offset is taken against the wall clock as it reads at the answer (`receivedAt` less half the trip): a step of
   * the wall clock while the request was in flight is then in the offset whole, so the next request is signed right
   * (taken against the wall clock at the send, the step would be missing from it). Only a plausible millisecond epoch
   * (years 2001..2286) moves it: one answer with seconds, or garbage, must not make every later request fail its
   * timestamp check.
   */
  learn(
    serverTime: number | undefined,
    sentMono: number,
    receivedAt: number,
    receivedMono: number
  ): void {
    if (serverTime !== undefined && serverTime >= 1e12 && serverTime < 1e13) {
      const halfTrip = (receivedMono - sentMono) / 2
      this.offset = Math.round(serverTime - (receivedAt - halfTrip))
      this.venueMinusMono = serverTime - (sentMono + halfTrip)
      this.learnedMono = sentMono
      this.learned++
    }
  }

  /**
   * Where local moment `at` lies on the venue's clock, by the current estimates: through the monotonic clock (`late`;
   * no step of the wall clock since moves it) and through the wall clock and the offset (as the moment's wall time
   * reads). A wall clock that went back since puts the second later than the first: the monotonic one is right. One
   * that shows more time passed than the monotonic clock either stepped forward (the monotonic one is right) or kept
   * the time of a suspended machine, which the monotonic clock may not count (the wall one is right): the moment is
   * somewhere between (`early`). That reading holds once an answer sent after the moment taught the estimates: a
   * suspend before the moment is then counted in `venueMinusMono`. Until one did, a wall clock ahead of the monotonic
   * one may be a step forward before the moment (the monotonic one is right) or a suspend (the wall one is right): the
   * span holds both, from the monotonic estimate; one behind it stepped back before the moment (no suspend does
   * that): the monotonic one is right.
   */
  venueSpan(at: Moment): Span {
    const byWall = at.wall + this.offset
    if (this.venueMinusMono === undefined) return pointOf(byWall)
    const byMono = at.mono + this.venueMinusMono
    const learnedSince = this.learnedMono !== undefined && this.learnedMono >= at.mono
    return learnedSince
      ? spanOf(Math.min(byWall, byMono), byMono)
      : spanOf(byMono, Math.max(byWall, byMono))
  }
}
