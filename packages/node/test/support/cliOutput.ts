// The `spotkit` CLI's output as a source for the secrets test (issue #6): the command from this package's sources,
// run as a subprocess against a sandbox whose every received ACCESS-SIGN is recorded, over commands that succeed,
// that the venue refuses, that fail on bad input, and with a wrong secret.
import { Sandbox, TestExchange } from "@spotkit/testkit"
import { Effect, Layer, Redacted } from "effect"
import { execFile } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import type { Collector } from "../../../testkit/test/support/secrets.ts"

const spotkitBin = fileURLToPath(new URL("../../src/bin/spotkit.ts", import.meta.url))

/** A secret key that is not alice's: the CLI run with it must not print it either. */
export const wrongSecret = "wrong-secret-0f1e2d3c4b5a69788796a5b4c3d2e1f0"

const run = (args: ReadonlyArray<string>, env: Record<string, string>) =>
  Effect.callback<{ readonly code: number; readonly stdout: string; readonly stderr: string }>((resume) => {
    const child = execFile(
      process.execPath,
      ["--conditions=@spotkit/source", spotkitBin, ...args],
      { env: { PATH: process.env.PATH ?? "", ...env }, timeout: 60_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) =>
        resume(Effect.succeed({ code: error === null ? 0 : Number(error.code ?? 1), stdout, stderr }))
    )
    return Effect.sync(() => child.kill())
  })

/**
 * Runs the CLI over a fresh sandbox and adds every stdout and stderr to the collector (source "cli"), and every
 * signature the sandbox received to its signatures. Answers the exit codes, in order.
 */
export const cliOutputs = (collector: Collector) => {
  const exchange = Layer.effect(
    TestExchange.TestExchange,
    Effect.map(TestExchange.make({ ...TestExchange.demo({ seed: 6_005, bills: 300 }), rateLimits: false }), (ex) => ({
      ...ex,
      handleAt: (request, now) => {
        const sign = request.header("access-sign")
        if (sign !== undefined) collector.signatures.add(sign)
        return ex.handleAt(request, now)
      }
    }))
  )
  return Effect.gen(function*() {
    const { baseUrl } = yield* Sandbox.Sandbox
    const { accounts } = yield* TestExchange.TestExchange
    const [alice, bob] = accounts
    const env = {
      SPOTKIT_BASE_URL: baseUrl,
      SPOTKIT_API_KEY: Redacted.value(alice!.credentials.apiKey),
      SPOTKIT_SECRET_KEY: Redacted.value(alice!.credentials.secretKey),
      SPOTKIT_PASSPHRASE: Redacted.value(alice!.credentials.passphrase),
      SPOTKIT_RATE_LIMIT: "off"
    }
    const batch = join(mkdtempSync(join(tmpdir(), "spotkit-secrets-")), "batch.ndjson")
    writeFileSync(
      batch,
      [
        { side: "buy", orderType: "limit", force: "normal", price: "29000", quantity: "0.01" },
        { side: "buy", orderType: "limit", force: "normal", price: "29000.123", quantity: "0.01" },
        { side: "hold", orderType: "limit", force: "normal", price: "29000", quantity: "0.01" }
      ].map((item) => JSON.stringify(item)).join("\n")
    )
    const { SPOTKIT_PASSPHRASE: _, ...withoutPassphrase } = env
    // Arguments as one line each (split on spaces: no argument here contains one).
    const args = (line: string) => line.split(" ")
    const runs: Array<readonly [ReadonlyArray<string>, Record<string, string>]> = [
      [args("--help"), env],
      [args("bills export"), env],
      [args("bills export --format ndjson --progress"), env],
      [args("orders place --symbol BTCUSDT_SPBL --side buy --type limit --price 29000 --quantity 0.01"), env],
      [args("orders place --symbol BTCUSDT_SPBL --side sell --type limit --price 40000 --quantity 100000"), env],
      [args("orders open --symbol BTCUSDT_SPBL --format json"), env],
      [[...args("orders batch --symbol BTCUSDT_SPBL --format json --file"), batch], env],
      [
        args(
          `transfer --to-user ${bob!.userId} --coin USDT --amount 5 --from-account SPOT --to-account FUND --format json`
        ),
        env
      ],
      [args("orders open --symbol BTCUSDT_SPBL"), { ...env, SPOTKIT_SECRET_KEY: wrongSecret }],
      [args("orders open --symbol BTCUSDT_SPBL"), withoutPassphrase],
      [args("orders place --symbol BTCUSDT_SPBL --side buy --type limit --price 29,000 --quantity 0.01"), env]
    ]
    const codes: Array<number> = []
    for (const [args, runEnv] of runs) {
      const result = yield* run(args, runEnv)
      collector.add("cli", [result.stdout, result.stderr])
      codes.push(result.code)
    }
    return codes
  }).pipe(Effect.provide(Sandbox.layer().pipe(Layer.provideMerge(exchange))))
}
