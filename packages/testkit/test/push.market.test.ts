/**
 * `watchTrades` and `watchCandles` across reconnections, in process under the `TestClock`. The venue's REST side of
 * market data is played here by the client's `recentTrades` and `candles` answering from what the test published
 * (the test exchange does not serve those endpoints yet): trades made while disconnected come from REST, trades
 * already delivered are not delivered again (pushes carry no id: matched by time, price, size and side, as
 * multisets), a push that REST also answered during the backfill counts once; bars are delivered when they change,
 * and the bars of the outage come from REST. A trade stream's start is read on the venue's clock, which the machine's
 * may be a minute off: there the exchange answers REST on a clock of its own.
 */
import { assert, describe, it } from "@effect/vitest"
import { SpotClient, SpotError } from "@spotkit/core"
import type { Market, Push, PushError } from "@spotkit/core"
import { Deferred, Effect, Fiber, Layer, Stream } from "effect"
import { HttpClient } from "effect/http"
import { TestClock } from "effect/testing"
import { PushVenue, TestExchange } from "../src/index.ts"
import * as InProcess from "../src/internal/inProcess.ts"
import { advance, collect, settle, setup, SpotPush } from "./support/push.ts"

const SYMBOL = "BTCUSDT_SPBL"

interface Published {
  readonly trades: Array<Market.Trade>
  readonly bars: Map<number, Market.Candle>
  /** Run inside the next REST answer, as if it happened while REST answered. */
  duringRest: Effect.Effect<void> | undefined
}

const published: () => Published = () => ({ trades: [], bars: new Map(), duringRest: undefined })

// The client, its market-data answers taken from what the test published.
const withMarket = (state: Published) =>
  Layer.effect(
    SpotClient.SpotClient,
    Effect.map(SpotClient.SpotClient, (client): SpotClient.Service => ({
      ...client,
      recentTrades: (_symbol, options) =>
        Effect.gen(function*() {
          const during = state.duringRest
          state.duringRest = undefined
          if (during !== undefined) yield* during
          return state.trades.slice(-(options?.limit ?? 100)).reverse()
        }),
      candles: (_symbol, _period, options) =>
        Effect.sync(() => {
          const bars = [...state.bars.values()].sort((a, b) => a.openTime - b.openTime)
          const from = options?.startTime
          return from === undefined ? bars.slice(-(options?.limit ?? 1)) : bars.filter((b) => b.openTime >= from)
        })
    }))
  )

const layerWith = (state: Published, push?: Partial<SpotPush.Options>) => {
  const base = setup()
  return PushVenue.layerSpotPush(push).pipe(
    Layer.provide(withMarket(state).pipe(Layer.provide(base))),
    Layer.provideMerge(base)
  )
}

let sequence = 0

const trade = (state: Published, time: number, price: string, size = "0.1", buyerMaker = false) =>
  Effect.gen(function*() {
    const venue = yield* PushVenue.PushVenue
    const value = "1"
    state.trades.push({
      symbol: SYMBOL,
      tradeId: `t-${++sequence}`,
      time,
      price,
      size,
      value,
      buyerMaker,
      side: buyerMaker ? "sell" : "buy"
    } as Market.Trade)
    yield* venue.publish({ _tag: "Trade", symbol: SYMBOL, time, price, size, value, buyerMaker })
  })

/** The bar at open time 0 as REST first answers it: flat at 100, one unit traded. */
const FIRST_BAR: Market.Candle = {
  openTime: 0,
  open: "100",
  high: "100",
  low: "100",
  close: "100",
  baseVolume: "1",
  quoteVolume: "100"
} as Market.Candle

const bar = (state: Published, openTime: number, close: string) =>
  Effect.gen(function*() {
    const venue = yield* PushVenue.PushVenue
    const candle = {
      openTime,
      open: "100",
      high: close,
      low: "100",
      close,
      baseVolume: "1",
      quoteVolume: "100"
    } as Market.Candle
    state.bars.set(openTime, candle)
    yield* venue.publish({
      _tag: "Kline",
      symbol: SYMBOL,
      interval: "MINUTE_1",
      bar: { klineTime: openTime, open: "100", high: close, low: "100", close, size: "1", value: "100" }
    })
  })

// Down for a while: every connection dropped as it opens, then up again.
const outage = <R>(during: Effect.Effect<void, never, R>) =>
  Effect.gen(function*() {
    const venue = yield* PushVenue.PushVenue
    yield* venue.setFaults({ storm: true })
    yield* venue.dropAll
    yield* settle
    yield* during
    yield* venue.setFaults({})
    yield* advance(40_000)
  })

