/**
 * Every fact spotkit knows about the venue's push interface (WebSocket, the V2 generation), in one place, as `Venue`
 * is for REST: the paths, the handshake headers and the text they sign, the limits, the channel names, the messages a
 * client sends, and the codecs of the frames the venue sends. The push client (`SpotPush`) and the test exchange's
 * venue side read them from here.
 *
 * The codecs are lenient where the venue's documents and samples disagree (`buyerMaker` a boolean or a string,
 * `coinId` a number or a string, versions and times as numbers or digit strings) and keep fields they do not know.
 * Ids and versions stay exact digit strings and amounts exact decimal strings: nothing passes through a floating-point
 * number. They are the push interface's own: the venue names fields differently on push and over REST (`symbolName`
 * for `symbol`, `fillSize` for `fillQuantity`, upper-case enums), so no REST record schema is reused here.
 *
 * @since 0.1.0
 */
import { Result, Schema, SchemaGetter } from "effect"
import { candleProblem, TradeCount, wellFormedBook, wellFormedTrade } from "./internal/model/marketChecks.ts"
import * as Json from "./Json.ts"
import type * as Market from "./Market.ts"
import { DecimalFromWire, IdFromWire, MillisFromWire, PositiveDecimalFromWire } from "./Primitives.ts"
import * as Venue from "./Venue.ts"

// ---------------------------------------------------------------------------------------------------------------
// Connection and signing

/**
 * The paths of the two push endpoints below the push base URL (e.g. `wss://ws-spot.weex.com`): public market data,
 * and the private channels of one API key.
 *
 * @since 0.1.0
 * @category connection
 */
export const paths = {
  public: "/v2/ws/public",
  private: "/v2/ws/private"
} as const

/**
 * Which of the two endpoints a channel lives on.
 *
 * @since 0.1.0
 * @category connection
 */
export type Endpoint = keyof typeof paths

/**
 * The handshake headers of a private connection: the REST signing headers (`Venue.headers`), with no `locale`. A
 * `User-Agent` goes on every connection, public and private.
 *
 * @since 0.1.0
 * @category signing
 */
export const headers = {
  key: Venue.headers.key,
  sign: Venue.headers.sign,
  passphrase: Venue.headers.passphrase,
  timestamp: Venue.headers.timestamp,
  userAgent: "User-Agent"
} as const

/**
 * The text a private handshake signs: `timestamp + "/v2/ws/private"` (HMAC-SHA256 with the secret, Base64), with the
 * timestamp of the `ACCESS-TIMESTAMP` header. It must be within `TIMESTAMP_WINDOW_MILLIS` of the venue's clock, so a
 * client signs afresh on every connection.
 *
 * @since 0.1.0
 * @category signing
 */
export const prehash = (timestamp: string): string => timestamp + paths.private

/**
 * How far a handshake's `ACCESS-TIMESTAMP` may be from the venue's clock (ms), as for REST.
 *
 * @since 0.1.0
 * @category signing
 */
export const TIMESTAMP_WINDOW_MILLIS = Venue.TIMESTAMP_WINDOW_MILLIS

// ---------------------------------------------------------------------------------------------------------------
// Limits

/**
 * The venue's push limits: connection attempts per address (300 in any 5 minutes), connections open at once per
 * address (100), subscribe and unsubscribe operations per connection (240 in any hour; pongs do not count), channels
 * per connection (100), and server pings a client may leave unanswered before the venue closes the connection (5).
 * The venue's reaction to an exceeded limit is not documented; the test exchange closes the connection with
 * `CLOSE_POLICY`.
 *
 * @since 0.1.0
 * @category limits
 */
export const limits = {
  connectionAttempts: { limit: 300, windowMillis: 300_000 },
  connections: 100,
  operations: { limit: 240, windowMillis: 3_600_000 },
  channelsPerConnection: 100,
  unansweredPings: 5
} as const

