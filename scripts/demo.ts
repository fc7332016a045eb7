// `npm run demo`: the whole of spotkit in one command. It starts the sandbox (`spotkit-sandbox`, the testkit's
// exchange on loopback) with the demo data, then drives the `spotkit` CLI against it over real signed HTTP: orders
// that fill and orders that rest, the open orders, a batch of 120 with a few invalid items, transfers between the
// two users, and an export of every funding bill to ./demo-out/bills.csv with progress. It ends with a summary and
// stops the sandbox.
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
const step = (n: number, title: string) => print(`\n[${n}/7] ${title}`)
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

  step(2, "place orders on BTCUSDT_SPBL (bob quotes 0.5 BTC every 5 USDT around 30000)")
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

  step(3, "the open orders of BTCUSDT_SPBL: what rested (the orders that took liquidity are gone)")
  // As JSON, shown without the times (the sandbox's clock) so that the transcript is the same on every run.
  const openBtc = spotkit(env, ["orders", "open", "--symbol", "BTCUSDT_SPBL", "--format", "json"], { show: 0 })
  expectStatus(openBtc, 0, "orders open")
  const rested = JSON.parse(openBtc.stdout) as ReadonlyArray<Record<string, string>>
  for (const order of rested) {
    print(
      `    ${order.orderId}  ${order.clientOrderId}  ${order.side} ${order.quantity} @ ${order.price}, filled ${order.fillQuantity}`
    )
  }

  step(4, "a batch of 120 orders on ETHUSDT_SPBL from an NDJSON file, three of them invalid")
  const items = Array.from({ length: 120 }, (_, i) => ({
    side: "buy",
    orderType: "limit",
    force: "normal",
    price: (1900 - i * 0.5).toFixed(2),
    quantity: "0.1",
    clientOrderId: `demo-batch-${String(i).padStart(3, "0")}`
  }))
  items[17] = { ...items[17]!, price: "1891.505" } // more decimals than the symbol allows: the venue says 40808
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

  step(5, "transfers from alice to bob")
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

  step(6, "export every funding bill of alice to demo-out/bills.csv (progress on stderr)")
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

  step(7, "stop the sandbox")
  const code = await sandbox.stop()
  print(`  the sandbox stopped with exit code ${code}`)

  const orderIds = placed.map((run) => run.stdout.split(" ")[1])
  print("\nsummary")
  print(`  orders placed one by one:  ${placed.length} (${orderIds.join(", ")}); 2 refused as expected`)
  print(`  batch:                     ${items.length} items, ${openEthCount} open on ETHUSDT_SPBL afterwards`)
  print(`  transfers:                 ${transfers.map((run) => run.stdout.trim().split(" ")[1]).join(", ")}`)
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
