// The CLI's configuration from the `SPOTKIT_*` variables and the proxy's (`HTTPS_PROXY` and its kin, read as
// `NodeSpotClient.layerConfig` reads them), every one checked before anything is built or sent: each problem found is
// said at once, in one line naming the variable and what is wrong (never its value: three of them are secrets), so
// that a key with a line break or a malformed URL is a usage error (exit code 2), not a failure deep in an HTTP header
// or a Redis client; and, for a command that signs, a secret key of whitespace only, which the client would refuse
// only at its first signed call.
import { type SpotClient, Venue } from "@spotkit/core"
import { Config, Effect, Option, Redacted } from "effect"
import type * as NodeSpotClient from "../../NodeSpotClient.ts"
import * as Proxies from "../proxy.ts"
import * as RateLimitEnv from "../rateLimitEnv.ts"
import * as RedisEnv from "../redisEnv.ts"

/** What a command needs: the venue's private endpoints (credentials required), or public data only. */
export type Access = "private" | "public"

/**
 * The largest answer body the CLI reads by default: 16 MiB (`SPOTKIT_MAX_RESPONSE_BYTES`), not the library's 64 MiB.
 * Its largest answer, a page of 100 records, is some tens of kilobytes, and an endless body then keeps it within its
 * memory goal, which 64 MiB held in socket buffers would not (RELIABILITY.md).
 */
export const CLI_MAX_RESPONSE_BYTES = 16 * 1024 * 1024

/** Every variable the CLI reads, in the order problems are reported. */
export const VARIABLES = [
  "SPOTKIT_BASE_URL",
  "SPOTKIT_API_KEY",
  "SPOTKIT_SECRET_KEY",
  "SPOTKIT_PASSPHRASE",
  "SPOTKIT_LOCALE",
  "SPOTKIT_RATE_LIMIT",
  "SPOTKIT_RATE_LIMIT_PAUSE_EXEMPT",
  "SPOTKIT_RATE_LIMIT_ADDRESS",
  "SPOTKIT_REDIS_URL",
  "SPOTKIT_REDIS_ON_UNAVAILABLE",
  "SPOTKIT_REDIS_TIMEOUT_MS",
  "SPOTKIT_REDIS_PREFIX",
  "SPOTKIT_MAX_RESPONSE_BYTES",
  "SPOTKIT_PUSH_URL"
] as const

/**
 * The proxy variables, as curl and undici read them (the lower-case name first): `https_proxy` for an https: venue,
 * `http_proxy` for an http: one, `no_proxy` the hosts reached directly.
 */
export const PROXY_VARIABLES = [
  ["https_proxy", "HTTPS_PROXY"],
  ["http_proxy", "HTTP_PROXY"],
  ["no_proxy", "NO_PROXY"]
] as const

type Variable = typeof VARIABLES[number] | typeof PROXY_VARIABLES[number][number]

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/
const LINE_BREAK = /[\r\n]/

const textProblem = (value: string): string | undefined => {
  if (/\r\n?$/.test(value)) return "ends with a carriage return (a file with Windows line endings?)"
  if (LINE_BREAK.test(value)) return "has a line break (CR or LF)"
  if (CONTROL.test(value)) return "has a control character"
  return undefined
}

const urlProblem = (value: string, protocols: ReadonlyArray<string>, example: string): string | undefined => {
  if (CONTROL.test(value) || /\s/.test(value)) return `has a space or a control character; expected ${example}`
  const url = URL.parse(value)
  if (url === null) return `is not a URL; expected ${example}`
  if (!protocols.includes(url.protocol)) return `must start with ${protocols.map((p) => `${p}//`).join(" or ")}`
  if (url.hostname === "") return `names no host; expected ${example}`
  return undefined
}

