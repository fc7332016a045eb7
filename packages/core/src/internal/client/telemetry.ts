// What one client reports (Telemetry.ts): the metrics of every request, and for each wait, 429 and retry a metric, a
// span event on the operation's span and the program's `onEvent`; for symbol rules it could not read, a warning in the
// log, a span event and `onEvent`. The metrics' attributes are fixed per endpoint (and
// outcome), so each is built once per client and looked up, never rebuilt per call.
import { Clock, Context, Effect, Metric, Option } from "effect"
import type * as Market from "../../Market.ts"
import type * as SpotError from "../../SpotError.ts"
import * as Telemetry from "../../Telemetry.ts"
import type * as Venue from "../../Venue.ts"

/** The reporting of one client. */
export interface Reporter {
  /**
   * A request was answered (`outcome` "ok") or failed (`outcome` the reason's tag), `millis` after it was sent: it is
   * counted, its duration recorded, and its weights charged against the budgets — at once, in the metrics of
   * `context` (the calling fiber's), so that the pipeline's last step records it without an effect of its own.
   */
  readonly answered: (
    context: Context.Context<never>,
    endpoint: Venue.Endpoint,
    outcome: string,
    millis: number
  ) => void
  /** The venue answered HTTP 429. */
  readonly rateLimited: (endpoint: Venue.Endpoint, retryAfterMillis: number | undefined) => Effect.Effect<void>
  /** A failed request is sent again after `delayMillis`. */
  readonly retrying: (
    endpoint: Venue.Endpoint,
    attempt: number,
    delayMillis: number,
    reason: SpotError.SpotErrorReason
  ) => Effect.Effect<void>
  /** A request waits `millis` for a budget before it is sent (as the limiter expects it to last). */
  readonly waiting: (
    endpoint: string,
    budget: "uid" | "ip" | "endpoint" | "paused",
    millis: number
  ) => Effect.Effect<void>
  /** A wait told to `waiting` ended, after `millis`: the time it really lasted. */
  readonly waited: (budget: "uid" | "ip" | "endpoint" | "paused", millis: number) => Effect.Effect<void>
  /** Entries of the symbol rules could not be read, and are left out (none: nothing reported). */
  readonly unreadableSymbols: (entries: ReadonlyArray<Market.UnreadableSymbol>) => Effect.Effect<void>
}

// How many unreadable entries the warning names; the event carries them all.
const NAMED = 5

/** The warning for entries of the symbol rules that could not be read. */
export const unreadableLine = (entries: ReadonlyArray<Market.UnreadableSymbol>): string => {
  const named = entries.slice(0, NAMED).map((entry) => `${entry.symbol ?? `entry ${entry.index}`} (${entry.issue})`)
  const more = entries.length > NAMED ? `, and ${entries.length - NAMED} more` : ""
  return `spotkit: ${entries.length} ${entries.length === 1 ? "entry" : "entries"} of the venue's symbol rules ` +
    `could not be read and ${entries.length === 1 ? "is" : "are"} left out (orders on ${
      entries.length === 1 ? "it are" : "them are"
    } sent unchecked, as on a symbol the venue does not list): ${named.join("; ")}${more}`
}

/** An event on the current span, when there is one (an operation's span). */
const spanEvent = (name: string, attributes: Record<string, unknown>): Effect.Effect<void> =>
  Effect.flatMap(Effect.option(Effect.currentSpan), (span) =>
    Option.isNone(span)
      ? Effect.void
      : Effect.map(Clock.currentTimeNanos, (now) => span.value.event(name, now, attributes)))

