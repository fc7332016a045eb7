/**
 * The sandbox with its push endpoints over the test exchange (alice's account, no rate limits), the `SPOTKIT_*`
 * variables that reach it as alice, and `NodeSpotPush` over `NodeSpotClient` configured from such variables.
 */
import { PushVenue, Sandbox, TestExchange } from "@spotkit/testkit"
import { ConfigProvider, Effect, Layer } from "effect"
import { NodeSpotClient, NodeSpotPush } from "../../src/index.ts"

export const alice = TestExchange.demoKeys.alice

/** The sandbox's HTTP and push endpoints over the demo exchange without bills or rate limits. */
export const pushSandbox = PushVenue.layerSandbox().pipe(
  Layer.provideMerge(PushVenue.layer()),
  Layer.provideMerge(TestExchange.layer({ ...TestExchange.demo({ bills: 0 }), rateLimits: false }))
)

/** The variables that reach the sandbox as alice. */
export const pushEnv = Effect.map(Sandbox.Sandbox, (sandbox) => ({
  SPOTKIT_BASE_URL: sandbox.baseUrl,
  SPOTKIT_PUSH_URL: PushVenue.pushUrl(sandbox),
  SPOTKIT_API_KEY: alice.apiKey,
  SPOTKIT_SECRET_KEY: alice.secretKey,
  SPOTKIT_PASSPHRASE: alice.passphrase,
  SPOTKIT_RATE_LIMIT: "off"
}))

/** `NodeSpotPush.layerConfig()` over `NodeSpotClient.layerConfig()`, both reading `record`. */
export const pushFromConfig = (record: Record<string, string>) =>
  NodeSpotPush.layerConfig().pipe(
    Layer.provideMerge(NodeSpotClient.layerConfig()),
    Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnvRecord(record)))
  )
