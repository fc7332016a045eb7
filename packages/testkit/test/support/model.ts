/**
 * A reference model of the exchange for the property tests: deliberately naive (bigint amounts, books as plain
 * arrays sorted on every use) and written from the rules of the issue and spec, not from the engine:
 *
 * - price-time priority: an incoming order takes the best opposite price first and, at one price, the oldest order;
 * - a limit order fills while the opposite price is at least as good as its own; a market sell sells its base
 *   quantity; a market buy spends its quote amount, buying at each level as many whole lots as it can afford;
 * - `force` (limit orders only): normal and postOnly rest their rest, postOnly is refused when it would take, fok
 *   fills completely or not at all, ioc cancels what it cannot fill at once;
 * - funds: a limit buy freezes price × quantity, a market buy its quote amount, a sell its base quantity; a buyer
 *   filled below its limit gets the difference back at once; whatever does not rest is released;
 * - fees: floor(what a side receives × its rate), maker or taker rate by its role in the trade.
 *
 * Every coin has 8 decimals (the engine's default coins).
 */

export const SCALE = 8

const POW10 = (n: number): bigint => 10n ** BigInt(n)

/** Exact decimal string -> integer units of 10^-scale; throws on a malformed string or excess decimals. */
export const units = (text: string, scale: number): bigint => {
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text)
  if (match === null) throw new Error(`not a decimal: ${JSON.stringify(text)}`)
  const fraction = (match[3] ?? "").replace(/0+$/, "")
  if (fraction.length > scale) throw new Error(`${text}: more than ${scale} decimals`)
  const value = BigInt(match[2]! + fraction.padEnd(scale, "0"))
  return match[1] === "-" ? -value : value
}

/** Integer units of 10^-scale -> decimal string with exactly `scale` decimals. */
export const decimal = (value: bigint, scale: number): string => {
  const negative = value < 0n
  const digits = (negative ? -value : value).toString().padStart(scale + 1, "0")
  const text = scale === 0 ? digits : `${digits.slice(0, digits.length - scale)}.${digits.slice(digits.length - scale)}`
  return negative ? `-${text}` : text
}

/** The number of decimals a decimal string carries (ignoring trailing zeros). */
export const decimalsOf = (text: string): number => (text.split(".")[1] ?? "").replace(/0+$/, "").length

export interface ModelProduct {
  readonly symbol: string
  readonly base: string
  readonly quote: string
  readonly pricePrecision: number
  readonly quantityPrecision: number
  /** Decimals of a market buy's quote amount. */
  readonly quotePrecision: number
  readonly minOrderValue: string
}

export type Side = "buy" | "sell"
export type Force = "normal" | "postOnly" | "fok" | "ioc"
export type AccountType = "SPOT" | "SPOT_V2" | "FUND"
export const ACCOUNTS: ReadonlyArray<AccountType> = ["SPOT", "SPOT_V2", "FUND"]

export interface ModelRequest {
  readonly symbol: string
  readonly side: Side
  readonly orderType: "limit" | "market"
  readonly force: Force
  readonly price?: string | undefined
  readonly quantity: string
  readonly clientOrderId: string
}

export interface ModelOrder {
  readonly seq: number
  readonly orderId: string
  readonly user: string
  readonly clientOrderId: string
  readonly product: ModelProduct
  readonly side: Side
  readonly market: boolean
  readonly force: Force
  /** The limit price in quote units (8 decimals) per whole base coin; 0 for a market order. */
  readonly price: bigint
  /** Base units (8 decimals), or a market buy's quote units. */
  readonly quantity: bigint
  /** Base units left, or a market buy's quote units left. */
  remaining: bigint
  /** Base units filled. */
  filled: bigint
  /** Quote units filled. */
  fillTotal: bigint
  status: "open" | "filled" | "cancelled"
}

export interface ModelFill {
  readonly makerOrderId: string
  readonly takerOrderId: string
  readonly takerSide: Side
  /** Quote units per whole base coin. */
  readonly price: bigint
  /** Base units. */
  readonly quantity: bigint
  /** Quote units. */
  readonly amount: bigint
  /** In the coin the maker receives. */
  readonly makerFee: bigint
  /** In the coin the taker receives. */
  readonly takerFee: bigint
}

