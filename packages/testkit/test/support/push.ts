// Shared pieces of the push tests: layers (an exchange, its push venue and a push client in process), letting fibers
// run without a timer, moving the TestClock in steps, collecting a stream in the background, and a mirror that
// publishes what changed in the engine (books, orders, fills, balances) as venue events.
import { SpotPush } from "@spotkit/core"
import type { SpotClient } from "@spotkit/core"
import { Effect, Fiber, Layer, Stream } from "effect"
import type { Scope } from "effect"
import { TestClock } from "effect/testing"
import type { Engine } from "../../src/index.ts"
import { PushVenue, TestExchange } from "../../src/index.ts"

/** Lets fibers and in-process sockets run until they wait on the clock: real event-loop turns, no timer. */
export const settle = Effect.gen(function*() {
  for (let i = 0; i < 50; i++) yield* Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve)))
})

/** Moves the TestClock by `millis` in steps of `step`, letting everything woken run at each step. */
export const advance = (millis: number, step = 1_000) =>
  Effect.gen(function*() {
    yield* settle
    for (let done = 0; done < millis; done += step) {
      yield* TestClock.adjust(Math.min(step, millis - done))
      yield* settle
    }
  })

export interface SetupOptions {
  readonly exchange?: TestExchange.Options | undefined
  readonly venue?: PushVenue.Options | undefined
  readonly push?: Partial<SpotPush.Options> | undefined
  readonly client?: Partial<SpotClient.Options> | undefined
}

/** The demo exchange (alice, bob and their books), its push venue, alice's REST client and push client. */
export const setup = (options: SetupOptions = {}) => {
  const base = TestExchange.layerSpotClient({
    exchange: options.exchange ?? { ...TestExchange.demo({ bills: 0 }), rateLimits: false },
    client: options.client
  })
  const venue = PushVenue.layer(options.venue).pipe(Layer.provideMerge(base))
  return PushVenue.layerSpotPush(options.push).pipe(Layer.provideMerge(venue))
}

/** Runs a stream in the background, keeping every element; `stop` interrupts it. */
export const collect = <A, E>(stream: Stream.Stream<A, E>): Effect.Effect<Collected<A, E>, never, Scope.Scope> =>
  Effect.gen(function*() {
    const items: Array<A> = []
    const fiber = yield* Effect.forkScoped(Stream.runForEach(stream, (a) => Effect.sync(() => items.push(a))))
    return { items, fiber, stop: Fiber.interrupt(fiber) }
  })

export interface Collected<A, E> {
  readonly items: Array<A>
  readonly fiber: Fiber.Fiber<void, E>
  readonly stop: Effect.Effect<void>
}

type Side = Map<string, string>

const levels = (rows: ReadonlyArray<readonly [string, string, number]>): Side =>
  new Map(rows.map(([price, size]) => [price, size]))

const changed = (before: Side, after: Side): Array<readonly [string, string]> => {
  const out: Array<readonly [string, string]> = []
  for (const [price, size] of after) if (before.get(price) !== size) out.push([price, size])
  for (const price of before.keys()) if (!after.has(price)) out.push([price, "0"])
  return out
}

/**
 * Publishes what changed in the engine since the last call, as the engine will push it: each order whose state moved,
 * each new fill, each user's spot balances that changed, each symbol's changed levels.
 */
export const mirror = (engine: Engine.Engine, venue: PushVenue.Service, users: ReadonlyArray<string>) => {
  const books = new Map<string, { bids: Side; asks: Side }>()
  const orders = new Map<string, string>()
  const fills = new Set<string>()
  const balances = new Map<string, string>()
  const symbols = ["BTCUSDT_SPBL", "ETHUSDT_SPBL"]
  const remember = () => {
    for (const symbol of symbols) {
      const depth = engine.depth(symbol)
      books.set(symbol, { bids: levels(depth.bids), asks: levels(depth.asks) })
    }
    for (const order of engine.orderList()) orders.set(order.orderId, `${order.status}:${order.fillQuantity}`)
    for (const fill of engine.fillList()) fills.add(fill.fillId)
    for (const user of users) {
      for (const b of engine.spotBalances(user)) balances.set(`${user}:${b.coinName}`, `${b.available}/${b.frozen}`)
    }
  }
  remember()
  const sync = Effect.gen(function*() {
    const time = engine.now
    for (const order of engine.orderList()) {
      const state = `${order.status}:${order.fillQuantity}`
      if (orders.get(order.orderId) === state) continue
      orders.set(order.orderId, state)
      yield* venue.publish({ _tag: "Order", userId: order.userId, order, time })
    }
    for (const fill of engine.fillList()) {
      if (fills.has(fill.fillId)) continue
      fills.add(fill.fillId)
      yield* venue.publish({ _tag: "Fill", userId: fill.userId, fill, time })
    }
    for (const user of users) {
      const moved = engine.spotBalances(user).filter((b) => {
        const key = `${user}:${b.coinName}`
        const value = `${b.available}/${b.frozen}`
        if (balances.get(key) === value) return false
        balances.set(key, value)
        return true
      })
      if (moved.length > 0) yield* venue.publish({ _tag: "Balance", userId: user, balances: moved, time })
    }
    for (const symbol of symbols) {
      const depth = engine.depth(symbol)
      const after = { bids: levels(depth.bids), asks: levels(depth.asks) }
      const before = books.get(symbol)!
      books.set(symbol, after)
      const bids = changed(before.bids, after.bids)
      const asks = changed(before.asks, after.asks)
      if (bids.length > 0 || asks.length > 0) yield* venue.publish({ _tag: "Book", symbol, bids, asks })
    }
  })
  return { sync }
}

/** The engine's best `depth` levels of a symbol as the stream shows them. */
export const engineBook = (engine: Engine.Engine, symbol: string, depth: number) => {
  const view = engine.depth(symbol)
  const side = (rows: ReadonlyArray<readonly [string, string, number]>) =>
    rows.slice(0, depth).map(([price, size]) => ({ price, size }))
  return { bids: side(view.bids), asks: side(view.asks) }
}

/** The book an event list ends with (none while it is being rebuilt). */
export const lastBook = (events: ReadonlyArray<SpotPush.BookEvent>): SpotPush.OrderBook | undefined => {
  const last = events.at(-1)
  return last?._tag === "Book" ? last.book : undefined
}

export { SpotPush }
