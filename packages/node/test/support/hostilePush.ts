/**
 * A hostile push venue on a real loopback port: a `ws` server (per-message deflate accepted, when a client offers it)
 * whose side of each connection the test writes with `onConnection`. It keeps every connection's handshake request,
 * the messages the client sent and the close code the client sent. `frame` writes raw WebSocket frame bytes, for
 * frames a well-behaved server never sends. `relentlessPushServer`: a venue that keeps sending after the client closed.
 */
import { WebSocketServer } from "@effect/platform-node/NodeWS"
import type { WebSocket } from "@effect/platform-node/NodeWS"
import { Effect } from "effect"
import { Buffer } from "node:buffer"
import { createHash } from "node:crypto"
import { createServer } from "node:http"
import type { IncomingMessage } from "node:http"
import type { AddressInfo } from "node:net"
import type { Duplex } from "node:stream"

export interface HostileConnection {
  readonly ws: WebSocket
  readonly request: IncomingMessage
  readonly received: Array<string>
  /** The close code the client sent (or 1006 when the connection dropped without one). */
  closeCode: number | undefined
}

export const hostilePushServer = (onConnection: (connection: HostileConnection) => void) =>
  Effect.acquireRelease(
    Effect.callback<
      { readonly url: string; readonly connections: Array<HostileConnection>; readonly close: () => void }
    >(
      (resume) => {
        const server = new WebSocketServer({ host: "127.0.0.1", port: 0, perMessageDeflate: true })
        const connections: Array<HostileConnection> = []
        server.on("connection", (ws, request) => {
          const connection: HostileConnection = { ws, request, received: [], closeCode: undefined }
          connections.push(connection)
          ws.on("message", (data) => connection.received.push(String(data)))
          ws.on("close", (code) => {
            connection.closeCode = code
          })
          ws.on("error", () => {})
          onConnection(connection)
        })
        server.on("listening", () => {
          const address = server.address()
          const port = typeof address === "object" && address !== null ? address.port : 0
          resume(Effect.succeed({
            url: `ws://127.0.0.1:${port}`,
            connections,
            close: () => {
              for (const client of server.clients) client.terminate()
              server.close()
            }
          }))
        })
      }
    ),
    (server) => Effect.sync(() => server.close())
  )

/** One unmasked server frame: `first` is its first byte (FIN, RSV1-3, opcode), then the length and the payload. */
export const frame = (first: number, payload: Buffer): Buffer => {
  const length = payload.length
  const header = length < 126
    ? Buffer.from([first, length])
    : length < 65536
    ? Buffer.from([first, 126, length >> 8, length & 0xff])
    : Buffer.concat([Buffer.from([first, 127]), bigEndian64(length)])
  return Buffer.concat([header, payload])
}

const bigEndian64 = (value: number): Buffer => {
  const bytes = Buffer.alloc(8)
  bytes.writeBigUInt64BE(BigInt(value))
  return bytes
}

/** Acknowledges every subscription of the connection, and calls `then` after each acknowledgement. */
export const acknowledging =
  (then: (connection: HostileConnection, channel: string) => void = () => {}) =>
  (connection: HostileConnection): void => {
    connection.ws.on("message", (data) => {
      const message = JSON.parse(String(data)) as { readonly event?: string; readonly channel?: string }
      if (message.event !== "subscribe" || message.channel === undefined) return
      connection.ws.send(JSON.stringify({ event: "subscribed", channel: message.channel }))
      then(connection, message.channel)
    })
  }

/** A connection of `relentlessPushServer`: the close code of the client's close frame, and when the TCP closed. */
export interface RelentlessConnection {
  /** The code of the client's close frame, once it arrived. */
  closeCode: number | undefined
  /** `performance.now()` when `first` was written. */
  readonly openedAt: number
  /** `performance.now()` when the TCP connection closed (the client destroyed or ended it). */
  closedAt: number | undefined
  /** Frames written after `first`. */
  sent: number
}

/**
 * A venue that never stops sending: a loopback HTTP server that answers the WebSocket handshake itself, writes
 * `first`, then a 64 KiB text frame every 2 ms whatever the client says, and never closes its side. (A `ws` server
 * cannot play it: it answers the client's close frame with its own and ends the connection, which would let the
 * client go at once.) It reads the client's frames only to keep the close code.
 */
export const relentlessPushServer = (first: Buffer) =>
  Effect.acquireRelease(
    Effect.callback<
      { readonly url: string; readonly connections: Array<RelentlessConnection>; readonly close: () => void }
    >(
      (resume) => {
        const connections: Array<RelentlessConnection> = []
        const sockets = new Set<Duplex>()
        const server = createServer()
        const filler = frame(0x81, Buffer.alloc(64 * 1024, "a"))
        server.on("upgrade", (request: IncomingMessage, socket: Duplex) => {
          sockets.add(socket)
          const accept = createHash("sha1")
            .update(`${request.headers["sec-websocket-key"]}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`)
            .digest("base64")
          socket.write(
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
              `Sec-WebSocket-Accept: ${accept}\r\n\r\n`
          )
          socket.write(first)
          const connection: RelentlessConnection = {
            closeCode: undefined,
            openedAt: performance.now(),
            closedAt: undefined,
            sent: 0
          }
          connections.push(connection)
          const timer = setInterval(() => {
            if (socket.writable) {
              socket.write(filler)
              connection.sent += 1
            }
          }, 2)
          let pending = Buffer.alloc(0)
          socket.on("data", (chunk: Buffer) => {
            pending = Buffer.concat([pending, chunk])
            for (let read = clientFrame(pending); read !== undefined; read = clientFrame(pending)) {
              pending = pending.subarray(read.length)
              if (read.opcode === 0x8 && read.payload.length >= 2) connection.closeCode = read.payload.readUInt16BE(0)
            }
          })
          // The client's FIN changes nothing: this side stays open and keeps writing.
          socket.on("end", () => {})
          socket.on("error", () => {})
          socket.on("close", () => {
            clearInterval(timer)
            sockets.delete(socket)
            connection.closedAt = performance.now()
          })
        })
        server.listen(0, "127.0.0.1", () => {
          const { port } = server.address() as AddressInfo
          resume(Effect.succeed({
            url: `ws://127.0.0.1:${port}`,
            connections,
            close: () => {
              for (const socket of sockets) socket.destroy()
              server.close()
            }
          }))
        })
      }
    ),
    (server) => Effect.sync(() => server.close())
  )

// One masked client frame at the start of `bytes`: its opcode, its unmasked payload and its length in bytes, or
// undefined when it has not all arrived.
const clientFrame = (
  bytes: Buffer
): { readonly opcode: number; readonly payload: Buffer; readonly length: number } | undefined => {
  if (bytes.length < 2) return undefined
  const short = bytes[1]! & 0x7f
  const extra = short === 126 ? 2 : short === 127 ? 8 : 0
  const head = 2 + extra + 4
  if (bytes.length < head) return undefined
  const size = short === 126 ? bytes.readUInt16BE(2) : short === 127 ? Number(bytes.readBigUInt64BE(2)) : short
  if (bytes.length < head + size) return undefined
  const mask = bytes.subarray(head - 4, head)
  const payload = Buffer.from(bytes.subarray(head, head + size).map((byte, i) => byte ^ mask[i % 4]!))
  return { opcode: bytes[0]! & 0x0f, payload, length: head + size }
}
