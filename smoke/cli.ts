/**
 * The smoke program from a command line, on any runtime with `process.env` (Node, Bun, Deno 2):
 *
 *   bun cli.ts bun        deno run --allow-net=127.0.0.1 --allow-env cli.ts deno        node cli.ts node
 *
 * configured by the sandbox's `SPOTKIT_*` lines (alice's keys, bob's user id). Prints one JSON line (the report) and
 * exits 0, or prints the failure and exits 1.
 */
import { Cause, Effect, Exit } from "effect"
import { program } from "./smoke.ts"

const variable = (name: string): string => {
  const value = process.env[name]
  if (value === undefined || value === "") throw new Error(`${name} is not set`)
  return value
}

const runtime = process.argv[2] ?? "node"
const config = {
  baseUrl: variable("SPOTKIT_BASE_URL"),
  apiKey: variable("SPOTKIT_API_KEY"),
  secretKey: variable("SPOTKIT_SECRET_KEY"),
  passphrase: variable("SPOTKIT_PASSPHRASE"),
  toUserId: variable("SPOTKIT_BOB_USER_ID")
}

void Effect.runPromiseExit(program(config, runtime)).then((exit) => {
  if (Exit.isSuccess(exit)) {
    process.stdout.write(JSON.stringify(exit.value) + "\n")
    process.exit(0)
  }
  process.stderr.write(`smoke (${runtime}) failed: ${Cause.pretty(exit.cause)}\n`)
  process.exit(1)
})
