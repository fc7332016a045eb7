// A hostile push venue in process: a `WebSocketLike` whose side of the conversation the test writes. Each connection
// opens on a microtask (no timer: deterministic under `TestClock`), keeps what the client sent, and lets the test send
// any frame (or any `data` at all), close with any code and reason, or answer the client's messages with `onMessage`.
import type * as Socket from "effect/socket/Socket"
import { Listened } from "../../src/internal/push/listeners.ts"

/** One connection as the venue sees it. */
export interface Peer {
  /** The handshake headers, names in lower case. */
  readonly headers: ReadonlyMap<string, string>
  readonly url: string
  /** What the client sent, in order. */
  readonly received: Array<string>
  /** Sends a frame: a text, or anything else a broken transport could hand over as `data`. */
  readonly send: (data: unknown) => void
  readonly close: (code: number, reason: string) => void
  readonly isOpen: () => boolean
}

export interface Script {
  /** What the venue does with a message of the client (a subscription, a pong). */
  readonly onMessage?: ((peer: Peer, text: string) => void) | undefined
}

/** Answers every subscription with its acknowledgement. */
export const acknowledge = (peer: Peer, text: string): void => {
  const message = JSON.parse(text) as { readonly event?: string; readonly channel?: string }
  if (message.event === "subscribe") peer.send(JSON.stringify({ event: "subscribed", channel: message.channel }))
}

class HostileSocket extends Listened implements Socket.WebSocketLike {
  readyState = 0
  readonly peer: Peer
  private readonly script: Script

  constructor(url: string, headers: Readonly<Record<string, string>>, script: Script) {
    super()
    this.script = script
    const received: Array<string> = []
    this.peer = {
      url,
      headers: new Map(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value])),
      received,
      send: (data) => this.later(() => this.dispatch("message", { type: "message", data })),
      close: (code, reason) => this.later(() => this.closed(code, reason)),
      isOpen: () => this.readyState === 1
    }
    queueMicrotask(() => {
      if (this.readyState !== 0) return
      this.readyState = 1
      this.dispatch("open", { type: "open" })
    })
  }

  send(data: string | Uint8Array<ArrayBuffer>): void {
    if (this.readyState !== 1) return
    const text = typeof data === "string" ? data : new TextDecoder().decode(data)
    this.peer.received.push(text)
    queueMicrotask(() => {
      if (this.readyState === 1) this.script.onMessage?.(this.peer, text)
    })
  }

  close(code = 1000, reason = ""): void {
    if (this.readyState >= 2) return
    this.readyState = 2
    queueMicrotask(() => this.closed(code, reason))
  }

  private later(f: () => void): void {
    queueMicrotask(() => {
      if (this.readyState === 1) f()
    })
  }

  private closed(code: number, reason: string): void {
    if (this.readyState === 3) return
    this.readyState = 3
    this.dispatch("close", { type: "close", code, reason })
  }
}

/** A WebSocket constructor that reaches a hostile venue following `script`; `peers` are its connections, in order. */
export const hostileVenue = (script: Script = {}) => {
  const peers: Array<Peer> = []
  const construct: Socket.WebSocketConstructor["Service"] = (url, options) => {
    const headers = options !== undefined && typeof options === "object" && !Array.isArray(options)
      ? options.headers ?? {}
      : {}
    const socket = new HostileSocket(url, headers, script)
    peers.push(socket.peer)
    return socket
  }
  return { construct, peers }
}
