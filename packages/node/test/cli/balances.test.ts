/**
 * `spotkit balances` (`internal/cli/balances.ts`), in process against a sandbox on a loopback port: the spot account
 * as the engine holds it (available, frozen, equity, exact decimals), before and after an order freezes funds, as a
 * table, as JSON and as CSV; a bad flag is exit code 2, a venue refusal exit code 1 with one line and no data.
 */
import { assert, describe, it } from "@effect/vitest"
import { TestExchange } from "@spotkit/testkit"
import { Effect } from "effect"
import { aliceEnv, linesOf, runInProcess, sandboxLayer } from "../support/cli.ts"

describe("balances", () => {
  const { layer } = sandboxLayer({ seed: 31, bills: 0 })

  it.layer(layer, { excludeTestServices: true })("against the sandbox", (it) => {
    const cli = (args: ReadonlyArray<string>, change: Record<string, string> = {}) =>
      Effect.flatMap(aliceEnv, (env) => runInProcess(args, { ...env, ...change }))

    const engineView = Effect.gen(function*() {
      const exchange = yield* TestExchange.TestExchange
      return yield* exchange.spotBalances(exchange.accounts[0]!.userId)
    })

    it.effect("JSON and the table equal the engine's spot balances; an order's funds move to frozen", () =>
      Effect.gen(function*() {
        const before = yield* cli(["balances", "--format", "json"])
        assert.strictEqual(before.exitCode, 0, before.stderr)
        assert.strictEqual(before.stderr, "")
        assert.deepStrictEqual(JSON.parse(before.stdout), yield* engineView)

        const placed = yield* cli([
          "orders",
          "place",
          "--symbol",
          "BTCUSDT_SPBL",
          "--side",
          "buy",
          "--type",
          "limit",
          "--price",
          "25000.25",
          "--quantity",
          "0.004"
        ])
        assert.strictEqual(placed.exitCode, 0, placed.stderr)
        const after = yield* cli(["balances"])
        assert.strictEqual(after.exitCode, 0, after.stderr)
        const [header, ...rows] = linesOf(after.stdout)
        assert.match(header!, /^coin\s+coinId\s+available\s+frozen\s+equity$/)
        const view = yield* engineView
        assert.strictEqual(rows.length, view.length)
        for (const balance of view) {
          assert.isTrue(
            rows.some((row) =>
              row.split(/\s+/).join(" ") ===
                [balance.coinName, balance.coinId, balance.available, balance.frozen, balance.equity].join(" ")
            ),
            `${balance.coinName} ${balance.available} ${balance.frozen}`
          )
        }
        // 0.004 × 25000.25 = 100.001 USDT held by the order, exactly.
        const usdt = (text: string) =>
          (JSON.parse(text) as Array<{ coinName: string; frozen: string }>).find((b) => b.coinName === "USDT")!
        const json = yield* cli(["balances", "--format", "json"])
        assert.strictEqual(usdt(before.stdout).frozen, "0")
        assert.strictEqual(usdt(json.stdout).frozen, "100.001")
      }))

    it.effect("--format csv: a header row and one row per coin, the same cells as JSON", () =>
      Effect.gen(function*() {
        const csv = yield* cli(["balances", "--format", "csv"])
        assert.strictEqual(csv.exitCode, 0, csv.stderr)
        assert.strictEqual(csv.stderr, "")
        const [header, ...rows] = linesOf(csv.stdout)
        assert.strictEqual(header, "coin,coinId,available,frozen,equity")
        const view = yield* engineView
        assert.deepStrictEqual(
          rows,
          view.map((b) => [b.coinName, b.coinId, b.available, b.frozen, b.equity].join(","))
        )
      }))

    it.effect("a bad --format is exit code 2; a venue refusal exit code 1, one line with its code, no data", () =>
      Effect.gen(function*() {
        const usage = yield* cli(["balances", "--format", "xml"])
        assert.strictEqual(usage.exitCode, 2)
        assert.strictEqual(usage.stdout, "")
        assert.include(usage.stderr, "--format")
        const refused = yield* cli(["balances"], { SPOTKIT_API_KEY: "nobody" })
        assert.strictEqual(refused.exitCode, 1)
        assert.strictEqual(refused.stdout, "")
        assert.strictEqual(linesOf(refused.stderr).length, 1, refused.stderr)
        assert.match(refused.stderr, /^spotkit: .*\(code \d{5}\); check SPOTKIT_API_KEY\n$/)
      }))

    it.effect("credentials the venue refuses: the line names the variable to check, and quotes none of them", () =>
      Effect.gen(function*() {
        const env = yield* aliceEnv
        const cases = [
          [{ SPOTKIT_API_KEY: "nobody-key" }, "(code 40006); check SPOTKIT_API_KEY"],
          [{ SPOTKIT_SECRET_KEY: "wrong-secret" }, "(code 40009); check SPOTKIT_SECRET_KEY"],
          [{ SPOTKIT_PASSPHRASE: "wrong-passphrase" }, "(code 40012); check SPOTKIT_PASSPHRASE (and SPOTKIT_API_KEY)"]
        ] as const
        for (const [change, said] of cases) {
          const refused = yield* runInProcess(["balances"], { ...env, ...change })
          assert.strictEqual(refused.exitCode, 1)
          assert.isTrue(refused.stderr.endsWith(`${said}\n`), refused.stderr)
          for (const secret of [...Object.values(change), env.SPOTKIT_SECRET_KEY!, env.SPOTKIT_PASSPHRASE!]) {
            assert.notInclude(refused.stderr, secret)
          }
        }
      }))
  })
})
