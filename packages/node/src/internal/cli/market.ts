// `spotkit market`: the venue's public market data — a symbol's ticker, every ticker, the order book, candles (a long
// range paged by time through `candleHistory`) and the recent trades. Public data: only SPOTKIT_BASE_URL is needed.
import { Market, type SpotError } from "@spotkit/core"
import { Effect, Option, Stream } from "effect"
import { Command, Flag } from "effect/cli"
import * as Formats from "../formats.ts"
import * as Records from "../records.ts"
import * as Export from "./export.ts"
import {
  client,
  csvMode,
  handled,
  listFlags,
  type ListFormat,
  NAME,
  redacted,
  symbol,
  usage,
  write,
  writeRecords
} from "./shared.ts"

const FORMATS = "table, csv (with a header row), json or ndjson"

/** The venue's largest answer of candles or trades to one request. */
const MOST = 1000

const limitFlag = (description: string) =>
  Flag.Int("limit").pipe(Flag.withDescription(description), Flag.withMetavar("N"), Flag.optional)

/**
 * `--limit` within 1..`most` (at least 1 when there is no bound: a range paged by time), or bad usage (exit code 2)
 * before anything is sent.
 */
const checkedLimit = (limit: Option.Option<number>, most: number | undefined) => {
  if (Option.isNone(limit)) return Effect.succeed(undefined)
  const n = limit.value
  if (most === undefined) return n >= 1 ? Effect.succeed(n) : usage(`--limit: ${n} is not at least 1`)
  return n >= 1 && n <= most ? Effect.succeed(n) : usage(`--limit: ${n} is not between 1 and ${most}`)
}

/**
 * Records of a stream on stdout: a table or a JSON array once all have come (a table's widths need them all); CSV
 * and NDJSON as they come, in constant memory. Credentials removed either way.
 */
const writeStream = <A>(
  shape: Records.Shape<A>,
  stream: Stream.Stream<A, SpotError.SpotError>,
  as: ListFormat
) =>
  Effect.gen(function*() {
    if (as.format === "table" || as.format === "json") {
      return yield* writeRecords(shape, yield* Stream.runCollect(stream), as)
    }
    const mode = yield* csvMode(as.csvRaw)
    // The CSV header goes with the first rows, or once the stream ended well without any: a command refused (bad
    // input, a symbol the venue does not list, a venue out of reach) leaves stdout empty, as every refused one does.
    let header = as.format === "csv" ? Formats.csv([shape.columns], mode) : ""
    const headed = (text: string) => {
      const first = header
      header = ""
      return first + text
    }
    yield* Stream.runForEachArray(stream, (records) =>
      records.length === 0 ? Effect.void : Effect.flatMap(
        redacted(records),
        (clean) => write(headed(as.format === "csv" ? Records.csv(shape, clean, mode) : Formats.ndjson(clean)))
      ))
    if (header !== "") yield* write(headed(""))
  })

const ticker = Command.make(
  "ticker",
  { symbol, ...listFlags(["json", "ndjson"], `${FORMATS} (one object)`) },
  Effect.fnUntraced(function*(flags) {
    const spot = yield* client("public")
    const one = yield* spot.ticker(flags.symbol)
    if (flags.format === "json") return yield* write(Formats.json(yield* redacted(one)))
    yield* writeRecords(Records.ticker, [one], flags)
  }, handled)
).pipe(
  Command.withShortDescription("A symbol's 24-hour statistics: last price, change, high, low, volumes"),
  Command.withDescription(
    "Shows a symbol's rolling 24-hour statistics: the last price, the open, high and low, the change (in the " +
      "table and CSV also in percent; in JSON priceChangePercent is a fraction), the volumes in the base and the " +
      "quote coin, the number of trades, and the venue's time of the figures. Prices and volumes are exact decimals"
  ),
  Command.withExamples([
    { command: `${NAME} market ticker --symbol BTCUSDT_SPBL`, description: "BTC's last price and 24-hour figures" },
    { command: `${NAME} market ticker --symbol BTCUSDT_SPBL --format json`, description: "As the library gives it" }
  ])
)

const tickers = Command.make(
  "tickers",
  listFlags(["json", "ndjson"], `${FORMATS} (one object a line)`),
  Effect.fnUntraced(function*(flags) {
    const spot = yield* client("public")
    yield* writeRecords(Records.ticker, yield* spot.tickers(), flags)
  }, handled)
).pipe(
  Command.withShortDescription("Every symbol's 24-hour statistics"),
  Command.withDescription(
    "Shows every symbol's ticker, one row each, with the columns of market ticker. One request, which the venue " +
      "weighs as forty ticker requests"
  ),
  Command.withExamples([
    { command: `${NAME} market tickers`, description: "Every symbol's last price and 24-hour figures" },
    { command: `${NAME} market tickers --format csv`, description: "The same as CSV" }
  ])
)

