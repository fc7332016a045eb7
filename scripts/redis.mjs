#!/usr/bin/env node
// Provisions the real `redis-server` the shared-budget tests and benchmark need (issue #15's store, tested against
// the real thing, never a mock). Where it is missing: on a Debian-like system as root, Debian's package is installed
// with apt-get; anywhere else, one line says how to install it and the run stops before any test starts.
//
//   node scripts/redis.mjs          provision, or explain and exit 1
//   import { ensureRedis } from "./redis.mjs"
import { execFileSync, spawnSync } from "node:child_process"
import { existsSync } from "node:fs"
import { pathToFileURL } from "node:url"

const log = (msg) => process.stderr.write(`[redis] ${msg}\n`)

const found = () => spawnSync("redis-server", ["--version"], { stdio: "ignore" }).status === 0

const isRoot = () => typeof process.getuid === "function" && process.getuid() === 0

const debianLike = () =>
  process.platform === "linux" && existsSync("/usr/bin/apt-get") && existsSync("/etc/debian_version")

export const HOW_TO_INSTALL = "the tests need a real redis-server on the PATH: install it (Debian/Ubuntu: " +
  "`sudo apt-get install redis-server`; macOS: `brew install redis`; elsewhere: https://redis.io/docs/latest/operate/oss_and_stack/install/) " +
  "and run the tests again"

/** Makes sure `redis-server` runs here; returns a line that says why not when it cannot. */
export const ensureRedis = () => {
  if (found()) return undefined
  if (!(debianLike() && isRoot())) return HOW_TO_INSTALL
  log("redis-server is not installed: installing Debian's package (apt-get install redis-server)")
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" }
  const run = (args) => execFileSync("apt-get", args, { env, stdio: ["ignore", "ignore", "inherit"] })
  try {
    run(["update", "-qq"])
    run(["install", "-y", "-qq", "--no-install-recommends", "redis-server"])
  } catch (error) {
    return `apt-get could not install redis-server (${error.message.split("\n")[0]}); ${HOW_TO_INSTALL}`
  }
  // Debian's package starts a system service on port 6379; the tests start their own servers on free ports.
  spawnSync("service", ["redis-server", "stop"], { stdio: "ignore" })
  return found() ? undefined : `redis-server still not found after apt-get; ${HOW_TO_INSTALL}`
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const problem = ensureRedis()
  if (problem !== undefined) {
    log(problem)
    process.exit(1)
  }
}
