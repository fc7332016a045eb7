/**
 * Provisions the real `redis-server` the shared-budget tests start (`scripts/redis.mjs`: Debian's package as root on
 * a Debian-like system; elsewhere one line saying how to install it, and no test runs), then builds the package (and `@spotkit/core` through the project references) before the tests, so the end-to-end tests
 * run the real artifact: `node dist/bin/spotkit.js`, resolving `@spotkit/core` to its built `dist`. `tsc -b` is
 * incremental: when nothing changed it only compares timestamps (about 0.1 s).
 */
import { execFileSync, spawnSync } from "node:child_process"
import { createRequire } from "node:module"
import { fileURLToPath } from "node:url"

const packageDir = fileURLToPath(new URL("..", import.meta.url))

export default function setup(): void {
  const redis = spawnSync(process.execPath, [fileURLToPath(new URL("../../../scripts/redis.mjs", import.meta.url))], {
    stdio: "inherit"
  })
  if (redis.status !== 0) throw new Error("redis-server is missing (see the line above); no test was run")
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc")
  execFileSync(process.execPath, [tsc, "-b", "tsconfig.build.json"], { cwd: packageDir, stdio: "inherit" })
}
