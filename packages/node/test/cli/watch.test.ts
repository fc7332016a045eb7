/**
 * `spotkit watch` (`internal/cli/watch.ts`) against a sandbox whose push endpoints drop every connection after 5 data
 * frames (`spotkit-sandbox --push-faults disconnect=5`), while alice and bob cross orders over HTTP: `watch fills`
 * prints every fill REST knows, once each; `watch orders` ends with every order as REST has it; `watch balances` ends
 * with REST's balances; `watch book` ends with the REST depth once quiet. Ctrl-C (SIGINT) to the built CLI exits 130
 * with the summary line; `--count` and `--for` stop it with exit code 0; bad flags and a missing SPOTKIT_PUSH_URL are
 * usage errors; the book's table, a trades gap's note and the summary line.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import { SpotClient } from "@spotkit/core"
import type { Market, Push } from "@spotkit/core"
import { Fault, PushVenue, Sandbox, TestExchange } from "@spotkit/testkit"
import { ConfigProvider, Context, Effect, Fiber, Layer, Redacted, Schedule, Stream } from "effect"
import { Command } from "effect/cli"
import { type AddressInfo, createServer, type Socket } from "node:net"
import * as Cli from "../../src/Cli.ts"
import * as CliRuntime from "../../src/CliRuntime.ts"
import { NodeSpotClient } from "../../src/index.ts"
import * as Watch from "../../src/internal/cli/watch.ts"
import * as Rows from "../../src/internal/cli/watchRows.ts"
import * as Output from "../../src/internal/output.ts"
import * as Records from "../../src/internal/records.ts"
import { capture, decodeAll, linesOf, runInProcess, spawn } from "../support/cli.ts"
import { proxyServer } from "../support/proxyServer.ts"
import { redisServer } from "../support/redisServer.ts"

const SYMBOL = "BTCUSDT_SPBL"
const SUMMARY = /^spotkit: \d+ events?, \d+ reconnects?, \d+ resyncs?, \d+ gaps? in \d+\.\d s$/

// The demo exchange, its push venue with `faults`, and the sandbox serving both on one loopback port.
const sandbox = (faults: string) =>
  PushVenue.layerSandbox().pipe(
    Layer.provideMerge(PushVenue.layer({ faults: PushVenue.parseFaults(faults) as PushVenue.Faults })),
    Layer.provideMerge(TestExchange.layer({ ...TestExchange.demo({ bills: 0 }), rateLimits: false }))
  )

type User = keyof typeof TestExchange.demoKeys

const envOf = (user: User) =>
  Effect.map(Sandbox.Sandbox, (server): Record<string, string> => {
    const keys = TestExchange.demoKeys[user]
    return {
      SPOTKIT_BASE_URL: server.baseUrl,
      SPOTKIT_PUSH_URL: PushVenue.pushUrl(server),
      SPOTKIT_API_KEY: keys.apiKey,
      SPOTKIT_SECRET_KEY: keys.secretKey,
      SPOTKIT_PASSPHRASE: keys.passphrase,
      SPOTKIT_RATE_LIMIT: "off"
    }
  })

// A user's REST client over the sandbox's HTTP, for the test's scope.
const clientOf = (user: User) =>
  Effect.gen(function*() {
    const env = yield* envOf(user)
    const keys = TestExchange.demoKeys[user]
    const context = yield* Layer.build(NodeSpotClient.layer({
      baseUrl: env.SPOTKIT_BASE_URL!,
      credentials: {
        apiKey: Redacted.make(keys.apiKey),
        secretKey: Redacted.make(keys.secretKey),
        passphrase: Redacted.make(keys.passphrase)
      },
      rateLimit: false
    }))
    return Context.get(context, SpotClient.SpotClient)
  })

/** The command started in this process (stdout and stderr captured, neither a terminal); `stop` is its Ctrl-C. */
const start = (args: ReadonlyArray<string>, env: Record<string, string>) =>
  Effect.gen(function*() {
    const stdout = capture(false)
    const stderr = capture(false)
    const output = Layer.succeed(Output.Output, Output.make({ stdout: stdout.channel, stderr: stderr.channel }))
    const fiber = yield* Effect.forkScoped(
      Command.runWith(Cli.command, { version: "0.0.0-test" })(args).pipe(
        Effect.provide(Layer.mergeAll(
          NodeServices.layer,
          Layer.provideMerge(Cli.layerPresenter, output),
          ConfigProvider.layer(ConfigProvider.fromEnvRecord(env))
        ))
      )
    )
    return {
      stdout: () => stdout.chunks.join(""),
      stderr: () => stderr.chunks.join(""),
      // As `bin/spotkit.ts` ends after SIGINT: the program interrupted, 130 for it.
      stop: Effect.map(Effect.andThen(Fiber.interrupt(fiber), Fiber.await(fiber)), (exit) =>
        CliRuntime.exitCode(exit, { interrupted: 130 }))
    }
  })

const objects = (text: string): Array<Record<string, unknown>> =>
  linesOf(text).map((line) => JSON.parse(line) as Record<string, unknown>)

// Until `done` holds (checked every 100 ms), at most `seconds`.
const until = (done: () => Effect.Effect<boolean, unknown>, seconds: number) =>
  Effect.gen(function*() {
    for (let waited = 0; waited < seconds * 10; waited++) {
      if (yield* done()) return true
      yield* Effect.sleep("100 millis")
    }
    return false
  })

