/**
 * What lies between the socket and a decoded answer, attacked as a broken or hostile venue (or a network in between)
 * would, over every Node transport (`NodeSpotClient`'s undici, effect-undici and node:http), against a raw TCP server
 * that writes each answer byte by byte:
 *
 * - an answer that never completes — a body trickling a byte at a time (which an idle timeout never ends), headers
 *   that never end, informational answers without end, nothing after the headers — ends at the client's `timeout`
 *   (the whole exchange, not the idle time) with a retryable `TransportError`;
 * - an order whose answer is unreadable — a reset mid-body, a `Content-Length` longer or shorter than the body, bytes
 *   that are not HTTP, a gzip bomb (never inflated: no transport asks for or decodes a compressed answer), an empty
 *   204, a 101 or a 304 that no request of the client asked for — is never reported as "not applied": the order is
 *   looked up, and here, where the lookup fails too, the call fails with an `OutcomeUnknownError`.
 */
import { assert, describe, it } from "@effect/vitest"
import { SpotClient, SpotError, Venue } from "@spotkit/core"
import { Cause, Effect, Exit, Redacted } from "effect"
import { Buffer } from "node:buffer"
import { type AddressInfo, createServer, type Socket } from "node:net"
import { gzipSync } from "node:zlib"
import { NodeSpotClient } from "../src/index.ts"

const TRANSPORTS = ["undici", "effect-undici", "node:http"] as const

const credentials = {
  apiKey: Redacted.make("raw-venue-api-key-1a2b"),
  secretKey: Redacted.make("raw-venue-secret-3c4d"),
  passphrase: Redacted.make("raw-venue-passphrase-5e6f")
}

/** What the server does with one request: its request line (`POST /api/v2/trade/orders`) and its socket. */
type Answer = (requestLine: string, socket: Socket) => void

/** A raw TCP server on loopback for the scope: it reads each request whole, then leaves the socket to `answer`. */
const rawVenue = (answer: Answer) =>
  Effect.acquireRelease(
    Effect.callback<{ readonly baseUrl: string; readonly close: () => void }>((resume) => {
      const sockets = new Set<Socket>()
      const server = createServer((socket) => {
        sockets.add(socket)
        socket.on("close", () => sockets.delete(socket))
        socket.on("error", () => undefined)
        let received = Buffer.alloc(0)
        socket.on("data", (chunk: Buffer) => {
          received = Buffer.concat([received, chunk])
          const end = received.indexOf("\r\n\r\n")
          if (end === -1) return
          const head = received.subarray(0, end).toString("latin1")
          const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0)
          if (received.length < end + 4 + length) return
          received = received.subarray(end + 4 + length)
          answer(head.split("\r\n", 1)[0]!, socket)
        })
      })
      server.listen(0, "127.0.0.1", () => {
        const { port } = server.address() as AddressInfo
        resume(Effect.succeed({
          baseUrl: `http://127.0.0.1:${port}`,
          close: () => {
            for (const socket of sockets) socket.destroy()
            server.close()
          }
        }))
      })
    }),
    ({ close }) => Effect.sync(close)
  ).pipe(Effect.map(({ baseUrl }) => baseUrl))

/** Writes `text` every `millis` until the client goes away. */
const forever = (socket: Socket, text: string, millis: number) => {
  const timer = setInterval(() => {
    if (socket.destroyed) clearInterval(timer)
    else socket.write(text)
  }, millis)
}

const PLACED = JSON.stringify({
  code: "00000",
  msg: "success",
  requestTime: 1_763_800_000_000,
  data: { orderId: "602876318261969338", clientOrderId: "raw-1" }
})

const head = (status: string, headers: Record<string, string | number>) =>
  `HTTP/1.1 ${status}\r\n${Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join("")}\r\n`

const TIMEOUT_MILLIS = 400

const layer = (baseUrl: string, transport: typeof TRANSPORTS[number]) =>
  NodeSpotClient.layer({
    baseUrl,
    credentials,
    transport,
    timeout: `${TIMEOUT_MILLIS} millis`,
    rateLimit: false,
    retry: false,
    syncServerTime: false,
    checkSymbolRules: false
  })

/** The reason a call failed with, asserting that it failed with a SpotError (not a defect). */
const reasonOf = (exit: Exit.Exit<unknown, SpotError.SpotError>, what: string): SpotError.SpotErrorReason => {
  assert.isTrue(Exit.isFailure(exit), `${what}: fails`)
  const error = Cause.squash((exit as Exit.Failure<unknown, SpotError.SpotError>).cause)
  assert.instanceOf(error, SpotError.SpotError, `${what}: a SpotError, not ${String(error)}`)
  return (error as SpotError.SpotError).reason
}

