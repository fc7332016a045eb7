// The private channels (`orders`, `fill`, `account`) as one gap-free session. After every (re)connection, from the
// first acknowledgement on, pushes are buffered; once all three channels are live the gap is closed by REST (the
// balances; per symbol in play the open orders, the orders created and the fills made since that symbol's watermarks,
// less an overlap; each order whose outcome is unknown), the REST records are merged, then the buffered pushes, and
// pushes are merged as they come until the connection ends. Merging makes delivery exactly once: a fill once by its id (the push
// `id` is the REST `fillId`), an order only when it moved forward (its filled quantity never goes back, a final state
// sticks), a balance only when it changed. A consumer that joins a live session with a symbol whose open orders REST
// has not read on this connection has them read then (`addSymbols`), merged as they come, nothing held meanwhile, and
// for a symbol new to the session its orders and fills since the session's start; one that joins while a backfill
// runs, after it took its list, gets that backfill's reads of the symbol after it.
// This module owns the session's state (phase, buffer, symbols, watermarks, what it remembers) and applies the merges;
// what is asked of REST and how it is read is `privateRest.ts`, the merge rules `privateMerge.ts`, and what waits for
// a consumer's queue to have room `privateSinks.ts`.
import { Cause, Effect, Queue, Result, Schema } from "effect"
import type { Scope } from "effect"
import * as Push from "../../Push.ts"
import * as PushError from "../../PushError.ts"
import type * as SpotError from "../../SpotError.ts"
import * as Decimal from "../model/decimal.ts"
import { TRADING_PAIR } from "../model/patterns.ts"
import type { Sink } from "./feeds.ts"
import * as Model from "./model.ts"
import type { Overflow } from "./overflow.ts"
import { filledWithout, mergeOrder, pushedFills, sameAmount } from "./privateMerge.ts"
import { ASK_ATTEMPTS, ASK_SPACING, forGood, outcomes, readEach, readOpenOrders, readSymbol } from "./privateRest.ts"
import type { Bounds, Refusal, Rest, SymbolRead } from "./privateRest.ts"
import { Backlogs } from "./privateSinks.ts"
import type { Control, DataFrame, Feed } from "./subscriptions.ts"
import type { BackfillOutcome } from "./telemetry.ts"

export interface Options {
  readonly rest: Rest
  /** Server time from which fills count (REST fills before it are not delivered). */
  readonly since: number
  readonly symbols: Iterable<string>
  /** A consumer's queue: what it has no room for waits, its consumer failed if one waits too long (`overflow.ts`). */
  readonly capacity: number
  /** Pushes buffered while the backfill runs; beyond, the session starts again. */
  readonly bufferLimit: number
  /** Where a live element a consumer's queue has no room for waits. */
  readonly overflow: Overflow
  /** How far before the watermarks the backfill looks again. */
  readonly overlapMillis: number
  /**
   * How long fill ids and final orders are remembered behind the watermarks; a fill id (a final order) also at least
   * this long after it arrived (ended, on `now`).
   */
  readonly retentionMillis: number
  /** This machine's clock (ms): when a fill arrived, an order ended. */
  readonly now: () => number
  /**
   * The venue's clock less this machine's (ms), as the client estimates it: read at each REST read, it bounds the
   * watermarks (`raise`).
   */
  readonly clockOffset: Effect.Effect<number>
  readonly emit: (event: Model.Event) => void
  /** The session failed for good: forget it. */
  readonly onFailed: Effect.Effect<void>
  /** Told how each backfill ended (not one given up: its connection ended). */
  readonly onBackfilled?: ((outcome: BackfillOutcome) => void) | undefined
}

/** The channels of the session. */
export const CHANNELS: ReadonlyArray<string> = [Push.channels.orders, Push.channels.fill, Push.channels.account]

const decodeFill = Schema.decodeUnknownResult(Push.Fill)
const decodeOrder = Schema.decodeUnknownResult(Push.Order)
const decodeAsset = Schema.decodeUnknownResult(Push.AccountAsset)

