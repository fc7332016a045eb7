/**
 * Shared harness of the reliability suites (`reliability.*.test.ts`): sizes (reduced by default, full under
 * `SPOTKIT_RELIABILITY=full`), figures, checksums, conservation, the fault mix, and a sandbox on loopback with core
 * clients over a real `HttpClient` (undici). Every runner takes an optional `Collector` (support/secrets.ts) so the
 * secrets suite can replay each scenario and inspect everything it produced.
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { assert } from "@effect/vitest"
import { SpotClient, SpotError } from "@spotkit/core"
import { Cause, Effect, Exit, Layer } from "effect"
import { HttpClient } from "effect/http"
import { createHash } from "node:crypto"
import { mkdirSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { Fault, Sandbox, TestExchange } from "../../src/index.ts"
import type { Engine } from "../../src/index.ts"
import { units } from "./conformance.ts"
import type { Collector } from "./secrets.ts"

// ---------------------------------------------------------------------------------------------------------------
// Sizes and figures

/** Whether the long runs were asked for (`SPOTKIT_RELIABILITY=full`, as `pnpm test:reliability` sets it). */
export const full = process.env.SPOTKIT_RELIABILITY === "full"

/** The reduced size in the default suite, the full size in the long run. */
export const sized = (reduced: number, fullSize: number): number => full ? fullSize : reduced

/** Vitest timeout of a test whose full run takes long. */
export const testTimeout = (reducedMillis: number, fullMillis: number): number => full ? fullMillis : reducedMillis

const resultsDir = join(dirname(fileURLToPath(import.meta.url)), "..", "results")

/**
 * Reports a test's figures: one summary line on stderr, and in a full run also
 * `test/results/reliability-<name>.json` (the figures RELIABILITY.md quotes).
 */
export const report = (name: string, figures: Record<string, unknown>) =>
  Effect.sync(() => {
    const record = { test: name, mode: full ? "full" : "reduced", ...figures }
    process.stderr.write(`reliability ${JSON.stringify(record)}\n`)
    if (!full) return
    mkdirSync(resultsDir, { recursive: true })
    writeFileSync(join(resultsDir, `reliability-${name}.json`), `${JSON.stringify(record, null, 2)}\n`)
  })

/** Runs a test's runner and reports the figures it answers. */
export const reported = <A extends Record<string, unknown>, E>(name: string, run: Effect.Effect<A, E>) =>
  Effect.flatMap(run, (figures) => report(name, figures))

/** sha256 (hex) over rows sorted by code unit, one per line: equal sets of rows give equal checksums. */
export const checksum = (rows: Iterable<string>): string => {
  const hash = createHash("sha256")
  for (const row of Array.from(rows).sort()) hash.update(`${row}\n`)
  return hash.digest("hex")
}

/** Counts of each key. */
export const tally = (keys: Iterable<string>): Record<string, number> => {
  const counts: Record<string, number> = {}
  for (const key of keys) counts[key] = (counts[key] ?? 0) + 1
  return counts
}

/** How many ids occur again after their first occurrence. */
export const duplicatesOf = (ids: ReadonlyArray<string>): number => ids.length - new Set(ids).size

/** No coin created or destroyed: for every coin, held + fees == supply, exactly. */
export const assertConserved = (exchange: TestExchange.Service) =>
  Effect.map(exchange.totals, (totals) => {
    for (const total of totals) {
      assert.strictEqual(units(total.held) + units(total.fees), units(total.supply), `${total.coin}: conservation`)
    }
    return totals
  })

/**
 * Asserts that an exit is a success or a failure whose every reason is a typed `SpotError` (no defect, no
 * interruption) and answers the reason's tag, or "success".
 */
export const outcomeTag = <A, E>(exit: Exit.Exit<A, E>, what: string): string => {
  if (Exit.isSuccess(exit)) return "success"
  const reasons = exit.cause.reasons
  assert.isNotEmpty(reasons, `${what}: a failure with a reason`)
  for (const reason of reasons) {
    if (!Cause.isFailReason(reason)) assert.fail(`${what}: not a typed failure:\n${Cause.pretty(exit.cause)}`)
    assert.instanceOf(reason.error, SpotError.SpotError, `${what}: ${String(reason.error)}`)
  }
  return (reasons[0] as Cause.Fail<SpotError.SpotError>).error.reason._tag
}