describe("SpotPush.watchTrades", () => {
  const state = published()
  it.effect("trades of the outage come from REST; none delivered twice; identical trades counted as a multiset", () =>
    Effect.gen(function*() {
      const push = yield* SpotPush.SpotPush
      const trades = yield* collect(push.watchTrades(SYMBOL))
      yield* settle
      yield* trade(state, 1_000, "30000.5")
      yield* trade(state, 1_001, "30001.5")
      yield* settle
      yield* outage(Effect.gen(function*() {
        yield* trade(state, 1_002, "30002.5")
        // Two trades alike in all four fields: two trades.
        yield* trade(state, 1_003, "30003.5")
        yield* trade(state, 1_003, "30003.5")
      }))
      yield* trade(state, 50_000, "30004.5")
      yield* settle
      assert.deepStrictEqual(trades.items.map((t) => [t.time, t.price, t.source]), [
        [1_000, "30000.5", "push"],
        [1_001, "30001.5", "push"],
        [1_002, "30002.5", "rest"],
        [1_003, "30003.5", "rest"],
        [1_003, "30003.5", "rest"],
        [50_000, "30004.5", "push"]
      ])
      assert.strictEqual(trades.items[2]?.tradeId, "t-3")
      assert.strictEqual(trades.items[0]?.side, "buy")
    }).pipe(Effect.provide(layerWith(state))))

  const racing = published()
  it.effect("a trade pushed while REST answered, and in REST's answer too, is delivered once", () =>
    Effect.gen(function*() {
      const push = yield* SpotPush.SpotPush
      const trades = yield* collect(push.watchTrades(SYMBOL))
      yield* settle
      yield* trade(racing, 1_000, "30000.5")
      yield* settle
      racing.duringRest = trade(racing, 2_000, "30010.5", "0.2", true).pipe(
        Effect.provideService(PushVenue.PushVenue, yield* PushVenue.PushVenue)
      )
      yield* outage(Effect.void)
      yield* settle
      assert.deepStrictEqual(trades.items.map((t) => [t.time, t.price, t.side]), [
        [1_000, "30000.5", "buy"],
        [2_000, "30010.5", "sell"]
      ])
    }).pipe(Effect.provide(layerWith(racing))))

  const padded = published()
  it.effect("a trade REST writes with other trailing zeros than its push is the same trade: delivered once", () =>
    Effect.gen(function*() {
      const push = yield* SpotPush.SpotPush
      const venue = yield* PushVenue.PushVenue
      const trades = yield* collect(push.watchTrades(SYMBOL))
      yield* settle
      // The venue's own samples: push sizes to 5 decimals, REST amounts to 8.
      yield* trade(padded, 1_000, "103337.5", "0.01600")
      yield* trade(padded, 1_001, "103337.6", "0.02000")
      yield* settle
      for (const t of padded.trades) Object.assign(t, { price: `${t.price}0`, size: `${t.size}000` })
      yield* venue.dropAll
      yield* advance(5_000)
      assert.deepStrictEqual(trades.items.map((t) => [t.time, t.price, t.size, t.source]), [
        [1_000, "103337.5", "0.01600", "push"],
        [1_001, "103337.6", "0.02000", "push"]
      ])
    }).pipe(Effect.provide(layerWith(padded))))

  const spanning = published()
  it.effect("pushes kept while REST answered, in its answer too, more than the overlap older than its newest: once", () =>
    Effect.gen(function*() {
      const push = yield* SpotPush.SpotPush
      const venue = yield* PushVenue.PushVenue
      const trades = yield* collect(push.watchTrades(SYMBOL))
      yield* settle
      yield* trade(spanning, 1_000, "30000.5")
      yield* settle
      // Pushed (and kept) while REST answers, and in its answer: the newest 6 s after the older, past the 5 s overlap.
      spanning.duringRest = Effect.andThen(trade(spanning, 10_000, "30010.5"), trade(spanning, 16_000, "30016.5")).pipe(
        Effect.provideService(PushVenue.PushVenue, venue)
      )
      yield* venue.dropAll
      yield* advance(5_000)
      yield* trade(spanning, 17_000, "30017.5")
      yield* settle
      assert.deepStrictEqual(trades.items.map((t) => [t.time, t.source]), [
        [1_000, "push"],
        [10_000, "rest"],
        [16_000, "rest"],
        [17_000, "push"]
      ])
    }).pipe(Effect.provide(layerWith(spanning))))

  const late = published()
  it.effect("trades made after the stream started, before its first subscription was acknowledged, come from REST", () =>
    Effect.gen(function*() {
      const push = yield* SpotPush.SpotPush
      const venue = yield* PushVenue.PushVenue
      // The venue unreachable when the stream starts: dialled again and again while trades happen.
      yield* venue.setFaults({ storm: true })
      yield* trade(late, -1, "29999.5")
      const trades = yield* collect(push.watchTrades(SYMBOL))
      yield* advance(3_000)
      const now = yield* Effect.clockWith((clock) => clock.currentTimeMillis)
      yield* trade(late, now, "30000.5")
      yield* trade(late, now + 1, "30001.5")
      yield* venue.setFaults({})
      yield* advance(40_000)
      yield* trade(late, now + 45_000, "30002.5")
      yield* settle
      // The trade before the stream's start is not the stream's.
      assert.deepStrictEqual(trades.items.map((t) => [t.time - now, t.price, t.source]), [
        [0, "30000.5", "rest"],
        [1, "30001.5", "rest"],
        [45_000, "30002.5", "push"]
      ])
    }).pipe(Effect.provide(layerWith(late))))
})

describe("SpotPush.watchTrades: a backfill slower than the pushes", () => {
  const slow = published()
  it.effect("more pushes than backfillBuffer while REST answers: the channel alone is subscribed again, REST asked again", () =>
    Effect.gen(function*() {
      const push = yield* SpotPush.SpotPush
      const venue = yield* PushVenue.PushVenue
      const events = yield* collect(push.events)
      // A ticker on the same connection: the overflow of the trades must not take it down.
      const ticker = yield* collect(push.watchTicker(SYMBOL))
      const trades = yield* collect(push.watchTrades(SYMBOL))
      yield* settle
      yield* trade(slow, 1_000, "30000.5")
      yield* settle
      // After the outage, REST does not answer; the market goes on meanwhile.
      slow.duringRest = Effect.never
      yield* outage(Effect.void)
      const before = { events: events.items.length, opened: (yield* venue.stats).opened }
      for (let i = 0; i < 4; i++) yield* trade(slow, 2_000 + i, `3001${i}.5`)
      yield* settle
      yield* advance(10_000)
      // No connection ended: the trades channel was unsubscribed and subscribed again on the same one.
      assert.isFalse(events.items.slice(before.events).some((e) => e._tag === "Disconnected"))
      const stats = yield* venue.stats
      assert.strictEqual(stats.opened, before.opened)
      assert.strictEqual(stats.open, 1)
      assert.isUndefined(ticker.fiber.pollUnsafe())
      assert.deepStrictEqual(trades.items.map((t) => [t.time, t.source]), [
        [1_000, "push"],
        [2_000, "rest"],
        [2_001, "rest"],
        [2_002, "rest"],
        [2_003, "rest"]
      ])
    }).pipe(Effect.provide(layerWith(slow, { backfillBuffer: 3 }))))
})

