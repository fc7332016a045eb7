/**
 * Quotes around the pushed book and reacts to its own fills: a bid one tick above the best bid of the others and an
 * ask one tick below their best ask, moved whenever the others' top moves (`watchBook`); each fill of its own orders
 * is logged and both sides are quoted again (`watchFills`); what its orders became is followed by `watchOrders`.
 * After `fills` fills it cancels its quotes, waits until each of its orders is final, and returns what it saw.
 *
 *   SPOTKIT_BASE_URL=... SPOTKIT_PUSH_URL=... SPOTKIT_API_KEY=... SPOTKIT_SECRET_KEY=... SPOTKIT_PASSPHRASE=... \
 *     node --conditions=@spotkit/source examples/quote-on-push.ts BTCUSDT_SPBL 3
 *
 * Against the sandbox (`spotkit-sandbox --push-faults disconnect=20,gap=7` prints the variables), trade against it
 * as bob to see it fill. The push streams never miss or repeat one of its fills across reconnects, and the book is
 * never read across a gap, so the program needs no bookkeeping of its own for either. `quoteOnPush` needs a
 * `SpotClient` and a `SpotPush`, so a test gives it the testkit's in-process exchange with push faults on
 * (`quote-on-push.test.ts`).
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { SpotClient, SpotPush } from "@spotkit/core"
import { NodeSpotClient, NodeSpotPush } from "@spotkit/node"
import { BigDecimal, Clock, Console, Effect, Layer, Stream } from "effect"

export interface Options {
  readonly symbol: string
  /** The price step of the symbol, e.g. "0.01". */
  readonly tick: string
  /** The quantity of each quote. */
  readonly quantity: string
  /** Stop after this many fills of its own orders. */
  readonly fills: number
  /** Prefix of every clientOrderId the program gives its orders. */
  readonly prefix: string
}

export interface Result {
  /** Every fill of its orders, in the order it was told of them. */
  readonly fills: ReadonlyArray<SpotPush.Fill>
  /** Each order it placed, as the last update pushed. */
  readonly orders: ReadonlyMap<string, SpotPush.OrderUpdate>
  /** How many times it quoted a side. */
  readonly quotes: number
}

type Side = "buy" | "sell"

interface Quote {
  readonly orderId: string
  readonly price: BigDecimal.BigDecimal
}

type Input =
  | { readonly _tag: "Book"; readonly event: SpotPush.BookEvent }
  | { readonly _tag: "Fill"; readonly fill: SpotPush.Fill }
  | { readonly _tag: "Order"; readonly order: SpotPush.OrderUpdate }

const decimal = BigDecimal.fromStringUnsafe
const ZERO = BigDecimal.make(0n, 0)

// The best price of a side leaving out its own quote there: what the others bid or ask.
const othersBest = (
  levels: ReadonlyArray<SpotPush.Level>,
  own: Quote | undefined
): BigDecimal.BigDecimal | undefined => {
  for (const level of levels) {
    const price = decimal(level.price)
    if (own === undefined || !BigDecimal.equals(price, own.price)) return price
  }
  return undefined
}

