#!/usr/bin/env node
/**
 * `spotkit-sandbox`: the test exchange as a real HTTP server on loopback, for programs and tools that cannot run it
 * in process. It prints its base URL and the demo users' ids and credentials as shell lines, then serves until
 * SIGINT or SIGTERM.
 *
 * ```sh
 * spotkit-sandbox --port 8080 --seed 7 --bills 1000 > sandbox.env &
 * until grep -q "^# serving" sandbox.env 2>/dev/null; do sleep 0.1; done
 * . ./sandbox.env      # SPOTKIT_BASE_URL, SPOTKIT_PUSH_URL, SPOTKIT_API_KEY, ... (alice), SPOTKIT_ALICE_*, SPOTKIT_BOB_*
 * ```
 *
 * Every line of the output is either a `# comment` or `export NAME=value`, so it can be read by people, sourced by
 * a shell, or parsed. Exit codes: 0 after a clean stop (or `--help`), 1 when the sandbox cannot start, 2 for bad
 * flags.
 *
 * @since 0.1.0
 */
import { Console, Data, Effect, Layer, Option, Redacted, Runtime } from "effect"
import { Command, Flag } from "effect/cli"
import { packageVersion, runMain } from "../internal/cliMain.ts"
import * as PushVenue from "../PushVenue.ts"
import * as Sandbox from "../Sandbox.ts"
import * as TestExchange from "../TestExchange.ts"

const NAME = "spotkit-sandbox"

// The package's version; `../../package.json` from both `src/bin` and `dist/bin`.
const version = packageVersion(new URL("../../package.json", import.meta.url))

const port = Flag.Int("port").pipe(
  Flag.withDescription("Port to listen on; 0 picks any free port (default 0)"),
  Flag.withDefault(0),
  Flag.filter((n) => n >= 0 && n <= 65535, () => "an integer in 0..65535")
)

const host = Flag.String("host").pipe(
  Flag.withDescription(
    "Address to listen on; keep it on loopback, the sandbox has no real security; there it answers only requests to localhost, 127.x.x.x or [::1] (default 127.0.0.1)"
  ),
  Flag.withDefault("127.0.0.1"),
  Flag.filter((h) => h.trim().length > 0, () => "a non-empty address")
)

const seed = Flag.Int("seed").pipe(
  Flag.withDescription("Seed of ids and generated histories; the same seed gives the same exchange (default 1)"),
  Flag.withDefault(1),
  Flag.filter((n) => Number.isSafeInteger(n) && n >= 0, () => "a non-negative integer")
)

const demo = Flag.Boolean("demo").pipe(
  Flag.withDescription(
    "Create the demo users alice (trader) and bob (market maker with resting liquidity); on by default, --no-demo for only the products"
  ),
  Flag.withDefault(true)
)

const bills = Flag.Int("bills").pipe(
  Flag.withDescription("Funding bills in alice's generated history, with --demo (default 200000)"),
  Flag.withDefault(200_000),
  Flag.filter((n) => Number.isSafeInteger(n) && n >= 0, () => "a non-negative integer")
)

// `--rate-limits`: "on", "off", or the venue's model with overrides, e.g. "uid=500/10s,ip=1000/10s,retry-after=10"
// (`auth`: the failed authentications a key may make from an address).
const budgetPattern = /^(\d+(?:\.\d+)?)\/(\d+(?:\.\d+)?)(ms|s)$/
const parseRateLimits = (text: string): Partial<TestExchange.RateLimits> | false | string => {
  if (text === "off") return false
  if (text === "on") return {}
  const limits: { -readonly [K in keyof TestExchange.RateLimits]?: TestExchange.RateLimits[K] } = {}
  for (const part of text.split(",")) {
    const [name = "", value = ""] = part.trim().split("=")
    if (name === "retry-after") {
      if (!/^\d+$/.test(value)) return `retry-after=${value}: whole seconds`
      limits.retryAfterSeconds = Number(value)
      continue
    }
    const match = budgetPattern.exec(value)
    const key = name === "endpoint" ? "perEndpoint" : name === "auth" ? "authFailures" : name
    if (key !== "uid" && key !== "ip" && key !== "perEndpoint" && key !== "authFailures") {
      return `${name}: not uid, ip, endpoint, auth or retry-after`
    }
    if (match === null || Number(match[1]) <= 0 || Number(match[2]) <= 0) return `${part}: a budget such as 500/10s`
    limits[key] = { limit: Number(match[1]), windowMillis: Number(match[2]) * (match[3] === "s" ? 1000 : 1) }
  }
  return limits
}

