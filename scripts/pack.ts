// `pnpm pack:all`: the three public packages as the tarballs npm would publish, in ./packages-dist (gitignored), to
// install before they are published: `npm install ./packages-dist/*.tgz effect @effect/platform-node`.
//
// Builds them from a clean dist (tsc -b), then `pnpm pack`s each, which writes the tarball npm publishes with the
// workspace versions made real (`workspace:^` becomes `^0.1.0`). `scripts/installable.ts` packs the same way, then
// installs the tarballs into a fresh project and checks them.
import { spawnSync } from "node:child_process"
import { existsSync, mkdirSync, rmSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"

/** The public packages, in dependency order. */
export const PACKAGES = ["core", "node", "testkit"] as const

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..")

const run = (command: string, args: ReadonlyArray<string>, cwd: string): string => {
  const result = spawnSync(command, args, { cwd, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 })
  if (result.status !== 0) {
    throw new Error(
      `${command} ${args.join(" ")} (in ${cwd}) exited with ${result.status ?? result.signal}\n` +
        `${result.stdout ?? ""}${result.stderr ?? ""}${result.error === undefined ? "" : String(result.error)}`
    )
  }
  return result.stdout
}

/** Builds the packages from a clean dist. */
export const build = (): void => {
  for (const name of PACKAGES) {
    rmSync(join(root, "packages", name, "dist"), { recursive: true, force: true })
    rmSync(join(root, "packages", name, "build", "dist.tsbuildinfo"), { force: true })
  }
  run(process.execPath, [
    join(root, "node_modules/typescript/bin/tsc"),
    "-b",
    ...PACKAGES.map((name) => `packages/${name}/tsconfig.build.json`)
  ], root)
}

/** Packs the built packages into `destination`: one tarball each, as npm would publish it. */
export const pack = (destination: string): Array<{ readonly name: string; readonly file: string }> => {
  mkdirSync(destination, { recursive: true })
  return PACKAGES.map((name) => {
    const stdout = run("pnpm", ["pack", "--pack-destination", destination], join(root, "packages", name))
    const file = stdout.trim().split("\n").map((line) => line.trim()).find((line) => line.endsWith(".tgz"))
    if (file === undefined || !existsSync(file)) throw new Error(`pnpm pack printed no tarball for ${name}: ${stdout}`)
    return { name, file }
  })
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const destination = join(root, "packages-dist")
  rmSync(destination, { recursive: true, force: true })
  build()
  const tarballs = pack(destination)
  const files = tarballs.map(({ file }) => `./${relative(process.cwd(), file)}`)
  process.stdout.write(`${files.join("\n")}\n`)
  process.stderr.write(`[pack] install them with:\n  npm install ${files.join(" ")} effect @effect/platform-node\n`)
}