// A TCP server on loopback that takes connections and never writes a byte: a push endpoint whose handshake never
// completes (a firewall or proxy that holds connections, a port of another service, a slow host).
const blackhole = Effect.acquireRelease(
  Effect.callback<{ readonly url: string; readonly close: () => void }>((resume) => {
    const sockets: Array<Socket> = []
    const server = createServer((socket) => {
      sockets.push(socket)
      socket.on("error", () => undefined)
    })
    server.listen(0, "127.0.0.1", () =>
      resume(Effect.succeed({
        url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}`,
        close: () => {
          for (const socket of sockets) socket.destroy()
          server.close()
        }
      })))
  }),
  ({ close }) => Effect.sync(close)
)

// alice and bob cross orders over HTTP: bob quotes a small ask inside the spread, alice buys it with a limit order;
// every third round alice also sells into bob's bids at market. Each round makes fills for both.
const trade = (alice: SpotClient.Service, bob: SpotClient.Service, rounds: number) =>
  Effect.gen(function*() {
    for (let i = 0; i < rounds; i++) {
      const price = `${30_001 + (i % 3)}.00`
      yield* bob.placeOrder({ symbol: SYMBOL, side: "sell", orderType: "limit", price, quantity: "0.01" })
      yield* alice.placeOrder({ symbol: SYMBOL, side: "buy", orderType: "limit", price, quantity: "0.01" })
      if (i % 3 === 0) {
        yield* alice.placeOrder({ symbol: SYMBOL, side: "sell", orderType: "market", quantity: "0.02" })
      }
      if (i % 4 === 0) {
        // One that rests, then is cancelled: an order that ends without a fill.
        const rest = yield* alice.placeOrder({
          symbol: SYMBOL,
          side: "buy",
          orderType: "limit",
          price: "29000.00",
          quantity: "0.01"
        })
        yield* alice.cancelOrder({ symbol: SYMBOL, orderId: rest.orderId })
      }
      // Spread over a few seconds, so that connections are dropped again and again while fills happen.
      yield* Effect.sleep("100 millis")
    }
  })

describe("spotkit watch", () => {
  it.layer(sandbox("disconnect=5"), { excludeTestServices: true })(
    "against a sandbox with --push-faults disconnect=5",
    (it) => {
      it.effect(
        "fills once each, orders and balances as REST has them, the book as the REST depth; Ctrl-C exits 130",
        () =>
          Effect.gen(function*() {
            const venue = yield* PushVenue.PushVenue
            const env = yield* envOf("alice")
            const alice = yield* clientOf("alice")
            const bob = yield* clientOf("bob")
            const ndjson = ["--symbol", SYMBOL, "--format", "ndjson"]
            const fills = yield* start(["watch", "fills", ...ndjson], env)
            const orders = yield* start(["watch", "orders", ...ndjson], env)
            const balances = yield* start(["watch", "balances", ...ndjson], env)
            const book = yield* start(["watch", "book", ...ndjson], env)
            // Every watch live before trading: the private ones in sync with REST, the book printed.
            const live = () =>
              [fills, orders, balances].every((watch) => watch.stderr().includes("spotkit: listening: ")) &&
              book.stdout() !== ""
            assert.isTrue(yield* until(() => Effect.sync(live), 20))

            yield* trade(alice, bob, 24)

            const restFills = yield* Stream.runCollect(alice.fills({ symbol: SYMBOL }))
            assert.isAtLeast(restFills.length, 24 + 8, "dozens of fills")
            const restIds = restFills.map((fill) => fill.fillId).sort()
            const history = yield* Stream.runCollect(alice.orderHistory({ symbol: SYMBOL }))
            const restBalances = yield* alice.balances()
            const depth = yield* alice.orderBook(SYMBOL, { limit: 15 })
            const printedIds = () => objects(fills.stdout()).map((fill) => String(fill.fillId))
            const lastOrders = () => new Map(objects(orders.stdout()).map((o) => [String(o.orderId), o]))
            const lastBalances = () => new Map(objects(balances.stdout()).map((b) => [String(b.coinName), b]))
            const lastBook = () => objects(book.stdout()).at(-1)!
            // Each watch has its own connections, dropped at its own times; the last reconnect's backfill may come after
            // a backoff of several seconds.
            const caughtUp = () => {
              const printedOrders = lastOrders()
              const printedBalances = lastBalances()
              return new Set(printedIds()).size >= restIds.length &&
                history.every((o) => printedOrders.get(o.orderId)?.status === o.status) &&
                restBalances.every((b) => printedBalances.get(b.coinName)?.available === b.available) &&
                JSON.stringify(lastBook().bids) === JSON.stringify(depth.bids) &&
                JSON.stringify(lastBook().asks) === JSON.stringify(depth.asks)
            }
            yield* until(() => Effect.sync(caughtUp), 60)
            // Quiet: any late duplicate would have arrived.
            yield* Effect.sleep("1 second")

            const ids = printedIds()
            assert.strictEqual(new Set(ids).size, ids.length, "a fill printed twice")
            assert.deepStrictEqual([...ids].sort(), restIds)
            for (const fill of objects(fills.stdout())) {
              const rest = restFills.find((f) => f.fillId === fill.fillId)!
              assert.strictEqual(fill.orderId, rest.orderId)
              assert.strictEqual(fill.quantity, rest.fillQuantity)
              assert.strictEqual(fill.value, rest.fillTotalAmount)
            }

            // Orders: the last line of each order equals REST's final state.
            const lastOrder = lastOrders()
            assert.isAtLeast(history.length, 24)
            for (const order of history) {
              const printed = lastOrder.get(order.orderId)
              assert.isDefined(printed, `order ${order.orderId} never printed`)
              assert.strictEqual(printed!.status, order.status, order.orderId)
              assert.strictEqual(printed!.filledQuantity, order.fillQuantity, order.orderId)
              assert.isTrue(printed!.final)
            }

            // Balances: the last line of each coin equals REST's.
            const lastBalance = lastBalances()
            for (const balance of restBalances) {
              const printed = lastBalance.get(balance.coinName)
              assert.isDefined(printed, balance.coinName)
              assert.deepStrictEqual(
                [printed!.available, printed!.frozen],
                [balance.available, balance.frozen],
                balance.coinName
              )
            }

            // The book: the last one printed equals the REST depth.
            assert.deepStrictEqual({ bids: lastBook().bids, asks: lastBook().asks }, {
              bids: depth.bids,
              asks: depth.asks
            })

            // The connections were dropped, and each drop was said on stderr; Ctrl-C ends each with 130 and a summary.
            assert.isAtLeast((yield* venue.stats).opened, 8)
            for (const watch of [fills, orders, balances, book]) {
              assert.strictEqual(yield* watch.stop, 130)
              const lines = linesOf(watch.stderr())
              const summary = lines.at(-1)!
              assert.match(summary, SUMMARY)
              const reconnects = Number(/(\d+) reconnects?/.exec(summary)![1])
              assert.isAtLeast(reconnects, 1, summary)
              assert.strictEqual(lines.filter((line) => line.includes("connection was lost")).length, reconnects)
            }
            const fillsSummary = linesOf(fills.stderr()).at(-1)!
            assert.match(fillsSummary, new RegExp(`^spotkit: ${restIds.length} events, `))
            assert.isAtLeast(Number(/(\d+) reconnects?/.exec(fillsSummary)![1]), 2, fillsSummary)
          }),
        { timeout: 150_000 }
      )
    }
  )

  it.layer(sandbox(""), { excludeTestServices: true })("against a sandbox without faults", (it) => {
    it.effect(
      "--count stops after N events, --for after a while: exit code 0 and the summary",
      () =>
        Effect.gen(function*() {
          const env = yield* envOf("alice")
          const counted = yield* runInProcess(["watch", "balances", "--count", "2", "--format", "ndjson"], env)
          assert.strictEqual(counted.exitCode, 0, counted.stderr)
          assert.strictEqual(linesOf(counted.stdout).length, 2)
          assert.deepStrictEqual(
            linesOf(counted.stderr)[0],
            "spotkit: listening: the private streams are in sync with REST"
          )
          assert.match(linesOf(counted.stderr)[1]!, /^spotkit: 2 events, 0 reconnects, 0 resyncs, 0 gaps in \d+\.\d s$/)
          const timed = yield* runInProcess(["watch", "fills", "--symbol", SYMBOL, "--for", "300ms"], env)
          assert.strictEqual(timed.exitCode, 0, timed.stderr)
          assert.strictEqual(linesOf(timed.stdout)[0]!.split(/\s+/).slice(0, 3).join(" "), "time fillId orderId")
          assert.match(linesOf(timed.stderr).at(-1)!, /^spotkit: 0 events, 0 reconnects, 0 resyncs, 0 gaps in 0\.\d s$/)
          // On a terminal each book is drawn from the top left over the last one.
          const terminal = capture(true)
          const drawing = yield* Effect.forkChild(
            runInProcess(["watch", "book", "--symbol", SYMBOL, "--count", "2"], env, { stdout: terminal.channel })
          )
          // The first book drawn, then bob's new bid makes a second.
          assert.isTrue(yield* until(() => Effect.sync(() => terminal.chunks.length > 0), 20))
          const exchange = yield* TestExchange.TestExchange
          yield* exchange.placeOrder(exchange.accounts[1]!.userId, {
            symbol: SYMBOL,
            side: "buy",
            orderType: "limit",
            force: "normal",
            price: "29999.00",
            quantity: "0.01",
            clientOrderId: "bob-redraw"
          })
          const drawn = yield* Fiber.join(drawing)
          assert.strictEqual(drawn.exitCode, 0, drawn.stderr)
          assert.strictEqual(terminal.chunks.length, 2)
          assert.match(terminal.chunks[1]!, /\n0\.010000 +29999\.00 +30005\.00/)
          for (const chunk of terminal.chunks) {
            assert.match(chunk, new RegExp(`^\u001b\\[H\u001b\\[J${SYMBOL}  depth 15`))
          }
          const book = yield* runInProcess(["watch", "book", "--symbol", SYMBOL, "--count", "1"], env)
          assert.strictEqual(book.exitCode, 0, book.stderr)
          assert.match(linesOf(book.stdout)[0]!, new RegExp(`^${SYMBOL}  depth 15  version \\d+$`))
          assert.deepStrictEqual(linesOf(book.stdout)[1]!.split(/\s+/), ["bidSize", "bid", "ask", "askSize"])
        }),
      { timeout: 60_000 }
    )

    it.effect(
      "bad flags and a missing SPOTKIT_PUSH_URL are usage errors (2), before anything is sent",
      () =>
        Effect.gen(function*() {
          const env = yield* envOf("alice")
          const cases: ReadonlyArray<readonly [ReadonlyArray<string>, Record<string, string>, string]> = [
            [["watch", "fills", "--for", "soon"], env, "spotkit: --for soon is not a duration"],
            [["watch", "fills", "--count", "0"], env, "spotkit: --count must be at least 1"],
            [["watch", "book", "--symbol", SYMBOL], { ...env, SPOTKIT_PUSH_URL: "http://x" }, "SPOTKIT_PUSH_URL must"],
            [["watch", "fills"], { SPOTKIT_BASE_URL: env.SPOTKIT_BASE_URL! }, "SPOTKIT_PUSH_URL, SPOTKIT_API_KEY"],
            // The public channels need no credentials.
            [["watch", "book"], env, "--symbol"],
            // A symbol of no trading pair's form: refused by the stream, before it subscribes; no header printed.
            [["watch", "ticker", "--symbol", "BTCUSDT"], env, "invalid symbol"],
            [["watch", "fills", "--symbol", "BTCUSDT"], env, "invalid symbol"],
            [["watch", "fills", "--symbol", SYMBOL, "--symbol", "ETHUSDT"], env, "invalid symbol"],
            // Orders and fills need the pairs whose open orders and fills REST reads back after a reconnect.
            [["watch", "fills", "--for", "1s"], env, "watch fills needs --symbol for each pair you trade"],
            [["watch", "orders", "--count", "1"], env, "watch orders needs --symbol for each pair you trade"]
          ]
          for (const [args, vars, expected] of cases) {
            const run = yield* runInProcess(args, vars)
            assert.strictEqual(run.exitCode, 2, `${args.join(" ")}: ${run.stderr}`)
            assert.include(run.stderr, expected)
            assert.strictEqual(run.stdout, "")
          }
          const publicOnly = yield* runInProcess(["watch", "book", "--symbol", SYMBOL, "--count", "1"], {
            SPOTKIT_BASE_URL: env.SPOTKIT_BASE_URL!,
            SPOTKIT_PUSH_URL: env.SPOTKIT_PUSH_URL!
          })
          assert.strictEqual(publicOnly.exitCode, 0, publicOnly.stderr)
        }),
      { timeout: 60_000 }
    )

    it.effect(
      "watch orders and fills take --symbol once for each pair: the open orders of every pair given first, only theirs",
      () =>
        Effect.gen(function*() {
          const env = yield* envOf("alice")
          const exchange = yield* TestExchange.TestExchange
          const alice = exchange.accounts[0]!.userId
          const resting = [
            { symbol: SYMBOL, price: "29000.00", quantity: "0.01", clientOrderId: "resting-btc" },
            { symbol: "ETHUSDT_SPBL", price: "1900.00", quantity: "0.01", clientOrderId: "resting-eth" }
          ]
          for (const order of resting) {
            const placed = yield* exchange.placeOrder(alice, {
              ...order,
              side: "buy",
              orderType: "limit",
              force: "normal"
            })
            assert.isTrue(placed.ok)
          }
          const printed = (run: { readonly stdout: string }) =>
            objects(run.stdout).map((order) => String(order.clientOrderId)).sort()
          const both = yield* runInProcess(
            ["watch", "orders", "--symbol", SYMBOL, "--symbol", "ETHUSDT_SPBL", "--format", "ndjson", "--count", "2"],
            env
          )
          assert.strictEqual(both.exitCode, 0, both.stderr)
          assert.deepStrictEqual(printed(both), ["resting-btc", "resting-eth"])
          // One pair: the other's open order (pushed or read) is not printed.
          const one = yield* runInProcess(
            ["watch", "orders", "--symbol", "ETHUSDT_SPBL", "--format", "ndjson", "--for", "2s"],
            env
          )
          assert.strictEqual(one.exitCode, 0, one.stderr)
          assert.deepStrictEqual(printed(one), ["resting-eth"])
          const fills = yield* runInProcess(
            ["watch", "fills", "--symbol", SYMBOL, "--symbol", "ETHUSDT_SPBL", "--for", "300ms"],
            env
          )
          assert.strictEqual(fills.exitCode, 0, fills.stderr)
          assert.include(fills.stderr, "listening: the private streams are in sync with REST")
          for (const order of resting) {
            yield* exchange.cancelOrder(alice, { clientOrderId: order.clientOrderId })
          }
        }),
      { timeout: 60_000 }
    )

    it.effect(
      "a proxy from the environment carries the push connection (a CONNECT to the push endpoint), unless NO_PROXY exempts the venue",
      () =>
        Effect.scoped(Effect.gen(function*() {
          const env = yield* envOf("alice")
          const proxy = yield* proxyServer()
          const proxied = { SPOTKIT_BASE_URL: env.SPOTKIT_BASE_URL!, SPOTKIT_PUSH_URL: env.SPOTKIT_PUSH_URL! }
          const connect = `CONNECT ${new URL(env.SPOTKIT_PUSH_URL!).host}`
          const through = yield* runInProcess(["watch", "book", "--symbol", SYMBOL, "--count", "1"], {
            ...proxied,
            HTTP_PROXY: proxy.url
          })
          assert.strictEqual(through.exitCode, 0, through.stderr)
          // The proxy prints what it handled from its own process: its lines may come a little after the run.
          const seen = yield* Effect.suspend(() => proxy.seen.includes(connect) ? Effect.void : Effect.fail("waiting"))
            .pipe(Effect.retry({ schedule: Schedule.spaced("20 millis"), times: 250 }), Effect.exit)
          assert.isTrue(seen._tag === "Success", proxy.seen.join("; "))
          // REST went through it too (plain requests to the http: sandbox, forwarded by URL).
          assert.isTrue(
            proxy.seen.some((line) => line.startsWith("REQUEST GET http://127.0.0.1")),
            proxy.seen.join("; ")
          )
          const other = yield* proxyServer()
          const exempt = yield* runInProcess(["watch", "book", "--symbol", SYMBOL, "--count", "1"], {
            ...proxied,
            HTTP_PROXY: other.url,
            NO_PROXY: "127.0.0.1"
          })
          assert.strictEqual(exempt.exitCode, 0, exempt.stderr)
          yield* Effect.sleep("200 millis")
          assert.deepStrictEqual(other.seen, [])
        })),
      { timeout: 60_000 }
    )

    it.effect(
      "watch ticker and watch candles follow the engine's trades: the last ones printed equal REST's",
      () =>
        Effect.gen(function*() {
          const env = yield* envOf("alice")
          const alice = yield* clientOf("alice")
          const bob = yield* clientOf("bob")
          // A first trade, so that the symbol has a current bar for the candles' first element.
          yield* trade(alice, bob, 1)
          const ticker = yield* start(["watch", "ticker", "--symbol", SYMBOL, "--format", "ndjson"], env)
          const candles = yield* start(
            ["watch", "candles", "--symbol", SYMBOL, "--period", "1m", "--format", "ndjson"],
            env
          )
          assert.isTrue(yield* until(() => Effect.sync(() => candles.stdout() !== ""), 20))
          yield* trade(alice, bob, 4)
          const restTicker = yield* alice.ticker(SYMBOL)
          const [bar] = yield* alice.candles(SYMBOL, "1m", { limit: 1 })
          const last = (text: string) => objects(text).at(-1)
          const caughtUp = () =>
            last(ticker.stdout())?.lastPrice === restTicker.lastPrice && last(candles.stdout())?.close === bar!.close &&
            last(candles.stdout())?.baseVolume === bar!.baseVolume
          assert.isTrue(yield* until(() => Effect.sync(caughtUp), 20), `${ticker.stdout()}\n${candles.stdout()}`)
          assert.strictEqual(last(candles.stdout())!.openTime, bar!.openTime)
          assert.strictEqual(last(ticker.stdout())!.high, restTicker.high)
          assert.strictEqual(yield* ticker.stop, 130)
          assert.strictEqual(yield* candles.stop, 130)
        }),
      { timeout: 60_000 }
    )

    it.effect(
      "SPOTKIT_RATE_LIMIT_ADDRESS names the address's budgets in Redis, the push connections' and REST's alike",
      () =>
        Effect.scoped(Effect.gen(function*() {
          const redis = yield* redisServer
          const env: Record<string, string> = {
            ...(yield* envOf("alice")),
            SPOTKIT_RATE_LIMIT: "on",
            SPOTKIT_REDIS_URL: redis.url,
            SPOTKIT_RATE_LIMIT_ADDRESS: "host-b"
          }
          const run = yield* runInProcess(["watch", "book", "--symbol", SYMBOL, "--count", "1"], env)
          assert.strictEqual(run.exitCode, 0, run.stderr)
          const keys = redis.cli("--scan").split("\n").filter((key) => key !== "")
          assert.isTrue(keys.some((key) => /:push:[^:]+:\d+:host-b$/.test(key)), keys.join(", "))
          assert.isTrue(keys.some((key) => /:ip:[^:]+:\d+:host-b$/.test(key)), keys.join(", "))
          assert.isFalse(keys.some((key) => /:default$/.test(key)), keys.join(", "))
        })),
      { timeout: 60_000 }
    )

    it.effect(
      "SPOTKIT_RATE_LIMIT=off: a watch leaves SPOTKIT_REDIS_URL alone, as REST's commands do (no Redis is asked)",
      () =>
        Effect.gen(function*() {
          const env: Record<string, string> = { ...(yield* envOf("alice")), SPOTKIT_REDIS_URL: "redis://127.0.0.1:9" }
          assert.strictEqual(env.SPOTKIT_RATE_LIMIT, "off")
          const run = yield* runInProcess(["watch", "book", "--symbol", SYMBOL, "--count", "1"], env)
          assert.strictEqual(run.exitCode, 0, run.stderr)
          assert.notInclude(run.stderr, "rate-limit store")
        }),
      { timeout: 60_000 }
    )

    it.effect(
      "watch ticker on a quiet market prints REST's current ticker first (source rest), where the venue pushes nothing",
      () =>
        Effect.gen(function*() {
          const env = yield* envOf("alice")
          // Nobody trades ETH in these tests: the venue has no ticker of it to push.
          const eth = "ETHUSDT_SPBL"
          const rest = yield* (yield* clientOf("alice")).ticker(eth)
          const ndjson = yield* runInProcess(
            ["watch", "ticker", "--symbol", eth, "--for", "2s", "--format", "ndjson"],
            env
          )
          assert.strictEqual(ndjson.exitCode, 0, ndjson.stderr)
          const [first, ...others] = objects(ndjson.stdout)
          assert.deepStrictEqual(others, [])
          assert.strictEqual(first?.source, "rest")
          assert.strictEqual(first?.symbol, eth)
          assert.strictEqual(first?.lastPrice, rest.lastPrice)
          // A field REST answers null is left out, as a push leaves it out.
          assert.notInclude(Object.values(first ?? {}), null)
          assert.match(ndjson.stderr, /^spotkit: 1 event, 0 reconnects/m)
          const table = yield* runInProcess(["watch", "ticker", "--symbol", eth, "--count", "1"], env)
          assert.strictEqual(table.exitCode, 0, table.stderr)
          const [header, row] = linesOf(table.stdout)
          assert.match(header!, /^time\s+symbol\s+last\s+open\s+high\s+low\s+change%\s+volume\s+source$/)
          assert.match(row!, new RegExp(`\\s${eth}\\s+${rest.lastPrice.replace(".", "\\.")}\\s.*\\srest$`))
        }),
      { timeout: 60_000 }
    )

    it.effect(
      "no venue text acts on a terminal: control and bidi characters escaped, values intact for a reader",
      () =>
        Effect.gen(function*() {
          const env = yield* envOf("alice")
          const venue = yield* PushVenue.PushVenue
          const hostile = "\u001b]0;owned\u0007\u202egnp.exe\u009b2J"
          // The venue pushes a ticker on a change only: this one once the command has subscribed (the one before it
          // gone).
          const subscribed = () => Effect.sync(() => venue.venue.wantsChannel(`ticker.${SYMBOL}`))
          const withTicker = (args: ReadonlyArray<string>) =>
            Effect.gen(function*() {
              assert.isTrue(yield* until(() => Effect.map(subscribed(), (yes) => !yes), 20), "still subscribed")
              const run = yield* Effect.forkChild(runInProcess(args, env))
              assert.isTrue(yield* until(subscribed, 20), "the command never subscribed")
              yield* venue.publish({
                _tag: "Ticker",
                symbol: SYMBOL,
                fields: { lastPrice: "30000.00", ts: "1700000000000", note: hostile }
              })
              return yield* Fiber.join(run)
            })
          const ndjson = yield* withTicker(["watch", "ticker", "--symbol", SYMBOL, "--for", "3s", "--format", "ndjson"])
          assert.strictEqual(ndjson.exitCode, 0, ndjson.stderr)
          // eslint-disable-next-line no-control-regex
          assert.notMatch(ndjson.stdout, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/)
          // The pushed one (REST's current ticker may come first, if it answered before the push).
          assert.strictEqual(objects(ndjson.stdout).find((o) => o.source === "push")?.note, hostile)
          const table = yield* withTicker(["watch", "ticker", "--symbol", SYMBOL, "--for", "3s"])
          assert.strictEqual(table.exitCode, 0, table.stderr)
          const pushed = linesOf(table.stdout).find((line) => line.endsWith("push"))
          assert.match(pushed ?? table.stdout, /^2023-11-14T22:13:20\.000Z\s+BTCUSDT_SPBL\s+30000\.00/)
        }),
      { timeout: 60_000 }
    )

    it.effect(
      "a private watch with a wrong passphrase or key names the variable to check, as a REST command does",
      () =>
        Effect.gen(function*() {
          const env = yield* envOf("alice")
          const args = ["watch", "fills", "--symbol", SYMBOL, "--for", "20s"]
          for (
            const [variable, value, hint] of [
              ["SPOTKIT_PASSPHRASE", "wrong-pass", "check SPOTKIT_PASSPHRASE (and SPOTKIT_API_KEY)"],
              ["SPOTKIT_API_KEY", "wrong-key", "check SPOTKIT_API_KEY"]
            ] as const
          ) {
            const run = yield* runInProcess(args, { ...env, [variable]: value })
            assert.strictEqual(run.exitCode, 1, run.stderr)
            assert.include(run.stderr, "REST refused the credentials")
            assert.include(run.stderr, hint)
            assert.notInclude(run.stderr, value)
          }
        }),
      { timeout: 60_000 }
    )

    it.effect(
      "a push URL that never connects: said as such (not a lost connection), not counted as reconnects, exit 1",
      () =>
        Effect.gen(function*() {
          const env = yield* envOf("alice")
          for (const url of [`${env.SPOTKIT_PUSH_URL}/nope`, "ws://127.0.0.1:1"]) {
            const run = yield* runInProcess(["watch", "trades", "--symbol", SYMBOL, "--for", "2s"], {
              ...env,
              SPOTKIT_PUSH_URL: url
            })
            assert.strictEqual(run.exitCode, 1, run.stderr)
            const lines = linesOf(run.stderr)
            assert.match(
              lines[0]!,
              /^spotkit: cannot connect to the public push endpoint \(.+\); trying again in \d+ ms/
            )
            assert.notInclude(run.stderr, "was lost")
            assert.isTrue(
              lines.some((line) =>
                /^spotkit: 0 events, 0 reconnects, 0 resyncs, 0 gaps in \d+\.\d s; \d+ failed connection attempts?$/
                  .test(line)
              ),
              run.stderr
            )
            assert.strictEqual(lines.at(-1), "spotkit: no push connection opened (check SPOTKIT_PUSH_URL)")
          }
        }),
      { timeout: 60_000 }
    )

    // An attempt still waiting for the handshake when --for ran out was not counted as failed: the watch exited 0 with
    // the table's header, as a quiet market that was really connected does (review r71).
    it.effect(
      "a push endpoint that never answers the handshake: exit 1 once --for runs out, said so, nothing on stdout",
      () =>
        Effect.gen(function*() {
          const { url } = yield* blackhole
          const env = { ...(yield* envOf("alice")), SPOTKIT_PUSH_URL: url }
          const run = yield* runInProcess(["watch", "trades", "--symbol", SYMBOL, "--for", "2s"], env)
          assert.strictEqual(run.exitCode, 1, run.stderr)
          assert.strictEqual(run.stdout, "")
          const lines = linesOf(run.stderr)
          assert.match(lines[0]!, /^spotkit: 0 events, 0 reconnects, 0 resyncs, 0 gaps in 2\.\d s$/)
          assert.strictEqual(
            lines[1]!.replace(/in 2\.\d s/, "in 2.x s"),
            "spotkit: no push connection opened in 2.x s, and none was refused: the push endpoint did not answer, or " +
              "REST did not before connecting (check SPOTKIT_PUSH_URL and SPOTKIT_BASE_URL)"
          )
          assert.strictEqual(lines.length, 2, run.stderr)
        }).pipe(Effect.scoped),
      { timeout: 60_000 }
    )

    // The push connection opened, the catch-up by REST never succeeded: no `listening` line, nothing received, and
    // yet exit code 0 with the header (review r71).
    it.effect(
      "a private watch that never got in sync with REST: exit 1 with the catch-up's failure, stdout empty",
      () =>
        Effect.gen(function*() {
          const env = yield* envOf("alice")
          const exchange = yield* TestExchange.TestExchange
          // Every signed request fails (the venue's time and symbols still answer): the catch-up by REST cannot. The
          // client gives a 503 up after its retries, some 3 s: the connection is then lost, for the backfill.
          yield* exchange.injectFault({ fault: Fault.httpError(503), times: 1_000 })
          const run = yield* runInProcess(["watch", "fills", "--symbol", SYMBOL, "--for", "6s"], env).pipe(
            Effect.ensuring(exchange.clearFaults)
          )
          assert.strictEqual(run.exitCode, 1, run.stderr)
          assert.strictEqual(run.stdout, "")
          assert.notInclude(run.stderr, "listening")
          assert.match(
            linesOf(run.stderr).at(-1)!,
            /^spotkit: never in sync: the catch-up by REST failed \(.*503.*\) \(check SPOTKIT_BASE_URL\)$/
          )
          // REST out of reach altogether: no connection in time, or none in sync; a failure either way.
          const unreachable = yield* runInProcess(["watch", "fills", "--symbol", SYMBOL, "--for", "3s"], {
            ...env,
            SPOTKIT_BASE_URL: "http://127.0.0.1:1"
          })
          assert.strictEqual(unreachable.exitCode, 1, unreachable.stderr)
          assert.strictEqual(unreachable.stdout, "")
          assert.match(linesOf(unreachable.stderr).at(-1)!, /^spotkit: (no push connection opened|never in sync)/)
        }),
      { timeout: 60_000 }
    )

    it.effect("the built CLI: Ctrl-C (SIGINT) exits 130 with the summary line on stderr", () =>
      Effect.gen(function*() {
        const env = yield* envOf("alice")
        const run = yield* Effect.scoped(Effect.gen(function*() {
          const handle = yield* spawn(["watch", "book", "--symbol", SYMBOL, "--format", "ndjson"], env)
          const stderr = yield* Effect.forkScoped(decodeAll(handle.stderr))
          // The first book printed: the watch is live.
          const first = yield* handle.stdout.pipe(Stream.decodeText, Stream.splitLines, Stream.runHead)
          yield* handle.kill({ killSignal: "SIGINT" })
          return { first, exitCode: Number(yield* handle.exitCode), stderr: yield* Fiber.join(stderr) }
        })).pipe(Effect.timeout("40 seconds"), Effect.provide(NodeServices.layer))
        assert.strictEqual(run.exitCode, 130, run.stderr)
        assert.strictEqual(JSON.parse(run.first._tag === "Some" ? run.first.value : "{}").symbol, SYMBOL)
        assert.match(run.stderr.trimEnd(), SUMMARY)
        assert.match(run.stderr, /^spotkit: 1 event, /)
      }), { timeout: 60_000 })
  })

  it("the book as a table, a trades gap's note, the summary line, durations", () => {
    const table = Rows.bookTable({
      symbol: "BTCUSDT_SPBL\u001b[2J",
      depth: 15,
      version: "42",
      bids: [{ price: "29995.00", size: "0.5" }, { price: "29990.00", size: "1.25" }],
      asks: [{ price: "30005.00", size: "0.5" }]
    })
    assert.strictEqual(
      table,
      [
        "BTCUSDT_SPBL\\u001b[2J  depth 15  version 42",
        "bidSize  bid       ask       askSize",
        "0.5      29995.00  30005.00  0.5",
        "1.25     29990.00",
        ""
      ].join("\n")
    )
    const tally = { ...Watch.emptyTally(), events: 1, reconnects: 2, resynced: 3, gaps: 1, connected: true }
    assert.strictEqual(Watch.summaryLine(tally, 61_234), "1 event, 2 reconnects, 0 resyncs, 1 gap in 61.2 s")
    assert.strictEqual(
      Watch.summaryLine({ ...tally, failed: 1 }, 61_234),
      "1 event, 2 reconnects, 0 resyncs, 1 gap in 61.2 s; 1 failed connection attempt"
    )
    assert.strictEqual(
      Watch.gapLine({ _tag: "Gap", channel: "trades.BTCUSDT_SPBL", from: 1_767_225_600_000, to: 1_767_225_601_500 }),
      "trades.BTCUSDT_SPBL: trades from 2026-01-01T00:00:00.000Z to 2026-01-01T00:00:01.500Z (both included) may " +
        "be missing (more than one REST answer holds may have been made while the channel was down)"
    )
    assert.strictEqual(
      Watch.gapLine({
        _tag: "Gap",
        channel: "kline.LAST_PRICE.BTCUSDT_SPBL.MINUTE_1",
        from: 1_767_225_600_000,
        to: 1_767_225_659_999
      }),
      "kline.LAST_PRICE.BTCUSDT_SPBL.MINUTE_1: the bars opened from 2026-01-01T00:00:00.000Z to " +
        "2026-01-01T00:00:59.999Z (both included) were not read back (the outage outlasted what one backfill reads)"
    )
    assert.deepStrictEqual(
      ["30s", "5m", "1.5h", "500ms", "0s", "10", "1d", " 2s "].map(Watch.parseDuration),
      [30_000, 300_000, 5_400_000, 500, undefined, undefined, undefined, 2_000]
    )
  })

  it("a watch ended by --for or --count fails when it never connected or (private) never got in sync", () => {
    const tally = (fields: Partial<Watch.Tally>) => ({ ...Watch.emptyTally(), ...fields })
    const ending = (fields: Partial<Watch.Ending>): Watch.Ending => ({
      access: "public",
      counted: false,
      lost: undefined,
      elapsedMillis: 3_000,
      ...fields
    })
    const check = "(check SPOTKIT_PUSH_URL)"
    // Every attempt failed: ended by --for or by --count (watch ticker's REST row) alike.
    assert.strictEqual(Watch.unfinished(tally({ failed: 2 }), ending({})), `no push connection opened ${check}`)
    assert.strictEqual(
      Watch.unfinished(tally({ failed: 1, events: 1 }), ending({ counted: true })),
      `no push connection opened ${check}`
    )
    // None answered when --for ran out; --count reached by REST's ticker before one was is no failure.
    assert.strictEqual(
      Watch.unfinished(tally({}), ending({})),
      "no push connection opened in 3.0 s, and none was refused: the push endpoint did not answer, or REST did not " +
        "before connecting (check SPOTKIT_PUSH_URL and SPOTKIT_BASE_URL)"
    )
    assert.isUndefined(Watch.unfinished(tally({ events: 1 }), ending({ counted: true })))
    // Connected: a quiet public market is a success; a private watch needs its first catch-up by REST.
    assert.isUndefined(Watch.unfinished(tally({ connected: true }), ending({})))
    assert.isUndefined(Watch.unfinished(tally({ connected: true, resynced: 1 }), ending({ access: "private" })))
    assert.strictEqual(
      Watch.unfinished(tally({ connected: true }), ending({ access: "private" })),
      "never in sync: the catch-up by REST had not answered after 3.0 s (check SPOTKIT_BASE_URL)"
    )
    assert.strictEqual(
      Watch.unfinished(
        tally({ connected: true, reconnects: 1 }),
        ending({ access: "private", lost: "backfill: SpotClient.balances: transport failure: connect ECONNREFUSED" })
      ),
      "never in sync: the catch-up by REST failed (SpotClient.balances: transport failure: connect ECONNREFUSED) " +
        "(check SPOTKIT_BASE_URL)"
    )
    assert.strictEqual(
      Watch.unfinished(tally({ connected: true, reconnects: 1 }), ending({ access: "private", lost: "closed (1006)" })),
      "never in sync: the private connection was lost before its catch-up by REST answered (closed (1006))"
    )
  })

  // `watch ticker` printed the venue's fraction as it is under `change%` (`-0.011451`), where `market ticker` prints the
  // same field of the same REST ticker as a percentage (`-1.1451`): a move a hundred times smaller than it was.
  it("watch ticker's change% is a percentage, as market ticker's is; its NDJSON keeps the venue's fraction", () => {
    const ticker = {
      symbol: SYMBOL,
      lastPrice: "84320.5",
      open: "85286.1",
      high: "85500",
      low: "84000",
      priceChange: "-965.6",
      priceChangePercent: "-0.011451",
      size: "1234.5",
      value: "104000000",
      trades: 105901,
      ts: 1714564800000
    } as unknown as Market.Ticker
    const cell = (text: string) => {
      const [header, row] = text.split("\n")
      return row!.split(/\s+/)[header!.split(/\s+/).indexOf("change%")]
    }
    assert.strictEqual(cell(Records.table(Records.ticker, [ticker])), "-1.1451")
    const table = Rows.renderers.ticker("table")
    assert.strictEqual(cell(table.start + table.render({ ticker, source: "rest" })!), "-1.1451")
    const pushed = { ...ticker, priceChangePercent: "0.0025" } as unknown as Push.Ticker
    assert.strictEqual(cell(table.start + table.render({ ticker: pushed, source: "push" })!), "0.25")
    const ndjson = Rows.renderers.ticker("ndjson").render({ ticker, source: "rest" })!
    assert.strictEqual(JSON.parse(ndjson).priceChangePercent, "-0.011451")
  })

  // The summary did not count gaps: a user who watched trades for an hour could not tell from it whether trades may
  // be missing. And a book consumer's lag (a Resync only its stream hears) was neither said nor counted.
  it("the summary's tally: reconnects, resyncs (a book's, a catch-up after the first), gaps, a book's lag", () => {
    const tally = Watch.emptyTally()
    const events: ReadonlyArray<Parameters<typeof Watch.count>[0]> = [
      { _tag: "Connected", endpoint: "public", connection: 1 },
      { _tag: "Resynced", endpoint: "private", orders: 0, fills: 0 },
      { _tag: "Disconnected", endpoint: "public", connection: 1, opened: true, reason: "closed", retryInMillis: 100 },
      { _tag: "Resync", channel: "books15.BTCUSDT_SPBL", reason: "reconnect" },
      { _tag: "Resynced", endpoint: "private", orders: 1, fills: 2 },
      { _tag: "Gap", channel: "trades.BTCUSDT_SPBL", from: 1, to: 2 },
      { _tag: "Gap", channel: "trades.BTCUSDT_SPBL", from: 3, to: 4 }
    ]
    for (const event of events) Watch.count(event, tally)
    assert.deepStrictEqual(tally, {
      events: 0,
      reconnects: 1,
      failed: 0,
      connected: true,
      resyncs: 2,
      resynced: 2,
      gaps: 2
    })
    assert.strictEqual(Watch.summaryLine(tally, 3_600_000), "0 events, 1 reconnect, 2 resyncs, 2 gaps in 3600.0 s")
    const book = Rows.bookRenderer("table", false)
    assert.include(book.resync!({ _tag: "Resync", symbol: SYMBOL, reason: "lag" }), "fell behind")
    // The other resyncs are on `events` too (counted there once).
    assert.isUndefined(book.resync!({ _tag: "Resync", symbol: SYMBOL, reason: "gap" }))
  })
})
