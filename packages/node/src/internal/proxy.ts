// The HTTP(S) proxy of NodeSpotClient's transports. The options mean what HTTPS_PROXY, HTTP_PROXY and NO_PROXY mean
// to curl and undici: `https` for https: venues (falling back to `http`, as undici does), `http` for http: venues,
// `noProxy` the hosts reached directly. Over undici, its EnvHttpProxyAgent given every value explicitly (so that it
// never reads the process's environment itself); a proxy URL's user and password are sent as Basic
// Proxy-Authorization. Node's own client (`node:http`) has no proxy support in every Node version the package runs
// on, so a proxy there is refused; under Bun, the proxy for the venue's origin goes to Bun's fetch.
import type * as Undici from "@effect/platform-node/Undici"
import { Effect, Redacted, Result, type Scope } from "effect"

/** The proxies as given: a URL for both schemes, or one per scheme and the hosts reached directly. */
export type Input =
  | string
  | Redacted.Redacted<string>
  | {
    readonly https?: string | Redacted.Redacted<string> | undefined
    readonly http?: string | Redacted.Redacted<string> | undefined
    readonly noProxy?: string | undefined
  }

/** The proxies, each a valid http: or https: URL, and the `NO_PROXY` list ("" for none). */
export interface Resolved {
  readonly https: string | undefined
  readonly http: string | undefined
  readonly noProxy: string
}

const text = (value: string | Redacted.Redacted<string> | undefined): string | undefined => {
  const plain = Redacted.isRedacted(value) ? Redacted.value(value) : value
  return plain === undefined || plain.trim() === "" ? undefined : plain.trim()
}

/**
 * A proxy as the messages of failures through it name it: its scheme, host and port, never a user name, password,
 * path or query (`http://proxy.internal:3128`).
 */
export const origin = (url: string): string => {
  const parsed = URL.parse(url)
  if (parsed === null) return "an invalid URL"
  const port = parsed.port !== "" ? parsed.port : parsed.protocol === "https:" ? "443" : "80"
  return `${parsed.protocol}//${parsed.hostname}:${port}`
}

// A URL that names its scheme (`http://`); without one, a proxy is taken as `http://`, as curl does.
const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i

/**
 * What keeps a proxy value from being a proxy, in words that quote nothing of it, or undefined: it must be an
 * `http://` or `https://` URL with a host, or, without a scheme, `host:port` (taken as `http://`). A bare word without
 * a port (`HTTP_PROXY=yes`, a host name alone) is refused: curl would reach it on port 1080, undici on port 80, and
 * it is more often a mistake than a proxy.
 */