/** What is wrong with the value of a variable, in words (without the value), or undefined. */
export const problemOf = (variable: Variable, value: string): string | undefined => {
  switch (variable) {
    case "SPOTKIT_BASE_URL":
      return Venue.baseUrlProblem(value)
    case "SPOTKIT_API_KEY":
    case "SPOTKIT_PASSPHRASE":
      // A text that goes into an HTTP header must be printable ASCII, as the client itself checks.
      return Venue.headerValueProblem(value)
    case "SPOTKIT_SECRET_KEY":
      return textProblem(value)
    case "SPOTKIT_LOCALE":
      return /^[A-Za-z]{1,8}(?:[-_][A-Za-z0-9]{1,8})*$/.test(value) ? undefined : "is not a locale such as en-US"
    case "SPOTKIT_RATE_LIMIT":
      return value === "on" || value === "off" ? undefined : "must be on or off"
    case "SPOTKIT_RATE_LIMIT_PAUSE_EXEMPT":
      return RateLimitEnv.problem(value)
    case "SPOTKIT_RATE_LIMIT_ADDRESS":
      return RateLimitEnv.addressProblem(value)
    case "SPOTKIT_REDIS_URL": {
      const problem = urlProblem(value, ["redis:", "rediss:"], "redis://127.0.0.1:6379")
      if (problem !== undefined) return problem
      const url = new URL(value)
      if (!/^(?:\/\d*)?$/.test(url.pathname)) return "has a path other than a database number (/0)"
      if (!Proxies.decodable(url.username) || !Proxies.decodable(url.password)) {
        return "has a user name or password that is not valid percent-encoding (write % as %25)"
      }
      // The Redis client reads none of a query: `?db=4` would be database 0, a budget apart from the others' `/4`.
      return url.search === "" && url.hash === ""
        ? undefined
        : "has a query or a fragment, which the Redis client ignores; give the database as the path (/4)"
    }
    case "SPOTKIT_REDIS_ON_UNAVAILABLE":
      return RedisEnv.onUnavailableProblem(value)
    case "SPOTKIT_REDIS_TIMEOUT_MS":
      return RedisEnv.timeoutProblem(value)
    case "SPOTKIT_REDIS_PREFIX":
      return textProblem(value) ?? RedisEnv.prefixProblem(value)
    case "SPOTKIT_MAX_RESPONSE_BYTES":
      return /^\d{1,15}$/.test(value) && Number(value) > 0 ? undefined : "must be a positive whole number of bytes"
    case "SPOTKIT_PUSH_URL": {
      const problem = urlProblem(value, ["ws:", "wss:"], "wss://ws.example.com")
      if (problem !== undefined) return problem
      const url = new URL(value)
      if (url.username !== "" || url.password !== "") return "has a user name or password in it"
      if (url.search !== "" || url.hash !== "") return "has a query or a fragment (?, #)"
      return undefined
    }
    case "https_proxy":
    case "HTTPS_PROXY":
    case "http_proxy":
    case "HTTP_PROXY":
      // An http:// or https:// URL with a host, or host:port (taken as http://), as NodeSpotClient's proxy option.
      if (CONTROL.test(value) || /\s/.test(value)) {
        return "has a space or a control character; expected http://proxy.internal:3128"
      }
      return Proxies.problem(value)
    case "no_proxy":
    case "NO_PROXY":
      return textProblem(value)
  }
}

// What is wrong with a value only for a command that signs. A secret key of whitespace only (a variable set to " ")
// signs nothing the venue accepts: the client refuses it at its first signed call, in these words (a ValidationError
// on `credentials.secretKey`), so a command that signs says it here, by the variable's name, before anything is sent.
// A public command never signs, and runs with it.
const signedProblemOf = (variable: Variable, value: string): string | undefined =>
  variable === "SPOTKIT_SECRET_KEY" && /^\s+$/.test(value) ? "is only whitespace" : undefined

