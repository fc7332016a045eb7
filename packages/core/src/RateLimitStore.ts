/**
 * Where the client's rate-limit budgets live. The venue counts weight per API user and per IP address (`Venue.budgets`),
 * whatever process sends it: processes that share a key (a market maker, a hedger, a nightly export, on one host or
 * several behind one address) must share one budget, or together they overrun the venue's.
 *
 * - `layerMemory` (and the default when no store is provided: one per client) keeps the budgets in the process.
 * - `layerRedis` keeps them in Redis (`effect/persistence/Redis`; `@spotkit/node` connects it from
 *   `SPOTKIT_REDIS_URL`): every acquisition is one atomic Lua script that counts the weights against every budget it
 *   charges, the requests in flight and a pause after a 429, on Redis's own clock, so N processes on any hosts never
 *   overrun a budget; first come, first served across them (a waiter's place is kept in Redis), so that a heavy
 *   request is not starved by a stream of light ones. As in memory, a request held by its endpoint's own budget waits
 *   there only, and holds up no other endpoint's request in the shared budgets. Each process also keeps its own
 *   budget, asked first: when Redis is lost it goes on against it, and when Redis answers again it does not send
 *   another budget's worth on top of what it sent meanwhile (a request that was not granted by Redis after all, given
 *   up or refused, counts for nothing in it).
 *
 * The client names budgets by the venue's host and a hash of the API key, never the key itself
 * (`uid:<host>:<key hash>`, `ip:<host>:<address>`, `endpoint:<host>:<key hash>:<endpoint>`), so that clients of two
 * venues, or of two keys, on one store never hold each other up after a 429.
 *
 * @since 0.1.0
 */
import { Context, Duration, Effect, Layer, Random } from "effect"
import * as Redis from "effect/persistence/Redis"
import * as RateLimiter from "./internal/client/rateLimiter.ts"
import { acquireLua, pauseLua, QUEUE_GRACE_MILLIS, releaseLua, settleLua } from "./internal/client/redisScripts.ts"
import { printable } from "./SafeText.ts"
import * as SpotError from "./SpotError.ts"

/**
 * One budget an acquisition charges: its key in the store, its limit, its window (the client's margin included) and
 * the weight charged.
 *
 * @since 0.1.0
 * @category models
 */
export interface Charge {
  readonly key: string
  readonly limit: number
  readonly windowMillis: number
  readonly weight: number
}

/**
 * What one request charges: its endpoint's own budget (10 per second on placing, batching, cancelling and transfers),
 * if it has one, and the shared budgets (the API user's, the address's).
 *
 * @since 0.1.0
 * @category models
 */
export interface Acquisition {
  readonly endpoint: Charge | undefined
  readonly shared: ReadonlyArray<Charge>
  /**
   * How long a granted request may stay in flight before a shared store presumes it answered (its process may have
   * died): it counts for this long plus one window unless settled before.
   */
  readonly leaseMillis: number
  /**
   * Told once before each wait of the acquisition, when given: the budget that holds it (`undefined`: a pause after a
   * 429) and how long it is expected to wait, in ms.
   */
  readonly onWait?: ((budget: Charge | undefined, millis: number) => Effect.Effect<void>) | undefined
  /**
   * Whether the request goes through a pause after a 429 (`pause`), once its budgets have room: only a pause that such
   * a request drew itself holds it (the client's `rateLimit.pauseExempt`). @default false
   */
  readonly pauseExempt?: boolean | undefined
}

/**
 * A granted acquisition: `settle` once the request's answer (or failure) arrived; from then it counts for one window.
 *
 * @since 0.1.0
 * @category models
 */
export interface Permit {
  readonly settle: Effect.Effect<void>
}

