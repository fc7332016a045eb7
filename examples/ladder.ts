/**
 * User code to test: places a ladder of buy orders below a price, and cancels nothing. It only needs a
 * `SpotClient`, so tests give it the testkit's in-process exchange and production gives it `NodeSpotClient`.
 */
import { SpotClient } from "@spotkit/core"
import type { Order } from "@spotkit/core"
import { Effect } from "effect"

/**
 * `levels` postOnly bids of `quantity`, `step` apart, the first `step` below `below` (prices in whole units).
 * Answers the outcome of every level; a level the venue refuses does not stop the others.
 */
export const placeLadder = Effect.fn("placeLadder")(function*(options: {
  readonly symbol: string
  readonly below: number
  readonly step: number
  readonly levels: number
  readonly quantity: string
}) {
  const client = yield* SpotClient.SpotClient
  const items: Array<Order.BatchItemInput> = []
  for (let i = 1; i <= options.levels; i++) {
    items.push({
      side: "buy",
      orderType: "limit",
      force: "postOnly",
      price: String(options.below - i * options.step),
      quantity: options.quantity,
      clientOrderId: `ladder-${options.symbol}-${i}`
    })
  }
  return yield* client.placeOrders(options.symbol, items)
})
