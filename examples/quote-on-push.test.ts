/**
 * `quote-on-push.ts` against the testkit's in-process exchange, its push venue fed by the engine with faults on
 * (connections dropped every few frames, depth changes lost), on the TestClock: bob trades into the quotes until the
 * program has seen its fills; every fill of its orders was seen once, each order it placed ends as the engine has it,
 * it quoted inside the others' top, and nothing of it stays open. And as a program, as a user runs it: a real `node`
 * process against the sandbox, its push over real WebSockets on the sandbox's port with connections dropped.
 */
import { assert, describe, it } from "@effect/vitest"
import { PushVenue, Sandbox, TestExchange } from "@spotkit/testkit"
import { Effect, Fiber, Layer } from "effect"
import { TestClock } from "effect/testing"
import { type Options, quoteOnPush } from "./quote-on-push.ts"
import { runExample } from "./test/support.ts"

const SYMBOL = "BTCUSDT_SPBL"

const options: Options = { symbol: SYMBOL, tick: "0.01", quantity: "0.01", fills: 6, prefix: "qop" }

// The demo exchange (bob's book around 30000), alice's REST client, the push venue with `faults`, alice's push client.
const layer = (faults: PushVenue.Faults) =>
  PushVenue.layerSpotPush({ backoff: { initial: "100 millis", max: "1 second" } }).pipe(
    Layer.provideMerge(PushVenue.layer({ faults })),
    Layer.provideMerge(
      TestExchange.layerSpotClient({ exchange: { ...TestExchange.demo({ bills: 0 }), rateLimits: false } })
    )
  )

// Lets fibers and the in-process sockets run until they wait on the clock: real event-loop turns, no timer.
const settle = Effect.gen(function*() {
  for (let i = 0; i < 50; i++) yield* Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve)))
})

describe("quoteOnPush", () => {
  const cases: ReadonlyArray<readonly [string, PushVenue.Faults]> = [
    ["no faults", {}],
    ["dropped after 7 data frames, a depth change lost in 3", { disconnect: 7, gap: 3 }],
    ["closed after 5, every 2nd frame duplicated", { close: 5, dup: 2 }]
  ]
  for (const [name, faults] of cases) {
    it.effect(`${name}: every fill of its orders once, its orders as the engine's`, () =>
      Effect.gen(function*() {
        const exchange = yield* TestExchange.TestExchange
        const [alice, bob] = exchange.accounts.map((account) => account.userId) as [string, string]
        const run = yield* Effect.forkChild(quoteOnPush(options))
        // bob takes from both sides in turn, a little more than a quote, until the program stops; the clock moves
        // so that dropped connections are dialled again.
        for (let round = 0; round < 200 && run.pollUnsafe() === undefined; round++) {
          yield* settle
          const quoted = exchange.engine.orderList(alice).some((order) => order.status === "open")
          if (quoted && round % 2 === 0) {
            yield* exchange.placeOrder(bob, {
              symbol: SYMBOL,
              side: round % 4 === 0 ? "buy" : "sell",
              orderType: "limit",
              force: "ioc",
              price: round % 4 === 0 ? "30004.99" : "29995.01",
              quantity: "0.015",
              clientOrderId: `bob-${round}`
            })
          }
          yield* TestClock.adjust("250 millis")
        }
        const result = yield* Fiber.join(run)
        // The faults were met: connections were dialled again and again.
        const stats = yield* (yield* PushVenue.PushVenue).stats
        if (Object.keys(faults).length > 0) assert.isAbove(stats.opened, 4)

        // Every fill of its orders, once each, as the engine made them.
        const placed = new Set(
          exchange.engine.orderList(alice).filter((o) => o.clientOrderId.startsWith("qop-")).map((o) => o.orderId)
        )
        const engineFills = exchange.engine.fillList(alice).filter((fill) => placed.has(fill.orderId))
        const seen = result.fills.map((fill) => fill.fillId)
        assert.strictEqual(new Set(seen).size, seen.length, "a fill seen twice")
        assert.deepStrictEqual([...seen].sort(), engineFills.map((fill) => fill.fillId).sort())
        assert.isAtLeast(seen.length, options.fills)
        // Each order it placed ends as the engine has it; none stays open.
        assert.strictEqual(result.orders.size, placed.size)
        assert.strictEqual(result.quotes, placed.size)
        for (const order of exchange.engine.orderList(alice).filter((o) => placed.has(o.orderId))) {
          const last = result.orders.get(order.orderId)!
          assert.deepStrictEqual([last.status, last.filledQuantity], [order.status, order.fillQuantity], order.orderId)
          assert.isTrue(last.final)
        }
        // Quotes a tick inside bob's 29995 / 30005, and more than one pair (it re-quoted after fills).
        const prices = exchange.engine.orderList(alice).filter((o) => placed.has(o.orderId)).map((o) => o.price)
        assert.includeMembers(prices, ["29995.01", "30004.99"])
        assert.isAbove(placed.size, 2)
      }).pipe(Effect.provide(layer(faults))), { timeout: 60_000 })
  }
})

describe("quote-on-push.ts as a program", () => {
  const sandbox = PushVenue.layerSandbox().pipe(
    Layer.provideMerge(PushVenue.layer({ faults: { disconnect: 12 } })),
    Layer.provideMerge(TestExchange.layer({ ...TestExchange.demo({ bills: 0 }), rateLimits: false }))
  )

  it.live(
    "quotes around the pushed book over WebSockets, sees its 3 fills while connections drop, and stops",
    () =>
      Effect.gen(function*() {
        const exchange = yield* TestExchange.TestExchange
        const server = yield* Sandbox.Sandbox
        const [alice, bob] = exchange.accounts.map((account) => account.userId) as [string, string]
        const mine = () => exchange.engine.orderList(alice).filter((o) => o.clientOrderId.startsWith("qop-"))
        // bob takes a quote whenever alice has both sides up, until the program has ended.
        const taker = yield* Effect.forkChild(Effect.gen(function*() {
          for (let round = 0;; round++) {
            yield* Effect.sleep("100 millis")
            if (mine().filter((o) => o.status === "open").length < 2) continue
            yield* exchange.placeOrder(bob, {
              symbol: SYMBOL,
              side: round % 2 === 0 ? "buy" : "sell",
              orderType: "limit",
              force: "ioc",
              price: round % 2 === 0 ? "30004.99" : "29995.01",
              quantity: "0.0015",
              clientOrderId: `bob-${round}`
            })
          }
        }))
        const run = yield* runExample("quote-on-push.ts", [SYMBOL, "3"], {
          SPOTKIT_PUSH_URL: PushVenue.pushUrl(server)
        })
        yield* Fiber.interrupt(taker)
        assert.strictEqual(run.code, 0, run.stderr)
        const placed = new Set(mine().map((o) => o.orderId))
        const fills = exchange.engine.fillList(alice).filter((fill) => placed.has(fill.orderId))
        assert.isAtLeast(fills.length, 3)
        for (const fill of fills) assert.include(run.stdout, `fill ${fill.fillId}: `)
        assert.include(run.stdout, "quoting 29995.01 / 30004.99")
        assert.include(run.stdout, `done: ${fills.length} fills of ${placed.size} orders`)
        assert.deepStrictEqual(mine().filter((o) => o.status === "open"), [])
      }).pipe(Effect.provide(sandbox)),
    { timeout: 60_000 }
  )
})
