// The CLI's output layer: the only code of the package that writes to the terminal or to files, and the one place
// where the credentials are removed from what is written. Every write respects backpressure (it resumes on `drain`),
// so a million-row export to a slow pipe or disk holds at most one stream buffer in memory, and every write is a whole
// piece of text (whole rows), so what reaches a file is always complete rows, also when Ctrl-C stops an export. Once a
// command has its credentials (`protect`), every text written to stdout, stderr or a file (data too: a venue could
// echo a credential in an id) passes through their scrubber, which removes them in any encoding. Log lines too
// (`layerLogger`): each is one printable line on stderr, control characters and terminal escapes written as escapes.
import { SafeText } from "@spotkit/core"
import type { Signer } from "@spotkit/core"
import { Cause, Context, Data, Effect, Formatter, Layer, Logger, References } from "effect"
import type { Scope } from "effect"
import {
  close as fsClose,
  constants,
  createWriteStream,
  fchmod,
  fstat,
  ftruncate,
  open as fsOpen,
  readFile
} from "node:fs"
import type { Stats, WriteStream } from "node:fs"
import type { Writable } from "node:stream"

/** Writing failed: the file cannot be opened or written, or the reader of stdout went away (`code` "EPIPE"). */
export class OutputError extends Data.TaggedError("OutputError")<{
  readonly message: string
  readonly code: string | undefined
}> {}

/** Writing `what` failed for `cause` (an `Error`, a platform error, a Node error with a `code`). */
export const outputError = (what: string, cause: unknown): OutputError => {
  const code = typeof cause === "object" && cause !== null && "code" in cause && typeof cause.code === "string"
    ? cause.code
    : undefined
  const detail = cause instanceof Error ? cause.message : String(cause)
  return new OutputError({ message: `cannot write ${what}: ${detail}`, code })
}

export interface Channel {
  readonly write: (text: string) => Effect.Effect<void, OutputError>
  /** Whether a person is watching (a terminal), for progress lines and for what may reach a terminal. */
  readonly isTTY: boolean
}

/** Writes to a Node stream, waiting for `drain` when its buffer is full; an error event fails the next write. */
const channelOf = (stream: Writable, what: string, isTTY: boolean): Channel => {
  let failure: OutputError | undefined
  stream.on("error", (cause) => {
    failure ??= outputError(what, cause)
  })
  const write = (text: string) =>
    Effect.callback<void, OutputError>((resume) => {
      if (failure !== undefined) return resume(Effect.fail(failure))
      if (stream.write(text)) return resume(Effect.void)
      const cleanup = () => {
        stream.off("drain", onDrain)
        stream.off("error", onError)
      }
      const onDrain = () => {
        cleanup()
        resume(Effect.void)
      }
      const onError = (cause: unknown) => {
        cleanup()
        resume(Effect.fail(failure ?? outputError(what, cause)))
      }
      stream.once("drain", onDrain)
      stream.once("error", onError)
      return Effect.sync(cleanup)
    })
  return { write, isTTY }
}

/**
 * A value with `redact` applied to every string in it (plain objects and arrays walked), for data before it is
 * formatted: a quoting format (CSV doubles a `"`, JSON escapes it) could hide an echoed credential from a scrubber
 * of the text. The same value when no string changes.
 */
export const redactStrings = <A>(value: A, redact: (text: string) => string): A => {
  const texts: Array<string> = []
  const deep = collectStrings(value, texts, 0)
  const probe = texts.join("\u0000")
  return !deep && redact(probe) === probe ? value : mapStrings(value, redact, 0) as A
}

// Values nested deeper than this (a venue's unknown field, 20,000 arrays deep in 40 KB) are shown as `TOO_DEEP`:
// walking them, or writing them as JSON, would overflow the stack. Nothing the venue documents comes near.
const MAX_DEPTH = 64
const TOO_DEEP = `<nested deeper than ${MAX_DEPTH} levels>`

