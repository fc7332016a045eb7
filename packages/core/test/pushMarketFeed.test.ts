/**
 * The trades and candle feeds' memory: what they keep to match REST against pushes is bounded by size as well as by
 * time, so a venue whose pushed times stand still or run backwards cannot grow it without end; and a consumer that
 * falls a buffer behind fails, as nothing of either may be dropped.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Queue, Scope } from "effect"
import type { Cause } from "effect"
import { TestClock } from "effect/testing"
import { PushError } from "../src/index.ts"
import type { Sink } from "../src/internal/push/feeds.ts"
import { CandleFeed, TradeFeed } from "../src/internal/push/market.ts"
import type { CandleUpdate, PublicTrade } from "../src/internal/push/market.ts"
import { makeOverflow, SLOW_CONSUMER_MILLIS } from "../src/internal/push/overflow.ts"
import type { Control, DataFrame } from "../src/internal/push/subscriptions.ts"

const SYMBOL = "BTCUSDT_SPBL"
const control: Control = { resync: () => undefined, resyncNow: () => Effect.void, reconnect: () => undefined }

const frame = (channel: string, data: ReadonlyArray<unknown>): DataFrame => ({
  _tag: "Payload",
  channel,
  type: undefined,
  data
})

const START = 1_700_000_000_000

const TRADES = `trades.${SYMBOL}`
const CANDLES = `kline.LAST_PRICE.${SYMBOL}.MINUTE_1`

// Feeds whose backfills answer nothing.
const tradeFeed = (capacity: number) =>
  Effect.map(makeOverflow(), (overflow) =>
    new TradeFeed({
      symbol: SYMBOL,
      capacity,
      overflow,
      start: Effect.succeed(0),
      overlapMillis: 5_000,
      // The venue's time well after every trade pushed here: none is stamped ahead of it.
      now: () => START + 1_000_000_000,
      clockOffset: Effect.succeed(0),
      limit: 100,
      onGap: () => undefined,
      backfill: () => Effect.succeed([]),
      onFailed: () => Effect.void,
      bufferLimit: 100_000
    }))

const candleFeed = (capacity: number) =>
  Effect.map(makeOverflow(), (overflow) =>
    new CandleFeed({
      symbol: SYMBOL,
      period: "1m",
      capacity,
      overflow,
      backfill: () => Effect.succeed([]),
      onFailed: () => Effect.void,
      bufferLimit: 100_000,
      now: () => START + 1_000_000_000,
      clockOffset: Effect.succeed(0)
    }))

// A pushed one-minute bar at an open time, of a base (and quote) volume.
const kline = (openTime: number, size = "1") => ({
  symbol: SYMBOL,
  klineTime: String(openTime),
  open: "1",
  high: "1",
  low: "1",
  close: "1",
  size,
  value: size
})

// A trades feed live after an empty backfill, its consumer's buffer sliding (what it delivers is not the point here).
const live = (feed: TradeFeed, channel: string) =>
  Effect.gen(function*() {
    const sink: Sink<PublicTrade> = yield* Queue.sliding<PublicTrade, PushError.PushErrorReason | Cause.Done>(1)
    feed.attach(sink)
    const scope = yield* Scope.make()
    yield* feed.onActive(channel, scope, control)
    yield* Effect.yieldNow
  })

const trades = (time: (i: number) => number, n: number) =>
  Effect.gen(function*() {
    const feed = yield* tradeFeed(10)
    yield* live(feed, TRADES)
    for (let i = 0; i < n; i++) {
      feed.onFrame(
        frame(TRADES, [{
          time: String(time(i)),
          price: `${1 + i}.5`,
          size: "1",
          value: "1",
          buyerMaker: true
        }]),
        control
      )
    }
    return feed.kept
  })

describe("TradeFeed: the trades kept to match REST's", () => {
  it.effect("are bounded when pushed times stand still or run backwards", () =>
    Effect.gen(function*() {
      assert.isAtMost(yield* trades(() => START, 20_000), 2_000)
      assert.isAtMost(yield* trades((i) => START - i, 20_000), 2_000)
      // Times advancing: those past the overlap are let go.
      assert.isAtMost(yield* trades((i) => START + i * 10, 20_000), 501)
    }))
})

describe("CandleFeed: the bars kept", () => {
  it.effect("are bounded when pushed open times run backwards; a bar older than those kept is not delivered", () =>
    Effect.gen(function*() {
      const feed = yield* candleFeed(10)
      const delivered: Array<number> = []
      const sink = yield* Queue.unbounded<CandleUpdate, PushError.PushErrorReason | Cause.Done>()
      feed.attach(sink)
      const scope = yield* Scope.make()
      yield* feed.onActive(CANDLES, scope, control)
      yield* Effect.yieldNow
      for (let i = 0; i < 10_000; i++) feed.onFrame(frame(CANDLES, [kline(START - i * 60_000)]), control)
      for (const update of yield* Queue.clear(sink)) delivered.push((START - update.openTime) / 60_000)
      assert.isAtMost(feed.kept, 3)
      assert.deepStrictEqual(delivered, [0, 1, 2])
    }))
})

describe("TradeFeed and CandleFeed: a consumer behind", () => {
  // Every trade and every change of a bar is owed. What a consumer's queue has no room for waits for it, in order: a
  // consumer that takes within the grace gets it all, however many came at once. One that leaves an element waiting
  // longer fails with SlowConsumerError (as one of orders, fills or balances does), after what its queue held, never
  // silently dropped to; the others go on.
  it.effect("fails with SlowConsumerError after the grace, trades and candles alike; one that takes in time gets all", () =>
    Effect.gen(function*() {
      type Feed<A> = Pick<TradeFeed, "onActive" | "onFrame"> & { attach(sink: Sink<A>): void }
      const slow = <A>(feed: Feed<A>, channel: string, data: (i: number) => unknown) =>
        Effect.gen(function*() {
          const behind = yield* Queue.bounded<A, PushError.PushErrorReason | Cause.Done>(2)
          const late = yield* Queue.bounded<A, PushError.PushErrorReason | Cause.Done>(2)
          const keeping = yield* Queue.unbounded<A, PushError.PushErrorReason | Cause.Done>()
          feed.attach(behind)
          feed.attach(late)
          feed.attach(keeping)
          yield* feed.onActive(channel, yield* Scope.make(), control)
          yield* Effect.yieldNow
          for (let i = 0; i < 5; i++) feed.onFrame(frame(channel, [data(i)]), control)
          // Just within the grace, the late consumer takes: all five, in order, and it goes on.
          yield* TestClock.adjust(SLOW_CONSUMER_MILLIS - 1)
          const taken: Array<A> = []
          for (let i = 0; i < 5; i++) taken.push(yield* Queue.take(late))
          yield* TestClock.adjust(1)
          const held: Array<A> = []
          const failure = yield* Effect.flip(Effect.forever(Effect.map(Queue.take(behind), (a) => held.push(a))))
          // The late consumer goes on: the next element reaches it.
          feed.onFrame(frame(channel, [data(5)]), control)
          taken.push(yield* Queue.take(late))
          return { failure, held: held.length, taken, kept: yield* Queue.clear(keeping) }
        })
      const trades = yield* slow<PublicTrade>(
        yield* tradeFeed(2),
        TRADES,
        (i) => ({ time: String(START + i), price: "1", size: "1", value: "1", buyerMaker: true })
      )
      assert.deepStrictEqual(trades.taken.map((t) => t.time), [0, 1, 2, 3, 4, 5].map((i) => START + i))
      // One bar gaining volume: each push a change.
      const candles = yield* slow<CandleUpdate>(yield* candleFeed(2), CANDLES, (i) => kline(START, String(1 + i)))
      assert.deepStrictEqual(candles.taken.map((c) => c.baseVolume), ["1", "2", "3", "4", "5", "6"])
      for (const { failure, held, kept } of [trades, candles]) {
        assert.isTrue(failure instanceof PushError.SlowConsumerError)
        assert.strictEqual((failure as PushError.SlowConsumerError).capacity, 2)
        assert.strictEqual(held, 2)
        assert.strictEqual(kept.length, 6)
      }
    }))
})

describe("CandleFeed: a bar after the next one opened", () => {
  // Nothing marks a bar final, and its final state may come after the next bar's first push: a push of any of the
  // newest three bars is delivered (as it gains volume); one of a bar older than those is late, and is not.
  it.effect("is still delivered while among the newest three bars; after, a push of it is not", () =>
    Effect.gen(function*() {
      const feed = yield* candleFeed(10)
      const sink = yield* Queue.unbounded<CandleUpdate, PushError.PushErrorReason | Cause.Done>()
      feed.attach(sink)
      yield* feed.onActive(CANDLES, yield* Scope.make(), control)
      yield* Effect.yieldNow
      const push = (bar: number, size: string) =>
        feed.onFrame(frame(CANDLES, [kline(START + bar * 60_000, size)]), control)
      push(0, "1")
      push(1, "1")
      push(0, "2") // bar 0's final state, after bar 1's first push
      push(2, "1")
      push(3, "1")
      push(0, "3") // bar 0 is no longer among the newest three (1, 2, 3)
      const delivered = (yield* Queue.clear(sink)).map((u) => [(u.openTime - START) / 60_000, u.baseVolume])
      assert.deepStrictEqual(delivered, [[0, "1"], [1, "1"], [0, "2"], [2, "1"], [3, "1"]])
    }))
})
