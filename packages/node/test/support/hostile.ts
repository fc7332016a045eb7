/**
 * Hostile venues (issue #17): a loopback venue whose answers a test writes byte by byte (endless or gigantic bodies,
 * messages that forge lines or drive the terminal, credentials echoed in every encoding), the `spotkit` CLI run
 * against it as a subprocess with its peak memory sampled, and a search for credentials in any encoding.
 */
import { Effect } from "effect"
import { Buffer } from "node:buffer"
import { execFileSync, spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { createServer } from "node:http"
import type { IncomingMessage, ServerResponse } from "node:http"
import { createRequire } from "node:module"
import type { AddressInfo } from "node:net"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

// ---------------------------------------------------------------------------------------------------------------
// A hostile venue

/** What the venue does with a request (its body read whole). */
export type Handler = (request: IncomingMessage, body: Buffer, response: ServerResponse) => void

export interface HostileVenue {
  readonly baseUrl: string
  /** Requests received, by path. */
  readonly paths: Array<string>
}

/** A venue on a free loopback port for the scope, answering with `handler`. */
export const hostileVenue = (handler: Handler) =>
  Effect.acquireRelease(
    Effect.callback<{ readonly venue: HostileVenue; readonly close: () => void }>((resume) => {
      const paths: Array<string> = []
      const server = createServer((request, response) => {
        const chunks: Array<Buffer> = []
        request.on("data", (chunk: Buffer) => chunks.push(chunk))
        request.on("end", () => {
          paths.push(request.url ?? "")
          handler(request, Buffer.concat(chunks), response)
        })
        // A client that hangs up mid-answer is what these venues are for.
        response.on("error", () => undefined)
        request.on("error", () => undefined)
      })
      server.on("clientError", (_error, socket) => socket.destroy())
      server.listen(0, "127.0.0.1", () => {
        const { port } = server.address() as AddressInfo
        resume(Effect.succeed({
          venue: { baseUrl: `http://127.0.0.1:${port}`, paths },
          close: () => {
            server.closeAllConnections()
            server.close()
          }
        }))
      })
    }),
    ({ close }) => Effect.sync(close)
  ).pipe(Effect.map(({ venue }) => venue))

const FILLER = Buffer.alloc(64 * 1024, "a")

/**
 * Writes `prefix`, then `filler` bytes of `a` (for ever without a count), then `suffix`, at the pace the reader takes
 * them; stops when the reader goes away.
 */
export const pump = (response: ServerResponse, prefix: string, filler = Infinity, suffix = ""): void => {
  let sent = 0
  const write = () => {
    while (!response.destroyed) {
      if (sent >= filler) {
        response.end(suffix)
        return
      }
      const chunk = FILLER.subarray(0, Math.min(FILLER.length, filler - sent))
      sent += chunk.length
      if (!response.write(chunk)) {
        response.once("drain", write)
        return
      }
    }
  }
  response.write(prefix)
  write()
}

const OPENING = `{"code":"00000","msg":"`

/** A 200 answer whose body never ends (chunked). */
export const endlessBody: Handler = (_request, _body, response) => {
  response.writeHead(200, { "content-type": "application/json" })
  pump(response, OPENING)
}

/** A 200 answer that declares `bytes` (Content-Length) and streams them. */
export const declaredBody = (bytes: number): Handler => (_request, _body, response) => {
  response.writeHead(200, { "content-type": "application/json", "content-length": String(bytes) })
  pump(response, OPENING, bytes - OPENING.length)
}

/** A 200 answer of `bytes` sent chunked: no Content-Length to refuse it by, its size known at its end only. */
export const chunkedBody = (bytes: number): Handler => (_request, _body, response) => {
  response.writeHead(200, { "content-type": "application/json" })
  pump(response, OPENING, bytes - OPENING.length)
}

/** One answer: a status and a JSON value. */
export const answer = (status: number, value: unknown): Handler => (_request, _body, response) => {
  const body = JSON.stringify(value)
  response.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
  response.end(body)
}

/** The standard envelope of a refusal with this `msg` (code 40020: parameter error). */
export const refusalWith = (msg: string, code = "40020"): Handler =>
  answer(400, { code, msg, requestTime: Date.now(), data: null })

/** A refusal (40020) whose whole body is `bytes` long, nearly all of it its `msg`, declared and streamed. */
export const hugeMsg = (bytes: number): Handler => (_request, _body, response) => {
  const prefix = `{"code":"40020","msg":"`
  const suffix = `","requestTime":${Date.now()},"data":null}`
  response.writeHead(400, { "content-type": "application/json", "content-length": String(bytes) })
  pump(response, prefix, bytes - prefix.length - suffix.length, suffix)
}

// ---------------------------------------------------------------------------------------------------------------
// Credentials in every encoding

/** Credentials with characters that every encoding treats differently (space, quote, backslash, slash, plus). */
export const hostileCredentials = {
  apiKey: "hostile-api-key-5c3e9a17d2b8",
  secretKey: "hostile/secret+key=9f8e7d6c5b4a",
  passphrase: "hostile \"pass\\phrase\" 42"
} as const

const hex = (value: number, width: number) => value.toString(16).padStart(width, "0")

// The base64 characters that depend on the secret only, at each alignment within a longer base64 text (as
// SafeText.Scrubber searches them), in both alphabets.
const base64Cores = (secret: string): Array<string> => {
  const bytes = Buffer.from(secret, "utf8")
  const cores: Array<string> = []
  for (let offset = 0; offset < 3; offset++) {
    const padded = Buffer.concat([Buffer.alloc(offset), bytes])
    const first = Math.ceil((8 * offset) / 6)
    const last = Math.floor((8 * (offset + bytes.length) - 6) / 6)
    cores.push(padded.toString("base64").slice(first, last + 1), padded.toString("base64url").slice(first, last + 1))
  }
  return cores
}

/** Every encoding a venue may echo a secret in, by name: the texts a hostile venue sends. */
export const encodingsOf = (secret: string): ReadonlyArray<readonly [string, string]> => {
  const json = JSON.stringify(secret).slice(1, -1)
  const units = Array.from({ length: secret.length }, (_, i) => secret.charCodeAt(i))
  const bytes = [...Buffer.from(secret, "utf8")]
  return [
    ["raw", secret],
    ["JSON-escaped", json],
    ["JSON-escaped with \\/", json.replaceAll("/", "\\/")],
    ["\\u-escaped", units.map((unit) => `\\u${hex(unit, 4)}`).join("")],
    ["\\u-escaped, upper case", units.map((unit) => `\\u${hex(unit, 4).toUpperCase()}`).join("")],
    ["URL-encoded", encodeURIComponent(secret)],
    ["URL-encoded, every byte, lower case", bytes.map((byte) => `%${hex(byte, 2)}`).join("")],
    ["form-encoded", encodeURIComponent(secret).replaceAll("%20", "+")],
    ["base64", Buffer.from(secret).toString("base64")],
    ["base64url", Buffer.from(secret).toString("base64url")],
    ["base64 inside a longer text, 1 byte before", Buffer.from(`x${secret}yz`).toString("base64")],
    ["base64 inside a longer text, 2 bytes before", Buffer.from(`xy${secret}z`).toString("base64")]
  ]
}

/** The encodings of every secret, as one text per secret, each form on its own between spaces. */
export const echoOf = (secrets: ReadonlyArray<string>): string =>
  secrets.map((secret) => encodingsOf(secret).map(([, text]) => ` ${text} `).join("|")).join(" ")

// A text with JSON's `\/` and `\uXXXX` and URL encoding undone, to find a secret in any of them or their mixes.
const decoded = (text: string): string =>
  text
    .replaceAll("\\/", "/")
    .replace(/\\u([0-9a-fA-F]{4})/g, (_, code: string) => String.fromCharCode(parseInt(code, 16)))
    .replace(/\+/g, " ")
    .replace(/(?:%[0-9a-fA-F]{2})+/g, (run) => {
      try {
        return decodeURIComponent(run)
      } catch {
        return run
      }
    })

export interface Leak {
  readonly source: string
  readonly secret: string
  readonly form: string
}

/**
 * Where a secret (or its first 10 characters) shows in a text: raw or JSON-escaped, in the text as is or with its
 * escapes and URL encoding undone; or base64-encoded at any alignment.
 */
export const leaksIn = (source: string, text: string, secrets: ReadonlyArray<string>): Array<Leak> => {
  const plain = decoded(text)
  const leaks: Array<Leak> = []
  for (const secret of secrets) {
    const needles: Array<readonly [string, string]> = [
      ["raw", secret],
      ["first 10 characters", secret.slice(0, 10)],
      ["JSON-escaped", JSON.stringify(secret).slice(1, -1)]
    ]
    for (const [form, needle] of needles) {
      if (text.includes(needle)) leaks.push({ source, secret, form })
      else if (plain.includes(needle)) leaks.push({ source, secret, form: `${form}, once decoded` })
    }
    for (const core of base64Cores(secret)) {
      if (text.includes(core)) leaks.push({ source, secret, form: `base64 ${core}` })
    }
  }
  return leaks
}

// ---------------------------------------------------------------------------------------------------------------
// The CLI as a subprocess, its peak memory sampled

const nodePackage = fileURLToPath(new URL("../..", import.meta.url))
const spotkitBin = join(nodePackage, "dist", "bin", "spotkit.js")

let built = false

/**
 * Builds `@spotkit/node` (and core, by its references) once, as its own tests do before they run the built CLI:
 * `tsc -b` is incremental, and when the node project's tests run too their global setup has built it already.
 * The CLI is measured as users run it, built: run from its TypeScript sources it holds about 30 MB more.
 */
const buildCli = (): void => {
  if (built) return
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc")
  execFileSync(process.execPath, [tsc, "-b", "tsconfig.build.json"], { cwd: nodePackage, stdio: "inherit" })
  built = true
}

/** Output kept of a run (more is counted, not kept). */
const KEPT = 4 * 1024 * 1024

export interface CliRun {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
  /** Bytes written, including those beyond what was kept. */
  readonly stdoutBytes: number
  readonly stderrBytes: number
  /** The largest VmHWM (peak resident set) sampled, in MB; 0 when none was (a platform without /proc). */
  readonly peakRssMB: number
  readonly seconds: number
}

const peakKb = (pid: number): number | undefined => {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8")
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(status)
    return match === null ? undefined : Number(match[1])
  } catch {
    return undefined
  }
}