const isPlain = (value: object): boolean => {
  const prototype: unknown = Object.getPrototypeOf(value)
  return prototype === Object.prototype || prototype === null
}

const isNested = (value: unknown): value is object =>
  Array.isArray(value) || (typeof value === "object" && value !== null && isPlain(value))

// The strings of a value, into `into`; whether it holds a value nested deeper than `MAX_DEPTH`.
const collectStrings = (value: unknown, into: Array<string>, depth: number): boolean => {
  if (typeof value === "string") {
    into.push(value)
    return false
  }
  if (!isNested(value)) return false
  if (depth >= MAX_DEPTH) return true
  let deep = false
  for (const item of Array.isArray(value) ? value : Object.values(value)) {
    if (collectStrings(item, into, depth + 1)) deep = true
  }
  return deep
}

const mapStrings = (value: unknown, redact: (text: string) => string, depth: number): unknown => {
  if (typeof value === "string") return redact(value)
  if (!isNested(value)) return value
  if (depth >= MAX_DEPTH) return TOO_DEEP
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, redact, depth + 1))
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, mapStrings(item, redact, depth + 1)]))
}

/**
 * Standard output (data) and standard error (diagnostics), both through the scrubber of the credentials once they are
 * known; files are opened through it too (`openFile`). Data (standard output, files, values passed through
 * `redacted`) is scrubbed as data (`SafeText.Scrubber.scrubData`: a credential as a whole token, one that looks like a
 * number only where labelled), so that the venue's amounts, ids and times are printed exactly even when a
 * credential's characters occur in them (a passphrase of digits); diagnostics in full.
 */
export class Output extends Context.Service<Output, {
  readonly stdout: Channel
  readonly stderr: Channel
  /** Removes the credentials from a diagnostic text: the identity until `protect`. */
  readonly redact: (text: string) => string
  /** Removes the credentials from a text of data, leaving the data exact (`SafeText.Scrubber.scrubData`). */
  readonly redactData: (text: string) => string
  /** From now on, every text written (and every value passed through `redacted`) has these credentials removed. */
  readonly protect: (credentials: Signer.Credentials) => Effect.Effect<void>
}>()("@spotkit/node/internal/output/Output") {}

/** The service over two raw channels: every write passes through the current scrubber. */
export const make = (channels: { readonly stdout: Channel; readonly stderr: Channel }): Output["Service"] => {
  let scrubber: SafeText.Scrubber | undefined
  const redact = (text: string) => scrubber === undefined ? text : scrubber.scrub(text)
  const redactData = (text: string) => scrubber === undefined ? text : scrubber.scrubData(text)
  return {
    stdout: redacting(channels.stdout, redactData),
    stderr: redacting(channels.stderr, redact),
    redact,
    redactData,
    protect: (credentials) =>
      Effect.sync(() => {
        scrubber = SafeText.Scrubber.of(credentials)
      })
  }
}

const redacting = <C extends Channel>(channel: C, redact: (text: string) => string): C => ({
  ...channel,
  write: (text: string) => channel.write(redact(text))
})

/** The process's stdout and stderr. */
export const layerProcess: Layer.Layer<Output> = Layer.sync(Output, () =>
  make({
    stdout: channelOf(process.stdout, "to standard output", process.stdout.isTTY === true),
    stderr: channelOf(process.stderr, "to standard error", process.stderr.isTTY === true)
  }))

// How long one log line may be: a library's line quoting a venue is cut well before; this bounds the rest (a cause
// with its stack, a large annotation).
const LOG_LINE = 4000

const two = (n: number) => String(n).padStart(2, "0")

/**
 * A log entry as the one line the CLI writes (without its newline), in the default logger's words: `[12:00:00.000]
 * WARN (#16): the message, other values as JSON`, the log spans, the cause, the annotations.
 */
