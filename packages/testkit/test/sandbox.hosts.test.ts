/**
 * The sandbox on loopback answers only what is addressed to loopback by name (`Host`): a page whose name an attacker
 * points at 127.0.0.1 (DNS rebinding) is same-origin to its browser and could otherwise sign requests and push
 * handshakes with the public demo keys. REST and WebSocket handshakes alike, judged by the address a connection
 * arrived on; what arrives on another address may name the sandbox any way.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { request } from "node:http"
import { PushVenue, Sandbox, TestExchange } from "../src/index.ts"
import { hostAllowed } from "../src/internal/loopback.ts"

const sandbox = PushVenue.layerSandbox().pipe(
  Layer.provideMerge(PushVenue.layer()),
  Layer.provideMerge(TestExchange.layer(TestExchange.demo({ bills: 10 })))
)

interface Answer {
  readonly status: number
  readonly body: string
}

// A request with the Host given (fetch cannot set one). An upgrade answered 101 resolves with status 101.
const send = (port: number, host: string, upgrade: boolean) =>
  Effect.callback<Answer>((resume) => {
    const outgoing = request({
      host: "127.0.0.1",
      port,
      path: upgrade ? "/v2/ws/public" : "/api/v2/public/time",
      headers: upgrade
        ? {
          host,
          connection: "Upgrade",
          upgrade: "websocket",
          "sec-websocket-version": "13",
          "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ=="
        }
        : { host }
    })
    outgoing.on("upgrade", (_response, socket) => {
      socket.destroy()
      resume(Effect.succeed({ status: 101, body: "" }))
    })
    outgoing.on("response", (response) => {
      const chunks: Array<Buffer> = []
      response.on("data", (chunk: Buffer) => chunks.push(chunk))
      response.on("end", () =>
        resume(Effect.succeed({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString() })))
    })
    outgoing.on("error", (error) =>
      resume(Effect.die(error)))
    outgoing.end()
  })

describe("Sandbox hosts", () => {
  it.live("on loopback: a request or push handshake to another name is refused 403 before the exchange sees it", () =>
    Effect.gen(function*() {
      const { port } = yield* Sandbox.Sandbox
      const exchange = yield* TestExchange.TestExchange
      const before = (yield* exchange.requests).length

      const rebound = yield* send(port, `attacker.example:${port}`, false)
      assert.strictEqual(rebound.status, 403)
      assert.include(rebound.body, "host not allowed")
      assert.strictEqual((yield* exchange.requests).length, before)
      assert.strictEqual((yield* send(port, `attacker.example:${port}`, true)).status, 403)
      assert.strictEqual((yield* send(port, "127.0.0.1.attacker.example", true)).status, 403)

      for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`, `app.localhost:${port}`]) {
        assert.strictEqual((yield* send(port, host, false)).status, 200, host)
        assert.strictEqual((yield* send(port, host, true)).status, 101, host)
      }
      assert.strictEqual((yield* exchange.requests).length, before + 4)
    }).pipe(Effect.provide(sandbox)))

  it("what arrives on another address than loopback may name it any way; on loopback, loopback names only", () => {
    assert.isTrue(hostAllowed("192.168.1.20", "attacker.example"))
    assert.isTrue(hostAllowed("10.0.0.5", "sandbox.internal:8080"))
    assert.isTrue(hostAllowed("127.0.0.1", undefined))
    assert.isTrue(hostAllowed("::1", "[::1]:80"))
    assert.isTrue(hostAllowed("127.0.0.1", "LOCALHOST"))
    // Loopback however the bound address was spelt: 127.1, an IPv4-mapped address, 0.0.0.0 reached through 127.0.0.1.
    assert.isFalse(hostAllowed("127.0.0.1", "localhost.attacker.example"))
    assert.isFalse(hostAllowed("::ffff:127.0.0.1", "attacker.example"))
    assert.isFalse(hostAllowed("127.5.6.7", "attacker.example:80"))
    assert.isFalse(hostAllowed("127.0.0.1", "[::ffff:7f00:1]:80"))
    assert.isFalse(hostAllowed("127.0.0.1", "127.0.0.1:80@attacker.example"))
    assert.isFalse(hostAllowed("127.0.0.1", "localhost."))
  })
})