/**
 * A store of budgets. `acquire` waits (on `Clock`) until every budget of the acquisition has room and no pause holds
 * it, and charges them; `pause` holds the given budgets for `millis` (after a 429), for every caller of the store:
 * every acquisition but those exempt from pauses, and those too when `exempt` (the 429 answered such a request).
 *
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /** `"memory"` or `"redis"`, for diagnostics. */
  readonly kind: string
  readonly acquire: (acquisition: Acquisition) => Effect.Effect<Permit, SpotError.RateLimitStoreError>
  readonly pause: (
    keys: ReadonlyArray<string>,
    millis: number,
    exempt?: boolean
  ) => Effect.Effect<void, SpotError.RateLimitStoreError>
}

/**
 * The store a `SpotClient` uses; without one in context each client keeps its own budgets in memory.
 *
 * @since 0.1.0
 * @category services
 */
export class RateLimitStore extends Context.Service<RateLimitStore, Service>()("@spotkit/core/RateLimitStore") {}

// ---------------------------------------------------------------------------------------------------------------
// Memory

/**
 * Budgets in this process: sliding-window logs, first come first served, a request counting while in flight and for
 * one window from its answer (see the client's `rateLimit` options). An endpoint's own budget is waited for first,
 * so that a request held by it does not hold up the other endpoints' requests in the shared budgets.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeMemory: Effect.Effect<Service> = Effect.sync(() => memoryStore().service)

// A grant of the memory store, which the Redis store takes back (`revoke`) when Redis did not grant it too: the
// request was not sent, and counts in the process's own budget as if never granted.
interface LocalPermit extends Permit {
  readonly revoke: Effect.Effect<void>
}

// The memory store (also the Redis store's own budget of the process, acquired before Redis). Each acquisition is
// prepared once (its logs found, its weights clamped; the client makes one per endpoint), into one Effect that grants
// at once when every budget has room, and otherwise waits for the endpoint's own budget first and then for the shared
// ones.
const memoryStore = () => {
  const logs = new Map<string, RateLimiter.Log>()
  const logOf = (charge: Charge): RateLimiter.Log => {
    let log = logs.get(charge.key)
    if (log === undefined) {
      log = new RateLimiter.Log({ limit: charge.limit, windowMillis: charge.windowMillis }, 0)
      logs.set(charge.key, log)
    }
    return log
  }

  interface Prepared {
    readonly all: RateLimiter.Plan
    readonly acquire: Effect.Effect<LocalPermit>
  }
  const prepared = new WeakMap<Acquisition, Prepared>()
  const prepare = (acquisition: Acquisition): Prepared => {
    const endpoint = acquisition.endpoint
    const charges = endpoint === undefined ? acquisition.shared : [endpoint, ...acquisition.shared]
    const plan = (from: number, to: number) => {
      const onWait = acquisition.onWait
      return new RateLimiter.Plan(
        charges.slice(from, to).map((charge) => ({ log: logOf(charge), weight: charge.weight })),
        onWait === undefined
          ? undefined
          : (i, millis) => onWait(i === undefined ? undefined : charges[from + i], millis),
        acquisition.pauseExempt === true
      )
    }
    const all = plan(0, charges.length)
    const shared = endpoint === undefined ? all : plan(1, charges.length)
    const own = endpoint === undefined ? undefined : plan(0, 1)
    const acquire = Effect.withFiber((fiber) => {
      if (all.free(RateLimiter.nowOf(fiber))) return Effect.succeed(RateLimiter.granted(fiber, all.grant()))
      if (own === undefined) return shared.acquire
      return Effect.flatMap(own.acquire, (first) =>
        // Interrupted while waiting for the shared budgets: nothing was sent, so the endpoint's slot is taken back
        // (it would otherwise count as answered, for a window, a request the venue never saw).
        Effect.onInterrupt(shared.acquire, () => first.revoke).pipe(
          Effect.map((second): LocalPermit => ({
            settle: Effect.andThen(first.settle, second.settle),
            revoke: Effect.andThen(first.revoke, second.revoke)
          }))
        ))
    })
    const made = { all, acquire }
    prepared.set(acquisition, made)
    return made
  }
  const preparedOf = (acquisition: Acquisition) => prepared.get(acquisition) ?? prepare(acquisition)

  const acquire = (acquisition: Acquisition): Effect.Effect<LocalPermit> => preparedOf(acquisition).acquire

  const pause = (keys: ReadonlyArray<string>, millis: number, exempt = false) =>
    Effect.map(RateLimiter.monotonicMillis, (now) => {
      for (const key of keys) logs.get(key)?.pause(now + millis, exempt)
    })

  const service: Service = { kind: "memory", acquire, pause }
  // A caller that can settle without an Effect is granted at once without one, when nothing waits or pauses.
  RateLimiter.grantsAtOnce.set(service, (acquisition) => {
    const all = preparedOf(acquisition as Acquisition).all
    return (now) => all.grantNow(now)
  })
  return { service, acquire }
}

/**
 * One in-memory store for every client in the layer's scope (the clients of one process on one key then share one
 * budget).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerMemory: Layer.Layer<RateLimitStore> = Layer.effect(RateLimitStore, makeMemory)

// ---------------------------------------------------------------------------------------------------------------
// Redis

// Every budget of an acquisition, with the weight it charges (clamped to the limit: a heavier request never fits).
const chargesOf = (acquisition: Acquisition): ReadonlyArray<Charge> => {
  const all = acquisition.endpoint === undefined ? acquisition.shared : [acquisition.endpoint, ...acquisition.shared]
  return all.map((charge) => ({ ...charge, weight: Math.min(Math.max(charge.weight, 0), charge.limit) }))
}

/**
 * Options of the Redis store.
 *
 * @since 0.1.0
 * @category options
 */
