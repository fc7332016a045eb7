/**
 * The push streams' elements (`PushModel`) as the push and REST records become them: a side is `buy` or `sell` in
 * its type and in fact; a record whose side is neither is not passed on as one (a push is undecodable, so the private
 * connection is replaced and REST reads back what it carried: pushPrivate.test.ts; a REST fill is left out, with a
 * warning).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Logger, Schema } from "effect"
import { Fill, Push } from "../src/index.ts"
import type { PushModel, SpotPush } from "../src/index.ts"
import * as Model from "../src/internal/push/model.ts"

// The records as decoded from the wire (the push's upper-case words, the REST's lower-case ones).
const wireFill = (orderSide: string) => ({
  id: "7001",
  symbolName: "BTCUSDT_SPBL",
  orderId: "9",
  orderSide,
  fillSize: "1",
  fillValue: "10",
  fillFee: "0",
  direction: "MAKER",
  createdTime: "100"
})

const pushedFill = (orderSide: string) => Schema.decodeUnknownSync(Push.Fill)(wireFill(orderSide))

const pushedOrder = (orderSide: string) =>
  Schema.decodeUnknownSync(Push.Order)({
    id: "9",
    symbolName: "BTCUSDT_SPBL",
    orderSide,
    type: "LIMIT",
    price: "10",
    size: "1",
    status: "NEW",
    cumFillSize: "0",
    createdTime: "100",
    updatedTime: "100"
  })

const restFill = (fillId: string, side: string) =>
  Schema.decodeUnknownSync(Fill.FillRecord)({
    accountId: "1",
    symbol: "BTCUSDT_SPBL",
    orderId: "9",
    fillId,
    orderType: "limit",
    side,
    fillPrice: "10",
    fillQuantity: "1",
    fillTotalAmount: "10",
    fees: "0",
    cTime: "100"
  })

const warningsInto = (warnings: Array<string>) =>
  Logger.layer([
    Logger.make((options) => {
      if (options.logLevel === "Warn") warnings.push(String(options.message))
    })
  ])

describe("a fill's amounts", () => {
  it("a quantity, price or value of zero or below is undecodable, pushed or from REST; a fee may be either", () => {
    const rest = {
      accountId: "1",
      symbol: "BTCUSDT_SPBL",
      orderId: "9",
      fillId: "1",
      orderType: "market",
      side: "sell",
      fillPrice: "",
      fillQuantity: "1",
      fillTotalAmount: "10",
      fees: "-0.01",
      cTime: "100"
    }
    for (const bad of ["0", "0.000", "-0.003332", "-1e-3"]) {
      for (const field of ["fillQuantity", "fillTotalAmount", "fillPrice"]) {
        assert.throws(() => Schema.decodeUnknownSync(Fill.FillRecord)({ ...rest, [field]: bad }), /greater than 0/)
      }
      for (const field of ["fillSize", "fillValue"]) {
        assert.throws(() => Schema.decodeUnknownSync(Push.Fill)({ ...wireFill("BUY"), [field]: bad }), /greater than 0/)
      }
    }
    assert.strictEqual(Schema.decodeUnknownSync(Fill.FillRecord)(rest).fees, "-0.01")
    assert.strictEqual(Schema.decodeUnknownSync(Push.Fill)({ ...wireFill("BUY"), fillFee: "-0.1" }).fillFee, "-0.1")
  })
})

describe("PushModel: a side", () => {
  it("is typed buy or sell, on every element that has one", () => {
    const side: PushModel.Side = "buy"
    // @ts-expect-error a fill's side is "buy" or "sell", not the venue's upper-case word
    const fillSide: PushModel.Fill["side"] = "BUY"
    // @ts-expect-error nor any other word
    const orderSide: SpotPush.OrderUpdate["side"] = "both"
    const tradeSide: SpotPush.PublicTrade["side"] = "sell"
    // An exhaustive switch compiles: no case left for a string.
    const sign = (s: SpotPush.Fill["side"]): number => {
      switch (s) {
        case "buy":
          return 1
        case "sell":
          return -1
      }
    }
    assert.deepStrictEqual([side, fillSide, orderSide, tradeSide, sign("sell")], ["buy", "BUY", "both", "sell", -1])
  })

  it("is read in any case from push and REST", () => {
    assert.strictEqual(Model.fillFromPush(pushedFill("SELL"))?.side, "sell")
    assert.strictEqual(Model.orderFromPush(pushedOrder("Buy"), undefined)?.side, "buy")
    assert.strictEqual(Model.fillFromRest(restFill("1", "buy"))?.side, "buy")
  })

  it("that is neither buy nor sell makes a pushed fill or order no element", () => {
    assert.isUndefined(Model.fillFromPush(pushedFill("BOTH")))
    assert.isUndefined(Model.orderFromPush(pushedOrder(""), undefined))
    assert.isUndefined(Model.fillFromRest(restFill("1", "short")))
  })

  it.effect("that is neither leaves a REST fill out of the backfill, with a warning naming it", () => {
    const warnings: Array<string> = []
    return Effect.gen(function*() {
      const fills = yield* Model.fillsFromRest([restFill("1", "buy"), restFill("2", "SHORT"), restFill("3", "sell")])
      assert.deepStrictEqual(fills.map((f) => [f.fillId, f.side]), [["1", "buy"], ["3", "sell"]])
      assert.strictEqual(warnings.length, 1)
      assert.include(warnings[0]!, "fill 2")
      assert.include(warnings[0]!, "\"SHORT\"")
    }).pipe(Effect.provide(warningsInto(warnings)))
  })
})