// ---------------------------------------------------------------------------------------------------------------
// Faults

/** The fault kinds of the soak (issue #6): 5xx, 429, dropped connections, timeouts, latency, malformed, truncated. */
export const soakFaults: ReadonlyArray<Fault.Fault> = [
  Fault.httpError(503),
  Fault.rateLimited,
  Fault.drop,
  Fault.timeout,
  Fault.latency(20),
  Fault.malformed,
  Fault.truncated
]

/**
 * Rules under which each fault strikes `share / faults.length` of the requests to `path`, `share` in all. The
 * exchange tries rules in order, each with its own draw, so rule i gets the share of the requests the rules before
 * it let through.
 */
export const faultMix = (faults: ReadonlyArray<Fault.Fault>, share: number, path?: string): Array<Fault.Rule> => {
  const each = share / faults.length
  return faults.map((fault, i) => ({ fault, path, share: each / (1 - i * each) }))
}

/** What the exchange's request log says: requests, and faults that acted, by kind. */
export const wireFigures = (exchange: TestExchange.Service) =>
  Effect.map(exchange.requests, (records) => {
    const faults = tally(records.flatMap((record) => record.fault === undefined ? [] : [record.fault]))
    return {
      requests: records.length,
      faultsInjected: Object.values(faults).reduce((a, b) => a + b, 0),
      faultsByKind: faults
    }
  })

// ---------------------------------------------------------------------------------------------------------------
// The sandbox harness

/** Keeps every request record of a long run (the default ring keeps 10,000). */
export const REQUEST_LOG = 5_000_000

/** And in as many bytes as they take (the default keeps 16 MiB): a long run's records are small, its bodies too. */
export const REQUEST_LOG_BYTES = 4 * 1024 * 1024 * 1024

export interface Harness {
  readonly exchange: TestExchange.Service
  readonly baseUrl: string
  /** A core client over undici to the sandbox, as the account (default alice), with these options. */
  readonly client: (
    options?: Partial<SpotClient.Options> & { readonly account?: TestExchange.Account | undefined }
  ) => Effect.Effect<SpotClient.Service>
}

/**
 * Runs `body` against a fresh exchange served by the sandbox on loopback. Clients talk HTTP through undici; with a
 * collector, every request's signature is recorded and logs and spans are captured.
 */
export const withSandbox = <A, E>(
  options: TestExchange.Options,
  body: (harness: Harness) => Effect.Effect<A, E>,
  collector?: Collector | undefined
): Effect.Effect<A, E | Sandbox.SandboxError | Engine.EngineError> => {
  const program = Effect.gen(function*() {
    const exchange = yield* TestExchange.TestExchange
    const { baseUrl } = yield* Sandbox.Sandbox
    const undici = yield* HttpClient.HttpClient
    const http = collector === undefined ? undici : collector.tap(undici)
    const client: Harness["client"] = (overrides = {}) => {
      const { account, ...rest } = overrides
      return SpotClient.make({
        baseUrl,
        credentials: (account ?? exchange.accounts[0]!).credentials,
        rateLimit: false,
        ...rest
      }).pipe(Effect.provideService(HttpClient.HttpClient, http))
    }
    return yield* body({ exchange, baseUrl, client })
  })
  const layer = Layer.mergeAll(Sandbox.layer(), NodeHttpClient.layerUndici).pipe(
    Layer.provideMerge(
      TestExchange.layer({ requestLogSize: REQUEST_LOG, requestLogBytes: REQUEST_LOG_BYTES, ...options })
    )
  )
  const provided = Effect.provide(program, layer)
  return collector === undefined ? provided : Effect.provide(provided, collector.layer)
}

/** The demo exchange (alice, bob with liquidity) with `bills` funding bills of alice and the venue limits off. */
export const demoExchange = (bills: number, options: Partial<TestExchange.Options> = {}): TestExchange.Options => ({
  ...TestExchange.demo({ bills }),
  rateLimits: false,
  ...options
})
