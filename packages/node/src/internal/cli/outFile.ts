// Where an export's rows go with `--out FILE`, so that FILE is either a whole export or left as it was: the rows are
// written to `FILE.partial` beside it (with `FILE.partial.json` saying which export they belong to) and renamed onto
// FILE once the last row is written and the file closed. A failure, Ctrl-C or SIGKILL leaves FILE as it was and the
// rows so far in FILE.partial, whole rows only, which `--resume` continues: it reads the rows back, asks the venue for
// the records from the last row's millisecond down (the keyset the client's streams page by: newest first by time)
// and leaves out those of that millisecond already written, so that the finished file equals an uninterrupted export.
// One export at a time writes FILE.partial: `FILE.partial.lock` names the process that does (`lock`).
import { Effect, FileSystem, Option, Result, Stream } from "effect"
import type { Scope } from "effect"
import * as NodeFs from "node:fs"
import { hostname } from "node:os"
import { dirname } from "node:path"
import * as Formats from "../formats.ts"
import * as Output from "../output.ts"
import { type CliFailure, usage } from "./shared.ts"

/** What export a partial file holds: the command, its format and CSV mode, and its filters. */
export interface Description {
  readonly command: string
  readonly format: "csv" | "ndjson"
  readonly csvRaw: boolean
  readonly filters: Readonly<Record<string, string | number | undefined>>
}

/** How an export's rows read back: the CSV header, and the column (CSV) or field (NDJSON) of their id and time. */
export interface Keys {
  readonly header: string
  readonly id: { readonly column: number; readonly field: string }
  readonly time: { readonly column: number; readonly field: string }
}

/** The whole rows of a partial file, and the keyset to continue from. */
export interface Scan {
  /** Bytes of whole records (the header included), and the rows among them. */
  readonly bytes: number
  readonly rows: number
  readonly header: boolean
  /** The time of the last row and the ids of the rows of that millisecond, as written. */
  readonly last: { readonly time: number; readonly ids: ReadonlySet<string> } | undefined
}

/** The destination of an export: stdout, a file written in place (a device, a pipe: no rename), or FILE. */
export type Target =
  | { readonly _tag: "Stdout" }
  | { readonly _tag: "Direct"; readonly path: string }
  | {
    readonly _tag: "File"
    /** What --out named, for messages; `path`: the name the finished file is renamed onto (the same). */
    readonly out: string
    readonly path: string
    readonly partial: string
    readonly meta: string
    /** The existing regular file's permissions, given to the new one (none: a new file, 0600). */
    readonly mode: number | undefined
    /** Whether `out` is a symbolic link, which the finished file replaces (the file it points to left as it is). */
    readonly replacesLink: boolean
    /** With --resume: the rows already in the partial file. */
    readonly resumed: Scan | undefined
  }

/** What `--out` takes for stdout. */
export const STDOUT = "-"

/** The partial file of `path`. */
export const partialOf = (path: string): string => `${path}.partial`

const describe = (description: Description): string => JSON.stringify({ spotkit: 1, ...description }) + "\n"

const NOTHING: Scan = { bytes: 0, rows: 0, header: false, last: undefined }

/**
 * The target of `--out` (`undefined` or `-`: stdout). With `resume`, the partial file is read back (`scan`); it must belong
 * to the same export (command, format and filters), and it and its description must be regular files of the user's
 * (not a symbolic link, no other name), or the command stops with a usage error (exit code 2). Without a partial file
 * to resume, the export starts afresh. An `--out` that is a symbolic link to a regular file (or to nothing) is
 * replaced, as the link it is: the file it points to is never written.
 */