export interface RedisOptions {
  /** How the store is named in messages, e.g. the URL without its password. @default "redis" */
  readonly name?: string | undefined
  /** Prefix of every key. The braces make one Redis Cluster hash slot of every key. @default "spotkit:{budget}:" */
  readonly prefix?: string | undefined
  /**
   * What a call does when Redis is lost mid-run. `"memory"`: it goes on against this process's own budget (one
   * warning is logged; Redis is tried again every `retryAfter` and used again once it answers). `"fail"`: it fails
   * with a `RateLimitStoreError` before anything is sent.
   *
   * @default "memory"
   */
  readonly onUnavailable?: "memory" | "fail" | undefined
  /** Time allowed for one Redis command. @default 2 seconds */
  readonly timeout?: Duration.Input | undefined
  /** How often Redis is tried again after it was lost, under `"memory"`. @default 5 seconds */
  readonly retryAfter?: Duration.Input | undefined
}

// node-redis's refusal of a command on a client that was closed (its `ClientClosedError`: the client's socket is no
// longer open because it was closed, not lost; a lost connection reconnects, and fails otherwise).
const closedClient = (cause: unknown): boolean => {
  const error = cause instanceof Redis.RedisError ? cause.cause : cause
  return error instanceof Error && error.constructor.name === "ClientClosedError"
}

// A store's error from what Redis failed with; `onClosed` is told when its client was closed, not lost.
const storeErrorOf = (store: string, cause: unknown, onClosed: () => void): SpotError.RateLimitStoreError => {
  if (closedClient(cause)) onClosed()
  return new SpotError.RateLimitStoreError({ store, description: describe(cause) })
}

const describe = (cause: unknown): string => {
  const error = cause instanceof Redis.RedisError ? cause.cause : cause
  const text = error instanceof Error ? error.message : String(error)
  return text.split("\n")[0]! || "no answer"
}

// A budget's pause in Redis: the one that holds requests exempt from pauses is apart (a 429 one of them drew sets both).
const pauseKey = (prefix: string, key: string, exempt: boolean): string =>
  exempt ? `${prefix}${key}:pause:exempt` : `${prefix}${key}:pause`

// What a process knows of the fleet's epoch in Redis (`acquireLua`): the one it last read (`known`, empty before its
// first answer) and the name it writes into a new one (`maker`).
interface Epoch {
  known: string
  readonly maker: string
}

