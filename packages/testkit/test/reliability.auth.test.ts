/**
 * Authentication over the wire (issue #6): signed requests sent by raw HTTP to the sandbox on loopback, each altered
 * in one way, must be refused with the venue's code (docs/venue/signing.md#error-codes) and apply nothing. The sandbox runs on the test's
 * `TestClock`, so a request can be replayed outside the 30 s window without waiting. The signature and passphrase
 * checks are constant-time: the comparison reads every character of the expected value whatever the input.
 */
import { assert, describe, it } from "@effect/vitest"
import { Venue } from "@spotkit/core"
import { Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import { Sandbox, TestExchange } from "../src/index.ts"
import { constantTimeEqual } from "../src/internal/protocol/auth.ts"
import { restingOrder, sendHttp, sign } from "./support/fuzz.ts"
import type { WireAnswer } from "./support/fuzz.ts"
import { assertConserved, demoExchange } from "./support/reliability.ts"

const T0 = 1_700_000_000_000
const ORDERS = Venue.endpoints.placeOrder.path
const OPEN_ORDERS = Venue.endpoints.openOrders.path
const alice = TestExchange.demoKeys.alice

type Headers = Record<string, string>

/** The headers of a request signed by alice at `timestamp`. */
const signedHeaders = (timestamp: number, path: string, body: string): Headers => ({
  "access-key": alice.apiKey,
  "access-sign": sign(String(timestamp), "POST", path, body),
  "access-timestamp": String(timestamp),
  "access-passphrase": alice.passphrase,
  "content-type": "application/json",
  locale: "en-US"
})

const orderBody = (clientOrderId: string) => JSON.stringify(restingOrder(clientOrderId))

const without = (headers: Headers, name: string): Headers => {
  const { [name]: _, ...rest } = headers
  return rest
}

const flip = (text: string, at: number) => {
  const i = at < 0 ? text.length + at : at
  return text.slice(0, i) + (text[i] === "A" ? "B" : "A") + text.slice(i + 1)
}

interface Case {
  readonly name: string
  readonly code: string
  /** The request's headers, from those signed at `now` over `body`. */
  readonly headers: (signed: Headers, now: number, body: string) => Headers
}

const cases: ReadonlyArray<Case> = [
  { name: "no ACCESS-KEY", code: "40001", headers: (h) => without(h, "access-key") },
  { name: "no ACCESS-SIGN", code: "40002", headers: (h) => without(h, "access-sign") },
  { name: "empty ACCESS-SIGN", code: "40002", headers: (h) => ({ ...h, "access-sign": "" }) },
  { name: "no ACCESS-TIMESTAMP", code: "40003", headers: (h) => without(h, "access-timestamp") },
  { name: "no ACCESS-PASSPHRASE", code: "40011", headers: (h) => without(h, "access-passphrase") },
  { name: "no Content-Type", code: "40007", headers: (h) => without(h, "content-type") },
  { name: "Content-Type text/plain", code: "40007", headers: (h) => ({ ...h, "content-type": "text/plain" }) },
  ...["abc", "1.7e12", "-1", "12345678901234567", "+1700000000000"].map((timestamp): Case => ({
    name: `malformed timestamp ${JSON.stringify(timestamp)}`,
    code: "40005",
    headers: (h) => ({ ...h, "access-timestamp": timestamp })
  })),
  { name: "unknown key", code: "40006", headers: (h) => ({ ...h, "access-key": "no-such-key" }) },
  { name: "wrong passphrase", code: "40012", headers: (h) => ({ ...h, "access-passphrase": "wrong-pass" }) },
  {
    name: "passphrase missing its last character",
    code: "40012",
    headers: (h) => ({ ...h, "access-passphrase": alice.passphrase.slice(0, -1) })
  },
  {
    name: "passphrase with one character more",
    code: "40012",
    headers: (h) => ({ ...h, "access-passphrase": `${alice.passphrase}x` })
  },
  ...[-30_001, 30_001, -3_600_000, 3_600_000].map((skew): Case => ({
    name: `timestamp ${skew > 0 ? "+" : ""}${skew} ms from server time, correctly signed`,
    code: "40008",
    headers: (_, now, body) => signedHeaders(now + skew, ORDERS, body)
  })),
  {
    name: "signature's first character changed",
    code: "40009",
    headers: (h) => ({ ...h, "access-sign": flip(h["access-sign"]!, 0) })
  },
  {
    name: "signature's last character changed",
    code: "40009",
    headers: (h) => ({ ...h, "access-sign": flip(h["access-sign"]!, -2) })
  },
  {
    name: "signature cut by one",
    code: "40009",
    headers: (h) => ({ ...h, "access-sign": h["access-sign"]!.slice(0, -1) })
  },
  {
    name: "signature with a character more",
    code: "40009",
    headers: (h) => ({ ...h, "access-sign": `${h["access-sign"]}A` })
  },
  {
    name: "signature of another body",
    code: "40009",
    headers: (h, now) => ({ ...h, "access-sign": sign(String(now), "POST", ORDERS, orderBody("other")) })
  },
  {
    name: "signature of the method in lower case",
    code: "40009",
    headers: (h, now, body) => ({ ...h, "access-sign": sign(String(now), "post", ORDERS, body) })
  },
  {
    name: "signature with another secret",
    code: "40009",
    headers: (h) => ({ ...h, "access-sign": Buffer.from("x".repeat(32)).toString("base64") })
  }
]

/** A sandbox on the test's clock, set to T0, and a way to send raw requests to it. */
const withWire = <A, E>(
  body: (wire: {
    readonly exchange: TestExchange.Service
    readonly send: (path: string, headers: Headers, text: string) => Effect.Effect<WireAnswer, Error>
  }) => Effect.Effect<A, E>
) =>
  Effect.gen(function*() {
    yield* TestClock.setTime(T0)
    return yield* Effect.gen(function*() {
      const exchange = yield* TestExchange.TestExchange
      const { port } = yield* Sandbox.Sandbox
      return yield* body({
        exchange,
        send: (path, headers, text) => sendHttp(undefined, port, { method: "POST", path, headers, body: text })
      })
    }).pipe(Effect.provide(Sandbox.layer().pipe(Layer.provideMerge(TestExchange.layer(demoExchange(0))))))
  })

const codeOf = (answer: WireAnswer): string => (JSON.parse(answer.body) as { readonly code: string }).code

describe("reliability: authentication over the wire", () => {
  it.effect("every altered request is refused with its code and applies nothing", () =>
    withWire(({ exchange, send }) =>
      Effect.gen(function*() {
        const before = exchange.engine.orderList().length
        const results: Array<readonly [string, number, string]> = []
        for (const [i, c] of cases.entries()) {
          const body = orderBody(`auth-${i}`)
          const answer = yield* send(ORDERS, c.headers(signedHeaders(T0, ORDERS, body), T0, body), body)
          results.push([c.name, answer.status, codeOf(answer)])
        }
        assert.deepStrictEqual(results, cases.map((c) => [c.name, 400, c.code] as const))
        assert.strictEqual(exchange.engine.orderList().length, before, "no refused request placed an order")
        yield* assertConserved(exchange)
      })
    ))

  it.effect("the window is 30 s either way: ±30,000 ms is accepted", () =>
    withWire(({ exchange, send }) =>
      Effect.gen(function*() {
        for (const skew of [-30_000, 30_000]) {
          const body = orderBody(`edge${skew}`)
          const answer = yield* send(ORDERS, signedHeaders(T0 + skew, ORDERS, body), body)
          assert.deepStrictEqual([answer.status, codeOf(answer)], [200, "00000"], `skew ${skew}`)
        }
        assert.strictEqual(exchange.engine.orderList(exchange.accounts[0]!.userId).length, 2)
      })
    ))

  it.effect("a replayed request: within the window it is refused as a replay (40409), outside it as late (40008)", () =>
    withWire(({ exchange, send }) =>
      Effect.gen(function*() {
        const aliceId = exchange.accounts[0]!.userId
        const body = orderBody("replayed")
        const headers = signedHeaders(T0, ORDERS, body)
        const read = JSON.stringify({ symbol: "BTCUSDT_SPBL" })
        const readHeaders = signedHeaders(T0, OPEN_ORDERS, read)
        const first = yield* send(ORDERS, headers, body)
        assert.deepStrictEqual([first.status, codeOf(first)], [200, "00000"])
        // The same bytes 10 s later: refused as an exact replay, before the clientOrderId check would keep the order
        // single (issue #17).
        yield* TestClock.adjust("10 seconds")
        const again = yield* send(ORDERS, headers, body)
        assert.deepStrictEqual([again.status, codeOf(again)], [409, "40409"])
        assert.strictEqual(codeOf(yield* send(OPEN_ORDERS, readHeaders, read)), "00000")
        // 30,001 ms after signing: refused before the signature is even checked.
        yield* TestClock.adjust("20001 millis")
        for (const [path, h, text] of [[ORDERS, headers, body], [OPEN_ORDERS, readHeaders, read]] as const) {
          const late = yield* send(path, h, text)
          assert.deepStrictEqual([late.status, codeOf(late)], [400, "40008"], path)
        }
        assert.deepStrictEqual(exchange.engine.orderList(aliceId).map((o) => o.clientOrderId), ["replayed"])
      })
    ))
})

describe("reliability: constant-time comparison", () => {
  /** A string that counts the characters read from it. */
  const counting = (text: string) => {
    const reads = { count: 0 }
    const value = Object.assign(new String(text), {
      charCodeAt(index: number) {
        reads.count++
        return String.prototype.charCodeAt.call(text, index)
      }
    })
    return { value: value as unknown as string, reads }
  }

  it("reads every character of the expected value, wherever the input differs", () => {
    const expected = sign(String(T0), "POST", ORDERS, orderBody("ct"))
    const inputs = {
      equal: expected,
      firstDiffers: flip(expected, 0),
      lastDiffers: flip(expected, -2),
      allDiffer: "A".repeat(expected.length),
      shorter: expected.slice(0, 10),
      longer: `${expected}AAAA`,
      empty: ""
    }
    const observed = Object.entries(inputs).map(([name, input]) => {
      const given = counting(input)
      const wanted = counting(expected)
      const equal = constantTimeEqual(given.value, wanted.value)
      return [name, equal, given.reads.count, wanted.reads.count] as const
    })
    assert.deepStrictEqual(
      observed,
      Object.keys(inputs).map((name) => [name, name === "equal", expected.length, expected.length] as const)
    )
  })
})
