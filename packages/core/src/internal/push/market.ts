// The public trades and candles, closing the gap of a reconnection by REST. Trades: the venue's pushes carry no trade
// id, so after a resubscription the recent trades from REST are merged with what was delivered and what was pushed
// meanwhile as multisets of (time, price, size, buyerMaker), amounts as numbers whatever their trailing zeros — at
// least once, and exactly once but for trades identical in all four within the overlap; a disconnection longer than
// the REST call's reach (its `limit`) can still miss trades, and says so (`onGap`: the answer was full and did not
// reach back before the latest delivered).
// Candles: after each (re)subscription the latest bars from REST, then pushes replace bars by open time; a bar is
// delivered when it changed. A bar still forming only gains volume (Market.Candles keeps the same rule): a copy of
// less base volume than the one kept is an older state (REST answering from a cache, a push buffered while REST
// answered) and replaces nothing; of equal volume, the later one wins. The newest three bars are kept; a push of a bar
// older than those let go, or than the three kept, is late and replaces nothing.
import { Cause, Effect, Queue, Result, Schedule, Schema } from "effect"
import type { Scope } from "effect"
import type * as Market from "../../Market.ts"
import * as Push from "../../Push.ts"
import * as PushError from "../../PushError.ts"
import type * as PushModel from "../../PushModel.ts"
import type * as SpotError from "../../SpotError.ts"
import * as Decimals from "../model/decimal.ts"
import type { Sink } from "./feeds.ts"
import type { Overflow, Slow } from "./overflow.ts"
import type { Control, DataFrame } from "./subscriptions.ts"
import type { BackfillOutcome } from "./telemetry.ts"

export type PublicTrade = PushModel.PublicTrade

export type CandleUpdate = PushModel.CandleUpdate

// Amounts as numbers, not as written: the venue's push and REST pad decimals differently (push sizes to 5 decimals,
// REST amounts to 8 in its own samples), and a trade read back by REST is the one pushed. Normalized as text: exact.
const key = (trade: PublicTrade): string =>
  `${trade.time}|${Decimals.normalize(trade.price)}|${Decimals.normalize(trade.size)}|${trade.buyerMaker}`

// A consumer behind (an element waited its grace for room in its queue): it fails rather than miss one.
const failSlow = (capacity: number, graceMillis: number) => <A>(sinks: Set<Sink<A>>, sink: Sink<A>): void => {
  sinks.delete(sink)
  Queue.failCauseUnsafe(sink, Cause.fail(new PushError.SlowConsumerError({ capacity, graceMillis })))
}

const failAll = <A>(sinks: Set<Sink<A>>, reason: PushError.PushErrorReason): void => {
  for (const sink of sinks) Queue.failCauseUnsafe(sink, Cause.fail(reason))
}

const decodeTrade = Schema.decodeUnknownResult(Push.Trade)
const decodeKline = Schema.decodeUnknownResult(Push.Kline)

export interface Options<R> {
  readonly symbol: string
  readonly capacity: number
  /** Where what a consumer's queue has no room for waits (`overflow.ts`). */
  readonly overflow: Overflow
  /** What REST answers after a (re)subscription, given the latest time (or open time) delivered. */
  readonly backfill: (latest: number | undefined) => Effect.Effect<ReadonlyArray<R>, SpotError.SpotError>
  readonly onFailed: () => Effect.Effect<void>
  /** Pushes kept while REST answers; beyond, the channel is subscribed again (and REST asked again). */
  readonly bufferLimit: number
  /** Told how each backfill that asked REST ended (not one given up: its connection ended, or the buffer overflowed). */
  readonly onBackfilled?: ((outcome: BackfillOutcome) => void) | undefined
  /** This machine's clock (ms). */
  readonly now: () => number
  /** The venue's clock less this machine's (ms), as the client estimates it: it bounds the latest time (`ahead`). */
  readonly clockOffset: Effect.Effect<number>
}

// The most trades' keys a trades feed keeps: twice the largest answer REST gives (its `limit` is at most 1000).
const RECENT_LIMIT = 2_000

// How far past this machine's estimate of the venue's time a pushed time (a trade's, a bar's opening) still moves the
// latest time delivered, from which the next backfill reads: the estimate's error (half a round trip, a clock's step
// since it was learned), far less than a second in practice.
const AHEAD_MILLIS = 1_000

