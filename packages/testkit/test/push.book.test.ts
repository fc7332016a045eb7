/**
 * `SpotPush.watchBook` and `watchTicker` against the test exchange's push venue, in process under the `TestClock`:
 * the book from the channel's snapshot and versioned changes equals the engine's after trading, through lost
 * (gap), duplicated (stale) and dropped connections, each announced by a `Resync` and never delivered across a gap;
 * a consumer that lags gets a `Resync` and the latest book; a ticker consumer gets the latest ticker.
 */
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Stream } from "effect"
import { PushVenue, TestExchange } from "../src/index.ts"
import { advance, collect, engineBook, lastBook, settle, setup, SpotPush } from "./support/push.ts"
import { recordVersions } from "./support/pushSoak.ts"

const SYMBOL = "BTCUSDT_SPBL"

// Trading that moves the book: bob and alice place crossing and resting orders around the mid (30000).
const trade = (i: number) =>
  Effect.gen(function*() {
    const exchange = yield* TestExchange.TestExchange
    const [alice, bob] = exchange.accounts
    const side = i % 2 === 0 ? "buy" : "sell"
    // Alternately take a level and rest a new one at a price the book did not have.
    yield* exchange.placeOrder(alice!.userId, {
      symbol: SYMBOL,
      side,
      orderType: "market",
      force: "normal",
      quantity: side === "buy" ? "3000" : "0.1",
      clientOrderId: `take-${i}`
    })
    yield* exchange.placeOrder(bob!.userId, {
      symbol: SYMBOL,
      side: i % 3 === 0 ? "buy" : "sell",
      orderType: "limit",
      force: "normal",
      price: i % 3 === 0 ? `${29990 - (i % 7)}.50` : `${30010 + (i % 7)}.50`,
      quantity: "0.25",
      clientOrderId: `rest-${i}`
    })
  })

const context = Effect.gen(function*() {
  const exchange = yield* TestExchange.TestExchange
  const venue = yield* PushVenue.PushVenue
  const push = yield* SpotPush.SpotPush
  const engine = exchange.engine
  return { exchange, venue, push, engine }
})

