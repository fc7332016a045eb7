// Cancels, from the venue's answers to typed outcomes. The venue names the client id `clientOid` here and answers in
// its own naming (snake_case for one order); a cancel of an order that is not open (unknown, or already filled or
// cancelled) is an answer, whether it comes as `result: false` with a code or as an error envelope with the code.
// Many orders go in chunks of the venue's limit, orderIds and clientOids in separate requests (the venue takes one
// kind per request), and come back as one outcome per input item in input order.
//
// Cancels are idempotent and retried like reads; a retried cancel whose first attempt went through is answered
// "already final" by the venue, so when an attempt may have been applied such an answer is checked against the
// order's status: a cancelled order is reported `Cancelled`. So is a cancel sent again by the caller after an earlier
// call of the same order that was given up (interrupted) after it was handed to the transport (`Unanswered`).
import { Cause, Effect, Exit, Option } from "effect"
import type * as Cancel from "../../Cancel.ts"
import type * as Order from "../../Order.ts"
import { type OrderId, TradingPair } from "../../Primitives.ts"
import * as SpotError from "../../SpotError.ts"
import * as Venue from "../../Venue.ts"
import { attempt, type Context, fail, validate } from "./call.ts"
import type * as OrderState from "./orderState.ts"
import { Recent } from "./recent.ts"
import type * as Retry from "./retry.ts"
import * as Validate from "./validate.ts"

const { notOpen, notOpenCode: codeOf } = Venue

/** One order by its ids (`order`), retried. */
export type Lookup = OrderState.Lookup

type Named = { readonly orderId?: OrderId | undefined; readonly clientOrderId?: string | undefined }

/**
 * The orders (by symbol and id) whose cancel may have gone through in a call given up by its caller (interrupted)
 * after an attempt was handed to the transport, the 10,000 latest: a later cancel of one that the venue answers
 * "already final" may be answering that call's, and is checked against the order's status. An answered cancel of the
 * order settles it.
 */
export class Unanswered extends Recent {
  /**
   * `call`, a cancel of the orders of `keys` whose attempts call `handed` as each is handed to the transport:
   * answered, it settles them; interrupted after one was handed, it records them.
   */
  around<A, E>(keys: ReadonlyArray<string>, call: (handed: () => void) => Effect.Effect<A, E>): Effect.Effect<A, E> {
    return Effect.suspend(() => {
      let handed = false
      return Effect.onExit(call(() => handed = true), (exit) =>
        Effect.sync(() => {
          if (Exit.isSuccess(exit)) { for (const key of keys) this.delete(key) }
          else if (handed && Cause.hasInterrupts(exit.cause)) { for (const key of keys) this.add(key) }
        }))
    })
  }
}

const keyOf = (symbol: string, named: Named): string =>
  named.orderId !== undefined ? `${symbol} o${named.orderId}` : `${symbol} c${named.clientOrderId}`

// After an attempt that may have been applied, "already final" may be our own earlier cancel: the order's status
// says. A lookup that fails leaves the outcome as the venue gave it.
const settle = (
  lookup: Lookup,
  outcome: Cancel.CancelOutcome,
  mayHaveApplied: boolean
): Effect.Effect<Cancel.CancelOutcome> => {
  if (!mayHaveApplied || outcome._tag !== "NotOpen" || outcome.reason !== "final") return Effect.succeed(outcome)
  const ref: Parameters<Lookup>[0] | undefined = outcome.orderId !== undefined
    ? { orderId: outcome.orderId }
    : outcome.clientOrderId !== undefined
    ? { clientOrderId: outcome.clientOrderId }
    : undefined
  if (ref === undefined) return Effect.succeed(outcome)
  return lookup(ref).pipe(
    Effect.map((found): Cancel.CancelOutcome =>
      Option.isSome(found) && found.value.status === "cancelled"
        ? {
          _tag: "Cancelled",
          orderId: found.value.orderId,
          ...(outcome.clientOrderId === undefined ? {} : { clientOrderId: outcome.clientOrderId })
        }
        : outcome
    ),
    Effect.orElseSucceed(() => outcome)
  )
}

// ---------------------------------------------------------------------------------------------------------------
// one order

const named = (request: typeof Cancel.CancelOrderRequest.Type, answer?: Cancel.CancelOrderResponse): Named => {
  const orderId = request.orderId ?? answer?.order_id ?? undefined
  const clientOrderId = request.clientOrderId ?? answer?.client_oid ?? undefined
  return {
    ...(orderId === undefined ? {} : { orderId: orderId as OrderId }),
    ...(clientOrderId === undefined ? {} : { clientOrderId })
  }
}

