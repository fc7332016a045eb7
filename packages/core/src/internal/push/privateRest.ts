// The REST side of the private session's backfill: what is asked of REST and how its pages are read consistently. The
// client's operations in the models of the streams (`Rest`, `restOf`); a symbol's open orders read until two reads
// agree (`readOpenOrders`), what a backfill reads of a symbol from its bounds (`readSymbol`), REST's refusal of a
// symbol for good (`refusesSymbol`), several symbols read in turn (`readEach`), and the orders whose outcome a read leaves unknown, asked for by id (`outcomes`).
// What is asked is decided by the session's state, given here read-only; merging the answers is the session's.
import { Effect, Option, Result, Stream } from "effect"
import type { SpotClient } from "../../SpotClient.ts"
import type * as SpotError from "../../SpotError.ts"
import * as Model from "./model.ts"

/** The REST side of the backfill (the client's operations, in the models of the streams). */
export interface Rest {
  readonly balances: Effect.Effect<ReadonlyArray<Model.Balance>, SpotError.SpotError>
  /** A symbol's open orders, as REST's answers that held orders (one array each): a read in one answer is whole. */
  readonly openOrders: (
    symbol: string
  ) => Effect.Effect<ReadonlyArray<ReadonlyArray<Model.OrderUpdate>>, SpotError.SpotError>
  /** Orders of a symbol created after `after` (ms, exclusive). */
  readonly ordersAfter: (
    symbol: string,
    after: number
  ) => Effect.Effect<ReadonlyArray<Model.OrderUpdate>, SpotError.SpotError>
  /** Fills of a symbol made after `after` (ms, exclusive). */
  readonly fillsAfter: (symbol: string, after: number) => Effect.Effect<ReadonlyArray<Model.Fill>, SpotError.SpotError>
  readonly order: (orderId: string) => Effect.Effect<Model.OrderUpdate | undefined, SpotError.SpotError>
}

// The REST side of the private backfill, through the client, in the models of the streams.
export const restOf = (client: SpotClient["Service"]): Rest => ({
  balances: Effect.map(client.balances(), (list) => list.map(Model.balanceFromRest)),
  // The stream yields each answer's new orders as one chunk.
  openOrders: (symbol) =>
    Stream.runCollect(Stream.chunks(Stream.map(client.openOrders({ symbol }), Model.orderFromRest))),
  // A bound at or before the epoch bounds nothing (and `after` is exclusive: 0 would leave out time 0).
  ordersAfter: (symbol, after) =>
    Stream.runCollect(Stream.map(client.orderHistory(after > 0 ? { symbol, after } : { symbol }), Model.orderFromRest)),
  fillsAfter: (symbol, after) =>
    Effect.flatMap(Stream.runCollect(client.fills(after > 0 ? { symbol, after } : { symbol })), Model.fillsFromRest),
  order: (orderId) =>
    Effect.map(client.order({ orderId }), (found) => Option.getOrUndefined(Option.map(found, Model.orderFromRest)))
})

/** Reads of a symbol's open orders at most, until one finds the same orders as the one before. */
const OPEN_ORDER_PASSES = 3

/**
 * How many times REST's order info is asked for an order held for its filled quantity while it answers that it does
 * not know the order, and how far apart: its records may lag the push that told of it by a moment.
 */
export const ASK_ATTEMPTS = 3
export const ASK_SPACING = "1 second"

export interface OpenOrders {
  /** Every order the reads found (an order may come more than once). */
  readonly orders: ReadonlyArray<Model.OrderUpdate>
  /** Orders an earlier read found and the last did not: they left the book meanwhile (or moved pages). */
  readonly gone: ReadonlyArray<string>
}

// A symbol's open orders, read so that none is missed. REST pages them by offset, newest first: an order of a page
// read that leaves the book (filled, cancelled) before the next page is asked for moves an older one onto the page
// already read, and no page of that read has it. Orders placed meanwhile only move orders the other way (read twice,
// not missed). A read whose orders all came in one answer is whole (however many the venue serves a page); a longer
// one is read again from the first page until a read finds the same orders as the read before (nothing left while it
// paged), at most `OPEN_ORDER_PASSES` reads. The
// orders of all reads count: one hidden from a read was found by another unless the book changed during every read,
// and the orders that left are told as `gone`, so that their outcome is asked for.
export const readOpenOrders = (rest: Rest, symbol: string): Effect.Effect<OpenOrders, SpotError.SpotError> => {
  const reads: Array<ReadonlyArray<Model.OrderUpdate>> = []
  const ids = (orders: ReadonlyArray<Model.OrderUpdate>) => new Set(orders.map((order) => order.orderId))
  const read: Effect.Effect<OpenOrders, SpotError.SpotError> = Effect.flatMap(rest.openOrders(symbol), (answers) => {
    const orders = answers.flat()
    const previous = reads.at(-1)
    reads.push(orders)
    const now = ids(orders)
    const settled = previous === undefined
      ? answers.length <= 1
      : previous.length === orders.length && previous.every((order) => now.has(order.orderId))
    if (!settled && reads.length < OPEN_ORDER_PASSES) return read
    const gone = new Set<string>()
    for (const earlier of reads) for (const order of earlier) if (!now.has(order.orderId)) gone.add(order.orderId)
    return Effect.succeed({ orders: reads.flat(), gone: Array.from(gone) })
  })
  return Effect.suspend(() => read)
}

