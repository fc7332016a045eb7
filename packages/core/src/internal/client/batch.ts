// Batches of any size: items validated one by one (an invalid item, or one that breaks its symbol's rules, fails
// alone), sent in chunks of the venue's batch limit, and answered with one outcome per item in input order. An item
// an ambiguous attempt may have placed is looked up by its clientOrderId before it is reported failed; `resolve` does
// the same later for outcomes that still say `mayExist`.
import { Clock, Effect } from "effect"
import type * as Order from "../../Order.ts"
import type { OrderId, TradingPair } from "../../Primitives.ts"
import * as SpotError from "../../SpotError.ts"
import * as Venue from "../../Venue.ts"
import * as InFlight from "./inFlight.ts"
import * as Recovery from "./recovery.ts"
import type * as Retry from "./retry.ts"
import * as Rules from "./rules.ts"
import { type Estimate, type Moment, momentOf, type Span } from "./serverClock.ts"
import * as Validate from "./validate.ts"

/** An item on its way: its place in the input, the validated order, and its clientOrderId. */
export interface Pending {
  readonly index: number
  readonly item: Order.BatchItem
  readonly clientOrderId: string
}

/** What batching needs from the client. */
export interface Client {
  /** Sends one request (retried) and answers the venue's batch answer. */
  readonly send: (request: Order.BatchRequest) => Effect.Effect<Retry.Succeeded<Order.BatchResponse>, Retry.Failure>
  /** One order by its clientOrderId (`order`). */
  readonly lookup: Recovery.Lookup
  /** The clientOrderIds callers gave to the client's placements in flight. */
  readonly inFlight: InFlight.InFlight
  /** The ids of outcomes that may exist, settled or not, with the orders placed under them since (`Unsettled`). */
  readonly unsettled: InFlight.Unsettled
  /** The client's offset to the venue's clock (ms). */
  readonly clockOffset: Effect.Effect<number>
  /** The client's estimate of the venue's clock, and how many answers have taught it. */
  readonly clockEstimate: Effect.Effect<Estimate>
  /** Where a local moment lies on the venue's clock, by the current estimates (`ServerClock.venueSpan`). */
  readonly venueSpan: (at: Moment) => Effect.Effect<Span>
  /** Where the starts of the calls of outcomes that may exist with `sentAt` are kept, for `resolve`. */
  readonly starts: Starts
  /** The symbol's rules when the client checks orders and knows them. */
  readonly rules: (symbol: TradingPair) => Effect.Effect<Rules.Checker | undefined>
  /** The generation of the cached rules (`Rules.Cache.generation`). */
  readonly rulesGeneration: () => number
  /**
   * After items were refused for a rule (by the venue, or by the rules of the generation the call checked with): newer
   * rules, when at hand or loaded in a few seconds (`Rules.Cache.revalidated`).
   */
  readonly revalidated: (
    symbol: TradingPair,
    generation: number
  ) => Effect.Effect<Rules.Checker | undefined | typeof Rules.Unchanged>
  readonly newClientOrderId: Effect.Effect<string>
}

// The clientOrderId an invalid item names, when it is a string: items may come from a file, as they were read.
const givenId = (input: unknown): string => {
  const id = typeof input === "object" && input !== null && "clientOrderId" in input ? input.clientOrderId : undefined
  return typeof id === "string" ? id : ""
}

// An item of the declared request of placeOrders.
const validateItem = Validate.input(Venue.endpoints.placeOrders.request.fields.orderList.value)

/**
 * The start, on the client's clocks, of the call of each outcome of a client that may exist and carries `sentAt` (the
 * outcome object itself the key): `resolve` puts it on the venue's clock through the monotonic clock, which a step of
 * the wall clock between the call and `resolve` does not move. An outcome with `notBefore` needs none (its bounds were
 * taken during the call), and one not found here (rebuilt, or from another process) is bounded by its `sentAt` and
 * the offset alone.
 */
export type Starts = WeakMap<Order.BatchOutcome, Moment>

// What an outcome that may exist carries to `resolve`: the bounds of the call's orders on the venue's clock (the later
// one only when a step of the machine's clock made them differ), or, while no answer confirmed the client's estimate
// of that clock, the call's start on the client's own.
type Bound = { readonly notBefore: number; readonly unsureUntil?: number } | { readonly sentAt: number }

const boundOf = ({ early, late }: Recovery.Since): Bound =>
  late > early ? { notBefore: early, unsureUntil: late } : { notBefore: early }

