// `npm run demo`: the whole of spotkit in one command. It starts the sandbox (`spotkit-sandbox`, the testkit's
// exchange on loopback) with the demo data, then drives the `spotkit` CLI against it over real signed HTTP: the
// balances before, orders that fill and orders that rest, the open orders and the market they make (the book and the
// ticker, public data), a batch of 120 with a few invalid items, a
// cancel and each order's final state, the rest of the batch cancelled at once, transfers between the two users and
// their status, the balances after, and exports of alice's fills to ./demo-out/fills.csv and of every funding bill to
// ./demo-out/bills.csv with progress. It ends with a summary and stops the sandbox; any step that does not end as
// expected ends it with exit code 1. Before it trades it starts `spotkit watch fills` (push, NDJSON) in the
// background, and after the export it checks that every fill of alice's orders was pushed, once.
//
// The seed is fixed and every clientOrderId is given, so the transcript on stdout is the same on every run (only
// the progress line on stderr shows timings, and the bills' times in the CSV are the sandbox clock's).
import { spawn, spawnSync } from "node:child_process"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..")
const out = join(root, "demo-out")
const SEED = 7
const BILLS = 200_000
const source = ["--conditions=@spotkit/source"]
const sandboxBin = join(root, "packages/testkit/src/bin/sandbox.ts")
const spotkitBin = join(root, "packages/node/src/bin/spotkit.ts")

const print = (line = "") => process.stdout.write(line + "\n")
const STEPS = 11
const step = (n: number, title: string) => print(`\n[${n}/${STEPS}] ${title}`)
const fail = (message: string): never => {
  process.stderr.write(`demo: ${message}\n`)
  process.exit(1)
}

// --- the sandbox -------------------------------------------------------------------------------------------------

const startSandbox = (): Promise<{ readonly env: Record<string, string>; readonly stop: () => Promise<number> }> =>
  new Promise((resolveStart) => {
    const child = spawn(
      process.execPath,
      [...source, sandboxBin, "--seed", String(SEED), "--bills", String(BILLS), "--rate-limits", "off"],
      { stdio: ["ignore", "pipe", "inherit"] }
    )
    // Whatever way the demo ends (a failed step exits early), the sandbox does not outlive it.
    process.once("exit", () => child.kill("SIGTERM"))
    const env: Record<string, string> = {}
    const exited = new Promise<number>((done) => child.once("exit", (code) => done(code ?? 1)))
    void exited.then((code) => {
      if (Object.keys(env).length === 0) fail(`the sandbox exited with code ${code} before serving`)
    })
    createInterface({ input: child.stdout }).on("line", (line) => {
      const match = /^export ([A-Z0-9_]+)=(.*)$/.exec(line)
      if (match !== null) env[match[1]!] = match[2]!.replace(/^'(.*)'$/, "$1")
      if (line.startsWith("# serving")) {
        resolveStart({
          env,
          stop: () => {
            child.kill("SIGTERM")
            return exited
          }
        })
      }
    })
  })

// --- the CLI -------------------------------------------------------------------------------------------------------

interface Run {
  readonly status: number
  readonly stdout: string
}

const spotkit = (env: Record<string, string>, args: ReadonlyArray<string>, options: { show?: number } = {}): Run => {
  print(`  $ spotkit ${args.map((arg) => (/[\s'"]/.test(arg) ? `'${arg}'` : arg)).join(" ")}`)
  const result = spawnSync(process.execPath, [...source, spotkitBin, ...args], {
    env: { ...process.env, ...env },
    encoding: "utf8",
    // stderr (diagnostics, the export's progress line) goes straight to the terminal.
    stdio: ["ignore", "pipe", "inherit"],
    maxBuffer: 64 * 1024 * 1024
  })
  const lines = result.stdout.split("\n").filter((line) => line.length > 0)
  const shown = options.show ?? lines.length
  for (const line of lines.slice(0, shown)) print(`    ${line}`)
  // `show: 0`: the demo renders the output itself.
  if (shown > 0 && lines.length > shown) print(`    … ${lines.length - shown} more lines`)
  if (result.status !== 0) print(`    (exit code ${result.status})`)
  return { status: result.status ?? 1, stdout: result.stdout }
}

