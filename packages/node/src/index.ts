/**
 * @spotkit/node: the Node layers of `@spotkit/core` (undici HTTP, node:crypto signing, configuration from the
 * environment) and the `spotkit` command-line tool.
 *
 * @since 0.1.0
 */

/**
 * @since 0.1.0
 */
export * as NodeSigner from "./NodeSigner.ts"

/**
 * @since 0.1.0
 */
export * as NodeSpotClient from "./NodeSpotClient.ts"

/**
 * @since 0.1.0
 */
export * as NodeSpotPush from "./NodeSpotPush.ts"
