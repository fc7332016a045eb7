// The clientOrderIds a caller gave to a client's placements (placeOrder, placeOrders) while those calls run. The venue
// takes one order per clientOrderId, and a placement whose answer was lost looks its order up by it: with two calls
// under one id at once, the one the venue refused would find the other's order, created during its own call, and
// report it placed as well. A second call is therefore refused before it sends anything. Generated ids are unique and
// not claimed; two processes (or two clients) under one key are not covered: the venue's refusal (43118) is.
import { Effect } from "effect"
import * as SpotError from "../../SpotError.ts"

/** The refusal of a clientOrderId another call of the client holds; `field` is where the id was given. */
export const refusal = (field: string, clientOrderId: string): SpotError.ValidationError =>
  new SpotError.ValidationError({
    field,
    description: `${clientOrderId} is in flight: another placeOrder or placeOrders call of this client is placing an` +
      ` order with it (the venue takes one order per clientOrderId, and either call's lost answer would be taken for` +
      ` the other's order); place it once that call has ended`
  })

/** The clientOrderIds held by a client's placements in flight. */
export class InFlight {
  private readonly ids = new Set<string>()

  /** Takes `clientOrderId` for a call; false when another call holds it. */
  claim(clientOrderId: string): boolean {
    if (this.ids.has(clientOrderId)) return false
    this.ids.add(clientOrderId)
    return true
  }

  release(clientOrderId: string): void {
    this.ids.delete(clientOrderId)
  }

  /** Whether a call holds `clientOrderId` now. */
  holds(clientOrderId: string): boolean {
    return this.ids.has(clientOrderId)
  }

  /**
   * `use` with `clientOrderId` held for as long as it runs, released however it ends; `refused` when another call
   * holds it. The id is claimed only once the release is in place, so that an interruption between the two cannot
   * keep it for good. Each run of the effect claims on its own.
   */
  holding<A, E>(
    clientOrderId: string,
    refused: (clientOrderId: string) => E,
    use: () => Effect.Effect<A, E>
  ): Effect.Effect<A, E> {
    return Effect.suspend(() => {
      let claimed = false
      return Effect.onExit(
        Effect.suspend(() => {
          if (!this.claim(clientOrderId)) return Effect.fail(refused(clientOrderId))
          claimed = true
          return use()
        }),
        () => {
          if (claimed) this.release(clientOrderId)
          return Effect.void
        }
      )
    })
  }
}

/** How many clientOrderIds of outcomes that may exist a client remembers; the oldest is forgotten past it. */
export const UNSETTLED_CAP = 10_000

/**
 * The clientOrderIds of `placeOrders` outcomes that may exist (`mayExist`), each with the order a later placement of
 * this client made under it, if one did. The venue takes one order per clientOrderId: when a later `placeOrder` (or
 * batch) of the client placed one under such an id, the earlier outcome's order was not placed, and `resolve` must not
 * take the later order for it (both calls would report one order). An id is kept once `resolve` has settled its
 * outcome, and later placements under it still recorded: `resolve` given the same result again (or a copy of it) must
 * answer as it did, not take an order placed since for the outcome's. Bounded: past `cap` ids, the oldest is forgotten
 * (its `resolve` then decides by the order's creation time alone).
 */
export class Unsettled {
  private readonly ids = new Map<string, string | undefined>()
  private readonly cap: number

  constructor(cap: number = UNSETTLED_CAP) {
    this.cap = cap
  }

  /** Whether no outcome of this client ever may have existed: a placement has nothing to record (checked first). */
  get empty(): boolean {
    return this.ids.size === 0
  }

  /** An outcome under `clientOrderId` may exist; a later order already recorded under it is kept. */
  add(clientOrderId: string): void {
    if (this.ids.has(clientOrderId)) return
    this.ids.set(clientOrderId, undefined)
    if (this.ids.size > this.cap) this.ids.delete(this.ids.keys().next().value!)
  }

  /** A placement of this client made `orderId` under `clientOrderId`: recorded when an outcome under it may exist. */
  placed(clientOrderId: string, orderId: string): void {
    if (this.ids.has(clientOrderId)) this.ids.set(clientOrderId, orderId)
  }

  /** `place` (a placement under `clientOrderId`), its order recorded when an outcome under the id may exist. */
  recording<A extends { readonly orderId: string }, E>(
    clientOrderId: string,
    place: () => Effect.Effect<A, E>
  ): Effect.Effect<A, E> {
    if (this.empty) return place()
    return Effect.map(place(), (placed) => {
      this.placed(clientOrderId, placed.orderId)
      return placed
    })
  }

  /** The order a later placement of this client made under `clientOrderId`, if one did. */
  laterOrder(clientOrderId: string): string | undefined {
    return this.ids.get(clientOrderId)
  }
}