// The bars a candle feed keeps: the current one and the two before, those that can still change or come from REST.
const KEPT_BARS = 3

// How a backfill REST failed with a retryable error is asked again: from 1 s, doubling up to 30 s, jittered.
const RETRY = Schedule.jittered(Schedule.min([Schedule.exponential(1_000), Schedule.spaced(30_000)]))

// What both feeds share: consumers, the connection's generations, and the pushes kept while REST answers.
abstract class GapClosing<A, R> {
  readonly sinks = new Set<Sink<A>>()
  protected phase: "down" | "backfilling" | "live" = "down"
  protected buffer: Array<DataFrame> = []
  private generation = 0
  // The buffer overflowed, and the channel was subscribed again: said on the next acknowledgement.
  private overflowed = false
  protected readonly options: Options<R>
  protected readonly slow: Slow<A>
  // The clock offset as last read (at each backfill, before its merge and the pushes after it).
  private offset = 0

  constructor(options: Options<R>) {
    this.options = options
    this.slow = failSlow(options.capacity, options.overflow.graceMillis)
  }

  get size(): number {
    return this.sinks.size
  }

  attach(sink: Sink<A>): void {
    this.sinks.add(sink)
  }

  detach(sink: Sink<A>): void {
    this.sinks.delete(sink)
  }

  onActive(channel: string, scope: Scope.Scope, _control: Control): Effect.Effect<void> {
    return Effect.suspend(() => {
      const overflowed = this.overflowed
      this.overflowed = false
      this.phase = "backfilling"
      this.buffer = []
      const generation = this.generation
      // A failure a retry may mend (REST down a while) is this channel's alone: REST is asked again after a backoff,
      // the pushes kept meanwhile (an overflow resubscribes the channel), and the connection goes on for the others.
      const attempt = Effect.suspend(() => this.fetch(this.latestDelivered())).pipe(
        Effect.tapError((error) =>
          Effect.suspend(() => {
            if (generation !== this.generation || !error.isRetryable) return Effect.void
            this.options.onBackfilled?.("failed")
            return Effect.logDebug(`spotkit push: ${channel}: backfill failed (${error.message}); asking REST again`)
          })
        )
      )
      const fetch = Effect.retry(attempt, { schedule: RETRY, while: (error) => error.isRetryable })
      const backfill = Effect.flatMap(Effect.result(fetch), (result) =>
        Effect.suspend(() => {
          if (generation !== this.generation) return Effect.void
          this.options.onBackfilled?.(Result.isFailure(result) ? "failed" : "ok")
          if (Result.isFailure(result)) {
            return this.onFail("", new PushError.BackfillError({ error: result.failure }))
          }
          this.merge(result.success)
          const buffered = this.buffer
          this.buffer = []
          this.phase = "live"
          for (const frame of buffered) this.pushed(frame)
          return Effect.void
        }))
      const started = Effect.asVoid(Effect.forkIn(backfill, scope))
      return overflowed
        ? Effect.andThen(
          Effect.logDebug(
            `spotkit push: ${channel}: more than ${this.options.bufferLimit} pushes during the backfill, subscribed again`
          ),
          started
        )
        : started
    })
  }

  onInactive(): Effect.Effect<void> {
    return Effect.sync(() => {
      this.phase = "down"
      this.buffer = []
      this.generation++
    })
  }

  onFail(_channel: string, reason: PushError.PushErrorReason): Effect.Effect<void> {
    return Effect.andThen(Effect.sync(() => failAll(this.sinks, reason)), this.options.onFailed())
  }

  onFrame(frame: DataFrame, control: Control): void {
    if (this.phase === "live") this.pushed(frame)
    else if (this.phase === "backfilling") {
      this.buffer.push(frame)
      if (this.buffer.length > this.options.bufferLimit) {
        // Too far behind: this channel alone is subscribed again (its backfill ends with the subscription, and runs
        // again on the acknowledgement), not the connection, which carries other channels.
        this.phase = "down"
        this.buffer = []
        this.generation++
        this.overflowed = true
        control.resync(frame.channel)
      }
    }
  }

  // Into each consumer's queue; one with no room (or with elements waiting already) gets it behind what waits.
  protected emit(value: A): void {
    const overflow = this.options.overflow
    for (const sink of this.sinks) {
      if (overflow.idle && Queue.offerUnsafe(sink, value)) continue
      overflow.offer(this.sinks, sink, value, this.slow)
    }
  }

