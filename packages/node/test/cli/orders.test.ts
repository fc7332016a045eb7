/**
 * `spotkit orders batch --file` (`internal/cli/orders.ts`), in process against a sandbox on a loopback port: the
 * items file as a JSON array or NDJSON, numbers as their exact source text, bad files (and items with a field the
 * client would drop, or another symbol) refused with exit code 2 before anything is sent. `orders place`'s refusals.
 */
import { assert, describe, it } from "@effect/vitest"
import { TestExchange } from "@spotkit/testkit"
import { Effect } from "effect"
import { tmpdir } from "node:os"
import { aliceEnv, linesOf, runInProcess, sandboxLayer, withFile } from "../support/cli.ts"

describe("orders batch --file", () => {
  const { layer } = sandboxLayer({ seed: 11, bills: 0 })

  it.layer(layer, { excludeTestServices: true })("items from a file, against the sandbox", (it) => {
    const batch = (path: string) =>
      Effect.flatMap(
        aliceEnv,
        (env) => runInProcess(["orders", "batch", "--symbol", "BTCUSDT_SPBL", "--file", path, "--format", "json"], env)
      )

    const sentBatches = Effect.map(
      Effect.flatMap(Effect.service(TestExchange.TestExchange), (exchange) => exchange.requests),
      (requests) => requests.filter((request) => request.path === "/api/v2/trade/batch-orders")
    )

    it.effect("a JSON array: numbers are sent as their exact source text", () =>
      withFile(
        `[
          {"side":"buy","orderType":"limit","force":"normal","price":29000.10,"quantity":0.0100,"clientOrderId":"arr-1"},
          {"side":"buy","orderType":"limit","force":"normal","price":"28000","quantity":"0.01","clientOrderId":"arr-2"}
        ]`,
        (path) =>
          Effect.gen(function*() {
            const before = (yield* sentBatches).length
            const run = yield* batch(path)
            assert.strictEqual(run.exitCode, 0, run.stderr)
            const result = JSON.parse(run.stdout)
            assert.strictEqual(result.placed, 2)
            assert.deepStrictEqual(result.outcomes.map((o: { clientOrderId: string }) => o.clientOrderId), [
              "arr-1",
              "arr-2"
            ])
            const sent = (yield* sentBatches).slice(before)
            assert.strictEqual(sent.length, 1)
            // 29000.10 would be "29000.1" and 0.0100 "0.01" after a trip through a JS number.
            assert.include(sent[0]!.body, "\"price\":\"29000.10\"")
            assert.include(sent[0]!.body, "\"quantity\":\"0.0100\"")
            const exchange = yield* TestExchange.TestExchange
            const order = exchange.engine.orderByClientId(exchange.accounts[0]!.userId, "arr-1")
            assert.strictEqual(order?.status, "open")
            assert.strictEqual(run.stderr, "spotkit: placed 2 of 2, 0 failed\n")
          })
      ))

    it.effect("NDJSON with blank lines and CRLF: one item per non-blank line", () =>
      withFile(
        [
          "",
          "{\"side\":\"buy\",\"orderType\":\"limit\",\"price\":\"27000\",\"quantity\":\"0.01\",\"clientOrderId\":\"nd-1\"}",
          "",
          "   ",
          "{\"side\":\"buy\",\"orderType\":\"limit\",\"price\":27001.5,\"quantity\":0.01,\"clientOrderId\":\"nd-2\"}\r",
          "{\"side\":\"sell\",\"orderType\":\"market\",\"quantity\":0.001,\"clientOrderId\":\"nd-3\"}",
          "",
          ""
        ].join("\n"),
        (path) =>
          Effect.gen(function*() {
            const run = yield* batch(path)
            assert.strictEqual(run.exitCode, 0, run.stderr)
            const result = JSON.parse(run.stdout)
            assert.deepStrictEqual(
              result.outcomes.map((o: { _tag: string; clientOrderId: string }) => `${o._tag} ${o.clientOrderId}`),
              ["Placed nd-1", "Placed nd-2", "Placed nd-3"]
            )
            const exchange = yield* TestExchange.TestExchange
            const alice = exchange.accounts[0]!.userId
            assert.strictEqual(exchange.engine.orderByClientId(alice, "nd-2")?.price, "27001.50")
            assert.strictEqual(exchange.engine.orderByClientId(alice, "nd-3")?.status, "full_fill")
          })
      ))

    const refused: ReadonlyArray<readonly [string, string, string]> = [
      ["a JSON array cut short", "[{\"side\":\"buy\"", "not valid JSON"],
      ["a bad NDJSON line", "{\"side\":\"buy\"}\n\n{side: buy}\n", "line 3 is not valid JSON"],
      ["an empty file", "\n  \n", "no items"],
      ["an empty array", "[]", "no items"],
      // Fields the client's schema would drop without a word, the order then placed as something else than written.
      [
        "an item naming another symbol",
        "{\"symbol\":\"ETHUSDT_SPBL\",\"side\":\"buy\",\"orderType\":\"limit\",\"price\":\"2000.00\"," +
        "\"quantity\":\"0.01\",\"clientOrderId\":\"eth-bid\"}\n",
        "line 1: its symbol \"ETHUSDT_SPBL\" is not --symbol BTCUSDT_SPBL"
      ],
      [
        "a misspelt field",
        "[{\"side\":\"buy\",\"orderType\":\"limit\",\"price\":\"28000\",\"quantity\":\"0.01\"}," +
        "{\"side\":\"buy\",\"orderType\":\"limit\",\"price\":\"28000\",\"quantity\":\"0.01\",\"clientOrderID\":\"x\"}]",
        "item 2: unknown field \"clientOrderID\""
      ],
      [
        "a field of another API",
        "\n{\"side\":\"buy\",\"orderType\":\"limit\",\"price\":\"28000\",\"quantity\":\"0.01\",\"timeInForce\":\"ioc\"}\n",
        "line 2: unknown field \"timeInForce\""
      ]
    ]
    for (const [name, content, message] of refused) {
      it.effect(`${name}: exit code 2, one line on stderr, nothing sent`, () =>
        withFile(content, (path) =>
          Effect.gen(function*() {
            const before = (yield* sentBatches).length
            const run = yield* batch(path)
            assert.strictEqual(run.exitCode, 2)
            assert.strictEqual(run.stdout, "")
            const lines = linesOf(run.stderr)
            assert.strictEqual(lines.length, 1, run.stderr)
            assert.include(lines[0], `--file ${path}: ${message}`)
            assert.strictEqual((yield* sentBatches).length, before)
          })))
    }

    it.effect("an item whose symbol is --symbol is placed", () =>
      withFile(
        "{\"symbol\":\"BTCUSDT_SPBL\",\"side\":\"buy\",\"orderType\":\"limit\",\"price\":\"26000\"," +
          "\"quantity\":\"0.01\",\"clientOrderId\":\"same-symbol\"}\n",
        (path) =>
          Effect.gen(function*() {
            const run = yield* batch(path)
            assert.strictEqual(run.exitCode, 0, run.stderr)
            const exchange = yield* TestExchange.TestExchange
            const order = exchange.engine.orderByClientId(exchange.accounts[0]!.userId, "same-symbol")
            assert.strictEqual(order?.symbol, "BTCUSDT_SPBL")
          })
      ))

    it.effect("a file that cannot be read: exit code 2 naming it and saying why", () =>
      Effect.gen(function*() {
        const missing = yield* batch("/nonexistent/spotkit-items.json")
        assert.strictEqual(missing.exitCode, 2)
        assert.include(missing.stderr, "--file: cannot read /nonexistent/spotkit-items.json: no such file")
        const directory = yield* batch(tmpdir())
        assert.strictEqual(directory.exitCode, 2)
        assert.include(directory.stderr, `--file: cannot read ${tmpdir()}: not a readable file (a directory?)`)
      }))
  })
})

