/**
 * Places a few resting bids and one order to watch, polls the watched order by its clientOrderId until it is final
 * (filled or cancelled) or a deadline passes, cancels everything still open that it placed, and prints the balances
 * before and after.
 *
 *   SPOTKIT_BASE_URL=... SPOTKIT_API_KEY=... SPOTKIT_SECRET_KEY=... SPOTKIT_PASSPHRASE=... \
 *     node --conditions=@spotkit/source examples/watch-and-cancel.ts BTCUSDT_SPBL 30100
 *
 * The second argument is the watched buy's limit price: above the best ask it fills at once, below it rests and is
 * cancelled with the rest once the watch gives up. `watchAndCancel` only needs a `SpotClient`, so a test gives it the
 * testkit's in-process exchange (`watch-and-cancel.test.ts`).
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Order, SpotClient } from "@spotkit/core"
import type { Account, Cancel } from "@spotkit/core"
import { NodeSpotClient } from "@spotkit/node"
import { Clock, Console, type Duration, Effect, Option, Schedule } from "effect"

export interface Options {
  readonly symbol: string
  /** The resting bids: `levels` postOnly buys of `quantity`, `step` apart below `below` (whole units). */
  readonly below: number
  readonly step: number
  readonly levels: number
  readonly quantity: string
  /** The watched order: a limit buy of `quantity` at `price`. */
  readonly watch: { readonly price: string; readonly quantity: string }
  /** Time between two looks at the watched order, and how many looks before giving up. */
  readonly pollEvery: Duration.Input
  readonly polls: number
  /** Prefix of every clientOrderId the program gives its orders. */
  readonly prefix: string
}

export interface Result {
  /** The watched order as last seen, and whether it became final while watched. */
  readonly watched: Order.OrderRecord
  readonly finalWhileWatched: boolean
  readonly cancels: Cancel.CancelOrdersResult
  readonly before: ReadonlyArray<Account.Balance>
  readonly after: ReadonlyArray<Account.Balance>
}

const printBalances = (title: string, balances: ReadonlyArray<Account.Balance>) =>
  Console.log(
    [title, ...balances.map((b) => `  ${b.coinName}: available ${b.available}, frozen ${b.frozen}, equity ${b.equity}`)]
      .join("\n")
  )

export const watchAndCancel = Effect.fn("watchAndCancel")(function*(options: Options) {
  const client = yield* SpotClient.SpotClient
  const before = yield* client.balances()
  yield* printBalances("balances before:", before)

  // The resting bids in one call: one outcome per level, a level the venue refuses does not stop the others.
  const ladder = yield* client.placeOrders(
    options.symbol,
    Array.from({ length: options.levels }, (_, i) => ({
      side: "buy" as const,
      orderType: "limit" as const,
      force: "postOnly" as const,
      price: String(options.below - (i + 1) * options.step),
      quantity: options.quantity,
      clientOrderId: `${options.prefix}-rest-${i + 1}`
    }))
  )
  yield* Console.log(`resting bids: ${ladder.placed} placed, ${ladder.failed} failed`)

  const watchedId = `${options.prefix}-watch`
  const placed = yield* client.placeOrder({
    symbol: options.symbol,
    side: "buy",
    orderType: "limit",
    price: options.watch.price,
    quantity: options.watch.quantity,
    clientOrderId: watchedId
  })
  yield* Console.log(`watching ${placed.orderId} (${watchedId})`)

  // Look the order up by its clientOrderId (it sees filled and cancelled orders too) until it is final, every
  // `pollEvery`, at most `polls` more times: the last look answers either way.
  let seen = ""
  const look = Effect.gen(function*() {
    const found = yield* client.order({ clientOrderId: watchedId })
    // Just placed, so the venue knows it; a venue that lags behind is asked again at the next look.
    if (Option.isNone(found)) return undefined
    const order = found.value
    if (order.status !== seen) {
      yield* Console.log(`  ${order.status}: filled ${order.fillQuantity} of ${order.quantity}`)
    }
    seen = order.status
    return order
  })
  const last = yield* Effect.repeat(look, {
    schedule: Schedule.spaced(options.pollEvery).pipe(Schedule.upTo({ times: options.polls })),
    until: (order) => order !== undefined && Order.isFinal(order.status)
  })
  const finalWhileWatched = last !== undefined && Order.isFinal(last.status)
  if (!finalWhileWatched) yield* Console.log(`  not final after ${options.polls} more looks: cancelled with the rest`)

  // Everything this program placed that may still be open, by orderId: the watched order unless it is final.
  const mine = ladder.outcomes.flatMap((outcome) => outcome._tag === "Placed" ? [{ orderId: outcome.orderId }] : [])
  const cancels = yield* client.cancelOrders(
    options.symbol,
    finalWhileWatched ? mine : [...mine, { orderId: placed.orderId }]
  )
  yield* Console.log(
    `cancelled ${cancels.cancelled}, ${cancels.notOpen} no longer open, ${cancels.failed} failed`
  )

  const watched = Option.getOrUndefined(yield* client.order({ orderId: placed.orderId })) ?? last!
  yield* Console.log(`watched order ${watched.orderId}: ${watched.status}, filled ${watched.fillQuantity}`)
  const after = yield* client.balances()
  yield* printBalances("balances after:", after)
  return { watched, finalWhileWatched, cancels, before, after } satisfies Result
})

// Run as a program (not when a test imports it).
if (process.argv[1] === import.meta.filename) {
  Effect.gen(function*() {
    // clientOrderIds of this run, apart from those of earlier runs.
    const run = (yield* Clock.currentTimeMillis).toString(36)
    yield* watchAndCancel({
      symbol: process.argv[2] ?? "BTCUSDT_SPBL",
      below: 29000,
      step: 100,
      levels: 3,
      quantity: "0.001",
      watch: { price: process.argv[3] ?? "30100", quantity: "0.01" },
      pollEvery: "500 millis",
      polls: 10,
      prefix: `wac-${run}`
    })
  }).pipe(Effect.provide(NodeSpotClient.layerConfig()), NodeRuntime.runMain)
}