  /** What REST answers after this (re)subscription, given the latest time delivered. */
  protected fetch(latest: number | undefined): Effect.Effect<ReadonlyArray<R>, SpotError.SpotError> {
    return Effect.andThen(
      Effect.map(this.options.clockOffset, (offset) => {
        this.offset = offset
      }),
      this.options.backfill(latest)
    )
  }

  /**
   * A pushed time as the latest delivered may take it: never more than `AHEAD_MILLIS` past this machine's estimate of
   * the venue's time. One push stamped further ahead (a push node whose clock is off, a time in microseconds) would
   * otherwise have every later backfill read from there, and its merge drop what REST reads back of an outage before
   * that time, with no `Gap` told. The push itself is still delivered. The margin takes the estimate's error: a latest
   * time held below a genuine one would have a backfill read a little more (a trades' answer reaching back just to it
   * told as a `Gap`).
   */
  protected ahead(time: number): number {
    return Math.min(time, this.options.now() + this.offset + AHEAD_MILLIS)
  }

  /** The latest time (a trade's, a bar's open time) delivered so far. */
  protected abstract latestDelivered(): number | undefined
  /** Merges what REST answered. */
  protected abstract merge(records: ReadonlyArray<R>): void
  /** A push. */
  protected abstract pushed(frame: DataFrame): void
}

export class TradeFeed extends GapClosing<PublicTrade, Market.Trade> {
  // Trades delivered within the overlap behind the latest one, counted by key, and the latest time delivered.
  private readonly recent = new Map<string, { count: number; readonly time: number }>()
  private latest: number | undefined = undefined
  // The trades REST answered, by key: a push kept while it answered may be one of them.
  private answered = new Map<string, number>()
  // The latest time pushed since REST last answered: its marks older by the overlap are let go.
  private pushedUpTo: number | undefined = undefined
  // The stream's start on the venue's clock: nothing before it is owed. Read when a backfill needs it (none delivered
  // yet), after REST answered; `start` says how. The first acknowledgement owes a backfill too: it may come long after
  // the start (the venue unreachable, dialled again and again), and its trades meanwhile are the stream's. Sound with
  // REST's limits: one `recentTrades` call of the consumers' `limit` (at most 1000, checked when the stream starts), the
  // trades before the start dropped by the merge, and a full answer that does not reach back to it told as a `Gap`.
  private since: number | undefined = undefined
  private readonly start: Effect.Effect<number>
  private readonly overlapMillis: number

  // The most trades one REST answer holds: the largest `backfillLimit` of the consumers; `asked` the latest backfill's.
  private most: number
  private asked: number
  private readonly onGap: (from: number, to: number) => void

  constructor(
    options: Options<Market.Trade> & {
      /** The stream's start on the venue's clock (ms), as well as the client knows it when asked. */
      readonly start: Effect.Effect<number>
      readonly overlapMillis: number
      /** The most trades one REST answer holds (the `limit` the backfill asks for), until a consumer asks more. */
      readonly limit: number
      /** Told of trades that may be missing: from `from` to `to`, both milliseconds included (the venue's ms). */
      readonly onGap: (from: number, to: number) => void
    }
  ) {
    super(options)
    this.start = options.start
    this.overlapMillis = options.overlapMillis
    this.most = options.limit
    this.asked = options.limit
    this.onGap = options.onGap
  }

  protected latestDelivered(): number | undefined {
    return this.latest
  }

  /** How many trades' keys are kept to match REST's against (bounded). */
  get kept(): number {
    return this.recent.size
  }

  /** The `limit` a backfill asks REST for: the largest any consumer asked. */
  get limit(): number {
    return this.most
  }

  /** A consumer joining with its `backfillLimit`: the backfills ask for the largest. */
  raiseLimit(limit: number): void {
    if (limit > this.most) this.most = limit
  }

  protected override fetch(
    latest: number | undefined
  ): Effect.Effect<ReadonlyArray<Market.Trade>, SpotError.SpotError> {
    this.asked = this.most
    const answer = super.fetch(latest)
    return latest !== undefined ? answer : Effect.flatMap(answer, (records) =>
      Effect.map(this.start, (since) => {
        this.since = since
        return records
      }))
  }