export type ExpectedStatus = "open" | "filled" | "cancelled" | "filled or cancelled"

export interface Placement {
  readonly fills: ReadonlyArray<ModelFill>
  readonly status: ExpectedStatus
  readonly order: ModelOrder
}

interface Slot {
  available: bigint
  frozen: bigint
}

/** Quote units of `baseUnits` at `price` (quote units per whole base coin); exact for the products we use. */
const valueOf = (baseUnits: bigint, price: bigint): bigint => {
  const product = baseUnits * price
  if (product % POW10(SCALE) !== 0n) throw new Error("inexact value: the product's precisions exceed 8 decimals")
  return product / POW10(SCALE)
}

const RATE_DECIMALS = 6

export class Model {
  readonly products: ReadonlyArray<ModelProduct>
  readonly orders: Array<ModelOrder> = []
  private readonly slots = new Map<string, Slot>()
  private readonly clientOrders = new Map<string, Map<string, ModelOrder>>()
  private readonly makerRate: bigint
  private readonly takerRate: bigint

  constructor(products: ReadonlyArray<ModelProduct>, makerRate: string, takerRate: string) {
    this.products = products
    this.makerRate = units(makerRate, RATE_DECIMALS)
    this.takerRate = units(takerRate, RATE_DECIMALS)
  }

  slot(user: string, account: AccountType, coin: string): Slot {
    const key = `${user}|${account}|${coin}`
    let slot = this.slots.get(key)
    if (slot === undefined) {
      slot = { available: 0n, frozen: 0n }
      this.slots.set(key, slot)
    }
    return slot
  }

  private product(symbol: string): ModelProduct {
    const product = this.products.find((p) => p.symbol === symbol)
    if (product === undefined) throw new Error(`model: unknown symbol ${symbol}`)
    return product
  }

  deposit(user: string, account: AccountType, coin: string, amount: string): void {
    this.slot(user, account, coin).available += units(amount, SCALE)
  }

  /** Open orders on the side opposite to `side`, best price first, then oldest first. */
  private opposite(product: ModelProduct, side: Side): Array<ModelOrder> {
    const makerSide: Side = side === "buy" ? "sell" : "buy"
    return this.orders
      .filter((o) => o.status === "open" && o.product === product && o.side === makerSide)
      .sort((a, b) => {
        if (a.price !== b.price) return (makerSide === "sell" ? a.price < b.price : a.price > b.price) ? -1 : 1
        return a.seq - b.seq
      })
  }

  /** Whether a maker at `makerPrice` is acceptable to a limit taker at `limit`. */
  private acceptable(side: Side, limit: bigint, makerPrice: bigint): boolean {
    return side === "buy" ? makerPrice <= limit : makerPrice >= limit
  }

  private parse(request: ModelRequest) {
    const product = this.product(request.symbol)
    const market = request.orderType === "market"
    const marketBuy = market && request.side === "buy"
    const price = market ? 0n : units(request.price!, SCALE)
    const quantity = units(request.quantity, SCALE)
    return { product, market, marketBuy, price, quantity }
  }

  /** What the order freezes when accepted. */
  private freezeOf(request: ModelRequest): { readonly coin: string; readonly amount: bigint } {
    const { marketBuy, price, product, quantity } = this.parse(request)
    if (request.side === "sell") return { coin: product.base, amount: quantity }
    return { coin: product.quote, amount: marketBuy ? quantity : valueOf(quantity, price) }
  }