export const logLine = ({ cause, date, fiber, logLevel, message }: Logger.Options<unknown>): string => {
  const parts = (Array.isArray(message) ? message : [message]).map((part: unknown) =>
    typeof part === "string" ? part : Formatter.format(part)
  )
  const now = date.getTime()
  const spans = Array.from(fiber.getRef(References.CurrentLogSpans), ([label, start]) => ` ${label}=${now - start}ms`)
  if (cause.reasons.length > 0) parts.push(Cause.pretty(cause))
  const annotations = fiber.getRef(References.CurrentLogAnnotations)
  if (Object.keys(annotations).length > 0) parts.push(Formatter.format(annotations))
  const time = `${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}.${
    String(date.getMilliseconds()).padStart(3, "0")
  }`
  return `[${time}] ${logLevel.toUpperCase()} (#${fiber.id})${spans.join("")}: ${parts.join(" ")}`
}

/**
 * The CLI's logger, in place of the default one (which writes to the console as it is): every log line on stderr
 * through `Output`, so with the credentials removed once they are known, and as one printable line (`logLine`, then
 * `SafeText.printable`: no control character, no terminal escape, no line break reaches the terminal from a log).
 */
export const layerLogger: Layer.Layer<never, never, Output> = Layer.unwrap(Effect.map(
  Effect.service(Output),
  ({ redact, stderr }) =>
    Logger.layer([Logger.make((options) => {
      // Scrubbed before it is cut (no fragment of a secret survives at the cut; `stderr` scrubs it again, to no
      // effect). A logger is synchronous: the write starts now, in order with every other line, and ends on its own.
      Effect.runFork(Effect.ignore(stderr.write(`${SafeText.printable(redact(logLine(options)), LOG_LINE)}\n`)))
    })])
))

/** Data with the credentials removed from every text in it (`redactStrings`, as data), before it is formatted. */
export const redacted = <A>(value: A): Effect.Effect<A, never, Output> =>
  Effect.map(Effect.service(Output), ({ redactData }) => redactStrings(value, redactData))

/** A file being written: a `Channel` that can also be closed, which says whether everything written reached it. */
export interface FileChannel extends Channel {
  /**
   * Ends the file and waits until it is closed. Writes to a file are buffered, so a failure of the last ones (a full
   * disk) only shows now: it fails here rather than going unnoticed.
   */
  readonly close: Effect.Effect<void, OutputError>
  /**
   * Ends the file as it is, unfinished (its permissions as they were: `close` gives the final ones), and waits until
   * it is closed: whether every write made reached it (false: one failed, and what the file holds is to be read back).
   */
  readonly end: Effect.Effect<boolean>
}

// Ends the stream if nobody did and waits for its `close`: every write made has then reached the file or failed.
const ended = (stream: WriteStream) =>
  Effect.callback<void>((resume) => {
    if (stream.closed) return resume(Effect.void)
    const onClose = () => resume(Effect.void)
    stream.once("close", onClose)
    if (!stream.writableEnded && !stream.destroyed) stream.end()
    return Effect.sync(() => stream.off("close", onClose))
  })

/**
 * How `openFile` opens a file.
 * - `InPlace`: created or truncated where it is, a symbolic link followed (a device, a pipe, `/dev/stdout`).
 * - `New`: created, only if nothing has the name (not even a symbolic link: `O_CREAT | O_EXCL`), readable and
 *   writable by the user alone (0600) whatever the umask.
 * - `Append`: an existing regular file of the user's with no other name, opened without following a symbolic link
 *   (`O_NOFOLLOW`), cut back to `length` bytes and appended to; made 0600 too.
 * `New` and `Append` files get `permissions` when closed (`close`), not before.
 */
export type Opening =
  | { readonly _tag: "InPlace" }
  | { readonly _tag: "New"; readonly permissions: number }
  | { readonly _tag: "Append"; readonly length: number; readonly permissions: number }

/** The permissions of a file being written. */
const PRIVATE = 0o600

