// The public channels' feeds: what one channel's frames become for every consumer of it, and how each consumer is
// kept from falling behind. A book feed keeps one book per channel, rebuilt from the snapshot and versioned changes;
// its consumers get consistent books, never one built across a gap: every one while their queue has room; one whose
// queue is full gets the latest book when it has room again (`overflow.ts`: the books between skipped, with no
// notice), and one that leaves a book waiting longer than a second lags: a `Resync` ("lag"), then the latest book. A
// snapshot sent before the subscription's acknowledgement (or with it) is kept with the changes after it, and the
// book starts from them once the subscription is acknowledged. A subscription acknowledged
// with no snapshot after `snapshotTimeoutMillis` (a snapshot lost) is subscribed again, since changes alone never make
// a book; `SNAPSHOT_ATTEMPTS` such subscriptions in a row fail the stream. A ticker feed keeps the latest ticker; its
// consumers get the latest one (latest wins).
import { Cause, Effect, Queue, Result, Schema } from "effect"
import type { Scope } from "effect"
import * as Push from "../../Push.ts"
import * as PushError from "../../PushError.ts"
import { Book, Continuity } from "./book.ts"
import type { Outcome } from "./book.ts"
import type { BookEvent, Event, ResyncReason } from "./model.ts"
import type { Overflow, Sink } from "./overflow.ts"
import type { Control, DataFrame, Feed } from "./subscriptions.ts"

/**
 * Subscriptions in a row acknowledged with no snapshot within the deadline before a book stream fails: each but the
 * last is followed by a resubscription (2 of the connection's operations), so a venue that never sends one costs 6.
 */
export const SNAPSHOT_ATTEMPTS = 3

/**
 * Depth messages kept while a subscription awaits its acknowledgement (its snapshot and the changes after it): beyond,
 * all are forgotten, and the snapshot deadline subscribes again.
 */
export const EARLY_LIMIT = 4_096

export type { Sink } from "./overflow.ts"

/** A feed and the consumers it delivers to. */
export interface Delivering<A> extends Feed {
  /** Adds a consumer, giving it what it needs to start (the book or the ticker as they are). */
  readonly attach: (sink: Sink<A>) => void
  readonly detach: (sink: Sink<A>) => void
  readonly size: number
}

const failAll = <A>(sinks: Iterable<Sink<A>>, reason: PushError.PushErrorReason): Effect.Effect<void> =>
  Effect.sync(() => {
    for (const sink of sinks) Queue.failCauseUnsafe(sink, Cause.fail(reason))
  })

// A book waiting for room is replaced by a later one; a `Resync` is never skipped, nor a book across one.
const bookReplacesBook = (last: BookEvent, next: BookEvent): boolean => last._tag === "Book" && next._tag === "Book"

const decodeDepth = Schema.decodeUnknownResult(Push.Depth)
const decodeTicker = Schema.decodeUnknownResult(Push.Ticker)

export class BookFeed implements Delivering<BookEvent> {
  private readonly book: Book
  private readonly sinks = new Set<Sink<BookEvent>>()
  private latest: BookEvent | undefined = undefined
  // Whether consumers were told the book is being rebuilt since the last consistent book.
  private resyncing = true
  // Subscriptions in a row whose snapshot did not come within the deadline.
  private missed = 0
  // While the subscription awaits its acknowledgement: the latest snapshot and the changes after it.
  private early: Array<Push.Depth> = []
  private readonly channel: string
  private readonly onFailed: (channel: string) => Effect.Effect<void>
  private readonly emit: (event: Event) => void
  private readonly snapshotTimeoutMillis: number
  private readonly onLag: () => void
  private readonly overflow: Overflow

