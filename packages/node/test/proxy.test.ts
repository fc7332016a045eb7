/**
 * `NodeSpotClient`'s proxy, through a real proxy process on loopback (`support/proxyServer.ts`) in front of the
 * sandbox: over both undici transports every request goes through the proxy (which prints each one; a dead proxy
 * fails every call), with Basic credentials from the URL, never through it for a `NO_PROXY` host; `layerConfig` and
 * the CLI read `HTTP_PROXY`/`HTTPS_PROXY`/`NO_PROXY`; `node:http` and an invalid URL are refused with a
 * `ValidationError` on `proxy`, naming no password; a proxy that echoes the request's headers (its
 * `Proxy-Authorization` among them) in its error page yields an error that shows none of the proxy's secrets.
 */
import { assert, describe, it } from "@effect/vitest"
import { SpotClient, Venue } from "@spotkit/core"
import { Sandbox, TestExchange } from "@spotkit/testkit"
import { Cause, ConfigProvider, Effect, Exit, Layer, Redacted, Schedule } from "effect"
import { inspect } from "node:util"
import { NodeSpotClient } from "../src/index.ts"
import * as Proxies from "../src/internal/proxy.ts"
import { aliceEnv, runInProcess, sandboxLayer } from "./support/cli.ts"
import { echoOf, hostileVenue, leaksIn } from "./support/hostile.ts"
import { proxyServer } from "./support/proxyServer.ts"

const { layer: SandboxLayer, signatures } = sandboxLayer({ seed: 11, bills: 120 })

const aliceOptions = Effect.gen(function*() {
  const exchange = yield* TestExchange.TestExchange
  const sandbox = yield* Sandbox.Sandbox
  return {
    baseUrl: sandbox.baseUrl,
    credentials: exchange.accounts[0]!.credentials,
    rateLimit: false as const,
    retry: false as const
  }
})

// The proxy prints a request as it handles it, which may reach us after the answer: wait for the lines (bounded).
const awaitSeen = (seen: Array<string>, count: number) =>
  Effect.suspend(() => seen.length >= count ? Effect.void : Effect.fail("waiting")).pipe(
    Effect.retry({ schedule: Schedule.spaced("20 millis"), times: 250 }),
    Effect.orElseSucceed(() => undefined),
    Effect.map(() => seen)
  )

const readBills = Effect.flatMap(
  Effect.service(SpotClient.SpotClient),
  (client) => Effect.all([client.fundingBillsPage({ pageSize: 5 }), client.transferStatus({})])
)

