/**
 * A real HTTP(S) proxy in a child process on loopback: the npm `proxy` package (the one undici's own tests use),
 * which forwards plain requests and tunnels `CONNECT`s. It prints each request it handles (`REQUEST <method> <url>`,
 * `CONNECT <host:port>`), which `seen` collects. With `credentials`, it answers 407 to any request without them.
 */
import { Effect } from "effect"
import { spawn } from "node:child_process"
import { packageDir } from "./cli.ts"

const script = `
import { createProxy } from "proxy"
const proxy = createProxy()
const expected = process.argv[1]
if (expected) proxy.authenticate = (req) => req.headers["proxy-authorization"] === "Basic " + expected
proxy.on("request", (req) => console.log("REQUEST " + req.method + " " + req.url))
proxy.on("connect", (req) => console.log("CONNECT " + req.url))
proxy.listen(0, "127.0.0.1", () => console.log("LISTENING " + proxy.address().port))
`

export const proxyServer = (credentials?: { readonly user: string; readonly password: string }) =>
  Effect.acquireRelease(
    Effect.callback<{ readonly url: string; readonly seen: Array<string>; readonly kill: () => void }>((resume) => {
      const basic = credentials === undefined
        ? ""
        : Buffer.from(`${credentials.user}:${credentials.password}`).toString("base64")
      const child = spawn(process.execPath, ["--input-type=module", "-e", script, basic], {
        cwd: packageDir,
        stdio: ["ignore", "pipe", "inherit"]
      })
      const seen: Array<string> = []
      let buffered = ""
      child.stdout.setEncoding("utf8")
      child.stdout.on("data", (chunk: string) => {
        buffered += chunk
        const lines = buffered.split("\n")
        buffered = lines.pop()!
        for (const line of lines) {
          const listening = /^LISTENING (\d+)$/.exec(line)
          if (listening === null) seen.push(line)
          else resume(Effect.succeed({ url: `http://127.0.0.1:${listening[1]}`, seen, kill: () => child.kill() }))
        }
      })
      child.on("exit", (code) => resume(Effect.die(new Error(`the proxy exited (${code})`))))
      return Effect.sync(() => child.kill())
    }),
    (proxy) => Effect.sync(() => proxy.kill())
  )
