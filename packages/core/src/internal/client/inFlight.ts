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