/**
 * Why an existing file is not one to write into in place (`undefined`: it is): a symbolic link, not a regular file,
 * another name of the same file (a hard link, which another user could have made to a file of ours), or a file of
 * another user. From `lstat` (or `fstat`): its type, its link count, its owner.
 */
export const notOwnFile = (
  type: "File" | "SymbolicLink" | "Other",
  links: number | undefined,
  uid: number | undefined
): string | undefined => {
  if (type === "SymbolicLink") return "it is a symbolic link"
  if (type !== "File") return "it is not a regular file"
  if (links !== undefined && links > 1) return "it has other names (hard links)"
  const own = process.getuid?.()
  if (uid !== undefined && own !== undefined && uid !== own) return "it belongs to another user"
  return undefined
}

/**
 * A file opened for writing for the scope (`Opening`; `InPlace` when not said). Closing it flushes every write made;
 * an interrupted export therefore leaves every row it wrote, and only whole rows. Writes pass through the scrubber of
 * the credentials.
 */
export const openFile = (
  path: string,
  opening: Opening = { _tag: "InPlace" }
): Effect.Effect<FileChannel, OutputError, Output | Scope.Scope> =>
  Effect.flatMap(
    Effect.service(Output),
    ({ redactData }) => Effect.map(open(path, opening), (file) => redacting(file, redactData))
  )

const flagsOf = (opening: Opening): string | number => {
  switch (opening._tag) {
    case "InPlace":
      return "w"
    case "New":
      return "wx"
    case "Append": {
      // Where the platform has them: no symbolic link followed, and a FIFO put in its place does not block the open.
      const { O_APPEND, O_NOFOLLOW, O_NONBLOCK, O_WRONLY } = constants
      return O_WRONLY | O_APPEND | (O_NOFOLLOW ?? 0) | (O_NONBLOCK ?? 0)
    }
  }
}

const openError = (path: string, opening: Opening, cause: unknown): OutputError => {
  const error = outputError(path, cause)
  if (opening._tag === "New" && error.code === "EEXIST") {
    return new OutputError({
      message: `cannot write ${path}: something else created it after it was removed; it was left alone`,
      code: error.code
    })
  }
  if (opening._tag === "Append" && (error.code === "ELOOP" || error.code === "EMLINK")) {
    return new OutputError({
      message: `cannot write ${path}: it is a symbolic link; it was left alone`,
      code: error.code
    })
  }
  return error
}

// Node's callback API as an effect failing with an OutputError about `path`.
const call = <A>(path: string, run: (done: (error: Error | null, value?: A) => void) => void) =>
  Effect.callback<A | undefined, OutputError>((resume) => {
    run((error, value) => resume(error === null ? Effect.succeed(value) : Effect.fail(outputError(path, error))))
  })

// An `Append` file checked through its descriptor (what was opened, not what the name holds now), cut and made 0600.
const prepare = (fd: number, path: string, opening: Opening): Effect.Effect<void, OutputError> =>
  opening._tag !== "Append" ? Effect.void : Effect.gen(function*() {
    const info = yield* call<Stats>(path, (done) => fstat(fd, done))
    const problem = info === undefined ? "it cannot be examined" : notOwnFile(
      info.isFile() ? "File" : "Other",
      info.nlink,
      info.uid
    )
    if (problem !== undefined) {
      return yield* new OutputError({ message: `cannot write ${path}: ${problem}; it was left alone`, code: undefined })
    }
    yield* call<void>(path, (done) => ftruncate(fd, opening.length, done))
    yield* call<void>(path, (done) => fchmod(fd, PRIVATE, done))
  })

/**
 * What `readOwnFile` found: the text of a regular file of the user's, a file that is not one (`problem`: `notOwnFile`'s
 * words), or nothing read (no file of that name, or one that could not be opened or read).
 */
export type OwnFile =
  | { readonly _tag: "Read"; readonly text: string }
  | { readonly _tag: "Refused"; readonly problem: string }
  | { readonly _tag: "Unread" }

