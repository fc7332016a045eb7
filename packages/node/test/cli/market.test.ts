/**
 * `spotkit market` (`internal/cli/market.ts`), in process against a sandbox on a loopback port, with only
 * SPOTKIT_BASE_URL set: a resting order shows in `market book` at its price and size; a cross shows in `market
 * trades`, `market ticker`'s last price and the current candle of `market candles`; the level is gone after the fill.
 * Every figure equals the sandbox's engine; tables show ISO times, CSV epochs; a long range of candles is fetched
 * page by page; bad flags are refused before anything is sent; a hostile venue's text is neutralised in CSV and
 * escaped for a terminal.
 */
import { assert, describe, it } from "@effect/vitest"
import { Sandbox, TestExchange } from "@spotkit/testkit"
import { Effect, Redacted } from "effect"
import * as Records from "../../src/internal/records.ts"
import { aliceEnv, capture, linesOf, runInProcess, sandboxLayer } from "../support/cli.ts"

const BTC = "BTCUSDT_SPBL"
const MINUTE = 60_000
const iso = (millis: number) => new Date(millis).toISOString()

/** Only the venue's address: public data needs no key. */
const publicEnv = Effect.map(Sandbox.Sandbox, (sandbox) => ({ SPOTKIT_BASE_URL: sandbox.baseUrl }))

/** bob's environment, as alice's (`aliceEnv`), to cross alice's order. */
const bobEnv = Effect.gen(function*() {
  const exchange = yield* TestExchange.TestExchange
  const env = yield* aliceEnv
  const { apiKey, passphrase, secretKey } = exchange.accounts[1]!.credentials
  return {
    ...env,
    SPOTKIT_API_KEY: Redacted.value(apiKey),
    SPOTKIT_SECRET_KEY: Redacted.value(secretKey),
    SPOTKIT_PASSPHRASE: Redacted.value(passphrase)
  }
})

const requestsTo = (path: string) =>
  Effect.map(
    Effect.flatMap(Effect.service(TestExchange.TestExchange), (exchange) => exchange.requests),
    (requests) => requests.filter((request) => request.path.startsWith(`${path}?`)).length
  )

describe("market records", () => {
  it("percent: a fraction's decimal point moved two places, exactly, whatever its digits", () => {
    const cases = [
      ["-0.011451", "-1.1451"],
      ["0.011451", "1.1451"],
      ["0.05", "5"],
      ["0.5", "50"],
      ["1", "100"],
      ["12.3456789012345678901", "1234.56789012345678901"],
      ["-0.000000", "0.0000"],
      ["+0.1", "10"],
      ["0", "0"],
      ["1e-3", "1e-3"]
    ] as const
    assert.deepStrictEqual(cases.map(([fraction]) => Records.percent(fraction)), cases.map(([, percent]) => percent))
  })

  it("a ticker without its optional fields: empty cells; a book: asks highest first, then bids best first", () => {
    const ticker = { symbol: BTC, lastPrice: "1.5" } as Parameters<typeof Records.ticker.cells>[0]
    assert.deepStrictEqual(Records.ticker.cells(ticker), [BTC, "1.5", "", "", "", "", "", "", "", "", ""])
    const level = (price: string, size: string) => ({ price, size }) as { price: never; size: never }
    const levels = Records.bookLevels({
      bids: [level("9", "1"), level("8", "2")],
      asks: [level("10", "3"), level("11", "4")]
    })
    assert.deepStrictEqual(levels.map(Records.bookLevel.cells), [
      ["ask", "11", "4"],
      ["ask", "10", "3"],
      ["bid", "9", "1"],
      ["bid", "8", "2"]
    ])
  })
})