/**
 * The close code of a connection that broke a limit (WebSocket "policy violation").
 *
 * @since 0.1.0
 * @category limits
 */
export const CLOSE_POLICY = 1008

// ---------------------------------------------------------------------------------------------------------------
// Channels

/**
 * The two depths of the book channel: the best 15 or 200 levels per side.
 *
 * @since 0.1.0
 * @category channels
 */
export type DepthLevel = 15 | 200

/**
 * The candle intervals (the contract channel's names; the spot page is not published).
 *
 * @since 0.1.0
 * @category channels
 */
export const KlineInterval = Schema.Literals([
  "MINUTE_1",
  "MINUTE_5",
  "MINUTE_15",
  "MINUTE_30",
  "HOUR_1",
  "HOUR_2",
  "HOUR_4",
  "HOUR_6",
  "HOUR_8",
  "HOUR_12",
  "DAY_1",
  "WEEK_1",
  "MONTH_1"
])

/**
 * @since 0.1.0
 * @category channels
 */
export type KlineInterval = typeof KlineInterval.Type

/**
 * The candle interval of the push channel for each candle period of the REST interface (`Market.CandlePeriod`).
 *
 * @since 0.1.0
 * @category channels
 */
export const klineIntervals = {
  "1m": "MINUTE_1",
  "5m": "MINUTE_5",
  "15m": "MINUTE_15",
  "30m": "MINUTE_30",
  "1h": "HOUR_1",
  "2h": "HOUR_2",
  "4h": "HOUR_4",
  "6h": "HOUR_6",
  "8h": "HOUR_8",
  "12h": "HOUR_12",
  "1d": "DAY_1",
  "1w": "WEEK_1",
  "1M": "MONTH_1"
} as const satisfies Record<Market.CandlePeriod, KlineInterval>

/**
 * A channel, parsed from its name.
 *
 * @since 0.1.0
 * @category channels
 */
export type Channel =
  | { readonly kind: "depth"; readonly symbol: string; readonly level: DepthLevel }
  | { readonly kind: "trades"; readonly symbol: string }
  | { readonly kind: "ticker"; readonly symbol: string }
  | { readonly kind: "kline"; readonly priceType: string; readonly symbol: string; readonly interval: string }
  | { readonly kind: "orders" | "fill" | "account" }

/**
 * The channel names: `depth.{symbol}.{15|200}`, `trades.{symbol}`, `ticker.{symbol}`,
 * `kline.{priceType}.{symbol}.{interval}` (price type `LAST_PRICE`) on the public endpoint; `orders`, `fill` and
 * `account` on the private one. Symbols are the REST form (`BTCUSDT_SPBL`).
 *
 * @since 0.1.0
 * @category channels
 */
export const channels = {
  depth: (symbol: string, level: DepthLevel): string => `depth.${symbol}.${level}`,
  trades: (symbol: string): string => `trades.${symbol}`,
  ticker: (symbol: string): string => `ticker.${symbol}`,
  kline: (symbol: string, interval: KlineInterval, priceType = "LAST_PRICE"): string =>
    `kline.${priceType}.${symbol}.${interval}`,
  orders: "orders",
  fill: "fill",
  account: "account"
} as const

const SYMBOL = /^[A-Za-z0-9_]{1,60}$/

/**
 * Parses a channel name; `undefined` for a name the venue does not serve.
 *
 * @since 0.1.0
 * @category channels
 */
export const parseChannel = (name: string): Channel | undefined => {
  if (name === "orders" || name === "fill" || name === "account") return { kind: name }
  const parts = name.split(".")
  const [kind, a, b, c] = parts
  switch (kind) {
    case "depth":
      return parts.length === 3 && SYMBOL.test(a!) && (b === "15" || b === "200")
        ? { kind, symbol: a!, level: b === "15" ? 15 : 200 }
        : undefined
    case "trades":
    case "ticker":
      return parts.length === 2 && SYMBOL.test(a!) ? { kind, symbol: a! } : undefined
    case "kline":
      return parts.length === 4 && a === "LAST_PRICE" && SYMBOL.test(b!) && Schema.is(KlineInterval)(c)
        ? { kind, priceType: a, symbol: b!, interval: c }
        : undefined
    default:
      return undefined
  }
}

