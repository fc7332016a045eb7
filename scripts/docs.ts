// `pnpm run docs`: the API reference of @spotkit/core, @spotkit/node and @spotkit/testkit, generated from the doc comments
// by @effect/docgen (the generator of Effect 4's own packages) into docs/api/: one page per public module (its
// overview, then every export by category with its signature, `@since` and a link to its source), and an index,
// docs/api/README.md. Docgen also refuses an export without `@since` and type-checks every ```ts example of the doc
// comments (strict, against the packages' sources); either failing fails the command.
//
// `pnpm run docs --check` (CI) generates into a temporary folder and fails when docs/api differs from it: the committed
// reference is the one the code gives. Run `pnpm run docs` and commit docs/api after changing a public doc comment or
// signature.
//
// Docgen 4.0.0-rc.112 runs on the Effect 4.0 release candidate it was built with (it imports `effect/unstable/*`,
// which Effect 4.1 renamed), so it is installed apart from the workspace: scripts/docgen/package.json and its lock,
// with npm, into .cache/docgen. A snippet with an elided line (a line of just `...`) is shown but not compiled (docgen's
// `skip-type-checking`); line numbers are left out of the source links, so that the pages change only when the API
// or its docs do.
import { spawnSync } from "node:child_process"
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { delimiter, dirname, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..")
const checkOnly = process.argv.includes("--check")
const PACKAGES = ["core", "node", "testkit"] as const
const tool = join(root, ".cache", "docgen")
const docs = join(root, "docs", "api")
// Where the source links point (the packages' `repository`).
const REPOSITORY = "https://github.com/spotkit/spotkit"

const log = (message: string) => process.stderr.write(`[docs] ${message}\n`)
const fail = (message: string): never => {
  log(message)
  process.exit(1)
}

const run = (command: string, args: ReadonlyArray<string>, cwd: string, env: NodeJS.ProcessEnv = process.env) => {
  const result = spawnSync(command, args, { cwd, env, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 })
  if (result.status !== 0) {
    fail(`${command} ${args.join(" ")} (in ${relative(root, cwd) || "."}) failed:\n${result.stdout}${result.stderr}`)
  }
  return result
}

// --- the tool ------------------------------------------------------------------------------------------------------

const lock = readFileSync(join(root, "scripts", "docgen", "package-lock.json"), "utf8")
const installed = join(tool, "node_modules", ".bin", "docgen")
if (
  !existsSync(installed) || !existsSync(join(tool, "package-lock.json")) ||
  readFileSync(join(tool, "package-lock.json"), "utf8") !== lock
) {
  log("installing @effect/docgen into .cache/docgen (npm)")
  rmSync(tool, { recursive: true, force: true })
  mkdirSync(tool, { recursive: true })
  cpSync(join(root, "scripts", "docgen", "package.json"), join(tool, "package.json"))
  writeFileSync(join(tool, "package-lock.json"), lock)
  run("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error"], tool, {
    ...process.env,
    npm_config_cache: join(root, ".cache", "npm")
  })
  // npm may complete the lock (optional platform packages); keep the committed one as the marker of this install.
  writeFileSync(join(tool, "package-lock.json"), lock)
}

// --- generate ------------------------------------------------------------------------------------------------------

const out = checkOnly ? mkdtempSync(join(tmpdir(), "spotkit-docs-")) : docs
if (checkOnly) process.on("exit", () => rmSync(out, { recursive: true, force: true }))
else rmSync(docs, { recursive: true, force: true })

