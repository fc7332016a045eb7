// Symbol rules (exchangeInfo): the cache a client keeps of them, and the check of an order against them before it is
// sent. The cache loads every symbol's rules in one request, on first use, shared by concurrent callers; it loads again
// when they are older than `maxAge`, when asked to (`refresh`), and when an order was refused for a rule, by the venue
// (40808, 45110: the rules may have changed) or by cached rules that may be stale (a halt that ended, a finer tick), if
// they are older than `refreshAfter`. The rules are optional on the order path, and their load (a public request,
// retried for up to a minute) never holds an order back for more than a few seconds: expired rules serve while one
// reload runs in the background; a cold cache waits for its first load `waitMillis` at most (none after a failed one);
// a refusal waits as long at most for the reload that may name the rule. Placing never fails because the rules could
// not be loaded: the order is then sent unchecked, and the load is not tried again for a while. An entry of the list
// that cannot be read (Market.readSymbolList) costs only its own symbol: it is left out, as a symbol the venue does not
// list, so an order on it is sent unchecked too (and the venue judges it).
import { Deferred, Effect, Exit, Scope } from "effect"
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

/**
 * Whether the order is a market buy: its quantity is an amount of the quote coin, which the rules describe nothing of
 * (their step and bounds are the base coin's), so a refusal of it for a rule (40808: the quote coin's scale, 45110:
 * the venue's minimum value) tells nothing of the rules.
 */
export const isMarketBuy = (order: { readonly side: string; readonly orderType: string }): boolean =>
  order.side === "buy" && order.orderType === "market"

/** What the cache needs: one request for every symbol's rules, already retried (and its unreadable entries reported). */
export type Load = Effect.Effect<Market.SymbolList, SpotError.SpotErrorReason>

/** A client's cache of symbol rules. */
export interface Cache {
  /** Every symbol's rules, loaded when there are none yet or they are older than `maxAge`. */
  readonly all: Effect.Effect<ReadonlyMap<string, Checker>, SpotError.SpotErrorReason>
  /** Loads the rules again now (joins a load under way). */
  readonly refresh: Effect.Effect<ReadonlyMap<string, Checker>, SpotError.SpotErrorReason>
  /**
   * For placing an order: the symbol's rules when they are known, undefined when the symbol is not listed or no rules
   * could be had in time. Rules older than `maxAge` are answered at once while one reload runs in the background; with
   * none loaded yet, the order waits for the first load `waitMillis` at most (and not at all once an order gave up on
   * it); once a load failed, orders go unchecked without waiting while the next runs. Never fails.
   */
  readonly forOrder: (symbol: string) => Effect.Effect<Checker | undefined>
  /**
   * `forOrder` without a step, at monotonic time `now` (ms; the cache's ages are measured on the monotonic clock, which
   * no step of the wall clock moves): the symbol's rules (or undefined) when `forOrder` would answer them without a
   * step of its own, `NotLoaded` when it would start or await a load first.
   */
  readonly known: (symbol: string, now: number) => Checker | undefined | typeof NotLoaded
  /** How many times the rules were loaded: a call notes it when it checks an order. */
  readonly generation: () => number
  /**
   * After an order was refused for a rule, by the venue or by rules of generation `checked`: the symbol's rules when
   * newer ones are at hand (loaded since `checked`, or loaded now, waiting `waitMillis` at most), `Unchanged`
   * otherwise. A load is started only when the cached rules are older than `refreshAfter` and no load failed in the
   * last `retryMillis`; one under way is joined. Never fails.
   */
  readonly revalidated: (symbol: string, checked: number) => Effect.Effect<Checker | undefined | typeof Unchanged>
}

/** What `Cache.known` answers when the rules must be loaded first. */
export const NotLoaded: unique symbol = Symbol("spotkit/rules/NotLoaded")

/** What `Cache.revalidated` answers when it has no newer rules. */
export const Unchanged: unique symbol = Symbol("spotkit/rules/Unchanged")

/** How the cache loads: `Cache` says where each bound applies. */
export interface Options {
  /** How long loaded rules are used before they are loaded again (in the background for orders). */
  readonly maxAge: number
  /** After a failed load, how long orders go on with what there is (older rules, or none) before loading again. */
  readonly retryMillis: number
  /** The longest an order waits for a load: the first one, or the reload after a refusal. */
  readonly waitMillis: number
  /** How old the rules must be for a refusal to load them again: at most one such load per this long. */
  readonly refreshAfter: number
}

interface Loaded {
  readonly bySymbol: ReadonlyMap<string, Checker>
  readonly at: number
  readonly generation: number
}

// A load under way, and whether an order already gave up waiting on it (the next ones then do not wait on it).
interface Run {
  readonly done: Deferred.Deferred<ReadonlyMap<string, Checker>, SpotError.SpotErrorReason>
  outwaited: boolean
}

