/**
 * The order history and fills streams (src/internal/paging.ts, `byTime`, the implementation the bills stream uses):
 * newest first, paged by time with `after`/`before` and `pageIndex` from 0; lazy; never a record twice and never one
 * skipped that existed when the stream began, while new ones arrive; nothing lost at a time bound whether the venue
 * treats its bounds as exclusive (the spec's choice) or inclusive; many records in one millisecond.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import type { Fill, Order, SpotClient, SpotError } from "../src/index.ts"
import {
  type Answer,
  FakeVenue,
  FILLS,
  HISTORY,
  NOW,
  OPEN_ORDERS,
  reasonOf,
  type Received,
  requestsTo,
  ScriptedVenue,
  SYMBOL,
  withClient
} from "./support/FakeVenue.ts"

let nextId = 710_000_000_000_000_000n

/** Adds `count` orders of `symbol`, `perMillis` per millisecond, the newest at `newest`. */
const addOrders = (venue: FakeVenue, count: number, newest: number, perMillis = 1, symbol = SYMBOL) => {
  for (let i = 0; i < count; i++) {
    const orderId = nextId++
    venue.orders.push({
      orderId,
      symbol,
      clientOrderId: `h${orderId}`,
      side: "buy",
      orderType: "limit",
      price: "100",
      quantity: "1",
      cTime: newest - Math.floor((count - 1 - i) / perMillis),
      status: i % 3 === 0 ? "full_fill" : i % 3 === 1 ? "cancelled" : "open"
    })
  }
}

/** Adds `count` fills of `symbol`, `perMillis` per millisecond, the newest at `newest`, of order `orderId`. */
const addFills = (venue: FakeVenue, count: number, newest: number, perMillis = 1, orderId = 42n) => {
  for (let i = 0; i < count; i++) {
    venue.fills.push({
      fillId: String(nextId++),
      orderId,
      symbol: SYMBOL,
      side: "buy",
      orderType: "limit",
      fillPrice: "100.5",
      fillQuantity: "0.01",
      fillTotalAmount: "1.005",
      fees: "0.001",
      cTime: newest - Math.floor((count - 1 - i) / perMillis)
    })
  }
}

/** The ids a venue holds, newest first (time, then id). */
const expectedOrders = (venue: FakeVenue, filter: (cTime: number) => boolean = () => true) =>
  [...venue.orders].filter((order) => order.symbol === SYMBOL && filter(order.cTime))
    .sort((a, b) => b.cTime - a.cTime || (b.orderId > a.orderId ? 1 : -1)).map((order) => String(order.orderId))

const expectedFills = (venue: FakeVenue, filter: (cTime: number) => boolean = () => true) =>
  [...venue.fills].filter((fill) => filter(fill.cTime))
    .sort((a, b) => b.cTime - a.cTime || (BigInt(b.fillId) > BigInt(a.fillId) ? 1 : -1)).map((fill) => fill.fillId)

const historyIds = (venue: FakeVenue, filter: Order.OrderHistoryFilter) =>
  withClient(
    venue,
    (client) =>
      Effect.map(Stream.runCollect(client.orderHistory(filter)), (orders) => orders.map((o) => String(o.orderId)))
  )

const fillIds = (venue: FakeVenue, filter: Fill.FillsFilter) =>
  withClient(
    venue,
    (client) => Effect.map(Stream.runCollect(client.fills(filter)), (fills) => fills.map((f) => f.fillId))
  )

