// Cancels as the venue answers them (docs/venue/trading.md#cancel-order): one order of a symbol by orderId or
// clientOrderId, many, or every open order of a symbol, each with its outcome: cancelled (its frozen funds released),
// not found (43001: no such order of the user on the symbol) or not open (43004: already filled or cancelled). The
// cancel itself is matching's, the one the numeric entry points use.
import { Venue } from "@spotkit/core"
import type { CancelBatch, Cancelled, NotCancelled, OrderRef } from "../../EngineModel.ts"
import type { User } from "./accounts.ts"
import * as Book from "./book.ts"
import type { Product } from "./registry.ts"
import { Kind } from "./stamps.ts"
import type { State } from "./state.ts"
import type { Views } from "./views.ts"

/** The venue's message for an order a cancel does not find (its sample of a failed batch cancel). */
export const ORDER_NOT_FOUND = "FAILED_ORDER_NOT_FOUND"

export class Cancels {
  // The engine's state (state.ts), the floor below.
  private readonly state: State
  private readonly views: Views

  constructor(state: State, views: Views) {
    this.state = state
    this.views = views
  }

  /** Cancels one order of the user on a symbol, named by orderId (when given) or clientOrderId. */
  cancel(userId: string, symbol: string, ref: OrderRef, now: number): Cancelled | NotCancelled {
    const user = this.state.accounts.find(userId)
    const product = this.state.registry.product(symbol)
    if (user === undefined || product === undefined) return notFound(ref)
    return this.cancelIn(user, product, ref, now)
  }

  /** Cancels orders of the user on a symbol, each named as `cancel` takes it, in the order given. */
  cancelMany(userId: string, symbol: string, refs: ReadonlyArray<OrderRef>, now: number): CancelBatch {
    const user = this.state.accounts.find(userId)
    const product = this.state.registry.product(symbol)
    const cancelled: Array<Cancelled> = []
    const failed: Array<NotCancelled> = []
    for (const ref of refs) {
      const outcome = user === undefined || product === undefined
        ? notFound(ref)
        : this.cancelIn(user, product, ref, now)
      if (outcome.ok) cancelled.push(outcome)
      else failed.push(outcome)
    }
    return { cancelled, failed }
  }

  /** Cancels every open order of the user on a symbol, oldest first. */
  cancelAll(userId: string, symbol: string, now: number): CancelBatch {
    const user = this.state.accounts.find(userId)
    const cancelled: Array<Cancelled> = []
    if (user === undefined) return { cancelled, failed: [] }
    for (const seq of this.views.openSeqs(userId, symbol)) {
      if (this.state.matching.cancel(user.index, seq, now)) cancelled.push(this.cancelled(seq))
    }
    return { cancelled, failed: [] }
  }

  private cancelIn(user: User, product: Product, ref: OrderRef, now: number): Cancelled | NotCancelled {
    const store = this.state.matching.orders
    const seq = ref.orderId !== undefined
      ? this.state.stamps.seqOf(Kind.order, ref.orderId)
      : ref.clientOrderId !== undefined
      ? this.state.matching.clientIds.get(user.index, ref.clientOrderId)
      : -1
    // Another user's order, or one on another symbol, is no order of this user on this symbol.
    if (
      seq < 0 || seq >= store.size || store.user(seq) !== user.index ||
      store.segment(seq)[Book.at(seq) + Book.PRODUCT] !== product.index
    ) {
      return notFound(ref)
    }
    if (this.state.matching.cancel(user.index, seq, now)) return this.cancelled(seq)
    return {
      ok: false,
      code: "43004",
      msg: Venue.message("43004"),
      orderId: this.state.stamps.id(Kind.order, seq),
      clientOrderId: store.clientOrderId(seq)
    }
  }

  private cancelled(seq: number): Cancelled {
    return {
      ok: true,
      orderId: this.state.stamps.id(Kind.order, seq),
      clientOrderId: this.state.matching.orders.clientOrderId(seq)
    }
  }
}

const notFound = (ref: OrderRef): NotCancelled => ({
  ok: false,
  code: "43001",
  msg: ORDER_NOT_FOUND,
  orderId: ref.orderId,
  clientOrderId: ref.orderId === undefined ? ref.clientOrderId : undefined
})
