// One push connection slot: a WebSocket that is dialled again whenever it drops, carrying up to 100 channels.
//
// Each (re)connection waits for a connection attempt from the shared budget, dials with headers made afresh (a private
// connection signs its timestamp then), subscribes every channel it carries, and reads until the connection ends:
// pings are answered with the key and time they came with, acknowledgements make subscriptions live, data frames go
// to the feed of a live channel (those of a channel awaiting its acknowledgement to the feed's `onEarly`, if it has
// one), and no frame at all for `idleTimeout` ends the connection (the venue may stall with the socket open). Then the
// loop waits a jittered exponential backoff and dials again. This module is that loop; how a frame is read and routed
// is `dispatch.ts`'s, what the channels' subscriptions are and what is sent for them `subscriptions.ts`'s.
// Subscriptions are sent from the registry inside each connection, never queued on the socket's writer across
// connections.
//
// Each attempt (the wait for the budget, the dial and the handshake) is a `SpotPush.connect` span, a root span of its
// own (a reconnect hours later belongs to no caller's trace), and is counted by its outcome; the data frames read are
// counted per channel kind as plain integers and added to the metric once per batch (`telemetry.ts`).
import { Cause, Clock, Deferred, Duration, Effect, Exit, Fiber, Option, Random, Result, Scope } from "effect"
import * as Socket from "effect/socket/Socket"
import type * as Push from "../../Push.ts"
import * as PushError from "../../PushError.ts"
import type * as SpotError from "../../SpotError.ts"
import { collectGrants, millisOf, stopCollecting } from "../client/rateLimiter.ts"
import { Dispatch } from "./dispatch.ts"
import type { Backoff } from "./limits.ts"
import { backoffDelay, OperationLog } from "./limits.ts"
import type { Event } from "./model.ts"
import { RateLimitedWarning } from "./rateLimitedLog.ts"
import { Subscriptions } from "./subscriptions.ts"
import type { Entry, Feed, Live } from "./subscriptions.ts"
import { none, outcomeOf, reconnectReasonOf, Replaced } from "./telemetry.ts"
import type { Reporter } from "./telemetry.ts"
import type { VenueText } from "./venueText.ts"

/** A connection attempt granted by the shared budget; `settle` once the attempt is over. */
export interface AttemptPermit {
  readonly settle: Effect.Effect<void>
}

export interface Settings {
  readonly endpoint: Push.Endpoint
  readonly idleTimeout: Duration.Input
  readonly ackTimeoutMillis: number
  readonly backoff: Backoff
  readonly operations: { readonly limit: number; readonly windowMillis: number }
  /** Waits for a connection attempt of the shared budget (a store that cannot be reached fails the attempt). */
  readonly attempt: Effect.Effect<AttemptPermit, SpotError.RateLimitStoreError>
  readonly emit: (event: Event) => void
  /** Makes what the venue says safe to quote: credentials and handshake signatures scrubbed, printable. */
  readonly text: VenueText
  /** The service's metrics. @default none */
  readonly telemetry?: Reporter | undefined
  /**
   * Private connections: whether the venue refuses the credentials (a signed REST call), asked after a handshake that
   * did not open, or a connection that ended with no subscription acknowledged, at most once every
   * `CREDENTIALS_CHECK_INTERVAL_MILLIS`; a reason fails every channel for good.
   * @default none (never asked)
   */
  readonly credentialsRefused?: Effect.Effect<PushError.PushErrorReason | undefined> | undefined
}

/**
 * How often REST is asked whether the venue refuses the credentials while private handshakes keep failing: after the
 * first that fails, then at most once a minute (one signed call; the backoff dials up to twice a minute).
 */
export const CREDENTIALS_CHECK_INTERVAL_MILLIS = 60_000

/**
 * A connection lost this many times in a row (never up for `backoff.resetAfter` between) is logged as a warning, at
 * most once every `LOSS_WARNING_INTERVAL_MILLIS`: its streams wait on, and the `Disconnected` events and a debug line
 * alone go unseen by a program that does not watch them (a venue that closes it at once, a limit of the venue's shared
 * with other programs on the address, a venue unreachable).
 */
