// The HTTP(S) proxy of NodeSpotClient's transports. The options mean what HTTPS_PROXY, HTTP_PROXY and NO_PROXY mean
// to curl and undici: `https` for https: venues (falling back to `http`, as undici does), `http` for http: venues,
// `noProxy` the hosts reached directly. Over undici, its EnvHttpProxyAgent given every value explicitly (so that it
// never reads the process's environment itself); a proxy URL's user and password are sent as Basic
// Proxy-Authorization. Node's own client (`node:http`) has no proxy support in every Node version the package runs
// on, so a proxy there is refused; under Bun, the proxy for the venue's origin goes to Bun's fetch. NodeSpotPush's
// WebSocket (`ws`) goes through an HTTP `CONNECT` tunnel of the same proxy (`tunnel`).
import type * as Undici from "@effect/platform-node/Undici"
import { SafeText, SpotClient } from "@spotkit/core"
import { Array as Arr, Config, Effect, Option, Redacted, Result, Schema, type Scope } from "effect"
import * as Http from "node:http"
import * as Https from "node:https"
import * as Net from "node:net"
import type { Duplex } from "node:stream"
import * as Tls from "node:tls"

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
 * Whether a URL's user name or password decodes: a `%` not followed by two hex digits, or bytes that are not UTF-8,
 * make a client that decodes them (undici's `ProxyAgent`, node-redis) throw a `URIError` while it is created.
 */
export const decodable = (text: string): boolean => Result.isSuccess(Result.try(() => decodeURIComponent(text)))

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
  if (!decodable(url.username) || !decodable(url.password)) {
    return "has a user name or password that is not valid percent-encoding (write % as %25)"
  }
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
          : why.startsWith("has a user name")
          ? `the ${name} ${why}: ${safeUrl(url)}`
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

/** The proxy for a push URL (`ws:` as `http:`, `wss:` as `https:`, as curl and browsers map them), or none. */
export const forPushUrl = (proxies: Resolved, url: string): string | undefined =>
  forUrl(proxies, url.replace(/^ws(s?):/i, "http$1:"))

// The longest delay `setTimeout` keeps (a signed 32-bit count of milliseconds).
const MAX_TIMER_MILLIS = 2 ** 31 - 1

/** What Node's `http.request` calls back with once a custom `createConnection` has its socket, or has failed. */
export type OnCreate = (error: Error | null, socket?: Duplex) => void

/**
 * A `createConnection` of Node's `http.request` (which `ws` passes on) that reaches the host through an HTTP `CONNECT`
 * tunnel of `proxy`, and answers through its callback. The proxy's answer is read by Node's own HTTP parser (and its
 * header size limit), within `timeoutMillis`; the URL's user and password are sent as Basic `Proxy-Authorization`
 * (the value `secrets` lists); an `https:` proxy is reached over TLS. For a `wss:` venue (`https:` to Node), TLS to the
 * venue runs inside the tunnel, its certificate checked against the venue's name as without a proxy: the proxy sees
 * the venue's host and port, nothing of what is sent. Every failure says it came through the proxy, naming it by its
 * `origin` alone ("through the proxy http://proxy.internal:3128: the proxy answered CONNECT with 407 ...").
 */
export const tunnel = (options: {
  readonly proxy: string
  /** Whether the venue is reached over TLS (a `wss:` URL). */
  readonly secure: boolean
  readonly timeoutMillis: number
  /**
   * Aborted when the connection is given up before the tunnel is handed over (closed, interrupted): the CONNECT is
   * abandoned and its socket to the proxy closed at once, not left open until `timeoutMillis`.
   */
  readonly signal?: AbortSignal | undefined
}) =>
(request: Http.ClientRequestArgs, done: OnCreate): undefined => {
  const { proxy, secure, signal, timeoutMillis } = options
  const url = new URL(proxy)
  const host = (request.host ?? request.hostname ?? "localhost").replace(/^\[(.+)\]$/, "$1")
  const port = request.port ?? (secure ? 443 : 80)
  const authority = `${Net.isIPv6(host) ? `[${host}]` : host}:${port}`
  const through = (what: string) => new Error(`through the proxy ${origin(proxy)}: ${what}`)
  const headers: Record<string, string> = { host: authority }
  if (url.username !== "" || url.password !== "") {
    const basic = Buffer.from(`${decoded(url.username)}:${decoded(url.password)}`).toString("base64")
    headers["proxy-authorization"] = `Basic ${basic}`
  }
  const connect = (url.protocol === "https:" ? Https.request : Http.request)({
    host: url.hostname.replace(/^\[(.+)\]$/, "$1"),
    port: url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port),
    method: "CONNECT",
    path: authority,
    headers,
    agent: false
  })
  // Once: a late event (the timer's destroy after an answer, an error after a refusal) changes nothing.
  let settled = false
  const settle = (error: Error | null, socket?: Duplex) => {
    clearTimeout(timer)
    signal?.removeEventListener("abort", abandon)
    if (settled) return void socket?.destroy()
    settled = true
    done(error, socket)
  }
  // Not the request's own `timeout`: that is the socket's idle timeout, which would stay on the tunnel's socket.
  // None for an opening without a limit (`openTimeout` infinite): `setTimeout` takes a delay over 2^31 - 1 ms,
  // Infinity included, as 1 ms, and would give every tunnel up at once; a finite one beyond is held at the most it
  // takes (some 24 days).
  const timer = timeoutMillis === Infinity ? undefined : setTimeout(() => {
    settle(through(`no answer to CONNECT within ${timeoutMillis} ms`))
    connect.destroy()
  }, Math.min(timeoutMillis, MAX_TIMER_MILLIS))
  // Node's request gives `createConnection` no way to hear that the request it waits for is gone; its socket would
  // then be destroyed when it came, but the CONNECT itself would wait for the proxy until the timer.
  const abandon = () => {
    settle(through("the connection was closed before the proxy answered CONNECT"))
    connect.destroy()
  }
  if (signal?.aborted === true) abandon()
  else signal?.addEventListener("abort", abandon, { once: true })
  connect.once("connect", (response, socket, head) => {
    if (response.statusCode !== 200) {
      socket.destroy()
      // Scrubbed before it is cut: a proxy that quotes the credentials it refused would otherwise have the start of
      // the password (or of its Basic value) shown where the cut falls, which no later scrubbing knows as a secret.
      const scrubber = new SafeText.Scrubber(secrets({ https: proxy, http: proxy, noProxy: "" }))
      const said = scrubber.scrub(response.statusMessage ?? "")
      const status = `${response.statusCode ?? "no status"} ${SafeText.printable(said, 80)}`
      return settle(through(`the proxy answered CONNECT with ${status.trim()}`))
    }
    // Bytes the proxy sent after its answer are the venue's: they go back in front of the socket.
    if (head.length > 0) socket.unshift(head)
    if (!secure) return settle(null, socket)
    // As `ws` connects without a proxy: its options (a CA, a certificate, `rejectUnauthorized`) as given, the
    // venue's name for SNI and the certificate check unless the venue is an IP address.
    // (`ws` passes its TLS options along with the request's.)
    const given = request as Tls.ConnectionOptions
    const servername = given.servername ?? (Net.isIP(host) === 0 ? host : "")
    settle(null, Tls.connect({ ...given, path: undefined, host, servername, socket }))
  })
  connect.once("error", (error) => settle(through(error.message)))
  connect.end()
  return undefined
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

// One proxy variable: a proxy (`Proxies.problem`: an http:// or https:// URL with a host, or host:port), or empty;
// anything else is a problem of the variable, in words that quote nothing of its value.
const proxyValue = (variable: string) =>
  Config.schema(
    Schema.Redacted(
      Schema.String.check(Schema.makeFilter((value: string) => value.trim() === "" || (problem(value.trim()) ?? true)))
    ),
    variable
  )

// A proxy variable as curl reads it: the lower-case name first (set, it is the one read, valid or not), then the
// upper-case one; empty is unset.
const proxyVariable = (name: string) =>
  Config.option(proxyValue(name.toLowerCase())).pipe(
    Config.flatMap(Option.match({ onSome: Config.succeed, onNone: () => proxyValue(name) })),
    Config.map((url) => Redacted.value(url).trim() === "" ? undefined : url),
    Config.withDefault(undefined)
  )

// A config read whatever its problems, as a result: the configs of one setting are each read, so that every problem of
// the setting is said at once (`Config.all` stops at the first).
const settled = <A>(config: Config.Config<A>): Config.Config<Result.Result<A, Config.ConfigError>> =>
  config.pipe(
    Config.map((value) => Result.succeed(value)),
    Config.orElse((error) => Config.succeed(Result.fail(error)))
  )

/**
 * The proxy setting from its three variables, each read and checked: every problem of them is one
 * `SpotClient.ConfigurationError` (which `SpotClient.readConfig` lists with the other variables' problems). Read by
 * `NodeSpotClient.defaultConfig` and `NodeSpotPush.defaultConfig` alike.
 */
export const config = Config.all({
  https: settled(proxyVariable("HTTPS_PROXY")),
  http: settled(proxyVariable("HTTP_PROXY")),
  noProxy: settled(
    Config.String("no_proxy").pipe(Config.orElse(() => Config.String("NO_PROXY")), Config.withDefault(""))
  )
}).pipe(Config.mapEffect(({ http, https, noProxy }) => {
  const errors = Arr.getFailures([https, http, noProxy])
  if (Arr.isArrayNonEmpty(errors)) return Effect.fail(new SpotClient.ConfigurationError(errors))
  const proxy = { https: Result.getOrThrow(https), http: Result.getOrThrow(http), noProxy: Result.getOrThrow(noProxy) }
  return Effect.succeed(proxy.https === undefined && proxy.http === undefined ? undefined : proxy)
}))
