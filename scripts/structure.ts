// `pnpm lint` runs this after ESLint: the repository's structural rules that no lint rule states.
//
// - No import cycle among the packages' source files (`packages/*/src`), type-only imports included: a module is
//   read before the modules that use it, so each floor can be understood alone. Imports between packages
//   (`@spotkit/core/Order`) count like relative ones.
// - No tracked file points outside the repository (into the notes folder beside the checkout): what the repository
//   relies on, it holds.
// - Every link in every tracked Markdown file resolves: a relative link to a tracked file or folder of the repository
//   (and its `#anchor` to a heading of the Markdown file it names), a link to the repository's own URL
//   (`https://github.com/spotkit/spotkit/blob/main/...`) likewise. A package's README links nothing outside its
//   package relatively, since it is read on the registry's page, from the tarball.
// - No tracked file (source, test, script or page) cites `spec §`, `spec-extended` or `DESIGN §` (documents the
//   repository does not hold), and every `docs/....md#anchor` a source file names exists.
//
// ESLint's `max-lines-per-function` (eslint.config.mjs) bounds functions in src.
import { execFileSync } from "node:child_process"
import { existsSync, readFileSync, statSync } from "node:fs"
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

// The folder beside the checkout, spelled in two parts so that this file does not point there itself.
const OUTSIDE_PATH = ["..", "shared"].join("/")
const OUTSIDE = new RegExp(`${OUTSIDE_PATH.replaceAll(".", "\\.")}\\b`)
for (const file of tracked) {
  if (file.startsWith(".ci/") || !existsSync(join(root, file))) continue
  if (/\.(png|jpg|gif|ico|lock|tgz|gz)$/.test(file) || file.endsWith("pnpm-lock.yaml")) continue
  const lines = readFileSync(join(root, file), "utf8").split("\n")
  lines.forEach((line, i) => {
    if (OUTSIDE.test(line)) problems.push(`${file}:${i + 1}: points outside the repository (${OUTSIDE_PATH})`)
  })
}

// ---------------------------------------------------------------------------------------------------------------
// Markdown links

const REPOSITORY_URL = /^https:\/\/github\.com\/spotkit\/spotkit\/(?:blob|tree)\/main\/([^?#]*)(#.*)?$/
const trackedFiles = new Set(tracked)
const trackedFolders = new Set(tracked.flatMap((file) => {
  const parts = file.split("/")
  return parts.slice(1).map((_, i) => parts.slice(0, i + 1).join("/"))
}))

// GitHub's anchor of a heading: its text as rendered, lower case, without punctuation, each space a hyphen; the n-th
// repeat of an anchor gets `-n`. Explicit `<a id="...">` / `<a name="...">` anchors count too.
const slug = (heading: string) =>
  heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/<[^>]+>/g, "")
    .replace(/[`*]/g, "")
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, "")
    .replace(/\s/g, "-")

// The lines outside fenced code blocks (a fenced line reads as empty, so line numbers stay).
const outsideFences = (text: string): Array<string> => {
  let fence: string | undefined
  return text.split("\n").map((line) => {
    const marker = /^\s*(```+|~~~+)/.exec(line)?.[1]
    if (marker !== undefined) {
      if (fence === undefined) fence = marker
      else if (marker.startsWith(fence)) fence = undefined
      return ""
    }
    return fence === undefined ? line : ""
  })
}

