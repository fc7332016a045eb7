// The sandbox example of packages/testkit/README.md, verbatim, so that it keeps compiling and passing.
import { assert, it } from "@effect/vitest"
import { SpotClient } from "@spotkit/core"
import { Effect, Layer } from "effect"
import { FetchHttpClient } from "effect/http"
import { Sandbox, TestExchange } from "../src/index.ts"

const SandboxLayer = Sandbox.layer().pipe(Layer.provideMerge(TestExchange.layer(TestExchange.demo({ bills: 0 }))))

// excludeTestServices: the sandbox on the real clock, as the programs that call it are.
it.layer(SandboxLayer, { excludeTestServices: true })("over loopback HTTP", (it) => {
  it.effect("serves the wall-clock time, and alice's balances signed with it", () =>
    Effect.gen(function*() {
      const sandbox = yield* Sandbox.Sandbox
      const exchange = yield* TestExchange.TestExchange
      const client = yield* SpotClient.make({
        baseUrl: sandbox.baseUrl,
        credentials: exchange.accounts[0]!.credentials
      }).pipe(Effect.provide(FetchHttpClient.layer))
      const serverTime = yield* client.serverTime()
      assert.isBelow(Math.abs(serverTime - Date.now()), 60_000) // 0 on it.layer's TestClock
      const balances = yield* client.balances()
      assert.isTrue(balances.some((b) => b.coinName === "USDT"))
    }))
})
