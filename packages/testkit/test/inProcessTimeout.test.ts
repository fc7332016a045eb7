// The preset client's transport bounds each exchange by the client's timeout itself, on the Clock (the client's
// `timeoutBy: "transport"`), instead of the client racing every call: an answer slower than the timeout, or none,
// fails the call once the timeout has passed, as the client's own race does. Each case runs both ways, under the
// TestClock, and must end the same, at the same time.
import { assert, describe, it } from "@effect/vitest"
import { SpotClient, SpotError, Venue } from "@spotkit/core"
import { Effect, Exit, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { Fault, TestExchange } from "../src/index.ts"

const order = (clientOrderId: string) =>
  ({
    symbol: "BTCUSDT_SPBL",
    side: "buy",
    orderType: "limit",
    force: "normal",
    price: "100",
    quantity: "0.06",
    clientOrderId
  }) as const

interface Outcome {
  /** Whether the call was still running just before `doneAt`. */
  readonly runningBefore: boolean
  readonly result: string
  readonly applied: number
}

// One placeOrder with a fault and a 200 ms timeout, no retry: its end, when it ended, and whether the venue applied it.
const run = (fault: Fault.Fault, doneAt: number, timeoutBy: "client" | "transport" | undefined) =>
  Effect.gen(function*() {
    const client = yield* SpotClient.SpotClient
    const exchange = yield* TestExchange.TestExchange
    yield* exchange.injectFault({ fault, path: Venue.endpoints.placeOrder.path, times: 1 })
    const fiber = yield* Effect.forkChild(client.placeOrder(order("timeout-1")))
    yield* TestClock.adjust(doneAt - 1)
    const runningBefore = fiber.pollUnsafe() === undefined
    yield* TestClock.adjust(1)
    const exit = yield* Fiber.await(fiber)
    const result = Exit.isSuccess(exit)
      ? `placed ${exit.value.clientOrderId}`
      : Exit.findErrorOption(exit).pipe((error) =>
        error._tag === "Some" && error.value instanceof SpotError.SpotError
          ? `${error.value.reason._tag}: ${error.value.reason.message}`
          : "other failure"
      )
    const applied = (yield* exchange.orders()).filter((o) => o.clientOrderId === "timeout-1").length
    return { runningBefore, result, applied } satisfies Outcome
  }).pipe(
    Effect.provide(TestExchange.layerSpotClient({
      client: { timeout: "200 millis", retry: false, syncServerTime: false, checkSymbolRules: false, timeoutBy }
    }))
  )

const placed = "placed timeout-1"
const unknown = /^OutcomeUnknownError: .*no answer within 200ms/

const cases: ReadonlyArray<
  {
    readonly label: string
    readonly fault: Fault.Fault
    readonly doneAt: number
    readonly result: string | RegExp
    readonly applied: number
  }
> = [
  // Not retried (retry: false), and not found by the client's lookup: the order may have been applied.
  { label: "no answer: fails at the timeout", fault: Fault.timeout, doneAt: 200, result: unknown, applied: 0 },
  // Applied, its answer late: the timeout fires, and the client's lookup finds the order.
  {
    label: "an answer later than the timeout: the timeout fires, the order is found",
    fault: Fault.latency(500),
    doneAt: 200,
    result: placed,
    applied: 1
  },
  // As in the client's race, where the answer's sleep began first and so ends first.
  { label: "an answer at the timeout: answered", fault: Fault.latency(200), doneAt: 200, result: placed, applied: 1 },
  {
    label: "an answer within the timeout: answered",
    fault: Fault.latency(150),
    doneAt: 150,
    result: placed,
    applied: 1
  }
]

describe("the preset client's timeout, bounded by its in-process transport", () => {
  for (const { applied, doneAt, fault, label, result } of cases) {
    it.effect(label, () =>
      Effect.gen(function*() {
        const bounded = yield* run(fault, doneAt, undefined)
        const raced = yield* run(fault, doneAt, "client")
        assert.isTrue(bounded.runningBefore, "still running 1 ms before")
        assert.deepStrictEqual(bounded, raced)
        if (typeof result === "string") assert.strictEqual(bounded.result, result)
        else assert.match(bounded.result, result)
        assert.strictEqual(bounded.applied, applied)
      }))
  }
})
