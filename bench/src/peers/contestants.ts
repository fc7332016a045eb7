// The four clients of the client benchmark (bench/src/peers.ts). Each sends the same signed POSTs (the same JSON
// text, the same headers but for peers' extras) to the same server, and checks every answer: envelope code
// "00000", an orderId for each placed order, a full page of open orders.
import { SpotClient } from "@spotkit/core"
import { NodeSpotClient } from "@spotkit/node"
import { Effect, identity, ManagedRuntime, Redacted, Tracer } from "effect"
import { HttpClient } from "effect/http"
import { Buffer } from "node:buffer"
import { createHmac, createSecretKey, type KeyObject } from "node:crypto"
import { credentials, OPEN_ORDERS_LIMIT, openOrdersBody, orderBody, type PathKey, paths } from "./shared.ts"

/** What the answers of one batch contained. */
export interface Check {
  /** Answers that were a success with the expected content. */
  readonly ok: number
  /** Distinct orderIds among the placed orders, as the client gives them to its caller. */
  readonly distinctOrderIds: number
  /** One orderId as the client gives it to its caller (its type and digits show whether it survived). */
  readonly sampleOrderId: string | undefined
}

export interface Runner {
  /** Sends `n` requests to `path` with `concurrency` of them in flight; answers what the answers contained. */
  readonly run: (path: PathKey, n: number, concurrency: number) => Promise<Check>
}

export interface Contestant {
  readonly key: string
  readonly label: string
  readonly make: (baseUrl: string) => Promise<Runner>
}

const fail = (what: string, answer: unknown): never => {
  throw new Error(`${what}: ${JSON.stringify(answer)?.slice(0, 300)}`)
}

// A client-side pool: `concurrency` workers, each sending its next request when its last one is answered.
const pool = async (n: number, concurrency: number, task: (i: number) => Promise<void>): Promise<void> => {
  let next = 0
  const worker = async () => {
    while (next < n) await task(next++)
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, n) }, worker))
}

// Every contestant's clientOrderIds are unique (the sandbox refuses a reused one): the process id, then a counter.
const clientOrderIds = () => {
  const prefix = `b${process.pid.toString(36)}-`
  let counter = 0
  return () => prefix + counter++
}

interface Envelope {
  readonly code?: unknown
  readonly data?: {
    readonly orderId?: unknown
    readonly orderInfoResultList?: ReadonlyArray<unknown>
  } | null
}

