// Symbol rules (exchangeInfo): the cache a client keeps of them, and the check of an order against them before it is
// sent. The cache loads every symbol's rules in one request, on first use, shared by concurrent callers; it loads
// again when they are older than `maxAge`, when asked to (`refresh`), and when the venue refuses an order for a rule
// the cached copy did not catch (40808, 45110: the rules changed). Placing never fails because the rules could not
// be loaded: the order is then sent unchecked, and the load is not tried again for a while. An entry of the list that
// cannot be read (Market.readSymbolList) costs only its own symbol: it is left out, as a symbol the venue does not
// list, so an order on it is sent unchecked too (and the venue judges it).
import { Effect } from "effect"
import type * as Market from "../../Market.ts"
import type * as SpotError from "../../SpotError.ts"
import * as SymbolRules from "../model/symbolRules.ts"
import { millisOf, monotonicMillis } from "./rateLimiter.ts"

/** One symbol's rules, prepared for checking orders. */
export interface Checker {
  readonly rules: Market.SymbolRules
  /** Why the order breaks a rule, with the nearest valid values; undefined when it keeps them all. */
  readonly check: (order: SymbolRules.Checked) => SpotError.SymbolRuleError | undefined
}

/** Prepares a symbol's rules for checking orders. */
export const checker = (rules: Market.SymbolRules): Checker => ({ rules, check: SymbolRules.check(rules) })

/** What the cache needs: one request for every symbol's rules, already retried (and its unreadable entries reported). */
export type Load = Effect.Effect<Market.SymbolList, SpotError.SpotErrorReason>

/** A client's cache of symbol rules. */
export interface Cache {
  /** Every symbol's rules, loaded when there are none yet or they are older than `maxAge`. */
  readonly all: Effect.Effect<ReadonlyMap<string, Checker>, SpotError.SpotErrorReason>
  /** Loads the rules again now. */
  readonly refresh: Effect.Effect<ReadonlyMap<string, Checker>, SpotError.SpotErrorReason>
  /**
   * For placing an order: the symbol's rules when they are known (loaded on first use), undefined when the symbol is
   * not listed or the rules cannot be loaded (then not tried again for `retryMillis`). Never fails.
   */
  readonly forOrder: (symbol: string) => Effect.Effect<Checker | undefined>
  /**
   * `forOrder` without a step, at monotonic time `now` (ms; the cache's ages are measured on the monotonic clock, which
   * no step of the wall clock moves): the symbol's rules (or undefined) when `forOrder` would answer
   * them at once, `NotLoaded` when it would load them first.
   */
  readonly known: (symbol: string, now: number) => Checker | undefined | typeof NotLoaded
  /** How many times the rules were loaded: a call notes it when it checks an order, to refresh only stale rules. */
  readonly generation: () => number
  /**
   * After the venue refused an order for a rule: the symbol's rules loaded again, unless they were loaded since the
   * call noted `generation` (another call refreshed them meanwhile) or a load failed less than `retryMillis` ago.
   * Never fails.
   */
  readonly refreshedSince: (symbol: string, generation: number) => Effect.Effect<Checker | undefined>
}

/** What `Cache.known` answers when the rules must be loaded first. */
export const NotLoaded: unique symbol = Symbol("spotkit/rules/NotLoaded")

interface Loaded {
  readonly bySymbol: ReadonlyMap<string, Checker>
  readonly at: number
  readonly generation: number
}

/** A cache of symbol rules. */
export const make = (load: Load, options: { readonly maxAge: number; readonly retryMillis: number }) =>
  Effect.gen(function*() {
    let loaded: Loaded | undefined
    let failedAt = -Infinity
    const fetch = Effect.flatMap(load, (list) =>
      Effect.map(monotonicMillis, (at) => {
        const bySymbol = new Map<string, Checker>()
        for (const rules of list.symbols) bySymbol.set(rules.symbol, checker(rules))
        loaded = { bySymbol, at, generation: (loaded?.generation ?? 0) + 1 }
        return bySymbol as ReadonlyMap<string, Checker>
      })).pipe(
        Effect.tapError(() => Effect.map(monotonicMillis, (now) => void (failedAt = now)))
      )
    // One request at a time, shared by every caller that asks meanwhile; nothing kept once it is done (`loaded` is).
    const [shared] = yield* Effect.cachedInvalidateWithTTL(fetch, 0)

    const all = Effect.flatMap(
      monotonicMillis,
      (now) => loaded !== undefined && now - loaded.at < options.maxAge ? Effect.succeed(loaded.bySymbol) : shared
    )
    const bestEffort = (symbol: string) =>
      Effect.match(shared, {
        onFailure: () => loaded?.bySymbol.get(symbol),
        onSuccess: (bySymbol) => bySymbol.get(symbol)
      })
    const known = (symbol: string, now: number): Checker | undefined | typeof NotLoaded => {
      if (loaded !== undefined && now - loaded.at < options.maxAge) return loaded.bySymbol.get(symbol)
      if (now - failedAt < options.retryMillis) return loaded?.bySymbol.get(symbol)
      return NotLoaded
    }
    const forOrder = (symbol: string) =>
      Effect.clockWith((clock) => {
        const rules = known(symbol, millisOf(clock.monotonicTimeNanosUnsafe()))
        return rules === NotLoaded ? bestEffort(symbol) : Effect.succeed(rules)
      })
    const generation = () => loaded?.generation ?? 0
    const refreshedSince = (symbol: string, since: number) =>
      loaded !== undefined && loaded.generation > since
        ? Effect.succeed(loaded.bySymbol.get(symbol))
        : Effect.flatMap(monotonicMillis, (now) =>
          now - failedAt < options.retryMillis ? Effect.succeed(loaded?.bySymbol.get(symbol)) : bestEffort(symbol))
    return { all, refresh: shared, forOrder, known, generation, refreshedSince } satisfies Cache
  })
