/**
 * `spotkit transfer status` (`internal/cli/transfer.ts`), in process against a sandbox on a loopback port: the
 * transfers alice made, equal to the engine's records, newest first, across pages; one by its id (exit code 1 when
 * none); filtered by coin and by time (--since inclusive, --until exclusive, whatever the venue's bounds); bad flags
 * exit code 2 with nothing sent.
 */
import { assert, describe, it } from "@effect/vitest"
import { TestExchange } from "@spotkit/testkit"
import { Effect } from "effect"
import { aliceEnv, linesOf, runInProcess, sandboxLayer } from "../support/cli.ts"

const STATUS_PATH = "/api/v2/rebate/affiliate/getInternalWithdrawalStatus"

describe("transfer status", () => {
  const { layer } = sandboxLayer({ seed: 41, bills: 0 })

  it.layer(layer, { excludeTestServices: true })("against the sandbox", (it) => {
    const cli = (args: ReadonlyArray<string>, change: Record<string, string> = {}) =>
      Effect.flatMap(aliceEnv, (env) => runInProcess(args, { ...env, ...change }))

    const statusRequests = Effect.map(
      Effect.flatMap(Effect.service(TestExchange.TestExchange), (exchange) => exchange.requests),
      (requests) => requests.filter((request) => request.path.split("?")[0] === STATUS_PATH).length
    )

    // Transfers of alice to bob through the CLI, made once: their ids, oldest first.
    let made: Array<string> | undefined
    const transfers = Effect.gen(function*() {
      const exchange = yield* TestExchange.TestExchange
      if (made === undefined) {
        made = []
        const bob = exchange.accounts[1]!.userId
        for (let i = 0; i < 5; i++) {
          const coin = i % 2 === 0 ? "USDT" : "BTC"
          const run = yield* cli([
            "transfer",
            "--to-user",
            bob,
            "--coin",
            coin,
            "--amount",
            coin === "USDT" ? `1${i}.5` : "0.001",
            "--from-account",
            "SPOT",
            "--to-account",
            "FUND",
            "--format",
            "json"
          ])
          assert.strictEqual(run.exitCode, 0, run.stderr)
          made.push(JSON.parse(run.stdout).id)
          yield* Effect.sleep("3 millis")
        }
      }
      const sent = (yield* exchange.transfers(exchange.accounts[0]!.userId)).filter((t) =>
        t.fromUserId === exchange.accounts[0]!.userId
      )
      assert.deepStrictEqual(sent.map((t) => t.id), made)
      return sent.slice().reverse()
    })

    it.effect("every transfer, newest first, equal to the engine's, one page or five; table, JSON and NDJSON", () =>
      Effect.gen(function*() {
        const sent = yield* transfers
        const json = yield* cli(["transfer", "status", "--format", "json"])
        assert.strictEqual(json.exitCode, 0, json.stderr)
        const listed: Array<Record<string, unknown>> = JSON.parse(json.stdout)
        assert.deepStrictEqual(
          listed.map((t) => [t.withdrawId, t.status, t.coin, t.amount, t.fromUserId, t.toUserId, t.createTime]),
          sent.map((t) => [t.id, t.status, t.coin, t.amount, t.fromUserId, t.toUserId, t.createTime])
        )
        const before = yield* statusRequests
        const paged = yield* cli(["transfer", "status", "--format", "ndjson", "--page-size", "1"])
        assert.strictEqual(paged.exitCode, 0, paged.stderr)
        assert.deepStrictEqual(linesOf(paged.stdout).map((line) => JSON.parse(line)), listed)
        // Five full pages of one, then an empty one.
        assert.strictEqual((yield* statusRequests) - before, 6)
        const table = yield* cli(["transfer", "status"])
        const [header, ...rows] = linesOf(table.stdout)
        assert.match(header!, /^id\s+status\s+coin\s+amount\s+fromUserId\s+toUserId\s+createTime\s+updateTime$/)
        assert.deepStrictEqual(rows.map((row) => row.split(/\s+/)[0]), sent.map((t) => t.id))
      }))

    it.effect("--id: that transfer alone; an id the venue does not know is exit code 1, one line, no data", () =>
      Effect.gen(function*() {
        const sent = yield* transfers
        const one = yield* cli(["transfer", "status", "--id", sent[2]!.id, "--format", "json"])
        assert.strictEqual(one.exitCode, 0, one.stderr)
        assert.deepStrictEqual(JSON.parse(one.stdout).map((t: { withdrawId: string }) => t.withdrawId), [sent[2]!.id])
        const none = yield* cli(["transfer", "status", "--id", "3999999999999999999"])
        assert.strictEqual(none.exitCode, 1)
        assert.strictEqual(none.stdout, "")
        assert.strictEqual(none.stderr, "spotkit: no transfer with id 3999999999999999999\n")
      }))

    // The query is signed as it is sent: every character a URL parser would escape differently (`'`, which WHATWG's
    // parser escapes in a query and encodeURIComponent does not) is escaped before signing, so the venue's check of
    // the signature over the query it received passes, instead of a 40009 blamed on the secret key.
    it.effect("--id with characters a URL escapes: signed as sent, answered by the venue (no signature refusal)", () =>
      Effect.gen(function*() {
        for (const id of ["a'b", "x!(y)*~", "a&symbol=B=C#d%25", "ü€"]) {
          const run = yield* cli(["transfer", "status", "--id", id])
          assert.strictEqual(run.exitCode, 1, run.stderr)
          assert.strictEqual(run.stderr, `spotkit: no transfer with id ${id}\n`)
        }
      }))

    it.effect("--coin, --since (inclusive) and --until (exclusive) at the times of real transfers", () =>
      Effect.gen(function*() {
        const sent = yield* transfers
        const ids = (run: { readonly stdout: string }) =>
          (JSON.parse(run.stdout) as Array<{ withdrawId: string }>).map((t) => t.withdrawId)
        const btc = yield* cli(["transfer", "status", "--coin", "BTC", "--format", "json"])
        assert.deepStrictEqual(ids(btc), sent.filter((t) => t.coin === "BTC").map((t) => t.id))
        const oldest = sent.at(-1)!.createTime
        const since = sent[3]!.createTime
        const until = sent[1]!.createTime
        assert.isAbove(until, since)
        const ranged = yield* cli([
          "transfer",
          "status",
          "--since",
          String(since),
          "--until",
          new Date(until).toISOString(),
          "--format",
          "json"
        ])
        assert.strictEqual(ranged.exitCode, 0, ranged.stderr)
        assert.deepStrictEqual(
          ids(ranged),
          sent.filter((t) => t.createTime >= since && t.createTime < until).map((t) => t.id)
        )
        assert.include(ids(ranged), sent[3]!.id)
        assert.notInclude(ids(ranged), sent[1]!.id)
        const fromOldest = yield* cli(["transfer", "status", "--since", String(oldest), "--format", "json"])
        assert.deepStrictEqual(ids(fromOldest), sent.map((t) => t.id))
      }))

    it.effect("bad flags are exit code 2 with nothing sent; the venue's refusal exit code 1", () =>
      Effect.gen(function*() {
        const before = yield* statusRequests
        const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
          [["--page-size", "201"], "--page-size"],
          [["--coin", "DOGE"], "--coin"],
          [["--since", "2024-02-30"], "--since"],
          [["--from-account", "MARGIN"], "--from-account"],
          [["--id", "has space"], "withdrawId"]
        ]
        for (const [args, mentions] of cases) {
          const run = yield* cli(["transfer", "status", ...args])
          assert.strictEqual(run.exitCode, 2, `${args.join(" ")}: ${run.stderr}`)
          assert.strictEqual(run.stdout, "")
          assert.strictEqual(linesOf(run.stderr).length, 1, run.stderr)
          assert.include(run.stderr, mentions)
        }
        assert.strictEqual(yield* statusRequests, before)
        const refused = yield* cli(["transfer", "status"], { SPOTKIT_SECRET_KEY: "not-alices-secret" })
        assert.strictEqual(refused.exitCode, 1)
        assert.strictEqual(refused.stdout, "")
        assert.include(refused.stderr, "(code 40009)")
      }))
  })
})