describe("SpotPush.watchTrades: more trades in a gap than one REST answer holds", () => {
  const busy = published()
  it.effect("a Gap on events names the span whose trades may be missing; none when REST's answer reaches back", () =>
    Effect.gen(function*() {
      const push = yield* SpotPush.SpotPush
      const events = yield* collect(push.events)
      const trades = yield* collect(push.watchTrades(SYMBOL, { backfillLimit: 3 }))
      yield* settle
      yield* trade(busy, 1_000, "30000.5")
      yield* settle
      // Two trades: REST's answer of three holds them and the one delivered before: it reaches back.
      yield* outage(Effect.gen(function*() {
        for (let i = 1; i <= 2; i++) yield* trade(busy, 1_000 + i, `3000${i}.5`)
      }))
      yield* settle
      const gaps = () => events.items.filter((e) => e._tag === "Gap")
      assert.deepStrictEqual(gaps(), [])
      // Five: REST's answer holds the latest three, the two before them are missed, and said to be.
      yield* outage(Effect.gen(function*() {
        for (let i = 1; i <= 5; i++) yield* trade(busy, 2_000 + i, `3100${i}.5`)
      }))
      yield* settle
      assert.deepStrictEqual(gaps(), [{ _tag: "Gap", channel: `trades.${SYMBOL}`, from: 1_002, to: 2_003 }])
      assert.deepStrictEqual(trades.items.map((t) => t.time), [1_000, 1_001, 1_002, 2_003, 2_004, 2_005])
    }).pipe(Effect.provide(layerWith(busy))))

  const tied = published()
  it.effect("an answer reaching back only into the latest delivered millisecond: a Gap when it cut a new trade there", () =>
    Effect.gen(function*() {
      const push = yield* SpotPush.SpotPush
      const events = yield* collect(push.events)
      const trades = yield* collect(push.watchTrades(SYMBOL, { backfillLimit: 3 }))
      yield* settle
      yield* trade(tied, 1_000, "30000.5")
      yield* trade(tied, 1_000, "30000.6")
      yield* settle
      const gaps = () => events.items.filter((e) => e._tag === "Gap")
      // REST's answer of three is the second trade of 1,000 (delivered) and the two of the outage: nothing cut.
      yield* outage(Effect.gen(function*() {
        yield* trade(tied, 1_001, "30001.5")
        yield* trade(tied, 1_002, "30002.5")
      }))
      yield* settle
      assert.deepStrictEqual(gaps(), [])
      // Three more trades in the latest millisecond delivered (a sweep) and one after: the answer holds the last two
      // of them and cut the first, which no push delivered either.
      yield* outage(Effect.gen(function*() {
        for (const price of ["30003.1", "30003.2", "30003.3"]) yield* trade(tied, 1_002, price)
        yield* trade(tied, 1_003, "30004.5")
      }))
      yield* settle
      assert.deepStrictEqual(gaps(), [{ _tag: "Gap", channel: `trades.${SYMBOL}`, from: 1_002, to: 1_002 }])
      assert.deepStrictEqual(trades.items.map((t) => [t.time, t.price]), [
        [1_000, "30000.5"],
        [1_000, "30000.6"],
        [1_001, "30001.5"],
        [1_002, "30002.5"],
        [1_002, "30003.2"],
        [1_002, "30003.3"],
        [1_003, "30004.5"]
      ])
    }).pipe(Effect.provide(layerWith(tied))))

  const slow = published()
  it.effect("pushes overflowing backfillBuffer: REST asked again, and the trades it no longer reaches told as a Gap", () =>
    Effect.gen(function*() {
      const push = yield* SpotPush.SpotPush
      const events = yield* collect(push.events)
      const trades = yield* collect(push.watchTrades(SYMBOL, { backfillLimit: 3 }))
      yield* settle
      yield* trade(slow, 1_000, "30000.5")
      yield* settle
      // After the outage REST does not answer at first, while six trades are pushed: the pushes kept overflow.
      slow.duringRest = Effect.never
      yield* outage(Effect.void)
      for (let i = 1; i <= 6; i++) yield* trade(slow, 2_000 + i, `3000${i}.5`)
      yield* settle
      yield* advance(10_000)
      assert.deepStrictEqual(trades.items.map((t) => t.time), [1_000, 2_004, 2_005, 2_006])
      assert.deepStrictEqual(events.items.filter((e) => e._tag === "Gap"), [
        { _tag: "Gap", channel: `trades.${SYMBOL}`, from: 1_000, to: 2_004 }
      ])
    }).pipe(Effect.provide(layerWith(slow, { backfillBuffer: 3 }))))
})

describe("SpotPush.watchCandles", () => {
  const state = published()
  it.effect("the current bar first, then changes; the bars of an outage from REST; an unchanged bar not again", () =>
    Effect.gen(function*() {
      // The bars' open times in the past: REST is read back up to now.
      yield* TestClock.setTime(10 * 60_000)
      const push = yield* SpotPush.SpotPush
      state.bars.set(0, FIRST_BAR)
      const candles = yield* collect(push.watchCandles(SYMBOL, "1m"))
      yield* settle
      yield* bar(state, 0, "101")
      yield* bar(state, 0, "101")
      yield* bar(state, 0, "102")
      yield* settle
      yield* outage(Effect.gen(function*() {
        yield* bar(state, 0, "103")
        yield* bar(state, 60_000, "104")
      }))
      yield* bar(state, 60_000, "105")
      yield* settle
      assert.deepStrictEqual(candles.items.map((c) => [c.openTime, c.close, c.source]), [
        [0, "100", "rest"],
        [0, "101", "push"],
        [0, "102", "push"],
        [0, "103", "rest"],
        [60_000, "104", "rest"],
        [60_000, "105", "push"]
      ])
      assert.strictEqual(candles.items[0]?.period, "1m")
    }).pipe(Effect.provide(layerWith(state))))

  const padded = published()
  it.effect("a bar REST writes with other trailing zeros than its push is unchanged: not delivered again", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(10 * 60_000)
      const push = yield* SpotPush.SpotPush
      padded.bars.set(0, FIRST_BAR)
      const candles = yield* collect(push.watchCandles(SYMBOL, "1m"))
      yield* settle
      yield* bar(padded, 0, "101")
      yield* settle
      // REST has the bar pushed, its decimals padded as the venue's REST pads them.
      padded.bars.set(0, {
        openTime: 0,
        open: "100.0",
        high: "101.00",
        low: "100.000",
        close: "101.0",
        baseVolume: "1.00000000",
        quoteVolume: "100.0"
      } as Market.Candle)
      yield* outage(Effect.void)
      assert.deepStrictEqual(candles.items.map((c) => [c.openTime, c.close, c.source]), [
        [0, "100", "rest"],
        [0, "101", "push"]
      ])
    }).pipe(Effect.provide(layerWith(padded))))
})

describe("SpotPush.watchCandles: a bar pushed ahead of the venue's clock", () => {
  const state = published()
  it.effect("is delivered, and the bars of a later outage still come from REST", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(10 * 60_000)
      const push = yield* SpotPush.SpotPush
      const venue = yield* PushVenue.PushVenue
      state.bars.set(600_000, { ...FIRST_BAR, openTime: 600_000 } as Market.Candle)
      const candles = yield* collect(push.watchCandles(SYMBOL, "1m"))
      yield* settle
      // A bar opening an hour ahead (a push node whose clock is off): REST never has it.
      yield* venue.publish({
        _tag: "Kline",
        symbol: SYMBOL,
        interval: "MINUTE_1",
        bar: { klineTime: 4_200_000, open: "100", high: "100", low: "100", close: "100", size: "1", value: "100" }
      })
      yield* settle
      // Two minutes down, in which two bars open.
      yield* outage(Effect.gen(function*() {
        yield* TestClock.adjust("2 minutes")
        yield* bar(state, 660_000, "104")
        yield* bar(state, 720_000, "105")
      }))
      assert.deepStrictEqual(candles.items.map((c) => [c.openTime, c.close, c.source]), [
        [600_000, "100", "rest"],
        [4_200_000, "100", "push"],
        [660_000, "104", "rest"],
        [720_000, "105", "rest"]
      ])
    }).pipe(Effect.provide(layerWith(state))))
})