export const LOSSES_BEFORE_WARNING = 3
export const LOSS_WARNING_INTERVAL_MILLIS = 60_000

/** Marks an open failure that no reconnect can mend: the platform cannot send the handshake headers. */
export class HeadersUnsupported {
  readonly _tag = "HeadersUnsupported"
}

const isHeadersUnsupported = (error: unknown): boolean =>
  Socket.isSocketError(error) && error.reason._tag === "SocketOpenError" &&
  error.reason.cause instanceof HeadersUnsupported

// A live connection: its subscriptions' side, how the loop is told to end it, and whether it is counted open.
interface Session extends Live {
  readonly end: Deferred.Deferred<never, Replaced>
  /** Whether it counts among the connections open (until it is down). */
  open: boolean
}

// What an error says of itself: an `Error`'s or an `ErrorEvent`'s message (a WebSocket's error events carry one).
const messageOf = (u: unknown): string | undefined =>
  typeof u === "object" && u !== null && "message" in u && typeof u.message === "string" && u.message !== ""
    ? u.message
    : undefined

const defectOf = (defect: unknown): string => {
  if (defect instanceof Error) return `${defect.name}: ${defect.message}`
  const message = messageOf(defect)
  return message ?? (typeof defect === "string" ? defect : `a value of type ${typeof defect}`)
}

const describeError = (error: unknown): string => {
  if (!Socket.isSocketError(error)) return typeof error === "string" ? error : defectOf(error)
  const reason = error.reason
  const cause = "cause" in reason ? messageOf(reason.cause) : undefined
  return `${reason._tag}: ${reason.message}${cause === undefined || cause === reason.message ? "" : ` (${cause})`}`
}

/**
 * Why a connection ended, as a text that may quote the venue (a close reason, a socket error's message): the
 * caller scrubs it. A defect is described too (its name and message), never as `undefined`.
 */
export const describe = (cause: Cause.Cause<unknown>): string => {
  const error = Cause.findErrorOption(cause)
  if (Option.isSome(error)) return describeError(error.value)
  const defect = Cause.findDefect(cause)
  if (Result.isSuccess(defect)) return `a defect: ${defectOf(defect.success)}`
  return Cause.hasInterrupts(cause) ? "interrupted" : "ended"
}

export class Connection {
  readonly id: number
  private fiber: Fiber.Fiber<void> | undefined = undefined
  private running = false
  private readonly settings: Settings
  private readonly socket: Socket.Socket
  private readonly now: () => number
  private readonly subscriptions: Subscriptions
  private readonly dispatch: Dispatch
  // When REST was last asked whether the credentials are refused (`Settings.credentialsRefused`).
  private credentialsCheckedAt: number | undefined = undefined
  private readonly lossWarning = new RateLimitedWarning(LOSS_WARNING_INTERVAL_MILLIS)
  private readonly telemetry: Reporter
  stopping = false

  constructor(id: number, settings: Settings, socket: Socket.Socket, now: () => number) {
    this.id = id
    this.settings = settings
    this.socket = socket
    this.now = now
    this.telemetry = settings.telemetry ?? none
    this.subscriptions = new Subscriptions(settings.ackTimeoutMillis, now)
    this.dispatch = new Dispatch({
      id,
      endpoint: settings.endpoint,
      text: settings.text,
      now,
      subscriptions: this.subscriptions
    })
  }

  /** The channels it carries. */
  get channels(): ReadonlyMap<string, Entry> {
    return this.subscriptions.channels
  }

  /**
   * Whether another channel fits: under the channel cap (counting the channels the venue may still carry), and with an
   * operation left on a live connection.
   */
  fits(cap: number): boolean {
    return this.full(cap) === undefined
  }

  /** Why another channel does not fit (`Subscriptions.full`), or it is stopping; `undefined` if it fits. */
  full(cap: number): "channels" | "operations" | undefined {
    return this.stopping ? "channels" : this.subscriptions.full(cap)
  }