interface Fetched {
  /** How many pushes were buffered when the balances were asked for: their account items are older than REST's. */
  readonly before: number
  /** The symbols whose open orders were read. */
  readonly symbols: ReadonlyArray<string>
  readonly balances: ReadonlyArray<Model.Balance>
  readonly orders: ReadonlyArray<Model.OrderUpdate>
  readonly fills: ReadonlyArray<Model.Fill>
  /** Orders held for their filled quantity when the read began: their records are among `orders` if REST knows them. */
  readonly held: ReadonlyArray<string>
  /** Symbols REST refused, with its answer. */
  readonly refused: ReadonlyArray<Refusal>
}

export class PrivateSession implements Feed {
  readonly symbols: Set<string>
  // The symbols consumers gave, with the consumers that gave each (checked against the venue's list before they
  // joined, unless that list could not be read): a REST refusal of one fails those consumers' streams, not the
  // session the others share. The others are learnt from pushes. A symbol REST refuses is no longer read, and not
  // learnt again.
  private readonly given: Map<string, Set<Sink<unknown>>>
  private readonly refused = new Set<string>()
  readonly orderSinks = new Set<Sink<Model.OrderUpdate>>()
  readonly fillSinks = new Set<Sink<Model.Fill>>()
  readonly balanceSinks = new Set<Sink<Model.Balance>>()
  private readonly options: Options
  private readonly active = new Set<string>()
  private phase: "down" | "buffering" | "live" = "down"
  private buffer: Array<DataFrame> = []
  private generation = 0
  // The connection the session is on while its channels are acknowledged: where a backfill runs.
  private connection: { readonly scope: Scope.Scope; readonly control: Control } | undefined = undefined
  // Orders first seen in a push that does not tell their filled quantity (nor lets it be known: `filledWithout`),
  // with their pushed changes, held until REST's order info tells it: shown filled "0" a filled market buy would be
  // wrong. Asked for on the live connection through `asks`; those a connection ended on are asked by the next backfill.
  private readonly unsure = new Map<string, Array<Model.OrderChange>>()
  private asks: Queue.Queue<string> | undefined = undefined
  // Symbols whose open orders REST has read on this connection; those consumers brought that it has not (yet); and
  // whether a read of these runs.
  private readonly read = new Set<string>()
  private readonly asked = new Set<string>()
  private reading = false
  // Symbols brought while a backfill ran (after it took its list), with the bounds their REST reads start from: their
  // watermarks as they stood before the pushes buffered meanwhile were merged (those moved them past the outage).
  // They get the backfill's reads, not the open orders alone: the outage that backfill closes was not closed for them.
  // So do symbols new to the session, from its start (`addSymbols`). Kept until one read of them (this one's, or a
  // later backfill's) is merged.
  private readonly late = new Map<string, Bounds>()
  // Fill ids with the fill's symbol, time and arrival (on this machine's clock), to deliver each once.
  private readonly fills = new Map<
    string,
    { readonly symbol: string; readonly time: number; readonly arrived: number }
  >()
  private readonly orders = new Map<string, Model.OrderUpdate>()
  // When each final order ended (its final state merged, on this machine's clock): kept for the retention after it.
  private readonly ended = new Map<string, number>()
  private readonly balances = new Map<string, Model.Balance>()
  // The watermarks, one per symbol: the time of its latest fill, and the creation time of its latest order, merged.
  // Per symbol, since a venue need not push two symbols' events in the order they happened: an event of one symbol
  // pushed late behind a later one of another, and lost with a connection, is still after its own symbol's watermark.
  private readonly fillMarks = new Map<string, number>()
  private readonly orderMarks = new Map<string, number>()
  // The clock offset as last read (before every merge: each follows a REST read, which reads it first).
  private offset = 0
  private merged = 0
  // The version of the last account push applied since the last REST snapshot: an account push is a state, not a
  // change, so an older one arriving late (or again) must not undo a newer one.
  private accountVersion: bigint | undefined = undefined
  // A backfill's (or a replay's) records are many at once: what a consumer's queue has no room for waits for it.
  private readonly backlogs: Backlogs

