/**
 * The testkit stands alone (issue #21): it does not depend on the Node package, so installing it brings neither a
 * Redis client nor a CSV library into a user's test environment. Read from its `package.json`, its sources, and the
 * closure npm installs from it: dependencies and non-optional peer dependencies, package by package.
 */
import { assert, describe, it } from "@effect/vitest"
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const packageDir = fileURLToPath(new URL("..", import.meta.url))
const NODE_PACKAGE = "@spotkit/node"
const UNWANTED = [NODE_PACKAGE, "redis", "csv-stringify"]

interface Manifest {
  readonly name: string
  readonly dependencies?: Record<string, string>
  readonly devDependencies?: Record<string, string>
  readonly peerDependencies?: Record<string, string>
  readonly peerDependenciesMeta?: Record<string, { readonly optional?: boolean }>
  readonly optionalDependencies?: Record<string, string>
}

const manifestAt = (dir: string): Manifest => JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Manifest

// Where Node finds package `name` for code in `dir`: the nearest node_modules/<name> up the tree (the real path, so a
// pnpm link leads to the package's own dependencies beside it).
const resolvePackage = (dir: string, name: string): string | undefined => {
  for (let at = dir;; at = dirname(at)) {
    const candidate = join(at, "node_modules", name)
    if (existsSync(join(candidate, "package.json"))) return realpathSync(candidate)
    if (dirname(at) === at) return undefined
  }
}

/** What npm installs with a package: its dependencies and its peers that are not optional, and theirs, by name. */
const installClosure = (dir: string): Map<string, string> => {
  const seen = new Map<string, string>()
  const visit = (from: string, via: string) => {
    const manifest = manifestAt(from)
    const optional = manifest.peerDependenciesMeta ?? {}
    const names = [
      ...Object.keys(manifest.dependencies ?? {}),
      ...Object.keys(manifest.peerDependencies ?? {}).filter((name) => optional[name]?.optional !== true)
    ]
    for (const name of names) {
      if (seen.has(name)) continue
      seen.set(name, `${via} > ${name}`)
      const found = resolvePackage(from, name)
      if (found !== undefined) visit(found, `${via} > ${name}`)
    }
  }
  visit(dir, manifestAt(dir).name)
  return seen
}

const sourceFiles = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry)
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith(".ts") ? [path] : []
  })

describe("the testkit stands alone", () => {
  it("its package.json names no @spotkit/node, in any kind of dependency", () => {
    const manifest = manifestAt(packageDir)
    for (
      const field of ["dependencies", "devDependencies", "peerDependencies", "optionalDependencies"] as const
    ) {
      assert.notProperty(manifest[field] ?? {}, NODE_PACKAGE, field)
    }
  })

  it("no source file names @spotkit/node", () => {
    const files = sourceFiles(join(packageDir, "src"))
    assert.isAbove(files.length, 30)
    const naming = files.filter((file) => readFileSync(file, "utf8").includes(NODE_PACKAGE))
    assert.deepStrictEqual(naming, [])
  })

  it("installing it brings no Redis client, no CSV library and no @spotkit/node", () => {
    const closure = installClosure(packageDir)
    assert.isTrue(closure.has("@spotkit/core") && closure.has("effect"), [...closure.keys()].join(", "))
    const unwanted = UNWANTED.flatMap((name) => closure.has(name) ? [closure.get(name)!] : [])
    assert.deepStrictEqual(unwanted, [])
  })
})
