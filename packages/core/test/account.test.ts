/**
 * Account and market data (src/internal/account.ts) beyond bills and history: the spot balances (a signed GET with
 * no query, exact decimals), the server's time (which moves the clock offset), and an envelope whose `requestTime`
 * is a string.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import {
  answer,
  ASSETS,
  FakeVenue,
  NOW,
  reasonOf,
  requestsTo,
  ScriptedVenue,
  SERVER_TIME,
  withClient
} from "./support/FakeVenue.ts"

describe("balances", () => {
  it.effect("one entry per coin, zeros included, decimals exact", () => {
    const venue = new FakeVenue()
    venue.balances.push(
      { coinId: 1, coinName: "BTC", available: "0.0040000000000000", frozen: "0", equity: "0.0040000000000000" },
      { coinId: 2, coinName: "USDT", available: "0", frozen: "0", equity: "0" }
    )
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const balances = yield* client.balances()
        assert.deepStrictEqual<unknown>(balances, [
          { coinId: 1, coinName: "BTC", available: "0.0040000000000000", frozen: "0", equity: "0.0040000000000000" },
          { coinId: 2, coinName: "USDT", available: "0", frozen: "0", equity: "0" }
        ])
        const [request] = requestsTo(venue, ASSETS)
        assert.strictEqual(request!.method, "GET")
        assert.strictEqual(request!.path, ASSETS)
        assert.strictEqual(request!.headers["content-type"], "application/json")
      }))
  })

  it.effect("a null data is no balances; an amount as a JSON number stays exact", () => {
    const venue = new ScriptedVenue()
      .answerNext(ASSETS, () => answer(200, "00000", null))
      .answerNext(ASSETS, () => ({
        status: 200,
        body: `{"code":"00000","msg":"success","requestTime":${NOW},"data":[` +
          `{"coinId":2,"coinName":"USDT","available":12,"frozen":"0E-8","equity":"12.00000000"}]}`
      }))
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        assert.deepStrictEqual(yield* client.balances(), [])
        const [usdt] = yield* client.balances()
        assert.deepInclude<unknown>(usdt, { available: "12", frozen: "0.00000000", equity: "12.00000000" })
      }))
  })

  it.effect("a coinId written as digits is read as the coin's number", () => {
    const venue = new ScriptedVenue().answerNext(ASSETS, () => ({
      status: 200,
      body: `{"code":"00000","msg":"success","requestTime":${NOW},"data":[` +
        `{"coinId":"2","coinName":"USDT","available":"12.5","frozen":"0","equity":"12.5"}]}`
    }))
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const [usdt] = yield* client.balances()
        assert.deepStrictEqual<unknown>(usdt, {
          coinId: 2,
          coinName: "USDT",
          available: "12.5",
          frozen: "0",
          equity: "12.5"
        })
      }))
  })

  it.effect("a refusal is a failure of SpotClient.balances", () => {
    const venue = new FakeVenue().fail({ kind: "venue", code: "40014", msg: "Incorrect permissions" }, ASSETS)
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(client.balances())
        reasonOf(error, "PermissionError")
        assert.strictEqual(error.operation, "SpotClient.balances")
      }))
  })
})

describe("serverTime", () => {
  it.effect("answers the server's time and learns the clock offset from it", () => {
    const venue = new FakeVenue({ skewMillis: 7_000 })
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        assert.strictEqual(yield* client.serverTime(), NOW + 7_000)
        assert.strictEqual(yield* client.clockOffset, 7_000)
        assert.strictEqual(venue.requests.length, 0, "public: not signed")
      }), { syncServerTime: false })
  })

  it.effect("accepts an envelope whose requestTime is a string, as one of the venue's samples has it", () => {
    const venue = new ScriptedVenue().answerNext(SERVER_TIME, () => ({
      status: 200,
      body: `{"code":"00000","msg":"success","requestTime":"${NOW}","data":"${NOW + 5}"}`
    }))
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        assert.strictEqual(yield* client.serverTime(), NOW + 5)
      }), { syncServerTime: false })
  })
})
