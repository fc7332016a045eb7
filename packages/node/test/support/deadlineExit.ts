// Run as a child process by undiciClient.test.ts: one exchange, answered, through the undici HttpClient with a
// timeout far longer than the test waits (60 s), then nothing more. The process must end by itself at once: the
// client's deadline timer, still armed for that timeout, must not hold it open. Prints `answered <status>`.
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { Effect, Layer } from "effect"
import { HttpClient } from "effect/http"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import * as UndiciClient from "../../src/internal/undiciClient.ts"

const server = createServer((_request, response) => response.end("{}"))
server.listen(0, "127.0.0.1", () => {
  const { port } = server.address() as AddressInfo
  const client = Layer.effect(HttpClient.HttpClient, UndiciClient.make({ timeoutMillis: 60_000 })).pipe(
    Layer.provide(NodeHttpClient.layerDispatcherOptions({}))
  )
  const exchange = Effect.flatMap(
    Effect.service(HttpClient.HttpClient),
    (http) => http.get(`http://127.0.0.1:${port}/`)
  )
  void Effect.runPromise(Effect.provide(exchange, client)).then((response) => {
    process.stdout.write(`answered ${response.status}\n`)
    server.close()
  })
})
