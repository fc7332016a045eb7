// The client's side of the venue's weight model (docs/venue/limits.md): what each endpoint charges in the store
// (`RateLimitStore`): its UID weight against the API user's budget, its IP weight against the address's, and one
// request against its own 10 per second where it has one; and, after a 429, the pause of the budget the request came
// from (the API user's for a signed request, the address's for a public one) for the venue's `Retry-After` when it
// sends one, otherwise one window, which holds every call of every client on the store. Every key names the venue's
// host, so that two venues (or two API keys) on one store never hold each other up. A `Retry-After` beyond the cap
// fails the call at once, and the pause is never longer than the cap.
import { Clock, Effect, type Fiber } from "effect"
import type * as RateLimitStore from "../../RateLimitStore.ts"
import * as SpotError from "../../SpotError.ts"
import * as Venue from "../../Venue.ts"
import * as RateLimiter from "./rateLimiter.ts"

/** The cap on a wait the venue asks for, by default: a few of the venue's 10 s windows. */
export const DEFAULT_MAX_RETRY_AFTER_MILLIS = 60_000

/** A wait the limiter is about to make: for which endpoint, held by which budget (or a 429's pause), how long. */
export interface Wait {
  readonly endpoint: string
  readonly budget: "uid" | "ip" | "endpoint" | "paused"
  readonly millis: number
}

/** The budgets and weights in force (the venue's, with the caller's overrides) and the store's keys. */
export interface Config {
  readonly uid: Venue.Budget
  readonly ip: Venue.Budget
  readonly perEndpoint: Venue.Budget
  readonly weights: { readonly [name: string]: Partial<Venue.Weight> | undefined }
  readonly marginMillis: number
  /** The venue's base URL: its host names every budget in the store. */
  readonly baseUrl: string
  /** Names the API user's budgets: a hash of the API key. */
  readonly userKey: string
  /** Names the address's budget. */
  readonly address: string
  readonly leaseMillis: number
  /** The longest `Retry-After` waited out (and the longest pause written); beyond it a call fails at once. */
  readonly maxRetryAfterMillis?: number | undefined
  /** Told once before each wait, when given. */
  readonly onWait?: ((wait: Wait) => Effect.Effect<void>) | undefined
  /**
   * Told how long each wait told to `onWait` really lasted (ms), when it ends: at the next one, when the request is
   * granted, or when its call gives up. It may be shorter than told (a waiter ahead gave up its place, the call was
   * interrupted), or longer (an answer came later than the limiter assumed).
   */
  readonly onWaited?: ((budget: Wait["budget"], millis: number) => Effect.Effect<void>) | undefined
  /** The endpoints whose requests a 429's pause does not hold, unless one of them drew it (`rateLimit.pauseExempt`). */
  readonly pauseExempt?: ReadonlyArray<string> | undefined
}

/** The budgets one client charges. */
export interface Limiter {
  /** Waits until the endpoint's request may go, and charges it; settle the permit when its answer arrived. */
  readonly acquire: (
    endpoint: Venue.Endpoint
  ) => Effect.Effect<RateLimitStore.Permit, SpotError.RateLimitStoreError>
  /**
   * Where the store can (the memory store): charges the endpoint's request at once, at monotonic time `now` (ms), when
   * every budget has room, nobody waits and no pause holds; `undefined` when it must wait (then `acquire`).
   */
  readonly grantNow: ((endpoint: Venue.Endpoint, now: number) => RateLimiter.Settleable | undefined) | undefined
  /**
   * A request of the endpoint failed: after a 429, pauses the budget it came from. Fails with the reason the call
   * must fail with instead when the venue asked for a wait beyond the cap (a `RateLimitError` that is not retried).
   */
  readonly failed: (
    endpoint: Venue.Endpoint,
    reason: SpotError.SpotErrorReason
  ) => Effect.Effect<void, SpotError.RateLimitError>
}

/** An endpoint's weights with the caller's overrides. */
export const weightOf = (config: Config, endpoint: Venue.Endpoint): Venue.Weight => ({
  ...endpoint.weight,
  ...config.weights[endpoint.name]
})

