// The testkit sandbox as the server of the client benchmark (bench/src/peers.ts), in its own process: the demo
// exchange (alice and bob, no bill history), venue rate limits off, no request log, with 10 resting orders of
// alice's on BTCUSDT_SPBL so that every open-orders page of 10 is full. Every request is authenticated (HMAC
// checked) and really executed. Prints `READY <baseUrl>` when it listens; runs until killed.
import { Sandbox, TestExchange } from "@spotkit/testkit"
import { Effect, Layer } from "effect"
import { OPEN_ORDERS_LIMIT, SYMBOL } from "./shared.ts"

const exchangeOptions: TestExchange.Options = {
  ...TestExchange.demo({ bills: 0 }),
  rateLimits: false,
  recordTrades: false,
  requestLogSize: 0
}

const server = Sandbox.layer().pipe(Layer.provideMerge(TestExchange.layer(exchangeOptions)))

Effect.gen(function*() {
  const sandbox = yield* Sandbox.Sandbox
  const exchange = yield* TestExchange.TestExchange
  const alice = exchange.accounts[0]!
  for (let i = 0; i < OPEN_ORDERS_LIMIT; i++) {
    const placed = yield* exchange.placeOrder(alice.userId, {
      symbol: SYMBOL,
      side: "buy",
      orderType: "limit",
      force: "normal",
      price: `${100 + i}`,
      quantity: "0.06",
      clientOrderId: `resting-${i}`
    })
    if (!placed.ok) return yield* Effect.die(new Error(`seeding failed: ${JSON.stringify(placed)}`))
  }
  process.stdout.write(`READY ${sandbox.baseUrl}\n`)
  return yield* Effect.never
}).pipe(Effect.provide(server), Effect.runFork)
