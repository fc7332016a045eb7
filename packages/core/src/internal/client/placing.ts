// The client's operations that place orders: one order, a batch of any size, and the settling of a batch's unknown
// outcomes. Each order is validated by the endpoint's declared request, checked against its symbol's rules (when
// known), sent with a clientOrderId (generated when none is given), and recovered by a lookup when its answer was lost.
import { Effect } from "effect"
import type * as Order from "../../Order.ts"
import { TradingPair } from "../../Primitives.ts"
import * as SpotError from "../../SpotError.ts"
import * as Venue from "../../Venue.ts"
import * as OrderFast from "../model/orderFast.ts"
import * as Batch from "./batch.ts"
import { attempt, type Context, decode, encode, fail, newClientOrderId, traced, validate } from "./call.ts"
import * as Recovery from "./recovery.ts"
import * as Validate from "./validate.ts"

const validateSymbol = Validate.input(TradingPair, "symbol")

const { placeOrder: placeOrderEndpoint, placeOrders: placeOrdersEndpoint } = Venue.endpoints

/** The operations that place orders, over the lookups of `orderState.ts`. */
export const make = (context: Context, lookupByClientIds: Recovery.Lookup) => {
  const { pipeline, retrying } = context

  // The symbol's rules when orders are checked (loaded on first use, best effort).
  const rulesFor = (symbol: string) => context.checkRules ? context.rules.forOrder(symbol) : Effect.undefined

  // A refusal for a rule (40808, 45110) means the cached rules are stale: they are loaded again (once per call, and
  // not when another call did since this one checked its order), and the order is checked against them for a better
  // message.
  const ruleRefused = (order: Order.PlaceOrder, since: number) => (reason: SpotError.SpotErrorReason) =>
    context.checkRules && reason._tag === "InvalidOrderError" && Venue.isRuleRefusal(reason.code)
      ? Effect.flatMap(context.rules.refreshedSince(order.symbol, since), (rules) => {
        const broken = rules?.check(order)
        return Effect.fail(broken ?? reason)
      })
      : Effect.fail(reason)

  // A valid order with its clientOrderId: annotated on the operation's span, checked against its symbol's rules, sent.
  const placeValid = (order: Order.PlaceOrder & { readonly clientOrderId: string }) => {
    const { clientOrderId } = order
    return Effect.andThen(
      Effect.annotateCurrentSpan({ symbol: order.symbol, side: order.side, orderType: order.orderType, clientOrderId }),
      Effect.flatMap(rulesFor(order.symbol), (rules) => {
        const broken = rules?.check(order)
        if (broken !== undefined) return Effect.fail(broken)
        const since = context.rules.generation()
        return retrying(
          placeOrderEndpoint,
          attempt(pipeline, placeOrderEndpoint, order).pipe(
            Effect.mapError((reason) =>
              reason._tag === "DuplicateOrderError"
                ? new SpotError.DuplicateOrderError({ ...reason, clientOrderId })
                : reason
            )
          )
        ).pipe(
          Effect.catch((failure) => Recovery.placement(lookupByClientIds, order, clientOrderId, failure)),
          Effect.catch(ruleRefused(order, since))
        )
      })
    )
  }

  // Written with combinators rather than a generator: placing is the call trading programs make in tight loops.
  const placeOrder = (input: Order.PlaceOrderInput) => {
    const withId = (valid: Order.PlaceOrder) =>
      valid.clientOrderId !== undefined
        ? placeValid({ ...valid, clientOrderId: valid.clientOrderId })
        : Effect.flatMap(newClientOrderId, (clientOrderId) => placeValid({ ...valid, clientOrderId }))
    return Effect.suspend(() => {
      // A plain order takes the hand-written fast path (the Schema's value exactly, property-tested against it).
      const fast = OrderFast.placeOrder(input)
      return fast !== undefined ? withId(fast) : Effect.flatMap(validate(placeOrderEndpoint, input), withId)
    }).pipe(
      Effect.mapError(fail("placeOrder")),
      traced("SpotClient.placeOrder")
    )
  }

  const batchClient: Batch.Client = {
    send: (request) =>
      retrying.tracked(
        placeOrdersEndpoint,
        pipeline.execute({ endpoint: placeOrdersEndpoint, payload: encode(placeOrdersEndpoint, request) }).pipe(
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
      ),
    lookup: lookupByClientIds,
    rules: rulesFor,
    rulesGeneration: context.rules.generation,
    ruleRefused: (symbol, since) =>
      context.checkRules ? Effect.asVoid(context.rules.refreshedSince(symbol, since)) : Effect.void,
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
    traced("SpotClient.placeOrders")
  )

  const resolve = Effect.fnUntraced(
    function*(symbolInput: string, items: ReadonlyArray<Order.BatchItemInput>, result: Order.BatchResult) {
      const symbol = yield* validateSymbol(symbolInput)
      yield* Effect.annotateCurrentSpan({ symbol, items: items.length })
      return yield* Batch.resolve(lookupByClientIds, symbol, items, result)
    },
    Effect.mapError(fail("resolve")),
    traced("SpotClient.resolve")
  )

  return { placeOrder, placeOrders, resolve }
}
