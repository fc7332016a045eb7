/**
 * `NodeSpotPush` against a hostile venue on a real loopback port (review finding 2): a message larger than
 * `maxFrameBytes` (1 MiB by default) is refused as it arrives, the connection closed with 1009 and dialled again, the
 * `Disconnected` event naming the option, and let go at once even when the venue keeps sending (by a timer that keeps
 * no process alive); a larger `maxFrameBytes` lets it through; no per-message deflate is offered, so a venue cannot
 * make a small compressed frame into a large message (a compressed frame sent anyway is a protocol error, closed with
 * 1002 before anything is inflated); a `maxFrameBytes` `ws` could not hold is refused.
 */
import { assert, describe, it, vi } from "@effect/vitest"
import { SpotPush } from "@spotkit/core"
import { Cause, Context, Effect, Exit, Layer, Redacted, Stream } from "effect"
import { Buffer } from "node:buffer"
import { deflateRawSync } from "node:zlib"
import { NodeSpotClient, NodeSpotPush } from "../src/index.ts"
import type { HostileConnection } from "./support/hostilePush.ts"
import { acknowledging, frame, hostilePushServer, relentlessPushServer } from "./support/hostilePush.ts"

const SYMBOL = "BTCUSDT_SPBL"

// A client nobody calls: the public streams need only its clock offset.
const client = NodeSpotClient.layer({
  baseUrl: "http://127.0.0.1:9",
  credentials: { apiKey: Redacted.make("key"), secretKey: Redacted.make("secret"), passphrase: Redacted.make("pass") },
  rateLimit: false
})

// A ticker push of about `bytes` bytes (the venue keeps fields it does not know: a long one pads it).
const bigTicker = (bytes: number) =>
  JSON.stringify({
    event: "payload",
    channel: `ticker.${SYMBOL}`,
    data: [{ symbol: SYMBOL, lastPrice: "30000.5", padding: "a".repeat(bytes) }]
  })

// The push service over `ws` with `options`, its events kept, for the test's scope.
const pushWith = (url: string, options: Partial<NodeSpotPush.Options> = {}) =>
  Effect.gen(function*() {
    const context = yield* Layer.build(
      NodeSpotPush.layer({ url, backoff: { initial: "50 millis", max: "100 millis" }, ...options }).pipe(
        Layer.provide(client)
      )
    )
    const push = Context.get(context, SpotPush.SpotPush)
    const events: Array<SpotPush.Event> = []
    yield* Effect.forkScoped(Stream.runForEach(push.events, (event) => Effect.sync(() => events.push(event))))
    return { push, events }
  })

// Until `done` holds (checked every 20 ms), at most `millis`.
const until = (done: () => boolean, millis: number) =>
  Effect.gen(function*() {
    for (let waited = 0; waited < millis && !done(); waited += 20) yield* Effect.sleep("20 millis")
    return done()
  })

const reasons = (events: ReadonlyArray<SpotPush.Event>) =>
  events.flatMap((event) => event._tag === "Disconnected" ? [event.reason] : [])