  /** The venue codes that apply to this order (empty: it must be accepted). */
  placeRefusals(user: string, request: ModelRequest): ReadonlyArray<string> {
    const codes: Array<string> = []
    const { market, marketBuy, price, product, quantity } = this.parse(request)
    if (this.clientOrders.get(user)?.has(request.clientOrderId) === true) codes.push("43118")
    const minValue = units(product.minOrderValue, SCALE)
    if (marketBuy) {
      if (quantity < minValue) codes.push("45110")
    } else if (market) {
      const best = this.opposite(product, "sell")[0]
      if (best !== undefined && valueOf(quantity, best.price) < minValue) codes.push("45110")
    } else if (valueOf(quantity, price) < minValue) {
      codes.push("45110")
    }
    const freeze = this.freezeOf(request)
    if (freeze.amount > this.slot(user, "SPOT", freeze.coin).available) codes.push("43012")
    if (!market && request.force === "postOnly") {
      const best = this.opposite(product, request.side)[0]
      if (best !== undefined && this.acceptable(request.side, price, best.price)) codes.push("40020")
    }
    return codes
  }

  /** Applies an accepted order (the engine's `orderId`) and answers the fills it must make and its status. */
  place(user: string, request: ModelRequest, orderId: string): Placement {
    const { market, marketBuy, price, product, quantity } = this.parse(request)
    const order: ModelOrder = {
      seq: this.orders.length,
      orderId,
      user,
      clientOrderId: request.clientOrderId,
      product,
      side: request.side,
      market,
      force: request.force,
      price,
      quantity,
      remaining: quantity,
      filled: 0n,
      fillTotal: 0n,
      status: "open"
    }
    this.orders.push(order)
    let cids = this.clientOrders.get(user)
    if (cids === undefined) {
      cids = new Map()
      this.clientOrders.set(user, cids)
    }
    cids.set(request.clientOrderId, order)
    const freeze = this.freezeOf(request)
    const slot = this.slot(user, "SPOT", freeze.coin)
    slot.available -= freeze.amount
    slot.frozen += freeze.amount

    const makers = this.opposite(product, request.side)
      .filter((m) => market || this.acceptable(request.side, price, m.price))
    const fills: Array<ModelFill> = []
    const fok = !market && request.force === "fok"
    const enough = makers.reduce((sum, m) => sum + m.remaining, 0n) >= quantity
    if (!fok || enough) {
      for (const maker of makers) {
        if (order.remaining === 0n) break
        let lots = maker.remaining
        if (!marketBuy && order.remaining < lots) lots = order.remaining
        if (marketBuy) {
          const lot = POW10(SCALE - product.quantityPrecision)
          const affordable = (order.remaining * POW10(SCALE) / maker.price) / lot * lot
          if (affordable === 0n) break
          if (affordable < lots) lots = affordable
        }
        fills.push(this.fill(order, maker, lots))
      }
    }
    const rests = !market && order.remaining > 0n && (request.force === "normal" || request.force === "postOnly")
    let status: ExpectedStatus
    if (rests) {
      status = "open"
    } else {
      const leftover = order.remaining
      if (leftover > 0n) {
        const release = request.side === "sell" ? leftover : marketBuy ? leftover : valueOf(leftover, price)
        const s = this.slot(user, "SPOT", request.side === "sell" ? product.base : product.quote)
        s.frozen -= release
        s.available += release
      }
      if (order.remaining === 0n) status = "filled"
      else if (order.filled === 0n) status = "cancelled"
      else if (!marketBuy) status = "cancelled"
      else if (this.opposite(product, "buy").length > 0) status = "filled" // what is left cannot buy one more lot
      else status = "filled or cancelled" // the book ran out: a policy the rules leave open
      order.status = status === "cancelled" ? "cancelled" : "filled"
    }
    return { fills, status, order }
  }