const failed = (
  index: number,
  clientOrderId: string,
  reason: SpotError.SpotErrorReason,
  mayExist = false,
  bound?: Bound
) =>
  ({
    _tag: "Failed",
    index,
    clientOrderId,
    code: "code" in reason ? reason.code : reason._tag,
    message: reason.message,
    mayExist,
    ...(mayExist ? bound : {})
  }) satisfies Order.BatchOutcome

const placeChunk = (client: Client, symbol: TradingPair, chunk: ReadonlyArray<Pending>) =>
  Effect.gen(function*() {
    const orderList = chunk.map(({ clientOrderId, item }) => ({ ...item, clientOrderId }))
    const started = yield* Clock.clockWith((clock) => Effect.succeed(momentOf(clock)))
    const before = yield* client.clockEstimate
    const answer = yield* Effect.result(client.send({ symbol, orderList }))
    const mayHaveApplied = answer._tag === "Failure" ? answer.failure.mayHaveApplied : answer.success.mayHaveApplied
    const accepted = new Map<string, OrderId>()
    const rejected = new Map<string, { readonly code: string; readonly message: string }>()
    // Items the answer contradicts itself on: one orderId given to two of them, or two orderIds to one. The venue
    // gives every order its own id, so such an answer is garbled for them (a gateway's bug, a man in the middle): they
    // are looked up by clientOrderId as after an ambiguous attempt, never reported with an id the answer gave twice.
    const contradicted = new Set<string>()
    if (answer._tag === "Success") {
      const owners = new Map<OrderId, string>()
      for (const { clientOrderId, orderId } of answer.success.value.resultList ?? []) {
        const known = accepted.get(clientOrderId)
        if (known !== undefined && known !== orderId) contradicted.add(clientOrderId)
        const owner = owners.get(orderId)
        if (owner !== undefined && owner !== clientOrderId) contradicted.add(owner).add(clientOrderId)
        owners.set(orderId, clientOrderId)
        accepted.set(clientOrderId, orderId)
      }
      for (const clientOrderId of contradicted) accepted.delete(clientOrderId)
      for (const failure of answer.success.value.failure ?? []) {
        rejected.set(failure.clientOrderId, {
          code: failure.errorCode ?? "unknown",
          message: failure.errorMsg ?? "rejected"
        })
      }
    }
    // After an ambiguous attempt, every item not accepted by the last answer may have been placed by an earlier one,
    // whatever the last answer says of it (a venue may check the balance before duplicates): look them up. Only an
    // order created since the chunk was sent counts (a clientOrderId may be reused from an older order).
    const unknown = chunk.filter(({ clientOrderId }) =>
      contradicted.has(clientOrderId) || (mayHaveApplied && !accepted.has(clientOrderId))
    )
    // The earliest creation time of an order of this chunk, on the venue's clock: what `resolve` is told too. Read
    // after the lookup, whose answer taught the clock offset (`Recovery.placement`).
    const since = Effect.map(client.venueSpan(started), Recovery.sinceOf)
    // Undefined when no lookup answered (none was needed, or it failed).
    const recovered = unknown.length === 0
      ? undefined
      : yield* Recovery.findMany(
        client.lookup,
        symbol,
        new Map(unknown.map((pending) => [pending.clientOrderId, pending.item])),
        since
      )
    // When no answer of the call confirmed the offset (every attempt's lost, the lookup failed too: the venue's time
    // never asked, say), a bound taken with it would be a guess, which might let `resolve` take an older order under a
    // reused clientOrderId: `resolve` is told the call's start on the client's clock instead, and bounds it by the
    // offset its own lookup's answer confirms. A lookup that answered confirmed it (the venue accepted its timestamp).
    const after = yield* client.clockEstimate
    const confirmed = recovered !== undefined || after.learned > before.learned
    const bound: Bound = confirmed ? boundOf(yield* since) : { sentAt: started.wall }

    const outcomes = chunk.map(({ clientOrderId, index }): Order.BatchOutcome => {
      const orderId = accepted.get(clientOrderId) ?? recovered?.get(clientOrderId)
      if (orderId !== undefined) return { _tag: "Placed", index, clientOrderId, orderId }
      if (contradicted.has(clientOrderId)) {
        return {
          _tag: "Failed",
          index,
          clientOrderId,
          code: "DecodeError",
          message: "the venue's answer gave this order's id to another order of the batch too, or two ids to it (a" +
            " garbled answer), and its lookup by clientOrderId did not find it (or failed)",
          mayExist: true,
          ...bound
        }
      }
      if (answer._tag === "Failure") {
        return failed(index, clientOrderId, answer.failure.reason, mayHaveApplied, bound)
      }
      const rejection = rejected.get(clientOrderId)
      if (rejection !== undefined) {
        // 43118: an order with this clientOrderId exists (placed earlier), so it must be looked up, not re-sent.
        return {
          _tag: "Failed",
          index,
          clientOrderId,
          ...rejection,
          ...(mayHaveApplied || rejection.code === "43118" ? { mayExist: true, ...bound } : { mayExist: false })
        }
      }
      return {
        _tag: "Failed",
        index,
        clientOrderId,
        code: "unknown",
        message: "the venue's answer did not mention this order",
        mayExist: true,
        ...bound
      }
    })
    for (const outcome of outcomes) {
      if (outcome._tag === "Failed") {
        if (outcome.mayExist) client.unsettled.add(outcome.clientOrderId)
      } else if (!client.unsettled.empty) {
        client.unsettled.placed(outcome.clientOrderId, outcome.orderId)
      }
    }
    if (!confirmed) {
      for (const outcome of outcomes) {
        if (outcome._tag === "Failed" && outcome.mayExist) client.starts.set(outcome, started)
      }
    }
    return outcomes
  })