// A series of a metric with fixed attributes, built on first use and kept. It is the metric made again with its
// attributes (same name, description and kind: the same series in the registry as `Metric.withAttributes` addresses),
// because a `withAttributes` view rebuilds the context and the series' key on every update. (The push service's too.)
export const tagged = <In, Out>(make: (attributes: Record<string, string>) => Metric.Metric<In, Out>) => {
  const made = new Map<string, Metric.Metric<In, Out>>()
  return (key: string, attributes: Record<string, string>): Metric.Metric<In, Out> => {
    let found = made.get(key)
    if (found === undefined) {
      found = make(attributes)
      made.set(key, found)
    }
    return found
  }
}

// The client's counters (and the push service's), all incremental, by their public definition (Telemetry.ts).
export const counter = (metric: Metric.Metric<number, unknown>) => (attributes: Record<string, string>) =>
  Metric.counter(metric.id, { description: metric.description, incremental: true, attributes })

/**
 * The reporting of one client, with the program's listener (`SpotClient.Options.onEvent`) and the weights in force
 * (the venue's, with the caller's overrides), by endpoint.
 */
export const make = (
  onEvent: ((event: Telemetry.Event) => Effect.Effect<void>) | undefined,
  weightOf: (endpoint: Venue.Endpoint) => Venue.Weight = (endpoint) => endpoint.weight
): Reporter => {
  const listen = onEvent === undefined ? () => Effect.void : (event: Telemetry.Event) => Effect.ignore(onEvent(event))
  const requests = tagged(counter(Telemetry.requests))
  const durations = tagged((attributes) =>
    Metric.histogram(Telemetry.requestDuration.id, {
      description: Telemetry.requestDuration.description,
      boundaries: Telemetry.requestDurationBoundaries,
      attributes
    })
  )
  const retries = tagged(counter(Telemetry.retries))
  const limited = tagged(counter(Telemetry.rateLimited))
  const waits = tagged(counter(Telemetry.rateLimitWait))
  const weights = tagged(counter(Telemetry.budgetWeight))
  // What an answered request of an endpoint updates, built once per endpoint: its count when ok, its duration, and
  // the weights it charged — its UID weight (signed endpoints), its IP weight, and one request of its own 10 per
  // second where it has one. All are updated in one step, with no effect per metric.
  interface Answers {
    readonly ok: Metric.Metric<number, unknown>
    readonly duration: Metric.Metric<number, unknown>
    readonly charges: ReadonlyArray<readonly [Metric.Metric<number, unknown>, number]>
  }
  const answers = new Map<Venue.Endpoint, Answers>()
  const answersOf = (endpoint: Venue.Endpoint): Answers => {
    let found = answers.get(endpoint)
    if (found === undefined) {
      const weight = weightOf(endpoint)
      const charges: Array<readonly [Metric.Metric<number, unknown>, number]> = [
        [weights("ip", { budget: "ip" }), weight.ip]
      ]
      if (endpoint.permission !== undefined) charges.push([weights("uid", { budget: "uid" }), weight.uid ?? weight.ip])
      if (weight.perSecond) charges.push([weights("endpoint", { budget: "endpoint" }), 1])
      found = {
        ok: requests(`${endpoint.name} ok`, { endpoint: endpoint.name, outcome: "ok" }),
        duration: durations(endpoint.name, { endpoint: endpoint.name }),
        charges
      }
      answers.set(endpoint, found)
    }
    return found
  }
  // An update of a counter or a histogram reads two things from its context: the registry and the program's metric
  // attributes. The calling context has them beneath the layers the call added (its span, its frame), where each of
  // the five updates of an answer would look both up again; so they are looked up once per answer and the updates
  // run in a context of just those two, made again only when either is another object.
  let registry: Metric.MetricRegistry | undefined
  let attributes: Readonly<Record<string, string>> | undefined
  let metricsContext = Context.empty()
  const metricsOf = (context: Context.Context<never>): Context.Context<never> => {
    const currentRegistry = Context.get(context, Metric.MetricRegistry)
    const currentAttributes = Context.get(context, Metric.CurrentMetricAttributes)
    if (currentRegistry !== registry || currentAttributes !== attributes) {
      registry = currentRegistry
      attributes = currentAttributes
      metricsContext = Context.make(Metric.MetricRegistry, currentRegistry).pipe(
        Context.add(Metric.CurrentMetricAttributes, currentAttributes)
      )
    }
    return metricsContext
  }
  return {
    answered: (context, endpoint, outcome, millis) => {
      const metrics = answersOf(endpoint)
      const counted = outcome === "ok" ? metrics.ok : requests(`${endpoint.name} ${outcome}`, {
        endpoint: endpoint.name,
        outcome
      })
      const within = metricsOf(context)
      counted.updateUnsafe(1, within)
      metrics.duration.updateUnsafe(millis, within)
      for (const [metric, weight] of metrics.charges) metric.updateUnsafe(weight, within)
    },
    rateLimited: (endpoint, retryAfterMillis) =>
      Effect.all([
        Metric.update(limited(endpoint.name, { endpoint: endpoint.name }), 1),
        spanEvent("spotkit.rate_limited", {
          endpoint: endpoint.name,
          ...(retryAfterMillis === undefined ? {} : { "retry_after.ms": retryAfterMillis })
        }),
        listen({ _tag: "RateLimited", endpoint: endpoint.name, retryAfterMillis })
      ], { discard: true }),
    retrying: (endpoint, attempt, delayMillis, reason) =>
      Effect.all([
        Metric.update(retries(`${endpoint.name} ${reason._tag}`, { endpoint: endpoint.name, reason: reason._tag }), 1),
        spanEvent("spotkit.retry", {
          endpoint: endpoint.name,
          attempt,
          "delay.ms": delayMillis,
          reason: reason._tag
        }),
        listen({ _tag: "Retrying", endpoint: endpoint.name, attempt, delayMillis, reason })
      ], { discard: true }),
    waiting: (endpoint, budget, millis) =>
      Effect.andThen(
        spanEvent("spotkit.rate_limit_wait", { endpoint, budget, "wait.ms": millis }),
        listen({ _tag: "Waiting", endpoint, budget, millis })
      ),
    waited: (budget, millis) => Metric.update(waits(budget, { budget }), millis),
    unreadableSymbols: (entries) =>
      entries.length === 0 ? Effect.void : Effect.all([
        Effect.logWarning(unreadableLine(entries)),
        spanEvent("spotkit.unreadable_symbols", { count: entries.length }),
        listen({ _tag: "UnreadableSymbols", entries })
      ], { discard: true })
  }
}

