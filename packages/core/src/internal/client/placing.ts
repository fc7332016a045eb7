// The client's operations that place orders: one order, a batch of any size, and the settling of a batch's unknown
// outcomes. Each order is validated by the endpoint's declared request, checked against its symbol's rules (when
// known), sent with a clientOrderId (generated when none is given), and recovered by a lookup when its answer was lost.
import { Clock, Effect, type Fiber } from "effect"
import type * as Order from "../../Order.ts"
import { TradingPair } from "../../Primitives.ts"
import * as SpotError from "../../SpotError.ts"
import * as Venue from "../../Venue.ts"
import * as OrderFast from "../model/orderFast.ts"
import * as Batch from "./batch.ts"
import {
  clientOrderIdOf,
  type Context,
  decode,
  encode,
  fail,
  flatMapNow,
  newClientOrderId,
  recording,
  validate
} from "./call.ts"
import * as InFlight from "./inFlight.ts"
import * as Recovery from "./recovery.ts"
import type * as Retry from "./retry.ts"
import * as Rules from "./rules.ts"
import { type Moment, momentOf } from "./serverClock.ts"
import * as Validate from "./validate.ts"

const validateSymbol = Validate.input(TradingPair, "symbol")

/** An order with its clientOrderId. */
type IdentifiedOrder = Order.PlaceOrder & { readonly clientOrderId: string }

const { placeOrder: placeOrderEndpoint, placeOrders: placeOrdersEndpoint } = Venue.endpoints

// One attempt. An answer that names another clientOrderId is about another order: its id is not this order's, which
// may have been placed all the same (a DecodeError, which recovery settles by looking the order up).
const placeOnce = (pipeline: Context["pipeline"], order: IdentifiedOrder) =>
  Effect.flatMap(
    pipeline.execute({ endpoint: placeOrderEndpoint, payload: encode(placeOrderEndpoint, order), handed: undefined }),
    (response) =>
      flatMapNow(decode(placeOrderEndpoint, response), (result) =>
        result.clientOrderId === order.clientOrderId
          ? Effect.succeed(result)
          : Effect.fail(response.schemaError(
            `the answer names clientOrderId ${result.clientOrderId} (orderId ${result.orderId}), not the order's` +
              ` ${order.clientOrderId}`
          )))
  )

// One batch request, retried, and its answer.
const sendBatch = ({ pipeline, retrying }: Context) => (request: Order.BatchRequest) =>
  retrying.tracked(
    placeOrdersEndpoint,
    pipeline.execute({
      endpoint: placeOrdersEndpoint,
      payload: encode(placeOrdersEndpoint, request),
      handed: undefined
    }).pipe(
      Effect.flatMap((response) =>
        Effect.map(
          decode(placeOrdersEndpoint, response),
          (answer): Order.BatchResponse => ({
            ...answer,
            // Failure texts end up in outcomes and logs: scrubbed like every other text from the network.
            failure: answer.failure?.map((failure) => ({
              ...failure,
              errorMsg: typeof failure.errorMsg === "string" ? response.scrub(failure.errorMsg) : failure.errorMsg
            }))
          })
        )
      )
    )
  )

const placeOrderFailed = fail("placeOrder")

const inFlightRefused = (clientOrderId: string) => placeOrderFailed(InFlight.refusal("clientOrderId", clientOrderId))

// A refusal for a rule (40808, 45110) may mean the cached rules are stale: the order is checked against newer ones
// for a better message, when they are at hand or can be loaded in a few seconds (`Rules.Cache.revalidated`, at most
// once per `refreshAfter`); the refusal is never held back longer. A market buy's refusal is no news of the rules:
// they describe nothing of its quantity (quote coin).
const ruleRefused = (context: Context, order: Order.PlaceOrder, since: number) => (reason: SpotError.SpotErrorReason) =>
  context.checkRules && reason._tag === "InvalidOrderError" && Venue.isRuleRefusal(reason.code) &&
    !Rules.isMarketBuy(order)
    ? Effect.flatMap(
      Rules.recheck(context.rules, order.symbol, order, since),
      (broken) => Effect.fail(broken ?? reason)
    )
    : Effect.fail(reason)