/**
 * A cache of symbol rules. Its loads run in fibers of their own, in the scope the cache is made in when there is one
 * (a client's layer): a caller that stops waiting (an order's bound, an interruption) does not stop the load.
 */
export const make = (load: Load, options: Options) =>
  Effect.gen(function*() {
    const scope = yield* Effect.serviceOption(Scope.Scope)
    let loaded: Loaded | undefined
    let failedAt = -Infinity
    let running: Run | undefined
    const fetch = Effect.flatMap(load, (list) =>
      Effect.map(monotonicMillis, (at) => {
        const bySymbol = new Map<string, Checker>()
        for (const rules of list.symbols) bySymbol.set(rules.symbol, checker(rules))
        loaded = { bySymbol, at, generation: (loaded?.generation ?? 0) + 1 }
        return bySymbol as ReadonlyMap<string, Checker>
      })).pipe(
        Effect.tapError(() => Effect.map(monotonicMillis, (now) => void (failedAt = now)))
      )
    // One load at a time, shared by every caller that asks meanwhile.
    const start = Effect.suspend(() => {
      if (running !== undefined) return Effect.succeed(running)
      const run: Run = { done: Deferred.makeUnsafe(), outwaited: false }
      running = run
      // Settled by the fiber's end, however it ends: a fiber forked in a scope already closed never runs `fetch`.
      const fork = scope._tag === "Some" ? Effect.forkIn(fetch, scope.value) : Effect.forkDetach(fetch)
      return Effect.map(fork, (fiber) => {
        fiber.addObserver((exit) => {
          running = undefined
          Deferred.doneUnsafe(run.done, exit)
        })
        return run
      })
    })
    const joined = Effect.flatMap(start, (run) => Deferred.await(run.done))
    // An order's wait for a load: `waitMillis` at most, and none once an order gave up on the same load. Undefined
    // when the load failed (or was interrupted: the scope it runs in closed) or took longer (it goes on without the
    // order).
    const briefly = Effect.flatMap(start, (run) =>
      run.outwaited ? Effect.undefined : Deferred.await(run.done).pipe(
        Effect.exit,
        Effect.timeoutOption(options.waitMillis),
        Effect.map((answer) => {
          if (answer._tag === "None") run.outwaited = true
          return answer._tag === "Some" && Exit.isSuccess(answer.value) ? answer.value.value : undefined
        })
      ))

    const all = Effect.flatMap(
      monotonicMillis,
      (now) => loaded !== undefined && now - loaded.at < options.maxAge ? Effect.succeed(loaded.bySymbol) : joined
    )
    const known = (symbol: string, now: number): Checker | undefined | typeof NotLoaded => {
      const failedLately = now - failedAt < options.retryMillis
      if (loaded !== undefined) {
        return now - loaded.at < options.maxAge || running !== undefined || failedLately
          ? loaded.bySymbol.get(symbol)
          : NotLoaded
      }
      return failedLately || running?.outwaited === true ? undefined : NotLoaded
    }
    const forOrder = (symbol: string) =>
      Effect.clockWith((clock) => {
        const rules = known(symbol, millisOf(clock.monotonicTimeNanosUnsafe()))
        if (rules !== NotLoaded) return Effect.succeed(rules)
        // Expired rules serve while they are loaded again in the background; so does no rules at all once a load
        // failed (an outage would otherwise hold an order at every retry).
        if (loaded !== undefined || failedAt !== -Infinity) return Effect.as(start, loaded?.bySymbol.get(symbol))
        return Effect.map(briefly, (bySymbol) => bySymbol?.get(symbol))
      })
    const generation = () => loaded?.generation ?? 0
    const revalidated = (symbol: string, checked: number) =>
      Effect.flatMap(monotonicMillis, (now): Effect.Effect<Checker | undefined | typeof Unchanged> => {
        if (loaded !== undefined && loaded.generation > checked) return Effect.succeed(loaded.bySymbol.get(symbol))
        const recent = now - failedAt < options.retryMillis ||
          (loaded !== undefined && now - loaded.at < options.refreshAfter)
        if (running === undefined && recent) return Effect.succeed(Unchanged)
        return Effect.map(briefly, (bySymbol) => bySymbol === undefined ? Unchanged : bySymbol.get(symbol))
      })
    return { all, refresh: joined, forOrder, known, generation, revalidated } satisfies Cache
  })

/**
 * Why `order` breaks its symbol's rules by the newer rules `Cache.revalidated` has (undefined when it keeps them, or
 * the symbol is no longer listed), or `broken` (what the rules of generation `checked` said) when it has none.
 */
export const recheck = (
  cache: Cache,
  symbol: string,
  order: SymbolRules.Checked,
  checked: number,
  broken?: SpotError.SymbolRuleError
): Effect.Effect<SpotError.SymbolRuleError | undefined> =>
  Effect.map(cache.revalidated(symbol, checked), (fresh) => fresh === Unchanged ? broken : fresh?.check(order))