for (const inclusiveBounds of [false, true]) {
  const venueKind = inclusiveBounds ? "an inclusive venue" : "an exclusive venue"

  describe(`orderHistory over ${venueKind}`, () => {
    it.effect("yields every order once, newest first, any status, over several pages", () => {
      const venue = new FakeVenue({ inclusiveBounds })
      addOrders(venue, 47, NOW - 1_000, 2)
      addOrders(venue, 5, NOW - 1_000, 1, "ETHUSDT_SPBL")
      return Effect.gen(function*() {
        const ids = yield* historyIds(venue, { symbol: SYMBOL, pageSize: 10 })
        assert.deepStrictEqual(ids, expectedOrders(venue))
        assert.isAtLeast(venue.count(HISTORY), 5)
      })
    })

    it.effect("keeps the exclusive bounds of the filter, losing nothing just inside them", () => {
      const venue = new FakeVenue({ inclusiveBounds })
      addOrders(venue, 60, NOW - 1_000, 3)
      const after = NOW - 1_000 - 15
      const before = NOW - 1_000 - 2
      return Effect.gen(function*() {
        const ids = yield* historyIds(venue, { symbol: SYMBOL, after, before, pageSize: 4 })
        assert.deepStrictEqual(ids, expectedOrders(venue, (t) => t > after && t < before))
        assert.isNotEmpty(ids)
      })
    })

    it.effect("a page that all falls in one millisecond steps pageIndex from 0 under the same bound", () => {
      const venue = new FakeVenue({ inclusiveBounds })
      addOrders(venue, 25, NOW - 1_000, 25)
      addOrders(venue, 3, NOW - 2_000)
      return Effect.gen(function*() {
        const ids = yield* historyIds(venue, { symbol: SYMBOL, pageSize: 10 })
        assert.deepStrictEqual(ids, expectedOrders(venue))
        const indexes = requestsTo(venue, HISTORY).map((request) => request.json.pageIndex)
        assert.strictEqual(indexes[0], 0)
        assert.include(indexes, 2)
      })
    })

    it.effect("new orders arriving while it pages are neither yielded twice nor make it skip one", () => {
      const venue = new FakeVenue({ inclusiveBounds })
      addOrders(venue, 40, NOW - 1_000, 2)
      const atStart = expectedOrders(venue)
      venue.onHandled = (request) => {
        if (request.pathname === HISTORY) addOrders(venue, 7, NOW - 500 + venue.count(HISTORY), 7)
      }
      return Effect.gen(function*() {
        const ids = yield* historyIds(venue, { symbol: SYMBOL, pageSize: 10 })
        assert.strictEqual(new Set(ids).size, ids.length, "no order twice")
        for (const id of atStart) assert.include(ids, id)
      })
    })
  })

  describe(`fills over ${venueKind}`, () => {
    it.effect("yields every fill once, newest first, with exact decimals", () => {
      const venue = new FakeVenue({ inclusiveBounds })
      addFills(venue, 33, NOW - 1_000, 4)
      return Effect.gen(function*() {
        const ids = yield* fillIds(venue, { symbol: SYMBOL, pageSize: 5 })
        assert.deepStrictEqual(ids, expectedFills(venue))
      })
    })

    it.effect("keeps the bounds of the filter, losing nothing at them", () => {
      const venue = new FakeVenue({ inclusiveBounds })
      addFills(venue, 40, NOW - 1_000, 2)
      const after = NOW - 1_000 - 12
      const before = NOW - 1_000 - 3
      return Effect.gen(function*() {
        const ids = yield* fillIds(venue, { symbol: SYMBOL, after, before, pageSize: 3 })
        assert.deepStrictEqual(ids, expectedFills(venue, (t) => t > after && t < before))
      })
    })
  })
}

describe("a venue serving fewer than asked, nextPage null", () => {
  // The venue cuts each page to 50 of the 100 asked and says nothing of what follows: a short page is not the end
  // until a request below its oldest record finds nothing.
  const capped = (path: string, field: string) =>
    new (class extends ScriptedVenue {
      protected override answerFor(p: string, original: Answer, request: Received): Answer {
        const served = super.answerFor(p, original, request)
        if (p !== path || served.status !== 200) return served
        const page = JSON.parse(served.body)
        page.data[field] = page.data[field].slice(0, 50)
        page.data.nextPage = null
        return { ...served, body: JSON.stringify(page) }
      }
    })()

  it.effect.each([{ count: 120, requests: 3 }, { count: 30, requests: 2 }])(
    "orderHistory, $count orders: each once, in $requests requests",
    ({ count, requests }) => {
      const venue = capped(HISTORY, "orderInfoResultList")
      addOrders(venue, count, NOW - 1_000)
      return Effect.gen(function*() {
        const ids = yield* historyIds(venue, { symbol: SYMBOL })
        assert.deepStrictEqual(ids, expectedOrders(venue))
        assert.strictEqual(venue.count(HISTORY), requests)
      })
    }
  )

  it.effect("fills, 120 in clusters of 60 per millisecond: each once", () => {
    // Clusters larger than the venue's cap step the index under one bound, at the size the venue served.
    const venue = capped(FILLS, "fillsOrderResultList")
    addFills(venue, 120, NOW - 1_000, 60)
    return Effect.gen(function*() {
      const ids = yield* fillIds(venue, { symbol: SYMBOL })
      assert.deepStrictEqual(ids, expectedFills(venue))
    })
  })
})

describe("fills", () => {
  it.effect("of one order: its orderId is sent as a bare JSON number, exact", () => {
    const venue = new FakeVenue()
    addFills(venue, 3, NOW - 1_000, 1, 602876318261969338n)
    addFills(venue, 2, NOW - 1_000, 1, 7n)
    return Effect.gen(function*() {
      const ids = yield* fillIds(venue, { symbol: SYMBOL, orderId: "602876318261969338" })
      assert.strictEqual(ids.length, 3)
      assert.include(requestsTo(venue, FILLS)[0]!.body, "\"orderId\":602876318261969338")
    })
  })

  it.effect("decodes a fill with an empty price and type as the venue's sample has them", () => {
    const venue = new FakeVenue()
    addFills(venue, 1, NOW - 1_000)
    venue.fills[0] = { ...venue.fills[0]!, fillPrice: "", orderType: "" }
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const page = yield* client.fillsPage({ symbol: SYMBOL })
        assert.deepInclude<unknown>(page.fillsOrderResultList![0], {
          fillPrice: "",
          orderType: "",
          fillQuantity: "0.01",
          fillTotalAmount: "1.005",
          fees: "0.001",
          orderId: "42"
        })
      }))
  })
})

