// The client's rate limits from the environment, read alike by `NodeSpotClient.defaultConfig` and the CLI:
// `SPOTKIT_RATE_LIMIT` (on or off), `SPOTKIT_RATE_LIMIT_PAUSE_EXEMPT`, a list of the venue's endpoint names
// separated by commas (blanks around them and empty ones left out), and `SPOTKIT_RATE_LIMIT_ADDRESS`, the name of the
// address's budget in a shared store (`rateLimit.address`, and the push connections' `address`).
import { SafeText, type SpotClient, Venue } from "@spotkit/core"
import { Config } from "effect"
import * as RedisEnv from "./redisEnv.ts"

/** The names of a comma-separated list. */
export const namesOf = (text: string): ReadonlyArray<Venue.EndpointName> =>
  text.split(",").map((name) => name.trim()).filter((name) => name !== "") as ReadonlyArray<Venue.EndpointName>

/** What is wrong with the list, in words: the names the venue has no endpoint for (each quoted at most 40 characters). */
export const problem = (text: string): string | undefined => {
  const unknown = namesOf(text).filter((name) => !Object.hasOwn(Venue.endpoints, name))
  if (unknown.length === 0) return undefined
  return `names no endpoint: ${unknown.map((name) => SafeText.printable(name, 40)).join(", ")} (the endpoints: ` +
    `${Object.keys(Venue.endpoints).join(", ")})`
}

/** What is wrong with `SPOTKIT_RATE_LIMIT_ADDRESS`'s value (a part of the store's keys), in words, or undefined. */
export const addressProblem = (value: string): string | undefined =>
  /^[A-Za-z0-9._:-]{1,64}$/.test(value)
    ? undefined
    : "must be 1 to 64 letters, digits, dots, colons, dashes or underscores"

/** The address's budget name from the variable's value: none when unset or empty (the default, `default`). */
export const addressOf = (value: string | undefined): string | undefined =>
  value === undefined || value === "" ? undefined : value

/** `SPOTKIT_RATE_LIMIT_ADDRESS`, checked: the address's budget name, or none (`default`). */
export const addressConfig: Config.Config<string | undefined> = RedisEnv.checked(
  "SPOTKIT_RATE_LIMIT_ADDRESS",
  addressProblem
).pipe(Config.map(addressOf))

/**
 * The client's `rateLimit`: none (`false`) when off, the pause's exempt endpoints and the address's budget name when
 * given, else the defaults.
 */
export const rateLimitOf = (
  off: boolean,
  pauseExempt: string | undefined,
  address?: string | undefined
): SpotClient.Options["rateLimit"] => {
  if (off) return false
  const names = namesOf(pauseExempt ?? "")
  const named = addressOf(address)
  if (names.length === 0 && named === undefined) return undefined
  return { ...(names.length === 0 ? {} : { pauseExempt: names }), ...(named === undefined ? {} : { address: named }) }
}
