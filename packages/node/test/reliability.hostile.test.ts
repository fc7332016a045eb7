/**
 * Hostile venues (issue #17), tried as a hostile party would, against the client as users run it — the `spotkit` CLI
 * (a subprocess of the built package, its peak memory sampled) and the library over every Node transport:
 *
 * - a venue that answers an endless or a 1 GiB body: the CLI and the library fail with `ResponseTooLargeError` in
 *   bounded memory; the CLI writes one line on stderr, nothing on stdout, and exits 1;
 * - a venue whose `msg` forges lines, drives the terminal (escapes, C1, bidi overrides) or is 10 or 100 MiB long: one
 *   printable line, the full text kept on the error;
 * - a venue that echoes every credential (and the request's signature) in every encoding: raw, JSON-escaped,
 *   `\u`-escaped, URL-encoded, base64: none of it in the CLI's stdout and stderr, nor in the library's errors, logs
 *   and spans.
 *
 * The sandbox's side (hostile requests: large bodies, replays, signatures over bytes, failed authentications) is the
 * testkit's `reliability.hostile.test.ts`.
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { assert, describe, it } from "@effect/vitest"
import { SpotClient, SpotError, Venue } from "@spotkit/core"
import { Cause, Effect, Exit, Layer, Redacted } from "effect"
import { HttpClient } from "effect/http"
import { Buffer } from "node:buffer"
import { Collector } from "../../testkit/test/support/secrets.ts"
import { NodeSpotClient } from "../src/index.ts"
import * as H from "./support/hostile.ts"
import { full, report, testTimeout } from "./support/reliability.ts"

const BTC = "BTCUSDT_SPBL"

const MiB = 1024 * 1024
const CLI_TARGET_MB = 200
const ORDERS = Venue.endpoints.placeOrder.path
const OPEN_ORDERS = Venue.endpoints.openOrders.path

const hostile = {
  apiKey: Redacted.make(H.hostileCredentials.apiKey),
  secretKey: Redacted.make(H.hostileCredentials.secretKey),
  passphrase: Redacted.make(H.hostileCredentials.passphrase)
}
const secrets = [H.hostileCredentials.apiKey, H.hostileCredentials.secretKey, H.hostileCredentials.passphrase]

/** One line on stderr: `spotkit: ...`, a single newline at its end, nothing a terminal acts on. */
const assertOneLine = (text: string, what: string) => {
  assert.isTrue(text.startsWith("spotkit: "), `${what}: starts with the command's name: ${JSON.stringify(text)}`)
  assert.strictEqual(text.indexOf("\n"), text.length - 1, `${what}: one line: ${JSON.stringify(text.slice(0, 300))}`)
  assert.isFalse(H.hasTerminalControls(text), `${what}: no terminal control: ${JSON.stringify(text.slice(0, 300))}`)
}

/** The reason of a failed call, asserting that it failed with a typed SpotError. */
const reasonOf = <A>(exit: Exit.Exit<A, unknown>, what: string): SpotError.SpotErrorReason => {
  assert.isTrue(Exit.isFailure(exit), `${what}: fails`)
  const error = Cause.squash((exit as Exit.Failure<A, unknown>).cause)
  assert.instanceOf(error, SpotError.SpotError, `${what}: a SpotError, not ${String(error)}`)
  return (error as SpotError.SpotError).reason
}

/** A core client over undici to a venue, as the hostile credentials. */
// Without the server-time sync and the symbol-rules lookup: both are public GETs of their own (unsigned), and these
// tests count and inspect the requests of each call.
const quiet = { syncServerTime: false, checkSymbolRules: false } as const

const clientAt = (baseUrl: string, options: Partial<SpotClient.Options> = {}) =>
  SpotClient.make({ baseUrl, credentials: hostile, rateLimit: false, ...quiet, ...options })

const TRANSPORTS = ["undici", "effect-undici", "node:http"] as const

const sizeCases = [
  ["endless chunked body", H.endlessBody],
  ["1 GiB body", H.declaredBody(1024 * MiB)]
] as const

// Full run: also a 1 GiB body without a Content-Length (read up to the limit, as an endless one).
const fullSizeCases = full ? [...sizeCases, ["1 GiB chunked body", H.chunkedBody(1024 * MiB)] as const] : sizeCases