// Checks a parsed envelope as the peers and the baseline hand it over; collects placed orderIds.
const checker = () => {
  const ids = new Set<unknown>()
  let ok = 0
  return {
    placed: (answer: Envelope) => {
      if (answer.code !== "00000" || answer.data?.orderId === undefined) fail("place order refused", answer)
      ids.add(answer.data!.orderId)
      ok++
    },
    page: (answer: Envelope) => {
      if (answer.code !== "00000" || answer.data?.orderInfoResultList?.length !== OPEN_ORDERS_LIMIT) {
        fail("open orders refused", answer)
      }
      ok++
    },
    result: (): Check => ({
      ok,
      distinctOrderIds: ids.size,
      sampleOrderId: ids.size === 0 ? undefined : `${typeof [...ids][0]} ${String([...ids][0])}`
    })
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The raw baseline and the floor: a signed POST of the JSON text, its answer parsed, and nothing else.

// The headers of a signed POST of `body` to `path` now, with the secret imported once as `key`.
export const signedHeaders = (key: KeyObject, path: string, body: string): Record<string, string> => {
  const timestamp = String(Date.now())
  return {
    "access-key": credentials.apiKey,
    "access-sign": createHmac("sha256", key).update(timestamp + "POST" + path + body).digest("base64"),
    "access-timestamp": timestamp,
    "access-passphrase": credentials.passphrase,
    "content-type": "application/json",
    locale: "en-US"
  }
}

// The runner of a client that posts a path's parameters and hands over the parsed envelope; each request has an
// object of its own (a client may add to it), made within the timed call as every contestant's is.
const posting = (send: (path: string, params: Record<string, unknown>) => Promise<Envelope>): Runner => {
  const nextId = clientOrderIds()
  return {
    run: async (path, n, concurrency) => {
      const check = checker()
      await pool(n, concurrency, async () => {
        if (path === "placeOrder") check.placed(await send(paths.placeOrder, orderBody(nextId())))
        else check.page(await send(paths.openOrders, { ...openOrdersBody }))
      })
      return check.result()
    }
  }
}

// The secret imported once, for `signedHeaders`.
export const secretKey = () => createSecretKey(Buffer.from(credentials.secretKey, "utf8"))

// The raw baseline: undici.request + node:crypto HMAC (key imported once) + JSON.parse. No validation, no retries,
// no timeout, no lossless ids: the least a client over undici's request API spends.
export const raw: Contestant = {
  key: "raw",
  label: "raw baseline: undici.request + node:crypto HMAC + JSON.parse",
  make: async (baseUrl) => {
    const { request } = await import("undici")
    const key = secretKey()
    return posting(async (path, params) => {
      const body = JSON.stringify(params)
      const response = await request(baseUrl + path, { method: "POST", headers: signedHeaders(key, path, body), body })
      const answer = JSON.parse(await response.body.text()) as Envelope
      if (response.statusCode !== 200) fail(`HTTP ${response.statusCode}`, answer)
      return answer
    })
  }
}

// The floor of undici: the transport spotkit's client sends through (a pooled Agent's `dispatch` with a handler that
// collects the answer's bytes: no response stream), with node:crypto HMAC and JSON.parse, and nothing else: about the
// least a client over undici spends per request. Not a contestant of the table (`--peers-contestants ...,floor`).
export const floor: Contestant = {
  key: "floor",
  label: "floor: undici Agent.dispatch (answer bytes collected, no stream) + node:crypto HMAC + JSON.parse",
  make: async (baseUrl) => {
    const { Agent } = await import("undici")
    const agent = new Agent()
    const origin = new URL(baseUrl).origin
    const key = secretKey()
    return posting((path, params) =>
      new Promise<Envelope>((resolve, reject) => {
        const body = JSON.stringify(params)
        const chunks: Array<Buffer> = []
        let status = 0
        agent.dispatch({ origin, path, method: "POST", headers: signedHeaders(key, path, body), body }, {
          onRequestStart: () => {},
          onResponseStart: (_controller, statusCode) => void (status = statusCode),
          onResponseData: (_controller, chunk) => void chunks.push(chunk),
          onResponseEnd: () => {
            try {
              const answer = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Envelope
              if (status !== 200) reject(new Error(`HTTP ${status}: ${JSON.stringify(answer).slice(0, 300)}`))
              else resolve(answer)
            } catch (error) {
              reject(error)
            }
          },
          onResponseError: (_controller, error) => reject(error)
        })
      })
    )
  }
}

// ---------------------------------------------------------------------------------------------------------------
// spotkit over the Node layer: NodeSpotClient.layer (undici, node:crypto signer, live clock); everything as a user gets
// it (validation, spans, the rate limiter, retries, timeout, lossless ids, decoding). The limiter is on, in memory, with
// budgets no run reaches (the venue's would hold a canned server's thousands of requests a second to 10 a second):
// what it costs is its bookkeeping, which every call pays; `limiter: false` turns it off.

// Budgets far beyond any run: 10^12 in the venue's windows.
const unreachable = { limit: 1e12, windowMillis: 10_000 }

/**
 * The options of spotkit's client as the contestants (and bench:overhead) run it: the demo credentials, and the limiter
 * on with budgets out of reach, unless `limiter` is false.
 */
export const spotkitOptions = (baseUrl: string, limiter = true) => ({
  baseUrl,
  credentials: {
    apiKey: Redacted.make(credentials.apiKey),
    secretKey: Redacted.make(credentials.secretKey),
    passphrase: Redacted.make(credentials.passphrase)
  },
  rateLimit: limiter
    ? { uid: unreachable, ip: unreachable, perEndpoint: { limit: 1e12, windowMillis: 1_000 } }
    : false as const
})

/** spotkit's client layer as the contestants run it (`spotkitOptions`) over the Node layer's `transport`. */
export const spotkitLayer = (
  baseUrl: string,
  transport: NodeSpotClient.HttpOptions["transport"],
  limiter = true
) => NodeSpotClient.layer({ ...spotkitOptions(baseUrl, limiter), transport })

const spotkitOver = (
  transport: NodeSpotClient.HttpOptions["transport"],
  options: { readonly httpSpans?: boolean; readonly backend?: boolean; readonly limiter?: boolean } = {}
): Contestant["make"] =>
async (baseUrl) => {
  const runtime = ManagedRuntime.make(spotkitLayer(baseUrl, transport, options.limiter !== false))
  const client = await runtime.runPromise(Effect.service(SpotClient.SpotClient))
  const nextId = clientOrderIds()
  const indices = (n: number) => Array.from({ length: n }, (_, i) => i)
  return {
    run: (path, n, concurrency) => {
      const ids = new Set<string>()
      let ok = 0
      const one = path === "placeOrder"
        ? Effect.suspend(() => client.placeOrder(orderBody(nextId()))).pipe(Effect.map((placed) => {
          ids.add(placed.orderId)
          ok++
        }))
        : Effect.map(client.openOrdersPage(openOrdersBody), (page) => {
          if (page.orderInfoResultList?.length !== OPEN_ORDERS_LIMIT) fail("open orders: a short page", page)
          ok++
        })
      return runtime.runPromise(
        Effect.forEach(indices(n), () => one, { concurrency, discard: true }).pipe(
          Effect.map((): Check => ({
            ok,
            distinctOrderIds: ids.size,
            sampleOrderId: ids.size === 0 ? undefined : `string ${[...ids][0]}`
          })),
          options.httpSpans === false ? Effect.provideService(HttpClient.TracerDisabledWhen, () => true) : identity,
          options.backend === true ? Effect.withTracer(keepingTracer) : identity
        )
      )
    }
  }
}

export const spotkit: Contestant = {
  key: "spotkit",
  label: "spotkit: SpotClient over NodeSpotClient.layer (undici used directly, the default), rate limiter on",
  make: spotkitOver("undici")
}

// The same over platform-node's undici HttpClient (an HTTP span per request): the HTTP layer spotkit used before.
export const spotkitEffectUndici: Contestant = {
  key: "spotkit-effect-undici",
  label: "spotkit over NodeSpotClient.layer with transport \"effect-undici\" (platform-node's HttpClient)",
  make: spotkitOver("effect-undici")
}

// ---------------------------------------------------------------------------------------------------------------
// bitget-api (tiagosiebler): RestClientV2 with its `baseUrl` option and its generic signed `postPrivate(path,
// params)`, the method every typed call (`spotSubmitOrder` ...) goes through. Its own path: WebCrypto HMAC (the key
// imported on every request), axios over Node's keep-alive http agent, axios' JSON.parse.

export const bitgetApi: Contestant = {
  key: "bitget-api",
  label: "bitget-api 3.2.3: RestClientV2.postPrivate (WebCrypto HMAC, axios)",
  make: async (baseUrl) => {
    const { RestClientV2 } = await import("bitget-api")
    const client = new RestClientV2({
      apiKey: credentials.apiKey,
      apiSecret: credentials.secretKey,
      apiPass: credentials.passphrase,
      baseUrl
    })
    return posting((path, params) => client.postPrivate(path, params))
  }
}

// ---------------------------------------------------------------------------------------------------------------
// ccxt: its bitget exchange with every `urls.api` entry pointed at the server, and its generic signed
// `request(path, ["private", "spot"], "POST", params)` (fetch2 -> bitget's sign() -> fetch -> handleRestResponse ->
// handleErrors), client-side throttling off. Its own path: @noble/hashes HMAC in JavaScript, undici.request
// (ccxt's own undici 7), its JSON parsing and error mapping. The unified createOrder cannot be used: it builds
// bitget's own body for its own path (/api/v2/spot/trade/place-order) and needs loadMarkets from bitget's public
// endpoints first.

export const ccxtBitget: Contestant = {
  key: "ccxt",
  label: "ccxt 4.5.84: bitget.request(path, ['private', 'spot'], 'POST') (@noble/hashes HMAC, undici)",
  make: async (baseUrl) => {
    const { bitget } = await import("ccxt")
    const exchange = new bitget({
      apiKey: credentials.apiKey,
      secret: credentials.secretKey,
      password: credentials.passphrase,
      enableRateLimit: false
    })
    const api = exchange.urls["api"] as Record<string, string>
    for (const name of Object.keys(api)) api[name] = baseUrl
    // ccxt's paths are relative to `/api/`.
    const relative = (path: string) => path.replace(/^\/api\//, "")
    return posting((path, params) => exchange.request(relative(path), ["private", "spot"], "POST", params))
  }
}

export const contestants: ReadonlyArray<Contestant> = [raw, spotkit, spotkitEffectUndici, bitgetApi, ccxtBitget]

// A tracer as a backend installs one: not Effect's native tracer (which the undici transport makes no HTTP span
// under), its spans kept in memory as the native tracer's are, exported nowhere.
const keepingTracer = Tracer.make({ span: (options) => new Tracer.NativeSpan(options) })

/**
 * Contestants for paired measurements only (not in the benchmark's table): spotkit without its rate limiter; and, to
 * price the undici transport's HTTP client span, without it (`HttpClient.TracerDisabledWhen`), and under a tracer other than the native one, with and
 * without it; the operation spans are kept in each.
 */
export const measurementOnly: ReadonlyArray<Contestant> = [floor, {
  key: "spotkit-no-limiter",
  label: "spotkit over NodeSpotClient.layer (undici), client-side rate limiting off",
  make: spotkitOver("undici", { limiter: false })
}, {
  key: "spotkit-no-http-span",
  label: "spotkit over NodeSpotClient.layer (undici), its HTTP client span disabled",
  make: spotkitOver("undici", { httpSpans: false })
}, {
  key: "spotkit-traced",
  label: "spotkit over NodeSpotClient.layer (undici) under a tracing backend",
  make: spotkitOver("undici", { backend: true })
}, {
  key: "spotkit-traced-no-http-span",
  label: "spotkit over NodeSpotClient.layer (undici) under a tracing backend, its HTTP client span disabled",
  make: spotkitOver("undici", { httpSpans: false, backend: true })
}]
