/**
 * Hostile requests (issues #17 and #25), tried as a hostile party would against the sandbox:
 *
 * - 10,000 large unauthenticated requests (full run; 400 by default): the request log holds copies, bounded in bytes;
 * - exact replays of each operation that places or moves (one order or a batch, a transfer): refused (40409) and not
 *   applied, while the client's own retries, signed afresh, pass; a replayed cancel (one order, a batch or all) is a
 *   cancel again, as two clients of one key may send the same cancel in one millisecond;
 * - signatures over the bytes received: different body bytes with one signature, bytes that are not UTF-8, and a GET's
 *   query written otherwise than signed;
 * - failed authentications: 429 for the key and address after a burst, other keys from the address unaffected;
 * - oversized bodies: refused by their `Content-Length` before a byte of them is read, and a chunked body no longer
 *   read past the limit, both answered 413.
 *
 * The client's side (hostile venues) is the Node package's `reliability.hostile.test.ts`.
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { assert, describe, it } from "@effect/vitest"
import { SpotClient, Venue } from "@spotkit/core"
import { Effect, Layer } from "effect"
import { HttpClient, type HttpClientRequest } from "effect/http"
import { TestClock } from "effect/testing"
import { Buffer } from "node:buffer"
import { Agent } from "node:http"
import { Fault, Sandbox, TestExchange } from "../src/index.ts"
import { BTC } from "./support/conformance.ts"
import * as H from "./support/rawRequests.ts"
import { assertConserved, demoExchange, report, sized, testTimeout, withSandbox } from "./support/reliability.ts"

const ORDERS = Venue.endpoints.placeOrder.path
const OPEN_ORDERS = Venue.endpoints.openOrders.path

// Without the server-time sync and the symbol-rules lookup: both are public GETs of their own (unsigned), and these
// tests count and inspect the requests of each call.
const quiet = { syncServerTime: false, checkSymbolRules: false } as const

const limitBuy = {
  symbol: BTC,
  side: "buy",
  orderType: "limit",
  force: "normal",
  price: "29000",
  quantity: "0.01"
} as const

const transferInput = {
  toUserId: "4001000000000002",
  coin: "USDT",
  amount: "5",
  fromAccountType: "SPOT",
  toAccountType: "FUND"
} as const

const portOf = (baseUrl: string) => Number(new URL(baseUrl).port)

/** A request as sent: its path, headers and body bytes. */
interface Sent {
  readonly path: string
  readonly headers: Record<string, string>
  readonly body: Uint8Array
}

const sentOf = (request: HttpClientRequest.HttpClientRequest): Sent => ({
  path: new URL(request.url).pathname,
  headers: { ...request.headers },
  body: request.body._tag === "Uint8Array" ? request.body.body : new Uint8Array()
})

