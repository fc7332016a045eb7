/**
 * The push client against a hostile venue, in process under the `TestClock` (the venue's side written by each test,
 * `support/hostileSocket.ts`): what the venue says is scrubbed of the credentials and of the handshake signature it
 * was sent (a passphrase too short to be searched for everywhere, where labelled), and made printable, before it reaches a `PushError` (an error frame for a channel), a log line (an error
 * frame for no channel of ours: one warning, then at most one a minute per connection, never the frame itself) or a
 * `Disconnected` event (a close reason); a ping is answered only when its `time` can be sent back (a deeply nested one
 * is ignored, not a dead read loop); a defect of the read loop is described, never as `undefined`; the push URL's
 * user information and query appear nowhere.
 */
import { assert, describe, it } from "@effect/vitest"
import { Signer } from "@spotkit/core"
import type { PushError } from "@spotkit/core"
import { Cause, Duration, Effect, Exit, Fiber, Logger, Redacted, References, Stream } from "effect"
import * as Socket from "effect/socket/Socket"
import { TestExchange } from "../src/index.ts"
import { nodeCryptoSigner } from "../src/internal/clientSigner.ts"
import { acknowledge, hostileVenue } from "./support/hostileSocket.ts"
import type { Peer, Script } from "./support/hostileSocket.ts"
import { advance, collect, settle, SpotPush } from "./support/push.ts"

const SYMBOL = "BTCUSDT_SPBL"
const ESC = "\u001b"

const base = TestExchange.layerSpotClient({ exchange: { ...TestExchange.demo({ bills: 0 }), rateLimits: false } })

// Log lines, as their level and text.
const logs: Array<{ readonly level: string; readonly text: string }> = []
const capture = Logger.layer([
  Logger.make(({ logLevel, message }) => {
    const parts = Array.isArray(message) ? message : [message]
    logs.push({ level: logLevel, text: parts.map((part) => typeof part === "string" ? part : "<object>").join(" ") })
  })
])

// alice's push client over a hostile venue following `script`; her credentials' secrets; the venue's connections.
const hostile = (script: Script, options: Partial<SpotPush.Options> = {}) =>
  Effect.gen(function*() {
    logs.length = 0
    const exchange = yield* TestExchange.TestExchange
    const credentials = exchange.accounts[0]!.credentials
    const venue = hostileVenue(script)
    const push = yield* SpotPush.make({
      url: "ws://venue.test",
      credentials,
      idleTimeout: "1 hour",
      backoff: { initial: "1 second", max: "1 second" },
      ...options
    }).pipe(
      Effect.provideService(Socket.WebSocketConstructor, venue.construct),
      Effect.provide(Signer.layer(nodeCryptoSigner))
    )
    const secrets = [
      Redacted.value(credentials.apiKey),
      Redacted.value(credentials.passphrase),
      Redacted.value(credentials.secretKey)
    ]
    return { push, peers: venue.peers, secrets }
  })

// alice's push client over a venue that acknowledges every subscription, its events collected, and `watch` running for
// a second: one connection, open and subscribed.
const subscribed = (
  watch: (push: Effect.Success<ReturnType<typeof hostile>>["push"]) => Stream.Stream<unknown, unknown>
) =>
  Effect.gen(function*() {
    const session = yield* hostile({ onMessage: acknowledge })
    const events = yield* collect(session.push.events)
    yield* collect(watch(session.push))
    yield* advance(1_000)
    return { ...session, events }
  })

// Every form of what the peer's handshake carried, as a venue would echo it, with terminal escapes.
const echo = (peer: Peer, secrets: ReadonlyArray<string>) => {
  const sign = peer.headers.get("access-sign")!
  return {
    sign,
    text: `login failed key=${peer.headers.get("access-key")} pass=${peer.headers.get("access-passphrase")} ` +
      `secret=${secrets[2]} sign=${sign} sign-url=${encodeURIComponent(sign)} ${ESC}]0;pwned\u0007${ESC}[2J`
  }
}

