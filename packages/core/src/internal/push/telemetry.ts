// What the push service reports about itself (Telemetry.ts): its connection attempts and their outcome (a
// `SpotPush.connect` span each), the connections open, the reconnects and why, the books' resyncs (a book consumer's lag
// included), the streams' REST backfills, the trades' gaps and the data messages received per channel kind. Every
// attribute is one of a fixed few words (the endpoint, an outcome, a reason, a stream's or a channel's kind), never a
// symbol or what the venue said, so each series is built once and looked up.
//
// The metrics are updated without an effect, in the registry and metric attributes of the context the service was made
// in: the events come from synchronous code (a feed's frame handler, a connection's bookkeeping). Messages are counted
// by the connection as plain integers while it reads a batch, and added to the metric once per batch.
import { Cause, Context, Effect, Exit, Metric, Option } from "effect"
import * as Socket from "effect/socket/Socket"
import * as Push from "../../Push.ts"
import * as Telemetry from "../../Telemetry.ts"
import { counter, tagged } from "../client/telemetry.ts"
import type { Event } from "./model.ts"

/** The channel kinds counted, in the order of a connection's counts (`kindOf`). */
export const KINDS: ReadonlyArray<Push.Channel["kind"]> = [
  "depth",
  "trades",
  "ticker",
  "kline",
  "orders",
  "fill",
  "account"
]

/** A channel's kind as an index into `KINDS`; -1 for a name the venue does not serve (never counted). */
export const kindOf = (channel: string): number => {
  const parsed = Push.parseChannel(channel)
  return parsed === undefined ? -1 : KINDS.indexOf(parsed.kind)
}

// A refused upgrade, as the WebSocket implementations say it (`ws`: "Unexpected server response: 401"; the test
// exchange's in-process one says the same in its error event's `data`): the venue answered the handshake with an HTTP
// status (a bad signature, a timestamp out of its window, too many attempts). Node's global WebSocket (undici) and the
// browsers' do not say it (an error event with no status), so a refusal through them is `failed`.
const REFUSED = /Unexpected server response: \d{3}/

const messageOf = (u: unknown): string | undefined => {
  if (typeof u === "string") return u
  if (typeof u !== "object" || u === null) return undefined
  if ("message" in u && typeof u.message === "string") return u.message
  return "data" in u && typeof u.data === "string" ? u.data : undefined
}

/** How a connection attempt ended (`Telemetry.PushConnectOutcome`), from its exit. */
export const outcomeOf = (exit: Exit.Exit<unknown, unknown>): Telemetry.PushConnectOutcome => {
  if (Exit.isSuccess(exit)) return "connected"
  const error = Option.getOrUndefined(Cause.findErrorOption(exit.cause))
  if (error === undefined) return "failed"
  if (typeof error === "object" && error !== null && "_tag" in error && error._tag === "RateLimitStoreError") {
    return "store_failed"
  }
  if (!Socket.isSocketError(error) || error.reason._tag !== "SocketOpenError") return "failed"
  const reason = error.reason
  if (reason.kind === "Timeout") return "timeout"
  if (typeof reason.cause === "object" && reason.cause !== null && "_tag" in reason.cause) {
    if (reason.cause._tag === "HeadersUnsupported") return "unsupported"
  }
  const message = messageOf(reason.cause)
  return message !== undefined && REFUSED.test(message) ? "refused" : "failed"
}

/**
 * The client's own ending of a connection (`Control.reconnect`, and no frame for `idleTimeout`), as what the connection
 * fails with: why in words for the reconnect's metric, and the text the `Disconnected` event quotes (`message`).
 */
export class Replaced {
  readonly _tag = "Replaced"
  readonly reason: ReplacedReason
  readonly message: string
  constructor(reason: ReplacedReason, message: string) {
    this.reason = reason
    this.message = message
  }
}

/** Why the client itself ends a connection (`Telemetry.PushReconnectReason`). */
export type ReplacedReason = Extract<
  Telemetry.PushReconnectReason,
  "idle" | "unacknowledged" | "operations" | "backfill" | "decode"
>

/**
 * Why a connection ended, or its attempt failed (`connected`: whether it had opened), to be dialled again
 * (`Telemetry.PushReconnectReason`), from its exit.
 */
export const reconnectReasonOf = (
  exit: Exit.Exit<unknown, unknown>,
  connected: boolean
): Telemetry.PushReconnectReason => {
  if (!connected) {
    const outcome = outcomeOf(exit)
    return outcome === "refused" || outcome === "timeout" || outcome === "store_failed" ? outcome : "failed"
  }
  const error = Exit.isFailure(exit) ? Option.getOrUndefined(Cause.findErrorOption(exit.cause)) : undefined
  if (error instanceof Replaced) return error.reason
  if (Socket.isSocketError(error) && error.reason._tag === "SocketCloseError") {
    return error.reason.code === 1006 ? "dropped" : "closed"
  }
  return "error"
}

