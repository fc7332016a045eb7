// The venue's V2 push protocol, whatever carries it (in memory or a WebSocket): the handshake (a private one signed
// over `timestamp + "/v2/ws/private"` within the timestamp window), the limits per address and per connection, the
// channels and who subscribed to them, server pings, and what each event of the exchange becomes on the wire — depth
// snapshots then versioned changes per depth, trades, tickers, and private `trade-event` frames per user.
import { Push } from "@spotkit/core"
import type { KeyObject } from "node:crypto"
import { constantTimeEqual } from "../protocol/auth.ts"
import { hmacKey, signatureOf } from "../protocol/signature.ts"
import { VenueConnection } from "./connection.ts"
import type { Host, Peer } from "./connection.ts"
import { DepthBook } from "./depth.ts"
import type { Faults, Source, VenueEvent } from "./events.ts"
import * as Frames from "./frames.ts"

export interface Key {
  readonly apiKey: string
  readonly secretKey: string
  readonly passphrase: string
  readonly userId: string
}

export interface Limits {
  readonly connectionAttempts: { readonly limit: number; readonly windowMillis: number }
  /**
   * Failed authentications (an unknown key, a wrong passphrase or signature) of one API key from one address (of keys
   * the venue does not know, from one address) in a window; beyond them, the key's handshakes from there are refused
   * with 429 until the window has room again, as REST's (`TestExchange`'s `authFailures`).
   */
  readonly authFailures: { readonly limit: number; readonly windowMillis: number }
  readonly connections: number
  readonly operations: { readonly limit: number; readonly windowMillis: number }
  readonly channelsPerConnection: number
}

export interface Settings {
  readonly source: Source
  readonly now: () => number
  readonly pingType: "event" | "type"
  readonly unansweredPings: number
  readonly timestampWindowMillis: number
  readonly limits: Limits
  /** The first version of every book. */
  readonly initialVersion: bigint
  /** Where a depth change starts: the previous message's end plus one (`next`), or that end (`previousEnd`). */
  readonly continuity: "next" | "previousEnd"
}

/**
 * The handshake's outcome: a connection of an endpoint (a private one for its user), or an HTTP refusal. `overLimit`:
 * the attempt is over its address's limit, so the connection is closed as soon as it opens (1008), unauthenticated.
 */
export type Handshake =
  | {
    readonly ok: true
    readonly endpoint: Push.Endpoint
    readonly userId: string | undefined
    readonly overLimit?: true | undefined
  }
  | { readonly ok: false; readonly status: number; readonly message: string }

/** Counts for tests: attempts made, connections refused at the handshake, open now. */
export interface Stats {
  readonly attempts: number
  readonly refused: number
  readonly open: number
  readonly opened: number
}

interface BookState {
  version: bigint
  book: DepthBook | undefined
  changes: number
  /** The last version sent per depth. */
  readonly sent: Map<number, bigint>
}

const DEPTHS: ReadonlyArray<Push.DepthLevel> = [15, 200]

const levels = (side: ReadonlyArray<readonly [string, string]>) => side.map(([price, size]) => ({ price, size }))

export class Venue implements Host {
  readonly settings: Settings
  readonly limits: Limits
  private readonly keys = new Map<string, Key & { readonly hmac: KeyObject }>()
  // The keys of an exchange's table (`useKeyTable`), read at each handshake; their HMAC keys imported once per secret.
  private keyTable: ((apiKey: string) => Key | undefined) | undefined = undefined
  private readonly hmacKeys = new Map<string, KeyObject>()
  private currentFaults: Faults = {}
  private readonly connections = new Set<VenueConnection>()
  private readonly subscribers = new Map<string, Set<VenueConnection>>()
  private readonly attempts = new Map<string, Array<number>>()
  // Failed authentications by `${apiKey}\n${address}` (`apiKey` "" for keys the venue does not know).
  private readonly failures = new Map<string, Array<number>>()
  private readonly books = new Map<string, BookState>()
  private readonly userVersions = new Map<string, number>()
  // Private subscriptions by user, for `wantsUser`.
  private readonly userSubscriptions = new Map<string, number>()
  private nextId = 0
  private counts = { attempts: 0, refused: 0, opened: 0 }

  constructor(settings: Settings) {
    this.settings = settings
    this.limits = settings.limits
  }

  readonly now = (): number => this.settings.now()
  readonly faults = (): Faults => this.currentFaults

  setFaults(faults: Faults): void {
    this.currentFaults = faults
  }

  addKey(key: Key): void {
    this.keys.set(key.apiKey, { ...key, hmac: hmacKey(key.secretKey) })
  }

