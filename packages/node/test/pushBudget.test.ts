/**
 * The push connection-attempt budget in a shared Redis is named by the venue's host, as REST's budgets are: a
 * reconnect storm against one venue (a staging host, a sandbox) spends its own budget, and a client of another venue
 * on the same Redis connects at once.
 */
import { assert, describe, it } from "@effect/vitest"
import { SpotPush } from "@spotkit/core"
import { PushVenue, Sandbox, TestExchange } from "@spotkit/testkit"
import { Context, Effect, Layer, Redacted, Stream } from "effect"
import { NodeSpotClient, NodeSpotPush } from "../src/index.ts"
import { alice } from "./support/pushSandbox.ts"
import { redisServer } from "./support/redisServer.ts"

const venueLayer = () =>
  PushVenue.layerSandbox().pipe(
    Layer.provideMerge(PushVenue.layer()),
    Layer.provideMerge(TestExchange.layer({ ...TestExchange.demo({ bills: 0 }), rateLimits: false }))
  )

const credentials = {
  apiKey: Redacted.make(alice.apiKey),
  secretKey: Redacted.make(alice.secretKey),
  passphrase: Redacted.make(alice.passphrase)
}

describe("the push connection-attempt budget on a shared Redis", () => {
  it.live(
    "a storm against venue A spends A's budget only: a client of venue B on the same Redis connects at once",
    () =>
      Effect.gen(function*() {
        const redis = yield* redisServer
        const a = yield* Layer.build(venueLayer())
        const b = yield* Layer.build(venueLayer())
        const venueA = Context.get(a, PushVenue.PushVenue)
        const venueB = Context.get(b, PushVenue.PushVenue)
        yield* venueA.setFaults({ storm: true })
        const client = (sandbox: Sandbox.Service) =>
          NodeSpotPush.layer({
            url: PushVenue.pushUrl(sandbox),
            credentials,
            redis: { url: redis.url },
            backoff: { initial: "1 millis", max: "5 millis" },
            limits: { connectionAttempts: { limit: 6, windowMillis: 60_000 } }
          }).pipe(Layer.provide(NodeSpotClient.layer({ baseUrl: sandbox.baseUrl, credentials, rateLimit: false })))
        const pushA = Context.get(yield* Layer.build(client(Context.get(a, Sandbox.Sandbox))), SpotPush.SpotPush)
        yield* Effect.forkScoped(Stream.runDrain(pushA.watchBook("BTCUSDT_SPBL")))
        yield* Effect.sleep(1_500)
        assert.strictEqual((yield* venueA.stats).attempts, 6, "venue A's client spent its budget")
        const pushB = Context.get(yield* Layer.build(client(Context.get(b, Sandbox.Sandbox))), SpotPush.SpotPush)
        const book = yield* Stream.runHead(pushB.watchBook("BTCUSDT_SPBL")).pipe(Effect.timeoutOption(8_000))
        assert.strictEqual(book._tag, "Some", "venue B's client connected, not held by venue A's storm")
        assert.strictEqual((yield* venueB.stats).attempts, 1)
        // Two budgets, one per venue's host, each under the address's name.
        const keys = redis.cli("--scan", "--pattern", "*push:*").split("\n").filter((key) =>
          /:push:[^:]+:\d+:default$/.test(key)
        )
        assert.strictEqual(keys.length, 2, keys.join(", "))
      }).pipe(Effect.scoped),
    { timeout: 30_000 }
  )
})