export const plan = (
  out: string | undefined,
  options: { readonly resume: boolean; readonly description: Description; readonly keys: Keys }
): Effect.Effect<Target, Output.OutputError | CliFailure, FileSystem.FileSystem | Output.Output | Scope.Scope> =>
  Effect.gen(function*() {
    // `-` is stdout, as for other Unix tools (`./-` names a file called -).
    if (out === undefined || out === STDOUT) {
      return options.resume ? yield* usage("--resume needs --out FILE") : { _tag: "Stdout" }
    }
    const fs = yield* FileSystem.FileSystem
    const link = yield* Effect.option(fs.lstat(out))
    // What a symbolic link points to: a device or a pipe (`/dev/stdout`) is written in place, through the link.
    const info = Option.isSome(link) && link.value.type === "SymbolicLink" ? yield* Effect.option(fs.stat(out)) : link
    // A directory, or a file in a directory that is not there: the user's --out, said before anything is asked.
    if (Option.isSome(info) && info.value.type === "Directory") {
      return yield* usage(`--out: ${out} is a directory; give a file's name (in it, or elsewhere)`)
    }
    if (Option.isSome(info) && info.value.type !== "File") {
      if (options.resume) return yield* usage(`--resume: ${out} is not a regular file`)
      return { _tag: "Direct", path: out }
    }
    if (Option.isNone(link)) {
      const directory = dirname(out)
      const found = yield* Effect.option(fs.stat(directory))
      if (Option.isNone(found)) return yield* usage(`--out: directory ${directory} does not exist`)
      if (found.value.type !== "Directory") return yield* usage(`--out: ${directory} is not a directory`)
    }
    // Beside --out, and renamed onto it: a symbolic link there is replaced, the file it points to left alone.
    const partial = partialOf(out)
    const meta = `${partial}.json`
    const mode = Option.isSome(link) && link.value.type === "File" ? link.value.mode & 0o7777 : undefined
    const replacesLink = Option.isSome(link) && link.value.type === "SymbolicLink"
    const target = { _tag: "File", out, path: out, partial, meta, mode, replacesLink, resumed: undefined } as const
    yield* lock(partial)
    if (!options.resume) return target
    // Only a partial file and description of the user's are read back and written to: in a directory others can
    // write, someone could have put a link to another file there, or a file of theirs.
    const refused = (name: string, problem: string) =>
      usage(
        `--resume: ${name} is not one to continue (${problem}); it was left alone: remove it, or leave out ` +
          "--resume to start afresh"
      )
    const found = yield* Effect.option(fs.lstat(partial))
    const problem = Option.isNone(found) ? undefined : Output.notOwnFile(
      found.value.type === "File" || found.value.type === "SymbolicLink" ? found.value.type : "Other",
      Option.getOrUndefined(Option.map(found.value.nlink, Number)),
      Option.getOrUndefined(found.value.uid)
    )
    if (problem !== undefined) return yield* refused(partial, problem)
    // The description is quoted when it describes another export: it is read through the descriptor it is checked on
    // (a link put there after a check by name could have had another file quoted).
    const said = yield* Output.readOwnFile(meta)
    if (said._tag === "Refused") return yield* refused(meta, said.problem)
    const hasRows = yield* Effect.orElseSucceed(fs.exists(partial), () => false)
    if (said._tag === "Unread") {
      return hasRows
        ? yield* usage(`--resume: nothing says which export ${partial} holds (no ${meta}); run without --resume`)
        : target
    }
    // A description without rows (a kill between removing an earlier export's rows and describing this one) holds
    // nothing to continue, nor to protect: the export starts afresh.
    if (hasRows && said.text !== describe(options.description)) {
      return yield* usage(
        `--resume: ${partial} holds another export (${said.text.trim().slice(0, 300)}); give the same command, ` +
          "format and filters, or leave out --resume to start afresh"
      )
    }
    return { ...target, resumed: hasRows ? yield* scan(partial, options.description.format, options.keys) : NOTHING }
  })

/**
 * Holds `PARTIAL.lock` for the export's scope: created exclusively, it names this process (host and pid), and goes
 * when the export ends however it ends. Another export to the same FILE running meanwhile would remove this one's
 * rows, or add its own to them, and this one would then rename a file it did not write onto FILE and report success:
 * so a lock held by a live process stops the command with a usage error (exit code 2), FILE.partial left alone. A lock
 * left by a process that is gone (SIGKILL, a crash) on this host is taken over; one from another host, or that cannot
 * be read, is named so that the user can remove it.
 */
