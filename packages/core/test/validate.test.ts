/**
 * Bad input never reaches the network: every invalid request fails with a `SpotError` whose `ValidationError`
 * reason names the field, and the fake venue sees no request at all.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import { TestClock } from "effect/testing"
import { type Order, SpotClient, SpotError, type Transfer } from "../src/index.ts"
import { clientLayer, FakeVenue, NOW, SYMBOL } from "./support/FakeVenue.ts"

type Client = SpotClient.Service
type Call = (client: Client) => Effect.Effect<unknown, SpotError.SpotError>

interface Case {
  readonly name: string
  readonly call: Call
  readonly field: string
}

const limitOrder = {
  symbol: SYMBOL,
  side: "buy",
  orderType: "limit",
  price: "100",
  quantity: "1",
  clientOrderId: "v-1"
} as const

// Deliberately wrong inputs do not fit the input types; the client must catch them at run time.
const order = (changes: Record<string, unknown>) => ({ ...limitOrder, ...changes }) as unknown as Order.PlaceOrderInput

const transfer = (changes: Record<string, unknown>) =>
  ({
    toUserId: "12345",
    coin: "USDT",
    amount: "1",
    fromAccountType: "SPOT",
    toAccountType: "FUND",
    ...changes
  }) as unknown as Transfer.InternalTransferInput

const placeOrder = (changes: Record<string, unknown>): Call => (client) => client.placeOrder(order(changes))
const internalTransfer = (changes: Record<string, unknown>): Call => (client) =>
  client.internalTransfer(transfer(changes))
const drain = <A>(stream: Stream.Stream<A, SpotError.SpotError>) => Stream.runCollect(stream)

/** Runs `call` against a fresh fake venue at `NOW`; answers the venue (to count requests) and the outcome. */
const run = <A>(call: (client: Client) => Effect.Effect<A, SpotError.SpotError>) => {
  const venue = new FakeVenue()
  return Effect.gen(function*() {
    yield* TestClock.setTime(NOW)
    const client = yield* SpotClient.SpotClient
    const result = yield* Effect.result(call(client))
    return { venue, result }
  }).pipe(Effect.provide(clientLayer(venue)))
}

const expectRejected = (call: Call, field: string) =>
  Effect.gen(function*() {
    const { result, venue } = yield* run(call)
    assert.strictEqual(result._tag, "Failure", "the call should have failed")
    if (result._tag !== "Failure") return
    const error = result.failure
    assert.isTrue(SpotError.isSpotError(error))
    assert.strictEqual(error.reason._tag, "ValidationError")
    if (error.reason._tag !== "ValidationError") return
    assert.strictEqual(error.reason.field, field)
    assert.isAbove(error.reason.description.length, 0)
    assert.include(error.message, field)
    assert.isFalse(error.isRetryable)
    assert.strictEqual(venue.requests.length, 0, "nothing may be sent")
  })

const expectSent = (call: Call) =>
  Effect.gen(function*() {
    const { result, venue } = yield* run(call)
    assert.strictEqual(result._tag, "Success", result._tag === "Failure" ? result.failure.message : "")
    assert.strictEqual(venue.requests.length, 1)
    return venue.requests[0]!
  })

const badQuantities = ["0", "-1", "1e5", "0x10", " 1", ".5", "5.", "0.000", "", "1,5"]
const badSymbols = ["btcusdt_spbl", "BTCUSDT", "BTC-USDT_SPBL", ""]
const badUserIds = ["abc", "-1", "18446744073709551616", "1.5", "0x10", ""]

const orderCases: ReadonlyArray<Case> = [
  { name: "limit order without price", call: placeOrder({ price: undefined }), field: "price" },
  ...badQuantities.map((quantity) => ({
    name: `quantity ${JSON.stringify(quantity)}`,
    call: placeOrder({ quantity }),
    field: "quantity"
  })),
  { name: "price \"abc\" on a limit order", call: placeOrder({ price: "abc" }), field: "price" },
  { name: "price \"0\" on a limit order", call: placeOrder({ price: "0" }), field: "price" },
  ...badSymbols.map((symbol) => ({
    name: `symbol ${JSON.stringify(symbol)}`,
    call: placeOrder({ symbol }),
    field: "symbol"
  })),
  { name: "side \"BUY\"", call: placeOrder({ side: "BUY" }), field: "side" },
  { name: "orderType \"stop\"", call: placeOrder({ orderType: "stop" }), field: "orderType" },
  { name: "force \"gtc\"", call: placeOrder({ force: "gtc" }), field: "force" },
  { name: "clientOrderId \"\"", call: placeOrder({ clientOrderId: "" }), field: "clientOrderId" },
  { name: "clientOrderId with a space", call: placeOrder({ clientOrderId: "my order" }), field: "clientOrderId" }
]