describe("SpotPush.watchBook", () => {
  it.effect("the book equals the engine's after trading, on both depths", () =>
    Effect.gen(function*() {
      const { engine, push } = yield* context
      const top15 = yield* collect(push.watchBook(SYMBOL))
      const top200 = yield* collect(push.watchBook(SYMBOL, { depth: 200 }))
      yield* settle
      assert.deepStrictEqual(lastBook(top15.items)?.bids, engineBook(engine, SYMBOL, 15).bids)
      for (let i = 0; i < 40; i++) {
        yield* trade(i)
        yield* settle
      }
      const book15 = lastBook(top15.items)!
      const book200 = lastBook(top200.items)!
      assert.deepStrictEqual({ bids: book15.bids, asks: book15.asks }, engineBook(engine, SYMBOL, 15))
      assert.deepStrictEqual({ bids: book200.bids, asks: book200.asks }, engineBook(engine, SYMBOL, 200))
      assert.strictEqual(book15.bids.length, 15)
      assert.isAbove(book200.bids.length, 15)
      // Every element is a consistent book: no resync was needed, and versions only go up.
      assert.isTrue(top15.items.every((e) => e._tag === "Book"))
      const versions = top15.items.map((e) => e._tag === "Book" ? BigInt(e.book.version) : 0n)
      assert.isTrue(versions.every((v, i) => i === 0 || v > versions[i - 1]!))
    }).pipe(Effect.provide(setup())))

  it.effect("gap: a lost change is announced, the channel resubscribed, and the book rebuilt equal to the engine's", () =>
    Effect.gen(function*() {
      const { engine, push, venue } = yield* context
      const book = yield* collect(push.watchBook(SYMBOL))
      const events = yield* collect(push.events)
      yield* settle
      yield* venue.setFaults({ gap: 4 })
      for (let i = 0; i < 30; i++) {
        yield* trade(i)
        yield* settle
      }
      yield* venue.setFaults({})
      yield* trade(99)
      yield* settle
      const gaps = book.items.filter((e) => e._tag === "Resync" && e.reason === "gap")
      assert.isAbove(gaps.length, 2)
      assert.isTrue(events.items.some((e) => e._tag === "Resync" && e.reason === "gap"))
      // After each Resync the next element is a book from a snapshot (never a book patched across the gap).
      const final = lastBook(book.items)!
      assert.deepStrictEqual({ bids: final.bids, asks: final.asks }, engineBook(engine, SYMBOL, 15))
      // Resynced by unsubscribe + subscribe on the same connection.
      assert.strictEqual((yield* venue.stats).opened, 1)
    }).pipe(Effect.provide(setup())))

  // A venue whose changes start at the previous one's end (`start == previous end`, as a V3 client reads it): a lost
  // change that covered one version is followed by one that starts one after the book's version, which continues the
  // book on a `next` venue. The service learns the reading from the first changes in a row, and sees each loss.
  it.effect("gap on a venue whose changes start at the previous end: every lost change is seen, the book stays right", () =>
    Effect.gen(function*() {
      const { engine, push, venue } = yield* context
      const versions = recordVersions(venue, engine, 3_644_174_246n)
      const book = yield* collect(push.watchBook(SYMBOL))
      yield* settle
      for (let i = 0; i < 4; i++) {
        yield* trade(i)
        yield* settle
      }
      assert.isTrue(book.items.every((e) => e._tag === "Book"), "no loss, no resync: both readings are followed")
      yield* venue.setFaults({ gap: 3 })
      for (let i = 4; i < 34; i++) {
        yield* trade(i)
        yield* settle
      }
      yield* venue.setFaults({})
      yield* trade(99)
      yield* settle
      // Every book equals the engine's at the book's version: none is patched across a lost change.
      const checked = versions.check(book.items)
      assert.isAbove(checked.resyncs, 2)
      assert.isAbove(checked.changesChecked, 10)
      const final = lastBook(book.items)!
      assert.deepStrictEqual({ bids: final.bids, asks: final.asks }, engineBook(engine, SYMBOL, 15))
    }).pipe(Effect.provide(setup({ venue: { continuity: "previousEnd" } }))))

  it.effect("stale: duplicated changes are skipped", () =>
    Effect.gen(function*() {
      const { engine, push, venue } = yield* context
      yield* venue.setFaults({ dup: 1 })
      const book = yield* collect(push.watchBook(SYMBOL))
      yield* settle
      for (let i = 0; i < 10; i++) {
        yield* trade(i)
        yield* settle
      }
      const final = lastBook(book.items)!
      assert.deepStrictEqual({ bids: final.bids, asks: final.asks }, engineBook(engine, SYMBOL, 15))
      assert.isTrue(book.items.every((e) => e._tag === "Book"))
    }).pipe(Effect.provide(setup())))

  it.effect("a dropped connection: Resync (reconnect), then the book again from a new snapshot", () =>
    Effect.gen(function*() {
      const { engine, push, venue } = yield* context
      const book = yield* collect(push.watchBook(SYMBOL))
      yield* settle
      yield* venue.setFaults({ disconnect: 3 })
      for (let i = 0; i < 12; i++) {
        yield* trade(i)
        yield* advance(2_000, 500)
      }
      yield* venue.setFaults({})
      yield* advance(35_000)
      const reconnects = book.items.filter((e) => e._tag === "Resync" && e.reason === "reconnect")
      assert.isAtLeast(reconnects.length, 2)
      assert.isAtLeast((yield* venue.stats).opened, 3)
      const final = lastBook(book.items)!
      assert.deepStrictEqual({ bids: final.bids, asks: final.asks }, engineBook(engine, SYMBOL, 15))
    }).pipe(Effect.provide(setup())))

  // What one read of the socket holds is handed over before a consumer can take any of it: a consumer that keeps up
  // gets what its queue held, then the latest book (the ones between skipped: each element is a whole book), with no
  // lag notice, as it did not lag.
  it.effect("a burst of many times bufferSize: a consumer that keeps up gets the latest book, no Resync (lag)", () =>
    Effect.gen(function*() {
      const { engine, push } = yield* context
      const book = yield* collect(push.watchBook(SYMBOL))
      yield* settle
      // 30 rounds of trading in one go (nothing yields between them): their depth changes come together.
      for (let i = 0; i < 30; i++) yield* trade(i)
      yield* settle
      assert.isTrue(book.items.every((e) => e._tag === "Book"), "no Resync")
      const versions = book.items.map((e) => e._tag === "Book" ? BigInt(e.book.version) : 0n)
      assert.isTrue(versions.every((v, i) => i === 0 || v > versions[i - 1]!))
      const final = lastBook(book.items)!
      assert.deepStrictEqual({ bids: final.bids, asks: final.asks }, engineBook(engine, SYMBOL, 15))
      // It goes on: the next change reaches it.
      yield* trade(30)
      yield* settle
      assert.deepStrictEqual(lastBook(book.items)!.bids, engineBook(engine, SYMBOL, 15).bids)
      assert.isTrue(BigInt(lastBook(book.items)!.version) > BigInt(final.version))
    }).pipe(Effect.provide(setup({ push: { bufferSize: 4 } }))))

  // A consumer whose queue is full is not behind yet (a burst is handed over before it can take any): one that leaves
  // a book waiting for room longer than a second is.
  it.effect("a consumer behind its full queue for more than a second gets a Resync (lag) and the latest book", () =>
    Effect.gen(function*() {
      const { engine, push } = yield* context
      const gate = yield* Deferred.make<void>()
      const seen: Array<SpotPush.BookEvent> = []
      const fiber = yield* Effect.forkChild(
        Stream.runForEach(push.watchBook(SYMBOL), (event) =>
          Effect.andThen(
            Effect.sync(() => seen.push(event)),
            seen.length === 1 ? Deferred.await(gate) : Effect.void
          ))
      )
      yield* settle
      for (let i = 0; i < 12; i++) {
        yield* trade(i)
        yield* settle
      }
      // Past the grace: the consumer, still blocked, is behind.
      yield* advance(2_000)
      yield* Deferred.succeed(gate, undefined)
      yield* settle
      yield* Fiber.interrupt(fiber)
      const lag = seen.findIndex((e) => e._tag === "Resync" && e.reason === "lag")
      assert.isAbove(lag, 0)
      const final = lastBook(seen)!
      assert.deepStrictEqual({ bids: final.bids, asks: final.asks }, engineBook(engine, SYMBOL, 15))
      assert.isBelow(seen.length, 12)
    }).pipe(Effect.provide(setup({ push: { bufferSize: 4 } }))))

  it.effect("consumers of one book share its subscription; the last one leaving unsubscribes and closes", () =>
    Effect.gen(function*() {
      const { push, venue } = yield* context
      const first = yield* collect(push.watchBook(SYMBOL))
      yield* settle
      const second = yield* collect(push.watchBook(SYMBOL))
      yield* settle
      // The second consumer starts from the book as it is.
      assert.strictEqual(second.items[0]?._tag, "Book")
      assert.strictEqual((yield* venue.stats).open, 1)
      yield* first.stop
      yield* settle
      assert.strictEqual((yield* venue.stats).open, 1)
      yield* second.stop
      yield* settle
      assert.strictEqual((yield* venue.stats).open, 0)
      const taken = yield* Stream.runCollect(Stream.take(push.watchBook(SYMBOL), 1))
      assert.strictEqual(taken.length, 1)
      yield* settle
      assert.strictEqual((yield* venue.stats).open, 0)
    }).pipe(Effect.provide(setup())))

  it.effect("another program subscribing the same book, after a change below the top 15: no Resync, the book right", () =>
    Effect.gen(function*() {
      const { engine, exchange, push, venue } = yield* context
      const alice = exchange.accounts[0]!.userId
      const bid = (clientOrderId: string, price: string) =>
        exchange.placeOrder(alice, {
          symbol: SYMBOL,
          side: "buy",
          orderType: "limit",
          force: "normal",
          price,
          quantity: "0.01",
          clientOrderId
        })
      const book = yield* collect(push.watchBook(SYMBOL))
      yield* settle
      yield* bid("near", "29999")
      // Far below the top 15: a new version of the book, nothing for this channel.
      yield* bid("far", "20000")
      yield* settle
      const other = venue.webSocket("ws://exchange.test/v2/ws/public")
      yield* settle
      other.send(JSON.stringify({ event: "subscribe", channel: `depth.${SYMBOL}.15` }))
      yield* settle
      yield* bid("near2", "29998")
      yield* advance(2_000, 100)
      assert.deepStrictEqual(book.items.filter((e) => e._tag === "Resync"), [])
      const final = lastBook(book.items)!
      assert.deepStrictEqual({ bids: final.bids, asks: final.asks }, engineBook(engine, SYMBOL, 15))
      other.close()
    }).pipe(Effect.provide(setup())))

  it.effect("an unknown symbol (not in the venue's list) and a malformed one are refused before anything is sent", () =>
    Effect.gen(function*() {
      const { push, venue } = yield* context
      const refused = yield* Effect.flip(Stream.runDrain(push.watchBook("XYZUSDT_SPBL")))
      assert.strictEqual(refused.reason._tag, "ValidationError")
      const invalid = yield* Effect.flip(Stream.runDrain(push.watchBook("btc")))
      assert.strictEqual(invalid.reason._tag, "ValidationError")
      yield* settle
      assert.strictEqual((yield* venue.stats).attempts, 0)
    }).pipe(Effect.provide(setup())))
})