it.layer(SandboxLayer, { excludeTestServices: true })("NodeSpotClient through a proxy", (it) => {
  for (const transport of ["undici", "effect-undici"] as const) {
    it.effect(`${transport}: every request goes through the proxy`, () =>
      Effect.scoped(Effect.gen(function*() {
        const proxy = yield* proxyServer()
        const options = yield* aliceOptions
        const before = signatures.length
        const [page] = yield* readBills.pipe(
          Effect.provide(NodeSpotClient.layer({ ...options, transport, proxy: proxy.url }))
        )
        assert.strictEqual(page.items?.length, 5)
        assert.strictEqual(signatures.length - before, 2)
        // Plain HTTP to an http: venue: the proxy forwards each request by its absolute URL.
        const seen = yield* awaitSeen(proxy.seen, 3)
        assert.deepStrictEqual(seen.map((line) => line.split("?")[0]), [
          `REQUEST GET ${options.baseUrl}${Venue.endpoints.serverTime.path}`,
          `REQUEST POST ${options.baseUrl}${Venue.endpoints.fundingBills.path}`,
          `REQUEST GET ${options.baseUrl}${Venue.endpoints.transferStatus.path}`
        ])
      })))
  }

  for (const transport of ["undici", "effect-undici"] as const) {
    it.effect(`${transport}: a dead proxy fails every call (nothing goes around it), saying it went through the proxy`, () =>
      Effect.gen(function*() {
        const options = yield* aliceOptions
        const before = signatures.length
        const error = yield* Effect.flip(
          readBills.pipe(
            Effect.provide(NodeSpotClient.layer({ ...options, transport, proxy: "http://proxy:hunter22@127.0.0.1:9" }))
          )
        )
        assert.strictEqual(error.reason._tag, "TransportError")
        assert.strictEqual(signatures.length, before)
        // Named by its scheme, host and port alone; said once, then what failed and the request. The user name
        // ("proxy") is no secret: the message keeps its words.
        assert.include(error.message, "transport failure: through the proxy http://127.0.0.1:9: ")
        assert.include(error.message, `(POST ${options.baseUrl}${Venue.endpoints.fundingBills.path})`)
        assert.notInclude(error.message, "hunter22")
        assert.notInclude(error.message, "proxy:")
        assert.notInclude(error.message, "TransportError")
      }))
  }

  it.effect("a proxy bypassed by NO_PROXY: a failure does not name it", () =>
    Effect.gen(function*() {
      const options = yield* aliceOptions
      const error = yield* Effect.flip(
        readBills.pipe(Effect.provide(NodeSpotClient.layer({
          ...options,
          baseUrl: "http://127.0.0.1:9",
          proxy: { http: "http://127.0.0.1:8", noProxy: "127.0.0.1" }
        })))
      )
      assert.strictEqual(error.reason._tag, "TransportError")
      assert.notInclude(error.message, "proxy")
    }))

  it.effect("the CLI refuses a proxy variable that is neither a URL nor host:port: exit code 2, one line", () =>
    Effect.gen(function*() {
      const env = yield* aliceEnv
      const before = signatures.length
      const run = yield* runInProcess(["balances"], { ...env, HTTP_PROXY: "notaurl" })
      assert.strictEqual(run.exitCode, 2, run.stderr)
      assert.strictEqual(
        run.stderr,
        "spotkit: HTTP_PROXY has neither a scheme nor a port; expected http://proxy.internal:3128 or host:port; " +
          "see spotkit --help\n"
      )
      assert.strictEqual(signatures.length, before)
    }))

  it.effect("Basic credentials from the proxy URL; without them the proxy refuses; no password in any message", () =>
    Effect.scoped(Effect.gen(function*() {
      const proxy = yield* proxyServer({ user: "trader", password: "pr0xy-s3cret" })
      const options = yield* aliceOptions
      const withUser = new URL(proxy.url)
      withUser.username = "trader"
      withUser.password = "pr0xy-s3cret"
      const [page] = yield* readBills.pipe(
        Effect.provide(NodeSpotClient.layer({ ...options, proxy: Redacted.make(withUser.href) }))
      )
      assert.strictEqual(page.items?.length, 5)
      withUser.password = "wrong-pass"
      const refused = yield* Effect.flip(
        readBills.pipe(Effect.provide(NodeSpotClient.layer({ ...options, proxy: withUser.href })))
      )
      // undici reads the proxy's 407 as a failure of the exchange, which says so.
      assert.strictEqual(refused.reason._tag, "TransportError")
      assert.include(refused.message, "Proxy Authentication Required (407)")
      assert.notInclude(String(refused), "wrong-pass")
      assert.notInclude(String(refused), "pr0xy-s3cret")
    })))

  it.effect("NO_PROXY: a listed host is reached directly", () =>
    Effect.scoped(Effect.gen(function*() {
      const proxy = yield* proxyServer()
      const options = yield* aliceOptions
      const [page] = yield* readBills.pipe(
        Effect.provide(
          NodeSpotClient.layer({
            ...options,
            proxy: { https: proxy.url, http: proxy.url, noProxy: "localhost,127.0.0.1" }
          })
        )
      )
      assert.strictEqual(page.items?.length, 5)
      // The same client with the proxy in effect: the lines arrive; without, none ever did.
      yield* readBills.pipe(Effect.provide(NodeSpotClient.layer({ ...options, proxy: { http: proxy.url } })))
      const seen = yield* awaitSeen(proxy.seen, 1)
      assert.isTrue(seen.length > 0 && seen.every((line) => line.includes("/api/v2/")))
      assert.strictEqual(seen.length, 3)
    })))

  it.effect("layerConfig reads HTTP_PROXY (lower case first), HTTPS_PROXY and NO_PROXY", () =>
    Effect.scoped(Effect.gen(function*() {
      const proxy = yield* proxyServer()
      const env = yield* aliceEnv
      const fromEnv = (extra: Record<string, string>) =>
        NodeSpotClient.layerConfig().pipe(
          Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnvRecord({ ...env, ...extra })))
        )
      yield* readBills.pipe(Effect.provide(fromEnv({ http_proxy: proxy.url, HTTP_PROXY: "http://127.0.0.1:9" })))
      assert.strictEqual((yield* awaitSeen(proxy.seen, 3)).length, 3)
      yield* readBills.pipe(Effect.provide(fromEnv({ HTTP_PROXY: proxy.url, NO_PROXY: "127.0.0.1" })))
      yield* readBills.pipe(Effect.provide(fromEnv({ HTTPS_PROXY: proxy.url }))) // an http: venue: HTTPS_PROXY only
      assert.strictEqual(proxy.seen.length, 3)
      const invalid = yield* Effect.exit(Layer.build(fromEnv({ HTTP_PROXY: "ftp://user:hunter22@proxy" })))
      assert.isTrue(Exit.isFailure(invalid))
      const rendered = Exit.isFailure(invalid) ? String(invalid.cause) : ""
      assert.include(rendered, "HTTP_PROXY is invalid (must start with http:// or https://)")
      assert.notInclude(rendered, "hunter22")
    })))

  it.effect("the CLI honours HTTP_PROXY", () =>
    Effect.scoped(Effect.gen(function*() {
      const proxy = yield* proxyServer()
      const env = yield* aliceEnv
      const run = yield* runInProcess(["balances", "--format", "json"], { ...env, HTTP_PROXY: proxy.url })
      assert.strictEqual(run.exitCode, 0, run.stderr)
      const seen = yield* awaitSeen(proxy.seen, 1)
      assert.isTrue(
        seen.some((line) => line.startsWith("REQUEST GET ") && line.includes(Venue.endpoints.balances.path))
      )
    })))

  it.effect("node:http refuses a proxy with a ValidationError on proxy", () =>
    Effect.gen(function*() {
      const options = yield* aliceOptions
      const exit = yield* Effect.exit(
        Layer.build(NodeSpotClient.layer({ ...options, transport: "node:http", proxy: "http://127.0.0.1:3128" }))
      )
      assert.isTrue(Exit.isFailure(exit))
      const rendered = Exit.isFailure(exit) ? String(exit.cause) : ""
      assert.include(rendered, "ValidationError")
      assert.include(rendered, "node:http transport cannot use a proxy")
    }))
})