/**
 * How the lookup of an ambiguous placement or transfer ended: the call's order or transfer found (`found`), none
 * (`not_found`), another order under the clientOrderId (`other`), or one that may be the call's or not (`unsure`: an
 * identical order created where a step of the clock leaves it open, several transfers that match, or one another call
 * of the client may own).
 */
export type Recovered = "found" | "not_found" | "other" | "unsure"

/** The span event `spotkit.recovered` on the current (the operation's) span: an ambiguous outcome looked up. */
export const recovered = (outcome: Recovered): Effect.Effect<void> => spanEvent("spotkit.recovered", { outcome })

/** A reporter that reports nothing (tests of the parts below the client). */
export const none: Reporter = {
  answered: () => undefined,
  rateLimited: () => Effect.void,
  retrying: () => Effect.void,
  waiting: () => Effect.void,
  waited: () => Effect.void,
  unreadableSymbols: () => Effect.void
}

/** Whether a reason is the venue's HTTP 429, and the wait it asked for. */
export const tooManyRequests = (
  reason: SpotError.SpotErrorReason
): { readonly retryAfterMillis: number | undefined } | undefined =>
  reason._tag === "RateLimitError" && reason.httpStatus === 429
    ? { retryAfterMillis: reason.retryAfterMillis }
    : reason._tag === "HttpStatusError" && reason.httpStatus === 429
    ? { retryAfterMillis: undefined }
    : undefined
