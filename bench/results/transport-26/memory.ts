// The built CLI's export (1M bills by default) once per variant, each a string of node flags and VAR=value
// environment settings ("" for the CLI as shipped; "--main" starts dist/internal/main.js, without the entry's flags):
// wall and CPU time, and the peak resident set (VmHWM) with its anonymous and file-backed parts, sampled every
// EVERY ms (10); SERIES=1 prints each rise of the peak by more than 4 MB with the thread count.
//
//   cd bench && node --conditions=@spotkit/source results/transport-26/memory.ts 1000000 "" "MALLOC_ARENA_MAX=1" \
//     "--v8-pool-size=1" "UV_THREADPOOL_SIZE=1" "--main --no-maglev"
import { TestExchange } from "@spotkit/testkit"
import { spawn } from "node:child_process"
import { readFileSync, rmSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { aliceEnv, startSandbox } from "../../src/sandbox.ts"

const root = fileURLToPath(new URL("../../../", import.meta.url))
const bills = Number(process.argv[2] ?? 1_000_000)
const variants = process.argv.slice(3)
const running = await startSandbox({ ...TestExchange.demo({ seed: 1, bills }), rateLimits: false, requestLogSize: 0 })
const env = aliceEnv(running, { SPOTKIT_RATE_LIMIT: "off" })
for (const variant of variants) {
  const args = variant.split(" ").filter((a) => a !== "")
  const entry = args.includes("--main") ? "packages/node/dist/internal/main.js" : "packages/node/dist/bin/spotkit.js"
  const extraEnv = Object.fromEntries(
    args.filter((a) => /^[A-Z_]+=/.test(a)).map((a) => a.split("=") as [string, string])
  )
  const flags = args.filter((a) => a !== "--main" && !/^[A-Z_]+=/.test(a))
  const out = `/tmp/mem-${process.pid}.csv`
  const started = performance.now()
  const child = spawn(process.execPath, [...flags, join(root, entry), "bills", "export", "--out", out], {
    env: { ...env, ...extraEnv },
    stdio: ["ignore", "inherit", "inherit"]
  })
  let peak = { hwm: 0, anon: 0, file: 0 }
  let cpu = 0
  let lastHwm = 0
  const timer = setInterval(() => {
    try {
      const status = readFileSync(`/proc/${child.pid}/status`, "utf8")
      const n = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+)`, "m").exec(status)?.[1] ?? 0) / 1024
      const hwm = n("VmHWM")
      if (hwm > peak.hwm) peak = { hwm, anon: n("RssAnon"), file: n("RssFile") }
      if (process.env.SERIES && hwm > lastHwm + 4) {
        lastHwm = hwm
        console.log(
          `t=${((performance.now() - started) / 1000).toFixed(3)} anon=${n("RssAnon").toFixed(0)} rss=${
            n("VmRSS").toFixed(0)
          } hwm=${hwm.toFixed(0)} threads=${n("Threads") * 1024}`
        )
      }
      const stat = readFileSync(`/proc/${child.pid}/stat`, "utf8").split(") ")[1]!.split(" ")
      cpu = (Number(stat[11]) + Number(stat[12])) * 10
    } catch {
      // The process ended between two samples.
    }
  }, Number(process.env.EVERY ?? 10))
  await new Promise((resolve) => child.on("exit", resolve))
  clearInterval(timer)
  rmSync(out, { force: true })
  console.log(
    `${variant.padEnd(50)} wall ${((performance.now() - started) / 1000).toFixed(1)} s cpu ${
      (cpu / 1000).toFixed(1)
    } s peak ${peak.hwm.toFixed(1)} MB (anon ${peak.anon.toFixed(1)}, file ${
      peak.file.toFixed(1)
    } at the peak's last rise)`
  )
}
await running.close()
