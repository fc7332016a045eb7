// The push soak's runner (reliability.push.test.ts): alice trades against bob's replenished book while the push venue
// drops, closes, stalls, duplicates and loses frames at random (seeded), and her push client watches her fills,
// orders, balances and the book. Every book the client delivers is checked against the engine's book at that book's
// version: the venue's version of a symbol moves by one per published change, so the test records the engine's best
// levels at each published change and at each snapshot the venue sends (spies on the venue object, which the
// engine's feed and the connections call through).
import { assert } from "@effect/vitest"
import { Effect } from "effect"
import type { Engine } from "../../src/index.ts"
import { PushVenue, TestExchange } from "../../src/index.ts"
import { prng } from "../../src/internal/prng.ts"
import { advance, collect, engineBook, lastBook, settle, SpotPush } from "./push.ts"

export const SYMBOL = "BTCUSDT_SPBL"
const DEPTH = 15

/** The testkit's seedable generator (mulberry32): the same seed gives the same faults and orders on every machine. */
export const random = prng

/** A fault phase: what the venue does for a few rounds. `dropAll` drops every connection once at its start. */
export interface Phase {
  readonly name: string
  readonly faults: PushVenue.Faults
  readonly dropAll: boolean
}

/** Draws the next phase: one time in five a quiet one, else one or two faults with random counts. */
export const drawPhase = (next: () => number): Phase => {
  const count = (max: number) => 1 + Math.floor(next() * max)
  const kinds = ["disconnect", "close", "stall", "dup", "gap", "dropAll", "refuseAuth"] as const
  if (next() < 0.2) return { name: "quiet", faults: {}, dropAll: false }
  const picked = new Set([kinds[Math.floor(next() * kinds.length)]!])
  if (next() < 0.4) picked.add(kinds[Math.floor(next() * kinds.length)]!)
  const faults: Record<string, number | boolean> = {}
  for (const kind of picked) {
    if (kind === "dropAll") continue
    if (kind === "refuseAuth") faults.refuseAuth = true
    else faults[kind] = count(kind === "dup" || kind === "gap" ? 4 : 8)
  }
  return {
    name: Array.from(picked).sort().join("+"),
    faults: faults as PushVenue.Faults,
    dropAll: picked.has("dropAll")
  }
}

const render = (book: { readonly bids: ReadonlyArray<unknown>; readonly asks: ReadonlyArray<unknown> }) =>
  JSON.stringify([book.bids, book.asks])

/**
 * Records the engine's best levels at every version of the symbol's book the venue makes: after each published change
 * (its version is one more than the last), and at each snapshot (the version current then; the engine may have moved
 * while nobody watched, so a version can have several snapshots).
 */
export const recordVersions = (venue: PushVenue.Service, engine: Engine.Engine, initialVersion: bigint) => {
  const inner = venue.venue
  const changes = new Map<string, string>()
  const snapshots = new Map<string, Set<string>>()
  let version = initialVersion
  const publish = inner.publish.bind(inner)
  inner.publish = (event) => {
    publish(event)
    if (event._tag === "Book" && event.symbol === SYMBOL) {
      version++
      changes.set(String(version), render(engineBook(engine, SYMBOL, DEPTH)))
    }
  }
  const initial = inner.initial.bind(inner)
  inner.initial = (connection, channel) => {
    initial(connection, channel)
    if (channel === `depth.${SYMBOL}.${DEPTH}`) {
      const key = String(version)
      let set = snapshots.get(key)
      if (set === undefined) snapshots.set(key, set = new Set())
      set.add(render(engineBook(engine, SYMBOL, DEPTH)))
    }
  }
  return {
    /**
     * Checks every book delivered: the first after a Resync (and the very first) is a snapshot, equal to one the venue
     * sent at its version; every other one equal to the engine's after the change of its version (or, at the version
     * of the book before it, that same book).
     */
    check: (events: ReadonlyArray<SpotPush.BookEvent>) => {
      let fromSnapshot = true
      let snapshotsChecked = 0
      let changesChecked = 0
      let repeated = 0
      let resyncs = 0
      let previous: { readonly version: string; readonly seen: string } | undefined
      for (const event of events) {
        if (event._tag === "Resync") {
          fromSnapshot = true
          resyncs++
          continue
        }
        const seen = render(event.book)
        if (fromSnapshot) {
          const sent = snapshots.get(event.book.version)
          assert.isTrue(sent?.has(seen) === true, `book at version ${event.book.version} after a resync`)
          snapshotsChecked++
        } else if (previous?.version === event.book.version) {
          // The same version again without a resync (a snapshot frame sent twice): the same book.
          assert.strictEqual(seen, previous.seen, `book at version ${event.book.version} repeated`)
          repeated++
        } else {
          assert.strictEqual(seen, changes.get(event.book.version), `book at version ${event.book.version}`)
          changesChecked++
        }
        fromSnapshot = false
        previous = { version: event.book.version, seen }
      }
      return { snapshotsChecked, changesChecked, repeated, resyncs }
    }
  }
}

