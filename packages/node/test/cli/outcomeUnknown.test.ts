/**
 * A write whose outcome stays unknown (`internal/cli/shared.ts` `sending`): the answer lost and the client's own
 * lookup failing too, or a transport failure of a write. The failure line names the command that tells before trying
 * again — the same clause as the Ctrl-C line of the same command — and exit code 1.
 */
import { assert, describe, it } from "@effect/vitest"
import { Fault, TestExchange } from "@spotkit/testkit"
import { Effect } from "effect"
import { aliceEnv, placeLimitArgs, runInProcess, sandboxLayer, transferArgs, withFile } from "../support/cli.ts"

describe("a write whose outcome is unknown names the command that tells", () => {
  const { layer } = sandboxLayer({ seed: 71, bills: 0 })

  it.layer(layer, { excludeTestServices: true, timeout: "120 seconds" })("against the sandbox", (it) => {
    // Runs `args` with `faults` on their paths, then clears them.
    const withFaults = (
      faults: ReadonlyArray<{ readonly fault: Fault.Fault; readonly path: string; readonly times?: number }>,
      args: ReadonlyArray<string>
    ) =>
      Effect.gen(function*() {
        const exchange = yield* TestExchange.TestExchange
        for (const fault of faults) yield* exchange.injectFault(fault)
        const run = yield* runInProcess(args, yield* aliceEnv)
        yield* exchange.clearFaults
        return run
      })

    it.effect(
      "orders place: answer lost, lookup failing: the line names `orders get --client-order-id`",
      () =>
        Effect.gen(function*() {
          const run = yield* withFaults([
            { fault: Fault.appliedLost, path: "/api/v2/trade/orders" },
            { fault: Fault.drop, path: "/api/v2/trade/orderInfo" }
          ], placeLimitArgs("unknown-1"))
          assert.strictEqual(run.exitCode, 1, run.stderr)
          assert.match(
            run.stderr,
            /^spotkit: SpotClient\.placeOrder: the request may have been applied \(clientOrderId unknown-1\): .*; it may have been placed; check with `spotkit orders get --client-order-id unknown-1` before placing it again\n$/
          )
        }),
      { timeout: 120_000 }
    )

    it.effect(
      "transfer: answer lost, lookup failing: the line names `transfer status` and says not to resend",
      () =>
        Effect.gen(function*() {
          const exchange = yield* TestExchange.TestExchange
          const run = yield* withFaults([
            { fault: Fault.appliedLost, path: "/api/v2/rebate/affiliate/internalWithdrawal", times: 1 },
            { fault: Fault.drop, path: "/api/v2/rebate/affiliate/getInternalWithdrawalStatus" }
          ], transferArgs(exchange.accounts[1]!.userId, "25"))
          assert.strictEqual(run.exitCode, 1, run.stderr)
          assert.include(run.stderr, "may have been applied")
          assert.match(
            run.stderr,
            /; the transfer may have been made; check with `spotkit transfer status --coin USDT --since \d+` and do not send it again before you know: sent again, it is a second transfer\n$/
          )
        }),
      { timeout: 120_000 }
    )

    it.effect(
      "orders cancel --all: the connection dropped: some orders may be cancelled, and how to check",
      () =>
        Effect.gen(function*() {
          const run = yield* withFaults([{ fault: Fault.drop, path: "/api/v2/trade/cancel-symbol-order" }], [
            "orders",
            "cancel",
            "--symbol",
            "BTCUSDT_SPBL",
            "--all"
          ])
          assert.strictEqual(run.exitCode, 1, run.stderr)
          assert.match(
            run.stderr,
            /^spotkit: SpotClient\.cancelAll: transport failure: .*; some or all may have been cancelled; check with `spotkit orders open --symbol BTCUSDT_SPBL`, or cancel what is left with `spotkit orders cancel --symbol BTCUSDT_SPBL --all`/
          )
        }),
      { timeout: 120_000 }
    )

    it.effect(
      "orders batch: an item that may exist points to `orders history` (a filled order is not open)",
      () =>
        withFile(
          "{\"side\":\"buy\",\"orderType\":\"market\",\"quantity\":\"10\",\"clientOrderId\":\"unknown-batch-1\"}\n",
          (path) =>
            Effect.gen(function*() {
              const run = yield* withFaults([
                { fault: Fault.appliedLost, path: "/api/v2/trade/batch-orders" },
                { fault: Fault.drop, path: "/api/v2/trade/orderInfo" },
                { fault: Fault.drop, path: "/api/v2/trade/history" }
              ], ["orders", "batch", "--symbol", "BTCUSDT_SPBL", "--file", path, "--format", "json"])
              assert.strictEqual(run.exitCode, 1, run.stderr)
              assert.match(
                run.stderr,
                /\(1 may exist: check with `spotkit orders history --symbol BTCUSDT_SPBL --since \d+` before placing them again\)/
              )
              assert.notInclude(run.stderr, "open orders")
            })
        ),
      { timeout: 120_000 }
    )
  })
})