export const problem = (value: string): string | undefined => {
  const url = URL.parse(SCHEME.test(value) ? value : `http://${value}`)
  if (url === null) return "is not a URL; expected http://proxy.internal:3128"
  if (url.protocol !== "http:" && url.protocol !== "https:") return "must start with http:// or https://"
  if (url.hostname === "") return "names no host; expected http://proxy.internal:3128"
  if (!SCHEME.test(value)) {
    const authority = value.split(/[/?#]/, 1)[0]!
    if (!/:\d+$/.test(authority.slice(authority.lastIndexOf("@") + 1))) {
      return "has neither a scheme nor a port; expected http://proxy.internal:3128 or host:port"
    }
  }
  return undefined
}

/** A proxy URL as messages may show it: without its user and password. */
export const safeUrl = (url: string): string => {
  const parsed = URL.parse(url)
  if (parsed === null) return "an invalid URL"
  parsed.username = ""
  parsed.password = ""
  return parsed.href
}

/**
 * A URL's user name or password as undici and node-redis decode it (`decodeURIComponent`), or as written when it
 * cannot be decoded.
 */
export const decoded = (text: string): string =>
  Result.getOrElse(Result.try(() => decodeURIComponent(text)), () => text)

/**
 * The secrets of the proxies, which no message may show: each proxy's password (as written and decoded),
 * `user:password`, and its Basic `Proxy-Authorization` value, which a proxy or a server that echoes the request's
 * headers would quote. The user name alone is not among them: it is no secret, and often a common word (`proxy`) or
 * part of a host name, which scrubbing would cut out of every message that names the proxy or the venue.
 */
export const secrets = (proxies: Resolved): ReadonlyArray<string> => {
  const found: Array<string> = []
  for (const url of [proxies.https, proxies.http]) {
    const parsed = url === undefined ? null : URL.parse(url)
    if (parsed === null || (parsed.username === "" && parsed.password === "")) continue
    const user = decoded(parsed.username)
    const password = decoded(parsed.password)
    // undici sends `user:password`, or `user:` without a password.
    const basic = Buffer.from(`${user}:${password}`).toString("base64")
    found.push(parsed.password, password, `${user}:${password}`, basic, `Basic ${basic}`)
  }
  return found.filter((secret) => secret !== "")
}

/**
 * The proxies to use, none when nothing is set, or why they cannot be: each URL that is not `http:` or `https:` with a
 * host (`problem`), all said in one text. Like curl, `host:port` without a scheme is taken as `http://`.
 */
export const resolve = (input: Input | undefined): Resolved | undefined | { readonly invalid: string } => {
  if (input === undefined) return undefined
  const one = typeof input === "string" || Redacted.isRedacted(input)
  const given = one
    ? { https: text(input), http: text(input), noProxy: "" }
    : { https: text(input.https), http: text(input.http), noProxy: input.noProxy?.trim() ?? "" }
  const invalid: Array<string> = []
  // One URL for both is said once.
  for (const key of one ? ["https"] as const : ["https", "http"] as const) {
    const value = given[key]
    if (value === undefined) continue
    const url = SCHEME.test(value) ? value : `http://${value}`
    const why = problem(value)
    const name = one ? "proxy" : `${key} proxy`
    if (why === undefined) given[key] = url
    else {
      invalid.push(
        why.startsWith("has neither")
          ? `the ${name} has neither a scheme nor a port (http://host:port or host:port): ${safeUrl(url)}`
          : `the ${name} is not an http:// or https:// URL: ${safeUrl(url)}`
      )
    }
  }
  if (invalid.length > 0) return { invalid: invalid.join("; ") }
  if (one) given.http = given.https
  if (given.https === undefined && given.http === undefined) return undefined
  return { https: given.https ?? given.http, http: given.http, noProxy: given.noProxy }
}

/** Whether `NO_PROXY` (comma- or space-separated hosts, `.domain` suffixes, `host:port`, `*`) exempts a URL. */
export const bypasses = (noProxy: string, url: URL): boolean => {
  const host = url.hostname.replace(/^\[(.+)\]$/, "$1").replace(/\.$/, "").toLowerCase()
  const port = url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port)
  for (const entry of noProxy.split(/[,\s]+/)) {
    if (entry === "") continue
    // host, host:port, [v6]:port, [v6] or a bare v6 address (more than one colon: no port).
    const bracketed = /^\[(.+)\](?::(\d+))?$/.exec(entry)
    const plain = bracketed === null && entry.split(":").length === 2 ? /^(.+):(\d+)$/.exec(entry) : null
    const name = (bracketed?.[1] ?? plain?.[1] ?? entry).replace(/^\*?\./, "").replace(/\.$/, "").toLowerCase()
    const entryPort = bracketed?.[2] ?? plain?.[2]
    if (entryPort !== undefined && Number(entryPort) !== port) continue
    // `*.example.com` exempts the subdomains only; `example.com` and `.example.com` the domain too.
    if (name === "*" || (name === host && !entry.startsWith("*")) || host.endsWith(`.${name}`)) return true
  }
  return false
}

/** The proxy for one URL (Bun's fetch takes one), or none. */
export const forUrl = (proxies: Resolved, url: string): string | undefined => {
  const parsed = URL.parse(url)
  if (parsed === null || bypasses(proxies.noProxy, parsed)) return undefined
  return parsed.protocol === "https:" ? proxies.https : proxies.http
}

/** An undici dispatcher through the proxies, with the pool's options, destroyed with the scope. */
export const dispatcher = (
  proxies: Resolved,
  options: Undici.Agent.Options
): Effect.Effect<Undici.Dispatcher, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.map(
      Effect.promise(() => import("@effect/platform-node/Undici")),
      (undici) =>
        // "" rather than undefined: EnvHttpProxyAgent reads the process's environment for a value it is not given.
        new undici.EnvHttpProxyAgent({
          ...options,
          httpProxy: proxies.http ?? "",
          httpsProxy: proxies.https ?? "",
          noProxy: proxies.noProxy
        })
    ),
    (agent) => Effect.promise(() => agent.destroy())
  )
