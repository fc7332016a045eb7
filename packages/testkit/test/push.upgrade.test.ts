/**
 * The push venue's handshakes on a real HTTP server's `upgrade` event (`internal/push/upgrade.ts`): a refused one is
 * answered with its HTTP status, and a client that resets the connection afterwards (as a WebSocket client aborts its
 * request on a 401) is nothing the server's process has to hear about; a client's message larger than
 * `MAX_MESSAGE_BYTES` closes its connection (1009) before the venue reads it; a browser's handshake (with an `Origin`)
 * reaches the venue only from the origin the sandbox's `cors` allows.
 */
import { WebSocket } from "@effect/platform-node-shared/NodeWS"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import type { IncomingMessage } from "node:http"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { PassThrough } from "node:stream"
import * as Upgrade from "../src/internal/push/upgrade.ts"
import type { Venue } from "../src/internal/push/venue.ts"

describe("push upgrades", () => {
  it("a refused handshake is answered with its status; the client's reset afterwards is not thrown", () => {
    const refusing = {
      handshake: () => ({ ok: false as const, status: 401, message: "bad signature" })
    } as unknown as Venue
    const upgrades = Upgrade.make(refusing)
    const socket = new PassThrough()
    const request = { url: "/v2/ws/private", headers: {}, socket: {} } as unknown as IncomingMessage
    upgrades.handle(request, socket, Buffer.alloc(0))
    const answer = String(socket.read())
    assert.match(answer, /^HTTP\/1\.1 401 Unauthorized\r\n/)
    assert.isTrue(answer.endsWith("\r\n\r\nbad signature"))
    // What a reset by the peer looks like on the server's socket; with no listener, `emit` throws it.
    const reset = Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" })
    assert.doesNotThrow(() => socket.emit("error", reset))
    upgrades.close()
  })

  it("a handshake with an Origin is refused 403 unless cors allows it, before the venue sees it", () => {
    const seen: Array<string> = []
    const venue = {
      handshake: (path: string) => {
        seen.push(path)
        return { ok: false as const, status: 401, message: "bad signature" }
      }
    } as unknown as Venue
    const statusOf = (cors: string | undefined, origin: string | undefined): string => {
      const upgrades = Upgrade.make(venue, { cors })
      const socket = new PassThrough()
      const headers = origin === undefined ? {} : { origin }
      const request = { url: "/v2/ws/private", headers, socket: {} } as unknown as IncomingMessage
      upgrades.handle(request, socket, Buffer.alloc(0))
      upgrades.close()
      return String(socket.read()).split("\r\n")[0]!
    }
    assert.strictEqual(statusOf(undefined, "https://attacker.example"), "HTTP/1.1 403 Forbidden")
    assert.strictEqual(statusOf("http://localhost:5173", "https://attacker.example"), "HTTP/1.1 403 Forbidden")
    assert.strictEqual(seen.length, 0)
    // From no browser, the allowed origin, or any origin under "*": the venue judges the handshake.
    assert.strictEqual(statusOf(undefined, undefined), "HTTP/1.1 401 Unauthorized")
    assert.strictEqual(statusOf("http://localhost:5173", "http://localhost:5173"), "HTTP/1.1 401 Unauthorized")
    assert.strictEqual(statusOf("*", "https://attacker.example"), "HTTP/1.1 401 Unauthorized")
    assert.strictEqual(seen.length, 3)
  })

  it.effect("a message up to MAX_MESSAGE_BYTES reaches the venue; a larger one closes the connection with 1009", () =>
    Effect.gen(function*() {
      const received: Array<number> = []
      const accepting = {
        handshake: () => ({ ok: true as const, endpoint: "public" as const, userId: undefined }),
        open: () => ({ receive: (text: string) => received.push(text.length), gone: () => {} })
      } as unknown as Venue
      const upgrades = Upgrade.make(accepting)
      const server = createServer()
      server.on("upgrade", upgrades.handle)
      yield* Effect.acquireRelease(
        Effect.callback<void>((resume) => {
          server.listen(0, "127.0.0.1", () => resume(Effect.void))
        }),
        () =>
          Effect.sync(() => {
            upgrades.close()
            server.close()
          })
      )
      const { port } = server.address() as AddressInfo
      const closed = yield* Effect.callback<{ readonly code: number }>((resume) => {
        const ws = new WebSocket(`ws://127.0.0.1:${port}/v2/ws/public`)
        ws.on("open", () => {
          ws.send("a".repeat(Upgrade.MAX_MESSAGE_BYTES))
          ws.send("b".repeat(Upgrade.MAX_MESSAGE_BYTES + 1))
        })
        ws.on("error", () => {})
        ws.on("close", (code) => resume(Effect.succeed({ code })))
      })
      assert.strictEqual(closed.code, 1009)
      assert.deepStrictEqual(received, [Upgrade.MAX_MESSAGE_BYTES])
    }).pipe(Effect.scoped))
})
