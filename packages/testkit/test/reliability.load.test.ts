/**
 * Load (issue #6): many clients, each its own user and key, run mixed traffic against the sandbox on loopback as fast
 * as it answers, while 1 % of the requests meet a fault the venue did not apply. No request fails without an
 * injected fault, and the state is consistent afterwards (see `support/soak.ts`, `load`).
 *
 * Default suite: 8 clients for 2 s. `pnpm test:reliability`: 64 clients for 30 s.
 */
import { describe, it } from "@effect/vitest"
import { full, reported, testTimeout } from "./support/reliability.ts"
import { load } from "./support/soak.ts"

describe("reliability: load", () => {
  it.live(
    "mixed traffic of many clients: no failure without a fault, consistent state",
    () => reported("load", load(full ? { clients: 64, seconds: 30 } : { clients: 8, seconds: 2 })),
    testTimeout(30_000, 600_000)
  )
})
