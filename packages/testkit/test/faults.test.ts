/**
 * Fault rules. The expectations come from HTTP (status codes are 100..599), never from running the code under test.
 */
import { assert, describe, it } from "@effect/vitest"
import { Venue } from "@spotkit/core"
import { Effect } from "effect"
import type { Fault } from "../src/index.ts"
import { TestExchange } from "../src/index.ts"
import { signed, statusOf, unsigned } from "./support/signed.ts"

const OPEN_ORDERS = Venue.endpoints.openOrders.path
const TICKER = `${Venue.endpoints.ticker.path}?symbol=BTCUSDT_SPBL`

describe("faults", () => {
  // Built as literals so that the test does not depend on whether the constructors validate their arguments.
  const invalid: ReadonlyArray<Fault.Fault> = [
    { _tag: "VenueError", code: "40200", msg: "server upgrade", status: 99 },
    { _tag: "HttpError", status: 1000 }
  ]
  for (const fault of invalid) {
    it.effect(`a ${fault._tag} fault with an HTTP status outside 100..599 never reaches the wire`, () =>
      Effect.gen(function*() {
        // The sandbox passes the status to `response.writeHead`, which throws ERR_HTTP_INVALID_STATUS_CODE from a
        // request event handler: an uncaught exception that takes the whole process down. Either the rule is refused
        // when injected, or the exchange never answers with such a status.
        const exchange = yield* TestExchange.make(TestExchange.demo({ bills: 0 }))
        yield* Effect.exit(exchange.injectFault({ fault, times: 1 }))
        const now = 1_000_000
        const body = JSON.stringify({ symbol: "BTCUSDT_SPBL" })
        const status = statusOf(exchange.handleAt(signed(TestExchange.demoKeys.alice, OPEN_ORDERS, body, now), now))
        if (status !== undefined) {
          assert.isTrue(Number.isInteger(status) && status >= 100 && status <= 599, `status ${status}`)
        }
      }))
  }

  // Fault.Rule.path: "Only requests to this path"; nothing exempts the market data, whose retries a user tests too.
  it.effect("a rule with a public endpoint's path strikes that endpoint", () =>
    Effect.gen(function*() {
      const exchange = yield* TestExchange.make(TestExchange.demo({ bills: 0 }))
      yield* exchange.injectFault({
        fault: { _tag: "HttpError", status: 503 },
        path: Venue.endpoints.ticker.path,
        times: 1
      })
      const now = 1_000_000
      const first = statusOf(exchange.handleAt(unsigned("GET", TICKER), now))
      const second = statusOf(exchange.handleAt(unsigned("GET", TICKER), now))
      assert.deepStrictEqual([first, second], [503, 200])
    }))

  // Fault.Rule.path: an endpoint's path exactly. The router compares it with the request's path, query left out, so
  // any other path would never strike, and a test of a program's retry would pass for the wrong reason.
  const BALANCES = Venue.endpoints.balances.path
  for (
    const [path, meant] of [
      ["/api/v2/account/asset", BALANCES], // a typo
      [`${BALANCES}?coin=USDT`, BALANCES], // with a query
      [BALANCES.slice(1), BALANCES], // no leading slash
      ["/api/v2/nowhere", undefined]
    ] as const
  ) {
    it.effect(`a rule on a path no request can have is refused, nothing added: ${path}`, () =>
      Effect.gen(function*() {
        const exchange = yield* TestExchange.make(TestExchange.demo({ bills: 0 }))
        const error = yield* Effect.flip(
          exchange.injectFault({ fault: { _tag: "HttpError", status: 503 }, path, times: 1 })
        )
        assert.strictEqual(error.name, "EngineError")
        assert.include(error.message, `path ${JSON.stringify(path)} is not the path of a venue endpoint`)
        if (meant !== undefined) assert.include(error.message, `did you mean ${meant}?`)
        // No rule was added: the next signed request is answered.
        const now = 1_000_000
        const body = JSON.stringify({ symbol: "BTCUSDT_SPBL" })
        const orders = statusOf(exchange.handleAt(signed(TestExchange.demoKeys.alice, OPEN_ORDERS, body, now), now))
        assert.strictEqual(orders, 200)
      }))
  }

  // Fault.Rule.path's default: a rule without a path strikes the next signed requests, so that the market data a
  // program reads in between does not use it up.
  it.effect("a rule without a path passes over public requests and strikes the next signed one", () =>
    Effect.gen(function*() {
      const exchange = yield* TestExchange.make(TestExchange.demo({ bills: 0 }))
      yield* exchange.injectFault({ fault: { _tag: "HttpError", status: 503 }, times: 1 })
      const now = 1_000_000
      const body = JSON.stringify({ symbol: "BTCUSDT_SPBL" })
      const ticker = statusOf(exchange.handleAt(unsigned("GET", TICKER), now))
      const orders = statusOf(exchange.handleAt(signed(TestExchange.demoKeys.alice, OPEN_ORDERS, body, now), now))
      assert.deepStrictEqual([ticker, orders], [200, 503])
    }))
})