describe("a hostile peer between the socket and the answer", () => {
  const endless: ReadonlyArray<readonly [string, Answer]> = [
    ["a chunked body trickling a byte every 50 ms", (_line, socket) => {
      socket.write(head("200 OK", { "content-type": "application/json", "transfer-encoding": "chunked" }))
      forever(socket, "1\r\n \r\n", 50)
    }],
    ["headers that never end", (_line, socket) => {
      socket.write("HTTP/1.1 200 OK\r\n")
      forever(socket, "x-more: yes\r\n", 50)
    }],
    ["informational answers without end", (_line, socket) => {
      forever(socket, head("103 Early Hints", { link: "</style.css>; rel=preload" }), 50)
    }],
    ["nothing after the headers", (_line, socket) => {
      socket.write(head("200 OK", { "content-type": "application/json", "content-length": 100 }))
    }]
  ]

  for (const transport of TRANSPORTS) {
    it.live(
      `${transport}: an answer that never completes ends at the timeout, whole exchange not idle time`,
      () =>
        Effect.gen(function*() {
          for (const [name, answer] of endless) {
            const what = `${transport}, ${name}`
            const started = performance.now()
            const exit = yield* Effect.scoped(Effect.flatMap(rawVenue(answer), (baseUrl) =>
              Effect.flatMap(Effect.service(SpotClient.SpotClient), (client) =>
                client.fundingBillsPage()).pipe(
                  Effect.provide(layer(baseUrl, transport)),
                  Effect.exit
                )))
            const millis = performance.now() - started
            const reason = reasonOf(exit, what)
            assert.strictEqual(reason._tag, "TransportError", `${what}: ${reason.message}`)
            assert.include(reason.message, "no answer within", what)
            assert.isTrue(reason.isRetryable, what)
            // The peer goes on for ever: only a bound on the whole exchange ends it (generous for a loaded machine).
            assert.isAtLeast(millis, TIMEOUT_MILLIS - 50, what)
            assert.isBelow(millis, TIMEOUT_MILLIS + 4_000, what)
          }
        }),
      60_000
    )
  }

  const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024))
  const unreadable: ReadonlyArray<readonly [string, Answer]> = [
    ["a reset mid-body", (_line, socket) => {
      socket.write(head("200 OK", { "content-length": PLACED.length }) + PLACED.slice(0, 40))
      setTimeout(() => socket.resetAndDestroy(), 20)
    }],
    ["a Content-Length longer than the body, then the connection closed", (_line, socket) => {
      socket.end(head("200 OK", { "content-length": PLACED.length + 100 }) + PLACED)
    }],
    ["a Content-Length shorter than the body", (_line, socket) => {
      socket.write(head("200 OK", { "content-length": 30 }) + PLACED)
    }],
    ["bytes that are not HTTP", (_line, socket) => {
      socket.write("SSH-2.0-OpenSSH_9.6\r\n\r\n")
    }],
    [`a gzip bomb (${bomb.length} bytes, 64 MiB inflated)`, (_line, socket) => {
      socket.write(head("200 OK", { "content-encoding": "gzip", "content-length": bomb.length }))
      socket.write(bomb)
    }],
    ["an empty 204", (_line, socket) => {
      socket.write(head("204 No Content", {}))
    }],
    ["a 101 that no request asked for", (_line, socket) => {
      socket.write(head("101 Switching Protocols", { upgrade: "websocket", connection: "upgrade" }))
    }],
    ["a 304 that no request asked for", (_line, socket) => {
      socket.write(head("304 Not Modified", {}))
    }]
  ]

  for (const transport of TRANSPORTS) {
    it.live(
      `${transport}: an order whose answer is unreadable may have been applied: it is looked up`,
      () =>
        Effect.gen(function*() {
          for (const [name, answer] of unreadable) {
            const what = `${transport}, ${name}`
            let orders = 0
            const exit = yield* Effect.scoped(Effect.flatMap(
              // The order gets the hostile answer; its lookup (and anything else) a reset.
              rawVenue((line, socket) => {
                if (line.startsWith(`POST ${Venue.endpoints.placeOrder.path} `)) {
                  orders++
                  answer(line, socket)
                } else socket.resetAndDestroy()
              }),
              (baseUrl) =>
                Effect.flatMap(Effect.service(SpotClient.SpotClient), (client) =>
                  client.placeOrder({
                    symbol: "BTCUSDT_SPBL",
                    side: "buy",
                    orderType: "limit",
                    price: "100",
                    quantity: "1",
                    clientOrderId: "raw-1"
                  })).pipe(Effect.provide(layer(baseUrl, transport)), Effect.exit)
            ))
            const reason = reasonOf(exit, what)
            assert.strictEqual(reason._tag, "OutcomeUnknownError", `${what}: ${reason.message}`)
            assert.strictEqual((reason as SpotError.OutcomeUnknownError).clientOrderId, "raw-1", what)
            assert.strictEqual(orders, 1, `${what}: sent once`)
          }
        }),
      60_000
    )
  }
})