/**
 * The endpoint a channel is served on.
 *
 * @since 0.1.0
 * @category channels
 */
export const endpointOf = (channel: Channel): Endpoint =>
  channel.kind === "orders" || channel.kind === "fill" || channel.kind === "account" ? "private" : "public"

// ---------------------------------------------------------------------------------------------------------------
// Messages a client sends

/**
 * A subscription: one channel per message (the documented shape has no list).
 *
 * @since 0.1.0
 * @category messages
 */
export const subscribeMessage = (channel: string): string => JSON.stringify({ event: "subscribe", channel })

/**
 * @since 0.1.0
 * @category messages
 */
export const unsubscribeMessage = (channel: string): string => JSON.stringify({ event: "unsubscribe", channel })

/**
 * The answer to a server ping: the key the server used (`event` or `type`) and the same `time`, as received: a string
 * as a string, a number as the same JSON number (one a double cannot hold, `numeric`, written with its digits as they
 * came). A `Ping` frame's `time` is always one that can be sent back (`MAX_PING_TIME_LENGTH`).
 *
 * @since 0.1.0
 * @category messages
 */
export const pongMessage = (
  ping: { readonly key: "event" | "type"; readonly time: unknown; readonly numeric?: boolean | undefined }
): string =>
  Json.stringify({
    [ping.key]: "pong",
    time: ping.numeric === true && typeof ping.time === "string" ? Json.rawNumber(ping.time) : ping.time
  })

// ---------------------------------------------------------------------------------------------------------------
// Frames the venue sends

/**
 * The longest ping `time` that is answered (characters of a string, or of a number's digits as the lossless parse
 * keeps a number a double cannot hold). The venue sends a millisecond timestamp (13 digits); a ping with a longer
 * `time`, or one that is neither a string nor a number (an object, an array), is left unanswered, as the venue's
 * own handling of pings cannot need it echoed.
 *
 * @since 0.1.0
 * @category frames
 */
export const MAX_PING_TIME_LENGTH = 64

// A ping time that can be echoed as it came: absent, a string or a number (finite) of bounded length.
const answerable = (time: unknown): time is string | number | undefined =>
  time === undefined ||
  (typeof time === "string" && time.length <= MAX_PING_TIME_LENGTH) ||
  (typeof time === "number" && Number.isFinite(time))

/**
 * A frame from the venue, classified by its keys:
 * - `Ping`: `{"event":"ping","time":…}` or `{"type":"ping","time":…}` whose `time` is a string of at most
 *   `MAX_PING_TIME_LENGTH` characters or a number (answer with `pongMessage`); a ping with any other `time` is
 *   `Other`, not answered;
 * - `Ack`: `{"event":"subscribed"|"unsubscribed","channel":…}`;
 * - `Error`: `{"event":"error",…}` or any frame with a non-zero `code`, kept whole in `raw`;
 * - `Payload`: a public push `{"event":"payload","channel":…,"data":[…]}` (`type` on candle pushes);
 * - `TradeEvent`: a private push `{"type":"trade-event","channel":…,"event":"payload","msg":{…}}`;
 * - `Other`: anything else.
 *
 * @since 0.1.0
 * @category frames
 */
