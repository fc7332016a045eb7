/**
 * The figures of the node package's reliability suites (`reliability.*.test.ts`), as the testkit's harness writes
 * its own: sizes reduced by default, full under `SPOTKIT_RELIABILITY=full` (as `pnpm test:reliability` sets it).
 */
import { Effect } from "effect"
import { mkdirSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

/** Whether the long runs were asked for. */
export const full = process.env.SPOTKIT_RELIABILITY === "full"

/** Vitest timeout of a test whose full run takes long. */
export const testTimeout = (reducedMillis: number, fullMillis: number): number => full ? fullMillis : reducedMillis

const resultsDir = join(dirname(fileURLToPath(import.meta.url)), "..", "results")

/**
 * Reports a test's figures: one summary line on stderr, and in a full run also
 * `packages/node/test/results/reliability-<name>.json` (the figures RELIABILITY.md quotes).
 */
export const report = (name: string, figures: Record<string, unknown>) =>
  Effect.sync(() => {
    const record = { test: name, mode: full ? "full" : "reduced", ...figures }
    process.stderr.write(`reliability ${JSON.stringify(record)}\n`)
    if (!full) return
    mkdirSync(resultsDir, { recursive: true })
    writeFileSync(join(resultsDir, `reliability-${name}.json`), `${JSON.stringify(record, null, 2)}\n`)
  })
