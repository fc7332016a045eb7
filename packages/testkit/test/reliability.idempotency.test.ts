/**
 * Idempotency soak (issue #6): placements over the sandbox on loopback while 20 % of the applied placements lose
 * their answer (the connection drops after the venue placed the order). Exactly one engine order per clientOrderId;
 * every call ends with the engine's orderId for its clientOrderId or a reason that says the order may exist.
 *
 * Default suite: 400 placements. `pnpm test:reliability`: 10,000.
 */
import { describe, it } from "@effect/vitest"
import { reported, sized, testTimeout } from "./support/reliability.ts"
import { idempotencySoak } from "./support/soak.ts"

describe("reliability: idempotency soak", () => {
  it.live(
    "one order per clientOrderId while 20 % of the answers are lost after applying",
    () => reported("idempotency", idempotencySoak({ placements: sized(400, 10_000) })),
    testTimeout(30_000, 1_800_000)
  )
})
