// The client's side of the venue's weight model (docs/venue/limits.md): what each endpoint charges in the store
// (`RateLimitStore`): its UID weight against the API user's budget, its IP weight against the address's, and one
// request against its own 10 per second where it has one; and, after a 429, the pause of the shared budgets (for the
// venue's `Retry-After` when it sends one, otherwise one window), which holds every call of every client on the store.
import { Clock, Effect } from "effect"
import type * as RateLimitStore from "../../RateLimitStore.ts"
import * as SpotError from "../../SpotError.ts"
import * as Venue from "../../Venue.ts"

/** The budgets and weights in force (the venue's, with the caller's overrides) and the store's keys. */
export interface Config {
  readonly uid: Venue.Budget
  readonly ip: Venue.Budget
  readonly perEndpoint: Venue.Budget
  readonly weights: { readonly [name: string]: Partial<Venue.Weight> | undefined }
  readonly marginMillis: number
  /** Names the API user's budgets: a hash of the API key. */
  readonly userKey: string
  /** Names the address's budget. */
  readonly address: string
  readonly leaseMillis: number
}

/** The budgets one client charges. */
export interface Limiter {
  /** Waits until the endpoint's request may go, and charges it; settle the permit when its answer arrived. */
  readonly acquire: (
    endpoint: Venue.Endpoint
  ) => Effect.Effect<RateLimitStore.Permit, SpotError.RateLimitStoreError>
  /** A request of the endpoint failed: after a 429, pauses its shared budgets. */
  readonly failed: (endpoint: Venue.Endpoint, reason: SpotError.SpotErrorReason) => Effect.Effect<void>
}

/** An endpoint's weights with the caller's overrides. */
export const weightOf = (config: Config, endpoint: Venue.Endpoint): Venue.Weight => ({
  ...endpoint.weight,
  ...config.weights[endpoint.name]
})

export const make = (store: RateLimitStore.Service, config: Config): Limiter => {
  const margin = Math.max(0, config.marginMillis)
  const charge = (key: string, budget: Venue.Budget, weight: number): RateLimitStore.Charge => ({
    key,
    limit: budget.limit,
    windowMillis: budget.windowMillis + margin,
    weight
  })
  const acquisitions = new Map<string, RateLimitStore.Acquisition>()
  for (const endpoint of Object.values(Venue.endpoints)) {
    const weight = weightOf(config, endpoint)
    const shared = [charge(`ip:${config.address}`, config.ip, weight.ip)]
    // A public endpoint has no user to count against; a signed one counts against both.
    if (endpoint.permission !== undefined) {
      shared.unshift(charge(`uid:${config.userKey}`, config.uid, weight.uid ?? weight.ip))
    }
    acquisitions.set(endpoint.name, {
      endpoint: weight.perSecond
        ? charge(`endpoint:${config.userKey}:${endpoint.name}`, config.perEndpoint, 1)
        : undefined,
      shared,
      leaseMillis: config.leaseMillis
    })
  }

  return {
    acquire: (endpoint) => store.acquire(acquisitions.get(endpoint.name)!),
    failed: (endpoint, reason) => {
      const status = reason._tag === "RateLimitError" || reason._tag === "HttpStatusError" ? reason.httpStatus : 0
      if (status !== 429) return Effect.void
      const shared = acquisitions.get(endpoint.name)!.shared
      const millis = reason._tag === "RateLimitError" && reason.retryAfterMillis !== undefined
        ? reason.retryAfterMillis
        : Math.max(...shared.map((c) => c.windowMillis))
      return Effect.ignore(
        Effect.andThen(
          Effect.logDebug(`spotkit: HTTP 429 on ${endpoint.name}: the shared budgets pause for ${millis} ms`),
          store.pause(shared.map((c) => c.key), millis)
        )
      )
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
