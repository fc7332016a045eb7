/**
 * The push venue's side of the protocol, seen frame by frame by a raw client over the in-process transport under the
 * `TestClock`: handshake authentication (a bad signature, passphrase or stale timestamp refused), acknowledgements and
 * error frames, server pings of either key and the close after five unanswered ones, the limits (closing with 1008),
 * depth snapshots then versioned changes per depth (the 15-level channel bringing in levels that enter it), private
 * frames routed to their user only, and every fault.
 */
import { assert, describe, it } from "@effect/vitest"
import { Push } from "@spotkit/core"
import { Effect } from "effect"
import type { Scope } from "effect"
import type * as Socket from "effect/socket/Socket"
import { TestClock } from "effect/testing"
import { createHmac } from "node:crypto"
import { PushVenue } from "../src/index.ts"
import { settle } from "./support/push.ts"

const ALICE = { apiKey: "a-key", secretKey: "a-secret", passphrase: "a-pass", userId: "1001" }
const BOB = { apiKey: "b-key", secretKey: "b-secret", passphrase: "b-pass", userId: "1002" }

// A book of 20 levels a side around 100.
const book = () => ({
  bids: Array.from({ length: 20 }, (_, i): PushVenue.Level => [`${99 - i}.5`, "1"]),
  asks: Array.from({ length: 20 }, (_, i): PushVenue.Level => [`${100 + i}.5`, "1"])
})

const venueWith = (options: PushVenue.Options = {}): Effect.Effect<PushVenue.Service, never, Scope.Scope> =>
  PushVenue.make({
    keys: [ALICE, BOB],
    ...options,
    source: { depth: (symbol) => (symbol === "BTCUSDT_SPBL" ? book() : undefined) }
  })

const signed = (key: typeof ALICE, timestamp: string, patch: Record<string, string> = {}) => ({
  [Push.headers.key]: key.apiKey,
  [Push.headers.passphrase]: key.passphrase,
  [Push.headers.timestamp]: timestamp,
  [Push.headers.sign]: createHmac("sha256", key.secretKey).update(Push.prehash(timestamp)).digest("base64"),
  ...patch
})

interface Raw {
  readonly frames: Array<{ readonly [key: string]: unknown }>
  readonly state: { opened: boolean; closed: { code: number; reason: string } | undefined; errored: boolean }
  readonly send: (message: unknown) => void
  readonly ws: Socket.WebSocketLike
  /** Data frames (payloads and trade events) received. */
  readonly data: () => Array<{ readonly [key: string]: unknown }>
}

const connect = (venue: PushVenue.Service, path: string, headers: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const ws = venue.webSocket(`ws://exchange.test${path}`, { headers })
    const raw: Raw = {
      frames: [],
      state: { opened: false, closed: undefined, errored: false },
      send: (message) => ws.send(typeof message === "string" ? message : JSON.stringify(message)),
      ws,
      data: () => raw.frames.filter((f) => f.event === "payload")
    }
    ws.addEventListener("message", (event) => raw.frames.push(JSON.parse(String(event.data))))
    ws.addEventListener("open", () => (raw.state.opened = true))
    ws.addEventListener("error", () => (raw.state.errored = true))
    ws.addEventListener("close", (event) => (raw.state.closed = { code: event.code ?? 0, reason: event.reason ?? "" }))
    yield* settle
    return raw
  })

const subscribe = (raw: Raw, channel: string) =>
  Effect.andThen(Effect.sync(() => raw.send({ event: "subscribe", channel })), settle)