  constructor(options: Options) {
    this.options = options
    this.backlogs = new Backlogs(options)
    this.symbols = new Set(options.symbols)
    this.given = new Map(Array.from(this.symbols, (symbol) => [symbol, new Set<Sink<unknown>>()]))
  }

  // A symbol seen in a push joins the backfill's list when it is a trading pair REST has not refused: REST would refuse
  // any other for good, and that refusal must not end the session.
  private learn(symbol: string): void {
    if (!this.refused.has(symbol) && TRADING_PAIR.test(symbol)) this.symbols.add(symbol)
  }

  // A symbol's watermark: `since` until an event of it was merged.
  private mark(marks: Map<string, number>, symbol: string): number {
    return marks.get(symbol) ?? this.options.since
  }

  // Where a backfill's reads of a symbol start: its watermarks less the overlap, or earlier for a symbol brought while
  // the last backfill ran.
  private bounds(symbol: string): Bounds {
    const { overlapMillis } = this.options
    const late = this.late.get(symbol)
    const orders = this.mark(this.orderMarks, symbol) - overlapMillis
    const fills = this.mark(this.fillMarks, symbol) - overlapMillis
    return late === undefined ? { orders, fills } : {
      orders: Math.min(orders, late.orders),
      fills: Math.min(fills, late.fills)
    }
  }

  // A watermark moves to an event's time, but never past this machine's estimate of the venue's time: one event
  // stamped ahead (a push node whose clock is off, a time in microseconds) would otherwise have every later backfill
  // read from there, and miss the outages before it without a word. The event itself is still delivered. A watermark
  // held back to now only makes the next backfill read a little more, which merging by id makes harmless; none is
  // added on top of the estimate, so that the overlap still covers an estimate a few seconds off.
  private raise(marks: Map<string, number>, symbol: string, time: number): void {
    const bounded = Math.min(time, this.options.now() + this.offset)
    if (bounded > this.mark(marks, symbol)) marks.set(symbol, bounded)
  }

  /** How much the session remembers to deliver each event once (its memory, which pruning bounds). */
  get remembered(): { readonly fills: number; readonly orders: number } {
    return { fills: this.fills.size, orders: this.orders.size }
  }

  get size(): number {
    return this.orderSinks.size + this.fillSinks.size + this.balanceSinks.size
  }

  /** Consumers that join late start from the state as merged: the balances, and the orders still open. */
  attachOrders(sink: Sink<Model.OrderUpdate>): void {
    this.orderSinks.add(sink)
    this.backlogs.hold(() => {
      for (const order of this.orders.values()) if (!order.final) this.backlogs.offer(this.orderSinks, sink, order)
    })
  }

  attachBalances(sink: Sink<Model.Balance>): void {
    this.balanceSinks.add(sink)
    this.backlogs.hold(() => {
      for (const balance of this.balances.values()) this.backlogs.offer(this.balanceSinks, sink, balance)
    })
  }

  /** A consumer left: what waited for it is dropped. */
  detach<A>(sink: Sink<A>): void {
    this.backlogs.drop(sink as Sink<unknown>)
    for (const sinks of this.given.values()) sinks.delete(sink as Sink<unknown>)
  }