const transferCases: ReadonlyArray<Case> = [
  { name: "amount with 7 decimals", call: internalTransfer({ amount: "1.1234567" }), field: "amount" },
  { name: "amount with 7 decimals, zeros after", call: internalTransfer({ amount: "1.12345670" }), field: "amount" },
  { name: "amount \"0\"", call: internalTransfer({ amount: "0" }), field: "amount" },
  ...badUserIds.map((toUserId) => ({
    name: `toUserId ${JSON.stringify(toUserId)}`,
    call: internalTransfer({ toUserId }),
    field: "toUserId"
  })),
  { name: "coin \"ETH\"", call: internalTransfer({ coin: "ETH" }), field: "coin" },
  {
    name: "fromAccountType \"MARGIN\"",
    call: internalTransfer({ fromAccountType: "MARGIN" }),
    field: "fromAccountType"
  },
  { name: "toAccountType \"MARGIN\"", call: internalTransfer({ toAccountType: "MARGIN" }), field: "toAccountType" }
]

const pagingCases: ReadonlyArray<Case> = [
  ...[0, 101, 1.5].map((limit) => ({
    name: `openOrdersPage limit ${limit}`,
    call: (client: Client) => client.openOrdersPage({ symbol: SYMBOL, limit }),
    field: "limit"
  })),
  {
    name: "openOrdersPage pageNo -1",
    call: (client) => client.openOrdersPage({ symbol: SYMBOL, pageNo: -1 }),
    field: "pageNo"
  },
  ...badSymbols.map((symbol) => ({
    name: `openOrdersPage symbol ${JSON.stringify(symbol)}`,
    call: (client: Client) => client.openOrdersPage({ symbol }),
    field: "symbol"
  })),
  ...[0, 101].map((pageSize) => ({
    name: `fundingBillsPage pageSize ${pageSize}`,
    call: (client: Client) => client.fundingBillsPage({ pageSize }),
    field: "pageSize"
  })),
  {
    name: "fundingBillsPage pageIndex 0",
    call: (client) => client.fundingBillsPage({ pageIndex: 0 }),
    field: "pageIndex"
  },
  ...[NOW, NOW - 1].map((endTime) => ({
    name: `fundingBillsPage endTime ${endTime === NOW ? "=" : "<"} startTime`,
    call: (client: Client) => client.fundingBillsPage({ startTime: NOW, endTime }),
    field: "endTime"
  }))
]

// Streams are lazy: the failure appears when the stream runs.
const streamCases: ReadonlyArray<Case> = [
  ...[0, 101].map((pageSize) => ({
    name: `openOrders pageSize ${pageSize}`,
    call: (client: Client) => drain(client.openOrders({ symbol: SYMBOL, pageSize })),
    field: "pageSize"
  })),
  ...badSymbols.map((symbol) => ({
    name: `openOrders symbol ${JSON.stringify(symbol)}`,
    call: (client: Client) => drain(client.openOrders({ symbol })),
    field: "symbol"
  })),
  ...[0, 101].map((pageSize) => ({
    name: `fundingBills pageSize ${pageSize}`,
    call: (client: Client) => drain(client.fundingBills({ pageSize })),
    field: "pageSize"
  })),
  ...[NOW, NOW - 1].map((endTime) => ({
    name: `fundingBills endTime ${endTime === NOW ? "=" : "<"} startTime`,
    call: (client: Client) => drain(client.fundingBills({ startTime: NOW, endTime })),
    field: "endTime"
  }))
]