/**
 * Places every item: one outcome per item, in input order. A clientOrderId an item gives is held while the call runs
 * (`InFlight`): an item whose id another call of the client holds fails alone, unsent.
 */
export const placeOrders = (
  client: Client,
  symbol: TradingPair,
  inputs: ReadonlyArray<Order.BatchItemInput>
): Effect.Effect<Order.BatchResult> => {
  const claimed: Array<string> = []
  const placing = Effect.gen(function*() {
    const validated = []
    for (const input of inputs) validated.push(yield* Effect.result(validateItem(input)))
    let rules = yield* client.rules(symbol)
    let since = client.rulesGeneration()
    // Rules that refuse an item may be stale (a halt that ended, a tick made finer): checked against fresh ones when
    // they are old enough (`Client.revalidated`), as a single order is.
    const checked = rules
    if (
      checked !== undefined &&
      validated.some((result) => result._tag === "Success" && checked.check(result.success) !== undefined)
    ) {
      const fresh = yield* client.revalidated(symbol, since)
      if (fresh !== Rules.Unchanged) {
        rules = fresh
        since = client.rulesGeneration()
      }
    }
    const outcomes: Array<Order.BatchOutcome | undefined> = new Array(inputs.length)
    const pending: Array<Pending> = []
    const used = new Set<string>()
    for (let index = 0; index < inputs.length; index++) {
      const result = validated[index]!
      if (result._tag === "Failure") {
        const reason = new SpotError.ValidationError({
          field: `items[${index}].${result.failure.field}`,
          description: result.failure.description
        })
        outcomes[index] = failed(index, givenId(inputs[index]), reason)
        continue
      }
      const clientOrderId = result.success.clientOrderId ?? (yield* client.newClientOrderId)
      const broken = rules?.check(result.success)
      if (broken !== undefined) {
        outcomes[index] = failed(index, clientOrderId, broken)
        continue
      }
      if (used.has(clientOrderId)) {
        const reason = new SpotError.ValidationError({
          field: `items[${index}].clientOrderId`,
          description: `repeats ${clientOrderId} from an earlier item of this batch`
        })
        outcomes[index] = failed(index, clientOrderId, reason)
        continue
      }
      if (result.success.clientOrderId !== undefined) {
        if (!client.inFlight.claim(clientOrderId)) {
          outcomes[index] = failed(
            index,
            clientOrderId,
            InFlight.refusal(`items[${index}].clientOrderId`, clientOrderId)
          )
          continue
        }
        claimed.push(clientOrderId)
      }
      used.add(clientOrderId)
      pending.push({ index, item: result.success, clientOrderId })
    }
    for (let start = 0; start < pending.length; start += Venue.BATCH_LIMIT) {
      for (const outcome of yield* placeChunk(client, symbol, pending.slice(start, start + Venue.BATCH_LIMIT))) {
        outcomes[outcome.index] = outcome
      }
    }
    // Items the venue refused for a rule (40808, 45110; a market buy's refusal is no news of the rules, which describe
    // nothing of its quote-coin quantity): explained with newer rules when they are had, as a single order's refusal.
    const ruleRefused = pending.filter(({ index, item }) => {
      const outcome = outcomes[index]
      return outcome?._tag === "Failed" && !outcome.mayExist && Venue.isRuleRefusal(outcome.code) &&
        !Rules.isMarketBuy(item)
    })
    if (ruleRefused.length > 0) {
      const fresh = yield* client.revalidated(symbol, since)
      for (const { clientOrderId, index, item } of ruleRefused) {
        const broken = fresh === Rules.Unchanged ? undefined : fresh?.check(item)
        if (broken !== undefined) outcomes[index] = failed(index, clientOrderId, broken)
      }
    }
    return tally(outcomes as ReadonlyArray<Order.BatchOutcome>)
  })
  return Effect.onExit(placing, () => {
    for (const clientOrderId of claimed) client.inFlight.release(clientOrderId)
    return Effect.void
  })
}