// Where a symbol's REST reads of orders and fills start (ms, exclusive).
export interface Bounds {
  readonly orders: number
  readonly fills: number
}

export interface SymbolRead {
  readonly orders: ReadonlyArray<Model.OrderUpdate>
  readonly gone: ReadonlyArray<string>
  readonly fills: ReadonlyArray<Model.Fill>
}

// What a backfill reads of a symbol: its open orders, the orders created and the fills made after the bounds.
export const readSymbol = (
  rest: Rest,
  symbol: string,
  bounds: Bounds
): Effect.Effect<SymbolRead, SpotError.SpotError> =>
  Effect.map(
    Effect.all([
      readOpenOrders(rest, symbol),
      rest.ordersAfter(symbol, bounds.orders),
      rest.fillsAfter(symbol, bounds.fills)
    ]),
    ([open, orders, fills]) => ({ orders: [...open.orders, ...orders], gone: open.gone, fills })
  )
/** REST's refusal of a symbol for good, with its answer. */
export interface Refusal {
  readonly symbol: string
  readonly error: SpotError.SpotError
}

/** What reads of several symbols found, together: the symbols read, and those REST refused. */
export interface SymbolsRead {
  readonly symbols: Array<string>
  readonly orders: Array<Model.OrderUpdate>
  readonly gone: Array<string>
  readonly fills: Array<Model.Fill>
  readonly refused: Array<Refusal>
}

// Symbols read one after another, each read made when its turn comes (from the session's state then). A symbol REST
// refuses for good is told in `refused`, the others still read; any other failure fails the whole read.
export const readEach = (
  symbols: ReadonlyArray<string>,
  read: (symbol: string) => Effect.Effect<SymbolRead, SpotError.SpotError>
): Effect.Effect<SymbolsRead, SpotError.SpotError> =>
  Effect.gen(function*() {
    const all: SymbolsRead = { symbols: [], orders: [], gone: [], fills: [], refused: [] }
    for (const symbol of symbols) {
      const result = yield* Effect.result(read(symbol))
      if (Result.isSuccess(result)) {
        all.symbols.push(symbol)
        all.orders.push(...result.success.orders)
        all.gone.push(...result.success.gone)
        all.fills.push(...result.success.fills)
      } else if (refusesSymbol(result.failure)) all.refused.push({ symbol, error: result.failure })
      else return yield* Effect.fail(result.failure)
    }
    return all
  })

// REST's answer that it will never take this symbol: the venue does not list it (delisted), or it is no trading pair.
export const refusesSymbol = (error: SpotError.SpotError): boolean =>
  error.reason._tag === "UnknownSymbolError" ||
  (error.reason._tag === "ValidationError" && error.reason.field === "symbol")

// The failures of a backfill's read that a retry cannot mend, which end the private streams (`BackfillError`): the key
// or its permissions refused, a request the venue refuses as malformed, a wait for the budget longer than allowed.
// Any other (a code the client does not know, an answer it cannot read, a page without the venue's envelope) may be the
// venue's passing trouble: the connection is replaced and the backfill asked again after the backoff, as for a 5xx.
const FOR_GOOD: ReadonlySet<string> = new Set([
  "AuthenticationError",
  "PermissionError",
  "ValidationError",
  "InvalidRequestError",
  "UnknownSymbolError",
  "RateLimitError"
])

/** Whether a backfill's failure ends the private streams for good (else the session reconnects and backfills again). */
export const forGood = (error: SpotError.SpotError): boolean => !error.isRetryable && FOR_GOOD.has(error.reason._tag)

/** What the session knows of orders and fills, against which a read's unknown outcomes are told. */
export interface Known {
  readonly orders: ReadonlyMap<string, Model.OrderUpdate>
  /** Orders held for their filled quantity. */
  readonly unsure: ReadonlyMap<string, unknown>
  /** Fill ids seen. */
  readonly fills: ReadonlyMap<string, unknown>
}

// Orders whose outcome is unknown, asked for by id: those that left the book while their symbol's open orders were
// read, the orders of fills never seen, and (`known`) the orders known and not final but absent from the answers
// (filled or cancelled since). A fill seen already (REST's overlap reads it again) tells nothing new of its order:
// that order may have been forgotten since (final, behind the watermarks), and asking for it would deliver its final
// state again. The session's state is read when the effect runs.
export const outcomes = (
  rest: Rest,
  session: Known,
  read: SymbolRead,
  known: boolean
): Effect.Effect<Array<Model.OrderUpdate>, SpotError.SpotError> =>
  Effect.suspend(() => {
    const answered = new Set(read.orders.map((order) => order.orderId))
    const unknown = new Set<string>(read.gone)
    if (known) {
      for (const order of session.orders.values()) {
        if (!order.final && !answered.has(order.orderId)) unknown.add(order.orderId)
      }
      for (const orderId of session.unsure.keys()) if (!answered.has(orderId)) unknown.add(orderId)
    }
    for (const fill of read.fills) {
      if (session.fills.has(fill.fillId)) continue
      if (!answered.has(fill.orderId) && !session.orders.has(fill.orderId)) unknown.add(fill.orderId)
    }
    return Effect.map(
      Effect.forEach(Array.from(unknown), (orderId) => rest.order(orderId)),
      (found) => found.filter((order) => order !== undefined)
    )
  })