export type Frame =
  | {
    readonly _tag: "Ping"
    readonly key: "event" | "type"
    readonly time: string | number | undefined
    /**
     * Set by `decodeFrame` when `time` is a JSON number that a double would not give back as it came (beyond 2^53, a
     * fraction, an exponent form): `time` then holds its source text, which `pongMessage` writes as a number.
     */
    readonly numeric?: true | undefined
  }
  | { readonly _tag: "Ack"; readonly event: "subscribed" | "unsubscribed"; readonly channel: string }
  | {
    readonly _tag: "Error"
    readonly channel: string | undefined
    readonly code: string | undefined
    readonly msg: string | undefined
    readonly raw: unknown
  }
  | {
    readonly _tag: "Payload"
    readonly channel: string
    readonly type: string | undefined
    readonly data: ReadonlyArray<unknown>
  }
  | {
    readonly _tag: "TradeEvent"
    readonly channel: string
    readonly msgEvent: string | undefined
    /** The venue's ordering hint, as digits; a jump is not a gap. */
    readonly version: string | undefined
    /** The venue's time of the event (ms); none when it sent none, or digits beyond 15 (no exact millisecond). */
    readonly time: number | undefined
    readonly data: unknown
  }
  | { readonly _tag: "Other"; readonly raw: unknown }

type Fields = { readonly [key: string]: unknown }

const isRecord = (u: unknown): u is Fields => typeof u === "object" && u !== null && !Array.isArray(u)

const text = (u: unknown): string | undefined =>
  typeof u === "string" ? u : typeof u === "number" ? String(u) : undefined

const digits = (u: unknown): string | undefined => {
  const t = text(u)
  return t !== undefined && /^\d{1,40}$/.test(t) ? t : undefined
}

const errorCode = (fields: Fields): string | undefined => {
  const code = text(fields.code)
  return code === undefined || /^0+$/.test(code) ? undefined : code
}

/**
 * Classifies a parsed frame (see `Frame`).
 *
 * @since 0.1.0
 * @category frames
 */
export const classify = (json: unknown): Frame => {
  if (!isRecord(json)) return { _tag: "Other", raw: json }
  if (json.event === "ping" || json.type === "ping") {
    const time = json.time
    if (!answerable(time)) return { _tag: "Other", raw: json }
    return { _tag: "Ping", key: json.event === "ping" ? "event" : "type", time }
  }
  const channel = typeof json.channel === "string" ? json.channel : undefined
  if (json.event === "error" || errorCode(json) !== undefined) {
    return { _tag: "Error", channel, code: errorCode(json) ?? text(json.code), msg: text(json.msg), raw: json }
  }
  if ((json.event === "subscribed" || json.event === "unsubscribed") && channel !== undefined) {
    return { _tag: "Ack", event: json.event, channel }
  }
  if (json.type === "trade-event" && channel !== undefined) {
    const msg = isRecord(json.msg) ? json.msg : {}
    const time = digits(msg.time)
    return {
      _tag: "TradeEvent",
      channel,
      msgEvent: text(msg.msgEvent),
      version: digits(msg.version),
      // At most 15 digits (a millisecond clock until the year 33658), so exact: a longer one, rounded or 1e40, would
      // outrank every later update of an order that carries no time of its own.
      time: time === undefined || time.length > 15 ? undefined : Number(time),
      data: msg.data
    }
  }
  if (json.event === "payload" && channel !== undefined && Array.isArray(json.data)) {
    return { _tag: "Payload", channel, type: text(json.type), data: json.data }
  }
  return { _tag: "Other", raw: json }
}

/**
 * Parses and classifies a text frame losslessly (`Json.parse`); `undefined` when it is not JSON. A ping's numeric
 * `time` that a double would not give back as it came is kept as its source text, marked `numeric`.
 *
 * @since 0.1.0
 * @category frames
 */