describe("proxy resolution", () => {
  it("a URL for both schemes; per scheme, https falling back to http; no scheme is http://", () => {
    assert.deepStrictEqual(Proxies.resolve("http://p:3128"), {
      https: "http://p:3128",
      http: "http://p:3128",
      noProxy: ""
    })
    assert.deepStrictEqual(Proxies.resolve({ http: "p:3128", noProxy: " a.example " }), {
      https: "http://p:3128",
      http: "http://p:3128",
      noProxy: "a.example"
    })
    assert.deepStrictEqual(Proxies.resolve({ https: "https://s:443" }), {
      https: "https://s:443",
      http: undefined,
      noProxy: ""
    })
    assert.isUndefined(Proxies.resolve({ https: " ", http: "" }))
    assert.isUndefined(Proxies.resolve(undefined))
    assert.deepStrictEqual(Proxies.resolve("socks5://u:pw@p:1080"), {
      invalid: "the proxy is not an http:// or https:// URL: socks5://p:1080"
    })
    // Every proxy that is none, said at once.
    assert.deepStrictEqual(Proxies.resolve({ https: "socks5://u:pw@p:1080", http: "notaurl" }), {
      invalid: "the https proxy is not an http:// or https:// URL: socks5://p:1080; " +
        "the http proxy has neither a scheme nor a port (http://host:port or host:port): http://notaurl/"
    })
    // A user name or password undici could not decode (it would throw a URIError building its agent), named, unquoted.
    assert.deepStrictEqual(Proxies.resolve("http://user:Zq9Pw7Xk%ZZ@127.0.0.1:3128"), {
      invalid: "the proxy has a user name or password that is not valid percent-encoding (write % as %25): " +
        "http://127.0.0.1:3128/"
    })
    assert.strictEqual(
      Proxies.problem("us%E0er:pw@proxy.internal:3128"),
      "has a user name or password that is not valid percent-encoding (write % as %25)"
    )
    assert.isUndefined(Proxies.problem("http://user:p%25w%2F@proxy.internal:3128"), "well encoded")
    // Without a scheme, a port is needed: a bare word is refused rather than taken as a host on port 80.
    assert.deepStrictEqual(Proxies.resolve({ http: "notaurl" }), {
      invalid: "the http proxy has neither a scheme nor a port (http://host:port or host:port): http://notaurl/"
    })
    assert.deepStrictEqual(Proxies.resolve({ http: "http://notaurl" }), {
      https: "http://notaurl",
      http: "http://notaurl",
      noProxy: ""
    })
  })

  it("Proxies.origin: scheme, host and port only", () => {
    assert.strictEqual(Proxies.origin("http://user:pw@proxy.internal:3128/path?q=1"), "http://proxy.internal:3128")
    assert.strictEqual(Proxies.origin("https://proxy.internal"), "https://proxy.internal:443")
    assert.strictEqual(Proxies.origin("http://[::1]"), "http://[::1]:80")
  })

  it("NO_PROXY as undici reads it: hosts, domains, subdomain wildcards, ports, v6, *", () => {
    const url = (text: string) => new URL(text)
    assert.isTrue(Proxies.bypasses("api.example.com", url("https://api.example.com/x")))
    assert.isTrue(Proxies.bypasses("example.com", url("https://api.example.com")))
    assert.isTrue(Proxies.bypasses(".example.com", url("https://example.com")))
    assert.isFalse(Proxies.bypasses("*.example.com", url("https://example.com")))
    assert.isTrue(Proxies.bypasses("*.example.com", url("https://a.example.com")))
    assert.isFalse(Proxies.bypasses("ample.com", url("https://example.com")))
    assert.isTrue(Proxies.bypasses("other, example.com:443", url("https://example.com")))
    assert.isFalse(Proxies.bypasses("example.com:8443", url("https://example.com")))
    assert.isTrue(Proxies.bypasses("::1", url("http://[::1]:8080")))
    assert.isTrue(Proxies.bypasses("[::1]:8080", url("http://[::1]:8080")))
    assert.isTrue(Proxies.bypasses("*", url("https://anything.example")))
    assert.isFalse(Proxies.bypasses("", url("https://anything.example")))
    const proxies = { https: "http://s:1", http: "http://h:1", noProxy: "internal" }
    assert.strictEqual(Proxies.forUrl(proxies, "https://api.example.com"), "http://s:1")
    assert.strictEqual(Proxies.forUrl(proxies, "http://api.example.com"), "http://h:1")
    assert.isUndefined(Proxies.forUrl(proxies, "https://internal"))
  })
})

