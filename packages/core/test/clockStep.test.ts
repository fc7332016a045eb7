/**
 * A step of the machine's (wall) clock during a call — NTP stepping a drifted clock, a VM resumed, a user setting the
 * time — must not make the recovery of a lost answer look in the wrong window: a bound or window of a recovery is the
 * call's start on the venue's clock and its elapsed time on the monotonic clock, not the wall clock read again later.
 * The wall clock here jumps while the monotonic clock does not, and the venue's clock runs on undisturbed.
 */
import { assert, describe, it } from "@effect/vitest"
import { Clock, Effect } from "effect"
import type { Order } from "../src/index.ts"
import { ServerClock } from "../src/internal/client/serverClock.ts"
import {
  BATCH,
  FakeVenue,
  limitOrderAt,
  NOW,
  OLD_ORDER_ID,
  ORDER_INFO,
  ORDERS,
  reasonOf,
  sampleTransfer,
  SERVER_TIME,
  SYMBOL,
  TRANSFER,
  TRANSFER_STATUS,
  venueOrderId,
  withClient
} from "./support/FakeVenue.ts"
import { steppedClock } from "./support/steppedClock.ts"

const MINUTES_10 = 600_000

/**
 * The TestClock with a wall clock that can be stepped (`steppedClock`): `step` moves the wall time (and the venue's
 * skew the other way, so that the venue's clock does not move) and leaves the monotonic time where it is.
 */
const steppable = (venue: FakeVenue) =>
  Effect.map(steppedClock, ({ clock, step: moveWall }) => {
    const step = (millis: number) => {
      moveWall(millis)
      venue.skewMillis -= millis
    }
    // A suspended machine: its wall clock and the venue's move on, its monotonic clock does not.
    const suspend = (millis: number) => moveWall(millis)
    return { clock, step, suspend }
  })

/** Runs `f` with a client over `venue` on a clock whose wall time `step` moves. */
const withSteppedClient = <A, E>(
  venue: FakeVenue,
  f: (
    client: Parameters<Parameters<typeof withClient>[1]>[0],
    step: (millis: number) => void,
    suspend: (millis: number) => void
  ) => Effect.Effect<A, E>,
  retry: { readonly times?: number; readonly baseDelay?: number } = {}
) =>
  Effect.flatMap(steppable(venue), ({ clock, step, suspend }) =>
    Effect.provideService(
      withClient(venue, (client) => f(client, step, suspend), { retry: { baseDelay: 0, ...retry } }),
      Clock.Clock,
      clock
    ))

/** Steps the wall clock by `millis` once the venue has handled the first request to `path`. */
const stepAfter = (venue: FakeVenue, path: string, step: (millis: number) => void, millis: number) => {
  let done = false
  venue.onHandled = (request) => {
    if (!done && request.pathname === path) {
      done = true
      step(millis)
    }
  }
}

const item = (clientOrderId: string) =>
  ({ side: "buy", orderType: "limit", price: "100", quantity: "1", clientOrderId }) as const

/** An identical order under `clientOrderId`, created five minutes before the call: a clientOrderId reused. */
const addOlder = (venue: FakeVenue, clientOrderId: string) =>
  venue.orders.push({
    orderId: OLD_ORDER_ID,
    symbol: SYMBOL,
    clientOrderId,
    side: "buy",
    orderType: "limit",
    price: "100",
    quantity: "1",
    cTime: NOW - 300_000,
    status: "full_fill"
  })

describe("placeOrder across a step of the wall clock", () => {
  it.effect.each([{ name: "forward", millis: MINUTES_10 }, { name: "backward", millis: -MINUTES_10 }])(
    "an order applied, its answer lost, the clock stepped $name: recovered with its id",
    ({ millis }) => {
      const venue = new FakeVenue().fail({ kind: "dropAfter" }, ORDERS)
      return withSteppedClient(venue, (client, step) => {
        stepAfter(venue, ORDERS, step, millis)
        return Effect.map(client.placeOrder(limitOrderAt("step-p")), (result) => {
          assert.strictEqual(result.orderId, venueOrderId(venue, "step-p"))
          assert.strictEqual(venue.orders.length, 1, "placed once")
        })
      })
    }
  )

  it.effect("the clock stepped forward: an older order of a reused clientOrderId is not taken for this call's", () => {
    const venue = new FakeVenue().fail({ kind: "dropAfter" }, ORDERS)
    addOlder(venue, "step-old")
    return withSteppedClient(venue, (client, step) => {
      stepAfter(venue, ORDERS, step, MINUTES_10)
      return Effect.map(Effect.flip(client.placeOrder(limitOrderAt("step-old"))), (error) => {
        const reason = reasonOf(error, "DuplicateOrderError")
        assert.isTrue(reason.mayExist)
        assert.strictEqual(venue.orders.length, 1, "only the older order")
      })
    })
  })
})

