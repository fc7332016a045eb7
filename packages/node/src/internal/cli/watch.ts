// `spotkit watch`: the venue's push streams on stdout as they happen, through `SpotPush` (`NodeSpotPush`) — the
// private ones (orders, fills, balances) gap-free across reconnects, the book never printed across a gap. One object
// per event as NDJSON, or table rows (times as ISO-8601 in UTC); the book is redrawn in place on a terminal and
// printed as successive tables elsewhere. Reconnects and resyncs are one line each on stderr. It runs until Ctrl-C
// (exit code 130), `--count` events or `--for` a duration (exit code 0), and ends with a one-line summary on stderr.
import { Market, SpotClient, SpotPush } from "@spotkit/core"
import type { Push, PushError, SpotError } from "@spotkit/core"
import { Clock, Context, Effect, Layer, Option, Stream } from "effect"
import type { Scope } from "effect"
import { Command, Flag } from "effect/cli"
import * as NodeSpotPush from "../../NodeSpotPush.ts"
import * as Formats from "../formats.ts"
import * as Output from "../output.ts"
import type * as Environment from "./environment.ts"
import * as Shared from "./shared.ts"

// ---------------------------------------------------------------------------------------------------------------
// flags

const formatFlag = Shared.format(
  ["table", "ndjson"],
  "table (rows as events come; the book as a table, redrawn in place on a terminal) or ndjson (one object per event)"
)

const countFlag = Flag.Int("count").pipe(
  Flag.withDescription("Stop after N events (exit code 0)"),
  Flag.withMetavar("N"),
  Flag.optional
)

const forFlag = Flag.String("for").pipe(
  Flag.withDescription("Stop after this long, e.g. 30s, 5m, 1h or 500ms (exit code 0)"),
  Flag.withMetavar("DURATION"),
  Flag.optional
)

const commonFlags = { format: formatFlag, count: countFlag, for: forFlag }

interface Common {
  readonly format: "table" | "ndjson"
  readonly count: Option.Option<number>
  readonly for: Option.Option<string>
}

const UNITS: Readonly<Record<string, number>> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 }

/** A duration as `--for` takes it (`30s`, `5m`, `1.5h`, `500ms`), in milliseconds; undefined when it is not one. */
export const parseDuration = (text: string): number | undefined => {
  const match = /^(\d{1,9}(?:\.\d{1,3})?)\s*(ms|s|m|h)$/.exec(text.trim())
  if (match === null) return undefined
  const millis = Math.round(Number(match[1]) * UNITS[match[2]!]!)
  return millis > 0 ? millis : undefined
}

// `--count` and `--for`, checked before anything is built or sent (exit code 2).
const checked = (flags: Common) =>
  Effect.gen(function*() {
    const count = Option.getOrUndefined(flags.count)
    if (count !== undefined && count < 1) return yield* Shared.usage("--count must be at least 1")
    const text = Option.getOrUndefined(flags.for)
    const millis = text === undefined ? undefined : parseDuration(text)
    if (text !== undefined && millis === undefined) {
      return yield* Shared.usage(`--for ${text} is not a duration such as 30s, 5m, 1h or 500ms`)
    }
    return { count, millis }
  })

// ---------------------------------------------------------------------------------------------------------------
// rendering

/** How a stream's elements are printed: the text of one on stdout (undefined: nothing), and whether it counts. */
interface Renderer<A> {
  /** What goes first (a table's header), if anything. */
  readonly start: string
  readonly render: (value: A) => string | undefined
  /**
   * The line on stderr for an element that is not printed but tells of a resync only the stream's consumer hears (a
   * book consumer that fell behind); it is counted as a resync. Undefined: none.
   */
  readonly resync?: ((value: A) => string | undefined) | undefined
}

/** A column of a row-per-event table: its title, the width it is padded to, and its cell. */
type Column<A> = readonly [title: string, width: number, cell: (value: A) => string]

const pad = (cells: ReadonlyArray<string>, widths: ReadonlyArray<number>): string =>
  cells.map((cell, i) => i === cells.length - 1 ? cell : cell.padEnd(widths[i]!)).join("  ").trimEnd() + "\n"