const book = Command.make(
  "book",
  {
    symbol,
    limit: Flag.Int("limit").pipe(
      Flag.withDescription("Price levels a side: 15 or 200 (the depths the venue serves)"),
      Flag.withDefault(15)
    ),
    ...listFlags(["json", "ndjson"], `${FORMATS} (json: the book as one object, bids and asks best first)`)
  },
  Effect.fnUntraced(function*(flags) {
    const limit = flags.limit
    if (limit !== 15 && limit !== 200) return yield* usage(`--limit: ${limit} is not 15 or 200`)
    const spot = yield* client("public")
    const answer = yield* spot.orderBook(flags.symbol, { limit })
    if (flags.format === "json") return yield* write(Formats.json(yield* redacted(answer)))
    yield* writeRecords(Records.bookLevel, Records.bookLevels(answer), flags)
  }, handled)
).pipe(
  Command.withShortDescription("A symbol's order book, 15 or 200 price levels a side"),
  Command.withDescription(
    "Shows a symbol's order book: the size resting at each price level, as exact decimals. The table, CSV and " +
      "NDJSON list the levels as a trader reads them, the asks from the highest price down to the best ask, then " +
      "the bids from the best bid down; JSON is the book as one object, bids and asks each best first"
  ),
  Command.withExamples([
    { command: `${NAME} market book --symbol BTCUSDT_SPBL`, description: "The best 15 levels a side" },
    { command: `${NAME} market book --symbol BTCUSDT_SPBL --limit 200 --format json`, description: "200 as JSON" }
  ])
)

const candles = Command.make(
  "candles",
  {
    symbol,
    period: Flag.Literals("period", Market.CandlePeriod.literals).pipe(
      Flag.withDescription("The candle period: 1m 5m 15m 30m 1h 2h 4h 6h 8h 12h 1d 1w (from Monday) 1M (UTC)")
    ),
    ...Export.rangeFlags("candles opening"),
    limit: limitFlag(
      `Candles at most: without --since the newest (1..${MOST}, the venue's default when absent); with --since ` +
        "the first after it"
    ),
    ...listFlags(["json", "ndjson"], `${FORMATS}; ascending by open time`)
  },
  Effect.fnUntraced(function*(flags) {
    // Checked before anything is sent.
    const range = yield* Export.range(flags)
    const limit = yield* checkedLimit(flags.limit, range.since === undefined ? MOST : undefined)
    const spot = yield* client("public")
    if (range.since === undefined) {
      const newest = yield* spot.candles(flags.symbol, flags.period, { limit, endTime: range.until })
      return yield* writeRecords(Records.candle, newest, flags)
    }
    // A range of any length, page by page as the rows are written. Full pages whatever --limit says: a page is a
    // window of pageSize periods, and candles are sparse (a period without a trade has none), so a small page would
    // walk an empty range a few periods at a time; the stream stops at --limit anyway.
    const history = spot.candleHistory(flags.symbol, flags.period, {
      since: range.since,
      until: range.until,
      pageSize: MOST
    })
    yield* writeStream(Records.candle, limit === undefined ? history : Stream.take(history, limit), flags)
  }, handled)
).pipe(
  Command.withShortDescription("A symbol's candles of a period, ascending by open time"),
  Command.withDescription(
    "Shows a symbol's candles (open time, open, high, low, close, base and quote volume) in ascending open time. " +
      "Without --since: the newest (before --until), one request. With --since: every candle opening from --since " +
      "(inclusive) to --until (exclusive, default now), fetched page by page without gaps or repeats; CSV and " +
      "NDJSON are written as the pages come. Days, weeks (from Monday) and months open at midnight UTC"
  ),
  Command.withExamples([
    { command: `${NAME} market candles --symbol BTCUSDT_SPBL --period 1m`, description: "The newest minute candles" },
    {
      command: `${NAME} market candles --symbol BTCUSDT_SPBL --period 1h --since 2024-05-01 --until 2024-06-01 ` +
        "--format csv",
      description: "May 2024's hourly candles as CSV"
    }
  ])
)

const trades = Command.make(
  "trades",
  {
    symbol,
    limit: limitFlag(`Trades at most, 1..${MOST} (the venue's default, 100, when absent)`),
    ...listFlags(["json", "ndjson"], `${FORMATS}; newest first`)
  },
  Effect.fnUntraced(function*(flags) {
    const limit = yield* checkedLimit(flags.limit, MOST)
    const spot = yield* client("public")
    yield* writeRecords(Records.trade, yield* spot.recentTrades(flags.symbol, { limit }), flags)
  }, handled)
).pipe(
  Command.withShortDescription("A symbol's latest trades, newest first"),
  Command.withDescription(
    "Shows the latest trades on a symbol's market (anyone's), newest first: the trade id, time, the taker's side " +
      "(sell when the buyer was the maker), price, size (base coin) and value (quote coin), as exact decimals"
  ),
  Command.withExamples([
    { command: `${NAME} market trades --symbol BTCUSDT_SPBL`, description: "The latest 100 trades" },
    { command: `${NAME} market trades --symbol BTCUSDT_SPBL --limit 1000 --format csv`, description: "1,000 as CSV" }
  ])
)

/** `spotkit market`. */
export const market = Command.make("market").pipe(
  Command.withDescription(
    "Public market data: tickers, the order book, candles and recent trades (only SPOTKIT_BASE_URL is needed, no key)"
  ),
  Command.withSubcommands([ticker, tickers, book, candles, trades])
)