describe("SpotPush.watchCandles: the last consumer leaving during the backfill", () => {
  // REST answers the candles when the test opens the gate, with a failure a reconnection may mend.
  const rest = { gate: Deferred.makeUnsafe<void>(), started: 0, interrupted: 0 }
  const failing = new SpotError.SpotError({
    operation: "SpotClient.candles",
    reason: new SpotError.TransportError({ description: "connection reset" })
  })
  const base = setup()
  const layer = PushVenue.layerSpotPush().pipe(
    Layer.provide(
      Layer.effect(
        SpotClient.SpotClient,
        Effect.map(SpotClient.SpotClient, (client): SpotClient.Service => ({
          ...client,
          candles: () =>
            Effect.andThen(
              Effect.sync(() => rest.started++),
              Effect.andThen(Deferred.await(rest.gate), Effect.fail(failing))
            ).pipe(Effect.onInterrupt(() => Effect.sync(() => rest.interrupted++)))
        }))
      ).pipe(Layer.provide(base))
    ),
    Layer.provideMerge(base)
  )

  it.effect("the backfill is interrupted, though the connection goes on for another channel", () =>
    Effect.gen(function*() {
      const push = yield* SpotPush.SpotPush
      const venue = yield* PushVenue.PushVenue
      const events = yield* collect(push.events)
      const ticker = yield* collect(push.watchTicker(SYMBOL))
      const bars = yield* collect(push.watchCandles(SYMBOL, "1m"))
      yield* settle
      assert.strictEqual(rest.started, 1)
      yield* bars.stop
      yield* settle
      assert.strictEqual(rest.interrupted, 1)
      // Had it gone on, its failure would have replaced the connection the ticker is on.
      yield* Deferred.succeed(rest.gate, undefined)
      yield* advance(5_000)
      assert.isFalse(events.items.some((e) => e._tag === "Disconnected"))
      assert.strictEqual((yield* venue.stats).opened, 1)
      assert.isUndefined(ticker.fiber.pollUnsafe())
    }).pipe(Effect.provide(layer)))
})

describe("SpotPush.watchTrades: the stream's start on the venue's clock", () => {
  // The machine's clock when the stream starts: a millisecond epoch, as the client learns only plausible ones.
  const NOW = 1_767_225_600_000
  const MINUTE = 60_000

  // The clock set before the layers start their timers (moving it later would run every tick in between).
  const atNow = <A, E, R>(test: Effect.Effect<A, E, R>) => Effect.andThen(TestClock.setTime(NOW), test)

  // The exchange answering REST on a clock `skewMillis` ahead of the machine's (behind when negative); the trades the
  // test publishes carry the venue's times. `serverTime` is the client's only REST request that reaches the exchange
  // (the market data come from `state`), so the client knows the venue's clock only by asking it.
  const skewed = (
    state: Published,
    skewMillis: number,
    options: {
      readonly unansweredTimes?: number
      /** An unanswered ask of the venue's time hangs (the client gives it up after 2 s) rather than fails at once. */
      readonly hang?: boolean
      /** Counts the asks of the venue's time that reach the exchange. */
      readonly asks?: { time: number }
    } = {}
  ) => {
    let unanswered = options.unansweredTimes ?? 0
    const exchange = TestExchange.layer({ ...TestExchange.demo({ bills: 0 }), rateLimits: false })
    const client = Layer.unwrap(Effect.map(TestExchange.TestExchange, (ex) =>
      SpotClient.layer({
        baseUrl: TestExchange.inProcessBaseUrl,
        credentials: ex.accounts[0]!.credentials,
        rateLimit: false,
        retry: false
      }).pipe(Layer.provide(Layer.succeed(
        HttpClient.HttpClient,
        InProcess.make((request, now) => {
          const time = request.path.startsWith("/api/v2/public/time")
          if (time && options.asks !== undefined) options.asks.time++
          return time && unanswered-- > 0
            ? options.hang === true ? { _tag: "Hang" } : { _tag: "Drop", delayMillis: 0 }
            : ex.handleAt(request, now + skewMillis)
        })
      )))))
    const base = PushVenue.layer().pipe(Layer.provideMerge(client), Layer.provideMerge(exchange))
    return PushVenue.layerSpotPush().pipe(
      Layer.provide(withMarket(state).pipe(Layer.provide(base))),
      Layer.provideMerge(base)
    )
  }

  // The stream started at NOW on the machine's clock; the venue's clock then reads NOW + skew.
  const started = (skewMillis: number) =>
    Effect.gen(function*() {
      const push = yield* SpotPush.SpotPush
      const trades = yield* collect(push.watchTrades(SYMBOL))
      yield* settle
      return { trades, venueStart: NOW + skewMillis }
    })

  const ahead = published()
  it.effect("the machine a minute ahead of the venue: the trades of an outage before any push are delivered", () =>
    Effect.gen(function*() {
      const { trades, venueStart } = yield* started(-MINUTE)
      // Before the start: REST still answers it, the stream does not owe it.
      ahead.trades.push({ ...restTrade(venueStart - 1_000, "29999.5") })
      yield* outage(Effect.gen(function*() {
        yield* trade(ahead, venueStart + 1_000, "30000.5")
        yield* trade(ahead, venueStart + 2_000, "30001.5")
      }))
      yield* trade(ahead, venueStart + 50_000, "30002.5")
      yield* settle
      // On the machine's clock the start would lie a minute after these trades: all three would be missed.
      assert.deepStrictEqual(trades.items.map((t) => [t.time - venueStart, t.source]), [
        [1_000, "rest"],
        [2_000, "rest"],
        [50_000, "push"]
      ])
    }).pipe(Effect.provide(skewed(ahead, -MINUTE)), atNow))

  const behind = published()
  it.effect("the machine a minute behind the venue: no trade from before the start is delivered", () =>
    Effect.gen(function*() {
      const { trades, venueStart } = yield* started(MINUTE)
      behind.trades.push(restTrade(venueStart - 30_000, "29998.5"), restTrade(venueStart - 1_000, "29999.5"))
      yield* outage(trade(behind, venueStart + 1_000, "30000.5"))
      yield* settle
      // On the machine's clock the start would lie a minute before it: the two older trades would come too.
      assert.deepStrictEqual(trades.items.map((t) => [t.time - venueStart, t.source]), [[1_000, "rest"]])
    }).pipe(Effect.provide(skewed(behind, MINUTE)), atNow))

  const unasked = published()
  it.effect("the venue's time not answered when the stream starts: asked again before the start is needed", () =>
    Effect.gen(function*() {
      const { trades, venueStart } = yield* started(-MINUTE)
      unasked.trades.push(restTrade(venueStart - 1_000, "29999.5"))
      yield* outage(trade(unasked, venueStart + 1_000, "30000.5"))
      yield* settle
      // On the machine's clock the start would lie a minute after the trade of the outage.
      assert.deepStrictEqual(trades.items.map((t) => [t.time - venueStart, t.source]), [[1_000, "rest"]])
    }).pipe(Effect.provide(skewed(unasked, -MINUTE, { unansweredTimes: 1 })), atNow))

  const together = published()
  const asks = { time: 0 }
  it.effect("streams started while the venue's time is being asked wait for that one ask, not each their own", () =>
    Effect.gen(function*() {
      const push = yield* SpotPush.SpotPush
      // The ask hangs until the client gives it up: the second stream starts while it is under way.
      yield* collect(push.watchTrades(SYMBOL))
      yield* collect(push.watchTrades("ETHUSDT_SPBL"))
      yield* settle
      assert.strictEqual(asks.time, 1)
      // Failed: the first backfills, which need the start at once, ask again, together.
      yield* advance(6_000)
      assert.strictEqual(asks.time, 2)
      // Failed again: a stream started later asks again.
      yield* collect(push.watchTrades(SYMBOL, { backfillLimit: 50 }))
      yield* advance(3_000)
      assert.strictEqual(asks.time, 3)
    }).pipe(
      Effect.provide(skewed(together, -MINUTE, { unansweredTimes: 2, hang: true, asks })),
      atNow
    ))

  const overlap = published()
  it.effect("a reconnection: REST's trades and the pushes around it overlap, none missed and none repeated", () =>
    Effect.gen(function*() {
      const venue = yield* PushVenue.PushVenue
      const { trades, venueStart: t } = yield* started(-MINUTE)
      yield* trade(overlap, t + 1_000, "30000.5")
      yield* trade(overlap, t + 1_001, "30001.5")
      yield* settle
      const late = restTrade(t + 1_004, "30004.5")
      // While REST answers: a trade pushed (kept, and in REST's answer too), and one REST answers whose push comes
      // only after the backfill.
      overlap.duringRest = Effect.andThen(
        trade(overlap, t + 1_003, "30003.5").pipe(Effect.provideService(PushVenue.PushVenue, venue)),
        Effect.sync(() => overlap.trades.push(late))
      )
      yield* outage(Effect.gen(function*() {
        // In the millisecond of the latest trade delivered, and alike in all four: another trade.
        yield* trade(overlap, t + 1_001, "30001.5")
        yield* trade(overlap, t + 1_002, "30002.5")
      }))
      yield* venue.publish({ ...late, _tag: "Trade" })
      yield* trade(overlap, t + 1_005, "30005.5")
      yield* settle
      assert.deepStrictEqual(trades.items.map((item) => [item.time - t, item.source]), [
        [1_000, "push"],
        [1_001, "push"],
        [1_001, "rest"],
        [1_002, "rest"],
        [1_003, "rest"],
        [1_004, "rest"],
        [1_005, "push"]
      ])
    }).pipe(Effect.provide(skewed(overlap, -MINUTE)), atNow))
})

