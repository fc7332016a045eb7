// Paired A/B of an in-process operation across source trees (checkouts of the repository at different commits), in
// one run: one worker process per tree and mode (worker.ts), blocks of N operations alternating between them, CPU
// time per operation per block, medians and the ratio of each tree to the first in every round. A busy machine slows
// every contestant of a round alike, so the paired ratios hold where single figures wander.
//
//   node --conditions=@spotkit/source bench/src/ab/ab.ts --trees /work/base,/work/main [--mode client|raw|both]
//        [--rounds 30] [--block 500] [--warmup 4] [--options '[{}, {"timeoutBy":"transport"}]']
//
// `--options` gives each tree (in order) the client's options as JSON, so that one tree can be its own variant:
// `--trees /work/main,/work/main --options '[{}, {"retry":false}]'`.
import { fork } from "node:child_process"
import { existsSync } from "node:fs"
import { join } from "node:path"

const option = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`)
  return i === -1 ? fallback : process.argv[i + 1]!
}
const trees = option("trees", "").split(",").filter(Boolean)
const modes = option("mode", "client") === "both" ? ["raw", "client"] : [option("mode", "client")]
const rounds = Number(option("rounds", "30"))
const block = Number(option("block", "500"))
const warmup = Number(option("warmup", "4"))
const variants: ReadonlyArray<unknown> = JSON.parse(option("options", "[]"))

interface Worker {
  readonly name: string
  readonly run: (n: number) => Promise<{ readonly cpuMs: number; readonly wallMs: number }>
  readonly stop: () => void
}

const start = (tree: string, index: number, mode: string): Promise<Worker> =>
  new Promise((resolve, reject) => {
    const script = join(tree, "bench", "src", "ab", "worker.ts")
    // A tree from before these files were added gets copies of them (the worker imports the shared baseline).
    const needed = [script, join(tree, "bench", "src", "inProcess.ts")]
    const missing = needed.find((file) => !existsSync(file))
    if (missing !== undefined) {
      return reject(new Error(`${missing} is missing: copy bench/src/ab/worker.ts and bench/src/inProcess.ts there`))
    }
    const child = fork(script, [mode], {
      cwd: join(tree, "bench"),
      execArgv: ["--conditions=@spotkit/source", "--expose-gc"],
      env: { ...process.env, SPOTKIT_AB_OPTIONS: JSON.stringify(variants[index] ?? {}) },
      stdio: ["ignore", "inherit", "inherit", "ipc"]
    })
    let pending: ((value: { cpuMs: number; wallMs: number }) => void) | undefined
    child.on("exit", (code) => {
      if (code !== null && code !== 0) {
        console.error(`${tree}:${mode} exited with ${code}`)
        process.exit(1)
      }
    })
    child.on("message", (message: { ready?: boolean; error?: string; cpuMs?: number; wallMs?: number }) => {
      if (message.ready) {
        resolve({
          name: `${tree.split("/").pop()}${variants[index] === undefined ? "" : `#${index}`}:${mode}`,
          run: (n) =>
            new Promise((done) => {
              pending = done
              child.send({ n })
            }),
          stop: () => child.kill()
        })
      } else if (message.error !== undefined) {
        console.error(`${tree}:${mode}: ${message.error}`)
        process.exit(1)
      } else {
        pending?.({ cpuMs: message.cpuMs!, wallMs: message.wallMs! })
      }
    })
  })

const median = (values: ReadonlyArray<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

const main = async () => {
  const workers: Array<Worker> = []
  const started: Array<[string, number, string]> = []
  for (const mode of modes) trees.forEach((tree, index) => started.push([tree, index, mode]))
  for (const [tree, index, mode] of started) workers.push(await start(tree, index, mode))
  for (let i = 0; i < warmup; i++) for (const worker of workers) await worker.run(block)
  const cpu = workers.map(() => [] as Array<number>)
  for (let round = 0; round < rounds; round++) {
    // Rotate who goes first, so that no contestant always follows the same one.
    for (let k = 0; k < workers.length; k++) {
      const w = (k + round) % workers.length
      cpu[w]!.push((await workers[w]!.run(block)).cpuMs * 1000 / block)
    }
  }
  for (const worker of workers) worker.stop()
  const modeOf = (w: number) => workers[w]!.name.split(":")[1]!
  const ratioText = (ratios: Array<number>) => {
    const sorted = [...ratios].sort((a, b) => a - b)
    const q = (p: number) => sorted[Math.floor(p * (sorted.length - 1))]!
    return `${median(sorted).toFixed(3)} (IQR ${q(0.25).toFixed(3)}–${q(0.75).toFixed(3)})`
  }
  console.log(
    `paired A/B: ${rounds} rounds of ${block} operations each; CPU µs per operation, medians; ratios per round`
  )
  workers.forEach((worker, w) => {
    // Against the first tree in the same mode, and (client) against the raw protocol of the same tree.
    const reference = workers.findIndex((_, r) => modeOf(r) === modeOf(w))
    const raw = workers.findIndex((other) => other.name === worker.name.replace(/:client$/, ":raw"))
    const vsFirst = ratioText(cpu[w]!.map((value, round) => value / cpu[reference]![round]!))
    const vsRaw = raw === -1 || raw === w
      ? ""
      : `   ÷ own raw: ${ratioText(cpu[w]!.map((value, round) => value / cpu[raw]![round]!))}`
    console.log(
      `${worker.name.padEnd(24)} ${median(cpu[w]!).toFixed(1).padStart(7)} µs   ÷ ${
        workers[reference]!.name
      }: ${vsFirst}${vsRaw}`
    )
  })
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
