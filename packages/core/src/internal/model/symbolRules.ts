// The check of an order against its symbol's trading rules (tick, step, minimum and maximum quantity, trading
// enabled), with the nearest valid values when it breaks one. Pure: the client's cache (client/rules.ts) and
// `Market.orderCheck` both use it.
import type { OrderType, Side } from "../../Order.ts"
import * as SpotError from "../../SpotError.ts"
import * as Decimal from "./decimal.ts"

/** The rules of a symbol the check reads (`Market.SymbolRules` has them). */
export interface Rules {
  readonly symbol: string
  readonly tickSize: string
  readonly stepSize: string
  readonly minTradeAmount: string
  readonly maxTradeAmount: string
  readonly enableTrade: boolean
}

/** The part of an order the rules judge. */
export interface Checked {
  readonly side: Side
  readonly orderType: OrderType
  readonly price?: string | undefined
  readonly quantity: string
}

const nonZero = (value: string) => /[1-9]/.test(value)
// A bound is a rule only when above zero: zero, or a negative bound a venue answers as garbage, constrains nothing (as a
// step of zero or below does), so that it never refuses a valid order (the comparisons read non-negative decimals).
const bound = (value: string) => nonZero(value) && !value.startsWith("-") ? value : undefined

/** Prepares a symbol's rules for checking orders: why an order breaks one, or undefined when it keeps them all. */
export const check = (rules: Rules): (order: Checked) => SpotError.SymbolRuleError | undefined => {
  const tick = Decimal.step(rules.tickSize)
  const step = Decimal.step(rules.stepSize)
  const min = bound(rules.minTradeAmount)
  const max = bound(rules.maxTradeAmount)
  const broken = (
    rule: SpotError.SymbolRuleError["rule"],
    field: string,
    value: string,
    limit: string,
    nearest: ReadonlyArray<string>
  ) => new SpotError.SymbolRuleError({ symbol: rules.symbol, rule, field, value, limit, nearest })
  // A valid quantity: above zero (no order is of nothing) and within the bounds.
  const within = (quantity: string) =>
    nonZero(quantity) && (min === undefined || Decimal.compare(quantity, min) >= 0) &&
    (max === undefined || Decimal.compare(quantity, max) <= 0)
  // The valid quantity closest to a bound: the bound itself when it is on the step, else the next step inside.
  const inside = (bound: string, direction: "up" | "down") => {
    if (Decimal.isMultiple(bound, step)) return bound
    const { down, up } = Decimal.around(bound, step)
    return direction === "up" ? up : down
  }
  return (order) => {
    if (!rules.enableTrade) return broken("enableTrade", "symbol", rules.symbol, "false", [])
    const price = order.price
    if (order.orderType === "limit" && price !== undefined && !Decimal.isMultiple(price, tick)) {
      const { down, up } = Decimal.around(price, tick)
      return broken("tickSize", "price", price, rules.tickSize, nonZero(down) ? [down, up] : [up])
    }
    // A market buy's quantity is in the quote coin: the base coin's step and bounds do not apply to it.
    if (order.orderType === "market" && order.side === "buy") return undefined
    const quantity = order.quantity
    if (!Decimal.isMultiple(quantity, step)) {
      const { down, up } = Decimal.around(quantity, step)
      return broken("stepSize", "quantity", quantity, rules.stepSize, [down, up].filter(within))
    }
    if (min !== undefined && Decimal.compare(quantity, min) < 0) {
      return broken("minTradeAmount", "quantity", quantity, min, [inside(min, "up")].filter(within))
    }
    if (max !== undefined && Decimal.compare(quantity, max) > 0) {
      return broken("maxTradeAmount", "quantity", quantity, max, [inside(max, "down")].filter(within))
    }
    return undefined
  }
}
