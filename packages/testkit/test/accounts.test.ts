/**
 * Accounts: transfers between users and account types with the entries they write, their refusals, and deposits that
 * keep conservation (held + fees == supply).
 */
import { assert, describe, it } from "@effect/vitest"
import { Engine } from "../src/index.ts"
import { balance, isBigId, makeEngine, snapshot, T0, totalsOf } from "./support/engine.ts"

describe("Engine: transfers", () => {
  const setup = () => {
    const engine = makeEngine()
    const a = engine.addUser()
    const b = engine.addUser()
    engine.deposit(a, "SPOT", "USDT", "100", T0)
    engine.deposit(a, "FUND", "BTC", "2", T0)
    return { engine, a, b }
  }
  const request = (
    toUserId: string,
    coin: string,
    amount: string,
    fromAccountType: Engine.AccountType,
    toAccountType: Engine.AccountType
  ): Engine.TransferRequest => ({ toUserId, coin, amount, fromAccountType, toAccountType })
  const last = (engine: Engine.Engine, userId: string, account: Engine.AccountType) => {
    const entry = engine.ledgerOf(userId, account).at(-1)
    return entry === undefined ? undefined : [entry.coinName, entry.bizType, entry.deltaAmount, entry.afterAmount]
  }
  const transfer = (engine: Engine.Engine, from: string, req: Engine.TransferRequest, now: number) => {
    const result = engine.transfer(from, req, now)
    if (!result.ok) assert.fail(`refused ${result.code} ${result.msg}`)
    assert.isTrue(isBigId(result.id))
    return result.id
  }

  it("moves coins between users and writes internal_withdraw / internal_deposit", () => {
    const { a, b, engine } = setup()
    transfer(engine, a, request(b, "USDT", "30", "SPOT", "SPOT"), T0 + 1)
    assert.deepStrictEqual(balance(engine, a, "USDT"), { available: "70", frozen: "0" })
    assert.deepStrictEqual(balance(engine, b, "USDT"), { available: "30", frozen: "0" })
    assert.deepStrictEqual(last(engine, a, "SPOT"), ["USDT", "internal_withdraw", "-30", "70"])
    assert.deepStrictEqual(last(engine, b, "SPOT"), ["USDT", "internal_deposit", "30", "30"])
    // All that is left.
    transfer(engine, a, request(b, "USDT", "70", "SPOT", "SPOT"), T0 + 1)
    assert.deepStrictEqual(balance(engine, a, "USDT"), { available: "0", frozen: "0" })
    assert.deepStrictEqual(last(engine, a, "SPOT"), ["USDT", "internal_withdraw", "-70", "0"])
    assert.deepStrictEqual(balance(engine, b, "USDT"), { available: "100", frozen: "0" })

    transfer(engine, a, request(b, "BTC", "0.25", "FUND", "FUND"), T0 + 2)
    assert.deepStrictEqual(last(engine, a, "FUND"), ["BTC", "internal_withdraw", "-0.25", "1.75"])
    assert.deepStrictEqual(last(engine, b, "FUND"), ["BTC", "internal_deposit", "0.25", "0.25"])
    assert.deepStrictEqual(totalsOf(engine, "USDT"), { supply: "100", held: "100", fees: "0" })
    assert.deepStrictEqual(totalsOf(engine, "BTC"), { supply: "2", held: "2", fees: "0" })
  })

  it("writes transfer_out / transfer_in on the FUND side when exactly one side is FUND", () => {
    const { a, b, engine } = setup()
    const t1 = transfer(engine, a, request(b, "BTC", "0.5", "FUND", "SPOT"), T0 + 1)
    assert.deepStrictEqual(last(engine, a, "FUND"), ["BTC", "transfer_out", "-0.5", "1.5"])
    assert.deepStrictEqual(last(engine, b, "SPOT"), ["BTC", "internal_deposit", "0.5", "0.5"])
    const t2 = transfer(engine, a, request(a, "USDT", "10", "SPOT", "FUND"), T0 + 2)
    assert.deepStrictEqual(last(engine, a, "SPOT"), ["USDT", "internal_withdraw", "-10", "90"])
    assert.deepStrictEqual(last(engine, a, "FUND"), ["USDT", "transfer_in", "10", "10"])
    assert.notStrictEqual(t1, t2)
    // The FUND side's entries are funding bills.
    assert.deepStrictEqual(
      engine.fundingBills(a).items.map((bill) => [bill.bizType, bill.coinName, bill.deltaAmount, bill.afterAmount]),
      [["transfer_in", "USDT", "10", "10"], ["transfer_out", "BTC", "-0.5", "1.5"], ["deposit", "BTC", "2", "2"]]
    )
    // Between two non-funding accounts of one user.
    transfer(engine, a, request(a, "USDT", "0.000001", "SPOT", "SPOT_V2"), T0 + 3)
    assert.deepStrictEqual(last(engine, a, "SPOT"), ["USDT", "internal_withdraw", "-0.000001", "89.999999"])
    assert.deepStrictEqual(last(engine, a, "SPOT_V2"), ["USDT", "internal_deposit", "0.000001", "0.000001"])
  })

  const refusals: ReadonlyArray<readonly [string, string, (b: string) => Engine.TransferRequest]> = [
    ["unknown toUserId", "40034", () => request("1234567890123456789", "USDT", "1", "SPOT", "SPOT")],
    ["more than available", "43012", (b) => request(b, "USDT", "100.000001", "SPOT", "SPOT")],
    ["more than available in that account", "43012", (b) => request(b, "BTC", "1", "SPOT", "SPOT")],
    ["more than 6 decimals", "40808", (b) => request(b, "USDT", "0.0000001", "SPOT", "SPOT")]
  ]
  for (const [name, code, make] of refusals) {
    it(`${code}: ${name}, changing nothing`, () => {
      const { a, b, engine } = setup()
      const before = snapshot(engine, [a, b])
      const result = engine.transfer(a, make(b), T0 + 1)
      assert.strictEqual(result.ok ? "accepted" : result.code, code)
      assert.strictEqual(snapshot(engine, [a, b]), before)
    })
  }
})

