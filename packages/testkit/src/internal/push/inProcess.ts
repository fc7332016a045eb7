// The venue's push protocol as a WebSocket with no socket: a `WebSocketLike` whose frames go to the venue and come
// back as events, each on its own microtask (in order, never re-entrantly, and with no timer, so that a test under
// `TestClock` is deterministic). A refused handshake fails like a refused upgrade: an `error`, then a `close` 1006.
import type * as Socket from "effect/socket/Socket"
import type { Peer } from "./connection.ts"
import type { VenueConnection } from "./connection.ts"
import { Listened } from "./listeners.ts"
import type { Venue } from "./venue.ts"

const CONNECTING = 0
const OPEN = 1
const CLOSING = 2
const CLOSED = 3

export class MemorySocket extends Listened implements Socket.WebSocketLike {
  readyState = CONNECTING
  private connection: VenueConnection | undefined = undefined

  constructor(venue: Venue, url: string, headers: Readonly<Record<string, string>>, address: string) {
    super()
    const lower = new Map(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]))
    queueMicrotask(() => {
      if (this.readyState !== CONNECTING) return
      const handshake = venue.handshake(new URL(url).pathname, (name) => lower.get(name), address)
      if (!handshake.ok) {
        this.readyState = CLOSED
        this.dispatch("error", { type: "error", data: `Unexpected server response: ${handshake.status}` })
        this.dispatch("close", { type: "close", code: 1006, reason: handshake.message })
        return
      }
      this.readyState = OPEN
      const peer: Peer = {
        send: (text) => this.later(() => this.dispatch("message", { type: "message", data: text })),
        close: (code, reason) => this.later(() => this.closed(code, reason)),
        terminate: () => this.later(() => this.closed(1006, ""))
      }
      // Before "open": a listener may send at once. What the venue sends (even a close) comes on later microtasks.
      this.connection = venue.open(handshake, address, peer)
      this.dispatch("open", { type: "open" })
    })
  }

  send(data: string | Uint8Array<ArrayBuffer>): void {
    if (this.readyState !== OPEN) return
    const text = typeof data === "string" ? data : new TextDecoder().decode(data)
    queueMicrotask(() => this.connection?.receive(text))
  }

  close(code = 1000, reason = ""): void {
    if (this.readyState >= CLOSING) return
    const wasOpen = this.readyState === OPEN
    this.readyState = CLOSING
    queueMicrotask(() => {
      if (wasOpen) this.connection?.gone()
      this.closed(code, reason)
    })
  }

  private later(f: () => void): void {
    queueMicrotask(() => {
      if (this.readyState === OPEN) f()
    })
  }

  private closed(code: number, reason: string): void {
    if (this.readyState === CLOSED) return
    this.readyState = CLOSED
    this.connection?.gone()
    this.dispatch("close", { type: "close", code, reason })
  }
}
