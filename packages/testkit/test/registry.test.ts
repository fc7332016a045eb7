/**
 * Products and their trading rules (docs/venue/market-data.md#symbol-rules): tick and step from the precisions, the quantity limits and
 * `enableTrade` from the product's configuration, the fee rates from the engine's, and the engine holding orders to
 * them (45110 below the smallest quantity, 40020 above the largest or on a product that does not trade).
 */
import { assert, describe, it } from "@effect/vitest"
import { Engine } from "../src/index.ts"
import { addUser, balance, limit, makeEngine, market, place, snapshot, SYMBOL, T0 } from "./support/engine.ts"

describe("Engine.symbolRules", () => {
  it("tick 10^-pricePrecision, step 10^-quantityPrecision, the limits configured, the engine's fee rates", () => {
    const engine = new Engine.Engine({ makerFeeRate: "0", takerFeeRate: "0.0025" })
    engine.addProduct({
      symbol: "BTCUSDT_SPBL",
      base: "BTC",
      quote: "USDT",
      pricePrecision: 1,
      quantityPrecision: 5,
      minOrderValue: "5",
      minQuantity: "0.00010",
      maxQuantity: "99999"
    })
    engine.addProduct({
      symbol: "ETHUSDT_SPBL",
      base: "ETH",
      quote: "USDT",
      pricePrecision: 2,
      quantityPrecision: 0,
      enableTrade: false
    })
    assert.deepStrictEqual(engine.symbolRules(), [
      {
        symbol: "BTCUSDT_SPBL",
        baseCoin: "BTC",
        quoteCoin: "USDT",
        tickSize: "0.1",
        stepSize: "0.00001",
        minTradeAmount: "0.0001",
        maxTradeAmount: "99999",
        // Without a largest market buy, the most USDT that can exist, at the quote precision (1, the price's).
        marketBuyLimitSize: "90071992.5",
        minOrderValue: "5",
        makerFeeRate: "0",
        takerFeeRate: "0.0025",
        enableTrade: true
      },
      {
        symbol: "ETHUSDT_SPBL",
        baseCoin: "ETH",
        quoteCoin: "USDT",
        tickSize: "0.01",
        stepSize: "1",
        // One step; without a maximum, the most ETH (8 decimals) that can exist: floor((2^53 - 1) / 10^8).
        minTradeAmount: "1",
        maxTradeAmount: "90071992",
        // Without a largest market buy, the most USDT (8 decimals) that can exist, at the quote precision (2).
        marketBuyLimitSize: "90071992.54",
        minOrderValue: "0",
        makerFeeRate: "0",
        takerFeeRate: "0.0025",
        enableTrade: false
      }
    ])
    assert.deepStrictEqual(engine.symbolRules(["ETHUSDT_SPBL", "DOGEUSDT_SPBL", "BTCUSDT_SPBL"]).map((r) => r.symbol), [
      "ETHUSDT_SPBL",
      "BTCUSDT_SPBL"
    ])
    assert.deepStrictEqual(engine.productList().map((p) => [p.symbol, p.status]), [
      ["BTCUSDT_SPBL", "online"],
      ["ETHUSDT_SPBL", "offline"]
    ])
  })

  it("refuses limits that are no multiple of the step, not positive, or out of order", () => {
    const product = { symbol: "BTCUSDT_SPBL", base: "BTC", quote: "USDT", pricePrecision: 2, quantityPrecision: 4 }
    for (
      const limits of [{ minQuantity: "0.00001" }, { minQuantity: "0" }, { maxQuantity: "1.00001" }, {
        minQuantity: "2",
        maxQuantity: "1"
      }, { minQuantity: "-1" }]
    ) {
      assert.throws(() => new Engine.Engine().addProduct({ ...product, ...limits }), Engine.EngineError)
    }
  })
})