/**
 * The outcome of a cancel of one order: its answer, or the refusal that says the order is not open. `earlier`: an
 * earlier call's cancel of the order may have gone through unanswered (`Unanswered`).
 */
export const one = (
  request: typeof Cancel.CancelOrderRequest.Type,
  sent: Effect.Effect<Retry.Succeeded<Cancel.CancelOrderResponse>, Retry.Failure>,
  lookup: Lookup,
  earlier = false
): Effect.Effect<Cancel.CancelOutcome, SpotError.SpotErrorReason> =>
  Effect.matchEffect(sent, {
    onFailure: (failure) => {
      const reason = failure.reason
      const code = "code" in reason ? reason.code : undefined
      // Only the code decides here: an error envelope's message is the venue's text for any refusal.
      const how = code === undefined ? undefined : notOpen(code, undefined)
      if (code === undefined || how === undefined) return Effect.fail(reason)
      const outcome: Cancel.CancelOutcome = {
        _tag: "NotOpen",
        ...named(request),
        reason: how,
        code,
        message: reason.message
      }
      return settle(lookup, outcome, failure.mayHaveApplied || earlier)
    },
    onSuccess: ({ mayHaveApplied, value: answer }) => {
      if (answer.result) return Effect.succeed<Cancel.CancelOutcome>({ _tag: "Cancelled", ...named(request, answer) })
      const code = answer.err_code ?? undefined
      const message = answer.err_msg ?? undefined
      const how = notOpen(code, message)
      if (how === undefined) {
        return Effect.fail(Venue.reasonOf({ code: codeOf(code, how), msg: message ?? "the order was not cancelled" }))
      }
      const outcome: Cancel.CancelOutcome = {
        _tag: "NotOpen",
        ...named(request, answer),
        reason: how,
        code: codeOf(code, how),
        message: message ?? Venue.message(codeOf(code, how))
      }
      return settle(lookup, outcome, mayHaveApplied || earlier)
    }
  })

// ---------------------------------------------------------------------------------------------------------------
// many orders

// An order named by exactly one of its ids: the declared request of `order`.
const validateRef = Validate.input(Venue.endpoints.order.request)
const validateSymbol = Validate.input(TradingPair, "symbol")

/** What cancelling many orders needs from the client. */
export interface Client {
  /** Sends one request (retried): orderIds or clientOids of one symbol; `handed` as each attempt is handed over. */
  readonly send: (
    request: Cancel.CancelOrdersRequest,
    handed?: () => void
  ) => Effect.Effect<Retry.Succeeded<Cancel.CancelBatchResponse>, Retry.Failure>
  readonly lookup: Lookup
  /** The orders whose earlier cancel may have gone through unanswered; none when not given. */
  readonly unanswered?: Unanswered | undefined
}

interface Item {
  readonly index: number
  readonly key: string
  readonly orderId?: OrderId | undefined
  readonly clientOrderId?: string | undefined
}

type Outcome = Cancel.CancelOrdersOutcome

const failedItem = (item: Item, code: string, message: string): Outcome => ({
  _tag: "Failed",
  index: item.index,
  ...(item.orderId === undefined ? {} : { orderId: item.orderId }),
  ...(item.clientOrderId === undefined ? {} : { clientOrderId: item.clientOrderId }),
  code,
  message
})

const ids = (item: Item): Named => ({
  ...(item.orderId === undefined ? {} : { orderId: item.orderId }),
  ...(item.clientOrderId === undefined ? {} : { clientOrderId: item.clientOrderId })
})

// The outcomes of one request's items from its answer. By orderId, the lists name each item. By clientOid, the
// failures name theirs (`clientOid`); the successes hold order ids (docs/venue/trading.md#cancel-many-orders), so the
// items neither list names are cancelled when the successes left over are exactly as many.
const fromAnswer = (chunk: ReadonlyArray<Item>, byOrderId: boolean, answer: Cancel.CancelBatchResponse) => {
  const successes = new Set(answer.successList ?? [])
  const failures = new Map<string, { readonly code: string | undefined; readonly message: string | undefined }>()
  for (const failure of answer.failureList ?? []) {
    const key = byOrderId ? failure.orderId : failure.clientOid
    if (key !== undefined && key !== null) {
      failures.set(key, { code: failure.errCode ?? undefined, message: failure.errMsg ?? undefined })
    }
  }
  const outcomes = new Map<string, Cancel.CancelOutcome | "unmentioned">()
  const unmatched: Array<Item> = []
  for (const item of chunk) {
    const key = byOrderId ? item.orderId! : item.clientOrderId!
    const failure = failures.get(key)
    if (failure !== undefined) {
      const how = notOpen(failure.code, failure.message)
      outcomes.set(
        item.key,
        how === undefined
          ? "unmentioned"
          : {
            _tag: "NotOpen",
            ...ids(item),
            reason: how,
            code: codeOf(failure.code, how),
            message: failure.message ?? Venue.message(codeOf(failure.code, how))
          }
      )
    } else if (successes.has(key)) {
      successes.delete(key)
      outcomes.set(item.key, { _tag: "Cancelled", ...ids(item) })
    } else {
      unmatched.push(item)
    }
  }
  const left = [...successes]
  for (const item of unmatched) {
    outcomes.set(
      item.key,
      !byOrderId && left.length === unmatched.length
        ? { _tag: "Cancelled", ...ids(item), ...(left.length === 1 ? { orderId: left[0] as OrderId } : {}) }
        : "unmentioned"
    )
  }
  return { outcomes, failures }
}

