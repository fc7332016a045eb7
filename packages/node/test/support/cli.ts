/**
 * Helpers of the CLI tests: a seeded sandbox on a real loopback port, the environment that makes the CLI act as
 * alice on it, the CLI run in process (with stdout and stderr captured), and the built CLI run as a subprocess.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Sandbox, TestExchange } from "@spotkit/testkit"
import { Clock, ConfigProvider, Effect, FileSystem, Layer, Redacted, Stream } from "effect"
import { Command } from "effect/cli"
import { ChildProcess } from "effect/process"
import type { ChildProcessSpawner } from "effect/process"
import { fileURLToPath } from "node:url"
import * as Cli from "../../src/Cli.ts"
import * as CliRuntime from "../../src/CliRuntime.ts"
import * as Output from "../../src/internal/output.ts"

export const packageDir = fileURLToPath(new URL("../..", import.meta.url))

/** The built CLI (see `test/globalSetup.ts`). */
export const builtCli = fileURLToPath(new URL("../../dist/bin/spotkit.js", import.meta.url))

/**
 * A demo exchange (alice with `bills` funding bills, bob with resting liquidity), venue rate limits off, served on
 * a free loopback port. Every `ACCESS-SIGN` header that reaches it is kept in `signatures`. `rewrite` changes the
 * body of each answer (a hostile venue: what it sends is its choice); `retryAfterSeconds` gives every 429 a
 * `Retry-After`.
 */
export const sandboxLayer = (options: {
  readonly seed: number
  readonly bills: number
  readonly rewrite?: ((path: string, body: string) => string) | undefined
  /** The `Retry-After` of every 429 (an injected one too). */
  readonly retryAfterSeconds?: number | undefined
  /** How far the venue's clock is behind this machine's (ms). */
  readonly venueBehindMillis?: number | undefined
}) => {
  const signatures: Array<string> = []
  const { retryAfterSeconds } = options
  const rewrite = (path: string, body: string) => options.rewrite === undefined ? body : options.rewrite(path, body)
  const exchange = Layer.effect(
    TestExchange.TestExchange,
    Effect.map(TestExchange.make({ ...TestExchange.demo(options), rateLimits: false }), (exchange) => ({
      ...exchange,
      handleAt: (request, now) => {
        const sign = request.header("access-sign")
        if (sign !== undefined) signatures.push(sign)
        const outcome = exchange.handleAt(request, now)
        if (outcome._tag !== "Respond") return outcome
        const headers = outcome.status === 429 && retryAfterSeconds !== undefined
          ? { ...outcome.headers, "retry-after": String(retryAfterSeconds) }
          : outcome.headers
        return { ...outcome, body: rewrite(request.path, outcome.body), headers }
      }
    }))
  )
  const behind = options.venueBehindMillis ?? 0
  // The venue's clock, for everything it dates (its seeding, its answers): this machine's, `behind` late.
  const venueClock = Layer.effect(
    Clock.Clock,
    Clock.clockWith((clock) =>
      Effect.succeed<Clock.Clock>({
        ...clock,
        currentTimeMillisUnsafe: () => clock.currentTimeMillisUnsafe() - behind,
        currentTimeMillis: Effect.sync(() => clock.currentTimeMillisUnsafe() - behind),
        currentTimeNanosUnsafe: () => clock.currentTimeNanosUnsafe() - BigInt(behind) * 1_000_000n,
        currentTimeNanos: Effect.sync(() => clock.currentTimeNanosUnsafe() - BigInt(behind) * 1_000_000n)
      })
    )
  )
  const sandbox = Sandbox.layer().pipe(Layer.provideMerge(exchange))
  return { signatures, layer: behind === 0 ? sandbox : sandbox.pipe(Layer.provide(venueClock)) }
}

/** alice's environment for the CLI: credentials, the sandbox's URL, client-side rate limits off. */
export const aliceEnv = Effect.gen(function*() {
  const exchange = yield* TestExchange.TestExchange
  const sandbox = yield* Sandbox.Sandbox
  const { apiKey, passphrase, secretKey } = exchange.accounts[0]!.credentials
  return {
    SPOTKIT_BASE_URL: sandbox.baseUrl,
    SPOTKIT_API_KEY: Redacted.value(apiKey),
    SPOTKIT_SECRET_KEY: Redacted.value(secretKey),
    SPOTKIT_PASSPHRASE: Redacted.value(passphrase),
    SPOTKIT_RATE_LIMIT: "off"
  } as Record<string, string>
})

