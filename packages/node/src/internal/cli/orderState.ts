// `spotkit orders get` (one order, whatever its status) and `orders history` (every order of a symbol, any status,
// streamed); and how a list of orders is printed, which `orders open` shares.
import type { Order, SpotError } from "@spotkit/core"
import { Effect, Option, Stream } from "effect"
import { Command, Flag } from "effect/cli"
import * as Formats from "../formats.ts"
import * as Records from "../records.ts"
import * as Export from "./export.ts"
import {
  client,
  failure,
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

/** `--format` and `--csv-raw` of a list of orders. */
export const listFormat = listFlags(
  ["json", "ndjson"],
  "table, csv (with a header row), json (one array) or ndjson (one order per line)"
)

/**
 * Orders as a table, CSV, one JSON array, or NDJSON. NDJSON is written page by page as the stream pulls them
 * (constant memory for any number of orders); the others need every order first.
 */
export const writeOrders = (orders: Stream.Stream<Order.OrderRecord, SpotError.SpotError>, as: ListFormat) =>
  as.format === "ndjson"
    ? Stream.runForEachArray(orders, (page) => Effect.flatMap(redacted(page), (clean) => write(Formats.ndjson(clean))))
    : Effect.flatMap(Stream.runCollect(orders), (all) => writeRecords(Records.order, all, as))

const orderIdFlag = Flag.String("order-id").pipe(
  Flag.withDescription("The venue's id of the order"),
  Flag.withMetavar("ID"),
  Flag.optional
)
const clientOrderIdFlag = Flag.String("client-order-id").pipe(
  Flag.withDescription("Your id of the order"),
  Flag.withMetavar("ID"),
  Flag.optional
)

/** `--order-id` and `--client-order-id`, for a command that names one order by either. */
export const refFlags = { orderId: orderIdFlag, clientOrderId: clientOrderIdFlag }

/** The order the flags name, or undefined when neither is given; both given is bad usage. */
export const refOf = (flags: {
  readonly orderId: Option.Option<string>
  readonly clientOrderId: Option.Option<string>
}) =>
  Option.isSome(flags.orderId) && Option.isSome(flags.clientOrderId)
    ? usage("give --order-id or --client-order-id, not both")
    : Effect.succeed<Order.OrderRef | undefined>(
      Option.isSome(flags.orderId)
        ? { orderId: flags.orderId.value }
        : Option.isSome(flags.clientOrderId)
        ? { clientOrderId: flags.clientOrderId.value }
        : undefined
    )

/** How an order is named in a message. */
export const describeRef = (ref: Order.OrderRef): string =>
  ref.orderId !== undefined ? `orderId ${ref.orderId}` : `clientOrderId ${ref.clientOrderId}`

const ordersGet = Command.make(
  "get",
  { ...refFlags, ...listFlags(["json"], "table, csv (with a header row), or json (the order as one object)") },
  Effect.fnUntraced(function*(flags) {
    const ref = yield* refOf(flags)
    if (ref === undefined) return yield* usage("name the order with --order-id or --client-order-id")
    const spot = yield* client()
    const found = yield* spot.order(ref)
    // Not found is an answer of the venue, but not the order asked for: exit code 1, nothing on stdout.
    if (Option.isNone(found)) return yield* failure(`no order with ${describeRef(ref)}`)
    if (flags.format === "json") return yield* write(Formats.json(yield* redacted(found.value)))
    yield* writeRecords(Records.order, [found.value], flags)
  }, handled)
).pipe(
  Command.withShortDescription("One order by orderId or clientOrderId, whatever its status"),
  Command.withDescription(
    "Shows one order by orderId or clientOrderId, whatever its status: open or partial_fill (it can still change), " +
      "full_fill or cancelled (final). A market buy's quantity is the quote coin it was to spend, its filled quantity " +
      "the base coin it bought. Exit code 1 when the venue knows no such order (one line on stderr)"
  ),
  Command.withExamples([
    { command: `${NAME} orders get --order-id 602882076026339770`, description: "One order by the venue's id" },
    {
      command: `${NAME} orders get --client-order-id my-order-1 --format json`,
      description: "One order by your id, as JSON (its status tells whether it is final)"
    }
  ])
)

const ordersHistory = Command.make(
  "history",
  {
    symbol,
    ...Export.rangeFlags("orders created"),
    ...listFormat,
    pageSize: Export.pageSizeFlag("Orders")
  },
  Effect.fnUntraced(function*(flags) {
    const range = yield* Export.checked(flags)
    const spot = yield* client()
    yield* writeOrders(
      spot.orderHistory({ symbol: flags.symbol, after: range.after, before: range.before, pageSize: flags.pageSize }),
      flags
    )
  }, handled)
).pipe(
  Command.withDescription(
    "Streams every order of a symbol, newest first, whatever its status (open, partial_fill, full_fill, cancelled)"
  ),
  Command.withExamples([
    { command: `${NAME} orders history --symbol BTCUSDT_SPBL`, description: "Every order of the symbol, as a table" },
    {
      command: `${NAME} orders history --symbol BTCUSDT_SPBL --since 2024-05-01 --until 2024-05-02 --format ndjson`,
      description: "The orders of 1 May 2024 (UTC), one JSON object per line"
    }
  ])
)

/** `orders get` and `orders history`. */
export const orderState = [ordersGet, ordersHistory] as const
