// Issue #25's exponent bomb, measured through the built CLI: a venue (a loopback server in this process) answers
// every bills request with one page whose amounts are written in exponent form (`1e9999`), padded with bills to a
// given size, and `spotkit bills export --out FILE` runs against it as a subprocess. Beside it, the same page with
// plain amounts (`1.5`) as the baseline, and the largest exponent the client accepts (`1e32`, `Primitives.MAX_EXPONENT`)
// and the first it refuses (`1e33`). Per case: the CLI's exit code, its first line on stderr, its peak RSS (the
// kernel's VmHWM, sampled every 10 ms), the rows and bytes written.
//
// Before issue #25 (commit 2eaf3ef) the 1 MiB page of `1e9999` peaked the CLI at 682 MiB and wrote a 190 MB CSV, and
// 15 MiB ended in `RangeError: Invalid string length` after 99 s at 2.9 GiB.
//
//   pnpm --filter @spotkit/bench exec node --conditions=@spotkit/source src/exponent.ts
import { spawn, spawnSync } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import * as os from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("../../", import.meta.url))
const cli = join(root, "packages/node/dist/bin/spotkit.js")

const build = spawnSync(
  process.execPath,
  [join(root, "node_modules/typescript/bin/tsc"), "-b", "packages/node/tsconfig.build.json"],
  { cwd: root, stdio: "inherit" }
)
if (build.status !== 0) process.exit(build.status ?? 1)

const MiB = 1024 * 1024

// One bills page of about `bytes` bytes, every amount written as `amount`; no next page.
const page = (amount: string, bytes: number): string => {
  const items: Array<string> = []
  let size = 0
  for (let i = 0; size < bytes; i++) {
    const item = JSON.stringify({
      billId: String(2001000000000000000n + BigInt(i)),
      coinId: 2,
      coinName: "USDT",
      bizType: "deposit",
      deltaAmount: "X",
      afterAmount: "X",
      fees: "X",
      cTime: String(1795000000000 - i)
    }).replaceAll("\"X\"", JSON.stringify(amount))
    items.push(item)
    size += item.length + 1
  }
  return `{"code":"00000","msg":"success","requestTime":1795000000000,"data":{"total":${items.length},"page":1,` +
    `"pageSize":${items.length},"hasNextPage":false,"items":[${items.join(",")}]}}`
}

interface Case {
  readonly name: string
  readonly amount: string
  readonly bytes: number
}

const cases: ReadonlyArray<Case> = [
  { name: "plain amounts, 1 MiB", amount: "1.5", bytes: MiB },
  { name: "1e9999, 1 MiB", amount: "1e9999", bytes: MiB },
  { name: "1e32 (accepted), 1 MiB", amount: "1e32", bytes: MiB },
  { name: "1e33 (refused), 1 MiB", amount: "1e33", bytes: MiB },
  { name: "plain amounts, 15 MiB", amount: "1.5", bytes: 15 * MiB },
  { name: "1e9999, 15 MiB", amount: "1e9999", bytes: 15 * MiB }
]

const peakRssKb = (pid: number): number => {
  const status = existsSync(`/proc/${pid}/status`) ? readFileSync(`/proc/${pid}/status`, "utf8") : ""
  return Number(/^VmHWM:\s+(\d+) kB$/m.exec(status)?.[1] ?? 0)
}

const run = (body: string, out: string) =>
  new Promise<{ code: number | null; stderr: string; peakKb: number; ms: number }>((resolve, reject) => {
    const server = createServer((request, response) => {
      const text = request.url?.includes("/public/time")
        ? `{"code":"00000","msg":"success","requestTime":1795000000000,"data":1795000000000}`
        : body
      response.writeHead(200, { "content-type": "application/json" }).end(text)
    })
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as AddressInfo).port
      const started = performance.now()
      const child = spawn(process.execPath, [cli, "bills", "export", "--out", out], {
        env: {
          PATH: process.env.PATH ?? "",
          SPOTKIT_BASE_URL: `http://127.0.0.1:${port}`,
          SPOTKIT_API_KEY: "bench-key",
          SPOTKIT_SECRET_KEY: "bench-secret",
          SPOTKIT_PASSPHRASE: "bench-passphrase",
          SPOTKIT_RATE_LIMIT: "off"
        },
        stdio: ["ignore", "ignore", "pipe"]
      })
      let stderr = ""
      let peakKb = 0
      child.stderr.setEncoding("utf8").on("data", (text: string) => (stderr += text))
      const timer = setInterval(
        () => (peakKb = Math.max(peakKb, child.pid === undefined ? 0 : peakRssKb(child.pid))),
        10
      )
      child.on("error", reject)
      child.on("exit", (code) => {
        clearInterval(timer)
        server.close()
        resolve({ code, stderr, peakKb, ms: performance.now() - started })
      })
    })
  })

const dir = mkdtempSync(join(os.tmpdir(), "spotkit-exponent-"))
console.log(`exponent bomb through the built CLI (node ${process.version}, load ${os.loadavg()[0]!.toFixed(2)})`)
console.log("| case | answer bytes | exit | peak RSS MB | wall ms | rows written | file bytes | stderr, first line |")
console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
for (const c of cases) {
  const body = page(c.amount, c.bytes)
  const out = join(dir, "bills.csv")
  rmSync(out, { force: true })
  rmSync(`${out}.partial`, { force: true })
  const result = await run(body, out)
  const written = existsSync(out) ? out : existsSync(`${out}.partial`) ? `${out}.partial` : undefined
  const text = written === undefined ? "" : readFileSync(written, "utf8")
  const rows = text === "" ? 0 : text.split("\n").filter((line) => line !== "").length - 1
  const bytes = written === undefined ? 0 : statSync(written).size
  const first = result.stderr.split("\n").find((line) => line.trim() !== "" && !line.includes("\r")) ?? ""
  console.log(
    `| ${c.name} | ${body.length.toLocaleString("en-US")} | ${result.code} | ${(result.peakKb / 1024).toFixed(1)} | ${
      Math.round(result.ms)
    } | ${rows.toLocaleString("en-US")} | ${bytes.toLocaleString("en-US")} | ${
      first.slice(0, 110).replaceAll("|", "\\|")
    } |`
  )
}
rmSync(dir, { recursive: true, force: true })