describe("transfer status from a venue that ignores `page`", () => {
  // Every page answers what page 1 did; past 40 requests the list is empty, so that a client that loops ends.
  let requests = 0
  let first: string | undefined
  const rewrite = (path: string, body: string) => {
    if (!path.startsWith(STATUS_PATH)) return body
    if (++requests > 40) return body.replace(/"list":\[.*\]/s, "\"list\":[]")
    if (new URL(path, "http://venue").searchParams.get("page") === "1") first = body
    return first ?? body
  }
  const { layer } = sandboxLayer({ seed: 42, bills: 0, rewrite })

  it.layer(layer, { excludeTestServices: true })("against the sandbox", (it) => {
    it.effect("fails after a few pages without a new transfer, exit code 1, instead of paging on", () =>
      Effect.gen(function*() {
        const exchange = yield* TestExchange.TestExchange
        const env = yield* aliceEnv
        const bob = exchange.accounts[1]!.userId
        // Three amounts: identical transfers signed by three CLI runs in one millisecond would be the same signed
        // bytes, which the sandbox refuses as a replay (40409).
        for (let i = 1; i <= 3; i++) {
          const args = ["--to-user", bob, "--coin", "USDT", "--amount", String(i), "--from-account", "SPOT"]
          const made = yield* runInProcess(["transfer", ...args, "--to-account", "FUND"], env)
          assert.strictEqual(made.exitCode, 0, made.stderr)
        }
        const run = yield* runInProcess(["transfer", "status", "--page-size", "1", "--format", "json"], env)
        assert.strictEqual(run.exitCode, 1, run.stderr)
        assert.strictEqual(run.stdout, "")
        assert.include(run.stderr, "page")
        assert.isAtMost(requests, 6)
      }))
  })
})

