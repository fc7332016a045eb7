// The registry: coins (name, the numeric coinId bills filter on, decimals) and products (a pair of coins with its
// precisions, order limits, whether it trades, and its book). Fixed once seeded; every other part refers to coins and
// products by these objects or their indices.
import type { CoinSpec, ProductListing, ProductSpec, SymbolRules } from "../../EngineModel.ts"
import { pow10, RATE_SCALE, toUnits, trimmed } from "../units.ts"
import { BookSide } from "./book.ts"
import { EngineError } from "./errors.ts"

export interface Coin {
  readonly index: number
  readonly name: string
  readonly coinId: number
  readonly scale: number
  /** The name as a JSON string, for bills written as JSON text. */
  readonly nameJson: string
}

export interface Product {
  readonly index: number
  readonly symbol: string
  readonly base: Coin
  readonly quote: Coin
  readonly pricePrecision: number
  readonly quantityPrecision: number
  readonly quotePrecision: number
  /** Quote units of one tick × one lot. */
  readonly notional: number
  /** Base units of one lot. */
  readonly lot: number
  /** Quote units of one unit of a market buy's quantity. */
  readonly marketBuyUnit: number
  readonly minValue: number
  readonly minOrderValue: string
  /** Lots of the smallest and the largest limit order or market sell (`Infinity`: no largest). */
  readonly minLots: number
  readonly maxLots: number
  /** The same, in the base coin, as `exchangeInfo` serves them. */
  readonly minQuantity: string
  readonly maxQuantity: string
  /** The largest market buy, in units of its quantity (`marketBuyUnit`; `Infinity`: none), and in the quote coin. */
  readonly maxMarketBuy: number
  readonly maxMarketBuyValue: string
  readonly enableTrade: boolean
  readonly bids: BookSide
  readonly asks: BookSide
}

export const defaultCoins: ReadonlyArray<CoinSpec> = [
  { name: "BTC", coinId: 1, scale: 8 },
  { name: "USDT", coinId: 2, scale: 8 },
  { name: "ETH", coinId: 3, scale: 8 }
]

export class Registry {
  readonly coins: ReadonlyArray<Coin>
  readonly products: Array<Product> = []
  private readonly coinByName = new Map<string, Coin>()
  private readonly coinById = new Map<number, Coin>()
  private readonly productBySymbol = new Map<string, Product>()

  constructor(specs: ReadonlyArray<CoinSpec>) {
    this.coins = specs.map((spec, index) => {
      const scale = spec.scale ?? 8
      if (!Number.isInteger(scale) || scale < 0 || scale > 18) throw new EngineError(`coin ${spec.name}: bad scale`)
      return { index, name: spec.name, coinId: spec.coinId, scale, nameJson: JSON.stringify(spec.name) }
    })
    if (this.coins.length > 255) throw new EngineError("at most 255 coins")
    for (const coin of this.coins) {
      this.coinByName.set(coin.name, coin)
      this.coinById.set(coin.coinId, coin)
    }
  }

  /** A coin by name; throws for an unknown one (seeding). */
  coin(name: string): Coin {
    const coin = this.coinByName.get(name)
    if (coin === undefined) throw new EngineError(`unknown coin ${name}`)
    return coin
  }

  findCoin(name: string): Coin | undefined {
    return this.coinByName.get(name)
  }

  findCoinById(coinId: number): Coin | undefined {
    return this.coinById.get(coinId)
  }

  product(symbol: string): Product | undefined {
    return this.productBySymbol.get(symbol)
  }