  /**
   * Symbols a consumer joining brings. One whose open orders REST has not read on this connection (a symbol new to the
   * session, or one it knows only from pushes) has them read: at once when the session is live, after the backfill
   * under way when one runs (its list of symbols was taken when it began), with the next connection's backfill when
   * the session is down. A symbol new to the session also has its orders created and fills made since the session's
   * start read (no outage was closed for it, nor the time before the first connection); one it knows only from pushes,
   * its open orders alone on a live connection, where every other event of the symbol is pushed, and after a backfill
   * under way that backfill's reads (the outage it closes was not closed for the symbol).
   */
  addSymbols<A>(symbols: Iterable<string>, sink?: Sink<A>): Effect.Effect<void> {
    return Effect.suspend(() => {
      for (const symbol of symbols) {
        // New to the session: nothing of it was seen (an event of it, pushed or read, would have made it known), so
        // every outage since the session's start was closed without it. Its reads start where a symbol not seen
        // starts (`bounds`: the session's start), and so reach back before the earliest of them, whenever it joins.
        if (!this.symbols.has(symbol) && !this.late.has(symbol)) this.late.set(symbol, this.bounds(symbol))
        this.symbols.add(symbol)
        const brought = this.given.get(symbol) ?? new Set()
        if (sink !== undefined) brought.add(sink as Sink<unknown>)
        this.given.set(symbol, brought)
        this.refused.delete(symbol)
        if (!this.read.has(symbol)) this.asked.add(symbol)
      }
      // A joiner's replay that did not fit its queue is delivered from here.
      return Effect.andThen(this.backlogs.deliver(), this.phase === "live" ? this.readAsked() : Effect.void)
    })
  }

  onActive(channel: string, scope: Scope.Scope, control: Control): Effect.Effect<void> {
    return Effect.suspend(() => {
      this.active.add(channel)
      if (this.phase === "down") {
        this.phase = "buffering"
        this.buffer = []
      }
      if (this.active.size < CHANNELS.length) return Effect.void
      this.connection = { scope, control }
      const generation = this.generation
      return Effect.flatMap(Queue.unbounded<string>(), (asks) => {
        this.asks = asks
        return Effect.andThen(
          Effect.forkIn(
            Effect.forever(Effect.flatMap(Queue.take(asks), (orderId) => this.ask(orderId, generation))),
            scope
          ),
          Effect.asVoid(Effect.forkIn(this.backfill(generation, control), scope))
        )
      })
    })
  }

  onInactive(channel: string): Effect.Effect<void> {
    return Effect.sync(() => {
      this.active.delete(channel)
      this.phase = "down"
      this.buffer = []
      this.generation++
      this.connection = undefined
      this.asks = undefined
      // The next connection's backfill reads every symbol in play (a read under way was interrupted with its scope).
      this.read.clear()
      this.reading = false
    })
  }

  // The open orders of the symbols consumers brought, read on the live connection and merged as they come. Pushes are
  // not held meanwhile: the connection is live, so nothing else of these symbols was missed since it came up (the
  // channels carry every symbol), and an order only moves forward, so a push that overtakes REST's answer is not
  // undone by it. A symbol brought while the backfill ran gets that backfill's reads instead (its orders and fills of
  // the outage, and the outcome of orders they leave unknown), from its bounds as they stood before the buffered
  // pushes moved them; a symbol new to the session, the same reads from the session's start: every outage before
  // this connection (and the time before the first) was closed without it. What they read that the session saw
  // (nothing, for a new symbol: an event of it would have made it known) is merged as no news.
  private readAsked(): Effect.Effect<void> {
    const connection = this.connection
    if (connection === undefined || this.reading || this.asked.size === 0) return Effect.void
    const symbols = Array.from(this.asked)
    this.asked.clear()
    this.reading = true
    const generation = this.generation
    const rest = this.options.rest
    // A symbol REST refuses is dropped (failing the streams that brought it); any other failure fails the read.
    const read = Effect.gen({ self: this }, function*() {
      this.offset = yield* this.options.clockOffset
      const { fills, gone, orders, refused } = yield* readEach(symbols, (symbol) =>
        this.late.has(symbol)
          ? readSymbol(rest, symbol, this.bounds(symbol))
          : Effect.map(readOpenOrders(rest, symbol), (open) => ({ ...open, fills: [] })))
      if (fills.length > 0) orders.push(...yield* this.outcomes({ orders, gone, fills }, false))
      return { orders, fills, refused }
    })
    return Effect.asVoid(Effect.forkIn(
      Effect.flatMap(Effect.result(read), (result) =>
        Effect.suspend(() => {
          if (generation !== this.generation) return Effect.void
          this.reading = false
          // As a backfill's failure: a retryable one is left to the next connection's backfill, which reads them.
          if (Result.isFailure(result)) return this.failed(result.failure, connection.control)
          const { refused } = result.success
          const dropped = this.drop(refused)
          for (const symbol of symbols) {
            this.late.delete(symbol)
            if (this.symbols.has(symbol)) this.read.add(symbol)
          }
          const orders = result.success.orders.slice().sort((a, b) => a.updatedTime - b.updatedTime)
          const fills = result.success.fills.slice().sort((a, b) => a.time - b.time)
          this.backlogs.hold(() => {
            for (const order of orders) this.mergeOrder(order)
            for (const fill of fills) this.mergeFill(fill)
          })
          // Symbols brought while these were read.
          return Effect.andThen(dropped, Effect.andThen(this.backlogs.deliver(), this.readAsked()))
        })),
      connection.scope
    ))
  }