const lock = (
  partial: string
): Effect.Effect<void, Output.OutputError | CliFailure, FileSystem.FileSystem | Output.Output | Scope.Scope> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = `${partial}.lock`
    const host = hostname()
    const mine = JSON.stringify({ pid: process.pid, host }) + "\n"
    const create = fs.writeFileString(path, mine, { flag: "wx", mode: PRIVATE })
    const taken = yield* Effect.result(create)
    // Not there to be created for another reason than a lock (a directory not writable): a failure to write.
    if (Result.isFailure(taken) && taken.failure.reason._tag !== "AlreadyExists") {
      return yield* Effect.fail(Output.outputError(path, taken.failure))
    }
    if (Result.isFailure(taken)) {
      const holder = yield* readLock(path)
      const parsed = Result.try(() => JSON.parse(holder) as unknown)
      const value = Result.isSuccess(parsed) ? parsed.success : undefined
      const pid = typeof value === "object" && value !== null ? Reflect.get(value, "pid") : undefined
      const on = typeof value === "object" && value !== null ? Reflect.get(value, "host") : undefined
      const alive = Number.isSafeInteger(pid) && pid > 0 && on === host ? running(pid as number) : undefined
      const who = alive === undefined ? `${path} names no process of this machine` : `process ${pid} holds ${path}`
      if (alive !== false) {
        return yield* usage(
          `--out: another export is writing ${partial} (${who}); wait for it to end, or stop it` +
            (alive === undefined ? `; if none runs, remove ${path}` : "")
        )
      }
      // Its process is gone: the lock is taken over, created exclusively again (an export that created it in between
      // wins; two that found the same gone process in the same instant could both take it, which is left).
      yield* remove(path)
      yield* create.pipe(
        Effect.catch(() => usage(`--out: another export took ${partial} just now; wait for it to end, or stop it`))
      )
    }
    yield* Effect.addFinalizer(() => Effect.ignore(fs.remove(path, { force: true })))
  })

// The most a lock holds: one line of JSON naming a process.
const LOCK_BYTES = 4096

// A lock's text, or "" when it is no regular file of at most `LOCK_BYTES` (then it names no process, and the user is
// told to remove it). Opened without following a link and without blocking, then checked: a FIFO planted under the
// lock's name (in a shared directory, by another user) would otherwise block the read, and the export, for good, and
// a link to `/dev/zero` or a huge file would be read whole into memory.
const readLock = (path: string): Effect.Effect<string> =>
  Effect.callback<string>((resume) => {
    const { O_NOFOLLOW = 0, O_NONBLOCK = 0, O_RDONLY } = NodeFs.constants
    NodeFs.open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK, (opening, fd) => {
      if (opening !== null) return resume(Effect.succeed(""))
      const done = (text: string) => NodeFs.close(fd, () => resume(Effect.succeed(text)))
      NodeFs.fstat(fd, (statting, stats) => {
        if (statting !== null || !stats.isFile() || stats.size > LOCK_BYTES) return done("")
        const buffer = Buffer.alloc(LOCK_BYTES)
        NodeFs.read(fd, buffer, 0, LOCK_BYTES, 0, (reading, bytes) =>
          done(reading === null ? buffer.toString("utf8", 0, bytes) : ""))
      })
    })
  })

// Whether a process of this machine runs: signal 0 checks without sending anything (EPERM: it runs, as another user).
const running = (pid: number): boolean => {
  const checked = Result.try(() => process.kill(pid, 0))
  return Result.isSuccess(checked) || Reflect.get(checked.failure as object, "code") === "EPERM"
}

/** Reads a partial file back, chunk by chunk: its whole records, and the keyset of its last rows (`Scan`). */
export const scan = (path: string, format: "csv" | "ndjson", keys: Keys) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const reader = format === "csv" ? csvScanner(keys) : ndjsonScanner(keys)
    const decoder = new TextDecoder()
    yield* fs.stream(path).pipe(
      Stream.runForEach((chunk) => Effect.sync(() => reader.read(decoder.decode(chunk, { stream: true })))),
      Effect.mapError((error) => Output.outputError(path, error))
    )
    const result = reader.result()
    if ("error" in result) {
      return yield* usage(`--resume: ${path} is not a partial export of this kind: ${result.error}`)
    }
    return result
  })

interface Scanner {
  readonly read: (text: string) => void
  readonly result: () => Scan | { readonly error: string }
}

// Rows and the last millisecond's ids, as the records are read; the first problem found.
const tally = (keys: Keys) => {
  let rows = 0
  let last: { time: number; ids: Set<string> } | undefined
  let problem: string | undefined
  return {
    row: (time: unknown, id: unknown) => {
      if (problem !== undefined) return
      const millis = typeof time === "string" && /^\d{1,15}$/.test(time) ? Number(time) : time
      if (typeof millis !== "number" || !Number.isSafeInteger(millis) || typeof id !== "string") {
        problem = `row ${rows + 1} has no ${keys.time.field} and ${keys.id.field}`
        return
      }
      rows++
      if (last === undefined || last.time !== millis) last = { time: millis, ids: new Set() }
      last.ids.add(id)
    },
    fail: (text: string) => void (problem ??= text),
    result: (bytes: number, header: boolean): Scan | { readonly error: string } =>
      problem !== undefined ? { error: problem } : { bytes, rows, header, last }
  }
}