describe("SpotPush.watchBook: a snapshot that does not come", () => {
  const resyncs = (events: ReadonlyArray<SpotPush.Event>, reason: SpotPush.ResyncReason) =>
    events.filter((e) => e._tag === "Resync" && e.reason === reason).length

  it.effect("lost on the first subscription: the changes that follow build nothing, and after ackTimeout the channel is subscribed again", () =>
    Effect.gen(function*() {
      const { engine, push, venue } = yield* context
      const events = yield* collect(push.events)
      yield* venue.setFaults({ noSnapshot: true })
      const book = yield* collect(push.watchBook(SYMBOL))
      yield* settle
      yield* venue.setFaults({})
      for (let i = 0; i < 4; i++) {
        yield* trade(i)
        yield* settle
      }
      // The changes came (frames keep the connection alive), but there is no book without a snapshot.
      assert.deepStrictEqual(book.items, [])
      yield* advance(6_000)
      assert.strictEqual(resyncs(events.items, "snapshot"), 1)
      yield* trade(4)
      yield* settle
      const final = lastBook(book.items)
      assert.isDefined(final)
      assert.deepStrictEqual({ bids: final!.bids, asks: final!.asks }, engineBook(engine, SYMBOL, 15))
      assert.strictEqual((yield* venue.stats).opened, 1)
    }).pipe(Effect.provide(setup())))

  it.effect("lost on the resubscription after a gap: the consumer's Resync is followed by a book again", () =>
    Effect.gen(function*() {
      const { engine, push, venue } = yield* context
      const book = yield* collect(push.watchBook(SYMBOL))
      yield* settle
      yield* venue.setFaults({ gap: 2, noSnapshot: true })
      for (let i = 0; i < 3; i++) {
        yield* trade(i)
        yield* settle
      }
      yield* venue.setFaults({})
      for (let i = 3; i < 8; i++) {
        yield* trade(i)
        yield* settle
      }
      assert.deepStrictEqual(book.items.at(-1), { _tag: "Resync", symbol: SYMBOL, reason: "gap" })
      yield* advance(6_000)
      yield* trade(8)
      yield* settle
      const final = lastBook(book.items)
      assert.isDefined(final)
      assert.deepStrictEqual({ bids: final!.bids, asks: final!.asks }, engineBook(engine, SYMBOL, 15))
    }).pipe(Effect.provide(setup())))

  it.effect("sent before the acknowledgement: the book starts from it, with no resubscription", () =>
    Effect.gen(function*() {
      const { engine, push, venue } = yield* context
      const events = yield* collect(push.events)
      yield* venue.setFaults({ snapshotFirst: true })
      const book = yield* collect(push.watchBook(SYMBOL))
      yield* settle
      // The first book is the early snapshot's, at once.
      const first = lastBook(book.items)
      assert.isDefined(first)
      assert.deepStrictEqual({ bids: first!.bids, asks: first!.asks }, engineBook(engine, SYMBOL, 15))
      for (let i = 0; i < 4; i++) {
        yield* trade(i)
        yield* settle
      }
      yield* advance(6_000)
      yield* trade(4)
      yield* settle
      const final = lastBook(book.items)
      assert.isDefined(final)
      assert.deepStrictEqual({ bids: final!.bids, asks: final!.asks }, engineBook(engine, SYMBOL, 15))
      assert.isTrue(book.items.every((e) => e._tag === "Book"))
      assert.strictEqual(resyncs(events.items, "snapshot"), 0)
      assert.isFalse(events.items.some((e) => e._tag === "Resync" || e._tag === "Disconnected"))
      assert.strictEqual((yield* venue.stats).opened, 1)
    }).pipe(Effect.provide(setup())))

  it.effect("sent before the acknowledgement of the resubscription after a gap: the book is rebuilt from it", () =>
    Effect.gen(function*() {
      const { engine, push, venue } = yield* context
      const events = yield* collect(push.events)
      const book = yield* collect(push.watchBook(SYMBOL))
      yield* settle
      yield* venue.setFaults({ gap: 2, snapshotFirst: true })
      for (let i = 0; i < 3; i++) {
        yield* trade(i)
        yield* settle
      }
      yield* venue.setFaults({ snapshotFirst: true })
      for (let i = 3; i < 6; i++) {
        yield* trade(i)
        yield* settle
      }
      assert.isAbove(resyncs(events.items, "gap"), 0)
      // Before any snapshot deadline: the resubscription's early snapshot rebuilt the book.
      const rebuilt = lastBook(book.items)
      assert.isDefined(rebuilt)
      assert.deepStrictEqual({ bids: rebuilt!.bids, asks: rebuilt!.asks }, engineBook(engine, SYMBOL, 15))
      yield* advance(6_000)
      assert.strictEqual(resyncs(events.items, "snapshot"), 0)
    }).pipe(Effect.provide(setup())))

  it.effect("never sent: three subscriptions in a row without one fail the stream with SnapshotTimeoutError", () =>
    Effect.gen(function*() {
      const { push, venue } = yield* context
      const events = yield* collect(push.events)
      yield* venue.setFaults({ noSnapshot: true })
      const fiber = yield* Effect.forkChild(Effect.flip(Stream.runDrain(push.watchBook(SYMBOL))))
      // The market goes on: changes keep coming, the connection never goes idle.
      for (let i = 0; i < 12; i++) {
        yield* trade(i)
        yield* advance(1_000)
      }
      assert.isUndefined(fiber.pollUnsafe())
      for (let i = 12; i < 20; i++) {
        yield* trade(i)
        yield* advance(1_000)
      }
      assert.isDefined(fiber.pollUnsafe())
      const error = yield* Fiber.join(fiber)
      assert.strictEqual(error.reason._tag, "SnapshotTimeoutError")
      assert.include(error.message, "depth.BTCUSDT_SPBL.15")
      // Two resubscriptions (4 operations), then the unsubscription: no reconnect, no spin.
      assert.strictEqual(resyncs(events.items, "snapshot"), 2)
      assert.isFalse(events.items.some((e) => e._tag === "Disconnected"))
      const stats = yield* venue.stats
      assert.strictEqual(stats.opened, 1)
      assert.strictEqual(stats.open, 0)
    }).pipe(Effect.provide(setup())))
})