  /** Starts the reconnecting loop in `scope` unless it runs (it ends when no channel is left). */
  start(scope: Scope.Scope): Effect.Effect<void> {
    if (this.running || this.stopping) return Effect.void
    this.running = true
    const run = Effect.ensuring(this.run(), Effect.sync(() => (this.running = false)))
    return Effect.map(Effect.forkIn(run, scope), (fiber) => {
      if (this.running) this.fiber = fiber
    })
  }

  /** Ends the loop and the connection. */
  stop(): Effect.Effect<void> {
    this.stopping = true
    const fiber = this.fiber
    this.fiber = undefined
    return fiber === undefined ? Effect.void : Fiber.interrupt(fiber)
  }

  /** Carries a channel from now on (`Subscriptions.add`). */
  add(channel: string, feed: Feed): Effect.Effect<void> {
    return this.subscriptions.add(channel, feed)
  }

  /** Stops carrying a channel (`Subscriptions.remove`). */
  remove(channel: string): Effect.Effect<void> {
    return this.subscriptions.remove(channel)
  }

  private connectOnce(onConnected: () => void): Effect.Effect<never, unknown> {
    return Effect.scoped(Effect.gen({ self: this }, function*() {
      const pull = yield* this.attempt(this.dial())
      const writer = yield* this.socket.writer
      const scope = yield* Effect.scope
      const end = yield* Deferred.make<never, Replaced>()
      const subscriptions = this.subscriptions
      const live: Session = {
        scope,
        send: (text) => Effect.ignore(writer.write(text)),
        ops: new OperationLog(this.settings.operations.limit, this.settings.operations.windowMillis),
        resyncs: new Set(),
        lingering: new Set(),
        unsubscribing: new Map(),
        end,
        open: false,
        control: {
          resync: (channel) => live.resyncs.add(channel),
          resyncNow: (channel) => subscriptions.resyncNow(live, channel),
          reconnect: (reason, why) => Deferred.doneUnsafe(end, Exit.fail(new Replaced(why, reason)))
        }
      }
      subscriptions.live = live
      // Ended by an interruption, the loop is stopping for good (the service's scope closing, the program
      // interrupted): nothing reconnects, so the feeds are not told to rebuild.
      yield* Scope.addFinalizerExit(scope, (exit) => this.down(live, Exit.hasInterrupts(exit)))
      live.open = true
      this.telemetry.open(this.settings.endpoint, 1)
      onConnected()
      this.settings.emit({ _tag: "Connected", endpoint: this.settings.endpoint, connection: this.id })
      for (const channel of Array.from(subscriptions.channels.keys())) yield* subscriptions.subscribe(live, channel)
      return yield* Effect.raceFirst(this.read(live, pull), Deferred.await(end))
    }))
  }

  // Reads until the connection fails, or stays silent for `idleTimeout`.
  private read(
    live: Live,
    pull: Effect.Effect<ReadonlyArray<string | Uint8Array>, Socket.SocketError>
  ): Effect.Effect<never, unknown> {
    const idle = () =>
      Effect.fail(
        new Replaced("idle", `no frame for ${Duration.format(Duration.fromInputUnsafe(this.settings.idleTimeout))}`)
      )
    return Effect.forever(
      Effect.gen({ self: this }, function*() {
        const batch = yield* Effect.timeoutOrElse(pull, { duration: this.settings.idleTimeout, orElse: idle })
        for (const message of batch) {
          const effect = this.dispatch.frame(live, message)
          if (effect !== undefined) yield* effect
        }
        this.telemetry.received(this.dispatch.received)
        if (live.resyncs.size > 0) yield* this.subscriptions.resyncs(live)
      }),
      { disableYield: true }
    )
  }

