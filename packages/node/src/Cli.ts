/**
 * The `spotkit` command-line tool, built with `effect/cli`: export funding bills, list and place orders, place a
 * batch from a file, and transfer between users, over a `SpotClient` configured from the environment
 * (`NodeSpotClient.layerConfig`).
 *
 * Data goes to stdout (or `--out FILE`), diagnostics to stderr. Exit codes: 0 on success, 1 when the venue or the
 * network failed (or a batch had failed items), 2 for bad usage or input caught before anything was sent, 130
 * after Ctrl-C, 143 after SIGTERM. Every expected error is one line on stderr, with the venue's code where it gave one, never a stack
 * trace and never a secret.
 *
 * @since 0.1.0
 */
import { type Bill, Order, SpotClient, type SpotError, Transfer } from "@spotkit/core"
import { Config, Data, Effect, FileSystem, Layer, Option, Result, Runtime, Stream } from "effect"
import { CliOutput, Command, Flag } from "effect/cli"
import * as Formats from "./internal/formats.ts"
import * as Output from "./internal/output.ts"
import * as Progress from "./internal/progress.ts"
import { parseTime } from "./internal/time.ts"
import * as NodeSpotClient from "./NodeSpotClient.ts"

/**
 * The command's name.
 *
 * @since 0.1.0
 * @category constants
 */
export const NAME = "spotkit"

/**
 * An expected failure, already reported on stderr as one line; `exitCode` 1 (venue, network, output) or 2 (usage).
 *
 * @since 0.1.0
 * @category errors
 */
export class CliFailure extends Data.TaggedError("CliFailure")<{
  readonly message: string
  readonly exitCode: number
}> {
  override readonly [Runtime.errorReported] = false
}

const report = (message: string, exitCode: number) =>
  Effect.flatMap(
    Effect.service(Output.Output),
    ({ stderr }) =>
      stderr.write(`${NAME}: ${message}\n`).pipe(
        Effect.ignore,
        Effect.andThen(Effect.fail(new CliFailure({ message, exitCode })))
      )
  )

/** Bad usage or input: nothing was sent. */
const usage = (message: string) => report(message, 2)

// Errors of a command, each turned into one line and an exit code. A ValidationError was caught by the client
// before anything was sent (bad input: 2); every other SpotError reason comes from the venue or the network (1).
type CommandError = SpotError.SpotError | Config.ConfigError | Output.OutputError | CliFailure

const reported = <A, R>(effect: Effect.Effect<A, CommandError, R>) =>
  Effect.catch(effect, (error): Effect.Effect<never, CliFailure, Output.Output> => {
    switch (error._tag) {
      case "CliFailure":
        return Effect.fail(error)
      case "SpotError":
        return report(error.message, error.reason._tag === "ValidationError" ? 2 : 1)
      case "OutputError":
        // The reader of stdout went away (`spotkit ... | head`): a normal way to stop, as for other Unix tools.
        return error.code === "EPIPE" ?
          Effect.fail(new CliFailure({ message: error.message, exitCode: 0 })) :
          report(error.message, 1)
      default: {
        // "SchemaError(Expected string\n  at ["SPOTKIT_API_KEY"])": name the variable.
        const name = /at \["([^"]+)"\]/.exec(error.message)?.[1]
        const detail = error.message.split("\n")[0]!.replace(/^SchemaError\(/, "")
        return usage(
          name === undefined
            ? `configuration: ${detail}`
            : detail === "Expected string"
            ? `environment variable ${name} is not set; see spotkit --help`
            : `environment variable ${name} is invalid (${detail}); see spotkit --help`
        )
      }
    }
  })

// The client from the environment, over Node's own HTTP client: the CLI sends one request at a time, where undici's
// pool gains nothing, and undici's WebAssembly parser and allocations cost about 40 MB of peak RSS on a long export
// (BENCHMARKS.md).
const config: Config.Wrap<NodeSpotClient.Options> = {
  ...NodeSpotClient.defaultConfig,
  transport: Config.succeed("node:http" as const)
}

/** Runs a command's body with a client from the environment, reporting its errors. */
const withClient = <A>(
  body: (client: SpotClient.Service) => Effect.Effect<A, CommandError, Output.Output | FileSystem.FileSystem>
) =>
  reported(
    Effect.flatMap(Effect.service(SpotClient.SpotClient), body).pipe(Effect.provide(NodeSpotClient.layerConfig(config)))
  )

