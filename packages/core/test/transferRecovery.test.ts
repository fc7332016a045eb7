/**
 * Transfers whose answer was lost (src/internal/transferRecovery.ts), and the transfer list (`transferStatus`): the
 * transfer is never sent again; it is looked up by time, coin, receiver and amount, leaving out transfers the client
 * already knows, and answered when exactly one matches; otherwise `OutcomeUnknownError` carries the candidates.
 */
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer, Stream } from "effect"
import { HttpClient } from "effect/http"
import { TestClock } from "effect/testing"
import { SpotClient } from "../src/index.ts"
import * as TransferRecovery from "../src/internal/client/transferRecovery.ts"
import type * as Surface from "./support/fakeSurface.ts"
import {
  clientOptions,
  FakeVenue,
  NOW,
  reasonOf,
  requestsTo,
  sampleTransfer,
  TRANSFER,
  TRANSFER_STATUS,
  withClient
} from "./support/FakeVenue.ts"

/** A transfer of the venue's list that this client did not make (another program with the same key). */
const elsewhere = (venue: FakeVenue, overrides: Partial<Surface.FakeTransfer> = {}) =>
  venue.transfers.push({
    withdrawId: String(8_000_000_000_000_000_000n + BigInt(venue.transfers.length)),
    fromUserId: "10012",
    toUserId: sampleTransfer.toUserId,
    coin: sampleTransfer.coin,
    amount: sampleTransfer.amount,
    status: "SUCCESS",
    createTime: NOW,
    ...overrides
  })

// Signing awaits WebCrypto, which resolves on real event-loop turns, not on the TestClock.
const realTick = Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 1)))

/**
 * A client over `venue` whose first transfer is applied by the venue and its answer held by `hold` (every other answer
 * comes at once).
 */
const clientHoldingFirstTransfer = (
  venue: FakeVenue,
  hold: Effect.Effect<void>,
  options: Partial<SpotClient.Options> = {}
) => {
  let held = 0
  const http = HttpClient.make((request, url) =>
    Effect.flatMap(
      venue.client.execute(request),
      (response) => url.pathname === TRANSFER && held++ === 0 ? Effect.as(hold, response) : Effect.succeed(response)
    )
  )
  return SpotClient.SpotClient.pipe(
    Effect.provide(
      SpotClient.layer({ ...clientOptions, rateLimit: false, retry: { baseDelay: 0 }, ...options }).pipe(
        Layer.provide(Layer.succeed(HttpClient.HttpClient, http))
      )
    )
  )
}

/**
 * A transfer applied, its answer held, while an identical one is lost before the venue sees it: the one match is the
 * first's, so the second ends with its outcome unknown, not with the first's id.
 */
const inFlightContests = (venue: FakeVenue) =>
  Effect.gen(function*() {
    yield* TestClock.setTime(NOW)
    const release = yield* Deferred.make<void>()
    const client = yield* clientHoldingFirstTransfer(venue, Deferred.await(release))
    const first = yield* Effect.forkChild(client.internalTransfer(sampleTransfer))
    for (let i = 0; i < 1000 && venue.transfers.length === 0; i++) yield* realTick
    assert.strictEqual(venue.transfers.length, 1)
    venue.fail({ kind: "dropBefore" }, TRANSFER)
    const second = yield* Effect.result(client.internalTransfer(sampleTransfer))
    yield* Deferred.succeed(release, undefined)
    const firstResult = yield* Fiber.join(first)
    assert.strictEqual(firstResult.id, venue.transfers[0]!.withdrawId)
    assert.strictEqual(venue.transfers.length, 1, "one transfer applied")
    assert.strictEqual(second._tag, "Failure", "the second was never applied")
    if (second._tag === "Failure") reasonOf(second.failure, "OutcomeUnknownError")
  })

