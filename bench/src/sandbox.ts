// The sandbox in this process and the environment of a CLI process against it as the demo user alice, shared by
// the benchmarks that run the built CLI or SpotClient processes (export.ts, budget.ts).
import { Sandbox, TestExchange } from "@spotkit/testkit"
import { Context, Effect, Exit, Layer, Scope } from "effect"

export interface Running {
  readonly exchange: TestExchange.Service
  readonly baseUrl: string
  readonly close: () => Promise<void>
}

/** A test exchange with these options behind the loopback sandbox, until `close`. */
export const startSandbox = async (options: TestExchange.Options): Promise<Running> => {
  const scope = Effect.runSync(Scope.make())
  const layer = Sandbox.layer().pipe(Layer.provideMerge(TestExchange.layer(options)))
  const context = await Effect.runPromise(Layer.buildWithScope(layer, scope))
  return {
    exchange: Context.get(context, TestExchange.TestExchange),
    baseUrl: Context.get(context, Sandbox.Sandbox).baseUrl,
    close: () => Effect.runPromise(Scope.close(scope, Exit.void))
  }
}

/** The environment of a process that reads its client from SPOTKIT_* as alice against `running`, plus `extra`. */
export const aliceEnv = (running: Running, extra: Record<string, string> = {}): Record<string, string> => {
  const alice = TestExchange.demoKeys.alice
  return {
    PATH: process.env.PATH ?? "",
    SPOTKIT_BASE_URL: running.baseUrl,
    SPOTKIT_API_KEY: alice.apiKey,
    SPOTKIT_SECRET_KEY: alice.secretKey,
    SPOTKIT_PASSPHRASE: alice.passphrase,
    ...extra
  }
}
