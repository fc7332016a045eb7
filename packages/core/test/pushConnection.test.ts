/**
 * One push connection over a scripted socket: a `Control` kept by a feed after its connection ended (a deadline fiber
 * that runs late) does nothing, and leaves the channel as the next connection has it.
 */
import { assert, describe, it } from "@effect/vitest"
import { Clock, Effect, Logger, Queue, References } from "effect"
import * as Socket from "effect/socket/Socket"
import { TestClock } from "effect/testing"
import { Connection, nowFunction } from "../src/internal/push/connection.ts"
import type { Settings } from "../src/internal/push/connection.ts"
import type { Event } from "../src/internal/push/model.ts"
import type { Control, DataFrame, Feed } from "../src/internal/push/subscriptions.ts"
import { VenueText } from "../src/internal/push/venueText.ts"
import { steppedClock } from "./support/steppedClock.ts"

const CHANNEL = "ticker.BTCUSDT_SPBL"

// One connection as the venue sees it: what it sends the client, and what the client wrote.
interface Peer {
  readonly inbox: Queue.Queue<string | Uint8Array, Socket.SocketError>
  readonly written: Array<string>
}

const scripted = (peers: Array<Peer>): Socket.Socket =>
  Socket.make({
    reader: Effect.map(Queue.unbounded<string | Uint8Array, Socket.SocketError>(), (inbox) => {
      peers.push({ inbox, written: [] })
      return { pull: Effect.map(Queue.take(inbox), (text) => [text] as const), upgrade: () => Effect.void }
    }),
    // The writer is acquired after the reader: it writes to that connection, even after it ended.
    writer: Effect.sync(() => {
      const peer = peers.at(-1)!
      return {
        write: (chunk) => Effect.sync(() => void peer.written.push(String(chunk))),
        writeAll: (chunks) => Effect.sync(() => void peer.written.push(...chunks.map(String)))
      }
    })
  })

// A connection's settings for these tests: the public endpoint, no budget to wait for, an hour before idling.
const settingsOf = (overrides: Partial<Settings> = {}): Settings => ({
  endpoint: "public",
  idleTimeout: "1 hour",
  ackTimeoutMillis: 5_000,
  backoff: { initialMillis: 500, maxMillis: 500, resetAfterMillis: 60_000 },
  operations: { limit: 240, windowMillis: 3_600_000 },
  attempt: Effect.succeed({ settle: Effect.void }),
  emit: () => undefined,
  text: new VenueText({ secrets: [], url: "wss://venue.test" }),
  ...overrides
})

// Warning lines logged, as their text.
const warningsInto = (warnings: Array<string>) =>
  Logger.layer([
    Logger.make((options) => {
      if (options.logLevel === "Warn") warnings.push(String(options.message))
    })
  ])

// Lets the connection's fibers run until they wait.
const settle = Effect.gen(function*() {
  for (let i = 0; i < 50; i++) yield* Effect.yieldNow
})