export interface SoakOptions {
  readonly fills: number
  readonly seed: number
  /** Rounds per fault phase. */
  readonly phaseRounds: number
  /**
   * Rounds without faults before the first phase. The client learns how the venue's depth changes follow each other
   * from its first changes in a row (docs/venue/push.md, order book step 4): a change lost before that may go unseen,
   * the one window the learning leaves. @default 0
   */
  readonly quietRounds?: number | undefined
}

const context = Effect.gen(function*() {
  const exchange = yield* TestExchange.TestExchange
  const venue = yield* PushVenue.PushVenue
  const push = yield* SpotPush.SpotPush
  const [alice, bob] = exchange.accounts
  return { exchange, venue, push, alice: alice!.userId, bob: bob!.userId, engine: exchange.engine }
})

// One round: bob quotes a level on each side near the mid; alice takes liquidity with a market buy and a market sell
// (each one or more fills), and one round in four rests a limit order far from the mid, cancelled a round later.
const round = (i: number, next: () => number) =>
  Effect.gen(function*() {
    const { alice, bob, exchange } = yield* context
    const offset = Math.floor(next() * 6) * 5
    yield* exchange.placeOrder(bob, {
      symbol: SYMBOL,
      side: "sell",
      orderType: "limit",
      force: "normal",
      price: `${30_005 + offset}.00`,
      quantity: "0.010",
      clientOrderId: `ask-${i}`
    })
    yield* exchange.placeOrder(bob, {
      symbol: SYMBOL,
      side: "buy",
      orderType: "limit",
      force: "normal",
      price: `${29_995 - offset}.00`,
      quantity: "0.010",
      clientOrderId: `bid-${i}`
    })
    yield* exchange.placeOrder(alice, {
      symbol: SYMBOL,
      side: "buy",
      orderType: "market",
      force: "normal",
      quantity: `${250 + Math.floor(next() * 150)}`,
      clientOrderId: `b-${i}`
    })
    yield* exchange.placeOrder(alice, {
      symbol: SYMBOL,
      side: "sell",
      orderType: "market",
      force: "normal",
      quantity: `0.${String(8 + Math.floor(next() * 5)).padStart(3, "0")}`,
      clientOrderId: `s-${i}`
    })
    if (i % 4 === 0) {
      yield* exchange.placeOrder(alice, {
        symbol: SYMBOL,
        side: "buy",
        orderType: "limit",
        force: "normal",
        price: `${29_000 + (i % 400)}.00`,
        quantity: "0.010",
        clientOrderId: `r-${i}`
      })
    }
    if (i % 4 === 1) yield* exchange.cancelOrder(alice, { clientOrderId: `r-${i - 1}` })
  })

