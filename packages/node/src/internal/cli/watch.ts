// `spotkit watch`: the venue's push streams on stdout as they happen, through `SpotPush` (`NodeSpotPush`) — the
// private ones (orders, fills, balances) gap-free across reconnects, the book never printed across a gap. One object
// per event as NDJSON, or table rows (times as ISO-8601 in UTC); the book is redrawn in place on a terminal and
// printed as successive tables elsewhere. Reconnects and resyncs are one line each on stderr. It runs until Ctrl-C
// (exit code 130), `--count` events or `--for` a duration (exit code 0; 1 when no push connection ever opened, or a
// private watch never got in sync with REST), and ends with a one-line summary on stderr.
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
import * as Rows from "./watchRows.ts"

// ---------------------------------------------------------------------------------------------------------------
// flags

const formatFlag = Shared.format(
  ["table", "ndjson"],
  "table (rows as events come; the book as a table, redrawn in place on a terminal) or ndjson (one object per event)"
)

const countFlag = Flag.Int("count").pipe(
  Flag.withDescription("Stop after N events (exit code 0; 1 if no push connection opened)"),
  Flag.withMetavar("N"),
  Flag.optional
)

const forFlag = Flag.String("for").pipe(
  Flag.withDescription(
    "Stop after this long, e.g. 30s, 5m, 1h or 500ms (exit code 0; 1 if no push connection opened by then, or a " +
      "private watch never got in sync with REST)"
  ),
  Flag.withMetavar("DURATION"),
  Flag.optional
)

const commonFlags = { format: formatFlag, count: countFlag, for: forFlag }

interface Common {
  readonly format: Rows.Format
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

/** How a watch ended by `--for` or `--count`: its access, the reason of the last connection lost, if one was. */
export interface Ending {
  readonly access: Environment.Access
  /** Whether `--count` events were printed (rather than `--for` having run out). */
  readonly counted: boolean
  readonly lost: string | undefined
  readonly elapsedMillis: number
}

/**
 * Why a watch that `--for` or `--count` ended is a failure, or undefined when it is not. No connection opened: every
 * attempt failed, or, when `--for` ran out, none had been answered yet (an endpoint that takes the TCP connection
 * and never completes the handshake looks like a quiet market otherwise). A private watch that `--for`
 * ended before it ever got in sync with REST (its catch-up never succeeded) delivered nothing it can vouch for either.
 */
export const unfinished = (tally: Tally, ending: Ending): string | undefined => {
  if (!tally.connected && tally.failed > 0) return "no push connection opened (check SPOTKIT_PUSH_URL)"
  // `--count` events printed: what was asked for came. A private stream delivers only after its catch-up by REST;
  // `watch ticker`'s first row is REST's, which may come before the first attempt to connect is over.
  if (ending.counted) return undefined
  // Nothing refused either: the push endpoint never answered, or REST, which a watch reads before it connects (the
  // venue's time, its symbols), did not.
  if (!tally.connected) {
    return `no push connection opened in ${seconds(ending.elapsedMillis)}, and none was refused: the push endpoint ` +
      "did not answer, or REST did not before connecting (check SPOTKIT_PUSH_URL and SPOTKIT_BASE_URL)"
  }
  const lost = ending.lost
  if (ending.access === "private" && tally.resynced === 0) {
    // A failed catch-up ends the connection with the reason `backfill: ...`; another loss came before it answered.
    const backfill = /^backfill: (.*)$/s.exec(lost ?? "")
    if (backfill !== null) return `never in sync: the catch-up by REST failed (${backfill[1]}) (check SPOTKIT_BASE_URL)`
    return lost === undefined
      ? `never in sync: the catch-up by REST had not answered after ${seconds(ending.elapsedMillis)} (check ` +
        "SPOTKIT_BASE_URL)"
      : `never in sync: the private connection was lost before its catch-up by REST answered (${lost})`
  }
  return undefined
}

// `--symbol` as many times as the user gave it, each once (in the order given).
const symbolsOf = (symbols: ReadonlyArray<string>): ReadonlyArray<string> => [...new Set(symbols)]

const symbolsFlag = (description: string) =>
  Flag.String("symbol").pipe(Flag.withDescription(description), Flag.withMetavar("SYMBOL"), Flag.atLeast(0))

// Orders and fills: REST reads a pair's open orders and fills only when asked for that pair, so without one the
// catch-up after a reconnect reads no order and no fill, and `watch orders` would print no open order. A trader who
// relies on "each fill once, across reconnects" would then miss an outage's fills with nothing said: refused instead.
const tradedSymbols = symbolsFlag(
  "A pair you trade, e.g. BTCUSDT_SPBL; required, and given once for each pair (--symbol BTCUSDT_SPBL --symbol " +
    "ETHUSDT_SPBL): its open orders are printed first (orders), its open orders and fills are read by REST after " +
    "each reconnect, and only its events are printed"
)

const balanceSymbols = symbolsFlag(
  "A pair you trade, e.g. BTCUSDT_SPBL, given once for each (optional: balances are read whole after a reconnect)"
)

// No `--symbol` for orders or fills: bad usage (exit code 2), before anything is sent.
const requireSymbols = (command: string, symbols: ReadonlyArray<string>) =>
  symbols.length > 0 ? Effect.void : Shared.usage(
    `watch ${command} needs --symbol for each pair you trade (e.g. --symbol BTCUSDT_SPBL --symbol ETHUSDT_SPBL): ` +
      "REST reads a pair's orders and fills only when asked for it, so without one what happens while the " +
      "connection is down would be missed"
  )

// Only the events of the pairs asked for: a push of another pair (the private channels carry every pair) is not one.
const onlySymbols =
  <A extends { readonly symbol: string }>(symbols: ReadonlyArray<string>) =>
  (stream: Stream.Stream<A, PushError.PushError>) => {
    const wanted = new Set(symbols)
    return Stream.filter(stream, (a) => wanted.has(a.symbol))
  }

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
        // SPOTKIT_RATE_LIMIT=off turns the shared budgets off, the connection attempts' too, as REST's commands do.
        redis: options.rateLimit === false ? undefined : options.redis,
        address: options.rateLimit === false ? undefined : options.rateLimit?.address,
        proxy: options.proxy
      }).pipe(Layer.provide(Layer.succeed(SpotClient.SpotClient, client)))
    ),
    (context) => Context.get(context, SpotPush.SpotPush)
  )

