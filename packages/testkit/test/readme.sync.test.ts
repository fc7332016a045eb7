// Every TypeScript example of packages/testkit/README.md is a test of this folder, as written: its code verbatim, and
// each of its imports there too (`@spotkit/testkit` is `../src/index.ts` here). An example edited in the README and
// not in its test, or the other way round, fails here, so the README never shows code the suite does not run.
import { assert, describe, it } from "@effect/vitest"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"

const here = import.meta.dirname
const readme = readFileSync(join(here, "..", "README.md"), "utf8")

const isImport = (line: string) => line.startsWith("import ")
const codeOf = (source: string) => source.split("\n").filter((line) => !isImport(line)).join("\n").trim()

const examples = Array.from(readme.matchAll(/```ts\n([\s\S]*?)```/g), ([, source]) => ({
  imports: source!.split("\n").filter(isImport).map((line) =>
    line.replace("\"@spotkit/testkit\"", "\"../src/index.ts\"")
  ),
  code: codeOf(source!)
}))

const tests = readdirSync(here)
  .filter((name) => name.endsWith(".test.ts"))
  .map((name) => ({ name, source: readFileSync(join(here, name), "utf8") }))

describe("packages/testkit/README.md", () => {
  it("has examples to check", () => {
    assert.isAtLeast(examples.length, 3)
  })

  for (const example of examples) {
    const title = example.code.split("\n").find((line) => /^\s*it\.(effect|layer)\(/.test(line))?.trim() ?? example.code
    it(`runs ${title.slice(0, 80)} as a test, verbatim`, () => {
      const found = tests.find((test) => test.source.includes(example.code))
      assert.isDefined(found, "no test file holds this example's code as the README shows it")
      const own = found!.source.split("\n").filter(isImport)
      for (const line of example.imports) {
        assert.include(own, line, `${found!.name} does not import as the README's example does`)
      }
    })
  }
})