  onFail(_channel: string, reason: PushError.PushErrorReason): Effect.Effect<void> {
    return this.failAll(reason)
  }

  onFrame(frame: DataFrame, control: Control): void {
    if (this.phase === "live") {
      this.apply(frame, control)
      return
    }
    // Nothing counts before the first acknowledgement (the connection delivers nothing then anyway).
    if (this.phase === "down") return
    this.buffer.push(frame)
    if (this.buffer.length > this.options.bufferLimit) {
      this.buffer = []
      control.reconnect(`more than ${this.options.bufferLimit} pushes during the backfill`, "backfill")
    }
  }

  private failAll(reason: PushError.PushErrorReason): Effect.Effect<void> {
    return Effect.andThen(
      Effect.sync(() => {
        const sinks = [...this.orderSinks, ...this.fillSinks, ...this.balanceSinks] as Array<Sink<unknown>>
        for (const sink of sinks) {
          this.backlogs.drop(sink)
          Queue.failCauseUnsafe(sink, Cause.fail(reason))
        }
      }),
      this.options.onFailed
    )
  }

  private fetch(): Effect.Effect<Fetched, SpotError.SpotError> {
    const { rest } = this.options
    return Effect.gen({ self: this }, function*() {
      this.offset = yield* this.options.clockOffset
      const before = this.buffer.length
      const held = Array.from(this.unsure.keys())
      const balances = yield* rest.balances
      const { fills, gone, orders, refused, symbols } = yield* readEach(
        Array.from(this.symbols),
        (symbol) => readSymbol(rest, symbol, this.bounds(symbol))
      )
      orders.push(...yield* this.outcomes({ orders, gone, fills }, true))
      return { before, symbols, balances, orders, fills, held, refused }
    })
  }

  // Orders whose outcome a read leaves unknown, asked for against what the session knows (`outcomes`).
  private outcomes(read: SymbolRead, known: boolean): Effect.Effect<Array<Model.OrderUpdate>, SpotError.SpotError> {
    return outcomes(this.options.rest, { orders: this.orders, unsure: this.unsure, fills: this.fills }, read, known)
  }