const sendChunk = (client: Client, symbol: TradingPair, chunk: ReadonlyArray<Item>, byOrderId: boolean) =>
  Effect.gen(function*() {
    const request: Cancel.CancelOrdersRequest = byOrderId
      ? { symbol, orderIds: chunk.map((item) => item.orderId!) }
      : { symbol, clientOids: chunk.map((item) => item.clientOrderId!) }
    const keys = chunk.map((item) => keyOf(symbol, item))
    const unanswered = client.unanswered
    const earlier = new Set(keys.filter((key) => unanswered?.has(key)))
    const answer = yield* Effect.result(
      unanswered === undefined
        ? client.send(request)
        : unanswered.around(keys, (handed) => client.send(request, handed))
    )
    if (answer._tag === "Failure") {
      const reason = answer.failure.reason
      const code = "code" in reason ? reason.code : reason._tag
      return chunk.map((item) => failedItem(item, code, reason.message))
    }
    const { failures, outcomes } = fromAnswer(chunk, byOrderId, answer.success.value)
    return yield* Effect.forEach(chunk, (item): Effect.Effect<Outcome> => {
      const outcome = outcomes.get(item.key)!
      if (outcome === "unmentioned") {
        const failure = failures.get(byOrderId ? item.orderId! : item.clientOrderId!)
        return Effect.succeed(
          failure === undefined
            ? failedItem(item, "unknown", "the venue's answer did not say what became of this order")
            : failedItem(item, failure.code ?? "unknown", failure.message ?? "not cancelled")
        )
      }
      return Effect.map(
        settle(client.lookup, outcome, answer.success.mayHaveApplied || earlier.has(keyOf(symbol, item))),
        (settled): Outcome => ({ ...settled, index: item.index })
      )
    }, { concurrency: 4 })
  })

// The ids of an input that did not validate, when they are strings, to name it in its outcome.
const namedIn = (input: unknown): Named => {
  const record = typeof input === "object" && input !== null ? input as Record<string, unknown> : {}
  return {
    ...(typeof record.orderId === "string" ? { orderId: record.orderId as OrderId } : {}),
    ...(typeof record.clientOrderId === "string" ? { clientOrderId: record.clientOrderId } : {})
  }
}

/** Cancels every order named: one outcome per input item, in input order. */
export const many = (
  client: Client,
  symbol: TradingPair,
  refs: ReadonlyArray<Order.OrderRef>
): Effect.Effect<Cancel.CancelOrdersResult> =>
  Effect.gen(function*() {
    const outcomes: Array<Outcome | undefined> = new Array(refs.length)
    // Each distinct order once; an order named twice gets the outcome of its first mention.
    const first = new Map<string, Item>()
    const repeats: Array<readonly [index: number, key: string]> = []
    const byOrderId: Array<Item> = []
    const byClientId: Array<Item> = []
    for (let index = 0; index < refs.length; index++) {
      const result = yield* Effect.result(validateRef(refs[index]))
      if (result._tag === "Failure") {
        const reason = new SpotError.ValidationError({
          field: `orders[${index}].${result.failure.field}`,
          description: result.failure.description
        })
        outcomes[index] = failedItem({ index, key: "", ...namedIn(refs[index]) }, reason._tag, reason.message)
        continue
      }
      const { clientOrderId, orderId } = result.success
      const key = orderId !== undefined ? `o${orderId}` : `c${clientOrderId}`
      if (first.has(key)) {
        repeats.push([index, key])
        continue
      }
      const item: Item = orderId !== undefined ? { index, key, orderId } : { index, key, clientOrderId }
      first.set(key, item)
      ;(orderId !== undefined ? byOrderId : byClientId).push(item)
    }
    for (const [items, byId] of [[byOrderId, true], [byClientId, false]] as const) {
      for (let start = 0; start < items.length; start += Venue.BATCH_LIMIT) {
        const chunk = items.slice(start, start + Venue.BATCH_LIMIT)
        for (const outcome of yield* sendChunk(client, symbol, chunk, byId)) outcomes[outcome.index] = outcome
      }
    }
    for (const [index, key] of repeats) outcomes[index] = { ...outcomes[first.get(key)!.index]!, index }
    return tally(outcomes as ReadonlyArray<Outcome>)
  })

