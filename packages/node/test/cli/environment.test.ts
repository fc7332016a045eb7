/**
 * The CLI's configuration (`internal/cli/environment.ts`): every `SPOTKIT_*` variable checked before anything is
 * built, each problem in words naming the variable (never its value), all of them at once; public access needs only
 * the base URL. The command-level behaviour (one line, exit code 2) is in `e2e.test.ts`.
 */
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Redacted } from "effect"
import * as Environment from "../../src/internal/cli/environment.ts"

const good = {
  SPOTKIT_BASE_URL: "https://api.example.com/prefix",
  SPOTKIT_API_KEY: "ak-1234",
  SPOTKIT_SECRET_KEY: "a secret, with any printable text: é",
  SPOTKIT_PASSPHRASE: "pass phrase"
}

const read = (env: Record<string, string>, access: Environment.Access = "private") =>
  Environment.read(access).pipe(
    Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnvRecord(env))),
    Effect.flip,
    Effect.map((error) => typeof error === "string" ? error : error.message)
  )

describe("Environment", () => {
  it("problems: nothing for good values, each bad one named with what is wrong", () => {
    assert.isUndefined(Environment.problems(good, "private"))
    const cases: ReadonlyArray<readonly [Record<string, string>, string]> = [
      [
        { SPOTKIT_API_KEY: "ak\r\n" },
        "SPOTKIT_API_KEY ends with a carriage return (a file with Windows line endings?)"
      ],
      [{ SPOTKIT_API_KEY: "a\nb" }, "SPOTKIT_API_KEY has a line break (CR or LF)"],
      [{ SPOTKIT_API_KEY: "ak-é" }, "SPOTKIT_API_KEY has a character other than printable ASCII"],
      [{ SPOTKIT_PASSPHRASE: " pass" }, "SPOTKIT_PASSPHRASE starts or ends with a space"],
      [{ SPOTKIT_PASSPHRASE: "a\u001bb" }, "SPOTKIT_PASSPHRASE has a control character"],
      [{ SPOTKIT_SECRET_KEY: "s\u0000" }, "SPOTKIT_SECRET_KEY has a control character"],
      [{ SPOTKIT_BASE_URL: "https://user:pw@api.example.com" }, "SPOTKIT_BASE_URL has a user name or password in it"],
      [{ SPOTKIT_BASE_URL: "https://api.example.com?x=1" }, "SPOTKIT_BASE_URL has a query or a fragment"],
      [{ SPOTKIT_BASE_URL: "https://api.example .com" }, "SPOTKIT_BASE_URL has a space or a control character"],
      [{ SPOTKIT_BASE_URL: "//venue" }, "SPOTKIT_BASE_URL is not a URL"],
      [
        { SPOTKIT_BASE_URL: "https://api.example.com/api/v2/" },
        "SPOTKIT_BASE_URL ends in /api/v2, which every endpoint's path starts with; leave it out (https://api.example.com)"
      ],
      [
        { SPOTKIT_BASE_URL: "https://gw.example.com/venue/api" },
        "SPOTKIT_BASE_URL ends in /api, which every endpoint's path starts with; leave it out (https://gw.example.com/venue)"
      ],
      [{ SPOTKIT_REDIS_URL: "redis://127.0.0.1:6379/x" }, "SPOTKIT_REDIS_URL has a path other than a database number"],
      [
        { SPOTKIT_REDIS_URL: "redis://127.0.0.1:6379?db=4" },
        "SPOTKIT_REDIS_URL has a query or a fragment, which the Redis client ignores; give the database as the path (/4)"
      ],
      [{ SPOTKIT_REDIS_URL: "redis://:6379" }, "SPOTKIT_REDIS_URL"],
      [
        { SPOTKIT_REDIS_URL: "redis://user:Zq9Pw7Xk%ZZ@127.0.0.1:6379" },
        "SPOTKIT_REDIS_URL has a user name or password that is not valid percent-encoding (write % as %25)"
      ],
      [
        { HTTPS_PROXY: "http://user:Zq9Pw7Xk%ZZ@127.0.0.1:3128" },
        "HTTPS_PROXY has a user name or password that is not valid percent-encoding (write % as %25)"
      ],
      [{ SPOTKIT_REDIS_ON_UNAVAILABLE: "Fail" }, "SPOTKIT_REDIS_ON_UNAVAILABLE must be memory or fail"],
      [
        { SPOTKIT_REDIS_TIMEOUT_MS: "2s" },
        "SPOTKIT_REDIS_TIMEOUT_MS must be a whole number of milliseconds from 1 to 600000"
      ],
      [{ SPOTKIT_REDIS_TIMEOUT_MS: "-5" }, "SPOTKIT_REDIS_TIMEOUT_MS must be a whole number of milliseconds"],
      [{ SPOTKIT_REDIS_TIMEOUT_MS: "600001" }, "SPOTKIT_REDIS_TIMEOUT_MS must be a whole number of milliseconds"],
      [{ SPOTKIT_LOCALE: "en US" }, "SPOTKIT_LOCALE is not a locale such as en-US"],
      [{ SPOTKIT_RATE_LIMIT: "ON" }, "SPOTKIT_RATE_LIMIT must be on or off"],
      [
        { SPOTKIT_RATE_LIMIT_PAUSE_EXEMPT: "cancelOrder, nope" },
        "SPOTKIT_RATE_LIMIT_PAUSE_EXEMPT names no endpoint: nope (the endpoints: placeOrder, placeOrders,"
      ],
      [{ SPOTKIT_RATE_LIMIT_ADDRESS: "host b" }, "SPOTKIT_RATE_LIMIT_ADDRESS must be 1 to 64 letters, digits"],
      [{ SPOTKIT_REDIS_PREFIX: "a\tb" }, "SPOTKIT_REDIS_PREFIX has a control character"],
      [
        { SPOTKIT_REDIS_PREFIX: "desk a" },
        "SPOTKIT_REDIS_PREFIX must be 1 to 100 printable characters, without spaces"
      ],
      [{ SPOTKIT_MAX_RESPONSE_BYTES: "0" }, "SPOTKIT_MAX_RESPONSE_BYTES must be a positive whole number of bytes"],
      [{ SPOTKIT_MAX_RESPONSE_BYTES: "1e6" }, "SPOTKIT_MAX_RESPONSE_BYTES must be a positive whole number of bytes"],
      [{ HTTPS_PROXY: "socks5://proxy.internal:1080" }, "HTTPS_PROXY must start with http:// or https://"],
      [{ https_proxy: "http://[proxy" }, "https_proxy is not a URL"],
      // Without a scheme, host:port only: a bare word is more often a mistake than a proxy.
      [{ HTTP_PROXY: "notaurl" }, "HTTP_PROXY has neither a scheme nor a port"],
      [{ http_proxy: "user:secret@proxy.internal" }, "http_proxy has neither a scheme nor a port"],
      [{ NO_PROXY: "internal\n" }, "NO_PROXY has a line break"]
    ]
    for (const [change, said] of cases) {
      const line = Environment.problems({ ...good, ...change }, "private")
      assert.isDefined(line, JSON.stringify(change))
      assert.include(line, said, JSON.stringify(change))
      // Never the value itself.
      for (const value of Object.values(change)) assert.notInclude(line, value!, JSON.stringify(change))
    }
    // Good optional values.
    const optional = {
      HTTPS_PROXY: "proxy.internal:3128",
      no_proxy: "localhost,.internal",
      SPOTKIT_LOCALE: "zh-CN",
      SPOTKIT_RATE_LIMIT: "off",
      SPOTKIT_RATE_LIMIT_PAUSE_EXEMPT: "cancelOrder,cancelOrders, cancelAll",
      SPOTKIT_REDIS_URL: "rediss://:pw@cache.internal:6380/2",
      SPOTKIT_REDIS_ON_UNAVAILABLE: "fail",
      SPOTKIT_REDIS_TIMEOUT_MS: "600000",
      SPOTKIT_REDIS_PREFIX: "desk-a:{budget}:",
      SPOTKIT_RATE_LIMIT_ADDRESS: "host-b",
      SPOTKIT_MAX_RESPONSE_BYTES: "1048576"
    }
    assert.isUndefined(Environment.problems({ ...good, ...optional }, "private"))
    // A proxy variable shadowed by its lower-case name is not read (by the CLI, by curl, or by
    // NodeSpotClient.layerConfig and NodeSpotPush.layerConfig): whatever it holds is no problem of the command's.
    for (const [lower, upper] of Environment.PROXY_VARIABLES) {
      const shadowed = {
        ...good,
        [lower]: lower === "no_proxy" ? "localhost" : "http://lower.internal:3128",
        [upper]: "a\nb"
      }
      assert.isUndefined(Environment.problems(shadowed, "private"), upper)
      // An empty lower-case one is unset: the upper-case one is read, and checked.
      assert.include(Environment.problems({ ...shadowed, [lower]: "" }, "private"), `${upper} has`)
    }
    for (const proxy of ["http://proxy.internal", "user:pw@proxy.internal:3128", "[::1]:3128", "10.0.0.1:8080/"]) {
      assert.isUndefined(Environment.problems({ ...good, HTTP_PROXY: proxy }, "private"), proxy)
    }
  })

  it("problems: the missing and the empty named at once, then the invalid", () => {
    assert.strictEqual(
      Environment.problems({}, "private"),
      "SPOTKIT_BASE_URL, SPOTKIT_API_KEY, SPOTKIT_SECRET_KEY and SPOTKIT_PASSPHRASE are not set"
    )
    assert.strictEqual(
      Environment.problems({ SPOTKIT_BASE_URL: "ftp://x", SPOTKIT_API_KEY: "", SPOTKIT_SECRET_KEY: "s" }, "private"),
      "SPOTKIT_PASSPHRASE is not set; SPOTKIT_API_KEY is empty; SPOTKIT_BASE_URL must start with http:// or https://"
    )
    // Public data: only the base URL is required.
    assert.isUndefined(Environment.problems({ SPOTKIT_BASE_URL: good.SPOTKIT_BASE_URL }, "public"))
    assert.strictEqual(Environment.problems({}, "public"), "SPOTKIT_BASE_URL is not set")
  })

  // A secret key of whitespace only passed the check, and a command that signs failed at its first signed call (the
  // client's ValidationError on credentials.secretKey), after the public requests before it, without naming the
  // variable. It is a problem for a command that signs, in the client's words; a public command never signs.
  it("problems: a secret key of whitespace only, for the commands that sign, in the client's words", () => {
    for (const blank of [" ", "   "]) {
      const line = Environment.problems({ ...good, SPOTKIT_SECRET_KEY: blank }, "private")
      assert.strictEqual(line, "SPOTKIT_SECRET_KEY is only whitespace", JSON.stringify(blank))
      assert.strictEqual(
        Environment.problems({ ...good, SPOTKIT_SECRET_KEY: blank, SPOTKIT_PASSPHRASE: "" }, "private", true),
        "SPOTKIT_PUSH_URL is not set; SPOTKIT_PASSPHRASE is empty; SPOTKIT_SECRET_KEY is only whitespace"
      )
      assert.isUndefined(Environment.problems({ ...good, SPOTKIT_SECRET_KEY: blank }, "public"), JSON.stringify(blank))
    }
    // A line break is said as such, once, whatever the access.
    assert.strictEqual(
      Environment.problems({ ...good, SPOTKIT_SECRET_KEY: " \n" }, "private"),
      "SPOTKIT_SECRET_KEY has a line break (CR or LF)"
    )
    // Spaces around a secret are the secret's own: only a key of nothing else is refused.
    assert.isUndefined(Environment.problems({ ...good, SPOTKIT_SECRET_KEY: " s " }, "private"))
  })

  it("problems: SPOTKIT_PUSH_URL required by the push commands, a ws:// or wss:// URL whenever it is set", () => {
    assert.strictEqual(
      Environment.problems({ SPOTKIT_BASE_URL: good.SPOTKIT_BASE_URL }, "public", true),
      "SPOTKIT_PUSH_URL is not set"
    )
    assert.strictEqual(
      Environment.problems({}, "private", true),
      "SPOTKIT_BASE_URL, SPOTKIT_PUSH_URL, SPOTKIT_API_KEY, SPOTKIT_SECRET_KEY and SPOTKIT_PASSPHRASE are not set"
    )
    const push = { ...good, SPOTKIT_PUSH_URL: "wss://ws-spot.example.com" }
    assert.isUndefined(Environment.problems(push, "private", true))
    // Not required elsewhere, but checked when set.
    assert.isUndefined(Environment.problems(good, "private"))
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["https://ws.example.com", "SPOTKIT_PUSH_URL must start with ws:// or wss://"],
      ["ws://user:pw@ws.example.com", "SPOTKIT_PUSH_URL has a user name or password in it"],
      ["wss://ws.example.com/?x=1", "SPOTKIT_PUSH_URL has a query or a fragment (?, #)"],
      ["wss://ws.example.com\n", "SPOTKIT_PUSH_URL has a space or a control character; expected wss://ws.example.com"]
    ]
    for (const [value, line] of cases) {
      assert.strictEqual(Environment.problems({ ...good, SPOTKIT_PUSH_URL: value }, "private"), line)
    }
  })

  it.effect("read: the options from the variables (through Config), or the line of problems", () =>
    Effect.gen(function*() {
      const options = yield* Environment.read("private").pipe(
        Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnvRecord({
          ...good,
          SPOTKIT_RATE_LIMIT: "off",
          SPOTKIT_REDIS_URL: "redis://127.0.0.1:6379",
          SPOTKIT_MAX_RESPONSE_BYTES: "1024"
        })))
      )
      assert.strictEqual(options.baseUrl, good.SPOTKIT_BASE_URL)
      assert.strictEqual(Redacted.value(options.credentials.passphrase), good.SPOTKIT_PASSPHRASE)
      assert.strictEqual(options.locale, "en-US")
      assert.strictEqual(options.rateLimit, false)
      assert.strictEqual(options.maxResponseBytes, 1024)
      assert.isTrue(options.redis !== undefined && Redacted.isRedacted(options.redis.url))
      // The Redis store's policy and timeout are the store's defaults unless set.
      assert.isUndefined(options.redis?.onUnavailable)
      assert.isUndefined(options.redis?.timeout)
      const fleet = yield* Environment.read("private").pipe(
        Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnvRecord({
          ...good,
          SPOTKIT_REDIS_URL: "redis://127.0.0.1:6379",
          SPOTKIT_REDIS_ON_UNAVAILABLE: "fail",
          SPOTKIT_REDIS_TIMEOUT_MS: "250",
          SPOTKIT_REDIS_PREFIX: "desk-a:{budget}:",
          SPOTKIT_RATE_LIMIT_ADDRESS: "host-b"
        })))
      )
      assert.strictEqual(fleet.redis?.onUnavailable, "fail")
      assert.strictEqual(fleet.redis?.timeout, 250)
      assert.strictEqual(fleet.redis?.prefix, "desk-a:{budget}:")
      assert.deepStrictEqual(fleet.rateLimit, { address: "host-b" })
      const defaults = yield* Environment.read("private").pipe(
        Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnvRecord(good)))
      )
      assert.strictEqual(defaults.maxResponseBytes, Environment.CLI_MAX_RESPONSE_BYTES)
      assert.isUndefined(defaults.rateLimit)
      assert.isUndefined(defaults.redis)
      const exempt = yield* Environment.read("private").pipe(
        Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnvRecord({
          ...good,
          SPOTKIT_RATE_LIMIT_PAUSE_EXEMPT: "cancelOrder, cancelAll"
        })))
      )
      assert.deepStrictEqual(exempt.rateLimit, { pauseExempt: ["cancelOrder", "cancelAll"] })
      assert.strictEqual(
        yield* read({ SPOTKIT_BASE_URL: "https://x.example" }),
        "SPOTKIT_API_KEY, SPOTKIT_SECRET_KEY and SPOTKIT_PASSPHRASE are not set"
      )
      const proxied = yield* Environment.read("private").pipe(
        Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnvRecord({
          ...good,
          https_proxy: "http://lower.internal:3128",
          HTTPS_PROXY: "http://upper.internal:3128",
          NO_PROXY: "localhost"
        })))
      )
      const proxy = proxied.proxy as { https: Redacted.Redacted<string>; http: unknown; noProxy: string }
      // The lower-case name first, as curl and NodeSpotClient.layerConfig read them.
      assert.strictEqual(Redacted.value(proxy.https), "http://lower.internal:3128")
      assert.isUndefined(proxy.http)
      assert.strictEqual(proxy.noProxy, "localhost")
      assert.isUndefined(defaults.proxy)
      const keyless = yield* Environment.read("public").pipe(
        Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnvRecord({ SPOTKIT_BASE_URL: "https://x.example" })))
      )
      assert.strictEqual(Redacted.value(keyless.credentials.apiKey), "")
    }))
})