// The fleet's epoch as one process follows it. Every answer of `acquireLua` carries it: a new one, after this process
// read another, means that Redis forgot the window (restarted empty, flushed), and every process is held for one
// window. Said once per epoch.
const epochOf = (name: string, maker: string) => {
  const epoch: Epoch = { known: "", maker }
  const readEpoch = (answer: ReadonlyArray<number | string>): Effect.Effect<void> => {
    const read = String(answer[answer[0] === 1 ? 2 : 4] ?? "")
    if (read === epoch.known || read === "") return Effect.void
    const forgot = epoch.known !== ""
    epoch.known = read
    return forgot
      ? Effect.logWarning(
        `spotkit: the shared rate-limit budget (${printable(name, 200)}) forgot its window (Redis restarted ` +
          "empty or was flushed); every process on it waits one window before its next request, for what the " +
          "venue still counts"
      )
      : Effect.void
  }
  return { epoch, readEpoch }
}

// The scripts, described when a Redis store is made rather than at the top of the module, so that a bundle without
// the Redis store (a browser's) leaves Redis out.
const scriptsOf = () => {
  const acquireScript = Redis.script(
    (
      id: string,
      lease: number,
      ticket: string,
      endpoint: boolean,
      prefix: string,
      charges: ReadonlyArray<Charge>,
      exempt: boolean,
      epoch: Epoch
    ) => [
      ...charges.map((charge) => prefix + charge.key),
      ...charges.map((charge) => `${prefix}${charge.key}:used`),
      ...charges.map((charge) => pauseKey(prefix, charge.key, exempt)),
      ...charges.map((charge) => `${prefix}${charge.key}:queue`),
      `${prefix}epoch`,
      id,
      Math.ceil(lease),
      ...charges.flatMap((charge) => [charge.limit, Math.ceil(charge.windowMillis), charge.weight]),
      ticket,
      QUEUE_GRACE_MILLIS,
      endpoint ? 1 : 0,
      epoch.known,
      epoch.maker
    ],
    { lua: acquireLua, numberOfKeys: (_id, _lease, _ticket, _endpoint, _prefix, charges) => charges.length * 4 + 1 }
  ).withReturnType<ReadonlyArray<number | string>>()

  const releaseScript = Redis.script(
    (id: string, prefix: string, charges: ReadonlyArray<Charge>) => [
      ...charges.map((charge) => `${prefix}${charge.key}:queue`),
      id
    ],
    { lua: releaseLua, numberOfKeys: (_id, _prefix, charges) => charges.length }
  )

  const settleScript = Redis.script(
    (id: string, prefix: string, charges: ReadonlyArray<Charge>) => [
      ...charges.map((charge) => prefix + charge.key),
      id,
      ...charges.flatMap((charge) => [Math.ceil(charge.windowMillis), charge.weight])
    ],
    { lua: settleLua, numberOfKeys: (_id, _prefix, charges) => charges.length }
  )

  const pauseScript = Redis.script(
    (prefix: string, keys: ReadonlyArray<string>, millis: number, exempt: boolean) => [
      ...keys.map((key) => pauseKey(prefix, key, false)),
      ...(exempt ? keys.map((key) => pauseKey(prefix, key, true)) : []),
      Math.ceil(millis)
    ],
    { lua: pauseLua, numberOfKeys: (_prefix, keys, _millis, exempt) => keys.length * (exempt ? 2 : 1) }
  )
  return { acquire: acquireScript, release: releaseScript, settle: settleScript, pause: pauseScript }
}