export const decodeFrame = (frame: string): Frame | undefined => {
  const parsed = Result.try(() => Json.parse(frame))
  if (Result.isFailure(parsed)) return undefined
  const classified = classify(parsed.success)
  if (classified._tag !== "Ping" || classified.time === undefined) return classified
  // The lossless parse turns such a number into its source text, a string like a quoted time: the ping (a rare frame)
  // is read again with every number tagged to tell them apart.
  const tagged = Result.try(() => Json.parse(frame, "tagged"))
  const time = Result.isSuccess(tagged) && isRecord(tagged.success) ? tagged.success.time : undefined
  if (!(time instanceof Json.JsonNumber)) return classified
  return typeof classified.time === "string" || JSON.stringify(classified.time) !== time.source
    ? { ...classified, time: time.source, numeric: true }
    : classified
}

// ---------------------------------------------------------------------------------------------------------------
// Codecs of the data

/**
 * An order book version as exact digits: the venue documents strings, a sample shows numbers. Compare versions with
 * `BigInt`, never as numbers.
 *
 * @since 0.1.0
 * @category codecs
 */
export const Version = Schema.Union([
  Schema.String.check(Schema.isPattern(/^\d{1,40}$/, { expected: "a version as digits" })),
  Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)).pipe(Schema.decodeTo(Schema.String, {
    decode: SchemaGetter.transform((n: number) => String(n)),
    encode: SchemaGetter.transform((s: string) => Number(s))
  }))
])

/**
 * A boolean the venue may send as `true` or as `"true"` (its trade table says String, its sample a boolean).
 *
 * @since 0.1.0
 * @category codecs
 */
export const LenientBoolean = Schema.Union([
  Schema.Boolean,
  Schema.Literals(["true", "false"]).pipe(Schema.decodeTo(Schema.Boolean, {
    decode: SchemaGetter.transform((s: "true" | "false") => s === "true"),
    encode: SchemaGetter.transform((b: boolean) => (b ? "true" : "false") as "true" | "false")
  }))
])

// Fields the venue may add are kept as they came.
const rest = [Schema.Record(Schema.String, Schema.Unknown)] as const

/**
 * One price level of a depth push: `size` `"0"` removes the price.
 *
 * @since 0.1.0
 * @category codecs
 */
export const PriceLevel = Schema.Struct({ price: DecimalFromWire, size: DecimalFromWire })

/**
 * @since 0.1.0
 * @category codecs
 */
export type PriceLevel = typeof PriceLevel.Type

/**
 * One depth push (`depth.{symbol}.{level}`): a `SNAPSHOT` of the book, then `CHANGED` levels, each covering the book
 * versions `startVersion`..`endVersion`. A level at a price at or below zero, or of a negative size, fails the
 * decoding (as REST's order book): such a message is undecodable, and the pushed book is rebuilt.
 *
 * @since 0.1.0
 * @category codecs
 */
export const Depth = Schema.Struct({
  startVersion: Version,
  endVersion: Version,
  level: Schema.optional(Schema.Union([Schema.Int, Schema.String])),
  depthType: Schema.Literals(["SNAPSHOT", "CHANGED"]),
  symbol: Schema.String,
  asks: Schema.Array(PriceLevel),
  bids: Schema.Array(PriceLevel)
}).check(wellFormedBook)

/**
 * @since 0.1.0
 * @category codecs
 */
export type Depth = typeof Depth.Type

/**
 * One public trade (`trades.{symbol}`): the taker sold when `buyerMaker` is true. No trade id on this interface. A
 * price or a size at or below zero, or a negative value, fails the decoding (as REST's recent trades).
 *
 * @since 0.1.0
 * @category codecs
 */
export const Trade = Schema.StructWithRest(
  Schema.Struct({
    time: MillisFromWire,
    price: DecimalFromWire,
    size: DecimalFromWire,
    value: Schema.optional(DecimalFromWire),
    buyerMaker: LenientBoolean
  }),
  rest
).check(wellFormedTrade)

/**
 * @since 0.1.0
 * @category codecs
 */
export type Trade = typeof Trade.Type

/**
 * One ticker push (`ticker.{symbol}`), with the REST ticker's field names: `symbol` and `lastPrice` required, the
 * rest optional, unknown fields kept.
 *
 * @since 0.1.0
 * @category codecs
 */
