/**
 * `spotkit bills export --out FILE` in a directory others can write (hostile review, finding 3), in process against
 * the sandbox: a symbolic link put at FILE.partial, FILE.partial.json or its temporary file is replaced, never written
 * through, and the file it points to stays as it was; `--resume` refuses a partial file that is a symbolic link, has
 * another name or is not a regular file; a symbolic link at FILE is replaced by the export, the file it points to left
 * alone (a link to a device is still written in place); the partial file is 0600 while it is written, whatever the
 * umask and FILE's permissions, and the finished FILE keeps FILE's permissions, or is 0600 when new. Below the CLI, the
 * output layer's exclusive creation fails on a link put there between the removal and the creation, and its append
 * refuses a link put there after `--resume` checked; a link put at the description after its check by name is refused
 * as a link, nothing of the file it points to quoted.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import { Fault, TestExchange } from "@spotkit/testkit"
import { Effect, Fiber, FileSystem, Layer } from "effect"
import { chmodSync, existsSync, linkSync, lstatSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs"
import * as OutFile from "../../src/internal/cli/outFile.ts"
import * as Output from "../../src/internal/output.ts"
import { aliceEnv, capture, runInProcess, sandboxLayer } from "../support/cli.ts"

const BILLS_PATH = "/api/v2/account/fundingBills"
const PRECIOUS = "precious: not an export\n"
const DESCRIPTION = JSON.stringify({
  spotkit: 1,
  command: "bills export",
  format: "csv",
  csvRaw: false,
  filters: { since: undefined, until: undefined }
}) + "\n"

const modeOf = (path: string) => statSync(path).mode & 0o777

// The process's umask for the effect, put back after it.
const withUmask = <A, E, R>(umask: number, effect: Effect.Effect<A, E, R>) =>
  Effect.acquireUseRelease(
    Effect.sync(() => process.umask(umask)),
    () => effect,
    (old) => Effect.sync(() => void process.umask(old))
  )

describe("export files in a directory others can write, in process", () => {
  const { layer } = sandboxLayer({ seed: 31, bills: 60 })

  it.layer(layer, { excludeTestServices: true, timeout: "60 seconds" })("against the sandbox", (it) => {
    const cli = (args: ReadonlyArray<string>) =>
      Effect.flatMap(aliceEnv, (env) => runInProcess(["bills", "export", ...args], env))

    // A directory for the victim's files, and one where the export goes.
    const dirs = Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const victim = yield* fs.makeTempDirectoryScoped({ prefix: "spotkit-victim-" })
      const shared = yield* fs.makeTempDirectoryScoped({ prefix: "spotkit-shared-" })
      const reference = `${shared}/reference.csv`
      const run = yield* cli(["--out", reference])
      assert.strictEqual(run.exitCode, 0, run.stderr)
      return { victim, shared, whole: readFileSync(reference, "utf8") }
    })

    it.effect("links at FILE.partial, FILE.partial.json and its temporary file: replaced, their targets untouched", () =>
      Effect.gen(function*() {
        const { shared, victim, whole } = yield* dirs
        const out = `${shared}/report.csv`
        const names = [`${out}.partial`, `${out}.partial.json`, `${out}.partial.json.tmp`]
        names.forEach((name, i) => {
          writeFileSync(`${victim}/precious-${i}.txt`, PRECIOUS)
          symlinkSync(`${victim}/precious-${i}.txt`, name)
        })
        const run = yield* cli(["--out", out])
        assert.strictEqual(run.exitCode, 0, run.stderr)
        names.forEach((_, i) => assert.strictEqual(readFileSync(`${victim}/precious-${i}.txt`, "utf8"), PRECIOUS))
        assert.isTrue(lstatSync(out).isFile(), "FILE is a file of its own, not a link")
        assert.strictEqual(readFileSync(out, "utf8"), whole)
        for (const name of names) assert.isFalse(existsSync(name), name)
      }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

    it.effect("--out a directory, or in a directory that is not there: one line naming it, exit code 2", () =>
      Effect.gen(function*() {
        const fs = yield* FileSystem.FileSystem
        const dir = yield* fs.makeTempDirectoryScoped({ prefix: "spotkit-out-" })
        writeFileSync(`${dir}/plain`, PRECIOUS)
        const cases = [
          [dir, `--out: ${dir} is a directory; give a file's name (in it, or elsewhere)`],
          [`${dir}/missing/bills.csv`, `--out: directory ${dir}/missing does not exist`],
          [`${dir}/plain/bills.csv`, `--out: ${dir}/plain is not a directory`]
        ] as const
        for (const [out, line] of cases) {
          const run = yield* cli(["--out", out])
          assert.strictEqual(run.exitCode, 2, run.stderr)
          assert.strictEqual(run.stderr.trim(), `spotkit: ${line}`)
          assert.strictEqual(run.stdout, "")
        }
        assert.deepStrictEqual((yield* fs.readDirectory(dir)).sort(), ["plain"])
      }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

    it.effect("--resume with FILE.partial a link, another name of a file, or a directory: refused, exit code 2", () =>
      Effect.gen(function*() {
        const fs = yield* FileSystem.FileSystem
        const { shared, victim } = yield* dirs
        const out = `${shared}/report.csv`
        const partial = `${out}.partial`
        // A description of this very export beside it: only the partial file is wrong.
        writeFileSync(`${partial}.json`, DESCRIPTION)
        const precious = `${victim}/precious.txt`
        writeFileSync(precious, PRECIOUS)
        const cases = [
          { plant: () => symlinkSync(precious, partial), problem: "it is a symbolic link" },
          { plant: () => linkSync(precious, partial), problem: "it has other names (hard links)" }
        ]
        for (const { plant, problem } of cases) {
          plant()
          const run = yield* cli(["--out", out, "--resume"])
          assert.strictEqual(run.exitCode, 2, run.stderr)
          assert.include(run.stderr, `--resume: ${partial} is not one to continue (${problem}); it was left alone`)
          assert.strictEqual(readFileSync(precious, "utf8"), PRECIOUS)
          assert.isFalse(existsSync(out))
          yield* fs.remove(partial)
        }
        yield* fs.makeDirectory(partial)
        const directory = yield* cli(["--out", out, "--resume"])
        assert.strictEqual(directory.exitCode, 2, directory.stderr)
        assert.include(directory.stderr, "(it is not a regular file)")
        // A link at the description is refused as well.
        yield* fs.remove(partial, { recursive: true })
        writeFileSync(`${victim}/description.json`, DESCRIPTION)
        yield* fs.remove(`${partial}.json`)
        symlinkSync(`${victim}/description.json`, `${partial}.json`)
        const meta = yield* cli(["--out", out, "--resume"])
        assert.strictEqual(meta.exitCode, 2, meta.stderr)
        assert.include(meta.stderr, `${partial}.json is not one to continue (it is a symbolic link)`)
      }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

    it.effect("FILE a link to a file: the link is replaced by the export, the file it points to untouched", () =>
      Effect.gen(function*() {
        const { shared, victim, whole } = yield* dirs
        const out = `${shared}/report.csv`
        const precious = `${victim}/precious.txt`
        writeFileSync(precious, PRECIOUS)
        symlinkSync(precious, out)
        const run = yield* cli(["--out", out])
        assert.strictEqual(run.exitCode, 0, run.stderr)
        assert.strictEqual(readFileSync(precious, "utf8"), PRECIOUS)
        assert.isFalse(existsSync(`${victim}/precious.txt.partial`))
        assert.isTrue(lstatSync(out).isFile())
        assert.strictEqual(readFileSync(out, "utf8"), whole)
        // A new file to the user alone, not the permissions of what the link pointed to.
        assert.strictEqual(modeOf(out), 0o600)
        // The summary says what became of the link.
        assert.include(
          run.stderr,
          `to ${out} (it was a symbolic link: replaced by the file, the file it pointed to unchanged)`
        )
        const again = yield* cli(["--out", out])
        assert.notInclude(again.stderr, "symbolic link")
        // A link to a device is still written in place, through the link.
        const device = `${shared}/null.csv`
        symlinkSync("/dev/null", device)
        const toDevice = yield* cli(["--out", device])
        assert.strictEqual(toDevice.exitCode, 0, toDevice.stderr)
        assert.isTrue(lstatSync(device).isSymbolicLink())
      }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

    it.effect("under umask 022: FILE.partial is 0600 while written; FILE keeps its permissions, a new one is 0600", () =>
      withUmask(
        0o022,
        Effect.gen(function*() {
          const { shared, whole } = yield* dirs
          const exchange = yield* TestExchange.TestExchange
          // A new file.
          const fresh = `${shared}/fresh.csv`
          const created = yield* cli(["--out", fresh])
          assert.strictEqual(created.exitCode, 0, created.stderr)
          assert.strictEqual(modeOf(fresh), 0o600)
          // Existing files keep their permissions; the partial file is 0600 while it is written, whatever they are.
          for (const mode of [0o644, 0o600, 0o640]) {
            const out = `${shared}/existing-${mode.toString(8)}.csv`
            writeFileSync(out, "an earlier export\n")
            chmodSync(out, mode)
            yield* exchange.injectFault({ fault: Fault.latency(100), path: BILLS_PATH })
            const running = yield* Effect.forkChild(cli(["--out", out, "--page-size", "10"]))
            // Pages of 10 of the 60 bills, each after 100 ms: the partial file is there for half a second.
            for (let i = 0; i < 500 && !existsSync(`${out}.partial`); i++) yield* Effect.sleep(5)
            assert.isTrue(existsSync(`${out}.partial`), "FILE.partial seen while the export runs")
            assert.strictEqual(modeOf(`${out}.partial`), 0o600, `partial beside a ${mode.toString(8)} FILE`)
            assert.strictEqual(modeOf(`${out}.partial.json`), 0o600)
            const run = yield* Fiber.join(running)
            yield* exchange.clearFaults
            assert.strictEqual(run.exitCode, 0, run.stderr)
            assert.strictEqual(readFileSync(out, "utf8"), whole)
            assert.strictEqual(modeOf(out), mode)
          }
        })
      ).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))

    it.effect("--resume: a 0644 FILE.partial of an earlier version continued; FILE keeps its permissions", () =>
      withUmask(
        0o022,
        Effect.gen(function*() {
          const { shared, whole } = yield* dirs
          const out = `${shared}/report.csv`
          writeFileSync(out, "an earlier export\n")
          chmodSync(out, 0o640)
          // What an export killed midway leaves, from a version that made it 0644.
          const cut = whole.slice(0, Math.floor(whole.length / 2))
          writeFileSync(`${out}.partial`, cut, { mode: 0o644 })
          writeFileSync(`${out}.partial.json`, DESCRIPTION)
          const run = yield* cli(["--out", out, "--resume", "--page-size", "10"])
          assert.strictEqual(run.exitCode, 0, run.stderr)
          assert.include(run.stderr, "after the ")
          assert.strictEqual(readFileSync(out, "utf8"), whole)
          assert.strictEqual(modeOf(out), 0o640)
          assert.isFalse(existsSync(`${out}.partial`) || existsSync(`${out}.partial.json`))
        })
      ).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))
  })
})

describe("Output.openFile: New and Append", () => {
  const OutputLayer = Layer.succeed(
    Output.Output,
    Output.make({ stdout: capture(false).channel, stderr: capture(false).channel })
  )

  it.live("New: a link put at the name (after its removal) fails the open; the linked file is untouched", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* fs.makeTempDirectoryScoped({ prefix: "spotkit-new-" })
      writeFileSync(`${dir}/precious.txt`, PRECIOUS)
      symlinkSync(`${dir}/precious.txt`, `${dir}/out.csv.partial`)
      const error = yield* Effect.flip(
        Output.openFile(`${dir}/out.csv.partial`, { _tag: "New", permissions: 0o644 })
      )
      assert.strictEqual(error.code, "EEXIST")
      assert.strictEqual(
        error.message,
        `cannot write ${dir}/out.csv.partial: something else created it after it was removed; it was left alone`
      )
      assert.strictEqual(readFileSync(`${dir}/precious.txt`, "utf8"), PRECIOUS)
      assert.isTrue(lstatSync(`${dir}/out.csv.partial`).isSymbolicLink())
    }).pipe(Effect.scoped, Effect.provide([NodeServices.layer, OutputLayer])))

  it.live("New: 0600 under umask 0 while open, `permissions` once closed", () =>
    withUmask(
      0,
      Effect.gen(function*() {
        const fs = yield* FileSystem.FileSystem
        const dir = yield* fs.makeTempDirectoryScoped({ prefix: "spotkit-new-" })
        const file = yield* Output.openFile(`${dir}/out.csv`, { _tag: "New", permissions: 0o644 })
        yield* file.write("a,b\n")
        assert.strictEqual(modeOf(`${dir}/out.csv`), 0o600)
        yield* file.close
        assert.strictEqual(modeOf(`${dir}/out.csv`), 0o644)
        assert.strictEqual(readFileSync(`${dir}/out.csv`, "utf8"), "a,b\n")
      })
    ).pipe(Effect.scoped, Effect.provide([NodeServices.layer, OutputLayer])))

  it.live("Append: a link or another name of a file at the name is refused; the file is untouched", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* fs.makeTempDirectoryScoped({ prefix: "spotkit-append-" })
      const precious = `${dir}/precious.txt`
      writeFileSync(precious, PRECIOUS)
      symlinkSync(precious, `${dir}/linked.partial`)
      linkSync(precious, `${dir}/hard.partial`)
      const opening = { _tag: "Append", length: 3, permissions: 0o600 } as const
      const linked = yield* Effect.flip(Output.openFile(`${dir}/linked.partial`, opening))
      assert.strictEqual(linked.message, `cannot write ${dir}/linked.partial: it is a symbolic link; it was left alone`)
      const hard = yield* Effect.flip(Output.openFile(`${dir}/hard.partial`, opening))
      assert.strictEqual(
        hard.message,
        `cannot write ${dir}/hard.partial: it has other names (hard links); it was left alone`
      )
      assert.strictEqual(readFileSync(precious, "utf8"), PRECIOUS)
    }).pipe(Effect.scoped, Effect.provide([NodeServices.layer, OutputLayer])))
})

// Found in review: `--resume` checked FILE.partial.json by name (`lstat`), then read it by name: a symbolic link put
// there in between was followed, and up to 300 characters of the file it pointed to were quoted in the usage error
// ("holds another export (…)"). The swap is played by a file system whose `lstat` of the description answers what the
// name held when it was checked (a regular file of the user's), while a link to another file is there when it is read.
describe("--resume: a link put at the description after its check by name", () => {
  const SECRET = "SECRET-7f3a: the text of another file, never to be quoted"

  it.live("refused as the link it is (exit code 2); nothing of the file it points to is read out", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* fs.makeTempDirectoryScoped({ prefix: "spotkit-swap-" })
      const out = `${dir}/report.csv`
      const partial = `${out}.partial`
      const meta = `${partial}.json`
      writeFileSync(`${dir}/secret.txt`, SECRET)
      writeFileSync(partial, "id,time\n1,1000\n")
      symlinkSync(`${dir}/secret.txt`, meta)
      const swapped = Layer.succeed(
        FileSystem.FileSystem,
        FileSystem.FileSystem.of({ ...fs, lstat: (path) => fs.lstat(path === meta ? partial : path) })
      )
      const stderr = capture(false)
      const output = Layer.succeed(
        Output.Output,
        Output.make({ stdout: capture(false).channel, stderr: stderr.channel })
      )
      const failure = yield* Effect.flip(
        OutFile.plan(out, {
          resume: true,
          description: { command: "bills export", format: "csv", csvRaw: false, filters: {} },
          keys: { header: "id,time\n", id: { column: 0, field: "id" }, time: { column: 1, field: "time" } }
        })
      ).pipe(Effect.provide([swapped, output]))
      assert.strictEqual(failure._tag, "CliFailure")
      assert.strictEqual(failure._tag === "CliFailure" ? failure.exitCode : undefined, 2)
      assert.include(failure.message, `--resume: ${meta} is not one to continue (it is a symbolic link)`)
      assert.notInclude(failure.message, "SECRET")
      assert.notInclude(stderr.chunks.join(""), "SECRET")
      assert.isTrue(lstatSync(meta).isSymbolicLink(), "left alone")
      assert.strictEqual(readFileSync(`${dir}/secret.txt`, "utf8"), SECRET)
    }).pipe(Effect.scoped, Effect.provide(NodeServices.layer)))
})