/** The host (and port) of a base URL, lower case, which names the venue's budgets; the whole text if it has none. */
export const hostOf = (baseUrl: string): string =>
  (/^[a-z][a-z0-9+.-]*:\/\/(?:[^@/?#]*@)?([^/?#]+)/i.exec(baseUrl)?.[1] ?? baseUrl).toLowerCase()

export const make = (store: RateLimitStore.Service, config: Config): Limiter => {
  const margin = Math.max(0, config.marginMillis)
  const cap = config.maxRetryAfterMillis ?? DEFAULT_MAX_RETRY_AFTER_MILLIS
  const host = hostOf(config.baseUrl)
  const uidKey = `uid:${host}:${config.userKey}`
  const ipKey = `ip:${host}:${config.address}`
  const charge = (key: string, budget: Venue.Budget, weight: number): RateLimitStore.Charge => ({
    key,
    limit: budget.limit,
    windowMillis: budget.windowMillis + margin,
    weight
  })
  const onWait = config.onWait
  const budgetOf = (charge: RateLimitStore.Charge | undefined): Wait["budget"] =>
    charge === undefined ? "paused" : charge.key === uidKey ? "uid" : charge.key === ipKey ? "ip" : "endpoint"
  const exempt = new Set(config.pauseExempt)
  const onWaited = config.onWaited
  // The wait under way on each acquiring fiber (an acquisition runs on its caller's fiber): which budget holds it and
  // since when (monotonic ms). It is closed, and how long it lasted told, at the next wait or when the acquisition ends.
  const open = new WeakMap<Fiber.Fiber<unknown, unknown>, { readonly budget: Wait["budget"]; readonly since: number }>()
  const close = (fiber: Fiber.Fiber<unknown, unknown>): Effect.Effect<void> => {
    const wait = open.get(fiber)
    if (wait === undefined || onWaited === undefined) return Effect.void
    open.delete(fiber)
    return onWaited(wait.budget, Math.max(0, RateLimiter.nowOf(fiber) - wait.since))
  }
  const told = (name: string, charge: RateLimitStore.Charge | undefined, millis: number): Effect.Effect<void> =>
    Effect.withFiber((fiber) => {
      const budget = budgetOf(charge)
      const closed = close(fiber)
      if (onWaited !== undefined) open.set(fiber, { budget, since: RateLimiter.nowOf(fiber) })
      return onWait === undefined
        ? closed
        : Effect.andThen(closed, onWait({ endpoint: name, budget, millis }))
    })
  const acquisitions = new Map<string, RateLimitStore.Acquisition>()
  // The budget a 429 of the endpoint pauses: the API user's for a signed request, the address's for a public one.
  const pauses = new Map<string, RateLimitStore.Charge>()
  for (const endpoint of Object.values(Venue.endpoints)) {
    const weight = weightOf(config, endpoint)
    const ip = charge(ipKey, config.ip, weight.ip)
    // A public endpoint has no user to count against; a signed one counts against both.
    const uid = endpoint.permission === undefined ? undefined : charge(uidKey, config.uid, weight.uid ?? weight.ip)
    pauses.set(endpoint.name, uid ?? ip)
    const name = endpoint.name
    acquisitions.set(name, {
      endpoint: weight.perSecond
        ? charge(`endpoint:${host}:${config.userKey}:${name}`, config.perEndpoint, 1)
        : undefined,
      shared: uid === undefined ? [ip] : [uid, ip],
      leaseMillis: config.leaseMillis,
      pauseExempt: exempt.has(name),
      onWait: onWait === undefined && onWaited === undefined
        ? undefined
        : (charge, millis) => told(name, charge, millis)
    })
  }

  const atOnce = RateLimiter.grantsAtOnce.get(store)
  const grants = new Map<string, (now: number) => RateLimiter.Settleable | undefined>()
  if (atOnce !== undefined) { for (const [name, acquisition] of acquisitions) grants.set(name, atOnce(acquisition)) }

  return {
    // (Only an acquisition that may wait: one granted at once goes by `grantNow`, or by a store's single step.)
    acquire: (endpoint) =>
      onWaited === undefined
        ? store.acquire(acquisitions.get(endpoint.name)!)
        : Effect.ensuring(store.acquire(acquisitions.get(endpoint.name)!), Effect.withFiber(close)),
    grantNow: atOnce === undefined ? undefined : (endpoint, now) => grants.get(endpoint.name)!(now),
    failed: (endpoint, reason) => {
      const status = reason._tag === "RateLimitError" || reason._tag === "HttpStatusError" ? reason.httpStatus : 0
      if (status !== 429) return Effect.void
      const paused = pauses.get(endpoint.name)!
      const asked = reason._tag === "RateLimitError" ? reason.retryAfterMillis : undefined
      const millis = Math.min(asked ?? paused.windowMillis, cap)
      const pause = Effect.ignore(
        Effect.andThen(
          Effect.logDebug(`spotkit: HTTP 429 on ${endpoint.name}: its budget (${paused.key}) pauses for ${millis} ms`),
          store.pause([paused.key], millis, exempt.has(endpoint.name))
        )
      )
      if (asked === undefined || asked <= cap || reason._tag !== "RateLimitError") return pause
      return Effect.andThen(pause, Effect.fail(new SpotError.RateLimitError({ ...reason, maxRetryAfterMillis: cap })))
    }
  }
}

/**
 * A `Retry-After` value in ms: delay-seconds, or an HTTP date (against the Clock). Undefined when absent or unreadable.
 */
export const retryAfterMillis = (value: string | undefined, now: number): number | undefined => {
  if (value === undefined) return undefined
  const text = value.trim()
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000)
  const date = Date.parse(text)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

/** A 429's reason with the venue's `Retry-After` when the answer carried one. */
export const withRetryAfter = (
  reason: SpotError.SpotErrorReason,
  headers: { readonly [name: string]: string | undefined }
): Effect.Effect<never, SpotError.SpotErrorReason> => {
  const header = headers["retry-after"]
  if (reason._tag !== "RateLimitError" || header === undefined) return Effect.fail(reason)
  return Effect.flatMap(Clock.currentTimeMillis, (now) => {
    const millis = retryAfterMillis(header, now)
    return Effect.fail(
      millis === undefined ? reason : new SpotError.RateLimitError({ ...reason, retryAfterMillis: millis })
    )
  })
}
