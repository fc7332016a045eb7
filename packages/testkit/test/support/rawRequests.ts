/**
 * Raw requests to the sandbox (issues #17 and #25): signed over exactly the bytes sent, written by `node:http` or byte
 * by byte on a socket, and the heap a run leaves behind.
 */
import { Effect } from "effect"
import { Buffer } from "node:buffer"
import { createHmac } from "node:crypto"
import { readFileSync } from "node:fs"
import { request as httpRequest } from "node:http"
import type { Agent } from "node:http"
import { connect } from "node:net"
import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"

// ---------------------------------------------------------------------------------------------------------------
// Raw signed requests with byte bodies

export interface RawAnswer {
  readonly status: number
  readonly code: string | undefined
  readonly body: string
}

/** The headers of a request signed over `timestamp + method + path` (with its query) and the `body` bytes. */
export const signedHeaders = (
  key: { readonly apiKey: string; readonly secretKey: string; readonly passphrase: string },
  timestamp: number,
  path: string,
  body: Uint8Array,
  method: "GET" | "POST" = "POST"
): Record<string, string> => ({
  "access-key": key.apiKey,
  "access-sign": createHmac("sha256", key.secretKey).update(`${timestamp}${method}${path}`).update(body).digest(
    "base64"
  ),
  "access-timestamp": String(timestamp),
  "access-passphrase": key.passphrase,
  "content-type": "application/json"
})

/**
 * Sends exactly `body` (bytes) to `path` (with its query, as given) with `headers` to the server on `port`, by POST
 * unless `method` says GET; answers the status and the venue code.
 */
export const sendBytes = (
  port: number,
  path: string,
  headers: Record<string, string>,
  body: Uint8Array,
  options: { readonly agent?: Agent | undefined; readonly method?: "GET" | "POST" | undefined } = {}
) =>
  Effect.callback<RawAnswer, Error>((resume) => {
    const { agent, method = "POST" } = options
    const request = httpRequest(
      { host: "127.0.0.1", port, agent, method, path, headers: { ...headers, "content-length": body.length } },
      (response) => {
        const chunks: Array<Buffer> = []
        response.on("data", (chunk: Buffer) => chunks.push(chunk))
        response.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8")
          const code = /"code":"([^"]*)"/.exec(text)?.[1]
          resume(Effect.succeed({ status: response.statusCode ?? 0, code, body: text }))
        })
        response.on("error", (error) => resume(Effect.fail(error)))
      }
    )
    request.on("error", (error) => resume(Effect.fail(error)))
    request.end(body)
  })

// ---------------------------------------------------------------------------------------------------------------
// Oversized bodies on a raw socket

export interface OversizedAnswer {
  /** The answer's status and venue code; undefined when none came. */
  readonly status: number | undefined
  readonly code: string | undefined
  /** The answer as received (its head and body). */
  readonly text: string
  /** Body bytes written to the socket before the answer came (or the connection ended). */
  readonly bodyBytesSent: number
  /** Whether the server closed the connection after answering. */
  readonly closedByServer: boolean
  readonly millis: number
}

/**
 * A POST to `path` with `headers` whose body is too large: with `declare`, a `Content-Length` of that many bytes and
 * no body byte sent (`cap` 0); without, a chunked body of 64 KiB chunks written as fast as the socket takes them, up
 * to `cap` bytes. Stops writing when the answer comes; waits at most `waitMillis` for it.
 */
export const sendOversized = (
  port: number,
  path: string,
  headers: Record<string, string>,
  options: { readonly declare?: number | undefined; readonly cap: number; readonly waitMillis?: number | undefined }
) =>
  Effect.callback<OversizedAnswer>((resume) => {
    const started = performance.now()
    const socket = connect(port, "127.0.0.1")
    const framing = options.declare === undefined
      ? "transfer-encoding: chunked\r\n"
      : `content-length: ${options.declare}\r\n`
    const head = `POST ${path} HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\n${
      Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join("")
    }${framing}\r\n`
    const chunk = Buffer.alloc(64 * 1024, "a")
    const frame = Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from("\r\n")])
    let received = Buffer.alloc(0)
    let sent = 0
    let answered = false
    let closedByServer = false
    let done = false
    const finish = () => {
      if (done) return
      done = true
      clearTimeout(timer)
      socket.destroy()
      const text = received.toString("utf8")
      const status = /^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]
      resume(Effect.succeed({
        status: status === undefined ? undefined : Number(status),
        code: /"code":"([^"]*)"/.exec(text)?.[1],
        text,
        bodyBytesSent: sent,
        closedByServer,
        millis: Math.round(performance.now() - started)
      }))
    }
    const timer = setTimeout(finish, options.waitMillis ?? 5_000)
    socket.on("data", (data: Buffer) => {
      received = Buffer.concat([received, data])
      answered = true
    })
    // After the answer the server closes; a reset (the sender's unread bytes) ends it as well.
    socket.on("end", () => {
      closedByServer = answered
      finish()
    })
    socket.on("error", () => {
      closedByServer = answered
      finish()
    })
    socket.on("connect", () => {
      socket.write(head)
      const pump = () => {
        while (!done && !answered && sent < options.cap) {
          sent += chunk.length
          if (!socket.write(frame)) {
            socket.once("drain", pump)
            return
          }
        }
      }
      pump()
    })
  })

/** Bytes this process has read by system calls so far (`rchar` of /proc/self/io), or undefined without /proc. */
export const processReadBytes = (): number | undefined => {
  const match = /^rchar: (\d+)$/m.exec(existsRead("/proc/self/io"))
  return match === null ? undefined : Number(match[1])
}

const existsRead = (file: string): string => {
  try {
    return readFileSync(file, "utf8")
  } catch {
    return ""
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Memory

let collect: (() => void) | undefined

/** A full garbage collection (the flag is set once, for this process). */
export const gc = (): void => {
  if (collect === undefined) {
    setFlagsFromString("--expose-gc")
    collect = runInNewContext("gc") as () => void
  }
  collect()
  collect()
}

/** Heap in use after a full collection, in MB. */
export const heapMB = (): number => {
  gc()
  return process.memoryUsage().heapUsed / (1024 * 1024)
}
