/**
 * User code to test: reads a symbol's order book and quotes one tick inside the spread — a postOnly bid one tick
 * above the best bid, or an ask one tick below the best ask — so that it becomes the best price without taking
 * liquidity. When the spread is a single tick there is no price inside it, and the order joins the best price
 * instead. The tick comes from the symbol's trading rules (`client.symbol`); prices are exact decimals throughout.
 * It only needs a `SpotClient`: tests give it the testkit's in-process exchange, production `NodeSpotClient`.
 */
import type { Order } from "@spotkit/core"
import { SpotClient } from "@spotkit/core"
import { BigDecimal, Data, Effect, Option } from "effect"

/** Why no quote was placed: the venue lists no such symbol, or the side to improve on has no order. */
export class NoQuote extends Data.TaggedError("NoQuote")<{ readonly message: string }> {}

/** The price one tick inside the spread on `side`, or the best price itself when the spread is one tick. */
export const insidePrice = (side: Order.Side, bestBid: string, bestAsk: string, tickSize: string): string => {
  const bid = BigDecimal.fromStringUnsafe(bestBid)
  const ask = BigDecimal.fromStringUnsafe(bestAsk)
  const tick = BigDecimal.fromStringUnsafe(tickSize)
  const price = side === "buy" ? BigDecimal.sum(bid, tick) : BigDecimal.subtract(ask, tick)
  // A price at or through the other side would take liquidity: a postOnly order there is refused.
  const inside = side === "buy" ? BigDecimal.isLessThan(price, ask) : BigDecimal.isGreaterThan(price, bid)
  return BigDecimal.format(inside ? price : side === "buy" ? bid : ask)
}

/**
 * Places a postOnly limit order of `quantity` one tick inside `symbol`'s spread on `side`. Answers the order placed
 * and the book it was priced from.
 */
export const quoteInside = Effect.fn("quoteInside")(function*(options: {
  readonly symbol: string
  readonly side: Order.Side
  readonly quantity: string
  readonly clientOrderId?: string | undefined
}) {
  const client = yield* SpotClient.SpotClient
  const rules = yield* client.symbol(options.symbol)
  if (Option.isNone(rules)) return yield* new NoQuote({ message: `the venue lists no symbol ${options.symbol}` })
  const book = yield* client.orderBook(options.symbol, { limit: 15 })
  const [bestBid, bestAsk] = [book.bids[0], book.asks[0]]
  if (bestBid === undefined || bestAsk === undefined) {
    return yield* new NoQuote({ message: `${options.symbol} has no ${bestBid === undefined ? "bid" : "ask"}` })
  }
  const price = insidePrice(options.side, bestBid.price, bestAsk.price, rules.value.tickSize)
  const placed = yield* client.placeOrder({
    symbol: options.symbol,
    side: options.side,
    orderType: "limit",
    force: "postOnly",
    price,
    quantity: options.quantity,
    clientOrderId: options.clientOrderId
  })
  return { placed, price, book }
})
