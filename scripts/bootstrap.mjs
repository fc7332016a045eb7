#!/usr/bin/env node
// Provisions a suitable Node (>= 22.19, Node 24 from the npm registry's `node-<os>-<arch>` package,
// cached under .cache/) and pnpm, installs the workspace with the frozen lockfile, then runs a
// pnpm script with that toolchain. Written for the oldest Node a fresh machine has (Node 20), so
// it uses only the standard library.
//
//   node scripts/bootstrap.mjs <pnpm-script> [args...]
import { execFileSync, spawnSync } from "node:child_process"
import { chmodSync, existsSync, mkdirSync, writeFileSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"

const NODE_VERSION = "24.21.0"
const PNPM_VERSION = "10.34.9"
const MIN = [22, 19]

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..")
const cache = join(root, ".cache")
const log = (msg) => process.stderr.write(`[bootstrap] ${msg}\n`)

const satisfies = (version) => {
  const [major, minor] = version.replace(/^v/, "").split(".").map(Number)
  return major > MIN[0] || (major === MIN[0] && minor >= MIN[1])
}

const npmInstall = (prefix, spec) => {
  mkdirSync(prefix, { recursive: true })
  execFileSync(
    "npm",
    ["install", "--no-save", "--no-audit", "--no-fund", "--loglevel=error", "--prefix", prefix, spec],
    {
      stdio: ["ignore", "inherit", "inherit"]
    }
  )
}

const nodeBin = () => {
  if (satisfies(process.version)) return process.execPath
  const os = process.platform === "win32" ? "win" : process.platform
  const pkg = `node-${os}-${process.arch}`
  const prefix = join(cache, `node-${NODE_VERSION}`)
  const bin = join(prefix, "node_modules", pkg, "bin", "node")
  if (!existsSync(bin)) {
    log(`system Node ${process.version} is older than ${MIN.join(".")}; fetching ${pkg}@${NODE_VERSION}`)
    npmInstall(prefix, `${pkg}@${NODE_VERSION}`)
  }
  return bin
}

const pnpmJs = () => {
  const prefix = join(cache, `pnpm-${PNPM_VERSION}`)
  const js = join(prefix, "node_modules", "pnpm", "bin", "pnpm.cjs")
  if (!existsSync(js)) {
    log(`fetching pnpm@${PNPM_VERSION}`)
    npmInstall(prefix, `pnpm@${PNPM_VERSION}`)
  }
  return js
}

const node = nodeBin()
const pnpm = pnpmJs()
// A `pnpm` command for nested scripts (`pnpm lint && pnpm check ...`), bound to the provisioned Node.
const shims = join(cache, "bin")
mkdirSync(shims, { recursive: true })
writeFileSync(join(shims, "pnpm"), `#!/bin/sh\nexec "${node}" "${pnpm}" "$@"\n`)
chmodSync(join(shims, "pnpm"), 0o755)
// Child processes (vitest workers, pnpm scripts, the CLI under test) must find the same Node first.
const env = { ...process.env, PATH: `${shims}:${dirname(node)}:${process.env.PATH}`, npm_config_loglevel: "error" }
const run = (args) => {
  const result = spawnSync(node, [pnpm, ...args], { cwd: root, env, stdio: "inherit" })
  if (result.status !== 0) process.exit(result.status ?? 1)
}

log(`node ${execFileSync(node, ["--version"]).toString().trim()}, pnpm ${PNPM_VERSION}`)
run(["install", "--frozen-lockfile", "--reporter=append-only"])
const [script = "verify", ...rest] = process.argv.slice(2)
run(["run", script, ...rest])
