// `spotkit orders`: `open` lists, `place` places one order, `batch` places the orders of a file; `cancel` (in
// `cancel.ts`), `get` and `history` (in `orderState.ts`).
import { Order } from "@spotkit/core"
import { Effect, Option } from "effect"
import { Command, Flag } from "effect/cli"
import * as Records from "../records.ts"
import { cancel } from "./cancel.ts"
import * as Items from "./items.ts"
import { listFormat, orderState, writeOrders } from "./orderState.ts"
import {
  client,
  formatRecords,
  handled,
  json,
  listFlags,
  NAME,
  optional,
  redacted,
  resultFormat,
  sending,
  sendWatch,
  sinceNow,
  symbol,
  usage,
  writeResult
} from "./shared.ts"

const ordersOpen = Command.make(
  "open",
  { symbol, ...listFormat },
  Effect.fnUntraced(function*(flags) {
    const spot = yield* client()
    yield* writeOrders(spot.openOrders({ symbol: flags.symbol }), flags)
  }, handled)
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
    price: Flag.String("price").pipe(
      Flag.withDescription("Limit price (limit orders only: refused with --type market)"),
      Flag.optional
    ),
    quantity: Flag.String("quantity").pipe(
      Flag.withDescription("Quantity in the base coin; for a market buy, the amount of quote coin to spend")
    ),
    clientOrderId: Flag.String("client-order-id").pipe(
      Flag.withDescription("Your id for the order (generated when absent); a retry with it never places twice"),
      Flag.optional
    ),
    format: resultFormat
  },
  Effect.fnUntraced(function*(flags) {
    // The client sends a market order without its price: a price meant as a limit ("sell, but not below") would be
    // dropped, the order filled at whatever the book holds.
    if (flags.type === "market" && Option.isSome(flags.price)) {
      return yield* usage(
        "--price is for limit orders: a market order fills at the book's prices whatever --price says; use " +
          "--type limit for a price, or leave --price out"
      )
    }
    const watch = sendWatch()
    const spot = yield* client("private", { transformClient: watch.transformClient })
    const clientOrderId = optional(flags.clientOrderId) ?? (yield* Order.newClientOrderId)
    yield* sending(
      spot.placeOrder({
        symbol: flags.symbol,
        side: flags.side,
        orderType: flags.type,
        force: flags.force,
        price: optional(flags.price),
        quantity: flags.quantity,
        clientOrderId
      }),
      {
        doing: `placing the order (clientOrderId ${clientOrderId})`,
        unknown: `it may have been placed; check with \`${NAME} orders get --client-order-id ${clientOrderId}\` ` +
          "before placing it again",
        unsent: { watch, line: `the order was sent (clientOrderId ${clientOrderId}): nothing was placed` },
        answered: (p) =>
          `writing the result: the order was placed (orderId ${p.orderId}, clientOrderId ${p.clientOrderId})`
      },
      (placed) => writeResult(flags.format, placed, (p) => `placed ${p.orderId} clientOrderId ${p.clientOrderId}`)
    )
  }, handled)
).pipe(
  Command.withDescription(
    "Places one order. It is checked first, against the symbol's trading rules too (tick, step, quantity limits): " +
      "an order that breaks one is not sent (exit code 2, naming the rule and the nearest valid values)"
  ),
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

// The fields of a batch item (`Order.BatchItem`): any other is refused (`Items.onlyFields`).
const BATCH_FIELDS: ReadonlyArray<string> = ["side", "orderType", "force", "price", "quantity", "clientOrderId"]

const ordersBatch = Command.make(
  "batch",
  {
    symbol,
    file: Flag.String("file").pipe(
      Flag.withDescription(
        "Items as a JSON array or NDJSON: side, orderType, force, price, quantity, clientOrderId (and symbol, equal to " +
          "--symbol). An item with any other field, or another symbol, refuses the file before anything is sent"
      ),
      Flag.withMetavar("FILE")
    ),
    ...listFlags(["json", "ndjson"], "How to print the outcome of each item: table, csv, json or ndjson")
  },
  Effect.fnUntraced(function*(flags) {
    const items = yield* Items.read(flags.file, undefined, Items.onlyFields(BATCH_FIELDS, flags.symbol, "placed"))
    const watch = sendWatch()
    const spot = yield* client("private", { transformClient: watch.transformClient })
    const since = yield* sinceNow
    const check = `check with \`${NAME} orders history --symbol ${flags.symbol} --since ${since}\``
    const placed = (result: Order.BatchResult) => `placed ${result.placed} of ${result.outcomes.length}`
    // Items are checked one by one by the client (a bad item fails alone), so they go in as they were read.
    yield* sending(
      spot.placeOrders(flags.symbol, items as ReadonlyArray<Order.BatchItemInput>),
      {
        doing: "placing the batch",
        // Not "the open orders": a market, IOC or FOK order, or one already filled, is never among them.
        unknown: `some of its orders may have been placed; ${check} before placing them again`,
        unsent: { watch, line: "the batch was sent: nothing was placed" },
        answered: (result) => `writing the outcomes: the venue answered the batch (${placed(result)}); ${check}`
      },
      (result) =>
        Effect.gen(function*() {
          const unknown = result.outcomes.filter((outcome) => outcome._tag === "Failed" && outcome.mayExist).length
          yield* Items.report(
            flags.format === "json"
              ? json(yield* redacted(result))
              : yield* formatRecords(Records.batchOutcome, result.outcomes, flags),
            `${placed(result)}, ${result.failed} failed${
              unknown > 0 ? ` (${unknown} may exist: ${check} before placing them again)` : ""
            }`,
            result.failed
          )
        })
    )
  }, handled)
).pipe(
  Command.withDescription("Places any number of orders from a file, 50 per request, with one outcome per item"),
  Command.withExamples([{
    command: `${NAME} orders batch --symbol BTCUSDT_SPBL --file orders.ndjson`,
    description: "Place every order in orders.ndjson"
  }])
)

/** `spotkit orders`. */
export const orders = Command.make("orders").pipe(
  Command.withDescription("Place, list, look up and cancel orders"),
  Command.withSubcommands([ordersOpen, ordersPlace, ordersBatch, cancel, ...orderState])
)
