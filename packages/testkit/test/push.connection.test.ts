/**
 * The push client's connections against the venue, in process under the `TestClock`: pings of both forms answered
 * (the venue closes connections that leave five unanswered), the idle watchdog replacing a connection that went
 * silent with its socket open, reconnects with jittered exponential backoff within the connection-attempt budget of
 * the `RateLimitStore` (a reconnect storm stays within it, and a store shared by two clients holds both), the
 * acknowledgement timeout, the channel cap and the operation budget (more connections when needed), fresh
 * signatures on every connection from the client's clock offset, and a platform that cannot send handshake headers.
 */
import { assert, describe, it } from "@effect/vitest"
import type { PushError } from "@spotkit/core"
import { RateLimitStore, Signer, SpotClient } from "@spotkit/core"
import { Effect, Fiber, Layer, Logger, Redacted, Stream } from "effect"
import * as Socket from "effect/socket/Socket"
import { PushVenue, TestExchange } from "../src/index.ts"
import { nodeCryptoSigner } from "../src/internal/clientSigner.ts"
import { advance, collect, settle, setup, SpotPush } from "./support/push.ts"

const SYMBOL = "BTCUSDT_SPBL"

const services = Effect.gen(function*() {
  return {
    push: yield* SpotPush.SpotPush,
    venue: yield* PushVenue.PushVenue,
    exchange: yield* TestExchange.TestExchange
  }
})

const alice = TestExchange.demoKeys.alice
const wrongSecret = {
  apiKey: Redacted.make(alice.apiKey),
  passphrase: Redacted.make(alice.passphrase),
  secretKey: Redacted.make("not-the-secret")
}

// Warning lines logged, as their text.
const warnings: Array<string> = []
const captureWarnings = Logger.layer([
  Logger.make(({ logLevel, message }) => {
    if (logLevel !== "Warn") return
    const parts = Array.isArray(message) ? message : [message]
    warnings.push(parts.map((part) => typeof part === "string" ? part : "<object>").join(" "))
  })
])

const disconnects = (events: ReadonlyArray<SpotPush.Event>) =>
  events.filter((e): e is Extract<SpotPush.Event, { _tag: "Disconnected" }> => e._tag === "Disconnected")