/** The streams whose gaps are closed by REST (`Telemetry.pushBackfills`' `stream`). */
export type BackfillStream = "private" | "trades" | "candles"

/** How a REST backfill ended (`Telemetry.pushBackfills`' `outcome`). */
export type BackfillOutcome = "ok" | "failed"

/** The reporting of one push service. */
export interface Reporter {
  /** A connection attempt ended: counted by endpoint and outcome. */
  readonly attempted: (endpoint: Push.Endpoint, outcome: Telemetry.PushConnectOutcome) => void
  /** A connection opened (+1) or ended (-1). */
  readonly open: (endpoint: Push.Endpoint, delta: 1 | -1) => void
  /** A connection ended, or its attempt failed, to be dialled again after its backoff: counted by endpoint and reason. */
  readonly reconnecting: (endpoint: Push.Endpoint, reason: Telemetry.PushReconnectReason) => void
  /** An event of `SpotPush.events`: a resync or a gap counted (a `Disconnected` is counted by `reconnecting`). */
  readonly event: (event: Event) => void
  /** A book consumer fell behind (`overflow.ts`): a resync of reason `lag` (no event: it is the consumer's own). */
  readonly lagged: () => void
  /** A stream's REST backfill ended: counted by stream and outcome. */
  readonly backfilled: (stream: BackfillStream, outcome: BackfillOutcome) => void
  /** Data messages received per channel kind (indexed as `KINDS`), added and reset to zero. */
  readonly received: (counts: Array<number>) => void
}

/** A reporter that reports nothing (tests of the parts below the service). */
export const none: Reporter = {
  attempted: () => undefined,
  open: () => undefined,
  reconnecting: () => undefined,
  event: () => undefined,
  lagged: () => undefined,
  backfilled: () => undefined,
  received: () => undefined
}

// The series of a metric with fixed attributes, built on first use and kept (`tagged`), keyed by the attributes'
// values (each a word of a fixed list).
const series = <In, Out>(make: (attributes: Record<string, string>) => Metric.Metric<In, Out>) => {
  const made = tagged(make)
  return (attributes: Record<string, string>): Metric.Metric<In, Out> =>
    made(Object.values(attributes).join(" "), attributes)
}

/** The reporting of a push service, in the metrics (registry and metric attributes) of `context`. */
export const make = (context: Context.Context<never>): Reporter => {
  const within = Context.make(Metric.MetricRegistry, Context.get(context, Metric.MetricRegistry)).pipe(
    Context.add(Metric.CurrentMetricAttributes, Context.get(context, Metric.CurrentMetricAttributes))
  )
  const attempts = series(counter(Telemetry.pushConnectionAttempts))
  const connections = series((attributes) =>
    Metric.gauge(Telemetry.pushConnections.id, { description: Telemetry.pushConnections.description, attributes })
  )
  const reconnects = series(counter(Telemetry.pushReconnects))
  const resyncs = series(counter(Telemetry.pushResyncs))
  const backfills = series(counter(Telemetry.pushBackfills))
  const gaps = series(counter(Telemetry.pushGaps))
  const messages = KINDS.map((channel) => counter(Telemetry.pushMessages)({ channel }))
  return {
    attempted: (endpoint, outcome) => attempts({ endpoint, outcome }).updateUnsafe(1, within),
    open: (endpoint, delta) => connections({ endpoint }).modifyUnsafe(delta, within),
    reconnecting: (endpoint, reason) => reconnects({ endpoint, reason }).updateUnsafe(1, within),
    event: (event) => {
      switch (event._tag) {
        case "Resync":
          return resyncs({ reason: event.reason }).updateUnsafe(1, within)
        case "Gap": {
          const kind = kindOf(event.channel)
          if (kind >= 0) gaps({ channel: KINDS[kind]! }).updateUnsafe(1, within)
          return
        }
        case "Connected":
        case "Disconnected":
        case "Resynced":
          return
      }
    },
    lagged: () => resyncs({ reason: "lag" }).updateUnsafe(1, within),
    backfilled: (stream, outcome) => backfills({ stream, outcome }).updateUnsafe(1, within),
    received: (counts) => {
      for (let i = 0; i < counts.length; i++) {
        const n = counts[i]!
        if (n === 0) continue
        counts[i] = 0
        messages[i]!.updateUnsafe(n, within)
      }
    }
  }
}

/** The reporting of a push service made in the current context. */
export const current: Effect.Effect<Reporter> = Effect.map(Effect.context<never>(), make)
