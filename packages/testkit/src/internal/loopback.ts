// What reaches the sandbox on a loopback address is answered only when addressed to loopback by name (the `Host`
// header): a page whose own name an attacker points at 127.0.0.1 (DNS rebinding) is same-origin to the browser, free to
// send the signed headers, and could otherwise drive the sandbox with the public demo keys. Judged by the address the
// connection arrived on, however the bound address is spelt (`127.1`, `::ffff:127.0.0.1`, `0.0.0.0`); what arrives on
// another address (a sandbox bound to be reached from elsewhere) is meant to be reached by other names.
import { Buffer } from "node:buffer"
import { STATUS_CODES } from "node:http"
import type { Duplex } from "node:stream"

const isLoopbackName = (name: string): boolean =>
  name === "localhost" || name.endsWith(".localhost") || name === "::1" || name === "[::1]" ||
  /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name)

/** The name in a `Host` header (`"localhost:8080"` → `"localhost"`, `"[::1]:80"` → `"[::1]"`); "" when malformed. */
const nameOf = (host: string): string =>
  /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::\d+)?$/.exec(host.trim().toLowerCase())?.[1] ?? ""

/** Whether a connection's local address is a loopback one: 127.0.0.0/8, `::1`, or 127.x mapped into IPv6. */
const isLoopbackAddress = (address: string): boolean => /^(?:::ffff:)?127\./i.test(address) || address === "::1"

/**
 * Whether a request with this `Host`, arrived on `localAddress`, is answered: yes when it arrived on another address
 * than loopback; else only with no `Host` (no browser sends none) or a loopback name (`localhost`, `*.localhost`,
 * `127.x.x.x`, `[::1]`).
 */
export const hostAllowed = (localAddress: string | undefined, host: string | undefined): boolean =>
  localAddress === undefined || !isLoopbackAddress(localAddress) || host === undefined ||
  isLoopbackName(nameOf(host))

/** Why a request's `Host` is refused, for the answer's body. */
export const hostRefusal = "host not allowed: the sandbox on loopback answers requests to localhost, 127.x.x.x or [::1]"

/**
 * Answers an HTTP upgrade (a WebSocket handshake) with a status and a text before any upgrade, and closes. A refused
 * client may reset the connection once it has read the status (a WebSocket client aborts its request): Node hands an
 * upgrade's socket over with no error listener, and an unheard error would be thrown in the server's process.
 */
export const refuseUpgrade = (socket: Duplex, status: number, message: string): void => {
  socket.on("error", () => {})
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ""}\r\nConnection: close\r\n` +
      `Content-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(message)}\r\n\r\n${message}`
  )
}