  /**
   * Accepts the keys of a table (an exchange's, as REST authenticates with) besides those added: looked up at each
   * handshake, so that keys the table gains later are accepted too.
   */
  useKeyTable(table: (apiKey: string) => Key | undefined): void {
    this.keyTable = table
  }

  stats(): Stats {
    return { ...this.counts, open: this.connections.size }
  }

  /**
   * Judges a handshake from an address: the path, and for the private endpoint the signed headers. Every handshake is
   * an attempt against the address's limit (`Limits.connectionAttempts`), refused ones too; failed authentications
   * count against the key's budget from that address (`Limits.authFailures`).
   */
  handshake(path: string, header: (name: string) => string | undefined, address: string): Handshake {
    this.counts.attempts++
    const overLimit = this.attempt(address)
    const endpoint = path === Push.paths.public ? "public" : path === Push.paths.private ? "private" : undefined
    if (endpoint === undefined) return this.refuse(404, "no such push endpoint")
    // Over the limit: closed with 1008 as soon as it opens (`open`), as the venue's limits are; its key is not checked,
    // so it counts no failed authentication and opens nothing of a user's.
    if (overLimit) return { ok: true, endpoint, userId: undefined, overLimit: true }
    if (endpoint === "public") return { ok: true, endpoint, userId: undefined }
    if (this.currentFaults.refuseAuth === true) return this.refuse(401, "authentication refused (fault)")
    const apiKey = header(Push.headers.key.toLowerCase())
    const timestamp = header(Push.headers.timestamp.toLowerCase())
    const sign = header(Push.headers.sign.toLowerCase())
    const passphrase = header(Push.headers.passphrase.toLowerCase())
    if (apiKey === undefined || timestamp === undefined || sign === undefined || passphrase === undefined) {
      return this.refuse(401, "missing authentication headers")
    }
    const key = this.keyOf(apiKey)
    const failures = this.failuresOf(key === undefined ? "" : apiKey, address)
    if (failures.length >= this.limits.authFailures.limit) {
      return this.refuse(429, "too many failed authentications")
    }
    if (key === undefined || !constantTimeEqual(passphrase, key.passphrase)) {
      failures.push(this.now())
      return this.refuse(401, "apikey/password is incorrect")
    }
    if (
      !/^\d{1,16}$/.test(timestamp) || Math.abs(this.now() - Number(timestamp)) > this.settings.timestampWindowMillis
    ) {
      return this.refuse(401, "Request timestamp expired")
    }
    if (!constantTimeEqual(sign, signatureOf(key.hmac, Push.prehash(timestamp)))) {
      failures.push(this.now())
      return this.refuse(401, "sign signature error")
    }
    return { ok: true, endpoint, userId: key.userId }
  }

  /** Opens an accepted connection: closed at once (1008) when the address is over its limits, or by a storm. */
  open(handshake: Extract<Handshake, { readonly ok: true }>, address: string, peer: Peer): VenueConnection {
    const connection = new VenueConnection(++this.nextId, handshake.endpoint, handshake.userId, address, peer, this)
    this.connections.add(connection)
    this.counts.opened++
    let open = 0
    for (const other of this.connections) if (other.address === address) open++
    if (handshake.overLimit === true) connection.close(Push.CLOSE_POLICY, "connection attempts exceeded")
    else if (open > this.limits.connections) connection.close(Push.CLOSE_POLICY, "too many connections")
    else if (this.currentFaults.storm === true) connection.terminate()
    return connection
  }

  /** Sends every connection its ping; closes those that left too many unanswered. */
  tick(): void {
    const time = String(this.now())
    for (const connection of Array.from(this.connections)) {
      if (connection.stalled) continue
      if (connection.unanswered >= this.settings.unansweredPings) {
        connection.close(Push.CLOSE_POLICY, "pings unanswered")
        continue
      }
      connection.unanswered++
      connection.control(Push.frames.ping(this.settings.pingType, time))
    }
  }

  /** Whether nothing is subscribed at all (what the exchange then pushes costs nothing). */
  idle(): boolean {
    return this.subscribers.size === 0
  }

  /** Whether a user's private channels have a subscriber. */
  wantsUser(userId: string): boolean {
    return this.userSubscriptions.has(userId)
  }

  /** Whether a public channel has a subscriber. */
  wantsChannel(channel: string): boolean {
    return this.subscribers.has(channel)
  }

  /** Whether the venue holds a symbol's book (someone watches its depth): its changes must be published. */
  wantsBook(symbol: string): boolean {
    return this.books.get(symbol)?.book !== undefined
  }

