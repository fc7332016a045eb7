/**
 * `NodeSpotPush`'s WebSocket against a venue that ends a connection badly: one that sends its close frame (going away)
 * and leaves the TCP connection open is left after a short wait, not `ws`'s 30 s close timeout, so the connection's
 * end is heard and the stream reconnects within seconds.
 */
import { assert, describe, it } from "@effect/vitest"
import { SpotPush } from "@spotkit/core"
import { Context, Effect, Layer, Redacted, Stream } from "effect"
import { Buffer } from "node:buffer"
import { createHash } from "node:crypto"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import type { Duplex } from "node:stream"
import { NodeSpotClient, NodeSpotPush } from "../src/index.ts"
import { frame } from "./support/hostilePush.ts"

const SYMBOL = "BTCUSDT_SPBL"

const client = NodeSpotClient.layer({
  baseUrl: "http://127.0.0.1:9",
  credentials: {
    apiKey: Redacted.make("bg_4f6c0d1e2a3b4c5d6e7f8091a2b3c4d5"),
    secretKey: Redacted.make("9b1f0c2d3e4f5a6b7c8d9e0f1a2b3c4d"),
    passphrase: Redacted.make("a-passphrase")
  },
  rateLimit: false
})

// A venue on a raw HTTP server: on each upgrade it acknowledges the ticker, pushes one, sends close 1001 and keeps
// its side of the TCP connection open whatever the client does.
const halfClosingVenue = Effect.acquireRelease(
  Effect.callback<{ readonly url: string; readonly dials: Array<number>; readonly close: () => void }>((resume) => {
    const dials: Array<number> = []
    const sockets = new Set<Duplex>()
    const http = createServer()
    http.on("upgrade", (request, socket) => {
      sockets.add(socket)
      dials.push(performance.now())
      const accept = createHash("sha1")
        .update(`${request.headers["sec-websocket-key"]}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest("base64")
      socket.write(
        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
          `Sec-WebSocket-Accept: ${accept}\r\n\r\n`
      )
      socket.on("error", () => undefined)
      socket.on("end", () => undefined) // the client's end changes nothing: this side stays open
      const ack = JSON.stringify({ event: "subscribed", channel: `ticker.${SYMBOL}` })
      const ticker = JSON.stringify({ event: "payload", channel: `ticker.${SYMBOL}`, data: [{ symbol: SYMBOL }] })
      setTimeout(() => socket.write(frame(0x81, Buffer.from(ack))), 50)
      setTimeout(() => socket.write(frame(0x81, Buffer.from(ticker))), 100)
      setTimeout(() => socket.write(frame(0x88, Buffer.concat([Buffer.from([0x03, 0xe9]), Buffer.from("bye")]))), 150)
    })
    http.listen(0, "127.0.0.1", () =>
      resume(Effect.succeed({
        url: `ws://127.0.0.1:${(http.address() as AddressInfo).port}`,
        dials,
        close: () => {
          for (const socket of sockets) socket.destroy()
          http.close()
        }
      })))
  }),
  (venue) => Effect.sync(() => venue.close())
)

describe("NodeSpotPush: a venue's bad close", () => {
  it.live(
    "a close frame with the TCP connection left open: the end is heard and the stream redials within seconds",
    () =>
      Effect.gen(function*() {
        const venue = yield* halfClosingVenue
        const context = yield* Layer.build(
          NodeSpotPush.layer({ url: venue.url, backoff: { initial: "50 millis", max: "100 millis" } }).pipe(
            Layer.provide(client)
          )
        )
        const push = Context.get(context, SpotPush.SpotPush)
        const events: Array<SpotPush.Event> = []
        yield* Effect.forkScoped(Stream.runForEach(push.events, (event) => Effect.sync(() => events.push(event))))
        yield* Effect.forkScoped(Stream.runDrain(push.watchTicker(SYMBOL)))
        for (let waited = 0; waited < 10_000 && venue.dials.length < 2; waited += 20) yield* Effect.sleep("20 millis")
        assert.isAtLeast(venue.dials.length, 2, "the client never redialled")
        // ws's own close timeout is 30 s; ours 2 s, plus the backoff.
        assert.isBelow(venue.dials[1]! - venue.dials[0]!, 5_000)
        const lost = events.find((event) => event._tag === "Disconnected")
        assert.isDefined(lost)
      }).pipe(Effect.scoped),
    { timeout: 60_000 }
  )
})
