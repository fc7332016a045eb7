/**
 * Running an example as a user runs it: a real `node` process configured from the environment (alice's credentials
 * of the sandbox in scope, venue rate limits off on the client's side too), answering its exit code and output.
 */
import { Sandbox, TestExchange } from "@spotkit/testkit"
import { Effect, Redacted } from "effect"
import { execFile } from "node:child_process"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

export const examplesDir = fileURLToPath(new URL("..", import.meta.url))

/** Runs `examples/<file>` with alice's credentials, plus `env`. */
export const runExample = (file: string, args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const { baseUrl } = yield* Sandbox.Sandbox
    const exchange = yield* TestExchange.TestExchange
    const { credentials } = exchange.accounts[0]!
    const childEnv = {
      ...process.env,
      SPOTKIT_BASE_URL: baseUrl,
      SPOTKIT_API_KEY: Redacted.value(credentials.apiKey),
      SPOTKIT_SECRET_KEY: Redacted.value(credentials.secretKey),
      SPOTKIT_PASSPHRASE: Redacted.value(credentials.passphrase),
      SPOTKIT_RATE_LIMIT: "off",
      ...env
    }
    return yield* Effect.callback<{ readonly code: number; readonly stdout: string; readonly stderr: string }>(
      (resume) => {
        const child = execFile(
          process.execPath,
          ["--conditions=@spotkit/source", join(examplesDir, file), ...args],
          { env: childEnv, cwd: examplesDir, timeout: 60_000 },
          (error, stdout, stderr) =>
            resume(Effect.succeed({ code: error === null ? 0 : Number(error.code ?? 1), stdout, stderr }))
        )
        return Effect.sync(() => child.kill())
      }
    )
  })