  // The connection ended: it is no longer counted open, and its channels stop counting (`closing`: for good).
  private down(live: Session, closing: boolean): Effect.Effect<void> {
    return Effect.suspend(() => {
      if (live.open) {
        live.open = false
        this.telemetry.open(this.settings.endpoint, -1)
      }
      // The frames of a batch cut short (the connection ended while a frame's effect ran) are counted now: the loop
      // may never read another batch (its last stream stopped).
      this.telemetry.received(this.dispatch.received)
      return this.subscriptions.down(live, closing)
    })
  }

  // The wait for the budget's permit, then the dial and the handshake, with the permit settled however they end. The
  // settling is in place before the permit is asked for (as the client's limit stage does it, `pipeline.ts` `limited`):
  // once the store granted it, an interruption (the streams stopped) settles it at once rather than leaving it to its
  // lease, even between the grant and the step that would have handed it over (the run loop may yield there, and an
  // interruption then skips that step): the stores record their grants on the fiber (`RateLimiter.granted`), and what
  // they granted so is settled through its `settle`, which for the Redis store settles its entry in Redis too. The
  // wait stays interruptible.
  // The messages are read as they came (text or bytes), to be decoded one by one (`dispatch.ts` `textOf`).
  private dial(): Effect.Effect<
    Effect.Effect<ReadonlyArray<string | Uint8Array>, Socket.SocketError>,
    unknown,
    Scope.Scope
  > {
    return Effect.withFiber((fiber) => {
      const grants = collectGrants(fiber)
      let permit: AttemptPermit | undefined
      return Effect.onExit(
        Effect.flatMap(this.settings.attempt, (granted) => {
          stopCollecting(fiber, grants)
          permit = granted
          return Effect.map(this.socket.reader, (reader) => reader.pull)
        }),
        () =>
          Effect.suspend(() => {
            stopCollecting(fiber, grants)
            if (permit !== undefined) return permit.settle
            return Effect.forEach(grants, (grant) => grant.settle, { discard: true })
          })
      )
    })
  }

  // One attempt: the wait for the budget's permit, the dial and the handshake, as the span `SpotPush.connect` with its
  // `outcome`, counted. The span ends failed with the reason as the `Disconnected` event quotes it (scrubbed), never
  // with the error itself, which may quote the venue; the caller gets the attempt's own exit. An attempt interrupted
  // before it ended otherwise (its streams stopped) is counted `interrupted`, its span too.
  private attempt<A, R>(dial: Effect.Effect<A, unknown, R>): Effect.Effect<A, unknown, R> {
    const { endpoint, text } = this.settings
    let result: Exit.Exit<A, unknown> | undefined
    const counted = Effect.flatMap(Effect.exit(dial), (exit) => {
      result = exit
      const outcome = outcomeOf(exit)
      this.telemetry.attempted(endpoint, outcome)
      return Effect.andThen(
        Effect.annotateCurrentSpan("outcome", outcome),
        Exit.isSuccess(exit) ? Effect.void : Effect.fail(text.line(describe(exit.cause), 400))
      )
    })
    const spanned = Effect.withSpan(
      Effect.onInterrupt(counted, () =>
        Effect.suspend(() => {
          // Counted already when the interruption came after the attempt's end.
          if (result !== undefined) return Effect.void
          this.telemetry.attempted(endpoint, "interrupted")
          return Effect.annotateCurrentSpan("outcome", "interrupted")
        })),
      "SpotPush.connect",
      { root: true, attributes: { endpoint, connection: this.id } }
    )
    return Effect.flatMap(Effect.exit(spanned), () => result ?? Effect.interrupt)
  }

  // After a private handshake that did not open: whether the venue refuses the credentials, asked of REST at most once
  // every `CREDENTIALS_CHECK_INTERVAL_MILLIS`. A refusal with a status ("refused") may be the key's; so may a failure
  // with none ("failed"): Node's global WebSocket and the browsers' do not say the status. A timeout or a budget store
  // that cannot be reached is no answer of the venue's.
  private credentialsRefused(exit: Exit.Exit<unknown, unknown>): Effect.Effect<PushError.PushErrorReason | undefined> {
    const check = this.settings.credentialsRefused
    if (check === undefined) return Effect.succeed(undefined)
    const outcome = outcomeOf(exit)
    if (outcome !== "refused" && outcome !== "failed") return Effect.succeed(undefined)
    const now = this.now()
    if (
      this.credentialsCheckedAt !== undefined && now - this.credentialsCheckedAt < CREDENTIALS_CHECK_INTERVAL_MILLIS
    ) {
      return Effect.succeed(undefined)
    }
    this.credentialsCheckedAt = now
    return check
  }