// The same, with inline code masked (not blanked: a line that starts with code is no reference definition).
const prose = (text: string): Array<string> =>
  outsideFences(text).map((line) => line.replace(/(`+)[\s\S]*?\1/g, (code) => "x".repeat(code.length)))

const anchorCache = new Map<string, Set<string>>()
const anchorsOf = (file: string): Set<string> => {
  const cached = anchorCache.get(file)
  if (cached !== undefined) return cached
  const anchors = new Set<string>()
  const counts = new Map<string, number>()
  for (const line of outsideFences(readFileSync(join(root, file), "utf8"))) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1]
    if (heading !== undefined) {
      const base = slug(heading)
      const seen = counts.get(base) ?? 0
      counts.set(base, seen + 1)
      anchors.add(seen === 0 ? base : `${base}-${seen}`)
    }
    for (const match of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(match[1]!)
  }
  anchorCache.set(file, anchors)
  return anchors
}

// `[text](target "title")`, `![alt](target)`, `<target>` in parentheses, and reference definitions `[x]: target`.
const LINK = /!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)|^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm

const checkLink = (file: string, target: string): string | undefined => {
  const repository = REPOSITORY_URL.exec(target)
  if (repository === null && /^[a-z][a-z0-9+.-]*:/i.test(target)) return undefined // another site, mailto:
  const [pathPart, anchor] = repository !== null
    ? [repository[1]!.replace(/\/$/, ""), repository[2]?.slice(1)]
    : [target.split("#")[0]!, target.includes("#") ? target.slice(target.indexOf("#") + 1) : undefined]
  const resolved = repository !== null
    ? pathPart
    : pathPart === ""
    ? file
    : relative(root, resolve(root, dirname(file), decodeURI(pathPart)))
  if (resolved.startsWith("..")) return "points outside the repository"
  const packageDir = /^(packages\/[^/]+)\/README\.md$/.exec(file)?.[1]
  if (repository === null && packageDir !== undefined && pathPart !== "" && !resolved.startsWith(`${packageDir}/`)) {
    return "leaves its package (not in the tarball): link it by the repository URL"
  }
  const isFile = trackedFiles.has(resolved)
  if (!isFile && !(resolved === "" || trackedFolders.has(resolved))) {
    return existsSync(join(root, resolved)) ? "names a file git does not track" : "names no file"
  }
  if (anchor !== undefined && anchor !== "" && isFile && resolved.endsWith(".md")) {
    if (!anchorsOf(resolved).has(decodeURIComponent(anchor))) return `names no heading #${anchor} in ${resolved}`
  }
  if (anchor !== undefined && anchor !== "" && !isFile && statSync(join(root, resolved)).isDirectory()) {
    return "an anchor on a folder"
  }
  return undefined
}

let links = 0
for (const file of tracked.filter((file) => file.endsWith(".md") && existsSync(join(root, file)))) {
  prose(readFileSync(join(root, file), "utf8")).forEach((line, i) => {
    for (const match of line.matchAll(LINK)) {
      const target = match[1] ?? match[2]
      if (target === undefined || target === "") continue
      links++
      const problem = checkLink(file, target)
      if (problem !== undefined) problems.push(`${file}:${i + 1}: link ${target} ${problem}`)
    }
  })
}

// ---------------------------------------------------------------------------------------------------------------
// References in the packages' sources (they ship in the .d.ts files)

// The venue's documents are cited by the repository's own pages (`docs/venue/trading.md#cancel-order`), never by the
// section numbers of documents it does not hold; a page named must exist, with its heading. Tests, scripts and pages
// are read for the citations too: a maintainer follows a test's reference as much as a source's.
const CITATION = /\b(?:spec|spec-extended|DESIGN) §|\bspec-extended\b/
const DOC_REFERENCE = /\bdocs\/[\w./-]+\.md(?:#[\w-]+)?/g
const SELF = relative(root, fileURLToPath(import.meta.url))
let references = 0
for (const file of tracked) {
  if (!/\.(?:ts|mjs|md)$/.test(file) || file === SELF || known.has(file) || !existsSync(join(root, file))) continue
  readFileSync(join(root, file), "utf8").split("\n").forEach((line, i) => {
    if (CITATION.test(line)) {
      problems.push(
        `${file}:${i + 1}: cites a document the repository does not hold (spec §, spec-extended, DESIGN §)`
      )
    }
    if (!file.endsWith(".ts")) return
    for (const match of line.matchAll(DOC_REFERENCE)) {
      references++
      const problem = checkLink("README.md", match[0])
      if (problem !== undefined) problems.push(`${file}:${i + 1}: ${match[0]} ${problem}`)
    }
  })
}
for (const file of sources) {
  readFileSync(join(root, file), "utf8").split("\n").forEach((line, i) => {
    if (CITATION.test(line)) {
      problems.push(
        `${file}:${i + 1}: cites a document the repository does not hold (spec §, spec-extended, DESIGN §)`
      )
    }
    for (const match of line.matchAll(DOC_REFERENCE)) {
      references++
      const problem = checkLink("README.md", match[0])
      if (problem !== undefined) problems.push(`${file}:${i + 1}: ${match[0]} ${problem}`)
    }
  })
}

if (problems.length > 0) {
  process.stderr.write(`[structure] ${problems.length} problem(s):\n  ${problems.join("\n  ")}\n`)
  process.exit(1)
}
process.stderr.write(
  `[structure] ${sources.length} source files, no import cycle; nothing points outside; ${links} Markdown links and ` +
    `${references} docs references in sources and tests resolve\n`
)