const expectStatus = (run: Run, status: number, what: string) => {
  if (run.status !== status) fail(`${what}: expected exit code ${status}, got ${run.status}`)
}

const expect = (condition: boolean, what: string) => {
  if (!condition) fail(what)
}

interface Balance {
  readonly available: string
  readonly frozen: string
  readonly equity: string
}

/** `spotkit balances`, shown as its table and read back from it (coin, coinId, available, frozen, equity). */
const balances = (env: Record<string, string>, what: string): ReadonlyMap<string, Balance> => {
  const run = spotkit(env, ["balances"])
  expectStatus(run, 0, what)
  const rows = run.stdout.split("\n").slice(1).filter((line) => line.length > 0).map((line) => line.split(/\s+/))
  return new Map(
    rows.map((
      [coin, , available, frozen, equity]
    ) => [coin!, { available: available!, frozen: frozen!, equity: equity! }])
  )
}

/** Exact integers of 1e-12 back as a decimal, without trailing zeros. */
const decimal = (value: bigint) => {
  const digits = value.toString().padStart(13, "0")
  const fraction = digits.slice(-12).replace(/0+$/, "")
  return digits.slice(0, -12) + (fraction.length > 0 ? `.${fraction}` : "")
}

// Decimal amounts as exact integers of 1e-12 (no float rounding in the checks).
const units = (decimal: string) => {
  const negative = decimal.startsWith("-")
  const [whole = "0", fraction = ""] = decimal.replace("-", "").split(".")
  const value = BigInt(whole + fraction.padEnd(12, "0").slice(0, 12))
  return negative ? -value : value
}

// --- the market: the book and the ticker, public data ---------------------------------------------------------------

/**
 * The market of BTCUSDT_SPBL after step 3's orders, through `spotkit market` with only SPOTKIT_BASE_URL (no key): the
 * book around the spread and alice's resting orders in it at their prices and sizes; the ticker, whose last price is
 * the latest trade's and whose volume and count are those of the recent trades.
 */