/**
 * The result of cancelling every open order of a symbol, from the venue's answer: the same outcomes as
 * `cancelOrders` gives, one per order the answer names (successes first, then refusals), in the answer's order.
 */
export const all = (answer: Cancel.CancelBatchResponse, complete = true): Cancel.CancelOrdersResult => {
  const outcomes: Array<Outcome> = []
  for (const orderId of answer.successList ?? []) {
    outcomes.push({ _tag: "Cancelled", index: outcomes.length, orderId: orderId as OrderId })
  }
  for (const failure of answer.failureList ?? []) {
    const code = failure.errCode ?? undefined
    const message = failure.errMsg ?? undefined
    const how = notOpen(code, message)
    const named: Named = {
      ...(failure.orderId == null ? {} : { orderId: failure.orderId as OrderId }),
      ...(failure.clientOid == null ? {} : { clientOrderId: failure.clientOid })
    }
    outcomes.push(
      how === undefined
        ? {
          _tag: "Failed",
          index: outcomes.length,
          ...named,
          code: codeOf(code, how),
          message: message ?? "not cancelled"
        }
        : {
          _tag: "NotOpen",
          index: outcomes.length,
          ...named,
          reason: how,
          code: codeOf(code, how),
          message: message ?? Venue.message(codeOf(code, how))
        }
    )
  }
  return tally(outcomes, complete)
}

const tally = (outcomes: ReadonlyArray<Outcome>, complete = true): Cancel.CancelOrdersResult => {
  const count = (tag: Outcome["_tag"]) => outcomes.filter((outcome) => outcome._tag === tag).length
  return { outcomes, cancelled: count("Cancelled"), notOpen: count("NotOpen"), failed: count("Failed"), complete }
}

// ---------------------------------------------------------------------------------------------------------------
// the operations

/** The cancel operations of one client, over the order lookup of `orderState.ts`. */
export const make = (context: Context, lookup: Lookup) => {
  const { cancelAll: allEndpoint, cancelOrder: oneEndpoint, cancelOrders: manyEndpoint } = Venue.endpoints
  const unanswered = new Unanswered()
  const sendTracked = <E extends Venue.Endpoint>(endpoint: E, request: Venue.RequestOf<E>, handed?: () => void) =>
    context.retrying.tracked(endpoint, attempt(context.pipeline, endpoint, request, handed))

  const cancelOrder = Effect.fnUntraced(
    function*(input: Cancel.CancelOrderInput) {
      const request = yield* validate(oneEndpoint, input)
      yield* Effect.annotateCurrentSpan(
        request.orderId !== undefined
          ? { symbol: request.symbol, orderId: request.orderId }
          : { symbol: request.symbol, clientOrderId: request.clientOrderId }
      )
      const key = keyOf(request.symbol, request)
      const earlier = unanswered.has(key)
      return yield* unanswered.around(
        [key],
        (handed) => one(request, sendTracked(oneEndpoint, request, handed), lookup, earlier)
      )
    },
    Effect.mapError(fail("cancelOrder")),
    context.traced("SpotClient.cancelOrder")
  )

  const client: Client = {
    send: (request, handed) => sendTracked(manyEndpoint, request, handed),
    lookup,
    unanswered
  }

  const cancelOrders = Effect.fnUntraced(
    function*(symbolInput: string, orders: Iterable<Order.OrderRef>) {
      const symbol = yield* validateSymbol(symbolInput)
      const refs = Array.from(orders)
      yield* Effect.annotateCurrentSpan({ symbol, orders: refs.length })
      return yield* many(client, symbol, refs)
    },
    Effect.mapError(fail("cancelOrders")),
    context.traced("SpotClient.cancelOrders")
  )

  const cancelAll = Effect.fnUntraced(
    function*(symbolInput: string) {
      const request = yield* validate(allEndpoint, { symbol: symbolInput })
      yield* Effect.annotateCurrentSpan({ symbol: request.symbol })
      // An attempt whose answer was lost may have cancelled orders; a later one's answer does not list them.
      const sent = yield* Effect.mapError(sendTracked(allEndpoint, request), (failure) => failure.reason)
      return all(sent.value, !sent.mayHaveApplied)
    },
    Effect.mapError(fail("cancelAll")),
    context.traced("SpotClient.cancelAll")
  )

  return { cancelOrder, cancelOrders, cancelAll }
}