describe("SpotPush connections", () => {
  for (const pingType of ["event", "type"] as const) {
    it.effect(`answers the venue's ${pingType} pings: the connection lives on with no data for minutes`, () =>
      Effect.gen(function*() {
        const { push, venue } = yield* services
        const events = yield* collect(push.events)
        const book = yield* collect(push.watchBook(SYMBOL))
        yield* advance(300_000, 5_000)
        assert.strictEqual(disconnects(events.items).length, 0)
        assert.strictEqual((yield* venue.stats).opened, 1)
        assert.strictEqual(book.items.length, 1)
      }).pipe(Effect.provide(setup({ venue: { pingType } }))))
  }

  it.effect("idle watchdog: a connection silent with its socket open is replaced after idleTimeout", () =>
    Effect.gen(function*() {
      const { push, venue } = yield* services
      const events = yield* collect(push.events)
      // Silent after its first data frame (the snapshot): no data, no ping.
      yield* venue.setFaults({ stall: 1 })
      const book = yield* collect(push.watchBook(SYMBOL))
      yield* advance(14_000)
      assert.strictEqual(disconnects(events.items).length, 0)
      yield* venue.setFaults({})
      yield* advance(10_000)
      const [first] = disconnects(events.items)
      assert.include(first?.reason ?? "", "no frame")
      yield* advance(5_000)
      assert.strictEqual(book.items.filter((e) => e._tag === "Book").length, 2)
      assert.deepStrictEqual(book.items.map((e) => e._tag), ["Book", "Resync", "Book"])
      assert.strictEqual((yield* venue.stats).open, 1)
    }).pipe(Effect.provide(setup({ push: { idleTimeout: "15 seconds" } }))))

  it.effect("reconnect storm: full-jitter delays under a ceiling doubling from 0.5 s up to 30 s", () =>
    Effect.gen(function*() {
      const { push, venue } = yield* services
      const events = yield* collect(push.events)
      yield* venue.setFaults({ storm: true })
      yield* collect(push.watchBook(SYMBOL))
      yield* advance(600_000, 1_000)
      const delays = disconnects(events.items).map((e) => e.retryInMillis)
      assert.isAbove(delays.length, 20)
      delays.forEach((delay, attempt) => assert.isAtMost(delay, Math.min(30_000, 500 * 2 ** attempt) - 1))
      // Jittered: not all at the ceiling, and the ceiling was reached.
      assert.isTrue(delays.slice(8).some((d) => d < 25_000))
      assert.isTrue(delays.some((d) => d > 15_000))
      yield* venue.setFaults({})
      yield* advance(60_000)
      assert.strictEqual((yield* venue.stats).open, 1)
    }).pipe(Effect.provide(setup())))

  // A connection lost again and again waits on, its streams with it: a warning says so, at most once a minute, where
  // a connection lost once (and up again) logs none.
  it.effect("a connection lost again and again is logged as a warning, at most once a minute; one lost once is not", () =>
    Effect.gen(function*() {
      warnings.length = 0
      const { push, venue } = yield* services
      yield* collect(push.watchBook(SYMBOL))
      yield* settle
      yield* venue.dropAll
      yield* advance(60_000, 1_000)
      assert.deepStrictEqual(warnings, [])
      yield* venue.setFaults({ storm: true })
      yield* venue.dropAll
      yield* advance(600_000, 1_000)
      assert.include(warnings[0], "spotkit push: public connection")
      assert.include(warnings[0], "lost 3 times in a row (last: ")
      assert.include(warnings[0], "its streams wait, dialling again in")
      // Ten minutes of dials, each within 30 s (the backoff's ceiling) of the last: a line a minute at most, each saying
      // how many were not logged, and one at the first loss a minute after the last at least — within 90 s of it. (9 to
      // 11 as a rule; 8 once, in a CI run.)
      assert.isAtLeast(warnings.length, 6)
      assert.isAtMost(warnings.length, 11)
      assert.include(warnings.at(-1), "more since the last one logged)")
      yield* venue.setFaults({})
      yield* advance(120_000, 1_000)
      const logged = warnings.length
      assert.strictEqual((yield* venue.stats).open, 1)
      yield* advance(120_000, 1_000)
      assert.strictEqual(warnings.length, logged, "up again: no more warnings")
    }).pipe(Effect.provide(setup()), Effect.provide(captureWarnings)))

  it.effect("reconnect storm: never more attempts than the budget (300 per 5 minutes), whatever the backoff", () =>
    Effect.gen(function*() {
      const { push, venue } = yield* services
      yield* venue.setFaults({ storm: true })
      yield* collect(push.watchBook(SYMBOL))
      yield* advance(299_000, 1_000)
      const stats = yield* venue.stats
      assert.strictEqual(stats.attempts, 300)
      yield* advance(2_000, 1_000)
      assert.isAbove((yield* venue.stats).attempts, 300)
    }).pipe(Effect.provide(setup({ push: { backoff: { initial: "1 millis", max: "1 millis" } } }))))

  it.effect("the connection budget lives in the RateLimitStore: two clients sharing one store share it", () =>
    Effect.gen(function*() {
      const { venue } = yield* services
      const first = yield* SpotPush.SpotPush
      yield* venue.setFaults({ storm: true })
      const second = yield* SpotPush.make({
        url: "ws://exchange.test",
        backoff: { initial: "1 millis", max: "1 millis" },
        limits: { connectionAttempts: { limit: 6, windowMillis: 60_000 } }
      })
      yield* collect(first.watchBook(SYMBOL))
      yield* collect(second.watchTicker(SYMBOL))
      yield* advance(59_000, 1_000)
      // Both clients' attempts within one 60 s window: 6 in all, not 6 each.
      assert.strictEqual((yield* venue.stats).attempts, 6)
    }).pipe(Effect.provide(
      PushVenue.layerWebSocketConstructor.pipe(Layer.provideMerge(
        setup({
          push: {
            backoff: { initial: "1 millis", max: "1 millis" },
            limits: { connectionAttempts: { limit: 6, windowMillis: 60_000 } }
          }
        }).pipe(Layer.provideMerge(RateLimitStore.layerMemory))
      ))
    )))

  it.effect("a subscription the venue never acknowledges fails with SubscribeTimeoutError after ackTimeout", () =>
    Effect.gen(function*() {
      const { push, venue } = yield* services
      yield* venue.setFaults({ noAck: true })
      const fiber = yield* Effect.forkChild(Effect.flip(Stream.runDrain(push.watchBook(SYMBOL))))
      yield* advance(4_000)
      assert.isUndefined(fiber.pollUnsafe())
      yield* advance(2_000)
      const error = yield* Fiber.join(fiber)
      assert.strictEqual(error.reason._tag, "SubscribeTimeoutError")
      assert.include(error.message, "depth.BTCUSDT_SPBL.15")
      yield* settle
      assert.strictEqual((yield* venue.stats).open, 0)
    }).pipe(Effect.provide(setup())))

  it.effect("a resubscription the venue does not acknowledge replaces the connection; the stream goes on", () =>
    Effect.gen(function*() {
      const { push, venue } = yield* services
      const events = yield* collect(push.events)
      const book = yield* collect(push.watchBook(SYMBOL))
      yield* settle
      // A gap, and the resync's subscription goes unanswered.
      yield* venue.setFaults({ gap: 2, noAck: true })
      for (let i = 0; i < 3; i++) {
        yield* venue.publish({ _tag: "Book", symbol: SYMBOL, bids: [[`2999${i}.50`, "1"]], asks: [] })
        yield* settle
      }
      yield* advance(6_000)
      assert.isTrue(
        disconnects(events.items).some((e) => e.reason.includes("no acknowledgement of depth.BTCUSDT_SPBL.15"))
      )
      yield* venue.setFaults({})
      yield* advance(10_000)
      assert.strictEqual(book.items.at(-1)?._tag, "Book")
      assert.isUndefined(book.fiber.pollUnsafe())
    }).pipe(Effect.provide(setup())))

  it.effect("a subscription that timed out is unsubscribed, and counted until the venue confirms: no channel limit broken", () =>
    Effect.gen(function*() {
      const { push, venue } = yield* services
      const events = yield* collect(push.events)
      yield* collect(push.watchTicker(SYMBOL))
      yield* settle
      // The venue is slow to acknowledge: the book's subscription times out on the client, the venue counts it.
      yield* venue.setFaults({ noAck: true })
      const failed = yield* Effect.forkChild(Effect.flip(Stream.runDrain(push.watchBook(SYMBOL))))
      yield* advance(6_000)
      assert.strictEqual((yield* Fiber.join(failed)).reason._tag, "SubscribeTimeoutError")
      yield* venue.setFaults({})
      // Another channel: it goes where the venue's count allows, and the shared connection is never closed 1008.
      const eth = yield* collect(push.watchTicker("ETHUSDT_SPBL"))
      yield* advance(3_000)
      yield* venue.publish({ _tag: "Ticker", symbol: "ETHUSDT_SPBL", fields: { lastPrice: "2000.5" } })
      yield* settle
      assert.deepStrictEqual(disconnects(events.items), [])
      assert.deepStrictEqual(eth.items.map((ticker) => ticker.lastPrice), ["2000.5"])
    }).pipe(Effect.provide(setup({
      push: { limits: { channelsPerConnection: 2 } },
      venue: { limits: { channelsPerConnection: 2 } }
    }))))

  it.effect("channel cap: channels beyond the cap go on another connection", () =>
    Effect.gen(function*() {
      const { push, venue } = yield* services
      yield* collect(push.watchBook(SYMBOL))
      yield* collect(push.watchBook("ETHUSDT_SPBL"))
      yield* collect(push.watchTicker(SYMBOL))
      yield* settle
      assert.strictEqual((yield* venue.stats).open, 2)
    }).pipe(Effect.provide(setup({
      push: { limits: { channelsPerConnection: 2 } },
      venue: { limits: { channelsPerConnection: 2 } }
    }))))

  // One book taken, a second refused: the refusal, which must be a ConnectionLimitError.
  const refusedSecondBook = Effect.gen(function*() {
    const { push } = yield* services
    yield* collect(push.watchBook(SYMBOL))
    yield* settle
    const error = yield* Effect.flip(Stream.runDrain(push.watchBook("ETHUSDT_SPBL")))
    assert.strictEqual(error.reason._tag, "ConnectionLimitError")
    return { error, reason: error.reason as PushError.ConnectionLimitError }
  })

  it.effect("connection cap: a channel beyond it fails with ConnectionLimitError naming the channel cap configured", () =>
    Effect.gen(function*() {
      const { error, reason } = yield* refusedSecondBook
      assert.strictEqual(reason.connections, 1)
      assert.strictEqual(reason.channelsPerConnection, 1)
      assert.strictEqual(reason.limit, "channels")
      assert.include(error.message, "every one of the 1 connections allowed carries its 1 channels")
      assert.notInclude(error.message, "100")
    }).pipe(Effect.provide(setup({ push: { maxConnections: 1, limits: { channelsPerConnection: 1 } } }))))

  it.effect("connection cap: with no operation left on the connections, ConnectionLimitError says so, not channels", () =>
    Effect.gen(function*() {
      const { error, reason } = yield* refusedSecondBook
      assert.strictEqual(reason.limit, "operations")
      assert.include(error.message, "none of the 1 connections allowed has both a place among its 100 channels")
      assert.include(error.message, "a subscribe operation left")
    }).pipe(Effect.provide(setup({
      push: { maxConnections: 1, limits: { operations: { limit: 1, windowMillis: 3_600_000 } } }
    }))))

  it.effect("connection cap: public and private connections count against one maxConnections, the venue's per address", () =>
    Effect.gen(function*() {
      const { push, venue } = yield* services
      const events = yield* collect(push.events)
      const book = yield* collect(push.watchBook(SYMBOL))
      yield* settle
      const error = yield* Effect.flip(Stream.runDrain(push.watchFills()))
      assert.strictEqual(error.reason._tag, "ConnectionLimitError")
      yield* advance(20_000)
      // The venue never had more than it allows: no connection closed 1008, dialled again and again.
      assert.deepStrictEqual(disconnects(events.items), [])
      assert.strictEqual((yield* venue.stats).opened, 1)
      // The public connection freed, a private one fits.
      yield* book.stop
      yield* settle
      const fills = yield* collect(push.watchFills())
      yield* advance(5_000)
      assert.isUndefined(fills.fiber.pollUnsafe())
      assert.deepStrictEqual(disconnects(events.items), [])
    }).pipe(Effect.provide(setup({ push: { maxConnections: 1 }, venue: { limits: { connections: 1 } } }))))

  it.effect("operation budget: a resync that has no two operations left takes a fresh connection", () =>
    Effect.gen(function*() {
      const { push, venue } = yield* services
      const events = yield* collect(push.events)
      const book = yield* collect(push.watchBook(SYMBOL))
      yield* settle
      // Every second change lost: a gap at the 3rd change and at the 5th.
      yield* venue.setFaults({ gap: 2 })
      for (let i = 0; i < 6; i++) {
        yield* venue.publish({ _tag: "Book", symbol: SYMBOL, bids: [[`2999${i}.50`, "1"]], asks: [] })
        yield* settle
      }
      // Subscribe (1) + resync (2) = 3 of 3: the next resync reconnects instead of breaking the venue's limit.
      assert.isTrue(disconnects(events.items).some((e) => e.reason.includes("operation budget")))
      assert.isAtLeast(book.items.filter((e) => e._tag === "Resync").length, 2)
      yield* venue.setFaults({})
      yield* advance(5_000)
      assert.strictEqual(book.items.at(-1)?._tag, "Book")
    }).pipe(Effect.provide(setup({
      push: { limits: { operations: { limit: 3, windowMillis: 3_600_000 } } },
      venue: { limits: { operations: { limit: 3, windowMillis: 3_600_000 } } }
    }))))

  it.effect("private handshakes are signed with the client's clock offset", () =>
    Effect.gen(function*() {
      const { exchange, venue } = yield* services
      const client = yield* SpotClient.SpotClient
      // The client believes the venue 40 s behind it: its handshakes fall outside the venue's 30 s window.
      const push = yield* SpotPush.make({ url: "ws://exchange.test", credentials: exchange.accounts[0]!.credentials })
        .pipe(
          Effect.provideService(SpotClient.SpotClient, { ...client, clockOffset: Effect.succeed(-40_000) }),
          Effect.provide(Signer.layer(nodeCryptoSigner))
        )
      const balances = yield* collect(push.watchBalances())
      yield* advance(10_000)
      assert.strictEqual(balances.items.length, 0)
      const stats = yield* venue.stats
      assert.isAtLeast(stats.refused, 3)
      assert.strictEqual(stats.refused, stats.attempts)
    }).pipe(Effect.provide(PushVenue.layerWebSocketConstructor.pipe(Layer.provideMerge(setup())))))

  it.effect("a key the venue refuses at the handshake, and REST too, fails the private streams with a typed error", () =>
    Effect.gen(function*() {
      const { push, venue } = yield* services
      const events = yield* collect(push.events)
      const fills = yield* collect(push.watchFills({ symbols: [SYMBOL] }))
      const balances = yield* collect(push.watchBalances())
      yield* advance(5_000)
      const stats = yield* venue.stats
      assert.isAtLeast(stats.refused, 1)
      for (const stream of [fills, balances]) {
        const exit = stream.fiber.pollUnsafe()
        assert.isDefined(exit, "the stream still waits")
        assert.isTrue(exit !== undefined && exit._tag === "Failure")
        const error = yield* Effect.flip(Fiber.join(stream.fiber))
        assert.strictEqual(error.reason._tag, "CredentialsRefusedError")
        assert.include(error.message, "refused")
      }
      // One refused handshake, one REST call that confirms it: not a reconnect loop.
      assert.isAtMost(disconnects(events.items).length, 1)
    }).pipe(Effect.provide(setup({
      client: { credentials: wrongSecret },
      push: { credentials: wrongSecret }
    }))))

  it.effect("a handshake refused while REST accepts the key is transient: the stream waits, REST asked once a minute", () =>
    Effect.gen(function*() {
      const { exchange, push, venue } = yield* services
      const before = (yield* exchange.requests).length
      const fills = yield* collect(push.watchFills({ symbols: [SYMBOL] }))
      yield* advance(150_000)
      assert.isUndefined(fills.fiber.pollUnsafe())
      assert.isAtLeast((yield* venue.stats).refused, 5)
      const balanceReads = (yield* exchange.requests).slice(before).filter((r) => r.path.endsWith("/account/assets"))
      assert.isAtLeast(balanceReads.length, 2)
      assert.isAtMost(balanceReads.length, 3)
    }).pipe(Effect.provide(setup({ push: { credentials: wrongSecret } }))))

  it.effect("a platform whose WebSocket takes no headers: public channels work, private ones fail with a typed error", () =>
    Effect.gen(function*() {
      const { exchange, venue } = yield* services
      const push = yield* SpotPush.make({ url: "ws://exchange.test", credentials: exchange.accounts[0]!.credentials })
        .pipe(Effect.provide(Signer.layer(nodeCryptoSigner)))
      const book = yield* collect(push.watchBook(SYMBOL))
      const error = yield* Effect.flip(Stream.runDrain(push.watchFills()))
      yield* settle
      assert.strictEqual(error.reason._tag, "HeadersUnsupportedError")
      assert.include(error.message, "browser")
      assert.strictEqual(book.items[0]?._tag, "Book")
      void venue
    }).pipe(
      Effect.provide(Layer.effect(
        Socket.WebSocketConstructor,
        Effect.map(PushVenue.PushVenue, (venue): Socket.WebSocketConstructor["Service"] => (url, options) => {
          // As the global (browser) constructor does: an options object is refused.
          if (options !== undefined && typeof options === "object" && !Array.isArray(options)) {
            throw new TypeError("WebSocket client options are not supported by the global WebSocket constructor")
          }
          return venue.webSocket(url, options)
        })
      )),
      Effect.provide(setup())
    ))
})
