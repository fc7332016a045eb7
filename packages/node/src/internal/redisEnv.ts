// The Redis that shares the rate-limit budget, from the environment, read alike by `NodeSpotClient.defaultConfig`,
// `NodeSpotPush.defaultConfig` and the CLI: `SPOTKIT_REDIS_URL` (the Redis; none when unset or blank),
// `SPOTKIT_REDIS_ON_UNAVAILABLE` (`memory` or `fail`: what a call does when Redis is lost mid-run) and
// `SPOTKIT_REDIS_TIMEOUT_MS` (the time allowed to connect and for one command, in whole milliseconds) and
// `SPOTKIT_REDIS_PREFIX` (the keys' prefix: fleets apart on one Redis). The last three are checked even without a URL:
// a fleet's setting written wrong is said, not ignored.
import { Config, Redacted, Schema } from "effect"

/** What the variables set of `NodeSpotClient.RedisOptions`. */
export interface RedisOptions {
  readonly url: Redacted.Redacted<string>
  readonly onUnavailable?: "memory" | "fail"
  readonly timeout?: number
  readonly prefix?: string
}

/** The longest timeout taken: ten minutes (a call waits for Redis at most this long before the store's policy). */
const MAX_TIMEOUT_MILLIS = 600_000

/** What is wrong with `SPOTKIT_REDIS_ON_UNAVAILABLE`'s value, in words, or undefined. */
export const onUnavailableProblem = (value: string): string | undefined =>
  value === "memory" || value === "fail" ? undefined : "must be memory or fail"

/** What is wrong with `SPOTKIT_REDIS_TIMEOUT_MS`'s value, in words, or undefined. */
export const timeoutProblem = (value: string): string | undefined =>
  /^\d{1,9}$/.test(value) && Number(value) > 0 && Number(value) <= MAX_TIMEOUT_MILLIS
    ? undefined
    : `must be a whole number of milliseconds from 1 to ${MAX_TIMEOUT_MILLIS}`

/** What is wrong with `SPOTKIT_REDIS_PREFIX`'s value, in words, or undefined. */
export const prefixProblem = (value: string): string | undefined =>
  /^[\x21-\x7e]{1,100}$/.test(value) ? undefined : "must be 1 to 100 printable characters, without spaces"

/** The Redis options from the variables' values (the URL not blank), or none without a URL. */
export const redisOf = (
  url: Redacted.Redacted<string> | undefined,
  onUnavailable: string | undefined,
  timeout: string | undefined,
  prefix?: string | undefined
): RedisOptions | undefined =>
  url === undefined || Redacted.value(url).trim() === "" ? undefined : {
    url,
    ...(onUnavailable === undefined || onUnavailable === ""
      ? {}
      : { onUnavailable: onUnavailable === "fail" ? "fail" : "memory" }),
    ...(timeout === undefined || timeout === "" ? {} : { timeout: Number(timeout) }),
    ...(prefix === undefined || prefix === "" ? {} : { prefix })
  }

/** A variable read as text and checked by `problem` (its words name what is wrong), or none when unset. */
export const checked = (name: string, problem: (value: string) => string | undefined) =>
  Config.schema(Schema.String.check(Schema.makeFilter((text: string) => problem(text) ?? true)), name).pipe(
    Config.withDefault(undefined)
  )

/** The four variables as `RedisOptions`, each checked (every problem named by `SpotClient.readConfig`). */
export const config: Config.Config<RedisOptions | undefined> = Config.all({
  url: Config.Redacted("SPOTKIT_REDIS_URL").pipe(Config.withDefault(undefined)),
  onUnavailable: checked("SPOTKIT_REDIS_ON_UNAVAILABLE", onUnavailableProblem),
  timeout: checked("SPOTKIT_REDIS_TIMEOUT_MS", timeoutProblem),
  prefix: checked("SPOTKIT_REDIS_PREFIX", prefixProblem)
}).pipe(Config.map(({ onUnavailable, prefix, timeout, url }) => redisOf(url, onUnavailable, timeout, prefix)))