describe("the proxy's secrets", () => {
  const user = "proxy-user-4e1d"
  const password = "proxy-PASSWORD-77"
  const basic = Buffer.from(`${user}:${password}`).toString("base64")

  for (const transport of ["undici", "effect-undici"] as const) {
    it.live(`${transport}: a proxy echoing its Proxy-Authorization in a 502 page: no proxy secret in the error`, () =>
      Effect.scoped(Effect.gen(function*() {
        const received: Array<string | undefined> = []
        // A "proxy" that answers every request itself: its headers as JSON, and the user and password in every
        // encoding a server may use.
        const proxy = yield* hostileVenue((request, _body, response) => {
          received.push(request.headers["proxy-authorization"])
          response.writeHead(502, { "content-type": "text/plain" })
          response.end(`bad gateway; you sent ${JSON.stringify(request.headers)} ${echoOf([user, password])}`)
        })
        const url = new URL(proxy.baseUrl)
        url.username = user
        url.password = password
        const error = yield* Effect.flip(
          Effect.flatMap(Effect.service(SpotClient.SpotClient), (client) => client.ticker("BTCUSDT_SPBL")).pipe(
            Effect.provide(NodeSpotClient.layer({
              // An http: venue: the request goes to the proxy as is, which answers it.
              baseUrl: "http://venue.invalid",
              credentials: {
                apiKey: Redacted.make(TestExchange.demoKeys.alice.apiKey),
                secretKey: Redacted.make(TestExchange.demoKeys.alice.secretKey),
                passphrase: Redacted.make(TestExchange.demoKeys.alice.passphrase)
              },
              transport,
              proxy: url.href,
              rateLimit: false,
              retry: false,
              syncServerTime: false
            }))
          )
        )
        // The proxy was sent the credentials, and echoed them.
        assert.deepStrictEqual(received, [`Basic ${basic}`])
        assert.strictEqual(error.reason._tag, "HttpStatusError")
        assert.include(error.message, "HTTP 502")
        assert.include(error.message, "proxy-authorization")
        const texts = {
          message: error.message,
          inspect: inspect(error, { depth: 10 }),
          json: JSON.stringify(error),
          pretty: Cause.pretty(Cause.fail(error))
        }
        for (const [source, text] of Object.entries(texts)) {
          assert.deepStrictEqual(leaksIn(source, text, [password, basic, `${user}:${password}`]), [])
        }
      })))
  }

  it("Proxies.secrets: each proxy's password (decoded too), user:password and its Basic value; not the user", () => {
    const resolved = Proxies.resolve({ https: "http://u%40x:p%2Fw@s:1", http: "http://plain-user@h:1" })
    assert.isDefined(resolved)
    assert.isFalse(resolved !== undefined && "invalid" in resolved)
    const secrets = Proxies.secrets(resolved as Proxies.Resolved)
    const base64 = (text: string) => Buffer.from(text).toString("base64")
    for (
      const expected of [
        "p%2Fw",
        "p/w",
        "u@x:p/w",
        `Basic ${base64("u@x:p/w")}`,
        `Basic ${base64("plain-user:")}`
      ]
    ) {
      assert.include(secrets, expected)
    }
    for (const user of ["u%40x", "u@x", "plain-user"]) assert.notInclude(secrets, user)
    assert.deepStrictEqual(Proxies.secrets({ https: "http://s:1", http: undefined, noProxy: "" }), [])
  })
})