// Rows as events come: no table can be measured ahead, so each column has a width, and a longer cell pushes the rest.
const rows = <A>(columns: ReadonlyArray<Column<A>>): Renderer<A> => {
  const widths = columns.map(([title, width]) => Math.max(title.length, width))
  return {
    start: pad(columns.map(([title]) => title), widths),
    render: (value) => pad(columns.map(([, , cell]) => Formats.printable(cell(value))), widths)
  }
}

const ndjson = <A>(view: (value: A) => unknown = (value) => value): Renderer<A> => ({
  start: "",
  render: (value) => Formats.ndjson([view(value)])
})

const time = (millis: number | undefined): string => millis === undefined ? "" : Formats.isoTime(millis)
const text = (value: string | undefined): string => value ?? ""
const ISO = 24

const fillColumns: ReadonlyArray<Column<SpotPush.Fill>> = [
  ["time", ISO, (f) => time(f.time)],
  ["fillId", 19, (f) => f.fillId],
  ["orderId", 19, (f) => f.orderId],
  ["symbol", 12, (f) => f.symbol],
  ["side", 4, (f) => f.side],
  ["quantity", 10, (f) => f.quantity],
  ["value", 12, (f) => f.value],
  ["fee", 10, (f) => f.fee],
  ["role", 5, (f) => text(f.role)],
  ["source", 6, (f) => f.source]
]

const orderColumns: ReadonlyArray<Column<SpotPush.OrderUpdate>> = [
  ["updated", ISO, (o) => time(o.updatedTime)],
  ["orderId", 19, (o) => o.orderId],
  ["clientOrderId", 13, (o) => text(o.clientOrderId)],
  ["symbol", 12, (o) => o.symbol],
  ["side", 4, (o) => o.side],
  ["type", 6, (o) => text(o.orderType)],
  ["price", 10, (o) => text(o.price)],
  ["quantity", 10, (o) => text(o.quantity)],
  ["filled", 10, (o) => o.filledQuantity],
  ["status", 12, (o) => o.status],
  ["source", 6, (o) => o.source]
]

const balanceColumns: ReadonlyArray<Column<SpotPush.Balance>> = [
  ["coin", 6, (b) => b.coinName],
  ["coinId", 6, (b) => b.coinId],
  ["available", 16, (b) => b.available],
  ["frozen", 16, (b) => b.frozen],
  ["equity", 16, (b) => text(b.equity)],
  ["source", 6, (b) => b.source]
]

const tradeColumns: ReadonlyArray<Column<SpotPush.PublicTrade>> = [
  ["time", ISO, (t) => time(t.time)],
  ["symbol", 12, (t) => t.symbol],
  ["side", 4, (t) => t.side],
  ["price", 10, (t) => t.price],
  ["size", 10, (t) => t.size],
  ["tradeId", 19, (t) => text(t.tradeId)],
  ["source", 6, (t) => t.source]
]

const tickerColumns: ReadonlyArray<Column<Push.Ticker>> = [
  ["time", ISO, (t) => time(t.ts)],
  ["symbol", 12, (t) => t.symbol],
  ["last", 10, (t) => t.lastPrice],
  ["open", 10, (t) => text(t.open)],
  ["high", 10, (t) => text(t.high)],
  ["low", 10, (t) => text(t.low)],
  ["change%", 8, (t) => text(t.priceChangePercent)],
  ["volume", 12, (t) => text(t.size)]
]

const candleColumns: ReadonlyArray<Column<SpotPush.CandleUpdate>> = [
  ["openTime", ISO, (c) => time(c.openTime)],
  ["symbol", 12, (c) => c.symbol],
  ["period", 6, (c) => c.period],
  ["open", 10, (c) => c.open],
  ["high", 10, (c) => c.high],
  ["low", 10, (c) => c.low],
  ["close", 10, (c) => c.close],
  ["baseVolume", 12, (c) => c.baseVolume],
  ["quoteVolume", 12, (c) => c.quoteVolume],
  ["source", 6, (c) => c.source]
]

// On a terminal the book is drawn from the top left over the last one (cursor home, clear to the end of the screen).
const REDRAW = "\u001b[H\u001b[J"

