/* eslint-disable @typescript-eslint/no-explicit-any -- a record of a script run by hand, kept as it ran */
// Issue #26, eighth pass: the step merges (step-merge-eighth-pass.diff) against the commit before them, in one process
// (BENCHMARKS.md, eighth pass). Ran by hand from packages/node as zz-ab.ts, with 3049100 checked out in a git worktree at
// /work/scratch/wt-old ("old") and the working tree with the diff applied ("new"): each client over a canned transport
// answering on setImmediate, placeOrder at one in flight, 20,000 a round, rounds alternating in both orders.
// `taskset -c 0 node --conditions=@spotkit/source zz-ab.ts 15`
import * as Old from "/work/scratch/wt-old/packages/core/src/index.ts"
import * as New from "@spotkit/core"
import { Effect, Layer, ManagedRuntime, Redacted } from "effect"
import { HttpClient } from "effect/http"
import { credentials, orderBody } from "../../bench/src/peers/shared.ts"
import * as NodeSigner from "./src/NodeSigner.ts"
const far = { limit: 1e12, windowMillis: 10_000 }
const make = async (M: typeof New) => {
  const canned = HttpClient.makeWith(
    (effect) =>
      Effect.flatMap(effect, (request: any) =>
        Effect.callback<any>((resume) => {
          setImmediate(() => {
            const body = Buffer.from(
              `{"code":"00000","msg":"success","requestTime":${Date.now()},"data":{"orderId":1001000000000000090,"clientOrderId":"bench-0"}}`
            )
            resume(
              Effect.succeed(
                new M.BufferedResponse.BufferedResponse({
                  request,
                  url: request.url,
                  status: 200,
                  headers: { "content-type": "application/json" },
                  body
                })
              )
            )
          })
        })),
    Effect.succeed as any
  )
  const rt = ManagedRuntime.make(
    M.SpotClient.layer({
      baseUrl: "http://127.0.0.1:1",
      credentials: {
        apiKey: Redacted.make(credentials.apiKey),
        secretKey: Redacted.make(credentials.secretKey),
        passphrase: Redacted.make(credentials.passphrase)
      },
      rateLimit: { uid: far, ip: far, perEndpoint: { limit: 1e12, windowMillis: 1_000 } },
      timeoutBy: "transport"
    }).pipe(
      Layer.provide([
        Layer.succeed(HttpClient.HttpClient, canned as any),
        Layer.succeed(M.Signer.Signer, NodeSigner.nodeCrypto as any)
      ])
    )
  )
  const client: any = await rt.runPromise(Effect.service(M.SpotClient.SpotClient as any))
  let id = 0
  const one = Effect.suspend(() => client.placeOrder(orderBody(`s${id++}`)))
  return (n: number) =>
    rt.runPromise(Effect.forEach(Array.from({ length: n }), () => one, { concurrency: 1, discard: true }))
}
const runs = { old: await make(Old as any), new: await make(New) }
const N = 20000, R = Number(process.argv[2] ?? 15)
for (const k of ["old", "new"] as const) await runs[k](N)
const res: Record<string, number[]> = { old: [], new: [] }
for (let r = 0; r < R; r++) {
  for (const k of (r % 2 ? ["old", "new"] : ["new", "old"]) as Array<"old" | "new">) {
    const c0 = process.cpuUsage()
    await runs[k](N)
    const c = process.cpuUsage(c0)
    res[k]!.push((c.user + c.system) / N)
  }
}
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!
console.log(
  "old",
  med(res.old!).toFixed(2),
  "new",
  med(res.new!).toFixed(2),
  "diff(new-old) median",
  med(res.new!.map((x, i) => x - res.old![i]!)).toFixed(2)
)