describe("orders against the product's rules", () => {
  // An engine with BTCUSDT_SPBL (prices in cents, quantities in four decimals) and its `limits`.
  const withBtc = (limits: Partial<Engine.ProductSpec>) => {
    const engine = new Engine.Engine({ seed: 7 })
    engine.addProduct({
      symbol: SYMBOL,
      base: "BTC",
      quote: "USDT",
      pricePrecision: 2,
      quantityPrecision: 4,
      ...limits
    })
    return engine
  }
  const setup = () => {
    const engine = withBtc({ minQuantity: "0.01", maxQuantity: "2" })
    engine.addProduct({
      symbol: "ETHUSDT_SPBL",
      base: "ETH",
      quote: "USDT",
      pricePrecision: 2,
      quantityPrecision: 4,
      enableTrade: false
    })
    const user = addUser(engine, { USDT: "100000", BTC: "10", ETH: "10" })
    return { engine, user }
  }

  it("45110 below the smallest quantity, 40020 above the largest; both bounds allowed; a market buy is not held to them", () => {
    const { engine, user } = setup()
    const before = snapshot(engine, [user])
    const below = engine.placeOrder(user, limit("buy", "100", "0.0099", "below"), T0)
    assert.deepStrictEqual(below, { ok: false, code: "45110", msg: "less than the minimum amount 0.01" })
    const above = engine.placeOrder(user, limit("sell", "100", "2.0001", "above"), T0)
    assert.deepStrictEqual(above, {
      ok: false,
      code: "40020",
      msg: "Parameter quantity error: above the maximum order quantity 2"
    })
    const marketSell = engine.placeOrder(user, market("sell", "0.001", "ms"), T0)
    assert.strictEqual(marketSell.ok ? "accepted" : marketSell.code, "45110")
    assert.strictEqual(snapshot(engine, [user]), before, "refusals change nothing")
    place(engine, user, limit("buy", "100", "0.01", "min"))
    place(engine, user, limit("sell", "200", "2", "max"))
    // A market buy's quantity is quote coin: 0.5 USDT buys 0.0025 BTC at 200, below the smallest quantity, as the
    // limits hold base quantities only.
    const mb = place(engine, user, market("buy", "0.5", "mb"))
    assert.deepStrictEqual([engine.order(mb)?.status, engine.order(mb)?.fillQuantity], ["full_fill", "0.0025"])
    assert.deepStrictEqual(balance(engine, user, "BTC"), { available: "8.0024975", frozen: "1.9975" })
  })

  it("a product that does not trade refuses orders with 40020 symbol", () => {
    const { engine, user } = setup()
    const refused = engine.placeOrder(user, { ...limit("sell", "100", "1", "e1"), symbol: "ETHUSDT_SPBL" }, T0)
    assert.deepStrictEqual(refused, {
      ok: false,
      code: "40020",
      msg: "Parameter symbol error: the symbol does not trade now"
    })
  })

  it("the defaults change nothing: one step is the smallest quantity, nothing caps the largest", () => {
    const engine = makeEngine()
    const user = addUser(engine, { USDT: "100000", BTC: "10" })
    place(engine, user, limit("sell", "100000", "0.0001", "step"))
    const rules = engine.symbolRules()[0]!
    assert.deepStrictEqual([rules.minTradeAmount, rules.maxTradeAmount], ["0.0001", "90071992.5474"])
  })

  // market-data.md#symbol-rules: `marketBuyLimitSize` is "the largest market order"; what exchangeInfo publishes, the
  // engine holds. A market buy's quantity is its quote amount, so its limit is one too.
  it("a market buy above the product's largest market buy is refused with 40020, and exchangeInfo publishes it", () => {
    const engine = withBtc({ maxQuantity: "1", maxMarketBuyValue: "1000" })
    const user = addUser(engine, { USDT: "100000", BTC: "10" })
    // Two asks of the largest quantity: the market buy of 1000 USDT takes both, above the largest base quantity.
    place(engine, user, limit("sell", "500", "1", "ask-1"))
    place(engine, user, limit("sell", "500", "1", "ask-2"))
    const before = snapshot(engine, [user])
    const above = engine.placeOrder(user, market("buy", "1000.01", "mb-above"), T0)
    assert.deepStrictEqual(above, {
      ok: false,
      code: "40020",
      msg: "Parameter quantity error: above the largest market buy 1000"
    })
    assert.strictEqual(snapshot(engine, [user]), before, "the refusal changes nothing")
    const mb = place(engine, user, market("buy", "1000", "mb-max"))
    assert.deepStrictEqual([engine.order(mb)?.status, engine.order(mb)?.fillQuantity], ["full_fill", "2.0000"])
    const rules = engine.symbolRules()[0]!
    assert.deepStrictEqual([rules.maxTradeAmount, rules.marketBuyLimitSize], ["1", "1000"])
  })
})
