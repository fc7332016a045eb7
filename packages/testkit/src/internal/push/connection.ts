// One push connection on the venue's side: what it subscribed to, its operations in the last hour, the pings it left
// unanswered, and the faults that strike it after so many data frames (an abrupt drop, a clean close, silence with the
// socket open, duplicated frames).
import { Push } from "@spotkit/core"
import { Result } from "effect"
import type { Faults } from "./events.ts"

/** The transport's side of a connection. */
export interface Peer {
  /** Sends a text frame. */
  readonly send: (text: string) => void
  /** Closes with a close frame (`1000` clean, `1008` a broken limit). */
  readonly close: (code: number, reason: string) => void
  /** Drops the connection without a close frame (the client sees `1006`). */
  readonly terminate: () => void
}

/** What the connection asks of the venue. */
export interface Host {
  readonly now: () => number
  readonly faults: () => Faults
  readonly limits: {
    readonly operations: { readonly limit: number; readonly windowMillis: number }
    readonly channelsPerConnection: number
  }
  /** Subscribes (answers an error message when the channel cannot be subscribed on this connection). */
  readonly subscribe: (connection: VenueConnection, channel: string) => string | undefined
  readonly unsubscribe: (connection: VenueConnection, channel: string) => void
  /** After the acknowledgement: what the channel shows a new subscriber (a depth snapshot). */
  readonly initial: (connection: VenueConnection, channel: string) => void
  readonly closed: (connection: VenueConnection) => void
}

export class VenueConnection {
  readonly id: number
  readonly endpoint: Push.Endpoint
  readonly userId: string | undefined
  readonly address: string
  readonly channels = new Set<string>()
  unanswered = 0
  dataFrames = 0
  stalled = false
  open = true
  private readonly operations: Array<number> = []
  private readonly peer: Peer
  private readonly host: Host

  constructor(
    id: number,
    endpoint: Push.Endpoint,
    userId: string | undefined,
    address: string,
    peer: Peer,
    host: Host
  ) {
    this.id = id
    this.endpoint = endpoint
    this.userId = userId
    this.address = address
    this.peer = peer
    this.host = host
  }

  /** Sends a frame that is not data (an acknowledgement, a ping, an error), unless the connection is silent. */
  control(text: string): void {
    if (this.open && !this.stalled) this.peer.send(text)
  }

  /** Sends a data frame, and strikes with the faults that count data frames. */
  data(text: string): void {
    if (!this.open || this.stalled) return
    const faults = this.host.faults()
    this.peer.send(text)
    this.dataFrames++
    if (faults.dup !== undefined && this.dataFrames % faults.dup === 0) this.peer.send(text)
    if (faults.disconnect !== undefined && this.dataFrames >= faults.disconnect) this.terminate()
    else if (faults.close !== undefined && this.dataFrames >= faults.close) this.close(1000, "closed by the venue")
    else if (faults.stall !== undefined && this.dataFrames >= faults.stall) this.stalled = true
  }

  close(code: number, reason: string): void {
    if (!this.open) return
    this.open = false
    this.peer.close(code, reason)
    this.host.closed(this)
  }

  terminate(): void {
    if (!this.open) return
    this.open = false
    this.peer.terminate()
    this.host.closed(this)
  }

  /** The client closed, or the transport lost, the connection. */
  gone(): void {
    if (!this.open) return
    this.open = false
    this.host.closed(this)
  }

  /** A text frame from the client. */
  receive(text: string): void {
    if (!this.open) return
    const parsed = Result.try(() => JSON.parse(text) as unknown)
    const message = Result.isSuccess(parsed) && typeof parsed.success === "object" && parsed.success !== null
      ? parsed.success as { readonly [key: string]: unknown }
      : undefined
    if (message === undefined) return this.control(Push.frames.error("30001", "invalid request"))
    if (message.event === "pong" || message.type === "pong") {
      this.unanswered = 0
      return
    }
    const channel = typeof message.channel === "string" ? message.channel : undefined
    if ((message.event !== "subscribe" && message.event !== "unsubscribe") || channel === undefined) {
      return this.control(Push.frames.error("30001", "invalid request", channel))
    }
    if (!this.spend()) return this.close(Push.CLOSE_POLICY, "operation limit exceeded")
    if (message.event === "unsubscribe") {
      if (this.channels.delete(channel)) this.host.unsubscribe(this, channel)
      return this.control(Push.frames.ack("unsubscribed", channel))
    }
    if (this.channels.has(channel)) return this.control(Push.frames.ack("subscribed", channel))
    if (this.channels.size >= this.host.limits.channelsPerConnection) {
      return this.close(Push.CLOSE_POLICY, "channel limit exceeded")
    }
    const refused = this.host.subscribe(this, channel)
    if (refused !== undefined) return this.control(Push.frames.error("30001", refused, channel))
    this.channels.add(channel)
    const faults = this.host.faults()
    if (faults.noAck === true) return
    if (faults.snapshotFirst === true) this.host.initial(this, channel)
    this.control(Push.frames.ack("subscribed", channel))
    if (faults.snapshotFirst !== true) this.host.initial(this, channel)
  }

  // One subscribe or unsubscribe against the hour's budget.
  private spend(): boolean {
    const { limit, windowMillis } = this.host.limits.operations
    const now = this.host.now()
    while (this.operations.length > 0 && this.operations[0]! <= now - windowMillis) this.operations.shift()
    if (this.operations.length >= limit) return false
    this.operations.push(now)
    return true
  }
}
