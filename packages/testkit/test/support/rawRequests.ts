/**
 * Raw requests to the sandbox (issues #17 and #25): signed over exactly the bytes sent, written by `node:http` or byte
 * by byte on a socket, and the heap a run leaves behind.
 */
import { Effect } from "effect"
import { Buffer } from "node:buffer"
import { createHmac } from "node:crypto"
import { request as httpRequest } from "node:http"
import type { Agent } from "node:http"
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
