// `pnpm lint` runs this after ESLint: the repository's structural rules that no lint rule states.
//
// - No import cycle among the packages' source files (`packages/*/src`), type-only imports included: a module is
//   read before the modules that use it, so each floor can be understood alone. Imports between packages
//   (`@spotkit/core/Order`) count like relative ones.
// - No tracked file points outside the repository (`../shared/...`): what the repository relies on, it holds.
//
// ESLint's `max-lines-per-function` (eslint.config.mjs) bounds functions in src.
import { execFileSync } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..")
const tracked = execFileSync("git", ["ls-files", "-z"], { cwd: root, encoding: "utf8" }).split("\0").filter(Boolean)
const problems: Array<string> = []

// ---------------------------------------------------------------------------------------------------------------
// Import cycles

const sources = tracked.filter((file) => /^packages\/[^/]+\/src\/.*\.ts$/.test(file) && existsSync(join(root, file)))
const known = new Set(sources)

// `import ... from "x"`, `import type ... from "x"`, `export ... from "x"`, `import("x")`, `import "x"`.
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s*)["']([^"']+)["']/gm

const resolveSpecifier = (from: string, specifier: string): string | undefined => {
  if (specifier.startsWith(".")) {
    const target = relative(root, resolve(root, dirname(from), specifier)).replace(/\.js$/, ".ts")
    return known.has(target) ? target : undefined
  }
  const match = /^@spotkit\/([^/]+)(?:\/(.+))?$/.exec(specifier)
  if (match === null) return undefined
  const target = `packages/${match[1]}/src/${match[2] ?? "index"}.ts`
  return known.has(target) ? target : undefined
}

const graph = new Map<string, Array<string>>()
for (const file of sources) {
  // Comments may quote imports (module docs); they are not edges.
  const text = readFileSync(join(root, file), "utf8").replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "")
  const edges = new Set<string>()
  for (const match of text.matchAll(SPECIFIER)) {
    const target = resolveSpecifier(file, match[1]!)
    if (target !== undefined && target !== file) edges.add(target)
  }
  graph.set(file, [...edges])
}

// Tarjan's strongly connected components: every component of more than one file is a cycle.
let index = 0
const indices = new Map<string, number>()
const lowlink = new Map<string, number>()
const stack: Array<string> = []
const onStack = new Set<string>()
const components: Array<Array<string>> = []
const connect = (node: string) => {
  indices.set(node, index)
  lowlink.set(node, index)
  index++
  stack.push(node)
  onStack.add(node)
  for (const next of graph.get(node) ?? []) {
    if (!indices.has(next)) {
      connect(next)
      lowlink.set(node, Math.min(lowlink.get(node)!, lowlink.get(next)!))
    } else if (onStack.has(next)) {
      lowlink.set(node, Math.min(lowlink.get(node)!, indices.get(next)!))
    }
  }
  if (lowlink.get(node) === indices.get(node)) {
    const component: Array<string> = []
    let member: string
    do {
      member = stack.pop()!
      onStack.delete(member)
      component.push(member)
    } while (member !== node)
    if (component.length > 1) components.push(component.sort())
  }
}
for (const file of sources) if (!indices.has(file)) connect(file)
for (const component of components) {
  problems.push(`import cycle among ${component.length} files:\n    ${component.join("\n    ")}`)
}

// ---------------------------------------------------------------------------------------------------------------
// References outside the repository

const OUTSIDE = /\.\.\/shared\b/
for (const file of tracked) {
  if (file.startsWith(".ci/") || !existsSync(join(root, file))) continue
  if (/\.(png|jpg|gif|ico|lock|tgz|gz)$/.test(file) || file.endsWith("pnpm-lock.yaml")) continue
  const lines = readFileSync(join(root, file), "utf8").split("\n")
  lines.forEach((line, i) => {
    if (OUTSIDE.test(line)) problems.push(`${file}:${i + 1}: points outside the repository (../shared)`)
  })
}

if (problems.length > 0) {
  process.stderr.write(`[structure] ${problems.length} problem(s):\n  ${problems.join("\n  ")}\n`)
  process.exit(1)
}
process.stderr.write(`[structure] ${sources.length} source files, no import cycle; nothing points outside\n`)
