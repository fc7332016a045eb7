/**
 * `spotkit orders get` and `orders history` (`internal/cli/orderState.ts`), in process against a sandbox on a loopback
 * port: an order by orderId or clientOrderId whatever its status (open, partly filled, filled, cancelled), exit code
 * 1 when the venue knows none; the history of a symbol equal to the engine's, newest first, as a table, JSON and
 * NDJSON, with --since inclusive and --until exclusive; bad usage exit code 2 with nothing sent.
 */
import { assert, describe, it } from "@effect/vitest"
import { Engine, TestExchange } from "@spotkit/testkit"
import { Effect } from "effect"
import { aliceEnv, linesOf, runInProcess, sandboxLayer } from "../support/cli.ts"

const SYMBOL = "ETHUSDT_SPBL"

describe("orders get and orders history", () => {
  const { layer } = sandboxLayer({ seed: 23, bills: 0 })

  it.layer(layer, { excludeTestServices: true })("against the sandbox", (it) => {
    const cli = (args: ReadonlyArray<string>, change: Record<string, string> = {}) =>
      Effect.flatMap(aliceEnv, (env) => runInProcess(args, { ...env, ...change }))

    const requestsTo = (path: string) =>
      Effect.map(
        Effect.flatMap(Effect.service(TestExchange.TestExchange), (exchange) => exchange.requests),
        (requests) => requests.filter((request) => request.path === path).length
      )

    // alice's orders on the symbol, placed once for the tests that need them: one resting, one filled at once, one
    // partly filled (it takes bob's best ask and rests), one cancelled. Placed through the CLI, with clientOrderIds.
    let placed = false
    const setUp = Effect.gen(function*() {
      const exchange = yield* TestExchange.TestExchange
      const alice = exchange.accounts[0]!.userId
      const order = (id: string) => exchange.engine.orderByClientId(alice, id)!
      if (placed) return order
      placed = true
      const place = (id: string, ...args: Array<string>) =>
        cli(["orders", "place", "--symbol", SYMBOL, "--client-order-id", id, ...args])
      for (
        const run of [
          yield* place("st-rest", "--side", "buy", "--type", "limit", "--price", "1500", "--quantity", "0.5"),
          yield* place("st-market", "--side", "sell", "--type", "market", "--quantity", "0.25"),
          // bob's best ask is 5 ETH at 2000.50: 7 at 2000.50 fills 5 and rests 2.
          yield* place("st-partial", "--side", "buy", "--type", "limit", "--price", "2000.50", "--quantity", "7"),
          yield* place("st-cancel", "--side", "buy", "--type", "limit", "--price", "1400", "--quantity", "0.5")
        ]
      ) assert.strictEqual(run.exitCode, 0, run.stderr)
      yield* exchange.cancelOrder(alice, { clientOrderId: "st-cancel" })
      return order
    })

    it.effect("orders get: each status, by orderId and by clientOrderId, as the engine holds it", () =>
      Effect.gen(function*() {
        const order = yield* setUp
        const expected = {
          "st-rest": "open",
          "st-partial": "partial_fill",
          "st-market": "full_fill",
          "st-cancel": "cancelled"
        } as const
        for (const [id, status] of Object.entries(expected)) {
          const held = order(id)
          assert.strictEqual(Engine.venueStatus(held), status, id)
          const byClientId = yield* cli(["orders", "get", "--client-order-id", id, "--format", "json"])
          const byOrderId = yield* cli(["orders", "get", "--order-id", held.orderId, "--format", "json"])
          for (const run of [byClientId, byOrderId]) {
            assert.strictEqual(run.exitCode, 0, run.stderr)
            assert.strictEqual(run.stderr, "")
          }
          assert.strictEqual(byClientId.stdout, byOrderId.stdout)
          const got = JSON.parse(byOrderId.stdout)
          assert.strictEqual(got.status, status)
          assert.strictEqual(got.orderId, held.orderId)
          assert.strictEqual(got.clientOrderId, id)
          assert.strictEqual(got.fillQuantity, held.fillQuantity)
          assert.strictEqual(got.fillTotalAmount, held.fillTotalAmount)
          assert.strictEqual(got.price, held.price)
        }
        const table = yield* cli(["orders", "get", "--client-order-id", "st-partial"])
        assert.strictEqual(table.exitCode, 0, table.stderr)
        const [header, row] = linesOf(table.stdout)
        assert.match(header!, /^orderId\s+clientOrderId\s+side\s+type\s+price\s+quantity\s+filled\s+status\s+cTime$/)
        assert.match(
          row!,
          new RegExp(`^${order("st-partial").orderId}\\s+st-partial\\s+buy\\s+limit\\s+.*partial_fill`)
        )
      }))

    it.effect("orders get of an order the venue does not know: exit code 1, one line, nothing on stdout", () =>
      Effect.gen(function*() {
        const byClientId = yield* cli(["orders", "get", "--client-order-id", "never-placed"])
        const byOrderId = yield* cli(["orders", "get", "--order-id", "1999999999999999999"])
        for (const run of [byClientId, byOrderId]) {
          assert.strictEqual(run.exitCode, 1, run.stderr)
          assert.strictEqual(run.stdout, "")
        }
        assert.strictEqual(byClientId.stderr, "spotkit: no order with clientOrderId never-placed\n")
        assert.strictEqual(byOrderId.stderr, "spotkit: no order with orderId 1999999999999999999\n")
      }))

    it.effect("orders get: bad usage is exit code 2 with nothing sent; a venue refusal exit code 1", () =>
      Effect.gen(function*() {
        const before = yield* requestsTo("/api/v2/trade/orderInfo")
        const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
          [[], "--order-id or --client-order-id"],
          [["--order-id", "1", "--client-order-id", "a"], "not both"],
          [["--order-id", "12ab"], "orderId"],
          [["--client-order-id", "has space"], "clientOrderId"],
          [["--order-id", "1", "--format", "ndjson"], "--format"]
        ]
        for (const [args, mentions] of cases) {
          const run = yield* cli(["orders", "get", ...args])
          assert.strictEqual(run.exitCode, 2, `${args.join(" ")}: ${run.stderr}`)
          assert.strictEqual(run.stdout, "")
          assert.strictEqual(linesOf(run.stderr).length, 1, run.stderr)
          assert.include(run.stderr, mentions)
        }
        assert.strictEqual(yield* requestsTo("/api/v2/trade/orderInfo"), before)
        const refused = yield* cli(["orders", "get", "--order-id", "1"], { SPOTKIT_PASSPHRASE: "wrong" })
        assert.strictEqual(refused.exitCode, 1)
        assert.strictEqual(refused.stdout, "")
        assert.match(refused.stderr, /^spotkit: .*\(code 40012\); check SPOTKIT_PASSPHRASE \(and SPOTKIT_API_KEY\)\n$/)
      }))

    it.effect("orders history: every order of the symbol, newest first, equal to the engine's in each format", () =>
      Effect.gen(function*() {
        yield* setUp
        const exchange = yield* TestExchange.TestExchange
        const alice = exchange.accounts[0]!.userId
        const held = exchange.engine.orderList(alice).filter((o) => o.symbol === SYMBOL).slice().sort((a, b) =>
          Number(b.cTime) - Number(a.cTime) || (BigInt(b.orderId) > BigInt(a.orderId) ? 1 : -1)
        )
        assert.strictEqual(held.length, 4)
        const history = (format: string) =>
          cli(["orders", "history", "--symbol", SYMBOL, "--format", format, "--page-size", "3"])
        const [table, json, ndjson] = [yield* history("table"), yield* history("json"), yield* history("ndjson")]
        for (const run of [table, json, ndjson]) assert.strictEqual(run.exitCode, 0, run.stderr)
        const fromJson: Array<{ orderId: string; status: string; cTime: number }> = JSON.parse(json.stdout)
        assert.deepStrictEqual(fromJson.map((o) => o.orderId), held.map((o) => o.orderId))
        assert.deepStrictEqual(fromJson.map((o) => o.status), held.map((o) => Engine.venueStatus(o)))
        assert.deepStrictEqual(linesOf(ndjson.stdout).map((line) => JSON.parse(line)), fromJson)
        const rows = linesOf(table.stdout)
        assert.strictEqual(rows.length, held.length + 1)
        held.forEach((o, i) => assert.isTrue(rows[i + 1]!.startsWith(o.orderId), rows[i + 1]))
      }))

    it.effect("orders history --since (inclusive) and --until (exclusive) at the times of real orders", () =>
      Effect.gen(function*() {
        yield* setUp
        const all = JSON.parse(
          (yield* cli(["orders", "history", "--symbol", SYMBOL, "--format", "json"])).stdout
        ) as Array<{ orderId: string; cTime: number }>
        const times = [...new Set(all.map((o) => o.cTime))].sort((a, b) => a - b)
        assert.isAtLeast(times.length, 3)
        const since = times[1]!
        const until = times[times.length - 1]!
        const run = yield* cli([
          "orders",
          "history",
          "--symbol",
          SYMBOL,
          "--since",
          String(since),
          "--until",
          new Date(until).toISOString(),
          "--format",
          "ndjson"
        ])
        assert.strictEqual(run.exitCode, 0, run.stderr)
        const got = linesOf(run.stdout).map((line) => JSON.parse(line) as { orderId: string })
        assert.deepStrictEqual(
          got.map((o) => o.orderId),
          all.filter((o) => o.cTime >= since && o.cTime < until).map((o) => o.orderId)
        )
      }))

    it.effect("orders history: bad flags are exit code 2 with nothing sent", () =>
      Effect.gen(function*() {
        const before = yield* requestsTo("/api/v2/trade/history")
        const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
          [["--since", "yesterday"], "--since"],
          [["--since", "2024-06-01", "--until", "2024-05-01"], "--until"],
          [["--page-size", "101"], "--page-size"],
          [["--until", "2024-05-01T00:00:00"], "no time zone"]
        ]
        for (const [args, mentions] of cases) {
          const run = yield* cli(["orders", "history", "--symbol", SYMBOL, ...args])
          assert.strictEqual(run.exitCode, 2, `${args.join(" ")}: ${run.stderr}`)
          assert.strictEqual(run.stdout, "")
          assert.strictEqual(linesOf(run.stderr).length, 1)
          assert.include(run.stderr, mentions)
        }
        assert.strictEqual(yield* requestsTo("/api/v2/trade/history"), before)
      }))
  })
})