/** The secret parts of alice's credentials (the API key is sent in clear on every request: not a secret). */
export const secretsOf = (env: Record<string, string>) => [env.SPOTKIT_SECRET_KEY!, env.SPOTKIT_PASSPHRASE!]

export interface Run {
  readonly args: ReadonlyArray<string>
  readonly exitCode: number
  readonly stdout: string
  readonly stderr: string
}

/** A channel that keeps what is written to it, in `chunks`. */
export const capture = (isTTY: boolean) => {
  const chunks: Array<string> = []
  const channel: Output.Channel = { isTTY, write: (text) => Effect.sync(() => void chunks.push(text)) }
  return { chunks, channel }
}

/**
 * Runs the command tree in this process, with `env` as its configuration and stdout and stderr captured (neither a
 * terminal).
 */
export const runInProcess = (
  args: ReadonlyArray<string>,
  env: Record<string, string>,
  options: { readonly stdout?: Output.Channel | undefined; readonly stderr?: Output.Channel | undefined } = {}
) =>
  Effect.gen(function*() {
    const stdout = capture(false)
    const stderr = capture(false)
    const output = Layer.succeed(
      Output.Output,
      Output.make({
        stdout: options.stdout ?? stdout.channel,
        stderr: options.stderr ?? stderr.channel
      })
    )
    const exit = yield* Command.runWith(Cli.command, { version: "0.0.0-test" })(args).pipe(
      Effect.provide(Layer.mergeAll(
        NodeServices.layer,
        Layer.provideMerge(Cli.layerPresenter, output),
        ConfigProvider.layer(ConfigProvider.fromEnvRecord(env))
      )),
      Effect.exit
    )
    // The exit code `bin/spotkit.ts` gives it (130 for an interrupt: no signal here).
    const exitCode = CliRuntime.exitCode(exit, { interrupted: 130 })
    return { args, exitCode, stdout: stdout.chunks.join(""), stderr: stderr.chunks.join(""), exit }
  })

const text = (stream: ChildProcessSpawner.ChildProcessHandle["stdout"]) => Stream.mkString(Stream.decodeText(stream))

/** Starts the built CLI in the current scope (killed when it closes), with exactly `env` plus PATH. */
export const spawn = (args: ReadonlyArray<string>, env: Record<string, string>) =>
  ChildProcess.make(process.execPath, [builtCli, ...args], {
    cwd: packageDir,
    env: { PATH: process.env.PATH ?? "", ...env },
    extendEnv: false
  })

/** Runs the built CLI to its end: exit code, stdout and stderr. */
export const runBuilt = (args: ReadonlyArray<string>, env: Record<string, string>) =>
  Effect.scoped(Effect.gen(function*() {
    const handle = yield* spawn(args, env)
    const [stdout, stderr] = yield* Effect.all([text(handle.stdout), text(handle.stderr)], { concurrency: 2 })
    const exitCode = Number(yield* handle.exitCode)
    return { args, exitCode, stdout, stderr } satisfies Run
  })).pipe(Effect.timeout("50 seconds"), Effect.provide(NodeServices.layer))

export { text as decodeAll }

/** The lines of a text, without the empty one after its final newline. */
export const linesOf = (text: string): Array<string> => {
  const lines = text.split("\n")
  if (lines.at(-1) === "") lines.pop()
  return lines
}

/** Runs `use` with the path of a file holding `content`, in a temporary directory removed afterwards. */
export const withFile = <A, E, R>(content: string, use: (path: string) => Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const dir = yield* fs.makeTempDirectoryScoped({ prefix: "spotkit-file-" })
    const path = `${dir}/file`
    yield* fs.writeFileString(path, content)
    return yield* use(path)
  }).pipe(Effect.scoped, Effect.provide(NodeServices.layer))

/** `orders place` of a limit buy of BTCUSDT_SPBL, at 29000 for 0.01 unless given, under `clientOrderId`. */
export const placeLimitArgs = (
  clientOrderId: string,
  { price = "29000", quantity = "0.01" }: { readonly price?: string; readonly quantity?: string } = {}
): ReadonlyArray<string> => [
  "orders",
  "place",
  "--symbol",
  "BTCUSDT_SPBL",
  "--side",
  "buy",
  "--type",
  "limit",
  "--price",
  price,
  "--quantity",
  quantity,
  "--client-order-id",
  clientOrderId
]

/** `transfer` of `amount` USDT from the spot account to `toUser`'s funding account. */
export const transferArgs = (toUser: string, amount: string): ReadonlyArray<string> => [
  "transfer",
  "--to-user",
  toUser,
  "--coin",
  "USDT",
  "--amount",
  amount,
  "--from-account",
  "SPOT",
  "--to-account",
  "FUND"
]