describe("placeOrders and resolve across a step of the wall clock", () => {
  it.effect.each([{ name: "forward", millis: MINUTES_10 }, { name: "backward", millis: -MINUTES_10 }])(
    "a batch applied, its answer lost, the clock stepped $name: its item recovered, and resolve agrees",
    ({ millis }) => {
      const venue = new FakeVenue().fail({ kind: "dropAfter" }, BATCH)
      const items = [item("step-b")]
      return withSteppedClient(venue, (client, step) =>
        Effect.gen(function*() {
          stepAfter(venue, BATCH, step, millis)
          const result = yield* client.placeOrders(SYMBOL, items)
          const outcome = result.outcomes[0]!
          assert.strictEqual(outcome._tag, "Placed", JSON.stringify(outcome))
          // A result that still says mayExist must never be settled as "not placed" by resolve.
          const settled = yield* client.resolve(SYMBOL, items, result)
          assert.strictEqual(settled.outcomes[0]!._tag, "Placed", JSON.stringify(settled.outcomes[0]))
          assert.strictEqual(venue.orders.length, 1, "placed once")
        }))
    }
  )

  it.effect("no answer during the batch (sentAt), the clock stepped backward before resolve: it finds the order", () => {
    // The venue's time not asked: no answer confirms the clock during the call, and the outcome carries `sentAt`.
    const venue = new FakeVenue({ skewMillis: 20_000 })
    venue.fail({ kind: "http", status: 429, body: "{\"code\":\"429\",\"msg\":\"Too Many Requests\"}" }, SERVER_TIME)
    venue.fail({ kind: "dropAfter" }, BATCH)
    for (let i = 0; i < 2; i++) venue.fail({ kind: "dropBefore" }, BATCH)
    for (let i = 0; i < 3; i++) venue.fail({ kind: "dropBefore" }, ORDER_INFO)
    const items = [item("step-s")]
    return withSteppedClient(venue, (client, step) =>
      Effect.gen(function*() {
        const result = yield* client.placeOrders(SYMBOL, items)
        const outcome = result.outcomes[0]!
        assert.isTrue(outcome._tag === "Failed" && outcome.sentAt !== undefined, JSON.stringify(outcome))
        step(-MINUTES_10)
        const settled = yield* client.resolve(SYMBOL, items, result)
        const after = settled.outcomes[0]!
        assert.strictEqual(after._tag, "Placed", JSON.stringify(after))
        if (after._tag === "Placed") assert.strictEqual(after.orderId, venueOrderId(venue, "step-s"))
      }), { times: 2 })
  })

  it.effect("the clock stepped forward: an older order of a reused clientOrderId is not taken for a batch item", () => {
    const venue = new FakeVenue().fail({ kind: "dropAfter" }, BATCH)
    addOlder(venue, "step-bo")
    const items = [item("step-bo")]
    return withSteppedClient(venue, (client, step) =>
      Effect.gen(function*() {
        stepAfter(venue, BATCH, step, MINUTES_10)
        const result = yield* client.placeOrders(SYMBOL, items)
        const outcome = result.outcomes[0]!
        assert.strictEqual(outcome._tag, "Failed", JSON.stringify(outcome))
        assert.strictEqual(venue.orders.length, 1, "only the older order")
      }))
  })
})

describe("a machine suspended during a call", () => {
  // The monotonic clock may not count the time a machine was suspended: an estimate by it alone would put the call's
  // start ten minutes late, and an order of the call before it, "not placed".
  it.effect("a batch applied, its answer lost, the machine suspended: never settled as not placed", () => {
    const venue = new FakeVenue().fail({ kind: "dropAfter" }, BATCH)
    const items = [item("susp-b")]
    return withSteppedClient(venue, (client, _step, suspend) =>
      Effect.gen(function*() {
        stepAfter(venue, BATCH, suspend, MINUTES_10)
        const result = yield* client.placeOrders(SYMBOL, items)
        const settled = yield* client.resolve(SYMBOL, items, result)
        for (const outcome of [result.outcomes[0]!, settled.outcomes[0]!]) {
          assert.isTrue(outcome._tag === "Placed" || outcome.mayExist, JSON.stringify(outcome))
        }
        assert.strictEqual(venue.orders.length, 1, "placed once")
      }))
  })
})