const assertScrubbed = (text: string, forbidden: ReadonlyArray<string>) => {
  for (const secret of forbidden) assert.notInclude(text, secret)
  assert.include(text, "<redacted>")
}

const assertClean = (text: string, forbidden: ReadonlyArray<string>) => {
  assertScrubbed(text, forbidden)
  assert.notInclude(text, ESC)
}

const disconnects = (events: ReadonlyArray<SpotPush.Event>) =>
  events.filter((e): e is Extract<SpotPush.Event, { _tag: "Disconnected" }> => e._tag === "Disconnected")

describe("SpotPush against a hostile venue", () => {
  it.effect("an error frame for a channel: the VenueRefusedError holds no credential, no signature, no escape", () =>
    Effect.gen(function*() {
      let sent = { sign: "", text: "" }
      const { peers, push, secrets } = yield* hostile({
        onMessage: (peer, text) => {
          const message = JSON.parse(text) as { event: string; channel: string }
          if (message.event !== "subscribe") return
          sent = echo(peer, secrets)
          peer.send(JSON.stringify({
            event: "error",
            channel: message.channel,
            code: `30001 ${secrets[1]}`,
            msg: sent.text
          }))
        }
      })
      const fiber = yield* Effect.forkChild(Effect.flip(Stream.runDrain(push.watchBalances())))
      yield* advance(1_000)
      const error: PushError.PushError = yield* Fiber.join(fiber)
      assert.strictEqual(peers.length, 1)
      assert.strictEqual(error.reason._tag, "VenueRefusedError")
      const reason = error.reason as PushError.VenueRefusedError
      const forbidden = [...secrets, sent.sign, encodeURIComponent(sent.sign)]
      // The fields keep the venue's whole text, scrubbed (as `SpotError.VenueError` does); the message is printable.
      assertScrubbed(reason.msg!, forbidden)
      assert.include(reason.msg!, "login failed key=<redacted> pass=<redacted> secret=<redacted> sign=<redacted>")
      assert.strictEqual(reason.code, "30001 <redacted>")
      assertClean(error.message, forbidden)
      assert.include(error.message, "\\u001b[2J")
      assertClean(Cause.pretty(Cause.fail(error)), forbidden)
    }).pipe(Effect.provide(base)))

  it.effect("a passphrase too short to be searched for everywhere: scrubbed where the venue's error frame labels it", () =>
    Effect.gen(function*() {
      const exchange = yield* TestExchange.TestExchange
      const credentials = { ...exchange.accounts[0]!.credentials, passphrase: Redacted.make("ab1") }
      const { push } = yield* hostile({
        onMessage: (peer, text) => {
          const message = JSON.parse(text) as { event: string; channel: string }
          if (message.event !== "subscribe") return
          const pass = peer.headers.get("access-passphrase")
          peer.send(
            JSON.stringify({
              event: "error",
              channel: message.channel,
              code: "30001",
              msg: `ACCESS-PASSPHRASE: ${pass} (ab1)`
            })
          )
        }
      }, { credentials })
      const fiber = yield* Effect.forkChild(Effect.flip(Stream.runDrain(push.watchBalances())))
      yield* advance(1_000)
      const error: PushError.PushError = yield* Fiber.join(fiber)
      const reason = error.reason as PushError.VenueRefusedError
      assert.strictEqual(reason.msg, "ACCESS-PASSPHRASE: <redacted> (ab1)")
      assert.notInclude(error.message, "PASSPHRASE: ab1")
    }).pipe(Effect.provide(base)))

  it.effect(
    "error frames for no channel of ours: one scrubbed warning, then at most one a minute, never the frame",
    () =>
      Effect.gen(function*() {
        const { peers, push, secrets } = yield* hostile({ onMessage: acknowledge })
        yield* collect(push.watchBalances())
        yield* advance(1_000)
        const peer = peers[0]!
        const sent = echo(peer, secrets)
        const frame = JSON.stringify({ event: "error", code: "30001", msg: sent.text })
        for (let i = 0; i < 50; i++) peer.send(frame)
        yield* advance(30_000)
        const warnings = () => logs.filter((line) => line.level === "Warn").map((line) => line.text)
        assert.strictEqual(warnings().length, 1)
        for (let i = 0; i < 10; i++) peer.send(frame)
        yield* advance(31_000)
        // A minute after the first line: the next one is logged, counting those that were not.
        peer.send(frame)
        yield* settle
        assert.deepStrictEqual(peers.length, 1)
        const [first, second] = warnings()
        assert.strictEqual(warnings().length, 2)
        assert.include(first!, "the venue sent an error (code 30001): login failed key=<redacted>")
        assert.include(second!, "(and 59 more since the last one logged)")
        for (const line of warnings()) {
          assertClean(line, [...secrets, sent.sign, encodeURIComponent(sent.sign)])
          assert.include(line, "\\u001b]0;pwned\\u0007")
          assert.notInclude(line, "\"event\"")
        }
      }).pipe(Effect.provide(base), Effect.provide(capture))
  )

  it.effect("a close reason that echoes the handshake: the Disconnected event and the debug line are scrubbed", () =>
    Effect.gen(function*() {
      const { events, peers, secrets } = yield* subscribed((push) => push.watchBalances())
      const peer = peers[0]!
      const sign = peer.headers.get("access-sign")!
      peer.close(4000, `bye ${secrets[1]} ${sign} ${ESC}[2J`)
      yield* advance(3_000)
      const [lost] = disconnects(events.items)
      assert.isDefined(lost)
      assert.include(lost!.reason, "SocketCloseError: 4000: bye <redacted> <redacted> \\u001b[2J")
      assertClean(lost!.reason, [...secrets, sign])
      const debug = logs.filter((line) => line.level === "Debug" && line.text.includes("ended ("))
      assert.strictEqual(debug.length, 1)
      assertClean(debug[0]!.text, [...secrets, sign])
      // It reconnects as usual.
      assert.strictEqual(peers.length, 2)
    }).pipe(
      Effect.provide(base),
      Effect.provide(capture),
      Effect.provideService(References.MinimumLogLevel, "Debug")
    ))

  // The warning a connection lost again and again logs quotes the venue's last close reason: scrubbed as the event is.
  it.effect("a venue that keeps closing with a reason that echoes the handshake: the warning logged is scrubbed", () =>
    Effect.gen(function*() {
      const signs: Array<string> = []
      const { push, secrets } = yield* hostile({
        onMessage: (peer, text) => {
          if (!text.includes("subscribe")) return
          const sign = peer.headers.get("access-sign")!
          signs.push(sign)
          peer.close(4000, `bye ${secrets[1]} ${sign} ${ESC}[2J`)
        }
      })
      yield* collect(push.watchBalances())
      yield* advance(10_000)
      const warnings = logs.filter((line) => line.level === "Warn" && line.text.includes("times in a row"))
      assert.strictEqual(warnings.length, 1)
      assert.include(warnings[0]!.text, "spotkit push: private connection")
      assert.include(warnings[0]!.text, "SocketCloseError: 4000: bye <redacted> <redacted> \\u001b[2J")
      assertClean(warnings[0]!.text, [...secrets, ...signs])
    }).pipe(Effect.provide(base), Effect.provide(capture)))

  // A venue that takes the upgrade and closes the connection with 4001 at the first subscribe; the balances stream
  // over it, after three seconds.
  const closedWith4001 = Effect.gen(function*() {
    const { peers, push } = yield* hostile({
      onMessage: (peer, text) => {
        if (text.includes("subscribe")) peer.close(4001, "login failed")
      }
    })
    const balances = yield* collect(push.watchBalances())
    yield* advance(3_000)
    return { balances, peers }
  })

  it.effect("a venue that opens, then closes with 4001 for a key REST refuses too: the private streams fail", () =>
    Effect.gen(function*() {
      // The venue takes the upgrade and refuses the login on the open socket; REST refuses the key as well.
      const { balances, peers } = yield* closedWith4001
      const exit = balances.fiber.pollUnsafe()
      assert.isDefined(exit, "the stream still waits: the venue is dialled for ever")
      const error = yield* Effect.flip(Fiber.join(balances.fiber))
      assert.strictEqual(error.reason._tag, "CredentialsRefusedError")
      assert.isAtMost(peers.length, 2)
    }).pipe(Effect.provide(TestExchange.layerSpotClient({
      exchange: { ...TestExchange.demo({ bills: 0 }), rateLimits: false },
      client: {
        credentials: {
          apiKey: Redacted.make(TestExchange.demoKeys.alice.apiKey),
          passphrase: Redacted.make(TestExchange.demoKeys.alice.passphrase),
          secretKey: Redacted.make("not-the-secret")
        }
      }
    }))))

  it.effect("a venue that opens, then closes with 4001, while REST accepts the key: transient, the stream waits", () =>
    Effect.gen(function*() {
      const { balances, peers } = yield* closedWith4001
      assert.isUndefined(balances.fiber.pollUnsafe())
      assert.isAtLeast(peers.length, 3)
    }).pipe(Effect.provide(base)))

  it.effect("pings: answered only with a time that can be sent back; a deeply nested one is ignored", () =>
    Effect.gen(function*() {
      const { events, peers } = yield* subscribed((push) => push.watchTicker(SYMBOL))
      const peer = peers[0]!
      peer.send(`{"event":"ping","time":${"[".repeat(200_000)}${"]".repeat(200_000)}}`)
      peer.send(`{"event":"ping","time":{"a":{"b":1}}}`)
      peer.send(JSON.stringify({ event: "ping", time: "1".repeat(65) }))
      peer.send(`{"event":"ping","time":"1693208170000"}`)
      peer.send(`{"type":"ping","time":1693208170000}`)
      yield* advance(3_000)
      assert.deepStrictEqual(peer.received.filter((text) => text.includes("pong")), [
        `{"event":"pong","time":"1693208170000"}`,
        `{"type":"pong","time":1693208170000}`
      ])
      assert.deepStrictEqual(disconnects(events.items), [])
      assert.strictEqual(peers.length, 1)
    }).pipe(Effect.provide(base)))

  it.effect("a defect in the read loop: the Disconnected reason describes it, and the connection is replaced", () =>
    Effect.gen(function*() {
      const { events, peers } = yield* subscribed((push) => push.watchTicker(SYMBOL))
      // Neither text nor bytes: the reader's decoding throws.
      peers[0]!.send({ not: "a frame" })
      yield* advance(3_000)
      const [lost] = disconnects(events.items)
      assert.match(lost?.reason ?? "", /^a defect: TypeError: .+/)
      assert.notInclude(lost?.reason ?? "", "undefined")
      assert.strictEqual(peers.length, 2)
    }).pipe(Effect.provide(base)))

  it.effect("the push URL's user information and query are in no error, event or defect", () =>
    Effect.gen(function*() {
      const url = "ws://user:pw-secret-1@venue.test/?token=tok-secret-2"
      const events: Array<SpotPush.Event> = []
      const broken = yield* SpotPush.make({ url, backoff: { initial: "1 second", max: "1 second" } }).pipe(
        // A transport that quotes the URL it was given, as `ws` does for a URL it cannot parse.
        Effect.provideService(Socket.WebSocketConstructor, (given) => {
          throw new SyntaxError(`Invalid URL: ${given}`)
        }),
        Effect.provide(Signer.layer(nodeCryptoSigner))
      )
      yield* Effect.forkChild(Stream.runForEach(broken.events, (e) => Effect.sync(() => events.push(e))))
      yield* collect(broken.watchTicker(SYMBOL))
      yield* advance(3_000)
      const [lost] = disconnects(events)
      assert.include(lost?.reason ?? "", "Invalid URL: ws://<redacted>@venue.test/?<redacted>")
      for (const secret of ["pw-secret-1", "tok-secret-2"]) assert.notInclude(lost?.reason ?? "", secret)
      // Not a ws:// URL: a defect that names it without its user information, query or fragment.
      const exit = yield* Effect.exit(
        SpotPush.make({ url: "https://user:pw-secret-1@venue.test/x?token=tok-secret-2#frag" }).pipe(
          Effect.provideService(Socket.WebSocketConstructor, () => {
            throw new Error("never dialled")
          })
        )
      )
      assert.isTrue(Exit.isFailure(exit))
      const defect = Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined
      assert.instanceOf(defect, RangeError)
      const message = (defect as RangeError).message
      assert.strictEqual(message, "url must be a ws:// or wss:// URL, not \"https://venue.test/x\"")
    }).pipe(Effect.provide(base)))

  it.effect("a URL given with an endpoint's path is taken for its base: the path is not appended twice", () =>
    Effect.gen(function*() {
      for (const url of ["ws://venue.test/v2/ws/public", "ws://venue.test/v2/ws/private/", "ws://venue.test"]) {
        const dialled: Array<string> = []
        const push = yield* SpotPush.make({ url }).pipe(
          Effect.provideService(Socket.WebSocketConstructor, (given) => {
            dialled.push(given)
            throw new Error("not dialled further")
          })
        )
        yield* collect(push.watchTicker(SYMBOL))
        yield* advance(1_000)
        assert.deepStrictEqual([...new Set(dialled)], ["ws://venue.test/v2/ws/public"], url)
      }
    }).pipe(Effect.provide(base)))

  it.effect("header values no header can carry: refused before any connection, never read as a browser's WebSocket", () =>
    Effect.gen(function*() {
      const exchange = yield* TestExchange.TestExchange
      const credentials = exchange.accounts[0]!.credentials
      // A passphrase with a line break (a header of its own): the private stream fails with a ValidationError, and
      // nothing is dialled.
      const { peers, push } = yield* hostile({}, {
        credentials: { ...credentials, passphrase: Redacted.make("PASS\r\nX-Evil: 1") }
      })
      const fiber = yield* Effect.forkChild(Effect.flip(Stream.runDrain(push.watchBalances())))
      yield* advance(1_000)
      const error: PushError.PushError = yield* Fiber.join(fiber)
      assert.strictEqual(error.reason._tag, "ValidationError")
      assert.include(error.message, "credentials.passphrase")
      assert.notInclude(error.message, "PASS")
      assert.strictEqual(peers.length, 0)
      // A WebSocket that refuses a header as Node does (a TypeError with a code): a failed connection, not a platform
      // without headers (which would dial again without any).
      const events: Array<SpotPush.Event> = []
      const bare: Array<string> = []
      const refusing = yield* SpotPush.make({ url: "ws://venue.test", idleTimeout: "1 hour" }).pipe(
        Effect.provideService(Socket.WebSocketConstructor, (url, options) => {
          if (options === undefined) bare.push(url)
          throw Object.assign(new TypeError("Invalid character in header content [\"User-Agent\"]"), {
            code: "ERR_INVALID_CHAR"
          })
        }),
        Effect.provide(Signer.layer(nodeCryptoSigner))
      )
      yield* Effect.forkChild(Stream.runForEach(refusing.events, (e) => Effect.sync(() => events.push(e))))
      yield* collect(refusing.watchTicker(SYMBOL))
      yield* advance(3_000)
      assert.deepStrictEqual(bare, [])
      assert.include(disconnects(events)[0]?.reason ?? "", "Invalid character in header content")
      // A user agent no header can carry: a defect when the service is made, as a URL that is not ws:// is.
      const exit = yield* Effect.exit(
        SpotPush.make({ url: "ws://venue.test", userAgent: "spot\nkit" }).pipe(
          Effect.provideService(Socket.WebSocketConstructor, () => {
            throw new Error("never dialled")
          })
        )
      )
      const defect = Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined
      assert.instanceOf(defect, RangeError)
      assert.strictEqual((defect as RangeError).message, "userAgent has a line break (CR or LF)")
    }).pipe(Effect.provide(base)))

  // Found in review (telemetry and key material): with the default WebCrypto signer, an empty secret key made the
  // service's construction die ("Zero-length key is not supported") instead of refusing the private streams.
  // And a key of whitespace only (a variable set to " ") was accepted: every handshake signed with it, for the venue to
  // refuse.
  it.effect("a secret key empty or of spaces: the service is made, a private stream fails with a ValidationError, nothing dialled", () =>
    Effect.gen(function*() {
      const exchange = yield* TestExchange.TestExchange
      for (const [secretKey, description] of [["", "is empty"], ["   ", "is only whitespace"]] as const) {
        const credentials = { ...exchange.accounts[0]!.credentials, secretKey: Redacted.make(secretKey) }
        const dialled: Array<string> = []
        const push = yield* SpotPush.make({ url: "ws://venue.test", credentials, idleTimeout: "1 hour" }).pipe(
          Effect.provideService(Socket.WebSocketConstructor, (url) => {
            dialled.push(url)
            throw new Error("never dialled")
          })
        )
        const fiber = yield* Effect.forkChild(Effect.flip(Stream.runDrain(push.watchBalances())))
        yield* advance(1_000)
        const error: PushError.PushError = yield* Fiber.join(fiber)
        assert.strictEqual(error.reason._tag, "ValidationError")
        assert.include(error.message, "credentials.secretKey")
        assert.strictEqual(error.reason._tag === "ValidationError" ? error.reason.description : "", description)
        assert.deepStrictEqual(dialled, [])
      }
    }).pipe(Effect.provide(base)))

  it.effect("a backfillBuffer that is not a positive integer: a defect when the service is made", () =>
    Effect.gen(function*() {
      const make = (backfillBuffer: number) =>
        Effect.exit(
          SpotPush.make({ url: "ws://venue.test", backfillBuffer }).pipe(
            Effect.provideService(Socket.WebSocketConstructor, () => {
              throw new Error("never dialled")
            })
          )
        )
      for (const bad of [0, -1, 2.5, Number.NaN, Number.POSITIVE_INFINITY]) {
        const exit = yield* make(bad)
        const defect = Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined
        assert.instanceOf(defect, RangeError)
        assert.strictEqual((defect as RangeError).message, `backfillBuffer must be a positive integer, not ${bad}`)
      }
      assert.isTrue(Exit.isSuccess(yield* make(1)))
    }).pipe(Effect.provide(base)))

  it.effect("a slowConsumerAfter that is infinite or negative: a defect when the service is made", () =>
    Effect.gen(function*() {
      const make = (slowConsumerAfter: Duration.Input) =>
        Effect.exit(
          SpotPush.make({ url: "ws://venue.test", slowConsumerAfter }).pipe(
            Effect.provideService(Socket.WebSocketConstructor, () => {
              throw new Error("never dialled")
            })
          )
        )
      for (const bad of [Duration.infinity, "Infinity", -1, Number.NaN] as const) {
        const exit = yield* make(bad)
        const defect = Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined
        assert.instanceOf(defect, RangeError)
        assert.include((defect as RangeError).message, "slowConsumerAfter must be a finite duration of zero or more")
      }
      for (const good of [0, "2 seconds", Duration.minutes(1)] as const) {
        assert.isTrue(Exit.isSuccess(yield* make(good)))
      }
    }).pipe(Effect.provide(base)))
})