const write = (text: string) => Effect.flatMap(Effect.service(Output.Output), ({ stdout }) => stdout.write(text))

const json = (value: unknown) => JSON.stringify(value, null, 2) + "\n"

const optionalString = <A>(option: Option.Option<A>): A | undefined => Option.getOrUndefined(option)

// ---------------------------------------------------------------------------------------------------------------
// bills export

const BILL_FORMATS = ["csv", "ndjson"] as const

const time = (name: string, description: string) =>
  Flag.String(name).pipe(Flag.withDescription(description), Flag.withMetavar("TIME"), Flag.optional)

const billsExport = Command.make(
  "export",
  {
    coinId: Flag.Int("coin-id").pipe(Flag.withDescription("Only bills of this coin id"), Flag.optional),
    since: time("since", "Only bills at or after this time: a millisecond epoch or ISO-8601 (2024-05-01T00:00:00Z)"),
    until: time("until", "Only bills before this time (exclusive): a millisecond epoch or ISO-8601"),
    format: Flag.Literals("format", BILL_FORMATS).pipe(
      Flag.withDescription("csv (with a header row) or ndjson (one JSON object per line)"),
      Flag.withDefault("csv")
    ),
    out: Flag.String("out").pipe(
      Flag.withDescription("Write to this file (created or truncated) instead of stdout"),
      Flag.withMetavar("FILE"),
      Flag.optional
    ),
    progress: Flag.Boolean("progress").pipe(
      Flag.withDescription("Report progress on stderr even when it is not a terminal"),
      Flag.withDefault(false)
    ),
    pageSize: Flag.Int("page-size").pipe(
      Flag.withDescription("Bills per request, 1..100"),
      Flag.withDefault(100)
    )
  },
  (flags) =>
    Effect.gen(function*() {
      const since = Option.map(flags.since, parseTime)
      const until = Option.map(flags.until, parseTime)
      for (const [name, parsed] of [["--since", since], ["--until", until]] as const) {
        if (Option.isSome(parsed) && "error" in parsed.value) return yield* usage(`${name}: ${parsed.value.error}`)
      }
      const millis = (parsed: typeof since) =>
        Option.isSome(parsed) && "millis" in parsed.value ? parsed.value.millis : undefined
      const sinceMillis = millis(since)
      const untilMillis = millis(until)
      // Checked before --out is opened (created or truncated) and before a header is written: a bad flag must leave
      // an earlier export in that file alone and print no data.
      if (sinceMillis !== undefined && untilMillis !== undefined && untilMillis < sinceMillis) {
        return yield* usage(`--until (${untilMillis}) is before --since (${sinceMillis})`)
      }
      if (flags.pageSize < 1 || flags.pageSize > 100) {
        return yield* usage(`--page-size: ${flags.pageSize} is not from 1 to 100`)
      }
      if (Option.isSome(flags.coinId) && flags.coinId.value < 0) {
        return yield* usage(`--coin-id: ${flags.coinId.value} is negative`)
      }
      const query: Bill.BillQuery = {
        coinId: optionalString(flags.coinId),
        // The venue's startTime is exclusive; --since is inclusive (--since 0 is every bill, those at 0 included).
        startTime: sinceMillis === undefined || sinceMillis === 0 ? undefined : sinceMillis - 1,
        endTime: untilMillis,
        pageSize: flags.pageSize
      }
      const { stderr, stdout } = yield* Output.Output
      yield* withClient((client) =>
        Effect.scoped(Effect.gen(function*() {
          const file = Option.isSome(flags.out) ? yield* Output.openFile(flags.out.value) : undefined
          const out = file ?? stdout
          const target = Option.isSome(flags.out) ? ` to ${flags.out.value}` : ""
          const progress = yield* Progress.make(stderr, {
            forced: flags.progress,
            dataOnTerminal: file === undefined && stdout.isTTY
          })
          const csv = flags.format === "csv"
          if (csv) yield* out.write(Formats.csvHeader())
          let rows = 0
          let pages = 0
          yield* client.fundingBills(query).pipe(
            // Read-ahead: while this page is formatted and written, the next one waits in a buffer of one page and the
            // request for the one after (it needs only the last bill of the page before) is in flight, so neither side
            // of the connection waits for the other; at most two pages ahead.
            Stream.bufferArray({ capacity: 1 }),
            // Each array is one page of the venue's answer: written as one piece, so the output only ever holds
            // whole rows.
            Stream.runForEachArray((bills) => {
              rows += bills.length
              pages++
              return out.write(csv ? Formats.billsCsv(bills) : Formats.billsNdjson(bills)).pipe(
                Effect.andThen(progress.update(rows, pages))
              )
            }),
            Effect.onInterrupt(() =>
              progress.note(`${NAME}: interrupted after ${rows} rows${target}; every row written is complete\n`).pipe(
                Effect.ignore
              )
            )
          )
          // A file's last writes are still buffered: only once it is closed is the export known to be complete.
          if (file !== undefined) yield* file.close
          yield* progress.finish("exported", rows, pages, target)
        }))
      )
    })
).pipe(
  Command.withDescription(
    "Streams every funding bill (newest first) to CSV or NDJSON in constant memory; Ctrl-C keeps whole rows"
  ),
  Command.withExamples([
    { command: `${NAME} bills export --out bills.csv`, description: "Every bill to a CSV file" },
    {
      command: `${NAME} bills export --coin-id 2 --since 2024-05-01 --until 2024-06-01 --format ndjson`,
      description: "May 2024's USDT bills as NDJSON on stdout"
    }
  ])
)