describe("a transfer whose answer was lost", () => {
  it.effect("resolves to its id when exactly one transfer matches, without sending it again", () => {
    const venue = new FakeVenue().fail({ kind: "dropAfter" }, TRANSFER)
    // Transfers that do not match: another receiver, another amount, another coin, long before.
    elsewhere(venue, { toUserId: "77" })
    elsewhere(venue, { amount: "1.5" })
    elsewhere(venue, { coin: "BTC" })
    elsewhere(venue, { createTime: NOW - 3_600_000 })
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const result = yield* client.internalTransfer(sampleTransfer)
        const applied = venue.transfers.at(-1)!
        assert.deepStrictEqual(result, { id: applied.withdrawId, timestamp: NOW, status: "SUCCESS" })
        assert.strictEqual(venue.count(TRANSFER), 1)
        const [lookup] = requestsTo(venue, TRANSFER_STATUS)
        assert.strictEqual(lookup!.method, "GET")
        assert.deepInclude(lookup!.query, { coin: "USDT", fromAccountType: "SPOT", toAccountType: "FUND" })
        assert.isAtMost(Number(lookup!.query.startTime), NOW)
        assert.isAtLeast(Number(lookup!.query.endTime), NOW)
      }))
  })

  it.effect("leaves out the transfers this client already made: its own earlier identical transfer", () => {
    const venue = new FakeVenue()
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const first = yield* client.internalTransfer(sampleTransfer)
        yield* TestClock.adjust("2 seconds")
        venue.fail({ kind: "dropAfter" }, TRANSFER)
        const second = yield* client.internalTransfer(sampleTransfer)
        assert.notStrictEqual(second.id, first.id)
        assert.strictEqual(second.id, venue.transfers[1]!.withdrawId)
        // And a third lost one finds none left: the recovered one is known too.
        venue.fail({ kind: "dropBefore" }, TRANSFER)
        const error = yield* Effect.flip(client.internalTransfer(sampleTransfer))
        assert.deepStrictEqual(reasonOf(error, "OutcomeUnknownError").candidates, [])
      }))
  })

  it.effect("two matches: OutcomeUnknownError with both as candidates, nothing sent again", () => {
    const venue = new FakeVenue().fail({ kind: "dropAfter" }, TRANSFER)
    elsewhere(venue, { createTime: NOW - 1 })
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(client.internalTransfer(sampleTransfer))
        const reason = reasonOf(error, "OutcomeUnknownError")
        assert.strictEqual(reason.candidates?.length, 2)
        assert.deepStrictEqual(
          reason.candidates?.map((candidate) => candidate.withdrawId).sort(),
          venue.transfers.map((transfer) => transfer.withdrawId).sort()
        )
        assert.deepInclude<unknown>(reason.candidates![0], {
          toUserId: sampleTransfer.toUserId,
          coin: "USDT",
          amount: "1"
        })
        assert.include(error.message, "2 transfers of the venue's list match it")
        assert.isTrue(reason.mayExist)
        assert.strictEqual(venue.count(TRANSFER), 1)
      }))
  })

  it.effect("no match (the venue never applied it): OutcomeUnknownError with no candidates", () => {
    const venue = new FakeVenue().fail({ kind: "dropBefore" }, TRANSFER)
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(client.internalTransfer(sampleTransfer))
        assert.deepStrictEqual(reasonOf(error, "OutcomeUnknownError").candidates, [])
        assert.strictEqual(venue.count(TRANSFER), 1)
      }))
  })

  it.effect("a lookup that fails: OutcomeUnknownError without candidates, saying why", () => {
    const venue = new FakeVenue().fail({ kind: "dropAfter" }, TRANSFER)
      .fail({ kind: "venue", code: "40014", msg: "Incorrect permissions" }, TRANSFER_STATUS)
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(client.internalTransfer(sampleTransfer))
        const reason = reasonOf(error, "OutcomeUnknownError")
        assert.isUndefined(reason.candidates)
        assert.include(reason.description, "could not be looked up")
        assert.include(reason.description, "Incorrect permissions")
      }))
  })

  it.effect("more transfers in the window than a page: the match on the second page is found", () => {
    const venue = new FakeVenue().fail({ kind: "dropAfter" }, TRANSFER)
    for (let i = 0; i < 250; i++) elsewhere(venue, { toUserId: "77" })
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const result = yield* client.internalTransfer(sampleTransfer)
        assert.strictEqual(result.id, venue.transfers.at(-1)!.withdrawId)
        assert.deepStrictEqual(requestsTo(venue, TRANSFER_STATUS).map((r) => [r.query.page, r.query.pageSize]), [
          ["1", "200"],
          ["2", "200"]
        ])
        assert.strictEqual(venue.count(TRANSFER), 1)
      }))
  })

  it.effect("a short page ends the lookup: one request when the window holds fewer than a page", () => {
    // Our choice (transferRecovery.ts `candidates`): a short page is not asked past as a possible cap, which would
    // cost every recovery a second lookup of weight 100. On a venue capping at 100 with the match past it, the call
    // ends unknown, and nothing is sent again.
    const venue = new FakeVenue({ transfersServed: 100 }).fail({ kind: "dropAfter" }, TRANSFER)
    for (let i = 0; i < 150; i++) elsewhere(venue, { toUserId: "77" })
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(client.internalTransfer(sampleTransfer))
        assert.deepStrictEqual(reasonOf(error, "OutcomeUnknownError").candidates, [])
        assert.strictEqual(venue.count(TRANSFER_STATUS), 1)
        assert.strictEqual(venue.count(TRANSFER), 1)
      }))
  })

  it.effect("a refusal that provably did not apply is not looked up", () => {
    const venue = new FakeVenue().fail({ kind: "venue", code: "43012", msg: "Insufficient balance" }, TRANSFER)
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(client.internalTransfer(sampleTransfer))
        reasonOf(error, "InsufficientBalanceError")
        assert.strictEqual(venue.count(TRANSFER_STATUS), 0)
      }))
  })
})

