// The venue's push protocol over real WebSockets (the `ws` package that @effect/platform-node carries), on an HTTP
// server's port: a handshake the venue refuses is answered with its HTTP status before any upgrade, as a venue
// refuses a bad signature; an accepted one becomes a venue connection. A browser's handshake (one with an `Origin`) is
// refused 403 unless the sandbox's `cors` allows that origin, as its REST answers are kept from other origins: a
// browser checks no origin for a WebSocket, so a page on any site could otherwise sign in with the demo keys.
import { WebSocketServer } from "@effect/platform-node-shared/NodeWS"
import type { Buffer } from "node:buffer"
import type { IncomingMessage } from "node:http"
import type { Duplex } from "node:stream"
import { refuseUpgrade } from "../loopback.ts"
import type { Peer } from "./connection.ts"
import type { Venue } from "./venue.ts"

export interface Upgrades {
  /** For the HTTP server's `upgrade` event. */
  readonly handle: (request: IncomingMessage, socket: Duplex, head: Buffer) => void
  /** Drops every connection and stops taking new ones. */
  readonly close: () => void
}

/**
 * The largest message a client may send (ws's `maxPayload`; a larger one closes the connection with 1009). A client
 * sends only logins, subscriptions and pongs, a few hundred bytes even for a hundred channels; ws's own default is
 * 100 MiB.
 */
export const MAX_MESSAGE_BYTES = 64 * 1024

/** Whether a handshake from `origin` is taken: one from no browser (no `Origin`), or from the origin `cors` allows. */
export const originAllowed = (origin: string | undefined, cors: string | undefined): boolean =>
  origin === undefined || cors === "*" || (cors !== undefined && origin === cors)

export const make = (venue: Venue, options: { readonly cors?: string | undefined } = {}): Upgrades => {
  const server = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES })
  let closed = false
  const handle = (request: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const header = (name: string) => {
      const value = request.headers[name]
      return Array.isArray(value) ? value.join(", ") : value
    }
    const handshake = closed
      ? { ok: false as const, status: 503, message: "closing" }
      : !originAllowed(header("origin"), options.cors)
      ? { ok: false as const, status: 403, message: "origin not allowed" }
      : venue.handshake((request.url ?? "/").split("?")[0]!, header, request.socket.remoteAddress ?? "unknown")
    if (!handshake.ok) {
      refuseUpgrade(socket, handshake.status, handshake.message)
      return
    }
    server.handleUpgrade(request, socket, head, (ws) => {
      const peer: Peer = {
        send: (text) => ws.send(text),
        close: (code, reason) => ws.close(code, reason),
        terminate: () => ws.terminate()
      }
      const connection = venue.open(handshake, request.socket.remoteAddress ?? "unknown", peer)
      ws.on("message", (data) => connection.receive(String(data)))
      ws.on("close", () => connection.gone())
      ws.on("error", () => connection.gone())
    })
  }
  const close = (): void => {
    closed = true
    for (const client of server.clients) client.terminate()
    server.close()
  }
  return { handle, close }
}