  protected merge(records: ReadonlyArray<Market.Trade>): void {
    this.answered = new Map()
    this.pushedUpTo = undefined
    const floor = this.latest ?? this.since ?? -Infinity
    const delivered = new Map<string, number>()
    for (const [k, entry] of this.recent) delivered.set(k, entry.count)
    // Oldest first; REST answers newest first, so the trades of one millisecond keep the venue's order once reversed.
    const sorted = records.slice().reverse().sort((a, b) => a.time - b.time)
    // A trade of the floor's millisecond that had not been delivered: the answer's oldest may be cut within it.
    let newAtFloor = false
    for (const trade of sorted) {
      if (trade.time < floor) continue
      const item: PublicTrade = { ...trade, source: "rest" }
      const k = key(item)
      this.answered.set(k, (this.answered.get(k) ?? 0) + 1)
      const owed = delivered.get(k) ?? 0
      if (owed > 0) delivered.set(k, owed - 1)
      else {
        if (trade.time === floor) newAtFloor = true
        this.deliverTrade(item)
      }
    }
    // A full answer (the newest `limit`) that does not reach back before the floor may have left out trades made since:
    // those older than its oldest, and those of its oldest's millisecond it cut. When its oldest is in the floor's
    // millisecond, only if a trade of it there had not been delivered (the ones pushed before it were).
    const oldest = sorted[0]
    if (
      oldest !== undefined && sorted.length >= this.asked && floor > -Infinity &&
      (oldest.time > floor || (oldest.time === floor && newAtFloor))
    ) this.onGap(floor, oldest.time)
  }

  protected pushed(frame: DataFrame): void {
    if (frame._tag !== "Payload") return
    for (const item of frame.data) {
      const decoded = decodeTrade(item)
      if (Result.isFailure(decoded)) continue
      const trade = decoded.success
      const push: PublicTrade = {
        symbol: this.options.symbol,
        tradeId: undefined,
        time: trade.time,
        price: trade.price,
        size: trade.size,
        value: trade.value,
        buyerMaker: trade.buyerMaker,
        side: trade.buyerMaker ? "sell" : "buy",
        source: "push"
      }
      // REST may have answered this very trade (pushed while it answered, or read after the answer).
      const k = key(push)
      const answered = this.answered.get(k) ?? 0
      if (answered > 0) {
        this.answered.set(k, answered - 1)
        continue
      }
      this.deliverTrade(push)
      // REST's marks are let go by the pushes' time, not by the latest delivered: its answer may reach past the pushes
      // kept while it answered (and those still on their way) by more than the overlap, and each of them is still to be
      // matched. The pushes come in time order: one past the overlap of a mark will not come.
      if (this.pushedUpTo === undefined || push.time > this.pushedUpTo) {
        this.pushedUpTo = push.time
        const before = push.time - this.overlapMillis
        for (const old of this.answered.keys()) {
          if (Number(old.slice(0, old.indexOf("|"))) < before) this.answered.delete(old)
        }
      }
    }
  }

  private deliverTrade(trade: PublicTrade): void {
    const k = key(trade)
    const seen = this.recent.get(k)
    // Kept in the order last delivered: the ones let go by size below are the least recent.
    this.recent.delete(k)
    this.recent.set(k, { count: (seen?.count ?? 0) + 1, time: trade.time })
    // Bounded by size too: pushed times that stand still or run backwards never let anything go by time. A REST answer
    // holds at most its largest `limit`'s trades, the newest, so keys beyond twice as many can never be matched.
    if (this.recent.size > RECENT_LIMIT) {
      for (const old of this.recent.keys()) {
        this.recent.delete(old)
        if (this.recent.size <= RECENT_LIMIT) break
      }
    }
    // The floor of the next merge moves to the trade's time, never far past the venue's (`ahead`).
    const bounded = this.ahead(trade.time)
    if (this.latest === undefined || bounded > this.latest) {
      this.latest = bounded
      const before = bounded - this.overlapMillis
      for (const [old, entry] of this.recent) if (entry.time < before) this.recent.delete(old)
    }
    this.emit(trade)
  }
}

export class CandleFeed extends GapClosing<CandleUpdate, Market.Candle> {
  private readonly bars = new Map<number, Market.Candle>()
  private latest: number | undefined = undefined
  // The newest open time no longer kept: a push of it or of an older bar (late, an older state) has nothing to be
  // compared with, and the bar was final when it was let go.
  private forgotten: number | undefined = undefined
  private readonly period: Market.CandlePeriod

