/**
 * `spotkit orders cancel` (`internal/cli/cancel.ts`), in process against a sandbox on a loopback port: one order by
 * orderId or clientOrderId, every open order of a symbol (`--all`), the orders of a file (ids one a line or a JSON
 * array, more than one request's worth) with one outcome per id in input order; exit code 0 when every order is
 * cancelled or already final, 1 when any is unknown or failed, 2 for bad usage with nothing sent.
 */
import { assert, describe, it } from "@effect/vitest"
import { Fault, TestExchange } from "@spotkit/testkit"
import { Effect } from "effect"
import { aliceEnv, linesOf, runInProcess, sandboxLayer, withFile } from "../support/cli.ts"

const SYMBOL = "BTCUSDT_SPBL"

describe("orders cancel", () => {
  const { layer } = sandboxLayer({ seed: 21, bills: 0 })

  it.layer(layer, { excludeTestServices: true })("against the sandbox", (it) => {
    const cancel = (args: ReadonlyArray<string>, change: Record<string, string> = {}) =>
      Effect.flatMap(aliceEnv, (env) => runInProcess(["orders", "cancel", ...args], { ...env, ...change }))

    /** Resting bids of alice, placed straight on the engine: their orderIds, in order. */
    const rest = (prefix: string, count: number, symbol = SYMBOL) =>
      Effect.gen(function*() {
        const exchange = yield* TestExchange.TestExchange
        const alice = exchange.accounts[0]!.userId
        const ids: Array<string> = []
        for (let i = 0; i < count; i++) {
          const placed = yield* exchange.placeOrder(alice, {
            symbol,
            side: "buy",
            orderType: "limit",
            force: "normal",
            price: symbol === SYMBOL ? String(20000 + i) : String(1000 + i),
            quantity: symbol === SYMBOL ? "0.001" : "0.01",
            clientOrderId: `${prefix}-${i}`
          })
          assert.isTrue(placed.ok)
          if (placed.ok) ids.push(placed.orderId)
        }
        return ids
      })

    const statusOf = (orderId: string) =>
      Effect.map(Effect.service(TestExchange.TestExchange), (exchange) => exchange.engine.order(orderId)?.status)

    const cancelRequests = Effect.map(
      Effect.flatMap(Effect.service(TestExchange.TestExchange), (exchange) => exchange.requests),
      (requests) => requests.filter((request) => request.path.startsWith("/api/v2/trade/cancel"))
    )

    it.effect("one order by orderId, then by clientOrderId: cancelled, then final; exit code 0 both times", () =>
      Effect.gen(function*() {
        const exchange = yield* TestExchange.TestExchange
        const alice = exchange.accounts[0]!.userId
        const usdt = () => exchange.engine.spotBalances(alice).find((b) => b.coinName === "USDT")!.frozen
        const frozenBefore = usdt()
        const [orderId] = yield* rest("one", 1)
        assert.notStrictEqual(usdt(), frozenBefore)
        const first = yield* cancel(["--symbol", SYMBOL, "--order-id", orderId!])
        assert.strictEqual(first.exitCode, 0, first.stderr)
        const lines = linesOf(first.stdout)
        assert.match(lines[0]!, /^index\s+outcome\s+orderId\s+clientOrderId\s+code\s+message$/)
        assert.match(lines[1]!, new RegExp(`^0\\s+cancelled\\s+${orderId}$`))
        assert.strictEqual(first.stderr, "spotkit: cancelled 1 of 1, 0 already final, 0 unknown, 0 failed\n")
        assert.strictEqual(yield* statusOf(orderId!), "cancelled")
        // The cancel released what the order held.
        assert.strictEqual(usdt(), frozenBefore)

        const again = yield* cancel(["--symbol", SYMBOL, "--client-order-id", "one-0", "--format", "json"])
        assert.strictEqual(again.exitCode, 0, again.stderr)
        const result = JSON.parse(again.stdout)
        assert.strictEqual(result.outcomes.length, 1)
        const [outcome] = result.outcomes
        assert.strictEqual(outcome._tag, "NotOpen")
        assert.strictEqual(outcome.index, 0)
        assert.strictEqual(outcome.clientOrderId, "one-0")
        assert.strictEqual(outcome.reason, "final")
        assert.strictEqual(outcome.code, "43004")
        assert.deepStrictEqual([result.cancelled, result.notOpen, result.failed], [0, 1, 0])
        assert.strictEqual(again.stderr, "spotkit: cancelled 0 of 1, 1 already final, 0 unknown, 0 failed\n")
      }))

    it.effect("an order the venue does not know: its outcome on stdout, exit code 1", () =>
      Effect.gen(function*() {
        const run = yield* cancel(["--symbol", SYMBOL, "--client-order-id", "no-such-order", "--format", "ndjson"])
        assert.strictEqual(run.exitCode, 1, run.stderr)
        const [outcome] = linesOf(run.stdout).map((line) => JSON.parse(line))
        assert.strictEqual(outcome._tag, "NotOpen")
        assert.strictEqual(outcome.reason, "unknown")
        assert.strictEqual(outcome.code, "43001")
        assert.strictEqual(run.stderr, "spotkit: cancelled 0 of 1, 0 already final, 1 unknown, 0 failed\n")
      }))

    it.effect("--all: every open order of the symbol, none of another; a second --all finds nothing", () =>
      Effect.gen(function*() {
        const exchange = yield* TestExchange.TestExchange
        const alice = exchange.accounts[0]!.userId
        const btc = yield* rest("all-btc", 4)
        const eth = yield* rest("all-eth", 2, "ETHUSDT_SPBL")
        const open = () =>
          exchange.engine.orderList(alice).filter((o) => o.symbol === SYMBOL && o.status === "open").map((o) =>
            o.orderId
          )
        const expected = open()
        assert.includeMembers(expected, btc)
        const run = yield* cancel(["--symbol", SYMBOL, "--all", "--format", "json"])
        assert.strictEqual(run.exitCode, 0, run.stderr)
        const result = JSON.parse(run.stdout)
        assert.deepStrictEqual(
          result.outcomes.map((o: { orderId: string }) => o.orderId).sort(),
          [...expected].sort()
        )
        assert.isTrue(result.outcomes.every((o: { _tag: string }) => o._tag === "Cancelled"))
        assert.deepStrictEqual(
          result.outcomes.map((o: { index: number }) => o.index),
          expected.map((_, i) => i)
        )
        assert.strictEqual(result.cancelled, expected.length)
        assert.deepStrictEqual(open(), [])
        for (const orderId of eth) assert.strictEqual(yield* statusOf(orderId), "open")

        const none = yield* cancel(["--symbol", SYMBOL, "--all"])
        assert.strictEqual(none.exitCode, 0, none.stderr)
        assert.strictEqual(linesOf(none.stdout).length, 1, "the header alone")
        assert.strictEqual(none.stderr, "spotkit: cancelled 0 of 0, 0 already final, 0 unknown, 0 failed\n")
      }))

    it.effect("--all whose first answer was lost: the retry lists none, and the summary says more may be cancelled", () =>
      Effect.gen(function*() {
        const exchange = yield* TestExchange.TestExchange
        const ids = yield* rest("lost-all", 2)
        yield* exchange.injectFault({ fault: Fault.appliedLost, path: "/api/v2/trade/cancel-symbol-order", times: 1 })
        const run = yield* cancel(["--symbol", SYMBOL, "--all"])
        assert.strictEqual(run.exitCode, 0, run.stderr)
        for (const orderId of ids) assert.strictEqual(yield* statusOf(orderId), "cancelled")
        assert.strictEqual(
          run.stderr,
          "spotkit: cancelled 0 of 0, 0 already final, 0 unknown, 0 failed; an earlier attempt whose answer was lost" +
            " may have cancelled orders not listed\n"
        )
      }))

    it.effect("--file of 60 ids one a line (blank lines, CRLF, JSON objects): one outcome per id in input order", () =>
      Effect.gen(function*() {
        const ids = yield* rest("file", 60)
        // Two already cancelled, one named twice, one by clientOrderId, one unknown, one not an id at all.
        yield* cancel(["--symbol", SYMBOL, "--order-id", ids[3]!])
        yield* cancel(["--symbol", SYMBOL, "--order-id", ids[40]!])
        const lines = [
          ...ids.slice(0, 55).map((id, i) => i % 7 === 0 ? `${id}\r` : id),
          "",
          `{"clientOrderId":"file-55"}`,
          ids[10]!,
          "  ",
          "1999999999999999999",
          "not an id",
          ...ids.slice(56)
        ]
        yield* withFile(lines.join("\n") + "\n", (path) =>
          Effect.gen(function*() {
            const before = (yield* cancelRequests).length
            const run = yield* cancel(["--symbol", SYMBOL, "--file", path, "--format", "ndjson"])
            assert.strictEqual(run.exitCode, 1, run.stderr)
            const outcomes = linesOf(run.stdout).map((line) => JSON.parse(line))
            const named = [...ids.slice(0, 56), ids[10]!, "1999999999999999999", "not an id", ...ids.slice(56)]
            assert.deepStrictEqual(outcomes.map((o) => o.index), named.map((_, i) => i))
            const words = outcomes.map((o) => o._tag === "NotOpen" ? o.reason : o._tag)
            const expected = named.map((id, i) =>
              i === 58 ? "Failed" : i === 57 ? "unknown" : id === ids[3] || id === ids[40] ? "final" : "Cancelled"
            )
            assert.deepStrictEqual(words, expected)
            assert.strictEqual(outcomes[55].clientOrderId, "file-55")
            // Exact 19-digit ids, as strings.
            assert.strictEqual(outcomes[0].orderId, ids[0])
            assert.strictEqual(outcomes[57].orderId, "1999999999999999999")
            assert.strictEqual(run.stderr, "spotkit: cancelled 59 of 63, 2 already final, 1 unknown, 1 failed\n")
            for (const id of ids) assert.strictEqual(yield* statusOf(id), "cancelled")
            // 60 distinct orderIds in two requests of at most 50 (the invalid one is not sent), one by clientOid.
            const sent = (yield* cancelRequests).slice(before)
            assert.deepStrictEqual(sent.map((request) => request.path), [
              "/api/v2/trade/cancel-batch-orders",
              "/api/v2/trade/cancel-batch-orders",
              "/api/v2/trade/cancel-batch-orders"
            ])
          }))
      }))

    it.effect("--file as a JSON array: ids as strings or bare 19-digit numbers, kept exact; --ids client-order-id", () =>
      Effect.gen(function*() {
        const ids = yield* rest("json", 2)
        yield* rest("json-c", 2)
        yield* withFile(`[${ids[0]}, "${ids[1]}", {"clientOrderId":"json-c-0"}]`, (path) =>
          Effect.gen(function*() {
            const run = yield* cancel(["--symbol", SYMBOL, "--file", path, "--format", "json"])
            assert.strictEqual(run.exitCode, 0, run.stderr)
            const result = JSON.parse(run.stdout)
            assert.deepStrictEqual(result.outcomes.map((o: { orderId?: string }) => o.orderId).slice(0, 2), ids)
            assert.strictEqual(result.cancelled, 3)
          }))
        yield* withFile("json-c-1\n", (path) =>
          Effect.gen(function*() {
            const run = yield* cancel(["--symbol", SYMBOL, "--file", path, "--ids", "client-order-id"])
            assert.strictEqual(run.exitCode, 0, run.stderr)
            assert.match(linesOf(run.stdout)[1]!, /^0\s+cancelled\s+\d+\s+json-c-1$/)
          }))
      }))

    const usages: ReadonlyArray<readonly [string, ReadonlyArray<string>, string]> = [
      ["no order named", ["--symbol", SYMBOL], "one of --order-id, --client-order-id, --all and --file"],
      ["--all with --order-id", ["--symbol", SYMBOL, "--all", "--order-id", "1"], "one of --order-id"],
      [
        "--order-id and --client-order-id",
        ["--symbol", SYMBOL, "--order-id", "1", "--client-order-id", "a"],
        "not both"
      ],
      ["no --symbol", ["--all"], "--symbol"],
      ["a bad --format", ["--symbol", SYMBOL, "--all", "--format", "xml"], "--format"],
      ["a file that is not there", ["--symbol", SYMBOL, "--file", "/nonexistent/ids"], "no such file"]
    ]
    for (const [name, args, mentions] of usages) {
      it.effect(`${name}: exit code 2, one line, nothing sent`, () =>
        Effect.gen(function*() {
          const before = (yield* cancelRequests).length
          const run = yield* cancel(args)
          assert.strictEqual(run.exitCode, 2, run.stderr)
          assert.strictEqual(run.stdout, "")
          assert.strictEqual(linesOf(run.stderr).length, 1, run.stderr)
          assert.include(run.stderr, mentions)
          assert.strictEqual((yield* cancelRequests).length, before)
        }))
    }

    it.effect("an empty --file: exit code 2, nothing sent", () =>
      withFile("\n \n", (path) =>
        Effect.gen(function*() {
          const run = yield* cancel(["--symbol", SYMBOL, "--file", path])
          assert.strictEqual(run.exitCode, 2)
          assert.strictEqual(run.stdout, "")
          assert.include(run.stderr, `--file ${path}: no items`)
        })))

    it.effect.each([
      ["a misspelt field", `{"orderID":"1"}`, `line 1: unknown field "orderID"`],
      ["another symbol", `{"symbol":"ETHUSDT_SPBL","orderId":"1"}`, `line 1: its symbol "ETHUSDT_SPBL" is not --symbol`]
    ])(
      "a --file item with %s: exit code 2, naming it, nothing sent",
      ([, item, mentions]) =>
        withFile(`${item}\n`, (path) =>
          Effect.gen(function*() {
            const before = (yield* cancelRequests).length
            const run = yield* cancel(["--symbol", SYMBOL, "--file", path])
            assert.strictEqual(run.exitCode, 2, run.stderr)
            assert.strictEqual(run.stdout, "")
            assert.strictEqual(linesOf(run.stderr).length, 1, run.stderr)
            assert.include(run.stderr, `--file ${path}: ${mentions}`)
            assert.include(run.stderr, "nothing was sent")
            assert.strictEqual((yield* cancelRequests).length, before)
          }))
    )

    it.effect("the venue refuses (a wrong secret, an unknown symbol): exit code 1, one line with its code, no data", () =>
      Effect.gen(function*() {
        const wrongSecret = yield* cancel(["--symbol", SYMBOL, "--all"], { SPOTKIT_SECRET_KEY: "not-alices-secret" })
        const unknownSymbol = yield* cancel(["--symbol", "DOGEUSDT_SPBL", "--order-id", "1"])
        for (const run of [wrongSecret, unknownSymbol]) {
          assert.strictEqual(run.exitCode, 1, run.stderr)
          assert.strictEqual(run.stdout, "")
          assert.strictEqual(linesOf(run.stderr).length, 1, run.stderr)
          assert.match(run.stderr, /^spotkit: .*\(code \d{5}\)(; check SPOTKIT_SECRET_KEY)?\n$/)
        }
        assert.include(wrongSecret.stderr, "(code 40009); check SPOTKIT_SECRET_KEY")
      }))
  })
})