  /** Drops every connection at once (what a restart of the venue looks like to clients). */
  dropAll(): void {
    for (const connection of Array.from(this.connections)) connection.terminate()
  }

  publish(event: VenueEvent): void {
    switch (event._tag) {
      case "Book":
        return this.book(event.symbol, event.bids, event.asks)
      case "Trade":
        return this.toChannel(Push.channels.trades(event.symbol), [{
          time: String(event.time),
          price: event.price,
          size: event.size,
          value: event.value,
          buyerMaker: event.buyerMaker
        }])
      case "Kline": {
        const channel = Push.channels.kline(event.symbol, event.interval)
        const subscribers = this.subscribers.get(channel)
        if (subscribers === undefined) return
        const bar = { ...event.bar, symbol: event.symbol, klineTime: String(event.bar.klineTime) }
        const frame = Push.frames.payload(channel, [bar], "change")
        for (const connection of Array.from(subscribers)) connection.data(frame)
        return
      }
      case "Ticker":
        return this.toChannel(Push.channels.ticker(event.symbol), [{ ...event.fields, symbol: event.symbol }])
      case "Order":
        return this.toUser(event.userId, "orders", event.time, Frames.dataOf.orders([Frames.order(event.order)]))
      case "Fill":
        return this.toUser(event.userId, "fill", event.time, Frames.dataOf.fill([Frames.fill(event.fill)]))
      case "Balance":
        return this.toUser(event.userId, "account", event.time, Frames.dataOf.account(event.balances.map(Frames.asset)))
    }
  }

  // --- Host

  subscribe(connection: VenueConnection, channel: string): string | undefined {
    const parsed = Push.parseChannel(channel)
    if (parsed === undefined) return `channel ${channel} does not exist`
    if (Push.endpointOf(parsed) !== connection.endpoint) return `channel ${channel} is not on this endpoint`
    // A public channel of a symbol not listed is refused, whatever its kind (the source's book says which are).
    if (
      parsed.kind !== "depth" && "symbol" in parsed && this.settings.source.depth(parsed.symbol) === undefined
    ) return `symbol ${parsed.symbol} does not exist`
    if (parsed.kind === "depth") {
      const state = this.bookState(parsed.symbol)
      if (state.book === undefined) {
        const depth = this.settings.source.depth(parsed.symbol)
        if (depth === undefined) return `symbol ${parsed.symbol} does not exist`
        state.book = new DepthBook(depth)
      }
    }
    const key = this.key(connection, channel)
    let set = this.subscribers.get(key)
    if (set === undefined) this.subscribers.set(key, set = new Set())
    set.add(connection)
    if (connection.userId !== undefined) {
      this.userSubscriptions.set(connection.userId, (this.userSubscriptions.get(connection.userId) ?? 0) + 1)
    }
    return undefined
  }

  unsubscribe(connection: VenueConnection, channel: string): void {
    const key = this.key(connection, channel)
    const set = this.subscribers.get(key)
    if (set?.delete(connection) === true && connection.userId !== undefined) {
      const left = (this.userSubscriptions.get(connection.userId) ?? 1) - 1
      if (left > 0) this.userSubscriptions.set(connection.userId, left)
      else this.userSubscriptions.delete(connection.userId)
    }
    if (set !== undefined && set.size === 0) this.subscribers.delete(key)
    const parsed = Push.parseChannel(channel)
    if (parsed?.kind === "depth" && !DEPTHS.some((d) => this.subscribers.has(Push.channels.depth(parsed.symbol, d)))) {
      // Nobody watches the book: it is read from the source again when someone does.
      const state = this.books.get(parsed.symbol)
      if (state !== undefined) state.book = undefined
    }
  }

  // A depth channel's snapshot; nothing for the others. A ticker is pushed on a change only, as the venue's: one kept
  // from an earlier push would be stale after trades nobody watched (the feed builds tickers only for a subscriber).
  initial(connection: VenueConnection, channel: string): void {
    const parsed = Push.parseChannel(channel)
    if (parsed?.kind !== "depth") return
    const state = this.bookState(parsed.symbol)
    const view = state.book!.snapshot(parsed.level)
    // The channel's next change starts after the last one sent; only the first subscriber starts the chain. With
    // subscribers already there it stays theirs: the next change, sent to all, then covers versions the new
    // subscriber's snapshot already holds, which continues its book too (it starts at most one past the snapshot).
    if ((this.subscribers.get(channel)?.size ?? 0) <= 1) state.sent.set(parsed.level, state.version)
    // The fault loses the snapshot on the way: the venue's side goes on as if it had been sent.
    if (this.currentFaults.noSnapshot === true) return
    const version = String(state.version)
    connection.data(Push.frames.payload(channel, [{
      startVersion: version,
      endVersion: version,
      level: parsed.level,
      depthType: "SNAPSHOT",
      symbol: parsed.symbol,
      asks: levels(view.asks),
      bids: levels(view.bids)
    }]))
  }