export const Ticker = Schema.StructWithRest(
  Schema.Struct({
    symbol: Schema.String,
    lastPrice: DecimalFromWire,
    priceChange: Schema.optional(DecimalFromWire),
    priceChangePercent: Schema.optional(DecimalFromWire),
    open: Schema.optional(DecimalFromWire),
    high: Schema.optional(DecimalFromWire),
    low: Schema.optional(DecimalFromWire),
    close: Schema.optional(DecimalFromWire),
    size: Schema.optional(DecimalFromWire),
    value: Schema.optional(DecimalFromWire),
    /** Number of trades in the 24 hours, as REST's ticker has it (a JSON number or a string of digits). */
    trades: Schema.optional(Schema.NullOr(TradeCount)),
    ts: Schema.optional(MillisFromWire)
  }),
  rest
)

/**
 * @since 0.1.0
 * @category codecs
 */
export type Ticker = typeof Ticker.Type

/**
 * One candle push (`kline.LAST_PRICE.{symbol}.{interval}`): a push replaces the bar with the same `klineTime`. A
 * missing `value` (the quote volume), a price at or below zero, a negative `size` or `value`, or a high below the low
 * fails the decoding (as REST's candles).
 *
 * @since 0.1.0
 * @category codecs
 */
export const Kline = Schema.StructWithRest(
  Schema.Struct({
    symbol: Schema.String,
    klineTime: MillisFromWire,
    open: DecimalFromWire,
    high: DecimalFromWire,
    low: DecimalFromWire,
    close: DecimalFromWire,
    size: DecimalFromWire,
    // Required: the bar's quote volume, which nothing else gives (an item without it is left out, never given the
    // base volume in its place).
    value: DecimalFromWire
  }),
  rest
).check(Schema.makeFilter((k) => {
  const problem = candleProblem({ ...k, baseVolume: k.size, quoteVolume: k.value })
  if (problem === undefined) return undefined
  const field = problem.path[0] === "baseVolume"
    ? "size"
    : problem.path[0] === "quoteVolume"
    ? "value"
    : problem.path[0]
  return { path: field === undefined ? [] : [field], issue: problem.issue }
}))

/**
 * @since 0.1.0
 * @category codecs
 */
export type Kline = typeof Kline.Type

/**
 * One fill of the `fill` channel (`msg.data.orderFillTransaction[]`). `id` is the REST fill's `fillId`; the price is
 * `fillValue / fillSize`; enums are upper case (`BUY`, `TAKER`).
 *
 * @since 0.1.0
 * @category codecs
 */
export const Fill = Schema.StructWithRest(
  Schema.Struct({
    id: IdFromWire,
    symbolName: Schema.String,
    orderId: IdFromWire,
    baseCoin: Schema.optional(Schema.String),
    quoteCoin: Schema.optional(Schema.String),
    orderSide: Schema.String,
    fillSize: PositiveDecimalFromWire,
    fillValue: PositiveDecimalFromWire,
    fillFee: DecimalFromWire,
    direction: Schema.optional(Schema.String),
    createdTime: MillisFromWire,
    updatedTime: Schema.optional(MillisFromWire)
  }),
  rest
)

/**
 * @since 0.1.0
 * @category codecs
 */
export type Fill = typeof Fill.Type

/**
 * One coin of the `account` channel (`msg.data.accountAsset[]`); `coinId` a number or a string, kept as digits.
 *
 * @since 0.1.0
 * @category codecs
 */
export const AccountAsset = Schema.StructWithRest(
  Schema.Struct({
    coinId: IdFromWire,
    coinName: Schema.String,
    available: DecimalFromWire,
    frozen: DecimalFromWire,
    equity: Schema.optional(DecimalFromWire)
  }),
  rest
)

/**
 * @since 0.1.0
 * @category codecs
 */
export type AccountAsset = typeof AccountAsset.Type