const tally = (outcomes: ReadonlyArray<Order.BatchOutcome>): Order.BatchResult => {
  const placed = outcomes.filter((outcome) => outcome._tag === "Placed").length
  return { outcomes, placed, failed: outcomes.length - placed }
}

// A failed outcome known not to exist: `notBefore`, `unsureUntil` and `sentAt` say nothing any more.
const settledOf = (
  { notBefore: _, sentAt: __, unsureUntil: ___, ...outcome }: Extract<Order.BatchOutcome, { _tag: "Failed" }>
) => ({ ...outcome, mayExist: false }) satisfies Order.BatchOutcome

/**
 * Settles the outcomes of a batch that say `mayExist`, by looking each order up by its clientOrderId: `Placed` when
 * the venue has the same order (side, type, and for a limit order price and quantity) created no earlier than the
 * outcome's `notBefore` (or its `sentAt`, put on the venue's clock by the offset the lookup's answer teaches),
 * `Failed` with `mayExist: false` when it has no order with that id (the order was not placed) or another order holds
 * the id (an older one too: a clientOrderId reused). An outcome whose lookup fails, or whose item is not valid, or
 * whose order was created where a step of the machine's clock during the call leaves it unknown whether it is the
 * call's (`Recovery.Found` `Unsure`), is left as it was. `items` are the items the batch was given, in order.
 */
export const resolve = (
  { clockOffset, inFlight, lookup, starts, unsettled, venueSpan }: Client,
  symbol: string,
  items: ReadonlyArray<Order.BatchItemInput>,
  result: Order.BatchResult
): Effect.Effect<Order.BatchResult> =>
  Effect.map(
    Effect.forEach(result.outcomes, (outcome) => {
      if (outcome._tag !== "Failed" || !outcome.mayExist) return Effect.succeed(outcome)
      // A call of this client placing under the id now: the order it makes would be taken for this outcome's. Left
      // as it is, to be settled once that call has ended.
      if (inFlight.holds(outcome.clientOrderId)) return Effect.succeed(outcome)
      // The call's start on the venue's clock. `notBefore` (and `unsureUntil`) when the outcome has them: taken
      // during the call on an estimate an answer of the call confirmed, a fact on the venue's clock that nothing since
      // (a step of the wall clock, a suspend the monotonic clock did not count) moves. Otherwise (`sentAt`) by the
      // estimates the lookup's own answer teaches (read once it answered): through the monotonic clock when this
      // client made the outcome, else `sentAt` by the offset.
      const { notBefore, sentAt, unsureUntil } = outcome
      const start = starts.get(outcome)
      const since: Effect.Effect<Recovery.Since | undefined> = notBefore !== undefined
        ? Effect.succeed({ early: notBefore, late: unsureUntil ?? notBefore })
        : start !== undefined
        ? Effect.map(venueSpan(start), Recovery.sinceOf)
        : sentAt !== undefined
        ? Effect.map(clockOffset, (offset) => {
          const early = Recovery.earliest(sentAt, offset)
          return { early, late: early }
        })
        : Effect.succeed(undefined)
      return validateItem(items[outcome.index]).pipe(
        Effect.flatMap((item) => Recovery.find(lookup, symbol, outcome.clientOrderId, item, since)),
        Effect.map((found): Order.BatchOutcome => {
          if (found._tag === "Unsure") return outcome
          const later = unsettled.laterOrder(outcome.clientOrderId)
          if (found._tag === "Same" && found.orderId !== later) {
            return {
              _tag: "Placed",
              index: outcome.index,
              clientOrderId: outcome.clientOrderId,
              orderId: found.orderId
            }
          }
          return {
            ...settledOf(outcome),
            message: found._tag === "None"
              ? `${outcome.message}; the venue has no order with this clientOrderId: it was not placed`
              : found._tag === "Same"
              // The venue takes one order per clientOrderId: the later call's order was placed, so this one was not.
              ? `${outcome.message}; the order with this clientOrderId (${found.orderId}) was placed by a later call` +
                ` of this client, so this item's was not`
              : `${outcome.message}; another order (${found.orderId}) holds this clientOrderId`
          }
        }),
        Effect.orElseSucceed(() => outcome)
      )
    }, { concurrency: 4 }),
    tally
  )