  private backfill(generation: number, control: Control): Effect.Effect<void> {
    return Effect.flatMap(Effect.result(this.fetch()), (result) =>
      Effect.suspend(() => {
        if (generation !== this.generation) return Effect.void
        this.options.onBackfilled?.(Result.isFailure(result) ? "failed" : "ok")
        if (Result.isFailure(result)) return this.failed(result.failure, control)
        const { balances, before, fills, held, orders, refused, symbols } = result.success
        const dropped = this.drop(refused)
        for (const symbol of symbols) {
          this.read.add(symbol)
          this.asked.delete(symbol)
          this.late.delete(symbol)
        }
        // Symbols brought after this backfill took its list: their bounds before the pushes buffered meanwhile (of
        // them, too) are merged and move their watermarks past the outage.
        for (const symbol of this.asked) if (!this.late.has(symbol)) this.late.set(symbol, this.bounds(symbol))
        this.accountVersion = undefined
        const buffered = this.buffer
        this.buffer = []
        this.phase = "live"
        // The records and the pushes buffered meanwhile are one burst: what a queue has no room for waits for it.
        this.backlogs.hold(() => {
          // REST's answer is the whole account (`balances` takes no filter): a coin held that it leaves out is at zero
          // (a venue may omit zero balances), not at what it was before.
          const listed = new Set(balances.map((balance) => balance.coinId))
          for (const balance of balances) this.mergeBalance(balance)
          for (const held of Array.from(this.balances.values())) {
            if (!listed.has(held.coinId)) {
              this.mergeBalance({ ...held, available: "0", frozen: "0", equity: "0", source: "rest" })
            }
          }
          for (const order of orders.slice().sort((a, b) => a.updatedTime - b.updatedTime)) this.mergeOrder(order)
          // Orders held for their filled quantity: REST's records (merged above, if it knows them) tell it.
          for (const orderId of held) this.settle(orderId, undefined)
          const asPushed = pushedFills(buffered)
          for (const fill of fills.slice().sort((a, b) => a.time - b.time)) this.mergeFill(asPushed(fill))
          // An account push is a state: one that came before the balances were asked for is no newer than REST's
          // answer (of every coin, listed or left out at zero), so it is dropped (an older state after a newer one,
          // then the newer again, is a step back and a duplicate). One that came while REST's answer was on its way
          // may be older or newer than it (REST carries no version): of those, a coin takes only the last, and only
          // where it differs from REST's — never a state between, which may be older than REST's.
          const latest = new Map<string, Model.Balance>()
          buffered.forEach((frame, i) => this.apply(frame, control, { latest: i < before ? undefined : latest }))
          for (const balance of latest.values()) this.mergeBalance(balance)
        })
        this.prune()
        this.options.emit({ _tag: "Resynced", endpoint: "private", fills: fills.length, orders: orders.length })
        // Symbols consumers brought after this backfill took its list.
        return Effect.andThen(dropped, Effect.andThen(this.backlogs.deliver(), this.readAsked()))
      }))
  }

  // Symbols REST refused are no longer read. One consumers gave fails their streams (their symbol was not checked:
  // the venue's list could not be read when they joined); one learnt from a push is told in the log.
  private drop(refused: ReadonlyArray<Refusal>): Effect.Effect<void> {
    const learnt: Array<Refusal> = []
    for (const { error, symbol } of refused) {
      this.symbols.delete(symbol)
      this.asked.delete(symbol)
      this.late.delete(symbol)
      this.refused.add(symbol)
      this.fillMarks.delete(symbol)
      this.orderMarks.delete(symbol)
      const brought = this.given.get(symbol)
      this.given.delete(symbol)
      if (brought === undefined) learnt.push({ error, symbol })
      else for (const sink of brought) this.failSink(sink, new PushError.BackfillError({ error }))
    }
    return Effect.forEach(learnt, ({ error, symbol }) =>
      Effect.logWarning(
        `spotkit push: the private session no longer reads ${symbol} by REST after a reconnection (a symbol of` +
          ` a push, which REST refused: ${error.message}); its pushes are still delivered`
      ), { discard: true })
  }

  private failSink(sink: Sink<unknown>, reason: PushError.PushErrorReason): void {
    this.orderSinks.delete(sink as Sink<Model.OrderUpdate>)
    this.fillSinks.delete(sink as Sink<Model.Fill>)
    this.balanceSinks.delete(sink as Sink<Model.Balance>)
    for (const sinks of this.given.values()) sinks.delete(sink)
    this.backlogs.drop(sink)
    Queue.failCauseUnsafe(sink, Cause.fail(reason))
  }