describe("a machine suspended between a call and resolve", () => {
  // The call's bound was taken during the call, on an estimate an answer of the call confirmed: a suspend after it
  // must not move it. Recomputed from the call's start on the monotonic clock, whose time the suspend did not count,
  // the start would land ten minutes late, and the call's own order would stay unsure for ever.
  it.effect("an outcome with notBefore, the machine suspended before resolve: resolve finds the order", () => {
    const venue = new FakeVenue().fail({ kind: "dropAfter" }, BATCH)
    for (let i = 0; i < 3; i++) venue.fail({ kind: "dropBefore" }, ORDER_INFO)
    const items = [item("susp-r")]
    return withSteppedClient(venue, (client, _step, suspend) =>
      Effect.gen(function*() {
        const result = yield* client.placeOrders(SYMBOL, items)
        const outcome = result.outcomes[0]!
        assert.isTrue(
          outcome._tag === "Failed" && outcome.mayExist && outcome.notBefore !== undefined,
          JSON.stringify(outcome)
        )
        suspend(MINUTES_10)
        const settled = yield* client.resolve(SYMBOL, items, result)
        const after = settled.outcomes[0]!
        assert.strictEqual(after._tag, "Placed", JSON.stringify(after))
        if (after._tag === "Placed") assert.strictEqual(after.orderId, venueOrderId(venue, "susp-r"))
        assert.strictEqual(venue.orders.length, 1, "placed once")
      }), { times: 2 })
  })
})

describe("internalTransfer across a step of the wall clock", () => {
  it.effect.each([{ name: "forward", millis: MINUTES_10 }, { name: "backward", millis: -MINUTES_10 }])(
    "a transfer applied, its answer lost, the clock stepped $name: found in the list, not sent again",
    ({ millis }) => {
      const venue = new FakeVenue().fail({ kind: "dropAfter" }, TRANSFER)
      return withSteppedClient(venue, (client, step) => {
        stepAfter(venue, TRANSFER, step, millis)
        return Effect.map(client.internalTransfer(sampleTransfer), (result) => {
          assert.strictEqual(venue.transfers.length, 1, "sent once")
          assert.strictEqual(result.id, venue.transfers[0]!.withdrawId)
        })
      })
    }
  )
})

/** An identical transfer made by another program with the key, five minutes before the call on the venue's clock. */
const addOlderTransfer = (venue: FakeVenue) =>
  venue.transfers.push({
    withdrawId: "8000000000000000001",
    fromUserId: "10012",
    toUserId: sampleTransfer.toUserId,
    coin: sampleTransfer.coin,
    amount: sampleTransfer.amount,
    status: "SUCCESS",
    createTime: NOW - 300_000
  })

describe("internalTransfer across a step of the wall clock, an identical older transfer in the list", () => {
  it.effect.each([{ name: "forward", millis: MINUTES_10 }, { name: "backward", millis: -MINUTES_10 }])(
    "the call's transfer applied, its answer lost, the clock stepped $name: its own id, not the older one's",
    ({ millis }) => {
      const venue = new FakeVenue().fail({ kind: "dropAfter" }, TRANSFER)
      addOlderTransfer(venue)
      return withSteppedClient(venue, (client, step) => {
        stepAfter(venue, TRANSFER, step, millis)
        return Effect.map(client.internalTransfer(sampleTransfer), (result) => {
          assert.strictEqual(venue.transfers.length, 2, "sent once")
          assert.strictEqual(result.id, venue.transfers[1]!.withdrawId)
        })
      })
    }
  )

  it.effect.each([{ name: "forward", millis: MINUTES_10 }, { name: "backward", millis: -MINUTES_10 }])(
    "the call's transfer never applied, the clock stepped $name: OutcomeUnknownError, never the older one's id",
    ({ millis }) => {
      const venue = new FakeVenue().fail({ kind: "dropBefore" }, TRANSFER)
      addOlderTransfer(venue)
      return withSteppedClient(venue, (client, step) => {
        // Nothing reaches the venue's handler: the step comes as the transfer list is first asked for.
        stepAfter(venue, TRANSFER_STATUS, step, millis)
        return Effect.map(Effect.flip(client.internalTransfer(sampleTransfer)), (error) => {
          const reason = reasonOf(error, "OutcomeUnknownError")
          assert.notInclude(JSON.stringify(reason), "8000000000000000001")
          assert.strictEqual(venue.transfers.length, 1, "only the older transfer")
        })
      })
    }
  )
})

