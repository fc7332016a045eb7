/**
 * `spotkit symbols` (`internal/cli/symbols.ts`), in process against a sandbox on a loopback port: every symbol's
 * trading rules as the engine's product configuration gives them, one symbol with --symbol, exit code 1 for a symbol
 * the venue does not list.
 */
import { assert, describe, it } from "@effect/vitest"
import { TestExchange } from "@spotkit/testkit"
import { Effect } from "effect"
import { aliceEnv, linesOf, runInProcess, sandboxLayer } from "../support/cli.ts"
import { cliEnv, hostileVenue } from "../support/hostile.ts"

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

    // A secret key of whitespace only (SPOTKIT_SECRET_KEY=" "): a public command runs with it, one that signs is
    // refused by the environment check, naming the variable in the client's words, before anything is sent.
    it.effect("a secret key of whitespace only: symbols runs, balances is refused before anything is sent", () =>
      Effect.gen(function*() {
        const exchange = yield* TestExchange.TestExchange
        const env = { ...(yield* aliceEnv), SPOTKIT_SECRET_KEY: " " }
        const symbols = yield* runInProcess(["symbols", "--symbol", "ETHUSDT_SPBL", "--format", "json"], env)
        assert.strictEqual(symbols.exitCode, 0, symbols.stderr)
        assert.strictEqual(JSON.parse(symbols.stdout).symbol, "ETHUSDT_SPBL")
        const before = (yield* exchange.requests).length
        const balances = yield* runInProcess(["balances"], env)
        assert.strictEqual(balances.exitCode, 2)
        assert.strictEqual(balances.stdout, "")
        assert.strictEqual(balances.stderr, "spotkit: SPOTKIT_SECRET_KEY is only whitespace; see spotkit --help\n")
        assert.strictEqual((yield* exchange.requests).length, before)
      }))
  })
})

// An entry of the venue's list the client could not read is left out (Market.readSymbolList): `--symbol` on it said
// "the venue lists no symbol", which is false, and hid why its orders go unchecked.
describe("symbols, an entry the client cannot read", () => {
  const rules = (symbol: string, tickSize: string) => ({
    symbol,
    baseCoin: symbol.replace(/USDT_SPBL$/, ""),
    quoteCoin: "USDT",
    tickSize,
    stepSize: "0.0001",
    minTradeAmount: "0.0001",
    maxTradeAmount: "100000",
    takerFeeRate: "0.001",
    makerFeeRate: "0.001",
    enableTrade: true
  })
  const venue = hostileVenue((_request, _body, response) => {
    response.writeHead(200, { "content-type": "application/json" })
    response.end(JSON.stringify({
      code: "00000",
      msg: "success",
      requestTime: 1743669821003,
      data: [rules("BTCUSDT_SPBL", "0.01"), rules("ETHUSDT_SPBL", "1e-40")]
    }))
  })

  it.live("--symbol on it: exit code 1, the line says the venue lists it and why it could not be read", () =>
    Effect.scoped(Effect.gen(function*() {
      const { baseUrl } = yield* venue
      const bad = yield* runInProcess(["symbols", "--symbol", "ETHUSDT_SPBL"], cliEnv(baseUrl))
      assert.strictEqual(bad.exitCode, 1, bad.stderr)
      assert.strictEqual(bad.stdout, "")
      assert.match(
        bad.stderr,
        /^spotkit: the venue lists ETHUSDT_SPBL, but its rules could not be read \(tickSize: .+\); orders on it are sent unchecked\n$/
      )
      const good = yield* runInProcess(["symbols", "--symbol", "BTCUSDT_SPBL", "--format", "json"], cliEnv(baseUrl))
      assert.strictEqual(good.exitCode, 0, good.stderr)
      assert.strictEqual(JSON.parse(good.stdout).tickSize, "0.01")
      const missing = yield* runInProcess(["symbols", "--symbol", "DOGEUSDT_SPBL"], cliEnv(baseUrl))
      assert.strictEqual(missing.stderr, "spotkit: the venue lists no symbol DOGEUSDT_SPBL\n")
    })))
})