  private run(): Effect.Effect<void> {
    return Effect.gen({ self: this }, function*() {
      let attempt = 0
      // Of the attempts in a row, those that opened: the warning says "lost" for those, "could not connect" for the
      // others (a wrong URL, a venue that refuses the upgrade).
      let opens = 0
      while (this.subscriptions.channels.size > 0) {
        let connectedAt: number | undefined
        const acknowledgements = this.subscriptions.acknowledgements
        const exit = yield* Effect.exit(this.connectOnce(() => {
          connectedAt = this.now()
        }))
        const cause = Exit.isFailure(exit) ? Option.getOrUndefined(Cause.findErrorOption(exit.cause)) : undefined
        const reason = this.settings.text.line(Exit.isFailure(exit) ? describe(exit.cause) : "ended", 400)
        if (isHeadersUnsupported(cause)) {
          for (const channel of Array.from(this.subscriptions.channels.keys())) {
            yield* this.subscriptions.fail(channel, new PushError.HeadersUnsupportedError({}))
          }
          return
        }
        // A venue may take the upgrade and refuse the key on the open socket (a close 4001, an error frame): a
        // connection that opened but had no subscription acknowledged is asked about as a handshake that did not open.
        const refused = connectedAt === undefined || this.subscriptions.acknowledgements === acknowledgements
          ? yield* this.credentialsRefused(exit)
          : undefined
        if (refused !== undefined) {
          for (const channel of Array.from(this.subscriptions.channels.keys())) {
            yield* this.subscriptions.fail(channel, refused)
          }
          return
        }
        if (connectedAt !== undefined && this.now() - connectedAt >= this.settings.backoff.resetAfterMillis) {
          attempt = 0
          opens = 0
        }
        if (connectedAt !== undefined) opens++
        const delay = backoffDelay(this.settings.backoff, attempt++, yield* Random.next)
        // Counted now, before the backoff: the connection is lost whether or not it is dialled again (its streams may
        // all stop meanwhile); the dial itself is counted as an attempt.
        this.telemetry.reconnecting(this.settings.endpoint, reconnectReasonOf(exit, connectedAt !== undefined))
        this.settings.emit({
          _tag: "Disconnected",
          endpoint: this.settings.endpoint,
          connection: this.id,
          opened: connectedAt !== undefined,
          reason,
          retryInMillis: delay
        })
        yield* Effect.logDebug(`spotkit push: connection ${this.id} ended (${reason}), again in ${delay} ms`)
        if (attempt >= LOSSES_BEFORE_WARNING) {
          const warning = this.lossWarning.warn(
            this.now(),
            () =>
              `spotkit push: ${this.settings.endpoint} connection ${this.id} ${
                opens === attempt ? "lost" : opens === 0 ? "could not connect" : "lost or could not connect"
              } ${attempt} times in a row (last: ${reason}); its streams wait, dialling again in ${delay} ms`
          )
          if (warning !== undefined) yield* warning
        }
        yield* Effect.sleep(delay)
      }
    })
  }
}

/**
 * The monotonic clock as a plain function (ms), for the synchronous bookkeeping of limits: the operations' window, the
 * interval of error-frame warnings, how long a connection stayed up. They are durations, which a step of the wall clock
 * (NTP, a user setting the time) must not stretch or cut.
 */
export const nowFunction: Effect.Effect<() => number> = Clock.clockWith((clock) =>
  Effect.succeed(() => millisOf(clock.monotonicTimeNanosUnsafe()))
)