/** The soak: rounds under random fault phases until `fills` fills of alice's were made, then quiet; the figures. */
export const pushSoak = (options: SoakOptions) =>
  Effect.gen(function*() {
    const { alice, engine, push, venue } = yield* context
    const next = random(options.seed)
    const versions = recordVersions(venue, engine, 3_644_174_246n)
    const events = yield* collect(push.events)
    const fills = yield* collect(push.watchFills({ symbols: [SYMBOL] }))
    const orders = yield* collect(push.watchOrders({ symbols: [SYMBOL] }))
    const balances = yield* collect(push.watchBalances())
    const book = yield* collect(push.watchBook(SYMBOL))
    yield* settle
    const phases: Record<string, number> = {}
    let made = 0
    let rounds = 0
    for (; rounds < (options.quietRounds ?? 0); rounds++) {
      yield* round(rounds, next)
      yield* advance(1_000, 500)
    }
    while (made < options.fills) {
      if (rounds % options.phaseRounds === 0) {
        const phase = drawPhase(next)
        phases[phase.name] = (phases[phase.name] ?? 0) + 1
        yield* venue.setFaults(phase.faults)
        if (phase.dropAll) yield* venue.dropAll
      }
      yield* round(rounds, next)
      yield* advance(1_000, 500)
      rounds++
      if (rounds % 25 === 0) made = engine.fillList(alice).length
    }
    yield* venue.setFaults({})
    // A change lost last shows only with the next one: one more round, then quiet until every session is live again.
    yield* round(rounds, next)
    yield* advance(120_000, 5_000)
    const books = versions.check(book.items)
    const expected = engine.fillList(alice)
    const ids = fills.items.map((f) => f.fillId)
    const duplicated = ids.length - new Set(ids).size
    const known = new Map(expected.map((f) => [f.fillId, f]))
    const delivered = new Set(ids)
    const missed = expected.filter((f) => !delivered.has(f.fillId)).length
    assert.strictEqual(duplicated, 0, "fills delivered twice")
    assert.strictEqual(missed, 0, "fills never delivered")
    assert.strictEqual(ids.length, expected.length)
    for (const fill of fills.items) {
      const rest = known.get(fill.fillId)!
      assert.strictEqual(fill.orderId, rest.orderId)
      assert.strictEqual(fill.quantity, rest.fillQuantity)
    }
    const lastOrder = new Map<string, SpotPush.OrderUpdate>()
    for (const order of orders.items) lastOrder.set(order.orderId, order)
    const engineOrders = engine.orderList(alice)
    for (const order of engineOrders) {
      const seen = lastOrder.get(order.orderId)
      assert.isDefined(seen, `order ${order.clientOrderId} never delivered`)
      assert.strictEqual(seen!.status, order.status, order.clientOrderId)
      assert.strictEqual(seen!.filledQuantity, order.fillQuantity, order.clientOrderId)
    }
    const lastBalance = new Map<string, SpotPush.Balance>()
    for (const balance of balances.items) lastBalance.set(balance.coinName, balance)
    for (const balance of engine.spotBalances(alice)) {
      assert.strictEqual(lastBalance.get(balance.coinName)?.available, balance.available, balance.coinName)
      assert.strictEqual(lastBalance.get(balance.coinName)?.frozen, balance.frozen, balance.coinName)
    }
    const final = lastBook(book.items)
    assert.isDefined(final, "the book stream ends with a book")
    assert.deepStrictEqual({ bids: final!.bids, asks: final!.asks }, engineBook(engine, SYMBOL, DEPTH))
    const stats = yield* venue.stats
    const disconnected = events.items.filter((e) => e._tag === "Disconnected").length
    const resynced = events.items.filter((e) => e._tag === "Resynced").length
    return {
      seed: options.seed,
      rounds,
      fills: expected.length,
      fillsByPush: fills.items.filter((f) => f.source === "push").length,
      fillsByRest: fills.items.filter((f) => f.source === "rest").length,
      missed,
      duplicated,
      orders: engineOrders.length,
      orderUpdates: orders.items.length,
      balanceUpdates: balances.items.length,
      phases,
      connections: stats.opened,
      attempts: stats.attempts,
      refused: stats.refused,
      disconnected,
      privateResyncs: resynced,
      bookResyncs: books.resyncs,
      booksChecked: books.snapshotsChecked + books.changesChecked + books.repeated,
      booksRepeated: books.repeated,
      booksAfterResyncChecked: books.snapshotsChecked
    }
  })
