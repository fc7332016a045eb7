/**
 * @spotkit/testkit: a deterministic, stateful in-memory spot exchange for tests of programs built on
 * `@spotkit/core`.
 *
 * @since 0.1.0
 */

/**
 * @since 0.1.0
 */
export * as Engine from "./Engine.ts"

/**
 * @since 0.1.0
 */
export * as EngineUnits from "./EngineUnits.ts"

/**
 * @since 0.1.0
 */
export * as Fault from "./Fault.ts"

/**
 * @since 0.1.0
 */
export * as TestExchange from "./TestExchange.ts"

/**
 * @since 0.1.0
 */
export * as Sandbox from "./Sandbox.ts"

/**
 * @since 0.1.0
 */
export * as PushVenue from "./PushVenue.ts"