  // A REST read failed: a retryable failure ends the connection (the next one's backfill reads again), any other the
  // session.
  private failed(error: SpotError.SpotError, control: Control): Effect.Effect<void> {
    if (forGood(error)) return this.failAll(new PushError.BackfillError({ error }))
    control.reconnect(`backfill: ${error.message}`, "backfill")
    return Effect.void
  }

  // One private push, merged. An item that does not decode is left to the REST backfill of a new connection.
  // `superseded`: account items are REST's answer's to judge: replaced by it (`latest` undefined), or waiting in
  // `latest` until the buffer is merged, the last one of a coin kept.
  private apply(
    frame: DataFrame,
    control: Control,
    superseded?: { readonly latest: Map<string, Model.Balance> | undefined }
  ): void {
    if (frame._tag !== "TradeEvent") return
    if (frame.channel === "account" && frame.version !== undefined) {
      const version = BigInt(frame.version)
      if (this.accountVersion !== undefined && version <= this.accountVersion) return
      this.accountVersion = version
    }
    for (const item of Push.privateItems(frame.channel, frame.data)) {
      switch (frame.channel) {
        case "fill": {
          const decoded = decodeFill(item)
          const fill = Result.isSuccess(decoded) ? Model.fillFromPush(decoded.success) : undefined
          if (fill !== undefined) this.mergeFill(fill)
          else control.reconnect("an undecodable fill push", "decode")
          break
        }
        case "orders": {
          const decoded = decodeOrder(item)
          const order = Result.isSuccess(decoded) ? Model.orderFromPush(decoded.success, frame.time) : undefined
          if (order !== undefined) this.mergeOrder(order)
          else control.reconnect("an undecodable order push", "decode")
          break
        }
        case "account": {
          const asset = decodeAsset(item)
          if (Result.isFailure(asset)) control.reconnect("an undecodable account push", "decode")
          else {
            const balance = Model.balanceFromPush(asset.success)
            if (superseded === undefined) this.mergeBalance(balance)
            else superseded.latest?.set(balance.coinId, balance)
          }
          break
        }
      }
    }
  }

  private mergeFill(fill: Model.Fill): void {
    if (this.fills.has(fill.fillId)) return
    this.fills.set(fill.fillId, { symbol: fill.symbol, time: fill.time, arrived: this.options.now() })
    this.learn(fill.symbol)
    this.raise(this.fillMarks, fill.symbol, fill.time)
    // Pushed fills are delivered whatever their time (the clocks may differ); REST ones from `since` on.
    if (fill.source === "rest" && fill.time < this.options.since) return
    for (const sink of this.fillSinks) this.backlogs.offer(this.fillSinks, sink, fill)
    this.counted()
  }

  private mergeOrder(update: Model.OrderChange, told = false): void {
    const old = this.orders.get(update.orderId)
    if (old === undefined && !told && filledWithout(update) === undefined) {
      const held = this.unsure.get(update.orderId)
      if (held !== undefined) held.push(update)
      else {
        this.unsure.set(update.orderId, [update])
        if (this.asks !== undefined) Queue.offerUnsafe(this.asks, update.orderId)
      }
      return
    }
    const order = mergeOrder(old, update)
    if (order === undefined) return
    this.orders.set(order.orderId, order)
    if (order.final) this.ended.set(order.orderId, this.options.now())
    this.learn(order.symbol)
    this.raise(this.orderMarks, order.symbol, order.createdTime ?? order.updatedTime)
    // An order first seen from REST that had ended before the session started (read back within the overlap, or asked
    // for by a fill before the start) is no change "from now on", as its fills before `since` are not: recorded, so
    // that a later push of its end is recognised, not delivered. One already delivered (open) has its end delivered.
    if (old === undefined && order.source === "rest" && order.final && order.updatedTime < this.options.since) return
    for (const sink of this.orderSinks) this.backlogs.offer(this.orderSinks, sink, order)
    this.counted()
  }