/**
 * One order of the `orders` channel. The stored documents are cut inside the field table; the fields after `status`
 * follow the newer interface of the same backend (`cumFillSize`, `cumFillValue`, `createdTime`, `updatedTime`).
 * `status` is upper case (`NEW`, `PARTIALLY_FILLED`, `FILLED`, `CANCELED`, ...).
 *
 * @since 0.1.0
 * @category codecs
 */
export const Order = Schema.StructWithRest(
  Schema.Struct({
    id: IdFromWire,
    symbolName: Schema.optional(Schema.String),
    clientOrderId: Schema.optional(Schema.NullOr(Schema.String)),
    orderSide: Schema.String,
    type: Schema.optional(Schema.String),
    price: Schema.optional(Schema.NullOr(DecimalFromWire)),
    size: Schema.optional(Schema.NullOr(DecimalFromWire)),
    status: Schema.String,
    cumFillSize: Schema.optional(DecimalFromWire),
    cumFillValue: Schema.optional(DecimalFromWire),
    createdTime: Schema.optional(MillisFromWire),
    updatedTime: Schema.optional(MillisFromWire)
  }),
  rest
)

/**
 * @since 0.1.0
 * @category codecs
 */
export type Order = typeof Order.Type

/**
 * The items of a private push's `msg.data`: what is under `orderFillTransaction` (`fill`) or `accountAsset`
 * (`account`), or, for `orders` (whose key is not documented), the first array whose items carry `id` and
 * `orderSide`, else the first value, or `data` itself, that carries them (else an empty array: no item). An array is
 * its items, a single record one item. Any other `data` (a string, a number, a record without the key) is one item
 * that does not decode as a record of the channel: the push is unreadable, as one with a bad item is, never read as
 * carrying nothing.
 *
 * @since 0.1.0
 * @category codecs
 */
export const privateItems = (channel: string, data: unknown): ReadonlyArray<unknown> => {
  if (Array.isArray(data)) return data
  if (!isRecord(data)) return [data]
  if (channel !== "orders") {
    const named = channel === "fill" ? data.orderFillTransaction : channel === "account" ? data.accountAsset : undefined
    return Array.isArray(named) ? named : [named ?? data]
  }
  const isOrder = (item: unknown) => isRecord(item) && "id" in item && "orderSide" in item
  const values = Object.values(data)
  const list = values.find((value) => Array.isArray(value) && value.some(isOrder))
  if (list !== undefined) return list as ReadonlyArray<unknown>
  const single = values.find(isOrder)
  if (single !== undefined) return [single]
  if (isOrder(data)) return [data]
  // An empty array (under whatever key) is a list of no order; without one, the push carries nothing readable.
  return values.some((value) => Array.isArray(value) && value.length === 0) ? [] : [data]
}

// ---------------------------------------------------------------------------------------------------------------
// Frames the venue sends, written (the test exchange's side)

/**
 * The venue's frames as text, for a venue written against this module (the test exchange).
 *
 * @since 0.1.0
 * @category frames
 */
export const frames = {
  ping: (key: "event" | "type", time: string): string => Json.stringify({ [key]: "ping", time }),
  ack: (event: "subscribed" | "unsubscribed", channel: string): string => Json.stringify({ event, channel }),
  error: (code: string, msg: string, channel?: string): string =>
    Json.stringify(channel === undefined ? { event: "error", code, msg } : { event: "error", code, msg, channel }),
  payload: (channel: string, data: ReadonlyArray<unknown>, type?: string): string =>
    Json.stringify(
      type === undefined ? { event: "payload", channel, data } : { event: "payload", channel, type, data }
    ),
  tradeEvent: (
    channel: string,
    msg: { readonly msgEvent: string; readonly version: number; readonly time: number; readonly data: unknown }
  ): string => Json.stringify({ type: "trade-event", channel, event: "payload", msg })
} as const
