// The clientOrderIds the client makes for orders given none (and the CLI, through `Order.newClientOrderId`, for an
// order it must be able to name before the venue answers).
import { Clock, Effect, type Fiber, Random } from "effect"

// A random integer in [0, 2^30], as `Random.nextIntBetween(0, 2 ** 30)` draws it.
const draw = (random: Random.Random): number => Math.floor(random.nextDoubleUnsafe() * (2 ** 30 + 1))

/**
 * A fresh clientOrderId from the fiber's Clock and Random, at once: `sk`, the time and 60 random bits in base 36 (22
 * characters of `[a-z0-9]`).
 */
export const clientOrderIdOf = (fiber: Fiber.Fiber<unknown, unknown>): string => {
  const now = fiber.getRef(Clock.Clock).currentTimeMillisUnsafe()
  const random = fiber.getRef(Random.Random)
  const a = draw(random)
  const b = draw(random)
  return `sk${Math.floor(now).toString(36)}${a.toString(36).padStart(6, "0")}${b.toString(36).padStart(6, "0")}`
}

/** A fresh clientOrderId (`clientOrderIdOf`). */
export const newClientOrderId: Effect.Effect<string> = Effect.withFiber((fiber) =>
  Effect.succeed(clientOrderIdOf(fiber))
)
