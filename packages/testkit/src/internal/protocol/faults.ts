// Faults injected on purpose: the rules (path, share, times) tried in the order they were added, drawn from the
// exchange's seeded generator, and what a fault that strikes before the venue acts answers instead.
import { Venue } from "@spotkit/core"
import type * as Fault from "../../Fault.ts"
import { prng } from "../prng.ts"
import { type Outcome, Refusal, refusal, respond } from "./wire.ts"

/** Whether a fault acts only on a request the venue applied (the answer is cut or lost afterwards). */
export const afterApplying = (fault: Fault.Fault): boolean => fault._tag === "AppliedLost" || fault._tag === "Truncated"

const HTML_PAGE = (status: number) =>
  `<html><head><title>${status}</title></head><body><center><h1>${status} Error</h1></center><hr>` +
  `<center>upstream</center></body></html>`

/**
 * What a fault answers in place of the venue, before anything is applied: an outcome, or a refusal (answered in the
 * venue's envelope). Undefined for a fault that lets the request through (latency, and those that act after
 * applying).
 */
export const preempt = (fault: Fault.Fault): Outcome | Refusal | undefined => {
  switch (fault._tag) {
    case "HttpError":
      return respond(fault.status, HTML_PAGE(fault.status), 0, "text/html")
    case "RateLimited":
      return refusal("429")
    case "VenueError":
      return new Refusal(fault.code, fault.msg, fault.status)
    case "Drop":
      return { _tag: "Drop", delayMillis: 0 }
    case "Timeout":
      return { _tag: "Hang" }
    case "Malformed":
      return respond(200, "<html>upstream answered garbage</html>", 0, "text/html")
    default:
      return undefined
  }
}

// Why a rule's path is refused: the router compares it with a request's path, query left out, so a path that is no
// endpoint's (a query string, no leading slash, a typo) would never strike, and a test of a retry would pass for the
// wrong reason. Names the endpoint's path it most likely meant.
const unknownPath = (path: string): string => {
  const bare = `/${path.split("?")[0]!.replace(/^\/+/, "")}`
  const meant = Venue.endpointByPath.has(bare) ? bare : closestPath(bare)
  return `path ${JSON.stringify(path)} is not the path of a venue endpoint (Venue.endpoints), without its query: ` +
    `no request would strike it; did you mean ${meant}?`
}

// The endpoint's path sharing the longest start with `path`, then the closest in length.
const closestPath = (path: string): string => {
  let best = ""
  let bestScore = -1
  for (const candidate of Venue.endpointByPath.keys()) {
    let common = 0
    while (common < path.length && path[common] === candidate[common]) common++
    const score = common * 1000 - Math.abs(candidate.length - path.length)
    if (score > bestScore) {
      best = candidate
      bestScore = score
    }
  }
  return best
}

/** A rule that struck a request, and its remaining count. */
export interface Strike {
  readonly fault: Fault.Fault
  readonly entry: { left: number }
}

export class Faults {
  private rules: Array<{ readonly rule: Fault.Rule; left: number }> = []
  private readonly random: () => number

  constructor(seed: number) {
    this.random = prng(seed ^ 0x5EED)
  }

  /** Adds a rule; answers why it is invalid instead, if it is. */
  inject(rule: Fault.Rule): string | undefined {
    const fault = rule.fault
    const status = fault._tag === "HttpError" || fault._tag === "VenueError" ? fault.status : 200
    if (!Number.isInteger(status) || status < 100 || status > 599) return `HTTP status ${status} is not in 100..599`
    if (fault._tag === "Latency" && !(fault.millis >= 0 && Number.isFinite(fault.millis))) {
      return `latency ${fault.millis} is not a finite non-negative number of milliseconds`
    }
    if (rule.share !== undefined && !(rule.share >= 0 && rule.share <= 1)) return `share ${rule.share} is not in 0..1`
    if (rule.times !== undefined && !(Number.isInteger(rule.times) && rule.times >= 0)) {
      return `times ${rule.times} is not a non-negative integer`
    }
    if (rule.path !== undefined && !Venue.endpointByPath.has(rule.path)) return unknownPath(rule.path)
    // "The next 0 requests" is no fault at all.
    if (rule.times === 0) return undefined
    this.rules.push({ rule, left: rule.times ?? Infinity })
    return undefined
  }

  clear(): void {
    this.rules = []
  }

  /**
   * The rule that strikes a request to `path` (`signed` when its endpoint takes a signature), if any. A rule without
   * a path strikes signed requests only: "the next request" of a test is its next call on the account, and the
   * market data a program reads in between (a ticker, a book) would otherwise use the rule up. A rule whose fault acts
   * only on an applied request is used up only when the request is applied: see `spend`.
   */
  strike(path: string, signed: boolean): Strike | undefined {
    for (let i = 0; i < this.rules.length; i++) {
      const entry = this.rules[i]!
      const rule = entry.rule
      if (rule.path === undefined ? !signed : rule.path !== path) continue
      if (rule.share !== undefined && this.random() >= rule.share) continue
      if (!afterApplying(rule.fault)) this.spend(entry)
      return { fault: rule.fault, entry }
    }
    return undefined
  }

  /** Counts one use of a rule; drops it when it is used up. */
  spend(entry: { left: number }): void {
    entry.left--
    if (entry.left <= 0) this.rules = this.rules.filter((e) => e !== entry)
  }
}
