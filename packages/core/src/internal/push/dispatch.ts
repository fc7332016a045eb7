// Reading one frame of a push connection and routing it: a ping answered with a pong, an acknowledgement making a
// subscription live (or an `unsubscribed` confirming one, or saying the venue dropped a live channel), an error frame
// refusing a subscription awaiting its answer (others logged, rate-limited), a data frame to its channel's feed (and
// counted per channel kind); what the subscriptions do with each is `subscriptions.ts`'s.
//
// Each message is read on its own: a binary frame is decoded as UTF-8 by itself (never with a decoder shared by the
// connection, where a frame cut inside a character would spoil the next one). A frame that is not UTF-8 JSON is
// dropped; on a private connection with a live channel it may have been an account event, so the connection is
// replaced (its session then reads what it missed from REST), on a public one it is logged (`FRAME_LOG_INTERVAL_MILLIS`).
// Nothing is inflated: the V2 interface shows no compression (only the legacy v1 stream, another protocol, gzips), and
// an inflation would let a small frame become a large message (`maxFrameBytes` bounds what the socket takes); a
// gzip-compressed frame is dropped as unreadable, and the warning says it was compressed. The first `orders` push a
// private connection carries is logged at debug level (scrubbed, cut): where the venue puts the orders in it is not
// documented, and a live check pins it from that line.
import { Effect, Result } from "effect"
import * as Push from "../../Push.ts"
import * as PushError from "../../PushError.ts"
import { RateLimitedWarning } from "./rateLimitedLog.ts"
import type { Live, Subscriptions } from "./subscriptions.ts"
import { KINDS } from "./telemetry.ts"
import type { VenueText } from "./venueText.ts"

/**
 * How often the warning about an error frame that names no channel of ours is logged, per connection: the first,
 * then at most one such line a minute (saying how many were not logged), however many the venue sends.
 */
export const ERROR_LOG_INTERVAL_MILLIS = 60_000

/**
 * How often the warning about a frame that could not be read (not UTF-8, not JSON) and was dropped is logged, per
 * connection: the first, then at most one such line a minute (saying how many were not logged).
 */
export const FRAME_LOG_INTERVAL_MILLIS = 60_000

// A non-streaming decode: every call starts afresh, so nothing of one message is carried into the next; `fatal`,
// so a frame that is not UTF-8 (cut inside a character) is refused rather than read with U+FFFD in its place.
const utf8 = new TextDecoder("utf-8", { fatal: true })

/** A message as text, each decoded on its own; `undefined` for bytes that are not UTF-8. */
export const textOf = (message: string | Uint8Array): string | undefined => {
  if (typeof message === "string") return message
  // Only bytes that are not UTF-8 are refused so: what is neither text nor bytes (a socket's defect) throws, and the
  // read loop ends the connection with it described.
  if (!(message instanceof Uint8Array)) return utf8.decode(message)
  const decoded = Result.try(() => utf8.decode(message))
  return Result.isSuccess(decoded) ? decoded.success : undefined
}

/** What the frames of a connection are read with: the connection it is (for the logs), and its subscriptions. */
export interface DispatchOptions {
  readonly id: number
  readonly endpoint: Push.Endpoint
  /** Makes what the venue says safe to quote. */
  readonly text: VenueText
  readonly now: () => number
  readonly subscriptions: Subscriptions
}

/** How the frames of one connection slot are read and routed, across its reconnections. */
export class Dispatch {
  /** Data frames read per channel kind since the metric was last updated (the connection's loop adds them). */
  readonly received: Array<number> = KINDS.map(() => 0)
  private readonly options: DispatchOptions
  // The warnings of the venue's error frames that fail no subscription, and of frames that could not be read.
  private readonly errorWarning = new RateLimitedWarning(ERROR_LOG_INTERVAL_MILLIS)
  private readonly unreadableWarning = new RateLimitedWarning(FRAME_LOG_INTERVAL_MILLIS)
  // Whether the first `orders` push was logged (once for the connection's life, across its reconnections).
  private ordersLogged = false

  constructor(options: DispatchOptions) {
    this.options = options
  }