// A trade REST answers that was never pushed (made before the stream started).
const restTrade = (time: number, price: string): Market.Trade =>
  ({
    symbol: SYMBOL,
    tradeId: `t-${++sequence}`,
    time,
    price,
    size: "0.1",
    value: "1",
    buyerMaker: false,
    side: "buy"
  }) as Market.Trade

// A bar still forming only gains volume (the rule REST's candles keep, Market.Candles): REST may answer a copy older
// than the pushes already delivered (a cache), and the backfill after a reconnection delivered it as the bar's state,
// the volume going back, and kept it over the pushes buffered meanwhile.
// A 1m bar pushed by the venue, not in REST's answers.
const pushOnly = (openTime: number, close: string, size: string) =>
  Effect.flatMap(PushVenue.PushVenue, (venue) =>
    venue.publish({
      _tag: "Kline",
      symbol: SYMBOL,
      interval: "MINUTE_1",
      bar: { klineTime: openTime, open: "100", high: close, low: "100", close, size, value: "100" }
    }))

describe("SpotPush.watchCandles: a backfill older than the pushes delivered", () => {
  const state = published()
  it.effect("a REST bar of less volume than the one delivered does not replace it", () =>
    Effect.gen(function*() {
      const push = yield* SpotPush.SpotPush
      state.bars.set(0, FIRST_BAR)
      const candles = yield* collect(push.watchCandles(SYMBOL, "1m"))
      yield* settle
      // Pushed, while REST keeps answering the first copy.
      yield* pushOnly(0, "102", "5")
      yield* settle
      yield* outage(Effect.void)
      yield* pushOnly(0, "103", "6")
      yield* settle
      assert.deepStrictEqual(candles.items.map((c) => [c.openTime, c.close, c.baseVolume, c.source]), [
        [0, "100", "1", "rest"],
        [0, "102", "5", "push"],
        [0, "103", "6", "push"]
      ])
    }).pipe(Effect.provide(layerWith(state))))
})

// REST's candles as the test exchange answers them (docs/venue/market-data.md#candles): `startTime` inclusive,
// `endTime` exclusive, the oldest `limit` first with `startTime`, the newest without; `limit` 100 by default.
const pagedMarket = (state: Published, calls: Array<Market.CandlesOptions | undefined>) =>
  Layer.effect(
    SpotClient.SpotClient,
    Effect.map(SpotClient.SpotClient, (client): SpotClient.Service => ({
      ...client,
      candles: (_symbol, _period, options) =>
        Effect.sync(() => {
          calls.push(options)
          const limit = options?.limit ?? 100
          const bars = [...state.bars.values()]
            .filter((b) => b.openTime < (options?.endTime ?? Infinity))
            .sort((a, b) => a.openTime - b.openTime)
          const from = options?.startTime
          return from === undefined ? bars.slice(-limit) : bars.filter((b) => b.openTime >= from).slice(0, limit)
        })
    }))
  )

const pagedLayer = (
  state: Published,
  calls: Array<Market.CandlesOptions | undefined>,
  push?: Partial<SpotPush.Options>
) => {
  const base = setup()
  return PushVenue.layerSpotPush(push).pipe(
    Layer.provide(pagedMarket(state, calls).pipe(Layer.provide(base))),
    Layer.provideMerge(base)
  )
}