describe("reliability: hostile requests", () => {
  it.live(
    "the request log under large unauthenticated requests holds copies, bounded in bytes",
    () =>
      Effect.gen(function*() {
        const requests = sized(400, 10_000)
        const body = Buffer.alloc(260_000, "x")
        const agent = new Agent({ keepAlive: true, maxSockets: 4 })
        const figures = yield* Effect.gen(function*() {
          const exchange = yield* TestExchange.TestExchange
          const { port } = yield* Sandbox.Sandbox
          const before = H.heapMB()
          const started = performance.now()
          const codes = new Map<string, number>()
          yield* Effect.forEach(
            Array.from({ length: requests }, (_, i) => i),
            () =>
              Effect.map(
                H.sendBytes(port, ORDERS, { "content-type": "application/json" }, body, { agent }),
                (answer) => {
                  codes.set(
                    answer.code ?? String(answer.status),
                    (codes.get(answer.code ?? String(answer.status)) ?? 0) + 1
                  )
                }
              ),
            { concurrency: 4, discard: true }
          )
          const seconds = (performance.now() - started) / 1000
          const after = H.heapMB()
          const records = yield* exchange.requests
          assert.deepStrictEqual([...codes], [["40001", requests]], "every request refused as unauthenticated")
          assert.isAbove(records.length, 0)
          for (const record of records) assert.isAtMost(record.body.length, 4096)
          const added = after - before
          assert.isBelow(added, 64, "MB added to the heap")
          return {
            requests,
            bodyBytes: body.length,
            heapBeforeMB: Math.round(before * 10) / 10,
            heapAfterMB: Math.round(after * 10) / 10,
            heapAddedMB: Math.round(added * 10) / 10,
            recordsKept: records.length,
            keptBodyCharacters: records[0]!.body.length,
            seconds: Math.round(seconds * 10) / 10
          }
        }).pipe(
          Effect.provide(Sandbox.layer().pipe(Layer.provideMerge(TestExchange.layer(demoExchange(0))))),
          Effect.ensuring(Effect.sync(() => agent.destroy()))
        )
        yield* report("hostile-request-log", { goalMB: 64, ...figures })
      }),
    testTimeout(60_000, 300_000)
  )

  it.live(
    "an exact replay of a placement or a transfer is refused (40409) and applies nothing; a replayed cancel cancels",
    () =>
      withSandbox(demoExchange(0), ({ baseUrl, exchange }) =>
        Effect.gen(function*() {
          const [alice, bob] = exchange.accounts
          const http = yield* HttpClient.HttpClient
          let sent: Array<Sent> = []
          const client = yield* SpotClient.make({
            baseUrl,
            credentials: alice!.credentials,
            rateLimit: false,
            ...quiet,
            retry: { baseDelay: "1 millis", maxDelay: "5 millis" }
          }).pipe(Effect.provideService(
            HttpClient.HttpClient,
            HttpClient.tapRequest(http, (request) => Effect.sync(() => void sent.push(sentOf(request))))
          ))
          const operations = [
            ["placeOrder", client.placeOrder({ ...limitBuy, clientOrderId: "replay-1" })],
            [
              "placeOrders",
              client.placeOrders(BTC, [
                { ...limitBuy, clientOrderId: "replay-2" },
                { ...limitBuy, price: "28990", clientOrderId: "replay-3" }
              ])
            ],
            ["internalTransfer", client.internalTransfer({ ...transferInput, toUserId: bob!.userId })]
          ] as const
          // Every order with its status: a replayed cancel would change one.
          const state = Effect.gen(function*() {
            return {
              orders: exchange.engine.orderList().map((order) => `${order.clientOrderId} ${order.status}`),
              alice: yield* exchange.balances(alice!.userId),
              bob: yield* exchange.balances(bob!.userId)
            }
          })
          const figures: Record<string, unknown> = {}
          for (const [name, call] of operations) {
            sent = []
            yield* call
            assert.strictEqual(sent.length, 1, `${name}: one request`)
            const before = yield* state
            const answers = []
            for (let i = 0; i < 3; i++) {
              const replay = yield* H.sendBytes(portOf(baseUrl), sent[0]!.path, sent[0]!.headers, sent[0]!.body)
              answers.push([replay.status, replay.code])
            }
            assert.deepStrictEqual(answers, [[409, "40409"], [409, "40409"], [409, "40409"]], name)
            assert.deepStrictEqual(yield* state, before, `${name}: nothing applied`)
            figures[name] = { replays: answers.length, answered: answers[0], applied: 0 }
          }

          // The cancels (#14), as raw signed requests: each applied once; its replays are cancels again (no venue
          // source shows a refusal of a repeated signature), which change nothing for the orders already cancelled.
          // An order is placed after each cancel: a replayed cancel-all cancels it, as a fresh cancel-all would.
          const aliceKey = TestExchange.demoKeys.alice
          const statusOf = (clientOrderId: string) =>
            exchange.engine.orderByClientId(alice!.userId, clientOrderId)?.status
          const cancels = [
            ["cancelOrder", ["cx-1"], { symbol: BTC, clientOid: "cx-1" }],
            ["cancelOrders", ["cx-2", "cx-3"], { symbol: BTC, clientOids: ["cx-2", "cx-3"] }],
            ["cancelAll", ["cx-4", "cx-5"], { symbol: BTC }]
          ] as const
          for (const [name, placed, body] of cancels) {
            const path = Venue.endpoints[name].path
            for (const clientOrderId of placed) yield* client.placeOrder({ ...limitBuy, clientOrderId })
            const bytes = Buffer.from(JSON.stringify(body))
            const headers = H.signedHeaders(aliceKey, Date.now(), path, bytes)
            const first = yield* H.sendBytes(portOf(baseUrl), path, headers, bytes)
            assert.deepStrictEqual([first.status, first.code], [200, "00000"], `${name}: ${first.body}`)
            assert.deepStrictEqual(
              placed.map(statusOf),
              placed.map(() => "cancelled" as const),
              `${name}: applied once`
            )
            yield* client.placeOrder({ ...limitBuy, clientOrderId: `${name}-after` })
            const before = yield* state
            const answers = []
            for (let i = 0; i < 3; i++) {
              const replay = yield* H.sendBytes(portOf(baseUrl), path, headers, bytes)
              answers.push([replay.status, replay.code])
            }
            assert.deepStrictEqual(answers, [[200, "00000"], [200, "00000"], [200, "00000"]], name)
            const after = yield* state
            if (name === "cancelAll") {
              assert.strictEqual(statusOf(`${name}-after`), "cancelled", `${name}: the order placed since is cancelled`)
            } else {
              assert.deepStrictEqual(after, before, `${name}: nothing changed`)
              assert.strictEqual(statusOf(`${name}-after`), "open", `${name}: the order placed since is open`)
            }
            figures[name] = { replays: answers.length, answered: answers[0] }
          }

          // The client's own retries are signed afresh and pass: a transfer refused 429 once, an order whose answer was
          // lost after it was placed (its retry meets the clientOrderId check, and the order is found).
          const retries: Record<string, unknown> = {}
          for (
            const [name, fault, call] of [
              [
                "internalTransfer after a 429",
                Fault.rateLimited,
                client.internalTransfer({ ...transferInput, toUserId: bob!.userId })
              ],
              [
                "placeOrder after its answer was lost",
                Fault.appliedLost,
                client.placeOrder({ ...limitBuy, clientOrderId: "retry-1" })
              ]
            ] as const
          ) {
            const endpoint = name.startsWith("placeOrder") ? ORDERS : Venue.endpoints.internalTransfer.path
            yield* exchange.injectFault({ fault, path: endpoint, times: 1 })
            sent = []
            const before = yield* state
            yield* call
            const signatures = sent.map((request) => request.headers["access-sign"])
            assert.isAtLeast(signatures.length, 2, `${name}: retried`)
            assert.strictEqual(new Set(signatures).size, signatures.length, `${name}: each attempt signed afresh`)
            const after = yield* state
            if (name.startsWith("placeOrder")) {
              assert.strictEqual(after.orders.length, before.orders.length + 1, `${name}: one order`)
            }
            retries[name] = { attempts: signatures.length, distinctSignatures: new Set(signatures).size }
          }
          yield* assertConserved(exchange)
          yield* report("hostile-replays", { replays: figures, retries })
        }).pipe(Effect.provide(NodeHttpClient.layerUndici))),
    60_000
  )

  it.effect("two equal transfers in one millisecond are both applied: the client never signs twice alike", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(1_700_000_000_000)
      const client = yield* SpotClient.SpotClient
      const exchange = yield* TestExchange.TestExchange
      const bob = exchange.accounts[1]!
      const before = (yield* exchange.ledger(bob.userId, "FUND")).length
      const results = yield* Effect.all([
        client.internalTransfer({ ...transferInput, toUserId: bob.userId }),
        client.internalTransfer({ ...transferInput, toUserId: bob.userId })
      ])
      assert.strictEqual(new Set(results.map((result) => result.id)).size, 2)
      assert.strictEqual((yield* exchange.ledger(bob.userId, "FUND")).length, before + 2)
      const signed = (yield* exchange.requests).filter((record) =>
        record.path === Venue.endpoints.internalTransfer.path
      )
      assert.deepStrictEqual(signed.map((record) => record.code), ["200", "200"])
    }).pipe(Effect.provide(TestExchange.layerSpotClient())))

  it.effect("signatures over the bytes received: one signature passes one body or query only; not UTF-8 refused", () =>
    Effect.gen(function*() {
      const T0 = 1_700_000_000_000
      yield* TestClock.setTime(T0)
      const { port } = yield* Sandbox.Sandbox
      const alice = TestExchange.demoKeys.alice
      const bodyWith = (bytes: ReadonlyArray<number>) =>
        Buffer.concat([Buffer.from(`{"symbol":"${BTC}","note":"`), Buffer.from(bytes), Buffer.from(`"}`)])
      const ff = bodyWith([0xff])
      const fe = bodyWith([0xfe])
      const replacement = bodyWith([0xef, 0xbf, 0xbd])
      const euro = bodyWith([0xe2, 0x82, 0xac])
      const send = (signedOver: Buffer, sent: Buffer) =>
        Effect.map(
          H.sendBytes(port, OPEN_ORDERS, H.signedHeaders(alice, T0, OPEN_ORDERS, signedOver), sent),
          (answer) => [answer.status, answer.code] as const
        )
      const cases = [
        ["\\xff signed, \\xff sent: the signature holds; not UTF-8", ff, ff, [400, "40017"]],
        ["\\xff signed, \\xfe sent", ff, fe, [400, "40009"]],
        ["\\xff signed, \\xef\\xbf\\xbd sent", ff, replacement, [400, "40009"]],
        ["\\xef\\xbf\\xbd signed and sent", replacement, replacement, [200, "00000"]],
        ["\\xef\\xbf\\xbd signed, \\xff sent", replacement, ff, [400, "40009"]],
        ["\\xef\\xbf\\xbd signed, \\xfe sent", replacement, fe, [400, "40009"]],
        ["€ (UTF-8) signed and sent", euro, euro, [200, "00000"]]
      ] as const
      const answers: Array<readonly [string, number, string | undefined]> = []
      for (const [name, signedOver, sent] of cases) answers.push([name, ...(yield* send(signedOver, sent))])
      assert.deepStrictEqual(answers, cases.map(([name, , , expected]) => [name, ...expected] as const))

      // A GET is signed over its path and query as sent, before any decoding: a query that decodes the same but is
      // written otherwise is another request. (Node's parser takes only ASCII in a request's target, so its text is
      // its bytes.) The transfer status answers in the transfer envelope, code "200".
      const STATUS = Venue.endpoints.transferStatus.path
      const none = new Uint8Array()
      const get = (signedQuery: string, sentQuery: string) =>
        Effect.map(
          H.sendBytes(port, STATUS + sentQuery, H.signedHeaders(alice, T0, STATUS + signedQuery, none, "GET"), none, {
            method: "GET"
          }),
          (answer) => [answer.status, answer.code] as const
        )
      const getCases = [
        ["GET ?coin=USDT signed and sent", "?coin=USDT", "?coin=USDT", [200, "200"]],
        ["GET ?coin=USDT signed, ?coin=%55SDT sent (decodes the same)", "?coin=USDT", "?coin=%55SDT", [400, "40009"]],
        ["GET ?coin=%55SDT signed and sent", "?coin=%55SDT", "?coin=%55SDT", [200, "200"]],
        ["GET ?coin=%C3%A9 signed and sent", "?coin=%C3%A9", "?coin=%C3%A9", [200, "200"]],
        ["GET ?coin=é signed as text, ?coin=%C3%A9 sent", "?coin=\u00e9", "?coin=%C3%A9", [400, "40009"]],
        ["GET ?coin=USDT signed, ?coin=USDT&coin=USDT sent", "?coin=USDT", "?coin=USDT&coin=USDT", [400, "40009"]]
      ] as const
      const getAnswers: Array<readonly [string, number, string | undefined]> = []
      for (const [name, signedQuery, sentQuery] of getCases) {
        getAnswers.push([name, ...(yield* get(signedQuery, sentQuery))])
      }
      assert.deepStrictEqual(getAnswers, getCases.map(([name, , , expected]) => [name, ...expected] as const))
      yield* report("hostile-byte-signatures", { cases: [...answers, ...getAnswers] })
    }).pipe(Effect.provide(Sandbox.layer().pipe(Layer.provideMerge(TestExchange.layer(demoExchange(0)))))))

  it.effect(
    "failed authentications of a key from an address: 429 after a burst, until they age out; other keys unaffected",
    () =>
      Effect.gen(function*() {
        const T0 = 1_700_000_000_000
        yield* TestClock.setTime(T0)
        const { port } = yield* Sandbox.Sandbox
        const exchange = yield* TestExchange.TestExchange
        const alice = TestExchange.demoKeys.alice
        const bob = TestExchange.demoKeys.bob
        const body = Buffer.from(JSON.stringify({ symbol: BTC }))
        type Key = { readonly apiKey: string; readonly secretKey: string; readonly passphrase: string }
        const send = (key: Key, at: number, headers: Record<string, string> = {}) =>
          Effect.map(
            H.sendBytes(port, OPEN_ORDERS, { ...H.signedHeaders(key, at, OPEN_ORDERS, body), ...headers }, body),
            (answer) => `${answer.status} ${answer.code}`
          )
        const wrong = { ...alice, passphrase: "guess" }
        const codes: Array<string> = []
        // Requests without a key are no guess: they do not count.
        for (let i = 0; i < 25; i++) codes.push(yield* send(alice, T0, { "access-key": "" }))
        for (let i = 0; i < 19; i++) codes.push(yield* send(wrong, T0))
        // A key the exchange does not know counts among the unknown keys of the address, not against alice's.
        codes.push(yield* send({ ...alice, apiKey: "guess" }, T0), yield* send({ ...alice, secretKey: "guess" }, T0))
        // Alice's key has spent its budget (20 a minute) from this address: refused before any check, right or not.
        codes.push(yield* send(wrong, T0), yield* send(alice, T0))
        // Another key from the same address is not affected (a misconfigured client does not lock out a good one),
        // nor are the unknown keys, which failed once.
        codes.push(yield* send(bob, T0), yield* send({ ...alice, apiKey: "guess-again" }, T0))
        // Nor is alice's key from another address.
        const elsewhere = exchange.handleAt({
          method: "POST",
          path: OPEN_ORDERS,
          header: (name) => H.signedHeaders(alice, T0, OPEN_ORDERS, body)[name],
          body: body.toString(),
          clientAddress: "10.0.0.2"
        }, T0)
        assert.strictEqual(elsewhere._tag === "Respond" ? elsewhere.status : 0, 200)
        yield* TestClock.adjust("60 seconds")
        const later = T0 + 60_000
        codes.push(yield* send(alice, later))
        assert.deepStrictEqual(codes, [
          ...Array(25).fill("400 40001"),
          ...Array(19).fill("400 40012"),
          "400 40006",
          "400 40009",
          "429 429",
          "429 429",
          "200 00000",
          "400 40006",
          "200 00000"
        ])
        yield* report("hostile-auth-failures", {
          budget: "20 failed authentications a minute per API key and address (unknown keys: one budget per address)",
          codes
        })
      }).pipe(
        Effect.provide(Sandbox.layer().pipe(Layer.provideMerge(TestExchange.layer(TestExchange.demo({ bills: 0 })))))
      )
  )

  it.live("a body over the limit by its Content-Length is answered 413 before any byte of it is sent", () =>
    Effect.gen(function*() {
      const { port } = yield* Sandbox.Sandbox
      const exchange = yield* TestExchange.TestExchange
      const answer = yield* H.sendOversized(port, ORDERS, headersOf(ORDERS), { declare: GiB, cap: 0 })
      assert.deepStrictEqual([answer.status, answer.code], [413, "40017"], answer.text)
      assert.strictEqual(answer.bodyBytesSent, 0)
      assert.isTrue(answer.closedByServer, "the connection closes: the body is never read")
      const record = (yield* exchange.requests).at(-1)
      assert.deepStrictEqual([record?.path, record?.status, record?.code], [ORDERS, 413, "40017"])
      yield* report("hostile-declared-body", {
        declaredBytes: GiB,
        bodyBytesSent: answer.bodyBytesSent,
        answeredMillis: answer.millis,
        status: answer.status,
        code: answer.code
      })
    }).pipe(Effect.provide(sandboxOf(demoExchange(0)))))

  it.live("a chunked body is read no further than the limit: 413, the connection closed, the sender stopped", () =>
    Effect.gen(function*() {
      const { port } = yield* Sandbox.Sandbox
      const exchange = yield* TestExchange.TestExchange
      const before = H.processReadBytes()
      // Up to 64 MiB, 256 times the limit: beyond what the sandbox may read and what loopback's socket buffers hold.
      const answer = yield* H.sendOversized(port, ORDERS, headersOf(ORDERS), { cap: 64 * MiB })
      const after = H.processReadBytes()
      const read = before === undefined || after === undefined ? undefined : after - before
      assert.deepStrictEqual([answer.status, answer.code], [413, "40017"], answer.text)
      assert.isTrue(answer.closedByServer, "the connection closes")
      // The sender could write what the sandbox read (at most the limit and one socket read) and what the sockets'
      // buffers took in between; not the 64 MiB it had.
      assert.isBelow(answer.bodyBytesSent, 16 * MiB)
      if (read !== undefined) assert.isBelow(read, 16 * MiB)
      yield* report("hostile-chunked-body", {
        limitBytes: exchange.maxBodyBytes,
        bodyBytesSentBeforeTheAnswer: answer.bodyBytesSent,
        processReadBytes: read,
        answeredMillis: answer.millis,
        status: answer.status,
        code: answer.code
      })
    }).pipe(Effect.provide(sandboxOf(demoExchange(0)))))
})

const MiB = 1024 * 1024
const GiB = 1024 * MiB

const sandboxOf = (options: TestExchange.Options) =>
  Sandbox.layer().pipe(Layer.provideMerge(TestExchange.layer(options)))

// Alice's headers for a POST (the body is refused before its signature would be checked).
const headersOf = (path: string): Record<string, string> =>
  H.signedHeaders(TestExchange.demoKeys.alice, Date.now(), path, new Uint8Array())
