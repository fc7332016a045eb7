/**
 * The `spotkit-sandbox` command as a user runs it: a real subprocess (`node --conditions=@spotkit/source
 * src/bin/sandbox.ts ...`), its printed banner parsed, the core `SpotClient` talking to it over loopback HTTP, and
 * its exit codes (0 after SIGINT/SIGTERM and for `--help`, 2 for bad flags).
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import { Push, SpotClient } from "@spotkit/core"
import { Effect, Fiber, Redacted, Stream } from "effect"
import { FetchHttpClient } from "effect/http"
import { ChildProcess } from "effect/process"
import type { ChildProcessSpawner } from "effect/process"
import { fileURLToPath } from "node:url"
import { TestExchange } from "../src/index.ts"

const packageDir = fileURLToPath(new URL("..", import.meta.url))
const TIMEOUT = 60_000

const sandbox = (args: ReadonlyArray<string>) =>
  ChildProcess.make(process.execPath, ["--conditions=@spotkit/source", "src/bin/sandbox.ts", ...args], {
    cwd: packageDir
  })

const text = (stream: ChildProcessSpawner.ChildProcessHandle["stdout"]) => Stream.mkString(Stream.decodeText(stream))

/** Runs the command to its end: exit code, stdout and stderr. */
const runToEnd = (args: ReadonlyArray<string>) =>
  Effect.scoped(Effect.gen(function*() {
    const handle = yield* sandbox(args)
    const [stdout, stderr] = yield* Effect.all([text(handle.stdout), text(handle.stderr)], { concurrency: 2 })
    const exitCode = yield* handle.exitCode
    return { exitCode: Number(exitCode), stdout, stderr }
  })).pipe(Effect.timeout("30 seconds"), Effect.provide(NodeServices.layer))

interface Banner {
  readonly lines: ReadonlyArray<string>
  readonly env: ReadonlyMap<string, string>
}

const EXPORT = /^export ([A-Z][A-Z0-9_]*)=(.*)$/

/**
 * Starts the command in the current scope (it is killed when the scope closes) and reads its banner up to the
 * "# serving" line. `stop(signal)` sends the signal and answers the exit code and everything written to stderr.
 */
const start = (args: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const handle = yield* sandbox(args)
    const stderr = yield* Effect.forkScoped(text(handle.stderr))
    const lines = yield* handle.stdout.pipe(
      Stream.decodeText(),
      Stream.splitLines,
      Stream.takeUntil((line) => line.startsWith("# serving")),
      Stream.runCollect,
      Effect.timeout("30 seconds")
    )
    assert.isTrue(lines.at(-1)?.startsWith("# serving"), `no "# serving" line in:\n${lines.join("\n")}`)
    const env = new Map<string, string>()
    for (const line of lines) {
      const match = EXPORT.exec(line)
      if (match !== null) env.set(match[1]!, match[2]!)
    }
    const banner: Banner = { lines, env }
    const stop = (signal: "SIGINT" | "SIGTERM") =>
      Effect.gen(function*() {
        yield* handle.kill({ killSignal: signal })
        const exitCode = yield* handle.exitCode
        return { exitCode: Number(exitCode), stderr: yield* Fiber.join(stderr) }
      }).pipe(Effect.timeout("30 seconds"))
    return { banner, stop }
  })

const get = (banner: Banner, name: string): string => {
  const value = banner.env.get(name)
  assert.isDefined(value, `${name} is not printed`)
  return value!
}

// A client of the sandbox over fetch, with the credentials the banner prints under `prefix` (`SPOTKIT`: alice's as
// `SpotClient.layerConfig` reads them; `SPOTKIT_BOB`: bob's).
const clientOf = (banner: Banner, prefix: string) =>
  SpotClient.make({
    baseUrl: get(banner, "SPOTKIT_BASE_URL"),
    credentials: {
      apiKey: Redacted.make(get(banner, `${prefix}_API_KEY`)),
      secretKey: Redacted.make(get(banner, `${prefix}_SECRET_KEY`)),
      passphrase: Redacted.make(get(banner, `${prefix}_PASSPHRASE`))
    },
    rateLimit: false
  }).pipe(Effect.provide(FetchHttpClient.layer))

// A buy below bob's lowest ask (30005): it rests.
const restingBuy = (clientOrderId: string) =>
  ({
    symbol: "BTCUSDT_SPBL",
    side: "buy",
    orderType: "limit",
    force: "normal",
    price: "29000",
    quantity: "0.01",
    clientOrderId
  }) as const

// The exported values of the banner without the base and push URLs (which differ from run to run: port 0).
const withoutBaseUrl = (banner: Banner) =>
  [...banner.env].filter(([name]) => name !== "SPOTKIT_BASE_URL" && name !== "SPOTKIT_PUSH_URL")

