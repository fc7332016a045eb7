// The engine's cost of a push venue that is attached but has no subscriber: the same orders placed and cancelled on
// an engine alone and on one whose matching and accounts report to a venue with no connection (the feed checks
// `idle()` and returns). Run under cachegrind at two sizes (idle-venue.sh); the difference per order is the cost.
//   node --conditions=@spotkit/source bench/results/push-24/idle-venue.ts none|idle <orders>
import { Engine } from "../../../packages/testkit/src/Engine.ts"
import { attach } from "../../../packages/testkit/src/internal/push/engineFeed.ts"
import { Venue } from "../../../packages/testkit/src/internal/push/venue.ts"

const [mode = "none", count = "10000"] = process.argv.slice(2)
const orders = Number(count)
const engine = new Engine({ seed: 1, sharedMemory: false })
engine.addProduct({ symbol: "BTCUSDT_SPBL", base: "BTC", quote: "USDT", pricePrecision: 2, quantityPrecision: 6 })
const maker = engine.addUser()
const taker = engine.addUser()
for (const user of [maker, taker]) {
  engine.deposit(user, "SPOT", "USDT", "10000000", 0)
  engine.deposit(user, "SPOT", "BTC", "10000", 0)
}
if (mode === "idle") {
  const venue = new Venue({
    source: { depth: () => undefined },
    now: () => engine.now,
    pingType: "event",
    unansweredPings: 5,
    timestampWindowMillis: 30_000,
    limits: {
      connectionAttempts: { limit: 300, windowMillis: 300_000 },
      connections: 100,
      operations: { limit: 240, windowMillis: 3_600_000 },
      channelsPerConnection: 100
    },
    initialVersion: 1n
  })
  attach(engine, venue)
}
// Each step: a resting sell, a buy that takes half of it, and the rest cancelled.
for (let i = 0; i < orders; i++) {
  const price = `${30000 + (i % 50)}.00`
  const placed = engine.placeOrder(maker, {
    symbol: "BTCUSDT_SPBL",
    side: "sell",
    orderType: "limit",
    force: "normal",
    price,
    quantity: "0.002",
    clientOrderId: `m${i}`
  }, i)
  engine.placeOrder(taker, {
    symbol: "BTCUSDT_SPBL",
    side: "buy",
    orderType: "limit",
    force: "ioc",
    price,
    quantity: "0.001",
    clientOrderId: `t${i}`
  }, i)
  if (placed.ok) engine.cancelOrder(maker, { orderId: placed.orderId }, i)
}
if (process.env.CHECK !== undefined) {
  process.stdout.write(
    `${engine.tradeList().length} trades, ${
      engine.orderList().filter((o) => o.status === "cancelled").length
    } cancelled\n`
  )
}
