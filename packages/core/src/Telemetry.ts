/**
 * What the client reports about itself: Effect `Metric`s (requests by endpoint and outcome, their latency, retries,
 * 429s, rate-limit waits, the budgets' use, exported rows), span events on the operation's span for each retry, wait
 * and 429 and for the lookup of an ambiguous outcome (`spotkit.recovered`, its `outcome`: `found`, `not_found`,
 * `other` or `unsure`), and the events a program may listen to (`SpotClient.Options.onEvent`: a progress line that
 * says what it waits for; the symbol rules the venue answered that could not be read).
 *
 * The push service (`SpotPush`) reports its connection attempts by outcome (`spotkit_push_connection_attempts_total`,
 * each also a span, `SpotPush.connect`: the wait for the attempt budget, the dial and the handshake, a root span of its
 * own with its `endpoint`, `connection` and `outcome`), the connections open (`spotkit_push_connections`), the
 * reconnects by reason, the books rebuilt by reason (and the book consumers that lagged), the streams' REST backfills
 * by outcome, the trades and candles channels' gaps and the data messages received per channel kind, in the metrics of
 * the context it was made in (its layer's). Messages are counted as plain integers while a batch of frames is read and
 * added to the metric once per batch: no effect, nor a metric update, per message.
 *
 * The metrics are ordinary Effect metrics: `Metric.snapshot` reads them, and `effect/observability`'s `OtlpMetrics`
 * or `PrometheusMetrics` export them. Their attributes name the endpoint (`Venue.endpoints`' names; `public` or
 * `private` for push), an outcome or reason, or a push channel's kind, never a key, a symbol or an order, nor what the
 * venue said.
 *
 * @since 0.1.0
 */
import { Metric } from "effect"
import type * as Market from "./Market.ts"
import type * as SpotError from "./SpotError.ts"

/**
 * Requests sent, by `endpoint` and `outcome` (`ok`, the failure's reason: `RateLimitError`, `TransportError`, …, or
 * `interrupted`: sent, then interrupted before its answer, by the caller's timeout or a race it lost; the venue may
 * have applied it). A retried call counts each attempt; a request interrupted before it was sent is not counted.
 *
 * @since 0.1.0
 * @category metrics
 */
export const requests = Metric.counter("spotkit_requests_total", {
  description: "Requests sent to the venue, by endpoint and outcome (ok or the reason it failed)",
  incremental: true
})

/**
 * The bucket boundaries of `requestDuration`, in milliseconds: 1, 2, 4, … 16,384, and Infinity.
 *
 * @since 0.1.0
 * @category metrics
 */
export const requestDurationBoundaries: ReadonlyArray<number> = Metric.exponentialBoundaries({
  start: 1,
  factor: 2,
  count: 16
})

/**
 * The time from sending a request to its answer read (or its failure, or its interruption), in milliseconds, by
 * `endpoint`.
 *
 * @since 0.1.0
 * @category metrics
 */
export const requestDuration = Metric.histogram("spotkit_request_duration_ms", {
  description: "Time from sending a request to its answer, in milliseconds, by endpoint",
  boundaries: requestDurationBoundaries
})

/**
 * Retries scheduled, by `endpoint` and the `reason` of the failure retried.
 *
 * @since 0.1.0
 * @category metrics
 */
export const retries = Metric.counter("spotkit_retries_total", {
  description: "Retries scheduled, by endpoint and the reason of the failure retried",
  incremental: true
})

/**
 * Answers of HTTP 429 (Too Many Requests), by `endpoint`.
 *
 * @since 0.1.0
 * @category metrics
 */
export const rateLimited = Metric.counter("spotkit_rate_limited_total", {
  description: "Answers of HTTP 429 (Too Many Requests), by endpoint",
  incremental: true
})

/**
 * Time spent waiting for a rate-limit budget before sending, in milliseconds, by `budget` (`uid`, `ip`, `endpoint`,
 * or `paused` after a 429). Each wait is counted when it ends, for as long as it really lasted: a wait cut short (the
 * call interrupted or timed out, a waiter ahead giving up its place) counts the time it took, one longer than told (an
 * answer later than assumed) the whole of it. (The `Waiting` event and span event tell a wait as it begins, for as
 * long as it is expected to last.)
 *
 * @since 0.1.0
 * @category metrics
 */
export const rateLimitWait = Metric.counter("spotkit_rate_limit_wait_ms_total", {
  description:
    "Milliseconds spent waiting for a rate-limit budget before sending, counted as each wait ends, by budget",
  incremental: true
})