// Decimal strings compared as exact values: "50000.00000000" and "50000" are the same amount.
const canonical = (decimal: string): string => {
  const [whole = "", fraction = ""] = decimal.split(".")
  const trimmed = fraction.replace(/0+$/, "")
  return trimmed.length > 0 ? `${whole}.${trimmed}` : whole
}

describe("spotkit-sandbox", () => {
  it.live(
    "prints its base URL and alice's credentials, serves the client over HTTP, and stops cleanly on SIGINT",
    () =>
      Effect.gen(function*() {
        const { banner, stop } = yield* start(["--bills", "1000", "--seed", "7"])

        // Every line is a shell comment or an `export NAME=value` line: a person can read it, a shell can source it.
        for (const line of banner.lines) {
          assert.isTrue(line.startsWith("# ") || EXPORT.test(line), `neither a comment nor an export: ${line}`)
        }
        const baseUrl = get(banner, "SPOTKIT_BASE_URL")
        assert.match(baseUrl, /^http:\/\/127\.0\.0\.1:\d+$/)
        assert.notStrictEqual(baseUrl, "http://127.0.0.1:0")

        // The demo keys (fixed test values of TestExchange.demoKeys), per user, and alice's as SpotClient.layerConfig's.
        const alice = TestExchange.demoKeys.alice
        const bob = TestExchange.demoKeys.bob
        assert.strictEqual(get(banner, "SPOTKIT_ALICE_API_KEY"), alice.apiKey)
        assert.strictEqual(get(banner, "SPOTKIT_ALICE_SECRET_KEY"), alice.secretKey)
        assert.strictEqual(get(banner, "SPOTKIT_ALICE_PASSPHRASE"), alice.passphrase)
        assert.strictEqual(get(banner, "SPOTKIT_BOB_API_KEY"), bob.apiKey)
        assert.strictEqual(get(banner, "SPOTKIT_BOB_SECRET_KEY"), bob.secretKey)
        assert.strictEqual(get(banner, "SPOTKIT_BOB_PASSPHRASE"), bob.passphrase)
        assert.strictEqual(get(banner, "SPOTKIT_API_KEY"), alice.apiKey)
        assert.strictEqual(get(banner, "SPOTKIT_SECRET_KEY"), alice.secretKey)
        assert.strictEqual(get(banner, "SPOTKIT_PASSPHRASE"), alice.passphrase)
        const aliceId = get(banner, "SPOTKIT_ALICE_USER_ID")
        const bobId = get(banner, "SPOTKIT_BOB_USER_ID")
        for (const id of [aliceId, bobId]) {
          assert.match(id, /^\d{19}$/)
          assert.isTrue(BigInt(id) > 2n ** 53n, `${id} is not above 2^53`)
        }
        assert.notStrictEqual(aliceId, bobId)

        const client = yield* clientOf(banner, "SPOTKIT")

        // alice's funding account: the 1000 generated bills plus the demo's two FUND deposits (50000 USDT, 2 BTC),
        // which come after the history (it ends one millisecond before the start).
        const bills = yield* Stream.runCollect(client.fundingBills({ pageSize: 100 }))
        assert.strictEqual(bills.length, 1002)
        assert.strictEqual(new Set(bills.map((bill) => bill.billId)).size, 1002)
        for (let i = 1; i < bills.length; i++) {
          assert.isTrue(bills[i - 1]!.cTime >= bills[i]!.cTime, `bills out of order at ${i}`)
        }
        assert.deepStrictEqual(
          bills.slice(0, 2).map((bill) => `${bill.bizType} ${bill.coinName} ${canonical(bill.deltaAmount)}`).sort(),
          ["deposit BTC 2", "deposit USDT 50000"]
        )
        assert.isTrue(bills.slice(2).every((bill) => bill.cTime < bills[1]!.cTime))

        // An order below bob's lowest ask (30005) rests; it is alice's only open order on the symbol.
        const placed = yield* client.placeOrder(restingBuy("sandbox-command-1"))
        assert.strictEqual(placed.clientOrderId, "sandbox-command-1")
        assert.isTrue(BigInt(placed.orderId) > 2n ** 53n)
        const open = yield* Stream.runCollect(client.openOrders({ symbol: "BTCUSDT_SPBL" }))
        assert.deepStrictEqual(open.map((order) => order.orderId), [placed.orderId])

        const stopped = yield* stop("SIGINT")
        assert.strictEqual(stopped.exitCode, 0)
        assert.strictEqual(stopped.stderr, "")
      }).pipe(Effect.provide(NodeServices.layer)),
    TIMEOUT
  )

  it.live(
    "prints the same ids and credentials for the same seed, other user ids for another seed",
    () =>
      Effect.gen(function*() {
        const [first, second, other] = yield* Effect.all(
          [start(["--bills", "10", "--seed", "7"]), start(["--bills", "10", "--seed", "7"]), start(["--seed", "8"])],
          { concurrency: 3 }
        )
        assert.notStrictEqual(get(first.banner, "SPOTKIT_BASE_URL"), get(second.banner, "SPOTKIT_BASE_URL"))
        assert.deepStrictEqual(withoutBaseUrl(first.banner), withoutBaseUrl(second.banner))
        assert.strictEqual(withoutBaseUrl(first.banner).length, 11)
        assert.notStrictEqual(get(first.banner, "SPOTKIT_ALICE_USER_ID"), get(other.banner, "SPOTKIT_ALICE_USER_ID"))
        assert.notStrictEqual(get(first.banner, "SPOTKIT_BOB_USER_ID"), get(other.banner, "SPOTKIT_BOB_USER_ID"))
        for (const run of [first, second, other]) {
          const stopped = yield* run.stop("SIGTERM")
          assert.strictEqual(stopped.exitCode, 0)
        }
      }).pipe(Effect.provide(NodeServices.layer)),
    TIMEOUT
  )

  it.live("--no-demo prints only the base URL; --port and --host are honoured", () =>
    Effect.gen(function*() {
      // A fixed port could be taken; ask the OS for a free one through a first run, then reuse it.
      const probe = yield* start(["--no-demo"])
      const port = get(probe.banner, "SPOTKIT_BASE_URL").split(":").at(-1)!
      assert.strictEqual((yield* probe.stop("SIGINT")).exitCode, 0)

      const { banner, stop } = yield* start([
        "--no-demo",
        "--port",
        port,
        "--host",
        "127.0.0.1",
        "--rate-limits",
        "off"
      ])
      assert.deepStrictEqual([...banner.env.keys()], ["SPOTKIT_BASE_URL", "SPOTKIT_PUSH_URL"])
      assert.strictEqual(get(banner, "SPOTKIT_BASE_URL"), `http://127.0.0.1:${port}`)
      assert.strictEqual(get(banner, "SPOTKIT_PUSH_URL"), `ws://127.0.0.1:${port}`)
      assert.strictEqual((yield* stop("SIGINT")).exitCode, 0)
    }).pipe(Effect.provide(NodeServices.layer)), TIMEOUT)

  it.live("--help exits 0 and describes every flag", () =>
    Effect.gen(function*() {
      const run = yield* runToEnd(["--help"])
      assert.strictEqual(run.exitCode, 0)
      const flags = [
        "--port",
        "--host",
        "--seed",
        "--demo",
        "--no-demo",
        "--bills",
        "--rate-limits",
        "--cors",
        "--push-faults",
        "--push-continuity"
      ]
      for (const flag of flags) {
        assert.include(run.stdout, flag)
      }
      // Each flag's line says its default.
      const line = (flag: string) => run.stdout.split("\n").find((l) => l.trim().startsWith(`${flag} `)) ?? ""
      assert.include(line("--port"), "(default 0)")
      assert.include(line("--host"), "(default 127.0.0.1)")
      assert.include(line("--seed"), "(default 1)")
      assert.include(line("--demo"), "on by default")
      assert.include(line("--bills"), "(default 200000)")
      assert.include(line("--rate-limits"), "(default on)")
      assert.include(line("--cors"), "(default off)")
      assert.include(line("--push-faults"), "(default none)")
      assert.include(line("--push-continuity"), "(default next)")
      assert.strictEqual(run.stderr, "")
    }), TIMEOUT)

  it.live("a bad flag or value exits 2 with one line on stderr naming it", () =>
    Effect.gen(function*() {
      const cases = [
        { args: ["--bogus"], mentions: "--bogus" },
        { args: ["--port", "seventy"], mentions: "--port" },
        { args: ["--port", "70000"], mentions: "--port" },
        { args: ["--bills", "-5"], mentions: "--bills" },
        { args: ["--rate-limits", "maybe"], mentions: "--rate-limits" },
        { args: ["--cors", "localhost"], mentions: "--cors" },
        { args: ["--push-faults", "drop=1"], mentions: "--push-faults" },
        { args: ["--push-continuity", "sideways"], mentions: "--push-continuity" }
      ]
      const runs = yield* Effect.forEach(cases, (c) => runToEnd(c.args), { concurrency: 2 })
      runs.forEach((run, i) => {
        const { args, mentions } = cases[i]!
        assert.strictEqual(run.exitCode, 2, `${args.join(" ")}: exit code`)
        assert.strictEqual(run.stdout, "", `${args.join(" ")}: stdout`)
        const lines = run.stderr.split("\n").filter((line) => line.length > 0)
        assert.strictEqual(lines.length, 1, `${args.join(" ")}: ${run.stderr}`)
        assert.include(lines[0], mentions)
      })
    }), TIMEOUT)

  it.live(
    "the documented recipe `pnpm -s sandbox > sandbox.env` writes only lines a shell can source",
    () =>
      Effect.scoped(Effect.gen(function*() {
        // pnpm's own banner ("> spotkit@ sandbox ...") on stdout would be run by `. ./sandbox.env`; `-s` keeps it out.
        const handle = yield* ChildProcess.make("pnpm", ["-s", "sandbox", "--", "--no-demo"], {
          cwd: fileURLToPath(new URL("../../..", import.meta.url))
        })
        const lines = yield* handle.stdout.pipe(
          Stream.decodeText(),
          Stream.splitLines,
          Stream.takeUntil((line) => line.startsWith("# serving")),
          Stream.runCollect,
          Effect.timeout("30 seconds")
        )
        yield* handle.kill({ killSignal: "SIGINT" })
        assert.isTrue(lines[0]?.startsWith("# spotkit-sandbox "), lines.join("\n"))
        for (const line of lines) {
          assert.isTrue(line.startsWith("# ") || EXPORT.test(line), `neither a comment nor an export: ${line}`)
        }
      })).pipe(Effect.provide(NodeServices.layer)),
    TIMEOUT
  )

  // A depth change over a real WebSocket, after bob rests an order: its start is the snapshot's version plus one, or,
  // with --push-continuity previous-end, the snapshot's version itself.
  it.live(
    "--push-continuity: where a depth change starts, as pushed over the sandbox's WebSocket",
    () =>
      Effect.gen(function*() {
        const startOf = (args: ReadonlyArray<string>) =>
          Effect.scoped(Effect.gen(function*() {
            const { banner, stop } = yield* start(["--rate-limits", "off", ...args])
            const channel = "depth.BTCUSDT_SPBL.200"
            const frames: Array<
              { readonly depthType: string; readonly startVersion: string; readonly endVersion: string }
            > = []
            const socket = new WebSocket(`${get(banner, "SPOTKIT_PUSH_URL")}/v2/ws/public`)
            yield* Effect.addFinalizer(() => Effect.sync(() => socket.close()))
            socket.addEventListener("message", (event) => {
              const message = JSON.parse(String(event.data)) as {
                event?: string
                channel?: string
                data?: Array<never>
              }
              if (message.event === "payload" && message.channel === channel) frames.push(...(message.data ?? []))
            })
            yield* Effect.callback<void>((resume) => {
              socket.addEventListener("open", () => resume(Effect.void))
            })
            socket.send(Push.subscribeMessage(channel))
            const until = (done: () => boolean) =>
              Effect.repeat(Effect.sleep("20 millis"), { until: done }).pipe(Effect.timeout("10 seconds"))
            yield* until(() => frames.length >= 1)
            const bob = yield* clientOf(banner, "SPOTKIT_BOB")
            yield* bob.placeOrder(restingBuy("continuity-1"))
            yield* until(() => frames.length >= 2)
            assert.strictEqual((yield* stop("SIGINT")).exitCode, 0)
            const [snapshot, change] = frames
            assert.strictEqual(snapshot!.depthType, "SNAPSHOT")
            assert.strictEqual(change!.depthType, "CHANGED")
            assert.strictEqual(BigInt(change!.endVersion), BigInt(snapshot!.endVersion) + 1n)
            return BigInt(change!.startVersion) - BigInt(snapshot!.endVersion)
          }))
        assert.strictEqual(yield* startOf([]), 1n)
        assert.strictEqual(yield* startOf(["--push-continuity", "previous-end"]), 0n)
      }).pipe(Effect.provide(NodeServices.layer)),
    TIMEOUT
  )

  it.live("a port that is taken exits 1 with one line on stderr", () =>
    Effect.scoped(Effect.gen(function*() {
      const first = yield* start(["--no-demo"])
      const port = get(first.banner, "SPOTKIT_BASE_URL").split(":").at(-1)!
      const run = yield* runToEnd(["--no-demo", "--port", port])
      assert.strictEqual(run.exitCode, 1)
      const lines = run.stderr.split("\n").filter((line) => line.length > 0)
      assert.strictEqual(lines.length, 1, run.stderr)
      assert.include(lines[0], port)
      assert.strictEqual((yield* first.stop("SIGINT")).exitCode, 0)
    })).pipe(Effect.provide(NodeServices.layer)), TIMEOUT)
})