const flat = (openTime: number): Market.Candle => ({ ...FIRST_BAR, openTime }) as Market.Candle

describe("SpotPush.watchCandles: an outage longer than one REST answer", () => {
  const state = published()
  const calls: Array<Market.CandlesOptions | undefined> = []
  it.effect("every bar since the latest delivered is read back, page by page, up to now", () =>
    Effect.gen(function*() {
      // The clock 200 minutes past bar 0, so that the bars of the outage are in the past.
      yield* TestClock.setTime(200 * 60_000)
      const push = yield* SpotPush.SpotPush
      const events = yield* collect(push.events)
      state.bars.set(0, FIRST_BAR)
      const candles = yield* collect(push.watchCandles(SYMBOL, "1m"))
      yield* settle
      // 150 bars while the connection is down: more than REST answers at once (100 by default).
      yield* outage(Effect.sync(() => {
        for (let i = 1; i <= 150; i++) state.bars.set(i * 60_000, flat(i * 60_000))
      }))
      yield* bar(state, 151 * 60_000, "105")
      yield* settle
      const minutes = candles.items.map((c) => c.openTime / 60_000)
      assert.deepStrictEqual(minutes, Array.from({ length: 152 }, (_, i) => i))
      assert.isFalse(events.items.some((e) => e._tag === "Gap"))
      assert.isAbove(calls.length, 1)
    }).pipe(Effect.provide(pagedLayer(state, calls))))

  const bounded = published()
  it.effect("bounded by half a consumer's buffer: the newest bars read back, the older ones named by a Gap", () =>
    Effect.gen(function*() {
      // Bar 150 opens as the outage ends (the clock past it).
      yield* TestClock.setTime(150 * 60_000)
      const push = yield* SpotPush.SpotPush
      const events = yield* collect(push.events)
      bounded.bars.set(0, FIRST_BAR)
      const candles = yield* collect(push.watchCandles(SYMBOL, "1m"))
      yield* settle
      yield* outage(Effect.sync(() => {
        for (let i = 1; i <= 150; i++) bounded.bars.set(i * 60_000, flat(i * 60_000))
      }))
      // A buffer of 40: at most 20 periods read back (up to a period past now), the newest bars; the older ones told.
      const minutes = candles.items.map((c) => c.openTime / 60_000)
      const first = minutes[1]!
      assert.deepStrictEqual(minutes, [0, ...Array.from({ length: 151 - first }, (_, i) => first + i)])
      assert.isAtMost(minutes.length - 1, 20)
      assert.isAtLeast(minutes.length - 1, 18)
      const gaps = events.items.filter((e) => e._tag === "Gap")
      assert.strictEqual(gaps.length, 1)
      const gap = gaps[0]!
      assert.deepStrictEqual([gap.channel, gap.from], [`kline.LAST_PRICE.${SYMBOL}.MINUTE_1`, 0])
      // Every bar opened after `to` was read back; the bar before the first read back opened within the gap.
      assert.isTrue(gap.to < first * 60_000 && gap.to >= (first - 1) * 60_000)
    }).pipe(Effect.provide(pagedLayer(bounded, [], { bufferSize: 40 }))))
})

describe("SpotPush.watchCandles: a late push of a bar no longer kept", () => {
  const state = published()
  it.effect("an older state of a closed bar, pushed after the bars kept moved on, is not delivered", () =>
    Effect.gen(function*() {
      const push = yield* SpotPush.SpotPush
      state.bars.set(0, FIRST_BAR)
      const candles = yield* collect(push.watchCandles(SYMBOL, "1m"))
      yield* settle
      yield* pushOnly(0, "101", "10")
      for (let i = 1; i <= 4; i++) yield* pushOnly(i * 60_000, "101", "1")
      yield* settle
      // Bar 0 with less volume than delivered: an older state, late. Bar 3 likewise (still kept).
      yield* pushOnly(0, "100.5", "7")
      yield* pushOnly(3 * 60_000, "100.5", "0.5")
      // The previous bar's final state after the next one began is a change, delivered.
      yield* pushOnly(3 * 60_000, "102", "2")
      yield* settle
      assert.deepStrictEqual(candles.items.map((c) => [c.openTime / 60_000, c.baseVolume, c.source]), [
        [0, "1", "rest"],
        [0, "10", "push"],
        [1, "1", "push"],
        [2, "1", "push"],
        [3, "1", "push"],
        [4, "1", "push"],
        [3, "2", "push"]
      ])
    }).pipe(Effect.provide(layerWith(state))))
})

describe("SpotPush public streams of a symbol the venue does not list", () => {
  it.effect("fail at once with a ValidationError naming it (the venue may acknowledge and never push)", () =>
    Effect.gen(function*() {
      const push = yield* SpotPush.SpotPush
      const venue = yield* PushVenue.PushVenue
      const streams: ReadonlyArray<readonly [string, Stream.Stream<unknown, PushError.PushError>]> = [
        ["SpotPush.watchTicker", push.watchTicker("NOPEUSDT_SPBL")],
        ["SpotPush.watchTrades", push.watchTrades("NOPEUSDT_SPBL")],
        ["SpotPush.watchBook", push.watchBook("NOPEUSDT_SPBL")],
        ["SpotPush.watchCandles", push.watchCandles("NOPEUSDT_SPBL", "1m")]
      ]
      for (const [name, stream] of streams) {
        const error = yield* Effect.flip(Stream.runDrain(stream))
        assert.strictEqual(error.stream, name)
        assert.strictEqual(error.reason._tag, "ValidationError")
        assert.include(error.message, "\"NOPEUSDT_SPBL\" is not a symbol the venue lists")
      }
      // Refused before subscribing: no connection was needed.
      assert.strictEqual((yield* venue.stats).opened, 0)
    }).pipe(Effect.provide(setup())))
})

