/**
 * The push interface's facts and codecs: channel names both ways, the messages a client sends, frames classified by
 * their keys, and the lenient decoding of the data the venue's documents and samples disagree on (booleans and ids as
 * strings or not, versions as numbers or digits beyond 2^53, unknown fields kept), exactly (no number in between).
 */
import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import { Push } from "../src/index.ts"

const decode = <S extends Schema.Codec<unknown, unknown>>(schema: S) => (input: unknown) =>
  Schema.decodeUnknownSync(schema)(input)

describe("Push", () => {
  it("channels: names and their parse agree; names the venue does not serve are refused", () => {
    const names = [
      Push.channels.depth("BTCUSDT_SPBL", 15),
      Push.channels.depth("ETHUSDT_SPBL", 200),
      Push.channels.trades("BTCUSDT_SPBL"),
      Push.channels.ticker("BTCUSDT_SPBL"),
      Push.channels.kline("BTCUSDT_SPBL", "MINUTE_1"),
      Push.channels.orders,
      Push.channels.fill,
      Push.channels.account
    ]
    assert.deepStrictEqual(names.slice(0, 5), [
      "depth.BTCUSDT_SPBL.15",
      "depth.ETHUSDT_SPBL.200",
      "trades.BTCUSDT_SPBL",
      "ticker.BTCUSDT_SPBL",
      "kline.LAST_PRICE.BTCUSDT_SPBL.MINUTE_1"
    ])
    const parsed = names.map(Push.parseChannel)
    assert.deepStrictEqual(parsed[0], { kind: "depth", symbol: "BTCUSDT_SPBL", level: 15 })
    assert.deepStrictEqual(parsed[4], {
      kind: "kline",
      priceType: "LAST_PRICE",
      symbol: "BTCUSDT_SPBL",
      interval: "MINUTE_1"
    })
    assert.deepStrictEqual(parsed.map((c) => c === undefined ? undefined : Push.endpointOf(c)), [
      "public",
      "public",
      "public",
      "public",
      "public",
      "private",
      "private",
      "private"
    ])
    for (
      const bad of ["depth.BTCUSDT_SPBL.16", "depth.BTCUSDT_SPBL", "kline.MARK.BTCUSDT_SPBL.MINUTE_1", "fills", ""]
    ) {
      assert.isUndefined(Push.parseChannel(bad), bad)
    }
  })

  it("signing: the handshake signs the timestamp and the private path, with the REST header names", () => {
    assert.strictEqual(Push.prehash("1693208170000"), "1693208170000/v2/ws/private")
    assert.strictEqual(Push.headers.sign, "ACCESS-SIGN")
    assert.strictEqual(Push.paths.public, "/v2/ws/public")
  })

  it("messages: one channel per subscribe; a pong answers with the ping's key and time as received", () => {
    assert.strictEqual(
      Push.subscribeMessage("trades.BTCUSDT_SPBL"),
      `{"event":"subscribe","channel":"trades.BTCUSDT_SPBL"}`
    )
    assert.strictEqual(Push.unsubscribeMessage("fill"), `{"event":"unsubscribe","channel":"fill"}`)
    const event = Push.decodeFrame(`{"event":"ping","time":"1693208170000"}`)
    const type = Push.decodeFrame(`{"type":"ping","time":1693208170000}`)
    assert.deepStrictEqual(event, { _tag: "Ping", key: "event", time: "1693208170000" })
    assert.strictEqual(
      Push.pongMessage(event as { key: "event"; time: unknown }),
      `{"event":"pong","time":"1693208170000"}`
    )
    assert.strictEqual(Push.pongMessage(type as { key: "type"; time: unknown }), `{"type":"pong","time":1693208170000}`)
  })

  it("a ping whose time is a number a double cannot hold is answered with the same JSON number, not a string", () => {
    for (const time of ["1693208170000123456", "1693208170.5", "1.6932081700001e12", "1693208170000.000", "-0"]) {
      for (const key of ["event", "type"] as const) {
        const ping = Push.decodeFrame(`{"${key}":"ping","time":${time}}`)
        assert.strictEqual(ping?._tag, "Ping", time)
        assert.strictEqual(
          Push.pongMessage(ping as Extract<Push.Frame, { _tag: "Ping" }>),
          `{"${key}":"pong","time":${time}}`
        )
      }
    }
    // A string stays a string, whatever it holds.
    const quoted = Push.decodeFrame(`{"event":"ping","time":"1693208170000123456"}`)
    assert.strictEqual(
      Push.pongMessage(quoted as Extract<Push.Frame, { _tag: "Ping" }>),
      `{"event":"pong","time":"1693208170000123456"}`
    )
  })

  it("pings: a Ping only with a time that can be sent back (a bounded string, a number, none); any other is Other", () => {
    const atLimit = "9".repeat(Push.MAX_PING_TIME_LENGTH)
    assert.deepStrictEqual(Push.decodeFrame(`{"event":"ping","time":"${atLimit}"}`), {
      _tag: "Ping",
      key: "event",
      time: atLimit
    })
    // A number a double cannot hold stays its digits (lossless parse), marked a number, and is answered with them.
    assert.deepStrictEqual(Push.decodeFrame(`{"type":"ping","time":123456789012345678901}`), {
      _tag: "Ping",
      key: "type",
      time: "123456789012345678901",
      numeric: true
    })
    assert.deepStrictEqual(Push.decodeFrame(`{"event":"ping"}`), { _tag: "Ping", key: "event", time: undefined })
    for (
      const time of [
        `"${atLimit}9"`,
        `${"9".repeat(Push.MAX_PING_TIME_LENGTH + 1)}`,
        `{"a":1}`,
        `[1]`,
        `null`,
        `true`,
        `${"[".repeat(100_000)}${"]".repeat(100_000)}`
      ]
    ) {
      assert.strictEqual(Push.decodeFrame(`{"event":"ping","time":${time}}`)?._tag, "Other", time.slice(0, 20))
    }
  })

  it("frames: acks, errors (an error event or a non-zero code), public and private payloads, anything else", () => {
    assert.deepStrictEqual(Push.decodeFrame(`{"event":"subscribed","channel":"fill"}`), {
      _tag: "Ack",
      event: "subscribed",
      channel: "fill"
    })
    const error = Push.decodeFrame(`{"event":"error","code":30001,"msg":"no such channel","channel":"x"}`)
    assert.strictEqual(error?._tag, "Error")
    assert.strictEqual(error?._tag === "Error" ? error.code : undefined, "30001")
    assert.strictEqual(Push.decodeFrame(`{"code":"40009","msg":"sign signature error"}`)?._tag, "Error")
    assert.strictEqual(Push.decodeFrame(`{"code":"00000","event":"subscribed","channel":"fill"}`)?._tag, "Ack")
    const payload = Push.decodeFrame(`{"event":"payload","channel":"trades.BTCUSDT_SPBL","data":[{"price":"1"}]}`)
    assert.deepStrictEqual(payload, {
      _tag: "Payload",
      channel: "trades.BTCUSDT_SPBL",
      type: undefined,
      data: [{ price: "1" }]
    })
    // A 64-bit version and an id in a private push keep every digit.
    const event = Push.decodeFrame(
      `{"type":"trade-event","channel":"fill","event":"payload","msg":{"msgEvent":"OrderUpdate",` +
        `"version":9007199254740993,"time":1749044695720,"data":{"orderFillTransaction":[{"id":625138763437179034}]}}}`
    )
    assert.strictEqual(event?._tag, "TradeEvent")
    if (event?._tag !== "TradeEvent") return
    assert.strictEqual(event.version, "9007199254740993")
    assert.strictEqual(event.time, 1749044695720)
    assert.deepStrictEqual(Push.privateItems("fill", event.data), [{ id: "625138763437179034" }])
    // A time no millisecond clock reaches (beyond 15 digits, or beyond 2^53 as a number) is no time at all: rounded
    // or 1e40, it would outrank every later update of the order.
    for (const time of ["9007199254740993", `"${"9".repeat(40)}"`, `"1000000000000000"`]) {
      const far = Push.decodeFrame(
        `{"type":"trade-event","channel":"orders","msg":{"msgEvent":"OrderUpdate","time":${time},"data":{}}}`
      )
      assert.strictEqual(far?._tag, "TradeEvent", time)
      assert.isUndefined(far?._tag === "TradeEvent" ? far.time : 0, time)
    }
    assert.isUndefined(Push.decodeFrame("not json"))
    assert.strictEqual(Push.decodeFrame(`[1,2]`)?._tag, "Other")
  })

  it("privateItems: the documented keys, any array of orders, an array data", () => {
    assert.deepStrictEqual(Push.privateItems("account", { accountAsset: [1] }), [1])
    assert.deepStrictEqual(Push.privateItems("orders", { whatever: [{ id: "1", orderSide: "BUY" }] }), [{
      id: "1",
      orderSide: "BUY"
    }])
    assert.deepStrictEqual(Push.privateItems("fill", [2]), [2])
    assert.deepStrictEqual(Push.privateItems("fill", { orderFillTransaction: [] }), [])
    assert.deepStrictEqual(Push.privateItems("orders", { orderInfo: [] }), [])
  })

  it("privateItems: a single record is one item; any other shape one item that does not decode, never none", () => {
    const order = { id: "1", orderSide: "BUY" }
    assert.deepStrictEqual(Push.privateItems("account", { accountAsset: { coinId: 1 } }), [{ coinId: 1 }])
    assert.deepStrictEqual(Push.privateItems("orders", { whatever: order }), [order])
    assert.deepStrictEqual(Push.privateItems("orders", order), [order])
    // Not a record of the channel: the push is unreadable (its one item fails to decode), not empty.
    assert.deepStrictEqual(Push.privateItems("orders", { other: [{ id: "1" }] }), [{ other: [{ id: "1" }] }])
    assert.deepStrictEqual(Push.privateItems("fill", null), [null])
    assert.deepStrictEqual(Push.privateItems("fill", "x"), ["x"])
    assert.deepStrictEqual(Push.privateItems("fill", { other: 1 }), [{ other: 1 }])
  })

  it("codecs: depth versions as digits (numbers too, beyond 2^53 as text), exact decimals", () => {
    const depth = decode(Push.Depth)({
      startVersion: "36441742461234567890",
      endVersion: 3644174270,
      level: 15,
      depthType: "CHANGED",
      symbol: "BTCUSDT_SPBL",
      asks: [{ price: "103436.1", size: "0.91500" }],
      bids: [{ price: "103435.7", size: "0" }]
    })
    assert.strictEqual(depth.startVersion, "36441742461234567890")
    assert.strictEqual(depth.endVersion, "3644174270")
    assert.deepStrictEqual(depth.asks as unknown, [{ price: "103436.1", size: "0.91500" }])
    assert.throws(() => decode(Push.Depth)({ ...depth, depthType: "FULL" }))
    assert.throws(() => decode(Push.Depth)({ ...depth, endVersion: "-1" }))
  })

  it("codecs: a depth level at a price at or below zero, or of a negative size, fails the decoding (as REST's book)", () => {
    const depth = {
      startVersion: "1",
      endVersion: "1",
      depthType: "CHANGED",
      symbol: "BTCUSDT_SPBL",
      asks: [{ price: "101", size: "1" }],
      bids: [{ price: "100", size: "0" }]
    }
    // A removal (size zero, in any form) is a level like any other.
    assert.strictEqual(decode(Push.Depth)({ ...depth, bids: [{ price: "100", size: "0.000" }] }).bids.length, 1)
    for (const [price, size] of [["0", "1"], ["-5", "1"], ["-0", "1"], ["0.000", "2"], ["10", "-1"], ["10", "-0"]]) {
      assert.throws(
        () => decode(Push.Depth)({ ...depth, bids: [{ price, size }] }),
        undefined,
        undefined,
        `bid ${price}x${size}`
      )
      assert.throws(
        () => decode(Push.Depth)({ ...depth, asks: [{ price, size }] }),
        undefined,
        undefined,
        `ask ${price}x${size}`
      )
    }
  })

  it("codecs: buyerMaker a boolean or a string; coinId a number or a string; unknown fields kept", () => {
    const trade = { time: "1747131727502", price: "103337.5", size: "0.01600", value: "1653.4", buyerMaker: "true" }
    assert.strictEqual(decode(Push.Trade)(trade).buyerMaker, true)
    assert.strictEqual(decode(Push.Trade)({ ...trade, buyerMaker: false }).buyerMaker, false)
    assert.strictEqual(decode(Push.Trade)(trade).time, 1747131727502)
    assert.throws(() => decode(Push.Trade)({ ...trade, buyerMaker: "yes" }))
    // As REST's recent trades: a price or size at or below zero, or a negative value, is no trade; a value of 0 is.
    assert.strictEqual(decode(Push.Trade)({ ...trade, value: "0" }).value, "0")
    for (const bad of [{ price: "0" }, { price: "-1" }, { size: "0.000" }, { size: "-0.5" }, { value: "-1" }]) {
      assert.throws(() => decode(Push.Trade)({ ...trade, ...bad }), undefined, undefined, JSON.stringify(bad))
    }
    // As REST's candles: zero volumes are a bar without trades; prices at or below zero, negative volumes, high < low
    // are no bar.
    const kline = {
      symbol: "BTCUSDT_SPBL",
      klineTime: "1747125660000",
      open: "100",
      high: "110",
      low: "90",
      close: "105",
      size: "0",
      value: "0"
    }
    assert.strictEqual(decode(Push.Kline)(kline).size, "0")
    for (
      const bad of [{ open: "0" }, { low: "-90" }, { close: "0.00" }, { size: "-1" }, { value: "-1" }, { high: "80" }]
    ) {
      assert.throws(() => decode(Push.Kline)({ ...kline, ...bad }), undefined, undefined, JSON.stringify(bad))
    }
    // No quote volume: no bar (its base volume is no stand-in for it).
    const { value: _value, ...withoutValue } = kline
    assert.throws(() => decode(Push.Kline)(withoutValue), undefined, undefined, "a kline without value")
    const asset = { coinId: 1, coinName: "BTC", equity: "3.04", available: "3.04", frozen: "0", extra: { a: 1 } }
    assert.deepStrictEqual(decode(Push.AccountAsset)(asset) as unknown, { ...asset, coinId: "1" })
    assert.strictEqual(decode(Push.AccountAsset)({ ...asset, coinId: "2" }).coinId, "2")
    const ticker = decode(Push.Ticker)({ symbol: "BTCUSDT_SPBL", lastPrice: "83354.0", markPrice: "1", trades: 10 })
    assert.strictEqual(ticker.lastPrice, "83354.0")
    assert.strictEqual(ticker.markPrice, "1")
    // The trade count typed as REST's ticker has it: a number, from a JSON number or a string of digits.
    const trades: number | null | undefined = ticker.trades
    assert.strictEqual(trades, 10)
    assert.strictEqual(decode(Push.Ticker)({ symbol: "BTCUSDT_SPBL", lastPrice: "1", trades: "2541" }).trades, 2541)
    assert.isNull(decode(Push.Ticker)({ symbol: "BTCUSDT_SPBL", lastPrice: "1", trades: null }).trades)
    for (const bad of ["many", "12.5", "-3", 2.5, -1]) {
      assert.throws(
        () => decode(Push.Ticker)({ symbol: "BTCUSDT_SPBL", lastPrice: "1", trades: bad }),
        undefined,
        undefined,
        String(bad)
      )
    }
    assert.throws(() => decode(Push.Ticker)({ symbol: "BTCUSDT_SPBL" }))
  })

  it("codecs: the venue's fill and order samples", () => {
    const fill = decode(Push.Fill)({
      id: "625138763437179034",
      symbolName: "BTCUSDT_SPBL",
      baseCoin: "BTC",
      quoteCoin: "USDT",
      orderId: "625138763307155610",
      orderSide: "BUY",
      fillSize: "0.000952",
      fillValue: "99.9676160",
      fillFee: "0.00000095",
      direction: "TAKER",
      createdTime: "1749044695720",
      updatedTime: "1749044695720"
    })
    assert.strictEqual(fill.id, "625138763437179034")
    assert.strictEqual(fill.fillValue, "99.9676160")
    assert.strictEqual(fill.createdTime, 1749044695720)
    const order = decode(Push.Order)({
      id: "1",
      orderSide: "SELL",
      status: "FILLED",
      type: "MARKET",
      timeInForce: "IOC"
    })
    assert.strictEqual(order.status, "FILLED")
    assert.strictEqual(order.timeInForce, "IOC")
  })
})