describe("orders place", () => {
  const { layer } = sandboxLayer({ seed: 74, bills: 0 })

  it.layer(layer, { excludeTestServices: true })("against the sandbox", (it) => {
    it.effect("--type market with --price: exit code 2 before sending, nothing placed", () =>
      Effect.gen(function*() {
        const run = yield* runInProcess([
          "orders",
          "place",
          "--symbol",
          "BTCUSDT_SPBL",
          "--side",
          "sell",
          "--type",
          "market",
          "--price",
          "99999",
          "--quantity",
          "0.001",
          "--client-order-id",
          "market-with-price"
        ], yield* aliceEnv)
        assert.strictEqual(run.exitCode, 2, run.stderr)
        assert.strictEqual(run.stdout, "")
        assert.strictEqual(
          run.stderr,
          "spotkit: --price is for limit orders: a market order fills at the book's prices whatever --price says; " +
            "use --type limit for a price, or leave --price out\n"
        )
        const exchange = yield* TestExchange.TestExchange
        // Without the check it was a market sell, filled at the best bid.
        assert.isUndefined(exchange.engine.orderByClientId(exchange.accounts[0]!.userId, "market-with-price"))
        assert.isFalse((yield* exchange.requests).some((request) => request.path === "/api/v2/trade/orders"))
      }))
  })
})
