// The TestClock pattern of packages/testkit/README.md, verbatim, so that it keeps compiling and passing: inject a
// fault, fork the call, move the clock, see the retry. No sleep: the client's backoff waits on the TestClock.
import { assert, it } from "@effect/vitest"
import { SpotClient, Venue } from "@spotkit/core"
import { Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { Fault, TestExchange } from "../src/index.ts"

it.effect("retries a 503 after its backoff, as the TestClock moves", () =>
  Effect.gen(function*() {
    const client = yield* SpotClient.SpotClient
    const exchange = yield* TestExchange.TestExchange
    const path = Venue.endpoints.balances.path
    const answered = Effect.map(exchange.requests, (all) => all.filter((r) => r.path === path).map((r) => r.status))

    // The venue answers the next two balance requests with a 503.
    yield* exchange.injectFault({ fault: Fault.httpError(503), path, times: 2 })
    // Fork the call: it fails once, then waits 200 ms (± 20 %) on the TestClock before its retry.
    const fiber = yield* Effect.forkChild(client.balances())
    yield* TestClock.adjust("100 millis")
    assert.deepStrictEqual(yield* answered, [503]) // still waiting: the clock moved less than the backoff
    yield* TestClock.adjust("1 second") // past both backoffs (200 ms, then 400 ms)
    const balances = yield* Fiber.join(fiber)
    assert.deepStrictEqual(yield* answered, [503, 503, 200])
    assert.isTrue(balances.some((b) => b.coinName === "USDT"))
  }).pipe(Effect.provide(TestExchange.layerSpotClient())))