  /** One frame: what it asks to run, if anything (a pong, a feed going live or failing). */
  frame(live: Live, message: string | Uint8Array): Effect.Effect<void> | undefined {
    const raw = textOf(message)
    const frame = raw === undefined ? undefined : Push.decodeFrame(raw)
    if (raw === undefined || frame === undefined) return this.unreadable(live, message)
    const { subscriptions } = this.options
    switch (frame._tag) {
      case "Ping":
        return live.send(Push.pongMessage(frame))
      case "Ack": {
        if (frame.event !== "unsubscribed") return subscriptions.acknowledge(live, frame.channel)
        // Not asked for, of a live channel: the venue dropped the subscription (its frames stop, a book would stay as
        // it was while other channels keep the connection from going idle). It is lost: subscribed again.
        const entry = subscriptions.unsubscribed(live, frame.channel)
        if (entry === undefined) return undefined
        return Effect.andThen(
          Effect.logWarning(
            `spotkit push: connection ${this.options.id}: the venue unsubscribed ${frame.channel}, subscribing it again`
          ),
          subscriptions.lost(live, frame.channel, entry, false)
        )
      }
      case "Error":
        return this.error(live, frame)
      case "Payload":
      case "TradeEvent": {
        const entry = subscriptions.channels.get(frame.channel)
        if (entry === undefined) return undefined
        if (entry.kind >= 0) this.received[entry.kind]!++
        if (entry.state === "active") entry.feed.onFrame(frame, live.control)
        else if (entry.state === "pending") entry.feed.onEarly?.(frame.channel, frame)
        if (this.ordersLogged || frame.channel !== Push.channels.orders || this.options.endpoint !== "private") {
          return undefined
        }
        this.ordersLogged = true
        return Effect.logDebug(
          `spotkit push: connection ${this.options.id}: the first orders push: ${this.options.text.line(raw, 4_000)}`
        )
      }
      case "Other":
        return undefined
    }
  }

  // An error frame: it refuses a subscription awaiting its answer, for good; otherwise it is logged, and one about a
  // live channel resubscribes it.
  private error(live: Live, frame: Extract<Push.Frame, { readonly _tag: "Error" }>): Effect.Effect<void> | undefined {
    const { subscriptions } = this.options
    const channel = frame.channel
    if (channel === undefined) return this.errorFrame(frame.code, frame.msg)
    // The answer to an unsubscription (the venue may no longer have carried the channel): nothing failed. (The
    // channel is quoted as the client wrote it.)
    if (subscriptions.answersUnsubscribe(live, channel)) {
      return this.errorFrame(frame.code, frame.msg, `${channel}, answering its unsubscription`)
    }
    const entry = subscriptions.channels.get(channel)
    if (entry === undefined) return this.errorFrame(frame.code, frame.msg)
    // Only a subscription awaiting its answer is refused by it, for good.
    if (entry.state === "pending") {
      const { text } = this.options
      return subscriptions.fail(
        channel,
        new PushError.VenueRefusedError({
          channel,
          code: frame.code === undefined ? undefined : text.scrub(frame.code),
          msg: frame.msg === undefined ? undefined : text.scrub(frame.msg)
        })
      )
    }
    // An error about a live channel that answers nothing the client asked: whether the venue still carries it is
    // in doubt, so it is subscribed afresh (a refusal of that subscription then fails it).
    const logged = this.errorFrame(
      frame.code,
      frame.msg,
      entry.state === "active" ? `the live ${channel}, subscribed again` : channel
    )
    if (entry.state !== "active") return logged
    const lost = subscriptions.lost(live, channel, entry, true)
    return logged === undefined ? lost : Effect.andThen(logged, lost)
  }

  // A frame that is not UTF-8 JSON. On a private connection whose channels are live it may have been an order, fill
  // or balance push: the connection is replaced, so that the session reads what it missed from REST, as for a push
  // that does not decode. Before any channel is live nothing is lost (the backfill that follows the acknowledgement
  // reads it from REST), and a venue that greets each connection with such a frame is not dialled for ever. Otherwise
  // it is dropped and logged (never quoted: only its kind and size): a public feed sees what is missing (a book's
  // versions), and a ticker's next push stands for the lost one.
  private unreadable(live: Live, message: string | Uint8Array): Effect.Effect<void> | undefined {
    const what = typeof message === "string"
      ? `a text frame of ${message.length} characters that is not JSON`
      : message[0] === 0x1f && message[1] === 0x8b
      ? `a gzip-compressed binary frame of ${message.byteLength} bytes, not inflated`
      : `a binary frame of ${message.byteLength} bytes that is not UTF-8 JSON`
    if (this.options.endpoint === "private") {
      for (const entry of this.options.subscriptions.channels.values()) {
        if (entry.state === "active") {
          live.control.reconnect(`a frame that could not be read (${what})`, "decode")
          return undefined
        }
      }
    }
    return this.unreadableWarning.warn(
      this.options.now(),
      () => `spotkit push: connection ${this.options.id}: dropped a frame that could not be read (${what})`
    )
  }

  // An error frame that fails no subscription (it names no channel of ours, or answers an unsubscription, or names a
  // live channel; `about` says which of ours and what was done): a warning with its code and message (scrubbed,
  // printable; never the frame itself), the first one and then at most one every `ERROR_LOG_INTERVAL_MILLIS`.
  private errorFrame(
    code: string | undefined,
    msg: string | undefined,
    about?: string
  ): Effect.Effect<void> | undefined {
    const { text } = this.options
    return this.errorWarning.warn(
      this.options.now(),
      () =>
        `spotkit push: connection ${this.options.id}: the venue sent an error${
          about === undefined ? "" : ` about ${about}`
        } (code ${code === undefined ? "none" : text.line(code, 40)}): ${
          msg === undefined ? "no message" : text.line(msg)
        }`
    )
  }
}