const and = (names: ReadonlyArray<string>): string =>
  names.length === 1 ? names[0]! : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`

/**
 * The line that says what is wrong with the environment, or undefined when nothing is. `push`: the command listens to
 * the venue's push endpoints, so `SPOTKIT_PUSH_URL` is required too.
 */
export const problems = (
  values: Partial<Record<Variable, string>>,
  access: Access,
  push = false
): string | undefined => {
  const required: ReadonlyArray<Variable> = [
    "SPOTKIT_BASE_URL",
    ...(push ? ["SPOTKIT_PUSH_URL" as const] : []),
    ...(access === "private" ? ["SPOTKIT_API_KEY", "SPOTKIT_SECRET_KEY", "SPOTKIT_PASSPHRASE"] as const : [])
  ]
  const missing = required.filter((name) => values[name] === undefined)
  const empty = required.filter((name) => values[name] === "")
  const invalid: Array<string> = []
  // An upper-case proxy variable whose lower-case name is set (not empty) is not read, here as by curl and by the
  // library's `layerConfig`s: what it holds is no problem of the command's.
  const shadowed = new Set<Variable>(
    PROXY_VARIABLES.flatMap(([lower, upper]) => values[lower] === undefined || values[lower] === "" ? [] : [upper])
  )
  for (const name of [...VARIABLES, ...PROXY_VARIABLES.flat()]) {
    const value = values[name]
    if (value === undefined || value === "" || shadowed.has(name)) continue
    const problem = problemOf(name, value) ?? (access === "private" ? signedProblemOf(name, value) : undefined)
    if (problem !== undefined) invalid.push(`${name} ${problem}`)
  }
  const parts = [
    ...(missing.length === 0 ? [] : [`${and(missing)} ${missing.length === 1 ? "is" : "are"} not set`]),
    ...(empty.length === 0 ? [] : [`${and(empty)} ${empty.length === 1 ? "is" : "are"} empty`]),
    ...invalid
  ]
  return parts.length === 0 ? undefined : parts.join("; ")
}

const ALL: ReadonlyArray<Variable> = [...VARIABLES, ...PROXY_VARIABLES.flat()]

/** The variables as set (`Config`: the environment, or a test's provider); undefined when not set. */
const values = Effect.map(
  Effect.forEach(ALL, (name) => Config.option(Config.String(name))),
  (found) => {
    const record: Partial<Record<Variable, string>> = {}
    ALL.forEach((name, i) => {
      if (Option.isSome(found[i]!)) record[name] = found[i]!.value
    })
    return record
  }
)

// The proxies as `NodeSpotClient.ProxyOptions` (the lower-case variable first), none when no proxy is set.
const proxyOf = (found: Partial<Record<Variable, string>>): NodeSpotClient.ProxyOptions | undefined => {
  const [https, http, noProxy] = PROXY_VARIABLES.map(([lower, upper]) => {
    const value = (found[lower] ?? found[upper])?.trim()
    return value === undefined || value === "" ? undefined : value
  })
  return https === undefined && http === undefined
    ? undefined
    : {
      https: https === undefined ? undefined : Redacted.make(https),
      http: http === undefined ? undefined : Redacted.make(http),
      noProxy: noProxy ?? ""
    }
}

/** The client's options, and the push URL (`SPOTKIT_PUSH_URL`) when it is set. */
export interface Options extends NodeSpotClient.Options {
  readonly pushUrl: string | undefined
}

/**
 * The client's options from the variables, or the line saying every problem with them (`problems`). Without
 * credentials (`public` access) the client signs nothing: it asks only public endpoints. `push`: `SPOTKIT_PUSH_URL`
 * is required.
 */
export const read = (
  access: Access,
  push = false
): Effect.Effect<Options, string | Config.ConfigError> =>
  Effect.flatMap(values, (found) => {
    const problem = problems(found, access, push)
    if (problem !== undefined) return Effect.fail(problem)
    const secret = (name: Variable) => Redacted.make(found[name] ?? "")
    const credentials: SpotClient.Options["credentials"] = {
      apiKey: secret("SPOTKIT_API_KEY"),
      secretKey: secret("SPOTKIT_SECRET_KEY"),
      passphrase: secret("SPOTKIT_PASSPHRASE")
    }
    return Effect.succeed({
      baseUrl: found.SPOTKIT_BASE_URL!,
      credentials,
      locale: found.SPOTKIT_LOCALE ?? "en-US",
      rateLimit: RateLimitEnv.rateLimitOf(
        found.SPOTKIT_RATE_LIMIT === "off",
        found.SPOTKIT_RATE_LIMIT_PAUSE_EXEMPT,
        found.SPOTKIT_RATE_LIMIT_ADDRESS
      ),
      redis: RedisEnv.redisOf(
        found.SPOTKIT_REDIS_URL === undefined ? undefined : Redacted.make(found.SPOTKIT_REDIS_URL),
        found.SPOTKIT_REDIS_ON_UNAVAILABLE,
        found.SPOTKIT_REDIS_TIMEOUT_MS,
        found.SPOTKIT_REDIS_PREFIX
      ),
      proxy: proxyOf(found),
      maxResponseBytes: found.SPOTKIT_MAX_RESPONSE_BYTES === undefined
        ? CLI_MAX_RESPONSE_BYTES
        : Number(found.SPOTKIT_MAX_RESPONSE_BYTES),
      pushUrl: found.SPOTKIT_PUSH_URL
    })
  })
