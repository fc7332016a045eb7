import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { defineConfig } from "vitest/config"

// The tests need the Node of package.json's `engines` (JSON.rawJSON, Map.groupBy, ...): under an older one (a system
// Node 20) vitest would start and fail test after test with errors that do not say why. `npm test` provisions that
// Node (scripts/bootstrap.mjs); run directly, vitest stops here with one line saying what to put on PATH.
const root = fileURLToPath(new URL(".", import.meta.url))
const minimum = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).engines.node.replace(/^>=\s*/, "")
// Whether a version (`22.18.0`) is older than another, part by part.
const older = (version: string, than: string): boolean => {
  const [a, b] = [version, than].map((v) => v.replace(/^v/, "").split(".").map(Number)) as [number[], number[]]
  const i = a.findIndex((part, k) => part !== (b[k] ?? 0))
  return i !== -1 && a[i]! < (b[i] ?? 0)
}
if (older(process.versions.node, minimum)) {
  const cache = join(root, ".cache")
  const provisioned = existsSync(cache)
    ? readdirSync(cache).filter((name) => /^node-\d/.test(name)).map((name) =>
      join(cache, name, "node_modules", `node-${process.platform}-${process.arch}`, "bin")
    ).find((bin) => existsSync(join(bin, "node")))
    : undefined
  process.stderr.write(
    `vitest: the tests need Node ${minimum} or later (package.json engines), not ${process.version}; ` +
      (provisioned === undefined
        ? "run npm test once (it fetches one into .cache/), then put it on PATH\n"
        : `put the one npm test fetched on PATH: export PATH="${join(cache, "bin")}:${provisioned}:$PATH"\n`)
  )
  process.exit(1)
}

export default defineConfig({
  test: {
    projects: ["packages/*/vitest.config.ts", "examples/vitest.config.ts", "bench/vitest.config.ts"]
  }
})