/**
 * Runs the built `spotkit` (`dist/bin/spotkit.js`, built first when needed) with exactly `env` plus PATH, sampling its
 * peak resident set (VmHWM) every 10 ms until it exits.
 */
export const runCli = (args: ReadonlyArray<string>, env: Record<string, string>) => runNode(spotkitBin, args, env)

const libraryProcess = fileURLToPath(new URL("hostileClient.ts", import.meta.url))

/** The Node transports of `NodeSpotClient.layer`. */
export type Transport = "undici" | "effect-undici" | "node:http"

/**
 * Runs a library process (`hostileClient.ts`, over the built packages) that makes one `fundingBillsPage` call to the
 * venue at `baseUrl` over `transport`, reading at most `maxResponseBytes`; its stdout is one JSON line, the outcome.
 */
export const runLibrary = (baseUrl: string, transport: Transport, maxResponseBytes: number) =>
  runNode(libraryProcess, [baseUrl, transport, String(maxResponseBytes)], {})

/** Runs a Node script (built first when needed) as `runCli` runs the CLI. */
const runNode = (script: string, args: ReadonlyArray<string>, env: Record<string, string>) =>
  Effect.callback<CliRun>((resume) => {
    buildCli()
    const started = performance.now()
    const child = spawn(process.execPath, [script, ...args], {
      env: { PATH: process.env.PATH ?? "", ...env },
      stdio: ["ignore", "pipe", "pipe"]
    })
    const collect = () => {
      const chunks: Array<Buffer> = []
      const state = { bytes: 0, chunks }
      return {
        state,
        onData: (chunk: Buffer) => {
          if (state.bytes < KEPT) chunks.push(chunk)
          state.bytes += chunk.length
        }
      }
    }
    const out = collect()
    const err = collect()
    child.stdout.on("data", out.onData)
    child.stderr.on("data", err.onData)
    let peak = 0
    const sample = () => {
      const kb = child.pid === undefined ? undefined : peakKb(child.pid)
      if (kb !== undefined) peak = Math.max(peak, kb)
    }
    const sampler = setInterval(sample, 10)
    const timer = setTimeout(() => child.kill("SIGKILL"), 120_000)
    // The last sample is taken when the process has ended but before it is reaped.
    child.on("exit", sample)
    child.on("close", (code, signal) => {
      clearInterval(sampler)
      clearTimeout(timer)
      resume(Effect.succeed({
        code: code ?? (signal === null ? -1 : 128),
        stdout: Buffer.concat(out.state.chunks).toString("utf8"),
        stderr: Buffer.concat(err.state.chunks).toString("utf8"),
        stdoutBytes: out.state.bytes,
        stderrBytes: err.state.bytes,
        peakRssMB: Math.round((peak / 1024) * 10) / 10,
        seconds: Math.round((performance.now() - started) / 10) / 100
      }))
    })
    return Effect.sync(() => child.kill("SIGKILL"))
  })

/** The CLI's environment for a venue at `baseUrl`, with the hostile credentials. */
export const cliEnv = (baseUrl: string): Record<string, string> => ({
  SPOTKIT_BASE_URL: baseUrl,
  SPOTKIT_API_KEY: hostileCredentials.apiKey,
  SPOTKIT_SECRET_KEY: hostileCredentials.secretKey,
  SPOTKIT_PASSPHRASE: hostileCredentials.passphrase,
  SPOTKIT_RATE_LIMIT: "off"
})

// What a terminal acts on: C0 controls but the newline, DEL, C1, bidi controls, line and paragraph separators.
// eslint-disable-next-line no-control-regex
const TERMINAL_CONTROLS = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/

/** Whether a text holds a character a terminal acts on (a newline aside). */
export const hasTerminalControls = (text: string): boolean => TERMINAL_CONTROLS.test(text)
