// `pnpm installable` (CI: `node scripts/bootstrap.mjs installable`): spotkit as a new user gets it. Builds and packs
// the three packages, checks the tarballs (a LICENSE, the repository, no script naming a file the tarball lacks),
// installs them with npm, as the README says, into a fresh project outside the workspace, and there:
//
// - type-checks the README's program, the smoke programs and an import of every public subpath under strict
//   settings without skipLibCheck (NodeNext and Bundler resolution), and imports every subpath at run time;
// - starts the installed `spotkit-sandbox` (venue rate limits on, CORS for the test page's origin), runs the README's
//   program against it and the installed `spotkit bills export`;
// - runs the portable smoke program (smoke/smoke.ts: an order with an exact 19-digit id, every funding bill, a
//   transfer) on Node, Bun and Deno (from the npm packages `bun` and `deno`), and `NodeSpotClient` under Bun;
// - bundles the smoke program for the browser with esbuild (its size, minified and gzipped, and spotkit's share of
//   it, are printed; `--record` writes them to bench/results/bundle-<date>.json) and runs it in headless Chromium
//   (Debian's `/usr/bin/chromium`, or $SPOTKIT_CHROMIUM, driven by playwright-core), then once more from an origin
//   the sandbox does not allow, to see what a blocked request reads as.
//
// Exits 1 at the first check that fails, saying which. npm's cache goes to .cache/npm in the repository, Deno's and
// Bun's to the fresh project, which is deleted at the end (`--keep` keeps it and prints where it is).
import { spawn, spawnSync } from "node:child_process"
import type { ChildProcess, SpawnSyncReturns } from "node:child_process"
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:http"
import { createRequire } from "node:module"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { dirname, join, relative, resolve } from "node:path"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"
import { gzipSync } from "node:zlib"
import { build, pack } from "./pack.ts"

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..")
const args = process.argv.slice(2)
const keep = args.includes("--keep")
const record = args.includes("--record")
const chromiumPath = process.env["SPOTKIT_CHROMIUM"] ?? "/usr/bin/chromium"

// What the fresh project installs besides the tarballs, pinned: the README's install line and the tools of the checks.
const USER_DEPENDENCIES = ["effect@4.1.0", "@effect/platform-node@4.1.0"]
const TOOLS = [
  "typescript@5.9.3",
  "@types/node@24.19.2",
  "bun@1.4.5",
  "deno@2.9.6",
  "esbuild@0.28.2",
  "playwright-core@1.65.1"
]

const started = Date.now()
let checks = 0
const log = (message: string) => process.stderr.write(`[installable] ${message}\n`)
const fail = (message: string): never => {
  log(`FAILED: ${message}`)
  process.exit(1)
}
const check = (ok: boolean, message: string) => {
  if (!ok) fail(message)
  checks++
}
const seconds = (from: number) => `${((Date.now() - from) / 1000).toFixed(1)} s`

const cleanups: Array<() => void> = []
process.on("exit", () => {
  for (const cleanup of cleanups.reverse()) cleanup()
})
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => process.exit(130))

/** Runs a command to its end; fails the run on a non-zero exit (unless `allowFailure`). */
const run = (
  command: string,
  commandArgs: ReadonlyArray<string>,
  options: { cwd: string; env?: NodeJS.ProcessEnv; allowFailure?: boolean; timeout?: number }
): SpawnSyncReturns<string> => {
  const result = spawnSync(command, commandArgs, {
    cwd: options.cwd,
    env: options.env ?? process.env,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
    timeout: options.timeout ?? 300_000
  })
  if (!options.allowFailure && result.status !== 0) {
    fail(
      `${command} ${commandArgs.join(" ")} (in ${options.cwd}) exited with ${result.status ?? result.signal}\n` +
        `${result.stdout ?? ""}${result.stderr ?? ""}${result.error === undefined ? "" : String(result.error)}`
    )
  }
  return result
}

const step = <A>(title: string, body: () => A): A => {
  const from = Date.now()
  const result = body()
  log(`ok  ${title} (${seconds(from)})`)
  return result
}

const stepAsync = async <A>(title: string, body: () => Promise<A>): Promise<A> => {
  const from = Date.now()
  const result = await body()
  log(`ok  ${title} (${seconds(from)})`)
  return result
}

