/**
 * A hostile push venue on a real loopback port: a `ws` server (per-message deflate accepted, when a client offers it)
 * whose side of each connection the test writes with `onConnection`. It keeps every connection's handshake request,
 * the messages the client sent and the close code the client sent. `frame` writes raw WebSocket frame bytes, for
 * frames a well-behaved server never sends.
 */
import { WebSocketServer } from "@effect/platform-node/NodeWS"
import type { WebSocket } from "@effect/platform-node/NodeWS"
import { Effect } from "effect"
import { Buffer } from "node:buffer"
import type { IncomingMessage } from "node:http"

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
