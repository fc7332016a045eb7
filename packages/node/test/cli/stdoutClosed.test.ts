/**
 * A stdout whose reader went away (EPIPE: `spotkit ... | consumer-that-exited`). A write command still says what the
 * venue did on stderr (`sending`: the orderId, the transfer's id), exit code 0; an export still ends with its summary
 * line on stderr, exit code 0.
 */
import { assert, describe, it } from "@effect/vitest"
import { TestExchange } from "@spotkit/testkit"
import { Effect } from "effect"
import * as Output from "../../src/internal/output.ts"
import { aliceEnv, placeLimitArgs, runInProcess, sandboxLayer, transferArgs, withFile } from "../support/cli.ts"

// A stdout whose reader went away.
const closedStdout: Output.Channel = {
  isTTY: false,
  write: () => Effect.fail(new Output.OutputError({ message: "cannot write to standard output: EPIPE", code: "EPIPE" }))
}

describe("stdout's reader gone", () => {
  const { layer } = sandboxLayer({ seed: 75, bills: 300 })

  it.layer(layer, { excludeTestServices: true, timeout: "60 seconds" })("against the sandbox", (it) => {
    it.effect("orders place: the placed order is said on stderr, exit code 0", () =>
      Effect.gen(function*() {
        const run = yield* runInProcess(
          placeLimitArgs("closed-stdout"),
          yield* aliceEnv,
          { stdout: closedStdout }
        )
        const exchange = yield* TestExchange.TestExchange
        const order = exchange.engine.orderByClientId(exchange.accounts[0]!.userId, "closed-stdout")
        assert.isDefined(order)
        assert.strictEqual(run.exitCode, 0)
        assert.strictEqual(
          run.stderr,
          `spotkit: stdout was closed while writing the result: the order was placed (orderId ${
            order!.orderId
          }, clientOrderId closed-stdout)\n`
        )
      }))

    it.effect("transfer: the transfer's id is said on stderr, exit code 0", () =>
      Effect.gen(function*() {
        const exchange = yield* TestExchange.TestExchange
        const run = yield* runInProcess(
          transferArgs(exchange.accounts[1]!.userId, "5"),
          yield* aliceEnv,
          { stdout: closedStdout }
        )
        assert.strictEqual(run.exitCode, 0)
        assert.match(
          run.stderr,
          /^spotkit: stdout was closed while writing the result: the transfer was made \(id \d+\)\n$/
        )
      }))

    it.effect("orders batch: the summary once, exit code 0", () =>
      withFile(
        "{\"side\":\"buy\",\"orderType\":\"limit\",\"price\":\"27000\",\"quantity\":\"0.01\"}\n",
        (path) =>
          Effect.gen(function*() {
            const run = yield* runInProcess(
              ["orders", "batch", "--symbol", "BTCUSDT_SPBL", "--file", path],
              yield* aliceEnv,
              {
                stdout: closedStdout
              }
            )
            assert.strictEqual(run.exitCode, 0)
            assert.strictEqual(run.stderr, "spotkit: placed 1 of 1, 0 failed\n")
          })
      ))

    // README: "Every export ends with one summary line on stderr (...), whatever stderr is."
    it.effect("bills export: still a summary line on stderr, exit code 0", () =>
      Effect.gen(function*() {
        const run = yield* runInProcess(["bills", "export", "--page-size", "50"], yield* aliceEnv, {
          stdout: closedStdout
        })
        assert.strictEqual(run.exitCode, 0)
        assert.match(run.stderr, /^spotkit: stdout was closed \(its reader went away\) after 0 rows, /)
      }))
  })
})
