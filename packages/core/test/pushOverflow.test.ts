/**
 * What a push consumer's queue has no room for (`Overflow`): it waits, in order, and is handed over as the consumer
 * takes, however much came at once; a consumer that leaves an element waiting longer than the grace is behind (its
 * feed's `slow` tells it), what waited for it dropped; the others are not held up. Under the `TestClock`.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Queue } from "effect"
import type { Cause } from "effect"
import { TestClock } from "effect/testing"
import type { PushError } from "../src/index.ts"
import type { Sink } from "../src/internal/push/feeds.ts"
import { makeOverflow, SLOW_CONSUMER_MILLIS } from "../src/internal/push/overflow.ts"

const sink = (capacity: number) => Queue.bounded<number, PushError.PushErrorReason | Cause.Done>(capacity)

const takeN = (queue: Sink<number>, n: number) =>
  Effect.gen(function*() {
    const taken: Array<number> = []
    while (taken.length < n) taken.push(...(yield* Queue.takeAll(queue)))
    return taken
  })

describe("Overflow", () => {
  it.effect("a burst of many times a queue reaches a consumer that takes, in order; nothing waits after", () =>
    Effect.gen(function*() {
      const overflow = yield* makeOverflow()
      const queue = yield* sink(4)
      const sinks = new Set([queue])
      const slow: Array<Sink<number>> = []
      for (let i = 0; i < 100; i++) overflow.offer(sinks, queue, i, (_, s) => slow.push(s))
      assert.isFalse(overflow.idle)
      assert.deepStrictEqual(yield* takeN(queue, 100), Array.from({ length: 100 }, (_, i) => i))
      assert.isTrue(overflow.idle)
      assert.deepStrictEqual(slow, [])
      // Later elements go straight into the queue again.
      overflow.offer(sinks, queue, 100, (_, s) => slow.push(s))
      assert.strictEqual(yield* Queue.size(queue), 1)
      assert.isTrue(overflow.idle)
    }))

  it.effect("an element waiting longer than the grace: that consumer is behind, the other not held up", () =>
    Effect.gen(function*() {
      const overflow = yield* makeOverflow()
      const blocked = yield* sink(2)
      const taking = yield* sink(2)
      const sinks = new Set([blocked, taking])
      const slow: Array<Sink<number>> = []
      const offer = (i: number) => {
        for (const s of sinks) {
          overflow.offer(sinks, s, i, (from, behind) => {
            from.delete(behind)
            slow.push(behind)
          })
        }
      }
      for (let i = 0; i < 10; i++) offer(i)
      assert.deepStrictEqual(yield* takeN(taking, 10), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
      yield* TestClock.adjust(SLOW_CONSUMER_MILLIS - 1)
      assert.deepStrictEqual(slow, [])
      yield* TestClock.adjust(1)
      assert.deepStrictEqual(slow, [blocked])
      assert.isFalse(sinks.has(blocked))
      assert.isTrue(overflow.idle)
      // What its queue held stays; what waited is dropped.
      assert.deepStrictEqual(yield* Queue.clear(blocked), [0, 1])
    }))

  it.effect("the grace counts per element: a consumer taking too slowly for a burst is behind", () =>
    Effect.gen(function*() {
      const overflow = yield* makeOverflow()
      const queue = yield* sink(1)
      const sinks = new Set([queue])
      const slow: Array<Sink<number>> = []
      for (let i = 0; i < 4; i++) overflow.offer(sinks, queue, i, (_, s) => slow.push(s))
      // One element every 600 ms: the second had room after 600 ms, the third would have had it after 1,200.
      yield* TestClock.adjust(600)
      assert.deepStrictEqual(yield* Queue.takeAll(queue), [0])
      yield* TestClock.adjust(SLOW_CONSUMER_MILLIS - 600 - 1)
      assert.deepStrictEqual(slow, [])
      yield* TestClock.adjust(1)
      assert.deepStrictEqual(slow, [queue])
      assert.deepStrictEqual(yield* Queue.clear(queue), [1])
    }))

  it.effect("an element that replaces the last one waiting takes its place; the first waiting is never replaced", () =>
    Effect.gen(function*() {
      const overflow = yield* makeOverflow()
      const queue = yield* sink(2)
      const sinks = new Set([queue])
      // Odd numbers stand for the odd number waiting last (a book for a book), even ones never.
      const replaces = (last: number, next: number) => last % 2 === 1 && next % 2 === 1
      for (const i of [1, 3, 5, 7, 9, 2, 11, 13, 4, 15]) overflow.offer(sinks, queue, i, () => undefined, replaces)
      // 1 and 3 had room; 5 waited first; 7 and 9 then stood for each other, as 11 and 13 did.
      assert.deepStrictEqual(yield* takeN(queue, 8), [1, 3, 5, 9, 2, 13, 4, 15])
      assert.isTrue(overflow.idle)
    }))

  it.effect("a consumer that leaves: what waited for it is dropped, its delivery ended", () =>
    Effect.gen(function*() {
      const overflow = yield* makeOverflow()
      const queue = yield* sink(1)
      const sinks = new Set([queue])
      const slow: Array<Sink<number>> = []
      for (let i = 0; i < 5; i++) overflow.offer(sinks, queue, i, (_, s) => slow.push(s))
      overflow.drop(queue)
      assert.isTrue(overflow.idle)
      yield* TestClock.adjust(SLOW_CONSUMER_MILLIS * 2)
      assert.deepStrictEqual(slow, [])
      assert.deepStrictEqual(yield* Queue.clear(queue), [0])
    }))

  it.effect("whenFree: done once what waited was handed over, or dropped with its consumer behind; at once if none", () =>
    Effect.gen(function*() {
      const overflow = yield* makeOverflow()
      const queue = yield* sink(1)
      const sinks = new Set([queue])
      yield* overflow.whenFree(queue)
      for (let i = 0; i < 3; i++) overflow.offer(sinks, queue, i, () => undefined)
      const free = yield* Effect.forkChild(overflow.whenFree(queue))
      // 0 had room; 1 then 2 wait for it, one at a time.
      assert.deepStrictEqual(yield* Queue.take(queue), 0)
      yield* Effect.yieldNow
      assert.isUndefined(free.pollUnsafe(), "2 still waits")
      assert.deepStrictEqual(yield* Queue.take(queue), 1)
      yield* Effect.yieldNow
      assert.isDefined(free.pollUnsafe(), "2 is in the queue: nothing waits")
      assert.deepStrictEqual(yield* Queue.take(queue), 2)
      // A blocked consumer: free once it is found behind.
      const blocked = yield* sink(1)
      for (let i = 0; i < 3; i++) overflow.offer(new Set([blocked]), blocked, i, () => undefined)
      const freed = yield* Effect.forkChild(overflow.whenFree(blocked))
      yield* TestClock.adjust(SLOW_CONSUMER_MILLIS - 1)
      assert.isUndefined(freed.pollUnsafe())
      yield* TestClock.adjust(1)
      assert.isDefined(freed.pollUnsafe())
      assert.isTrue(overflow.idle)
    }))
})
