// The engine's requests as the venue receives them, decimal strings and names, into the units and indices the
// matching and accounts work in, or into the venue's refusal: its code and its message from core's `Venue`.
import { Venue } from "@spotkit/core"
import type { AccountType, OrderRequest, Placed, Rejection, TransferRequest } from "../../EngineModel.ts"
import { pow10, toUnits } from "../units.ts"
import { accountTypes } from "./accounts.ts"
import {
  REJECT_BALANCE,
  REJECT_DUPLICATE,
  REJECT_MAX_MARKET_BUY,
  REJECT_MAX_QUANTITY,
  REJECT_MIN_QUANTITY,
  REJECT_MIN_VALUE,
  REJECT_NOT_TRADABLE,
  REJECT_PARAMETER,
  REJECT_POST_ONLY
} from "./matching.ts"
import type { Product } from "./registry.ts"
import { Kind } from "./stamps.ts"
import type { State } from "./state.ts"

const FORCES = ["normal", "postOnly", "fok", "ioc"]

/**
 * A refusal with the venue's message for `code`, naming `parameter` where it has one; `detail` follows after a colon.
 * Without a parameter the message reads as the venue writes it, without the name.
 */
export const refusal = (code: string, parameter = "", detail?: string): Rejection => {
  const msg = Venue.message(code, parameter === "" ? undefined : parameter)
  return { ok: false, code, msg: detail === undefined ? msg : `${msg}: ${detail}` }
}

/**
 * Whether a clientOrderId has the venue's form (docs/venue/trading.md#client-order-ids): 1 to 40 of `A-Z a-z 0-9 _ -`.
 * The test of core's `Primitives.ClientOrderId` (`^[A-Za-z0-9_-]{1,40}$`) as a loop over the characters, as placing
 * orders from wire strings is benchmarked; test/requests.test.ts holds the two to the same answers.
 */