  addProduct(spec: ProductSpec): void {
    if (this.productBySymbol.has(spec.symbol)) throw new EngineError(`product ${spec.symbol} exists`)
    if (!/^[A-Z0-9]+_SPBL$/.test(spec.symbol)) throw new EngineError(`symbol ${spec.symbol}: <BASE><QUOTE>_SPBL`)
    const base = this.coin(spec.base)
    const quote = this.coin(spec.quote)
    const pp = spec.pricePrecision
    const qp = spec.quantityPrecision
    const quotePrecision = spec.quotePrecision ?? pp
    const ok = (n: number) => Number.isInteger(n) && n >= 0
    if (!ok(pp) || !ok(qp) || !ok(quotePrecision)) throw new EngineError(`${spec.symbol}: bad precision`)
    if (pp + qp > quote.scale || quotePrecision > quote.scale || qp > base.scale) {
      throw new EngineError(`${spec.symbol}: precisions exceed the coins' scales`)
    }
    const minValue = toUnits(spec.minOrderValue ?? "0", quote.scale)
    if (typeof minValue !== "number") throw new EngineError(`${spec.symbol}: bad minOrderValue`)
    const minLots = spec.minQuantity === undefined ? 1 : toUnits(spec.minQuantity, qp)
    const maxLots = spec.maxQuantity === undefined ? Infinity : toUnits(spec.maxQuantity, qp)
    if (typeof minLots !== "number" || minLots === 0) {
      throw new EngineError(`${spec.symbol}: minQuantity must be a positive multiple of the step`)
    }
    if (typeof maxLots !== "number" || maxLots < minLots) {
      throw new EngineError(`${spec.symbol}: maxQuantity must be a multiple of the step, at least minQuantity`)
    }
    const lot = pow10(base.scale - qp)
    const marketBuyUnit = pow10(quote.scale - quotePrecision)
    const maxMarketBuy = spec.maxMarketBuyValue === undefined
      ? Infinity
      : toUnits(spec.maxMarketBuyValue, quotePrecision)
    if (typeof maxMarketBuy !== "number" || maxMarketBuy === 0) {
      throw new EngineError(`${spec.symbol}: maxMarketBuyValue must be a positive multiple of 10^-quotePrecision`)
    }
    const product: Product = {
      index: this.products.length,
      symbol: spec.symbol,
      base,
      quote,
      pricePrecision: pp,
      quantityPrecision: qp,
      quotePrecision,
      notional: pow10(quote.scale - pp - qp),
      lot,
      marketBuyUnit,
      minValue,
      minOrderValue: trimmed(minValue, quote.scale),
      minLots,
      maxLots,
      minQuantity: trimmed(minLots, qp),
      // Without a maximum: the most of the base coin that can exist (a supply stays below 2^53 units), in whole lots.
      maxQuantity: trimmed(maxLots === Infinity ? Math.floor(Number.MAX_SAFE_INTEGER / lot) : maxLots, qp),
      maxMarketBuy,
      // Without a maximum: the most of the quote coin that can exist, in whole units of a market buy's quantity.
      maxMarketBuyValue: trimmed(
        maxMarketBuy === Infinity ? Math.floor(Number.MAX_SAFE_INTEGER / marketBuyUnit) : maxMarketBuy,
        quotePrecision
      ),
      enableTrade: spec.enableTrade ?? true,
      bids: new BookSide(true),
      asks: new BookSide(false)
    }
    this.products.push(product)
    this.productBySymbol.set(spec.symbol, product)
  }

  /** The products as served at `/products`. */
  productList(): ReadonlyArray<ProductListing> {
    return this.products.map((p) => ({
      symbol: p.symbol,
      baseCoin: p.base.name,
      quoteCoin: p.quote.name,
      pricePrecision: String(p.pricePrecision),
      quantityPrecision: String(p.quantityPrecision),
      quotePrecision: String(p.quotePrecision),
      minTradeUSDT: p.minOrderValue,
      status: p.enableTrade ? "online" : "offline"
    }))
  }

  /**
   * The trading rules of products (docs/venue/market-data.md#symbol-rules); fee rates as numerators over 10^RATE_SCALE.
   */
  symbolRules(products: ReadonlyArray<Product>, makerRate: number, takerRate: number): ReadonlyArray<SymbolRules> {
    return products.map((p) => ({
      symbol: p.symbol,
      baseCoin: p.base.name,
      quoteCoin: p.quote.name,
      tickSize: trimmed(1, p.pricePrecision),
      stepSize: trimmed(1, p.quantityPrecision),
      minTradeAmount: p.minQuantity,
      maxTradeAmount: p.maxQuantity,
      marketBuyLimitSize: p.maxMarketBuyValue,
      minOrderValue: p.minOrderValue,
      makerFeeRate: trimmed(makerRate, RATE_SCALE),
      takerFeeRate: trimmed(takerRate, RATE_SCALE),
      enableTrade: p.enableTrade
    }))
  }
}