const rateLimits = Flag.String("rate-limits").pipe(
  Flag.withDescription(
    "Enforce the venue's rate limits (weights against 500 per 10 s per user and per address, 10 per second per key on " +
      "placing, cancelling and transfers, 20 failed authentications a minute per key and address), answering HTTP 429 " +
      "beyond them: on, off, or overrides such as uid=500/10s,ip=1000/10s,endpoint=10/1s,auth=20/60s,retry-after=10 " +
      "(default on)"
  ),
  Flag.withDefault("on"),
  Flag.filter((text) => typeof parseRateLimits(text) !== "string", (text) => `${parseRateLimits(text)}`)
)

const cors = Flag.String("cors").pipe(
  Flag.withDescription(
    "Answer cross-origin requests from this origin (e.g. http://localhost:5173, or * for any), for programs in a browser page (default off)"
  ),
  Flag.filter(
    (origin) => origin === "*" || /^https?:\/\/[^/\s]+$/.test(origin),
    () => "an origin such as http://localhost:5173, or *"
  ),
  Flag.optional
)

const pushFaults = Flag.String("push-faults").pipe(
  Flag.withDescription(
    "Faults of the push endpoints, comma-separated: disconnect=N, close=N, stall=N (after N data frames), dup=N, gap=N, noAck, noSnapshot, snapshotFirst, refuseAuth, storm (default none)"
  ),
  Flag.withDefault(""),
  Flag.filter((text) => typeof PushVenue.parseFaults(text) !== "string", (text) => `${PushVenue.parseFaults(text)}`)
)

const pushContinuity = Flag.ChoiceWithValue("push-continuity", [
  ["next", "next" as const],
  ["previous-end", "previousEnd" as const]
]).pipe(
  Flag.withDescription(
    "Where a depth change starts: one version after the previous one's end (next), or at it (previous-end); the venue's documents do not say, so a client should follow either (default next)"
  ),
  Flag.withDefault("next" as const)
)

/** The sandbox could not start (the port is taken, bad seeding options, ...). Reported as one line, exit code 1. */
class StartError extends Data.TaggedError("StartError")<{ readonly message: string }> {
  override readonly [Runtime.errorReported] = false
  override readonly [Runtime.errorExitCode] = 1
}

// Values of `export NAME=value` lines: bare when that is safe for a POSIX shell, single-quoted otherwise.
const shellValue = (value: string): string =>
  /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`

const exportLine = (name: string, value: string): string => `export ${name}=${shellValue(value)}`

const demoUsers = [
  { name: "alice", role: "the trader, with balances and a funding-bill history" },
  { name: "bob", role: "the market maker, with resting liquidity on BTCUSDT_SPBL and ETHUSDT_SPBL" }
] as const

const credentialLines = (prefix: string, account: TestExchange.Account): Array<string> => [
  exportLine(`${prefix}_API_KEY`, Redacted.value(account.credentials.apiKey)),
  exportLine(`${prefix}_SECRET_KEY`, Redacted.value(account.credentials.secretKey)),
  exportLine(`${prefix}_PASSPHRASE`, Redacted.value(account.credentials.passphrase))
]

// What the sandbox prints on start. The credentials are the fixed demo keys of `TestExchange.demoKeys` (test values,
// not secrets); nothing else is ever printed.
const banner = (
  options: {
    readonly seed: number
    readonly demo: boolean
    readonly bills: number
    readonly rateLimits: string
    readonly cors: Option.Option<string>
    readonly pushFaults: string
    readonly pushContinuity: "next" | "previousEnd"
  },
  baseUrl: string,
  accounts: ReadonlyArray<TestExchange.Account>
): Array<string> => {
  const lines = [
    `# ${NAME} ${version}: seed ${options.seed}, demo data ${
      options.demo ? "on" : "off"
    }, venue rate limits ${options.rateLimits}${
      Option.match(options.cors, { onNone: () => "", onSome: (origin) => `, cross-origin requests from ${origin}` })
    }`,
    exportLine("SPOTKIT_BASE_URL", baseUrl),
    `# push (WebSocket) on the same port${options.pushFaults === "" ? "" : `, faults ${options.pushFaults}`}${
      options.pushContinuity === "next" ? "" : ", depth changes starting at the previous end"
    }`,
    exportLine("SPOTKIT_PUSH_URL", baseUrl.replace(/^http/, "ws"))
  ]
  if (!options.demo) {
    lines.push("# no demo data: the exchange has its default products and no users")
  }
  demoUsers.forEach((user, index) => {
    const account = accounts[index]
    if (account === undefined) return
    const prefix = `SPOTKIT_${user.name.toUpperCase()}`
    const extra = index === 0 ? `, ${options.bills} funding bills` : ""
    lines.push(`# ${user.name}: ${user.role}${extra}`)
    if (index === 0) {
      lines.push(
        `# (SPOTKIT_API_KEY, SPOTKIT_SECRET_KEY, SPOTKIT_PASSPHRASE: SpotClient.layerConfig() acts as ${user.name})`
      )
      lines.push(...credentialLines("SPOTKIT", account))
    }
    lines.push(exportLine(`${prefix}_USER_ID`, account.userId), ...credentialLines(prefix, account))
  })
  lines.push("# serving; stop with Ctrl-C (SIGINT) or SIGTERM")
  return lines
}