describe("the window searched for a lost transfer is the call's on the venue's clock", () => {
  const HOUR = 3_600_000
  // The venue's clock an hour ahead of ours: the client's first transfer starts before the server's time is asked,
  // so its start, on the estimate of that moment, lies an hour before the call on the venue's clock.
  it.effect("a transfer of another program half an hour before the call is not taken for this one", () => {
    const venue = new FakeVenue({ skewMillis: HOUR }).fail({ kind: "dropBefore" }, TRANSFER)
    elsewhere(venue, { createTime: NOW + HOUR - 1_800_000 })
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const result = yield* Effect.result(client.internalTransfer(sampleTransfer))
        assert.strictEqual(result._tag, "Failure", "the other program's transfer reported as this call's")
        if (result._tag === "Failure") reasonOf(result.failure, "OutcomeUnknownError")
        assert.strictEqual(venue.transfers.length, 1, "this call's transfer was never applied")
      }))
  })

  // The venue's clock an hour behind ours: the client's first transfer starts before the server's time is asked, a
  // second one after. Both are the client's own calls, compared on its own clock.
  it.effect("an identical transfer in flight since before the time was asked still contests a lost one", () => {
    const venue = new FakeVenue({ skewMillis: -HOUR })
    return inFlightContests(venue)
  })

  it.effect("this call's transfer is still found", () => {
    const venue = new FakeVenue({ skewMillis: HOUR }).fail({ kind: "dropAfter" }, TRANSFER)
    elsewhere(venue, { createTime: NOW + HOUR - 1_800_000 })
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const result = yield* client.internalTransfer(sampleTransfer)
        assert.strictEqual(result.id, venue.transfers.at(-1)!.withdrawId)
      }))
  })
})