  closed(connection: VenueConnection): void {
    this.connections.delete(connection)
    for (const channel of connection.channels) this.unsubscribe(connection, channel)
    connection.channels.clear()
  }

  // --- events

  // Logs a connection attempt from an address: whether it is over the limit of its window (older ones dropped).
  private attempt(address: string): boolean {
    const { limit, windowMillis } = this.limits.connectionAttempts
    const log = this.attempts.get(address) ?? []
    this.attempts.set(address, log)
    const now = this.now()
    while (log.length > 0 && log[0]! <= now - windowMillis) log.shift()
    log.push(now)
    return log.length > limit
  }

  // The failed authentications of a key from an address within the window (older ones dropped).
  private failuresOf(apiKey: string, address: string): Array<number> {
    const id = `${apiKey}\n${address}`
    const log = this.failures.get(id) ?? []
    this.failures.set(id, log)
    const since = this.now() - this.limits.authFailures.windowMillis
    while (log.length > 0 && log[0]! <= since) log.shift()
    return log
  }

  private keyOf(apiKey: string): (Key & { readonly hmac: KeyObject }) | undefined {
    const added = this.keys.get(apiKey)
    if (added !== undefined || this.keyTable === undefined) return added
    const key = this.keyTable(apiKey)
    if (key === undefined) return undefined
    let hmac = this.hmacKeys.get(key.secretKey)
    if (hmac === undefined) this.hmacKeys.set(key.secretKey, hmac = hmacKey(key.secretKey))
    return { ...key, hmac }
  }

  private refuse(status: number, message: string): Handshake {
    this.counts.refused++
    return { ok: false, status, message }
  }

  private key(connection: VenueConnection, channel: string): string {
    return connection.endpoint === "private" ? `${connection.userId}:${channel}` : channel
  }

  private bookState(symbol: string): BookState {
    let state = this.books.get(symbol)
    if (state === undefined) {
      state = { version: this.settings.initialVersion, book: undefined, changes: 0, sent: new Map() }
      this.books.set(symbol, state)
    }
    return state
  }

  private book(
    symbol: string,
    bids: ReadonlyArray<readonly [string, string]>,
    asks: ReadonlyArray<readonly [string, string]>
  ) {
    const state = this.bookState(symbol)
    state.version++
    if (state.book === undefined) return
    state.book.apply(bids, asks)
    state.changes++
    const gap = this.currentFaults.gap
    const dropped = gap !== undefined && state.changes % gap === 0
    for (const depth of DEPTHS) {
      const channel = Push.channels.depth(symbol, depth)
      const subscribers = this.subscribers.get(channel)
      if (subscribers === undefined) continue
      const changes = state.book.changes(depth)
      if (changes.bids.length === 0 && changes.asks.length === 0) continue
      const previous = state.sent.get(depth) ?? state.version - 1n
      const start = String(this.settings.continuity === "next" ? previous + 1n : previous)
      state.sent.set(depth, state.version)
      if (dropped) continue
      const frame = Push.frames.payload(channel, [{
        startVersion: start,
        endVersion: String(state.version),
        level: depth,
        depthType: "CHANGED",
        symbol,
        asks: levels(changes.asks),
        bids: levels(changes.bids)
      }])
      for (const connection of Array.from(subscribers)) connection.data(frame)
    }
  }

  private toChannel(channel: string, data: ReadonlyArray<unknown>): void {
    const subscribers = this.subscribers.get(channel)
    if (subscribers === undefined) return
    const frame = Push.frames.payload(channel, data)
    for (const connection of Array.from(subscribers)) connection.data(frame)
  }

  private toUser(userId: string, channel: "orders" | "fill" | "account", time: number, data: unknown): void {
    const subscribers = this.subscribers.get(`${userId}:${channel}`)
    const version = (this.userVersions.get(userId) ?? 0) + 1
    this.userVersions.set(userId, version)
    if (subscribers === undefined) return
    const frame = Frames.tradeEvent(channel, version, time, data)
    for (const connection of Array.from(subscribers)) connection.data(frame)
  }
}