describe("validation", () => {
  describe("placeOrder", () => {
    it.effect.each(orderCases)("rejects $name", ({ call, field }) => expectRejected(call, field))
  })

  describe("internalTransfer", () => {
    it.effect.each(transferCases)("rejects $name", ({ call, field }) => expectRejected(call, field))
  })

  describe("pages", () => {
    it.effect.each(pagingCases)("rejects $name", ({ call, field }) => expectRejected(call, field))
  })

  describe("streams", () => {
    it.effect.each(streamCases)("rejects $name when run", ({ call, field }) => expectRejected(call, field))
  })

  describe("accepted boundaries", () => {
    it.effect("sends a transfer amount with exactly 6 decimals and a u64 toUserId", () =>
      Effect.gen(function*() {
        const request = yield* expectSent(internalTransfer({ amount: "0.000001", toUserId: "18446744073709551615" }))
        assert.strictEqual(request.json.amount, "0.000001")
        assert.include(request.body, "\"toUserId\":18446744073709551615")
      }))

    it.effect("a transfer amount written with 8 decimals, as balances are, goes when the last two are zeros", () =>
      Effect.gen(function*() {
        // Sent without the zeros past the 6th place, which the venue's rule counts as written; the value is the same.
        const written = yield* expectSent(internalTransfer({ amount: "100.19000000" }))
        assert.strictEqual(written.json.amount, "100.19")
        const whole = yield* expectSent(internalTransfer({ amount: "1.0000000" }))
        assert.strictEqual(whole.json.amount, "1")
        // Six places or fewer go as written.
        const six = yield* expectSent(internalTransfer({ amount: "2.500000" }))
        assert.strictEqual(six.json.amount, "2.500000")
      }))

    it.effect.each([1, 100])("sends openOrdersPage with limit %s", (limit) =>
      Effect.gen(function*() {
        const request = yield* expectSent((client) => client.openOrdersPage({ symbol: SYMBOL, limit }))
        assert.strictEqual(request.json.limit, limit)
      }))

    it.effect.each([1, 100])("sends fundingBillsPage with pageSize %s", (pageSize) =>
      Effect.gen(function*() {
        const request = yield* expectSent((client) => client.fundingBillsPage({ pageSize, pageIndex: 1 }))
        assert.strictEqual(request.json.pageSize, pageSize)
      }))

    it.effect("sends a market order without price", () =>
      Effect.gen(function*() {
        const request = yield* expectSent(placeOrder({ orderType: "market", price: undefined }))
        assert.strictEqual(request.json.orderType, "market")
      }))
  })

  describe("placeOrders", () => {
    it.effect("fails the whole call on an invalid symbol without sending anything", () =>
      expectRejected((client) => client.placeOrders("btcusdt", [{ ...limitOrder, clientOrderId: "b-1" }]), "symbol"))

    it.effect("fails invalid items on their own and sends the valid ones", () =>
      Effect.gen(function*() {
        const items = [
          { side: "buy", orderType: "limit", price: "100", quantity: "1", clientOrderId: "ok-0" },
          { side: "buy", orderType: "limit", price: "100", quantity: "0", clientOrderId: "bad-1" },
          { side: "sell", orderType: "limit", quantity: "1", clientOrderId: "bad-2" },
          { side: "sell", orderType: "market", quantity: "2", clientOrderId: "ok-3" },
          { side: "BUY", orderType: "limit", price: "1", quantity: "1", clientOrderId: "bad-4" }
        ] as unknown as ReadonlyArray<Order.BatchItemInput>
        const { result, venue } = yield* run((client) => client.placeOrders(SYMBOL, items))
        assert.strictEqual(result._tag, "Success")
        if (result._tag !== "Success") return
        const { outcomes } = result.success

        assert.deepStrictEqual(outcomes.map((outcome) => outcome._tag), [
          "Placed",
          "Failed",
          "Failed",
          "Placed",
          "Failed"
        ])
        assert.deepStrictEqual(outcomes.map((outcome) => outcome.index), [0, 1, 2, 3, 4])
        assert.strictEqual(result.success.placed, 2)
        assert.strictEqual(result.success.failed, 3)
        const expectedFields: Record<number, string> = {
          1: "items[1].quantity",
          2: "items[2].price",
          4: "items[4].side"
        }
        for (const [index, field] of Object.entries(expectedFields)) {
          const outcome = outcomes[Number(index)]!
          assert.strictEqual(outcome._tag, "Failed")
          if (outcome._tag !== "Failed") continue
          assert.strictEqual(outcome.code, "ValidationError")
          assert.include(outcome.message, field)
          assert.isFalse(outcome.mayExist)
          assert.strictEqual(outcome.clientOrderId, items[Number(index)]!.clientOrderId)
        }

        assert.strictEqual(venue.requests.length, 1)
        const sent = venue.requests[0]!.json.orderList as ReadonlyArray<Record<string, unknown>>
        assert.deepStrictEqual(sent.map((item) => item.clientOrderId), ["ok-0", "ok-3"])
      }))

    it.effect("sends nothing when every item is invalid", () =>
      Effect.gen(function*() {
        const items = [{ side: "buy", orderType: "limit", quantity: "1", clientOrderId: "np" }] as const
        const { result, venue } = yield* run((client) => client.placeOrders(SYMBOL, items))
        assert.strictEqual(result._tag, "Success")
        if (result._tag === "Success") assert.strictEqual(result.success.failed, 1)
        assert.strictEqual(venue.requests.length, 0)
      }))
  })
})