  private fill(taker: ModelOrder, maker: ModelOrder, quantity: bigint): ModelFill {
    const product = taker.product
    const price = maker.price
    const amount = valueOf(quantity, price)
    const takerBuys = taker.side === "buy"
    const buyer = takerBuys ? taker : maker
    const seller = takerBuys ? maker : taker
    const buyerRate = takerBuys ? this.takerRate : this.makerRate
    const sellerRate = takerBuys ? this.makerRate : this.takerRate
    const buyerFee = quantity * buyerRate / POW10(RATE_DECIMALS)
    const sellerFee = amount * sellerRate / POW10(RATE_DECIMALS)

    const buyerQuote = this.slot(buyer.user, "SPOT", product.quote)
    const frozenForFill = buyer.market ? amount : valueOf(quantity, buyer.price)
    buyerQuote.frozen -= frozenForFill
    buyerQuote.available += frozenForFill - amount
    this.slot(buyer.user, "SPOT", product.base).available += quantity - buyerFee
    this.slot(seller.user, "SPOT", product.base).frozen -= quantity
    this.slot(seller.user, "SPOT", product.quote).available += amount - sellerFee

    for (const order of [taker, maker]) {
      order.remaining -= order.market && order.side === "buy" ? amount : quantity
      order.filled += quantity
      order.fillTotal += amount
    }
    if (maker.remaining === 0n) maker.status = "filled"
    return {
      makerOrderId: maker.orderId,
      takerOrderId: taker.orderId,
      takerSide: taker.side,
      price,
      quantity,
      amount,
      makerFee: takerBuys ? sellerFee : buyerFee,
      takerFee: takerBuys ? buyerFee : sellerFee
    }
  }

  /** Cancels by orderId or by the user's clientOrderId; answers whether an open order of the user was cancelled. */
  cancel(user: string, id: { readonly orderId?: string; readonly clientOrderId?: string }): boolean {
    const order = id.orderId !== undefined
      ? this.orders.find((o) => o.orderId === id.orderId)
      : this.clientOrders.get(user)?.get(id.clientOrderId ?? "")
    if (order === undefined || order.user !== user || order.status !== "open") return false
    order.status = "cancelled"
    const product = order.product
    const release = order.side === "sell" ? order.remaining : valueOf(order.remaining, order.price)
    const slot = this.slot(user, "SPOT", order.side === "sell" ? product.base : product.quote)
    slot.frozen -= release
    slot.available += release
    return true
  }

  /**
   * Cancels one order of the user on a symbol as the venue answers (docs/venue/trading.md#cancel-order): `cancelled`, `43001` when it
   * is no order of the user on the symbol, `43004` when it is not open. The orderId names it when given.
   */
  cancelOn(
    user: string,
    symbol: string,
    id: { readonly orderId?: string | undefined; readonly clientOrderId?: string | undefined }
  ): "cancelled" | "43001" | "43004" {
    const order = id.orderId !== undefined
      ? this.orders.find((o) => o.orderId === id.orderId)
      : this.clientOrders.get(user)?.get(id.clientOrderId ?? "")
    if (order === undefined || order.user !== user || order.product.symbol !== symbol) return "43001"
    if (order.status !== "open") return "43004"
    this.cancel(user, { orderId: order.orderId })
    return "cancelled"
  }

  transferRefusals(
    user: string,
    request: {
      readonly toUserId: string
      readonly coin: string
      readonly amount: string
      readonly fromAccountType: AccountType
      readonly toAccountType: AccountType
    }
  ): ReadonlyArray<string> {
    const codes: Array<string> = []
    if (user === request.toUserId && request.fromAccountType === request.toAccountType) codes.push("40020")
    if (decimalsOf(request.amount) > 6) {
      codes.push("40808")
      return codes
    }
    const amount = units(request.amount, SCALE)
    if (amount === 0n) codes.push("40020")
    if (amount > this.slot(user, request.fromAccountType, request.coin).available) codes.push("43012")
    return codes
  }

  transfer(
    user: string,
    request: {
      readonly toUserId: string
      readonly coin: string
      readonly amount: string
      readonly fromAccountType: AccountType
      readonly toAccountType: AccountType
    }
  ): void {
    const amount = units(request.amount, SCALE)
    this.slot(user, request.fromAccountType, request.coin).available -= amount
    this.slot(request.toUserId, request.toAccountType, request.coin).available += amount
  }

  openOrders(user: string, symbol: string): ReadonlyArray<ModelOrder> {
    return this.orders.filter((o) => o.status === "open" && o.user === user && o.product.symbol === symbol)
  }
}
