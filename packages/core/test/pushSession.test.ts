/**
 * The rules that make private push exactly-once, and the client's bookkeeping of the venue's limits: an order only
 * moves forward (its filled quantity never goes back, a final state sticks), statuses in REST's words from either
 * source, the reconnect backoff's full jitter and cap, and the operations of a connection in a sliding hour.
 */
import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import { Push } from "../src/index.ts"
import { backoffDelay, OperationLog } from "../src/internal/push/limits.ts"
import * as Model from "../src/internal/push/model.ts"
import { mergeOrder } from "../src/internal/push/privateMerge.ts"

const order = (patch: Partial<Model.OrderUpdate>): Model.OrderUpdate => ({
  orderId: "1",
  clientOrderId: "c1",
  symbol: "BTCUSDT_SPBL",
  side: "buy",
  orderType: "limit",
  price: "100",
  quantity: "2",
  status: "open",
  final: false,
  filledQuantity: "0",
  filledValue: "0",
  createdTime: 1,
  updatedTime: 1,
  source: "push",
  ...patch
})

describe("push session rules", () => {
  it("mergeOrder: forward only; a final state sticks; the filled quantity never goes back", () => {
    const open = order({})
    assert.deepStrictEqual(mergeOrder(undefined, open), open)
    const partial = order({ status: "partial_fill", filledQuantity: "0.5", updatedTime: 5 })
    assert.deepStrictEqual(mergeOrder(open, partial)?.filledQuantity, "0.5")
    // An older state (less filled) after a newer one: ignored, whatever its time.
    assert.isUndefined(mergeOrder(partial, order({ updatedTime: 9 })))
    // The same state again (a duplicate push, or REST repeating it): no change.
    assert.isUndefined(mergeOrder(partial, { ...partial, source: "rest" }))
    // Same fill, a status move that is older: ignored; newer: taken.
    assert.isUndefined(mergeOrder(partial, order({ status: "open", filledQuantity: "0.50", updatedTime: 4 })))
    const filled = order({ status: "full_fill", final: true, filledQuantity: "2", updatedTime: 7 })
    assert.strictEqual(mergeOrder(partial, filled)?.status, "full_fill")
    // Final sticks: nothing after it counts, not even a later time.
    assert.isUndefined(mergeOrder(filled, order({ status: "partial_fill", filledQuantity: "1.5", updatedTime: 99 })))
    assert.isUndefined(
      mergeOrder(filled, order({ status: "cancelled", final: true, filledQuantity: "2", updatedTime: 99 }))
    )
    // A cancel at the same filled quantity is a move forward.
    assert.strictEqual(
      mergeOrder(partial, order({ status: "cancelled", final: true, filledQuantity: "0.5" }))?.final,
      true
    )
    // Fields the update lacks are kept from before (a push without a clientOrderId or a price).
    const bare = order({ clientOrderId: undefined, price: undefined, symbol: "", filledQuantity: "1", updatedTime: 6 })
    const merged = mergeOrder(partial, bare)!
    assert.strictEqual(merged.clientOrderId, "c1")
    assert.strictEqual(merged.price, "100")
    assert.strictEqual(merged.symbol, "BTCUSDT_SPBL")
  })

  it("mergeOrder: a push without its filled quantity keeps the known one; a final state is never dropped", () => {
    const partial = order({ status: "partial_fill", filledQuantity: "0.5", filledValue: "50", updatedTime: 10 })
    // The push leaves out `cumFillSize` (and `cumFillValue`): unknown, not "0".
    const pushed = (status: string, updatedTime: number) =>
      Model.orderFromPush(
        Schema.decodeUnknownSync(Push.Order)({
          id: "1",
          symbolName: "BTCUSDT_SPBL",
          orderSide: "BUY",
          status,
          updatedTime
        }),
        updatedTime
      )!
    const cancelled = mergeOrder(partial, pushed("CANCELED", 20))
    assert.strictEqual(cancelled?.status, "cancelled")
    assert.strictEqual(cancelled?.final, true)
    assert.strictEqual(cancelled?.filledQuantity, "0.5")
    assert.strictEqual(cancelled?.filledValue, "50")
    // A status move without the quantity is still a move; the same status again is not.
    const open = order({ status: "open", filledQuantity: "0.5", updatedTime: 5 })
    assert.strictEqual(mergeOrder(open, pushed("PARTIAL_FILL", 10))?.filledQuantity, "0.5")
    assert.isUndefined(mergeOrder(partial, pushed("PARTIAL_FILL", 30)))
    // A final state that says less was filled than known (written before the last fill was counted) moves the order
    // on, with the larger quantity.
    const filled = mergeOrder(
      partial,
      order({ status: "full_fill", final: true, filledQuantity: "0.25", updatedTime: 30 })
    )
    assert.strictEqual(filled?.status, "full_fill")
    assert.strictEqual(filled?.filledQuantity, "0.5")
    assert.strictEqual(filled?.filledValue, "50")
    // A first push without the quantity: nothing known, none filled yet as far as anyone can tell.
    assert.strictEqual(mergeOrder(undefined, pushed("NEW", 1))?.filledQuantity, "0")
  })

  it("statuses: push and REST words become REST's; final ones say so", () => {
    assert.deepStrictEqual(
      ["NEW", "PARTIALLY_FILLED", "FILLED", "CANCELED", "CANCELLED", "REJECTED", "EXPIRED", "open", "full_fill", "Odd"]
        .map(Model.normalStatus),
      ["open", "partial_fill", "full_fill", "cancelled", "cancelled", "rejected", "expired", "open", "full_fill", "odd"]
    )
    assert.deepStrictEqual(
      ["open", "partial_fill", "full_fill", "cancelled", "rejected", "expired"].map(Model.isFinal),
      [false, false, true, true, true, true]
    )
  })

  it("backoff: full jitter under a ceiling that doubles from the initial delay up to the cap", () => {
    const backoff = { initialMillis: 500, maxMillis: 30_000, resetAfterMillis: 60_000 }
    assert.deepStrictEqual([0, 1, 2, 3, 6, 7, 50].map((attempt) => backoffDelay(backoff, attempt, 0.999999)), [
      499,
      999,
      1999,
      3999,
      29999,
      29999,
      29999
    ])
    assert.strictEqual(backoffDelay(backoff, 5, 0), 0)
    assert.strictEqual(backoffDelay(backoff, 1, 0.5), 500)
  })

  it("operations: at most the limit in any window, counted again as the window slides", () => {
    const log = new OperationLog(3, 1000)
    assert.isTrue(log.spend(2, 0))
    assert.isFalse(log.spend(2, 500))
    assert.isTrue(log.spend(1, 500))
    assert.strictEqual(log.remaining(999), 0)
    assert.strictEqual(log.remaining(1000), 2)
    assert.strictEqual(log.remaining(1500), 3)
  })
})
