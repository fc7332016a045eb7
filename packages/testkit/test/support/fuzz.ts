/**
 * The fuzzing runners (fast-check generators, sampled in seeded batches so a run is reproducible).
 *
 * - `responseFuzz`: one client over an `HttpClient` that answers generated hostile responses (mutated envelopes with
 *   wrong types, missing fields, huge numbers and gigantic strings; HTML pages; empty, truncated and garbled bodies;
 *   the wrong envelope; bodies that break off mid-stream; odd statuses and headers) to every public operation. Each
 *   call must end in a success or a typed `SpotError`: never a defect, never a hang.
 * - `requestFuzz`: hostile raw HTTP requests to the sandbox (bad JSON, oversized bodies, wrong types, missing or
 *   duplicated headers, unknown paths, odd unicode, broken framing on raw sockets), signed or not. Each must be
 *   answered with a venue code or a 4xx; afterwards the state is intact, conservation holds and normal signed
 *   requests still work.
 */
import { assert } from "@effect/vitest"
import { Signer, SpotClient, Venue } from "@spotkit/core"
import { Clock, Duration, Effect, Redacted, Stream } from "effect"
import { HttpClient, HttpClientResponse } from "effect/http"
import * as fc from "fast-check"
import { Buffer } from "node:buffer"
import { createHmac, createSecretKey } from "node:crypto"
import { readFileSync } from "node:fs"
import { Agent, request as httpRequest } from "node:http"
import { connect } from "node:net"
import { TestExchange } from "../../src/index.ts"
import { BTC } from "./conformance.ts"
import { assertConserved, demoExchange, outcomeTag, tally, withSandbox } from "./reliability.ts"
import type { Collector } from "./secrets.ts"

// Signs with node:crypto, synchronously: the fuzzed venue checks no signature, and this keeps the runs fast.
const nodeCryptoSigner: Signer.Service = {
  name: "node-crypto-hmac-sha256 (test)",
  prepare: (secretKey) =>
    Effect.sync(() => {
      const key = createSecretKey(Buffer.from(Redacted.value(secretKey), "utf8"))
      return (prehash: string) => Effect.sync(() => createHmac("sha256", key).update(prehash).digest("base64"))
    })
}

// ---------------------------------------------------------------------------------------------------------------
// JSON with raw literals

/** A number literal written as is (JSON.stringify cannot write 1e400 or a 30-digit integer). */
class Raw {
  readonly literal: string
  constructor(literal: string) {
    this.literal = literal
  }
}

