/**
 * `SpotError`'s reasons as a caller handles them.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { FakeVenue, SYMBOL, withClient } from "./support/FakeVenue.ts"

describe("handling reasons", () => {
  it.effect("reasons can be handled with Effect.catchReason", () => {
    const venue = new FakeVenue().fail({ kind: "venue", code: "43012", msg: "Insufficient balance" })
    return withClient(
      venue,
      (client) =>
        client.placeOrder({ symbol: SYMBOL, side: "buy", orderType: "market", quantity: "10" }).pipe(
          Effect.map(() => "placed"),
          Effect.catchReason(
            "SpotError",
            "InsufficientBalanceError",
            (reason) => Effect.succeed(`short: ${reason.code}`),
            (reason) => Effect.succeed(`other: ${reason._tag}`)
          ),
          Effect.map((outcome) => assert.strictEqual(outcome, "short: 43012"))
        )
    )
  })
})