describe("resolve on outcomes it did not make (rebuilt from JSON, another client)", () => {
  it.effect("the clock stepped forward during the batch: an older order of a reused clientOrderId is not taken", () => {
    const venue = new FakeVenue().fail({ kind: "dropAfter" }, BATCH)
    addOlder(venue, "step-json")
    const items = [item("step-json")]
    return withSteppedClient(venue, (client, step) =>
      Effect.gen(function*() {
        stepAfter(venue, BATCH, step, MINUTES_10)
        const result = yield* client.placeOrders(SYMBOL, items)
        assert.strictEqual(result.outcomes[0]!._tag, "Failed", JSON.stringify(result.outcomes[0]))
        // Kept across a restart: the outcomes as JSON, read back.
        const rebuilt = JSON.parse(JSON.stringify(result)) as Order.BatchResult
        const settled = yield* client.resolve(SYMBOL, items, rebuilt)
        const outcome = settled.outcomes[0]!
        assert.isTrue(outcome._tag === "Failed" && outcome.mayExist, JSON.stringify(outcome))
        assert.strictEqual(venue.orders.length, 1, "only the older order")
      }))
  })
})

describe("ServerClock.venueSpan with no answer since the moment", () => {
  // The venue's time learned at NOW; the machine then suspended ten minutes (its monotonic clock stood still) and a
  // call started; no answer with the venue's time came since (a venue may leave `requestTime` out). The monotonic
  // estimate puts the start ten minutes early, where an older order of a reused clientOrderId would pass for the
  // call's: the span must reach the wall clock's estimate.
  it("a suspend before the moment, not learned since: the span reaches the wall clock's estimate", () => {
    const clock = new ServerClock()
    clock.learn(NOW, 1_000, NOW, 1_000)
    const span = clock.venueSpan({ wall: NOW + MINUTES_10 + 5_000, mono: 6_000 })
    assert.strictEqual(span.early, NOW + 5_000)
    assert.strictEqual(span.late, NOW + MINUTES_10 + 5_000)
  })

  // No suspend sets a wall clock behind the monotonic one: only a step back does, and then the monotonic estimate is
  // right. The span reached the wall clock's estimate, ten minutes early, where an older identical order of a reused
  // clientOrderId was left unknown (a batch item kept `mayExist`) rather than known to be another order.
  it("a step back of the wall clock before the moment, not learned since: the monotonic estimate alone", () => {
    const clock = new ServerClock()
    clock.learn(NOW, 1_000, NOW, 1_000)
    const span = clock.venueSpan({ wall: NOW + 5_000 - MINUTES_10, mono: 6_000 })
    assert.deepStrictEqual(span, { early: NOW + 5_000, late: NOW + 5_000 })
  })

  it("a step back of the wall clock after the moment, learned since: the monotonic estimate alone", () => {
    const clock = new ServerClock()
    clock.learn(NOW, 1_000, NOW, 1_000)
    const at = { wall: NOW + 5_000, mono: 6_000 }
    // The wall clock set back ten minutes, then an answer: the offset learned again.
    clock.learn(NOW + 10_000, 11_000, NOW + 10_000 - MINUTES_10, 11_000)
    assert.deepStrictEqual(clock.venueSpan(at), { early: NOW + 5_000, late: NOW + 5_000 })
  })

  it("a step of the wall clock while a request was in flight: the offset is learned against the wall clock at the answer", () => {
    // Sent at NOW (monotonic 1,000), the wall clock set back ten minutes in flight, answered 200 ms later with the
    // venue's time of the middle of the trip. The next request is signed with the wall clock plus the offset: the
    // offset must be the venue's time less the wall clock as it reads now (the step whole), not as it read at the send.
    const clock = new ServerClock()
    clock.learn(NOW + 100, 1_000, NOW + 200 - MINUTES_10, 1_200)
    assert.strictEqual(clock.offset, MINUTES_10)
  })

  it("no step: estimates a fraction of a millisecond or a slewed second apart are one moment, in whole milliseconds", () => {
    // Answered 0.3 ms after the send (the offset rounded, the monotonic estimate not): the two estimates of a later
    // moment differ by a fraction of a millisecond; so, by a few hundred, do those of a moment minutes later on a wall
    // clock NTP slews. Neither is a step: no span (a span would put `unsureUntil` on an outcome and leave an order in
    // it unknown), and no fraction.
    const clock = new ServerClock()
    clock.learn(NOW + 7, 1_000.1, NOW + 0.3, 1_000.4)
    for (const at of [{ wall: NOW + 5_000, mono: 6_000.37 }, { wall: NOW + 600_000, mono: 600_700.2 }]) {
      const span = clock.venueSpan(at)
      assert.strictEqual(span.early, span.late, JSON.stringify(span))
      assert.isTrue(Number.isInteger(span.early), JSON.stringify(span))
    }
  })
})