const showMarket = (baseUrl: string) => {
  const env = { SPOTKIT_BASE_URL: baseUrl }
  print("  the market they make, public data (only SPOTKIT_BASE_URL set): the book around the spread")
  const table = spotkit(env, ["market", "book", "--symbol", "BTCUSDT_SPBL"], { show: 0 })
  expectStatus(table, 0, "market book")
  const lines = table.stdout.split("\n").filter((line) => line.length > 0)
  const firstBid = lines.findIndex((line) => line.startsWith("bid"))
  expect(lines[0]!.startsWith("side") && firstBid > 1, "market book: a header, asks, then bids")
  for (const line of [lines[0]!, "…", ...lines.slice(firstBid - 3, firstBid + 3), "…"]) print(`    ${line}`)
  const book = spotkit(env, ["market", "book", "--symbol", "BTCUSDT_SPBL", "--limit", "200", "--format", "json"], {
    show: 0
  })
  expectStatus(book, 0, "market book --limit 200")
  type Level = { readonly price: string; readonly size: string }
  const { asks, bids } = JSON.parse(book.stdout) as { readonly asks: Array<Level>; readonly bids: Array<Level> }
  const at = (levels: Array<Level>, price: string) => levels.find((level) => units(level.price) === units(price))
  expect(units(bids[0]!.price) < units(asks[0]!.price), "market book: the best bid is not below the best ask")
  expect(
    lines[firstBid]!.split(/\s+/).join(" ") === `bid ${bids[0]!.price} ${bids[0]!.size}`,
    "market book: the table's best bid is not the JSON's"
  )
  // alice's resting orders of step 3, each alone at its price, beyond bob's 20 levels a side.
  expect(at(bids, "29000")?.size === "0.010000", "market book: alice's bid of 0.01 at 29000 is not in the book")
  expect(at(asks, "31000")?.size === "0.020000", "market book: alice's ask of 0.02 at 31000 is not in the book")
  print(
    `    with --limit 200: ${bids.length} bids and ${asks.length} asks, alice's bid 0.01 @ 29000 and ask 0.02 @ 31000 ` +
      "among them"
  )

  print("  the ticker: the last 24 hours of BTCUSDT_SPBL")
  const tickerRun = spotkit(env, ["market", "ticker", "--symbol", "BTCUSDT_SPBL", "--format", "json"], { show: 0 })
  expectStatus(tickerRun, 0, "market ticker")
  const ticker = JSON.parse(tickerRun.stdout) as Record<string, string | number>
  print(
    `    last ${ticker.lastPrice}, open ${ticker.open}, high ${ticker.high}, low ${ticker.low}, ` +
      `volume ${ticker.size} BTC (${ticker.value} USDT), ${ticker.trades} trades`
  )
  const tradesRun = spotkit(env, [
    "market",
    "trades",
    "--symbol",
    "BTCUSDT_SPBL",
    "--limit",
    "1000",
    "--format",
    "json"
  ], { show: 0 })
  expectStatus(tradesRun, 0, "market trades")
  const trades = JSON.parse(tradesRun.stdout) as ReadonlyArray<Record<string, string>>
  const volume = trades.reduce((sum, trade) => sum + units(trade.size!), 0n)
  print(`    the ${trades.length} recent trades: the latest at ${trades[0]?.price}, ${decimal(volume)} BTC in all`)
  expect(trades.length > 0 && ticker.trades === trades.length, "market ticker: its trade count is not the trades'")
  expect(ticker.lastPrice === trades[0]!.price, "market ticker: its last price is not the latest trade's")
  expect(units(String(ticker.size)) === volume, "market ticker: its volume is not the sum of the trades'")
}

// --- push: alice's fills as they happen (`spotkit watch fills`) ------------------------------------------------

interface FillsWatch {
  /** Resolves once the watch is live (its private streams in sync with REST): trading may start. */
  readonly listening: Promise<void>
  /** Checks that the fills pushed are exactly `fillIds`, each once, then stops the watch with Ctrl-C. */
  readonly check: (fillIds: ReadonlyArray<string>) => Promise<void>
}

const WATCH_ARGS = ["watch", "fills", "--symbol", "BTCUSDT_SPBL", "--format", "ndjson", "--for", "10m"]

