/**
 * The engine in numbers, for hot loops (benchmarks, bulk seeding): orders in integer units, users and products by
 * index, answers as numbers, no allocation per call. It drives the same matching, accounts and books as the `Engine`
 * it is made from, past the parsing of decimal strings; mix its calls with the engine's freely.
 *
 * ```ts
 * import { Engine, EngineUnits } from "@spotkit/testkit"
 *
 * const engine = new Engine.Engine({ seed: 7 })
 * engine.addProduct({ symbol: "BTCUSDT_SPBL", base: "BTC", quote: "USDT", pricePrecision: 2, quantityPrecision: 4 })
 * const userId = engine.addUser()
 * engine.deposit(userId, "SPOT", "USDT", "1000000", 0)
 *
 * const units = EngineUnits.make(engine)
 * const user = units.userIndex(userId)
 * const product = units.productIndex("BTCUSDT_SPBL")
 * // A limit buy of 0.1000 BTC (1,000 lots of 0.0001) at 30000.00 (3,000,000 ticks of 0.01).
 * const seq = units.submit(user, product, 0, 0, 0, 3_000_000, 1_000, "order-1", 1)
 * if (seq < 0) throw new Error(units.rejectionOf(seq, product).msg)
 * units.cancelBySeq(user, seq, 2)
 * ```
 *
 * @since 0.1.0
 */
import type * as Engine from "./Engine.ts"
import type { Accounts, User } from "./internal/engine/accounts.ts"
import { EngineError } from "./internal/engine/errors.ts"
import type { Matching } from "./internal/engine/matching.ts"
import { REJECT_UNKNOWN } from "./internal/engine/matching.ts"
import { partsOf } from "./internal/engine/parts.ts"
import type { Product, Registry } from "./internal/engine/registry.ts"
import type { Requests } from "./internal/engine/requests.ts"
import { refusal } from "./internal/engine/requests.ts"
import { ID_DIGITS, Kind, type Stamps } from "./internal/engine/stamps.ts"

/**
 * The numeric entry to an engine. `side` 0 buy / 1 sell; `market` 0 limit / 1 market; `force` 0 normal, 1 postOnly,
 * 2 fok, 3 ioc; `price` in ticks of the product's price precision (0 for a market order); `quantity` in lots of its
 * quantity precision, or a market buy's in units of its quote precision.
 *
 * @since 0.1.0
 * @category engine
 */
export class EngineUnits {
  private readonly matching: Matching
  private readonly requests: Requests
  private readonly registry: Registry
  private readonly accounts: Accounts
  private readonly stamps: Stamps
  private readonly users: ReadonlyArray<User>
  private readonly products: ReadonlyArray<Product>

  constructor(engine: Engine.Engine) {
    const parts = partsOf(engine)
    this.matching = parts.matching
    this.requests = parts.requests
    this.registry = parts.registry
    this.accounts = parts.accounts
    this.stamps = parts.stamps
    this.users = parts.accounts.users
    this.products = parts.registry.products
  }

  /**
   * Places an order with the user and product by index (`userIndex`, `productIndex`): answers the order's sequence
   * number (`orderIdOf` makes its id), or a negative number for a refusal (`rejectionOf` says which).
   *
   * @since 0.1.0
   */
  submit(
    user: number,
    product: number,
    side: number,
    market: number,
    force: number,
    price: number,
    quantity: number,
    clientOrderId: string,
    now: number
  ): number {
    const u = this.users[user]
    const p = this.products[product]
    if (u === undefined || p === undefined) return REJECT_UNKNOWN
    return this.matching.place(u, p, side, market, force, price, quantity, clientOrderId, now)
  }

  /**
   * Places an order in units with the user and product by id and symbol, answering as `Engine.placeOrder` does.
   *
   * @since 0.1.0
   */
  placeUnits(
    userId: string,
    symbol: string,
    side: number,
    market: number,
    force: number,
    price: number,
    quantity: number,
    clientOrderId: string,
    now: number
  ): Engine.Placed | Engine.Rejection {
    const user = this.accounts.find(userId)
    const product = this.registry.product(symbol)
    if (user === undefined || product === undefined) return refusal("40034")
    const result = this.matching.place(user, product, side, market, force, price, quantity, clientOrderId, now)
    return this.requests.placed(product, result, clientOrderId)
  }

  /**
   * Cancels by clientOrderId with the user by index: false, as `Engine.cancelOrder`, for an order that is not the
   * user's or not open.
   *
   * @since 0.1.0
   */
  cancelByClientId(user: number, clientOrderId: string, now: number): boolean {
    return this.matching.cancel(user, this.matching.clientIds.get(user, clientOrderId), now)
  }

  /**
   * Cancels by the order's sequence number (what `submit` answered) with the user by index: a cancel by orderId
   * without the id. False, as `Engine.cancelOrder`, for an order that is not the user's or not open, and for anything
   * that is not a sequence number.
   *
   * @since 0.1.0
   */
  cancelBySeq(user: number, seq: number, now: number): boolean {
    return Number.isSafeInteger(seq) && this.matching.cancel(user, seq, now)
  }

  /**
   * The refusal behind a negative result of `submit` for a product (by index).
   *
   * @since 0.1.0
   */
  rejectionOf(result: number, product: number): Engine.Rejection {
    return this.requests.rejection(result, this.products[product])
  }

  /**
   * The id of the order with this sequence number (a non-negative result of `submit`); throws `EngineError` for
   * anything that cannot be one (a refusal's negative code, a fraction, 10^15 or more).
   *
   * @since 0.1.0
   */
  orderIdOf(seq: number): string {
    if (!Number.isSafeInteger(seq) || seq < 0 || seq >= 10 ** ID_DIGITS) {
      throw new EngineError(`not an order's sequence number: ${seq}`)
    }
    return this.stamps.id(Kind.order, seq)
  }

  /**
   * A user's index for `submit`, or -1.
   *
   * @since 0.1.0
   */
  userIndex(userId: string): number {
    return this.accounts.find(userId)?.index ?? -1
  }

  /**
   * A product's index for `submit`, or -1.
   *
   * @since 0.1.0
   */
  productIndex(symbol: string): number {
    return this.registry.product(symbol)?.index ?? -1
  }
}

/**
 * The numeric entry to an engine.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (engine: Engine.Engine): EngineUnits => new EngineUnits(engine)
