// Cancels, from the venue's answers to typed outcomes. The venue names the client id `clientOid` here and answers in
// its own naming (snake_case for one order); a cancel of an order that is not open (unknown, or already filled or
// cancelled) is an answer, whether it comes as `result: false` with a code or as an error envelope with the code.
// Many orders go in chunks of the venue's limit, orderIds and clientOids in separate requests (the venue takes one
// kind per request), and come back as one outcome per input item in input order.
//
// Cancels are idempotent and retried like reads; a retried cancel whose first attempt went through is answered
// "already final" by the venue, so when an attempt may have been applied such an answer is checked against the
// order's status: a cancelled order is reported `Cancelled`.
import { Effect, Option } from "effect"
import type * as Cancel from "../../Cancel.ts"
import type * as Order from "../../Order.ts"
import type { OrderId } from "../../Primitives.ts"
import * as SpotError from "../../SpotError.ts"
import * as Venue from "../../Venue.ts"
import type * as Retry from "./retry.ts"
import * as validate from "./validate.ts"

/** The codes by which the venue says an order is not open: unknown (43001), already final (43004). */
const NOT_OPEN_CODES: Readonly<Record<string, "unknown" | "final">> = { "43001": "unknown", "43004": "final" }

/**
 * Whether the venue's code and message say the order is not open, and how; undefined for any other refusal. The
 * batch answers carry only a message in the venue's samples (`FAILED_ORDER_NOT_FOUND`).
 */
export const notOpen = (code: string | undefined, message: string | undefined): "unknown" | "final" | undefined => {
  if (code !== undefined && Object.hasOwn(NOT_OPEN_CODES, code)) return NOT_OPEN_CODES[code]
  if (message === undefined) return undefined
  if (/not[ _]?found|not[ _]exist|unknown[ _]order/i.test(message)) return "unknown"
  if (/no order to cancel|already|final|filled|cancell?ed/i.test(message)) return "final"
  return undefined
}

/** The code a refusal is reported with: the venue's, or the one its message implies. */
const codeOf = (code: string | undefined, reason: "unknown" | "final" | undefined) =>
  code ?? (reason === "unknown" ? "43001" : reason === "final" ? "43004" : "unknown")

/** One order by its ids (`order`), retried. */
export type Lookup = (ref: Order.OrderRef) => Effect.Effect<Option.Option<Order.OrderRecord>, SpotError.SpotErrorReason>

type Named = { readonly orderId?: OrderId | undefined; readonly clientOrderId?: string | undefined }

// After an attempt that may have been applied, "already final" may be our own earlier cancel: the order's status
// says. A lookup that fails leaves the outcome as the venue gave it.
const settle = (
  lookup: Lookup,
  outcome: Cancel.CancelOutcome,
  mayHaveApplied: boolean
): Effect.Effect<Cancel.CancelOutcome> => {
  if (!mayHaveApplied || outcome._tag !== "NotOpen" || outcome.reason !== "final") return Effect.succeed(outcome)
  const ref: Order.OrderRef | undefined = outcome.orderId !== undefined
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

/** The body of a cancel of one order, in the venue's naming. */
export const oneBody = (request: typeof Cancel.CancelOrderRequest.Type): Record<string, unknown> =>
  request.orderId !== undefined
    ? { symbol: request.symbol, orderId: request.orderId }
    : { symbol: request.symbol, clientOid: request.clientOrderId }

const named = (request: typeof Cancel.CancelOrderRequest.Type, answer?: Cancel.CancelOrderResponse): Named => {
  const orderId = request.orderId ?? answer?.order_id ?? undefined
  const clientOrderId = request.clientOrderId ?? answer?.client_oid ?? undefined
  return {
    ...(orderId === undefined ? {} : { orderId: orderId as OrderId }),
    ...(clientOrderId === undefined ? {} : { clientOrderId })
  }
}

/** The outcome of a cancel of one order: its answer, or the refusal that says the order is not open. */
export const one = (
  request: typeof Cancel.CancelOrderRequest.Type,
  sent: Effect.Effect<Retry.Succeeded<Cancel.CancelOrderResponse>, Retry.Failure>,
  lookup: Lookup
): Effect.Effect<Cancel.CancelOutcome, SpotError.SpotErrorReason> =>
  Effect.matchEffect(sent, {
    onFailure: (failure) => {
      const reason = failure.reason
      const code = "code" in reason ? reason.code : undefined
      const how = code !== undefined && Object.hasOwn(NOT_OPEN_CODES, code) ? NOT_OPEN_CODES[code] : undefined
      if (code === undefined || how === undefined) return Effect.fail(reason)
      const outcome: Cancel.CancelOutcome = {
        _tag: "NotOpen",
        ...named(request),
        reason: how,
        code,
        message: reason.message
      }
      return settle(lookup, outcome, failure.mayHaveApplied)
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
      return settle(lookup, outcome, mayHaveApplied)
    }
  })

// ---------------------------------------------------------------------------------------------------------------
// many orders

const validateRef = validate.input(
  // The item's schema is the venue's declared request of cancelOrders.
  Venue.endpoints.cancelOrders.request
)

/** What cancelling many orders needs from the client. */
export interface Client {
  /** Sends one request (retried): orderIds or clientOids of one symbol. */
  readonly send: (
    body: Record<string, unknown>
  ) => Effect.Effect<Retry.Succeeded<Cancel.CancelBatchResponse>, Retry.Failure>
  readonly lookup: Lookup
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

const sendChunk = (client: Client, symbol: string, chunk: ReadonlyArray<Item>, byOrderId: boolean) =>
  Effect.gen(function*() {
    const body = byOrderId
      ? { symbol, orderIds: chunk.map((item) => item.orderId) }
      : { symbol, clientOids: chunk.map((item) => item.clientOrderId) }
    const answer = yield* Effect.result(client.send(body))
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
        settle(client.lookup, outcome, answer.success.mayHaveApplied),
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
  symbol: string,
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
    const all = outcomes as ReadonlyArray<Outcome>
    const count = (tag: Outcome["_tag"]) => all.filter((outcome) => outcome._tag === tag).length
    return { outcomes: all, cancelled: count("Cancelled"), notOpen: count("NotOpen"), failed: count("Failed") }
  })

/** The result of cancelling every open order of a symbol, from the venue's answer. */
export const all = (answer: Cancel.CancelBatchResponse): Cancel.CancelAllResult => ({
  cancelled: (answer.successList ?? []) as ReadonlyArray<OrderId>,
  notCancelled: (answer.failureList ?? []).map((failure) => {
    const how = notOpen(failure.errCode ?? undefined, failure.errMsg ?? undefined)
    return {
      ...(failure.orderId == null ? {} : { orderId: failure.orderId as OrderId }),
      ...(failure.clientOid == null ? {} : { clientOrderId: failure.clientOid }),
      code: codeOf(failure.errCode ?? undefined, how),
      message: failure.errMsg ?? "not cancelled"
    }
  })
})
