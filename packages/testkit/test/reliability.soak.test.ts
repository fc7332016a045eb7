/**
 * Fault soak (issue #6): exports over the sandbox on loopback, by the core client over undici, while 10 % of the
 * requests meet a fault spread over 5xx, 429, dropped connections, timeouts, latency, malformed and truncated bodies.
 * The exported set must equal the ledger exactly: none lost, none duplicated, equal checksums over every field.
 *
 * Default suite: 3,000 bills and 600 open orders, 10 a page. `pnpm test:reliability`: 100,000 bills and 10,000 open
 * orders (bills 100 a page, orders 10 a page).
 */
import { describe, it } from "@effect/vitest"
import { reported, sized, testTimeout } from "./support/reliability.ts"
import { billsSoak, openOrdersSoak } from "./support/soak.ts"

describe("reliability: fault soak", () => {
  it.live(
    "bills export under 10 % faults equals the ledger",
    () => reported("soak-bills", billsSoak({ bills: sized(3_000, 100_000), pageSize: sized(10, 100) })),
    testTimeout(30_000, 1_800_000)
  )

  it.live(
    "open-orders export under 10 % faults equals the engine's open orders",
    () => reported("soak-open-orders", openOrdersSoak({ orders: sized(600, 10_000), pageSize: 10 })),
    testTimeout(30_000, 1_800_000)
  )
})