describe("market", () => {
  const { layer } = sandboxLayer({ seed: 23, bills: 0 })

  it.layer(layer, { excludeTestServices: true, timeout: "60 seconds" })("against the sandbox", (it) => {
    const market = (args: ReadonlyArray<string>) =>
      Effect.flatMap(publicEnv, (env) => runInProcess(["market", ...args], env))
    const ok = (args: ReadonlyArray<string>) =>
      Effect.map(market(args), (run) => {
        assert.strictEqual(run.exitCode, 0, run.stderr)
        assert.strictEqual(run.stderr, "")
        return run.stdout
      })
    const place =
      (env: Effect.Effect<Record<string, string>, never, TestExchange.TestExchange | Sandbox.Sandbox>) =>
      (side: string, price: string, quantity: string) =>
        Effect.gen(function*() {
          const run = yield* runInProcess(
            [
              "orders",
              "place",
              "--symbol",
              BTC,
              "--side",
              side,
              "--type",
              "limit",
              "--price",
              price,
              "--quantity",
              quantity
            ],
            yield* env
          )
          assert.strictEqual(run.exitCode, 0, run.stderr)
        })

    it.effect("a resting order in the book; a cross in the trades, the ticker and the candle; the level gone", () =>
      Effect.gen(function*() {
        const exchange = yield* TestExchange.TestExchange
        const engine = exchange.engine
        yield* place(aliceEnv)("buy", "29999.5", "0.25")

        // The book: JSON as the library gives it, equal to the engine's; the table as a trader reads it.
        const before = JSON.parse(yield* ok(["book", "--symbol", BTC, "--format", "json"]))
        assert.deepStrictEqual(before.bids[0], { price: "29999.50", size: "0.250000" })
        assert.deepStrictEqual(
          [before.bids.map((l: { price: string; size: string }) => [l.price, l.size]), before.asks.length],
          [engine.orderBook(BTC).bids, 15]
        )
        const table = linesOf(yield* ok(["book", "--symbol", BTC]))
        assert.match(table[0]!, /^side\s+price\s+size$/)
        const bestBid = table.findIndex((line) => line.startsWith("bid"))
        assert.strictEqual(bestBid, 16, "15 asks above, highest first")
        assert.deepStrictEqual(table[bestBid - 1]!.split(/\s+/), ["ask", ...engine.orderBook(BTC).asks[0]!])
        assert.deepStrictEqual(table[bestBid]!.split(/\s+/), ["bid", "29999.50", "0.250000"])
        assert.deepStrictEqual(table[1]!.split(/\s+/), ["ask", ...engine.orderBook(BTC).asks[14]!])
        assert.strictEqual(table.length, 31)
        const levels = (yield* ok(["book", "--symbol", BTC, "--format", "ndjson"])).split("\n").filter(Boolean)
        assert.deepStrictEqual(JSON.parse(levels[15]!), { side: "bid", price: "29999.50", size: "0.250000" })
        assert.deepStrictEqual(linesOf(yield* ok(["trades", "--symbol", BTC])), [
          "tradeId  time  takerSide  price  size  value"
        ])

        // bob sells into alice's bid: one trade at her price, bob the taker.
        yield* place(bobEnv)("sell", "29999.5", "0.25")
        const logged = engine.tradeList().at(-1)!
        const after = JSON.parse(yield* ok(["book", "--symbol", BTC, "--format", "json"]))
        assert.deepStrictEqual(after.bids[0], { price: "29995.00", size: "0.500000" }, "the level is gone")
        assert.notInclude(yield* ok(["book", "--symbol", BTC]), "29999.50")

        const trades = JSON.parse(yield* ok(["trades", "--symbol", BTC, "--format", "json"]))
        assert.deepStrictEqual(trades, [{
          symbol: BTC,
          tradeId: logged.tradeId,
          time: logged.time,
          price: "29999.50",
          size: "0.250000",
          value: "7499.87500000",
          buyerMaker: true,
          side: "sell"
        }])
        assert.deepStrictEqual(linesOf(yield* ok(["trades", "--symbol", BTC, "--format", "csv"])), [
          "tradeId,time,takerSide,price,size,value",
          `${logged.tradeId},${logged.time},sell,29999.50,0.250000,7499.87500000`
        ])
        assert.deepStrictEqual(linesOf(yield* ok(["trades", "--symbol", BTC]))[1]!.split(/\s+/), [
          logged.tradeId,
          iso(logged.time),
          "sell",
          "29999.50",
          "0.250000",
          "7499.87500000"
        ])

        const ticker = JSON.parse(yield* ok(["ticker", "--symbol", BTC, "--format", "json"]))
        assert.deepStrictEqual(
          [ticker.symbol, ticker.lastPrice, ticker.open, ticker.high, ticker.low, ticker.size, ticker.trades],
          [BTC, "29999.50", "29999.50", "29999.50", "29999.50", "0.250000", 1]
        )
        const [header, row] = linesOf(yield* ok(["ticker", "--symbol", BTC]))
        assert.match(header!, /^symbol\s+lastPrice\s+open\s+high\s+low\s+change\s+change%\s+baseVolume/)
        assert.deepStrictEqual(row!.split(/\s+/).slice(0, 10), [
          BTC,
          "29999.50",
          "29999.50",
          "29999.50",
          "29999.50",
          "0.00",
          "0.0000",
          "0.250000",
          "7499.87500000",
          "1"
        ])
        // The venue's time of the figures, asked again: as ISO-8601, not before the first answer's.
        const time = row!.split(/\s+/)[10]!
        assert.match(time, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
        assert.isAtLeast(Date.parse(time), ticker.ts)

        const open = logged.time - (logged.time % MINUTE)
        const candle = [open, "29999.50", "29999.50", "29999.50", "29999.50", "0.250000", "7499.87500000"]
        const csv = linesOf(yield* ok(["candles", "--symbol", BTC, "--period", "1m", "--format", "csv"]))
        assert.deepStrictEqual(csv, ["openTime,open,high,low,close,baseVolume,quoteVolume", candle.join(",")])
        const candles = linesOf(yield* ok(["candles", "--symbol", BTC, "--period", "1m"]))
        assert.deepStrictEqual(candles[1]!.split(/\s+/), [iso(open), ...candle.slice(1)])
        const ndjson = JSON.parse(yield* ok(["candles", "--symbol", BTC, "--period", "1M", "--format", "ndjson"]))
        assert.strictEqual(ndjson.close, "29999.50")
        assert.strictEqual(iso(ndjson.openTime), iso(open).slice(0, 8) + "01T00:00:00.000Z", "a calendar month")

        // Every ticker: the engine's, one row each, BTC's as above.
        const all = JSON.parse(yield* ok(["tickers", "--format", "json"]))
        assert.deepStrictEqual(
          all.map((t: { symbol: string; lastPrice: string }) => [t.symbol, t.lastPrice]),
          engine.tickers(Date.now()).map((t) => [t.symbol, t.lastPrice])
        )
        assert.strictEqual(linesOf(yield* ok(["tickers", "--format", "csv"])).length, all.length + 1)
      }))

    it.effect("candles over a long range: page by page, the same candle once, --limit counted over the range", () =>
      Effect.gen(function*() {
        yield* place(aliceEnv)("buy", "30005", "0.01")
        const last = (yield* Effect.service(TestExchange.TestExchange)).engine.tradeList().at(-1)!
        const since = last.time - 3 * 1000 * MINUTE
        const sent = yield* requestsTo("/api/v2/market/candles")
        const csv = linesOf(
          yield* ok(["candles", "--symbol", BTC, "--period", "1m", "--since", String(since), "--format", "csv"])
        )
        assert.isAtLeast((yield* requestsTo("/api/v2/market/candles")) - sent, 3, "a page per 1,000 minutes")
        const newest = linesOf(yield* ok(["candles", "--symbol", BTC, "--period", "1m", "--format", "csv"]))
        assert.deepStrictEqual(csv, newest)
        assert.strictEqual(csv.at(-1)!.split(",")[0], String(last.time - (last.time % MINUTE)))
        const ndjson = yield* ok([
          "candles",
          "--symbol",
          BTC,
          "--period",
          "1m",
          "--since",
          iso(since),
          "--format",
          "ndjson"
        ])
        assert.deepStrictEqual(
          linesOf(ndjson).map((line) => JSON.parse(line).openTime),
          newest.slice(1).map((line) => Number(line.split(",")[0]))
        )
        const beforeFirst = yield* requestsTo("/api/v2/market/candles")
        const first = JSON.parse(
          yield* ok([
            "candles",
            "--symbol",
            BTC,
            "--period",
            "1m",
            "--since",
            String(since),
            "--limit",
            "1",
            "--format",
            "json"
          ])
        )
        assert.deepStrictEqual(first.map((c: { openTime: number }) => c.openTime), [Number(newest[1]!.split(",")[0])])
        // --limit does not shrink the pages: 3,000 minutes are 3 or 4 windows of 1,000, not 3,000 of one.
        assert.isAtMost((yield* requestsTo("/api/v2/market/candles")) - beforeFirst, 4)
        const none = yield* ok(["candles", "--symbol", BTC, "--period", "1m", "--until", String(since)])
        assert.deepStrictEqual(linesOf(none), ["openTime  open  high  low  close  baseVolume  quoteVolume"])
      }))

    // The CSV header was written before the first page was asked for: a refused command left a header-only CSV on
    // stdout (`> candles.csv` then looked like a range without candles).
    it.effect("candles --since as CSV: nothing on stdout when refused; a range without candles is the header alone", () =>
      Effect.gen(function*() {
        const csv = (symbol: string, env?: Record<string, string>) => {
          const args = ["candles", "--symbol", symbol, "--period", "1h", "--since", "2024-05-01", "--format", "csv"]
          return env === undefined ? market(args) : runInProcess(["market", ...args], env)
        }
        const badInput = yield* csv("btcusdt")
        assert.strictEqual(badInput.exitCode, 2, badInput.stderr)
        assert.strictEqual(badInput.stdout, "")
        const unlisted = yield* csv("XYZUSDT_SPBL")
        assert.strictEqual(unlisted.exitCode, 1, unlisted.stderr)
        assert.strictEqual(unlisted.stdout, "")
        const unreachable = yield* csv(BTC, { SPOTKIT_BASE_URL: "http://127.0.0.1:1" })
        assert.strictEqual(unreachable.exitCode, 1, unreachable.stderr)
        assert.strictEqual(unreachable.stdout, "")
        // No trade in May 2024: the stream ends well with no candle, and the CSV is its header.
        const empty = yield* ok([
          "candles",
          "--symbol",
          BTC,
          "--period",
          "1h",
          "--since",
          "2024-05-01",
          "--until",
          "2024-05-02",
          "--format",
          "csv"
        ])
        assert.strictEqual(empty, "openTime,open,high,low,close,baseVolume,quoteVolume\n")
      }))

    it.effect("bad flags: exit code 2 before anything is sent; an unknown symbol: the venue's refusal, exit code 1", () =>
      Effect.gen(function*() {
        const depth = yield* requestsTo("/api/v2/market/depth")
        for (
          const args of [
            ["book", "--symbol", BTC, "--limit", "20"],
            ["trades", "--symbol", BTC, "--limit", "1001"],
            ["trades", "--symbol", BTC, "--limit", "0"],
            ["candles", "--symbol", BTC, "--period", "1m", "--limit", "1001"],
            ["candles", "--symbol", BTC, "--period", "3m"],
            ["candles", "--symbol", BTC, "--period", "1m", "--since", "2024-05-02", "--until", "2024-05-01"],
            ["candles", "--symbol", BTC, "--period", "1m", "--since", "yesterday"],
            ["ticker"]
          ]
        ) {
          const run = yield* market(args)
          assert.strictEqual(run.exitCode, 2, `${args.join(" ")}: ${run.stderr}`)
          assert.strictEqual(run.stdout, "")
          assert.strictEqual(linesOf(run.stderr).length, 1, run.stderr)
        }
        assert.strictEqual(
          (yield* market(["book", "--symbol", BTC, "--limit", "20"])).stderr,
          "spotkit: --limit: 20 is not 15 or 200\n"
        )
        // With --since the range has no upper bound on candles: the message names the bound there is.
        assert.strictEqual(
          (yield* market(["candles", "--symbol", BTC, "--period", "1m", "--since", "2024-05-01", "--limit", "0"]))
            .stderr,
          "spotkit: --limit: 0 is not at least 1\n"
        )
        assert.strictEqual(
          (yield* market(["candles", "--symbol", BTC, "--period", "1m", "--limit", "1001"])).stderr,
          "spotkit: --limit: 1001 is not between 1 and 1000\n"
        )
        assert.strictEqual(yield* requestsTo("/api/v2/market/depth"), depth)
        const unknown = yield* market(["ticker", "--symbol", "DOGEUSDT_SPBL"])
        assert.strictEqual(unknown.exitCode, 1)
        assert.strictEqual(unknown.stdout, "")
        assert.include(unknown.stderr, "40102")
        const nowhere = yield* runInProcess(["market", "tickers"], {})
        assert.strictEqual(nowhere.exitCode, 2)
        assert.include(nowhere.stderr, "SPOTKIT_BASE_URL")
        // A base URL with a path the venue does not serve (a gateway's prefix given to the wrong host): its 404 says
        // which variable to check.
        const env = yield* publicEnv
        const prefixed = yield* runInProcess(["market", "ticker", "--symbol", BTC], {
          ...env,
          SPOTKIT_BASE_URL: `${env.SPOTKIT_BASE_URL}/gateway`
        })
        assert.strictEqual(prefixed.exitCode, 1)
        assert.match(prefixed.stderr, /40404.*; check SPOTKIT_BASE_URL: the venue has no such path\n$/)
        assert.notInclude(unknown.stderr, "check SPOTKIT_BASE_URL", "a venue code other than a 404 names no variable")
      }))
  })
})

// A venue whose trade ids are spreadsheet formulas and terminal escapes (what it sends is its choice).
const FORMULA = "=HYPERLINK(\"http://evil.example\",\"x\")"
const rewrite = (path: string, body: string) => {
  let n = 0
  return !path.startsWith("/api/v2/market/fills?") ? body : body.replace(
    /"tradeId":"[^"]*"/g,
    () => `"tradeId":${JSON.stringify(n++ % 2 === 0 ? FORMULA : "\u001b]8;;http://evil.example\u0007x")}`
  )
}