const command = Command.make(
  NAME,
  { port, host, seed, demo, bills, rateLimits, cors, pushFaults, pushContinuity },
  Effect.fnUntraced(function*(options) {
    const exchangeOptions: TestExchange.Options = {
      ...(options.demo ? TestExchange.demo({ seed: options.seed, bills: options.bills }) : { seed: options.seed }),
      rateLimits: parseRateLimits(options.rateLimits) as Partial<TestExchange.RateLimits> | false
    }
    const server = PushVenue.layerSandbox({
      port: options.port,
      host: options.host,
      cors: Option.getOrUndefined(options.cors)
    }).pipe(
      Layer.provideMerge(PushVenue.layer({
        faults: PushVenue.parseFaults(options.pushFaults) as PushVenue.Faults,
        continuity: options.pushContinuity
      })),
      Layer.provideMerge(TestExchange.layer(exchangeOptions))
    )
    yield* Effect.gen(function*() {
      const sandbox = yield* Sandbox.Sandbox
      const exchange = yield* TestExchange.TestExchange
      yield* Console.log(banner(options, sandbox.baseUrl, exchange.accounts).join("\n"))
      return yield* Effect.never
    }).pipe(
      Effect.provide(server),
      Effect.mapError((error) =>
        new StartError({
          message: error instanceof Sandbox.SandboxError
            ? `cannot listen on ${options.host}:${options.port}: ${error.message}`
            : `cannot seed the exchange: ${error.message}`
        })
      ),
      Effect.tapError((error) => Console.error(`${NAME}: ${error.message}`))
    )
  })
).pipe(
  Command.withDescription(
    "Runs the spotkit test exchange as an HTTP server on loopback and prints its base URL and demo credentials"
  ),
  Command.withExamples([
    { command: `${NAME} --port 8080 --seed 7`, description: "Serve on port 8080 with seed 7" },
    { command: `${NAME} --bills 1000 --rate-limits off`, description: "A small history and no venue rate limits" },
    { command: `${NAME} --no-demo`, description: "Only the products, no users" },
    {
      command: `${NAME} --push-faults disconnect=5,gap=3`,
      description: "Drop every push connection after 5 data frames and lose one depth change in 3"
    },
    {
      command: `${NAME} --push-continuity previous-end --push-faults gap=3`,
      description:
        "Depth changes that start at the previous one's end, one in 3 lost: a book client must resync on each"
    },
    {
      command: `${NAME} --cors http://localhost:5173`,
      description: "Let a page served from http://localhost:5173 call the sandbox from the browser"
    }
  ])
)

// Bad flags: one line on stderr (no help page), exit code 2. SIGINT/SIGTERM interrupt the program after the server
// has closed: a clean stop, exit code 0.
runMain(command, { version, interrupted: 0 })