/**
 * Weight charged against the rate-limit budgets, by `budget` (`uid`, `ip`, `endpoint`): divided by a budget's
 * window, its use.
 *
 * @since 0.1.0
 * @category metrics
 */
export const budgetWeight = Metric.counter("spotkit_budget_weight_total", {
  description: "Weight charged against the rate-limit budgets, by budget",
  incremental: true
})

/**
 * Rows an export wrote (the `spotkit` CLI's exports), by `export` (`bills`, `fills`, …).
 *
 * @since 0.1.0
 * @category metrics
 */
export const exportRows = Metric.counter("spotkit_export_rows_total", {
  description: "Rows written by exports, by export",
  incremental: true
})

/**
 * How a push connection attempt ended: `connected` (the WebSocket open: the handshake taken, a private one's signature
 * included), `refused` (the venue answered the handshake with an HTTP status: a bad signature, a timestamp out of its
 * window, too many attempts; as the WebSocket says it: `ws`, which `NodeSpotPush` uses, names the status, while a
 * browser's or Node's global WebSocket does not, and such a refusal counts as `failed`), `timeout` (not open within
 * `openTimeout`), `failed` (the socket could not be opened otherwise: no route, a connection refused or reset),
 * `unsupported` (a private connection on a platform whose WebSocket cannot send the handshake headers),
 * `store_failed` (the `RateLimitStore` holding the attempt budget could not be reached: no attempt was made) or
 * `interrupted` (given up before it ended otherwise, as the streams it was for stopped or the service's scope closed:
 * while it waited for the attempt budget, dialled or shook hands; a permit it was granted is settled at once).
 *
 * @since 0.1.0
 * @category metrics
 */
export type PushConnectOutcome =
  | "connected"
  | "refused"
  | "timeout"
  | "failed"
  | "unsupported"
  | "store_failed"
  | "interrupted"

/**
 * Push connection attempts (`SpotPush`), by `endpoint` (`public` or `private`) and `outcome`
 * (`PushConnectOutcome`). Every attempt counts once, the first and each reconnect, one given up because its streams
 * stopped meanwhile too (`interrupted`). Each is a span too, `SpotPush.connect`.
 *
 * @since 0.1.0
 * @category metrics
 */
export const pushConnectionAttempts = Metric.counter("spotkit_push_connection_attempts_total", {
  description: "Push connection attempts, by endpoint (public or private) and outcome (connected or why not)",
  incremental: true
})

/**
 * Push connections open now, by `endpoint` (`public` or `private`): one more when a connection opens, one less when
 * it ends (to be dialled again, or closed as its last stream stopped).
 *
 * @since 0.1.0
 * @category metrics
 */
export const pushConnections = Metric.gauge("spotkit_push_connections", {
  description: "Push connections open now, by endpoint (public or private)"
})

/**
 * Why a push connection ended, or its attempt failed, to be dialled again. The venue's side: `closed` (the venue
 * closed it with a close frame), `dropped` (it ended without one, close code 1006: the network, a proxy, the venue's
 * process), `error` (the socket reported an error), `idle` (no frame for `idleTimeout`: the venue stalled with the
 * socket open). The attempt's (as `PushConnectOutcome`): `refused`, `timeout`, `failed`, `store_failed`. The client's
 * own decision to replace it: `unacknowledged` (a resubscription unanswered within `ackTimeout`), `operations` (its
 * budget of subscribe and unsubscribe operations spent), `backfill` (a stream's REST backfill failed and may succeed
 * later, or the pushes buffered meanwhile overflowed `backfillBuffer`), `decode` (a private push that could not be
 * read: the state is read again by REST after the reconnect).
 *
 * @since 0.1.0
 * @category metrics
 */
export type PushReconnectReason =
  | "closed"
  | "dropped"
  | "error"
  | "idle"
  | "refused"
  | "timeout"
  | "failed"
  | "store_failed"
  | "unacknowledged"
  | "operations"
  | "backfill"
  | "decode"

/**
 * Push reconnects, by `endpoint` (`public` or `private`) and `reason` (`PushReconnectReason`): a connection that
 * ended, or an attempt that failed, to be dialled again after its backoff (each `Disconnected` of `SpotPush.events`).
 * Counted when it ends, before the backoff: it counts the connections lost, one whose streams all stop during the
 * backoff (and is not dialled again) included; the dials themselves are `pushConnectionAttempts`.
 *
 * @since 0.1.0
 * @category metrics
 */