// eslint-disable-next-line no-control-regex
const TERMINAL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/

describe("market trades from a hostile venue", () => {
  const { layer } = sandboxLayer({ seed: 24, bills: 0, rewrite })

  it.layer(layer, { excludeTestServices: true, timeout: "60 seconds" })("against the sandbox", (it) => {
    it.effect("CSV cells a spreadsheet would run get a leading '; nothing a terminal acts on reaches one", () =>
      Effect.gen(function*() {
        const env = yield* aliceEnv
        for (const [price, cid] of [["30005", "h-1"], ["30010", "h-2"]] as const) {
          const run = yield* runInProcess(
            [
              "orders",
              "place",
              "--symbol",
              BTC,
              "--side",
              "buy",
              "--type",
              "limit",
              "--price",
              price,
              "--quantity",
              "0.01",
              "--client-order-id",
              cid
            ],
            env
          )
          assert.strictEqual(run.exitCode, 0, run.stderr)
        }
        const csv = yield* runInProcess(["market", "trades", "--symbol", BTC, "--format", "csv"], env)
        assert.strictEqual(csv.exitCode, 0, csv.stderr)
        assert.include(csv.stdout, `"'${FORMULA.replaceAll("\"", "\"\"")}",`)
        assert.notMatch(csv.stdout, /^=/m)
        for (const format of ["table", "csv", "ndjson", "json"]) {
          const tty = capture(true)
          const run = yield* runInProcess(["market", "trades", "--symbol", BTC, "--format", format], env, {
            stdout: tty.channel
          })
          assert.strictEqual(run.exitCode, 0, run.stderr)
          const text = tty.chunks.join("")
          for (const line of linesOf(text)) assert.notMatch(line, TERMINAL, format)
          assert.include(text, "\\u001b]8;;http://evil.example\\u0007x", format)
        }
      }))
  })
})

describe("market ticker from a venue that answers about another symbol", () => {
  // A gateway that routes the request to another market, or a body rewritten on the way.
  const otherMarket = (path: string, body: string) =>
    path.startsWith("/api/v2/market/ticker?") ? body.replaceAll(BTC, "ETHUSDT_SPBL") : body
  const { layer } = sandboxLayer({ seed: 25, bills: 0, rewrite: otherMarket })

  it.layer(layer, { excludeTestServices: true, timeout: "60 seconds" })("against the sandbox", (it) => {
    it.effect("is not printed as the asked symbol's: one line naming both symbols, exit code 1", () =>
      Effect.gen(function*() {
        const env = yield* aliceEnv
        const run = yield* runInProcess(["market", "ticker", "--symbol", BTC], env)
        assert.strictEqual(run.exitCode, 1, run.stdout)
        assert.strictEqual(run.stdout, "")
        assert.strictEqual(linesOf(run.stderr).length, 1, run.stderr)
        assert.include(run.stderr, `the answer names symbol ETHUSDT_SPBL, not the symbol asked ${BTC}`)
      }))
  })
})
