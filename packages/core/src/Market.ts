/**
 * The venue's public market data (docs/venue/market-data.md#symbol-rules): the symbols tradable by API, each symbol's
 * trading rules (`exchangeInfo`), and the server time.
 *
 * @since 0.2.0
 */
import { Schema } from "effect"
import * as RuleCheck from "./internal/model/symbolRules.ts"
import { DecimalFromWire, MillisFromWire } from "./Primitives.ts"
import type * as SpotError from "./SpotError.ts"

/**
 * A symbol's trading rules: price tick, quantity step, smallest and largest order quantity (base coin), fee rates,
 * and whether it trades now. Fields the client does not use are kept when present, tolerated when absent.
 *
 * @since 0.2.0
 * @category responses
 */
export const SymbolRules = Schema.Struct({
  symbol: Schema.String,
  baseCoin: Schema.String,
  quoteCoin: Schema.String,
  tickSize: DecimalFromWire,
  stepSize: DecimalFromWire,
  minTradeAmount: DecimalFromWire,
  maxTradeAmount: DecimalFromWire,
  takerFeeRate: DecimalFromWire,
  makerFeeRate: DecimalFromWire,
  enableTrade: Schema.Boolean,
  buyLimitPriceRatio: Schema.optional(Schema.NullOr(Schema.String)),
  sellLimitPriceRatio: Schema.optional(Schema.NullOr(Schema.String)),
  marketBuyLimitSize: Schema.optional(Schema.NullOr(Schema.String)),
  marketSellLimitSize: Schema.optional(Schema.NullOr(Schema.String)),
  marketFallbackPriceRatio: Schema.optional(Schema.NullOr(Schema.String)),
  enableDisplay: Schema.optional(Schema.NullOr(Schema.Boolean)),
  displayDigitMerge: Schema.optional(Schema.NullOr(Schema.String)),
  displayNew: Schema.optional(Schema.NullOr(Schema.Boolean)),
  displayHot: Schema.optional(Schema.NullOr(Schema.Boolean)),
  supportTracing: Schema.optional(Schema.NullOr(Schema.Boolean)),
  supportPlanMarket: Schema.optional(Schema.NullOr(Schema.Boolean))
})

/**
 * @since 0.2.0
 * @category responses
 */
export type SymbolRules = typeof SymbolRules.Type

/**
 * The `data` of `exchangeInfo`: always an array.
 *
 * @since 0.2.0
 * @category responses
 */
export const ExchangeInfo = Schema.NullOr(Schema.Array(SymbolRules))

/**
 * The `data` of `/api/v2/public/products`: the symbols tradable by API.
 *
 * @since 0.2.0
 * @category responses
 */
export const ProductList = Schema.NullOr(Schema.Array(Schema.String))

/**
 * The `data` of `/api/v2/public/time`: the server's time (ms).
 *
 * @since 0.2.0
 * @category responses
 */
export const ServerTime = MillisFromWire

/**
 * The check the client runs before placing an order, for a caller who wants it beforehand (to round a price to the
 * tick, say): prepared once from a symbol's rules, it answers why an order breaks them — a `SymbolRuleError` naming
 * the rule and the nearest valid values — or `undefined`. Limit orders are checked on price and quantity, market
 * sells on quantity; a market buy's quantity is in the quote coin and is not checked.
 *
 * @since 0.2.0
 * @category checks
 */
export const orderCheck = (
  rules: SymbolRules
): (order: {
  readonly side: "buy" | "sell"
  readonly orderType: "limit" | "market"
  readonly price?: string | undefined
  readonly quantity: string
}) => SpotError.SymbolRuleError | undefined => RuleCheck.check(rules)