const render = (value: unknown): string => {
  if (value instanceof Raw) return value.literal
  if (Array.isArray(value)) return `[${value.map(render).join(",")}]`
  if (typeof value === "object" && value !== null) {
    return `{${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}:${render(v)}`).join(",")}}`
  }
  return JSON.stringify(value) ?? "null"
}

const hugeNumbers = [
  "1e400",
  "-1e400",
  "123456789012345678901234567890",
  "9007199254740993",
  "18446744073709551616",
  "-0",
  "0.0000000000000000000000001",
  "1E+2",
  "-602876318261969338"
].map((literal) => new Raw(literal))

const oddStrings = [
  "",
  " ",
  "\u0000",
  "\ud800",
  "\udfff\ud800",
  "\u202e1.5",
  "１２３",
  "NaN",
  "-0",
  "0x1F",
  "null",
  "💥"
]

/** A hostile JSON value: wrong types, huge numbers, odd unicode, nesting, and now and then a gigantic string. */
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom<unknown>(null, true, false, 0, -1, 1.5, [], {}, ...hugeNumbers) },
  { weight: 3, arbitrary: fc.constantFrom(...oddStrings) },
  { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 30 }) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 2_000 }).map((n) => "a".repeat(n)) },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 1, max: 20 }).map((depth) =>
      JSON.parse("[".repeat(depth) + "]".repeat(depth)) as unknown
    )
  },
  { weight: 1, arbitrary: fc.constant("9".repeat(300)) },
  { weight: 1, arbitrary: fc.nat(24).map((n) => n === 0 ? "x".repeat(1_000_000) : "x".repeat(n * 40)) }
)

// ---------------------------------------------------------------------------------------------------------------
// Response fuzzing

// The golden fixtures (the spec's sample shapes) are the valid answers that mutations bend; numbers stay exact.
const fixture = (name: string): Record<string, unknown> =>
  JSON.parse(
    readFileSync(new URL(`../fixtures/${name}.json`, import.meta.url), "utf8"),
    (_key, value: unknown, context?: { readonly source?: string }) =>
      typeof value === "number" ? new Raw(context?.source ?? String(value)) : value
  )

/** A valid answer of each path. */
const valid: Record<string, Record<string, unknown>> = {
  [Venue.endpoints.placeOrder.path]: fixture("place-order"),
  [Venue.endpoints.placeOrders.path]: fixture("batch-orders"),
  [Venue.endpoints.openOrders.path]: fixture("open-orders"),
  [Venue.endpoints.fundingBills.path]: fixture("funding-bills"),
  [Venue.endpoints.internalTransfer.path]: fixture("transfer")
}

const withData = (path: string, data: Record<string, unknown>) => ({
  ...valid[path],
  data: { ...(valid[path]!.data as Record<string, unknown>), ...data }
})

/** The answers once a case's are used up: valid, and last pages so that streams end. */
const lastPage: Record<string, unknown> = {
  ...valid,
  [Venue.endpoints.openOrders.path]: withData(Venue.endpoints.openOrders.path, { orderInfoResultList: [] }),
  [Venue.endpoints.fundingBills.path]: withData(Venue.endpoints.fundingBills.path, { items: [], hasNextPage: false })
}

const NOW = 1_700_000_000_000
const standard = (data: unknown) => ({ code: "00000", msg: "success", requestTime: NOW, data })
const openOrder = (valid[Venue.endpoints.openOrders.path]!.data as { orderInfoResultList: Array<unknown> })
  .orderInfoResultList[0]

type Mutation = { readonly at: number; readonly kind: "delete" | "replace" | "wrap"; readonly value: unknown }

/** Every path of a JSON tree, parents first. */
const pathsOf = (value: unknown, prefix: ReadonlyArray<string | number> = []): Array<Array<string | number>> => {
  const here = [prefix.slice()]
  if (value instanceof Raw || typeof value !== "object" || value === null) return here
  const entries = Array.isArray(value) ? value.map((v, i) => [i, v] as const) : Object.entries(value)
  return [...here, ...entries.flatMap(([key, child]) => pathsOf(child, [...prefix, key]))]
}

const mutate = (template: unknown, mutations: ReadonlyArray<Mutation>): unknown => {
  let root = structuredCloneRaw(template)
  for (const mutation of mutations) {
    const paths = pathsOf(root)
    const path = paths[mutation.at % paths.length]!
    if (path.length === 0) {
      root = mutation.kind === "wrap" ? [root] : mutation.value
      continue
    }
    type Node = Record<string | number, unknown>
    const parent = path.slice(0, -1).reduce((node: Node, key) => node[key] as Node, root as Node)
    const key = path[path.length - 1]!
    if (mutation.kind === "delete") {
      if (Array.isArray(parent)) parent.splice(Number(key), 1)
      else delete parent[key]
    } else {
      parent[key] = mutation.kind === "wrap" ? { value: parent[key] } : mutation.value
    }
  }
  return root
}

const structuredCloneRaw = (value: unknown): unknown => {
  if (value instanceof Raw || typeof value !== "object" || value === null) return value
  if (Array.isArray(value)) return value.map(structuredCloneRaw)
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, structuredCloneRaw(v)]))
}

/** One generated answer; `breaks`: the body stream fails half way. */
interface Answer {
  readonly status: number
  readonly headers: ReadonlyArray<readonly [string, string]>
  readonly body: (path: string) => string
  readonly breaks: boolean
}

const mutation: fc.Arbitrary<Mutation> = fc.record({
  at: fc.nat(),
  kind: fc.constantFrom("delete" as const, "replace" as const, "replace" as const, "wrap" as const),
  value: hostileValue
})

const htmlPage = (status: number) => `<html><head><title>${status}</title></head><body><h1>${status}</h1></body></html>`

const body: fc.Arbitrary<{ readonly kind: string; readonly body: (path: string) => string }> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.array(mutation, { minLength: 1, maxLength: 3 }).map((ms) => ({
      kind: "mutated",
      body: (path: string) => render(mutate(valid[path], ms))
    }))
  },
  {
    weight: 2,
    arbitrary: fc.tuple(hostileValue, hostileValue, hostileValue, hostileValue).map(([code, msg, time, data]) => ({
      kind: "envelope of wrong types",
      body: () => render({ code, msg, requestTime: time, data })
    }))
  },
  {
    weight: 2,
    arbitrary: fc.tuple(fc.nat(), fc.string({ maxLength: 3 })).map(([cut, tail]) => ({
      kind: "truncated",
      body: (path: string) => {
        const text = render(valid[path])
        return text.slice(0, cut % text.length) + tail
      }
    }))
  },
  { weight: 1, arbitrary: fc.jsonValue().map((value) => ({ kind: "any JSON", body: () => JSON.stringify(value) })) },
  { weight: 1, arbitrary: fc.constant({ kind: "empty", body: () => "" }) },
  { weight: 1, arbitrary: fc.nat(599).map((status) => ({ kind: "HTML page", body: () => htmlPage(status) })) },
  {
    weight: 1,
    arbitrary: fc.string({ unit: "binary", maxLength: 200 }).map((text) => ({ kind: "text", body: () => text }))
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      { kind: "wrong envelope", body: () => render({ code: "200", id: "7", timestamp: NOW }) },
      { kind: "wrong envelope", body: () => render(standard({ id: "7" })) },
      { kind: "wrong envelope", body: () => "[]" },
      { kind: "wrong envelope", body: () => render({ data: standard(null) }) },
      { kind: "gigantic", body: () => JSON.stringify({ code: "x".repeat(2_000_000) }) },
      { kind: "gigantic", body: () => "{".repeat(100_000) },
      { kind: "gigantic", body: () => render(standard({ orderInfoResultList: Array(2_000).fill(openOrder) })) }
    )
  }
)

const answer: fc.Arbitrary<Answer & { readonly kind: string }> = fc.record({
  status: fc.oneof(
    { weight: 6, arbitrary: fc.constant(200) },
    { weight: 3, arbitrary: fc.constantFrom(400, 401, 403, 404, 408, 413, 418, 429, 500, 502, 503, 504) },
    { weight: 1, arbitrary: fc.integer({ min: 200, max: 599 }) }
  ),
  headers: fc.constantFrom<ReadonlyArray<readonly [string, string]>>(
    [["content-type", "application/json"]],
    [],
    [["content-type", "text/html; charset=utf-8"]],
    [["content-type", "application/json"], ["content-type", "text/plain"]],
    [["content-type", "application/json; charset=utf-16"]],
    [["content-encoding", "gzip"]],
    [["retry-after", "-1"], ["x-ratelimit-remaining", "NaN"]],
    [["set-cookie", "session=1"], ["set-cookie", "session=2"]],
    [["x-padding", "p".repeat(8_000)]]
  ),
  shape: body,
  // One answer in ten breaks off mid-body.
  breakDraw: fc.nat(9)
}).map(({ breakDraw, headers, shape, status }) => ({
  status,
  headers,
  body: shape.body,
  kind: shape.kind,
  breaks: breakDraw === 0
}))

const encoder = new TextEncoder()

const toWeb = (answer: Answer, path: string): Response => {
  const headers = new Headers()
  for (const [name, value] of answer.headers) headers.append(name, value)
  const nullBody = answer.status === 204 || answer.status === 205 || answer.status === 304
  const text = answer.body(path)
  if (nullBody) return new Response(null, { status: answer.status, headers })
  if (!answer.breaks) return new Response(text, { status: answer.status, headers })
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(text.slice(0, Math.floor(text.length / 2))))
      controller.error(new Error("connection reset mid-body"))
    }
  })
  return new Response(stream, { status: answer.status, headers })
}

const credentials = {
  apiKey: Redacted.make("fuzz-api-key-0001"),
  secretKey: Redacted.make("fuzz-secret-key-0001"),
  passphrase: Redacted.make("fuzz-passphrase-0001")
}

/** The fixed credentials of the response fuzzing client, as plain text (for the secrets search). */
export const fuzzCredentials = [credentials.apiKey, credentials.secretKey, credentials.passphrase].map(Redacted.value)

const limit = { symbol: BTC, side: "buy", orderType: "limit", price: "100", quantity: "1" } as const

/** A buy of alice's that rests on the demo exchange (below bob's lowest ask), as the venue's request body. */
export const restingOrder = (clientOrderId: string) => ({
  ...limit,
  price: "29000",
  quantity: "0.01",
  force: "normal",
  clientOrderId
})

/** Every public operation, each as one call. */
const operations: ReadonlyArray<readonly [string, (client: SpotClient.Service) => Effect.Effect<unknown, unknown>]> = [
  ["placeOrder", (client) => client.placeOrder({ ...limit, clientOrderId: "fz-1" })],
  [
    "placeOrders",
    (client) => client.placeOrders(BTC, [{ ...limit, clientOrderId: "fz-2" }, { ...limit, clientOrderId: "fz-3" }])
  ],
  ["openOrdersPage", (client) => client.openOrdersPage({ symbol: BTC })],
  ["openOrders", (client) => Stream.runCollect(client.openOrders({ symbol: BTC, pageSize: 2 }))],
  ["fundingBillsPage", (client) => client.fundingBillsPage({ pageSize: 2 })],
  ["fundingBills", (client) => Stream.runCollect(client.fundingBills({ pageSize: 2 }))],
  [
    "internalTransfer",
    (client) =>
      client.internalTransfer({
        toUserId: "18446744073709551615",
        coin: "USDT",
        amount: "1",
        fromAccountType: "FUND",
        toAccountType: "SPOT"
      })
  ]
]

const responseCase = fc.record({
  operation: fc.nat(operations.length - 1),
  answers: fc.array(answer, { minLength: 1, maxLength: 3 })
})

const BATCH = 1_000

/**
 * Runs `cases` generated cases: each calls one operation while the venue answers the case's 1–3 generated answers
 * (then valid last pages, so that streams end). Answers the outcome figures.
 */
export const responseFuzz = (options: { readonly cases: number; readonly seed: number }, collector?: Collector) =>
  Effect.gen(function*() {
    let queue: Array<Answer> = []
    let served = 0
    const http = HttpClient.make((request, url) =>
      Effect.sync(() => {
        const next = queue.shift()
        if (next !== undefined) served++
        const web = next === undefined
          ? new Response(render(lastPage[url.pathname]), { status: 200 })
          : toWeb(next, url.pathname)
        return HttpClientResponse.fromWeb(request, web)
      })
    )
    const client = yield* SpotClient.make({
      baseUrl: "http://venue.test",
      credentials,
      rateLimit: false,
      retry: false,
      timeout: "2 seconds"
    }).pipe(
      Effect.provideService(HttpClient.HttpClient, collector === undefined ? http : collector.tap(http)),
      Effect.provide(Signer.layer(nodeCryptoSigner))
    )
    const start = yield* Clock.currentTimeMillis
    const outcomes: Array<string> = []
    const kinds: Array<string> = []
    const byOperation: Array<string> = []
    for (let first = 0; first < options.cases; first += BATCH) {
      const cases = fc.sample(responseCase, {
        seed: options.seed + first,
        numRuns: Math.min(BATCH, options.cases - first)
      })
      for (const c of cases) {
        const [name, run] = operations[c.operation]!
        queue = c.answers.slice()
        for (const a of c.answers) kinds.push(a.breaks ? "breaks mid-body" : a.kind)
        const exit = yield* Effect.exit(Effect.timeout(run(client), Duration.seconds(10)))
        collector?.exit(`fuzz ${name}`, exit)
        outcomes.push(outcomeTag(exit, `${name} against ${JSON.stringify(c.answers.map((a) => [a.status, a.kind]))}`))
        byOperation.push(name)
      }
    }
    return {
      cases: outcomes.length,
      responsesServed: served,
      defects: 0,
      hangs: 0,
      outcomes: tally(outcomes),
      operations: tally(byOperation),
      answerKinds: tally(kinds),
      durationMillis: (yield* Clock.currentTimeMillis) - start
    }
  })

// ---------------------------------------------------------------------------------------------------------------
// Request fuzzing

export interface WireAnswer {
  readonly status: number
  readonly body: string
}

const alice = TestExchange.demoKeys.alice

export const sign = (timestamp: string, method: string, path: string, body: string) =>
  createHmac("sha256", alice.secretKey).update(`${timestamp}${method}${path}${body}`).digest("base64")

const endpoints = Object.values(Venue.endpoints).filter((e) => e.permission !== undefined).map((e) => e.path)

const validBodies: Record<string, Record<string, unknown>> = {
  [Venue.endpoints.placeOrder.path]: restingOrder("h-1"),
  [Venue.endpoints.placeOrders.path]: {
    symbol: BTC,
    orderList: [{
      side: "buy",
      orderType: "limit",
      force: "normal",
      price: "29000",
      quantity: "0.01",
      clientOrderId: "h-2"
    }]
  },
  [Venue.endpoints.openOrders.path]: { symbol: BTC, limit: 10, pageNo: 0 },
  [Venue.endpoints.fundingBills.path]: { pageSize: 10, pageIndex: 1 },
  [Venue.endpoints.internalTransfer.path]: {
    toUserId: "0",
    coin: "USDT",
    amount: "1",
    fromAccountType: "FUND",
    toAccountType: "SPOT"
  }
}

/** Values no field of any request accepts. */
const invalidValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(null, true, 0, -1, 1.5, [], {}, ...hugeNumbers),
  fc.constantFrom(
    "",
    " ",
    "\u0000",
    "\ud800",
    "\u202e29000",
    "２９０００",
    "NaN",
    "0x10",
    "1e5",
    "-5",
    "<script>",
    "💥"
  ),
  fc.integer({ min: 300_000, max: 400_000 }).map((n) => "9".repeat(n % 50 + 30))
)

const hostileBody: fc.Arbitrary<(path: string) => string> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.tuple(fc.nat(), invalidValue).map(([at, value]) => (path: string) => {
      // One field of a valid body made invalid; the clientOrderId only ever gets a non-string.
      const template = validBodies[path] ?? validBodies[Venue.endpoints.placeOrder.path]!
      const fields = Object.keys(template)
      const field = fields[at % fields.length]!
      const bad = field === "clientOrderId" && typeof value === "string" ? 0 : value
      return render({ ...template, [field]: bad })
    })
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      "",
      "{",
      "{\"symbol\":",
      "[]",
      "null",
      "\"text\"",
      "{\"a\":1}garbage",
      "{'symbol':'BTCUSDT_SPBL'}",
      "\ufeff{}",
      "{\"symbol\":\"\ud800\"}",
      "[".repeat(50_000)
    ).map((text) => () => text)
  },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((value) => () => JSON.stringify(value)) },
  { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 100 }).map((text) => () => text) },
  { weight: 1, arbitrary: fc.nat(9).map((n) => () => n === 0 ? `{"pad":"${"x".repeat(300_000)}"}` : "{}") }
)

const hostilePath = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...endpoints) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      "/",
      "/products",
      "/api/v3/trade/orders",
      "/API/V2/TRADE/ORDERS",
      "//api/v2/trade/orders",
      "/api/v2/trade/orders/",
      "/api/v2/trade/../trade/orders",
      "/api/v2/trade/orders?symbol=BTCUSDT_SPBL&symbol=x",
      "/api/v2/trade/orders%00",
      `/api/${encodeURIComponent("💥\u202e")}`,
      `/${"a".repeat(4_000)}`,
      "/api/v2/account/fundingBills#frag"
    )
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 30 }).map((s) => `/${encodeURIComponent(s)}`) }
)

type HeaderPlan = "signed" | "missing" | "duplicated" | "empty" | "wrong"

const requestCase = fc.record({
  method: fc.oneof(
    { weight: 8, arbitrary: fc.constant("POST") },
    { weight: 2, arbitrary: fc.constantFrom("GET", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD") }
  ),
  path: hostilePath,
  body: hostileBody,
  plan: fc.constantFrom<HeaderPlan>("signed", "signed", "signed", "missing", "duplicated", "empty", "wrong"),
  header: fc.constantFrom(
    "access-key",
    "access-sign",
    "access-timestamp",
    "access-passphrase",
    "content-type",
    "locale"
  ),
  wrong: fc.constantFrom(
    "text/plain",
    "application/jsonx",
    "0",
    "-1",
    "17000000000000000",
    "1.5",
    "abc",
    "x".repeat(200)
  )
})

/** Raw requests that break HTTP framing, sent on their own socket. */
const framing = fc.record({
  line: fc.constantFrom(
    "POST /api/v2/trade/orders HTTP/1.1",
    "POST /api/v2/trade/orders HTTP/9.9",
    "POST /api/v2/trade/orders",
    "GARBAGE",
    "POST /api\u0000/x HTTP/1.1",
    "POST /\u00e9\u00ff HTTP/1.1",
    "P\u00d6ST / HTTP/1.1",
    "POST http://evil.test/api/v2/trade/orders HTTP/1.1"
  ),
  headers: fc.constantFrom(
    ["Content-Length: abc"],
    ["Content-Length: 2", "Content-Length: 3"],
    ["Transfer-Encoding: chunked", "Content-Length: 2"],
    ["Transfer-Encoding: chunked"],
    ["Bad header line"],
    ["Content-Type : application/json"],
    ["X-A: 1", " folded continuation"],
    ["Acc(ess-Key: x"],
    ["Access-Key: a\u0000b"],
    [`X-Huge: ${"h".repeat(20_000)}`],
    ["Content-Length: -1"]
  ),
  chunk: fc.constantFrom("zz\r\n{}\r\n0\r\n\r\n", "2\r\n{}\r\n0\r\n\r\n", "{}{}{}"),
  eol: fc.constantFrom("\r\n", "\n")
})

export const sendHttp = (
  agent: Agent | undefined,
  port: number,
  request: {
    readonly method: string
    readonly path: string
    readonly headers: Record<string, string | Array<string>>
    readonly body: string
  }
) =>
  Effect.callback<WireAnswer, Error>((resume) => {
    const req = httpRequest(
      { host: "127.0.0.1", port, agent, method: request.method, path: request.path, headers: request.headers },
      (response) => {
        const chunks: Array<Buffer> = []
        response.on("data", (chunk: Buffer) => chunks.push(chunk))
        response.on("end", () =>
          resume(Effect.succeed({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") })))
        response.on("error", (error) =>
          resume(Effect.fail(error)))
      }
    )
    req.on("error", (error) => resume(Effect.fail(error)))
    req.end(request.body)
  })

const sendRaw = (port: number, bytes: string) =>
  Effect.callback<WireAnswer, Error>((resume) => {
    const socket = connect(port, "127.0.0.1")
    let received = ""
    let done = false
    const finish = () => {
      if (done) return
      done = true
      socket.destroy()
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(received)
      resume(
        status === null
          ? Effect.fail(new Error(`no HTTP answer: ${JSON.stringify(received.slice(0, 80))}`))
          : Effect.succeed({ status: Number(status[1]), body: received })
      )
    }
    socket.on("connect", () => socket.write(Buffer.from(bytes, "latin1")))
    socket.on("data", (chunk: Buffer) => {
      received += chunk.toString("latin1")
      if (received.includes("\r\n\r\n")) finish()
    })
    socket.on("close", finish)
    socket.on("error", finish)
    return Effect.sync(() => socket.destroy())
  })

/** A venue envelope's code, if the body is one. */
const venueCode = (body: string): string | undefined => {
  const parsed = (() => {
    try {
      return JSON.parse(body) as unknown
    } catch {
      return undefined
    }
  })()
  return typeof parsed === "object" && parsed !== null && "code" in parsed && typeof parsed.code === "string"
    ? parsed.code
    : undefined
}

/**
 * Sends `cases` hostile requests to the sandbox, `concurrency` at a time, one in twenty a raw request that breaks the
 * framing; then checks the state and that signed requests still work. Answers the figures.
 */
export const requestFuzz = (
  options: { readonly cases: number; readonly seed: number; readonly concurrency: number },
  collector?: Collector
) =>
  withSandbox(
    demoExchange(20, { rateLimits: false, requestLogSize: 1_000 }),
    ({ client, exchange, baseUrl }) =>
      Effect.gen(function*() {
        const port = Number(new URL(baseUrl).port)
        const [aliceId, bobId] = exchange.accounts.map((a) => a.userId)
        const snapshot = () => ({
          balances: [exchange.engine.balances(aliceId!), exchange.engine.balances(bobId!)],
          orders: exchange.engine.orderList().length,
          ledger: exchange.engine.ledgerOf(aliceId!).length + exchange.engine.ledgerOf(bobId!).length
        })
        const before = snapshot()
        const start = yield* Clock.currentTimeMillis
        const agent = new Agent({ keepAlive: true, maxSockets: options.concurrency })
        const statuses: Array<string> = []
        const codes: Array<string> = []
        const kinds: Array<string> = []
        for (let start = 0; start < options.cases; start += BATCH) {
          const n = Math.min(BATCH, options.cases - start)
          const cases = fc.sample(fc.tuple(requestCase, framing, fc.nat(19)), {
            seed: options.seed + start,
            numRuns: n
          })
          yield* Effect.forEach(cases, ([c, raw, draw]) =>
            Effect.gen(function*() {
              let sent: Effect.Effect<WireAnswer, Error>
              let what: string
              if (draw === 0) {
                const lines = [raw.line, "Host: sandbox", ...raw.headers]
                what = `raw ${JSON.stringify(lines).slice(0, 200)}`
                kinds.push("raw framing")
                sent = sendRaw(port, lines.join(raw.eol) + raw.eol + raw.eol + raw.chunk)
              } else {
                const body = c.body(c.path)
                const timestamp = String(Date.now())
                const headers: Record<string, string | Array<string>> = {
                  "access-key": alice.apiKey,
                  "access-sign": sign(timestamp, c.method, c.path, body),
                  "access-timestamp": timestamp,
                  "access-passphrase": alice.passphrase,
                  "content-type": "application/json",
                  locale: "en-US",
                  // Framed even where node would not frame a body (GET, HEAD): bad framing is the raw cases' job.
                  "content-length": String(Buffer.byteLength(body))
                }
                if (c.plan === "missing") delete headers[c.header]
                if (c.plan === "duplicated") headers[c.header] = [headers[c.header] as string, c.wrong]
                if (c.plan === "empty") headers[c.header] = ""
                if (c.plan === "wrong") headers[c.header] = c.wrong
                what = `${c.method} ${c.path.slice(0, 80)} ${c.plan} ${c.header} ${JSON.stringify(body.slice(0, 120))}`
                kinds.push(`headers ${c.plan}`)
                sent = sendHttp(agent, port, { method: c.method, path: c.path, headers, body })
              }
              const answer = yield* Effect.timeout(sent, Duration.seconds(10)).pipe(
                Effect.catch((error) => Effect.sync(() => assert.fail(`${what}: ${String(error)}`)))
              )
              const code = venueCode(answer.body)
              statuses.push(String(answer.status))
              if (code !== undefined) codes.push(code)
              collector?.add("request fuzz answer", [answer.body.slice(0, 500)])
              const ok = (answer.status >= 400 && answer.status < 500) || (answer.status === 200 && code !== undefined)
              if (!ok) assert.fail(`${what}: answered ${answer.status} ${JSON.stringify(answer.body.slice(0, 200))}`)
            }), { concurrency: options.concurrency, discard: true })
        }
        agent.destroy()
        const millis = (yield* Clock.currentTimeMillis) - start
        // Nothing was applied, no coin appeared or vanished, and the sandbox still serves signed requests.
        assert.deepStrictEqual(snapshot(), before, "state intact")
        yield* assertConserved(exchange)
        const user = yield* client({ retry: false })
        const placed = yield* user.placeOrder({
          ...limit,
          price: "29000",
          quantity: "0.01",
          clientOrderId: "after-fuzz"
        })
        const open = yield* Stream.runCollect(user.openOrders({ symbol: BTC }))
        assert.deepStrictEqual(open.map((o) => o.orderId), [placed.orderId])
        const bills = yield* Stream.runCollect(user.fundingBills())
        assert.strictEqual(bills.length, exchange.engine.ledgerOf(aliceId!, "FUND").length)
        yield* user.internalTransfer({
          toUserId: bobId!,
          coin: "USDT",
          amount: "1",
          fromAccountType: "FUND",
          toAccountType: "SPOT"
        })
        yield* assertConserved(exchange)
        return {
          cases: statuses.length,
          unanswered: 0,
          statuses: tally(statuses),
          venueCodes: tally(codes),
          kinds: tally(kinds),
          durationMillis: millis
        }
      }),
    collector
  )
