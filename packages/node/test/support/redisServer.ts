/**
 * A real `redis-server` (Debian's package; `.ci/run` installs it when missing) on a free loopback port, with a
 * temporary directory, no persistence, stopped when the scope closes. `stop` and `start` stop it mid-test and start it
 * again on the same port (an empty server again, as after a restart without persistence).
 */
import { Effect, type Scope } from "effect"
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"

export interface RedisServer {
  readonly port: number
  readonly url: string
  readonly stop: Effect.Effect<void>
  readonly start: Effect.Effect<void>
  /** Runs one command with `redis-cli` (for inspecting keys). */
  readonly cli: (...args: ReadonlyArray<string>) => string
}

const freePort = Effect.callback<number>((resume) => {
  const server = createServer()
  server.listen(0, "127.0.0.1", () => {
    const address = server.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    server.close(() => resume(Effect.succeed(port)))
  })
})

const launch = (port: number, dir: string) =>
  Effect.callback<ChildProcess, Error>((resume) => {
    const child = spawn("redis-server", [
      "--port",
      String(port),
      "--bind",
      "127.0.0.1",
      "--dir",
      dir,
      "--save",
      "",
      "--appendonly",
      "no"
    ], { stdio: ["ignore", "pipe", "pipe"] })
    let output = ""
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      if (output.includes("Ready to accept connections")) {
        child.stdout?.off("data", onData)
        child.stdout?.resume()
        resume(Effect.succeed(child))
      }
    }
    child.stdout?.on("data", onData)
    child.stderr?.resume()
    child.once("error", (error) =>
      resume(Effect.fail(new Error(`cannot start redis-server (apt-get install redis-server): ${error.message}`))))
    child.once("exit", (code) =>
      resume(Effect.fail(new Error(`redis-server exited (${code}): ${output}`))))
  })

const kill = (child: ChildProcess | undefined) =>
  Effect.callback<void>((resume) => {
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
    child.removeAllListeners("exit")
    child.once("exit", () => resume(Effect.void))
    child.kill("SIGTERM")
  })

/** A redis-server for the current scope. */
export const redisServer: Effect.Effect<RedisServer, Error, Scope.Scope> = Effect.gen(function*() {
  const port = yield* freePort
  const dir = mkdtempSync(join(tmpdir(), "spotkit-redis-"))
  let child: ChildProcess | undefined = yield* launch(port, dir)
  yield* Effect.addFinalizer(() =>
    Effect.andThen(kill(child), Effect.sync(() => rmSync(dir, { recursive: true, force: true })))
  )
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    stop: Effect.suspend(() => {
      const running = child
      child = undefined
      return kill(running)
    }),
    start: Effect.orDie(Effect.map(launch(port, dir), (started) => {
      child = started
    })),
    cli: (...args) => execFileSync("redis-cli", ["-p", String(port), ...args], { encoding: "utf8" })
  }
})