describe("accounts: seeding keeps conservation", () => {
  it("a deposit into an unknown account type is refused and changes nothing", () => {
    const engine = new Engine.Engine({ seed: 3 })
    const user = engine.addUser()
    // A lower-case typo, as a JavaScript caller or a JSON seed file could write it.
    assert.throws(() => engine.deposit(user, "spot" as Engine.AccountType, "BTC", "1", 0), Engine.EngineError)
    const btc = engine.totals().find((t) => t.coin === "BTC")
    assert.deepStrictEqual(btc, { coin: "BTC", supply: "0", held: "0", fees: "0" })
    assert.deepStrictEqual(engine.ledgerOf(user), [])
    assert.deepStrictEqual(engine.balances(user), [])
  })
})

describe("Engine.spotBalances", () => {
  it("lists every coin the user ever held in SPOT, zeros included, in the registry's order; equity = available + frozen", () => {
    const engine = makeEngine()
    const user = engine.addUser()
    const other = engine.addUser()
    assert.deepStrictEqual(engine.spotBalances(user), [], "nothing held yet")
    engine.deposit(user, "SPOT", "USDT", "1000", T0)
    engine.deposit(user, "SPOT", "BTC", "0.5", T0)
    // FUND and SPOT_V2 coins are not the spot account's.
    engine.deposit(user, "FUND", "ETH", "3", T0)
    engine.deposit(user, "SPOT_V2", "ETH", "3", T0)
    engine.deposit(other, "SPOT", "USDT", "1000", T0)
    const buy = engine.placeOrder(user, {
      symbol: "BTCUSDT_SPBL",
      side: "buy",
      orderType: "limit",
      force: "normal",
      price: "100",
      quantity: "2.5",
      clientOrderId: "bid"
    }, T0 + 1)
    assert.isTrue(buy.ok)
    // Sends every BTC away: BTC stays listed, at 0.
    assert.isTrue(
      engine.transfer(user, {
        toUserId: other,
        coin: "BTC",
        amount: "0.5",
        fromAccountType: "SPOT",
        toAccountType: "SPOT"
      }, T0 + 2).ok
    )
    assert.deepStrictEqual(engine.spotBalances(user), [
      { coinId: 1, coinName: "BTC", available: "0", frozen: "0", equity: "0" },
      { coinId: 2, coinName: "USDT", available: "750", frozen: "250", equity: "1000" }
    ])
    assert.deepStrictEqual(engine.spotBalances(other).map((b) => [b.coinName, b.equity]), [["BTC", "0.5"], [
      "USDT",
      "1000"
    ]])
    assert.throws(() => engine.spotBalances("4999000000000000001"), Engine.EngineError)
  })
})
