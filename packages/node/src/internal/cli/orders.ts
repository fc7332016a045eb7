// `spotkit orders`: `open` lists, `place` places one order, `batch` places the orders of a file.
import { Json, Order } from "@spotkit/core"
import { Effect, Result, Stream } from "effect"
import { Command, Flag } from "effect/cli"
import * as Formats from "../formats.ts"
import * as Output from "../output.ts"
import {
  CliFailure,
  format,
  json,
  NAME,
  optional,
  readFlagFile,
  redacted,
  resultFormat,
  symbol,
  usage,
  withClient,
  write,
  writeResult
} from "./shared.ts"

const ordersOpen = Command.make(
  "open",
  {
    symbol,
    format: format(["table", "json", "ndjson"], "table, json (one array) or ndjson (one order per line)")
  },
  (flags) =>
    withClient((client) =>
      Effect.gen(function*() {
        if (flags.format === "ndjson") {
          // Streamed as it pages: constant memory for any number of orders.
          return yield* client.openOrders({ symbol: flags.symbol }).pipe(
            Stream.runForEachArray((orders) =>
              Effect.flatMap(redacted(orders), (clean) => write(Formats.ndjson(clean)))
            )
          )
        }
        const orders = yield* redacted(yield* Stream.runCollect(client.openOrders({ symbol: flags.symbol })))
        yield* write(
          flags.format === "json"
            ? json(orders)
            : Formats.table(Formats.OPEN_ORDER_COLUMNS, orders.map(Formats.openOrderRow))
        )
      })
    )
).pipe(Command.withDescription("Lists the open orders of a symbol, newest first"))

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
      client.placeOrder({
        symbol: flags.symbol,
        side: flags.side,
        orderType: flags.type,
        force: flags.force,
        price: optional(flags.price),
        quantity: flags.quantity,
        clientOrderId: optional(flags.clientOrderId)
      }).pipe(
        Effect.flatMap((placed) =>
          writeResult(flags.format, placed, (p) => `placed ${p.orderId} clientOrderId ${p.clientOrderId}`)
        )
      )
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
  const parse = (source: string, where: string) =>
    Result.try({
      try: () => Json.parse(source, "text"),
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

const ordersBatch = Command.make(
  "batch",
  {
    symbol,
    file: Flag.String("file").pipe(
      Flag.withDescription("Items as a JSON array or NDJSON: side, orderType, force, price, quantity, clientOrderId"),
      Flag.withMetavar("FILE")
    ),
    format: format(["table", "json", "ndjson"], "How to print the outcome of each item")
  },
  (flags) =>
    Effect.gen(function*() {
      const parsed = parseItems(yield* readFlagFile("--file", flags.file))
      if ("error" in parsed) return yield* usage(`--file ${flags.file}: ${parsed.error}`)
      if (parsed.items.length === 0) return yield* usage(`--file ${flags.file}: no items`)
      yield* withClient((client) =>
        Effect.gen(function*() {
          const { stderr } = yield* Output.Output
          // Items are checked one by one by the client (a bad item fails alone), so they go in as they were read.
          const result = yield* redacted(
            yield* client.placeOrders(flags.symbol, parsed.items as ReadonlyArray<Order.BatchItemInput>)
          )
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

/** `spotkit orders`. */
export const orders = Command.make("orders").pipe(
  Command.withDescription("List and place orders"),
  Command.withSubcommands([ordersOpen, ordersPlace, ordersBatch])
)
