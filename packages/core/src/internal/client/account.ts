// The client's operations on account and market data: balances, funding bills, order history and fills (streams paged
// by time, and their pages), the symbols' rules (cached) and the server's time. Each is validate → send → decode by
// the endpoint's declaration (call.ts), as a traced public operation failing with `SpotError`.
import { Effect, Option, Stream } from "effect"
import * as Bill from "../../Bill.ts"
import * as Fill from "../../Fill.ts"
import type * as Market from "../../Market.ts"
import * as Order from "../../Order.ts"
import { TradingPair } from "../../Primitives.ts"
import * as Venue from "../../Venue.ts"
import { type Context, fail, send, validate } from "./call.ts"
import * as Paging from "./paging.ts"
import type * as Rules from "./rules.ts"
import * as Validate from "./validate.ts"

// The streams' filters: what a caller gives a stream, from which it builds each page's request.
const validateBillQuery = Validate.input(Bill.BillQuery)
const validateHistoryFilter = Validate.input(Order.OrderHistoryFilter)
const validateFillsFilter = Validate.input(Fill.FillsFilter)
const validateSymbol = Validate.input(TradingPair, "symbol")

const { balances: balancesEndpoint, fills: fillsEndpoint, fundingBills: billsEndpoint, orderHistory: historyEndpoint } =
  Venue.endpoints

const rulesOf = (checkers: ReadonlyMap<string, Rules.Checker>): ReadonlyArray<Market.SymbolRules> =>
  Array.from(checkers.values(), (checker) => checker.rules)

/** The operations on account and market data of one client. */
export const make = (context: Context) => {
  // ---------------------------------------------------------------------------------------------------------------
  // balances

  const balances = Effect.fnUntraced(
    function*() {
      return (yield* send(context, balancesEndpoint, {})) ?? []
    },
    Effect.mapError(fail("balances")),
    context.traced("SpotClient.balances")
  )

  // ---------------------------------------------------------------------------------------------------------------
  // bills

  const billsPageOf = (query: Venue.RequestOf<typeof billsEndpoint>) => send(context, billsEndpoint, query)

  const fundingBillsPage = Effect.fnUntraced(
    function*(query: Bill.BillPageQuery = {}) {
      return yield* billsPageOf(yield* validate(billsEndpoint, query))
    },
    Effect.mapError(fail("fundingBillsPage")),
    context.traced("SpotClient.fundingBillsPage")
  )

  const fundingBills = (query: Bill.BillQuery = {}) =>
    Stream.unwrap(Effect.map(validateBillQuery(query), (valid) => Paging.fundingBills(billsPageOf, valid))).pipe(
      Stream.mapError(fail("fundingBills")),
      Stream.withSpan("SpotClient.fundingBills")
    )

  // ---------------------------------------------------------------------------------------------------------------
  // order history and fills

  const historyPageOf = (query: Venue.RequestOf<typeof historyEndpoint>) => send(context, historyEndpoint, query)

  const orderHistoryPage = Effect.fnUntraced(
    function*(query: Order.OrderHistoryQuery) {
      const valid = yield* validate(historyEndpoint, query)
      yield* Effect.annotateCurrentSpan({ symbol: valid.symbol, pageIndex: valid.pageIndex ?? 0 })
      return yield* historyPageOf(valid)
    },
    Effect.mapError(fail("orderHistoryPage")),
    context.traced("SpotClient.orderHistoryPage")
  )

  const orderHistory = (filter: Order.OrderHistoryFilter) =>
    Stream.unwrap(
      Effect.flatMap(validateHistoryFilter(filter), (valid) =>
        Effect.as(Effect.annotateCurrentSpan({ symbol: valid.symbol }), Paging.orderHistory(historyPageOf, valid)))
    ).pipe(
      Stream.mapError(fail("orderHistory")),
      Stream.withSpan("SpotClient.orderHistory")
    )

  const fillsPageOf = (query: Venue.RequestOf<typeof fillsEndpoint>) => send(context, fillsEndpoint, query)

  const fillsPage = Effect.fnUntraced(
    function*(query: Fill.FillsQuery) {
      const valid = yield* validate(fillsEndpoint, query)
      yield* Effect.annotateCurrentSpan({ symbol: valid.symbol, pageIndex: valid.pageIndex ?? 0 })
      return yield* fillsPageOf(valid)
    },
    Effect.mapError(fail("fillsPage")),
    context.traced("SpotClient.fillsPage")
  )

  const fills = (filter: Fill.FillsFilter) =>
    Stream.unwrap(
      Effect.flatMap(validateFillsFilter(filter), (valid) =>
        Effect.as(Effect.annotateCurrentSpan({ symbol: valid.symbol }), Paging.fills(fillsPageOf, valid)))
    ).pipe(
      Stream.mapError(fail("fills")),
      Stream.withSpan("SpotClient.fills")
    )

  // ---------------------------------------------------------------------------------------------------------------
  // market data

  const symbols = Effect.fnUntraced(
    function*() {
      return rulesOf(yield* context.rules.all)
    },
    Effect.mapError(fail("symbols")),
    context.traced("SpotClient.symbols")
  )

  const symbol = Effect.fnUntraced(
    function*(name: string) {
      const valid = yield* validateSymbol(name)
      yield* Effect.annotateCurrentSpan({ symbol: valid })
      return Option.map(Option.fromNullishOr((yield* context.rules.all).get(valid)), (checker) => checker.rules)
    },
    Effect.mapError(fail("symbol")),
    context.traced("SpotClient.symbol")
  )

  const refreshSymbols = Effect.fnUntraced(
    function*() {
      return rulesOf(yield* context.rules.refresh)
    },
    Effect.mapError(fail("refreshSymbols")),
    context.traced("SpotClient.refreshSymbols")
  )

  const serverTime = Effect.fnUntraced(
    function*() {
      return yield* Effect.mapError(
        context.retrying(Venue.endpoints.serverTime, context.pipeline.serverTime),
        (failure) => failure.reason
      )
    },
    Effect.mapError(fail("serverTime")),
    context.traced("SpotClient.serverTime")
  )

  return {
    balances,
    fundingBills,
    fundingBillsPage,
    orderHistory,
    orderHistoryPage,
    fills,
    fillsPage,
    symbols,
    symbol,
    refreshSymbols,
    serverTime
  }
}