/**
 * Budgets in Redis, shared by every process that uses the same Redis (and prefix). Needs `Redis`; fails with a
 * `RateLimitStoreError` when Redis does not answer at start. A Redis that forgot the window (restarted empty, flushed)
 * is noticed by the first process that used it before (the key `<prefix>epoch`, which lapses a day after the last
 * request), which logs a warning; every process then waits one window before its next request.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeRedis = (
  options: RedisOptions = {}
): Effect.Effect<Service, SpotError.RateLimitStoreError, Redis.Redis> =>
  Effect.gen(function*() {
    const redis = yield* Redis.Redis
    const name = options.name ?? "redis"
    const prefix = options.prefix ?? "spotkit:{budget}:"
    const timeout = Duration.fromInputUnsafe(options.timeout ?? Duration.seconds(2))
    const retryAfter = Duration.toMillis(Duration.fromInputUnsafe(options.retryAfter ?? Duration.seconds(5)))
    const failing = options.onUnavailable === "fail"
    let closed = false // Redis's client closed under running calls (its layer released): no outage, not warned about
    const storeError = (cause: unknown) => storeErrorOf(name, cause, () => void (closed = true))
    const bounded = <A>(effect: Effect.Effect<A, Redis.RedisError>): Effect.Effect<A, SpotError.RateLimitStoreError> =>
      effect.pipe(
        Effect.timeoutOrElse({
          duration: timeout,
          orElse: () =>
            Effect.fail(new Redis.RedisError({ cause: new Error(`no answer within ${Duration.format(timeout)}`) }))
        }),
        Effect.mapError(storeError)
      )

    yield* Effect.mapError(
      bounded(redis.send("PING")),
      (error) => new SpotError.RateLimitStoreError({ store: name, description: `cannot connect: ${error.description}` })
    )

    const scripts = scriptsOf()
    const acquireShared = redis.eval(scripts.acquire)
    const settleShared = redis.eval(scripts.settle)
    const releaseShared = redis.eval(scripts.release)
    const pauseShared = redis.eval(scripts.pause)
    const idPrefix = (yield* Random.nextIntBetween(0, 2 ** 30)).toString(36) +
      (yield* Random.nextIntBetween(0, 2 ** 30)).toString(36)
    let sequence = 0
    const { epoch, readEpoch } = epochOf(name, idPrefix)

    // The process's own budget: acquired before Redis (see `acquire`), and all there is while Redis is lost under
    // "memory", until it is tried again.
    const local = memoryStore()
    let lostUntil: number | undefined
    const lose = (error: SpotError.RateLimitStoreError) =>
      Effect.flatMap(RateLimiter.monotonicMillis, (now) => {
        const first = lostUntil === undefined
        lostUntil = now + retryAfter
        return first && !closed
          ? Effect.logWarning(
            `spotkit: the shared rate-limit budget (${printable(name, 200)}) is unreachable (${
              printable(error.description, 400)
            }); this process ` +
              `goes on against its own budget and tries Redis again every ${retryAfter} ms`
          )
          : Effect.void
      })

    // The wait Redis asked for, told to the acquisition's listener first.
    const waiting = (acquisition: Acquisition, answer: ReadonlyArray<number | string>) => {
      const millis = Math.max(1, Number(answer[1]))
      const onWait = acquisition.onWait
      if (onWait === undefined) return Effect.sleep(millis)
      const by = Number(answer[2] ?? 0)
      const charges = acquisition.endpoint === undefined
        ? acquisition.shared
        : [acquisition.endpoint, ...acquisition.shared]
      return Effect.andThen(onWait(by > 0 ? charges[by - 1] : undefined, millis), Effect.sleep(millis))
    }

    // Redis is asked until it grants; `mirror` is the process's own grant of the same acquisition (settled with it).
    const polling = (
      acquisition: Acquisition,
      mirror: LocalPermit
    ): Effect.Effect<Permit, SpotError.RateLimitStoreError> => {
      const charges = chargesOf(acquisition)
      const lease = acquisition.leaseMillis
      const id = `${idPrefix}.${(sequence++).toString(36)}`
      const endpoint = acquisition.endpoint !== undefined
      // Its place in the budgets' queues once refused: kept from one try to the next.
      let ticket = ""
      // Whether a script was sent whose answer has not been read: it may have granted the acquisition.
      let asking = false
      // The entry's settling: from now on it counts for one window, not for its lease (a member that is not there, the
      // acquisition not granted, is left alone).
      const settled = Effect.ignore(bounded(settleShared(id, prefix, charges)))
      const attempt: Effect.Effect<Permit, SpotError.RateLimitStoreError> = Effect.withFiber((fiber) => {
        asking = true
        return Effect.flatMap(
          bounded(
            acquireShared(id, lease, ticket, endpoint, prefix, charges, acquisition.pauseExempt === true, epoch)
          ),
          (answer) => {
            asking = false
            if (answer[0] === 1) {
              // Recorded on the fiber in the step that reads the grant, as the memory store records its own, so that a
              // caller interrupted before the permit reaches it can still settle it (`RateLimiter.granted`).
              const permit = RateLimiter.granted(fiber, { settle: Effect.andThen(mirror.settle, settled) })
              return Effect.as(readEpoch(answer), permit)
            }
            ticket = String(answer[3] ?? "")
            return Effect.andThen(readEpoch(answer), Effect.andThen(waiting(acquisition, answer), attempt))
          }
        )
      })
      // Given up while waiting: its place is given back at once, rather than when it lapses. Found by the acquisition's
      // id, not its ticket: an attempt interrupted after the script queued it never learnt the ticket (the release,
      // sent after it on the connection, runs after it; harmless when nothing was queued). Given up while the script
      // was under way, it may have been granted too: its entry is settled as well (sent after the script likewise),
      // rather than left to count until its lease ends.
      return Effect.onInterrupt(attempt, () => {
        const release = Effect.ignore(bounded(releaseShared(id, prefix, charges)))
        return asking ? Effect.all([release, settled], { concurrency: 2, discard: true }) : release
      })
    }

    // The process's own budget is acquired first, Redis then: in memory the process keeps every request it sent, the
    // ones Redis granted and those it sent on its own while Redis was lost, so that when Redis answers again not
    // knowing what was sent meanwhile the process does not send another budget's worth within the window (and an empty
    // Redis holds everyone one window: `acquireLua`'s epoch). While Redis answers, the process's own budget holds
    // nothing back that Redis would grant (it counts a subset of Redis's requests, from no later).
    const acquire = (acquisition: Acquisition): Effect.Effect<Permit, SpotError.RateLimitStoreError> =>
      Effect.flatMap(local.acquire(acquisition), (mirror) =>
        Effect.flatMap(RateLimiter.monotonicMillis, (now) => {
          if (lostUntil !== undefined && now < lostUntil) {
            return Effect.succeed(mirror)
          }
          const shared = polling(acquisition, mirror)
          const guarded = failing ? shared : Effect.catch(
            Effect.tap(shared, () =>
              Effect.suspend(() => {
                if (lostUntil === undefined) {
                  return Effect.void
                }
                lostUntil = undefined
                return Effect.logInfo(`spotkit: the shared rate-limit budget (${printable(name, 200)}) answers again`)
              })),
            (error) => Effect.as(lose(error), mirror)
          )
          // Not granted (interrupted, or Redis failed under "fail"): nothing is sent, and the process's own grant is
          // taken back, as if never made (recorded as answered, it would hold the process back for a whole window
          // from what Redis grants).
          return Effect.onError(guarded, () => mirror.revoke)
        }))

    const pause: Service["pause"] = (keys, millis, exempt = false) => {
      const shared = bounded(pauseShared(prefix, keys, millis, exempt))
      const both = Effect.andThen(local.service.pause(keys, millis, exempt), shared)
      return failing ? shared : Effect.catch(both, () => Effect.void)
    }

    return RateLimitStore.of({ kind: "redis", acquire, pause })
  })

/**
 * The Redis store as a layer; needs `Redis` (`@effect/platform-node`'s `NodeRedis`, or another platform's).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerRedis = (
  options: RedisOptions = {}
): Layer.Layer<RateLimitStore, SpotError.RateLimitStoreError, Redis.Redis> =>
  Layer.effect(RateLimitStore, makeRedis(options))
