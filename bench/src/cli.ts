// Command-line options and statistics shared by the benchmark entry points.

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
