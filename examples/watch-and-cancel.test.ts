/**
 * `watch-and-cancel.ts` against the testkit's in-process exchange: the watched order is polled by clientOrderId until
 * it is final (here filled by bob while it is watched, or at once), or given up on and cancelled with the rest; the
 * resting bids are cancelled in any case and the balances come back to what the trades left.
 */
import { assert, describe, it } from "@effect/vitest"
import { TestExchange } from "@spotkit/testkit"
import { Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { type Options, watchAndCancel } from "./watch-and-cancel.ts"

const options = (watchPrice: string, polls: number): Options => ({
  symbol: "BTCUSDT_SPBL",
  below: 29000,
  step: 100,
  levels: 3,
  quantity: "0.001",
  watch: { price: watchPrice, quantity: "0.01" },
  pollEvery: "20 millis",
  polls,
  prefix: "test"
})

const state = Effect.gen(function*() {
  const exchange = yield* TestExchange.TestExchange
  const alice = exchange.accounts[0]!.userId
  const orderLookups = (yield* exchange.requests).filter((r) => r.path === "/api/v2/trade/orderInfo").length
  return {
    exchange,
    alice,
    open: exchange.engine.orderList(alice).filter((order) => order.status === "open"),
    watched: exchange.engine.orderByClientId(alice, "test-watch"),
    orderLookups
  }
})

const usdt = (
  balances: ReadonlyArray<{ readonly coinName: string; readonly frozen: string; readonly equity: string }>
) => balances.find((balance) => balance.coinName === "USDT")!

// Yields until `done` holds, letting the forked program run in between; no time passes.
const until = (done: () => boolean) =>
  Effect.gen(function*() {
    for (let turns = 0; !done(); turns++) {
      if (turns === 10_000) return yield* Effect.die(new Error("the program never got there"))
      yield* Effect.yieldNow
    }
  })

// The watch waits between its looks on the TestClock: each test runs it in a fiber and moves the clock.
describe("watchAndCancel", () => {
  it.effect("watches a resting bid until bob fills it, then cancels the resting bids", () =>
    Effect.gen(function*() {
      const { alice, exchange } = yield* state
      const bob = exchange.accounts[1]!.userId
      const watch = yield* Effect.forkChild(watchAndCancel(options("30000", 50)))
      // Alice's bid at 30000 rests (bob's best bid is lower) and is looked at every 20 ms: three more looks.
      yield* until(() => exchange.engine.orderByClientId(alice, "test-watch") !== undefined)
      yield* TestClock.adjust("60 millis")
      // Then bob sells into it: it fills while it is watched, and the next look sees it final.
      yield* exchange.placeOrder(bob, {
        symbol: "BTCUSDT_SPBL",
        side: "sell",
        orderType: "limit",
        force: "normal",
        price: "30000",
        quantity: "0.01",
        clientOrderId: "bob-fills-it"
      })
      yield* TestClock.adjust("20 millis")
      const result = yield* Fiber.join(watch)

      assert.isTrue(result.finalWhileWatched)
      assert.strictEqual(result.watched.status, "full_fill")
      assert.strictEqual(result.watched.fillQuantity, "0.010000")
      // It was seen open first: several looks, not one.
      const after = yield* state
      assert.isAbove(after.orderLookups, 2)
      assert.strictEqual(after.watched?.status, "full_fill")
      // The three resting bids are cancelled; nothing of alice's is open, nothing frozen.
      assert.deepStrictEqual([result.cancels.cancelled, result.cancels.notOpen, result.cancels.failed], [3, 0, 0])
      assert.deepStrictEqual(after.open, [])
      assert.strictEqual(usdt(result.after).frozen, "0")
      // 0.01 BTC at 30000 cost 300 USDT (the maker's fee is taken in BTC).
      assert.strictEqual(usdt(result.before).equity, "1000000")
      assert.strictEqual(usdt(result.after).equity, "999700")
    }).pipe(Effect.provide(TestExchange.layerSpotClient())))

  it.effect("gives up on a bid nobody fills after its looks and cancels it with the rest", () =>
    Effect.gen(function*() {
      const watch = yield* Effect.forkChild(watchAndCancel(options("29500", 3)))
      yield* TestClock.adjust("1 second") // past its three more looks, 20 ms apart
      const result = yield* Fiber.join(watch)
      assert.isFalse(result.finalWhileWatched)
      assert.strictEqual(result.watched.status, "cancelled")
      assert.deepStrictEqual([result.cancels.cancelled, result.cancels.failed], [4, 0])
      const after = yield* state
      // The first look and three more.
      assert.strictEqual(after.orderLookups - 1, 4)
      assert.deepStrictEqual(after.open, [])
      // Nothing traded: the balances are as before.
      assert.deepStrictEqual(result.after, result.before)
    }).pipe(Effect.provide(TestExchange.layerSpotClient())))

  // Final at the first look: the watch never waits.
  it.effect("a bid that crosses the book is final at the first look", () =>
    Effect.gen(function*() {
      const result = yield* watchAndCancel(options("30100", 50))
      assert.isTrue(result.finalWhileWatched)
      assert.strictEqual(result.watched.status, "full_fill")
      assert.strictEqual(result.cancels.cancelled, 3)
      const after = yield* state
      // One look while watching, one for the final record.
      assert.strictEqual(after.orderLookups, 2)
      assert.deepStrictEqual(after.open, [])
    }).pipe(Effect.provide(TestExchange.layerSpotClient())))
})