describe("push connection", () => {
  it.effect("a resyncNow of an ended connection does nothing: the channel stays live on the next one", () =>
    Effect.gen(function*() {
      const peers: Array<Peer> = []
      const controls: Array<Control> = []
      const frames: Array<DataFrame> = []
      const feed: Feed = {
        onActive: (_channel, _scope, control) => Effect.sync(() => void controls.push(control)),
        onInactive: () => Effect.void,
        onFrame: (frame) => void frames.push(frame),
        onFail: () => Effect.void
      }
      const connection = new Connection(
        1,
        settingsOf(),
        scripted(peers),
        yield* nowFunction
      )
      yield* connection.add(CHANNEL, feed)
      yield* connection.start(yield* Effect.scope)
      yield* settle
      const ack = JSON.stringify({ event: "subscribed", channel: CHANNEL })
      yield* Queue.offer(peers[0]!.inbox, ack)
      yield* settle
      assert.strictEqual(controls.length, 1)
      // The first connection ends; after its backoff the next one subscribes the channel again.
      controls[0]!.reconnect("test", "backfill")
      yield* settle
      yield* TestClock.adjust(1_000)
      yield* settle
      assert.strictEqual(peers.length, 2)
      yield* Queue.offer(peers[1]!.inbox, ack)
      yield* settle
      assert.strictEqual(controls.length, 2)
      const written = peers[0]!.written.length
      // The first connection's deadline, late.
      yield* controls[0]!.resyncNow(CHANNEL)
      yield* settle
      assert.strictEqual(peers[0]!.written.length, written)
      assert.deepStrictEqual(peers[1]!.written, [JSON.stringify({ event: "subscribe", channel: CHANNEL })])
      assert.strictEqual(connection.channels.get(CHANNEL)?.state, "active")
      yield* Queue.offer(peers[1]!.inbox, JSON.stringify({ event: "payload", channel: CHANNEL, data: [{}] }))
      yield* settle
      assert.strictEqual(frames.length, 1)
      yield* connection.stop()
    }).pipe(Effect.scoped))

  it.effect("the operations' window is measured on the monotonic clock: a step of the wall clock back holds nothing", () => {
    return Effect.gen(function*() {
      const { clock, step } = yield* steppedClock
      const peers: Array<Peer> = []
      const feed: Feed = {
        onActive: () => Effect.void,
        onInactive: () => Effect.void,
        onFrame: () => undefined,
        onFail: () => Effect.void
      }
      const connection = new Connection(
        1,
        settingsOf({ operations: { limit: 1, windowMillis: 60_000 } }),
        scripted(peers),
        yield* Effect.provideService(nowFunction, Clock.Clock, clock)
      )
      yield* connection.add(CHANNEL, feed)
      yield* connection.start(yield* Effect.scope)
      yield* settle
      assert.strictEqual(peers[0]!.written.length, 1, "subscribed")
      assert.isFalse(connection.fits(100), "the one operation of the window spent")
      // The wall clock set back ten minutes; a minute passes: the operation left the window.
      step(-600_000)
      yield* TestClock.adjust(61_000)
      assert.isTrue(connection.fits(100), "an operation free again after the window")
      yield* connection.stop()
    }).pipe(Effect.scoped)
  })

  // The warning after three attempts in a row says what they were: lost once open, or never open (a wrong URL).
  describe("attempts in a row, in the warning", () => {
    // Dials that cannot connect (`refused` of them first), then connections that open.
    const refusing = (peers: Array<Peer>, refused: number): Socket.Socket => {
      const open = scripted(peers)
      let dials = 0
      return Socket.make({
        reader: Effect.suspend(() =>
          ++dials <= refused
            ? Effect.fail(
              new Socket.SocketError({
                reason: new Socket.SocketOpenError({ kind: "Unknown", cause: new Error("connect ECONNREFUSED") })
              })
            )
            : open.reader
        ),
        writer: open.writer
      })
    }

    // `refused` dials that cannot connect, then `lost` connections that open and are lost at once; the Disconnected
    // events' `opened`, and the warnings logged.
    const run = (refused: number, lost: number, warnings: Array<string>) =>
      Effect.gen(function*() {
        const peers: Array<Peer> = []
        const events: Array<Event> = []
        const feed: Feed = {
          onActive: () => Effect.void,
          onInactive: () => Effect.void,
          onFrame: () => undefined,
          onFail: () => Effect.void
        }
        const settings = settingsOf({ emit: (event) => void events.push(event) })
        const connection = new Connection(1, settings, refusing(peers, refused), yield* nowFunction)
        yield* connection.add(CHANNEL, feed)
        yield* connection.start(yield* Effect.scope)
        yield* settle
        for (let i = 0; i < refused + lost; i++) {
          if (i >= refused) {
            yield* Queue.fail(
              peers.at(-1)!.inbox,
              new Socket.SocketError({ reason: new Socket.SocketCloseError({ code: 1006 }) })
            )
            yield* settle
          }
          yield* TestClock.adjust(600)
          yield* settle
        }
        yield* connection.stop()
        const opened = events.flatMap((event) => event._tag === "Disconnected" ? [event.opened] : [])
        return opened
      }).pipe(Effect.scoped, Effect.provide(warningsInto(warnings)))

    it.effect("three dials that could not connect: each Disconnected opened false, the warning 'could not connect'", () =>
      Effect.gen(function*() {
        const warnings: Array<string> = []
        assert.deepStrictEqual(yield* run(3, 0, warnings), [false, false, false])
        assert.strictEqual(warnings.length, 1)
        assert.include(warnings[0], "public connection 1 could not connect 3 times in a row (last: SocketOpenError")
        assert.include(warnings[0], "ECONNREFUSED")
      }))

    it.effect("three connections lost after opening: the warning says 'lost'", () =>
      Effect.gen(function*() {
        const warnings: Array<string> = []
        assert.deepStrictEqual(yield* run(0, 3, warnings), [true, true, true])
        assert.strictEqual(warnings.length, 1)
        assert.include(warnings[0], "public connection 1 lost 3 times in a row (last: ")
      }))

    it.effect("two that could not connect, then one lost: 'lost or could not connect'", () =>
      Effect.gen(function*() {
        const warnings: Array<string> = []
        assert.deepStrictEqual(yield* run(2, 1, warnings), [false, false, true])
        assert.strictEqual(warnings.length, 1)
        assert.include(warnings[0], "public connection 1 lost or could not connect 3 times in a row (last: ")
      }))
  })

  describe("frames that cannot be read", () => {
    const encoder = new TextEncoder()
    const ticker = (lastPrice: string) =>
      JSON.stringify({ event: "payload", channel: CHANNEL, data: [{ symbol: "BTCUSDT_SPBL", lastPrice }] })
    // A frame cut inside a three-byte character: its last byte is the first of `€` (e2 82 ac).
    const cut = (text: string) => new Uint8Array([...encoder.encode(text), 0xe2])

    const open = (endpoint: "public" | "private", channel: string) =>
      Effect.gen(function*() {
        const peers: Array<Peer> = []
        const frames: Array<DataFrame> = []
        const events: Array<Event> = []
        const warnings: Array<string> = []
        const feed: Feed = {
          onActive: () => Effect.void,
          onInactive: () => Effect.void,
          onFrame: (frame) => void frames.push(frame),
          onFail: () => Effect.void
        }
        const settings = settingsOf({ endpoint, emit: (event) => void events.push(event) })
        const connection = new Connection(1, settings, scripted(peers), yield* nowFunction)
        yield* connection.add(channel, feed)
        yield* connection.start(yield* Effect.scope)
        yield* settle
        yield* Queue.offer(peers[0]!.inbox, JSON.stringify({ event: "subscribed", channel }))
        yield* settle
        return { connection, peers, frames, events, warnings }
      })

    it.effect("a binary frame cut inside a UTF-8 character spoils no other frame: each is decoded on its own", () => {
      const warnings: Array<string> = []
      return Effect.gen(function*() {
        const { connection, events, frames, peers } = yield* open("public", CHANNEL)
        const inbox = peers[0]!.inbox
        yield* Queue.offer(inbox, cut(ticker("1.5")))
        yield* Queue.offer(inbox, encoder.encode(ticker("2.5")))
        yield* Queue.offer(inbox, ticker("3.5"))
        yield* Queue.offer(inbox, cut(ticker("4.5")))
        yield* Queue.offer(inbox, ticker("5.5"))
        yield* settle
        const prices = frames.map((frame) =>
          frame._tag === "Payload" ? (frame.data[0] as { readonly lastPrice: string }).lastPrice : "?"
        )
        // The cut frames are not UTF-8: dropped, not read as their text with the character left out.
        assert.deepStrictEqual(prices, ["2.5", "3.5", "5.5"])
        // A public connection goes on: its feeds resync on what they see (a book's versions), a ticker's next push
        // stands for the lost one; said once, not per frame.
        assert.deepStrictEqual(events.map((event) => event._tag), ["Connected"])
        assert.strictEqual(warnings.length, 1)
        assert.include(warnings[0], "connection 1")
        assert.include(warnings[0], "could not be read")
        yield* connection.stop()
      }).pipe(Effect.scoped, Effect.provide(warningsInto(warnings)))
    })

    it.effect("on a private connection a frame that cannot be read replaces the connection, so REST closes the gap", () =>
      Effect.gen(function*() {
        const { connection, events, peers } = yield* open("private", "fill")
        // Two bytes of a fill push cut short, binary; then a text frame that is not JSON, on the next connection.
        yield* Queue.offer(peers[0]!.inbox, new Uint8Array([0x7b, 0xe2]))
        yield* settle
        const first = events.at(-1)
        assert.strictEqual(first?._tag, "Disconnected")
        assert.include(first?._tag === "Disconnected" ? first.reason : "", "a frame that could not be read")
        yield* TestClock.adjust(1_000)
        yield* settle
        assert.strictEqual(peers.length, 2, "dialled again")
        yield* Queue.offer(peers[1]!.inbox, JSON.stringify({ event: "subscribed", channel: "fill" }))
        yield* Queue.offer(peers[1]!.inbox, "{\"type\":\"trade-event\",\"channel\":\"fill\",")
        yield* settle
        assert.deepStrictEqual(events.map((event) => event._tag), [
          "Connected",
          "Disconnected",
          "Connected",
          "Disconnected"
        ])
        yield* connection.stop()
      }).pipe(Effect.scoped))

    it.effect("a gzip-compressed frame is not inflated: it is dropped, and the warning says it was compressed", () => {
      const warnings: Array<string> = []
      return Effect.gen(function*() {
        const { connection, frames, peers } = yield* open("public", CHANNEL)
        // The gzip header (1f 8b, deflate) and a few bytes: the venue shows no compression for V2.
        yield* Queue.offer(
          peers[0]!.inbox,
          new Uint8Array([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03])
        )
        yield* Queue.offer(peers[0]!.inbox, ticker("2.5"))
        yield* settle
        assert.strictEqual(frames.length, 1)
        assert.strictEqual(warnings.length, 1)
        assert.include(warnings[0], "gzip")
        yield* connection.stop()
      }).pipe(Effect.scoped, Effect.provide(warningsInto(warnings)))
    })
  })

  it.effect("the first orders push a private connection carries is logged at debug level, scrubbed, once", () => {
    const debug: Array<string> = []
    const logger = Logger.layer([
      Logger.make((options) => {
        if (options.logLevel === "Debug") debug.push(String(options.message))
      })
    ])
    return Effect.gen(function*() {
      const peers: Array<Peer> = []
      const frames: Array<DataFrame> = []
      const feed: Feed = {
        onActive: () => Effect.void,
        onInactive: () => Effect.void,
        onFrame: (frame) => void frames.push(frame),
        onFail: () => Effect.void
      }
      const connection = new Connection(
        1,
        settingsOf({
          endpoint: "private",
          text: new VenueText({ secrets: ["the-api-key-0123456789"], url: "wss://venue.test" })
        }),
        scripted(peers),
        yield* nowFunction
      )
      for (const channel of ["orders", "fill"]) yield* connection.add(channel, feed)
      yield* connection.start(yield* Effect.scope)
      yield* settle
      for (const channel of ["orders", "fill"]) {
        yield* Queue.offer(peers[0]!.inbox, JSON.stringify({ event: "subscribed", channel }))
      }
      const push = (channel: string, id: string) =>
        JSON.stringify({
          type: "trade-event",
          channel,
          event: "payload",
          msg: { msgEvent: "OrderUpdate", data: { orders: [{ id, orderSide: "BUY", note: "the-api-key-0123456789" }] } }
        })
      yield* Queue.offer(peers[0]!.inbox, push("fill", "1"))
      yield* Queue.offer(peers[0]!.inbox, push("orders", "2"))
      yield* Queue.offer(peers[0]!.inbox, push("orders", "3"))
      yield* settle
      assert.strictEqual(frames.length, 3)
      const logged = debug.filter((line) => line.includes("orders push"))
      assert.strictEqual(logged.length, 1)
      assert.include(logged[0], "\"id\":\"2\"")
      assert.include(logged[0], "\"orders\":")
      assert.notInclude(logged[0], "the-api-key-0123456789")
      yield* connection.stop()
    }).pipe(Effect.scoped, Effect.provide(logger), Effect.provideService(References.MinimumLogLevel, "Debug"))
  })

  describe("channels the venue may still count", () => {
    const quiet: Feed = {
      onActive: () => Effect.void,
      onInactive: () => Effect.void,
      onFrame: () => undefined,
      onFail: () => Effect.void
    }
    const make = (operations: number) =>
      Effect.gen(function*() {
        const peers: Array<Peer> = []
        const connection = new Connection(
          1,
          settingsOf({ operations: { limit: operations, windowMillis: 60_000 } }),
          scripted(peers),
          yield* nowFunction
        )
        return { connection, peers }
      })
    const BOOK = "depth.BTCUSDT_SPBL.15"
    const ack = (event: "subscribed" | "unsubscribed", channel: string) => JSON.stringify({ event, channel })

    it.effect("a first subscription that timed out is unsubscribed, and occupies its place until the venue confirms", () =>
      Effect.gen(function*() {
        const { connection, peers } = yield* make(240)
        const failures: Array<string> = []
        yield* connection.add(CHANNEL, quiet)
        yield* connection.start(yield* Effect.scope)
        yield* settle
        yield* Queue.offer(peers[0]!.inbox, ack("subscribed", CHANNEL))
        yield* connection.add(BOOK, {
          ...quiet,
          onFail: (_, reason) => Effect.sync(() => void failures.push(reason._tag))
        })
        yield* settle
        yield* TestClock.adjust(5_000)
        yield* settle
        assert.deepStrictEqual(failures, ["SubscribeTimeoutError"])
        assert.strictEqual(peers[0]!.written.at(-1), JSON.stringify({ event: "unsubscribe", channel: BOOK }))
        // The venue may have subscribed it (its acknowledgement late or lost): it counts it until it says otherwise.
        assert.isFalse(connection.fits(2))
        yield* Queue.offer(peers[0]!.inbox, ack("unsubscribed", BOOK))
        yield* settle
        assert.isTrue(connection.fits(2))
        yield* connection.stop()
      }).pipe(Effect.scoped))

    // A connection of two operations an hour, both spent subscribing two channels, one of which (the book) is removed.
    const bookRemovedWithNoOperationLeft = Effect.gen(function*() {
      const { connection, peers } = yield* make(2)
      yield* connection.add(CHANNEL, quiet)
      yield* connection.add(BOOK, quiet)
      yield* connection.start(yield* Effect.scope)
      yield* settle
      yield* Queue.offer(peers[0]!.inbox, ack("subscribed", CHANNEL))
      yield* Queue.offer(peers[0]!.inbox, ack("subscribed", BOOK))
      yield* settle
      yield* connection.remove(BOOK)
      return { connection, peers }
    })

    it.effect("a channel removed with no operation left is unsubscribed once one frees; it holds its place till then", () =>
      Effect.gen(function*() {
        const { connection, peers } = yield* bookRemovedWithNoOperationLeft
        assert.strictEqual(peers[0]!.written.length, 2, "no unsubscription sent: no operation left")
        // The venue carries the book on, and counts it, until its unsubscription is answered.
        yield* TestClock.adjust(59_000)
        yield* settle
        assert.strictEqual(peers[0]!.written.length, 2, "no operation free yet")
        assert.isFalse(connection.fits(2))
        // The operations' window passes: the first operation freed is spent on the book's unsubscription.
        yield* TestClock.adjust(2_000)
        yield* settle
        assert.strictEqual(peers[0]!.written.at(-1), JSON.stringify({ event: "unsubscribe", channel: BOOK }))
        assert.isFalse(connection.fits(2), "counted until the venue confirms")
        yield* Queue.offer(peers[0]!.inbox, ack("unsubscribed", BOOK))
        yield* settle
        assert.isTrue(connection.fits(2))
        yield* connection.stop()
      }).pipe(Effect.scoped))

    it.effect("a channel removed with no operation left, then carried again before one frees, is not unsubscribed", () =>
      Effect.gen(function*() {
        const { connection, peers } = yield* bookRemovedWithNoOperationLeft
        yield* connection.add(BOOK, quiet)
        yield* TestClock.adjust(61_000)
        yield* settle
        const unsubscribe = JSON.stringify({ event: "unsubscribe", channel: BOOK })
        assert.notInclude(peers[0]!.written, unsubscribe, "the book is carried: not unsubscribed")
        yield* connection.stop()
      }).pipe(Effect.scoped))
  })

  describe("what the venue answers of a channel", () => {
    const BOOK = "depth.BTCUSDT_SPBL.15"
    const frame = (fields: Record<string, unknown>) => JSON.stringify(fields)
    const refusal = frame({ event: "error", code: "30016", msg: "channel not subscribed", channel: BOOK })

    // A book channel whose feed asks a resync on every data frame (a gap, say), recording what it is told.
    const open = Effect.gen(function*() {
      const peers: Array<Peer> = []
      const failures: Array<string> = []
      const told: Array<string> = []
      const feed: Feed = {
        onActive: () => Effect.sync(() => void told.push("active")),
        onInactive: () => Effect.sync(() => void told.push("inactive")),
        onFrame: (_frame, control) => control.resync(BOOK),
        onFail: (_channel, reason) => Effect.sync(() => void failures.push(reason._tag))
      }
      const connection = new Connection(
        1,
        settingsOf(),
        scripted(peers),
        yield* nowFunction
      )
      yield* connection.add(BOOK, feed)
      yield* connection.start(yield* Effect.scope)
      yield* settle
      const send = (text: string) => Effect.andThen(Queue.offer(peers[0]!.inbox, text), settle)
      yield* send(frame({ event: "subscribed", channel: BOOK }))
      return { connection, peers, failures, told, feed, send }
    })
    const written = (peers: Array<Peer>) =>
      peers[0]!.written.map((text) => {
        const message = JSON.parse(text) as { event: string; channel: string }
        return `${message.event} ${message.channel}`
      })

    it.effect("an error answering a resync's unsubscribe fails nothing: the subscription that follows goes live", () => {
      const warnings: Array<string> = []
      return Effect.gen(function*() {
        const { connection, failures, peers, send, told } = yield* open
        yield* send(frame({ event: "payload", channel: BOOK, data: [{}] }))
        assert.deepStrictEqual(written(peers), [`subscribe ${BOOK}`, `unsubscribe ${BOOK}`, `subscribe ${BOOK}`])
        // The venue had dropped the channel on its side already, and says so to the unsubscribe.
        yield* send(refusal)
        yield* send(frame({ event: "subscribed", channel: BOOK }))
        assert.deepStrictEqual(failures, [])
        assert.deepStrictEqual(told, ["active", "active"])
        assert.strictEqual(connection.channels.get(BOOK)?.state, "active")
        assert.strictEqual(warnings.length, 1)
        assert.include(warnings[0], "channel not subscribed")
        assert.include(warnings[0], BOOK)
        yield* connection.stop()
      }).pipe(Effect.scoped, Effect.provide(warningsInto(warnings)))
    })

    it.effect("an error answering the unsubscribe of a channel stopped and watched again fails nothing", () =>
      Effect.gen(function*() {
        const { connection, failures, feed, peers, send, told } = yield* open
        yield* connection.remove(BOOK)
        yield* connection.add(BOOK, feed)
        yield* settle
        assert.deepStrictEqual(written(peers), [`subscribe ${BOOK}`, `unsubscribe ${BOOK}`, `subscribe ${BOOK}`])
        yield* send(refusal)
        yield* send(frame({ event: "subscribed", channel: BOOK }))
        assert.deepStrictEqual(failures, [])
        assert.deepStrictEqual(told, ["active", "active"])
        yield* connection.stop()
      }).pipe(Effect.scoped))

    it.effect("an error answering a subscribe fails that channel for good, with the venue's code and message", () =>
      Effect.gen(function*() {
        const { connection, failures, feed, peers, send } = yield* open
        yield* connection.remove(BOOK)
        yield* send(frame({ event: "unsubscribed", channel: BOOK }))
        yield* connection.add(BOOK, feed)
        yield* settle
        yield* send(refusal)
        assert.deepStrictEqual(failures, ["VenueRefusedError"])
        assert.isFalse(connection.channels.has(BOOK))
        assert.strictEqual(peers[0]!.written.length, 3)
        yield* connection.stop()
      }).pipe(Effect.scoped))

    it.effect("an error naming a live channel the client asked nothing of: logged, and the channel subscribed again", () => {
      const warnings: Array<string> = []
      return Effect.gen(function*() {
        const { connection, failures, peers, send, told } = yield* open
        yield* send(refusal)
        assert.deepStrictEqual(failures, [])
        assert.deepStrictEqual(written(peers), [`subscribe ${BOOK}`, `unsubscribe ${BOOK}`, `subscribe ${BOOK}`])
        assert.deepStrictEqual(told, ["active", "inactive"])
        yield* send(frame({ event: "unsubscribed", channel: BOOK }))
        yield* send(frame({ event: "subscribed", channel: BOOK }))
        assert.deepStrictEqual(told, ["active", "inactive", "active"])
        assert.strictEqual(warnings.length, 1)
        assert.include(warnings[0], "30016")
        yield* connection.stop()
      }).pipe(Effect.scoped, Effect.provide(warningsInto(warnings)))
    })

    it.effect("an unsubscribed the client did not ask for, of a live channel: the feed is told, and it is subscribed again", () =>
      Effect.gen(function*() {
        const { connection, failures, peers, send, told } = yield* open
        yield* send(frame({ event: "unsubscribed", channel: BOOK }))
        // The venue no longer carries it: subscribed again (no unsubscription), the feed told it stopped (a book resyncs).
        assert.deepStrictEqual(told, ["active", "inactive"])
        assert.deepStrictEqual(written(peers), [`subscribe ${BOOK}`, `subscribe ${BOOK}`])
        assert.strictEqual(connection.channels.get(BOOK)?.state, "pending")
        yield* send(frame({ event: "subscribed", channel: BOOK }))
        assert.deepStrictEqual(told, ["active", "inactive", "active"])
        assert.deepStrictEqual(failures, [])
        // The answer to the client's own unsubscription (a resync) is no loss.
        yield* send(frame({ event: "payload", channel: BOOK, data: [{}] }))
        yield* send(frame({ event: "unsubscribed", channel: BOOK }))
        yield* send(frame({ event: "subscribed", channel: BOOK }))
        assert.deepStrictEqual(told, ["active", "inactive", "active", "active"])
        assert.strictEqual(peers[0]!.written.length, 4)
        yield* connection.stop()
      }).pipe(Effect.scoped))
  })
})
