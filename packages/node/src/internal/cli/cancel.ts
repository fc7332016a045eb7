// `spotkit orders cancel`: one order (by orderId or clientOrderId), every open order of a symbol (`--all`), or the
// orders a file names (`--file`), with one outcome per order and a summary on stderr.
import type { Cancel, Order } from "@spotkit/core"
import { Effect, Option } from "effect"
import { Command, Flag } from "effect/cli"
import * as Records from "../records.ts"
import * as Items from "./items.ts"
import { refFlags, refOf } from "./orderState.ts"
import {
  client,
  formatRecords,
  handled,
  json,
  listFlags,
  NAME,
  redacted,
  sending,
  sendWatch,
  symbol,
  usage
} from "./shared.ts"

// Orders that may still be open after the command: those the venue did not know and those that failed.
const summary = (result: Cancel.CancelOrdersResult) => {
  const unknown = result.outcomes.filter((outcome) => Records.cancelWord(outcome) === "unknown").length
  return {
    text:
      `cancelled ${result.cancelled} of ${result.outcomes.length}, ${
        result.notOpen - unknown
      } already final, ${unknown} unknown, ${result.failed} failed` +
      (result.complete ? "" : "; an earlier attempt whose answer was lost may have cancelled orders not listed"),
    failed: unknown + result.failed
  }
}

const ordersCancel = Command.make(
  "cancel",
  {
    symbol,
    ...refFlags,
    all: Flag.Boolean("all").pipe(
      Flag.withDescription("Cancel every open order of the symbol"),
      Flag.withDefault(false)
    ),
    file: Flag.String("file").pipe(
      Flag.withDescription(
        "Cancel the orders this file names: one id a line, or a JSON array of ids; an item may also be " +
          "{\"orderId\": ...} or {\"clientOrderId\": ...}. Any number, 50 per request"
      ),
      Flag.withMetavar("FILE"),
      Flag.optional
    ),
    ids: Flag.Literals("ids", ["order-id", "client-order-id"]).pipe(
      Flag.withDescription("What the bare ids of --file are"),
      Flag.withDefault("order-id")
    ),
    ...listFlags(["json", "ndjson"], "How to print the outcome of each order: table, csv, json or ndjson")
  },
  Effect.fnUntraced(function*(flags) {
    const ref = yield* refOf(flags)
    const ways = [ref !== undefined, flags.all, Option.isSome(flags.file)].filter(Boolean).length
    if (ways !== 1) {
      return yield* usage("name the orders to cancel with one of --order-id, --client-order-id, --all and --file")
    }
    const bare = (id: string): Order.OrderRef => flags.ids === "order-id" ? { orderId: id } : { clientOrderId: id }
    const refs = Option.isSome(flags.file)
      ? (yield* Items.read(
        flags.file.value,
        bare,
        Items.onlyFields(["orderId", "clientOrderId"], flags.symbol, "cancelled")
      )).map((item) => typeof item === "string" ? bare(item) : item)
      : undefined
    const watch = sendWatch()
    const spot = yield* client("private", { transformClient: watch.transformClient })
    const check = `check with \`${NAME} orders open --symbol ${flags.symbol}\``
    // What an interruption before the answer, or a failure whose outcome is unknown, leaves, said of the orders as
    // this command named them: one order, the orders of a file, or every open order of the symbol (whose orders may
    // be cancelled in part).
    const one = ref === undefined
      ? undefined
      : ref.orderId !== undefined
      ? { label: `orderId ${ref.orderId}`, flag: `--order-id ${ref.orderId}` }
      : { label: `clientOrderId ${ref.clientOrderId}`, flag: `--client-order-id ${ref.clientOrderId}` }
    const [doing, unknown] = one !== undefined
      ? [
        `cancelling the order (${one.label})`,
        `it may have been cancelled; check with \`${NAME} orders get ${one.flag}\` (cancelling again does no harm)`
      ]
      : refs !== undefined
      ? [
        "cancelling the orders the file names",
        `some or all may have been cancelled; ${check} (cancelling again does no harm)`
      ]
      : [
        `cancelling every open order of ${flags.symbol}`,
        `some or all may have been cancelled; ${check}, or cancel what is left with ` +
        `\`${NAME} orders cancel --symbol ${flags.symbol} --all\` (cancelling again does no harm)`
      ]
    yield* sending(
      ref !== undefined
        ? Effect.map(
          spot.cancelOrder({ symbol: flags.symbol, ...ref }),
          (outcome) => Records.summarize([{ ...outcome, index: 0 }])
        )
        : refs !== undefined
        // Each item is checked by the client (a bad one fails alone), so they go in as they were read.
        ? spot.cancelOrders(flags.symbol, refs as ReadonlyArray<Order.OrderRef>)
        : spot.cancelAll(flags.symbol),
      {
        doing,
        unknown,
        unsent: { watch, line: "the cancel was sent: nothing was cancelled" },
        answered: (result) => `writing the outcomes: the venue answered (${summary(result).text}); ${check}`
      },
      (result) =>
        Effect.gen(function*() {
          const { failed, text } = summary(result)
          const printed = flags.format === "json"
            ? json(yield* redacted(result))
            : yield* formatRecords(Records.cancelOutcome, result.outcomes, flags)
          yield* Items.report(printed, text, failed)
        })
    )
  }, handled)
).pipe(
  Command.withShortDescription("Cancels one order, all of a symbol, or those a file names"),
  Command.withDescription(
    "Cancels one order, every open order of a symbol (--all), or the orders a file names (--file), printing one " +
      "outcome per order in input order: cancelled; final (already filled or cancelled: nothing to do); unknown (the " +
      "venue knows no such order); failed (refused or not sent). A summary goes to stderr. Exit code 0 when every " +
      "order is cancelled or final, 1 when any is unknown or failed (cancelling again does no harm)"
  ),
  Command.withExamples([
    {
      command: `${NAME} orders cancel --symbol BTCUSDT_SPBL --order-id 602882076026339770`,
      description: "One order by the venue's id"
    },
    { command: `${NAME} orders cancel --symbol BTCUSDT_SPBL --all`, description: "Every open order of the symbol" },
    {
      command: `${NAME} orders cancel --symbol BTCUSDT_SPBL --file ids.txt --ids client-order-id --format ndjson`,
      description: "The orders whose clientOrderIds ids.txt lists, one per line"
    }
  ])
)

/** `orders cancel`. */
export const cancel = ordersCancel