const UNREAD: OwnFile = { _tag: "Unread" }
const refusedAs = (problem: string): OwnFile => ({ _tag: "Refused", problem })
const readAs = (text: string): OwnFile => ({ _tag: "Read", text })

/**
 * A file of the user's read whole (UTF-8) through one descriptor: opened without following a symbolic link
 * (`O_NOFOLLOW`: a link at the name fails the open) nor blocking on a FIFO, and checked through that descriptor
 * (`fstat`: a regular file of the user's with no other name) before anything is read, so that what is read is what was
 * checked, whatever the name holds by then. Nothing of a file refused is read.
 */
export const readOwnFile = (path: string): Effect.Effect<OwnFile> =>
  Effect.acquireUseRelease(
    Effect.callback<number | OwnFile>((resume) => {
      const { O_NOFOLLOW, O_NONBLOCK, O_RDONLY } = constants
      fsOpen(path, O_RDONLY | (O_NOFOLLOW ?? 0) | (O_NONBLOCK ?? 0), (cause, fd) => {
        if (cause === null) return resume(Effect.succeed(fd))
        // ELOOP: a symbolic link (EMLINK where the platform says so, as FreeBSD does).
        const link = cause.code === "ELOOP" || cause.code === "EMLINK"
        resume(Effect.succeed(link ? refusedAs(notOwnFile("SymbolicLink", 1, undefined)!) : UNREAD))
      })
    }),
    (opened) =>
      typeof opened !== "number" ? Effect.succeed(opened) : Effect.callback<OwnFile>((resume) => {
        fstat(opened, (cause, info) => {
          if (cause !== null) return resume(Effect.succeed(UNREAD))
          const problem = notOwnFile(info.isFile() ? "File" : "Other", info.nlink, info.uid)
          if (problem !== undefined) return resume(Effect.succeed(refusedAs(problem)))
          readFile(opened, "utf8", (cause, text) => resume(Effect.succeed(cause === null ? readAs(text) : UNREAD)))
        })
      }),
    (opened) =>
      typeof opened !== "number"
        ? Effect.void
        : Effect.callback<void>((resume) => fsClose(opened, () => resume(Effect.void)))
  )

const open = (path: string, opening: Opening): Effect.Effect<FileChannel, OutputError, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.callback<{ readonly stream: WriteStream; readonly fd: number }, OutputError>((resume) => {
      fsOpen(path, flagsOf(opening), PRIVATE, (cause, fd) => {
        // The stream owns the descriptor from here: it closes it when it ends or fails.
        resume(
          cause === null
            ? Effect.succeed({ stream: createWriteStream(path, { fd }), fd })
            : Effect.fail(openError(path, opening, cause))
        )
      })
    }),
    ({ stream }) => ended(stream)
  ).pipe(
    Effect.tap(({ fd }) => prepare(fd, path, opening)),
    Effect.map(({ fd, stream }): FileChannel => {
      // The final permissions, given while the file is still open: never a chmod by name, which a link put there
      // since would carry to another file. A failure leaves them 0600.
      // (A stream destroyed by a failed write has closed its descriptor: nothing to give them to.)
      const permissions = opening._tag === "InPlace" ?
        Effect.void :
        Effect.suspend(() =>
          stream.destroyed
            ? Effect.void
            : Effect.ignore(call<void>(path, (done) => fchmod(fd, opening.permissions, done)))
        )
      return {
        ...channelOf(stream, path, false),
        close: permissions.pipe(
          Effect.andThen(ended(stream)),
          Effect.andThen(Effect.suspend(() => {
            const cause: unknown = stream.errored
            return cause === null || cause === undefined ? Effect.void : Effect.fail(outputError(path, cause))
          }))
        ),
        end: Effect.map(ended(stream), () => stream.errored === null || stream.errored === undefined)
      }
    })
  )