describe("a lost transfer is not taken for another of the client's own that is not settled", () => {
  it.effect("an identical transfer still in flight: OutcomeUnknownError, not the other's id", () => {
    const venue = new FakeVenue()
    return inFlightContests(venue)
  })

  it.effect("an identical transfer interrupted after the venue applied it: its transfer is not taken for a later one", () => {
    const venue = new FakeVenue()
    return Effect.gen(function*() {
      yield* TestClock.setTime(NOW)
      // The first transfer is applied, and its answer never comes: the caller gives up on it.
      const client = yield* clientHoldingFirstTransfer(venue, Effect.never, { timeout: "1 hour" })
      const first = yield* Effect.forkChild(client.internalTransfer(sampleTransfer))
      for (let i = 0; i < 1000 && venue.transfers.length === 0; i++) yield* realTick
      assert.strictEqual(venue.transfers.length, 1)
      yield* Fiber.interrupt(first)
      yield* TestClock.adjust("2 seconds")
      // The second is lost before the venue sees it: the one match is the interrupted first's.
      venue.fail({ kind: "dropBefore" }, TRANSFER)
      const second = yield* Effect.result(client.internalTransfer(sampleTransfer))
      assert.strictEqual(venue.transfers.length, 1, "only the first was applied")
      assert.strictEqual(second._tag, "Failure", "the second was never applied")
      if (second._tag === "Failure") reasonOf(second.failure, "OutcomeUnknownError")
    })
  })

  // A call none of whose attempts can have been applied has no record at the venue: interrupted, it is settled, and
  // contests no later identical transfer.
  it.effect.each([
    { when: "before it was sent (waiting on the rate limiter)", refusal: undefined },
    {
      when: "after a 429 (provably not applied), waiting to retry",
      refusal: { kind: "venue", code: "429", msg: "Too Many Requests", status: 429 } as const
    }
  ])("an identical transfer interrupted $when contests nothing: a later lost one is recovered", ({ refusal }) => {
    const venue = new FakeVenue()
    // One transfer a second: the second call waits on the rate limiter (a 429 pauses it a whole window).
    const options: Partial<SpotClient.Options> = { rateLimit: { perEndpoint: { limit: 1, windowMillis: 1_000 } } }
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        if (refusal === undefined) yield* client.internalTransfer({ ...sampleTransfer, amount: "2" })
        else venue.fail(refusal, TRANSFER)
        const waiting = yield* Effect.forkChild(client.internalTransfer(sampleTransfer))
        for (let i = 0; i < 20; i++) yield* realTick
        yield* Fiber.interrupt(waiting)
        assert.strictEqual(venue.count(TRANSFER), 1, "the interrupted transfer was sent at most once")
        assert.strictEqual(venue.transfers.length, refusal === undefined ? 1 : 0, "and never applied")
        yield* TestClock.adjust("12 seconds")
        // An identical transfer applied and its answer lost: the one match is its own.
        venue.fail({ kind: "dropAfter" }, TRANSFER)
        const result = yield* client.internalTransfer(sampleTransfer)
        const applied = venue.transfers.filter((transfer) => transfer.amount === sampleTransfer.amount)
        assert.strictEqual(applied.length, 1)
        assert.strictEqual(result.id, applied[0]!.withdrawId)
      }), options)
  })

  /**
   * A transfer applied whose answer is lost and whose lookup fails (its outcome stays unknown); `meanwhile` passes;
   * then an identical one lost before the venue sees it: the one match is the first's, not the second's.
   */
  const unknownThenLost = (meanwhile: (venue: FakeVenue) => Effect.Effect<void>) => {
    const venue = new FakeVenue().fail({ kind: "dropAfter" }, TRANSFER)
      .fail({ kind: "venue", code: "40014", msg: "Incorrect permissions" }, TRANSFER_STATUS)
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const first = yield* Effect.flip(client.internalTransfer(sampleTransfer))
        reasonOf(first, "OutcomeUnknownError")
        yield* meanwhile(venue)
        venue.fail({ kind: "dropBefore" }, TRANSFER)
        const second = yield* Effect.result(client.internalTransfer(sampleTransfer))
        assert.strictEqual(venue.transfers.length, 1, "only the first was applied")
        assert.strictEqual(second._tag, "Failure", "the first's transfer answered as the second's")
        if (second._tag === "Failure") reasonOf(second.failure, "OutcomeUnknownError")
      }))
  }

  it.effect("an identical transfer whose outcome stayed unknown: its transfer is not taken for a later one", () =>
    unknownThenLost(() => TestClock.adjust("2 seconds")))

  // The margin holds on both sides: a record lies within the margin of its own call's window, and the lost call's
  // window is searched widened by it. A call that ended unknown 1.5 margins before this one started may own a record
  // half a margin into this one's search: its entry contests it.
  it.effect("one that ended unknown more than a margin (and less than two) before the call still contests it", () => {
    const { MARGIN_MILLIS } = TransferRecovery
    return unknownThenLost((venue) => {
      // The venue dated its record of the first within the margin after that call.
      const applied = venue.transfers[0]!
      venue.transfers[0] = { ...applied, createTime: applied.createTime + Math.round(MARGIN_MILLIS * 0.9) }
      return TestClock.adjust(Math.round(MARGIN_MILLIS * 1.5))
    })
  })
})

describe("the unsettled transfers of a client", () => {
  const { MARGIN_MILLIS, Unsettled } = TransferRecovery
  type Transfer = Parameters<TransferRecovery.Unsettled["begin"]>[0]
  const transfer = sampleTransfer as Transfer

  it("a later call's start keeps one that ended unknown while an earlier call that can meet it is in flight", () => {
    const unsettled = new Unsettled()
    const lost = unsettled.begin(transfer, 0)
    unsettled.unknown(lost, 1_000)
    // A starts 5 s later; its records may be as early as 5 s - MARGIN, where the lost one's may be.
    const a = unsettled.begin(transfer, 5_000)
    // Another transfer starts more than twice the margin after the lost one ended, while A is still in flight.
    unsettled.begin({ ...sampleTransfer, amount: "2" } as Transfer, 1_000 + 2 * MARGIN_MILLIS + 1)
    assert.isTrue(unsettled.contests(a, { start: 5_000 - MARGIN_MILLIS, end: 70_000 + MARGIN_MILLIS }))
  })
})