describe("PushVenue", () => {
  it.effect("handshake: public for anyone; private only with the key's passphrase and a fresh, right signature", () =>
    Effect.gen(function*() {
      const venue = yield* venueWith()
      yield* TestClock.adjust(1_000_000)
      const now = "1000000"
      const good = yield* connect(venue, Push.paths.private, signed(ALICE, now))
      const open = yield* connect(venue, Push.paths.public)
      assert.isTrue(good.state.opened && open.state.opened)
      const refused = [
        yield* connect(venue, Push.paths.private),
        yield* connect(venue, Push.paths.private, signed(ALICE, now, { [Push.headers.sign]: "AAAA" })),
        yield* connect(venue, Push.paths.private, signed(ALICE, now, { [Push.headers.passphrase]: "b-pass" })),
        yield* connect(venue, Push.paths.private, signed(ALICE, "969999")),
        yield* connect(venue, Push.paths.private, signed({ ...ALICE, apiKey: "nobody" }, now)),
        yield* connect(venue, "/v2/ws/other")
      ]
      for (const raw of refused) {
        assert.isFalse(raw.state.opened)
        assert.isTrue(raw.state.errored)
        assert.strictEqual(raw.state.closed?.code, 1006)
      }
      // Within the window (30 s) either way.
      const late = yield* connect(venue, Push.paths.private, signed(ALICE, "1029999"))
      assert.isTrue(late.state.opened)
      assert.deepStrictEqual(yield* venue.stats, { attempts: 9, refused: 6, opened: 3, open: 3 })
      yield* venue.setFaults({ refuseAuth: true })
      assert.isFalse((yield* connect(venue, Push.paths.private, signed(ALICE, now))).state.opened)
      assert.isTrue((yield* connect(venue, Push.paths.public)).state.opened)
    }))

  it.effect("failed authentications: a key's handshakes refused (429) once its budget is spent, others unaffected", () =>
    Effect.gen(function*() {
      const venue = yield* venueWith({ limits: { authFailures: { limit: 3, windowMillis: 60_000 } } })
      yield* TestClock.adjust(1_000_000)
      const now = () => String(venue.venue.now())
      const refusal = (raw: Raw) => [raw.state.opened, raw.state.closed?.reason]
      // A wrong passphrase, a wrong signature, and a stale timestamp (which is not a failed authentication).
      assert.deepStrictEqual(
        refusal(yield* connect(venue, Push.paths.private, signed(ALICE, now(), { [Push.headers.passphrase]: "x" }))),
        [false, "apikey/password is incorrect"]
      )
      assert.deepStrictEqual(
        refusal(yield* connect(venue, Push.paths.private, signed(ALICE, now(), { [Push.headers.sign]: "AAAA" }))),
        [false, "sign signature error"]
      )
      assert.deepStrictEqual(
        refusal(yield* connect(venue, Push.paths.private, signed(ALICE, "1"))),
        [false, "Request timestamp expired"]
      )
      assert.isTrue((yield* connect(venue, Push.paths.private, signed(ALICE, now()))).state.opened)
      yield* connect(venue, Push.paths.private, signed(ALICE, now(), { [Push.headers.sign]: "BBBB" }))
      // The third failure spent the budget: even the right credentials are refused, with 429.
      assert.deepStrictEqual(
        refusal(yield* connect(venue, Push.paths.private, signed(ALICE, now()))),
        [false, "too many failed authentications"]
      )
      // Another key, and keys the venue does not know, have budgets of their own.
      assert.isTrue((yield* connect(venue, Push.paths.private, signed(BOB, now()))).state.opened)
      for (let i = 0; i < 3; i++) {
        yield* connect(venue, Push.paths.private, signed({ ...ALICE, apiKey: `guess-${i}` }, now()))
      }
      assert.deepStrictEqual(
        refusal(yield* connect(venue, Push.paths.private, signed({ ...ALICE, apiKey: "guess-9" }, now()))),
        [false, "too many failed authentications"]
      )
      // Once the window has passed the first failure, the key has room again.
      yield* TestClock.adjust(60_000)
      assert.isTrue((yield* connect(venue, Push.paths.private, signed(ALICE, now()))).state.opened)
    }))

  it.effect("acknowledges subscriptions; refuses channels it does not serve, or not on this endpoint", () =>
    Effect.gen(function*() {
      const venue = yield* venueWith()
      const raw = yield* connect(venue, Push.paths.public)
      yield* subscribe(raw, "trades.BTCUSDT_SPBL")
      yield* subscribe(raw, "depth.XYZUSDT_SPBL.15")
      yield* subscribe(raw, "fill")
      yield* subscribe(raw, "bogus")
      raw.send("not json")
      raw.send({ event: "unsubscribe", channel: "trades.BTCUSDT_SPBL" })
      yield* settle
      assert.deepStrictEqual(raw.frames.map((f) => [f.event, f.channel]), [
        ["subscribed", "trades.BTCUSDT_SPBL"],
        ["error", "depth.XYZUSDT_SPBL.15"],
        ["error", "fill"],
        ["error", "bogus"],
        ["error", undefined],
        ["unsubscribed", "trades.BTCUSDT_SPBL"]
      ])
      assert.isUndefined(raw.state.closed)
    }))

  it.effect("refuses every public channel of a symbol it does not list alike", () =>
    Effect.gen(function*() {
      const venue = yield* venueWith()
      const raw = yield* connect(venue, Push.paths.public)
      const channels = [
        "depth.XYZUSDT_SPBL.15",
        "ticker.XYZUSDT_SPBL",
        "trades.XYZUSDT_SPBL",
        "kline.LAST_PRICE.XYZUSDT_SPBL.MINUTE_1"
      ]
      for (const channel of channels) yield* subscribe(raw, channel)
      yield* settle
      assert.deepStrictEqual(
        raw.frames.map((f) => [f.event, f.channel, f.msg]),
        channels.map((channel) => ["error", channel, "symbol XYZUSDT_SPBL does not exist"])
      )
    }))

  for (const pingType of ["event", "type"] as const) {
    it.effect(`pings (${pingType}) every interval; a pong keeps the connection; five unanswered close it`, () =>
      Effect.gen(function*() {
        const venue = yield* venueWith({ pingType })
        const answering = yield* connect(venue, Push.paths.public)
        const silent = yield* connect(venue, Push.paths.public)
        for (let i = 1; i <= 7; i++) {
          yield* TestClock.adjust(20_000)
          yield* settle
          const ping = answering.frames.at(-1)!
          assert.deepStrictEqual(ping, { [pingType]: "ping", time: String(i * 20_000) })
          answering.send({ [pingType]: "pong", time: ping.time })
        }
        yield* settle
        assert.isUndefined(answering.state.closed)
        // Five pings left unanswered, then closed at the sixth interval.
        assert.strictEqual(silent.frames.length, 5)
        assert.deepStrictEqual(silent.state.closed, { code: Push.CLOSE_POLICY, reason: "pings unanswered" })
      }))
  }

  it.effect("limits: channels and operations per connection, attempts and connections per address (close 1008)", () =>
    Effect.gen(function*() {
      const venue = yield* venueWith({
        limits: {
          channelsPerConnection: 2,
          operations: { limit: 4, windowMillis: 3_600_000 },
          connectionAttempts: { limit: 5, windowMillis: 60_000 },
          connections: 3
        }
      })
      const channels = yield* connect(venue, Push.paths.public)
      yield* subscribe(channels, "trades.BTCUSDT_SPBL")
      yield* subscribe(channels, "ticker.BTCUSDT_SPBL")
      assert.isUndefined(channels.state.closed)
      yield* subscribe(channels, "depth.BTCUSDT_SPBL.15")
      assert.deepStrictEqual(channels.state.closed, { code: 1008, reason: "channel limit exceeded" })

      const operations = yield* connect(venue, Push.paths.public)
      for (let i = 0; i < 2; i++) {
        yield* subscribe(operations, "trades.BTCUSDT_SPBL")
        operations.send({ event: "unsubscribe", channel: "trades.BTCUSDT_SPBL" })
        yield* settle
      }
      assert.isUndefined(operations.state.closed)
      yield* subscribe(operations, "trades.BTCUSDT_SPBL")
      assert.deepStrictEqual(operations.state.closed, { code: 1008, reason: "operation limit exceeded" })
      // The hour slides: a new connection has its own budget.
      yield* TestClock.adjust(61_000)

      const open = [yield* connect(venue, Push.paths.public), yield* connect(venue, Push.paths.public)]
      const third = yield* connect(venue, Push.paths.public)
      const fourth = yield* connect(venue, Push.paths.public)
      assert.isTrue(open.every((raw) => raw.state.closed === undefined))
      assert.isUndefined(third.state.closed)
      assert.deepStrictEqual(fourth.state.closed, { code: 1008, reason: "too many connections" })
      yield* Effect.sync(() => [...open, third].forEach((raw) => raw.ws.close()))
      yield* settle
      // The fifth attempt in the minute is allowed, the sixth is not.
      const fifth = yield* connect(venue, Push.paths.public)
      assert.isUndefined(fifth.state.closed)
      const sixth = yield* connect(venue, Push.paths.public)
      assert.deepStrictEqual(sixth.state.closed, { code: 1008, reason: "connection attempts exceeded" })
    }))

  it.effect("connection attempts: refused handshakes count too; one over the limit is closed 1008, unauthenticated", () =>
    Effect.gen(function*() {
      const venue = yield* venueWith({ limits: { connectionAttempts: { limit: 5, windowMillis: 60_000 } } })
      const now = () => String(venue.venue.now())
      // Four refused (a bad signature: 401; then a path the venue does not serve: 404), one opened: five attempts.
      for (let i = 0; i < 3; i++) {
        const refused = yield* connect(venue, Push.paths.private, signed(ALICE, now(), { [Push.headers.sign]: "AAAA" }))
        assert.isFalse(refused.state.opened)
      }
      assert.isFalse((yield* connect(venue, "/v2/ws/other")).state.opened)
      const fifth = yield* connect(venue, Push.paths.public)
      assert.isUndefined(fifth.state.closed)
      // The sixth is over the limit, public or private, whatever its credentials: closed at once, before its key is
      // checked (no failed authentication counted, nothing subscribed).
      const over = [
        yield* connect(venue, Push.paths.public),
        yield* connect(venue, Push.paths.private, signed(ALICE, now())),
        yield* connect(venue, Push.paths.private, signed(BOB, now(), { [Push.headers.sign]: "AAAA" }))
      ]
      for (const raw of over) {
        raw.send({ event: "subscribe", channel: "orders" })
        yield* settle
        assert.deepStrictEqual(raw.state.closed, { code: 1008, reason: "connection attempts exceeded" })
        assert.deepStrictEqual(raw.data(), [])
        assert.isFalse(raw.frames.some((frame) => frame.event === "subscribe"))
      }
      assert.deepStrictEqual(yield* venue.stats, { attempts: 8, refused: 4, opened: 4, open: 1 })
      // Once the window has passed them, attempts go through again.
      yield* TestClock.adjust(60_000)
      assert.isUndefined((yield* connect(venue, Push.paths.private, signed(ALICE, now()))).state.closed)
    }))

  it.effect("depth: a snapshot of each depth, then changes with consecutive versions; levels entering the top 15", () =>
    Effect.gen(function*() {
      const venue = yield* venueWith({ initialVersion: "9007199254740993" })
      const raw = yield* connect(venue, Push.paths.public)
      yield* subscribe(raw, "depth.BTCUSDT_SPBL.15")
      yield* subscribe(raw, "depth.BTCUSDT_SPBL.200")
      const [snap15, snap200] = raw.data().map((f) => (f.data as Array<Push.Depth>)[0]!)
      assert.strictEqual(snap15!.depthType, "SNAPSHOT")
      assert.strictEqual(snap15!.startVersion, "9007199254740993")
      assert.strictEqual(snap15!.bids.length, 15)
      assert.strictEqual(snap200!.bids.length, 20)
      assert.deepStrictEqual(snap15!.bids[0] as unknown, { price: "99.5", size: "1" })
      raw.frames.length = 0
      // The best bid leaves: on the 15-level channel the 16th level comes in.
      yield* venue.publish({ _tag: "Book", symbol: "BTCUSDT_SPBL", bids: [["99.5", "0"]], asks: [] })
      // A change below the top 15: only the 200-level channel hears of it.
      yield* venue.publish({ _tag: "Book", symbol: "BTCUSDT_SPBL", bids: [["70.5", "3"]], asks: [] })
      // Then one at the top: the 15-level channel's message covers both versions.
      yield* venue.publish({ _tag: "Book", symbol: "BTCUSDT_SPBL", bids: [], asks: [["100.5", "2"]] })
      yield* settle
      const messages = raw.data().map((f) => [f.channel, (f.data as Array<Push.Depth>)[0]!] as const)
      const changes = messages.map(([channel, d]) => [channel, d.depthType, d.startVersion, d.endVersion])
      assert.deepStrictEqual(changes, [
        ["depth.BTCUSDT_SPBL.15", "CHANGED", "9007199254740994", "9007199254740994"],
        ["depth.BTCUSDT_SPBL.200", "CHANGED", "9007199254740994", "9007199254740994"],
        ["depth.BTCUSDT_SPBL.200", "CHANGED", "9007199254740995", "9007199254740995"],
        ["depth.BTCUSDT_SPBL.15", "CHANGED", "9007199254740995", "9007199254740996"],
        ["depth.BTCUSDT_SPBL.200", "CHANGED", "9007199254740996", "9007199254740996"]
      ])
      assert.deepStrictEqual(messages[0]![1].bids as unknown, [{ price: "84.5", size: "1" }, {
        price: "99.5",
        size: "0"
      }])
      assert.deepStrictEqual(messages[1]![1].bids as unknown, [{ price: "99.5", size: "0" }])
    }))

  for (const continuity of ["next", "previousEnd"] as const) {
    it.effect(`depth (${continuity}): another connection subscribing gets its snapshot; no one's versions jump`, () =>
      Effect.gen(function*() {
        const venue = yield* venueWith({ initialVersion: "100", continuity })
        const channel = "depth.BTCUSDT_SPBL.15"
        const versions = (raw: Raw) =>
          raw.data().map((f) => {
            const d = (f.data as Array<Push.Depth>)[0]!
            return `${d.depthType} ${d.startVersion}-${d.endVersion}`
          })
        const first = yield* connect(venue, Push.paths.public)
        yield* subscribe(first, channel)
        // 101 at the top, 102 below the top 15 (nothing for this channel), then a second subscriber at 102.
        yield* venue.publish({ _tag: "Book", symbol: "BTCUSDT_SPBL", bids: [["99.5", "2"]], asks: [] })
        yield* venue.publish({ _tag: "Book", symbol: "BTCUSDT_SPBL", bids: [["70.5", "3"]], asks: [] })
        const second = yield* connect(venue, Push.paths.public)
        yield* subscribe(second, channel)
        // 103 below the top 15 again, a third subscriber at 103, then 104 at the top for all three.
        yield* venue.publish({ _tag: "Book", symbol: "BTCUSDT_SPBL", bids: [["71.5", "3"]], asks: [] })
        const third = yield* connect(venue, Push.paths.public)
        yield* subscribe(third, channel)
        yield* venue.publish({ _tag: "Book", symbol: "BTCUSDT_SPBL", bids: [], asks: [["100.5", "2"]] })
        yield* venue.publish({ _tag: "Book", symbol: "BTCUSDT_SPBL", bids: [], asks: [["100.5", "3"]] })
        yield* settle
        // One frame for everyone: it continues the first subscriber's chain and covers the later ones' snapshots.
        const [from, after] = continuity === "next" ? ["102", "105"] : ["101", "104"]
        assert.deepStrictEqual(versions(first), [
          "SNAPSHOT 100-100",
          `CHANGED ${continuity === "next" ? "101" : "100"}-101`,
          `CHANGED ${from}-104`,
          `CHANGED ${after}-105`
        ])
        assert.deepStrictEqual(versions(second), ["SNAPSHOT 102-102", `CHANGED ${from}-104`, `CHANGED ${after}-105`])
        assert.deepStrictEqual(versions(third), ["SNAPSHOT 103-103", `CHANGED ${from}-104`, `CHANGED ${after}-105`])
      }))
  }

  it.effect("private frames go to their user's subscribed connections only, in the trade-event envelope", () =>
    Effect.gen(function*() {
      const venue = yield* venueWith()
      const alice = yield* connect(venue, Push.paths.private, signed(ALICE, "0"))
      const bob = yield* connect(venue, Push.paths.private, signed(BOB, "0"))
      for (const raw of [alice, bob]) {
        for (const channel of ["orders", "fill", "account"]) yield* subscribe(raw, channel)
      }
      const fill = {
        fillId: "7001000000000000001",
        tradeId: "1",
        orderId: "6001000000000000001",
        userId: ALICE.userId,
        accountId: "1",
        symbol: "BTCUSDT_SPBL",
        baseCoin: "BTC",
        quoteCoin: "USDT",
        orderType: "market",
        side: "buy",
        role: "taker",
        fillPrice: "30005.00",
        fillQuantity: "0.050000",
        fillTotalAmount: "1500.25",
        fees: "0.00005",
        feeCoin: "BTC",
        cTime: "5"
      } as const
      yield* venue.publish({ _tag: "Fill", userId: ALICE.userId, fill, time: 5 })
      yield* venue.publish({
        _tag: "Balance",
        userId: ALICE.userId,
        balances: [{ coinId: 1, coinName: "BTC", available: "10.05", frozen: "0", equity: "10.05" }],
        time: 5
      })
      yield* settle
      assert.strictEqual(bob.frames.filter((f) => f.type === "trade-event").length, 0)
      const events = alice.frames.filter((f) => f.type === "trade-event")
      assert.deepStrictEqual(events.map((f) => f.channel), ["fill", "account"])
      const decoded = Push.decodeFrame(JSON.stringify(events[0]))
      assert.strictEqual(decoded?._tag, "TradeEvent")
      if (decoded?._tag !== "TradeEvent") return
      const [item] = Push.privateItems("fill", decoded.data) as Array<{ id: string; orderSide: string }>
      assert.strictEqual(item!.id, fill.fillId)
      assert.strictEqual(item!.orderSide, "BUY")
      assert.strictEqual(decoded.version, "1")
      assert.strictEqual(Push.decodeFrame(JSON.stringify(events[1]))?._tag === "TradeEvent", true)
    }))

  it.effect("faults that count data frames: disconnect (1006), close (1000), stall (silence), dup", () =>
    Effect.gen(function*() {
      const venue = yield* venueWith()
      const run = (faults: PushVenue.Faults) =>
        Effect.gen(function*() {
          yield* venue.setFaults(faults)
          const raw = yield* connect(venue, Push.paths.public)
          yield* subscribe(raw, "trades.BTCUSDT_SPBL")
          for (let i = 0; i < 4; i++) {
            yield* venue.publish({
              _tag: "Trade",
              symbol: "BTCUSDT_SPBL",
              time: i,
              price: "1",
              size: "1",
              value: "1",
              buyerMaker: false
            })
          }
          yield* TestClock.adjust(20_000)
          yield* settle
          return {
            data: raw.data().length,
            closed: raw.state.closed,
            pings: raw.frames.filter((f) => f.event === "ping")
          }
        })
      const disconnect = yield* run({ disconnect: 2 })
      assert.strictEqual(disconnect.data, 2)
      assert.strictEqual(disconnect.closed?.code, 1006)
      const close = yield* run({ close: 3 })
      assert.strictEqual(close.data, 3)
      assert.strictEqual(close.closed?.code, 1000)
      const stall = yield* run({ stall: 1 })
      assert.strictEqual(stall.data, 1)
      assert.isUndefined(stall.closed)
      assert.strictEqual(stall.pings.length, 0)
      const dup = yield* run({ dup: 2 })
      assert.strictEqual(dup.data, 6)
      assert.strictEqual(dup.pings.length, 1)
    }))

  it.effect("faults: gap loses one depth change in N; noAck; storm drops every connection at once", () =>
    Effect.gen(function*() {
      const venue = yield* venueWith({ faults: { gap: 2 } })
      const raw = yield* connect(venue, Push.paths.public)
      yield* subscribe(raw, "depth.BTCUSDT_SPBL.200")
      for (let i = 0; i < 4; i++) {
        yield* venue.publish({ _tag: "Book", symbol: "BTCUSDT_SPBL", bids: [[`5${i}.5`, "1"]], asks: [] })
      }
      yield* settle
      const versions = raw.data().slice(1).map((f) => (f.data as Array<Push.Depth>)[0]!.startVersion)
      assert.deepStrictEqual(versions, ["3644174247", "3644174249"])
      yield* venue.setFaults({ noAck: true })
      const quiet = yield* connect(venue, Push.paths.public)
      yield* subscribe(quiet, "trades.BTCUSDT_SPBL")
      assert.deepStrictEqual(quiet.frames, [])
      yield* venue.setFaults({ storm: true })
      const storm = yield* connect(venue, Push.paths.public)
      assert.isTrue(storm.state.opened)
      assert.strictEqual(storm.state.closed?.code, 1006)
    }))

  it("parseFaults: counts and flags, or what is wrong", () => {
    assert.deepStrictEqual(PushVenue.parseFaults("disconnect=5, gap=3,noAck"), { disconnect: 5, gap: 3, noAck: true })
    assert.deepStrictEqual(PushVenue.parseFaults("noSnapshot,snapshotFirst"), { noSnapshot: true, snapshotFirst: true })
    assert.deepStrictEqual(PushVenue.parseFaults(""), {})
    assert.include(PushVenue.parseFaults("disconnect") as string, "positive integer")
    assert.include(PushVenue.parseFaults("stall=0") as string, "positive integer")
    assert.include(PushVenue.parseFaults("storm=1") as string, "takes no value")
    assert.include(PushVenue.parseFaults("drop=1") as string, "unknown push fault")
  })
})
