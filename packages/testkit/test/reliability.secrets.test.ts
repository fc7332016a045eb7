/**
 * Secrets (issue #6): one collector gathers every log line (all levels), span (names, attributes including request
 * headers, events, failure causes), rendering of every call's exit (String, message, JSON, inspect, Cause.pretty)
 * and every answer of the sandbox produced while each reliability suite runs once more at a small size: fault soak,
 * idempotency soak, load, response fuzzing, request fuzzing. No secret key, passphrase, API key (nor the first 10
 * characters of one) and no signature any client sent may appear in any of them.
 *
 * The `spotkit` CLI's output is searched the same way by the Node package's `reliability.secrets.test.ts`.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { TestExchange } from "../src/index.ts"
import { fuzzCredentials, requestFuzz, responseFuzz } from "./support/fuzz.ts"
import { assertNoLeak, Collector } from "./support/secrets.ts"
import { billsSoak, idempotencySoak, load, loadKeys, openOrdersSoak } from "./support/soak.ts"

const LOAD_CLIENTS = 3

const credentials = [
  ...Object.values(TestExchange.demoKeys).flatMap((key) => [key.apiKey, key.secretKey, key.passphrase]),
  ...loadKeys(LOAD_CLIENTS).flatMap((key) => [key.apiKey, key.secretKey, key.passphrase]),
  ...fuzzCredentials
]

describe("reliability: secrets", () => {
  it.live(
    "no credential or signature in any log line, span, error rendering or answer of the suites",
    () =>
      Effect.gen(function*() {
        const collector = new Collector()
        yield* billsSoak({ bills: 500, pageSize: 10 }, collector)
        yield* openOrdersSoak({ orders: 200, pageSize: 10 }, collector)
        yield* idempotencySoak({ placements: 80 }, collector)
        yield* load({ clients: LOAD_CLIENTS, seconds: 1 }, collector)
        yield* responseFuzz({ cases: 500, seed: 6_003 }, collector)
        yield* requestFuzz({ cases: 300, seed: 6_004, concurrency: 8 }, collector)

        // The collector saw every kind of source, and the signatures to look for.
        const sources = collector.sources
        for (
          const source of ["log", "span", "bills export", "placement", "load transfer", "request fuzz answer"]
        ) {
          assert.isAbove(sources[source] ?? 0, 0, `texts from ${source}`)
        }
        assert.isTrue(Object.keys(sources).some((source) => source.startsWith("fuzz ")), "fuzzed calls")
        // Distinct signatures: requests of one body signed within one millisecond share one.
        assert.isAbove(collector.signatures.size, 200)
        assertNoLeak(collector, credentials)
      }),
    60_000
  )

  it("the search finds a credential, a prefix of one and a signature in any source, escaped or not", () => {
    const collector = new Collector()
    const signature = "n6Qm7eE1yKk0uZrXyP5dD9vX0pJ1sH2aB3cD4eF5g/Y="
    collector.signatures.add(signature)
    collector.add("cli", [
      "exported 3 bills",
      `error: ${TestExchange.demoKeys.alice.secretKey}`,
      `{"sign":"${signature.replaceAll("/", "\\/")}"}`,
      `passphrase ${TestExchange.demoKeys.bob.passphrase.slice(0, 10)}…`
    ])
    const leaks = collector.leaks(credentials)
    assert.sameDeepMembers(leaks.map((leak) => [leak.source, leak.secret]), [
      ["cli", TestExchange.demoKeys.alice.secretKey],
      ["cli", TestExchange.demoKeys.alice.secretKey.slice(0, 10)],
      ["cli", "a signature"],
      ["cli", TestExchange.demoKeys.bob.passphrase.slice(0, 10)]
    ])
  })
})