describe("transferStatus", () => {
  it.effect("a signed GET with the query as the venue spells it; user ids from JSON numbers exact", () => {
    const venue = new FakeVenue()
    elsewhere(venue, { toUserId: "18446744073709551615", fromUserId: "9007199254740993" })
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const list = yield* client.transferStatus({
          withdrawId: venue.transfers[0]!.withdrawId,
          coin: "USDT",
          page: 1,
          pageSize: 200
        })
        assert.deepStrictEqual(
          list,
          [{
            fromUserId: "9007199254740993",
            toUserId: "18446744073709551615",
            withdrawId: venue.transfers[0]!.withdrawId,
            coin: "USDT",
            status: "SUCCESS",
            amount: "1",
            createTime: NOW,
            updateTime: NOW
          }] as unknown as typeof list
        )
        const [request] = requestsTo(venue, TRANSFER_STATUS)
        assert.strictEqual(
          request!.path,
          `${TRANSFER_STATUS}?withdrawID=${venue.transfers[0]!.withdrawId}&coin=USDT&page=1&pageSize=200`
        )
        assert.strictEqual(request!.body, "")
      }))
  })

  it.effect("without a query: the first page of every transfer", () => {
    const venue = new FakeVenue()
    elsewhere(venue)
    elsewhere(venue)
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        assert.strictEqual((yield* client.transferStatus()).length, 2)
        assert.strictEqual(requestsTo(venue, TRANSFER_STATUS)[0]!.path, TRANSFER_STATUS)
      }))
  })

  it.effect("refuses a page size above 200 before sending", () => {
    const venue = new FakeVenue()
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(client.transferStatus({ pageSize: 500 }))
        assert.strictEqual(reasonOf(error, "ValidationError").field, "pageSize")
        assert.strictEqual(venue.requests.length, 0)
      }))
  })
})

describe("transfers stream", () => {
  const ids = (records: ReadonlyArray<{ readonly withdrawId: string }>) => records.map((r) => r.withdrawId)
  const pages = (venue: FakeVenue) => requestsTo(venue, TRANSFER_STATUS).map((r) => [r.query.page, r.query.pageSize])

  it.effect("is lazy, pages with the filter in every request, and yields every transfer once", () => {
    const venue = new FakeVenue()
    for (let i = 0; i < 5; i++) elsewhere(venue)
    elsewhere(venue, { coin: "BTC" })
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const stream = client.transfers({ coin: "USDT", startTime: NOW - 1000, pageSize: 2 })
        assert.strictEqual(venue.count(TRANSFER_STATUS), 0)
        const records = yield* Stream.runCollect(stream)
        assert.deepStrictEqual(ids(records), ids(venue.transfers.slice(0, 5)))
        assert.deepStrictEqual(pages(venue), [["1", "2"], ["2", "2"], ["3", "2"]])
        for (const request of requestsTo(venue, TRANSFER_STATUS)) {
          assert.deepInclude(request.query, { coin: "USDT", startTime: String(NOW - 1000) })
        }
      }))
  })

  it.effect("a venue serving fewer than asked: every transfer, the pages after the first asked at the size served", () => {
    const venue = new FakeVenue({ transfersServed: 3 })
    for (let i = 0; i < 8; i++) elsewhere(venue)
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const records = yield* Stream.runCollect(client.transfers())
        assert.deepStrictEqual(ids(records), ids(venue.transfers))
        // 3, 3, then 2: shorter than a page served before, the last.
        assert.deepStrictEqual(pages(venue), [["1", "200"], ["2", "3"], ["3", "3"]])
      }))
  })

  it.effect("a venue ignoring `page`: fails after a few pages without a new transfer, naming the parameter", () => {
    const venue = new FakeVenue({ ignoresTransferPage: true })
    for (let i = 0; i < 4; i++) elsewhere(venue)
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(Stream.runCollect(client.transfers({ pageSize: 2 })))
        assert.strictEqual(error.operation, "SpotClient.transfers")
        assert.include(reasonOf(error, "DecodeError").description, "does the venue honour page?")
        assert.isAtMost(venue.count(TRANSFER_STATUS), 5)
      }))
  })

  it.effect("refuses a page size above 200 before sending", () => {
    const venue = new FakeVenue()
    return withClient(venue, (client) =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(Stream.runCollect(client.transfers({ pageSize: 201 })))
        assert.strictEqual(error.operation, "SpotClient.transfers")
        assert.strictEqual(reasonOf(error, "ValidationError").field, "pageSize")
        assert.strictEqual(venue.requests.length, 0)
      }))
  })
})