const watchFills = (env: Record<string, string>): FillsWatch => {
  print(`  $ spotkit ${WATCH_ARGS.join(" ")}   (in the background while alice trades)`)
  const child = spawn(process.execPath, [...source, spotkitBin, ...WATCH_ARGS], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"]
  })
  process.once("exit", () => child.kill("SIGTERM"))
  const pushed: Array<string> = []
  const stderr: Array<string> = []
  createInterface({ input: child.stdout }).on("line", (line) => {
    const fill = JSON.parse(line) as { readonly fillId?: unknown; readonly orderId?: unknown }
    if (typeof fill.fillId !== "string" || typeof fill.orderId !== "string") fail(`watch fills printed ${line}`)
    pushed.push(String(fill.fillId))
  })
  const exited = new Promise<number>((done) => child.once("exit", (code, signal) => done(code ?? (signal ? 130 : 1))))
  let live = false
  const listening = new Promise<void>((resolveListening) => {
    createInterface({ input: child.stderr }).on("line", (line) => {
      stderr.push(line)
      if (line.startsWith("spotkit: listening")) {
        live = true
        resolveListening()
      }
    })
    void exited.then((code) => {
      if (!live) fail(`watch fills exited with code ${code} before listening: ${stderr.join(" / ")}`)
    })
    setTimeout(() => {
      if (!live) fail("watch fills was not listening after 30 s")
    }, 30_000).unref()
  })
  const check = async (fillIds: ReadonlyArray<string>) => {
    print(`  the fills pushed to \`spotkit watch fills\` while alice traded, against the ${fillIds.length} exported:`)
    const expected = new Set(fillIds)
    for (let waited = 0; pushed.filter((id) => expected.has(id)).length < expected.size && waited < 300; waited++) {
      await new Promise((wait) => setTimeout(wait, 100))
    }
    child.kill("SIGINT")
    const code = await exited
    expect(code === 130, `watch fills: expected exit code 130 after Ctrl-C, got ${code}`)
    expect(
      /^spotkit: \d+ events?, \d+ reconnects?, \d+ resyncs?, \d+ gaps? in /.test(stderr.at(-1) ?? ""),
      "the watch's summary"
    )
    const missing = fillIds.filter((id) => !pushed.includes(id))
    const twice = pushed.filter((id, i) => pushed.indexOf(id) !== i)
    const foreign = pushed.filter((id) => !expected.has(id))
    expect(missing.length === 0, `fills never pushed: ${missing.join(", ")}`)
    expect(twice.length === 0, `fills pushed twice: ${twice.join(", ")}`)
    expect(foreign.length === 0, `fills pushed that REST does not know: ${foreign.join(", ")}`)
    print(
      `    ${pushed.length} fills pushed, each once: every fill of alice's orders; Ctrl-C ended the watch (exit 130)`
    )
  }
  void listening.then(() => print("    (the watch is live: the private streams are in sync with REST)"))
  return { listening, check }
}

// --- the demo --------------------------------------------------------------------------------------------------------

