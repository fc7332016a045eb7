// The client's rate limits from the environment, read alike by `NodeSpotClient.defaultConfig` and the CLI:
// `SPOTKIT_RATE_LIMIT` (on or off) and `SPOTKIT_RATE_LIMIT_PAUSE_EXEMPT`, a list of the venue's endpoint names
// separated by commas (blanks around them and empty ones left out).
import { SafeText, type SpotClient, Venue } from "@spotkit/core"

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

/** The client's `rateLimit`: none (`false`) when off, the pause's exempt endpoints when given, else the defaults. */
export const rateLimitOf = (off: boolean, pauseExempt: string | undefined): SpotClient.Options["rateLimit"] => {
  if (off) return false
  const names = namesOf(pauseExempt ?? "")
  return names.length === 0 ? undefined : { pauseExempt: names }
}