  // REST's order info for an order held for its filled quantity. A failure is a backfill's: a retryable one ends the
  // connection, and the next backfill asks. REST not knowing the order may only lag the push that told of it: it is
  // asked again `ASK_SPACING` later, `ASK_ATTEMPTS` times in all, before its pushes are merged as they are.
  private ask(orderId: string, generation: number, attempt = 1): Effect.Effect<void> {
    return Effect.flatMap(Effect.result(this.options.rest.order(orderId)), (result) =>
      Effect.suspend(() => {
        if (generation !== this.generation || !this.unsure.has(orderId)) return Effect.void
        if (Result.isFailure(result)) {
          return this.connection === undefined ? Effect.void : this.failed(result.failure, this.connection.control)
        }
        if (result.success === undefined && attempt < ASK_ATTEMPTS && this.connection !== undefined) {
          const again = Effect.delay(this.ask(orderId, generation, attempt + 1), ASK_SPACING)
          return Effect.asVoid(Effect.forkIn(again, this.connection.scope))
        }
        this.backlogs.hold(() => this.settle(orderId, result.success))
        return this.backlogs.deliver()
      }))
  }

  // An order held for its filled quantity, told by REST: its record, then the pushes held, on top (an order only moves
  // forward). REST not knowing it, the pushes are merged as they are (filled "0" unless a later one tells it).
  private settle(orderId: string, record: Model.OrderUpdate | undefined): void {
    const held = this.unsure.get(orderId)
    if (held === undefined) return
    this.unsure.delete(orderId)
    if (record !== undefined) this.mergeOrder(record)
    for (const change of held) this.mergeOrder(change, true)
  }

  private mergeBalance(balance: Model.Balance): void {
    const old = this.balances.get(balance.coinId)
    // Compared as decimals: REST and push may write one amount differently ("0.004" and "0.0040000000000000").
    if (
      old !== undefined && sameAmount(old.available, balance.available) && sameAmount(old.frozen, balance.frozen) &&
      sameAmount(old.equity, balance.equity)
    ) return
    this.balances.set(balance.coinId, balance)
    for (const sink of this.balanceSinks) this.backlogs.offer(this.balanceSinks, sink, balance)
  }

  private counted(): void {
    if (++this.merged % 1024 === 0) this.prune()
  }

  // Fill ids and final orders far behind their symbol's watermarks cannot come back from REST (it looks back only the
  // overlap): forgotten, so that memory stays flat however long the session runs. A final order that filled can also
  // come back through a fill of it not seen yet (its order is asked for), and fills are read from the fill watermark,
  // which stands still while orders are placed and not filled: such an order is kept until both watermarks passed it.
  // A fill id, and a final order, is also kept for the retention after it arrived (ended): pushes are delivered
  // whatever their time, and a venue that pushes a fill or an order's end again (on a new connection, at least once)
  // would otherwise have it delivered twice once a later event (minutes later) moved the watermark past it. Refusing
  // pushes behind the watermark instead would drop genuine ones; kept by arrival, memory stays bounded by what arrives
  // within the retention.
  private prune(): void {
    const { retentionMillis } = this.options
    const arrivedBefore = this.options.now() - retentionMillis
    for (const [id, fill] of this.fills) {
      if (fill.arrived < arrivedBefore && fill.time < this.mark(this.fillMarks, fill.symbol) - retentionMillis) {
        this.fills.delete(id)
      }
    }
    for (const [id, order] of this.orders) {
      if (!order.final) continue
      const orderMark = this.mark(this.orderMarks, order.symbol)
      const mark = Decimal.compare(order.filledQuantity, "0") > 0
        ? Math.min(orderMark, this.mark(this.fillMarks, order.symbol))
        : orderMark
      if (order.updatedTime < mark - retentionMillis && (this.ended.get(id) ?? 0) < arrivedBefore) {
        this.orders.delete(id)
        this.ended.delete(id)
      }
    }
  }
}