// --- pack ----------------------------------------------------------------------------------------------------------

const work = mkdtempSync(join(tmpdir(), "spotkit-installable-"))
if (keep) log(`working in ${work} (kept)`)
else cleanups.push(() => rmSync(work, { recursive: true, force: true }))
const packs = join(work, "packs")
const project = join(work, "project")
mkdirSync(packs)
mkdirSync(project)

step("build (tsc -b, from a clean dist)", build)

// The tarballs `pnpm pack:all` writes for users, packed the same way (scripts/pack.ts).
const tarballs = step("pack (pnpm pack: workspace versions made real)", () => pack(packs))

interface Manifest {
  readonly name: string
  readonly version: string
  readonly license?: string
  readonly repository?: { readonly url?: string; readonly directory?: string }
  readonly scripts?: Record<string, string>
  readonly bin?: Record<string, string>
  readonly dependencies?: Record<string, string>
}

// Each tarball holds a LICENSE, names its repository and directory, depends on no `workspace:` version, and every
// file its scripts and bins name is in it.
const subpaths = step(
  "tarballs: LICENSE, repository, scripts, bins, dependencies",
  () =>
    tarballs.flatMap(({ file, name }) => {
      const dir = join(work, "unpacked", name)
      mkdirSync(dir, { recursive: true })
      run("tar", ["-xzf", file, "-C", dir], { cwd: work })
      const pkg = join(dir, "package")
      const manifest = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8")) as Manifest
      check(manifest.license === "MIT", `${manifest.name}: license ${manifest.license}`)
      check(
        existsSync(join(pkg, "LICENSE")) && readFileSync(join(pkg, "LICENSE"), "utf8").startsWith("MIT License"),
        `${manifest.name}: no MIT LICENSE file in the tarball`
      )
      check(
        /^git\+https:\/\/.+\.git$/.test(manifest.repository?.url ?? "") &&
          manifest.repository?.directory === `packages/${name}`,
        `${manifest.name}: repository ${JSON.stringify(manifest.repository)}`
      )
      for (const [dependency, version] of Object.entries(manifest.dependencies ?? {})) {
        check(!version.startsWith("workspace:"), `${manifest.name}: dependency ${dependency}@${version}`)
      }
      for (const [script, command] of Object.entries(manifest.scripts ?? {})) {
        for (
          const token of command.split(/\s+/).filter((token) => /^[\w.-]+\/[\w./-]+$|\.(ts|js|mjs|json)$/.test(token))
        ) {
          check(existsSync(join(pkg, token)), `${manifest.name}: script ${script} names ${token}, not in the tarball`)
        }
      }
      for (const [bin, target] of Object.entries(manifest.bin ?? {})) {
        check(
          existsSync(join(pkg, target)) && readFileSync(join(pkg, target), "utf8").startsWith("#!/usr/bin/env node"),
          `${manifest.name}: bin ${bin} -> ${target} is missing or has no shebang`
        )
      }
      // The public subpaths: one per module of dist (internal/ is closed by the exports map, bin/ are commands).
      const modules = readdirSync(join(pkg, "dist")).filter((entry) => entry.endsWith(".js"))
      return modules.map((module) =>
        module === "index.js" ? manifest.name : `${manifest.name}/${module.replace(/\.js$/, "")}`
      )
    })
)

// --- install -------------------------------------------------------------------------------------------------------

const npmEnv = {
  ...process.env,
  npm_config_cache: join(root, ".cache", "npm"),
  npm_config_update_notifier: "false",
  npm_config_fund: "false",
  npm_config_audit: "false"
}

step(`npm install (the tarballs, ${USER_DEPENDENCIES.join(", ")}; tools)`, () => {
  writeFileSync(
    join(project, "package.json"),
    JSON.stringify({ name: "spotkit-fresh-project", private: true, type: "module" }, null, 2) + "\n"
  )
  run("npm", ["install", "--loglevel=error", ...tarballs.map((tarball) => tarball.file), ...USER_DEPENDENCIES], {
    cwd: project,
    env: npmEnv
  })
  run("npm", ["install", "--loglevel=error", "--save-dev", ...TOOLS], { cwd: project, env: npmEnv })
})

