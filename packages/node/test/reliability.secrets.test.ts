/**
 * Secrets (issue #6) in the `spotkit` CLI's output: eleven commands (exports, orders, a batch with bad items, a
 * transfer, a venue refusal, a wrong secret, a missing variable, bad input) run against a sandbox that records the
 * signatures it receives; no secret key, passphrase, API key (nor the first 10 characters of one) and no signature
 * the CLI sent may appear in their stdout or stderr. The testkit's `reliability.secrets.test.ts` searches the
 * library's logs, spans, errors and the sandbox's answers the same way, with the same collector.
 */
import { assert, describe, it } from "@effect/vitest"
import { TestExchange } from "@spotkit/testkit"
import { Effect } from "effect"
import { assertNoLeak, Collector } from "../../testkit/test/support/secrets.ts"
import { cliOutputs, wrongSecret } from "./support/cliOutput.ts"

const credentials = [
  ...Object.values(TestExchange.demoKeys).flatMap((key) => [key.apiKey, key.secretKey, key.passphrase]),
  wrongSecret
]

describe("reliability: secrets", () => {
  it.live("no credential or signature in any stdout or stderr of the CLI", () =>
    Effect.gen(function*() {
      const collector = new Collector()
      const cliCodes = yield* cliOutputs(collector)
      assert.isAbove(collector.signatures.size, 5, "signatures of the CLI's requests")
      // The runs ended as designed (success, venue refusal, bad input), so their output is what users see.
      assert.deepStrictEqual(cliCodes, [0, 0, 0, 0, 1, 0, 1, 0, 1, 2, 2])
      assert.isAbove(collector.sources["cli"] ?? 0, 0, "texts from cli")
      assertNoLeak(collector, credentials)
    }), 60_000)
})
