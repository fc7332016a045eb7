// Command-line options, statistics, output and the machine's description, shared by the benchmark entry points.
import type { ChildProcess } from "node:child_process"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import * as os from "node:os"

/** The command-line arguments after the script. */
export const args = process.argv.slice(2)

/** `--quick`: a short run for smoke tests. */
export const quick = args.includes("--quick")

/** The positive integer after `--name`, or the fallback. */
export const option = (name: string, fallback: number): number => {
  const at = args.indexOf(`--${name}`)
  if (at < 0) return fallback
  const value = Number(args[at + 1])
  if (!Number.isSafeInteger(value) || value <= 0) throw new Error(`--${name} takes a positive integer`)
  return value
}

export const median = (xs: ReadonlyArray<number>): number => {
  const s = [...xs].sort((a, b) => a - b)
  const mid = s.length >> 1
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2
}

/** A number with thousands separators. */
export const fmt = (n: number, digits = 0) => n.toLocaleString("en-US", { maximumFractionDigits: digits })

export const log = (line = "") => console.log(line)

const cpuModel = (() => {
  try {
    const line = readFileSync("/proc/cpuinfo", "utf8").split("\n").find((l) => l.startsWith("model name"))
    return line?.split(":")[1]?.trim() ?? os.cpus()[0]?.model ?? "unknown"
  } catch {
    return os.cpus()[0]?.model ?? "unknown"
  }
})()

/** The machine the figures come from, as every result file records it. */
export const machine = {
  cpu: cpuModel,
  nproc: os.availableParallelism(),
  memoryGiB: Math.round(os.totalmem() / 2 ** 30),
  node: process.version,
  v8: process.versions.v8,
  platform: `${process.platform} ${process.arch}`
}

/**
 * Writes a benchmark's full result to bench/results/<name>-<day of its date>.json (`-quick.json` after `--quick`),
 * with the command and arguments that produced it, and answers the file.
 */
export const writeResult = <R extends { readonly date: string }>(name: string, report: R): URL => {
  const dir = new URL("../results/", import.meta.url)
  mkdirSync(dir, { recursive: true })
  const file = new URL(`${name}-${report.date.slice(0, 10)}${quick ? "-quick" : ""}.json`, dir)
  const written = { ...report, command: `pnpm bench${quick ? " --quick" : ""}`, args }
  writeFileSync(file, JSON.stringify(written, null, 2) + "\n")
  return file
}

/** Ends a child process (SIGTERM) and answers once it has exited; at once if it already has. */
export const stop = (child: ChildProcess): Promise<void> =>
  new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    child.once("exit", () => resolve())
    child.kill("SIGTERM")
  })