describe("SpotPush.watchTrades and watchCandles: options REST would refuse later", () => {
  it.effect("a backfillLimit or history that is not an integer from 1 to 1000 fails the stream when it starts", () =>
    Effect.gen(function*() {
      const push = yield* SpotPush.SpotPush
      const venue = yield* PushVenue.PushVenue
      for (const value of [5000, 0, 2.5, -1, Number.NaN]) {
        const trades = yield* Effect.flip(Stream.runDrain(push.watchTrades(SYMBOL, { backfillLimit: value })))
        assert.strictEqual(trades.reason._tag, "ValidationError", `backfillLimit ${value}`)
        assert.include(trades.message, "backfillLimit")
        const candles = yield* Effect.flip(Stream.runDrain(push.watchCandles(SYMBOL, "1m", { history: value })))
        assert.strictEqual(candles.reason._tag, "ValidationError", `history ${value}`)
        assert.include(candles.message, "history")
      }
      // Checked before any subscription: the stream fails when it starts, not when REST refuses its first backfill.
      assert.strictEqual((yield* venue.stats).attempts, 0)
    }).pipe(Effect.provide(setup())))

  it.effect("a candle period or book depth the venue does not have (from configuration) fails the stream when it starts", () =>
    Effect.gen(function*() {
      const push = yield* SpotPush.SpotPush
      const venue = yield* PushVenue.PushVenue
      for (const depth of [50, 0, "15"]) {
        const book = yield* Effect.flip(Stream.runDrain(push.watchBook(SYMBOL, { depth: depth as Push.DepthLevel })))
        assert.strictEqual(book.reason._tag, "ValidationError", String(depth))
        assert.include(book.message, "invalid depth: must be 15 or 200", String(depth))
      }
      for (const period of ["1min", "toString", ""]) {
        const candles = yield* Effect.flip(Stream.runDrain(push.watchCandles(SYMBOL, period as Market.CandlePeriod)))
        assert.strictEqual(candles.reason._tag, "ValidationError", period)
        assert.include(candles.message, "period", period)
        assert.include(candles.message, "must be one of 1m, 5m", period)
        assert.notInclude(candles.message, "undefined", period)
      }
      // Nothing subscribed: no connection opened, no operation spent.
      assert.strictEqual((yield* venue.stats).attempts, 0)
    }).pipe(Effect.provide(setup())))
})

describe("SpotPush.watchTrades: REST failing for a while after a reconnection", () => {
  // REST's recent trades fail (a reset: retryable) `failures` more times, then answer.
  const rest = { failures: 0, calls: 0 }
  const failing = new SpotError.SpotError({
    operation: "SpotClient.recentTrades",
    reason: new SpotError.TransportError({ description: "connection reset" })
  })
  const base = setup()
  const layer = PushVenue.layerSpotPush().pipe(
    Layer.provide(
      Layer.effect(
        SpotClient.SpotClient,
        Effect.map(SpotClient.SpotClient, (client): SpotClient.Service => ({
          ...client,
          recentTrades: () =>
            Effect.suspend(() => {
              rest.calls++
              if (rest.failures === 0) return Effect.succeed([])
              rest.failures--
              return Effect.fail(failing)
            })
        }))
      ).pipe(Layer.provide(base))
    ),
    Layer.provideMerge(base)
  )

  it.effect("the backfill is asked again after a backoff; the connection and the other channels on it go on", () =>
    Effect.gen(function*() {
      const push = yield* SpotPush.SpotPush
      const venue = yield* PushVenue.PushVenue
      const events = yield* collect(push.events)
      const book = yield* collect(push.watchBook(SYMBOL))
      const trades = yield* collect(push.watchTrades(SYMBOL))
      yield* settle
      rest.failures = 5
      yield* venue.dropAll
      yield* advance(120_000)
      // The venue's drop alone cut the connection: one reconnection, one resync of the book.
      assert.strictEqual(events.items.filter((e) => e._tag === "Disconnected").length, 1)
      assert.strictEqual(book.items.filter((e) => e._tag === "Resync").length, 1)
      assert.strictEqual(rest.failures, 0)
      // One at the first subscription, then five failures and the answer after the drop.
      assert.strictEqual(rest.calls, 7)
      // Trades pushed after REST answered are delivered.
      yield* trade(published(), 200_000, "30000.5")
      yield* settle
      assert.deepStrictEqual(trades.items.map((t) => [t.time, t.source]), [[200_000, "push"]])
      assert.isUndefined(trades.fiber.pollUnsafe())
    }).pipe(Effect.provide(layer)))
})

describe("SpotPush.watchCandles: a consumer joining a running stream", () => {
  const state = published()
  it.effect("gets the latest `history` bars it asked for, then every change", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(10 * 60_000)
      const push = yield* SpotPush.SpotPush
      for (let i = 0; i < 10; i++) state.bars.set(i * 60_000, { ...FIRST_BAR, openTime: i * 60_000 } as Market.Candle)
      const first = yield* collect(push.watchCandles(SYMBOL, "1m"))
      yield* settle
      yield* bar(state, 9 * 60_000, "101")
      yield* settle
      const second = yield* collect(push.watchCandles(SYMBOL, "1m", { history: 5 }))
      const third = yield* collect(push.watchCandles(SYMBOL, "1m"))
      yield* settle
      yield* bar(state, 9 * 60_000, "102")
      yield* settle
      const seen = (items: ReadonlyArray<SpotPush.CandleUpdate>) => items.map((c) => [c.openTime / 60_000, c.close])
      assert.deepStrictEqual(seen(first.items), [[9, "100"], [9, "101"], [9, "102"]])
      // The bars before the current one from REST, the current one as the stream has it.
      assert.deepStrictEqual(seen(second.items), [[5, "100"], [6, "100"], [7, "100"], [8, "100"], [9, "101"], [
        9,
        "102"
      ]])
      assert.deepStrictEqual(seen(third.items), [[9, "101"], [9, "102"]])
    }).pipe(Effect.provide(layerWith(state))))
})

describe("SpotPush.watchTrades: a consumer joining with a larger backfillLimit", () => {
  const limits: Array<number | undefined> = []
  const base = setup()
  const layer = PushVenue.layerSpotPush().pipe(
    Layer.provide(
      Layer.effect(
        SpotClient.SpotClient,
        Effect.map(SpotClient.SpotClient, (client): SpotClient.Service => ({
          ...client,
          recentTrades: (_symbol, options) => Effect.sync(() => (limits.push(options?.limit), []))
        }))
      ).pipe(Layer.provide(base))
    ),
    Layer.provideMerge(base)
  )
  it.effect("the backfills ask REST for the largest limit of the consumers, not the first one's", () =>
    Effect.gen(function*() {
      const push = yield* SpotPush.SpotPush
      const venue = yield* PushVenue.PushVenue
      yield* collect(push.watchTrades(SYMBOL))
      yield* settle
      yield* collect(push.watchTrades(SYMBOL, { backfillLimit: 500 }))
      yield* collect(push.watchTrades(SYMBOL, { backfillLimit: 200 }))
      yield* settle
      yield* venue.dropAll
      yield* advance(5_000)
      // The first subscription's backfill asked the first consumer's.
      assert.deepStrictEqual(limits, [100, 500])
    }).pipe(Effect.provide(layer)))
})

