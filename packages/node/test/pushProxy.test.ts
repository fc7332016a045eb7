/**
 * `NodeSpotPush` through an HTTP proxy: a real proxy process on loopback (`support/proxyServer.ts`, which prints each
 * `CONNECT` it tunnels) in front of the sandbox's push endpoints. A private stream opens through the proxy's tunnel,
 * with Basic credentials from the proxy's URL; a proxy that refuses them, or cannot be reached, is named in the
 * `Disconnected` event's reason by its scheme, host and port, never with its password; `NO_PROXY` exempts the venue;
 * `layerConfig` reads `HTTP_PROXY`; an invalid proxy fails the layer. Over `wss:`, TLS to the venue runs inside the
 * tunnel and the venue's certificate is still checked (a TLS server with a certificate made by `openssl` for the
 * test).
 */
import * as NodeWS from "@effect/platform-node/NodeWS"
import { assert, describe, it } from "@effect/vitest"
import { SpotError, SpotPush } from "@spotkit/core"
import { PushVenue, Sandbox } from "@spotkit/testkit"
import { Duration, Effect, Exit, Layer, Redacted, Schedule, Stream } from "effect"
import { execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { createServer } from "node:https"
import { type AddressInfo, connect, createServer as createTcpServer, type Socket } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { inspect } from "node:util"
import { NodeSpotClient, NodeSpotPush } from "../src/index.ts"
import * as Proxies from "../src/internal/proxy.ts"
import { proxyServer } from "./support/proxyServer.ts"
import { alice, pushEnv, pushFromConfig, pushSandbox } from "./support/pushSandbox.ts"

const credentials = {
  apiKey: Redacted.make(alice.apiKey),
  secretKey: Redacted.make(alice.secretKey),
  passphrase: Redacted.make(alice.passphrase)
}
const PASSWORD = "pr0xy-s3cret-Tunnel"

const server = pushSandbox

// The private balances (REST's answer first, so one element comes at once) and the events, through a push layer.
const balancesAndEvents = (options: Partial<NodeSpotPush.Options>, take: number, wait: Duration.Input = "3 seconds") =>
  Effect.gen(function*() {
    const sandbox = yield* Sandbox.Sandbox
    return yield* Effect.gen(function*() {
      const push = yield* SpotPush.SpotPush
      const events: Array<SpotPush.Event> = []
      yield* push.events.pipe(Stream.runForEach((event) => Effect.sync(() => events.push(event))), Effect.forkScoped)
      const balances = yield* push.watchBalances().pipe(
        Stream.take(take),
        Stream.runCollect,
        Effect.timeoutOption(wait)
      )
      return { balances, events }
    }).pipe(
      Effect.scoped,
      Effect.provide(
        NodeSpotPush.layer({
          url: PushVenue.pushUrl(sandbox),
          credentials,
          backoff: { initial: "50 millis", max: "100 millis" },
          ...options
        }).pipe(Layer.provide(NodeSpotClient.layer({ baseUrl: sandbox.baseUrl, credentials, rateLimit: false })))
      )
    )
  })

// A proxy that reads the CONNECT and never answers; `closed` resolves once the client's connection to it has ended.
const silentProxy = Effect.acquireRelease(
  Effect.callback<{ readonly url: string; readonly closed: Promise<void>; readonly close: () => void }>(
    (resume) => {
      let closed = (): void => undefined
      const done = new Promise<void>((resolve) => closed = resolve)
      const tcp = createTcpServer((socket) => {
        socket.on("error", () => undefined)
        socket.on("close", () => closed())
        // Read (and drop) the CONNECT, so that the client's end is seen.
        socket.resume()
      })
      tcp.listen(0, "127.0.0.1", () =>
        resume(Effect.succeed({
          url: `http://127.0.0.1:${(tcp.address() as AddressInfo).port}`,
          closed: done,
          close: () => tcp.close()
        })))
    }
  ),
  (server) => Effect.sync(() => server.close())
)

// A proxy that answers every CONNECT with a refusal of `status` (given the request as read), then closes.
const refusingProxy = (status: (request: string) => string) =>
  Effect.acquireRelease(
    Effect.callback<{ readonly url: string; readonly close: () => void }>((resume) => {
      const tcp = createTcpServer((socket) => {
        let request = ""
        socket.on("error", () => undefined)
        socket.on("data", (data) => {
          request += String(data)
          if (request.includes("\r\n\r\n")) socket.end(`HTTP/1.1 ${status(request)}\r\nContent-Length: 0\r\n\r\n`)
        })
      })
      tcp.listen(0, "127.0.0.1", () =>
        resume(Effect.succeed({
          url: `http://127.0.0.1:${(tcp.address() as AddressInfo).port}`,
          close: () => tcp.close()
        })))
    }),
    (server) => Effect.sync(() => server.close())
  )

const waitFor = (seen: Array<string>, line: string) =>
  Effect.suspend(() => seen.includes(line) ? Effect.void : Effect.fail("waiting")).pipe(
    Effect.retry({ schedule: Schedule.spaced("20 millis"), times: 250 }),
    Effect.orElseSucceed(() => undefined)
  )

// Every form in which the proxy's password could leak.
const leaks = (text: string) => {
  const basic = Buffer.from(`trader:${PASSWORD}`).toString("base64")
  return [PASSWORD, `trader:${PASSWORD}`, basic].filter((secret) => text.includes(secret))
}

describe("NodeSpotPush through a proxy", () => {
  it.live(
    "a private stream through the proxy's CONNECT tunnel, with Basic credentials from its URL",
    () =>
      Effect.scoped(
        Effect.gen(function*() {
          const sandbox = yield* Sandbox.Sandbox
          const proxy = yield* proxyServer({ user: "trader", password: PASSWORD })
          const url = new URL(proxy.url)
          url.username = "trader"
          url.password = PASSWORD
          const { balances } = yield* balancesAndEvents({ proxy: Redacted.make(url.href) }, 1)
          assert.strictEqual(balances._tag, "Some")
          const connect = `CONNECT ${new URL(PushVenue.pushUrl(sandbox)).host}`
          yield* waitFor(proxy.seen, connect)
          assert.include(proxy.seen, connect)
        }).pipe(Effect.provide(server))
      ),
    { timeout: 20_000 }
  )

  it.live(
    "a proxy that refuses the credentials: the Disconnected reason names the proxy and its 407, no password",
    () =>
      Effect.scoped(
        Effect.gen(function*() {
          const proxy = yield* proxyServer({ user: "trader", password: `${PASSWORD}-other` })
          const url = new URL(proxy.url)
          url.username = "trader"
          url.password = PASSWORD
          const { balances, events } = yield* balancesAndEvents({ proxy: url.href }, 1, "4 seconds")
          assert.strictEqual(balances._tag, "None")
          const reasons = events.flatMap((event) => event._tag === "Disconnected" ? [event.reason] : [])
          assert.isAbove(reasons.length, 0, inspect(events))
          assert.include(reasons[0], `through the proxy ${proxy.url}: the proxy answered CONNECT with 407`)
          assert.deepStrictEqual(leaks(inspect(events, { depth: 10 })), [])
        }).pipe(Effect.provide(server))
      ),
    { timeout: 20_000 }
  )

  it.live(
    "a proxy that quotes the credentials in a long refusal: not even the start of the password is shown",
    () =>
      Effect.scoped(
        Effect.gen(function*() {
          // The refusal's text is cut (at 80 characters) across the password, or across the Basic value it echoes.
          const statuses = [
            () => `407 ${"x".repeat(70)} trader:${PASSWORD}`,
            (request: string) => `407 ${"x".repeat(60)} ${/proxy-authorization: ([^\r]*)/i.exec(request)?.[1]}`
          ]
          for (const status of statuses) {
            const proxy = yield* refusingProxy(status)
            const url = new URL(proxy.url)
            url.username = "trader"
            url.password = PASSWORD
            // (The balances never come: the whole wait is spent each time; under load the first refusal can take a second.)
            const { events } = yield* balancesAndEvents({ proxy: url.href }, 2, "2 seconds")
            const text = inspect(events, { depth: 10 })
            assert.include(text, "the proxy answered CONNECT with 407")
            const basic = Buffer.from(`trader:${PASSWORD}`).toString("base64")
            const starts = [PASSWORD.slice(0, 6), basic.slice(0, 8)].filter((start) => text.includes(start))
            assert.deepStrictEqual(starts, [], text)
          }
        }).pipe(Effect.provide(server))
      ),
    { timeout: 20_000 }
  )

  it.live(
    "a proxy that cannot be reached: named in the reason, and the connection is dialled again",
    () =>
      Effect.scoped(
        Effect.gen(function*() {
          const { balances, events } = yield* balancesAndEvents({ proxy: "http://127.0.0.1:9" }, 1, "1500 millis")
          assert.strictEqual(balances._tag, "None")
          const reasons = events.flatMap((event) => event._tag === "Disconnected" ? [event.reason] : [])
          assert.isAtLeast(reasons.length, 2, inspect(events))
          for (const reason of reasons) {
            assert.include(reason, "through the proxy http://127.0.0.1:9: connect ECONNREFUSED")
          }
        }).pipe(Effect.provide(server))
      ),
    { timeout: 20_000 }
  )

  it.live(
    "a stream ended while the proxy has not answered CONNECT: the socket to the proxy is closed with it",
    () =>
      Effect.scoped(
        Effect.gen(function*() {
          const silent = yield* silentProxy
          // The opening is bounded at 10 s; the stream is ended long before, and takes its tunnel with it.
          const { balances } = yield* balancesAndEvents(
            { proxy: silent.url, openTimeout: "10 seconds" },
            2,
            "300 millis"
          )
          assert.strictEqual(balances._tag, "None")
          const closed = yield* Effect.promise(() => silent.closed).pipe(Effect.timeoutOption("1 second"))
          assert.strictEqual(closed._tag, "Some", "the socket to the proxy is still open after the stream ended")
        }).pipe(Effect.provide(server))
      ),
    { timeout: 20_000 }
  )

  it.live(
    "an opening without a time limit (openTimeout infinite): the tunnel waits for the proxy's answer too",
    () =>
      Effect.scoped(
        Effect.gen(function*() {
          const sandbox = yield* Sandbox.Sandbox
          const proxy = yield* proxyServer()
          const { balances, events } = yield* balancesAndEvents({ proxy: proxy.url, openTimeout: Duration.infinity }, 1)
          assert.strictEqual(balances._tag, "Some", inspect(events))
          const connect = `CONNECT ${new URL(PushVenue.pushUrl(sandbox)).host}`
          yield* waitFor(proxy.seen, connect)
          assert.include(proxy.seen, connect)
        }).pipe(Effect.provide(server))
      ),
    { timeout: 20_000 }
  )

  it.live(
    "NO_PROXY exempts the venue: dialled directly, the proxy sees nothing",
    () =>
      Effect.scoped(
        Effect.gen(function*() {
          const proxy = yield* proxyServer()
          const { balances } = yield* balancesAndEvents({ proxy: { http: proxy.url, noProxy: "127.0.0.1" } }, 1)
          assert.strictEqual(balances._tag, "Some")
          yield* Effect.sleep("200 millis")
          assert.deepStrictEqual(proxy.seen, [])
        }).pipe(Effect.provide(server))
      ),
    { timeout: 20_000 }
  )

  it.live(
    "layerConfig: HTTP_PROXY carries a ws: venue's connections; an invalid one fails the layer",
    () =>
      Effect.scoped(
        Effect.gen(function*() {
          const sandbox = yield* Sandbox.Sandbox
          const proxy = yield* proxyServer()
          const env = yield* pushEnv
          const balances = yield* Effect.flatMap(
            SpotPush.SpotPush,
            (push) => push.watchBalances().pipe(Stream.take(1), Stream.runCollect)
          ).pipe(Effect.provide(pushFromConfig({ ...env, HTTP_PROXY: proxy.url })))
          assert.strictEqual(balances.length, 1)
          const connect = `CONNECT ${new URL(PushVenue.pushUrl(sandbox)).host}`
          yield* waitFor(proxy.seen, connect)
          assert.include(proxy.seen, connect)

          const invalid = yield* Effect.exit(
            Layer.build(
              NodeSpotPush.layer({ url: PushVenue.pushUrl(sandbox), proxy: `ftp://trader:${PASSWORD}@proxy:21` })
            ).pipe(Effect.provide(NodeSpotClient.layer({ baseUrl: sandbox.baseUrl, credentials, rateLimit: false })))
          )
          const error = Exit.isFailure(invalid) ? invalid.cause.reasons[0] : undefined
          assert.isTrue(error?._tag === "Fail", inspect(invalid))
          const reason = error?._tag === "Fail" && error.error instanceof SpotError.SpotError
            ? error.error.reason
            : undefined
          assert.strictEqual(reason?._tag, "ValidationError")
          assert.include(
            reason?._tag === "ValidationError" ? reason.description : "",
            "is not an http:// or https:// URL"
          )
          assert.deepStrictEqual(leaks(inspect(invalid, { depth: 10 })), [])
        }).pipe(Effect.provide(server))
      ),
    { timeout: 20_000 }
  )
})

// A certificate for `san` and its key, made by `openssl` for the test.
const certificate = (san: string): { readonly cert: Buffer; readonly key: Buffer } => {
  const dir = mkdtempSync(join(tmpdir(), "spotkit-tls-"))
  execFileSync("openssl", [
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-days",
    "1",
    "-subj",
    "/CN=spotkit test",
    "-addext",
    `subjectAltName=${san}`,
    "-keyout",
    join(dir, "key.pem"),
    "-out",
    join(dir, "cert.pem")
  ], { stdio: "ignore" })
  const made = { cert: readFileSync(join(dir, "cert.pem")), key: readFileSync(join(dir, "key.pem")) }
  rmSync(dir, { recursive: true, force: true })
  return made
}

// A TLS WebSocket venue on loopback whose certificate names `san`, echoing what it is sent.
const tlsVenue = (san: string) =>
  Effect.acquireRelease(
    Effect.callback<{ readonly url: string; readonly cert: Buffer; readonly close: () => void }>((resume) => {
      const { cert, key } = certificate(san)
      const https = createServer({ cert, key })
      const wss = new NodeWS.WebSocketServer({ server: https })
      wss.on("connection", (socket) => socket.on("message", (data) => socket.send(`echo ${String(data)}`)))
      https.listen(0, "127.0.0.1", () =>
        resume(Effect.succeed({
          url: `wss://127.0.0.1:${(https.address() as AddressInfo).port}`,
          cert,
          close: () => {
            for (const client of wss.clients) client.terminate()
            wss.close()
            https.close()
          }
        })))
    }),
    (venue) => Effect.sync(() => venue.close())
  )

// An `https:` proxy on loopback (TLS to the proxy itself, with a certificate no one trusts) that tunnels each CONNECT.
const tlsProxy = Effect.acquireRelease(
  Effect.callback<{ readonly url: string; readonly close: () => void }>((resume) => {
    const proxy = createServer(certificate("IP:127.0.0.1"))
    proxy.on("connect", (request: { readonly url?: string }, client: Socket) => {
      const [host, port] = (request.url ?? "").split(":")
      const venue = connect(Number(port), host!, () => {
        client.write("HTTP/1.1 200 Connection established\r\n\r\n")
        client.pipe(venue).pipe(client)
      })
      venue.on("error", () => client.destroy())
      client.on("error", () => venue.destroy())
    })
    proxy.listen(0, "127.0.0.1", () =>
      resume(Effect.succeed({
        url: `https://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
        close: () => proxy.close()
      })))
  }),
  (proxy) => Effect.sync(() => proxy.close())
)

// One exchange over `ws` through the tunnel (the CA given as `ws` takes it): the echo, or the error's message.
const echoThrough = (url: string, proxy: string, ca: Buffer, timeoutMillis = 5_000) =>
  Effect.callback<string>((resume) => {
    const tunnel = Proxies.tunnel({ proxy, secure: true, timeoutMillis })
    const ws = new NodeWS.WebSocket(url, {
      ca,
      createConnection: tunnel as unknown as NodeWS.ClientOptions["createConnection"]
    })
    ws.on("open", () => ws.send("ping"))
    ws.on("message", (data) => {
      resume(Effect.succeed(String(data)))
      ws.close()
    })
    ws.on("error", (error) => resume(Effect.succeed(`error: ${error.message}`)))
    return Effect.sync(() => ws.terminate())
  })

describe("the proxy tunnel over wss:", () => {
  it.live(
    "TLS to the venue inside the tunnel: the proxy sees only CONNECT; the venue's certificate is checked",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const proxy = yield* proxyServer()
        const venue = yield* tlsVenue("IP:127.0.0.1")
        assert.strictEqual(yield* echoThrough(venue.url, proxy.url, venue.cert), "echo ping")
        const connect = `CONNECT ${new URL(venue.url).host}`
        yield* waitFor(proxy.seen, connect)
        assert.deepStrictEqual(proxy.seen, [connect])

        // A certificate for another address: refused inside the tunnel, the error saying so.
        const other = yield* tlsVenue("IP:127.0.0.2")
        const refused = yield* echoThrough(other.url, proxy.url, other.cert)
        assert.match(refused, /^error: .*127\.0\.0\.1.*(not in the cert's list|does not match)/i)
      })),
    { timeout: 20_000 }
  )

  it.live(
    "an https: proxy is reached over TLS: a certificate not trusted is refused, the proxy named",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const proxy = yield* tlsProxy
        const venue = yield* tlsVenue("IP:127.0.0.1")
        const refused = yield* echoThrough(venue.url, proxy.url, venue.cert)
        assert.match(refused, new RegExp(`^error: through the proxy ${proxy.url}: self[- ]signed certificate`))
      })),
    { timeout: 20_000 }
  )

  it.live(
    "a proxy that never answers CONNECT: given up after the bound, its connection closed",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const silent = yield* silentProxy
        const result = yield* echoThrough("wss://127.0.0.1:9", silent.url, Buffer.from(""), 200)
        assert.strictEqual(result, `error: through the proxy ${silent.url}: no answer to CONNECT within 200 ms`)
        // The tunnel's socket to the proxy is not left open.
        yield* Effect.promise(() => silent.closed).pipe(Effect.timeout("2 seconds"))
      })),
    { timeout: 20_000 }
  )
})
