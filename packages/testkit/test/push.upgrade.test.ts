/**
 * The push venue's handshakes on a real HTTP server's `upgrade` event (`internal/push/upgrade.ts`): a refused one is
 * answered with its HTTP status, and a client that resets the connection afterwards (as a WebSocket client aborts its
 * request on a 401) is nothing the server's process has to hear about.
 */
import { assert, describe, it } from "@effect/vitest"
import type { IncomingMessage } from "node:http"
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
    const request = { url: "/v2/ws/private", headers: {} } as unknown as IncomingMessage
    upgrades.handle(request, socket, Buffer.alloc(0))
    const answer = String(socket.read())
    assert.match(answer, /^HTTP\/1\.1 401 Unauthorized\r\n/)
    assert.isTrue(answer.endsWith("\r\n\r\nbad signature"))
    // What a reset by the peer looks like on the server's socket; with no listener, `emit` throws it.
    const reset = Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" })
    assert.doesNotThrow(() => socket.emit("error", reset))
    upgrades.close()
  })
})