export const isClientOrderId = (id: string): boolean => {
  const length = id.length
  if (length === 0 || length > 40) return false
  for (let i = 0; i < length; i++) {
    const c = id.charCodeAt(i)
    // 0-9, A-Z, a-z, "_", "-"
    if (
      !((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 45)
    ) {
      return false
    }
  }
  return true
}

export class Requests {
  // The engine's state (state.ts), the floor below.
  private readonly state: State

  constructor(state: State) {
    this.state = state
  }

  /**
   * Places an order from its wire fields (docs/venue/trading.md#place-order) with the venue's checks and codes:
   * parameters (40019/40020), symbol (40102), precision (40808), minimum value (45110), duplicate clientOrderId
   * (43118), balance (43012).
   */
  placeOrder(userId: string, request: OrderRequest, now: number): Placed | Rejection {
    const user = this.state.accounts.find(userId)
    if (user === undefined) return refusal("40034", "userId")
    const product = this.state.registry.product(request.symbol)
    if (product === undefined) return refusal("40102")
    const side = request.side === "buy" ? 0 : request.side === "sell" ? 1 : -1
    if (side < 0) return refusal("40020", "side")
    const market = request.orderType === "market" ? 1 : request.orderType === "limit" ? 0 : -1
    if (market < 0) return refusal("40020", "orderType")
    const force = FORCES.indexOf(request.force)
    if (force < 0) return refusal("40020", "force")
    const cid = request.clientOrderId
    if (!isClientOrderId(cid)) return refusal("40020", "clientOrderId")
    let price = 0
    if (market === 0) {
      if (request.price === undefined || request.price === "") return refusal("40019", "price")
      const units = toUnits(request.price, product.pricePrecision)
      if (units === "scale") return refusal("40808", "price")
      if (typeof units !== "number" || units === 0) return refusal("40020", "price")
      price = units
    }
    const quantityScale = market === 1 && side === 0 ? product.quotePrecision : product.quantityPrecision
    const quantity = toUnits(request.quantity, quantityScale)
    if (quantity === "scale") return refusal("40808", "quantity")
    if (typeof quantity !== "number" || quantity === 0) return refusal("40020", "quantity")
    return this.placed(
      product,
      this.state.matching.place(user, product, side, market, force, price, quantity, cid, now),
      cid
    )
  }

  /** The answer to a placement: the order's id, or the refusal behind a negative result of `Matching.place`. */
  placed(product: Product, result: number, clientOrderId: string): Placed | Rejection {
    return result >= 0
      ? { ok: true, orderId: this.state.stamps.id(Kind.order, result), clientOrderId }
      : this.rejection(result, product)
  }

  /** The refusal behind a negative result of `Matching.place`. */
  rejection(result: number, product: Product | undefined): Rejection {
    switch (product === undefined ? 0 : result) {
      case REJECT_DUPLICATE:
        return refusal("43118")
      case REJECT_MIN_VALUE:
        return refusal("45110", product!.minOrderValue)
      case REJECT_BALANCE:
        return refusal("43012")
      case REJECT_POST_ONLY:
        return refusal("40020", "force", "a postOnly order would take liquidity")
      case REJECT_PARAMETER:
        return refusal("40020", "", "side, orderType, force, price or quantity out of range")
      case REJECT_NOT_TRADABLE:
        return refusal("40020", "symbol", "the symbol does not trade now")
      case REJECT_MIN_QUANTITY:
        return refusal("45110", product!.minQuantity)
      case REJECT_MAX_QUANTITY:
        return refusal("40020", "quantity", `above the maximum order quantity ${product!.maxQuantity}`)
      case REJECT_MAX_MARKET_BUY:
        return refusal("40020", "quantity", `above the largest market buy ${product!.maxMarketBuyValue}`)
      default:
        return refusal("40034")
    }
  }

  /** Cancels an open order of the user by orderId or clientOrderId; false when there is none such. */
  cancelOrder(
    userId: string,
    id: { readonly orderId?: string; readonly clientOrderId?: string },
    now: number
  ): boolean {
    const user = this.state.accounts.find(userId)
    if (user === undefined) return false
    const seq = id.orderId !== undefined
      ? this.state.stamps.seqOf(Kind.order, id.orderId)
      : this.state.matching.clientIds.get(user.index, id.clientOrderId ?? "")
    return this.state.matching.cancel(user.index, seq, now)
  }

  /**
   * An internal transfer (docs/venue/account.md#internal-transfer) from its wire fields: users (40034), coin, account
   * types and amount (40020, 40808), balance (43012).
   */
  transfer(
    userId: string,
    request: TransferRequest,
    now: number
  ): { readonly ok: true; readonly id: string } | Rejection {
    const sender = this.state.accounts.find(userId)
    if (sender === undefined) return refusal("40034", "userId")
    const receiver = this.state.accounts.find(request.toUserId)
    if (receiver === undefined) return refusal("40034", "toUserId")
    const coin = this.state.registry.findCoin(request.coin)
    if (coin === undefined) return refusal("40020", "coin")
    const from = accountTypes.indexOf(request.fromAccountType as AccountType)
    const to = accountTypes.indexOf(request.toAccountType as AccountType)
    if (from < 0) return refusal("40020", "fromAccountType")
    if (to < 0) return refusal("40020", "toAccountType")
    if (sender === receiver && from === to) return refusal("40020", "toAccountType")
    const units = toUnits(request.amount, Math.min(6, coin.scale))
    if (units === "scale") return refusal("40808", "amount")
    if (typeof units !== "number" || units === 0) return refusal("40020", "amount")
    const amount = units * pow10(coin.scale - Math.min(6, coin.scale))
    // Beyond 2^53 units no account holds it (coin supply is capped below): refused before it is compared as money.
    if (!Number.isSafeInteger(amount)) return refusal("43012")
    const id = this.state.accounts.transfer(sender, from, receiver, to, coin, amount, now)
    return id === undefined ? refusal("43012") : { ok: true, id }
  }
}