describe("transfer status from a venue serving fewer transfers a page than asked", () => {
  // The venue places each page at (page - 1) × the size asked and cuts it to 2 transfers: a short page is not the end.
  let requests: Array<string> = []
  const rewrite = (path: string, body: string) => {
    if (!path.startsWith(STATUS_PATH)) return body
    requests.push(new URL(path, "http://venue").searchParams.get("pageSize") ?? "")
    const page = JSON.parse(body)
    if (Array.isArray(page.list)) page.list = page.list.slice(0, 2)
    return JSON.stringify(page)
  }
  const { layer } = sandboxLayer({ seed: 43, bills: 0, rewrite })

  it.layer(layer, { excludeTestServices: true })("against the sandbox", (it) => {
    it.effect("every transfer, the pages after the first asked at the size served", () =>
      Effect.gen(function*() {
        const exchange = yield* TestExchange.TestExchange
        const env = yield* aliceEnv
        const bob = exchange.accounts[1]!.userId
        for (let i = 1; i <= 5; i++) {
          const args = ["--to-user", bob, "--coin", "USDT", "--amount", String(i), "--from-account", "SPOT"]
          const made = yield* runInProcess(["transfer", ...args, "--to-account", "FUND"], env)
          assert.strictEqual(made.exitCode, 0, made.stderr)
        }
        const sent = (yield* exchange.transfers(exchange.accounts[0]!.userId)).filter((t) =>
          t.fromUserId === exchange.accounts[0]!.userId
        )
        requests = []
        const run = yield* runInProcess(["transfer", "status", "--format", "ndjson"], env)
        assert.strictEqual(run.exitCode, 0, run.stderr)
        assert.deepStrictEqual(
          linesOf(run.stdout).map((line) => JSON.parse(line).withdrawId),
          sent.map((t) => t.id).reverse()
        )
        // 2, 2, then 1: shorter than a page served before, the last.
        assert.deepStrictEqual(requests, ["200", "2", "2"])
      }))
  })
})

describe("transfer status from a venue answering a request with the answer to the one before", () => {
  // A cache or a load balancer replays: the second page asked is answered with the first page's answer, whose
  // transfers were all written already, as newer transfers pushing them down would give.
  let requests = 0
  let previous = ""
  const rewrite = (path: string, body: string) => {
    if (!path.startsWith(STATUS_PATH)) return body
    const answer = ++requests === 2 ? previous : body
    previous = body
    return answer
  }
  const { layer } = sandboxLayer({ seed: 44, bills: 0, rewrite })

  it.layer(layer, { excludeTestServices: true })("against the sandbox", (it) => {
    it.effect("the page is asked again: every transfer, none skipped", () =>
      Effect.gen(function*() {
        const exchange = yield* TestExchange.TestExchange
        const env = yield* aliceEnv
        const bob = exchange.accounts[1]!.userId
        for (let i = 1; i <= 9; i++) {
          const args = ["--to-user", bob, "--coin", "USDT", "--amount", String(i), "--from-account", "SPOT"]
          const made = yield* runInProcess(["transfer", ...args, "--to-account", "FUND"], env)
          assert.strictEqual(made.exitCode, 0, made.stderr)
        }
        const sent = (yield* exchange.transfers(exchange.accounts[0]!.userId)).filter((t) =>
          t.fromUserId === exchange.accounts[0]!.userId
        )
        requests = 0
        const run = yield* runInProcess(["transfer", "status", "--page-size", "3", "--format", "ndjson"], env)
        assert.strictEqual(run.exitCode, 0, run.stderr)
        assert.deepStrictEqual(
          linesOf(run.stdout).map((line) => JSON.parse(line).withdrawId),
          sent.map((t) => t.id).reverse()
        )
        // Pages 1, 2 (the replay), 2, 3 and an empty 4.
        assert.strictEqual(requests, 5)
      }))
  })
})