const bills = Command.make("bills").pipe(
  Command.withDescription("Funding-account bills"),
  Command.withSubcommands([billsExport])
)

// ---------------------------------------------------------------------------------------------------------------
// orders

const symbol = Flag.String("symbol").pipe(Flag.withDescription("The symbol, e.g. BTCUSDT_SPBL"))

const ordersOpen = Command.make(
  "open",
  {
    symbol,
    format: Flag.Literals("format", ["table", "json", "ndjson"] as const).pipe(
      Flag.withDescription("table, json (one array) or ndjson (one order per line)"),
      Flag.withDefault("table")
    )
  },
  (flags) =>
    withClient((client) =>
      Effect.gen(function*() {
        if (flags.format === "ndjson") {
          // Streamed as it pages: constant memory for any number of orders.
          return yield* client.openOrders({ symbol: flags.symbol }).pipe(
            Stream.runForEachArray((orders) => write(Formats.ndjson(orders)))
          )
        }
        const orders = yield* Stream.runCollect(client.openOrders({ symbol: flags.symbol }))
        yield* write(
          flags.format === "json"
            ? json(orders)
            : Formats.table(Formats.OPEN_ORDER_COLUMNS, orders.map(Formats.openOrderRow))
        )
      })
    )
).pipe(Command.withDescription("Lists the open orders of a symbol, newest first"))

const resultFormat = Flag.Literals("format", ["text", "json"] as const).pipe(
  Flag.withDescription("text or json"),
  Flag.withDefault("text")
)

const ordersPlace = Command.make(
  "place",
  {
    symbol,
    side: Flag.Literals("side", Order.Side.literals).pipe(Flag.withDescription("buy or sell")),
    type: Flag.Literals("type", Order.OrderType.literals).pipe(Flag.withDescription("limit or market")),
    force: Flag.Literals("force", Order.Force.literals).pipe(
      Flag.withDescription("Time in force; ignored for market orders"),
      Flag.withDefault("normal")
    ),
    price: Flag.String("price").pipe(Flag.withDescription("Limit price (limit orders)"), Flag.optional),
    quantity: Flag.String("quantity").pipe(
      Flag.withDescription("Quantity in the base coin; for a market buy, the amount of quote coin to spend")
    ),
    clientOrderId: Flag.String("client-order-id").pipe(
      Flag.withDescription("Your id for the order (generated when absent); a retry with it never places twice"),
      Flag.optional
    ),
    format: resultFormat
  },
  (flags) =>
    withClient((client) =>
      Effect.gen(function*() {
        const placed = yield* client.placeOrder({
          symbol: flags.symbol,
          side: flags.side,
          orderType: flags.type,
          force: flags.force,
          price: optionalString(flags.price),
          quantity: flags.quantity,
          clientOrderId: optionalString(flags.clientOrderId)
        })
        yield* write(
          flags.format === "json" ? json(placed) : `placed ${placed.orderId} clientOrderId ${placed.clientOrderId}\n`
        )
      })
    )
).pipe(
  Command.withDescription("Places one order"),
  Command.withExamples([
    {
      command: `${NAME} orders place --symbol BTCUSDT_SPBL --side buy --type limit --price 29000 --quantity 0.01`,
      description: "A resting limit buy"
    },
    {
      command: `${NAME} orders place --symbol BTCUSDT_SPBL --side buy --type market --quantity 100`,
      description: "A market buy spending 100 USDT"
    }
  ])
)