const main = async () => {
  print("spotkit demo: the sandbox exchange on loopback, driven by the spotkit CLI over signed HTTP")
  mkdirSync(out, { recursive: true })

  step(1, `start the sandbox: seed ${SEED}, users alice and bob, resting liquidity, ${BILLS} historical bills`)
  const sandbox = await startSandbox()
  const { env: banner } = sandbox
  const bob = banner.SPOTKIT_BOB_USER_ID ?? fail("no SPOTKIT_BOB_USER_ID in the sandbox banner")
  // The CLI acts as alice. The sandbox enforces no rate limits, so the client need not either.
  const env = {
    SPOTKIT_BASE_URL: banner.SPOTKIT_BASE_URL ?? fail("no SPOTKIT_BASE_URL in the sandbox banner"),
    SPOTKIT_API_KEY: banner.SPOTKIT_API_KEY ?? fail("no SPOTKIT_API_KEY"),
    SPOTKIT_SECRET_KEY: banner.SPOTKIT_SECRET_KEY ?? fail("no SPOTKIT_SECRET_KEY"),
    SPOTKIT_PASSPHRASE: banner.SPOTKIT_PASSPHRASE ?? fail("no SPOTKIT_PASSPHRASE"),
    SPOTKIT_RATE_LIMIT: "off"
  }
  print(`  serving on loopback; alice is ${banner.SPOTKIT_ALICE_USER_ID}, bob is ${bob}`)

  step(2, "alice's spot balances before trading")
  const before = balances(env, "balances before")

  step(3, "place orders on BTCUSDT_SPBL (bob quotes 0.5 BTC every 5 USDT around 30000)")
  const fillsWatch = watchFills({ ...env, SPOTKIT_PUSH_URL: banner.SPOTKIT_PUSH_URL ?? fail("no SPOTKIT_PUSH_URL") })
  await fillsWatch.listening
  const place = (id: string, ...args: Array<string>) =>
    spotkit(env, ["orders", "place", "--symbol", "BTCUSDT_SPBL", "--client-order-id", id, ...args])
  const placed = [
    place("demo-rest-buy", "--side", "buy", "--type", "limit", "--price", "29000", "--quantity", "0.01"),
    place("demo-rest-sell", "--side", "sell", "--type", "limit", "--price", "31000", "--quantity", "0.02"),
    place("demo-take-buy", "--side", "buy", "--type", "limit", "--price", "30010", "--quantity", "0.8"),
    place("demo-market-buy", "--side", "buy", "--type", "market", "--quantity", "1500"),
    place("demo-market-sell", "--side", "sell", "--type", "market", "--quantity", "0.1"),
    place("demo-ioc", "--side", "buy", "--type", "limit", "--force", "ioc", "--price", "30020", "--quantity", "1")
  ]
  placed.forEach((run, i) => expectStatus(run, 0, `order ${i + 1}`))
  print("  an order the venue refuses (more BTC than alice has) ends with its code and exit code 1:")
  expectStatus(
    place("demo-too-big", "--side", "sell", "--type", "limit", "--price", "40000", "--quantity", "1000"),
    1,
    "the oversized order"
  )
  print("  and one the client refuses before sending (a malformed price) with exit code 2:")
  expectStatus(
    place("demo-bad-price", "--side", "buy", "--type", "limit", "--price", "29,000", "--quantity", "0.01"),
    2,
    "the malformed price"
  )

  step(4, "the open orders of BTCUSDT_SPBL: what rested (the orders that took liquidity are gone), and the market")
  // As JSON, shown without the times (the sandbox's clock) so that the transcript is the same on every run.
  const openBtc = spotkit(env, ["orders", "open", "--symbol", "BTCUSDT_SPBL", "--format", "json"], { show: 0 })
  expectStatus(openBtc, 0, "orders open")
  const rested = JSON.parse(openBtc.stdout) as ReadonlyArray<Record<string, string>>
  for (const order of rested) {
    print(
      `    ${order.orderId}  ${order.clientOrderId}  ${order.side} ${order.quantity} @ ${order.price}, filled ${order.fillQuantity}`
    )
  }
  showMarket(env.SPOTKIT_BASE_URL)

  step(5, "a batch of 120 orders on ETHUSDT_SPBL from an NDJSON file, three of them invalid")
  const items = Array.from({ length: 120 }, (_, i) => ({
    side: "buy",
    orderType: "limit",
    force: "normal",
    price: (1900 - i * 0.5).toFixed(2),
    quantity: "0.1",
    clientOrderId: `demo-batch-${String(i).padStart(3, "0")}`
  }))
  items[17] = { ...items[17]!, price: "1891.505" } // off the symbol's tick: the client's rule check refuses it
  items[58] = { ...items[58]!, quantity: "0" } // caught by the client: never sent
  items[99] = { ...items[99]!, side: "hold" } // caught by the client: never sent
  const batchFile = join(out, "batch.ndjson")
  writeFileSync(batchFile, items.map((item) => JSON.stringify(item)).join("\n") + "\n")
  const batch = spotkit(env, ["orders", "batch", "--symbol", "ETHUSDT_SPBL", "--file", relative(root, batchFile)], {
    show: 6
  })
  expectStatus(batch, 1, "the batch (with failed items)")
  const failedLines = batch.stdout.split("\n").filter((line) => /^\d+\s+(failed|unknown)/.test(line))
  print("  the failed items:")
  for (const line of failedLines) print(`    ${line}`)
  const openEth = spotkit(env, ["orders", "open", "--symbol", "ETHUSDT_SPBL", "--format", "ndjson"], { show: 0 })
  expectStatus(openEth, 0, "orders open (ETH)")
  const openEthCount = openEth.stdout.split("\n").filter((line) => line.length > 0).length

  step(6, "cancel an order by its clientOrderId (twice: the second finds it final), and each order's final state")
  const cancelOne = spotkit(env, ["orders", "cancel", "--symbol", "BTCUSDT_SPBL", "--client-order-id", "demo-rest-buy"])
  expectStatus(cancelOne, 0, "the cancel")
  expect(/^0\s+cancelled\s/m.test(cancelOne.stdout), "the cancel did not say cancelled")
  const cancelAgain = spotkit(env, [
    "orders",
    "cancel",
    "--symbol",
    "BTCUSDT_SPBL",
    "--client-order-id",
    "demo-rest-buy"
  ])
  expectStatus(cancelAgain, 0, "the second cancel")
  expect(/^0\s+final\s/m.test(cancelAgain.stdout), "the second cancel did not say final")
  // As JSON, shown without the times so that the transcript is the same on every run.
  const finalStates: ReadonlyArray<readonly [string, string]> = [
    ["demo-rest-buy", "cancelled"],
    ["demo-rest-sell", "open"],
    ["demo-take-buy", "full_fill"],
    ["demo-market-buy", "full_fill"],
    ["demo-ioc", "full_fill"]
  ]
  const states = new Map<string, Record<string, string>>()
  for (const [id, status] of finalStates) {
    const got = spotkit(env, ["orders", "get", "--client-order-id", id, "--format", "json"], { show: 0 })
    expectStatus(got, 0, `orders get ${id}`)
    const order = JSON.parse(got.stdout) as Record<string, string>
    states.set(id, order)
    print(`    ${order.orderId}  ${id}  ${order.status}, filled ${order.fillQuantity} of ${order.quantity}`)
    expect(order.status === status, `${id}: expected status ${status}, got ${order.status}`)
  }
  print("  an order the venue does not know: exit code 1 and one line")
  expectStatus(spotkit(env, ["orders", "get", "--client-order-id", "demo-never-placed"]), 1, "orders get (unknown)")

  step(7, "cancel the rest of the batch at once: every open order of ETHUSDT_SPBL")
  const cancelAll = spotkit(env, ["orders", "cancel", "--symbol", "ETHUSDT_SPBL", "--all", "--format", "json"], {
    show: 0
  })
  expectStatus(cancelAll, 0, "cancel --all")
  const cancelledAll = JSON.parse(cancelAll.stdout) as { readonly cancelled: number; readonly failed: number }
  print(`    cancelled ${cancelledAll.cancelled} orders, ${cancelledAll.failed} failed`)
  expect(cancelledAll.cancelled === openEthCount, `cancel --all: ${cancelledAll.cancelled} of ${openEthCount} open`)
  const leftEth = spotkit(env, ["orders", "open", "--symbol", "ETHUSDT_SPBL", "--format", "json"])
  expectStatus(leftEth, 0, "orders open (ETH) after cancel --all")
  expect(JSON.parse(leftEth.stdout).length === 0, "orders left open on ETHUSDT_SPBL after cancel --all")

  step(8, "transfers from alice to bob, and one's status")
  const transfers = [
    spotkit(env, [
      "transfer",
      "--to-user",
      bob,
      "--coin",
      "USDT",
      "--amount",
      "250",
      "--from-account",
      "SPOT",
      "--to-account",
      "FUND"
    ]),
    spotkit(env, [
      "transfer",
      "--to-user",
      bob,
      "--coin",
      "BTC",
      "--amount",
      "0.05",
      "--from-account",
      "FUND",
      "--to-account",
      "SPOT"
    ])
  ]
  transfers.forEach((run, i) => expectStatus(run, 0, `transfer ${i + 1}`))
  const transferId = transfers[0]!.stdout.trim().split(" ")[1]!
  const status = spotkit(env, ["transfer", "status", "--id", transferId, "--format", "json"], { show: 0 })
  expectStatus(status, 0, "transfer status")
  const [record] = JSON.parse(status.stdout) as Array<Record<string, string>>
  print(`    ${record?.withdrawId}  ${record?.status}  ${record?.amount} ${record?.coin} to ${record?.toUserId}`)
  expect(
    record?.withdrawId === transferId && record.status === "SUCCESS",
    "transfer status: not the transfer's success"
  )

  step(9, "alice's spot balances after: the cancels released what the orders held")
  const after = balances(env, "balances after")
  for (const [coin, balance] of after) {
    expect(
      units(balance.available) + units(balance.frozen) === units(balance.equity),
      `${coin}: available + frozen is not equity`
    )
  }
  // Only demo-rest-sell (0.02 BTC) still rests: no USDT or ETH is held any more.
  expect(after.get("USDT")?.frozen === "0" && after.get("ETH")?.frozen === "0", "USDT or ETH still frozen")
  expect(units(after.get("BTC")?.frozen ?? "0") === units("0.02"), "BTC frozen is not the resting sell's 0.02")
  const moved = [...after.keys()].map((coin) => {
    const delta = units(after.get(coin)!.equity) - units(before.get(coin)?.equity ?? "0")
    return `${coin} ${delta < 0n ? "-" : "+"}${decimal(delta < 0n ? -delta : delta)}`
  })
  print(`  equity moved: ${moved.join(", ")} (trades, fees and the USDT transfer)`)

  step(10, "export alice's BTCUSDT_SPBL fills to demo-out/fills.csv and every funding bill to demo-out/bills.csv")
  const fillsPath = join(out, "fills.csv")
  expectStatus(
    spotkit(env, ["fills", "export", "--symbol", "BTCUSDT_SPBL", "--out", relative(root, fillsPath), "--progress"]),
    0,
    "fills export"
  )
  const [fillsHeader, ...fills] = readFileSync(fillsPath, "utf8").split("\n").filter((line) => line.length > 0)
  expect(
    fillsHeader === "fillId,orderId,symbol,side,orderType,fillPrice,fillQuantity,fillTotalAmount,fees,cTime",
    "fills header"
  )
  // Each filled order's fills add up to what it filled, exactly.
  for (const [id, order] of states) {
    const filled = fills.filter((row) => row.split(",")[1] === order.orderId)
      .reduce((sum, row) => sum + units(row.split(",")[6]!), 0n)
    expect(filled === units(order.fillQuantity!), `${id}: its fills do not add up to ${order.fillQuantity}`)
  }
  await fillsWatch.check(fills.map((row) => row.split(",")[0]!))
  const csvPath = join(out, "bills.csv")
  expectStatus(
    spotkit(env, ["bills", "export", "--out", relative(root, csvPath), "--progress"]),
    0,
    "bills export"
  )
  const rows = readFileSync(csvPath, "utf8").split("\n").filter((line) => line.length > 0)
  const [header, ...bills] = rows
  const byType = new Map<string, number>()
  for (const row of bills) {
    const bizType = row.split(",")[3]!
    byType.set(bizType, (byType.get(bizType) ?? 0) + 1)
  }

  step(11, "stop the sandbox")
  const code = await sandbox.stop()
  print(`  the sandbox stopped with exit code ${code}`)

  const orderIds = placed.map((run) => run.stdout.split(" ")[1])
  print("\nsummary")
  print(`  orders placed one by one:  ${placed.length} (${orderIds.join(", ")}); 2 refused as expected`)
  print(`  batch:                     ${items.length} items, ${openEthCount} rested on ETHUSDT_SPBL`)
  print(`  cancelled:                 demo-rest-buy, then ${cancelledAll.cancelled} orders of the batch at once`)
  print(`  transfers:                 ${transfers.map((run) => run.stdout.trim().split(" ")[1]).join(", ")}`)
  print(`  fills exported:            ${fills.length} rows to demo-out/fills.csv`)
  print(`  bills exported:            ${bills.length} rows to demo-out/bills.csv (header: ${header})`)
  print(
    `  most frequent bizTypes:    ${
      [...byType].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, 4).map(([type, n]) => `${type} ${n}`)
        .join(", ")
    }`
  )
  if (code !== 0) fail(`the sandbox exited with code ${code}`)
  if (bills.length < BILLS) fail(`expected at least ${BILLS} bills, exported ${bills.length}`)
}

main().catch((error: unknown) => fail(error instanceof Error ? error.message : String(error)))
