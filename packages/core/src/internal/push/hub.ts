// The connections of one endpoint: a channel goes on a connection with room (under 100 channels, an operation left),
// or on a new one while the cap on connections allows; a connection left with no channel is closed. The cap is the
// venue's per address, so the hubs of one service count their connections together (`Count`).
import { Effect } from "effect"
import type { Scope } from "effect"
import type * as Socket from "effect/socket/Socket"
import * as PushError from "../../PushError.ts"
import { Connection } from "./connection.ts"
import type { Settings } from "./connection.ts"
import type { Feed } from "./subscriptions.ts"

/** The connections of every hub of a service (public and private), against one `maxConnections`. */
export class Count {
  open = 0
}

export interface HubOptions {
  readonly settings: Settings
  /** A socket for a new connection (dialled on each of its reader acquisitions). */
  readonly socket: Effect.Effect<Socket.Socket>
  /** Where the connections' loops run: they end with it. */
  readonly scope: Scope.Scope
  readonly now: () => number
  readonly maxConnections: number
  /** Shared by the hubs whose connections count against `maxConnections` together. */
  readonly count: Count
  readonly channelsPerConnection: number
  readonly nextId: () => number
}

export class Hub {
  private readonly connections: Array<Connection> = []
  private readonly owners = new Map<string, Connection>()
  private readonly options: HubOptions

  constructor(options: HubOptions) {
    this.options = options
  }

  /** How many connections are open (or reconnecting). */
  get size(): number {
    return this.connections.length
  }

  /** Carries a channel on a connection with room, opening one when none has. */
  add(channel: string, feed: Feed): Effect.Effect<void, PushError.ConnectionLimitError> {
    return Effect.suspend(() => {
      const { channelsPerConnection, maxConnections } = this.options
      // What held when none fits: the channels, unless a connection with room for one had no operation left.
      let limit: "channels" | "operations" = "channels"
      for (const connection of this.connections) {
        const full = connection.full(channelsPerConnection)
        if (full === "operations") limit = full
        if (full !== undefined) continue
        this.owners.set(channel, connection)
        return Effect.andThen(connection.add(channel, feed), connection.start(this.options.scope))
      }
      if (this.options.count.open >= maxConnections) {
        return Effect.fail(
          new PushError.ConnectionLimitError({ connections: maxConnections, channelsPerConnection, limit })
        )
      }
      return Effect.gen({ self: this }, function*() {
        const socket = yield* this.options.socket
        const connection = new Connection(this.options.nextId(), this.options.settings, socket, this.options.now)
        this.connections.push(connection)
        this.options.count.open++
        this.owners.set(channel, connection)
        yield* connection.add(channel, feed)
        yield* connection.start(this.options.scope)
      })
    })
  }

  /** Stops carrying a channel; closes its connection when that was the last. */
  remove(channel: string): Effect.Effect<void> {
    return Effect.suspend(() => {
      const connection = this.owners.get(channel)
      if (connection === undefined) return Effect.void
      this.owners.delete(channel)
      const removed = connection.remove(channel)
      if (connection.channels.size > 0) return removed
      const i = this.connections.indexOf(connection)
      if (i >= 0) {
        this.connections.splice(i, 1)
        this.options.count.open--
      }
      connection.stopping = true
      return Effect.andThen(removed, connection.stop())
    })
  }
}
