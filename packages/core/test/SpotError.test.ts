/**
 * `SpotError`'s reasons as a caller handles them.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { SpotError } from "../src/index.ts"
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

// Found in review (telemetry): RateLimitStoreError quoted its store's failure as it came (a Redis error reply may hold
// any byte but a line break), so a terminal escape reached log lines and spans through its message.
describe("messages of reasons that quote the network", () => {
  const hostile = `${"\u001b[31m"}forged\u202e${"y".repeat(5_000)}`
  const venue = { code: hostile, msg: hostile }
  const reasons: ReadonlyArray<SpotError.SpotErrorReason> = [
    new SpotError.AuthenticationError(venue),
    new SpotError.ServerError(venue),
    new SpotError.ApiError(venue),
    new SpotError.DuplicateOrderError({ ...venue, clientOrderId: hostile, afterRetry: true }),
    new SpotError.TransportError({ description: hostile }),
    new SpotError.HttpStatusError({ httpStatus: 502, excerpt: hostile }),
    new SpotError.RedirectError({ httpStatus: 302, target: hostile }),
    new SpotError.DecodeError({ kind: "json", description: hostile, excerpt: hostile }),
    new SpotError.OutcomeUnknownError({ description: hostile, clientOrderId: hostile }),
    new SpotError.RateLimitStoreError({ store: hostile, description: hostile })
  ]

  it("are one printable line of bounded length", () => {
    for (const reason of reasons) {
      const message = new SpotError.SpotError({ operation: "SpotClient.balances", reason }).message
      // eslint-disable-next-line no-control-regex
      assert.notMatch(message, /[\u0000-\u001f\u007f-\u009f\u202e]/, reason._tag)
      assert.isBelow(message.length, 3_000, reason._tag)
    }
  })
})
