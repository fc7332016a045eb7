/**
 * A trading command interrupted (Ctrl-C, SIGTERM) after the venue answered, while it prints the answer: a stdout
 * nobody reads (a pager, a full pipe) holds the printing up. The line on stderr says what the venue did, since the
 * answer is known; before, nothing was said at all (the interruption came after the call), though the order was placed.
 * In process against the sandbox, the stdout's write never ending, the command's fiber interrupted once it is reached.
 */
import { assert, describe, it } from "@effect/vitest"
import { TestExchange } from "@spotkit/testkit"
import { Deferred, Effect, Fiber } from "effect"
import type * as Output from "../../src/internal/output.ts"
import { aliceEnv, capture, linesOf, runInProcess, sandboxLayer, withFile } from "../support/cli.ts"

const BTC = "BTCUSDT_SPBL"

/** Runs `args` as alice with a stdout that never takes a write, interrupted once a write reached it: stderr's lines. */
const interruptedWriting = (args: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const env = yield* aliceEnv
    const reached = yield* Deferred.make<void>()
    const stdout: Output.Channel = {
      isTTY: false,
      write: () => Effect.andThen(Deferred.succeed(reached, undefined), Effect.never)
    }
    const stderr = capture(false)
    const fiber = yield* Effect.forkChild(runInProcess(args, env, { stdout, stderr: stderr.channel }))
    yield* Deferred.await(reached)
    yield* Fiber.interrupt(fiber)
    return linesOf(stderr.chunks.join(""))
  })

describe("a trading command interrupted while it prints the venue's answer", () => {
  const { layer } = sandboxLayer({ seed: 46, bills: 0 })

  it.layer(layer, { excludeTestServices: true })("in process, against the sandbox", (it) => {
    it.effect("orders place: the order was placed, named by its orderId and clientOrderId", () =>
      Effect.gen(function*() {
        const exchange = yield* TestExchange.TestExchange
        const lines = yield* interruptedWriting([
          "orders",
          "place",
          "--symbol",
          BTC,
          "--side",
          "buy",
          "--type",
          "limit",
          "--price",
          "100",
          "--quantity",
          "1",
          "--client-order-id",
          "blocked-1"
        ])
        const order = exchange.engine.orderByClientId(exchange.accounts[0]!.userId, "blocked-1")
        assert.isDefined(order)
        assert.deepStrictEqual(lines, [
          `spotkit: interrupted while writing the result: the order was placed (orderId ${order!.orderId}, ` +
          "clientOrderId blocked-1)"
        ])
      }))

    it.effect("orders batch: the venue answered the batch; the line says how many and how to see them", () =>
      withFile(
        `{"side":"buy","orderType":"limit","price":"101","quantity":"1","clientOrderId":"blocked-b1"}\n`,
        (path) =>
          Effect.gen(function*() {
            const lines = yield* interruptedWriting(["orders", "batch", "--symbol", BTC, "--file", path])
            assert.strictEqual(lines.length, 1, lines.join("\n"))
            assert.match(
              lines[0]!,
              /^spotkit: interrupted while writing the outcomes: the venue answered the batch \(placed 1 of 1\); check with `spotkit orders history --symbol BTCUSDT_SPBL --since \d+`$/
            )
          })
      ))

    it.effect("orders cancel: the venue's answer, and how to see what is still open", () =>
      Effect.gen(function*() {
        const exchange = yield* TestExchange.TestExchange
        const env = yield* aliceEnv
        const placed = yield* runInProcess(
          ["orders", "place", "--symbol", BTC, "--side", "buy", "--type", "limit", "--price", "102", "--quantity", "1"],
          env
        )
        assert.strictEqual(placed.exitCode, 0, placed.stderr)
        const orderId = /^placed (\d+) /.exec(placed.stdout)![1]!
        const lines = yield* interruptedWriting(["orders", "cancel", "--symbol", BTC, "--order-id", orderId])
        assert.deepStrictEqual(lines, [
          "spotkit: interrupted while writing the outcomes: the venue answered (cancelled 1 of 1, 0 already final, " +
          "0 unknown, 0 failed); check with `spotkit orders open --symbol BTCUSDT_SPBL`"
        ])
        assert.strictEqual(exchange.engine.order(orderId)?.status, "cancelled")
      }))

    it.effect("transfer: the transfer was made, named by its id", () =>
      Effect.gen(function*() {
        const exchange = yield* TestExchange.TestExchange
        const bob = exchange.accounts[1]!.userId
        const lines = yield* interruptedWriting([
          "transfer",
          "--to-user",
          bob,
          "--coin",
          "USDT",
          "--amount",
          "1.5",
          "--from-account",
          "SPOT",
          "--to-account",
          "FUND"
        ])
        assert.strictEqual(lines.length, 1, lines.join("\n"))
        const id = /^spotkit: interrupted while writing the result: the transfer was made \(id (\d+)\)$/.exec(lines[0]!)
        assert.isNotNull(id, lines[0])
      }))
  })
})

describe("the command a line names, on a machine whose clock is minutes ahead of the venue's", () => {
  // The client stamps its requests with the venue's time, so such a machine trades as any other: the `--since` the
  // line names must reach back past the venue's time of the order (before, a minute: the order was not listed).
  const { layer } = sandboxLayer({ seed: 47, bills: 0, venueBehindMillis: 5 * 60_000 })

  it.layer(layer, { excludeTestServices: true })("in process, against the sandbox", (it) => {
    it.effect("orders batch: `orders history --since` lists the order placed", () =>
      withFile(
        `{"side":"buy","orderType":"limit","price":"103","quantity":"1","clientOrderId":"skewed-b1"}\n`,
        (path) =>
          Effect.gen(function*() {
            const env = yield* aliceEnv
            const line = (yield* interruptedWriting(["orders", "batch", "--symbol", BTC, "--file", path])).join("\n")
            const command = /check with `spotkit ([^`]+)`/.exec(line)
            assert.isNotNull(command, line)
            const history = yield* runInProcess(command![1]!.split(" ").concat(["--format", "json"]), env)
            assert.strictEqual(history.exitCode, 0, history.stderr)
            assert.deepStrictEqual(
              JSON.parse(history.stdout).map((order: { clientOrderId: string }) => order.clientOrderId),
              ["skewed-b1"]
            )
          })
      ))
  })
})