export const pushReconnects = Metric.counter("spotkit_push_reconnects_total", {
  description: "Push connections or attempts that ended, to be dialled again after a backoff, by endpoint (public or " +
    "private) and reason (closed, dropped, error, idle, refused, timeout, failed, store_failed, unacknowledged, " +
    "operations, backfill, decode)",
  incremental: true
})

/**
 * Order books resynchronised (`watchBook`), by `reason` (`SpotPush.ResyncReason`): rebuilt from a new snapshot after a
 * `gap`, a `reconnect`, a message that did not `decode` or a `snapshot` missed (each `Resync` of `SpotPush.events`,
 * once per channel whatever its consumers), or a consumer behind (a book waited longer than `slowConsumerAfter` for
 * room in its full queue), given a `Resync` and the latest book
 * (`lag`: once per consumer each time; no `events` element: the venue's side was fine, the program's reading was slow).
 *
 * @since 0.1.0
 * @category metrics
 */
export const pushResyncs = Metric.counter("spotkit_push_resyncs_total", {
  description:
    "Order books rebuilt from a new snapshot by reason (gap, reconnect, decode, snapshot), and book consumers that " +
    "fell behind (lag)",
  incremental: true
})

/**
 * The REST backfills of the push streams (the gap of a (re)connection closed by REST), by `stream` and `outcome`.
 * `stream`: `private` (the private session's, after every connection, the first included: `Resynced` on
 * `SpotPush.events` when it succeeds), `trades` (a trades channel's, after every resubscription) or `candles` (a
 * candles channel's, after every subscription, the first included: its history). `outcome`: `ok` (merged) or
 * `failed` (REST failed: a retryable failure replaces the connection, whose next backfill asks again; another ends the
 * streams with a `BackfillError`). A backfill given up (its connection ended, or the pushes buffered meanwhile
 * overflowed `backfillBuffer`) is not counted.
 *
 * @since 0.1.0
 * @category metrics
 */
export const pushBackfills = Metric.counter("spotkit_push_backfills_total", {
  description: "REST backfills of the push streams after a (re)connection, by stream (private, trades, candles) and " +
    "outcome (ok, failed)",
  incremental: true
})

/**
 * Spans of a trades channel that may miss trades, or of a candles channel whose bars were not read back, after a
 * reconnect (each `Gap` of `SpotPush.events`), by `channel`: the channel's kind (`trades`, `kline`), never its symbol.
 *
 * @since 0.1.0
 * @category metrics
 */
export const pushGaps = Metric.counter("spotkit_push_gaps_total", {
  description: "Spans of a push channel that may miss items after a reconnect, by channel kind (trades, kline)",
  incremental: true
})

/**
 * Data messages received from the venue, by `channel`: the channel's kind (`depth`, `trades`, `ticker`, `kline`,
 * `orders`, `fill`, `account`), never its symbol. One per data frame of a channel carried (a frame may hold several
 * changes), counted as the connection reads and added to the metric once per batch of frames read; pings,
 * acknowledgements and errors are not counted.
 *
 * @since 0.1.0
 * @category metrics
 */
export const pushMessages = Metric.counter("spotkit_push_messages_total", {
  description: "Push data messages received, by channel kind (depth, trades, ticker, kline, orders, fill, account)",
  incremental: true
})

/**
 * Something the client does that a program may want to show: waiting for a rate-limit budget (`budget: "paused"`:
 * a 429's pause in force), a 429 answer and the pause it starts, a retry about to wait, and entries of the symbol
 * rules (`exchangeInfo`) that could not be read — left out, so an order on such a symbol is sent unchecked, as one
 * on a symbol the venue does not list (reported at each load that finds such entries, with a warning in the log).
 *
 * @since 0.1.0
 * @category events
 */
export type Event =
  | {
    readonly _tag: "Waiting"
    readonly endpoint: string
    readonly budget: "uid" | "ip" | "endpoint" | "paused"
    readonly millis: number
  }
  | {
    readonly _tag: "RateLimited"
    readonly endpoint: string
    /** What the venue asked for (`Retry-After`), when it did. */
    readonly retryAfterMillis: number | undefined
  }
  | {
    readonly _tag: "Retrying"
    readonly endpoint: string
    /** The retry's number: 1 for the first. */
    readonly attempt: number
    readonly delayMillis: number
    readonly reason: SpotError.SpotErrorReason
  }
  | {
    readonly _tag: "UnreadableSymbols"
    /** The entries left out, in the venue's order; the others were read. */
    readonly entries: ReadonlyArray<Market.UnreadableSymbol>
  }
