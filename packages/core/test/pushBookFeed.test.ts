/**
 * A book feed before its subscription's acknowledgement: the latest snapshot and the changes after it are kept, and the
 * book starts from them once the subscription is acknowledged (one book for all of them); changes with no snapshot
 * before them are dropped, and more than `EARLY_LIMIT` messages are forgotten (the snapshot deadline recovers).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Queue, Scope } from "effect"
import type { Cause } from "effect"
import { TestClock } from "effect/testing"
import { PushError } from "../src/index.ts"
import { BookFeed, EARLY_LIMIT } from "../src/internal/push/feeds.ts"
import type { Sink } from "../src/internal/push/feeds.ts"
import type { BookEvent } from "../src/internal/push/model.ts"
import { makeOverflow, SLOW_CONSUMER_MILLIS } from "../src/internal/push/overflow.ts"
import type { Control, DataFrame } from "../src/internal/push/subscriptions.ts"

const SYMBOL = "BTCUSDT_SPBL"
const CHANNEL = "depth.BTCUSDT_SPBL.15"

const depth = (depthType: "SNAPSHOT" | "CHANGED", start: number, end: number, bid: string) => ({
  startVersion: String(start),
  endVersion: String(end),
  depthType,
  symbol: SYMBOL,
  level: 15,
  bids: [{ price: bid, size: "1" }],
  asks: []
})

const frame = (...data: ReadonlyArray<unknown>): DataFrame => ({
  _tag: "Payload",
  channel: CHANNEL,
  type: undefined,
  data
})

const harness = Effect.gen(function*() {
  const resyncs: Array<string> = []
  const control: Control = {
    resync: (channel) => resyncs.push(channel),
    resyncNow: (channel) => Effect.sync(() => resyncs.push(channel)),
    reconnect: () => undefined
  }
  const feed = new BookFeed(SYMBOL, 15, () => Effect.void, () => undefined, 5_000, yield* makeOverflow())
  const sink: Sink<BookEvent> = yield* Queue.make<BookEvent, PushError.PushErrorReason | Cause.Done>({ capacity: 100 })
  feed.attach(sink)
  const scope = yield* Scope.make()
  const events = Effect.map(Queue.clear(sink), (items) => items.map((e) => e._tag === "Book" ? e.book.version : e._tag))
  return { feed, control, resyncs, scope, events }
})

describe("push book feed before the acknowledgement", () => {
  it.effect("keeps the latest snapshot and the changes after it, drops changes before any; one book on onActive", () =>
    Effect.gen(function*() {
      const { control, events, feed, resyncs, scope } = yield* harness
      // A change with no snapshot before it (the previous subscription's, perhaps): dropped.
      feed.onEarly(CHANNEL, frame(depth("CHANGED", 1, 1, "90")))
      feed.onEarly(CHANNEL, frame(depth("SNAPSHOT", 5, 5, "100"), depth("CHANGED", 6, 6, "101")))
      // A later snapshot replaces what was kept.
      feed.onEarly(CHANNEL, frame(depth("SNAPSHOT", 7, 7, "102")))
      feed.onEarly(CHANNEL, frame(depth("CHANGED", 8, 8, "103"), depth("CHANGED", 9, 9, "104")))
      assert.deepStrictEqual(yield* events, [])
      yield* feed.onActive(CHANNEL, scope, control)
      assert.deepStrictEqual(yield* events, ["9"])
      feed.onFrame(frame(depth("CHANGED", 10, 10, "105")), control)
      assert.deepStrictEqual(yield* events, ["10"])
      assert.deepStrictEqual(resyncs, [])
    }))

  it.effect("a gap among what was kept: resubscribed, no book", () =>
    Effect.gen(function*() {
      const { control, events, feed, resyncs, scope } = yield* harness
      feed.onEarly(CHANNEL, frame(depth("SNAPSHOT", 5, 5, "100"), depth("CHANGED", 8, 8, "101")))
      yield* feed.onActive(CHANNEL, scope, control)
      assert.deepStrictEqual(yield* events, [])
      assert.deepStrictEqual(resyncs, [CHANNEL])
    }))

  it.effect(`more than ${EARLY_LIMIT} messages, or the connection ending, forget what was kept`, () =>
    Effect.gen(function*() {
      const { control, events, feed, scope } = yield* harness
      feed.onEarly(CHANNEL, frame(depth("SNAPSHOT", 0, 0, "100")))
      for (let i = 1; i <= EARLY_LIMIT; i++) feed.onEarly(CHANNEL, frame(depth("CHANGED", i, i, "100")))
      yield* feed.onActive(CHANNEL, scope, control)
      assert.deepStrictEqual(yield* events, [])
      yield* feed.onInactive()
      feed.onEarly(CHANNEL, frame(depth("SNAPSHOT", 0, 0, "100")))
      yield* feed.onInactive()
      yield* feed.onActive(CHANNEL, scope, control)
      assert.deepStrictEqual(yield* events, [])
      // Within the bound: the book.
      feed.onEarly(CHANNEL, frame(depth("SNAPSHOT", 0, 0, "100")))
      for (let i = 1; i < EARLY_LIMIT; i++) feed.onEarly(CHANNEL, frame(depth("CHANGED", i, i, "100")))
      yield* feed.onInactive()
      feed.onEarly(CHANNEL, frame(depth("SNAPSHOT", 0, 0, "100")))
      for (let i = 1; i < EARLY_LIMIT; i++) feed.onEarly(CHANNEL, frame(depth("CHANGED", i, i, "100")))
      yield* feed.onActive(CHANNEL, scope, control)
      assert.deepStrictEqual(yield* events, [String(EARLY_LIMIT - 1)])
    }))
})

describe("push book feed: levels no book holds", () => {
  it.effect("a change with a price at or below zero or a negative size is undecodable: no book, a resync", () =>
    Effect.gen(function*() {
      const { control, events, feed, resyncs, scope } = yield* harness
      yield* feed.onActive(CHANNEL, scope, control)
      feed.onFrame(frame(depth("SNAPSHOT", 10, 10, "100")), control)
      assert.deepStrictEqual(yield* events, ["10"])
      // REST's order book refuses these levels; a pushed one would show a bid at 0 (or a crossed book) as consistent.
      for (const bids of [[["0", "5"]], [["-3", "4"]], [["100", "-1"]]]) {
        feed.onFrame(
          frame({ ...depth("CHANGED", 11, 11, "100"), bids: bids.map(([price, size]) => ({ price, size })) }),
          control
        )
        assert.deepStrictEqual(yield* events, ["Resync"], `bids ${JSON.stringify(bids)}`)
        feed.onFrame(frame(depth("SNAPSHOT", 10, 10, "100")), control)
        assert.deepStrictEqual(yield* events, ["10"])
      }
      assert.deepStrictEqual(resyncs, [CHANNEL, CHANNEL, CHANNEL])
    }))
})

describe("push book feed: a change that claims an end far ahead", () => {
  it.effect("the next real change is a gap: a resync, and the book rebuilt from a new snapshot (not frozen)", () =>
    Effect.gen(function*() {
      const { control, events, feed, resyncs, scope } = yield* harness
      yield* feed.onActive(CHANNEL, scope, control)
      feed.onFrame(frame(depth("SNAPSHOT", 10, 10, "100")), control)
      feed.onFrame(frame(depth("CHANGED", 11, 1_000_000_000_000, "101")), control)
      assert.deepStrictEqual(yield* events, ["10", "1000000000000"])
      feed.onFrame(frame(depth("CHANGED", 12, 12, "102")), control)
      assert.deepStrictEqual(yield* events, ["Resync"])
      assert.deepStrictEqual(resyncs, [CHANNEL])
      feed.onFrame(frame(depth("SNAPSHOT", 12, 12, "102")), control)
      feed.onFrame(frame(depth("CHANGED", 13, 13, "103")), control)
      assert.deepStrictEqual(yield* events, ["12", "13"])
    }))
})

describe("push book feed: a consumer whose queue is full", () => {
  // A queue of 2 and a live book, then ten changes at once.
  const full = Effect.gen(function*() {
    const { control, feed, scope } = yield* harness
    const small: Sink<BookEvent> = yield* Queue.make<BookEvent, PushError.PushErrorReason | Cause.Done>({ capacity: 2 })
    feed.attach(small)
    yield* feed.onActive(CHANNEL, scope, control)
    feed.onFrame(frame(depth("SNAPSHOT", 10, 10, "100")), control)
    for (let v = 11; v <= 20; v++) feed.onFrame(frame(depth("CHANGED", v, v, String(v))), control)
    const seen = (events: ReadonlyArray<BookEvent>) =>
      events.map((e) => e._tag === "Book" ? e.book.version : `${e._tag} ${e.reason}`)
    return { feed, small, seen }
  })

  it.effect("keeping up: what its queue held, then the latest book, no lag notice", () =>
    Effect.gen(function*() {
      const { seen, small } = yield* full
      const taken: Array<BookEvent> = []
      while (taken.length < 4) taken.push(...(yield* Queue.takeAll(small)))
      yield* TestClock.adjust(SLOW_CONSUMER_MILLIS * 2)
      // The queue's two, the one waiting first, then the latest in place of those between.
      assert.deepStrictEqual(seen([...taken, ...(yield* Queue.clear(small))]), ["10", "11", "12", "20"])
    }))

  it.effect("taking nothing for the grace: a Resync (lag) and the latest book", () =>
    Effect.gen(function*() {
      const { seen, small } = yield* full
      yield* TestClock.adjust(SLOW_CONSUMER_MILLIS)
      assert.deepStrictEqual(seen(yield* Queue.clear(small)), ["Resync lag", "20"])
    }))

  it.effect("the stream failing meanwhile: what its queue held, then the failure; no lag notice", () =>
    Effect.gen(function*() {
      const { feed, seen, small } = yield* full
      yield* feed.onFail(
        CHANNEL,
        new PushError.SnapshotTimeoutError({ channel: CHANNEL, timeoutMillis: 1, attempts: 3 })
      )
      yield* TestClock.adjust(SLOW_CONSUMER_MILLIS)
      const taken: Array<BookEvent> = []
      const failure = yield* Effect.flip(Effect.forever(Effect.map(Queue.take(small), (e) => taken.push(e))))
      assert.deepStrictEqual(seen(taken), ["10", "11"])
      assert.strictEqual(failure._tag, "SnapshotTimeoutError")
    }))
})