// Pushes carry no trade id: a frame the venue repeats cannot be told from two trades alike in every field, which a
// taker order filled against two makers of one size at one price in one millisecond makes, and the venue may push in
// frames of their own. Dropping either would lose a trade; the stream is at least once, and delivers both.
describe("SpotPush.watchTrades: a trade frame the venue sends twice", () => {
  const state = published()
  it.effect("is delivered twice, as two identical trades are (at least once: nothing tells them apart)", () =>
    Effect.gen(function*() {
      const push = yield* SpotPush.SpotPush
      const venue = yield* PushVenue.PushVenue
      const trades = yield* collect(push.watchTrades(SYMBOL))
      yield* settle
      yield* venue.setFaults({ dup: 1 })
      yield* trade(state, 1_000, "30000.5")
      yield* settle
      yield* venue.setFaults({})
      yield* trade(state, 1_001, "30001.5")
      yield* trade(state, 1_001, "30001.5")
      yield* settle
      assert.deepStrictEqual(trades.items.map((t) => [t.time, t.price]), [
        [1_000, "30000.5"],
        [1_000, "30000.5"],
        [1_001, "30001.5"],
        [1_001, "30001.5"]
      ])
    }).pipe(Effect.provide(layerWith(state))))
})

describe("SpotPush.watchTrades and watchCandles: a burst larger than bufferSize", () => {
  // What one read of the socket holds is handed over before a consumer can take any of it: a consumer that keeps up
  // (it only keeps what it is given) gets a burst of many times its queue whole and in order, and goes on.
  const burst = published()
  it.effect("reaches a consumer that keeps up whole and in order; the stream goes on", () =>
    Effect.gen(function*() {
      const push = yield* SpotPush.SpotPush
      const trades = yield* collect(push.watchTrades(SYMBOL))
      const candles = yield* collect(push.watchCandles(SYMBOL, "1m"))
      yield* settle
      // 50 trades and 50 changes of one bar, in one go (nothing yields between them): one read of the socket.
      for (let i = 0; i < 50; i++) yield* trade(burst, 1_000 + i, `${30_000 + i}.5`)
      for (let i = 0; i < 50; i++) yield* bar(burst, 0, `${101 + i}`)
      yield* settle
      assert.deepStrictEqual(trades.items.map((t) => t.time), Array.from({ length: 50 }, (_, i) => 1_000 + i))
      assert.deepStrictEqual(
        candles.items.filter((c) => c.source === "push").map((c) => c.close),
        Array.from({ length: 50 }, (_, i) => `${101 + i}`)
      )
      assert.isUndefined(trades.fiber.pollUnsafe(), "the trades stream still runs")
      assert.isUndefined(candles.fiber.pollUnsafe(), "the candles stream still runs")
      yield* trade(burst, 2_000, "31000.5")
      yield* settle
      assert.strictEqual(trades.items.at(-1)?.time, 2_000)
    }).pipe(Effect.provide(layerWith(burst, { bufferSize: 8 }))))

  // A consumer that takes nothing while elements wait for room in its queue is behind, whatever a burst is: it fails
  // with SlowConsumerError (after what its queue held), and the consumer beside it is not held up.
  const blocked = published()
  it.effect("a consumer that takes nothing still fails with SlowConsumerError; the other gets every trade", () =>
    Effect.gen(function*() {
      const push = yield* SpotPush.SpotPush
      const gate = yield* Deferred.make<void>()
      const taken: Array<number> = []
      const slow = yield* Effect.forkChild(Effect.flip(Stream.runForEach(
        push.watchTrades(SYMBOL),
        (t) => Effect.andThen(Effect.sync(() => taken.push(t.time)), Deferred.await(gate))
      )))
      const fast = yield* collect(push.watchTrades(SYMBOL))
      yield* settle
      for (let i = 0; i < 50; i++) yield* trade(blocked, 1_000 + i, `${30_000 + i}.5`)
      yield* settle
      assert.strictEqual(fast.items.length, 50)
      yield* advance(5_000)
      yield* Deferred.succeed(gate, undefined)
      const error: PushError.PushError = yield* Fiber.join(slow)
      assert.strictEqual(error.reason._tag, "SlowConsumerError")
      assert.include(error.message, "waited more than 1000 ms for room in its queue of 8")
      // What its queue held before it failed, in order; not the whole burst.
      assert.isBelow(taken.length, 50)
      assert.deepStrictEqual(taken, Array.from({ length: taken.length }, (_, i) => 1_000 + i))
      assert.isUndefined(fast.fiber.pollUnsafe(), "the other consumer's stream still runs")
    }).pipe(Effect.provide(layerWith(blocked, { bufferSize: 8 }))))

  // `slowConsumerAfter` is the grace: a consumer that pauses within it gets every trade; past it, it fails, the grace
  // in its error.
  const paused = published()
  it.effect("slowConsumerAfter: a pause within it loses nothing; a pause past it fails with SlowConsumerError", () =>
    Effect.gen(function*() {
      const push = yield* SpotPush.SpotPush
      const pauseFor = (gate: Deferred.Deferred<void>) => {
        const taken: Array<number> = []
        return Effect.map(
          Effect.forkChild(Effect.flip(Stream.runForEach(
            push.watchTrades(SYMBOL),
            (t) => Effect.andThen(Effect.sync(() => taken.push(t.time)), Deferred.await(gate))
          ))),
          (fiber) => ({ taken, fiber })
        )
      }
      const brief = yield* Deferred.make<void>()
      const long = yield* Deferred.make<void>()
      const within = yield* pauseFor(brief)
      const past = yield* pauseFor(long)
      yield* settle
      for (let i = 0; i < 50; i++) yield* trade(paused, 1_000 + i, `${30_000 + i}.5`)
      yield* settle
      // Four seconds paused: four times the default grace, within this one.
      yield* advance(4_000)
      yield* Deferred.succeed(brief, undefined)
      yield* settle
      assert.deepStrictEqual(within.taken, Array.from({ length: 50 }, (_, i) => 1_000 + i))
      assert.isUndefined(within.fiber.pollUnsafe(), "the consumer that paused within the grace still runs")
      yield* advance(2_000)
      yield* Deferred.succeed(long, undefined)
      const error: PushError.PushError = yield* Fiber.join(past.fiber)
      assert.strictEqual(error.reason._tag, "SlowConsumerError")
      assert.strictEqual(error.reason._tag === "SlowConsumerError" ? error.reason.graceMillis : 0, 5_000)
      assert.include(error.message, "waited more than 5000 ms")
      assert.isBelow(past.taken.length, 50)
    }).pipe(Effect.provide(layerWith(paused, { bufferSize: 8, slowConsumerAfter: "5 seconds" }))))
})
