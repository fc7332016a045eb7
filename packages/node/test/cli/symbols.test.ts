/**
 * `spotkit symbols` (`internal/cli/symbols.ts`), in process against a sandbox on a loopback port: every symbol's
 * trading rules as the engine's product configuration gives them, one symbol with --symbol, exit code 1 for a symbol
 * the venue does not list.
 */
import { assert, describe, it } from "@effect/vitest"
import { TestExchange } from "@spotkit/testkit"
import { Effect } from "effect"
import { aliceEnv, linesOf, runInProcess, sandboxLayer } from "../support/cli.ts"

describe("symbols", () => {
  const { layer } = sandboxLayer({ seed: 37, bills: 0 })

  it.layer(layer, { excludeTestServices: true })("against the sandbox", (it) => {
    const cli = (args: ReadonlyArray<string>) => Effect.flatMap(aliceEnv, (env) => runInProcess(args, env))

    const fields = ["symbol", "baseCoin", "quoteCoin", "tickSize", "stepSize", "minTradeAmount", "maxTradeAmount"]
    const pick = (rules: Record<string, unknown>) => fields.map((field) => rules[field])

    it.effect("every symbol as JSON and as a table, equal to the engine's rules", () =>
      Effect.gen(function*() {
        const rules = yield* Effect.flatMap(
          Effect.service(TestExchange.TestExchange),
          (exchange) => exchange.symbolRules
        )
        const json = yield* cli(["symbols", "--format", "json"])
        assert.strictEqual(json.exitCode, 0, json.stderr)
        const listed: Array<Record<string, unknown>> = JSON.parse(json.stdout)
        assert.deepStrictEqual(listed.map(pick), rules.map((r) => pick({ ...r })))
        assert.deepStrictEqual(
          listed.map((r) => [r.makerFeeRate, r.takerFeeRate, r.enableTrade]),
          rules.map((r) => [r.makerFeeRate, r.takerFeeRate, r.enableTrade])
        )
        const table = yield* cli(["symbols"])
        assert.strictEqual(table.exitCode, 0, table.stderr)
        const [header, ...rows] = linesOf(table.stdout)
        assert.match(
          header!,
          /^symbol\s+base\s+quote\s+tickSize\s+stepSize\s+minQuantity\s+maxQuantity\s+makerFee\s+takerFee\s+trading$/
        )
        assert.deepStrictEqual(
          rows.map((row) => row.split(/\s+/)),
          rules.map((r) => [
            r.symbol,
            r.baseCoin,
            r.quoteCoin,
            r.tickSize,
            r.stepSize,
            r.minTradeAmount,
            r.maxTradeAmount,
            r.makerFeeRate,
            r.takerFeeRate,
            r.enableTrade ? "yes" : "no"
          ])
        )
      }))

    it.effect("--symbol: one object; a symbol the venue does not list is exit code 1, one line, no data", () =>
      Effect.gen(function*() {
        const one = yield* cli(["symbols", "--symbol", "ETHUSDT_SPBL", "--format", "json"])
        assert.strictEqual(one.exitCode, 0, one.stderr)
        const rules = JSON.parse(one.stdout)
        assert.strictEqual(rules.symbol, "ETHUSDT_SPBL")
        assert.strictEqual(rules.tickSize, "0.01")
        const missing = yield* cli(["symbols", "--symbol", "DOGEUSDT_SPBL"])
        assert.strictEqual(missing.exitCode, 1)
        assert.strictEqual(missing.stdout, "")
        assert.strictEqual(missing.stderr, "spotkit: the venue lists no symbol DOGEUSDT_SPBL\n")
        const usage = yield* cli(["symbols", "--format", "ndjson"])
        assert.strictEqual(usage.exitCode, 2)
        assert.strictEqual(usage.stdout, "")
      }))
  })
})