describe("NodeSpotPush against a hostile venue", () => {
  it.live(
    "a message over maxFrameBytes: the connection is closed (1009) and dialled again; nothing delivered",
    () =>
      Effect.gen(function*() {
        const server = yield* hostilePushServer(acknowledging((connection) => connection.ws.send(bigTicker(2 << 20))))
        const { events, push } = yield* pushWith(server.url)
        const tickers: Array<unknown> = []
        yield* Effect.forkScoped(Stream.runForEach(push.watchTicker(SYMBOL), (t) => Effect.sync(() => tickers.push(t))))
        assert.isTrue(yield* until(() => server.connections.length >= 3, 10_000))
        const [lost] = reasons(events)
        assert.include(lost ?? "", "the venue sent a message larger than maxFrameBytes (1048576 bytes)")
        assert.strictEqual(server.connections[0]!.closeCode, 1009)
        assert.deepStrictEqual(tickers, [])
      }).pipe(Effect.scoped),
    { timeout: 20_000 }
  )

  it.live(
    "a message over maxFrameBytes, the venue sending on: the socket let go within a second, not ws's 30 s",
    () =>
      Effect.gen(function*() {
        // The wait for the venue's close (the timer that terminates the socket) keeps no process alive. Only that timer
        // is looked at: others of a second (a backoff, a poll) may be set meanwhile.
        const timers: Array<ReturnType<typeof setTimeout>> = []
        const setTimer = globalThis.setTimeout
        const spy = vi.spyOn(globalThis, "setTimeout").mockImplementation(
          ((
            callback: () => void,
            delay?: number
          ) => {
            const timer = setTimer(callback, delay)
            if (delay === 1_000 && String(callback).includes("terminate")) timers.push(timer)
            return timer
          }) as typeof setTimeout
        )
        yield* Effect.addFinalizer(() => Effect.sync(() => spy.mockRestore()))
        // 2 MiB announced and sent, then 64 KiB every 2 ms, whatever the client says, and the venue never closes.
        const server = yield* relentlessPushServer(frame(0x81, Buffer.from(bigTicker(2 << 20))))
        const { events, push } = yield* pushWith(server.url)
        yield* Effect.forkScoped(Stream.runDrain(push.watchTicker(SYMBOL)))
        // ws alone half-closes and reads (and drops) what comes until its close timeout: 30 s. The server sees the TCP
        // connection close.
        assert.isTrue(yield* until(() => server.connections[0]?.closedAt !== undefined, 5_000))
        spy.mockRestore()
        assert.isAbove(timers.length, 0)
        assert.isTrue(timers.every((timer) => !timer.hasRef()))
        const [first] = server.connections
        assert.isBelow(first!.closedAt! - first!.openedAt, 5_000)
        assert.isAbove(first!.sent, 0)
        // The close frame (1009) reached the venue before the socket was let go.
        assert.strictEqual(first!.closeCode, 1009)
        assert.include(reasons(events)[0] ?? "", "the venue sent a message larger than maxFrameBytes (1048576 bytes)")
        // And the connection is dialled again as before.
        assert.isTrue(yield* until(() => server.connections.length >= 2, 5_000))
      }).pipe(Effect.scoped),
    { timeout: 20_000 }
  )

  it.live("a larger maxFrameBytes lets the same message through", () =>
    Effect.gen(function*() {
      const server = yield* hostilePushServer(acknowledging((connection) => connection.ws.send(bigTicker(2 << 20))))
      const { events, push } = yield* pushWith(server.url, { maxFrameBytes: 4 << 20 })
      const [ticker] = yield* Stream.runCollect(Stream.take(push.watchTicker(SYMBOL), 1))
      assert.strictEqual(ticker?.lastPrice, "30000.5")
      assert.deepStrictEqual(reasons(events), [])
    }).pipe(Effect.scoped), { timeout: 20_000 })

  it.live(
    "no per-message deflate offered; a compressed frame sent anyway is refused (1002), never inflated",
    () =>
      Effect.gen(function*() {
        // 32 MiB that deflate to some 32 KB.
        const bomb = deflateRawSync(Buffer.from(bigTicker(32 << 20)))
        const send = (connection: HostileConnection) => connection.request.socket.write(frame(0xc1, bomb)) // FIN, RSV1 (compressed), text
        const server = yield* hostilePushServer(acknowledging(send))
        const { events, push } = yield* pushWith(server.url)
        const tickers: Array<unknown> = []
        yield* Effect.forkScoped(Stream.runForEach(push.watchTicker(SYMBOL), (t) => Effect.sync(() => tickers.push(t))))
        assert.isTrue(yield* until(() => server.connections.length >= 2, 10_000))
        assert.isUndefined(server.connections[0]!.request.headers["sec-websocket-extensions"])
        assert.strictEqual(server.connections[0]!.closeCode, 1002)
        assert.include(reasons(events)[0] ?? "", "RSV1 must be clear")
        assert.deepStrictEqual(tickers, [])
      }).pipe(Effect.scoped),
    { timeout: 20_000 }
  )

  for (const maxFrameBytes of [0, 1.5, 2 ** 31]) {
    it.effect(`maxFrameBytes ${maxFrameBytes}: a RangeError (ws would limit nothing)`, () =>
      Effect.gen(function*() {
        const exit = yield* Effect.exit(Layer.build(
          NodeSpotPush.layer({ url: "ws://127.0.0.1:9", maxFrameBytes }).pipe(Layer.provide(client))
        ))
        assert.isTrue(Exit.isFailure(exit))
        const defect = Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined
        assert.instanceOf(defect, RangeError)
        assert.include((defect as RangeError).message, "maxFrameBytes")
      }).pipe(Effect.scoped))
  }
})
