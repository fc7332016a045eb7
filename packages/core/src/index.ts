/**
 * @spotkit/core — a typed Effect client for the spot-trading and account interface.
 *
 * @since 0.1.0
 */

/**
 * The spot account's balances.
 *
 * @since 0.1.0
 */
export * as Account from "./Account.ts"

/**
 * Funding-account bills.
 *
 * @since 0.1.0
 */
export * as Bill from "./Bill.ts"

/**
 * Cancels: requests, the venue's answers, typed outcomes.
 *
 * @since 0.1.0
 */
export * as Cancel from "./Cancel.ts"

/**
 * An HTTP response whose body is already in memory.
 *
 * @since 0.1.0
 */
export * as BufferedResponse from "./BufferedResponse.ts"

/**
 * The standard response envelope.
 *
 * @since 0.1.0
 */
export * as Envelope from "./Envelope.ts"

/**
 * Fills of an account's orders.
 *
 * @since 0.1.0
 */
export * as Fill from "./Fill.ts"

/**
 * Lossless JSON.
 *
 * @since 0.1.0
 */
export * as Json from "./Json.ts"

/**
 * Public market data: symbols, their trading rules, server time.
 *
 * @since 0.1.0
 */
export * as Market from "./Market.ts"

/**
 * Orders, batches, open orders, order state and history.
 *
 * @since 0.1.0
 */
export * as Order from "./Order.ts"

/**
 * Decimals, trading pairs, ids, timestamps.
 *
 * @since 0.1.0
 */
export * as Primitives from "./Primitives.ts"

/**
 * Every fact about the venue's push interface: paths, handshake signing, limits, channels, frame codecs.
 *
 * @since 0.1.0
 */
export * as Push from "./Push.ts"

/**
 * The error of the push streams.
 *
 * @since 0.1.0
 */
export * as PushError from "./PushError.ts"

/**
 * What the push streams deliver: each stream's element, field by field.
 *
 * @since 0.1.0
 */
export * as PushModel from "./PushModel.ts"

/**
 * Where the client's rate-limit budgets live: in memory, or in Redis to share them between processes.
 *
 * @since 0.1.0
 */
export * as RateLimitStore from "./RateLimitStore.ts"

/**
 * Texts from the network made safe to show: credentials scrubbed in every encoding, one printable line.
 *
 * @since 0.1.0
 */
export * as SafeText from "./SafeText.ts"

/**
 * Request signing.
 *
 * @since 0.1.0
 */
export * as Signer from "./Signer.ts"

/**
 * The client service.
 *
 * @since 0.1.0
 */
export * as SpotClient from "./SpotClient.ts"

/**
 * Push streams: books, tickers, orders, fills and balances as the venue pushes them, gap-free across reconnects.
 *
 * @since 0.1.0
 */
export * as SpotPush from "./SpotPush.ts"

/**
 * The error type.
 *
 * @since 0.1.0
 */
export * as SpotError from "./SpotError.ts"

/**
 * What the client reports about itself: metrics, span events and the events a program may listen to.
 *
 * @since 0.1.0
 */
export * as Telemetry from "./Telemetry.ts"

/**
 * Internal transfers.
 *
 * @since 0.1.0
 */
export * as Transfer from "./Transfer.ts"

/**
 * Every fact about the venue: endpoints, signing, codes, limits.
 *
 * @since 0.1.0
 */
export * as Venue from "./Venue.ts"