describe("reliability: hostile venues", () => {
  it.live(
    "a response's size: the CLI against an endless and a 1 GiB body: one line on stderr, exit 1, stdout empty",
    () =>
      Effect.gen(function*() {
        const figures: Record<string, unknown> = {}
        // The CLI as users run it (it reads at most 16 MiB); in the full run also with the library's default limit,
        // 64 MiB (SPOTKIT_MAX_RESPONSE_BYTES), recorded, not held against the goal: why the CLI reads less.
        const runs = [
          ...fullSizeCases.map(([name, handler]) => [name, handler, {}] as const),
          ...(full
            ? [
              [
                "endless chunked body, SPOTKIT_MAX_RESPONSE_BYTES=64 MiB",
                H.endlessBody,
                { SPOTKIT_MAX_RESPONSE_BYTES: String(SpotClient.DEFAULT_MAX_RESPONSE_BYTES) }
              ] as const
            ]
            : [])
        ]
        for (const [name, handler, env] of runs) {
          const run = yield* Effect.scoped(Effect.flatMap(
            H.hostileVenue(handler),
            (venue) => H.runCli(["bills", "export", "--format", "ndjson"], { ...H.cliEnv(venue.baseUrl), ...env })
          ))
          assert.strictEqual(run.code, 1, `${name}: exit code (stderr ${JSON.stringify(run.stderr.slice(0, 300))})`)
          assert.strictEqual(run.stdoutBytes, 0, `${name}: nothing on stdout`)
          assertOneLine(run.stderr, name)
          assert.include(run.stderr, "the answer is too large", name)
          // No /proc (not Linux): no figure to hold against the goal.
          const byDefault = Object.keys(env).length === 0
          if (run.peakRssMB > 0 && byDefault) assert.isBelow(run.peakRssMB, CLI_TARGET_MB, `${name}: peak RSS`)
          figures[name] = {
            exitCode: run.code,
            stdoutBytes: run.stdoutBytes,
            stderr: run.stderr.trim(),
            peakRssMB: run.peakRssMB,
            seconds: run.seconds
          }
        }
        if (full) {
          // The baseline: the same export of an empty page, a normal answer.
          const empty = { code: "00000", msg: "success", requestTime: Date.now(), data: { items: [] } }
          const run = yield* Effect.scoped(Effect.flatMap(
            H.hostileVenue(H.answer(200, empty)),
            (venue) => H.runCli(["bills", "export", "--format", "ndjson"], H.cliEnv(venue.baseUrl))
          ))
          assert.strictEqual(run.code, 0, `baseline: ${run.stderr}`)
          figures["baseline: an empty page"] = { exitCode: run.code, peakRssMB: run.peakRssMB, seconds: run.seconds }
        }
        yield* report("hostile-size-cli", { targetMB: CLI_TARGET_MB, runs: figures })
      }),
    testTimeout(90_000, 180_000)
  )

  it.live(
    "a response's size: the library over every Node transport fails with ResponseTooLargeError, once",
    () =>
      Effect.gen(function*() {
        const limit = full ? SpotClient.DEFAULT_MAX_RESPONSE_BYTES : 4 * MiB
        const figures: Array<unknown> = []
        for (const transport of TRANSPORTS) {
          for (const [name, handler] of fullSizeCases) {
            const what = `${transport}, ${name}`
            yield* Effect.scoped(Effect.gen(function*() {
              const venue = yield* H.hostileVenue(handler)
              const started = performance.now()
              const exit = yield* Effect.exit(
                Effect.flatMap(Effect.service(SpotClient.SpotClient), (client) => client.fundingBillsPage()).pipe(
                  Effect.provide(NodeSpotClient.layer({
                    baseUrl: venue.baseUrl,
                    credentials: hostile,
                    rateLimit: false,
                    ...quiet,
                    transport,
                    maxResponseBytes: limit
                  }))
                )
              )
              const reason = reasonOf(exit, what)
              assert.strictEqual(reason._tag, "ResponseTooLargeError", `${what}: ${reason.message}`)
              assert.strictEqual((reason as SpotError.ResponseTooLargeError).limit, limit, what)
              assert.isFalse(reason.isRetryable, what)
              // Not retried: one request reached the venue.
              assert.strictEqual(venue.paths.length, 1, `${what}: requests`)
              figures.push({
                transport,
                body: name,
                reason: reason._tag,
                message: reason.message,
                requests: venue.paths.length,
                millis: Math.round(performance.now() - started)
              })
            }))
          }
        }
        yield* report("hostile-size-library", { limit, calls: figures })
      }),
    testTimeout(60_000, 120_000)
  )

  it.live(
    "a response's size: a library process's peak memory over each transport stays within the limit's reach",
    () =>
      Effect.gen(function*() {
        // Reduced: one transport, one body, a small limit, to keep the harness tried; full: every transport and body
        // at the default limit. A process that fails at the first chunk (a declared 1 GiB) is the baseline; reading an
        // endless body up to the limit may add the limit and what the socket buffers holding it cost beyond it.
        const limit = full ? SpotClient.DEFAULT_MAX_RESPONSE_BYTES : 4 * MiB
        const transports = full ? TRANSPORTS : (["undici"] as const)
        const cases = full ? fullSizeCases : sizeCases.slice(0, 1)
        const figures: Array<Record<string, unknown>> = []
        for (const transport of transports) {
          for (const [name, handler] of cases) {
            const what = `${transport}, ${name}`
            const run = yield* Effect.scoped(
              Effect.flatMap(H.hostileVenue(handler), (venue) => H.runLibrary(venue.baseUrl, transport, limit))
            )
            assert.strictEqual(run.code, 0, `${what}: ${run.stderr.slice(0, 300)}`)
            const outcome = JSON.parse(run.stdout) as { readonly outcome: string; readonly message?: string }
            assert.strictEqual(outcome.outcome, "ResponseTooLargeError", `${what}: ${run.stdout}`)
            figures.push({ transport, body: name, peakRssMB: run.peakRssMB, seconds: run.seconds })
          }
          const peaks = figures.filter((figure) => figure.transport === transport).map((f) => f.peakRssMB as number)
          // No /proc (not Linux): no figure to hold.
          if (full && peaks.every((peak) => peak > 0)) {
            const baseline = peaks[1]!
            for (const peak of peaks) {
              assert.isBelow(peak - baseline, (2.5 * limit) / MiB, `${transport}: MB added by reading to the limit`)
            }
          }
        }
        yield* report("hostile-size-library-memory", { limitBytes: limit, runs: figures })
      }),
    testTimeout(30_000, 180_000)
  )

  const FORGED = "bad request\nspotkit: exported 0 rows OK\r\u001b[2K\u001b]0;pwned\u0007\u001b[31mred\u001b[0m " +
    "\u009b2J \u202eexe.txt \u2066isolated\u2069 \u2028next \u0000 end"

  it.live(
    "hostile msg: forged lines, terminal escapes, bidi overrides, 10 and 100 MiB: one printable line",
    () =>
      Effect.gen(function*() {
        const cases = [
          ["forged lines and terminal controls", H.refusalWith(FORGED)],
          ["a 10 MiB msg", H.hugeMsg(10 * MiB)],
          ["a 100 MiB msg", H.hugeMsg(100 * MiB)]
        ] as const
        const figures: Record<string, unknown> = {}
        for (const [name, handler] of cases) {
          const run = yield* Effect.scoped(Effect.flatMap(
            H.hostileVenue(handler),
            (venue) => H.runCli(["orders", "open", "--symbol", BTC], H.cliEnv(venue.baseUrl))
          ))
          assert.strictEqual(run.code, 1, `${name}: exit code`)
          assert.strictEqual(run.stdoutBytes, 0, `${name}: nothing on stdout`)
          assertOneLine(run.stderr, name)
          assert.isBelow(run.stderr.length, 2_100, `${name}: a capped line`)
          figures[name] = { exitCode: run.code, stderrCharacters: run.stderr.length, stderr: run.stderr.slice(0, 400) }
        }
        const forged = (figures["forged lines and terminal controls"] as { readonly stderr: string }).stderr
        // The controls are shown as escapes, not acted on.
        for (const escape of ["\\n", "\\r", "\\u001b", "\\u009b", "\\u202e", "\\u2066", "\\u2028", "\\u0000"]) {
          assert.include(forged, escape)
        }
        assert.include((figures["a 10 MiB msg"] as { readonly stderr: string }).stderr, " characters)")
        assert.include((figures["a 100 MiB msg"] as { readonly stderr: string }).stderr, "the answer is too large")

        // The library keeps the venue's whole text on the reason and shows it as one printable line.
        const library = yield* Effect.scoped(
          Effect.gen(function*() {
            const out: Record<string, unknown> = {}
            for (
              const [name, handler, length] of [["forged", H.refusalWith(FORGED), FORGED.length], [
                "10 MiB",
                H.hugeMsg(10 * MiB),
                10 * MiB - 23 - `","requestTime":${Date.now()},"data":null}`.length
              ]] as const
            ) {
              const venue = yield* H.hostileVenue(handler)
              const client = yield* clientAt(venue.baseUrl, { retry: false })
              const reason = reasonOf(yield* Effect.exit(client.openOrdersPage({ symbol: BTC })), name)
              assert.strictEqual(reason._tag, "InvalidRequestError", name)
              const msg = (reason as SpotError.InvalidRequestError).msg
              assert.strictEqual(msg.length, length, `${name}: the whole msg on the reason`)
              if (name === "forged") assert.strictEqual(msg, FORGED)
              const error = new SpotError.SpotError({ operation: "SpotClient.openOrdersPage", reason })
              assert.notInclude(error.message, "\n", name)
              assert.isFalse(H.hasTerminalControls(error.message), name)
              assert.isBelow(error.message.length, 400, name)
              out[name] = { msgCharacters: msg.length, message: error.message.slice(0, 300) }
            }
            return out
          }).pipe(Effect.provide(NodeHttpClient.layerUndici))
        )
        yield* report("hostile-msg", { cli: figures, library })
      }),
    testTimeout(60_000, 120_000)
  )

  it.live("secrets in every encoding: none in anything the CLI prints, data included", () =>
    Effect.gen(function*() {
      const echo = H.echoOf(secrets)
      const now = Date.now()
      const bill = {
        billId: "2001000000000000004",
        coinId: 2,
        coinName: echo,
        bizType: "deposit",
        deltaAmount: "1",
        afterAmount: "1",
        fees: "0",
        cTime: String(now - 1_000)
      }
      const order = {
        accountId: "1",
        symbol: BTC,
        orderId: "602876318261969338",
        clientOrderId: echo,
        price: "29000",
        quantity: "0.01",
        orderType: "limit",
        side: "buy",
        status: "new",
        latestFillPrice: "0",
        maxFillPrice: "0",
        minFillPrice: "0",
        fillQuantity: "0",
        fillTotalAmount: "0",
        cTime: now,
        uTime: now
      }
      const envelope = (data: unknown) => ({ code: "00000", msg: "success", requestTime: now, data })
      // The lists say they end (a page shorter than asked, with no word of it, is asked past, and this venue answers
      // every page alike).
      const transfer = ["transfer", "--to-user", "4001000000000002", "--coin", "USDT", "--amount", "5"].concat(
        ["--from-account", "SPOT", "--to-account", "FUND"]
      )
      const runs = [
        ["refusal echoing them (stderr)", ["orders", "open", "--symbol", BTC], H.refusalWith(echo, "40012"), 1],
        ["transfer id echoing them", transfer, H.answer(200, { code: "200", id: echo, timestamp: now }), 0],
        [
          "transfer id echoing them, JSON",
          [...transfer, "--format", "json"],
          H.answer(200, { code: "200", id: echo, timestamp: now }),
          0
        ],
        [
          "bills echoing them, CSV",
          ["bills", "export"],
          H.answer(200, envelope({ items: [bill], hasNextPage: false })),
          0
        ],
        [
          "bills echoing them, NDJSON",
          ["bills", "export", "--format", "ndjson"],
          H.answer(200, envelope({ items: [bill], hasNextPage: false })),
          0
        ],
        [
          "open orders echoing them, table",
          ["orders", "open", "--symbol", BTC],
          H.answer(200, envelope({ orderInfoResultList: [order], nextPage: false, totals: null })),
          0
        ],
        [
          "open orders echoing them, JSON",
          ["orders", "open", "--symbol", BTC, "--format", "json"],
          H.answer(200, envelope({ orderInfoResultList: [order], nextPage: false, totals: null })),
          0
        ]
      ] as const
      const figures: Array<unknown> = []
      const leaks: Array<H.Leak> = []
      // Two at a time: each is a process of its own with a venue of its own.
      const done = yield* Effect.forEach(
        runs,
        ([, args, handler]) =>
          Effect.scoped(Effect.flatMap(H.hostileVenue(handler), (venue) => H.runCli(args, H.cliEnv(venue.baseUrl)))),
        { concurrency: 2 }
      )
      for (const [i, [name, , , code]] of runs.entries()) {
        const run = done[i]!
        assert.strictEqual(run.code, code, `${name}: exit code (stderr ${JSON.stringify(run.stderr.slice(0, 300))})`)
        // The echo arrived, and was removed.
        assert.include(run.stdout + run.stderr, "<redacted>", name)
        leaks.push(
          ...H.leaksIn(`${name}: stdout`, run.stdout, secrets),
          ...H.leaksIn(`${name}: stderr`, run.stderr, secrets)
        )
        figures.push({ run: name, exitCode: run.code, stdoutBytes: run.stdoutBytes, stderrBytes: run.stderrBytes })
      }
      assert.deepStrictEqual(leaks.slice(0, 10), [], `${leaks.length} leaks`)
      yield* report("hostile-secrets-cli", {
        secrets: secrets.length,
        encodings: H.encodingsOf(secrets[0]!).map(([name]) => name),
        runs: figures,
        leaks: leaks.length
      })
    }), testTimeout(90_000, 180_000))

  it.live("secrets in every encoding: none in the library's errors, logs and spans", () =>
    Effect.gen(function*() {
      const collector = new Collector()
      // The venue echoes every credential and the request's own signature, in every encoding, wherever it can: in a
      // refusal's msg, in a payload of the wrong shape (quoted by the Schema's message and the excerpt), in an HTML
      // error page, in a body that is not JSON, in a batch item's failure.
      const echoFor = (request: { readonly headers: Record<string, string | Array<string> | undefined> }) => {
        const signature = String(request.headers["access-sign"] ?? "")
        collector.signatures.add(signature)
        return `${H.echoOf(secrets)} ${H.echoOf([signature])}`
      }
      const now = Date.now()
      const handler: H.Handler = (request, _body, response) => {
        const echo = echoFor(request)
        const send = (status: number, contentType: string, body: string) => {
          response.writeHead(status, { "content-type": contentType, "content-length": Buffer.byteLength(body) })
          response.end(body)
        }
        switch (request.url) {
          case OPEN_ORDERS:
            return send(400, "application/json", JSON.stringify({ code: "40012", msg: echo, requestTime: now }))
          case ORDERS:
            return send(
              200,
              "application/json",
              JSON.stringify({ code: "00000", requestTime: now, data: { orderId: [echo] } })
            )
          case Venue.endpoints.fundingBills.path:
            return send(502, "text/html", `<html><body>${echo}</body></html>`)
          case Venue.endpoints.internalTransfer.path:
            return send(200, "application/json", `not json ${echo}`)
          default:
            return send(
              200,
              "application/json",
              JSON.stringify({
                code: "00000",
                requestTime: now,
                data: { resultList: [], failure: [{ clientOrderId: "h-1", errorCode: "40020", errorMsg: echo }] }
              })
            )
        }
      }
      const calls = yield* Effect.scoped(
        Effect.gen(function*() {
          const venue = yield* H.hostileVenue(handler)
          const undici = yield* HttpClient.HttpClient
          const client = yield* clientAt(venue.baseUrl, { retry: false }).pipe(
            Effect.provideService(HttpClient.HttpClient, collector.tap(undici))
          )
          const operations: ReadonlyArray<readonly [string, Effect.Effect<unknown, SpotError.SpotError>]> = [
            ["openOrdersPage", client.openOrdersPage({ symbol: BTC })],
            ["placeOrder", client.placeOrder({ ...limitBuy, clientOrderId: "h-0" })],
            ["fundingBillsPage", client.fundingBillsPage()],
            ["internalTransfer", client.internalTransfer(transferInput)],
            ["placeOrders", client.placeOrders(BTC, [{ ...limitBuy, clientOrderId: "h-1" }])]
          ]
          const tags: Record<string, string> = {}
          for (const [name, call] of operations) {
            const exit = yield* Effect.exit(Effect.withLogSpan(call, name))
            collector.exit(name, exit)
            tags[name] = Exit.isSuccess(exit) ? "success" : reasonOf(exit, name)._tag
          }
          return tags
        }).pipe(Effect.provide(Layer.merge(NodeHttpClient.layerUndici, collector.layer)))
      )
      assert.deepStrictEqual(calls, {
        openOrdersPage: "AuthenticationError",
        placeOrder: "OutcomeUnknownError",
        fundingBillsPage: "HttpStatusError",
        internalTransfer: "OutcomeUnknownError",
        placeOrders: "success"
      })
      const texts = collector.all
      assert.isTrue(texts.some(({ text }) => text.includes("<redacted>")), "the echoes reached the errors, scrubbed")
      const signatures = [...collector.signatures]
      const leaks = texts.flatMap(({ source, text }) => H.leaksIn(source, text, [...secrets, ...signatures]))
      assert.deepStrictEqual(leaks.slice(0, 10), [], `${leaks.length} leaks`)
      yield* report("hostile-secrets-library", {
        calls,
        texts: texts.length,
        signatures: signatures.length,
        leaks: leaks.length
      })
    }), 60_000)
})

const limitBuy = {
  symbol: BTC,
  side: "buy",
  orderType: "limit",
  force: "normal",
  price: "29000",
  quantity: "0.01"
} as const

const transferInput = {
  toUserId: "4001000000000002",
  coin: "USDT",
  amount: "5",
  fromAccountType: "SPOT",
  toAccountType: "FUND"
} as const