/**
 * Batch items from a file: a JSON array, or NDJSON (one object per line, blank lines skipped). Numbers are read as
 * their exact source text (a price written as `30000.5` stays "30000.5"), since every field is a string on the wire;
 * the client validates every item and reports a bad one as that item's failure.
 */
const parseItems = (text: string): { readonly items: ReadonlyArray<unknown> } | { readonly error: string } => {
  const exact = (_key: string, value: unknown, context?: { readonly source?: string }) =>
    typeof value === "number" && context?.source !== undefined ? context.source : value
  const parse = (source: string, where: string) =>
    Result.try({
      try: () => JSON.parse(source, exact as (key: string, value: unknown) => unknown) as unknown,
      catch: (cause) => `${where}: ${cause instanceof Error ? cause.message : String(cause)}`
    })
  const trimmed = text.trim()
  if (trimmed.startsWith("[")) {
    const result = parse(trimmed, "not valid JSON")
    if (result._tag === "Failure") return { error: result.failure }
    return Array.isArray(result.success) ? { items: result.success } : { error: "not a JSON array" }
  }
  const items: Array<unknown> = []
  const lines = text.split("\n")
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim()
    if (line.length === 0) continue
    const result = parse(line, `line ${i + 1} is not valid JSON`)
    if (result._tag === "Failure") return { error: result.failure }
    items.push(result.success)
  }
  return { items }
}

/** Why a file could not be read, in words (the platform's tag names are not for users). */
const readProblem = (reason: { readonly _tag: string; readonly message: string }): string => {
  switch (reason._tag) {
    case "NotFound":
      return "no such file"
    case "BadResource":
      return "not a readable file (a directory?)"
    case "PermissionDenied":
      return "permission denied"
    default:
      return reason.message
  }
}

const ordersBatch = Command.make(
  "batch",
  {
    symbol,
    file: Flag.String("file").pipe(
      Flag.withDescription("Items as a JSON array or NDJSON: side, orderType, force, price, quantity, clientOrderId"),
      Flag.withMetavar("FILE")
    ),
    format: Flag.Literals("format", ["table", "json", "ndjson"] as const).pipe(
      Flag.withDescription("How to print the outcome of each item"),
      Flag.withDefault("table")
    )
  },
  (flags) =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const text = yield* fs.readFileString(flags.file).pipe(
        Effect.catch((error) => usage(`--file: cannot read ${flags.file}: ${readProblem(error.reason)}`))
      )
      const parsed = parseItems(text)
      if ("error" in parsed) return yield* usage(`--file ${flags.file}: ${parsed.error}`)
      if (parsed.items.length === 0) return yield* usage(`--file ${flags.file}: no items`)
      const { stderr } = yield* Output.Output
      yield* withClient((client) =>
        Effect.gen(function*() {
          // Items are checked one by one by the client (a bad item fails alone), so they go in as they were read.
          const result = yield* client.placeOrders(flags.symbol, parsed.items as ReadonlyArray<Order.BatchItemInput>)
          // The orders are placed whether or not stdout still has a reader (`| head`): the summary and the exit code
          // must still say whether items failed.
          const closed = yield* write(
            flags.format === "table"
              ? Formats.table(Formats.OUTCOME_COLUMNS, result.outcomes.map(Formats.outcomeRow))
              : flags.format === "json"
              ? json(result)
              : Formats.ndjson(result.outcomes)
          ).pipe(
            Effect.as(undefined),
            Effect.catchIf((error) => error.code === "EPIPE", (error) => Effect.succeed(error))
          )
          const unknown = result.outcomes.filter((outcome) => outcome._tag === "Failed" && outcome.mayExist).length
          yield* stderr.write(
            `${NAME}: placed ${result.placed} of ${result.outcomes.length}, ${result.failed} failed${
              unknown > 0 ? ` (${unknown} may exist: check the open orders before placing them again)` : ""
            }\n`
          )
          if (result.failed > 0) {
            return yield* Effect.fail(new CliFailure({ message: `${result.failed} items failed`, exitCode: 1 }))
          }
          if (closed !== undefined) return yield* Effect.fail(closed)
        })
      )
    })
).pipe(
  Command.withDescription("Places any number of orders from a file, 50 per request, with one outcome per item"),
  Command.withExamples([{
    command: `${NAME} orders batch --symbol BTCUSDT_SPBL --file orders.ndjson`,
    description: "Place every order in orders.ndjson"
  }])
)

