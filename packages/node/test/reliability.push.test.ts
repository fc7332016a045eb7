/**
 * Push reconnect storm (issue #24) over real WebSockets: the sandbox's push venue drops every connection as soon as
 * it opens (`storm`), and several `NodeSpotPush` clients — each with its own `RateLimitStore` over one real Redis, as
 * separate processes would have — reconnect as fast as their backoff lets them (1–5 ms), each on the public and the
 * private endpoint. Together they must make exactly the venue's connection budget of attempts (300 per 5 minutes),
 * never one more, however long the storm lasts; the budget is counted in Redis. When the storm ends, a client whose
 * budget is spent stays quiet until its window reopens.
 *
 * Default suite: 3 clients watched for 4 s. `pnpm test:reliability`: 8 clients watched for 30 s.
 */
import { assert, describe, it } from "@effect/vitest"
import { Push, SpotPush } from "@spotkit/core"
import { PushVenue, Sandbox, TestExchange } from "@spotkit/testkit"
import { Context, Effect, Layer, Redacted, Stream } from "effect"
import { NodeSpotClient, NodeSpotPush } from "../src/index.ts"
import { redisServer } from "./support/redisServer.ts"
import { full, report, testTimeout } from "./support/reliability.ts"

const alice = TestExchange.demoKeys.alice

const server = PushVenue.layerSandbox().pipe(
  Layer.provideMerge(PushVenue.layer()),
  Layer.provideMerge(TestExchange.layer({ ...TestExchange.demo({ bills: 0 }), rateLimits: false }))
)

describe("reliability: push", () => {
  it.live(
    "a reconnect storm: the clients' attempts together stay within the budget counted in Redis",
    () =>
      Effect.gen(function*() {
        const sandbox = yield* Sandbox.Sandbox
        const venue = yield* PushVenue.PushVenue
        const redis = yield* redisServer
        const clients = full ? 8 : 3
        const watchMillis = full ? 30_000 : 4_000
        const credentials = {
          apiKey: Redacted.make(alice.apiKey),
          secretKey: Redacted.make(alice.secretKey),
          passphrase: Redacted.make(alice.passphrase)
        }
        yield* venue.setFaults({ storm: true })
        const started = Date.now()
        for (let i = 0; i < clients; i++) {
          const layer = NodeSpotPush.layer({
            url: PushVenue.pushUrl(sandbox),
            credentials,
            redis: { url: redis.url },
            backoff: { initial: "1 millis", max: "5 millis" }
          }).pipe(Layer.provide(NodeSpotClient.layer({ baseUrl: sandbox.baseUrl, credentials, rateLimit: false })))
          const push = Context.get(yield* Layer.build(layer), SpotPush.SpotPush)
          yield* Effect.forkScoped(Stream.runDrain(push.watchBook("BTCUSDT_SPBL")))
          yield* Effect.forkScoped(Stream.runDrain(push.watchBalances()))
        }
        // Attempts sampled every 50 ms: when the budget was spent, and that it never went beyond.
        let spentAfter: number | undefined
        let most = 0
        while (Date.now() - started < watchMillis) {
          yield* Effect.sleep(50)
          const attempts = (yield* venue.stats).attempts
          most = Math.max(most, attempts)
          if (spentAfter === undefined && attempts >= Push.limits.connectionAttempts.limit) {
            spentAfter = Date.now() - started
          }
        }
        // The storm ends: the budget is spent for the rest of its window, so nobody dials.
        yield* venue.setFaults({})
        yield* Effect.sleep(1_000)
        const stats = yield* venue.stats
        const keys = redis.cli("--scan", "--pattern", "spotkit:*push*").split("\n").filter((k) => k !== "")
        const counted = keys.map((key) => {
          const type = redis.cli("TYPE", key).trim()
          return { key, type, value: type === "zset" ? redis.cli("ZCARD", key).trim() : redis.cli("GET", key).trim() }
        })
        yield* report("push-storm", {
          clients,
          budget: Push.limits.connectionAttempts,
          watchedMillis: watchMillis,
          attempts: stats.attempts,
          mostSeen: most,
          spentAfterMillis: spentAfter,
          opened: stats.opened,
          refusedByVenue: stats.refused,
          redis: counted
        })
        assert.strictEqual(stats.attempts, Push.limits.connectionAttempts.limit)
        assert.strictEqual(most, Push.limits.connectionAttempts.limit)
        assert.isDefined(spentAfter, "the storm spent the budget")
        // The venue counts the same: it refused none (its own limit is the same budget).
        assert.strictEqual(stats.refused, 0)
        assert.isTrue(counted.some((c) => c.value === String(Push.limits.connectionAttempts.limit)), "counted in Redis")
      }).pipe(Effect.provide(server)),
    testTimeout(30_000, 120_000)
  )
})