/** What one `watch` command streams and how it prints it. */
interface Plan<A> {
  readonly access: Environment.Access
  /** The pairs a private watch needs (`--symbol`), checked after the other flags and the environment. */
  readonly required?: { readonly command: string; readonly symbols: ReadonlyArray<string> } | undefined
  readonly stream: (
    push: SpotPush.Service,
    client: SpotClient.Service
  ) => Stream.Stream<A, PushError.PushError, Output.Output>
  readonly renderer: (format: Rows.Format, terminal: boolean) => Rows.Renderer<A>
}

const run = <A>(plan: Plan<A>, flags: Common) =>
  Effect.gen(function*() {
    const { count, millis } = yield* checked(flags)
    const options = yield* Shared.environment(plan.access, true)
    if (plan.required !== undefined) yield* requireSymbols(plan.required.command, plan.required.symbols)
    const client = yield* Shared.clientOf(options)
    const push = yield* pushOf(options, client, plan.access)
    const output = yield* Output.Output
    const renderer = plan.renderer(flags.format, output.stdout.isTTY)
    const tally = emptyTally()
    // The reason of the last connection lost: what kept a private watch from getting in sync, if it never did.
    let lost: string | undefined
    const started = yield* Clock.currentTimeMillis
    const elapsed = Effect.map(Clock.currentTimeMillis, (now) => now - started)
    const summary = Effect.flatMap(elapsed, (millis) => Effect.ignore(Shared.note(summaryLine(tally, millis))))
    // Subscribed before the stream connects, so that no connection's event is missed.
    const events = yield* Stream.toPull(push.events)
    yield* Effect.forkScoped(Stream.runForEach(Stream.fromPull(Effect.succeed(events)), (e) => {
      if (e._tag === "Disconnected" && e.opened) lost = e.reason
      return notice(e, tally)
    }))
    // The table's header with the first row, or once the watch ended well with none: a watch refused (a symbol of no
    // trading pair's form) or one that never connected leaves stdout empty, as every command that fails does.
    let headed = renderer.start === "" || flags.format !== "table"
    const head = Effect.suspend(() => {
      if (headed) return Effect.void
      headed = true
      return Shared.write(renderer.start)
    })
    const printed = plan.stream(push, client).pipe(
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
    // Ended by `--for` or `--count` without a connection ever opened, or never in sync: not a quiet market, a failure.
    // The events' fiber first gets its turn, to count what has already happened.
    yield* Effect.yieldNow
    const problem = unfinished(tally, {
      access: plan.access,
      counted: count !== undefined && tally.events >= count,
      lost,
      elapsedMillis: yield* elapsed
    })
    if (problem === undefined) yield* head
    yield* summary
    if (problem !== undefined) yield* Shared.failure(problem)
  })

// ---------------------------------------------------------------------------------------------------------------
// commands

const fillsCommand = Command.make(
  "fills",
  { symbol: tradedSymbols, ...commonFlags },
  Effect.fnUntraced(function*(flags) {
    const symbols = symbolsOf(flags.symbol)
    yield* run({
      access: "private",
      required: { command: "fills", symbols },
      stream: (push) => push.watchFills({ symbols }).pipe(onlySymbols(symbols)),
      renderer: Rows.renderers.fills
    }, flags)
  }, Shared.handled)
).pipe(
  Command.withShortDescription("Your fills as they happen, each once, across reconnects"),
  Command.withDescription(
    "Prints every fill of your orders from now on, once each, with its fillId (the REST fills' fillId) and orderId: " +
      "after every reconnect the gap is closed by REST before pushes resume, so a fill made while the connection was " +
      "down is printed too (source rest). REST reads a pair's fills only when asked for it: give --symbol for each " +
      "pair you trade (required); only their fills are printed"
  ),
  Command.withExamples([
    {
      command: `${Shared.NAME} watch fills --symbol BTCUSDT_SPBL --symbol ETHUSDT_SPBL --format ndjson`,
      description: "Fills of two pairs as NDJSON, one object per fill"
    }
  ])
)

const ordersCommand = Command.make(
  "orders",
  { symbol: tradedSymbols, ...commonFlags },
  Effect.fnUntraced(function*(flags) {
    const symbols = symbolsOf(flags.symbol)
    yield* run({
      access: "private",
      required: { command: "orders", symbols },
      stream: (push) => push.watchOrders({ symbols }).pipe(onlySymbols(symbols)),
      renderer: Rows.renderers.orders
    }, flags)
  }, Shared.handled)
).pipe(
  Command.withShortDescription("Changes of your orders as they happen"),
  Command.withDescription(
    "Prints the open orders of the pairs given with --symbol (required, once for each pair you trade), then every " +
      "change of their orders: status (open, partial_fill, full_fill, cancelled), filled quantity, final. Across " +
      "reconnects no change is lost: an order's filled quantity never goes back and a final state sticks"
  )
)

const balancesCommand = Command.make(
  "balances",
  { symbol: balanceSymbols, ...commonFlags },
  Effect.fnUntraced(function*(flags) {
    yield* run({
      access: "private",
      stream: (push) => push.watchBalances({ symbols: symbolsOf(flags.symbol) }),
      renderer: Rows.renderers.balances
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
      renderer: Rows.bookRenderer
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
      renderer: Rows.renderers.trades
    }, flags)
  }, Shared.handled)
).pipe(
  Command.withShortDescription("A symbol's trades as they happen"),
  Command.withDescription(
    "Prints the market's trades of a symbol; after a reconnect the recent trades from REST close the gap (the " +
      "venue's pushes carry no trade id, so at least once rather than exactly once)"
  )
)

// The venue pushes a ticker on a change only: on a quiet market a watch would print nothing for long. The current one
// from REST comes first, unless a push came before REST answered (the push is newer). REST failing is a line on
// stderr, and the pushes follow; a symbol REST does not know is left to the push stream, which refuses it (exit 2).
const currentTickerFirst = (push: SpotPush.Service, client: SpotClient.Service, symbol: string) =>
  Stream.suspend(() => {
    let pushed = false
    const pushes = Stream.map(push.watchTicker(symbol), (ticker): Rows.TickerRow => {
      pushed = true
      return { ticker, source: "push" }
    })
    const current = Stream.fromEffect(client.ticker(symbol)).pipe(
      Stream.filter(() => !pushed),
      Stream.map((ticker): Rows.TickerRow => ({ ticker, source: "rest" })),
      Stream.catch((error) =>
        error.reason._tag === "UnknownSymbolError" || error.reason._tag === "ValidationError"
          ? Stream.empty
          : Stream.drain(
            Stream.fromEffect(Effect.ignore(Shared.note(`the current ticker could not be read: ${error.message}`)))
          )
      )
    )
    return Stream.merge(pushes, current)
  })

const tickerCommand = Command.make(
  "ticker",
  { symbol: Shared.symbol, ...commonFlags },
  Effect.fnUntraced(function*(flags) {
    yield* run({
      access: "public",
      stream: (push, client) => currentTickerFirst(push, client, flags.symbol),
      renderer: Rows.renderers.ticker
    }, flags)
  }, Shared.handled)
).pipe(
  Command.withShortDescription("A symbol's latest ticker"),
  Command.withDescription(
    "Prints a symbol's current ticker from REST (source rest), then each ticker the venue pushes as it changes " +
      "(source push; a slow reader gets the latest one)"
  )
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
      renderer: Rows.renderers.candles
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
      "0; 1, with nothing on stdout, when no push connection ever opened or a private watch never got in sync " +
      "with REST), then a summary line on stderr. Needs SPOTKIT_PUSH_URL (the push endpoint, ws:// or wss://) besides " +
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