  constructor(
    symbol: string,
    depth: Push.DepthLevel,
    onFailed: (channel: string) => Effect.Effect<void>,
    emit: (event: Event) => void,
    snapshotTimeoutMillis: number,
    /** Where what a consumer's queue has no room for waits (`overflow.ts`). */
    overflow: Overflow,
    /** Told of each lag notice given to a consumer (the metrics count it). */
    onLag: () => void = () => undefined,
    /** How the venue's changes follow each other, learned once for the service's books (`book.ts`). */
    continuity: Continuity = new Continuity()
  ) {
    this.book = new Book(symbol, depth, continuity)
    this.channel = Push.channels.depth(symbol, depth)
    this.onFailed = onFailed
    this.emit = emit
    this.snapshotTimeoutMillis = snapshotTimeoutMillis
    this.overflow = overflow
    this.onLag = onLag
  }

  get size(): number {
    return this.sinks.size
  }

  attach(sink: Sink<BookEvent>): void {
    this.sinks.add(sink)
    if (this.latest !== undefined) Queue.offerUnsafe(sink, this.latest)
  }

  detach(sink: Sink<BookEvent>): void {
    this.sinks.delete(sink)
  }

  // The subscription counts from now: the book starts afresh, from the snapshot (and the changes after it) that came
  // before the acknowledgement if one did. Changes alone never make a book, and they keep the connection from going
  // idle: without a snapshot by the deadline the channel is subscribed again (the deadline lives in the subscription's
  // scope, so a resync, a reconnect or a removal ends it).
  onActive(_channel: string, scope: Scope.Scope, control: Control): Effect.Effect<void> {
    return Effect.suspend(() => {
      this.book.reset()
      const early = this.early
      this.early = []
      let applied = false
      for (const message of early) {
        const outcome = this.step(message, control)
        if (outcome === "gap") {
          applied = false
          break
        }
        if (outcome === "applied") applied = true
      }
      // One book for what came before the acknowledgement, not one for each message of it.
      if (applied) this.published()
      const deadline = Effect.andThen(
        Effect.sleep(this.snapshotTimeoutMillis),
        Effect.suspend(() => this.book.live ? Effect.void : this.snapshotMissed(control))
      )
      return Effect.asVoid(Effect.forkIn(deadline, scope))
    })
  }

  // Before the acknowledgement: a snapshot replaces what was kept, a change is kept after one, and a change with no
  // snapshot before it is dropped (during a resync it may be the previous subscription's, which never sends a snapshot
  // after the new one's). An undecodable message, or more than `EARLY_LIMIT`, forgets all: the deadline recovers.
  onEarly(_channel: string, frame: DataFrame): void {
    if (frame._tag !== "Payload") return
    for (const item of frame.data) {
      const decoded = decodeDepth(item)
      if (Result.isFailure(decoded)) {
        this.early = []
        continue
      }
      const message = decoded.success
      if (message.depthType === "SNAPSHOT") this.early = [message]
      else if (this.early.length > 0) {
        if (this.early.length >= EARLY_LIMIT) this.early = []
        else this.early.push(message)
      }
    }
  }

  private snapshotMissed(control: Control): Effect.Effect<void> {
    this.missed++
    if (this.missed >= SNAPSHOT_ATTEMPTS) {
      const reason = new PushError.SnapshotTimeoutError({
        channel: this.channel,
        timeoutMillis: this.snapshotTimeoutMillis,
        attempts: this.missed
      })
      return this.onFail(this.channel, reason)
    }
    // The consumers were told when the book stopped (or have had none yet): the resubscription shows on `events`.
    this.emit({ _tag: "Resync", channel: this.channel, reason: "snapshot" })
    return control.resyncNow(this.channel)
  }

  onInactive(): Effect.Effect<void> {
    return Effect.sync(() => {
      this.early = []
      this.restart("reconnect")
    })
  }

  onFail(channel: string, reason: PushError.PushErrorReason): Effect.Effect<void> {
    return Effect.andThen(failAll(this.sinks, reason), this.onFailed(channel))
  }