describe("SpotPush.watchTicker", () => {
  it.effect("latest wins: a slow consumer gets the latest ticker, not every one", () =>
    Effect.gen(function*() {
      const { push, venue } = yield* context
      const gate = yield* Deferred.make<void>()
      const seen: Array<string> = []
      const fiber = yield* Effect.forkChild(Stream.runForEach(push.watchTicker(SYMBOL), (ticker) =>
        Effect.andThen(
          Effect.sync(() => seen.push(ticker.lastPrice)),
          seen.length === 1 ? Deferred.await(gate) : Effect.void
        )))
      yield* settle
      for (let i = 1; i <= 20; i++) {
        yield* venue.publish({ _tag: "Ticker", symbol: SYMBOL, fields: { lastPrice: `${30000 + i}.5`, trades: i } })
        yield* settle
      }
      yield* Deferred.succeed(gate, undefined)
      yield* settle
      yield* Fiber.interrupt(fiber)
      // The first, at most one the stream had already taken, and the latest: none of the others.
      assert.strictEqual(seen[0], "30001.5")
      assert.strictEqual(seen.at(-1), "30020.5")
      assert.isAtMost(seen.length, 3)
    }).pipe(Effect.provide(setup())))

  it.effect("a new subscriber gets no ticker from before it subscribed: the first is the next change's, as REST's", () =>
    Effect.gen(function*() {
      const { exchange, push } = yield* context
      const alice = exchange.accounts[0]!.userId
      const buy = (clientOrderId: string, quantity: string) =>
        exchange.placeOrder(alice, {
          symbol: SYMBOL,
          side: "buy",
          orderType: "market",
          force: "normal",
          quantity,
          clientOrderId
        })
      const restLast = () => exchange.engine.ticker(SYMBOL, exchange.engine.now).lastPrice
      const first = yield* collect(push.watchTicker(SYMBOL))
      yield* settle
      yield* buy("seen", "100")
      yield* settle
      assert.deepStrictEqual(first.items.map((t) => t.lastPrice), [restLast()])
      yield* first.stop
      yield* settle
      // Nobody watches while the price moves on.
      yield* buy("unseen", "30000")
      assert.notStrictEqual(restLast(), first.items[0]!.lastPrice)
      const second = yield* collect(push.watchTicker(SYMBOL))
      yield* advance(2_000, 100)
      assert.deepStrictEqual(second.items, [])
      yield* buy("next", "100")
      yield* settle
      assert.deepStrictEqual(second.items.map((t) => t.lastPrice), [restLast()])
    }).pipe(Effect.provide(setup())))
})