// A gateway that routes the request elsewhere, or a body rewritten on the way: a record of another symbol in a page
// of the asked one's is not taken for the asked symbol's.
describe("a page naming another symbol than the one asked", () => {
  const reads: ReadonlyArray<{
    readonly path: string
    readonly read: (client: SpotClient.Service) => Stream.Stream<unknown, SpotError.SpotError>
  }> = [
    { path: OPEN_ORDERS, read: (client: SpotClient.Service) => client.openOrders({ symbol: SYMBOL }) },
    { path: HISTORY, read: (client: SpotClient.Service) => client.orderHistory({ symbol: SYMBOL }) },
    { path: FILLS, read: (client: SpotClient.Service) => client.fills({ symbol: SYMBOL }) }
  ]
  it.effect.each(reads)("$path: fails with a DecodeError naming both symbols", ({ path, read }) => {
    const venue = new ScriptedVenue()
    addOrders(venue, 6, NOW - 1_000)
    addFills(venue, 3, NOW - 1_000)
    // The last record of the page only.
    venue.answerNext(path, (original) => {
      const at = original.body.lastIndexOf(`"symbol":"${SYMBOL}"`)
      assert.isAbove(at, 0)
      const body = original.body.slice(0, at) + original.body.slice(at).replace(SYMBOL, "ETHUSDT_SPBL")
      return { ...original, body }
    })
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(Stream.runCollect(read(client)))
        reasonOf(error, "DecodeError")
        assert.include(error.message, `the answer names symbol ETHUSDT_SPBL, not the symbol asked ${SYMBOL}`)
        assert.strictEqual(requestsTo(venue, path).length, 1, "not sent again")
      }))
  })
})

// The same for the order a fills query asks about: a fill of another order is not taken for one of the asked order's.
describe("a fills page naming another order than the one asked", () => {
  it.effect("fails with a DecodeError naming both orders, not sent again; without an order asked, any is kept", () => {
    const venue = new ScriptedVenue()
    addFills(venue, 3, NOW - 1_000, 1, 42n)
    const rewrite = (original: { readonly status: number; readonly body: string }) => {
      const at = original.body.lastIndexOf(`"orderId":"42"`)
      assert.isAbove(at, 0)
      const body = original.body.slice(0, at) + original.body.slice(at).replace(`"42"`, `"1001000000000000001"`)
      return { ...original, body }
    }
    venue.answerNext(FILLS, rewrite)
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(Stream.runCollect(client.fills({ symbol: SYMBOL, orderId: "42" })))
        reasonOf(error, "DecodeError")
        assert.include(error.message, "the answer names order 1001000000000000001, not the order asked 42")
        assert.strictEqual(requestsTo(venue, FILLS).length, 1, "not sent again")
        venue.answerNext(FILLS, rewrite)
        const any = yield* Stream.runCollect(client.fills({ symbol: SYMBOL }))
        assert.deepStrictEqual(any.map((fill) => String(fill.orderId)), ["42", "42", "1001000000000000001"])
      }))
  })
})

describe("pages and validation", () => {
  it.effect("the streams send nothing until pulled", () => {
    const venue = new FakeVenue()
    return withClient(venue, (client) =>
      Effect.sync(() => {
        client.orderHistory({ symbol: SYMBOL })
        client.fills({ symbol: SYMBOL })
        assert.strictEqual(venue.requests.length, 0)
      }))
  })

  it.effect("orderHistoryPage sends the page query as given; totals are not trusted", () => {
    const venue = new FakeVenue()
    addOrders(venue, 12, NOW - 1_000)
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const page = yield* client.orderHistoryPage({ symbol: SYMBOL, pageIndex: 1, pageSize: 5, before: NOW })
        assert.strictEqual(page.orderInfoResultList?.length, 5)
        assert.strictEqual(page.totals, 0)
        assert.deepStrictEqual(requestsTo(venue, HISTORY)[0]!.json, {
          symbol: SYMBOL,
          before: NOW,
          pageIndex: 1,
          pageSize: 5
        })
      }))
  })

  it.effect.each([
    { name: "before not after after", call: { symbol: SYMBOL, after: 10, before: 10 }, field: "before" },
    { name: "a page size of 101", call: { symbol: SYMBOL, pageSize: 101 }, field: "pageSize" },
    { name: "a bad symbol", call: { symbol: "BTC" }, field: "symbol" }
  ])("refuses $name before sending", ({ call, field }) => {
    const venue = new FakeVenue()
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const history = yield* Effect.flip(Stream.runCollect(client.orderHistory(call)))
        assert.strictEqual(reasonOf(history, "ValidationError").field, field)
        const fills = yield* Effect.flip(Stream.runCollect(client.fills(call)))
        assert.strictEqual(reasonOf(fills, "ValidationError").field, field)
        assert.strictEqual(venue.requests.length, 0)
      }))
  })
})