/** One book as a table: the best levels first, bids on the left, asks on the right. */
export const bookTable = (book: SpotPush.OrderBook): string => {
  const body: Array<Array<string>> = []
  for (let i = 0; i < Math.max(book.bids.length, book.asks.length); i++) {
    const bid = book.bids[i]
    const ask = book.asks[i]
    body.push([bid?.size ?? "", bid?.price ?? "", ask?.price ?? "", ask?.size ?? ""])
  }
  return `${Formats.printable(book.symbol)}  depth ${book.depth}  version ${book.version}\n` +
    Formats.table(["bidSize", "bid", "ask", "askSize"], body)
}

const bookView = (book: SpotPush.OrderBook) => ({
  symbol: book.symbol,
  depth: book.depth,
  version: book.version,
  bids: book.bids,
  asks: book.asks
})

/**
 * How `watch book` prints. Only books reach stdout; a resync is a line on stderr: from `SpotPush.events` (`notice`),
 * except a lag's, which only the book's consumer hears (the printing fell behind its queue: the books between
 * were skipped, the latest one comes next).
 */
export const bookRenderer = (format: Common["format"], terminal: boolean): Renderer<SpotPush.BookEvent> => {
  let first = true
  return {
    start: "",
    resync: (event) =>
      event._tag === "Resync" && event.reason === "lag"
        ? `${event.symbol}: the printing fell behind the book; books were skipped, the latest one follows`
        : undefined,
    render: (event) => {
      if (event._tag !== "Book") return undefined
      if (format === "ndjson") return Formats.ndjson([bookView(event.book)])
      const table = bookTable(event.book)
      const separator = terminal ? REDRAW : first ? "" : "\n"
      first = false
      return separator + table
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// running

/** What a watch counts for its summary. */
export interface Tally {
  events: number
  /** Connections lost after they opened. */
  reconnects: number
  /** Attempts to open a connection that failed (`Disconnected` with `opened` false). */
  failed: number
  /** Whether a connection opened. */
  connected: boolean
  resyncs: number
  /** The private session's catch-ups by REST: the first is its start, each later one a resync. */
  resynced: number
  /** Spans of trades that may be missing, or of bars not read back (`Gap`). */
  gaps: number
}

const NOTHING_YET: Tally = { events: 0, reconnects: 0, failed: 0, connected: false, resyncs: 0, resynced: 0, gaps: 0 }

/** A tally of nothing yet. */
export const emptyTally = (): Tally => ({ ...NOTHING_YET })

/**
 * Counts an event of `SpotPush.events` in the summary's tally: a reconnect (or a failed attempt to connect, apart), a
 * resync (a book's, or the private session's catch-up after a reconnect — not its first, which is its start), a gap.
 */
export const count = (event: SpotPush.Event, tally: Tally): void => {
  switch (event._tag) {
    case "Connected":
      tally.connected = true
      return
    case "Disconnected":
      if (event.opened) tally.reconnects++
      else tally.failed++
      return
    case "Resync":
      tally.resyncs++
      return
    case "Resynced":
      if (tally.resynced++ > 0) tally.resyncs++
      return
    case "Gap":
      tally.gaps++
      return
  }
}

// One line on stderr per reconnect, resync and gap, each counted (`count`). The private session's first catch-up by
// REST is its start, not a resync: it is said once, as the moment the watch is live.
const notice = (event: SpotPush.Event, tally: Tally) => {
  const first = event._tag === "Resynced" && tally.resynced === 0
  count(event, tally)
  switch (event._tag) {
    case "Connected":
      return Effect.void
    case "Disconnected":
      return Shared.note(
        event.opened
          ? `the ${event.endpoint} connection was lost (${event.reason}); reconnecting in ${event.retryInMillis} ms`
          : `cannot connect to the ${event.endpoint} push endpoint (${event.reason}); trying again in ` +
            `${event.retryInMillis} ms (check SPOTKIT_PUSH_URL)`
      )
    case "Resync":
      return Shared.note(
        event.reason === "snapshot"
          ? `${event.channel}: no snapshot after the acknowledgement; subscribing again`
          : `${event.channel}: resync from a new snapshot (${event.reason})`
      )
    case "Resynced":
      // The first catch-up: from now on nothing is missed (a script may wait for this line before it trades).
      if (first) return Shared.note("listening: the private streams are in sync with REST")
      return Shared.note(
        `private streams caught up by REST after the reconnect (${event.orders} orders, ${event.fills} fills read)`
      )
    case "Gap":
      return Shared.note(gapLine(event))
  }
}

/** The note of a channel's gap: the span whose trades may be missing, or whose bars were not read back. */
export const gapLine = (gap: Extract<SpotPush.Event, { readonly _tag: "Gap" }>): string =>
  gap.channel.startsWith("kline.")
    ? `${gap.channel}: the bars opened from ${Formats.isoTime(gap.from)} to ${Formats.isoTime(gap.to)} (both ` +
      `included) were not read back (the outage outlasted what one backfill reads)`
    : `${gap.channel}: trades from ${Formats.isoTime(gap.from)} to ${Formats.isoTime(gap.to)} (both included) may ` +
      `be missing (more than one REST answer holds may have been made while the channel was down)`

const seconds = (millis: number): string => `${(millis / 1000).toFixed(1)} s`

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? "" : "s"}`

/**
 * The summary line: events printed, reconnects, resyncs, gaps (spans of trades that may be missing), and the time
 * the watch ran. No resync and no gap: nothing was missed.
 */
export const summaryLine = (tally: Tally, elapsedMillis: number): string =>
  `${plural(tally.events, "event")}, ${plural(tally.reconnects, "reconnect")}, ${plural(tally.resyncs, "resync")}, ${
    plural(tally.gaps, "gap")
  } in ${seconds(elapsedMillis)}${tally.failed > 0 ? `; ${plural(tally.failed, "failed connection attempt")}` : ""}`

// The push service for the command's scope, over the client (clock offset, REST backfill); credentials only for the
// private channels.
const pushOf = (
  options: Environment.Options,
  client: SpotClient.Service,
  access: Environment.Access
): Effect.Effect<SpotPush.Service, SpotError.SpotError, Scope.Scope> =>
  Effect.map(
    Layer.build(
      NodeSpotPush.layer({
        url: options.pushUrl!,
        credentials: access === "private" ? options.credentials : undefined,
        redis: options.redis,
        proxy: options.proxy
      }).pipe(Layer.provide(Layer.succeed(SpotClient.SpotClient, client)))
    ),
    (context) => Context.get(context, SpotPush.SpotPush)
  )

/** What one `watch` command streams and how it prints it. */
interface Plan<A> {
  readonly access: Environment.Access
  readonly stream: (push: SpotPush.Service) => Stream.Stream<A, PushError.PushError>
  readonly renderer: (format: Common["format"], terminal: boolean) => Renderer<A>
}

const run = <A>(plan: Plan<A>, flags: Common) =>
  Effect.gen(function*() {
    const { count, millis } = yield* checked(flags)
    const options = yield* Shared.environment(plan.access, true)
    const client = yield* Shared.clientOf(options)
    const push = yield* pushOf(options, client, plan.access)
    const output = yield* Output.Output
    const renderer = plan.renderer(flags.format, output.stdout.isTTY)
    const tally = emptyTally()
    const started = yield* Clock.currentTimeMillis
    const summary = Effect.flatMap(
      Clock.currentTimeMillis,
      (now) => Effect.ignore(Shared.note(summaryLine(tally, now - started)))
    )
    // Subscribed before the stream connects, so that no connection's event is missed.
    const events = yield* Stream.toPull(push.events)
    yield* Effect.forkScoped(Stream.runForEach(Stream.fromPull(Effect.succeed(events)), (e) => notice(e, tally)))
    // The table's header with the first row, or once the watch ended well with none: a watch refused (a symbol of no
    // trading pair's form) leaves stdout empty, as every command refused does.
    let headed = renderer.start === "" || flags.format !== "table"
    const head = Effect.suspend(() => {
      if (headed) return Effect.void
      headed = true
      return Shared.write(renderer.start)
    })
    const printed = plan.stream(push).pipe(
      Stream.mapEffect((value) =>
        Effect.flatMap(Shared.redacted(value), (clean) => {
          const line = renderer.render(clean)
          if (line === undefined) {
            const resync = renderer.resync?.(clean)
            if (resync === undefined) return Effect.succeed(false)
            tally.resyncs++
            return Effect.as(Shared.note(resync), false)
          }
          tally.events++
          return Effect.as(Effect.andThen(head, Shared.write(line)), true)
        })
      ),
      Stream.takeUntil((counted) => counted && count !== undefined && tally.events >= count)
    )
    const ran = Stream.runDrain(printed).pipe(
      // A stream asked for with bad input (the symbol's form, a limit) is bad usage, as for every command: code 2.
      // Credentials REST refused too name the variable to check, as a REST command's refusal does.
      Effect.catchTag("PushError", (error) =>
        error.reason._tag === "ValidationError"
          ? Shared.usage(error.message)
          : Shared.failure(
            error.reason._tag === "CredentialsRefusedError"
              ? Shared.withCredentialHint(error.message, error.reason.error)
              : error.message
          ))
    )
    yield* (millis === undefined ? ran : Effect.asVoid(Effect.timeoutOption(ran, millis))).pipe(
      Effect.onInterrupt(() => summary)
    )
    yield* head
    yield* summary
    // Ended by `--for` or `--count` without a connection ever opened: not a quiet market, a failure.
    if (!tally.connected && tally.failed > 0) {
      yield* Shared.failure("no push connection opened (check SPOTKIT_PUSH_URL)")
    }
  })

// ---------------------------------------------------------------------------------------------------------------
// commands

const symbolsOf = (symbol: Option.Option<string>) =>
  Option.match(symbol, { onNone: () => undefined, onSome: (s) => [s] })

const optionalSymbol = Flag.String("symbol").pipe(
  Flag.withDescription(
    "A symbol whose open orders and fills are read by REST after each reconnect, e.g. BTCUSDT_SPBL (symbols seen in " +
      "pushes are added); for fills and orders, only its events are printed"
  ),
  Flag.optional
)

const onlySymbol =
  <A extends { readonly symbol: string }>(symbol: Option.Option<string>) =>
  (stream: Stream.Stream<A, PushError.PushError>) =>
    Option.isNone(symbol) ? stream : Stream.filter(stream, (a) => a.symbol === symbol.value)

const fillsCommand = Command.make(
  "fills",
  { symbol: optionalSymbol, ...commonFlags },
  Effect.fnUntraced(function*(flags) {
    yield* run({
      access: "private",
      stream: (push) => push.watchFills({ symbols: symbolsOf(flags.symbol) }).pipe(onlySymbol(flags.symbol)),
      renderer: (format) => format === "ndjson" ? ndjson() : rows(fillColumns)
    }, flags)
  }, Shared.handled)
).pipe(
  Command.withShortDescription("Your fills as they happen, each once, across reconnects"),
  Command.withDescription(
    "Prints every fill of your orders from now on, once each, with its fillId (the REST fills' fillId) and orderId: " +
      "after every reconnect the gap is closed by REST before pushes resume, so a fill made while the connection was " +
      "down is printed too (source rest) — of the symbols in play: give --symbol for each pair you trade (one seen " +
      "in a push counts too)"
  ),
  Command.withExamples([
    {
      command: `${Shared.NAME} watch fills --symbol BTCUSDT_SPBL --format ndjson`,
      description: "Fills as NDJSON, one object per fill"
    }
  ])
)

const ordersCommand = Command.make(
  "orders",
  { symbol: optionalSymbol, ...commonFlags },
  Effect.fnUntraced(function*(flags) {
    yield* run({
      access: "private",
      stream: (push) => push.watchOrders({ symbols: symbolsOf(flags.symbol) }).pipe(onlySymbol(flags.symbol)),
      renderer: (format) => format === "ndjson" ? ndjson() : rows(orderColumns)
    }, flags)
  }, Shared.handled)
).pipe(
  Command.withShortDescription("Changes of your orders as they happen"),
  Command.withDescription(
    "Prints the open orders, then every change of your orders: status (open, partial_fill, full_fill, cancelled), " +
      "filled quantity, final. Across reconnects no change is lost: an order's filled quantity never goes back and a " +
      "final state sticks"
  )
)

const balancesCommand = Command.make(
  "balances",
  { symbol: optionalSymbol, ...commonFlags },
  Effect.fnUntraced(function*(flags) {
    yield* run({
      access: "private",
      stream: (push) => push.watchBalances({ symbols: symbolsOf(flags.symbol) }),
      renderer: (format) => format === "ndjson" ? ndjson() : rows(balanceColumns)
    }, flags)
  }, Shared.handled)
).pipe(
  Command.withShortDescription("Your spot balances as they change"),
  Command.withDescription("Prints the spot account's balances, then each coin again whenever it changes")
)

const bookCommand = Command.make(
  "book",
  {
    symbol: Shared.symbol,
    depth: Flag.Literals("depth", ["15", "200"]).pipe(
      Flag.withDescription("Levels per side: 15 or 200"),
      Flag.withDefault("15")
    ),
    ...commonFlags
  },
  Effect.fnUntraced(function*(flags) {
    const depth: Push.DepthLevel = flags.depth === "200" ? 200 : 15
    yield* run({
      access: "public",
      stream: (push) => push.watchBook(flags.symbol, { depth }),
      renderer: bookRenderer
    }, flags)
  }, Shared.handled)
).pipe(
  Command.withShortDescription("A symbol's order book, always consistent"),
  Command.withDescription(
    "Prints a symbol's order book whenever it changes, rebuilt from the venue's snapshot and versioned changes: a " +
      "gap or a reconnect is a line on stderr and the book is rebuilt from a new snapshot, never printed across " +
      "the gap. On a terminal the table is redrawn in place; elsewhere each book is a table of its own (or one " +
      "NDJSON object)"
  ),
  Command.withExamples([
    { command: `${Shared.NAME} watch book --symbol BTCUSDT_SPBL`, description: "The book, redrawn in place" }
  ])
)

const tradesCommand = Command.make(
  "trades",
  { symbol: Shared.symbol, ...commonFlags },
  Effect.fnUntraced(function*(flags) {
    yield* run({
      access: "public",
      stream: (push) => push.watchTrades(flags.symbol),
      renderer: (format) => format === "ndjson" ? ndjson() : rows(tradeColumns)
    }, flags)
  }, Shared.handled)
).pipe(
  Command.withShortDescription("A symbol's trades as they happen"),
  Command.withDescription(
    "Prints the market's trades of a symbol; after a reconnect the recent trades from REST close the gap (the " +
      "venue's pushes carry no trade id, so at least once rather than exactly once)"
  )
)

const tickerCommand = Command.make(
  "ticker",
  { symbol: Shared.symbol, ...commonFlags },
  Effect.fnUntraced(function*(flags) {
    yield* run({
      access: "public",
      stream: (push) => push.watchTicker(flags.symbol),
      renderer: (format) => format === "ndjson" ? ndjson() : rows(tickerColumns)
    }, flags)
  }, Shared.handled)
).pipe(
  Command.withShortDescription("A symbol's latest ticker"),
  Command.withDescription("Prints a symbol's ticker as it changes (a slow reader gets the latest one)")
)

const periodFlag = Flag.Literals("period", Market.CandlePeriod.literals).pipe(
  Flag.withDescription("The candle period"),
  Flag.withDefault("1m")
)

const candlesCommand = Command.make(
  "candles",
  { symbol: Shared.symbol, period: periodFlag, ...commonFlags },
  Effect.fnUntraced(function*(flags) {
    yield* run({
      access: "public",
      stream: (push) => push.watchCandles(flags.symbol, flags.period),
      renderer: (format) => format === "ndjson" ? ndjson() : rows(candleColumns)
    }, flags)
  }, Shared.handled)
).pipe(
  Command.withShortDescription("A symbol's candles as they change"),
  Command.withDescription(
    "Prints the current candle of a symbol and period, then each candle whenever it changes; after a reconnect the " +
      "candles since the latest printed come from REST"
  )
)

/** `spotkit watch`. */
export const watch = Command.make("watch").pipe(
  Command.withDescription(
    "Streams what the venue pushes, until Ctrl-C (exit code 130), --count events or --for a duration (exit code " +
      "0), then a summary line on stderr. Needs SPOTKIT_PUSH_URL (the push endpoint, ws:// or wss://) besides " +
      "SPOTKIT_BASE_URL; orders, fills and balances need the credentials too. Reconnects and resyncs are one line " +
      "each on stderr"
  ),
  Command.withSubcommands([
    ordersCommand,
    fillsCommand,
    balancesCommand,
    bookCommand,
    tradesCommand,
    tickerCommand,
    candlesCommand
  ])
)