const orders = Command.make("orders").pipe(
  Command.withDescription("List and place orders"),
  Command.withSubcommands([ordersOpen, ordersPlace, ordersBatch])
)

// ---------------------------------------------------------------------------------------------------------------
// transfer

const accountType = (name: string, description: string) =>
  Flag.Literals(name, Transfer.AccountType.literals).pipe(Flag.withDescription(description))

const transfer = Command.make(
  "transfer",
  {
    toUser: Flag.String("to-user").pipe(Flag.withDescription("The receiving user's id"), Flag.withMetavar("ID")),
    coin: Flag.Literals("coin", Transfer.Coin.literals).pipe(Flag.withDescription("The coin: USDT or BTC")),
    amount: Flag.String("amount").pipe(Flag.withDescription("The amount, up to 6 decimal places")),
    fromAccount: accountType("from-account", "The account it leaves: SPOT, SPOT_V2 or FUND"),
    toAccount: accountType("to-account", "The account it reaches: SPOT, SPOT_V2 or FUND"),
    format: resultFormat
  },
  (flags) =>
    withClient((client) =>
      Effect.gen(function*() {
        const result = yield* client.internalTransfer({
          toUserId: flags.toUser,
          coin: flags.coin,
          amount: flags.amount,
          fromAccountType: flags.fromAccount,
          toAccountType: flags.toAccount
        })
        yield* write(flags.format === "json" ? json(result) : `transferred ${result.id}\n`)
      })
    )
).pipe(
  Command.withDescription("Transfers a coin to another user's account"),
  Command.withExamples([{
    command:
      `${NAME} transfer --to-user 4001000000000002 --coin USDT --amount 25 --from-account SPOT --to-account FUND`,
    description: "25 USDT from your spot account to another user's funding account"
  }])
)

// ---------------------------------------------------------------------------------------------------------------

/**
 * The whole command tree.
 *
 * @since 0.1.0
 * @category commands
 */
export const command = Command.make(NAME).pipe(
  Command.withDescription(
    "Trade and export account data on the spot venue. Credentials come from SPOTKIT_API_KEY, SPOTKIT_SECRET_KEY, " +
      "SPOTKIT_PASSPHRASE and the venue from SPOTKIT_BASE_URL"
  ),
  Command.withSubcommands([bills, orders, transfer])
)

/**
 * Whether a value is the CLI's reported failure.
 *
 * @since 0.1.0
 * @category guards
 */
export const isCliFailure = (u: unknown): u is CliFailure => u instanceof CliFailure

/**
 * Bad flags as one line on stderr (no help page), `--help` and `--version` as usual.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerPresenter: Layer.Layer<never, never, Output.Output> = Layer.unwrap(
  Effect.map(Effect.service(Output.Output), ({ stderr }) =>
    CliOutput.layerPresenter({
      present: (event) =>
        event._tag === "InvalidInvocation"
          ? stderr.write(
            `${NAME}: ${
              event.errors.map((error) =>
                error._tag === "UnrecognizedOption" && error.suggestions.length > 0
                  ? `unrecognized flag ${error.option} (did you mean ${error.suggestions.join(" or ")}?)`
                  : error.message.split("\n").map((line) => line.trim()).filter((line) => line.length > 0).join(" ")
              ).join("; ")
            } (see --help)\n`
          ).pipe(Effect.ignore)
          : CliOutput.defaultPresenter.present(event)
    }))
)

/**
 * What the command needs besides the Node services: the process's stdout and stderr, and the presenter of usage
 * errors.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<Output.Output> = Layer.provideMerge(layerPresenter, Output.layerProcess)