const csvScanner = (keys: Keys): Scanner => {
  const reader = new Formats.CsvReader()
  const rows = tally(keys)
  let header = false
  return {
    read: (text) =>
      reader.read(text, (fields) => {
        if (!header) {
          header = true
          if (Formats.csv([fields], { safe: false, terminal: false }) !== keys.header) {
            rows.fail("its first line is not this export's header")
          }
          return
        }
        rows.row(fields[keys.time.column], fields[keys.id.column])
      }),
    result: () => rows.result(reader.complete, header)
  }
}

const ndjsonScanner = (keys: Keys): Scanner => {
  const rows = tally(keys)
  const encoder = new TextEncoder()
  let bytes = 0
  let line = ""
  return {
    // A line ends at its line break (JSON text has none inside); a line cut by a kill has none, and is not read.
    read: (text) => {
      let start = 0
      for (let end = text.indexOf("\n"); end !== -1; end = text.indexOf("\n", start)) {
        const whole = line + text.slice(start, end)
        line = ""
        start = end + 1
        bytes += encoder.encode(whole).length + 1
        const parsed = Result.try(() => JSON.parse(whole) as unknown)
        const value = Result.isSuccess(parsed) ? parsed.success : undefined
        if (typeof value !== "object" || value === null) rows.fail("a line is not a JSON object")
        else rows.row(Reflect.get(value, keys.time.field), Reflect.get(value, keys.id.field))
      }
      line += text.slice(start)
    },
    result: () => rows.result(bytes, false)
  }
}

/**
 * Opens the target for the rows (once the venue answered the first page): FILE.partial created afresh, 0600 (its
 * description beside it), or cut back to its whole records and appended to when resumed; the CSV `header` written
 * when the file has none. A partial file not resumed is removed first and created only if nothing took its name
 * meanwhile (a symbolic link put there makes the export fail, never write through it); the description too.
 */
export const open = (
  target: Exclude<Target, { readonly _tag: "Stdout" }>,
  description: Description,
  header: string | undefined
) =>
  Effect.gen(function*() {
    if (target._tag === "Direct") {
      const file = yield* Output.openFile(target.path)
      if (header !== undefined) yield* file.write(header)
      return file
    }
    const fs = yield* FileSystem.FileSystem
    const resumed = target.resumed
    const permissions = target.mode ?? PRIVATE
    if (resumed !== undefined && resumed.bytes > 0) {
      // Cut back to its whole records (checked again through what was opened: the name may have changed since).
      const file = yield* Output.openFile(target.partial, { _tag: "Append", length: resumed.bytes, permissions })
      if (header !== undefined && !resumed.header) yield* file.write(header)
      return file
    }
    const tmp = `${target.meta}.tmp`
    // The old rows first: a description of this export never sits beside another export's rows.
    yield* remove(target.partial)
    // Written whole or not at all (a kill may come at any time), before the first row.
    yield* remove(tmp)
    yield* fs.writeFileString(tmp, describe(description), { flag: "wx", mode: PRIVATE }).pipe(
      Effect.andThen(fs.rename(tmp, target.meta)),
      Effect.mapError((error) => Output.outputError(target.meta, error))
    )
    const file = yield* Output.openFile(target.partial, { _tag: "New", permissions })
    if (header !== undefined) yield* file.write(header)
    return file
  })

/** A partial export's files: readable and writable by the user alone, until the finished file gets FILE's. */
const PRIVATE = 0o600

// A name removed (a symbolic link itself, not what it points to), if there is one.
const remove = (path: string) =>
  Effect.flatMap(
    Effect.service(FileSystem.FileSystem),
    (fs) => fs.remove(path, { force: true }).pipe(Effect.mapError((error) => Output.outputError(path, error)))
  )

/**
 * The finished partial file (closed: it then has FILE's permissions if FILE was a regular file, 0600 otherwise)
 * becomes FILE; its description goes. A symbolic link at FILE is replaced, not what it points to.
 */
export const commit = (target: Extract<Target, { readonly _tag: "File" }>) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    yield* fs.rename(target.partial, target.path).pipe(
      Effect.mapError((error) => Output.outputError(target.path, error))
    )
    yield* Effect.ignore(fs.remove(target.meta, { force: true }))
  })