// ```ts fences inside doc comments whose body has a line of just `...`: partial snippets, shown but not compiled.
const markPartialSnippets = (source: string): string =>
  source.replace(
    /^(\s*\* ```ts)\n((?:\s*\*(?! ```).*\n)*?)(\s*\* ```)$/gm,
    (fence, open: string, body: string, end) =>
      /^\s*\*\s+\.\.\.\s*$/m.test(body) ? `${open} skip-type-checking\n${body}${end}` : fence
  )

interface Page {
  readonly module: string
  readonly summary: string
}

// What docgen parses and type-checks the examples with: the packages' own strict settings, their sources by the
// `@spotkit/source` condition.
const compilerOptions = {
  noEmit: true,
  strict: true,
  exactOptionalPropertyTypes: true,
  noUncheckedIndexedAccess: true,
  target: "ES2023",
  lib: ["ES2023", "DOM"],
  module: "NodeNext",
  moduleResolution: "NodeNext",
  types: ["node"],
  customConditions: ["@spotkit/source"],
  allowImportingTsExtensions: true,
  skipLibCheck: true
}

// The records users get, as the checker expands them: a type alias declared from a Schema (`type Bill = typeof
// Bill.Type`) tells a reader nothing, so its signature becomes the object type it stands for, and a long Schema
// constant with such a record beside it is shown as the Schema of that record (its wire form is the venue's).
// The printer's text in the project's style: a branded string by its brand (spotkit's primitives are named after
// them: `OrderId`, `Decimal`, `TradingPair`), other imported types by their name, two spaces, no semicolons.
const readable = (text: string): string =>
  text
    .replace(/string & import\("[^"]*"\)\.Brand<"(\w+)">/g, "$1")
    .replace(/import\("[^"]*"\)\./g, "")
    .replace(/^((?: {4})+)/gm, (indent: string) => " ".repeat(indent.length / 2))
    .replace(/;$/gm, "")

const expandRecords = (staged: string): ReadonlyMap<string, ReadonlyMap<string, string>> => {
  const files = readdirSync(join(staged, "src"), { recursive: true, encoding: "utf8" })
    .filter((entry) => entry.endsWith(".ts") && !entry.startsWith("internal"))
    .map((entry) => join(staged, "src", entry))
  const parsed = ts.convertCompilerOptionsFromJson(compilerOptions, staged).options
  const program = ts.createProgram(files, parsed)
  const checker = program.getTypeChecker()
  const printer = ts.createPrinter({ removeComments: true })
  const flags = ts.NodeBuilderFlags.NoTruncation | ts.NodeBuilderFlags.InTypeAlias |
    ts.NodeBuilderFlags.MultilineObjectLiterals | ts.NodeBuilderFlags.IgnoreErrors
  const byModule = new Map<string, Map<string, string>>()
  for (const file of files) {
    const source = program.getSourceFile(file)
    if (source === undefined) continue
    const records = new Map<string, string>()
    for (const statement of source.statements) {
      if (!ts.isTypeAliasDeclaration(statement)) continue
      if (!statement.modifiers?.some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword)) continue
      if (!/^typeof \w+\.(Type|Encoded)$/.test(statement.type.getText(source))) continue
      const node = checker.typeToTypeNode(checker.getTypeAtLocation(statement.name), statement, flags)
      if (node === undefined) continue
      records.set(statement.name.text, readable(printer.printNode(ts.EmitHint.Unspecified, node, source)))
    }
    byModule.set(file.slice(join(staged, "src").length + 1).replace(/\.ts$/, ""), records)
  }
  return byModule
}

const pages = new Map<string, Array<Page>>()
for (const name of PACKAGES) {
  const dir = join(root, "packages", name)
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name: string }
  // A copy of the package (its package.json, so that an example's import of the package itself resolves to the
  // copied sources) under build/, where docgen runs.
  const staged = join(dir, "build", "docgen")
  rmSync(staged, { recursive: true, force: true })
  mkdirSync(staged, { recursive: true })
  cpSync(join(dir, "package.json"), join(staged, "package.json"))
  cpSync(join(dir, "src"), join(staged, "src"), { recursive: true })
  for (const entry of readdirSync(join(staged, "src"), { recursive: true, encoding: "utf8" })) {
    if (!entry.endsWith(".ts")) continue
    const file = join(staged, "src", entry)
    writeFileSync(file, markPartialSnippets(readFileSync(file, "utf8")))
  }
  writeFileSync(
    join(staged, "docgen.json"),
    JSON.stringify(
      {
        srcDir: "src",
        outDir: "docs",
        // index.ts only re-exports the modules as namespaces (the index page lists them).
        exclude: ["src/index.ts", "src/internal/**/*.ts", "src/bin/**/*.ts"],
        projectHomepage: REPOSITORY,
        srcLink: `${REPOSITORY}/blob/main/packages/${name}/src/`,
        enforceVersion: true,
        parseCompilerOptions: compilerOptions,
        examplesCompilerOptions: compilerOptions
      },
      null,
      2
    )
  )
  const from = Date.now()
  run(installed, [], staged, {
    ...process.env,
    // `tsc` (for the examples) is the workspace's.
    PATH: [join(root, "node_modules", ".bin"), join(tool, "node_modules", ".bin"), process.env["PATH"]].join(delimiter)
  })
  log(`${manifest.name}: generated in ${((Date.now() - from) / 1000).toFixed(1)} s`)

  const modules = join(staged, "docs", "modules")
  const records = expandRecords(staged)
  const list: Array<Page> = []
  mkdirSync(join(out, name), { recursive: true })
  for (const file of readdirSync(modules).filter((file) => file.endsWith(".ts.md")).sort()) {
    const module = file.replace(/\.ts\.md$/, "")
    // Docgen prints a constant's type as the checker expands it; one declared as a type that expands to pages
    // (`Config.Wrap<Options>`) is shown as declared.
    const declared = new Map(
      [...readFileSync(join(staged, "src", `${module}.ts`), "utf8").matchAll(/^export const (\w+): ([^=\n]+) =/gm)]
        .map((match) => [match[1]!, match[2]!.trim()])
    )
    const expanded = records.get(module) ?? new Map<string, string>()
    const text = readFileSync(join(modules, file), "utf8")
      .replace(
        /```ts\ndeclare const (\w+):[\s\S]*?\n```/g,
        (block, name: string) =>
          declared.has(name) && block.split("\n").length > 12
            ? `\`\`\`ts\ndeclare const ${name}: ${declared.get(name)}\n\`\`\``
            : expanded.has(name) && block.split("\n").length > 6
            ? `\`\`\`ts\n// The Schema of the record ${name} (below), decoding the venue's wire form\n` +
              `declare const ${name}: Schema.Codec<${name}>\n\`\`\``
            : block
      )
      .replace(
        /```ts\ntype (\w+) = typeof \w+\.(?:Type|Encoded)\n```/g,
        (block, name: string) => expanded.has(name) ? `\`\`\`ts\ntype ${name} = ${expanded.get(name)}\n\`\`\`` : block
      )
      // Jekyll's front matter is for a docs site; on GitHub a title and a way back read better.
      .replace(/^---\n[\s\S]*?\n---\n+/, "")
      .replace(/\]\((https:[^)]*?\.ts)#L\d+\)/g, "]($1)")
    // The first sentence of the overview.
    const overview = /## \S+ overview\n\n([\s\S]*?)\n\n/.exec(text)?.[1]?.replaceAll("\n", " ") ?? ""
    const summary = /^(.*?\.)(\s|$)/.exec(overview)?.[1] ?? overview
    const title = `${manifest.name}/${module}`
    writeFileSync(
      join(out, name, `${module}.md`),
      `# ${title}\n\n[API reference](../README.md) · [${manifest.name}](../../../packages/${name}/README.md)\n\n${text}`
    )
    list.push({ module, summary })
  }
  pages.set(manifest.name, list)
  rmSync(staged, { recursive: true, force: true })
}

const index = [
  "# spotkit API reference",
  "",
  "Generated from the doc comments by `pnpm run docs` (@effect/docgen); do not edit by hand. Every module below is a",
  "subpath of its package (`import { SpotClient } from \"@spotkit/core\"`, or `\"@spotkit/core/SpotClient\"`).",
  ""
]
for (const [name, list] of pages) {
  const dir = name.replace("@spotkit/", "")
  index.push(`## ${name}`, "", "| module | what it is |", "|---|---|")
  for (const page of list) index.push(`| [${page.module}](${dir}/${page.module}.md) | ${page.summary} |`)
  index.push("")
}
writeFileSync(join(out, "README.md"), index.join("\n"))

// --- compare -------------------------------------------------------------------------------------------------------

if (checkOnly) {
  const filesOf = (dir: string) =>
    existsSync(dir)
      ? readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((entry) => entry.endsWith(".md")).sort()
      : []
  const expected = filesOf(out)
  const committed = filesOf(docs)
  const stale = [
    ...expected.filter((file) =>
      !committed.includes(file) || readFileSync(join(out, file), "utf8") !== readFileSync(join(docs, file), "utf8")
    ),
    ...committed.filter((file) => !expected.includes(file))
  ]
  if (stale.length > 0) {
    fail(`docs/api is not what the code gives (${stale.join(", ")}): run \`pnpm run docs\` and commit docs/api`)
  }
  log(`docs/api is up to date (${expected.length} pages)`)
} else {
  log(`wrote ${relative(root, docs)} (${[...pages.values()].flat().length} module pages and README.md)`)
}