/** The operations that place orders, over the lookups of `orderState.ts`. */
export const make = (context: Context, lookupByClientIds: Recovery.Lookup) => {
  const { pipeline, retrying } = context
  // The start (on the client's clocks) of the call of each outcome of this client that may exist, for `resolve`.
  const starts: Batch.Starts = new WeakMap()
  // The clientOrderIds callers gave to this client's placements in flight.
  const inFlight = new InFlight.InFlight()
  // The clientOrderIds of batch outcomes that may exist, not settled by `resolve` yet, and any order placed under them
  // since by this client.
  const unsettled = new InFlight.Unsettled()

  // How a placement that failed ends: a duplicate named by its clientOrderId, an order that may have been placed
  // looked up (recovery.ts; only an order created since the call started counts), a refusal for a rule checked against
  // fresh rules. `started` is the call's start on the client's clocks: it is put on the venue's clock once the lookup
  // answered, through the monotonic clock (a step of the wall clock during the call does not move it).
  const placementFailed = (order: IdentifiedOrder, generation: number, started: Moment) => (failure: Retry.Failure) => {
    const { clientOrderId } = order
    const reason = failure.reason._tag === "DuplicateOrderError"
      ? new SpotError.DuplicateOrderError({ ...failure.reason, clientOrderId })
      : failure.reason
    const recovering = { ...failure, reason }
    const since = Effect.map(pipeline.venueSpan(started), Recovery.sinceOf)
    const recovered = Recovery.placement(lookupByClientIds, order, clientOrderId, recovering, since)
    return Effect.catch(recovered, ruleRefused(context, order, generation))
  }

  // A valid order with its clientOrderId and its symbol's rules (when known): checked against them, and sent. Rules
  // that refuse it may be stale (a halt that ended, a tick made finer): when they are older than `refreshAfter`, the
  // order is checked again against fresh ones (`Rules.Cache.revalidated`) and refused only if those refuse it too.
  const checkedSend = (order: IdentifiedOrder, rules: Rules.Checker | undefined, started: Moment) => {
    const since = context.rules.generation()
    const broken = rules?.check(order)
    return broken === undefined
      ? sendChecked(order, started)
      : Effect.flatMap(
        Rules.recheck(context.rules, order.symbol, order, since, broken),
        (still) => still === undefined ? sendChecked(order, started) : Effect.fail(placeOrderFailed(still))
      )
  }

  // An order that passed the rules' check, sent. An attempt that succeeds passes one `catch`; the retries, the recovery
  // and the error of the operation come after a failure.
  const sendChecked = (order: IdentifiedOrder, started: Moment) => {
    const since = context.rules.generation()
    const sending = placeOnce(pipeline, order)
    return Effect.catch(sending, (first) =>
      Effect.mapError(
        Effect.catch(
          Effect.map(retrying.after(placeOrderEndpoint, sending, first), (done) => done.value),
          placementFailed(order, since, started)
        ),
        placeOrderFailed
      ))
  }

  // A valid order on `fiber`: given a clientOrderId when it has none, annotated on the operation's span, checked
  // against its symbol's rules, sent. The span, the clock and the random numbers are read from the fiber, so that
  // with the rules at hand this takes no step of its own (placing is the call trading programs make in tight loops).
  const placeValid = (fiber: Fiber.Fiber<unknown, unknown>, valid: Order.PlaceOrder) => {
    const order: IdentifiedOrder = valid.clientOrderId !== undefined
      ? valid as IdentifiedOrder
      : { ...valid, clientOrderId: clientOrderIdOf(fiber) }
    const span = recording(fiber)
    if (span !== undefined) {
      span.attribute("symbol", order.symbol)
      span.attribute("side", order.side)
      span.attribute("orderType", order.orderType)
      span.attribute("clientOrderId", order.clientOrderId)
    }
    const send = () => {
      const started = momentOf(fiber.getRef(Clock.Clock))
      if (!context.checkRules) return checkedSend(order, undefined, started)
      const rules = context.rules.known(order.symbol, started.mono)
      return rules === Rules.NotLoaded
        ? Effect.flatMap(context.rules.forOrder(order.symbol), (loaded) => checkedSend(order, loaded, started))
        : checkedSend(order, rules, started)
    }
    // A clientOrderId the caller gave is held while the call runs (inFlight.ts); a generated one is unique. An order
    // placed under the id of a batch outcome that may exist is recorded, for `resolve` (`Unsettled`).
    return valid.clientOrderId === undefined
      ? send()
      : inFlight.holding(order.clientOrderId, inFlightRefused, () => unsettled.recording(order.clientOrderId, send))
  }

  const placeOrder = (input: Order.PlaceOrderInput) =>
    Effect.withFiber((fiber) => {
      // A plain order takes the hand-written fast path (the Schema's value exactly, property-tested against it).
      const fast = OrderFast.placeOrder(input)
      return fast !== undefined ? placeValid(fiber, fast) : Effect.flatMap(
        Effect.mapError(validate(placeOrderEndpoint, input), placeOrderFailed),
        (valid) => placeValid(fiber, valid)
      )
    }).pipe(context.traced("SpotClient.placeOrder"))

  const batchClient: Batch.Client = {
    send: sendBatch(context),
    lookup: lookupByClientIds,
    inFlight,
    unsettled,
    clockOffset: pipeline.clockOffset,
    clockEstimate: pipeline.clockEstimate,
    venueSpan: pipeline.venueSpan,
    starts,
    // The symbol's rules when orders are checked (loaded on first use, best effort).
    rules: (symbol) => context.checkRules ? context.rules.forOrder(symbol) : Effect.undefined,
    rulesGeneration: context.rules.generation,
    revalidated: (symbol, since) =>
      context.checkRules ? context.rules.revalidated(symbol, since) : Effect.succeed(Rules.Unchanged),
    newClientOrderId
  }

  const placeOrders = Effect.fnUntraced(
    function*(symbolInput: string, items: Iterable<Order.BatchItemInput>) {
      const symbol = yield* validateSymbol(symbolInput)
      const inputs = Array.from(items)
      yield* Effect.annotateCurrentSpan({ symbol, items: inputs.length })
      return yield* Batch.placeOrders(batchClient, symbol, inputs)
    },
    Effect.mapError(fail("placeOrders")),
    context.traced("SpotClient.placeOrders")
  )

  const resolve = Effect.fnUntraced(
    function*(symbolInput: string, items: ReadonlyArray<Order.BatchItemInput>, result: Order.BatchResult) {
      const symbol = yield* validateSymbol(symbolInput)
      yield* Effect.annotateCurrentSpan({ symbol, items: items.length })
      return yield* Batch.resolve(
        batchClient,
        symbol,
        items,
        result
      )
    },
    Effect.mapError(fail("resolve")),
    context.traced("SpotClient.resolve")
  )

  return { placeOrder, placeOrders, resolve }
}
