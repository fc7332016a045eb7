// The client's operations on account and market data: balances, funding bills, order history and fills (streams paged
// by time, and their pages), the symbols' rules (cached) and the server's time. Each is validate → encode →
// retrying(execute → decode), as a traced public operation failing with `SpotError`.
import { Effect, Option, Schema, Stream } from "effect"
import * as Account from "../../Account.ts"
import * as Bill from "../../Bill.ts"
import * as Fill from "../../Fill.ts"
import * as Json from "../../Json.ts"
import type * as Market from "../../Market.ts"
import * as Order from "../../Order.ts"
import { TradingPair } from "../../Primitives.ts"
import * as Venue from "../../Venue.ts"
import { body, call, type Context, fail, traced } from "./operation.ts"
import * as Paging from "./paging.ts"
import type * as Rules from "./rules.ts"
import * as validate from "./validate.ts"

const validateBillQuery = validate.input(Bill.BillQuery)
const validateBillPageQuery = validate.input(Bill.BillPageQuery)
const validateHistoryFilter = validate.input(Order.OrderHistoryFilter)
const validateHistoryQuery = validate.input(Order.OrderHistoryQuery)
const validateFillsFilter = validate.input(Fill.FillsFilter)
const validateFillsQuery = validate.input(Fill.FillsQuery)
const validateSymbol = validate.input(TradingPair, "symbol")
const decodeBalances = Schema.decodeUnknownEffect(Account.Balances)
const decodeFillsPage = Schema.decodeUnknownEffect(Fill.FillsPage)

const rulesOf = (checkers: ReadonlyMap<string, Rules.Checker>): ReadonlyArray<Market.SymbolRules> =>
  Array.from(checkers.values(), (checker) => checker.rules)

/** The operations on account and market data of one client. */
export const make = (context: Context) => {
  const endpoints = Venue.endpoints

  // ---------------------------------------------------------------------------------------------------------------
  // balances

  const balances = Effect.fnUntraced(
    function*() {
      return (yield* call(context, endpoints.balances, "", decodeBalances)) ?? []
    },
    Effect.mapError(fail("balances")),
    traced("SpotClient.balances")
  )

  // ---------------------------------------------------------------------------------------------------------------
  // bills

  const billsPageOf = (query: Bill.BillPageQuery) =>
    call(context, endpoints.fundingBills, body({ ...query }), Bill.decodeBillPage)

  const fundingBillsPage = Effect.fnUntraced(
    function*(query: Bill.BillPageQuery = {}) {
      return yield* billsPageOf(yield* validateBillPageQuery(query))
    },
    Effect.mapError(fail("fundingBillsPage")),
    traced("SpotClient.fundingBillsPage")
  )

  const fundingBills = (query: Bill.BillQuery = {}) =>
    Stream.unwrap(Effect.map(validateBillQuery(query), (valid) => Paging.fundingBills(billsPageOf, valid))).pipe(
      Stream.mapError(fail("fundingBills")),
      Stream.withSpan("SpotClient.fundingBills")
    )

  // ---------------------------------------------------------------------------------------------------------------
  // order history and fills

  const historyPageOf = (query: Order.OrderHistoryQuery) =>
    call(context, endpoints.orderHistory, body({ ...query }), Order.decodeOpenOrdersPage)

  const orderHistoryPage = Effect.fnUntraced(
    function*(query: Order.OrderHistoryQuery) {
      yield* Effect.annotateCurrentSpan({ symbol: query.symbol, pageIndex: query.pageIndex ?? 0 })
      return yield* historyPageOf(yield* validateHistoryQuery(query))
    },
    Effect.mapError(fail("orderHistoryPage")),
    traced("SpotClient.orderHistoryPage")
  )

  const orderHistory = (filter: Order.OrderHistoryFilter) =>
    Stream.unwrap(
      Effect.map(validateHistoryFilter(filter), (valid) => Paging.orderHistory(historyPageOf, valid))
    ).pipe(
      Stream.mapError(fail("orderHistory")),
      Stream.withSpan("SpotClient.orderHistory", { attributes: { symbol: filter.symbol } })
    )

  // The fills' `orderId` is a Long on the wire (docs/venue/trading.md#fills): written as a bare JSON number, exactly.
  const fillsPageOf = (query: Fill.FillsQuery) =>
    call(
      context,
      endpoints.fills,
      body({ ...query, orderId: query.orderId === undefined ? undefined : Json.rawNumber(query.orderId) }),
      decodeFillsPage
    )

  const fillsPage = Effect.fnUntraced(
    function*(query: Fill.FillsQuery) {
      yield* Effect.annotateCurrentSpan({ symbol: query.symbol, pageIndex: query.pageIndex ?? 0 })
      return yield* fillsPageOf(yield* validateFillsQuery(query))
    },
    Effect.mapError(fail("fillsPage")),
    traced("SpotClient.fillsPage")
  )

  const fills = (filter: Fill.FillsFilter) =>
    Stream.unwrap(Effect.map(validateFillsFilter(filter), (valid) => Paging.fills(fillsPageOf, valid))).pipe(
      Stream.mapError(fail("fills")),
      Stream.withSpan("SpotClient.fills", { attributes: { symbol: filter.symbol } })
    )

  // ---------------------------------------------------------------------------------------------------------------
  // market data

  const symbols = Effect.fnUntraced(
    function*() {
      return rulesOf(yield* context.rules.all)
    },
    Effect.mapError(fail("symbols")),
    traced("SpotClient.symbols")
  )

  const symbol = Effect.fnUntraced(
    function*(name: string) {
      const valid = yield* validateSymbol(name)
      yield* Effect.annotateCurrentSpan({ symbol: valid })
      return Option.map(Option.fromNullishOr((yield* context.rules.all).get(valid)), (checker) => checker.rules)
    },
    Effect.mapError(fail("symbol")),
    traced("SpotClient.symbol")
  )

  const refreshSymbols = Effect.fnUntraced(
    function*() {
      return rulesOf(yield* context.rules.refresh)
    },
    Effect.mapError(fail("refreshSymbols")),
    traced("SpotClient.refreshSymbols")
  )

  const serverTime = Effect.fnUntraced(
    function*() {
      return yield* Effect.mapError(
        context.retrying(endpoints.serverTime, context.pipeline.serverTime),
        (failure) => failure.reason
      )
    },
    Effect.mapError(fail("serverTime")),
    traced("SpotClient.serverTime")
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