const bin = (name: string) => join(project, "node_modules", ".bin", name)

// The README's program, verbatim: the first TypeScript block after "## A program".
step("the README's program, the smoke programs and every subpath, into the project", () => {
  const readme = readFileSync(join(root, "README.md"), "utf8")
  const section = readme.slice(readme.indexOf("## A program"))
  const program = /```ts\n([\s\S]*?)```/.exec(section)?.[1]
  check(program !== undefined && program.includes("NodeSpotClient"), "no program under \"## A program\" in README.md")
  writeFileSync(join(project, "readme.ts"), program!)
  // And the push program: the first TypeScript block after "### Push".
  const pushProgram = /```ts\n([\s\S]*?)```/.exec(readme.slice(readme.indexOf("### Push")))?.[1]
  check(pushProgram !== undefined && pushProgram.includes("NodeSpotPush"), "no program under \"### Push\" in README.md")
  writeFileSync(join(project, "readme-push.ts"), pushProgram!)
  cpSync(join(root, "smoke"), project, { recursive: true })
  writeFileSync(
    join(project, "imports.ts"),
    subpaths.map((subpath, i) => `export * as M${i} from "${subpath}"\n`).join("")
  )
})

step("tsc: strict, no skipLibCheck, NodeNext resolution", () => {
  run(process.execPath, [join(project, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"], { cwd: project })
})
step("tsc: strict, no skipLibCheck, Bundler resolution", () => {
  run(process.execPath, [join(project, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.bundler.json"], {
    cwd: project
  })
})

step(`import every public subpath at run time (${subpaths.length}), and no internal one`, () => {
  const script = [
    `for (const subpath of ${JSON.stringify(subpaths)}) await import(subpath)`,
    `for (const internal of ["@spotkit/core/internal/pipeline", "@spotkit/testkit/internal/book"]) {`,
    `  const error = await import(internal).then(() => undefined, (error) => error)`,
    `  if (error?.code !== "ERR_PACKAGE_PATH_NOT_EXPORTED") throw new Error(internal + " is importable")`,
    `}`
  ].join("\n")
  writeFileSync(join(project, "subpaths.mjs"), script)
  run(process.execPath, ["subpaths.mjs"], { cwd: project })
})

step("spotkit --help and spotkit-sandbox --help", () => {
  check(run(bin("spotkit"), ["--help"], { cwd: project }).stdout.includes("bills"), "spotkit --help")
  check(run(bin("spotkit-sandbox"), ["--help"], { cwd: project }).stdout.includes("--cors"), "spotkit-sandbox --help")
})

// --- the sandbox and a page server ---------------------------------------------------------------------------------

const dist = join(project, "dist")
mkdirSync(dist)
cpSync(join(project, "index.html"), join(dist, "index.html"))

const pageServer = createServer((request, response) => {
  const name = new URL(request.url ?? "/", "http://page").pathname.slice(1) || "index.html"
  const file = join(dist, name)
  if (!/^[\w.-]+$/.test(name) || !existsSync(file)) {
    response.writeHead(404).end()
    return
  }
  response.writeHead(200, { "content-type": name.endsWith(".js") ? "text/javascript" : "text/html" })
  response.end(readFileSync(file))
})
const pagePort = await new Promise<number>((done) =>
  pageServer.listen(0, "127.0.0.1", () => done((pageServer.address() as AddressInfo).port))
)
cleanups.push(() => pageServer.close())
const pageOrigin = `http://127.0.0.1:${pagePort}`

interface Sandbox {
  readonly env: Record<string, string>
  readonly child: ChildProcess
}

const startSandbox = (sandboxArgs: ReadonlyArray<string>) =>
  new Promise<Sandbox>((done) => {
    const child = spawn(bin("spotkit-sandbox"), sandboxArgs, { cwd: project, stdio: ["ignore", "pipe", "inherit"] })
    cleanups.push(() => child.kill("SIGTERM"))
    const env: Record<string, string> = {}
    child.once("exit", (code) => {
      if (env["SPOTKIT_BASE_URL"] === undefined) fail(`spotkit-sandbox exited with ${code} before serving`)
    })
    createInterface({ input: child.stdout! }).on("line", (line) => {
      const match = /^export ([A-Z0-9_]+)=(.*)$/.exec(line)
      if (match !== null) env[match[1]!] = match[2]!.replace(/^'(.*)'$/, "$1")
      if (line.startsWith("# serving")) done({ env, child })
    })
  })

const sandbox = await stepAsync(
  `spotkit-sandbox --bills 1000 --cors ${pageOrigin} (venue rate limits on)`,
  () => startSandbox(["--bills", "1000", "--cors", pageOrigin])
)
const userEnv = { ...process.env, ...sandbox.env }

// --- Node: the README's program and the CLI ------------------------------------------------------------------------

step("node readme.ts (the README's program, configured from SPOTKIT_*)", () => {
  const result = run(process.execPath, ["readme.ts"], { cwd: project, env: userEnv })
  const output = result.stdout + result.stderr
  check(/placed \d{19}\b/.test(output), `the README's program printed no 19-digit order id:\n${output}`)
  const bills = output.split("\n").filter((line) => /\b2\d{18} \w+ -?\d/.test(line)).length
  check(bills > 0, `the README's program streamed no bills:\n${output}`)
})

step("spotkit bills export --out bills.csv (the installed CLI)", () => {
  run(bin("spotkit"), ["bills", "export", "--out", "bills.csv"], { cwd: project, env: userEnv })
  const lines = readFileSync(join(project, "bills.csv"), "utf8").trim().split("\n")
  check(lines[0]?.startsWith("billId,") === true, `bills.csv has no header: ${lines[0]}`)
  const ids = new Set(lines.slice(1).map((line) => line.split(",")[0]))
  check(ids.size === lines.length - 1 && ids.size >= 1000, `bills.csv: ${lines.length - 1} rows, ${ids.size} ids`)
})

// The push program watches alice's fills until stopped; market buys are placed through the installed CLI, one every
// two seconds (the first may come before the program has subscribed), until it prints a fill of one of them.
await stepAsync(
  "node readme-push.ts (the README's push program): a market buy through the CLI is pushed as a fill",
  () =>
    new Promise<void>((done) => {
      const child = spawn(process.execPath, ["readme-push.ts"], { cwd: project, env: userEnv, stdio: "pipe" })
      cleanups.push(() => child.kill("SIGTERM"))
      let output = ""
      let stopped = false
      const placed = new Set<string>()
      const buy = () => {
        const args = "orders place --symbol BTCUSDT_SPBL --side buy --type market --quantity 10".split(" ")
        const result = run(bin("spotkit"), args, { cwd: project, env: userEnv })
        for (const id of result.stdout.match(/\b\d{19}\b/g) ?? []) placed.add(id)
      }
      const timer = setInterval(buy, 2_000)
      const deadline = setTimeout(
        () => fail(`the README's push program printed no fill within 30 s:\n${output}`),
        30_000
      )
      const read = (chunk: Buffer) => {
        output += chunk.toString("utf8")
        // "<fillId> <orderId> buy <quantity>", the program's own log line
        const fills = Array.from(output.matchAll(/ (\d{19}) buy \d/g), (match) => match[1]!)
        if (!fills.some((orderId) => placed.has(orderId))) return
        clearInterval(timer)
        clearTimeout(deadline)
        stopped = true
        child.kill("SIGTERM")
        checks++
        done()
      }
      child.stdout.on("data", read)
      child.stderr.on("data", read)
      child.once("exit", (code, signal) => {
        // Stopped here (NodeRuntime.runMain then exits with 130); any other end is a failure.
        if (!stopped) fail(`the README's push program exited with ${code ?? signal}:\n${output}`)
      })
      buy()
    })
)

interface Report {
  readonly runtime: string
  readonly orderId: string
  readonly bills: number
  readonly transferId: string
}

const smokeReport = (result: SpawnSyncReturns<string>, runtime: string): Report => {
  const report = JSON.parse(result.stdout.trim().split("\n").at(-1) ?? "null") as Report | null
  check(
    report !== null && report.runtime === runtime && /^\d{19}$/.test(report.orderId) && report.bills >= 1000,
    `${runtime}: ${result.stdout}${result.stderr}`
  )
  return report!
}

// --- Bun and Deno ---------------------------------------------------------------------------------------------------

// Their caches stay in the project, which is deleted.
const runtimeEnv = {
  ...userEnv,
  DENO_DIR: join(project, ".deno"),
  BUN_INSTALL_CACHE_DIR: join(project, ".bun"),
  XDG_CACHE_HOME: join(project, ".cache"),
  NO_COLOR: "1"
}

const reports: Array<Report> = []
step("node cli.ts (core over fetch)", () => {
  reports.push(smokeReport(run(process.execPath, ["cli.ts", "node"], { cwd: project, env: runtimeEnv }), "node"))
})
const bunVersion = run(bin("bun"), ["--version"], { cwd: project }).stdout.trim()
step(`bun ${bunVersion} cli.ts (core over fetch)`, () => {
  reports.push(smokeReport(run(bin("bun"), ["cli.ts", "bun"], { cwd: project, env: runtimeEnv }), "bun"))
})
step(`bun ${bunVersion} node-client.ts (NodeSpotClient.layerConfig under Bun)`, () => {
  const result = run(bin("bun"), ["node-client.ts", "bun"], { cwd: project, env: runtimeEnv })
  check(/"orderId":"\d{19}"/.test(result.stdout), `NodeSpotClient under Bun: ${result.stdout}${result.stderr}`)
})
const denoVersion = run(bin("deno"), ["--version"], { cwd: project, env: runtimeEnv }).stdout.split("\n")[0]!
step(`${denoVersion} cli.ts (core over fetch)`, () => {
  const result = run(bin("deno"), ["run", "--allow-net=127.0.0.1", "--allow-env", "cli.ts", "deno"], {
    cwd: project,
    env: runtimeEnv
  })
  reports.push(smokeReport(result, "deno"))
})

// --- the browser ---------------------------------------------------------------------------------------------------

interface Metafile {
  readonly outputs: Record<
    string,
    { readonly bytes: number; readonly inputs: Record<string, { bytesInOutput: number }> }
  >
}

const bundle = step("esbuild: the smoke program for the browser, minified", () => {
  run(bin("esbuild"), [
    "browser.ts",
    "--bundle",
    "--minify",
    "--format=esm",
    "--platform=browser",
    "--target=es2022",
    "--metafile=dist/meta.json",
    "--outfile=dist/browser.js",
    "--log-level=warning"
  ], { cwd: project })
  const code = readFileSync(join(dist, "browser.js"))
  const meta = JSON.parse(readFileSync(join(dist, "meta.json"), "utf8")) as Metafile
  const inputs = Object.entries(meta.outputs["dist/browser.js"]?.inputs ?? {})
  const bytesOf = (pattern: RegExp) =>
    inputs.filter(([path]) => pattern.test(path)).reduce((sum, [, input]) => sum + input.bytesInOutput, 0)
  const total = inputs.reduce((sum, [, input]) => sum + input.bytesInOutput, 0)
  const result = {
    minifiedBytes: code.length,
    gzipBytes: gzipSync(code, { level: 9 }).length,
    spotkitBytes: bytesOf(/node_modules\/@spotkit\//),
    effectBytes: bytesOf(/node_modules\/effect\//),
    programBytes: bytesOf(/^(?!node_modules\/)/),
    modules: inputs.length,
    largest: inputs.toSorted(([, a], [, b]) => b.bytesInOutput - a.bytesInOutput).slice(0, 12).map(([path, input]) => ({
      path: path.replace(/^node_modules\//, ""),
      bytes: input.bytesInOutput
    }))
  }
  check(total > 0 && result.spotkitBytes > 0, `esbuild's metafile lists no spotkit module: ${JSON.stringify(result)}`)
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`
  const share = (bytes: number) => `${((100 * bytes) / total).toFixed(1)} %`
  log(
    `    bundle: ${kb(result.minifiedBytes)} minified, ${kb(result.gzipBytes)} gzip -9; of the minified code ` +
      `@spotkit/* ${kb(result.spotkitBytes)} (${share(result.spotkitBytes)}), effect ${kb(result.effectBytes)} ` +
      `(${share(result.effectBytes)}), the program ${kb(result.programBytes)}`
  )
  return result
})

interface Playwright {
  readonly chromium: {
    launchPersistentContext(userDataDir: string, options: object): Promise<BrowserContext>
  }
}
interface BrowserContext {
  newPage(): Promise<Page>
  close(): Promise<void>
}
interface Page {
  goto(url: string): Promise<unknown>
  waitForFunction(body: string, arg: unknown, options: { timeout: number }): Promise<unknown>
  evaluate(body: string): Promise<unknown>
  on(event: "console", listener: (message: { text(): string }) => void): void
}

const browserResult = async (page: Page, url: string): Promise<{ ok: boolean; value?: unknown; error?: string }> => {
  await page.goto(url)
  await page.waitForFunction("document.body.dataset.result !== undefined", undefined, { timeout: 90_000 })
  return JSON.parse(String(await page.evaluate("document.body.dataset.result")))
}

if (!existsSync(chromiumPath)) {
  fail(`no Chromium at ${chromiumPath}: apt-get install chromium (or set SPOTKIT_CHROMIUM)`)
}
const playwright = createRequire(join(project, "package.json"))("playwright-core") as Playwright
const profile = join(work, "chromium-profile")
const context = await playwright.chromium.launchPersistentContext(profile, {
  executablePath: chromiumPath,
  headless: true,
  chromiumSandbox: false,
  args: [
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync"
  ]
})
cleanups.push(() => void context.close())
const page = await context.newPage()
const consoleLines: Array<string> = []
page.on("console", (message) => consoleLines.push(message.text()))
const hash = new URLSearchParams({
  baseUrl: sandbox.env["SPOTKIT_BASE_URL"]!,
  apiKey: sandbox.env["SPOTKIT_API_KEY"]!,
  secretKey: sandbox.env["SPOTKIT_SECRET_KEY"]!,
  passphrase: sandbox.env["SPOTKIT_PASSPHRASE"]!,
  toUserId: sandbox.env["SPOTKIT_BOB_USER_ID"]!
})

await stepAsync(`chromium: the bundle from ${pageOrigin}, which the sandbox allows`, async () => {
  const result = await browserResult(page, `${pageOrigin}/index.html#${hash}&mode=run`)
  check(result.ok, `in Chromium: ${result.error}\n${consoleLines.join("\n")}`)
  const report = result.value as Report
  check(
    report.runtime === "chromium" && /^\d{19}$/.test(report.orderId) && report.bills >= 1000,
    `in Chromium: ${JSON.stringify(report)}`
  )
  reports.push(report)
})

// The same page from another origin (localhost is not 127.0.0.1 to a browser): every request is blocked.
await stepAsync("chromium: from an origin the sandbox does not allow, requests fail as documented", async () => {
  const result = await browserResult(page, `http://localhost:${pagePort}/index.html#${hash}&mode=blocked`)
  const value = result.value as { read: { reason: string }; order: { reason: string; message: string } } | undefined
  check(
    result.ok && value?.read.reason === "TransportError" && value.order.reason === "OutcomeUnknownError",
    `blocked requests in Chromium: ${JSON.stringify(result)}`
  )
  log(`    a read: ${value!.read.reason}; an order: ${value!.order.reason}: ${value!.order.message}`)
})
await context.close()

// --- the end -------------------------------------------------------------------------------------------------------

await stepAsync("spotkit-sandbox stops cleanly on SIGTERM", () =>
  new Promise<void>((done) => {
    sandbox.child.removeAllListeners("exit")
    sandbox.child.once("exit", (code) => {
      check(code === 0, `spotkit-sandbox exited with ${code} after SIGTERM`)
      done()
    })
    sandbox.child.kill("SIGTERM")
  }))

for (const report of reports) log(`    ${JSON.stringify(report)}`)

if (record) {
  const date = new Date().toISOString()
  const file = join(root, "bench", "results", `bundle-${date.slice(0, 10)}.json`)
  writeFileSync(
    file,
    JSON.stringify(
      {
        date,
        command: "pnpm installable --record",
        program: "smoke/browser.ts (smoke/smoke.ts over @spotkit/core and effect)",
        esbuild: "--bundle --minify --format=esm --platform=browser --target=es2022",
        gzip: "zlib level 9",
        ...bundle
      },
      null,
      2
    ) + "\n"
  )
  log(`wrote ${relative(root, file)}`)
}

log(`all ${checks} checks passed in ${seconds(started)}`)
process.exit(0)
