// Shared pieces of the push tests: layers (an exchange, its push venue fed by its engine, and a push client in
// process), letting fibers run without a timer, moving the TestClock in steps, collecting a stream in the background,
// and the engine's book as the stream shows it.
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