  onFrame(frame: DataFrame, control: Control): void {
    if (frame._tag !== "Payload") return
    for (const item of frame.data) {
      const decoded = decodeDepth(item)
      if (Result.isFailure(decoded)) {
        this.restart("decode")
        control.resync(this.channel)
        return
      }
      switch (this.step(decoded.success, control)) {
        case "applied":
          this.published()
          break
        case "gap":
          return
        case "stale":
        case "ignored":
          break
      }
    }
  }

  // One depth message on the book; a gap restarts it and resubscribes the channel.
  private step(message: Push.Depth, control: Control): Outcome {
    const outcome = this.book.apply(message)
    if (outcome === "gap") {
      this.restart("gap")
      control.resync(this.channel)
    }
    return outcome
  }

  // The book as it is now goes to the consumers.
  private published(): void {
    this.resyncing = false
    this.missed = 0
    this.publish({ _tag: "Book", book: this.book.snapshot() })
  }

  // The book is no longer consistent: consumers hear it once, and get nothing more until the next snapshot.
  private restart(reason: ResyncReason): void {
    this.book.reset()
    this.latest = undefined
    if (this.resyncing) return
    this.resyncing = true
    this.emit({ _tag: "Resync", channel: this.channel, reason })
    this.publish({ _tag: "Resync", symbol: this.book.symbol, reason })
  }

  // Into each consumer's queue; one with no room (or with events waiting already) gets it behind what waits, a book
  // in the place of a book waiting last: a consumer that keeps up gets what its queue held, then the latest book (a
  // book consumer wants the book as it is, not every step it went through), with no notice, as it did not lag.
  private publish(event: BookEvent): void {
    if (event._tag === "Book") this.latest = event
    for (const sink of this.sinks) {
      if (this.overflow.idle && Queue.offerUnsafe(sink, event)) continue
      this.overflow.offer(this.sinks, sink, event, this.lagged, bookReplacesBook)
    }
  }

  // The consumer is behind (an event waited its grace for room in its queue): what it has not taken is replaced by a
  // lag notice and the latest book (a book consumer wants the book as it is, not every step it went through).
  private readonly lagged = (_sinks: Set<Sink<BookEvent>>, sink: Sink<BookEvent>): void => {
    // Ended meanwhile (the stream failed): what its queue holds comes before the failure, and no notice is owed.
    if (sink.state._tag !== "Open") return
    while (Queue.takeUnsafe(sink) !== undefined) {
      // drained
    }
    Queue.offerUnsafe(sink, { _tag: "Resync", symbol: this.book.symbol, reason: "lag" })
    this.onLag()
    if (this.latest !== undefined) Queue.offerUnsafe(sink, this.latest)
  }
}

export class TickerFeed implements Delivering<Push.Ticker> {
  private readonly sinks = new Set<Sink<Push.Ticker>>()
  private latest: Push.Ticker | undefined = undefined
  private readonly onFailed: (channel: string) => Effect.Effect<void>

  constructor(onFailed: (channel: string) => Effect.Effect<void>) {
    this.onFailed = onFailed
  }

  get size(): number {
    return this.sinks.size
  }

  attach(sink: Sink<Push.Ticker>): void {
    this.sinks.add(sink)
    if (this.latest !== undefined) Queue.offerUnsafe(sink, this.latest)
  }

  detach(sink: Sink<Push.Ticker>): void {
    this.sinks.delete(sink)
  }

  onActive(): Effect.Effect<void> {
    return Effect.void
  }

  onInactive(): Effect.Effect<void> {
    return Effect.void
  }

  onFail(channel: string, reason: PushError.PushErrorReason): Effect.Effect<void> {
    return Effect.andThen(failAll(this.sinks, reason), this.onFailed(channel))
  }

  onFrame(frame: DataFrame): void {
    if (frame._tag !== "Payload") return
    for (const item of frame.data) {
      const decoded = decodeTicker(item)
      if (Result.isFailure(decoded)) continue
      this.latest = decoded.success
      // Sliding queues of one: a slow consumer gets the latest ticker.
      for (const sink of this.sinks) Queue.offerUnsafe(sink, decoded.success)
    }
  }
}
