/**
 * The built `spotkit watch balances --log-level debug` against a hostile push venue (review finding 1), REST from the
 * sandbox: the venue acknowledges the private subscriptions, then sends error frames for no channel that echo the
 * handshake (the API key, the passphrase, the signature) with terminal escapes, and closes each connection with a
 * reason that echoes them too. On stderr: no credential, no signature sent, no control character; the warning about
 * those error frames once (not once per frame); the close reasons scrubbed and printable in the reconnect notes and
 * the debug lines.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import { TestExchange } from "@spotkit/testkit"
import { Effect } from "effect"
import { aliceEnv, linesOf, runBuilt, sandboxLayer } from "../support/cli.ts"
import { acknowledging, hostilePushServer } from "../support/hostilePush.ts"

const alice = TestExchange.demoKeys.alice

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/

describe("spotkit watch against a hostile push venue", () => {
  const { layer } = sandboxLayer({ seed: 5, bills: 0 })

  it.layer(layer, { excludeTestServices: true, timeout: "60 seconds" })("REST from the sandbox", (it) => {
    it.effect("stderr: no credential or signature, no escape, one warning for many error frames", () =>
      Effect.gen(function*() {
        const signatures: Array<string> = []
        const server = yield* hostilePushServer(acknowledging((connection, channel) => {
          const headers = connection.request.headers
          const sign = String(headers["access-sign"])
          signatures.push(sign)
          const echo = `login failed key=${headers["access-key"]} pass=${headers["access-passphrase"]} sign=${sign} ` +
            `\u001b]0;pwned\u0007\u001b[2J`
          for (let i = 0; i < 20; i++) connection.ws.send(JSON.stringify({ event: "error", code: "30001", msg: echo }))
          if (channel === "account") {
            setTimeout(() => connection.ws.close(4000, `bye ${headers["access-passphrase"]} ${sign} \u001b[2J`), 500)
          }
        }))
        const env = { ...(yield* aliceEnv), SPOTKIT_PUSH_URL: server.url }
        const run = yield* runBuilt(["watch", "balances", "--for", "3s", "--log-level", "debug"], env)
        assert.strictEqual(run.exitCode, 0, run.stderr)
        assert.isAtLeast(server.connections.length, 2, "the venue closed the first connection: a reconnect")
        for (const secret of [alice.apiKey, alice.passphrase, alice.secretKey, ...signatures]) {
          assert.notInclude(run.stderr, secret)
        }
        for (const line of linesOf(run.stderr)) assert.notMatch(line, CONTROL, line)
        const warnings = linesOf(run.stderr).filter((line) => line.includes("the venue sent an error"))
        assert.strictEqual(warnings.length, 1, run.stderr)
        assert.include(warnings[0]!, "WARN")
        assert.include(warnings[0]!, "(code 30001): login failed key=<redacted> pass=<redacted> sign=<redacted>")
        assert.include(warnings[0]!, "\\u001b]0;pwned\\u0007")
        assert.include(run.stderr, "SocketCloseError: 4000: bye <redacted> <redacted> \\u001b[2J")
        assert.isTrue(linesOf(run.stderr).some((line) => line.includes("DEBUG") && line.includes("ended (")))
      }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))
  })
})