  constructor(options: Options<Market.Candle> & { readonly period: Market.CandlePeriod }) {
    super(options)
    this.period = options.period
  }

  protected latestDelivered(): number | undefined {
    return this.latest
  }

  /** How many bars are kept (bounded). */
  get kept(): number {
    return this.bars.size
  }

  /** Whether a bar has come yet (a consumer joining before gets the first backfill's bars with the others). */
  get started(): boolean {
    return this.latest !== undefined
  }

  /** A consumer that joins late starts from the current bar. */
  override attach(sink: Sink<CandleUpdate>): void {
    this.attachWith(sink, 1, [])
  }

  /**
   * A consumer that joins late asking the latest `history` bars, with the latest bars REST answered for it: those older
   * than the bars kept, then the kept ones as the stream has them (the current one last), the newest `history` of all.
   * Joined at once after, it misses no change.
   */
  attachWith(sink: Sink<CandleUpdate>, history: number, answered: ReadonlyArray<Market.Candle>): void {
    super.attach(sink)
    const kept = [...this.bars.values()].sort((a, b) => a.openTime - b.openTime)
    const oldest = kept[0]?.openTime
    const older = oldest === undefined
      ? []
      : answered.filter((candle) => candle.openTime < oldest).sort((a, b) => a.openTime - b.openTime)
    for (const candle of [...older, ...kept].slice(-history)) {
      this.options.overflow.offer(this.sinks, sink, this.update(candle, "rest"), this.slow)
    }
  }

  protected merge(records: ReadonlyArray<Market.Candle>): void {
    const latest = this.latest
    for (const candle of records.slice().sort((a, b) => a.openTime - b.openTime)) {
      if (latest !== undefined && candle.openTime < latest) continue
      this.bar(candle, "rest")
    }
  }

  protected pushed(frame: DataFrame): void {
    if (frame._tag !== "Payload") return
    for (const item of frame.data) {
      const decoded = decodeKline(item)
      if (Result.isFailure(decoded)) continue
      const k = decoded.success
      this.bar({
        openTime: k.klineTime,
        open: k.open,
        high: k.high,
        low: k.low,
        close: k.close,
        baseVolume: k.size,
        quoteVolume: k.value
      }, "push")
    }
  }

  private bar(candle: Market.Candle, source: "push" | "rest"): void {
    if (this.forgotten !== undefined && candle.openTime <= this.forgotten) return
    const old = this.bars.get(candle.openTime)
    // A bar older than every one kept, when as many are kept as may be, is late (open times running backwards): it
    // replaces nothing, and is not kept, so the bars kept stay bounded whatever the pushed times do.
    if (old === undefined && this.bars.size >= KEPT_BARS) {
      let oldest = Infinity
      for (const openTime of this.bars.keys()) if (openTime < oldest) oldest = openTime
      if (candle.openTime < oldest) return
    }
    if (old !== undefined && Decimals.compare(candle.baseVolume, old.baseVolume) < 0) return
    // Unchanged when its numbers are: REST and push pad decimals differently, and a bar read back after each
    // reconnection is no change for being written "101.0".
    if (
      old !== undefined && Decimals.equal(old.open, candle.open) && Decimals.equal(old.high, candle.high) &&
      Decimals.equal(old.low, candle.low) && Decimals.equal(old.close, candle.close) &&
      Decimals.equal(old.baseVolume, candle.baseVolume) && Decimals.equal(old.quoteVolume, candle.quoteVolume)
    ) return
    this.bars.set(candle.openTime, candle)
    // The next backfill reads from the latest open time, never one far past the venue's time (`ahead`).
    const bounded = this.ahead(candle.openTime)
    if (this.latest === undefined || bounded > this.latest) {
      this.latest = bounded
      // Only the bars that can still change, or come again from REST, are kept.
      for (const openTime of this.bars.keys()) {
        if (openTime < bounded && this.bars.size > KEPT_BARS) {
          this.bars.delete(openTime)
          if (this.forgotten === undefined || openTime > this.forgotten) this.forgotten = openTime
        }
      }
    }
    this.emit(this.update(candle, source))
  }

  private update(candle: Market.Candle, source: "push" | "rest"): CandleUpdate {
    return { ...candle, symbol: this.options.symbol, period: this.period, source }
  }
}