export const quoteOnPush = Effect.fn("quoteOnPush")(function*(options: Options) {
  const client = yield* SpotClient.SpotClient
  const push = yield* SpotPush.SpotPush
  const tick = decimal(options.tick)
  const quotes = new Map<Side, Quote>()
  const mine = new Map<string, SpotPush.OrderUpdate | undefined>()
  const fills: Array<SpotPush.Fill> = []
  const filled = new Map<string, BigDecimal.BigDecimal>()
  let book: SpotPush.OrderBook | undefined
  let placed = 0
  let closing = false

  const cancel = (side: Side) => {
    const quote = quotes.get(side)
    if (quote === undefined) return Effect.void
    quotes.delete(side)
    // An order already filled is an answer (`NotOpen`), not a failure.
    return Effect.asVoid(client.cancelOrder({ symbol: options.symbol, orderId: quote.orderId }))
  }

  const place = Effect.fnUntraced(function*(side: Side, price: BigDecimal.BigDecimal) {
    const order = yield* client.placeOrder({
      symbol: options.symbol,
      side,
      orderType: "limit",
      force: "postOnly",
      price: BigDecimal.format(price),
      quantity: options.quantity,
      clientOrderId: `${options.prefix}-${++placed}`
    })
    if (!mine.has(order.orderId)) mine.set(order.orderId, undefined)
    quotes.set(side, { orderId: order.orderId, price })
  })

  // Both sides a tick inside the others' top, each moved only when its target moved; a spread too narrow for both is
  // left alone.
  const requote = Effect.fnUntraced(function*(force: boolean) {
    if (book === undefined || closing) return
    const bestBid = othersBest(book.bids, quotes.get("buy"))
    const bestAsk = othersBest(book.asks, quotes.get("sell"))
    if (bestBid === undefined || bestAsk === undefined) return
    const bid = BigDecimal.sum(bestBid, tick)
    const ask = BigDecimal.subtract(bestAsk, tick)
    if (!BigDecimal.isLessThan(bid, ask)) return
    let moved = false
    for (const [side, price] of [["buy", bid], ["sell", ask]] as const) {
      const quote = quotes.get(side)
      if (!force && quote !== undefined && BigDecimal.equals(quote.price, price)) continue
      yield* cancel(side)
      yield* place(side, price)
      moved = true
    }
    if (moved) yield* Console.log(`quoting ${BigDecimal.format(bid)} / ${BigDecimal.format(ask)}`)
  })

  const onInput = Effect.fnUntraced(function*(input: Input) {
    switch (input._tag) {
      case "Book":
        if (input.event._tag === "Resync") {
          // Until the next snapshot the book is unknown: the quotes stay, nothing is decided on it.
          book = undefined
          return yield* Console.log(`book resync (${input.event.reason})`)
        }
        book = input.event.book
        return yield* requote(false)
      case "Order":
        if (mine.has(input.order.orderId)) mine.set(input.order.orderId, input.order)
        return
      case "Fill": {
        const fill = input.fill
        if (!mine.has(fill.orderId)) return
        fills.push(fill)
        filled.set(
          fill.orderId,
          BigDecimal.sum(filled.get(fill.orderId) ?? ZERO, decimal(fill.quantity))
        )
        yield* Console.log(`fill ${fill.fillId}: ${fill.side} ${fill.quantity} (${fill.source})`)
        if (fills.length < options.fills) return yield* requote(true)
        closing = true
        yield* cancel("buy")
        yield* cancel("sell")
      }
    }
  })

  // Orders, fills and the book are three streams: an order's final update may come before its last fill. Done when
  // every order is final and the fills seen add up to what each filled.
  const done = () =>
    closing && [...mine].every(([orderId, order]) =>
      order?.final === true &&
      BigDecimal.equals(filled.get(orderId) ?? ZERO, decimal(order.filledQuantity))
    )
  yield* Stream.mergeAll([
    push.watchBook(options.symbol).pipe(Stream.map((event): Input => ({ _tag: "Book", event }))),
    push.watchFills({ symbols: [options.symbol] }).pipe(Stream.map((fill): Input => ({ _tag: "Fill", fill }))),
    push.watchOrders({ symbols: [options.symbol] }).pipe(Stream.map((order): Input => ({ _tag: "Order", order })))
  ], { concurrency: "unbounded" }).pipe(
    Stream.mapEffect(onInput),
    Stream.takeUntil(done),
    Stream.runDrain
  )
  const orders = new Map([...mine].flatMap(([id, order]) => order === undefined ? [] : [[id, order] as const]))
  yield* Console.log(`done: ${fills.length} fills of ${orders.size} orders`)
  return { fills, orders, quotes: placed } satisfies Result
})

// Run as a program (not when a test imports it).
if (process.argv[1] === import.meta.filename) {
  Effect.gen(function*() {
    // clientOrderIds of this run, apart from those of earlier runs.
    const run = (yield* Clock.currentTimeMillis).toString(36)
    yield* quoteOnPush({
      symbol: process.argv[2] ?? "BTCUSDT_SPBL",
      tick: "0.01",
      quantity: "0.001",
      fills: Number(process.argv[3] ?? "3"),
      prefix: `qop-${run}`
    })
  }).pipe(
    Effect.provide(NodeSpotPush.layerConfig().pipe(Layer.provideMerge(NodeSpotClient.layerConfig()))),
    NodeRuntime.runMain
  )
}
